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

from verify.reference.checks import check_reference_grad
from verify.reference.population import population_grad
from verify.symbolic.chain_rule import ATTENTIONS, check_chain_rule, derive_jacobian
from verify.symbolic.derivation import delta, derive, index_symbol, invariant
from verify.symbolic.enumeration import check_gradient


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
    assert rep.max_rel_diff < NAMED["reference_50_digit"].rtol


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


# --------------------------------------------------------------------------------------------
# torch engine: numeric.xor.population_grad (closed form, no autograd) against the
# 50-digit reference above, against autograd through the loss, and under gradcheck.

import torch  # noqa: E402

from numeric import xor as nx  # noqa: E402
from numeric.xor import GRAD_PATHS  # noqa: E402
from verify.common.tolerances import NAMED, assert_close, tolerance  # noqa: E402
from verify.experiments.known_answers import (  # noqa: E402
    tolerance_negative_control, tolerance_negative_control_decision,
)
from verify.stats.decisions import exact


def _ref_digits(V, th, tt):
    """50 digits plus what a saturated softmax head needs: the reference forms
    gamma_k (g_k - gamma.g) at dps + 15 digits, which loses 1 - gamma_k = e^{-gap} below that."""
    gaps = []
    for t in (th, tt):
        z = (V @ t).sort(descending=True).values
        gaps.append(float(z[0] - z[1]))
    return 50 + int(max(gaps) / 2.302585) + 1


def _torch_grad_instances():
    """(V, theta, theta~, support, attention): three maps at moderate logits, d = 2..12, m >= 2
    (m = 1 makes every v_i = +-1, so tied logits cancel V^T w: covered in tests/), and
    softmax models after one step with the default step size (near a solution or not)."""
    out = []
    for k, (d, m) in enumerate(((2, 2), (5, 3), (9, 6), (12, 8))):
        g = torch.Generator().manual_seed(k)
        V = nx.sample_embeddings(d, m, generator=g)
        th = torch.randn(m, generator=g, dtype=torch.float64) * 2
        tt = torch.randn(m, generator=g, dtype=torch.float64) * 2
        for att in ATTENTIONS:
            out.append((V, th, tt, (d - 1, 0), att))
    for seed in (0, 1, 4, 7):
        V = nx.sample_embeddings(12, 8, generator=torch.Generator().manual_seed(seed))
        th, tt = nx.sample_init(8, generator=torch.Generator().manual_seed(100 + seed))
        th, tt = nx.one_step(V, th, tt, (3, 9), nx.default_lr(12, 8))
        out.append((V, th, tt, (3, 9), "softmax"))
    out.extend(_saturated_off_support())
    return out


def _saturated_off_support():
    """Softmax heads saturated on a position off the support (large logits): the moments of the
    one-pass gradient cancel there, so the engine must take its exact path."""
    out = []
    for seed in (3, 5, 8):
        g = torch.Generator().manual_seed(seed)
        V = nx.sample_embeddings(8, 3, generator=g)
        th = torch.randn(3, generator=g, dtype=torch.float64) * 80
        tt = torch.randn(3, generator=g, dtype=torch.float64) * 80
        out.append((V, th, tt, (1, 4), "softmax"))
    return out


@pytest.mark.claim("SX-2")
def test_torch_population_grad_equals_reference_autograd_and_gradcheck(evidence):
    """torch float64 population_grad (closed form, O(dm), no autograd), on each of its paths
    (one pass and two passes over V, forced: which one runs depends on the machine and on V's
    size), == 50-digit reference
    (each vector to rtol 1e-10 + atol 1e-12 x its largest component, also near a solution),
    == autograd through population_loss (moderate logits), and passes
    torch.autograd.gradcheck, for softmax, linear and erf."""
    worst_ref, worst_auto, smallest = 0.0, 0.0, []
    for V, th, tt, sup, att in _torch_grad_instances():
        dps = _ref_digits(V, th, tt) if att == "softmax" else 50
        with mpmath.workdps(dps):
            refs = population_grad(V, th, tt, sup, att, dps=dps)
        if sup not in ((3, 9), (1, 4)):
            # autograd through the loss (softmax backward gamma*(g - gamma.g)) cancels near a
            # solution and at saturated heads; the closed form is the accurate one there
            a, b = th.clone().requires_grad_(), tt.clone().requires_grad_()
            nx.population_loss(V, a, b, sup, att).backward()
        for path in GRAD_PATHS:  # each path population_grad may take, whatever the size rule picks
            ours = nx.population_grad(V, th, tt, sup, att, path=path)
            with mpmath.workdps(dps):
                for head, (g, r) in enumerate(zip(ours, refs)):
                    big = max(abs(x) for x in r)
                    for k in range(len(r)):
                        assert_close(float(g[k]), float(r[k]), scale=float(big),
                                     what=f"{att} grad ({path}) head {head + 1}[{k}]")
                    worst_ref = max(worst_ref, float(max(abs(mpmath.mpf(float(g[k])) - r[k])
                                                         for k in range(len(r))) / big))
                    smallest.append(float(big))
            if sup in ((3, 9), (1, 4)):
                continue
            for g, auto in zip(ours, (a.grad, b.grad)):
                s = float(g.abs().max())
                for k in range(len(g)):
                    assert_close(float(g[k]), float(auto[k]), scale=s, what=f"{att} ({path}) autograd")
                worst_auto = max(worst_auto, float((g - auto).abs().max()) / s)

    class Engine(torch.autograd.Function):
        @staticmethod
        def forward(ctx, th, tt, V, att):
            ctx.save_for_backward(th, tt, V)
            ctx.att = att
            return nx.population_loss(V, th, tt, (1, 4), att)

        @staticmethod
        def backward(ctx, up):
            th, tt, V = ctx.saved_tensors
            g, gt = nx.population_grad(V, th, tt, (1, 4), ctx.att)
            return up[..., None] * g, up[..., None] * gt, None, None

    checked = []
    for att in ATTENTIONS:
        gen = torch.Generator().manual_seed(11)
        V = nx.sample_embeddings(6, 4, batch_shape=(2,), generator=gen)
        th = (torch.randn(2, 4, generator=gen, dtype=torch.float64) * 1.5).requires_grad_()
        tt = (torch.randn(2, 4, generator=gen, dtype=torch.float64) * 1.5).requires_grad_()
        assert torch.autograd.gradcheck(lambda a, b: Engine.apply(a, b, V, att), (th, tt),
                                        eps=1e-6, atol=NAMED["finite_difference"].atol,
                                        rtol=NAMED["finite_difference"].rtol)
        checked.append(att)
    evidence["instances"] = len(_torch_grad_instances())
    evidence["paths"] = list(GRAD_PATHS)
    evidence["max_rel_err_vs_reference"] = worst_ref
    evidence["smallest_gradient_checked"] = min(smallest)
    evidence["max_rel_err_vs_autograd"] = worst_auto
    evidence["gradcheck_passed"] = checked
    evidence.decide(exact("max relative error of the torch gradient vs 50-digit reference and autograd",
                          max(worst_ref, worst_auto), "pass iff <= 1e-10 (tolerance table)",
                          worst_ref <= tolerance().rtol and worst_auto <= tolerance().rtol))
    control = tolerance_negative_control(min(smallest))  # the smallest gradient checked, off by 1.2e-7
    evidence["negative_control_tolerance"] = control
    evidence.decide(tolerance_negative_control_decision("relative error of the gradient", control))
    assert min(smallest) < 1e-10          # includes post-step models near a solution
