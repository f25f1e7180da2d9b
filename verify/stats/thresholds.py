r"""Threshold curves and their laws: success as a function of a size ``s`` (``m`` or ``n``) in
several groups (``d``), by binomial likelihood over all cells.

- :func:`fit_threshold_curves`: :math:`P = (1-\lambda_g)\,F(\beta(\ln s - \ell_g))`, with the
  location :math:`\ell_g` free per group or following a power law or a polylog law in ``g``;
  :class:`ThresholdFit` gives thresholds at any level with profile-likelihood intervals;
- :func:`compare_laws` decides between two laws with a margin fixed in advance;
- :func:`law_summary`: per group the sizes at which the success curve reaches given levels,
  with quasi-likelihood intervals, and over several groups the power and polylog laws of the
  threshold with their exponents, intervals and comparison.

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from numeric.validation import check_bool, check_choice, check_real, reject
from verify.stats.checks import check_counts, check_level, check_vector
from verify.stats.intervals import SIDES
from verify.stats.likelihood import BinomialFit, fit_from_starts, quasi_level

LAWS = ("free", "power", "polylog")
LINKS = ("logit", "probit")

# Bounds of the nuisance parameters of a threshold curve: the log-slope (slope in
# [e^-8, e^8]) and the lapse itself. The lapse is a box-constrained parameter rather than a
# squashed one: a sigmoid saturates where the lapse is near 0, its gradient vanishes there,
# and a quasi-Newton optimiser (SLSQP) then stalls at a spurious optimum.
_LOG_SLOPE_BOUNDS = (-8.0, 8.0)
_LAPSE_BOUNDS = (0.0, 0.5)
_LAPSE_START = 0.02


_LINK_CDF = {"logit": special.expit, "probit": special.ndtr}
_LINK_PPF = {"logit": special.logit, "probit": special.ndtri}


def _link_pdf(link, z):
    if link == "logit":
        f = special.expit(z)
        return f * (1 - f)
    return np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)


def _law_covariate(law, g):
    """The regressor of the location: ``ln g`` (power law) or ``ln ln g`` (polylog law)."""
    g = np.asarray(g, dtype=float)
    return np.log(g) if law == "power" else np.log(np.log(g))


class _ThresholdModel:
    """``P = (1 - lapse_g) F(slope (ln s - loc_g) + F^{-1}(level))``: ``loc_g`` is the log of
    the size where ``F`` reaches ``level`` in group ``g``. Parameters, in order: the ``loc_g``
    (free law) or ``c, exponent`` with ``loc_g = c + exponent (x_g - centre)``, ``x_g`` the
    law's covariate; then ``log_slope``; then one lapse per group, in ``[0, 1/2]``."""

    def __init__(self, law, link, lapse, groups, group_index, log_size, centre=0.0, level=0.5):
        self.law, self.link, self.lapse = law, link, lapse
        self.groups, self.gi, self.log_size = groups, group_index, log_size
        self.n_groups = groups.size
        self.x = None if law == "free" else _law_covariate(law, groups) - centre
        self.offset = float(_LINK_PPF[link](level))
        self.n_loc = self.n_groups if law == "free" else 2

    @property
    def names(self):
        labels = [f"{g:g}" for g in self.groups]
        head = [f"loc[{g}]" for g in labels] if self.law == "free" else \
            ["c", "alpha" if self.law == "power" else "k"]
        tail = [f"lapse[{g}]" for g in labels] if self.lapse else []
        return tuple(head + ["log_slope"] + tail)

    def bounds(self):
        b = [(-math.inf, math.inf)] * self.n_loc + [_LOG_SLOPE_BOUNDS]
        return tuple(b + [_LAPSE_BOUNDS] * (self.n_groups if self.lapse else 0))

    def split(self, theta):
        head = theta[:self.n_loc]
        loc = head if self.law == "free" else head[0] + head[1] * self.x
        slope = math.exp(theta[self.n_loc])
        lapse = theta[self.n_loc + 1:] if self.lapse else np.zeros(self.n_groups)
        return loc, slope, lapse

    def _parts(self, theta):
        loc, slope, lapse = self.split(theta)
        centred = self.log_size - loc[self.gi]
        z = slope * centred + self.offset
        return loc, slope, centred, z, 1 - lapse[self.gi]

    def prob(self, theta):
        *_, z, keep = self._parts(np.asarray(theta, dtype=float))
        return keep * _LINK_CDF[self.link](z)

    def jacobian(self, theta):
        loc, slope, centred, z, keep = self._parts(np.asarray(theta, dtype=float))
        dz = keep * _link_pdf(self.link, z)  # dP/dz
        cells = np.arange(self.log_size.size)
        jac = np.zeros((self.log_size.size, len(theta)))
        if self.law == "free":
            jac[cells, self.gi] = -dz * slope
        else:
            jac[:, 0] = -dz * slope
            jac[:, 1] = -dz * slope * self.x[self.gi]
        jac[:, self.n_loc] = dz * slope * centred
        if self.lapse:
            jac[cells, self.n_loc + 1 + self.gi] = -_LINK_CDF[self.link](z)
        return jac


