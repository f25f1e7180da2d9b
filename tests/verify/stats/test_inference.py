"""verify.stats on synthetic data with known answers: exact intervals, the binomial fit and its
profile intervals, the bootstrap, threshold curves and sample sizes.

Coverage tests draw many data sets from a fixed seed, so they are deterministic; each asserts
that the observed coverage lies in the band that a correct 95 % interval stays inside with
probability about 99.8 % (binomial quantiles of the number of simulations)."""

import math

import numpy as np
import pytest
from scipy import special, stats

from tests.helpers import raises_input_error
from verify.common.tolerances import NAMED, tolerance
from verify.stats.bootstrap import parametric_bootstrap
from verify.stats.intervals import clopper_pearson, wilson_interval
from verify.stats.likelihood import BinomialFit, fit_binomial
from verify.stats.power import (
    paired_share_outcomes, proportion_error_rates, sample_size_for_proportion, simulate_error_rate,
    window_mean_outcomes,
)
from verify.stats.thresholds import LAWS, compare_laws, fit_threshold_curves

CHI2_95 = stats.chi2.ppf(0.95, 1)
F64, FIT, OPTIMUM = tolerance("float64"), NAMED["iterative_fit"], NAMED["iterative_fit_optimum"]


def coverage_band(n_sim, nominal=0.95, tail=1e-3):
    """Observed coverages that a method of exact coverage ``nominal`` leaves with
    probability ``tail`` on each side."""
    return (stats.binom.ppf(tail, n_sim, nominal) / n_sim,
            stats.binom.isf(tail, n_sim, nominal) / n_sim)


# ----------------------------------------------------------------------------- exact intervals

def test_each_name_is_defined_in_one_module_and_re_exported_by_the_package():
    import importlib

    import verify.stats

    homes = {}
    for topic in ("checks", "intervals", "likelihood", "thresholds", "bootstrap", "power",
                  "decisions"):
        module = importlib.import_module(f"verify.stats.{topic}")
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj):  # defined here, not imported from a sibling
                assert obj.__module__ == module.__name__, (module.__name__, name)
            assert name not in homes, (name, homes.get(name), topic)
            homes[name] = obj
    assert wilson_interval is verify.stats.wilson_interval
    for name in verify.stats.__all__:
        assert getattr(verify.stats, name) is homes[name], name


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_clopper_pearson_matches_scipy(level):
    for n in (1, 2, 7, 30, 101):
        for s in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ref = stats.binomtest(s, n).proportion_ci(confidence_level=level, method="exact")
            assert clopper_pearson(s, n, level) == pytest.approx((ref.low, ref.high), abs=F64.atol)
            up = stats.binomtest(s, n, alternative="less").proportion_ci(level, "exact")
            assert clopper_pearson(s, n, level, "upper") == pytest.approx((0.0, up.high), abs=F64.atol)
            low = stats.binomtest(s, n, alternative="greater").proportion_ci(level, "exact")
            assert clopper_pearson(s, n, level, "lower") == pytest.approx((low.low, 1.0), abs=F64.atol)


def test_clopper_pearson_edges_are_exact():
    for n in (1, 5, 40):
        assert clopper_pearson(0, n)[0] == 0.0 and clopper_pearson(n, n)[1] == 1.0
        assert clopper_pearson(0, n, 0.95, "lower") == (0.0, 1.0)
        # closed forms at the edges: (1 - hi)^n = 1 - level for s = 0, lo^n = 1 - level for s = n
        upper = clopper_pearson(0, n, 0.95, "upper")[1]
        assert upper == pytest.approx(1 - 0.05 ** (1 / n), rel=F64.rtol)
        assert clopper_pearson(n, n, 0.95, "lower")[0] == pytest.approx(0.05 ** (1 / n), rel=F64.rtol)
    assert clopper_pearson(12.0, 20.0) == clopper_pearson(12, 20)


def _simulated_coverage(interval, p, n, n_sim, seed):
    table = [interval(s, n) for s in range(n + 1)]
    covers = np.array([lo <= p <= hi for lo, hi in table])
    draws = np.random.default_rng(seed).binomial(n, p, size=n_sim)
    exact = float(stats.binom.pmf(np.arange(n + 1), n, p) @ covers)
    return float(covers[draws].mean()), exact


