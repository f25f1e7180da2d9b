r"""Binomial likelihood: maximum-likelihood fits of success probabilities that are a known
function of parameters, with profile-likelihood intervals of a parameter or of a derived
scalar, and the quasi-likelihood level that widens them for overdispersed cells.

- :func:`fit_binomial`: maximum likelihood for success probabilities that are a known function
  of parameters (the covariates are closed over by the caller); :class:`BinomialFit` gives
  profile likelihood intervals of a parameter or of a derived scalar.
- :func:`quasi_level`: the level at which a profile interval is the quasi-likelihood interval
  (deviance divided by the dispersion).

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import optimize, special, stats

from numeric.validation import check_choice, check_int, check_real, reject
from verify.stats.checks import check_callable, check_counts, check_level, check_vector
from verify.stats.intervals import SIDES

# Probabilities are kept off 0 and 1 so that one impossible-looking cell costs a large but
# finite log-likelihood instead of stopping the optimiser.
_P_CLIP = 1e-12
# An end of a profile interval that is not reached this many standard errors from the
# estimate, where the profile has stopped rising, is reported as unbounded.
_SEARCH_STANDARD_ERRORS = 50.0


class FitFailure(RuntimeError):
    """The optimiser found no finite likelihood (a fit or a profile point failed)."""


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
        s, _ = check_counts(successes, self.trials)
        return fit_from_starts(self.prob, self.jacobian, [self.theta], s, self.trials, self.names,
                               self.bounds)

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
        level = check_level(level, "level", side)
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
        g = check_callable(function, "function")
        side = check_choice(side, "side", SIDES)
        level = check_level(level, "level", side)
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


def fit_from_starts(prob, jacobian, starts, s, n, names, bounds) -> BinomialFit:
    """The best maximum-likelihood fit over ``starts`` of arguments already checked (counts
    ``s``, ``n`` as int64 arrays, ``names`` and ``bounds`` one per parameter): the common
    step of :func:`fit_binomial`, refits, the bootstrap and the threshold curves."""
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
    s, n = check_counts(successes, trials)
    prob = check_callable(prob, "prob")
    theta0 = check_vector(params0, "params0")
    if jacobian is not None:
        check_callable(jacobian, "jacobian")
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
    return fit_from_starts(prob, jacobian, [theta0], s, n, names, bounds)



def quasi_level(level, dispersion, side="two-sided") -> float:
    """The level whose chi-square(1) cut is ``dispersion`` times that of ``level``.

    A profile interval at the returned level is the quasi-likelihood interval at ``level``
    (deviance divided by the dispersion): what to use when the cells scatter more than the
    binomial model allows (:attr:`ThresholdFit.dispersion`). ``side`` as in the intervals: a
    one-sided level ``c`` corresponds to the two-sided ``2c - 1``.
    """
    side = check_choice(side, "side", SIDES)
    level = check_level(level, "level", side)
    dispersion = check_real(dispersion, "dispersion", lo=1)
    two_sided = level if side == "two-sided" else 2 * level - 1
    # kept below 1: a level of 1 has no finite chi-square cut (the interval is then very wide)
    scaled = min(float(stats.chi2.cdf(dispersion * stats.chi2.ppf(two_sided, 1), 1)), 1 - 1e-15)
    return scaled if side == "two-sided" else (1 + scaled) / 2



__all__ = ["FitFailure", "BinomialFit", "fit_binomial", "fit_from_starts", "quasi_level"]
