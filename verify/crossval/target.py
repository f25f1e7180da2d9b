"""Calling the code under test, in this process or in a child process with a time limit.

The code under test is arbitrary Python: it may call ``sys.exit``, kill its own process or
never return. None of these may read as agreement, so each one is a :class:`TargetFailed`
that the checks report as an error, never as a verdict:

- :class:`TargetRaised`: the function raised an exception (shrunk and reported, like a
  wrong value, since the smallest input that makes it raise is useful);
- :class:`TargetExited`: it called ``sys.exit`` (at import or when called);
- :class:`TargetDied`: its process ended without an answer (``os._exit``, a crash, a signal);
- :class:`TargetTimedOut`: it did not answer within the time limit;
- :class:`TargetInterrupted`: it raised ``KeyboardInterrupt`` in its own process (an interrupt
  of the target's making: boolverify's own Ctrl-C reaches boolverify, not the target).

:class:`ChildTarget` imports ``MODULE:FUNCTION`` in a child process started with the
``spawn`` method (no state of this process leaks into it) and reuses that child for call after
call, as a Hypothesis run makes hundreds of them; after an exit, a death or a time-out the
child is discarded and the next call starts a fresh one. :class:`InProcessTarget` calls a
Python callable directly (the library API), which catches ``sys.exit`` but cannot stop a
function that never returns.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path

from numeric.validation import InputError, check_real, reject

#: Input types a function can be handed (:class:`verify.crossval.XorConventions`).
ARRAY_KINDS = ("numpy", "torch", "list")
#: Default time limit of one call of the code under test, in seconds.
DEFAULT_TIMEOUT = 60.0
#: Longest time limit accepted: a day.
MAX_TIMEOUT = 86400.0


class TargetFailed(Exception):
    """The code under test gave no value to compare: it raised, exited, died or timed out."""


class TargetRaised(TargetFailed):
    """The function under test raised; ``description`` is ``"TypeName: message"``; ``exc`` is
    the exception itself when the function ran in this process (else ``None``)."""

    def __init__(self, description, exc=None, inputs=None):
        super().__init__(description)
        self.description = description
        self.exc = exc
        self.inputs = inputs


class TargetExited(TargetFailed):
    """The code under test called ``sys.exit`` (or raised ``SystemExit``)."""

    def __init__(self, code, when):
        shown = "" if code is None else repr(code)
        super().__init__(f"the target called sys.exit({shown}) {when}; a target that exits gives no value "
                         "to compare, so nothing was checked")
        self.code = code


class TargetDied(TargetFailed):
    """The child process running the code under test ended without an answer."""

    def __init__(self, exitcode, when):
        if exitcode is not None and exitcode < 0:
            import signal

            try:
                how = f"was killed by signal {signal.Signals(-exitcode).name}"
            except ValueError:
                how = f"was killed by signal {-exitcode}"
        else:
            how = f"ended with exit code {exitcode}"
        super().__init__(f"the target's process {how} {when} without giving a value (os._exit, a crash?); "
                         "nothing was compared")
        self.exitcode = exitcode


class TargetInterrupted(TargetFailed):
    """The code under test raised ``KeyboardInterrupt`` in the process that runs it."""

    def __init__(self, when):
        super().__init__(f"the target raised KeyboardInterrupt {when}; an interrupted target gives no value to "
                         "compare, so nothing more was checked")


class TargetTimedOut(TargetFailed):
    """The code under test did not answer within the time limit."""

    def __init__(self, timeout, when):
        super().__init__(f"the target did not return within {_seconds(timeout)} {when}; it was stopped "
                         "and nothing more was compared (a longer limit: --timeout, timeout=)")
        self.timeout = timeout


def _seconds(t):
    return f"{t:g} s"


def check_timeout(value, name="timeout"):
    """A time limit in seconds: a finite number in (0, 86400]."""
    return check_real(value, name, lo=0, hi=MAX_TIMEOUT, lo_open=True)


# --------------------------------------------------------------------------- loading


def parse_target(spec, name="target"):
    """Split ``MODULE:FUNCTION`` into its parts (checked, not imported)."""
    expected = "MODULE:FUNCTION, e.g. mypkg.model:loss or ./impl.py:grad"
    if not isinstance(spec, str):
        reject(name, spec, expected)
    mod_name, sep, func_name = spec.rpartition(":")
    if not sep or not mod_name or not func_name.isidentifier():
        if spec.endswith(".py") and ":" not in spec:
            reject(name, spec, f"{spec}:FUNCTION: a Python file needs the name of the function to call")
        reject(name, spec, expected)
    if not mod_name.endswith(".py") and not all(part.isidentifier() for part in mod_name.split(".")):
        reject(name, spec, expected + " (MODULE is a dotted module name or a path ending in .py)")
    return mod_name, func_name


def check_paths(paths, name="--path"):
    """Folders to make importable: each must be an existing directory; returned absolute."""
    out = []
    for p in paths or ():
        if not isinstance(p, (str, os.PathLike)) or not Path(p).is_dir():
            reject(name, str(p), "an existing folder to add to the import path")
        out.append(str(Path(p).resolve()))
    return out


def import_paths(spec, paths=()):
    """The folders the target is imported from, first to last: the ``paths`` given, the folder of
    a ``path/to/file.py`` target, and the current working directory (like ``python -m``)."""
    mod_name, _ = parse_target(spec)
    out = list(paths)
    if mod_name.endswith(".py"):
        out.append(str(Path(mod_name).resolve().parent))
    out.append(os.getcwd())
    return list(dict.fromkeys(out))


def target_source(spec, paths=()):
    """The file of the target's module, found without importing anything (``None`` when no
    folder of :func:`import_paths` or ``sys.path`` holds it): a ``path/to/file.py`` itself, else
    ``a/b.py`` or ``a/b/__init__.py`` of the first folder that has one."""
    mod_name, _ = parse_target(spec)
    if mod_name.endswith(".py"):
        return Path(mod_name)
    rel = Path(*mod_name.split("."))
    for folder in [*import_paths(spec, paths), *sys.path]:
        for cand in (Path(folder or ".") / rel.with_suffix(".py"), Path(folder or ".") / rel / "__init__.py"):
            if cand.is_file():
                return cand
    return None


def load_callable(spec: str, paths=()):
    """Import ``MODULE:FUNCTION`` (a dotted module or a ``path/to/file.py``) and return the function.

    The module is executed as code, in this process. The folders of :func:`import_paths` are put
    at the front of ``sys.path`` for the import and stay there, since a function may import
    lazily when it is called. ``SystemExit`` from the module propagates (see :class:`ChildTarget`).
    """
    mod_name, func_name = parse_target(spec)
    for folder in reversed(import_paths(spec, paths)):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise InputError(f"module file {mod_name!r} does not exist")
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(mod_name)
    except InputError:
        raise
    except ModuleNotFoundError as exc:
        raise InputError(f"cannot import module {mod_name!r}: {exc} (the current folder and --path "
                         "folders are importable; for code whose dependencies are installed in another "
                         "environment, run it there with --python ENV/bin/python, python=)") from None
    except Exception as exc:  # the user's module raised while importing
        raise InputError(f"importing {mod_name!r} raised {type(exc).__name__}: {exc}") from None
    if not hasattr(module, func_name):
        raise InputError(f"module {mod_name!r} has no attribute {func_name!r}")
    fn = getattr(module, func_name)
    if not callable(fn):
        raise InputError(f"{spec!r} is not callable (it is a {type(fn).__name__})")
    return fn


# --------------------------------------------------------------------------- one call


def _convert(x, array):
    """A numpy argument in the input type the function expects."""
    import numpy as np

    if not isinstance(x, np.ndarray) or array == "numpy":
        return x
    if array == "torch":
        import torch

        return torch.from_numpy(x.copy())
    return x.tolist()


def invoke(fn, args, optional, array):
    """``fn(*args, **optional)``, the numpy arrays of ``args`` converted to ``array``'s type and
    only the keywords of ``optional`` that ``fn`` takes passed."""
    kwargs = {}
    if optional:
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            params = {}
        kwargs = {k: v for k, v in optional.items() if k in params}
    return fn(*(_convert(a, array) for a in args), **kwargs)


def plain(value):
    """A returned value as numpy arrays, Python numbers, tuples and lists (no torch, no user
    classes), so it can be sent between processes and read as numbers."""
    import numpy as np

    if hasattr(value, "detach") and hasattr(value, "cpu"):  # a torch tensor
        value = value.detach().cpu()
        if hasattr(value, "resolve_conj"):
            value = value.resolve_conj()
        return np.array(value.tolist())    # complex stays complex, to be refused, not cast
    if isinstance(value, (str, bytes)):    # text is not a number, even when it reads as one
        return f"<{type(value).__name__}>"
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (bool, int, float, complex, np.ndarray, np.generic)) or value is None:
        return value
    try:  # e.g. a jax array, a memoryview, a Decimal
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return f"<{type(value).__name__}>"


class InProcessTarget:
    """A Python callable, called in this process."""

    def __init__(self, fn, array="numpy"):
        if not callable(fn):
            reject("fn", f"<{type(fn).__name__}>", "a callable or a 'MODULE:FUNCTION' string")
        self.fn = fn
        self.array = array
        self.name = getattr(fn, "__qualname__", repr(fn))

    def call(self, args, optional=None):
        pid = os.getpid()
        try:
            out = plain(invoke(self.fn, args, optional, self.array))
        except SystemExit as exc:
            _leave_if_forked(pid)
            raise TargetExited(exc.code, "when called") from None
        except Exception as exc:
            _leave_if_forked(pid)
            raise TargetRaised(f"{type(exc).__name__}: {exc}", exc=exc) from exc
        _leave_if_forked(pid)
        return out

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _leave_if_forked(pid):
    """A copy of the process forked by the target (``os.fork`` whose child returns) must not go on
    running the caller's code, answering twice or re-running a test suite: it ends here."""
    if os.getpid() != pid:
        os._exit(0)


