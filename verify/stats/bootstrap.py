"""The parametric bootstrap of a binomial fit: percentile intervals of any statistic of the
fit, from refits to counts drawn from the fitted probabilities.

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numeric.validation import check_choice, check_int, check_real, reject
from verify.stats.checks import check_callable, check_rng
from verify.stats.intervals import SIDES
from verify.stats.likelihood import BinomialFit, FitFailure, fit_from_starts


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Parametric bootstrap of a statistic: its value on the fit, the values on the refits
    that succeeded, the percentile interval and the fraction of refits that failed."""

    estimate: float
    samples: np.ndarray
    interval: tuple
    level: float
    side: str
    n_boot: int
    failure_fraction: float


def parametric_bootstrap(fit, statistic, n_boot=1000, rng=None, level=0.95,
                         side="two-sided") -> BootstrapResult:
    """Percentile interval of ``statistic(fit)`` by the parametric bootstrap.

    Counts are drawn from the fitted probabilities (same trials), the model is refitted from
    the fit's estimate and ``statistic`` evaluated on each refit. A refit fails when the
    optimiser finds no finite likelihood or the statistic is not finite; failures are left out
    of the interval and counted in ``failure_fraction``. One-sided intervals give ``-inf``
    (``side="upper"``) or ``inf`` (``"lower"``) as the other end; with fewer than two
    successful refits the interval is ``(nan, nan)``.

    Args:
        fit: a :class:`BinomialFit`; statistic: ``BinomialFit -> float``.
        n_boot: refits (>= 1); rng: numpy Generator, seed or None; level: in (0, 1).
    """
    if not isinstance(fit, BinomialFit):
        reject("fit", f"<{type(fit).__name__}>", "a BinomialFit")
    statistic = check_callable(statistic, "statistic")
    n_boot = check_int(n_boot, "n_boot", lo=1)
    gen = check_rng(rng)
    side = check_choice(side, "side", SIDES)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    try:
        estimate = float(statistic(fit))
    except (TypeError, ValueError):
        estimate = math.nan
    if not math.isfinite(estimate):
        reject("statistic", "<callable>", "a function returning a finite number on fit")
    p = np.clip(fit.fitted(), 0.0, 1.0)
    samples = []
    for _ in range(n_boot):
        counts = gen.binomial(fit.trials, p)
        try:
            # the drawn counts are valid by construction: refit without re-checking them
            refit = fit_from_starts(fit.prob, fit.jacobian, [fit.theta], counts, fit.trials,
                                    fit.names, fit.bounds)
            value = float(statistic(refit))
        except FitFailure:
            continue
        if math.isfinite(value):
            samples.append(value)
    samples = np.asarray(samples)
    return BootstrapResult(estimate=float(estimate), samples=samples,
                           interval=_percentile_interval(samples, level, side), level=level,
                           side=side, n_boot=n_boot,
                           failure_fraction=1.0 - samples.size / n_boot)


def _percentile_interval(samples, level, side):
    if samples.size < 2:
        return (math.nan, math.nan)
    if side == "two-sided":
        lo, hi = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2])
        return float(lo), float(hi)
    if side == "upper":
        return -math.inf, float(np.quantile(samples, level))
    return float(np.quantile(samples, 1 - level)), math.inf



__all__ = ["BootstrapResult", "parametric_bootstrap"]