def test_clopper_pearson_is_conservative():
    for p in (0.02, 0.3, 0.5, 0.77, 0.99):
        for n in (10, 50, 200):
            assert _simulated_coverage(clopper_pearson, p, n, 1, 0)[1] >= 0.95
    observed, exact = _simulated_coverage(clopper_pearson, 0.3, 50, 2000, 11)
    assert exact >= 0.95 and observed >= coverage_band(2000)[0]
    print(f"Clopper-Pearson p=0.3 n=50: simulated coverage {observed:.4f}, exact {exact:.4f}")


def test_wilson_coverage_is_nominal():
    observed, exact = _simulated_coverage(wilson_interval, 0.3, 50, 2000, 12)
    lo, hi = coverage_band(2000)
    assert lo <= observed <= hi
    print(f"Wilson p=0.3 n=50: simulated coverage {observed:.4f}, exact {exact:.4f}")


# ----------------------------------------------------------------------------- binomial fit

X5 = np.linspace(-2.0, 2.0, 5)


def logistic(theta):
    return special.expit(theta[0] + theta[1] * X5)


def logistic_jacobian(theta):
    p = logistic(theta)
    return (p * (1 - p))[:, None] * np.stack([np.ones_like(X5), X5], axis=1)


def irls(successes, trials):
    design = np.stack([np.ones_like(X5), X5], axis=1)
    beta = np.zeros(2)
    for _ in range(100):
        p = special.expit(design @ beta)
        info = design.T @ (design * (trials * p * (1 - p))[:, None])
        beta = beta + np.linalg.solve(info, design.T @ (successes - trials * p))
    return beta, np.linalg.inv(info)


@pytest.mark.parametrize("jacobian", [None, logistic_jacobian], ids=["differences", "analytic"])
def test_fit_binomial_recovers_logistic_regression(jacobian):
    n = np.full(5, 40)
    s = np.random.default_rng(1).binomial(n, logistic([0.3, 1.2]))
    fit = fit_binomial(logistic, [0.0, 0.0], s, n, names=("a", "b"), jacobian=jacobian)
    beta, cov = irls(s, n)
    assert fit.theta == pytest.approx(beta, abs=FIT.atol)
    p = logistic(beta)
    assert fit.loglik == pytest.approx(stats.binom.logpmf(s, n, p).sum(), abs=OPTIMUM.atol)
    saturated = stats.binom.logpmf(s, n, s / n).sum()
    assert fit.deviance == pytest.approx(2 * (saturated - fit.loglik), abs=OPTIMUM.atol)
    assert fit.aic == pytest.approx(4 - 2 * fit.loglik)
    assert fit.covariance == pytest.approx(cov, rel=FIT.rtol)
    assert (fit.n_params, fit.n_cells, fit.names) == (2, 5, ("a", "b"))


def _identity_fit(s, n):
    return fit_binomial(lambda th: np.full(1, th[0]), [0.5], [s], [n], bounds=[(0.0, 1.0)])


def test_profile_interval_of_a_proportion_is_the_likelihood_ratio_interval():
    # 0 of 10: the lower end is the bound 0, the upper solves -20 ln(1 - p) = chi2
    assert _identity_fit(0, 10).profile_interval(0) == pytest.approx(
        (0.0, 1 - math.exp(-CHI2_95 / 20)), abs=FIT.atol)
    s, n = 3, 10
    fit = _identity_fit(s, n)

    def deficit(p):
        return 2 * (stats.binom.logpmf(s, n, s / n) - stats.binom.logpmf(s, n, p)) - CHI2_95

    from scipy.optimize import brentq
    ends = (brentq(deficit, 1e-9, 0.3), brentq(deficit, 0.3, 1 - 1e-9))
    assert fit.profile_interval(0) == pytest.approx(ends, abs=FIT.atol)
    one_sided = stats.chi2.ppf(0.90, 1)  # a 95 % one-sided bound uses the 90 % two-sided cut
    upper = brentq(lambda p: deficit(p) + CHI2_95 - one_sided, 0.3, 1 - 1e-9)
    assert fit.profile_interval(0, side="upper") == pytest.approx((0.0, upper), abs=FIT.atol)


def test_profile_interval_of_unbounded_direction_is_infinite():
    # all successes: the logit of the rate has no upper end
    fit = fit_binomial(lambda th: special.expit(np.full(1, th[0])), [0.0], [10], [10])
    lo, hi = fit.profile_interval(0)
    assert hi == math.inf and lo == pytest.approx(special.logit(math.exp(-CHI2_95 / 20)), abs=FIT.atol)


