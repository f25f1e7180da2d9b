"""One seed base for every stochastic check: ``BOOLVERIFY_SEED`` (default 0).

A claim test must pass for any base, so no threshold can be tuned to one lucky block of
seeds. Experiments that take lists of integer seeds shift them by :func:`seed_offset`; the
default base 0 leaves them unchanged, so saved results (``docs/data/``) keep matching their
plans.
"""

from __future__ import annotations

import os

from numeric.validation import check_int, parse_integer

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
    # the one integer syntax of the options (ASCII digits, 1e3; never 0x10, 1.5 or "١٢")
    return parse_integer(raw, ENV_VAR, lo=0, hi=MAX_BASE)


def seed_offset() -> int:
    """What to add to an experiment's integer seeds: ``base_seed() * SEED_STRIDE``."""
    return base_seed() * SEED_STRIDE


def seed(local: int) -> int:
    """The seed ``local`` (an experiment's own number, ``0 <= local < SEED_STRIDE``) under the base."""
    local = check_int(local, "local", lo=0, hi=SEED_STRIDE - 1)
    return seed_offset() + local


__all__ = ["ENV_VAR", "DEFAULT_SEED", "SEED_STRIDE", "MAX_BASE", "base_seed", "seed_offset", "seed"]