def _exp(x) -> float:
    """``exp`` of a log threshold; an end far beyond the float range (a profile that stays flat
    on tiny data) is reported as 0 or ``inf`` rather than raising."""
    return math.exp(x) if x < 709 else math.inf


@dataclass(frozen=True, eq=False)
class ThresholdFit:
    """Threshold curves fitted by :func:`fit_threshold_curves`.

    ``fit`` is the :class:`BinomialFit` of the parameters named in ``fit.names``: ``loc[g]``
    (free law) or ``c`` and ``alpha``/``k`` (power/polylog law, ``c`` the log threshold at the
    covariate ``centre``), ``log_slope``, and ``lapse[g]`` when ``lapse`` is fitted.
    """

    law: str
    link: str
    lapse: bool
    groups: np.ndarray
    group: np.ndarray
    size: np.ndarray
    centre: float
    fit: BinomialFit

    @property
    def loglik(self) -> float:
        return self.fit.loglik

    @property
    def n_params(self) -> int:
        return self.fit.n_params

    @property
    def aic(self) -> float:
        return self.fit.aic

    @property
    def slope(self) -> float:
        """The common slope in ``ln size``."""
        return self._model().split(self.fit.theta)[1]

    @property
    def lapses(self) -> dict:
        """``group -> lapse`` (0 without a lapse)."""
        lapse = self._model().split(self.fit.theta)[2]
        return {float(g): float(v) for g, v in zip(self.groups, lapse)}

    @property
    def dispersion(self) -> float:
        """``max(1, deviance / df)``: how far the cells scatter beyond binomial noise around the
        fitted curves (1 when the model fits; more when its shape is only approximate)."""
        df = self.fit.n_cells - self.fit.n_params
        return max(1.0, self.fit.deviance / df) if df > 0 else 1.0

    @property
    def exponent(self) -> float:
        """``alpha`` (power law) or ``k`` (polylog law)."""
        self._require_law()
        return float(self.fit.theta[1])

    def _model(self, centre=None, level=0.5):
        gi = np.searchsorted(self.groups, self.group)
        return _ThresholdModel(self.law, self.link, self.lapse, self.groups, gi,
                               np.log(self.size), self.centre if centre is None else centre, level)

    def _require_law(self):
        if self.law == "free":
            reject("law", self.law, "a 'power' or 'polylog' fit (a free fit has no exponent)")

    def _check_group(self, g):
        g = check_real(g, "g", lo=1 if self.law == "polylog" else 0, lo_open=True)
        if self.law == "free" and g not in self.groups:
            reject("g", g, "one of the fitted groups " + ", ".join(f"{x:g}" for x in self.groups))
        return g

    def _log_threshold(self, g, level):
        loc, slope, _ = self._model().split(self.fit.theta)
        if self.law == "free":
            base = loc[int(np.searchsorted(self.groups, g))]
        else:
            c, exponent = self.fit.theta[:2]
            base = c + exponent * (_law_covariate(self.law, g) - self.centre)
        return float(base + _LINK_PPF[self.link](level) / slope)

    def threshold(self, g, level=0.5) -> float:
        """The size where the curve without lapse, ``F``, reaches ``level`` in group ``g``:
        ``exp(loc_g + F^{-1}(level) / slope)``."""
        g = self._check_group(g)
        level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
        return _exp(self._log_threshold(g, level))

    def threshold_interval(self, g, level=0.5, conf=0.95, side="two-sided") -> tuple[float, float]:
        """Profile likelihood interval of :meth:`threshold` ``(g, level)``.

        The model is reparametrised so that the log threshold is a parameter (the location at
        ``level``, anchored at ``g`` for the power and polylog laws) and its
        :meth:`BinomialFit.profile_interval` is exponentiated; the likelihood is the same, so
        this is the exact profile interval of the threshold for every law and level. A
        one-sided upper bound is returned as ``(0, hi)``, a lower one as ``(lo, inf)``.
        """
        g = self._check_group(g)
        level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
        side = check_choice(side, "side", SIDES)
        conf = check_level(conf, "conf", side)
        theta = self.fit.theta.copy()
        slope = self.slope
        if self.law == "free":
            theta[:self.groups.size] += _LINK_PPF[self.link](level) / slope
            target = int(np.searchsorted(self.groups, g))
            centre = self.centre
        else:
            centre = float(_law_covariate(self.law, g))
            theta[0] = self._log_threshold(g, level)
            target = 0
        model = self._model(centre, level)
        refit = fit_from_starts(model.prob, model.jacobian, [theta], self.fit.successes,
                                self.fit.trials, model.names, model.bounds())
        lo, hi = refit.profile_interval(target, conf, side)
        return _exp(lo), _exp(hi)

    def exponent_interval(self, conf=0.95, side="two-sided") -> tuple[float, float]:
        """Profile likelihood interval of ``alpha`` (power law) or ``k`` (polylog law)."""
        self._require_law()
        return self.fit.profile_interval(1, conf, side)

    def probability(self, g, size) -> float:
        """The fitted success probability, lapse included, at a fitted group ``g`` and ``size``
        (without a lapse, at any ``g`` of the law)."""
        g = self._check_group(g)
        size = check_real(size, "size", lo=0, lo_open=True)
        lapse = 0.0
        if self.lapse:
            if g not in self.groups:
                reject("g", g, "a fitted group (the lapse is per group)")
            lapse = self.lapses[float(g)]
        z = self.slope * (math.log(size) - self._log_threshold(g, 0.5))
        return float((1 - lapse) * _LINK_CDF[self.link](z))


