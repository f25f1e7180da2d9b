r"""Likelihood inference for binomial data: exact intervals, binomial regression with profile
likelihood intervals, the parametric bootstrap, threshold curves and sample sizes.

- :func:`clopper_pearson` (exact) and :func:`wilson_interval` (score) intervals of a proportion.
- :func:`fit_binomial`: maximum likelihood for success probabilities that are a known function
  of parameters (the covariates are closed over by the caller); :class:`BinomialFit` gives
  profile likelihood intervals of a parameter or of a derived scalar.
- :func:`parametric_bootstrap`: percentile intervals of any statistic of a fit.
- :func:`fit_threshold_curves`: success as a function of a size ``s`` (``m`` or ``n``) in
  several groups (``d``), :math:`P = (1-\lambda_g)\,F(\beta(\ln s - \ell_g))`, with the location
  :math:`\ell_g` free per group or following a power law or a polylog law in ``g``;
  :func:`compare_laws` decides between two laws with a margin fixed in advance.
- :func:`proportion_error_rates`, :func:`sample_size_for_proportion`: exact error rates and
  sample sizes of the decision "pass iff a one-sided Clopper-Pearson bound clears a threshold";
  :func:`simulate_error_rate` for rules whose error rates need simulation.

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import optimize, special, stats

from numeric.validation import check_bool, check_choice, check_int, check_real, reject
from verify.experiments.statistics import wilson_interval

SIDES = ("two-sided", "upper", "lower")
LAWS = ("free", "power", "polylog")
LINKS = ("logit", "probit")

# Probabilities are kept off 0 and 1 so that one impossible-looking cell costs a large but
# finite log-likelihood instead of stopping the optimiser.
_P_CLIP = 1e-12
# An end of a profile interval that is not reached this many standard errors from the
# estimate, where the profile has stopped rising, is reported as unbounded.
_SEARCH_STANDARD_ERRORS = 50.0
# Bounds of the nuisance parameters of a threshold curve: the log-slope (slope in
# [e^-8, e^8]) and the lapse itself. The lapse is a box-constrained parameter rather than a
# squashed one: a sigmoid saturates where the lapse is near 0, its gradient vanishes there,
# and a quasi-Newton optimiser (SLSQP) then stalls at a spurious optimum.
_LOG_SLOPE_BOUNDS = (-8.0, 8.0)
_LAPSE_BOUNDS = (0.0, 0.5)
_LAPSE_START = 0.02


class FitFailure(RuntimeError):
    """The optimiser found no finite likelihood (a fit or a profile point failed)."""


# ----------------------------------------------------------------------------- validation

def _check_count(value, name, *, lo=0, hi=None):
    # counts summed in floating point (e.g. 12.0) are accepted, as by wilson_interval
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return check_int(value, name, lo=lo, hi=hi)


def _check_counts(successes, trials):
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


def _check_level(level, name, side):
    """A confidence level; one-sided profile intervals need ``level > 1/2``."""
    if side == "two-sided":
        return check_real(level, name, lo=0, hi=1, lo_open=True, hi_open=True)
    return check_real(level, name, lo=0.5, hi=1, lo_open=True, hi_open=True)


def _check_callable(f, name):
    if not callable(f):
        reject(name, f"<{type(f).__name__}>", "a callable")
    return f


def _check_rng(rng, name="rng"):
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        if rng is not None and rng < 0:
            reject(name, rng, "a numpy Generator, a seed >= 0 or None")
        return np.random.default_rng(None if rng is None else int(rng))
    if isinstance(rng, np.random.Generator):
        return rng
    reject(name, f"<{type(rng).__name__}>", "a numpy Generator, a seed >= 0 or None")


def _check_vector(value, name, length=None):
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        reject(name, f"<{type(value).__name__}>", "a 1-d array of finite numbers")
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
        reject(name, f"<array {v.tolist()}>", "a non-empty 1-d array of finite numbers")
    if length is not None and v.size != length:
        reject(name, f"<array of length {v.size}>", f"{length} values, one per cell")
    return v


# ----------------------------------------------------------------------------- exact intervals

def _cp_lower(s, n, level):
    """One-sided lower Clopper-Pearson bound at ``level`` (vectorised; 0 at s = 0)."""
    s, n = np.asarray(s), np.asarray(n)
    safe = np.maximum(s, 1)
    return np.where(s == 0, 0.0, stats.beta.ppf(1 - level, safe, n - safe + 1))


def _cp_upper(s, n, level):
    """One-sided upper Clopper-Pearson bound at ``level`` (vectorised; 1 at s = n)."""
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
    n = _check_count(trials, "trials", lo=1)
    s = _check_count(successes, "successes", hi=n)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    side = check_choice(side, "side", SIDES)
    if side == "two-sided":
        tail = 1 - (1 - level) / 2
        return float(_cp_lower(s, n, tail)), float(_cp_upper(s, n, tail))
    if side == "upper":
        return 0.0, float(_cp_upper(s, n, level))
    return float(_cp_lower(s, n, level)), 1.0


# ----------------------------------------------------------------------------- likelihood

class _Likelihood:
    """Binomial log-likelihood of per-cell probabilities ``prob(theta)``, its gradient and
    expected information (from the analytic ``jacobian`` of ``prob`` or central differences)."""

    def __init__(self, prob, jacobian, successes, trials):
        self.prob, self.jacobian = prob, jacobian
        self.s, self.n = successes.astype(float), trials.astype(float)
        self.log_choose = float(np.sum(special.gammaln(self.n + 1) - special.gammaln(self.s + 1)
                                       - special.gammaln(self.n - self.s + 1)))

    def probabilities(self, theta):
        return np.clip(np.asarray(self.prob(theta), dtype=float), _P_CLIP, 1 - _P_CLIP)

    def loglik(self, theta):
        p = self.probabilities(theta)
        value = float(np.sum(self.s * np.log(p) + (self.n - self.s) * np.log1p(-p)))
        return value + self.log_choose if math.isfinite(value) else -math.inf

    def nll(self, theta):
        value = -self.loglik(theta)
        # a huge finite value lets line searches back off where prob is not finite
        return value if math.isfinite(value) else 1e300

    def nll_grad(self, theta):
        p = self.probabilities(theta)
        weight = self.s / p - (self.n - self.s) / (1 - p)
        return -(weight @ np.asarray(self.jacobian(theta), dtype=float))

    def gradient(self):
        """The analytic gradient of :meth:`nll`, or None (finite differences)."""
        return None if self.jacobian is None else self.nll_grad

    def jacobian_at(self, theta):
        """``d prob / d theta`` (analytic, or central differences)."""
        if self.jacobian is not None:
            return np.asarray(self.jacobian(theta), dtype=float)
        cols = []
        for i in range(theta.size):
            h = 1e-6 * max(1.0, abs(theta[i]))
            e = np.zeros_like(theta)
            e[i] = h
            cols.append((np.asarray(self.prob(theta + e), float)
                         - np.asarray(self.prob(theta - e), float)) / (2 * h))
        return np.stack(cols, axis=1)

    def score(self, theta):
        """Gradient and expected (Fisher) information of :meth:`nll`."""
        p = self.probabilities(theta)
        jac = self.jacobian_at(theta)
        w = 1.0 / (p * (1 - p))
        return -(jac.T @ ((self.s - self.n * p) * w)), jac.T @ (jac * (self.n * w)[:, None])


def _damped_step(g, h, diag, damping):
    """``-(h + damping diag(diag))^{-1} g``, or None where that is singular or not finite; a
    ridge of ``1e-12 diag`` keeps flat directions solvable."""
    try:
        step = -np.linalg.solve(h + np.diag((damping + 1e-12) * diag), g)
    except np.linalg.LinAlgError:
        return None
    return step if np.all(np.isfinite(step)) else None


def _scoring(like, x0, lo, hi, free, max_iter=500):
    """Fisher scoring (the Gauss-Newton step of a binomial likelihood) with Levenberg-Marquardt
    damping over the coordinates ``free`` of the box ``[lo, hi]``; a coordinate at a bound that
    the gradient pushes outwards stays there for the step. Converged when the Newton decrement
    ``g^T h^{-1} g`` (twice the predicted gain) is below 1e-12. Returns ``(x, nll, converged)``."""
    x = np.clip(np.asarray(x0, dtype=float), lo, hi)
    f, damping = like.nll(x), 0.0
    every = free.size == x.size
    for _ in range(max_iter):
        grad, info = like.score(x)
        if not every:
            grad, info = grad[free], info[np.ix_(free, free)]
        held = ((x[free] <= lo[free]) & (grad > 0)) | ((x[free] >= hi[free]) & (grad < 0))
        act, g, h = free, grad, info
        if held.any():
            act, g, h = free[~held], grad[~held], info[np.ix_(~held, ~held)]
            if act.size == 0:
                return x, f, True
        d = np.diag(h)
        diag = np.maximum(d, 1e-12 * max(float(np.max(d)), 1e-300))
        newton = _damped_step(g, h, diag, 0.0)
        if newton is not None and -float(g @ newton) < 1e-12:
            return x, f, True
        while True:
            step = newton if damping == 0.0 else _damped_step(g, h, diag, damping)
            if step is not None:
                x_new = x.copy()
                x_new[act] = np.clip(x[act] + step, lo[act], hi[act])
                f_new = like.nll(x_new)
                if f_new <= f:
                    break
            if damping > 1e30:  # no step lowers the objective: at the optimum to rounding
                return x, f, True
            damping = max(1e-9, 10.0 * damping)
        x, f = x_new, f_new
        damping = 0.0 if damping <= 1e-8 else damping / 10.0
    return x, f, False


def _lbfgsb(like, x0, lo, hi, free):
    """L-BFGS-B over the coordinates ``free``, the fallback when scoring does not converge."""
    full = np.asarray(x0, dtype=float).copy()

    def at(y):
        full[free] = y
        return full

    grad = None if like.jacobian is None else (lambda y: like.nll_grad(at(y))[free])
    bounds = [(None if math.isinf(lo[i]) else lo[i], None if math.isinf(hi[i]) else hi[i])
              for i in free]
    res = optimize.minimize(lambda y: like.nll(at(y)), full[free],
                            jac=grad if grad is not None else "2-point", method="L-BFGS-B",
                            bounds=bounds, options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-10})
    return at(res.x).copy(), float(res.fun)


def _maximise(like, starts, bounds, free=None):
    """The best optimum over ``starts`` (full parameter vectors; only ``free`` coordinates
    move): Fisher scoring, then L-BFGS-B where scoring did not converge. Raises
    :class:`FitFailure` when no start reaches a finite likelihood."""
    lo = np.array([b[0] for b in bounds], dtype=float)
    hi = np.array([b[1] for b in bounds], dtype=float)
    free = np.arange(lo.size) if free is None else np.asarray(free, dtype=int)
    best_x, best_f = None, math.inf
    for x0 in starts:
        x, f, converged = _scoring(like, x0, lo, hi, free)
        if not converged:
            y, g = _lbfgsb(like, x, lo, hi, free)
            x, f, _ = _scoring(like, y, lo, hi, free) if g < f else (x, f, False)
        if f < best_f:
            best_x, best_f = x, f
    if best_x is None or best_f >= 1e300:
        raise FitFailure("no finite likelihood from any start")
    return best_x, best_f


# ----------------------------------------------------------------------------- profile search

def _chi2_cut(level, side):
    """Deficit ``2 (loglik_max - loglik)`` at an interval end: the chi-square(1) quantile, of
    ``level`` for a two-sided interval and of ``2 level - 1`` for a one-sided bound."""
    return float(stats.chi2.ppf(level if side == "two-sided" else 2 * level - 1, 1))


def _search_end(deficit, centre, step, direction, cut, limit):
    """Where ``deficit`` (0 at ``centre``) first reaches ``cut`` going in ``direction``:
    bracketed by doubling the distance from just beyond the normal-approximation end, then
    Brent's method. The end is ``limit`` (a bound of the parameter) when the deficit stays
    below the cut up to it, and infinite when beyond 50 standard errors it stays below the
    cut and has stopped growing (a standard error from the information can be far too small
    at an estimate on a bound, so distance alone does not end the search)."""
    max_dist = _SEARCH_STANDARD_ERRORS * step
    root_cut = math.sqrt(cut)
    limit_dist = abs(limit - centre)
    inner, dist, previous = centre, 1.25 * root_cut * step, 0.0
    for _ in range(200):
        at_limit = dist >= limit_dist
        v = limit if at_limit else centre + direction * dist
        value = deficit(v)
        if value >= cut:
            a, b = sorted((inner, v))
            # the root of the deficit is nearly linear in v (exactly so for a normal
            # likelihood), which Brent's interpolation solves in a few steps
            # (to 1e-7 standard errors, and at least 1e-7 absolutely: the standard error may
            # be a poor guess of the scale)
            return optimize.brentq(lambda x: math.sqrt(deficit(x)) - root_cut, a, b,
                                   xtol=1e-7 * min(step, 1.0),
                                   rtol=1e-12, maxiter=300, disp=False)
        if at_limit:
            return limit
        if dist >= max_dist and value - previous <= 0.01 * value:
            break
        inner, dist, previous = v, 2 * dist, value
    return direction * math.inf


def _interval(deficit, centre, step, side, cut, bounds):
    lo_bound, hi_bound = bounds
    lo = _search_end(deficit, centre, step, -1, cut, lo_bound) if side != "upper" else lo_bound
    hi = _search_end(deficit, centre, step, +1, cut, hi_bound) if side != "lower" else hi_bound
    return float(lo), float(hi)


class _WarmStarts:
    """Solutions of earlier profile points, keyed by the profiled value: the next point
    starts from the solution nearest to it."""

    def __init__(self, centre, solution):
        self.points = {float(centre): np.asarray(solution, dtype=float)}

    def nearest(self, v):
        return self.points[min(self.points, key=lambda u: abs(u - v))]

    def add(self, v, solution):
        self.points[float(v)] = np.asarray(solution, dtype=float)


def _fallback_step(value):
    return 0.1 * (1.0 + abs(value))


# ----------------------------------------------------------------------------- binomial fit

@dataclass(frozen=True, eq=False)
class BinomialFit:
    """A maximum-likelihood binomial fit (see :func:`fit_binomial`).

    ``loglik`` includes the binomial coefficients; ``bounds`` holds ``(lo, hi)`` per parameter,
    infinite where the parameter is unbounded; ``jacobian`` is the optional analytic
    ``d prob / d theta``.
    """

    theta: np.ndarray
    names: tuple
    loglik: float
    successes: np.ndarray
    trials: np.ndarray
    prob: object
    bounds: tuple
    jacobian: object = None

    @property
    def n_params(self) -> int:
        return int(self.theta.size)

    @property
    def n_cells(self) -> int:
        return int(self.trials.size)

    @property
    def aic(self) -> float:
        """Akaike information criterion ``2 k - 2 loglik``."""
        return 2.0 * self.n_params - 2.0 * self.loglik

    @property
    def deviance(self) -> float:
        """``2 (loglik_saturated - loglik)``; the saturated model fits every cell's rate."""
        s, n = self.successes.astype(float), self.trials.astype(float)
        rate = s / n
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(s > 0, s * np.log(rate), 0.0) + \
                np.where(s < n, (n - s) * np.log1p(-rate), 0.0)
        return 2.0 * (float(np.sum(terms)) + self._likelihood.log_choose - self.loglik)

    def fitted(self) -> np.ndarray:
        """The fitted per-cell probabilities."""
        return np.asarray(self.prob(self.theta), dtype=float)

    @cached_property
    def _likelihood(self):
        return _Likelihood(self.prob, self.jacobian, self.successes, self.trials)

    @cached_property
    def covariance(self) -> np.ndarray:
        """Inverse expected (Fisher) information at the estimate, ``(J^T W J)^{-1}`` with
        ``W = n / (p (1 - p))``; NaN where the information is singular. Used for the normal
        approximation that starts the profile searches."""
        info = self._likelihood.score(self.theta)[1]
        try:
            cov = np.linalg.inv(info)
        except np.linalg.LinAlgError:
            return np.full_like(info, np.nan)
        return cov if np.all(np.isfinite(cov)) else np.full_like(info, np.nan)

    @property
    def standard_errors(self) -> np.ndarray:
        """Square roots of the diagonal of :attr:`covariance` (NaN where undetermined)."""
        d = np.diag(self.covariance)
        return np.sqrt(np.where(d > 0, d, np.nan))

    def index(self, name_or_index) -> int:
        """The position of a parameter given by name or index."""
        if isinstance(name_or_index, str):
            if name_or_index not in self.names:
                reject("name_or_index", name_or_index, "one of " + ", ".join(self.names))
            return self.names.index(name_or_index)
        return check_int(name_or_index, "name_or_index", lo=0, hi=self.n_params - 1)

    def refit(self, successes) -> "BinomialFit":
        """The same model fitted to other success counts (same trials), from this fit's theta."""
        if np.shape(successes) != self.trials.shape:
            reject("successes", f"<array of shape {np.shape(successes)}>",
                   f"{self.n_cells} counts, one per cell of this fit")
        s, _ = _check_counts(successes, self.trials)
        return _fit(self.prob, self.jacobian, [self.theta], s, self.trials, self.names, self.bounds)

    def profile_interval(self, name_or_index, level=0.95, side="two-sided") -> tuple[float, float]:
        """Profile likelihood interval of one parameter.

        The parameter is fixed at a value and the others re-optimised; an end is where
        ``2 (loglik_max - loglik_profile)`` reaches the chi-square(1) quantile of ``level``
        (two-sided) or of ``2 level - 1`` (one-sided ``side="upper"``/``"lower"``, whose other
        end is the parameter's bound, infinite if unbounded). An end not reached within the
        parameter's bound is that bound; one not reached within 50 standard errors is infinite.
        """
        j = self.index(name_or_index)
        side = check_choice(side, "side", SIDES)
        level = _check_level(level, "level", side)
        like = self._likelihood
        free = [i for i in range(self.n_params) if i != j]
        starts = _WarmStarts(self.theta[j], self.theta)
        best = -self.loglik

        def deficit(v):
            x0 = starts.nearest(v).copy()
            x0[j] = v
            if free:
                x0, f = _maximise(like, [x0], self.bounds, free)
            else:
                f = like.nll(x0)
            starts.add(v, x0)
            return max(0.0, 2.0 * (f - best))

        step = self.standard_errors[j]
        step = step if np.isfinite(step) and step > 0 else _fallback_step(self.theta[j])
        return _interval(_cached(deficit), float(self.theta[j]), float(step), side,
                         _chi2_cut(level, side), self.bounds[j])

    def profile_interval_of(self, function, level=0.95, side="two-sided") -> tuple[float, float]:
        """Profile likelihood interval of a derived scalar ``function(theta)``.

        At each value ``v`` the log-likelihood is maximised subject to ``function(theta) = v``
        (SLSQP with an equality constraint, restarted from the estimate if the constraint is
        not met); the ends are found as in :meth:`profile_interval`, starting from the delta
        method standard error. One-sided bounds return ``-inf``/``inf`` as the other end.
        """
        g = _check_callable(function, "function")
        side = check_choice(side, "side", SIDES)
        level = _check_level(level, "level", side)
        try:
            centre = float(g(self.theta))
        except (TypeError, ValueError):
            centre = math.nan
        if not math.isfinite(centre):
            reject("function", "<callable>", "a function returning a finite number at theta")
        deficit = _cached(_ConstrainedProfile(self, g))
        step = self._delta_method_se(g, centre)
        return _interval(deficit, centre, step, side, _chi2_cut(level, side), (-math.inf, math.inf))

    def _delta_method_se(self, g, centre):
        grad = np.empty(self.n_params)
        for i in range(self.n_params):
            h = 1e-6 * max(1.0, abs(self.theta[i]))
            e = np.zeros(self.n_params)
            e[i] = h
            grad[i] = (g(self.theta + e) - g(self.theta - e)) / (2 * h)
        var = float(grad @ self.covariance @ grad)
        return math.sqrt(var) if np.isfinite(var) and var > 0 else _fallback_step(centre)


