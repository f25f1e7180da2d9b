"""Tests of verify.reference.bounds (50-digit bounds of paper B)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from numeric.transformer import BooleanTransformer, TransformerConfig
from verify.reference.bounds import (
    blowup_bound, bounds_report, crossover, crossover_direct, n_params, packing_crossover,
    packing_log2_bound, theorem_exponent,
)
from verify.common.tolerances import NAMED, tolerance
from tests.helpers import raises_input_error


def test_theorem_exponent():
    assert theorem_exponent(64, 2) == Fraction(43, 4)
    assert theorem_exponent(11, 1) == 0
    assert theorem_exponent(2, 3) == Fraction(1, 6) - 5


def _float_scan(a, limit=20000):
    """Independent float check: 1 + the last N <= limit with N^a >= 2^N.

    Where the float comparison is too close to call (e.g. a = 32/3, N = 64: 64^a = 2^64
    exactly) and ``a`` is rational, it is decided exactly in integers: N^p >= 2^(N q).
    """
    last = 0
    exact = Fraction(a) if isinstance(a, (int, Fraction)) else None
    for N in range(1, limit):
        lhs, rhs = float(a) * math.log(N), N * math.log(2)
        if exact is not None and exact > 0 and abs(lhs - rhs) <= tolerance().rtol * rhs:
            hold = N ** exact.numerator >= 2 ** (N * exact.denominator)
        else:
            hold = lhs >= rhs
        if hold:
            last = N
    return last + 1


@pytest.mark.parametrize("a", [-3, 0, Fraction(1, 4), 1.8, 1.9, Fraction(11, 4), Fraction(43, 4), 117 / 2, 500])
def test_crossover_regimes_and_direct_evaluation(a):
    c = crossover(a)
    assert c["agree"]
    assert c["N_star"] == _float_scan(float(a))
    af = float(a)
    if af <= 0:
        assert c["regime"] == "a<=0" and c["N_star"] == 1
    elif af < math.e * math.log(2):
        assert c["regime"] == "no-crossing" and c["N_star"] == 1
    else:
        assert c["regime"] == "two-crossings"
        with mpmath.workdps(50):
            for root in (c["N_upper"], c["N_lower"]):
                af_m = mpmath.mpf(Fraction(a).numerator) / Fraction(a).denominator
                assert abs(af_m * mpmath.log(root) - root * mpmath.log(2)) < NAMED["reference_50_digit"].rtol * root
            assert c["N_lower"] < af / math.log(2) < c["N_upper"]


@settings(max_examples=40)
@given(st.fractions(min_value=Fraction(-10), max_value=Fraction(300), max_denominator=64))
@example(Fraction(32, 3))  # an exact tie: 64^(32/3) = 2^64, so N* = 65
@example(Fraction(128, 7))  # an exact tie: 128^(128/7) = 2^128, so N* = 129
def test_crossover_lambert_equals_direct(a):
    c = crossover(a)
    assert c["N_star"] == crossover_direct(a) == _float_scan(a, limit=4000)


def test_blowup_bound():
    assert blowup_bound(0.25, 4) == 81  # (1 + 2)^4 exactly
    with mpmath.workdps(50):
        eps = mpmath.mpf("1e-5")
        v = blowup_bound(eps, 4)
        assert abs(v - (1 + 1 / mpmath.sqrt(eps)) ** 4) < NAMED["reference_50_digit"].rtol * v
    assert blowup_bound(Fraction(1, 4), 4) == 81


@pytest.mark.parametrize("D,L,F,N_max", [(8, 1, None, 5), (16, 2, 24, 64), (64, 2, None, 64), (6, 3, 7, 10)])
def test_n_params_counts_every_parameter(D, L, F, N_max):
    cfg = TransformerConfig(D=D, L=L, H=2, F=F, N_max=N_max)
    model = BooleanTransformer(cfg)
    total = sum(p.numel() for p in model.parameters())
    assert n_params(D, L, F, N_max) == cfg.n_params == total


def test_packing_bound_and_crossover():
    M, C, diam, xi = 1000, 1e6, 2.0, 0.1
    lb = packing_log2_bound(M, C, diam, xi)
    assert abs(float(lb) - M * math.log2(1 + C * diam / xi)) < tolerance().rtol * float(lb)
    p = packing_crossover(M, C, diam, xi)
    N = p["N_star"]
    assert p["checked"] and 2.0**N > float(lb) >= 2.0 ** (N - 1)
    # exact power of two: log2 bound = 2^k needs N = k + 1 (strict inequality)
    p2 = packing_crossover(16, 1.0, 1.0, 1.0)  # 16 * log2(2) = 16 = 2^4
    assert p2["N_star"] == 5


def test_bounds_report():
    r = bounds_report(64, 2)
    assert r["a"] == "43/4" and r["N_star"] == r["N_star_direct"] == 65 and r["agree"]
    assert r["M"] == n_params(64, 2)
    assert [row["N_star"] for row in r["packing"]] == sorted(row["N_star"] for row in r["packing"])
    r0 = bounds_report(16, 2, eps=0.0)
    assert r0["regime"] == "a<=0" and "unbounded" in r0["blowup_bound"]


# ----------------------------------------------------------------------------- bad input

PACKING = dict(M=1000, C_lip=1e6, diam=2.0, xi=0.1)

# (entry point, positional arguments, keyword arguments, the bad argument's name)
BAD = [
    (theorem_exponent, (1, 2), {}, "D"),
    (theorem_exponent, (64, 0), {}, "L"),
    (theorem_exponent, (64.0, 2), {}, "D"),
    (theorem_exponent, (True, 2), {}, "D"),
    (theorem_exponent, (64, "2"), {}, "L"),
    (crossover, (float("nan"),), {}, "a"),
    (crossover, (float("inf"),), {}, "a"),
    (crossover, ("x",), {}, "a"),
    (crossover, (None,), {}, "a"),
    (crossover, (True,), {}, "a"),
    (crossover_direct, (float("nan"),), {}, "a"),
    (crossover_direct, ("x",), {}, "a"),
    (blowup_bound, (0.0, 4), {}, "eps"),  # eps = 0: the blowup is unbounded
    (blowup_bound, (-1e-3, 4), {}, "eps"),
    (blowup_bound, (float("nan"), 4), {}, "eps"),
    (blowup_bound, (0.1, 0), {}, "L_prime"),
    (blowup_bound, (0.1, 2.0), {}, "L_prime"),
    (n_params, (1, 2), {}, "D"),
    (n_params, (16, 0), {}, "L"),
    (n_params, (16, 2, 0), {}, "F"),
    (n_params, (16, 2, None, 0), {}, "N_max"),
    (packing_log2_bound, (), dict(PACKING, M=0), "M"),
    (packing_log2_bound, (), dict(PACKING, C_lip=0), "C_lip"),
    (packing_crossover, (), dict(PACKING, M=0), "M"),
    (packing_crossover, (), dict(PACKING, M=10.0), "M"),
    (packing_crossover, (), dict(PACKING, xi=0), "xi"),
    (packing_crossover, (), dict(PACKING, C_lip=-1), "C_lip"),
    (packing_crossover, (), dict(PACKING, diam=float("inf")), "diam"),
    (bounds_report, (64, 2), dict(xi=-1), "xi"),
    (bounds_report, (1, 2), {}, "D"),
    (bounds_report, (64, 0), {}, "L"),
    (bounds_report, (64, 2), dict(F=0), "F"),
    (bounds_report, (64, 2), dict(N_max=0), "N_max"),
    (bounds_report, (64, 2), dict(eps=-1e-5), "eps"),
    (bounds_report, (64, 2), dict(B=0.0), "B"),
    (bounds_report, (64, 2), dict(C_lips=(1.0, -1.0)), "C_lip"),
]


@pytest.mark.parametrize("fn,args,kwargs,name", BAD,
                         ids=[f"{f.__name__}-{n}-{i}" for i, (f, _, _, n) in enumerate(BAD)])
def test_bad_input_raises_input_error(fn, args, kwargs, name):
    with raises_input_error(name):
        fn(*args, **kwargs)


def test_crossover_when_no_integer_lies_between_the_roots():
    # e ln 2 < a < 3 ln 2 / ln 3: both roots of a ln N = N ln 2 lie between 2 and 3, so N^a < 2^N
    # for every integer N >= 1 (e.g. D = 552, L = 40 gives a = 551/80 - 5 = 1.8875)
    for a in (1.89, Fraction(551, 80) - 5):
        c = crossover(a)
        assert c["regime"] == "two-crossings" and 2 < c["N_lower"] < c["N_upper"] < 3
        assert c["N_star"] == c["N_star_direct"] == 1 and c["agree"]


@pytest.mark.parametrize("D", [10**5, 10**7, 10**9])
def test_direct_crossover_is_logarithmic_and_agrees_with_lambert_w_at_large_D(D):
    """The direct evaluation bisects instead of scanning N = 1, 2, ... (which took minutes at
    D = 10^6 and hung the CLI at 10^7); both roads still agree."""
    from verify.reference.bounds import bounds_report

    r = bounds_report(D, 2)
    assert r["agree"] and r["N_star"] > D
