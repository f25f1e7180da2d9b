"""verify.reference.population (50-digit mpmath) against brute-force enumeration of {±1}^d, precision near a
solution, large logits, input types and bad input."""

import mpmath
import numpy as np
import pytest
import torch

from verify.reference.oracle import (MAX_ORACLE_DPS, enumerated_grad_converged,
                                     enumerated_grad_mp, enumerated_loss_mp)
from verify.reference.population import ATTENTIONS, population_grad, population_loss
from verify.common.tolerances import NAMED, working_digits
from verify.reference.checks import near_solution_instance, random_instance
from tests.helpers import raises_input_error


# the 50-digit references against each other and the enumeration: at most 5 digits lost
REF = working_digits(50, 5)


def _max_diff(xs, ys):
    return max(abs(x - y) for x, y in zip(xs, ys))


@pytest.mark.parametrize("attention", ATTENTIONS)
@pytest.mark.parametrize("d", [2, 3, 6, 10])
def test_loss_matches_enumeration(attention, d):
    V, th, tht, sup = random_instance(d, 3, seed=d)
    L = population_loss(V, th, tht, sup, attention)
    E = enumerated_loss_mp(V, th, tht, sup, attention, dps=80)
    with mpmath.workdps(80):
        assert abs(L - E) < REF.rtol * max(1, abs(E))
        assert E > mpmath.mpf("1e-3")  # a generic point, far from a solution


@pytest.mark.parametrize("attention", ATTENTIONS)
@pytest.mark.parametrize("d", [2, 5, 10])
def test_grad_matches_enumeration(attention, d):
    V, th, tht, sup = random_instance(d, 3, seed=100 + d)
    g, gt = population_grad(V, th, tht, sup, attention)
    eg, egt = enumerated_grad_mp(V, th, tht, sup, attention, dps=80)
    with mpmath.workdps(80):
        for x, y in ((g, eg), (gt, egt)):
            scale = max(abs(v) for v in y)
            assert scale > mpmath.mpf("1e-6")
            assert _max_diff(x, y) < REF.rtol * scale


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_grad_matches_mpmath_differentiation_of_enumerated_loss(attention):
    V, th, tht, sup = random_instance(4, 2, seed=7)
    g, gt = population_grad(V, th, tht, sup, attention)
    eg, egt = enumerated_grad_mp(V, th, tht, sup, attention, dps=60, method="diff")
    with mpmath.workdps(60):
        for x, y in ((g, eg), (gt, egt)):
            assert _max_diff(x, y) < NAMED["reference_50_digit"].rtol * max(abs(v) for v in y)


@pytest.mark.parametrize("logit,swap", [(25.0, False), (70.0, False), (70.0, True), (140.0, False)])
def test_loss_relative_precision_near_a_solution(logit, swap):
    V, th, tht, sup = near_solution_instance(logit, swap=swap)
    L = population_loss(V, th, tht, sup)
    # enumeration is a sum of squares: exact to dps - log10(1/|f - y|) digits
    E = enumerated_loss_mp(V, th, tht, sup, dps=260)
    with mpmath.workdps(80):
        assert E < mpmath.mpf("1e-18")
        assert abs(L - E) / E < REF.rtol, (L, E)


def test_grad_relative_precision_near_a_solution():
    V, th, tht, sup = near_solution_instance(70.0)
    g, gt = population_grad(V, th, tht, sup)
    eg, egt = enumerated_grad_mp(V, th, tht, sup, dps=260)
    with mpmath.workdps(80):
        for x, y in ((g, eg), (gt, egt)):
            scale = max(abs(v) for v in y)
            assert scale < mpmath.mpf("1e-25")
            assert _max_diff(x, y) < REF.rtol * scale


def test_linear_attention_near_a_solution():
    d = 5
    V = [[1.0 if i == k else 0.0 for k in range(d)] for i in range(d)]
    th = [0.0] * d
    tht = [0.0] * d
    th[0], tht[3] = d * (1 + 2.0 ** -40), d * (1 - 2.0 ** -45)
    th[2] = 1e-12
    L = population_loss(V, th, tht, (0, 3), "linear")
    E = enumerated_loss_mp(V, th, tht, (0, 3), "linear", dps=200)
    with mpmath.workdps(80):
        assert E < mpmath.mpf("1e-20")
        assert abs(L - E) / E < REF.rtol