class _ConstrainedProfile:
    """``2 (loglik_max - max {loglik(theta) : g(theta) = v})`` by SLSQP."""

    def __init__(self, fit, g):
        self.fit, self.g = fit, g
        self.like = fit._likelihood
        self.best = -fit.loglik
        self.starts = _WarmStarts(g(fit.theta), fit.theta)
        self.bounds = [(None if math.isinf(lo) else lo, None if math.isinf(hi) else hi)
                       for lo, hi in fit.bounds]

    def _solve(self, v, x0):
        # the objective is shifted to 0 at the estimate so that SLSQP's absolute tolerance
        # means the same for every data size
        like, best, g = self.like, self.best, self.g
        grad = like.gradient()
        res = optimize.minimize(lambda th: like.nll(th) - best, x0,
                                jac=grad, method="SLSQP", bounds=self.bounds,
                                constraints=[{"type": "eq", "fun": lambda th: g(th) - v}],
                                options={"maxiter": 1000, "ftol": 1e-12})
        feasible = abs(g(res.x) - v) <= 1e-7 * (1.0 + abs(v))
        return res.x, float(res.fun), bool(feasible and np.isfinite(res.fun))

    def __call__(self, v):
        for x0 in (self.starts.nearest(v), self.fit.theta):
            x, f, ok = self._solve(v, x0)
            if not ok:
                continue
            # a second run from the first one's end: SLSQP may stop on a line-search exit
            x2, f2, ok2 = self._solve(v, x)
            if ok2 and f2 <= f:
                x, f = x2, f2
            self.starts.add(v, x)
            return max(0.0, 2.0 * f)
        raise FitFailure(f"the constrained fit at function(theta) = {v!r} did not converge")