def test_profile_interval_of_a_derived_quantity_is_the_reparametrised_profile():
    n = np.full(5, 30)
    s = np.random.default_rng(2).binomial(n, logistic([0.3, 1.2]))
    fit = fit_binomial(logistic, [0.0, 0.0], s, n, names=("a", "b"))
    direct = fit.profile_interval("b")
    assert fit.profile_interval_of(lambda th: th[1]) == pytest.approx(direct, abs=FIT.atol)
    # u = a + b (the log-odds at x = 1) is a parameter of the reparametrised model
    refit = fit_binomial(lambda th: logistic([th[0] - th[1], th[1]]), [0.0, 0.0], s, n)
    assert fit.profile_interval_of(lambda th: th[0] + th[1]) == pytest.approx(
        refit.profile_interval(0), abs=FIT.atol)
    lo, hi = fit.profile_interval_of(lambda th: th[0] + th[1], side="lower")
    assert hi == math.inf
    assert lo == pytest.approx(refit.profile_interval(0, side="lower")[0], abs=FIT.atol)


def test_profile_interval_covers_the_slope():
    truth, n, n_sim = np.array([0.3, 1.2]), np.full(5, 30), 1000
    rng = np.random.default_rng(20)
    hits = 0
    for _ in range(n_sim):
        s = rng.binomial(n, logistic(truth))
        fit = fit_binomial(logistic, [0.0, 0.0], s, n, jacobian=logistic_jacobian)
        lo, hi = fit.profile_interval(1)
        hits += lo <= truth[1] <= hi
    lo, hi = coverage_band(n_sim)
    print(f"profile interval of a logistic slope: coverage {hits / n_sim:.3f} over {n_sim}")
    assert lo <= hits / n_sim <= hi


# ----------------------------------------------------------------------------- bootstrap

def test_bootstrap_of_a_proportion_is_binomial():
    # the refit of p = theta is S/n with S ~ Bin(n, p_hat): the percentile interval is the
    # binomial quantiles up to Monte Carlo error
    s, n = 30, 100
    result = parametric_bootstrap(_identity_fit(s, n), lambda f: f.theta[0], n_boot=2000, rng=3)
    assert result.failure_fraction == 0.0 and result.samples.size == 2000
    assert result.estimate == pytest.approx(0.3, abs=FIT.atol)
    q = stats.binom.ppf([0.025, 0.975], n, s / n) / n
    assert result.interval == pytest.approx(tuple(q), abs=NAMED["bootstrap_percentile"].atol)
    assert result.samples.mean() == pytest.approx(0.3, abs=3 * math.sqrt(0.21 / n / 2000))


def test_bootstrap_records_failed_refits():
    fit = _identity_fit(31, 100)  # the statistic below is finite on odd counts only
    result = parametric_bootstrap(
        fit, lambda f: f.theta[0] if f.successes[0] % 2 else math.nan, n_boot=400, rng=4)
    assert 0.4 < result.failure_fraction < 0.6
    assert result.samples.size == round(400 * (1 - result.failure_fraction))
    upper = parametric_bootstrap(fit, lambda f: f.theta[0], n_boot=200, rng=4, side="upper")
    assert upper.interval[0] == -math.inf and upper.interval[1] > 0.3


def _bootstrap_coverage(n_sim, n_boot, seed):
    truth, n = np.array([0.3, 1.2]), np.full(5, 100)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_sim):
        fit = fit_binomial(logistic, truth, rng.binomial(n, logistic(truth)), n,
                           jacobian=logistic_jacobian)
        lo, hi = parametric_bootstrap(fit, lambda f: f.theta[1], n_boot=n_boot, rng=rng).interval
        hits += lo <= truth[1] <= hi
    print(f"bootstrap percentile interval of a logistic slope: coverage {hits / n_sim:.3f} "
          f"over {n_sim} data sets of {n_boot} refits")
    return hits / n_sim


def test_bootstrap_interval_covers_the_slope():
    lo, hi = coverage_band(100)
    assert lo <= _bootstrap_coverage(100, 100, 21) <= hi


@pytest.mark.slow
def test_bootstrap_interval_covers_the_slope_full():
    lo, hi = coverage_band(1000)
    assert lo <= _bootstrap_coverage(1000, 200, 22) <= hi


# ----------------------------------------------------------------------------- threshold curves

GROUPS = (1e2, 1e3, 1e4, 1e5, 1e6)
SIZES = 2.0 ** (np.arange(4, 17) / 2)  # 4 ... 256, factor sqrt(2)


