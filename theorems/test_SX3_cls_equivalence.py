"""SX-3: the standard one-layer two-head CLS-token transformer equals the two-head model,
forward and for one gradient step on W_Q (learning rate scaled by |c|^2 W_K^T W_K), as formalised
in boolverify. Checked symbolically (sympy, exact) and numerically (torch float64)."""

import pytest
import torch

from numeric import attention_weights, xor
from numeric.xor import CLSTransformer, all_inputs, cls_population_loss, cls_step
from verify.common.tolerances import NAMED, assert_close
from verify.stats.decisions import exact
from verify.symbolic.cls_identity import prove_cls_identity

pytestmark = pytest.mark.claim("SX-3")


@pytest.mark.parametrize("k,m,p", [(2, 2, 3), (3, 2, 2)])
def test_sympy_identity(k, m, p, evidence):
    r = prove_cls_identity(k=k, m=m, p=p)
    nonzero = [e for e in list(r.step_residual) + list(r.identity_case_residual) if e != 0]
    evidence[f"nonzero_residuals_k{k}_m{m}_p{p}"] = len(nonzero)
    evidence["forward_residual"] = str(r.forward_residual)
    assert r.forward_residual == 0
    assert r.value_residual == 0
    assert nonzero == []
    assert r.holds


def _instance(d, m, k, seed, identity_keys=False):
    g = torch.Generator().manual_seed(seed)
    V = xor.sample_embeddings(d, m, generator=g)
    WQ = torch.randn(2, k, m + 1, generator=g, dtype=torch.float64)
    if identity_keys:
        WK = torch.zeros(2, m, m + 1, dtype=torch.float64)
        WK[:, :, 1:] = torch.eye(m, dtype=torch.float64)
    else:
        WK = torch.randn(2, k, m + 1, generator=g, dtype=torch.float64)
    c = torch.randn(m + 1, generator=g, dtype=torch.float64)
    return V, CLSTransformer(V, WQ, WK, c)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forward_equals_two_head_model(seed, evidence):
    d, m, k = 8, 4, 3
    V, model = _instance(d, m, k, seed)
    theta = model.theta().detach()
    X = all_inputs(d)
    gam = attention_weights(V, theta[0])
    gam_t = attention_weights(V, theta[1])
    f_model = -(X @ gam) * (X @ gam_t)
    with torch.no_grad():
        f_tf = model(X)
    err = float((f_tf - f_model).abs().max())
    evidence["max_abs_err_forward"] = err
    for u, v in zip(f_tf.tolist(), f_model.tolist()):
        assert_close(u, v, scale=1.0, what="CLS transformer output vs two-head model")
    evidence.decide(exact("max |CLS transformer - two-head model| over all 2^8 inputs", err,
                          "pass iff <= 1e-12", err <= NAMED["float64_short_sum"].atol))
    support = (2, 5)
    with torch.no_grad():
        L_tf = float(cls_population_loss(model, support))
    L_model = float(xor.population_loss(V, theta[0], theta[1], support))
    evidence["loss_tf"], evidence["loss_model"] = L_tf, L_model
    assert_close(L_tf, L_model, scale=1.0, what="population loss")


@pytest.mark.parametrize("identity_keys", [False, True])
def test_one_step_equals_scaled_theta_step(identity_keys, evidence):
    d, m, k = 8, 4, 3
    support = (1, 6)
    V, model = _instance(d, m, m if identity_keys else k, 11, identity_keys=identity_keys)
    lr = 0.37
    th0, th1 = cls_step(model, support, lr)
    gth, gtt = xor.population_grad(V, th0[0], th0[1], support)
    if identity_keys:
        c2 = float(model.cls @ model.cls)
        exp0, exp1 = xor.one_step(V, th0[0], th0[1], support, lr * c2)
    else:
        S = model.lr_matrix()
        exp0 = th0[0] - lr * S[0] @ gth
        exp1 = th0[1] - lr * S[1] @ gtt
    expected = torch.stack([exp0, exp1])
    move = float((th1 - th0).abs().max())
    err = float((th1 - expected).abs().max())
    evidence["max_abs_err_theta_after_step"] = err
    evidence["max_theta_move"] = move
    assert move > 1e-3  # the step really moves theta, so the comparison is not vacuous
    scale = float(th1.abs().max())
    for u, v in zip(th1.flatten().tolist(), expected.flatten().tolist()):
        assert_close(u, v, scale=scale, what="theta after a W_Q step vs scaled theta step")