def _cached(fun):
    values = {}

    def wrapper(v):
        key = float(v)
        if key not in values:
            values[key] = fun(key)
        return values[key]
    return wrapper


def _check_bounds(bounds, k, params0):
    if bounds is None:
        return tuple((-math.inf, math.inf) for _ in range(k))
    try:
        pairs = [tuple(b) for b in bounds]
    except TypeError:
        reject("bounds", f"<{type(bounds).__name__}>", f"{k} pairs (lo, hi), None for no bound")
    if len(pairs) != k or any(len(p) != 2 for p in pairs):
        reject("bounds", pairs, f"{k} pairs (lo, hi), one per parameter, None for no bound")
    out = []
    for i, (lo, hi) in enumerate(pairs):
        lo = -math.inf if lo is None else check_real(lo, f"bounds[{i}][0]")
        hi = math.inf if hi is None else check_real(hi, f"bounds[{i}][1]")
        if not lo < hi:
            reject(f"bounds[{i}]", (lo, hi), "lo < hi")
        if not lo <= params0[i] <= hi:
            reject("params0", params0.tolist(), f"a start inside the bounds (parameter {i})")
        out.append((lo, hi))
    return tuple(out)


def _check_names(names, k):
    if names is None:
        return tuple(f"theta[{i}]" for i in range(k))
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        reject("names", names, f"{k} distinct strings, one per parameter")
    names = tuple(names)
    if len(names) != k or len(set(names)) != k or not all(isinstance(n, str) for n in names):
        reject("names", names, f"{k} distinct strings, one per parameter")
    return names


