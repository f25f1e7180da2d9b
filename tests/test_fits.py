"""verify.fits and verify.linear_bound: Wilson intervals, thresholds, log-log fits, bounds."""

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from numeric.validation import InputError
from verify.experiments.records import SweepCell
from verify.experiments.fits import (
    compare_fits, fit_polylog, fit_power, isotonic, m_star_from_cells, parameter_table, polylog_predict,
    threshold, wilson_interval,
)
from verify.reference.linear_bound import erf_attention_loss_bound, linear_attention_loss_bound, quadratic_form_loss


def test_wilson_known_values():
    # Reference values of the Wilson score interval (z = 1.96): 20/20 -> [0.8389, 1].
    lo, hi = wilson_interval(20, 20)
    assert abs(lo - 0.83887) < 1e-4 and hi == 1.0
    lo, hi = wilson_interval(50, 100)
    assert abs(lo - 0.40383) < 1e-4 and abs(hi - 0.59617) < 1e-4
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and abs(hi - 0.27753) < 1e-4


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
    (lambda: threshold([16, 8], [0.5, 0.6]), "grid"),
    (lambda: threshold([], []), "grid"),
    (lambda: threshold([8, 16], [0.5]), "rates"),
    (lambda: threshold([8, 16], [0.5, 1.5]), "rates"),
    (lambda: isotonic([0.1, 0.2], weights=[1, 0]), "weights"),
    (lambda: fit_polylog([10], [1]), "d"),
    (lambda: fit_polylog([10, 100], [1, 0]), "y"),
    (lambda: fit_polylog([10, float("nan")], [1, 2]), "d"),
    (lambda: fit_polylog([1, 10], [1, 2]), "d"),
    (lambda: fit_power([10, 100], [1, 2, 3]), "y"),
    (lambda: parameter_table({}, ds=(1,)), "ds[]"),
    (lambda: erf_attention_loss_bound(1), "d"),
    (lambda: linear_attention_loss_bound(np.ones((4, 4)), (0, 1)), "V"),  # m >= d
    (lambda: linear_attention_loss_bound(np.ones((8, 2)), (1, 1)), "support"),
    (lambda: linear_attention_loss_bound(np.full((8, 2), np.nan), (0, 1)), "V"),
]


@pytest.mark.parametrize("call,name", BAD_STATISTICS_CALLS,
                         ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_STATISTICS_CALLS)])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(InputError, match="^" + re.escape(name) + " = "):
        call()


def test_isotonic_pools_violators():
    assert isotonic([0.1, 0.5, 0.3, 0.9]) == [0.1, 0.4, 0.4, 0.9]
    assert isotonic([1.0, 0.0], weights=[3, 1]) == [0.75, 0.75]
    assert isotonic([0.2, 0.4]) == [0.2, 0.4]


def _cell(d, m, rate, n_seeds=10):
    k = round(rate * n_seeds)
    return SweepCell(key={"d": d, "m": m}, d=d, m=m, n_seeds=n_seeds, support=(0, 1), lr=1.0,
                     successes=k, successes_limit=k, rate=rate, rate_limit=rate,
                     assignment_matches=k, median_loss=0.0, seconds=0.0,
                     success_bits="1" * k + "0" * (n_seeds - k))


def test_threshold_uses_monotone_fit():
    # a lucky cell (0.96) followed by a worse one is pooled: (0.96 + 0.90) / 2 < 0.95
    assert threshold([8, 16, 32, 64], [0.5, 0.96, 0.9, 0.97]) == 64
    assert threshold([8, 16, 32, 64], [0.5, 0.96, 0.97, 0.99]) == 16
    # an unlucky cell among good ones does not create a late threshold: pooled 0.955
    assert threshold([8, 16, 32, 64], [0.5, 0.97, 0.94, 0.99]) == 16
    cells = [_cell(10, 4, 0.5), _cell(10, 8, 1.0), _cell(20, 8, 0.2)]
    assert m_star_from_cells(cells, 10) == 8 and m_star_from_cells(cells, 20) is None
    assert threshold([8, 16], [0.5, 0.6]) is None


def test_fits_recover_exact_laws():
    d = np.array([1e2, 1e3, 1e4, 1e5, 1e6])
    y = 1.7 * np.log(d) ** 2.3
    pl = fit_polylog(d, y)
    assert abs(pl.exponent - 2.3) < 1e-10 and abs(pl.coef - 1.7) < 1e-9 and pl.rss < 1e-20
    assert abs(polylog_predict(pl.as_dict(), 1e7) - 1.7 * math.log(1e7) ** 2.3) < 1e-8
    pw = fit_power(d, 3.0 * d**0.4)
    assert abs(pw.exponent - 0.4) < 1e-10 and abs(pw.coef - 3.0) < 1e-9
    assert compare_fits(d, y)["winner"] == "polylog"
    assert compare_fits(d, 3.0 * d**0.4)["winner"] == "power"


def test_quadratic_form_matches_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(20):
        g, gt = rng.standard_normal(7), rng.standard_normal(7)
        a, b = 2, 5
        L = ((g @ g) * (gt @ gt) + 2 * (g @ gt) ** 2 - 2 * np.sum(g**2 * gt**2)
             - 2 * (g[a] * gt[b] + g[b] * gt[a]) + 1)
        assert abs(quadratic_form_loss(g, gt, (a, b)) - L) <= 1e-10 * abs(L) + 1e-12 * (1 + abs(L))


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
        assert L >= bound - 1e-12
    # With m = d - 1 the relaxation can get closer to 0 than with m = 3.
    V2 = rng.standard_normal((d, d - 1))
    assert linear_attention_loss_bound(V2, (0, 1))["bound"] < bound


def test_erf_bound():
    assert erf_attention_loss_bound(10) == (1 - 2 / 100) ** 2
