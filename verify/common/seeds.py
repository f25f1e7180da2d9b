"""One seed base for every stochastic check: ``BOOLVERIFY_SEED`` (default 0).

A claim test must pass for any base, so no threshold can be tuned to one lucky block of
seeds. Experiments that take lists of integer seeds shift them by :func:`seed_offset`; the
default base 0 leaves them unchanged, so saved results (``docs/data/``) keep matching their
plans.
"""

from __future__ import annotations

import os

from numeric.validation import reject

ENV_VAR = "BOOLVERIFY_SEED"
DEFAULT_SEED = 0
#: seeds of one base never overlap those of another while a run uses fewer than this many
SEED_STRIDE = 10**7
MAX_BASE = 2**63 // SEED_STRIDE - 1


def base_seed() -> int:
    """The seed base from ``BOOLVERIFY_SEED`` (a non-negative integer; 0 when unset)."""
    raw = os.environ.get(ENV_VAR, "").strip()
    if not raw:
        return DEFAULT_SEED
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_BASE:
        reject(ENV_VAR, raw, f"an integer in [0, {MAX_BASE}]")
    return value


def seed_offset() -> int:
    """What to add to an experiment's integer seeds: ``base_seed() * SEED_STRIDE``."""
    return base_seed() * SEED_STRIDE


def seed(local: int) -> int:
    """The seed ``local`` (an experiment's own number, ``0 <= local < SEED_STRIDE``) under the base."""
    if not 0 <= local < SEED_STRIDE:
        reject("local", local, f"an integer in [0, {SEED_STRIDE})")
    return seed_offset() + local


__all__ = ["ENV_VAR", "DEFAULT_SEED", "SEED_STRIDE", "MAX_BASE", "base_seed", "seed_offset", "seed"]
