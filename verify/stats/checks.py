"""Argument checks shared by the statistics modules: counts, levels, vectors, callables and
random generators, refused with :func:`numeric.validation.reject` (one message format)."""

from __future__ import annotations

import numpy as np

from numeric.validation import check_int, check_real, reject


def check_count(value, name, *, lo=0, hi=None):
    """One count, an int (or a float with an integer value) in ``[lo, hi]``."""
    # counts summed in floating point (e.g. 12.0) are accepted, as by wilson_interval
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return check_int(value, name, lo=lo, hi=hi)


def check_counts(successes, trials):
    """Per-cell counts as int64 arrays of one shape, ``trials >= 1``,
    ``0 <= successes <= trials``."""
    arrays = []
    for name, value in (("successes", successes), ("trials", trials)):
        try:
            a = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            reject(name, f"<{type(value).__name__}>", "a 1-d array of counts")
        if a.ndim != 1 or a.size == 0:
            reject(name, f"<array of shape {a.shape}>", "a non-empty 1-d array of counts")
        if not np.all(np.isfinite(a)) or np.any(a != np.round(a)) or np.any(a < 0):
            reject(name, f"<array {a.tolist()}>", "non-negative integer counts")
        arrays.append(a.astype(np.int64))
    s, n = arrays
    if n.shape != s.shape:
        reject("trials", f"<array of shape {n.shape}>", f"shape {s.shape}, one count per cell")
    if np.any(n < 1):
        reject("trials", f"<array {n.tolist()}>", "counts >= 1")
    if np.any(s > n):
        reject("successes", f"<array {s.tolist()}>", "counts <= trials, cell by cell")
    return s, n


def check_level(level, name, side):
    """A confidence level; one-sided profile intervals need ``level > 1/2``."""
    if side == "two-sided":
        return check_real(level, name, lo=0, hi=1, lo_open=True, hi_open=True)
    return check_real(level, name, lo=0.5, hi=1, lo_open=True, hi_open=True)


def check_callable(f, name):
    if not callable(f):
        reject(name, f"<{type(f).__name__}>", "a callable")
    return f


def check_rng(rng, name="rng"):
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        if rng is not None and rng < 0:
            reject(name, rng, "a numpy Generator, a seed >= 0 or None")
        return np.random.default_rng(None if rng is None else int(rng))
    if isinstance(rng, np.random.Generator):
        return rng
    reject(name, f"<{type(rng).__name__}>", "a numpy Generator, a seed >= 0 or None")


def check_vector(value, name, length=None):
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        reject(name, f"<{type(value).__name__}>", "a 1-d array of finite numbers")
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
        reject(name, f"<array {v.tolist()}>", "a non-empty 1-d array of finite numbers")
    if length is not None and v.size != length:
        reject(name, f"<array of length {v.size}>", f"{length} values, one per cell")
    return v



__all__ = ["check_count", "check_counts", "check_level", "check_callable", "check_rng",
           "check_vector"]
