"""Attention maps (softmax in log-sum-exp form, linear, erf) and their Jacobian products."""

import math

import pytest
import torch

from numeric.xor._attention import (ATTENTIONS, attention_jvp, attention_map, attention_vjp,
                               attention_weights, logits, map_jvp, map_vjp)
from verify.common.tolerances import assert_close
from tests.helpers import raises_input_error


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
    # Jacobians (numeric.xor._attention docstring): softmax (diag g - g g^T), linear I/d,
    # erf diag(2/sqrt(pi) e^{-z^2})/d
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


_V = torch.randn(4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
_TH = torch.randn(3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
_NONFINITE = torch.tensor([1.0, math.inf, math.nan], dtype=torch.float64)
_OK = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)


def _with_inf(V):
    V = V.clone()
    V[2, 1] = math.inf
    return V


# (call, name of the argument the message must start with); each call is wrong in one argument
BAD_ATTENTION_CALLS = [
    (lambda: attention_weights(_V, _TH, "relu"), "attention"),
    (lambda: attention_weights(_V, _TH[:2]), "theta"),
    (lambda: attention_weights(_V.tolist(), _TH), "V"),
    (lambda: attention_weights(_V.long(), _TH), "V"),
    (lambda: attention_weights(_V, _TH.float()), "theta"),
    (lambda: attention_weights(_V, torch.tensor([0.0, math.nan, 1.0], dtype=torch.float64)), "theta"),
    (lambda: attention_weights(_with_inf(_V), _TH), "V @ theta"),
    (lambda: attention_weights(torch.randn(2, 4, 3, dtype=torch.float64),
                               torch.randn(3, 3, dtype=torch.float64)), "theta"),
    (lambda: attention_weights(_TH, _TH), "V"),
    (lambda: attention_vjp(_V, _TH, torch.ones(5, dtype=torch.float64)), "g"),
    (lambda: attention_map(_OK, "relu"), "attention"),
] + [
    (call, name)
    for att in ATTENTIONS
    for call, name in (
        (lambda att=att: attention_map(_NONFINITE, att), "z"),
        (lambda att=att: map_jvp(_NONFINITE, _OK, att), "z"),
        (lambda att=att: map_vjp(_NONFINITE, _OK, att), "z"),
        (lambda att=att: map_jvp(_OK, _NONFINITE, att), "dz"),
        (lambda att=att: map_vjp(_OK, _NONFINITE, att), "g"),
    )
]


@pytest.mark.parametrize("call,name", BAD_ATTENTION_CALLS,
                         ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_ATTENTION_CALLS)])
def test_bad_inputs_raise_input_error_naming_the_argument(call, name):
    with raises_input_error(name):
        call()
