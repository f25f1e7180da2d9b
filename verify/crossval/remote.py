"""A cross-validation target run by another Python interpreter (``--python PATH``, ``python=``).

Code whose dependencies live in the user's own environment cannot be imported by boolverify's
interpreter; :class:`RemoteTarget` runs it under that environment's interpreter instead, as a
subprocess executing :mod:`verify.crossval.runner` (standard library only, so the interpreter
needs nothing of boolverify), and exchanges plain JSON data with it: arrays as nested lists,
floats as exact ``repr``s. The interpreter is checked first (:func:`check_python`): a path that
does not exist, is not executable, is not Python or is older than :data:`MIN_PYTHON` is bad input,
named as such, before anything runs.

The subprocess is a session of its own (one process group with whatever the target starts, so
all are stopped together) and dies with boolverify; like :class:`~verify.crossval.target.ChildTarget`
it is reused call after call, and replaced after an exit, a death or a time-out.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from numeric.validation import InputError, reject
from verify.crossval.target import (
    DEFAULT_TIMEOUT, TargetDied, TargetExited, TargetInterrupted, TargetRaised, TargetTimedOut, check_paths,
    check_timeout, import_paths, parse_target,
)

#: Oldest interpreter the runner is written for.
MIN_PYTHON = (3, 8)
#: Time limit of the version probe of an interpreter, in seconds.
PROBE_TIMEOUT = 30.0
RUNNER = Path(__file__).with_name("runner.py")
# Valid in Python 2 and 3 alike, so that an old interpreter is named as too old, not as broken.
_PROBE = "import sys; sys.stdout.write('boolverify-probe %d %d %d' % tuple(sys.version_info[:3]))"
_STDERR_TAIL = 300


def check_python(value, name="python") -> tuple[str, tuple]:
    """An interpreter to run a target with: a path (or a command found on ``PATH``) of an
    executable Python of at least :data:`MIN_PYTHON`; returned as ``(absolute path, version)``."""
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        reject(name, value, "the path of a Python interpreter, e.g. /path/to/venv/bin/python")
    text = str(value)
    exe = text if os.sep in text else shutil.which(text)
    if exe is None:
        reject(name, text, "the path of a Python interpreter (no such command on PATH)")
    path = Path(exe)
    if not path.exists():
        reject(name, text, "the path of a Python interpreter (no such file)")
    if path.is_dir():
        reject(name, text, "the path of a Python interpreter, not a folder (e.g. VENV/bin/python)")
    if not os.access(path, os.X_OK):
        reject(name, text, "the path of a Python interpreter (the file is not executable)")
    # not resolved: a venv's bin/python is a link whose target does not know the venv
    exe = str(path.absolute())
    try:
        r = subprocess.run([exe, "-c", _PROBE], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=PROBE_TIMEOUT, start_new_session=True)
    except subprocess.TimeoutExpired:
        raise InputError(f"{name} = {text!r}: not a Python interpreter (it did not answer a version query "
                         f"within {PROBE_TIMEOUT:g} s)") from None
    except OSError as exc:
        raise InputError(f"{name} = {text!r}: cannot be run ({exc.strerror or exc})") from None
    match = re.fullmatch(rb"boolverify-probe (\d+) (\d+) (\d+)", r.stdout.strip())
    if r.returncode != 0 or match is None:
        said = (r.stdout or r.stderr).decode("utf-8", "replace").strip().splitlines()
        shown = f"printed {said[0][:100]!r}" if said else "printed nothing"
        raise InputError(f"{name} = {text!r}: not a Python interpreter (asked for its version with -c, it "
                         f"{shown} and exited with code {r.returncode})")
    version = tuple(int(v) for v in match.groups())
    if version[:2] < MIN_PYTHON:
        raise InputError(f"{name} = {text!r}: Python {'.'.join(map(str, version))} is too old; the target "
                         f"runner needs Python {'.'.join(map(str, MIN_PYTHON))} or newer")
    return exe, version


def encode(value):
    """An argument as JSON data (the runner's side of the format: :mod:`verify.crossval.runner`)."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def decode(value):
    """A returned value from JSON data: tuples and complex numbers restored, lists kept."""
    if isinstance(value, dict):
        if "__tuple__" in value:
            return tuple(decode(v) for v in value["__tuple__"])
        if "__complex__" in value:
            re_, im = value["__complex__"]
            return complex(re_, im)
        return "<dict>"
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


class RemoteTarget:
    """``MODULE:FUNCTION`` imported and called by the interpreter ``python``, ``timeout`` seconds
    per call. The module is executed as code, in that interpreter."""

    def __init__(self, spec, *, python, timeout=DEFAULT_TIMEOUT, paths=(), array="numpy", name="python"):
        mod_name, _ = parse_target(spec)
        if mod_name.endswith(".py") and not Path(mod_name).is_file():
            raise InputError(f"module file {mod_name!r} does not exist")
        self.spec = spec
        self.name = spec
        self.python, self.version = check_python(python, name)
        self.timeout = check_timeout(timeout)
        self.paths = import_paths(spec, check_paths(paths, "paths"))
        self.array = array
        self.described = ""
        self._proc = None
        self._err = None
        self._buffer = b""
        self.starts = 0

    # -- the process

    def _start(self):
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen([self.python, str(RUNNER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._err, start_new_session=True)
        self._buffer = b""
        self.starts += 1
        when = "while its module was imported"
        self._send({"spec": self.spec, "paths": self.paths, "array": self.array}, when)
        msg = self._receive(when, extra=10.0)   # the interpreter's own start-up is not the target's fault
        kind = msg.get("kind")
        if kind == "ready":
            self.described = msg.get("python", self.python)
            return
        self.close()
        if kind == "exit":
            raise TargetExited(msg.get("code"), when)
        if kind == "interrupted":
            raise TargetInterrupted(when)
        if kind == "input":
            raise InputError(str(msg.get("message")))
        raise InputError(f"{self.spec}: unexpected answer {kind!r} from {self.python}")

    def _send(self, msg, when):
        try:
            self._proc.stdin.write(json.dumps(msg).encode("utf-8") + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, ConnectionError, OSError, ValueError):
            code = self._reap()
            raise TargetDied(code, when) from None

    def _receive(self, when, extra=0.0):
        import selectors
        import time

        deadline = time.monotonic() + self.timeout + extra
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.close()
                    raise TargetTimedOut(self.timeout, when)
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    code, said = self._reap(), self._last_words()
                    raise TargetDied(code, when + said)
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self.close()
            raise InputError(f"{self.spec}: the runner under {self.python} sent something that is not JSON "
                             f"({line[:80]!r})") from None

    def _last_words(self):
        """The last line the interpreter wrote to stderr (a crash's message), for the error."""
        try:
            self._err.seek(0, os.SEEK_END)
            size = self._err.tell()
            self._err.seek(max(0, size - 4096))
            lines = self._err.read().decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError, AttributeError):
            return ""
        return f" (its last words: {lines[-1][:_STDERR_TAIL]!r})" if lines else ""

    def _reap(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        try:
            proc.wait(2)
        except subprocess.TimeoutExpired:
            pass
        _kill_session(proc)
        return proc.returncode

    def close(self):
        """Stop the interpreter and whatever the target started; the next call starts a new one."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.stdin.close()         # the runner leaves at the end of its input
            except OSError:
                pass
            try:
                proc.wait(0.5)
            except subprocess.TimeoutExpired:
                pass
            _kill_session(proc)
        if self._err is not None:
            self._err.close()
            self._err = None

    # -- one call

    def call(self, args, optional=None):
        if self._proc is None:
            self._start()
        when = "when called"
        self._send({"args": [encode(a) for a in args], "optional": dict(optional or {})}, when)
        msg = self._receive(when)
        kind = msg.get("kind")
        if kind == "ok":
            return decode(msg.get("value"))
        if kind == "raised":
            raise TargetRaised(f"{msg.get('text')} (in {self.described or self.python})")
        self.close()
        if kind == "exit":
            raise TargetExited(msg.get("code"), when)
        if kind == "interrupted":
            raise TargetInterrupted(when)
        if kind == "badvalue":
            raise InputError(f"{self.spec}: {msg.get('message')}")
        raise InputError(f"{self.spec}: unexpected answer {kind!r} from {self.python}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _kill_session(proc):
    """SIGKILL the interpreter's session (it and what the target started), then reap it."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, ProcessLookupError):
        pass
    try:
        proc.kill()
    except OSError:
        pass
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


__all__ = ["MIN_PYTHON", "RemoteTarget", "check_python", "decode", "encode"]
