r"""Confidence intervals, each defined once: of a binomial proportion (:func:`clopper_pearson`,
exact; :func:`wilson_interval`, score), of a mean (:func:`mean_interval`, Student t) and of a
median (:func:`median_bounds`, order statistics, distribution-free).

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from scipy import stats

from numeric.validation import check_choice, check_int, check_real, reject
from verify.stats.checks import check_count

#: the sides of an interval: two-sided, or a one-sided upper or lower bound
SIDES = ("two-sided", "upper", "lower")


def wilson_interval(successes, trials, confidence=0.95, *, z=None) -> tuple[float, float]:
    r"""Wilson score interval for a binomial proportion :math:`\hat p = s/n`.

    .. math:: \frac{\hat p + \frac{z^2}{2n} \pm z\sqrt{\frac{\hat p(1-\hat p)}{n} + \frac{z^2}{4n^2}}}{1 + z^2/n},
              \qquad z = \Phi^{-1}\bigl(1 - \tfrac{1-c}{2}\bigr)

    Args:
        successes: integer ``0 <= s <= n``.
        trials: integer ``n >= 1``.
        confidence: two-sided level ``c`` in (0, 1) (default 0.95); ignored when ``z`` is given.
        z: the normal quantile itself (keyword only).
    Returns:
        ``(low, high)`` as floats in ``[0, 1]``; exactly 0 (1) at ``s = 0`` (``s = n``).
    """
    for name, value in (("successes", successes), ("trials", trials)):
        # counts summed in floating point (e.g. 12.0) are accepted
        if isinstance(value, float) and value.is_integer():
            continue
        check_int(value, name)
    n = check_int(int(trials), "trials", lo=1)
    s = check_int(int(successes), "successes", lo=0, hi=n)
    if z is None:
        confidence = check_real(confidence, "confidence", lo=0, hi=1, lo_open=True, hi_open=True)
        z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    else:
        z = check_real(z, "z", lo=0, lo_open=True)
    p = s / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # At s = 0 or s = n one end is exactly 0 or 1; say so rather than trust rounding.
    lo = 0.0 if s == 0 else max(0.0, centre - half)
    hi = 1.0 if s == n else min(1.0, centre + half)
    return lo, hi


def clopper_pearson_lower(s, n, level):
    """One-sided lower Clopper-Pearson bound at ``level`` (vectorised, unchecked; 0 at s = 0)."""
    s, n = np.asarray(s), np.asarray(n)
    safe = np.maximum(s, 1)
    return np.where(s == 0, 0.0, stats.beta.ppf(1 - level, safe, n - safe + 1))


def clopper_pearson_upper(s, n, level):
    """One-sided upper Clopper-Pearson bound at ``level`` (vectorised, unchecked; 1 at s = n)."""
    s, n = np.asarray(s), np.asarray(n)
    safe = np.minimum(s, n - 1)
    return np.where(s == n, 1.0, stats.beta.ppf(level, safe + 1, n - safe))


def clopper_pearson(successes, trials, level=0.95, side="two-sided") -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for a binomial proportion, from beta quantiles.

    Args:
        successes: integer ``0 <= s <= n``; trials: integer ``n >= 1``.
        level: confidence level in (0, 1).
        side: ``"two-sided"``; ``"upper"``, a one-sided upper bound, returned as ``(0, hi)``;
            ``"lower"``, a one-sided lower bound, returned as ``(lo, 1)``.
    Returns:
        ``(lo, hi)``; exactly 0 at ``s = 0`` and 1 at ``s = n``. The coverage is at least
        ``level`` for every true proportion.
    """
    n = check_count(trials, "trials", lo=1)
    s = check_count(successes, "successes", hi=n)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    side = check_choice(side, "side", SIDES)
    if side == "two-sided":
        tail = 1 - (1 - level) / 2
        return float(clopper_pearson_lower(s, n, tail)), float(clopper_pearson_upper(s, n, tail))
    if side == "upper":
        return 0.0, float(clopper_pearson_upper(s, n, level))
    return float(clopper_pearson_lower(s, n, level)), 1.0



def mean_interval(values, level: float = 0.99, side: str = "two-sided"):
    r"""Student-t confidence interval ``(lo, hi)`` for the mean of i.i.d. ``values`` (at least
    2); one-sided bounds leave the other end infinite. Returns ``(mean, (lo, hi), sd)``."""
    x = np.asarray(values, dtype=float).ravel()
    if x.size < 2 or not np.isfinite(x).all():
        reject("values", f"<{x.size} values>", "at least 2 finite values")
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    check_choice(side, "side", SIDES)
    n = x.size
    mean, sd = float(x.mean()), float(x.std(ddof=1))
    q = float(stats.t.ppf(level if side != "two-sided" else (1 + level) / 2, n - 1))
    half = q * sd / math.sqrt(n)
    lo = -math.inf if side == "upper" else mean - half
    hi = math.inf if side == "lower" else mean + half
    return mean, (lo, hi), sd



def median_bounds(values, level: float = 0.99, side: str = "lower") -> tuple[float, float]:
    r"""Distribution-free (order-statistic) confidence bound for the median of i.i.d. ``values``.

    ``side="lower"``: the :math:`k`-th smallest value, :math:`k` the largest with
    :math:`P(\mathrm{Bin}(n, 1/2) \le k - 1) \le 1 - \text{level}`; the median is above it with
    probability at least ``level`` for any distribution (ties only make it conservative).
    ``side="upper"`` mirrors it. Returns ``(lo, inf)`` resp. ``(-inf, hi)``; with too few values
    for the level the bound is infinite (uninformative, never a pass).
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size < 1 or not bool(np.isfinite(x).all()):
        reject("values", f"<{x.size} values>", "at least 1 finite value")
    level = check_real(level, "level", lo=0.5, hi=1, hi_open=True)
    side = check_choice(side, "side", ("lower", "upper"))
    n = x.size
    xs = np.sort(x)
    k = 0
    while k < n and stats.binom.cdf(k, n, 0.5) <= 1 - level:
        k += 1
    # k order statistics may be used: X_(k) (1-based) is the bound; k = 0 means none
    if side == "lower":
        return (float(xs[k - 1]) if k else -math.inf), math.inf
    return -math.inf, (float(xs[n - k]) if k else math.inf)


__all__ = ["SIDES", "wilson_interval", "clopper_pearson", "clopper_pearson_lower",
           "clopper_pearson_upper", "mean_interval", "median_bounds"]
