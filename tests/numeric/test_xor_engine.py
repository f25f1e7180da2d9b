"""The torch engine of the two-head model against enumeration of {±1}^d, sympy, autograd and
gradcheck (float64), plus sampling, steps, metrics and the bad-input contract (every bad
argument raises InputError naming it)."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
import torch

from numeric.xor import (check_embeddings, default_lr, empirical_grad, empirical_loss, one_step,
                         population_grad, population_loss, sample_data, sample_embeddings,
                         sample_init)
from numeric.xor._forms import closed_form_loss, closed_form_weight_grad, residual_polynomial
from numeric.xor._metrics import limit_step_attention, step_metrics
from numeric.xor._attention import ATTENTIONS, attention_weights
from verify.common.tolerances import NAMED, assert_close, tolerance
from tests.helpers import raises_input_error, xor_instance

F64 = torch.float64


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _cube(d, dtype=F64):
    return torch.tensor(list(itertools.product([-1.0, 1.0], repeat=d)), dtype=dtype)


def _close_vec(x, y, what, dtype=F64, scale=None):
    """Elementwise against the tolerance table, atol scaled by the largest entry of y."""
    x, y = torch.as_tensor(x).flatten(), torch.as_tensor(y).flatten()
    s = float(y.abs().max()) if scale is None else scale
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        assert_close(a, b, dtype=dtype, scale=s, what=f"{what}[{i}]")


def _inject(gamma, gamma_tilde):
    """(V, theta, theta~) whose *linear* attention weights are exactly gamma, gamma~: V = d I."""
    d = gamma.shape[-1]
    return d * torch.eye(d, dtype=gamma.dtype), gamma, gamma_tilde


# --------------------------------------------------------------------------- SX-1 forms


@pytest.mark.parametrize("d", [2, 3, 5, 8, 10])
def test_all_forms_equal_enumeration_for_arbitrary_weights(d):
    g = _gen(d)
    X = _cube(d)
    for trial in range(3):
        gam = torch.randn(d, generator=g, dtype=F64) * (0.3 + trial)
        gamt = torch.randn(d, generator=g, dtype=F64) * (0.3 + trial)
        a, b = (0, 1) if trial == 0 else (d - 1, trial % (d - 1))
        r = X @ gam * (X @ gamt) - X[:, a] * X[:, b]            # (f - y) up to the sign
        brute = (r * r).mean()
        scale = float((r * r).max())                              # largest term of the mean
        forms = {
            "expanded closed form": closed_form_loss(gam, gamt, (a, b)),
            "residual polynomial": residual_polynomial(
                gam - torch.eye(d, dtype=F64)[a], gamt - torch.eye(d, dtype=F64)[b], (a, b)),
            "engine (sum of squares)": population_loss(*_inject(gam, gamt), (a, b), "linear"),
        }
        for name, val in forms.items():
            assert_close(float(val), float(brute), scale=scale, what=f"{name}, d={d}")


@pytest.mark.parametrize("d,support", [(2, (0, 1)), (3, (2, 0)), (4, (1, 3))])
def test_residual_polynomial_is_the_exact_expectation(d, support):
    """sympy: E[(f - y)^2] over {±1}^d with gamma = e_a + u, gamma~ = e_b + u~ symbolic equals
    residual_polynomial exactly (it has no constant term); same for the expanded form."""
    a, b = support
    u = np.array(sp.symbols(f"u0:{d}"), dtype=object)
    ut = np.array(sp.symbols(f"ut0:{d}"), dtype=object)
    ea = np.array([int(i == a) for i in range(d)], dtype=object)
    eb = np.array([int(i == b) for i in range(d)], dtype=object)
    total = 0
    for x in itertools.product([-1, 1], repeat=d):
        x = np.array(x, dtype=object)
        f = -((ea + u) @ x) * ((eb + ut) @ x)
        total += (f + x[a] * x[b]) ** 2
    expectation = sp.expand(sp.Rational(1, 2 ** d) * total)
    poly = sp.expand(residual_polynomial(u, ut, support))
    assert sp.expand(poly - expectation) == 0
    assert poly.subs({s: 0 for s in poly.free_symbols}) == 0
    closed = sp.expand(closed_form_loss(ea + u, eb + ut, support))
    assert sp.expand(closed - expectation) == 0


def test_expanded_form_loses_digits_near_a_solution_the_engine_does_not():
    V = sample_embeddings(12, 8, generator=_gen(0))
    th, tt = sample_init(8, generator=_gen(100))      # a seed whose step succeeds: L ~ 1e-42
    th1, tt1 = one_step(V, th, tt, (3, 9), default_lr(12, 8))
    with mpmath.workdps(50):
        from verify.reference.population import population_loss as ref_loss

        ref = ref_loss(V, th1, tt1, (3, 9))
        assert ref < 1e-20
        ours = population_loss(V, th1, tt1, (3, 9))
        expanded = closed_form_loss(attention_weights(V, th1), attention_weights(V, tt1), (3, 9))
        rel_ours = float(abs((mpmath.mpf(float(ours)) - ref) / ref))
        rel_expanded = float(abs((mpmath.mpf(float(expanded)) - ref) / ref))
    assert rel_ours <= tolerance().rtol < 1e-3 < rel_expanded


# --------------------------------------------------------------------------- SX-2 gradient


def _grad_scale(V, th, tt, support, attention):
    return max(float(x.abs().max()) for x in population_grad(V, th, tt, support, attention))


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_closed_form_gradient_equals_autograd_twice(attention):
    """population_grad == autograd through population_loss == autograd through the expanded
    closed form, batched (3 seeds), float64."""
    V = sample_embeddings(9, 5, batch_shape=(3,), generator=_gen(4))
    th = torch.randn(3, 5, generator=_gen(5), dtype=F64) * 2
    tt = torch.randn(3, 5, generator=_gen(6), dtype=F64) * 2
    g, gt = population_grad(V, th, tt, (4, 1), attention)
    for how in ("engine loss", "expanded closed form"):
        a = th.clone().requires_grad_()
        b = tt.clone().requires_grad_()
        if how == "engine loss":
            L = population_loss(V, a, b, (4, 1), attention)
        else:
            L = closed_form_loss(attention_weights(V, a, attention),
                                 attention_weights(V, b, attention), (4, 1))
        L.sum().backward()
        for i in range(3):
            s = max(float(g[i].abs().max()), float(gt[i].abs().max()))
            _close_vec(g[i], a.grad[i], f"{attention} {how} grad theta", scale=s)
            _close_vec(gt[i], b.grad[i], f"{attention} {how} grad theta~", scale=s)


class _EngineLoss(torch.autograd.Function):
    """population_loss with population_grad as its backward, for gradcheck."""

    @staticmethod
    def forward(ctx, th, tt, V, support, attention):
        ctx.save_for_backward(th, tt, V)
        ctx.support, ctx.attention = support, attention
        return population_loss(V, th, tt, support, attention)

    @staticmethod
    def backward(ctx, up):
        th, tt, V = ctx.saved_tensors
        g, gt = population_grad(V, th, tt, ctx.support, ctx.attention)
        return up[..., None] * g, up[..., None] * gt, None, None, None


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_gradcheck_of_the_closed_form_gradient(attention):
    V = sample_embeddings(7, 4, batch_shape=(2,), generator=_gen(7))
    th = (torch.randn(2, 4, generator=_gen(8), dtype=F64) * 1.5).requires_grad_()
    tt = (torch.randn(2, 4, generator=_gen(9), dtype=F64) * 1.5).requires_grad_()
    assert torch.autograd.gradcheck(
        lambda a, b: _EngineLoss.apply(a, b, V, (2, 5), attention), (th, tt), eps=1e-6,
        atol=NAMED["finite_difference"].atol, rtol=NAMED["finite_difference"].rtol)


def test_gradcheck_detects_a_wrong_backward():
    """gradcheck is not vacuous: a gradient off by a factor 1.001 fails it."""
    V = sample_embeddings(5, 3, generator=_gen(10))
    th = torch.randn(3, generator=_gen(11), dtype=F64).requires_grad_()
    tt = torch.randn(3, generator=_gen(12), dtype=F64).requires_grad_()

    class Wrong(_EngineLoss):
        @staticmethod
        def backward(ctx, up):
            out = _EngineLoss.backward(ctx, up)
            return out[0] * 1.001, out[1], None, None, None

    with pytest.raises(RuntimeError, match="Jacobian mismatch"):   # GradcheckError
        torch.autograd.gradcheck(lambda a, b: Wrong.apply(a, b, V, (0, 1), "softmax"), (th, tt),
                                 eps=1e-6, atol=NAMED["finite_difference"].atol,
                                 rtol=NAMED["finite_difference"].rtol)


def test_weight_space_gradient_matches_spec_formula_and_autograd():
    g = _gen(13)
    gam = torch.randn(2, 6, generator=g, dtype=F64)
    gamt = torch.randn(2, 6, generator=g, dtype=F64)
    ref_g, ref_gt = closed_form_weight_grad(gam, gamt, (5, 2))
    a, b = gam.clone().requires_grad_(), gamt.clone().requires_grad_()
    closed_form_loss(a, b, (5, 2)).sum().backward()
    _close_vec(ref_g, a.grad, "spec formula vs autograd")
    _close_vec(ref_gt, b.grad, "spec formula vs autograd (tilde)")
    # the engine's weight-space gradient: linear attention with V = d I returns g itself
    for i in range(2):
        e_g, e_gt = population_grad(*_inject(gam[i], gamt[i]), (5, 2), "linear")
        _close_vec(e_g, ref_g[i], "engine g", scale=float(ref_g[i].abs().max()))
        _close_vec(e_gt, ref_gt[i], "engine g~", scale=float(ref_gt[i].abs().max()))


# --------------------------------------------------------------------------- enumeration: empirical


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_empirical_over_the_whole_cube_equals_population(attention):
    d, m = 7, 3
    V = sample_embeddings(d, m, generator=_gen(14))
    th = torch.randn(m, generator=_gen(15), dtype=F64)
    tt = torch.randn(m, generator=_gen(16), dtype=F64)
    X = _cube(d)
    y = -X[:, 1] * X[:, 6]
    L = population_loss(V, th, tt, (1, 6), attention)
    assert_close(float(empirical_loss(V, th, tt, X, y, attention)), float(L), scale=float(L),
                 what="empirical on all inputs")
    eg = empirical_grad(V, th, tt, X, y, attention)
    pg = population_grad(V, th, tt, (1, 6), attention)
    s = max(float(x.abs().max()) for x in pg)
    _close_vec(eg[0], pg[0], "empirical grad", scale=s)
    _close_vec(eg[1], pg[1], "empirical grad~", scale=s)
    a, b = th.clone().requires_grad_(), tt.clone().requires_grad_()
    empirical_loss(V, a, b, X, y, attention).backward()
    _close_vec(eg[0], a.grad, "empirical grad vs autograd", scale=s)
    _close_vec(eg[1], b.grad, "empirical grad~ vs autograd", scale=s)


def test_sample_data_and_batched_empirical_shapes():
    X, y = sample_data(50, 6, (2, 4), generator=_gen(17), batch_shape=(3,))
    assert X.shape == (3, 50, 6) and y.shape == (3, 50) and X.dtype == F64
    assert bool((X.abs() == 1).all()) and torch.equal(y, -X[..., 2] * X[..., 4])
    X2, _ = sample_data(50, 6, (2, 4), generator=_gen(17), batch_shape=(3,))
    assert torch.equal(X, X2)
    V = sample_embeddings(6, 4, batch_shape=(3,), generator=_gen(18))
    th, tt = sample_init(4, batch_shape=(3,), generator=_gen(19))
    assert empirical_loss(V, th, tt, X, y).shape == (3,)
    g, gt = empirical_grad(V, th, tt, X, y)
    assert g.shape == gt.shape == (3, 4)


# --------------------------------------------------------------------------- sampling, steps


def test_sampling_is_seeded_unit_and_antisymmetric():
    V1 = sample_embeddings(20, 5, batch_shape=(2, 3), generator=_gen(20))
    V2 = sample_embeddings(20, 5, batch_shape=(2, 3), generator=_gen(20))
    assert V1.shape == (2, 3, 20, 5) and torch.equal(V1, V2)
    check_embeddings(V1)
    th, tt = sample_init(5, batch_shape=(4,), generator=_gen(21))
    assert th.shape == (4, 5) and torch.equal(tt, -th)
    _close_vec(th.norm(dim=-1), torch.ones(4, dtype=F64), "unit theta0")
    assert sample_embeddings(3, 2, dtype=torch.float32).dtype == torch.float32


def test_default_lr_formula():
    assert default_lr(100, 16) == pytest.approx(10 * 100 ** 2 * 4 * math.log(100), rel=NAMED["float64_few_roundings"].rtol)
    assert default_lr(1000, 32, c=2.5) == pytest.approx(2.5 * 1e6 * math.sqrt(32) * math.log(1000),
                                                        rel=NAMED["float64_few_roundings"].rtol)


def test_one_step_with_scalar_and_batched_lr():
    V = sample_embeddings(10, 4, batch_shape=(3,), generator=_gen(22))
    th, tt = sample_init(4, batch_shape=(3,), generator=_gen(23))
    g, gt = population_grad(V, th, tt, (0, 7))
    lr = torch.tensor([0.0, 1.0, 250.0], dtype=F64)
    t1, tt1 = one_step(V, th, tt, (0, 7), lr)
    _close_vec(t1, th - lr[:, None] * g, "theta_1")
    _close_vec(tt1, tt - lr[:, None] * gt, "theta~_1")
    assert torch.equal(t1[0], th[0])
    s1, _ = one_step(V, th, tt, (0, 7), 250.0)
    _close_vec(s1[2], t1[2], "scalar lr")


def test_limit_step_is_the_large_lr_limit_and_splits_ties():
    d, m = 30, 6
    V = sample_embeddings(d, m, batch_shape=(8,), generator=_gen(24))
    th, tt = sample_init(m, batch_shape=(8,), generator=_gen(25))
    lim, limt = limit_step_attention(V, th, tt, (4, 11))
    t1, tt1 = one_step(V, th, tt, (4, 11), 1e6 * default_lr(d, m))
    _close_vec(attention_weights(V, t1), lim, "eta -> inf, head 1", scale=1e-3)
    _close_vec(attention_weights(V, tt1), limt, "eta -> inf, head 2", scale=1e-3)
    erf1, _ = limit_step_attention(V, th, tt, (4, 11), "erf")
    assert set(torch.unique(erf1 * d).tolist()) <= {-1.0, 0.0, 1.0}
    # exact ties split evenly: rows 0 and 1 identical, so s_0 = s_1 exactly (head 1 of this
    # seed ranks them first)
    Vt = sample_embeddings(6, 3, generator=_gen(1))
    Vt[1] = Vt[0]
    tie, _ = limit_step_attention(Vt, *sample_init(3, generator=_gen(51)), (0, 4))
    assert tie.tolist() == [0.5, 0.5, 0.0, 0.0, 0.0, 0.0]


# --------------------------------------------------------------------------- step metrics


def _peaked(d, a, b, gap):
    """V = I (unit rows), heads with logit gap `gap` on positions a and b."""
    V = torch.eye(d, dtype=F64)
    return V, gap * V[a], gap * V[b]


def test_step_metrics_on_a_solution_and_its_swap():
    d = 8
    V, th, tt = _peaked(d, 2, 5, 40.0)
    eps_exact = (d - 1) * math.exp(-40.0) / (1 + (d - 1) * math.exp(-40.0))
    for support, sign in (((2, 5), 1), ((5, 2), -1)):
        M = step_metrics(V, th, tt, support)
        assert int(M["assignment"]) == sign and bool(M["success"])
        assert_close(float(M["eps1"]), eps_exact, scale=0.0, what="eps1 (tiny, exact)")
        assert_close(float(M["eps2"]), eps_exact, scale=0.0, what="eps2")
        assert_close(float(M["sup_bound"]), 4 * eps_exact + 4 * eps_exact ** 2, scale=0.0,
                     what="sup bound")
        assert 0 < float(M["sup_exact"]) <= float(M["sup_bound"])
    M = step_metrics(V, 0.05 * th, tt, (2, 5))          # head 1: gamma_a = e^2/(e^2 + 7) < 0.99
    assert not bool(M["success"])


def test_exact_sup_against_enumeration():
    """Away from a solution: plain float64 enumeration. Near one: 50-digit enumeration."""
    d, m = 8, 5
    V = sample_embeddings(d, m, batch_shape=(4,), generator=_gen(26))
    th = torch.randn(4, m, generator=_gen(27), dtype=F64)
    tt = torch.randn(4, m, generator=_gen(28), dtype=F64)
    X = _cube(d)
    for att in ATTENTIONS:
        M = step_metrics(V, th, tt, (3, 6), attention=att)
        g1, g2 = attention_weights(V, th, att), attention_weights(V, tt, att)
        brute = ((X @ g1.mT) * (X @ g2.mT) - (X[:, 3] * X[:, 6])[:, None]).abs().amax(0)
        _close_vec(M["sup_exact"], brute, f"sup {att}")
        assert bool((M["sup_exact"] <= M["sup_bound"] * (1 + tolerance().rtol)).all())
    # near a solution (post-step): mpmath enumeration from the exact inputs
    d, m = 6, 4
    V = sample_embeddings(d, m, generator=_gen(30))
    th, tt = sample_init(m, generator=_gen(31))        # a successful step: sup ~ 2e-49
    th1, tt1 = one_step(V, th, tt, (0, 4), default_lr(d, m))
    M = step_metrics(V, th1, tt1, (0, 4))
    assert bool(M["success"]) and float(M["sup_exact"]) < 1e-40
    with mpmath.workdps(120):     # f - y cancels ~50 digits here
        def gam(t):
            z = [mpmath.fsum(mpmath.mpf(float(V[i, k])) * mpmath.mpf(float(t[k]))
                             for k in range(m)) for i in range(d)]
            e = [mpmath.exp(x - max(z)) for x in z]
            return [x / mpmath.fsum(e) for x in e]
        g1, g2 = gam(th1), gam(tt1)
        sup = max(abs(-mpmath.fsum(p * q for p, q in zip(g1, x)) * mpmath.fsum(p * q for p, q in zip(g2, x))
                      + x[0] * x[4]) for x in itertools.product([-1, 1], repeat=d))
    assert_close(float(M["sup_exact"]), float(sup), scale=0.0, what="exact sup near a solution")


def test_exact_sup_switches():
    V, th, tt = _peaked(21, 0, 1, 30.0)
    assert "sup_exact" not in step_metrics(V, th, tt, (0, 1))
    with raises_input_error("exact_sup", "exact_sup=True needs d <= 20"):
        step_metrics(V, th, tt, (0, 1), exact_sup=True)
    V, th, tt = _peaked(6, 0, 1, 30.0)
    assert "sup_exact" not in step_metrics(V, th, tt, (0, 1), exact_sup=False)
    assert "sup_exact" in step_metrics(V, th, tt, (0, 1))


def test_float32_runs_and_keeps_dtype():
    V = sample_embeddings(9, 4, generator=_gen(31), dtype=torch.float32)
    th, tt = sample_init(4, generator=_gen(32), dtype=torch.float32)
    assert population_loss(V, th, tt, (0, 1)).dtype == torch.float32
    assert population_grad(V, th, tt, (0, 1))[0].dtype == torch.float32
    M = step_metrics(V, th, tt, (0, 1))
    assert M["eps1"].dtype == torch.float32


# --------------------------------------------------------------------------- bad input


_V, _TH, _TT = xor_instance(5, 3, seed=33)


def _nan_at(t, index):
    t = t.clone()
    t[index] = math.nan
    return t


# (arguments of a model function, name of the argument the message must start with)
BAD_MODEL_ARGS = [
    ((_V[:1], _TH, _TT, (0, 1)), "V"),
    ((_V[:, :0], _TH[:0], _TT[:0], (0, 1)), "V"),
    ((_V, _TH, _TT, (2, 2)), "support"),
    ((_V, _TH, _TT, (0, 5)), "support"),
    ((_V, _TH, _TT, (-1, 2)), "support"),
    ((_V, _TH, _TT, (0, 1, 2)), "support"),
    ((_V, _TH, _TT, (0.0, 1)), "support"),
    ((_V, _TH, _TT, (True, 0)), "support"),
    ((_V, _TH, _TT, 3), "support"),
    ((_V, _nan_at(_TH, 1), _TT, (0, 1)), "theta"),
    ((_nan_at(_V, (3, 0)), _TH, _TT, (0, 1)), "V"),
    ((_V, _TH[:2], _TT, (0, 1)), "theta"),
    ((_V, _TH, _TT.float(), (0, 1)), "theta_tilde"),
    ((_V.int(), _TH, _TT, (0, 1)), "V"),
    ((_V.expand(2, 5, 3), _TH.expand(3, 3), _TT, (0, 1)), "theta"),
    ((_V, _TH, _TT, (0, 1), {"attention": "relu"}), "attention"),
    ((_V[0], _TH, _TT, (0, 1)), "V"),
]


@pytest.mark.parametrize("fn", [population_loss, population_grad, step_metrics,
                                limit_step_attention])
@pytest.mark.parametrize("args,name", BAD_MODEL_ARGS,
                         ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_MODEL_ARGS)])
def test_bad_model_inputs(fn, args, name):
    kw = args[-1] if isinstance(args[-1], dict) else {}
    with raises_input_error(name):
        fn(*args[:4], **kw)


_X, _Y = sample_data(10, 5, (0, 1), generator=_gen(35))
_VB = sample_embeddings(10, 4, batch_shape=(4,), generator=_gen(22))
_THB, _TTB = sample_init(4, batch_shape=(4,), generator=_gen(23))

# (call, name of the argument the message must start with); each call is wrong in one argument
BAD_CALLS = [
    *[(lambda lr=lr: one_step(_V.expand(2, 5, 3), _TH, _TT, (0, 1), lr), "lr")
      for lr in (-1.0, math.nan, "1", torch.tensor([1.0, -2.0], dtype=F64), torch.ones(4, dtype=F64))],
    (lambda: one_step(_VB, _THB, _TTB, (0, 7), torch.ones(4, 1, dtype=F64)), "lr"),
    (lambda: sample_embeddings(1, 3), "d"),
    (lambda: sample_init(0), "m"),
    (lambda: sample_embeddings(4, 2.5), "m"),
    (lambda: sample_embeddings(4, 2, dtype=torch.int64), "dtype"),
    (lambda: sample_init(3, batch_shape=5), "batch_shape"),
    (lambda: sample_data(0, 4, (0, 1)), "n"),
    (lambda: sample_data(3, 4, (1, 1)), "support"),
    (lambda: default_lr(10, 2, c=0.0), "c"),
    (lambda: check_embeddings(_V * 1.001), "V"),
    (lambda: step_metrics(_V, _TH, _TT, (0, 1), eps=0.7), "eps"),
    (lambda: step_metrics(_V, _TH, _TT, (0, 1), exact_sup="yes"), "exact_sup"),
    (lambda: limit_step_attention(_V, _TH, _TT, (0, 1), "linear"), "attention"),
    (lambda: empirical_loss(_V, _TH, _TT, _X * 0.5, _Y), "X"),
    (lambda: empirical_grad(_V, _TH, _TT, _X, _Y[:9]), "y"),
    (lambda: empirical_loss(_V, _TH, _TT, _X[:, :4], _Y), "X"),
    (lambda: empirical_loss(_V, _TH, _TT, _X, _Y * math.inf), "y"),
    (lambda: empirical_loss(_V, _TH, _TT, _X.float(), _Y), "X"),
]


@pytest.mark.parametrize("call,name", BAD_CALLS, ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_CALLS)])
def test_bad_step_sampling_and_empirical_inputs(call, name):
    with raises_input_error(name):
        call()


def test_an_lr_of_shape_one_broadcasts():
    t1, _ = one_step(_VB, _THB, _TTB, (0, 7), torch.ones(1, dtype=F64))
    assert t1.shape == _THB.shape


@pytest.mark.parametrize("attention", ["linear", "erf"])
def test_step_metrics_at_theta_zero_are_finite(attention):
    V = sample_embeddings(6, 3, generator=_gen(3))
    z = torch.zeros(3, dtype=F64)
    M = step_metrics(V, z, z, (1, 4), attention=attention)
    for k in ("eps1", "eps2", "sup_bound", "loss", "sup_exact"):
        assert bool(torch.isfinite(M[k]).all()), k
    assert not bool(M["success"])
