r"""Thresholds of the paper-A sweeps (SX-4, SX-6, SX-7) and their laws: the sweep records read
into :func:`verify.stats.thresholds.law_summary` (binomial likelihood over all cells).

- :func:`sweep_laws`: one-step sweeps (``m`` per ``d``);
- :func:`samples_laws`: finite-sample sweeps (``n`` per ``d``, conditional on the population
  step).

The earlier method (the first grid value whose isotonic success rate reaches a level, then
least squares of those few quantised points) is retired: it could not tell the laws apart and
gave no intervals.

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

from verify.stats.thresholds import law_summary


def sweep_laws(cells, **kw) -> dict:
    """:func:`~verify.stats.thresholds.law_summary` of a one-step sweep (``m`` per ``d``;
    success of the default step)."""
    return law_summary([c.d for c in cells], [c.m for c in cells], [c.successes for c in cells],
                       [c.n_seeds for c in cells], **kw)


def samples_laws(cells, **kw) -> dict:
    """:func:`~verify.stats.thresholds.law_summary` of an empirical-step sweep (``n`` per
    ``d``): success of the ``n``-sample step among the instances whose population step succeeds
    (cells without any are left out)."""
    kept = [c for c in cells if c.population_successes > 0]
    return law_summary([c.d for c in kept], [c.n for c in kept], [c.both_successes for c in kept],
                       [c.population_successes for c in kept], **kw)


__all__ = ["sweep_laws", "samples_laws"]