def _threshold_arrays(group, size, successes, trials, law):
    s, n = check_counts(successes, trials)
    g = check_vector(group, "group", s.size)
    x = check_vector(size, "size", s.size)
    lo = 1.0 if law == "polylog" else 0.0
    if np.any(g <= lo):
        reject("group", f"<array {g.tolist()}>", f"values > {lo:g}" +
               (" (ln ln g must exist)" if law == "polylog" else ""))
    if np.any(x <= 0):
        reject("size", f"<array {x.tolist()}>", "positive sizes")
    groups = np.unique(g)
    if law != "free" and groups.size < 2:
        reject("group", f"<array {g.tolist()}>", f"at least two distinct groups for law={law!r}")
    return g, x, s, n, groups


def _start_locations(groups, gi, log_size, s, n):
    """Per group, the log size where the empirical rate, scaled to its maximum, crosses 1/2,
    taken as the area above the rate curve (exact for a step)."""
    locs = np.empty(groups.size)
    for k in range(groups.size):
        sel = gi == k
        ls, rate = log_size[sel], s[sel] / n[sel]
        order = np.argsort(ls)
        ls, rate = ls[order], rate[order]
        top = rate.max()
        miss = 1 - rate / top if top > 0 else np.ones_like(rate)
        if ls.size == 1:
            locs[k] = ls[0]
            continue
        locs[k] = ls[0] + float(np.sum(0.5 * (miss[1:] + miss[:-1]) * np.diff(ls)))
    return locs