def curve_cells(rng, law, trials, groups=GROUPS, sizes=SIZES, exponent=None, slope=3.0,
                lapse=0.03, link="logit"):
    """Cells of a known threshold law: thresholds 8 d^0.15 (power) or 4 ln d (polylog)."""
    g, size = (a.ravel() for a in np.meshgrid(np.array(groups), sizes, indexing="ij"))
    if law == "power":
        loc = math.log(8.0) + (0.15 if exponent is None else exponent) * np.log(g)
    else:
        loc = math.log(4.0) + (1.0 if exponent is None else exponent) * np.log(np.log(g))
    cdf = special.expit if link == "logit" else special.ndtr
    p = (1 - lapse) * cdf(slope * (np.log(size) - loc))
    n = np.full(g.size, trials)
    return g, size, rng.binomial(n, p), n


def test_threshold_fit_recovers_a_power_law():
    g, size, s, n = curve_cells(np.random.default_rng(5), "power", 400)
    fit = fit_threshold_curves(g, size, s, n, law="power")
    lo, hi = fit.exponent_interval()
    assert lo < 0.15 < hi and hi - lo < 0.03
    assert fit.slope == pytest.approx(3.0, rel=NAMED["threshold_fit_slope"].rtol)
    assert all(0.0 < v < 0.06 for v in fit.lapses.values())
    truth = 8 * 1e4**0.15
    tlo, thi = fit.threshold_interval(1e4)
    assert tlo < truth < thi and fit.threshold(1e4) == pytest.approx(truth, rel=NAMED["threshold_fit_location"].rtol)
    # the size where F reaches 0.9 lies ln(9)/slope above the median threshold
    assert fit.threshold(1e4, 0.9) == pytest.approx(fit.threshold(1e4) * 9 ** (1 / fit.slope))
    assert fit.probability(1e4, fit.threshold(1e4)) == pytest.approx(0.5 * (1 - fit.lapses[1e4]))


def test_probit_threshold_fit_recovers_a_polylog_law():
    g, size, s, n = curve_cells(np.random.default_rng(6), "polylog", 400, link="probit",
                                slope=2.0, lapse=0.0)
    fit = fit_threshold_curves(g, size, s, n, law="polylog", link="probit", lapse=False)
    lo, hi = fit.exponent_interval()
    assert lo < 1.0 < hi and fit.slope == pytest.approx(2.0, rel=NAMED["threshold_fit_slope"].rtol)
    assert fit.n_params == 3 and fit.lapses == {d: 0.0 for d in GROUPS}
    assert fit.threshold(1e3, 0.8) == pytest.approx(
        fit.threshold(1e3) * math.exp(stats.norm.ppf(0.8) / fit.slope))


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("link", ["logit", "probit"])
@pytest.mark.parametrize("lapse", [True, False])
def test_threshold_jacobian_matches_differences(law, link, lapse):
    # the fits rely on the analytic d prob / d theta; a wrong one would move the optimum
    g, size, s, n = curve_cells(np.random.default_rng(10), "power", 20, link=link)
    fit = fit_threshold_curves(g, size, s, n, law=law, link=link, lapse=lapse).fit
    theta = fit.theta + np.random.default_rng(11).uniform(-0.1, 0.1, fit.n_params)
    if lapse:
        theta[-len(GROUPS):] = np.random.default_rng(12).uniform(0.01, 0.2, len(GROUPS))
    h = 1e-6
    numeric = np.stack([(fit.prob(theta + h * e) - fit.prob(theta - h * e)) / (2 * h)
                        for e in np.eye(fit.n_params)], axis=1)
    assert fit.jacobian(theta) == pytest.approx(numeric, rel=NAMED["finite_difference"].rtol,
                                                    abs=NAMED["finite_difference"].atol)


@pytest.mark.parametrize("law", ["power", "polylog"])
def test_compare_laws_picks_the_true_law_on_large_data(law):
    g, size, s, n = curve_cells(np.random.default_rng(7), law, 400)
    fits = {name: fit_threshold_curves(g, size, s, n, law=name) for name in LAWS}
    assert compare_laws(fits["power"], fits["polylog"]) == law
    assert compare_laws(fits["polylog"], fits["power"]) == law
    # free has 3 more parameters: compared by loglik - n_params (half the AIC)
    score = {k: f.loglik - f.n_params for k, f in fits.items()}
    expected = "free" if score["free"] > score[law] else law
    assert compare_laws(fits["free"], fits[law], margin=0.0) == expected