def test_precision_is_raised_when_two_evaluations_disagree(monkeypatch):
    """With 1 guard digit, linear attention near a solution loses ~12 digits in u_a = z_a/d - 1;
    the confirming evaluation must notice and raise the working precision."""
    import verify.reference.population as ref

    monkeypatch.setattr(ref, "_GUARD", 1)
    d = 5
    V = [[1.0 if i == k else 0.0 for k in range(d)] for i in range(d)]
    th, tht = [0.0] * d, [0.0] * d
    th[0], tht[3] = d + 2.0 ** -38, d - 2.0 ** -39  # u_a = 2^-38/5: inexact
    L = population_loss(V, th, tht, (0, 3), "linear", dps=50)
    E = enumerated_loss_mp(V, th, tht, (0, 3), "linear", dps=200)
    with mpmath.workdps(80):
        assert abs(L - E) / E < working_digits(50, 2).rtol


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_tiny_weights_far_from_a_solution(attention):
    """theta ~ 1e-251: gamma ~ 1e-251 (linear, erf); the closed form in gamma is used, so the
    tiny gradient ~ 1e-251 keeps its digits (the residual form would cancel O(1) terms)."""
    V, th, tht, sup = [[1.0], [-1.0]], [2.8e-251], [-2.8e-251], (0, 1)
    g, gt = population_grad(V, th, tht, sup, attention)
    # softmax: gamma = (1/2 + ~1e-251, 1/2 - ~1e-251), so the gradient ~ -2.8e-251 lives 251
    # digits down; enumeration needs those digits too (at 80 it returns an exact 0)
    eg, egt = enumerated_grad_mp(V, th, tht, sup, attention, dps=600)
    L = population_loss(V, th, tht, sup, attention)
    E = enumerated_loss_mp(V, th, tht, sup, attention, dps=80)
    with mpmath.workdps(80):
        assert abs(L - E) < REF.rtol * E
        for x, y in ((g, eg), (gt, egt)):
            scale = max(abs(v) for v in y)
            assert scale > 0
            assert _max_diff(x, y) <= REF.rtol * scale


def test_logits_are_exact_beyond_the_working_precision():
    """z_a = 5 + 2^-600 (from V = [1, 1], theta = [5, 2^-600]): linear attention puts
    gamma_a = 1 + 2^-600/5, so L ~ 1e-362; only exact logits keep that information."""
    d = 5
    V = [[1.0, 1.0] if i == 0 else [0.0, 0.0] for i in range(d)]
    V[3] = [1.0, 0.0]
    th, tht = [5.0, 2.0 ** -600], [0.0, 0.0]
    V2 = [row + [1.0 if i == 3 else 0.0] for i, row in enumerate(V)]
    V2[3][0] = 0.0
    th, tht = th + [0.0], [0.0, 0.0, 5.0]
    L = population_loss(V2, th, tht, (0, 3), "linear")
    E = enumerated_loss_mp(V2, th, tht, (0, 3), "linear", dps=800)
    with mpmath.workdps(80):
        assert mpmath.mpf("1e-370") < E < mpmath.mpf("1e-350")
        assert abs(L - E) / E < REF.rtol


def test_huge_logits_give_finite_results():
    V, th, tht, sup = near_solution_instance(1e8)
    L = population_loss(V, th, tht, sup)
    assert mpmath.isfinite(L) and 0 < L < mpmath.mpf("1e-1000000")
    th2 = [-x for x in th]  # the wrong head: loss of order one
    L2 = population_loss(V, th2, [1e8 * (i == 2) for i in range(6)], sup)
    assert mpmath.isfinite(L2) and L2 > mpmath.mpf("0.5")
    g, gt = population_grad(V, th2, tht, sup)
    assert all(mpmath.isfinite(v) for v in g + gt)


def test_dps_controls_the_digits():
    V, th, tht, sup = random_instance(5, 3, seed=3)
    L30 = population_loss(V, th, tht, sup, dps=30)
    L100 = population_loss(V, th, tht, sup, dps=100)
    with mpmath.workdps(100):
        assert abs(L30 - L100) < working_digits(30).rtol * L100
        assert abs(L30 - L100) > 0  # really rounded at 30 digits


def test_input_types_agree():
    V, th, tht, sup = random_instance(4, 3, seed=5)
    ref = population_loss(V, th, tht, sup)
    for conv in (np.array, lambda x: torch.tensor(x, dtype=torch.float64),
                 lambda x: [mpmath.mpf(v) if not isinstance(v, list) else v for v in x]):
        assert population_loss(conv(V), conv(th), conv(tht), sup) == ref
    assert population_loss(V, th, tht, (np.int64(sup[0]), np.int64(sup[1]))) == ref
    assert population_loss(V, th, tht, torch.tensor(sup)) == ref
    assert population_loss(V, th, tht, (sup[1], sup[0])) == ref  # L is symmetric in a, b


# ----------------------------------------------------------------------------- bad input