def _threshold_starts(model, locs, lapse, log_size):
    spacing = np.diff(np.unique(log_size))
    width = float(np.median(spacing)) if spacing.size else 1.0
    if model.law == "free":
        head = [locs]
    else:
        A = np.stack([np.ones_like(model.x), model.x], axis=1)
        (c, e), *_ = np.linalg.lstsq(A, locs, rcond=None)
        head = [np.array([c, e])]
    tail = [np.full(model.n_groups, _LAPSE_START)] if lapse else []
    starts = []
    for slope in (0.5 / width, 2.0 / width, 1.0):
        log_slope = np.clip(math.log(slope), *_LOG_SLOPE_BOUNDS)
        starts.append(np.concatenate(head + [[log_slope]] + tail))
    return starts


def fit_threshold_curves(group, size, successes, trials, *, law="free", link="logit",
                         lapse=True) -> ThresholdFit:
    r"""Fit success as a function of a size in several groups, by maximum likelihood.

    Per cell, :math:`P = (1-\lambda_g) F(\beta(\ln s - \ell_g))` with :math:`F` the logistic
    (``link="logit"``) or standard normal (``"probit"``) distribution function, one common
    slope :math:`\beta > 0` (fitted as its log), lapses :math:`\lambda_g \in [0, 1/2]` per group
    (``lapse=False``: none) and the location :math:`\ell_g` (log of the size where ``F`` is 1/2):

    - ``law="free"``: one :math:`\ell_g` per group;
    - ``law="power"``: :math:`\ell_g = c + \alpha(\ln g - \bar x)`, threshold
      :math:`\propto g^\alpha`;
    - ``law="polylog"``: :math:`\ell_g = c + k(\ln\ln g - \bar x)`, threshold
      :math:`\propto (\ln g)^k` (needs ``g > 1``);

    :math:`\bar x` is the mean covariate of the groups (it decorrelates ``c`` and the exponent).

    Args:
        group, size, successes, trials: one entry per cell (group > 0, size > 0).
    Returns:
        :class:`ThresholdFit`, the best of three starts (slopes spread around the grid's
        spacing) from the groups' empirical crossings of 1/2.
    """
    law = check_choice(law, "law", LAWS)
    link = check_choice(link, "link", LINKS)
    lapse = check_bool(lapse, "lapse")
    g, x, s, n, groups = _threshold_arrays(group, size, successes, trials, law)
    gi = np.searchsorted(groups, g)
    log_size = np.log(x)
    centre = 0.0 if law == "free" else float(np.mean(_law_covariate(law, groups)))
    model = _ThresholdModel(law, link, lapse, groups, gi, log_size, centre)
    starts = _threshold_starts(model, _start_locations(groups, gi, log_size, s, n), lapse, log_size)
    fit = fit_from_starts(model.prob, model.jacobian, starts, s, n, model.names, model.bounds())
    return ThresholdFit(law=law, link=link, lapse=lapse, groups=groups, group=g, size=x,
                        centre=centre, fit=fit)



