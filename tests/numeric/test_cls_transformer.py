"""numeric.xor._cls: masks, shapes, bad input, and agreement with the two-head model."""


import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from numeric import attention_weights, xor
from numeric.xor._cls import CLSTransformer, all_inputs, cls_population_loss, cls_step
from verify.common.tolerances import assert_close
from tests.helpers import raises_input_error


def _model(d=6, m=3, k=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    V = xor.sample_embeddings(d, m, generator=g)
    WQ = torch.randn(2, k, m + 1, generator=g, dtype=torch.float64)
    WK = torch.randn(2, k, m + 1, generator=g, dtype=torch.float64)
    c = torch.randn(m + 1, generator=g, dtype=torch.float64)
    return V, WQ, WK, c


def test_masks_make_content_keys_and_position_values_irrelevant():
    V, WQ, WK, c = _model()
    X = all_inputs(6)
    base = CLSTransformer(V, WQ, WK, c)(X)
    WK2 = WK.clone()
    WK2[:, :, 0] += 5.0  # content column of the keys: masked
    WV2 = torch.zeros(2, 4, dtype=torch.float64)
    WV2[:, 0] = 1.0
    WV2[:, 1:] = 3.0  # position columns of the values: masked
    other = CLSTransformer(V, WQ, WK2, c, W_V=WV2)(X)
    assert torch.equal(base, other)


def test_cls_does_not_attend_to_itself():
    V, WQ, WK, c = _model()
    m = CLSTransformer(V, WQ, WK, c)
    # Changing the CLS content entry changes its query but not what it reads: a value of the
    # CLS row would enter the output if the CLS attended to itself.
    X = all_inputs(6)
    attn = m.attention()
    f = -(X @ attn[0]) * (X @ attn[1])
    with torch.no_grad():
        err = float((m(X) - f).abs().max())
    assert_close(err, 0.0, what="output vs attention readout")


@given(st.integers(2, 7), st.integers(1, 4), st.integers(1, 4), st.integers(0, 10_000))
def test_forward_matches_two_head_model(d, m, k, seed):
    V, WQ, WK, c = _model(d, m, k, seed)
    model = CLSTransformer(V, WQ, WK, c)
    th = model.theta().detach()
    X = all_inputs(d)
    f = -(X @ attention_weights(V, th[0])) * (X @ attention_weights(V, th[1]))
    with torch.no_grad():
        out = model(X)
    for u, v in zip(out.tolist(), f.tolist()):
        assert_close(u, v, what="CLS transformer vs two-head model")


def test_step_changes_only_through_theta_and_lr_matrix():
    V, WQ, WK, c = _model(5, 2, 3, 4)
    model = CLSTransformer(V, WQ, WK, c)
    S = model.lr_matrix()
    assert S.shape == (2, 2, 2)
    assert torch.allclose(S, S.transpose(-1, -2))
    th0, th1 = cls_step(model, (0, 3), 0.1)
    assert not torch.equal(th0, th1)
    with torch.no_grad():
        L = cls_population_loss(model, (0, 3))
    assert_close(float(L), float(xor.population_loss(V, th1[0], th1[1], (0, 3))), what="loss after step")


def _build(**bad):
    V, WQ, WK, c = _model(6, 3, 2)
    kw = {**dict(V=V, WQ=WQ, WK=WK, c=c, W_V=None), **bad}
    return CLSTransformer(kw["V"], kw["WQ"], kw["WK"], kw["c"], W_V=kw["W_V"])


# (call, name of the argument the message must start with); each call is wrong in one argument
BAD_CLS_CALLS = [
    (lambda: _build(V=torch.ones(1, 3)), "V"),
    (lambda: _build(V=_model(6, 3, 2)[0].round().to(torch.int64)), "V"),
    (lambda: _build(WQ=torch.ones(3, 2, 4)), "W_Q"),
    (lambda: _build(WK=torch.ones(2, 3, 4)), "W_K"),
    (lambda: _build(c=torch.ones(3)), "cls"),
    (lambda: _build(c=torch.tensor([1.0, float("nan"), 0.0, 0.0])), "cls"),
    (lambda: _build(W_V=torch.ones(2, 3)), "W_V"),
    (lambda: _build()(torch.ones(4, 5)), "X"),
    (lambda: cls_population_loss(_build(), (2, 2)), "support"),
    (lambda: cls_population_loss(_build(), (0, 6)), "support"),
    (lambda: cls_population_loss(_build(), (0.7, 1.9)), "support"),
    (lambda: cls_population_loss(_build(), (True, 2)), "support"),
    (lambda: cls_population_loss(_build(), (0, False)), "support"),
    (lambda: cls_step(_build(), (0, 1), -1.0), "lr"),
    (lambda: all_inputs(17), "d"),
]


@pytest.mark.parametrize("call,name", BAD_CLS_CALLS, ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_CLS_CALLS)])
def test_bad_input_names_the_argument(call, name):
    with raises_input_error(name):
        call()


def test_factory_tensors_follow_the_model_dtype_and_device():
    V, WQ, WK, c = _model(6, 3, 2)
    model = CLSTransformer(V.float(), WQ, WK, c)
    for name in ("V", "W_K", "W_V", "cls", "attn_mask"):
        assert getattr(model, name).device == V.device
    assert model.W_V.dtype == model.W_K.dtype == torch.float32
    assert model.W_V.tolist() == [[1.0, 0.0, 0.0, 0.0]] * 2
    X = all_inputs(6, torch.float32, device=V.device)
    assert X.dtype == torch.float32 and X.device == V.device
    assert model(X).dtype == torch.float32
    assert model.tokens(X.double()).dtype == torch.float32
