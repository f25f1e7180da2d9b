"""SX-1 (as formalised in boolverify): the closed-form population loss of the two-head model,

    L = |g|^2 |g~|^2 + 2 (g.g~)^2 - 2 sum_i g_i^2 g~_i^2 - 2 (g_a g~_b + g_b g~_a) + 1,

derived by sympy from the Rademacher moment rules (verify.derivation) equals exhaustive
enumeration of {±1}^d exactly; so does the residual form near a solution; the 50-digit mpmath
reference equals enumeration to < 1e-40. Wrong closed forms are rejected by the same checks.
"""

import mpmath
import pytest
import sympy as sp

from verify.derivation import derive, invariant
from verify.enumeration import check_closed_form, check_closed_form_numeric
from verify.reference import population_loss
from verify.reference_checks import check_reference_loss


def _wrong_forms():
    D = derive()
    inv = D.inv
    g2, gt2 = invariant(inv, g=2), invariant(inv, gt=2)
    dot, s22 = invariant(inv, g=1, gt=1), invariant(inv, g=2, gt=2)
    ga, gb = inv.component("g", "a"), inv.component("g", "b")
    gta, gtb = inv.component("gt", "a"), inv.component("gt", "b")
    return {
        "without -2 sum g_i^2 g~_i^2": D.loss + 2 * s22,
        "flipped sign of 2(g.g~)^2": D.loss - 4 * dot ** 2,
        "without the cross term g_b g~_a": D.loss + 2 * gb * gta,
        "without the constant 1": D.loss - 1,
        "|g|^2|g~|^2 -> (g.g~)^2": D.loss - g2 * gt2 + dot ** 2,
        "support term with a single factor 2 -> 1": D.loss + ga * gtb + gb * gta,
    }


@pytest.mark.claim("SX-1")
def test_derived_closed_form_equals_symbolic_enumeration(evidence):
    D = derive()
    rep = check_closed_form(D.loss, D.inv, ds=range(2, 7), all_pairs=True)
    evidence["derivation_seconds"] = round(D.seconds, 4)
    evidence["closed_form"] = sp.sstr(D.loss)
    evidence.update({f"symbolic_{k}": v for k, v in rep.as_evidence().items()})
    assert rep.passed, rep.mismatch
    assert len(rep.cases) == sum(d * (d - 1) for d in range(2, 7))  # every support, d = 2..6


@pytest.mark.claim("SX-1")
def test_derived_closed_form_equals_rational_enumeration_up_to_d12(evidence):
    D = derive()
    rep = check_closed_form_numeric(D.loss, D.inv, ds=range(2, 13))
    evidence.update(rep.as_evidence())
    assert rep.passed, rep.mismatch
    assert [c[0] for c in rep.cases] == list(range(2, 13))


@pytest.mark.claim("SX-1")
def test_residual_form_equals_enumeration_and_has_no_constant_term(evidence):
    D = derive()
    rep = check_closed_form(D.residual_loss, D.inv, ds=range(2, 7), all_pairs=True, form="residual")
    zero = {s: 0 for s in D.residual_loss.free_symbols}
    evidence["residual_form"] = sp.sstr(D.residual_loss)
    evidence["residual_at_zero"] = str(D.residual_loss.xreplace(zero))
    evidence.update(rep.as_evidence())
    assert rep.passed, rep.mismatch
    assert D.residual_loss.xreplace(zero) == 0


@pytest.mark.claim("SX-1")
def test_reference_equals_enumeration_at_50_digits(evidence):
    rep = check_reference_loss(population_loss, ds=(2, 3, 5, 8, 10), near=(25.0, 70.0))
    evidence["max_abs_diff"] = rep.max_abs_diff
    evidence["max_rel_diff_near_solution"] = rep.max_rel_diff
    evidence["smallest_loss_checked"] = rep.min_loss
    evidence["cases"] = len(rep.cases)
    assert rep.passed, rep.mismatch
    assert rep.min_loss < 1e-55  # the near-solution instances really are near a solution
    assert rep.max_abs_diff < 1e-40


@pytest.mark.claim("SX-1")
def test_wrong_closed_forms_are_rejected(evidence):
    D = derive()
    rejected = {}
    for name, expr in _wrong_forms().items():
        sym = check_closed_form(expr, D.inv, ds=range(2, 5))
        num = check_closed_form_numeric(expr, D.inv, ds=range(2, 13))
        rejected[name] = [sym.mismatch, num.mismatch]
        assert not sym.passed, f"symbolic check accepted the wrong form {name!r}"
        assert not num.passed, f"rational check accepted the wrong form {name!r}"
    evidence["rejected"] = rejected


@pytest.mark.claim("SX-1")
def test_perturbed_reference_is_rejected(evidence):
    def off_by_1e_35(*args, **kw):
        with mpmath.workdps(60):
            return population_loss(*args, **kw) * (1 + mpmath.mpf("1e-35"))

    rep = check_reference_loss(off_by_1e_35, attentions=("softmax",), ds=(3,), near=(70.0,))
    evidence["mismatch"] = rep.mismatch
    assert not rep.passed


@pytest.mark.slow
@pytest.mark.claim("SX-1")
def test_closed_form_full_sweep(evidence):
    D = derive()
    rep = check_closed_form(D.loss, D.inv, ds=range(2, 9), all_pairs=True)
    num = check_closed_form_numeric(D.loss, D.inv, ds=range(2, 17), seed=1)
    ref = check_reference_loss(population_loss, ds=tuple(range(2, 13)), seeds=(0, 1, 2),
                               near=(10.0, 25.0, 70.0, 140.0))
    evidence.update(symbolic_cases=len(rep.cases), rational_cases=len(num.cases),
                    reference_max_abs_diff=ref.max_abs_diff, reference_max_rel_diff=ref.max_rel_diff)
    assert rep.passed and num.passed and ref.passed, (rep.mismatch, num.mismatch, ref.mismatch)