GOOD = random_instance(4, 3, seed=1)


def _call(fn, **over):
    V, th, tht, sup = GOOD
    kw = dict(V=V, theta=th, theta_tilde=tht, support=sup)
    kw.update(over)
    return fn(kw.pop("V"), kw.pop("theta"), kw.pop("theta_tilde"), kw.pop("support"), **kw)


# (overrides of the good instance, the bad argument's name), for each entry point below
BAD = [
    (dict(support=(2, 2)), "support"),
    (dict(support=(0, 4)), "support"),
    (dict(support=(-1, 2)), "support"),
    (dict(support=(0, 1, 2)), "support"),
    (dict(support=(0.0, 1)), "support"),
    (dict(support=5), "support"),
    (dict(support=(True, 0)), "support"),
    (dict(V=[[1.0, 0.0, 0.0]], support=(0, 1)), "len(V)"),
    (dict(V=[[], [], []], theta=[], theta_tilde=[]), "len(V[0])"),
    (dict(V=[[1.0, 2.0], [3.0]]), "V"),
    (dict(V=[1.0, 2.0, 3.0]), "V"),
    (dict(V=np.zeros((2, 4, 3))), "V"),
    (dict(V=torch.zeros((4, 3), dtype=torch.complex64)), "V"),
    (dict(theta=[1.0, 2.0]), "theta"),
    (dict(theta_tilde=[[1.0, 2.0, 3.0]]), "theta_tilde"),
    (dict(theta=[1.0, float("nan"), 0.0]), "theta[1]"),
    (dict(theta_tilde=[1.0, 0.0, float("inf")]), "theta_tilde[2]"),
    (dict(V=[[1.0, 0, 0], [0, 1.0, 0], [0, 0, float("-inf")], [1.0, 1.0, 1.0]]), "V[2][2]"),
    (dict(theta=[1.0, "x", 0.0]), "theta[1]"),
    (dict(theta=[1.0, 1j, 0.0]), "theta[1]"),
    (dict(theta=[1.0, True, 0.0]), "theta[1]"),
    (dict(attention="relu"), "attention"),
    (dict(dps=5), "dps"),
    (dict(dps=50.0), "dps"),
    (dict(dps=True), "dps"),
]

ENTRY_POINTS = [population_loss, population_grad, enumerated_loss_mp, enumerated_grad_mp]


