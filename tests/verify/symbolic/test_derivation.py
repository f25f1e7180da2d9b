"""verify.symbolic.derivation / .enumeration / .chain_rule: the moment rule, the derived
expressions against the stated formulas of claims SX-1 and SX-2 (docs/claims.md, typed in here
as a regression check), the lambdified residual form used by the reference, and the checks'
ability to fail."""

import itertools
import random
from collections import Counter
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from verify.common.tolerances import working_digits
from verify.symbolic.chain_rule import derive_jacobian, dij, gdot, g_i, gi, gj, zi
from verify.symbolic.derivation import (Invariants, delta, derive, index_symbol, invariant,
                               form_lambdas, moment_coefficients)
from verify.symbolic.enumeration import (evaluate_exact, check_closed_form, check_gradient,
                                enumerated_loss_poly)
from tests.helpers import raises_input_error


def _moment_by_rule(idx):
    return int(all(c % 2 == 0 for c in Counter(idx).values()))


def _moment_by_coefficients(k, idx):
    return sum(c * all(len({idx[i] for i in blk}) == 1 for blk in sigma)
               for sigma, c in moment_coefficients(k))


@pytest.mark.parametrize("k,values", [(1, 3), (2, 3), (3, 3), (4, 4), (5, 3), (6, 3)])
def test_moment_coefficients_reproduce_the_moment_rule(k, values):
    for idx in itertools.product(range(values), repeat=k):
        assert _moment_by_coefficients(k, idx) == _moment_by_rule(idx), idx


def test_fourth_moment_coefficients():
    assert dict(moment_coefficients(4)) == {((0, 1), (2, 3)): 1, ((0, 2), (1, 3)): 1,
                                            ((0, 3), (1, 2)): 1, ((0, 1, 2, 3),): -2}
    assert moment_coefficients(3) == ()


def _spec_symbols():
    inv = derive().inv
    return dict(g2=invariant(inv, g=2), gt2=invariant(inv, gt=2), dot=invariant(inv, g=1, gt=1),
                s=invariant(inv, g=2, gt=2), ga=inv.component("g", "a"),
                gb=inv.component("g", "b"), gta=inv.component("gt", "a"),
                gtb=inv.component("gt", "b"))


def test_derived_closed_form_is_the_spec_formula():
    S = _spec_symbols()
    spec = (S["g2"] * S["gt2"] + 2 * S["dot"] ** 2 - 2 * S["s"]
            - 2 * (S["ga"] * S["gtb"] + S["gb"] * S["gta"]) + 1)
    assert sp.expand(derive().loss - spec) == 0


def test_derived_gradient_is_the_spec_formula():
    S = _spec_symbols()
    g, gt = index_symbol("g"), index_symbol("gt")
    da, db = delta("a"), delta("b")
    spec = (2 * g * S["gt2"] + 4 * S["dot"] * gt - 4 * g * gt ** 2
            - 2 * (da * S["gtb"] + db * S["gta"]))
    spec_t = (2 * gt * S["g2"] + 4 * S["dot"] * g - 4 * gt * g ** 2
              - 2 * (db * S["ga"] + da * S["gb"]))
    D = derive()
    assert sp.expand(D.grad_g - spec) == 0
    assert sp.expand(D.grad_gt - spec_t) == 0


def _residual_symbols():
    inv = derive().inv
    return (invariant(inv, u=2), invariant(inv, ut=2), invariant(inv, u=1, ut=1),
            invariant(inv, u=2, ut=2), inv.component("u", "a"), inv.component("u", "b"),
            inv.component("ut", "a"), inv.component("ut", "b"))


def test_derived_residual_form_is_the_documented_one():
    nu, nut, p, s, ua, ub, uta, utb = _residual_symbols()
    # the formula in the docstring of verify.reference.population
    doc = (nu + nut + 2 * (ua * utb + ub * uta) + 2 * ua * nut + 4 * uta * p - 4 * ua * uta ** 2
           + 2 * utb * nu + 4 * ub * p - 4 * utb * ub ** 2 + nu * nut + 2 * p ** 2 - 2 * s)
    assert sp.expand(derive().residual_loss - doc) == 0


def test_residual_form_has_no_constant_or_linear_term():
    D = derive()
    lam = sp.Symbol("lam")
    scale = {s: lam ** sum(c.values()) * s for s, c in D.inv.sums.items()}
    scale.update({s: lam * s for s in D.residual_loss.free_symbols if s not in scale})
    poly = sp.Poly(sp.expand(D.residual_loss.xreplace(scale)), lam)
    assert min(m[0] for m in poly.monoms()) == 2  # lowest degree in (u, u~) is 2
    assert max(m[0] for m in poly.monoms()) == 4