def _fit(prob, jacobian, starts, s, n, names, bounds):
    like = _Likelihood(prob, jacobian, s, n)
    theta, f = _maximise(like, starts, bounds)
    return BinomialFit(theta=theta, names=names, loglik=-f, successes=s, trials=n, prob=prob,
                       bounds=bounds, jacobian=jacobian)


def fit_binomial(prob, params0, successes, trials, *, names=None, bounds=None,
                 jacobian=None) -> BinomialFit:
    """Maximum-likelihood fit of per-cell success probabilities ``prob(theta)``.

    Args:
        prob: ``theta -> array`` of one probability per cell (covariates closed over).
        params0: the start, a 1-d array; successes, trials: counts per cell.
        names: parameter names (default ``theta[i]``); bounds: ``(lo, hi)`` per parameter,
            ``None`` for no bound.
        jacobian: optional ``theta -> (cells, params)`` array ``d prob / d theta``; without it
            gradients are finite differences.
    Returns:
        :class:`BinomialFit`. The likelihood (probabilities clipped to ``[1e-12, 1 - 1e-12]``)
        is maximised by Fisher scoring with Levenberg-Marquardt damping, with L-BFGS-B as the
        fallback where scoring does not converge. Raises :class:`FitFailure` when the
        likelihood is nowhere finite.
    """
    s, n = _check_counts(successes, trials)
    prob = _check_callable(prob, "prob")
    theta0 = _check_vector(params0, "params0")
    if jacobian is not None:
        _check_callable(jacobian, "jacobian")
    try:
        p0 = np.asarray(prob(theta0), dtype=float)
    except (TypeError, ValueError):
        p0 = np.array([np.nan])
    if p0.shape != n.shape or not np.all(np.isfinite(p0)) or np.any((p0 < 0) | (p0 > 1)):
        reject("prob", "<callable>", f"a function returning {n.size} probabilities in [0, 1] "
               "at params0")
    if jacobian is not None and np.shape(jacobian(theta0)) != (n.size, theta0.size):
        reject("jacobian", "<callable>", f"a function returning a ({n.size}, {theta0.size}) array")
    names = _check_names(names, theta0.size)
    bounds = _check_bounds(bounds, theta0.size, theta0)
    return _fit(prob, jacobian, [theta0], s, n, names, bounds)