@pytest.mark.parametrize("fn", ENTRY_POINTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("over,name", BAD, ids=[f"{n}-{i}" for i, (_, n) in enumerate(BAD)])
def test_bad_input_raises_input_error(fn, over, name):
    with raises_input_error(name):
        _call(fn, **over)


# enumeration only: (entry point, overrides, the bad argument's name)
BAD_ENUMERATION = [
    (enumerated_loss_mp, dict(V=random_instance(17, 2, seed=0)[0], theta=[1.0, 0.0], theta_tilde=[0.0, 1.0]),
     "len(V)"),
    (enumerated_grad_mp, dict(V=random_instance(17, 2, seed=0)[0], theta=[1.0, 0.0], theta_tilde=[0.0, 1.0]),
     "len(V)"),
    (enumerated_grad_mp, dict(method="autograd"), "method"),
    (enumerated_loss_mp, dict(dps=10), "dps"),
    (enumerated_grad_mp, dict(dps=10), "dps"),
]


@pytest.mark.parametrize("fn,over,name", BAD_ENUMERATION,
                         ids=[f"{f.__name__}-{n}" for f, _, n in BAD_ENUMERATION])
def test_enumeration_bad_input(fn, over, name):
    with raises_input_error(name):
        _call(fn, **over)


# ----------------------------------------------------------------------------- property test

from hypothesis import example, given, settings, strategies as st  # noqa: E402


def _support(d, a, shift):
    """Position ``a mod d`` and a different one, ``1 + shift mod (d - 1)`` further on."""
    a %= d
    return a, (a + 1 + shift % (d - 1)) % d


def _assert_grads_match_enumeration(V, th, tht, support, attention, dps):
    """The reference gradient against the enumerated one, which is raised from ``dps`` digits
    until its rounding floor is below 1e-45 of its largest component, up to the oracle's
    documented limit: |x - ref| <= 1e-45 max|ref| + floor (floor: the oracle's rounding error
    bound at its final precision, 10^-(dps - 10) x the largest term)."""
    g, gt = population_grad(V, th, tht, support, attention)
    (eg, egt), floors = enumerated_grad_converged(V, th, tht, support, attention, rel_digits=45,
                                                 dps=dps)
    with mpmath.workdps(80):
        for x, y, floor in zip((g, gt), (eg, egt), floors):
            assert _max_diff(x, y) <= REF.rtol * max(abs(v) for v in y) + floor, (
                x, y, floor)


# d = 5, m = 1, scale = 0: all rows of V equal (seed 8), softmax: the gradient is exactly 0 and the
# enumeration returns only rounding noise, which raising its precision chased down to 1e-2647
@example(d=5, m=1, seed=8, scale=0.0, attention="softmax", a=0, shift=2)
@settings(max_examples=25)
@given(d=st.integers(2, 6), m=st.integers(1, 4), seed=st.integers(0, 10 ** 6),
       scale=st.floats(0.0, 40.0), attention=st.sampled_from(ATTENTIONS),
       a=st.integers(0, 5), shift=st.integers(0, 4))
def test_reference_matches_enumeration_property(d, m, seed, scale, attention, a, shift):
    V, th, tht, _ = random_instance(d, m, seed, scale=scale)
    support = _support(d, a, shift)
    L = population_loss(V, th, tht, support, attention)
    E = enumerated_loss_mp(V, th, tht, support, attention, dps=80)
    extra = int(max(0, -mpmath.log10(E))) if E > 0 else 0
    E = enumerated_loss_mp(V, th, tht, support, attention, dps=80 + extra)
    with mpmath.workdps(80):
        assert abs(L - E) <= REF.rtol * E
    # The enumerated gradient loses about log10(1/|grad|) digits (a saturated softmax, or
    # 1 - erf(z) underflowing: d = 2, |z| = 14 gives 5.2e-172, |z| = 29 gives 1.4e-732);
    # the oracle raises its precision for that, from the loss's digits on.
    _assert_grads_match_enumeration(V, th, tht, support, attention, dps=80 + 2 * extra)


@pytest.mark.parametrize("V, support", [
    ([[1.0]] * 5, (0, 3)),  # all rows equal: softmax(V theta) does not depend on theta
    ([[1.0], [-1.0], [1.0], [-1.0], [1.0], [-1.0]], (2, 5)),  # balanced signs, a symmetric support
])
def test_exactly_zero_gradient_matches_enumeration(V, support):
    # Uniform softmax weights where the gradient cancels exactly: the reference returns 0, the
    # enumeration rounding noise at any precision; they agree within the oracle's floor, and
    # the oracle stops raising its precision at its documented limit.
    g, gt = population_grad(V, [0.0], [0.0], support)
    assert g == gt == [0]
    (eg, egt), floors = enumerated_grad_converged(V, [0.0], [0.0], support, dps=80)
    for y, floor in zip((eg, egt), floors):
        assert max(abs(v) for v in y) <= floor < mpmath.mpf(10) ** -(MAX_ORACLE_DPS - 20)
    _assert_grads_match_enumeration(V, [0.0], [0.0], support, "softmax", dps=80)


def test_gradient_of_a_saturated_head_far_from_the_target():
    # Head 1 saturated on a = 0 (1 - gamma_0 ~ 2e-87, below the working precision), head 2 on
    # position 2, not on b = 1: the gamma form is used, and gamma_0 (g_0 - gamma.g) must not be
    # formed as a difference (regression: it returned exactly 0 before).
    import mpmath

    V = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    g, gt = population_grad(V, [200, 0, 0], [0, 0, 200], (0, 1))
    g150, gt150 = population_grad(V, [200, 0, 0], [0, 0, 200], (0, 1), dps=150)
    for x, y in zip(g + gt, g150 + gt150):
        assert abs(x - y) <= NAMED["reference_50_digit"].rtol * abs(y)
    assert mpmath.nstr(g[0], 15) == "5.53558610694695e-87"
    assert mpmath.nstr(gt[2], 15) == "8.30337916042043e-87"


@pytest.mark.parametrize("z, expected", [(13.75, "5.5958414e-166"), (14.0, "5.1789803e-172"),
                                         (29.0, "1.441902e-732")])
def test_saturated_erf_gradient_keeps_its_digits(z, expected):
    # 1 - erf(z) lies below the working precision: both precisions of the stability check round
    # erf(z) to 1 and agreed on 0 (found by the property above); the precision now starts past it.
    V, th, tht = [[1.0], [-1.0]], [-z], [z]
    g, gt = population_grad(V, th, tht, (0, 1), "erf")
    eg, egt = enumerated_grad_mp(V, th, tht, (0, 1), "erf", dps=2000)
    assert mpmath.nstr(g[0], 8 if z < 20 else 7) == expected
    with mpmath.workdps(80):
        for x, y in ((g, eg), (gt, egt)):
            assert _max_diff(x, y) <= REF.rtol * max(abs(v) for v in y)