def _tie_to_parent():  # pragma: no cover - runs in the child process
    """Put the child in a process group of its own (so that it and whatever the target starts
    are stopped together, :meth:`ChildTarget.close`) and, on Linux, have the kernel kill it when
    the parent dies, even by SIGKILL, which no handler of the parent sees."""
    import signal

    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)          # PR_SET_PDEATHSIG
        if os.getppid() == 1:                   # the parent died before the call
            os._exit(1)
    except (OSError, AttributeError):
        pass


def _kill_group(proc):
    """SIGKILL the child's process group (the child and what the target started), then the
    child itself where it has no group of its own yet."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, ProcessLookupError):
        pass
    proc.kill()


def _child_main(conn, spec, paths, array):  # pragma: no cover - runs in the child process
    """The child's loop: import the target, then answer ``(args, optional)`` messages until
    ``None`` or the end of the pipe."""
    import pickle

    _tie_to_parent()

    def send(msg):
        try:
            conn.send(msg)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            conn.send(("badvalue", f"cannot send the returned value back ({type(exc).__name__}: {exc})"))

    try:
        fn = load_callable(spec, paths)
    except SystemExit as exc:
        conn.send(("exit", _code(exc)))
        return
    except KeyboardInterrupt:
        conn.send(("interrupted", None))
        return
    except InputError as exc:
        conn.send(("input", str(exc)))
        return
    conn.send(("ready", None))
    pid = os.getpid()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        args, optional = msg
        try:
            out = plain(invoke(fn, args, optional, array))
        except SystemExit as exc:
            _leave_if_forked(pid)
            conn.send(("exit", _code(exc)))
            return
        except KeyboardInterrupt:
            _leave_if_forked(pid)
            conn.send(("interrupted", None))
            return
        except Exception as exc:
            _leave_if_forked(pid)
            try:
                text = f"{type(exc).__name__}: {exc}"
            except Exception:  # an exception whose str() raises
                text = type(exc).__name__
            send(("raised", text))
            continue
        _leave_if_forked(pid)
        send(("ok", out))


def _code(exc):
    code = exc.code
    return code if code is None or isinstance(code, (int, str)) else repr(code)


class ChildTarget:
    """``MODULE:FUNCTION`` imported and called in a child process, ``timeout`` seconds per call.

    The module is executed as code (in the child). ``paths`` are extra import folders.
    """

    def __init__(self, spec, *, timeout=DEFAULT_TIMEOUT, paths=(), array="numpy"):
        mod_name, _ = parse_target(spec)
        if mod_name.endswith(".py") and not Path(mod_name).is_file():
            raise InputError(f"module file {mod_name!r} does not exist")
        self.spec = spec
        self.name = spec
        self.timeout = check_timeout(timeout)
        self.paths = import_paths(spec, check_paths(paths, "paths"))
        self.array = array
        self._proc = None
        self._conn = None
        self.starts = 0

    def _start(self):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_child_main, args=(theirs, self.spec, self.paths, self.array),
                           name="boolverify-crossval-target", daemon=False)
        # Not daemonic: a daemonic process may start no processes of its own, and a target may use
        # multiprocessing; the child is stopped by close() and dies with this process
        # (_tie_to_parent), so it does not outlive the run either way.
        proc.start()
        theirs.close()
        self._proc, self._conn = proc, mine
        self.starts += 1
        kind, payload = self._receive("while its module was imported")
        if kind == "exit":
            self.close()
            raise TargetExited(payload, "while its module was imported")
        if kind == "input":
            self.close()
            raise InputError(payload)
        if kind == "interrupted":
            self.close()
            raise TargetInterrupted("while its module was imported")

    def _receive(self, when):
        # The child's own start-up (a fresh interpreter importing numpy) is not the target's
        # fault: the first answer gets a few seconds more.
        limit = self.timeout + (10.0 if when.startswith("while") else 0.0)
        try:
            ready = self._conn.poll(limit)
        except (EOFError, OSError):
            ready = True
        if not ready:
            self.close()
            raise TargetTimedOut(self.timeout, when)
        try:
            return self._conn.recv()
        except (EOFError, OSError, ConnectionError):
            code = self._reap()
            raise TargetDied(code, when) from None

    def call(self, args, optional=None):
        if self._proc is None:
            self._start()
        try:
            self._conn.send((tuple(args), dict(optional or {})))
        except (BrokenPipeError, ConnectionError, EOFError, OSError):
            code = self._reap()
            raise TargetDied(code, "when called") from None
        kind, payload = self._receive("when called")
        if kind == "ok":
            return payload
        if kind == "raised":
            raise TargetRaised(payload)
        if kind == "exit":
            self.close()
            raise TargetExited(payload, "when called")
        if kind == "interrupted":
            self.close()
            raise TargetInterrupted("when called")
        if kind == "badvalue":
            raise InputError(f"{self.spec}: {payload}")
        raise InputError(f"{self.spec}: unexpected answer {kind!r} from the target's process")

    def _reap(self):
        proc = self._proc
        self._proc, conn, self._conn = None, self._conn, None
        if conn is not None:
            conn.close()
        if proc is None:
            return None
        proc.join(2)
        if proc.is_alive():
            _kill_group(proc)
            proc.join()
        else:
            _kill_group(proc)       # what the target started and left behind
        return proc.exitcode

    def close(self):
        """Stop the child (asked to leave, then killed); the next call starts a new one."""
        if self._proc is None:
            return
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        try:
            conn.send(None)
        except (OSError, ValueError):
            pass
        conn.close()
        proc.join(0.5)
        _kill_group(proc)
        proc.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


__all__ = [
    "ARRAY_KINDS", "DEFAULT_TIMEOUT", "ChildTarget", "InProcessTarget", "TargetDied", "TargetExited",
    "TargetFailed", "TargetInterrupted", "TargetRaised", "TargetTimedOut", "check_paths", "check_timeout", "import_paths",
    "load_callable", "parse_target", "plain", "target_source",
]