# ----------------------------------------------------------------------------- bootstrap

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
    statistic = _check_callable(statistic, "statistic")
    n_boot = check_int(n_boot, "n_boot", lo=1)
    gen = _check_rng(rng)
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
            refit = _fit(fit.prob, fit.jacobian, [fit.theta], counts, fit.trials, fit.names,
                         fit.bounds)
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


# ----------------------------------------------------------------------------- threshold curves

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
        conf = _check_level(conf, "conf", side)
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
        refit = _fit(model.prob, model.jacobian, [theta], self.fit.successes, self.fit.trials,
                     model.names, model.bounds())
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
    s, n = _check_counts(successes, trials)
    g = _check_vector(group, "group", s.size)
    x = _check_vector(size, "size", s.size)
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
    fit = _fit(model.prob, model.jacobian, starts, s, n, model.names, model.bounds())
    return ThresholdFit(law=law, link=link, lapse=lapse, groups=groups, group=g, size=x,
                        centre=centre, fit=fit)


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


def quasi_level(level, dispersion, side="two-sided") -> float:
    """The level whose chi-square(1) cut is ``dispersion`` times that of ``level``.

    A profile interval at the returned level is the quasi-likelihood interval at ``level``
    (deviance divided by the dispersion): what to use when the cells scatter more than the
    binomial model allows (:attr:`ThresholdFit.dispersion`). ``side`` as in the intervals: a
    one-sided level ``c`` corresponds to the two-sided ``2c - 1``.
    """
    side = check_choice(side, "side", SIDES)
    level = _check_level(level, "level", side)
    dispersion = check_real(dispersion, "dispersion", lo=1)
    two_sided = level if side == "two-sided" else 2 * level - 1
    # kept below 1: a level of 1 has no finite chi-square cut (the interval is then very wide)
    scaled = min(float(stats.chi2.cdf(dispersion * stats.chi2.ppf(two_sided, 1), 1)), 1 - 1e-15)
    return scaled if side == "two-sided" else (1 + scaled) / 2


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


