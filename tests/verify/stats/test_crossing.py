"""The crossing interval of a non-increasing proportion curve (simultaneous Bonferroni
Clopper-Pearson bounds over a grid), its error-rate bound, and the normal variance interval."""

import math

import numpy as np
import pytest
from scipy import stats

from tests.helpers import raises_input_error
from verify.common.tolerances import assert_close
from verify.stats.intervals import (bonferroni_level, clopper_pearson, crossing_interval,
                                    variance_interval)
from verify.stats.power import crossing_comparison_miss, proportion_error_rates

GRID = (1.0, 2.0, 3.0, 4.0, 5.0)


def test_bonferroni_level():
    assert bonferroni_level(0.99, 1) == 0.99
    assert_close(bonferroni_level(0.99, 10), 0.999, what="Bonferroni level")


def test_interval_is_the_bracket_of_the_bounds():
    counts = [1000, 900, 400, 200, 0]
    lo, hi = crossing_interval(GRID, counts, 1000, 0.99)
    assert (lo, hi) == (2.0, 3.0)
    # by hand: the per-point two-sided intervals at 1 - 0.01/5
    ends = [clopper_pearson(k, 1000, bonferroni_level(0.99, 5)) for k in counts]
    assert max(g for g, (a, _) in zip(GRID, ends) if a > 0.5) == lo
    assert min(g for g, (_, b) in zip(GRID, ends) if b < 0.5) == hi


def test_open_ends_and_a_point_near_the_crossing():
    assert crossing_interval(GRID, [100] * 5, 100) == (5.0, math.inf)
    assert crossing_interval(GRID, [5] * 5, 5) == (0.0, math.inf)  # 5 of 5 does not put p above 1/2 at 99.9 %
    assert crossing_interval(GRID, [0, 0, 0, 0, 0], 10) == (0.0, 1.0)
    # a point at 1/2 counts for neither end
    assert crossing_interval(GRID, [100, 100, 50, 0, 0], 100) == (2.0, 4.0)
    # the crossing of another level
    assert crossing_interval(GRID, [1000, 900, 400, 200, 0], 1000, crossing=0.25) == (3.0, 4.0)


def test_bounds_that_contradict_a_non_increasing_curve_give_lo_above_hi():
    lo, hi = crossing_interval(GRID, [0, 0, 1000, 1000, 1000], 1000)
    assert lo > hi


def test_coverage_of_a_monotone_curve_with_shared_directions():
    rng = np.random.default_rng(1)
    grid = 10.0 ** (np.arange(-36, -17) / 12)
    misses = 0
    for _ in range(300):
        exits = 0.005 * np.exp(0.4 * rng.standard_normal(100))
        lo, hi = crossing_interval(grid, (exits[:, None] > grid).sum(0), 100, 0.9)
        misses += not lo <= 0.005 <= hi
    # at most 1 - level = 10 % in expectation (far fewer: Bonferroni is conservative); 60 of 300
    # is beyond 5 binomial standard deviations of 30
    assert misses < 60


def test_comparison_miss_is_the_union_of_two_exact_binomial_sums():
    grid = (1.0, 2.0, 3.0, 4.0)
    left, right = (0.9, 0.2, 0.0, 0.0), (1.0, 1.0, 0.9, 0.3)
    got = crossing_comparison_miss(grid, left, grid, right, 50, 0.99)
    tail = 1 - (1 - bonferroni_level(0.99, 4)) / 2
    want = min(proportion_error_rates(50, pa, 0.5, tail, "upper") + proportion_error_rates(50, pb, 0.5, tail, "lower")
               for i, pa in enumerate(left) for j, pb in enumerate(right)
               if grid[i] < grid[j] and pa < 0.5 < pb)
    assert_close(got["miss"], want, what="miss bound")
    assert got["left"] < got["right"]
    assert crossing_comparison_miss(grid, left, grid, right, 500, 0.99)["miss"] < got["miss"]
    # curves that do not separate: no pair, miss 1
    assert crossing_comparison_miss(grid, right, grid, left, 50)["miss"] == 1.0


def test_variance_interval_is_the_chi_square_interval():
    x = np.random.default_rng(0).standard_normal(400) * 2.0
    lo, hi = variance_interval(x, 0.99)
    S = float((x * x).sum())
    assert_close(lo, S / stats.chi2.ppf(0.995, 400), what="lower end")
    assert_close(hi, S / stats.chi2.ppf(0.005, 400), what="upper end")
    assert lo < 4.0 < hi


@pytest.mark.parametrize("call,name", [
    (lambda: crossing_interval([2.0, 1.0], [1, 0], 2), "grid"),
    (lambda: crossing_interval([], [], 2), "grid"),
    (lambda: crossing_interval([1.0, 2.0], [1], 2), "successes"),
    (lambda: crossing_interval([1.0, 2.0], [3, 0], 2), "successes[0]"),
    (lambda: crossing_interval([1.0, 2.0], [1, 0], 0), "trials"),
    (lambda: crossing_interval([1.0, 2.0], [1, 0], 2, level=1.0), "level"),
    (lambda: crossing_interval([1.0, 2.0], [1, 0], 2, crossing=0.0), "crossing"),
    (lambda: bonferroni_level(0.99, 0), "points"),
    (lambda: variance_interval([], 0.99), "values"),
    (lambda: variance_interval([1.0, math.nan]), "values"),
    (lambda: crossing_comparison_miss([1.0, 2.0], [0.5], [1.0], [0.5], 10), "p_left"),
    (lambda: crossing_comparison_miss([1.0], [0.5], [2.0, 1.0], [0.5, 0.5], 10), "grid_right"),
    (lambda: crossing_comparison_miss([1.0], [0.5], [1.0], [1.5], 10), "p_right"),
    (lambda: crossing_comparison_miss([1.0], [0.5], [1.0], [0.5], 0), "trials"),
])
def test_bad_input_names_the_argument(call, name):
    with raises_input_error(name):
        call()
