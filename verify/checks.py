"""Input checks shared by the reference side and the torch engine (leaf module: stdlib only)."""

from __future__ import annotations

import operator

from .errors import InputError


def check_support(support, d):
    """Validate ``support = (a, b)`` for ``d`` positions: two distinct integers in ``0..d-1``
    (ints, numpy integers or 0-d integer tensors; not floats or bools). Returns ``(a, b)``."""
    try:
        pair = tuple(support)
    except TypeError:
        raise InputError(f"support must be a pair (a, b) of integers; got {support!r}") from None
    try:  # operator.index accepts int, numpy integers and 0-d integer tensors, not floats
        if len(pair) != 2 or any(isinstance(i, bool) for i in pair):
            raise TypeError
        a, b = (operator.index(i) for i in pair)
    except TypeError:
        raise InputError(f"support must be a pair (a, b) of integers; got {support!r}") from None
    if not (0 <= a < d and 0 <= b < d):
        raise InputError(f"support ({a}, {b}): indices must satisfy 0 <= a, b < d = {d}")
    if a == b:
        raise InputError(f"support ({a}, {b}): a and b must differ")
    return a, b


__all__ = ["check_support"]
