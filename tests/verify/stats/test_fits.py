"""Wilson intervals (verify.stats.intervals), threshold laws of sweeps by likelihood
(verify.stats.thresholds.law_summary and its adapter of sweep records, verify.experiments.fits),
the linear and erf attention bounds (verify.reference.linear_bound)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.experiments.fits import sweep_laws
from verify.experiments.records import SweepCell
from verify.reference.linear_bound import erf_attention_loss_bound, linear_attention_loss_bound, quadratic_form_loss
from verify.stats.intervals import wilson_interval
from verify.stats.thresholds import law_summary
from verify.common.tolerances import decimal_places, is_close, tolerance
from tests.helpers import raises_input_error


def test_wilson_known_values():
    # Reference values of the Wilson score interval (z = 1.96): 20/20 -> [0.8389, 1].
    lo, hi = wilson_interval(20, 20)
    assert abs(lo - 0.83887) < decimal_places(5).atol and hi == 1.0
    lo, hi = wilson_interval(50, 100)
    assert abs(lo - 0.40383) < decimal_places(5).atol and abs(hi - 0.59617) < decimal_places(5).atol
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and abs(hi - 0.27753) < decimal_places(5).atol


@given(st.integers(1, 500), st.data())
def test_wilson_contains_estimate(n, data):
    s = data.draw(st.integers(0, n))
    lo, hi = wilson_interval(s, n)
    assert 0.0 <= lo <= s / n <= hi <= 1.0
    assert hi - lo < 1.0 if n >= 4 else True


# (call, name of the argument the message must start with); each call is wrong in one argument
BAD_STATISTICS_CALLS = [
    (lambda: wilson_interval(3, 2), "successes"),
    (lambda: wilson_interval(-1, 5), "successes"),
    (lambda: wilson_interval(1, 0), "trials"),
    (lambda: wilson_interval(1.5, 3), "successes"),
    (lambda: wilson_interval(1, 3, confidence=1.0), "confidence"),
    (lambda: wilson_interval(1, 3, z=-1.0), "z"),
    (lambda: law_summary([10, 10], [4, 8], [1, 3], [4, 2]), "successes"),
    (lambda: law_summary([10, 10], [4, -8], [1, 1], [4, 4]), "size"),
    (lambda: law_summary([10, 100], [4, 8], [1, 1], [4, 4], margin=-1), "margin"),
    (lambda: erf_attention_loss_bound(1), "d"),
    (lambda: linear_attention_loss_bound(np.ones((4, 4)), (0, 1)), "V"),  # m >= d
    (lambda: linear_attention_loss_bound(np.ones((8, 2)), (1, 1)), "support"),
    (lambda: linear_attention_loss_bound(np.full((8, 2), np.nan), (0, 1)), "V"),
]


@pytest.mark.parametrize("call,name", BAD_STATISTICS_CALLS,
                         ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_STATISTICS_CALLS)])
def test_bad_input_names_the_argument(call, name):
    with raises_input_error(name):
        call()


def _cell(d, m, k, n_seeds):
    return SweepCell(key={"d": d, "m": m}, d=d, m=m, n_seeds=n_seeds, support=(0, 1), lr=1.0,
                     successes=k, successes_limit=k, rate=k / n_seeds, rate_limit=k / n_seeds,
                     assignment_matches=k, median_loss=0.0, seconds=0.0,
                     success_bits="1" * k + "0" * (n_seeds - k))


def _cells(alpha, seeds=2000, law="power"):
    """Expected counts (rounded) of a known threshold law: m*_0.5(d) = 9 (d / 1000)^alpha, or
    9 (ln d / ln 1000)^alpha for the polylog law; slope 4, no lapse."""
    cells = []
    for d in (100, 1000, 10000, 100000, 1000000):
        scale = d / 1000 if law == "power" else math.log(d) / math.log(1000)
        loc = math.log(9.0) + alpha * math.log(scale)
        for m in (4, 6, 8, 12, 16, 24, 32, 48, 64):
            p = 1 / (1 + math.exp(-4.0 * (math.log(m) - loc)))
            cells.append(_cell(d, m, round(p * seeds), seeds))
    return cells


def test_law_summary_recovers_a_known_power_law():
    s = sweep_laws(_cells(0.15))
    lo, hi = s["power"]["interval"]
    assert lo < 0.15 < hi and hi - lo < 0.05
    for d, levels in s["thresholds"].items():
        est, lo, hi = levels[0.5]
        assert lo < 9 * (d / 1000) ** 0.15 < hi
        assert levels[0.9][0] > est  # the 0.9 level lies above the midpoint
    assert s["comparison"] == "power"
    assert len(s["power"]["curve"]) == 49 and s["deviance"] < 2 * s["dof"]


def test_law_summary_tells_polylog_from_power_only_with_data():
    assert sweep_laws(_cells(1.5, law="polylog"))["comparison"] == "polylog"
    # two values of d: each law passes through both thresholds, so neither can win
    two = sweep_laws([c for c in _cells(1.5, law="polylog") if c.d in (1000, 10000)])
    assert two["comparison"] == "indistinguishable"


def test_law_summary_of_one_group_has_no_law():
    s = law_summary([10] * 4, [2, 4, 8, 16], [1, 5, 15, 19], [20] * 4)
    assert set(s["thresholds"]) == {10} and "power" not in s and "comparison" not in s


def test_quadratic_form_matches_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(20):
        g, gt = rng.standard_normal(7), rng.standard_normal(7)
        a, b = 2, 5
        L = ((g @ g) * (gt @ gt) + 2 * (g @ gt) ** 2 - 2 * np.sum(g**2 * gt**2)
             - 2 * (g[a] * gt[b] + g[b] * gt[a]) + 1)
        assert is_close(quadratic_form_loss(g, gt, (a, b)), L, scale=1 + abs(L))


def test_linear_bound_is_a_lower_bound():
    # No pair (gamma, gamma~) in span(V) x span(V) may go below the relaxation's minimum.
    rng = np.random.default_rng(0)
    d, m = 12, 3
    V = rng.standard_normal((d, m))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    bound = linear_attention_loss_bound(V, (0, 1))["bound"]
    assert 0.0 < bound < 1.0
    for _ in range(3000):
        s = 10 ** rng.uniform(-2, 1)
        L = quadratic_form_loss(V @ rng.standard_normal(m) * s, V @ rng.standard_normal(m) * s, (0, 1))
        assert L >= bound - tolerance().atol
    # With m = d - 1 the relaxation can get closer to 0 than with m = 3.
    V2 = rng.standard_normal((d, d - 1))
    assert linear_attention_loss_bound(V2, (0, 1))["bound"] < bound


def test_erf_bound():
    assert erf_attention_loss_bound(10) == (1 - 2 / 100) ** 2
