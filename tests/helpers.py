"""Helpers shared by the unit tests (a module of the tests layer, not a test file)."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from numeric.validation import InputError


@contextmanager
def raises_input_error(name: str, expected: str | None = None):
    """Expect an :class:`InputError` about argument ``name`` (its ``.name``; an entry of it,
    ``name[i]``, and a field of a located record, ``<file>: instance 0: name``, count), and where ``expected`` is given, one whose ``.expected`` contains
    it: the test pins the argument and the requirement, not the prose of the message."""
    with pytest.raises(InputError) as info:
        yield info
    err = info.value
    found = str(err.name)
    assert found == name or found.startswith(name + "[") or found.endswith(": " + name), \
        f"InputError about {err.name!r} ({err}), expected one about {name!r}"
    if expected is not None:
        assert expected in (err.expected or ""), f"{err.expected!r} does not say {expected!r}"