@pytest.mark.parametrize("law", ["power", "polylog"])
def test_compare_laws_is_indistinguishable_on_tiny_data(law):
    g, size, s, n = curve_cells(np.random.default_rng(8), law, 2, groups=(1e2, 1e4, 1e6))
    fits = [fit_threshold_curves(g, size, s, n, law=name) for name in ("power", "polylog")]
    assert compare_laws(*fits) == "indistinguishable"


def test_threshold_interval_is_the_profile_of_the_threshold():
    g, size, s, n = curve_cells(np.random.default_rng(9), "power", 40)
    fit = fit_threshold_curves(g, size, s, n, law="power")
    centre = fit.centre
    for d, level in ((1e4, 0.5), (3e3, 0.9)):
        def log_threshold(th, d=d, level=level):
            return th[0] + th[1] * (math.log(d) - centre) + special.logit(level) / math.exp(th[2])
        lo, hi = fit.fit.profile_interval_of(log_threshold)
        assert fit.threshold_interval(d, level) == pytest.approx(
            (math.exp(lo), math.exp(hi)), rel=FIT.rtol)
    free = fit_threshold_curves(g, size, s, n, law="free")
    lo, hi = free.fit.profile_interval("loc[10000]")
    assert free.threshold_interval(1e4) == pytest.approx((math.exp(lo), math.exp(hi)), rel=FIT.rtol)
    lo, hi = free.threshold_interval(1e4, side="upper")
    assert lo == 0.0 and hi < free.threshold_interval(1e4)[1]


def _exponent_coverage(n_sim, seed, groups, sizes, trials, with_threshold):
    rng = np.random.default_rng(seed)
    hits_alpha = hits_threshold = 0
    truth = 8 * 1e4**0.15
    for _ in range(n_sim):
        g, size, s, n = curve_cells(rng, "power", trials, groups=groups, sizes=sizes)
        fit = fit_threshold_curves(g, size, s, n, law="power")
        lo, hi = fit.exponent_interval()
        hits_alpha += lo <= 0.15 <= hi
        if with_threshold:
            lo, hi = fit.threshold_interval(1e4)
            hits_threshold += lo <= truth <= hi
    print(f"power law, {len(groups)} groups: coverage alpha {hits_alpha / n_sim:.3f}"
          + (f", threshold at 1e4 {hits_threshold / n_sim:.3f}" if with_threshold else "")
          + f" over {n_sim}")
    return hits_alpha / n_sim, hits_threshold / n_sim


def test_exponent_interval_covers_alpha():
    lo, hi = coverage_band(100)
    alpha, _ = _exponent_coverage(100, 30, (1e2, 1e4, 1e6), SIZES[::2], 20, False)
    assert lo <= alpha <= hi


@pytest.mark.slow
def test_exponent_and_threshold_intervals_cover_full():
    lo, hi = coverage_band(1000)
    alpha, threshold = _exponent_coverage(1000, 31, GROUPS, SIZES, 20, True)
    assert lo <= alpha <= hi and lo <= threshold <= hi


# ----------------------------------------------------------------------------- sample sizes

@pytest.mark.parametrize("side,threshold,p", [("lower", 0.9, 0.97), ("lower", 0.9, 0.85),
                                              ("upper", 0.05, 0.01), ("upper", 0.05, 0.2)])
def test_proportion_error_rates_by_enumeration(side, threshold, p):
    for n in (1, 10, 57, 300):
        passes = []
        for s in range(n + 1):
            lo, hi = clopper_pearson(s, n, 0.95, side)
            passes.append(lo > threshold if side == "lower" else hi < threshold)
        p_pass = float(stats.binom.pmf(np.arange(n + 1), n, p) @ np.array(passes))
        should_pass = p > threshold if side == "lower" else p < threshold
        expected = 1 - p_pass if should_pass else p_pass
        assert proportion_error_rates(n, p, threshold, 0.95, side) == pytest.approx(
            expected, abs=F64.atol)


@pytest.mark.parametrize("side,p_correct,p_alternative,threshold",
                         [("lower", 0.97, 0.85, 0.9), ("upper", 0.01, 0.1, 0.05)])