@pytest.mark.parametrize("form", ["residual", "gamma"])
def test_lambdified_forms_match_exact_evaluation(form):
    """The mpmath callables used by verify.reference.population equal the sympy expressions, evaluated
    exactly at random rationals (to 50 digits)."""
    loss, grad = form_lambdas(form)
    D = derive()
    v, vt = ("u", "ut") if form == "residual" else ("g", "gt")
    expr_l, expr_g, expr_gt = ((D.residual_loss, D.residual_grad_u, D.residual_grad_ut)
                               if form == "residual" else (D.loss, D.grad_g, D.grad_gt))
    rng = random.Random(0)
    d, a, b = 5, 1, 3
    u = [Fraction(rng.randint(-50, 50), 97) for _ in range(d)]
    ut = [Fraction(rng.randint(-50, 50), 89) for _ in range(d)]
    vals = D.inv.concrete_values({v: u, vt: ut}, a, b)
    kw = dict(nu=sum(x * x for x in u), nut=sum(x * x for x in ut),
              p=sum(x * y for x, y in zip(u, ut)), s=sum((x * y) ** 2 for x, y in zip(u, ut)),
              ua=u[a], ub=u[b], uta=ut[a], utb=ut[b])

    def mp(q):
        return mpmath.mpf(q.numerator) / q.denominator

    with mpmath.workdps(50):
        mkw = {k: mp(q) for k, q in kw.items()}
        assert abs(loss(**mkw) - mp(evaluate_exact(expr_l, vals))) < working_digits(50, 2).atol
        for i in range(d):
            vals_i = dict(vals)
            vals_i.update({index_symbol(v): u[i], index_symbol(vt): ut[i],
                           delta("a"): int(i == a), delta("b"): int(i == b)})
            gi_, gti_ = grad(ui=mp(u[i]), uti=mp(ut[i]), dia=int(i == a), dib=int(i == b), **mkw)
            assert abs(gi_ - mp(evaluate_exact(expr_g, vals_i))) < working_digits(50, 2).atol
            assert abs(gti_ - mp(evaluate_exact(expr_gt, vals_i))) < working_digits(50, 2).atol


def test_derived_jacobians():
    J = derive_jacobian("softmax")
    assert sp.expand(J.case_neq + gi * gj) == 0
    assert sp.expand(J.case_eq - gi * (1 - gi)) == 0
    assert sp.expand(J.combined - (dij * gi - gi * gj)) == 0
    assert sp.expand(J.weighted - gi * (g_i - gdot)) == 0
    d = sp.Symbol("d", real=True)
    assert sp.expand(derive_jacobian("linear").weighted - g_i / d) == 0
    erf_w = 2 * sp.exp(-zi ** 2) / sp.sqrt(sp.pi) / d * g_i
    assert sp.simplify(derive_jacobian("erf").weighted - erf_w) == 0


def test_unit_vector_contractions():
    inv = Invariants()
    assert inv.contract(["ea", "eb", "g", "g"]) == 0
    assert inv.contract(["ea", "ea"]) == 1
    assert str(inv.contract(["ea", "g", "gt"])) == "g_a*gt_a"
    assert str(inv.contract(["g", "gt", "g", "gt"])) == "I_g2_gt2"


def test_enumeration_is_the_definition_for_d2():
    """d = 2 by hand: x in {±1}^2, L = mean of (-(g.x)(g~.x) + x0 x1)^2."""
    L, g, gt = enumerated_loss_poly(2, 0, 1)
    manual = 0
    for x in itertools.product((-1, 1), repeat=2):
        e = -(g[0] * x[0] + g[1] * x[1]) * (gt[0] * x[0] + gt[1] * x[1]) + x[0] * x[1]
        manual += e * e
    assert L == manual * sp.QQ(1, 4)


def test_checks_reject_wrong_residual_and_gradient():
    D = derive()
    nu = invariant(D.inv, u=2)
    assert check_closed_form(D.residual_loss, D.inv, ds=range(2, 5), form="residual").passed
    bad = check_closed_form(D.residual_loss - nu, D.inv, ds=range(2, 5), form="residual")
    assert not bad.passed and "d=2" in bad.mismatch
    bad_g = check_gradient(D.residual_grad_u.xreplace({delta("a"): 0}), "g", D.inv,
                           ds=range(2, 5), form="residual")
    assert not bad_g.passed


# (call, the bad argument's name)
BAD = [
    (lambda: enumerated_loss_poly(11, 0, 1), "d"),
    (lambda: enumerated_loss_poly(1, 0, 1), "d"),
    (lambda: enumerated_loss_poly(3, 1, 1), "(a, b)"),
    (lambda: enumerated_loss_poly(3, 0, 3), "(a, b)"),
    (lambda: derive_jacobian("relu"), "attention"),
    (lambda: evaluate_exact(index_symbol("g") + 1, {}), "values"),
]


@pytest.mark.parametrize("call, name", BAD, ids=[f"{n}-{i}" for i, (_, n) in enumerate(BAD)])
def test_bad_input_raises_input_error(call, name):
    with raises_input_error(name):
        call()


def test_derivation_time_is_recorded():
    D = derive()
    assert 0 < D.seconds
