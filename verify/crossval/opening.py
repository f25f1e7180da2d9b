"""Which process runs a cross-validation target: this one (a callable), a child process of this
interpreter (a ``"MODULE:FUNCTION"`` string, :mod:`verify.crossval.target`) or another
interpreter (a string with ``python``, :mod:`verify.crossval.remote`). Apart from both modules,
since the remote one builds on the other.
"""

from __future__ import annotations

from numeric.validation import reject
from verify.crossval.remote import RemoteTarget
from verify.crossval.target import DEFAULT_TIMEOUT, ChildTarget, InProcessTarget, check_timeout


def open_target(fn, *, array="numpy", timeout=None, paths=(), python=None, python_name="python"):
    """A :class:`ChildTarget` for a ``"MODULE:FUNCTION"`` string, a
    :class:`~verify.crossval.remote.RemoteTarget` for one with ``python`` (another interpreter),
    an :class:`InProcessTarget` for a callable (``timeout``, ``paths`` and ``python`` need the
    string form)."""
    if python is not None:
        if not isinstance(fn, str):
            reject(python_name, python, "None for a Python callable (it runs in this process); give the target "
                   "as a 'MODULE:FUNCTION' string to run it under another interpreter")
        return RemoteTarget(fn, python=python, timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
                            paths=paths, array=array, name=python_name)
    if isinstance(fn, str):
        return ChildTarget(fn, timeout=DEFAULT_TIMEOUT if timeout is None else timeout, paths=paths, array=array)
    if timeout is not None:
        check_timeout(timeout)
        reject("timeout", timeout, "None for a Python callable (it runs in this process); give the target "
               "as a 'MODULE:FUNCTION' string to run it in a child process with a time limit")
    if paths:
        reject("paths", paths, "() for a Python callable; import folders go with a 'MODULE:FUNCTION' string")
    return InProcessTarget(fn, array=array)


__all__ = ["open_target"]
