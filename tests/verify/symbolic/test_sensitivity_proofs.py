"""Unit tests of verify.symbolic.profile_proofs: the per-weight lemma, the proofs can fail,
exact random-function facts (verify.reference.random_functions), Wilson intervals, bad input."""

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from verify.common.tolerances import NAMED, decimal_places
from verify.experiments.random_function_sampling import monte_carlo_K0
from verify.reference.random_functions import (
    N_SYMBOL, enumerate_random_functions, expected_K0, poisson_limit, variance_K0, variance_K0_claim,
)
from verify.stats.intervals import wilson_interval
from verify.symbolic.profile_proofs import (
    Case, formula_profile, majority_claim, prove_by_weights, prove_majority, prove_parity,
    weight_sensitivity,
)
from tests.helpers import raises_input_error


@given(st.integers(1, 8).flatmap(lambda N: st.tuples(st.just(N), st.lists(st.integers(0, 1), min_size=N + 1, max_size=N + 1))))
def test_weight_lemma_matches_brute_force_for_symmetric_functions(arg):
    # any symmetric f(x) = g(|x|): s(x) depends on |x| only, through the per-weight formula
    N, gv = arg
    g = lambda w: gv[w] if 0 <= w <= N else 0  # noqa: E731  (values outside 0..N are multiplied by 0)
    f = [gv[bin(x).count("1")] for x in range(1 << N)]
    for x in range(1 << N):
        s = sum(f[x] != f[x ^ (1 << n)] for n in range(N))
        assert s == weight_sensitivity(g, N, bin(x).count("1"))


def test_literal_formulas():
    assert formula_profile("majority", 10) == {0: 562, 5: 252, 6: 210}
    assert formula_profile("majority", 11) == {0: 2048 - 924, 6: 924}
    assert formula_profile("majority", 2) == {0: 1, 1: 2, 2: 1}
    assert formula_profile("parity", 7) == {7: 128}
    assert formula_profile("first", 5) == {1: 32}
    assert formula_profile("sparse_parity", 9, k=4) == {4: 512}


def test_majority_claim_floor_form():
    m = sp.Symbol("m", integer=True, positive=True)
    assert majority_claim(sp.Integer(10)) == {0: 562, 5: 252, 6: 210}
    c = majority_claim(2 * m + 1)
    assert set(c) == {0, m + 1}


def test_a_wrong_claim_makes_the_proof_fail():
    proof = prove_majority("even")
    assert proof.holds
    m = sp.Symbol("m", integer=True, positive=True)
    N = 2 * m
    g = lambda w: sp.Piecewise((1, 2 * w > N), (0, True))  # noqa: E731
    wrong = dict(majority_claim(N))
    wrong[0] = 2 ** N - sp.binomial(N, m)  # drops the C(2m, m+1) term
    cases = [Case(sp.Integer(0), m, from_top=True), Case(m, sp.Integer(1)), Case(m + 1, sp.Integer(1)),
             Case(m + 2, N + 1 - (m + 2))]
    bad = prove_by_weights("majority", "even", N, N, g, cases, wrong)
    assert not bad.holds
    assert [c for c, ok in bad.checks if not ok][0].startswith("K_{0}")
    # cases that do not tile 0..N are caught too
    gap = prove_by_weights("majority", "even", N, N, g, cases[:1] + cases[2:], majority_claim(N))
    assert not gap.holds


def test_random_function_moments():
    assert expected_K0() == 1
    assert sp.simplify(variance_K0() - variance_K0_claim()) == 0
    assert variance_K0(1) == 1 and variance_K0_claim(N_SYMBOL).subs(N_SYMBOL, 4) == sp.Rational(25, 16)


def test_enumeration_literal_values():
    assert enumerate_random_functions(1)["p_K0_ge_1"] == Fraction(1, 2)
    # N = 2 (a 4-cycle): constants (2) and one-vertex-off functions (8) have K_0 >= 1
    assert enumerate_random_functions(2)["p_K0_ge_1"] == Fraction(5, 8)
    r3 = enumerate_random_functions(3)
    assert r3["hits"] == 138 and r3["functions"] == 256 and r3["E_K0"] == 1


def test_wilson_interval_literal():
    lo, hi = wilson_interval(50, 100)
    assert abs(lo - 0.40383) < decimal_places(5).atol and abs(hi - 0.59617) < decimal_places(5).atol
    assert abs(wilson_interval(0, 10)[0]) < NAMED["float64_few_roundings"].atol
    assert abs(wilson_interval(10, 10)[1] - 1) < NAMED["float64_few_roundings"].atol


def test_monte_carlo_is_seeded():
    a = monte_carlo_K0(6, 100, seed=5)
    assert a == monte_carlo_K0(6, 100, seed=5)
    assert a.samples == 128  # rounded up to a multiple of 64
    assert a.wilson[0] <= a.p_hat <= a.wilson[1]


def test_poisson_limit_digits():
    assert poisson_limit(20) == "0.6321205588285576784"  # nstr drops the trailing 0 of ...7840


# (call, the bad argument's name)
BAD = [
    (lambda: enumerate_random_functions(5), "N"),
    (lambda: enumerate_random_functions(0), "N"),
    (lambda: enumerate_random_functions(2.0), "N"),
    (lambda: wilson_interval(3, 2), "successes"),
    (lambda: wilson_interval(1, 0), "trials"),
    (lambda: wilson_interval(1, 2, z=float("nan")), "z"),
    (lambda: monte_carlo_K0(0, 10), "N"),
    (lambda: monte_carlo_K0(4, 0), "samples"),
    (lambda: monte_carlo_K0(4, 10, seed=-1), "seed"),
    (lambda: poisson_limit(0), "dps"),
    (lambda: poisson_limit(10001), "dps"),
    (lambda: poisson_limit(True), "dps"),
    (lambda: formula_profile("majority", 1), "N"),
    (lambda: formula_profile("parity", 0), "N"),
    (lambda: formula_profile("parity", 4.0), "N"),
    (lambda: formula_profile("sparse_parity", 4, k=5), "k"),
    (lambda: formula_profile("sparse_parity", 4), "k"),
    (lambda: formula_profile("xor", 4), "name"),
    (lambda: prove_majority("general"), "form"),
    (lambda: prove_majority("odd "), "form"),
    (lambda: prove_parity("foo"), "form"),
]


@pytest.mark.parametrize("call, name", BAD, ids=[f"{n}-{i}" for i, (_, n) in enumerate(BAD)])
def test_bad_input(call, name):
    with raises_input_error(name):
        call()


def test_monte_carlo_without_numpy_bitwise_count(monkeypatch):
    import numpy as np

    want = monte_carlo_K0(5, 64, seed=2)
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert monte_carlo_K0(5, 64, seed=2) == want
