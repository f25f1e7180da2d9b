"""SX-2 (as formalised in boolverify): the closed-form population gradient

    g_i = dL/dgamma_i = 2 g_i |g~|^2 + 4 (g.g~) g~_i - 4 g_i g~_i^2 - 2 (delta_ia g~_b + delta_ib g~_a)

(symmetric for g~), derived by sympy in index notation, equals the derivative of the enumerated
loss exactly; the chain rule through the softmax, linear and erf Jacobians (derived by sympy)
equals sympy's derivative of the enumerated loss composed with gamma(V theta), exactly; the
50-digit mpmath reference gradient equals the enumerated gradient to < 1e-40. Wrong gradients
and a wrong softmax contraction are rejected by the same checks.
"""

import mpmath
import pytest
import sympy as sp

from verify.chain_rule import ATTENTIONS, check_chain_rule, derive_jacobian
from verify.derivation import delta, derive, index_symbol, invariant
from verify.enumeration import check_gradient
from verify.reference import population_grad
from verify.reference_checks import check_reference_grad


@pytest.mark.claim("SX-2")
def test_derived_gradient_equals_derivative_of_enumeration(evidence):
    D = derive()
    for name, expr, vec in (("gamma", D.grad_g, "g"), ("gamma_tilde", D.grad_gt, "gt")):
        rep = check_gradient(expr, vec, D.inv, ds=range(2, 7), all_pairs=True)
        evidence[f"dL/d{name}"] = sp.sstr(expr)
        evidence[f"{name}_cases"] = len(rep.cases)
        assert rep.passed, rep.mismatch
    for name, expr, vec in (("u", D.residual_grad_u, "g"), ("u_tilde", D.residual_grad_ut, "gt")):
        rep = check_gradient(expr, vec, D.inv, ds=range(2, 7), form="residual")
        evidence[f"residual_{name}_cases"] = len(rep.cases)
        assert rep.passed, rep.mismatch


@pytest.mark.claim("SX-2")
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_chain_rule_through_attention_is_exact(attention, evidence):
    D = derive()
    J = derive_jacobian(attention)
    rep = check_chain_rule(D.grad_g, D.grad_gt, D.inv, attention, d=3, m=2)
    evidence["jacobian"] = sp.sstr(J.combined)
    evidence["weighted_gradient"] = sp.sstr(J.weighted)
    evidence.update(rep.as_evidence())
    assert rep.passed, rep.mismatch
    assert len(rep.cases) == 4  # both heads, both components of theta


@pytest.mark.claim("SX-2")
def test_reference_gradient_equals_enumeration_at_50_digits(evidence):
    rep = check_reference_grad(population_grad, ds=(2, 5, 10), near=(70.0,))
    evidence["max_rel_diff"] = rep.max_rel_diff
    evidence["cases"] = len(rep.cases)
    assert rep.passed, rep.mismatch
    assert rep.max_rel_diff < 1e-40


@pytest.mark.claim("SX-2")
def test_wrong_gradients_are_rejected(evidence):
    D = derive()
    inv = D.inv
    dot = invariant(inv, g=1, gt=1)
    wrong = {
        "without -2 delta_ib g~_a": D.grad_g.xreplace({delta("b"): 0}),
        "flipped sign of 4(g.g~)g~_i": D.grad_g - 8 * dot * index_symbol("gt"),
        "without -4 g_i g~_i^2": D.grad_g + 4 * index_symbol("g") * index_symbol("gt") ** 2,
    }
    rejected = {}
    for name, expr in wrong.items():
        rep = check_gradient(expr, "g", inv, ds=range(2, 5))
        rejected[name] = rep.mismatch
        assert not rep.passed, f"accepted the wrong gradient {name!r}"
    # softmax without the -(gamma.g) 1 term of (diag gamma - gamma gamma^T)
    rep = check_chain_rule(D.grad_g, D.grad_gt, inv, "softmax", d=3, m=2,
                           weighted=lambda gam, grad, z, i: gam[i] * grad[i])
    rejected["softmax w_i = gamma_i g_i"] = rep.mismatch
    assert not rep.passed
    # a reference gradient off by a relative 1e-35
    def off_by_1e_35(*args):
        with mpmath.workdps(60):
            return tuple([v * (1 + mpmath.mpf("1e-35")) for v in x] for x in population_grad(*args))

    rep = check_reference_grad(off_by_1e_35, attentions=("erf",), ds=(3,))
    rejected["reference x (1 + 1e-35)"] = rep.mismatch
    assert not rep.passed
    evidence["rejected"] = rejected


@pytest.mark.slow
@pytest.mark.claim("SX-2")
def test_gradient_full_sweep(evidence):
    D = derive()
    rep = check_gradient(D.grad_g, "g", D.inv, ds=range(2, 9), all_pairs=True)
    chain = [check_chain_rule(D.grad_g, D.grad_gt, D.inv, att, d=4, m=3, seed=1)
             for att in ATTENTIONS]
    ref = check_reference_grad(population_grad, ds=tuple(range(2, 12)), seeds=(0, 1),
                               near=(25.0, 70.0, 140.0))
    evidence.update(symbolic_cases=len(rep.cases), reference_max_rel_diff=ref.max_rel_diff)
    assert rep.passed and all(c.passed for c in chain) and ref.passed
