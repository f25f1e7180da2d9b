"""Power calculations of decision rules (verify.stats.power) on synthetic truths."""

import numpy as np
import pytest

from verify.stats.power import exponent_rule_error_rates
from verify.stats.thresholds import fit_threshold_curves
from tests.helpers import raises_input_error

GROUPS = (100, 1000, 10000, 100000)
MS = (4, 6, 8, 12, 16, 24, 32, 48, 64)


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