# ----------------------------------------------------------------------------- sample sizes

def _pass_boundary(n, threshold, level, side):
    """For each ``n``: ``"lower"``, the fewest successes whose lower Clopper-Pearson bound
    exceeds ``threshold`` (``n + 1`` if none); ``"upper"``, the most successes whose upper
    bound is below it (``-1`` if none). A first guess from the binomial-beta identity is
    corrected with the bounds themselves, so the rule is exactly :func:`clopper_pearson`'s."""
    n = np.asarray(n, dtype=np.int64)
    if side == "lower":
        # lower(s) > t  <=>  P(Bin(n, t) >= s) < 1 - level
        s = np.minimum(stats.binom.ppf(level, n, threshold).astype(np.int64) + 1, n + 1)

        def passes(k):
            return (k >= 1) & (k <= n) & (_cp_lower(np.clip(k, 0, n), n, level) > threshold)
        direction = -1  # the passing outcomes are s, s + 1, ..., n
    else:
        # upper(s) < t  <=>  P(Bin(n, t) <= s) < 1 - level
        s = np.maximum(stats.binom.ppf(1 - level, n, threshold).astype(np.int64) - 1, -1)

        def passes(k):
            return (k >= 0) & (k <= n) & (_cp_upper(np.clip(k, 0, n), n, level) < threshold)
        direction = +1  # the passing outcomes are 0, 1, ..., s
    for _ in range(50):
        outward = passes(s + direction)  # the boundary lies further out
        inward = ~passes(s) & (s >= 0) & (s <= n)  # s itself does not pass
        if not (outward.any() or inward.any()):
            return s
        s = s + direction * outward - direction * inward
    raise AssertionError("no Clopper-Pearson pass boundary found")