def test_sample_size_meets_both_limits(side, p_correct, p_alternative, threshold):
    n = sample_size_for_proportion(p_correct, p_alternative, threshold, 0.95, side=side)

    def ok(k):
        return (proportion_error_rates(k, p_correct, threshold, 0.95, side) <= 1e-3
                and proportion_error_rates(k, p_alternative, threshold, 0.95, side) <= 1e-2)

    assert all(ok(k) for k in range(n, n + 10)) and not ok(n - 1)
    # a run of one accepts the first lucky n, never later than the default run of ten
    assert sample_size_for_proportion(p_correct, p_alternative, threshold, 0.95, side=side,
                                      run=1) <= n


def test_simulate_error_rate():
    rate, (lo, hi) = simulate_error_rate(lambda rng: bool(rng.random() < 0.1), 2000, rng=5)
    assert lo <= 0.1 <= hi and (lo, hi) == clopper_pearson(round(rate * 2000), 2000)
    again = simulate_error_rate(lambda rng: bool(rng.random() < 0.1), 2000,
                                rng=np.random.default_rng(5))
    assert again[0] == rate


# ----------------------------------------------------------------------------- bad input

def _small_fit():
    return fit_binomial(logistic, [0.0, 0.0], [5, 10, 20, 25, 30], np.full(5, 30), names=("a", "b"))


def _small_curves(law="power"):
    g, size, s, n = curve_cells(np.random.default_rng(0), "power", 10, groups=(1e2, 1e4))
    return fit_threshold_curves(g, size, s, n, law=law)