def compare_laws(fit_a, fit_b, margin=3.0) -> str:
    """Which of two threshold-curve laws the data favour, with a margin fixed in advance.

    Fits with the same number of parameters (power and polylog do) are compared by
    log-likelihood; otherwise by ``loglik - n_params`` (minus half the AIC). The law whose
    score exceeds the other's by more than ``margin`` wins; otherwise the answer is
    ``"indistinguishable"``. The default margin 3 is a likelihood ratio of ``e^3 ~ 20``,
    strong evidence.

    Returns:
        ``fit_a.law``, ``fit_b.law`` or ``"indistinguishable"``.
    """
    for name, f in (("fit_a", fit_a), ("fit_b", fit_b)):
        if not isinstance(f, ThresholdFit):
            reject(name, f"<{type(f).__name__}>", "a ThresholdFit")
    if fit_b.law == fit_a.law:
        reject("fit_b", fit_b.law, f"a law other than fit_a's ({fit_a.law!r})")
    same = all(np.array_equal(u, v) for u, v in (
        (fit_a.group, fit_b.group), (fit_a.size, fit_b.size),
        (fit_a.fit.successes, fit_b.fit.successes), (fit_a.fit.trials, fit_b.fit.trials)))
    if not same:
        reject("fit_b", "<ThresholdFit of other cells>", "a fit to the same cells as fit_a")
    margin = check_real(margin, "margin", lo=0)
    if fit_a.n_params == fit_b.n_params:
        score_a, score_b = fit_a.loglik, fit_b.loglik
    else:
        score_a, score_b = fit_a.loglik - fit_a.n_params, fit_b.loglik - fit_b.n_params
    if score_a - score_b > margin:
        return fit_a.law
    if score_b - score_a > margin:
        return fit_b.law
    return "indistinguishable"


def law_summary(group, size, successes, trials, *, levels=(0.5, 0.9), conf=0.95, margin=3.0) -> dict:
    r"""Thresholds and their law from binomial likelihood over all cells
    (:func:`fit_threshold_curves`): the success curve of each group (``d``) rises in
    ``ln size`` (``m`` or ``n``) with a common slope and a lapse per group.

    Returns:
        dict with ``thresholds`` (``group -> {level: (estimate, lo, hi)}``, profile-likelihood
        intervals at ``conf``, quasi-likelihood: widened by the fit's dispersion), and where two or more groups were measured ``power``
        (``alpha`` with its interval and ``curve``, the fitted 0.5-level threshold on a grid of
        groups), ``polylog`` (``k``, its interval and ``curve``; groups > 1),
        ``loglik`` per law and ``comparison`` (``"power"``, ``"polylog"`` or
        ``"indistinguishable"`` with log-likelihood margin ``margin``), plus ``deviance`` and
        ``dof`` of the free fit (a deviance far above its degrees of freedom says the logistic
        shape is approximate and the intervals optimistic).
    """
    free = fit_threshold_curves(group, size, successes, trials, law="free")
    free_conf = quasi_level(conf, free.dispersion)
    out = {"thresholds": {}, "slope": free.slope, "lapses": free.lapses,
           "deviance": free.fit.deviance, "dof": free.fit.n_cells - free.fit.n_params,
           "loglik": {"free": free.loglik}}
    for g in free.groups:
        g = int(g) if float(g).is_integer() else float(g)
        out["thresholds"][g] = {q: (free.threshold(g, q), *free.threshold_interval(g, q, free_conf)) for q in levels}
    if free.groups.size >= 2:
        lo, hi = float(free.groups.min()), float(free.groups.max())
        grid = [lo * (hi / lo) ** (t / 48) for t in range(49)]
        power = fit_threshold_curves(group, size, successes, trials, law="power")
        out["power"] = {"alpha": power.exponent, "interval": power.exponent_interval(quasi_level(conf, power.dispersion)),
                        "curve": [(g, power.threshold(g, 0.5)) for g in grid]}
        out["loglik"]["power"] = power.loglik
        if lo > 1:
            polylog = fit_threshold_curves(group, size, successes, trials, law="polylog")
            out["polylog"] = {"k": polylog.exponent, "interval": polylog.exponent_interval(quasi_level(conf, polylog.dispersion)),
                              "curve": [(g, polylog.threshold(g, 0.5)) for g in grid]}
            out["loglik"]["polylog"] = polylog.loglik
            out["comparison"] = compare_laws(polylog, power, margin=margin)
            out["margin"] = margin
    return out


__all__ = ["LAWS", "LINKS", "ThresholdFit", "fit_threshold_curves", "compare_laws", "law_summary"]
