"""Helpers shared by the unit tests (a module of the tests layer, not a test file)."""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager

import pytest

from numeric.validation import InputError


@contextmanager
def raises_input_error(name: str, expected: str | None = None):
    """Expect an :class:`InputError` about argument ``name`` (its ``.name``; an entry of it,
    ``name[i]``, and a field of a located record, ``<file>: instance 0: name``, count), and
    where ``expected`` is given, one whose ``.expected`` contains it: the test pins the
    argument and the requirement, not the prose of the message."""
    with pytest.raises(InputError) as info:
        yield info
    err = info.value
    found = str(err.name)
    assert found == name or found.startswith(name + "[") or found.endswith(": " + name), \
        f"InputError about {err.name!r} ({err}), expected one about {name!r}"
    if expected is not None:
        assert expected in (err.expected or ""), f"{err.expected!r} does not say {expected!r}"


def run_cli_process(*args, cwd=None, env=None, timeout=300) -> subprocess.CompletedProcess:
    """``boolverify ARGS...`` in a child process (``python -m verify.cli``, so the child runs
    this checkout), its output captured as text; for what only a process shows (exit codes
    from signals, pipes, the working folder, a one-line error on stderr)."""
    return subprocess.run([sys.executable, "-m", "verify.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=timeout)
