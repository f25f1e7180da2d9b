"""Power calculations of decision rules (verify.stats.power) on synthetic truths, and the exact
outcome probabilities of a proportion decided at planned looks."""

import numpy as np
import pytest
from scipy import stats

from verify.common.tolerances import NAMED
from verify.stats.intervals import bonferroni_level, clopper_pearson
from verify.stats.power import exponent_rule_error_rates, sequential_proportion_outcomes
from verify.stats.thresholds import fit_threshold_curves
from tests.helpers import raises_input_error

GROUPS = (100, 1000, 10000, 100000)
MS = (4, 6, 8, 12, 16, 24, 32, 48, 64)
SUM = NAMED["float64_short_sum"]


def _truth(alpha, seeds=400):
    rng = np.random.default_rng(5)
    g, m, k, n = [], [], [], []
    for d in GROUPS:
        for size in MS:
            z = 4.0 * (np.log(size) - (np.log(9.0) + alpha * (np.log(d) - np.log(1000))))
            g.append(d), m.append(size), n.append(seeds)
            k.append(rng.binomial(seeds, 0.98 / (1 + np.exp(-z))))
    return fit_threshold_curves(g, m, k, n, law="power")


def test_a_clear_margin_never_fails_and_the_alternative_rarely_passes():
    truth = _truth(0.1)
    design = ((1000, MS, 100), (10000, MS, 100))
    r = exponent_rule_error_rates(truth, design, ceiling=0.4, n_sim=40, rng=3)
    assert r["false_fail"][0] == 0.0
    assert r["upper_bound_mean"] < 0.4 - 3 * r["upper_bound_sd"]
    assert r["false_pass"][0] <= 0.1  # nominal 1 %, 40 runs


def test_a_rule_at_the_truth_fails_about_half_the_time():
    # the ceiling equal to the true exponent: the upper bound lies above it in ~99 % of runs
    truth = _truth(0.2)
    r = exponent_rule_error_rates(truth, ((1000, MS, 100), (10000, MS, 100)), ceiling=truth.exponent,
                                  n_sim=40, rng=4)
    assert r["false_fail"][0] >= 0.9


@pytest.mark.parametrize("kwargs, name", [
    (dict(ceiling=float("nan")), "ceiling"), (dict(n_sim=0), "n_sim"), (dict(alternative="x"), "alternative"),
])
def test_bad_arguments(kwargs, name):
    with raises_input_error(name):
        exponent_rule_error_rates(_truth(0.1), ((1000, MS, 10),), **kwargs)


# ------------------------------------------------------------- sequential proportion rules



@pytest.mark.parametrize("n, p, side", [(7, 0.9, "lower"), (30, 0.7, "lower"), (14, 0.1, "upper"), (40, 0.3, "upper")])
def test_one_look_is_the_binomial_tail_beyond_the_plain_boundary(n, p, side):
    r = sequential_proportion_outcomes(p, (n,), 0.5, 0.99, side)
    a, b = r["boundaries"][0]
    if side == "lower":  # the fewest successes whose lower bound reaches 1/2, by plain search
        assert a == min(k for k in range(n + 1) if clopper_pearson(k, n, 0.99, side="lower")[0] >= 0.5)
    else:
        assert a == max(k for k in range(n + 1) if clopper_pearson(k, n, 0.99, side="upper")[1] <= 0.5)
    if side == "lower":
        want_pass, want_fail = stats.binom.sf(a - 1, n, p), stats.binom.cdf(b, n, p)
    else:
        want_pass, want_fail = stats.binom.cdf(a, n, p), stats.binom.sf(b - 1, n, p)
    assert r["pass"] == pytest.approx(want_pass, abs=SUM.atol)
    assert r["fail"] == pytest.approx(want_fail, abs=SUM.atol)
    assert r["pass"] + r["fail"] + r["inconclusive"] == pytest.approx(1.0, abs=SUM.atol)
    assert r["expected_runs"] == n and r["look_level"] == 0.99


def _simulated(p, looks, side, level, draws, rng):
    """The rule written out plainly: draw runs look by look, decide with clopper_pearson."""
    per = bonferroni_level(level, len(looks))
    counts = {"pass": 0, "fail": 0, "inconclusive": 0}
    for _ in range(draws):
        runs = rng.random(looks[-1]) < p
        outcome = "inconclusive"
        for n in looks:
            k = int(runs[:n].sum())
            lo, hi = clopper_pearson(k, n, per, side="lower")[0], clopper_pearson(k, n, per, side="upper")[1]
            if side == "lower":
                outcome = "pass" if lo >= 0.5 else "fail" if hi < 0.5 else "inconclusive"
            else:
                outcome = "pass" if hi <= 0.5 else "fail" if lo > 0.5 else "inconclusive"
            if outcome != "inconclusive":
                break
        counts[outcome] += 1
    return counts


@pytest.mark.parametrize("p, looks, side", [(0.85, (8, 24), "lower"), (0.2, (10, 20, 40), "upper")])
def test_looks_agree_with_a_simulation_of_the_rule(p, looks, side):
    draws = 4000
    exact = sequential_proportion_outcomes(p, looks, 0.5, 0.99, side)
    seen = _simulated(p, looks, side, 0.99, draws, np.random.default_rng(11))
    for outcome, k in seen.items():
        lo, hi = clopper_pearson(k, draws, 0.999)
        assert lo <= exact[outcome] <= hi, (outcome, k, exact[outcome])


@pytest.mark.parametrize("looks", [(8,), (8, 24), (10, 20, 40), (12, 40, 84)])
@pytest.mark.parametrize("side", ["lower", "upper"])
def test_the_wrong_side_passes_at_most_one_minus_level_over_all_looks(looks, side):
    # at p = threshold the rule passes at some look with probability <= 1 - level (Bonferroni)
    r = sequential_proportion_outcomes(0.5, looks, 0.5, 0.99, side)
    assert r["pass"] <= 0.01 and r["look_level"] == pytest.approx(1 - 0.01 / len(looks), abs=SUM.atol)


def test_more_looks_cut_the_inconclusive_rate_and_stop_early_when_clear():
    one = sequential_proportion_outcomes(0.9, (8,), 0.5, 0.99, "lower")
    two = sequential_proportion_outcomes(0.9, (8, 30), 0.5, 0.99, "lower")
    assert two["inconclusive"] < one["inconclusive"] / 10
    assert 8 < two["expected_runs"] < 30
    assert sequential_proportion_outcomes(1.0, (8, 30), 0.5, 0.99, "lower")["expected_runs"] == 8


@pytest.mark.parametrize("kwargs, name", [
    (dict(p=1.5), "p"), (dict(looks=()), "looks"), (dict(looks=(10, 10)), "looks"), (dict(looks=(0, 4)), "looks"),
    (dict(threshold=1.0), "threshold"), (dict(level=1.0), "level"), (dict(side="both"), "side"),
])
def test_sequential_bad_arguments(kwargs, name):
    args = dict(p=0.5, looks=(8, 24), threshold=0.5, level=0.99, side="lower") | kwargs
    with raises_input_error(name):
        sequential_proportion_outcomes(**args)