def _error_rates(n, p, threshold, level, side):
    """Probability of the wrong decision for each ``n`` when the true proportion is ``p``."""
    b = _pass_boundary(n, threshold, level, side)
    if side == "lower":
        p_pass = stats.binom.sf(b - 1, n, p)
        should_pass = p > threshold
    else:
        p_pass = stats.binom.cdf(b, n, p)
        should_pass = p < threshold
    return 1.0 - p_pass if should_pass else p_pass


def _check_rule(threshold, level, side):
    threshold = check_real(threshold, "threshold", lo=0, hi=1, lo_open=True, hi_open=True)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    side = check_choice(side, "side", ("lower", "upper"))
    return threshold, level, side


def proportion_error_rates(n, p_true, threshold, level=0.95, side="lower") -> float:
    """Exact probability that the rule "pass iff the one-sided Clopper-Pearson bound at
    ``level`` clears ``threshold``" decides wrongly when the true proportion is ``p_true``.

    ``side="lower"``: pass iff the lower bound is above ``threshold``; the error is failing
    when ``p_true > threshold`` and passing otherwise. ``side="upper"``: pass iff the upper
    bound is below ``threshold``; the error is failing when ``p_true < threshold`` and passing
    otherwise. The sum runs over all binomial outcomes of ``n`` trials.
    """
    n = check_int(n, "n", lo=1)
    p_true = check_real(p_true, "p_true", lo=0, hi=1)
    threshold, level, side = _check_rule(threshold, level, side)
    return float(_error_rates(np.array([n]), p_true, threshold, level, side)[0])


