"""Attention maps (softmax in log-sum-exp form, linear, erf) and their Jacobian products."""

import math

import pytest
import torch

from numeric.attention import (ATTENTIONS, attention_jvp, attention_map, attention_vjp,
                               attention_weights, logits, map_jvp, map_vjp)
from verify import InputError
from verify.common.tolerances import assert_close


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _close_tensors(x, y, what, dtype=torch.float64):
    scale = float(y.abs().max()) if y.numel() else 1.0
    for a, b in zip(x.flatten().tolist(), y.flatten().tolist()):
        assert_close(a, b, dtype=dtype, scale=scale, what=what)


def test_maps_match_their_definitions():
    z = torch.randn(3, 7, generator=_gen(), dtype=torch.float64) * 3
    _close_tensors(attention_map(z, "softmax"), torch.softmax(z, -1), "softmax")
    _close_tensors(attention_map(z, "linear"), z / 7, "linear")
    _close_tensors(attention_map(z, "erf"), torch.erf(z) / 7, "erf")
    s = attention_map(z, "softmax").sum(-1)
    _close_tensors(s, torch.ones(3, dtype=torch.float64), "softmax sums to 1")


@pytest.mark.parametrize("scale", [1e3, 1e8])
def test_softmax_is_finite_and_exact_for_huge_logits(scale):
    import mpmath

    z = torch.tensor([1.0, 0.5, -1.0, 0.999], dtype=torch.float64) * scale
    g = attention_map(z, "softmax")
    with mpmath.workdps(50):
        e = [mpmath.exp(mpmath.mpf(float(x)) - mpmath.mpf(float(z.max()))) for x in z]
        ref = [float(x / mpmath.fsum(e)) for x in e]
    for i in range(4):
        assert_close(float(g[i]), ref[i], what=f"softmax[{i}] at scale {scale:g}")
    # the naive form overflows: exp(z) = inf, inf / inf = nan
    assert bool(torch.isnan(torch.exp(z) / torch.exp(z).sum()).any())
    for att in ATTENTIONS:
        assert bool(torch.isfinite(attention_map(z, att)).all())


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_map_jvp_and_vjp_equal_the_jacobian(attention):
    z = torch.randn(5, generator=_gen(1), dtype=torch.float64)
    dz = torch.randn(5, generator=_gen(2), dtype=torch.float64)
    J = torch.autograd.functional.jacobian(lambda x: attention_map(x, attention), z)
    _close_tensors(map_jvp(z, dz, attention), J @ dz, f"{attention} jvp")
    _close_tensors(map_vjp(z, dz, attention), J.T @ dz, f"{attention} vjp")
    # SPEC §2 table: softmax (diag g - g g^T), linear I/d, erf diag(2/sqrt(pi) e^{-z^2})/d
    g = torch.softmax(z, -1)
    expected = {"softmax": torch.diag(g) - torch.outer(g, g), "linear": torch.eye(5, dtype=torch.float64) / 5,
                "erf": torch.diag(2 / math.sqrt(math.pi) * torch.exp(-z * z)) / 5}[attention]
    _close_tensors(J, expected.double(), f"{attention} Jacobian")


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_theta_jvp_vjp_match_autograd_batched(attention):
    g = _gen(3)
    V = torch.randn(2, 6, 4, generator=g, dtype=torch.float64)
    th = torch.randn(2, 4, generator=g, dtype=torch.float64)
    t = torch.randn(2, 4, generator=g, dtype=torch.float64)
    cot = torch.randn(2, 6, generator=g, dtype=torch.float64)
    jvp = attention_jvp(V, th, t, attention)
    vjp = attention_vjp(V, th, cot, attention)
    assert jvp.shape == (2, 6) and vjp.shape == (2, 4)
    for i in range(2):
        J = torch.autograd.functional.jacobian(
            lambda x: attention_weights(V[i], x, attention), th[i])      # (d, m)
        _close_tensors(jvp[i], J @ t[i], f"{attention} jvp[{i}]")
        _close_tensors(vjp[i], J.T @ cot[i], f"{attention} vjp[{i}]")


def test_batch_broadcasting_and_logits():
    g = _gen(4)
    V = torch.randn(5, 3, generator=g, dtype=torch.float64)
    th = torch.randn(4, 2, 3, generator=g, dtype=torch.float64)
    w = attention_weights(V, th)
    assert w.shape == (4, 2, 5)
    _close_tensors(w[3, 1], attention_weights(V, th[3, 1]), "broadcast V")
    _close_tensors(logits(V, th[0, 0]), V @ th[0, 0], "logits")
    Vb = V.expand(4, 2, 5, 3)
    _close_tensors(attention_weights(Vb, th[0, 0]), w[0, 0].expand(4, 2, 5), "broadcast theta")


def test_float32_is_kept():
    V = torch.randn(4, 2, generator=_gen(5))
    th = torch.randn(2, generator=_gen(6))
    assert attention_weights(V, th).dtype == torch.float32


def test_bad_inputs_raise_input_error():
    V = torch.randn(4, 3, dtype=torch.float64)
    th = torch.randn(3, dtype=torch.float64)
    with pytest.raises(InputError, match="attention must be one of"):
        attention_weights(V, th, "relu")
    with pytest.raises(InputError, match="theta has last dimension 2 but V has m = 3"):
        attention_weights(V, th[:2])
    with pytest.raises(InputError, match="must be a torch.Tensor"):
        attention_weights(V.tolist(), th)
    with pytest.raises(InputError, match="dtype float64 or float32"):
        attention_weights(V.long(), th)
    with pytest.raises(InputError, match="theta has dtype torch.float32 but V has torch.float64"):
        attention_weights(V, th.float())
    with pytest.raises(InputError, match="theta contains NaN or inf"):
        attention_weights(V, torch.tensor([0.0, math.nan, 1.0], dtype=torch.float64))
    Vbad = V.clone()
    Vbad[2, 1] = math.inf
    with pytest.raises(InputError, match="NaN/inf"):
        attention_weights(Vbad, th)
    with pytest.raises(InputError, match="do not broadcast"):
        attention_weights(torch.randn(2, 4, 3, dtype=torch.float64),
                          torch.randn(3, 3, dtype=torch.float64))
    with pytest.raises(InputError, match="g has last dimension 5; expected d = 4"):
        attention_vjp(V, th, torch.ones(5, dtype=torch.float64))
    with pytest.raises(InputError, match="at least 2 dimension"):
        attention_weights(th, th)


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_non_finite_logits_and_tangents_raise(attention):
    bad = torch.tensor([1.0, math.inf, math.nan], dtype=torch.float64)
    ok = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
    with pytest.raises(InputError, match="z contains NaN or inf"):
        attention_map(bad, attention)
    with pytest.raises(InputError, match="z contains NaN or inf"):
        map_jvp(bad, ok, attention)
    with pytest.raises(InputError, match="z contains NaN or inf"):
        map_vjp(bad, ok, attention)
    with pytest.raises(InputError, match="dz contains NaN or inf"):
        map_jvp(ok, bad, attention)
    with pytest.raises(InputError, match="g contains NaN or inf"):
        map_vjp(ok, bad, attention)