N5 = np.full(5, 30)
S5 = np.array([5, 10, 20, 25, 30])
BAD_CALLS = [
    (lambda: clopper_pearson(3, 2), "successes"),
    (lambda: clopper_pearson(-1, 5), "successes"),
    (lambda: clopper_pearson(1, 0), "trials"),
    (lambda: clopper_pearson(1.5, 3), "successes"),
    (lambda: clopper_pearson(1, 3, level=1.0), "level"),
    (lambda: clopper_pearson(1, 3, side="both"), "side"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5, [30, 30]), "trials"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5 + 1, N5), "successes"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], [0.5] * 5, N5), "successes"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5, np.zeros(5)), "trials"),
    (lambda: fit_binomial(logistic, [0.0, np.nan], S5, N5), "params0"),
    (lambda: fit_binomial("logistic", [0.0, 0.0], S5, N5), "prob"),
    (lambda: fit_binomial(lambda th: np.ones(4), [0.0, 0.0], S5, N5), "prob"),
    (lambda: fit_binomial(lambda th: np.full(5, 1.5), [0.0, 0.0], S5, N5), "prob"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5, N5, names=("a", "a")), "names"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5, N5, bounds=[(0, 1)]), "bounds"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5, N5, bounds=[(1, 0), None]), "bounds"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5, N5, bounds=[(1, 2), (None, None)]), "params0"),
    (lambda: fit_binomial(logistic, [0.0, 0.0], S5, N5, jacobian=lambda th: np.ones(5)),
     "jacobian"),
    (lambda: _small_fit().profile_interval("c"), "name_or_index"),
    (lambda: _small_fit().profile_interval(2), "name_or_index"),
    (lambda: _small_fit().profile_interval(0, level=0.5, side="upper"), "level"),
    (lambda: _small_fit().profile_interval(0, side="left"), "side"),
    (lambda: _small_fit().profile_interval_of(lambda th: math.nan), "function"),
    (lambda: _small_fit().profile_interval_of(3.0), "function"),
    (lambda: _small_fit().refit([1, 2]), "successes"),
    (lambda: _small_fit().refit([5, 10, 20, 25, 31]), "successes"),
    (lambda: parametric_bootstrap("fit", lambda f: 0.0), "fit"),
    (lambda: parametric_bootstrap(_small_fit(), lambda f: 0.0, n_boot=0), "n_boot"),
    (lambda: parametric_bootstrap(_small_fit(), lambda f: 0.0, rng="seed"), "rng"),
    (lambda: parametric_bootstrap(_small_fit(), lambda f: 0.0, rng=-1), "rng"),
    (lambda: parametric_bootstrap(_small_fit(), lambda f: math.inf), "statistic"),
    (lambda: parametric_bootstrap(_small_fit(), lambda f: 0.0, level=0.0), "level"),
    (lambda: fit_threshold_curves([1e2, 1e3], [8, 16], [1, 2], [5, 5], law="linear"), "law"),
    (lambda: fit_threshold_curves([1e2, 1e3], [8, 16], [1, 2], [5, 5], link="cloglog"), "link"),
    (lambda: fit_threshold_curves([1e2, 1e3], [8, 16], [1, 2], [5, 5], lapse=1), "lapse"),
    (lambda: fit_threshold_curves([1e2, 1e3], [8, 16], [1, 2, 3], [5, 5, 5]), "group"),
    (lambda: fit_threshold_curves([1e2, 1e3], [8, -16], [1, 2], [5, 5]), "size"),
    (lambda: fit_threshold_curves([1.0, 1e3], [8, 16], [1, 2], [5, 5], law="polylog"), "group"),
    (lambda: fit_threshold_curves([1e2, 1e2], [8, 16], [1, 2], [5, 5], law="power"), "group"),
    (lambda: fit_threshold_curves([1e2, 1e3], [8, 16], [1, 6], [5, 5]), "successes"),
    (lambda: _small_curves().threshold(0.0), "g"),
    (lambda: _small_curves().threshold(1e3, level=1.0), "level"),
    (lambda: _small_curves("free").threshold(1e3), "g"),
    (lambda: _small_curves("free").exponent_interval(), "law"),
    (lambda: _small_curves().threshold_interval(1e3, conf=0.4, side="lower"), "conf"),
    (lambda: _small_curves().probability(1e3, 10.0), "g"),
    (lambda: _small_curves().probability(1e2, 0.0), "size"),
    (lambda: compare_laws(_small_curves(), _small_fit()), "fit_b"),
    (lambda: compare_laws(_small_curves(), _small_curves()), "fit_b"),
    (lambda: compare_laws(_small_curves(), _small_curves("polylog"), margin=-1), "margin"),
    (lambda: proportion_error_rates(0, 0.9, 0.8), "n"),
    (lambda: proportion_error_rates(10, 1.1, 0.8), "p_true"),
    (lambda: proportion_error_rates(10, 0.9, 1.0), "threshold"),
    (lambda: proportion_error_rates(10, 0.9, 0.8, side="two-sided"), "side"),
    (lambda: sample_size_for_proportion(0.85, 0.97, 0.9), "p_alternative"),
    (lambda: sample_size_for_proportion(0.97, 0.85, 0.9, max_false_fail=0.0), "max_false_fail"),
    (lambda: sample_size_for_proportion(0.97, 0.85, 0.9, max_false_pass=2.0), "max_false_pass"),
    (lambda: sample_size_for_proportion(0.97, 0.85, 0.9, n_max=50), "n_max"),
    (lambda: sample_size_for_proportion(0.97, 0.85, 0.9, run=0), "run"),
    (lambda: simulate_error_rate(lambda rng: 0.5, 10), "simulate_once"),
    (lambda: simulate_error_rate(lambda rng: True, 0), "n_sim"),
    (lambda: simulate_error_rate(None, 10), "simulate_once"),
    (lambda: window_mean_outcomes(-0.8, 0.0, 100, -1.3, -0.7), "sd"),
    (lambda: window_mean_outcomes(-0.8, 0.2, 1, -1.3, -0.7), "n"),
    (lambda: window_mean_outcomes(-0.8, 0.2, 100, -0.7, -1.3), "high"),
    (lambda: window_mean_outcomes(math.nan, 0.2, 100, -1.3, -0.7), "mean"),
    (lambda: paired_share_outcomes(100, 1.5, 0.9, 0.5, 1.0), "discordant"),
    (lambda: paired_share_outcomes(100, 0.05, 0.9, 0.5, 1.0, level=1.0), "level"),
    (lambda: paired_share_outcomes(0, 0.05, 0.9, 0.5, 1.0), "n"),
]


@pytest.mark.parametrize("call,name", BAD_CALLS,
                         ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_CALLS)])
def test_bad_input_names_the_argument(call, name):
    with raises_input_error(name):
        call()


def test_fit_is_a_binomial_fit():
    assert isinstance(_small_curves().fit, BinomialFit)


def test_quasi_level_scales_the_chi_square_cut():
    from scipy import stats

    from verify.stats.likelihood import quasi_level

    assert quasi_level(0.95, 1.0) == pytest.approx(0.95, abs=F64.atol)
    # dispersion 4 doubles the half-width of a normal interval: z = 2 * 1.96
    assert quasi_level(0.95, 4.0) == pytest.approx(2 * stats.norm.cdf(2 * stats.norm.ppf(0.975)) - 1, rel=F64.rtol)
    # one-sided 0.99 is two-sided 0.98
    assert quasi_level(0.99, 4.0, side="upper") == pytest.approx((1 + quasi_level(0.98, 4.0)) / 2, rel=F64.rtol)
    with raises_input_error("dispersion"):
        quasi_level(0.95, 0.5)