def sample_size_for_proportion(p_correct, p_alternative, threshold, level=0.95,
                               max_false_fail=1e-3, max_false_pass=1e-2, side="lower",
                               n_max=100000, *, run=10) -> int:
    """Fewest trials for which the rule of :func:`proportion_error_rates` fails correct code
    (true proportion ``p_correct``) with probability at most ``max_false_fail`` and passes the
    alternative ``p_alternative`` with probability at most ``max_false_pass``.

    The exact error rates saw-tooth in ``n`` (the binomial outcomes are discrete), so a lucky
    ``n`` can meet both limits while ``n + 1`` does not: the answer is the smallest ``n`` such
    that ``n`` and the ``run - 1`` following sizes all meet them.
    ``side="lower"`` needs ``p_correct > threshold >= p_alternative``, ``"upper"`` the reverse.
    """
    threshold, level, side = _check_rule(threshold, level, side)
    p_correct = check_real(p_correct, "p_correct", lo=0, hi=1)
    p_alternative = check_real(p_alternative, "p_alternative", lo=0, hi=1)
    ordered = (p_correct > threshold >= p_alternative) if side == "lower" else \
        (p_correct < threshold <= p_alternative)
    if not ordered:
        reject("p_alternative", p_alternative,
               f"a proportion on the other side of threshold = {threshold} from p_correct = "
               f"{p_correct} (side = {side!r})")
    max_false_fail = check_real(max_false_fail, "max_false_fail", lo=0, hi=1, lo_open=True)
    max_false_pass = check_real(max_false_pass, "max_false_pass", lo=0, hi=1, lo_open=True)
    n_max = check_int(n_max, "n_max", lo=1)
    run = check_int(run, "run", lo=1)
    streak, start, last = 0, 1, n_max + run - 1  # a run starting at n_max ends at last
    while start <= last:
        n = np.arange(start, min(start + 1024, last + 1))
        ok = (_error_rates(n, p_correct, threshold, level, side) <= max_false_fail) & \
             (_error_rates(n, p_alternative, threshold, level, side) <= max_false_pass)
        for i, good in enumerate(ok):
            streak = streak + 1 if good else 0
            if streak == run:
                return int(n[i] - run + 1)
        start += n.size
    reject("n_max", n_max, f"a larger limit: no n <= {n_max} meets both error limits")


def simulate_error_rate(simulate_once, n_sim, rng=None, level=0.95):
    """Monte Carlo error rate of a decision rule.

    Args:
        simulate_once: ``rng -> bool``, one simulated run, True when the rule decided wrongly.
        n_sim: runs (>= 1); rng: numpy Generator, seed or None; level: of the interval.
    Returns:
        ``(rate, (lo, hi))``: the fraction of wrong decisions and its two-sided
        :func:`clopper_pearson` interval.
    """
    simulate_once = _check_callable(simulate_once, "simulate_once")
    n_sim = check_int(n_sim, "n_sim", lo=1)
    gen = _check_rng(rng)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    errors = 0
    for _ in range(n_sim):
        outcome = simulate_once(gen)
        if not isinstance(outcome, (bool, np.bool_)):
            reject("simulate_once", "<callable>", "a function returning True (an error) or False")
        errors += bool(outcome)
    return errors / n_sim, clopper_pearson(errors, n_sim, level)


__all__ = [
    "SIDES", "LAWS", "LINKS", "FitFailure", "wilson_interval", "clopper_pearson",
    "BinomialFit", "fit_binomial", "BootstrapResult", "parametric_bootstrap",
    "ThresholdFit", "fit_threshold_curves", "quasi_level", "compare_laws",
    "mean_interval", "proportion_error_rates", "sample_size_for_proportion", "simulate_error_rate",
]
