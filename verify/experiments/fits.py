r"""Statistics for the sweeps of paper A (SX-4, SX-6, SX-7): Wilson intervals, thresholds, fits.

- :func:`wilson_interval`: binomial confidence interval for a success rate.
- :func:`threshold`: the smallest grid value whose isotonic (monotone in the grid) success rate
  reaches a target (``m*(d)``, ``n*(d)``).
- :func:`fit_polylog` / :func:`fit_power`: least squares in log space of
  :math:`m^*(d) = A(\ln d)^k` and :math:`m^*(d) = B d^\alpha`; both have two parameters, so their
  residual sums of squares (in :math:`\ln m^*`) compare directly.

numpy only (no torch): these run on saved results too.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from numeric.validation import check_int, reject
from verify.experiments.statistics import wilson_interval  # noqa: F401  (re-exported: the sweeps' intervals)



def isotonic(values, weights=None):
    r"""Non-decreasing least-squares fit (pool-adjacent-violators) of ``values``.

    Success probabilities are taken to be non-decreasing in ``m`` (or ``n``); the isotonic fit
    pools neighbouring cells that violate this, so one noisy cell near the target neither
    creates nor hides a threshold.
    """
    vals = [float(v) for v in values]
    w = [1.0] * len(vals) if weights is None else [float(x) for x in weights]
    if len(w) != len(vals) or any(x <= 0 for x in w):
        reject("weights", w, f"{len(vals)} positive weights, one per value")
    blocks = []  # [mean, weight, count]
    for v, x in zip(vals, w):
        blocks.append([v, x, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out = []
    for mean, _, count in blocks:
        out += [mean] * count
    return out


def threshold(grid, rates, target=0.95, weights=None):
    r"""Smallest grid value whose *isotonic* (non-decreasing in the grid) success rate reaches
    ``target`` (:func:`isotonic`, weighted by ``weights``, e.g. the seed counts).

    Args:
        grid: increasing values (``m`` or ``n``); rates: success rates, same length.
    Returns:
        the threshold, or ``None`` when the fitted rate stays below the target.
    """
    grid = [float(g) for g in grid]
    rates = [float(r) for r in rates]
    if not grid:
        reject("grid", grid, "a non-empty grid")
    if len(grid) != len(rates):
        reject("rates", rates, f"one rate per grid value ({len(grid)})")
    if any(b <= a for a, b in zip(grid, grid[1:])):
        reject("grid", grid, "strictly increasing values")
    if any(not (0.0 <= r <= 1.0) for r in rates):
        reject("rates", rates, "rates in [0, 1]")
    fitted = isotonic(rates, weights)
    for g, r in zip(grid, fitted):
        if r >= target - 1e-12:
            return g
    return None


def m_star_from_cells(cells, d, target=0.95, key="rate", size="m"):
    """:func:`threshold` over the cells of one ``d`` (:class:`~verify.experiments.records.SweepCell`
    over ``m`` or :class:`~verify.experiments.records.SamplesCell` over ``n``), weighted by
    their seed counts; ``key`` names the rate field."""
    row = sorted((c for c in cells if c.d == d and hasattr(c, size)), key=lambda c: getattr(c, size))
    if not row:
        return None
    t = threshold([getattr(c, size) for c in row], [getattr(c, key) for c in row], target,
                  weights=[c.n_seeds for c in row])
    return None if t is None else int(t)


def sweep_thresholds(cells, target=0.95):
    r"""``m*(d)`` of every ``d`` of a one-step sweep, for the default schedule and the
    :math:`\eta\to\infty` limit, and both fits of ``m*(d)`` where two or more ``d`` reach it.

    Returns:
        dict with ``m_star`` and ``m_star_limit`` (``d -> m*`` or ``None``), ``known`` (the ``d``
        where both are reached) and ``fits``, ``fits_limit`` (:func:`compare_fits`, or ``None``).
    """
    ds = sorted({c.d for c in cells})
    ms = {d: m_star_from_cells(cells, d, target) for d in ds}
    ml = {d: m_star_from_cells(cells, d, target, key="rate_limit") for d in ds}
    known = [d for d in ds if ms[d] is not None and ml[d] is not None]
    two = len(known) >= 2
    return {"m_star": ms, "m_star_limit": ml, "known": known,
            "fits": compare_fits(known, [ms[d] for d in known]) if two else None,
            "fits_limit": compare_fits(known, [ml[d] for d in known]) if two else None}


def samples_thresholds(cells, target=0.95):
    """``n*(d)``: the fewest samples whose empirical step reproduces a successful population
    step in a fraction ``target`` of the seeds, per ``d``, and the power fit where two or more
    ``d`` reach it.

    Returns:
        dict with ``n_star`` (``d -> n*`` or ``None``), ``known`` and ``fit`` (:class:`Fit` or
        ``None``).
    """
    ds = sorted({c.d for c in cells})
    ns = {d: m_star_from_cells(cells, d, target, key="rate_given_population", size="n") for d in ds}
    known = [d for d in ds if ns[d] is not None]
    fit = fit_power(known, [ns[d] for d in known]) if len(known) >= 2 else None
    return {"n_star": ns, "known": known, "fit": fit}


@dataclass(frozen=True)
class Fit:
    model: str  # "polylog": y = A (ln d)^k ; "power": y = B d^alpha
    coef: float  # A or B
    exponent: float  # k or alpha
    rss: float  # residual sum of squares of ln y
    r2: float  # coefficient of determination in log space
    n_points: int

    def predict(self, d):
        d = np.asarray(d, dtype=float)
        x = np.log(d) if self.model == "polylog" else d
        return self.coef * x ** self.exponent

    def as_dict(self):
        return asdict(self)


def _loglog_fit(x, y, model):
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or len(x) < 2:
        reject("d", f"<array of shape {x.shape}>", "a 1-d array of >= 2 values")
    if y.shape != x.shape:
        reject("y", f"<array of shape {y.shape}>", f"shape {x.shape}, one value per d")
    for name, v in (("d", x), ("y", y)):
        if not np.all(np.isfinite(v)) or np.any(v <= 0):
            reject(name, f"<array {v.tolist()}>", "finite positive values (log-log least squares)")
    lx, ly = np.log(x), np.log(y)
    A = np.stack([np.ones_like(lx), lx], axis=1)
    (c0, c1), *_ = np.linalg.lstsq(A, ly, rcond=None)
    res = ly - (c0 + c1 * lx)
    rss = float(res @ res)
    tss = float(((ly - ly.mean()) ** 2).sum())
    r2 = 1.0 - rss / tss if tss > 0 else 1.0
    return Fit(model, float(math.exp(c0)), float(c1), rss, r2, len(x))


def fit_polylog(d, y):
    r"""Fit :math:`y = A(\ln d)^k` by least squares of :math:`\ln y` on :math:`\ln\ln d`.

    Args:
        d: dimensions, ``d > 1``;
        y: positive values (``m*(d)``).
    Returns:
        :class:`Fit` with ``coef = A``, ``exponent = k``.
    """
    d = np.asarray(d, dtype=float)
    if np.any(d <= 1):
        reject("d", f"<array {d.tolist()}>", "values > 1 (ln d > 0)")
    return _loglog_fit(np.log(d), y, "polylog")


def fit_power(d, y):
    r"""Fit :math:`y = B d^\alpha` by least squares of :math:`\ln y` on :math:`\ln d`."""
    return _loglog_fit(d, y, "power")


def compare_fits(d, y):
    r"""Both fits and which one wins (smaller RSS in :math:`\ln y`; same number of parameters).

    Returns:
        dict with ``polylog``, ``power`` (:class:`Fit` as dict) and ``winner``.
    """
    pl, pw = fit_polylog(d, y), fit_power(d, y)
    return {"polylog": pl.as_dict(), "power": pw.as_dict(),
            "winner": "polylog" if pl.rss < pw.rss else "power"}


def polylog_predict(fit: dict, d):
    """Evaluate a saved polylog fit dict at ``d``."""
    return float(fit["coef"] * math.log(d) ** fit["exponent"])


def parameter_table(measured, fit=None, ds=(10**2, 10**3, 10**4, 10**5, 10**6, 10**7)):
    r"""SX-7: trainable parameters of the two-head model, :math:`2m^*(d)`, against the
    :math:`\ge d` weights of any FFNN whose first layer is dense (one hidden unit already reads all
    :math:`d` inputs).

    Args:
        measured: dict ``d -> m*(d)`` (``None`` when not reached); fit: a polylog fit dict
            (:func:`compare_fits`) used, rounded up, for ``d`` not measured; ds: rows.
    Returns:
        list of dicts ``d, m_star, source ("measured" | "extrapolated (polylog fit)" |
        "not reached"), params_two_head, params_ffnn_min, ratio``.
    """
    rows = []
    for d in ds:
        check_int(d, "ds[]", lo=2)
        m = measured.get(d)
        if m is not None:
            src = "measured"
        elif fit is not None and d not in measured:
            m, src = int(math.ceil(polylog_predict(fit, d))), "extrapolated (polylog fit)"
        else:
            rows.append({"d": d, "m_star": None, "source": "not reached", "params_two_head": None,
                         "params_ffnn_min": d, "ratio": None})
            continue
        rows.append({"d": d, "m_star": int(m), "source": src, "params_two_head": 2 * int(m),
                     "params_ffnn_min": d, "ratio": 2 * int(m) / d})
    return rows


__all__ = ["parameter_table", "wilson_interval", "isotonic", "threshold", "m_star_from_cells",
           "sweep_thresholds", "samples_thresholds", "Fit",
           "fit_polylog", "fit_power", "compare_fits", "polylog_predict"]