def test_mean_interval_is_the_student_t_interval():
    from verify.stats.intervals import mean_interval

    x = [0.1, -0.4, 0.3, 0.9, -0.2]
    mean, (lo, hi), sd = mean_interval(x, 0.95)
    ref = stats.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
    assert mean == pytest.approx(np.mean(x)) and sd == pytest.approx(np.std(x, ddof=1))
    assert (lo, hi) == pytest.approx(ref, rel=F64.rtol)
    assert mean_interval(x, 0.99, "upper")[1][0] == -math.inf
    with raises_input_error("values"):
        mean_interval([1.0], 0.95)


def test_median_bounds_are_the_order_statistics_of_the_binomial_rule():
    import torch

    from verify.stats.intervals import median_bounds

    # at level 0.99: the 21st smallest of 60 and the 38th smallest of 100 (and their mirrors)
    assert median_bounds(list(range(60)), 0.99, "lower") == (20.0, math.inf)
    assert median_bounds(list(range(60)), 0.99, "upper") == (-math.inf, 39.0)
    assert median_bounds(list(range(100)), 0.99, "lower") == (37.0, math.inf)
    for n in (5, 17, 60):
        k = int(sum(stats.binom.cdf(j, n, 0.5) <= 0.05 for j in range(n)))
        values = np.random.default_rng(n).normal(size=n)
        lo = median_bounds(values, 0.95, "lower")[0]
        assert lo == (np.sort(values)[k - 1] if k else -math.inf)
        # a float64 tensor (what the SG-6 test passes) gives the same bounds as its values
        assert median_bounds(torch.as_tensor(values), 0.95, "upper") == median_bounds(values, 0.95, "upper")
    # too few values for the level: uninformative
    assert median_bounds([1.0, 2.0], 0.99, "lower") == (-math.inf, math.inf)
    with raises_input_error("values"):
        median_bounds([], 0.99)
    with raises_input_error("side"):
        median_bounds([1.0], 0.99, "two-sided")


# ----------------------------------------------------------------------- three-way designs

@pytest.mark.parametrize("mean,n", [(-0.78, 180), (-0.81, 30), (-0.72, 60)])
def test_window_mean_outcomes_match_simulated_t_intervals(mean, n):
    """The same rates two ways: the closed form against t intervals of simulated samples."""
    from verify.stats.decisions import inside
    from verify.stats.intervals import mean_interval

    sd, window, sims = 0.21, (-1.3, -0.7), 4000
    rng = np.random.default_rng(7)
    got = window_mean_outcomes(mean, sd, n, *window, level=0.99)
    counts = {"pass": 0, "fail": 0, "inconclusive": 0}
    for _ in range(sims):
        m, ci, _ = mean_interval(rng.normal(mean, sd, n), 0.99, "two-sided")
        counts[inside("mean", m, ci, 0.99, *window).outcome] += 1
    assert abs(sum(got.values()) - 1) <= F64.atol + F64.rtol
    for outcome, k in counts.items():  # binomial 99.9 % band around the closed form (+ sd noise)
        p = got[outcome]
        half = 3.3 * math.sqrt(max(p * (1 - p), 1 / sims) / sims) + 0.02 * max(p, 1 - p) * (0 < p < 1)
        assert abs(k / sims - p) <= half, (outcome, k / sims, p)


def test_paired_share_outcomes_by_enumeration():
    """Exact rates against a direct double sum over (discordant units, successes)."""
    from verify.stats.decisions import inside

    n, rate, share = 60, 0.2, 0.8
    total = {"pass": 0.0, "fail": 0.0, "inconclusive": 0.0}
    for m in range(n + 1):
        pm = stats.binom.pmf(m, n, rate)
        if m == 0:
            total["inconclusive"] += pm
            continue
        for k in range(m + 1):
            ci = clopper_pearson(k, m, 0.98)
            total[inside("share", k / m, ci, 0.98, 0.5, 1.0).outcome] += pm * stats.binom.pmf(k, m, share)
    got = paired_share_outcomes(n, rate, share, 0.5, 1.0, level=0.98)
    for outcome in total:
        assert got[outcome] == pytest.approx(total[outcome], abs=F64.atol, rel=F64.rtol)
