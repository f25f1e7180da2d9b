"""The runner of a cross-validation target under another Python interpreter (``--python``).

This file is run as a script by that interpreter (:class:`verify.crossval.remote.RemoteTarget`),
which need not have boolverify, numpy or anything else installed: it uses the standard library
only and keeps to the syntax of Python 3.8, the oldest interpreter accepted. It exchanges plain
data only, one JSON object per line:

- from boolverify, first ``{"spec", "paths", "array"}``, then one ``{"args", "optional"}`` per
  call; arrays come as ``{"__ndarray__": nested lists, "dtype": ...}`` and are handed to the
  target as numpy arrays, torch tensors or lists (``array``), tuples as ``{"__tuple__": [...]}``;
- to boolverify, ``{"kind": "ready" | "input" | "exit" | "ok" | "raised" | "interrupted" |
  "badvalue", ...}``; returned arrays and tensors travel as nested lists, floats as JSON numbers
  (``repr``, exact), complex numbers as ``{"__complex__": [re, im]}`` so that they are refused
  rather than read as reals, and anything else that is not a number as ``"<TypeName>"``.

The protocol owns the process's original stdin and stdout: the target reads an empty stdin and
what it prints goes to stderr, so a target that prints or reads cannot corrupt the exchange.
"""

import importlib
import importlib.util
import json
import os
import sys

_MAIN_PID = os.getpid()
_MAX_DEPTH = 64


def _tie_to_parent():
    """Have the kernel kill this process when boolverify dies, even by SIGKILL (Linux only)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)          # PR_SET_PDEATHSIG
        if os.getppid() == 1:
            os._exit(1)
    except (OSError, AttributeError, ImportError):
        pass


def _own_streams():
    """The protocol's streams, taken from fds 0 and 1 before the target can touch them."""
    proto_in = os.fdopen(os.dup(0), "rb")
    proto_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return proto_in, proto_out


def _where():
    return "{} (Python {})".format(sys.executable, ".".join(str(v) for v in sys.version_info[:3]))


def _load(spec, paths):
    mod_name, _, func_name = spec.rpartition(":")
    for folder in reversed(paths):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        if mod_name.endswith(".py"):
            if not os.path.isfile(mod_name):
                return None, "module file {!r} does not exist".format(mod_name)
            stem = os.path.splitext(os.path.basename(mod_name))[0]
            module_spec = importlib.util.spec_from_file_location(stem, mod_name)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(mod_name)
    except ImportError as exc:
        return None, "cannot import module {!r} in {}: {}".format(mod_name, _where(), exc)
    except Exception as exc:  # the user's module raised while importing
        return None, "importing {!r} in {} raised {}: {}".format(mod_name, _where(), type(exc).__name__, exc)
    if not hasattr(module, func_name):
        return None, "module {!r} has no attribute {!r}".format(mod_name, func_name)
    fn = getattr(module, func_name)
    if not callable(fn):
        return None, "{!r} is not callable (it is a {})".format(spec, type(fn).__name__)
    return fn, None


def _array_maker(array):
    """How an array argument is handed to the target, or an error text when the module that
    kind needs is not installed in this interpreter."""
    if array == "list":
        return lambda data, dtype: data, None
    try:
        if array == "torch":
            import torch

            return lambda data, dtype: torch.tensor(data, dtype=getattr(torch, dtype)), None
        import numpy

        return lambda data, dtype: numpy.asarray(data, dtype=dtype), None
    except ImportError as exc:
        return None, ("the target is handed {} arrays, but {} cannot import {} ({}); install it there, "
                      "or hand the target plain lists (--array list, array='list')").format(
                          array, _where(), array, exc)


def _decode(value, make):
    if isinstance(value, dict):
        if "__ndarray__" in value:
            return make(value["__ndarray__"], value["dtype"])
        if "__tuple__" in value:
            return tuple(_decode(v, make) for v in value["__tuple__"])
        return {k: _decode(v, make) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v, make) for v in value]
    return value


