r"""Confidence intervals, each defined once: of a binomial proportion (:func:`clopper_pearson`,
exact; :func:`wilson_interval`, score), of a mean (:func:`mean_interval`, Student t) and of a
median (:func:`median_bounds`, order statistics, distribution-free), of a normal variance
with known mean (:func:`variance_interval`, chi-square), and of where a
non-increasing proportion curve crosses a level (:func:`crossing_interval`, simultaneous
Clopper-Pearson bounds over a grid).

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


def variance_interval(values, level: float = 0.99, mean: float = 0.0) -> tuple[float, float]:
    r"""Two-sided confidence interval for the variance :math:`v` of i.i.d. normal ``values``
    with **known** ``mean``: :math:`S = \sum (x_i - \mu)^2 \sim v\,\chi^2_m`, so
    :math:`[S/\chi^2_{m, 1 - a/2},\ S/\chi^2_{m, a/2}]`, :math:`a = 1 - \text{level}`."""
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size < 1 or not bool(np.isfinite(x).all()):
        reject("values", f"<{x.size} values>", "at least 1 finite value")
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    mean = check_real(mean, "mean")
    S = float(((x - mean) ** 2).sum())
    a = 1 - level
    return S / float(stats.chi2.ppf(1 - a / 2, x.size)), S / float(stats.chi2.ppf(a / 2, x.size))


def bonferroni_level(level: float, points: int) -> float:
    """The level of each of ``points`` intervals that hold together with probability at least
    ``level`` (Bonferroni): ``1 - (1 - level) / points``."""
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    points = check_int(points, "points", lo=1)
    return 1 - (1 - level) / points


def crossing_interval(grid, successes, trials, level: float = 0.99, crossing: float = 0.5):
    r"""Confidence interval for the point :math:`s^*` where a **non-increasing** proportion
    curve :math:`p(s)` crosses ``crossing``, from binomial counts on a grid.

    At every grid point :math:`s_i` a two-sided Clopper-Pearson interval
    :math:`[L_i, U_i]` at :func:`bonferroni_level` ``(level, G)``, so that all :math:`G` hold
    together with probability at least ``level``. On that event, and if :math:`p` is
    non-increasing, :math:`p(s_i) \ge L_i >` ``crossing`` puts :math:`s^*` at or above
    :math:`s_i` and :math:`p(s_j) \le U_j <` ``crossing`` puts it at or below :math:`s_j`; the
    interval is the largest such :math:`s_i` (0 if none) and the smallest such :math:`s_j`
    (infinity if none): it covers :math:`s^*` with probability at least ``level`` for every
    non-increasing curve, whatever lies between the grid points (the grid limits its width,
    never its coverage). For counts that share their random draws (the same directions at
    every grid point) the Bonferroni bound holds as well: it needs no independence.

    Args:
        grid: strictly increasing reals ``s_1 < ... < s_G`` (at least one).
        successes: ``G`` counts ``0 <= k_i <= trials``; trials: ``n >= 1`` at every point.
    Returns:
        ``(lo, hi)``. ``lo > hi`` happens only when a lower bound above ``crossing`` lies to
        the right of an upper bound below it, which a non-increasing curve allows only off the
        event above (probability at most ``1 - level``): the caller decides what that means.
    """
    s = np.asarray(grid, dtype=np.float64).ravel()
    if s.size < 1 or not bool(np.isfinite(s).all()) or bool((np.diff(s) <= 0).any()):
        reject("grid", f"<{s.size} values>", "a non-empty strictly increasing sequence of finite reals")
    k = np.asarray(successes).ravel()
    if k.size != s.size:
        reject("successes", f"<{k.size} counts>", f"{s.size} counts, one per grid point")
    n = check_count(trials, "trials", lo=1)
    k = np.array([check_count(v.item() if hasattr(v, "item") else v, f"successes[{i}]", hi=n)
                  for i, v in enumerate(k)], dtype=np.int64)
    crossing = check_real(crossing, "crossing", lo=0, hi=1, lo_open=True, hi_open=True)
    tail = 1 - (1 - bonferroni_level(level, s.size)) / 2  # each one-sided end of a two-sided interval
    lows = clopper_pearson_lower(k, n, tail)
    highs = clopper_pearson_upper(k, n, tail)
    above = np.flatnonzero(lows > crossing)
    below = np.flatnonzero(highs < crossing)
    lo = float(s[above[-1]]) if above.size else 0.0
    hi = float(s[below[0]]) if below.size else math.inf
    return lo, hi


__all__ = ["SIDES", "wilson_interval", "clopper_pearson", "clopper_pearson_lower",
           "clopper_pearson_upper", "mean_interval", "median_bounds", "variance_interval", "bonferroni_level",
           "crossing_interval"]