def _plain(value, depth=0):
    """A returned value as JSON data: numbers, lists and the markers of the module docstring."""
    if depth > _MAX_DEPTH:
        raise ValueError("the returned value is nested more than {} levels deep".format(_MAX_DEPTH))
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, complex):
        return {"__complex__": [value.real, value.imag]}
    if isinstance(value, (str, bytes)):     # text is not a number, even when it reads as one
        return "<{}>".format(type(value).__name__)
    if isinstance(value, tuple):
        return {"__tuple__": [_plain(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [_plain(v, depth + 1) for v in value]
    if hasattr(value, "detach") and hasattr(value, "cpu"):       # a torch tensor
        value = value.detach().cpu()
        if hasattr(value, "resolve_conj"):
            value = value.resolve_conj()
        return _plain(value.tolist(), depth + 1)
    if hasattr(value, "tolist") and callable(value.tolist):     # numpy, jax, array.array
        try:
            listed = value.tolist()
        except Exception:
            listed = None
        if listed is not None and listed is not value:
            return _plain(listed, depth + 1)
    if not isinstance(value, dict) and hasattr(value, "__float__"):  # Decimal, Fraction
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            pass
    return "<{}>".format(type(value).__name__)


def _invoke(fn, args, optional):
    kwargs = {}
    if optional:
        import inspect

        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            params = {}
        kwargs = {k: v for k, v in optional.items() if k in params}
    return fn(*args, **kwargs)


def _exit_code(exc):
    code = exc.code
    return code if code is None or isinstance(code, (int, str)) else repr(code)


def _describe(exc):
    try:
        return "{}: {}".format(type(exc).__name__, exc)
    except Exception:  # an exception whose str() raises
        return type(exc).__name__


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    # the runner's own folder must not shadow the target's modules
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    _tie_to_parent()
    proto_in, proto_out = _own_streams()

    def send(msg):
        try:
            line = json.dumps(msg)
        except (TypeError, ValueError, RecursionError) as exc:
            line = json.dumps({"kind": "badvalue", "message": "cannot send the returned value back ({})".format(
                _describe(exc))})
        proto_out.write(line.encode("utf-8") + b"\n")
        proto_out.flush()

    setup = json.loads(proto_in.readline().decode("utf-8"))
    make, problem = _array_maker(setup["array"])
    if problem:
        send({"kind": "input", "message": problem})
        return
    try:
        fn, problem = _load(setup["spec"], setup["paths"])
    except SystemExit as exc:
        send({"kind": "exit", "code": _exit_code(exc)})
        return
    except KeyboardInterrupt:
        send({"kind": "interrupted", "when": "while its module was imported"})
        return
    if problem:
        send({"kind": "input", "message": problem})
        return
    send({"kind": "ready", "python": _where()})
    while True:
        line = proto_in.readline()
        if not line:
            return
        msg = json.loads(line.decode("utf-8"))
        reply = _answer(fn, msg, make)
        if os.getpid() != _MAIN_PID:
            # a copy forked by the target returned into this loop: it must not answer too
            os._exit(0)
        send(reply)
        if reply["kind"] in ("exit", "interrupted"):
            return


def _answer(fn, msg, make):
    try:
        out = _invoke(fn, _decode(msg["args"], make), msg.get("optional") or {})
    except SystemExit as exc:
        return {"kind": "exit", "code": _exit_code(exc)}
    except KeyboardInterrupt:
        return {"kind": "interrupted", "when": "when called"}
    except Exception as exc:
        return {"kind": "raised", "text": _describe(exc)}
    try:
        return {"kind": "ok", "value": _plain(out)}
    except Exception as exc:
        return {"kind": "badvalue", "message": "cannot send the returned value back ({})".format(_describe(exc))}

if __name__ == "__main__":
    main()
