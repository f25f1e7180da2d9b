"""Unit and property tests of the paper-B transformer (numeric.transformer, numeric.transformer._eval)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from numeric.transformer import (
    SCHEMES, BooleanTransformer, TransformerConfig, boolean_table, evaluate_all,
    evaluate_all_blowup, initialize_, margin_recognition, max_influence, model_profile,
    random_model,
)
from numeric.transformer._eval import strings
from numeric.validation import InputError
from verify.common.tolerances import assert_close, tolerance
from tests.helpers import raises_input_error




# -- an independent reference: one string at a time, numpy, explicit formulas -----------
def _np(p):
    return p.detach().cpu().double().numpy()


def reference_forward(model: BooleanTransformer, bits):
    """T(x) and the list of z vectors (one per LN application, all positions)."""
    cfg = model.config
    D, H = cfg.D, cfg.H
    dh = D // H
    tokens = list(bits) + [2]
    n = len(tokens)
    h = np.stack([_np(model.tok)[t] + _np(model.pos)[i] for i, t in enumerate(tokens)])
    zs = []

    def ln(u, g, b):
        out = np.empty_like(u)
        z = np.empty(u.shape[0])
        for i in range(u.shape[0]):
            mu = u[i].sum() / D
            var = ((u[i] - mu) ** 2).sum() / D
            z[i] = 1.0 / math.sqrt(var + cfg.eps)
            out[i] = g * (u[i] - mu) * z[i] + b
        return out, z

    for lay in model.layers:
        Q = h @ _np(lay.q.weight).T + _np(lay.q.bias)
        K = h @ _np(lay.k.weight).T + _np(lay.k.bias)
        V = h @ _np(lay.v.weight).T + _np(lay.v.bias)
        heads = []
        for j in range(H):
            sl = slice(j * dh, (j + 1) * dh)
            s = Q[:, sl] @ K[:, sl].T / math.sqrt(dh)
            s = s - s.max(axis=1, keepdims=True)
            a = np.exp(s)
            a = a / a.sum(axis=1, keepdims=True)
            heads.append(a @ V[:, sl])
        mha = np.concatenate(heads, axis=1) @ _np(lay.o.weight).T + _np(lay.o.bias)
        h, z = ln(h + mha, _np(lay.ln1.gain), _np(lay.ln1.bias))
        zs.append(z)
        hidden = np.maximum(h @ _np(lay.fc1.weight).T + _np(lay.fc1.bias), 0.0)
        mlp = hidden @ _np(lay.fc2.weight).T + _np(lay.fc2.bias)
        h, z = ln(h + mlp, _np(lay.ln2.gain), _np(lay.ln2.bias))
        zs.append(z)
    T = float(h[n - 1] @ _np(model.out.weight)[0] + _np(model.out.bias)[0])
    return T, zs, h


configs = st.builds(
    lambda D_h, H, L, eps, N: (TransformerConfig(D=D_h * H, L=L, H=H, eps=eps, N_max=12), N),
    D_h=st.integers(2, 6), H=st.integers(1, 3), L=st.integers(1, 3),
    eps=st.sampled_from([0.0, 1e-5, 0.1, 1.0]), N=st.integers(1, 12),
)


@settings(max_examples=30)
@given(cfgN=configs, scheme=st.sampled_from(SCHEMES), seed=st.integers(0, 2**31 - 1))
def test_forward_matches_reference(cfgN, scheme, seed):
    cfg, N = cfgN
    model = random_model(cfg, scheme, seed)
    gen = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 2, (3, N), generator=gen)
    with torch.no_grad():
        T = model(x)
        T_full, beta = model(x, return_blowup=True)
        detail = model.blowup(x)
    for i in range(3):
        T_ref, zs, h = reference_forward(model, x[i].tolist())
        scale = max(1.0, float(np.abs(h).max()) * float(model.out.weight.detach().abs().sum())
                    + abs(float(model.out.bias.detach()[0])))
        assert_close(T[i], T_ref, scale=scale, what="T (eos-only last layer)")
        assert_close(T_full[i], T_ref, scale=scale, what="T (full last layer)")
        beta_ref = math.prod(1 + float(z.max()) for z in zs)
        assert_close(beta[i], beta_ref, what="beta")
        for a in range(cfg.n_ln):
            for n in range(N + 1):
                assert_close(detail["z"][i, a, n], zs[a][n], what=f"z[{a},{n}]")
    assert detail["z"].shape == (3, cfg.n_ln, N + 1)
    assert torch.equal(detail["beta"], beta)


def test_batch_shapes_and_leading_dims():
    model = random_model(TransformerConfig(D=8, L=1, H=2, N_max=5), "gaussian", 3)
    x = torch.randint(0, 2, (2, 3, 5))
    T = model(x)
    assert T.shape == (2, 3)
    T1 = model(x[1, 2])
    assert T1.shape == ()
    assert_close(T1, T[1, 2], what="single vs batched")


def test_evaluate_all_order_and_chunking():
    model = random_model(TransformerConfig(D=8, L=2, H=2, N_max=8), "uniform", 5)
    N = 7
    T = evaluate_all(model, N, chunk=4096)
    T_small = evaluate_all(model, N, chunk=13)
    assert T.shape == (2**N,)
    for i in (0, 1, 2, 77, 127):
        bits = [(i >> n) & 1 for n in range(N)]
        assert_close(T[i], reference_forward(model, bits)[0], scale=10.0, what=f"T[{i}]")
    assert torch.allclose(T, T_small, rtol=tolerance().rtol, atol=0)
    tab = boolean_table(model, N)
    assert torch.equal(tab, (T > 0).long())
    T2, beta = evaluate_all_blowup(model, N, chunk=50)
    assert torch.allclose(T, T2, rtol=tolerance().rtol, atol=tolerance().atol)
    assert (beta > 1).all()


def test_model_profile_equals_flip_by_flip_evaluation():
    """The table-lookup profile equals evaluating every flip x ⊕ e_n separately."""
    model = random_model(TransformerConfig(D=8, L=2, H=2, N_max=8, eps=1e-3), "xavier_normal", 11)
    N = 6
    K = model_profile(model, N)
    x = strings(torch.arange(2**N), N)
    fx = (model(x) > 0)
    s = torch.zeros(2**N, dtype=torch.long)
    for n in range(N):
        xf = x.clone()
        xf[:, n] ^= 1
        s += (model(xf) > 0) != fx
    K_naive = torch.bincount(s, minlength=N + 1)
    assert K.tolist() == K_naive.tolist()
    assert int(K.sum()) == 2**N


def test_strings_bit_order():
    x = strings(torch.tensor([0, 1, 2, 5]), 3)
    assert x.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 1]]


# -- initialisations ---------------------------------------------------------------------
def test_uniform_box_on_all_parameters():
    model = random_model(TransformerConfig(D=8, L=2, H=2), "uniform", 0, B=0.3)
    for name, p in model.named_parameters():
        assert p.abs().max() <= 0.3, name
        assert p.numel() < 4 or p.std() > 0.05, name  # really drawn, not the default 0/1
    gains = torch.cat([lay.ln1.gain for lay in model.layers])
    assert gains.min() < 0 < gains.max()  # LN gains drawn from the box too


def test_gaussian_scale():
    model = random_model(TransformerConfig(D=16, L=2, H=2), "gaussian", 0, sigma=2.0)
    allp = torch.cat([p.detach().flatten() for p in model.parameters()])
    # n ~ 9000 draws: the sample std is within 5% of sigma with overwhelming probability
    assert abs(float(allp.std()) - 2.0) < 0.1
    assert abs(float(allp.mean())) < 0.1


@pytest.mark.parametrize("scheme", ["xavier_uniform", "xavier_normal"])
def test_xavier(scheme):
    model = random_model(TransformerConfig(D=16, L=1, H=2, F=64), scheme, 0)
    lay = model.layers[0]
    a = math.sqrt(6 / (16 + 64))
    if scheme == "xavier_uniform":
        assert lay.fc1.weight.abs().max() <= a
        assert lay.fc1.weight.abs().max() > 0.9 * a
    else:
        assert abs(float(lay.fc1.weight.detach().std()) - math.sqrt(2 / 80)) < 0.02
    assert torch.all(lay.ln1.gain == 1) and torch.all(lay.ln1.bias == 0)
    assert torch.all(lay.q.bias == 0) and torch.all(model.out.bias == 0)
    # embeddings use fans (D, D): variance 1/D whatever N_max
    if scheme == "xavier_uniform":
        assert model.pos.abs().max() <= math.sqrt(6 / 32)
    else:
        assert abs(float(model.pos.detach().std()) - math.sqrt(1 / 16)) < 0.03


def test_seed_reproducible_and_distinct():
    cfg = TransformerConfig(D=8, L=1, H=2)
    a, b, c = (random_model(cfg, "uniform", s) for s in (4, 4, 5))
    for (n, p), (_, q), (_, r) in zip(a.named_parameters(), b.named_parameters(), c.named_parameters()):
        assert torch.equal(p, q), n
        assert not torch.equal(p, r), n


# -- bad input ---------------------------------------------------------------------------
_SMALL = dict(D=4, L=1, H=1)


def _evaluate_all_on(N_max, N, **kw):
    return evaluate_all(random_model(TransformerConfig(**_SMALL, N_max=N_max), "uniform", 0), N, **kw)


def _forward(x):
    return random_model(TransformerConfig(**_SMALL, N_max=6), "uniform", 0)(x)


# (call, name of the argument the message must start with); each call is wrong in one argument
BAD_TRANSFORMER_CALLS = [
    (lambda: TransformerConfig(eps=-1e-3), "eps"),
    (lambda: TransformerConfig(eps=float("nan")), "eps"),
    (lambda: TransformerConfig(D=10, H=3), "H"),
    (lambda: TransformerConfig(L=0), "L"),
    (lambda: TransformerConfig(F=0), "F"),
    (lambda: TransformerConfig(N_max=0), "N_max"),
    (lambda: TransformerConfig(D=2.5), "D"),
    (lambda: TransformerConfig(D=1, H=1), "D"),
    (lambda: initialize_(BooleanTransformer(TransformerConfig(**_SMALL)), "kaiming"), "scheme"),
    (lambda: initialize_(BooleanTransformer(TransformerConfig(**_SMALL)), "uniform", B=0), "B"),
    (lambda: initialize_(BooleanTransformer(TransformerConfig(**_SMALL)), "gaussian",
                         sigma=float("inf")), "sigma"),
    (lambda: initialize_(torch.nn.Linear(2, 2), "uniform"), "model"),
    (lambda: random_model(None, "uniform", 1.5), "seed"),
    (lambda: _forward(torch.zeros(7, dtype=torch.long)), "x"),
    (lambda: _forward(torch.tensor([0, 2, 1])), "x"),
    (lambda: _forward(torch.tensor([0.0, float("nan")])), "x"),
    (lambda: _evaluate_all_on(6, 0), "N"),
    (lambda: _evaluate_all_on(6, 7), "N"),
    (lambda: _evaluate_all_on(40, 25), "N"),
    (lambda: _evaluate_all_on(6, 3, chunk=0), "chunk"),
]


@pytest.mark.parametrize("call,name", BAD_TRANSFORMER_CALLS,
                         ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_TRANSFORMER_CALLS)])
def test_bad_input_raises_input_error_naming_the_argument(call, name):
    with raises_input_error(name):
        call()


def test_limit_messages_say_which_limit():
    with raises_input_error("N", "enumeration limit"):
        _evaluate_all_on(40, 25)
    with raises_input_error("H", "divisible"):
        TransformerConfig(D=10, H=3)


def test_zero_variance_everywhere_names_first_layer_norm():
    model = BooleanTransformer(TransformerConfig(D=4, L=2, H=2, eps=0.0))
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    with pytest.raises(InputError, match=r"layer 1, attention layer norm, position 0 \(bit\)"):
        model(torch.tensor([1, 0, 1]))
    with pytest.raises(InputError, match="string index 0"):
        evaluate_all(model, 3)
    # eps > 0 makes the same parameters well defined (z = 1/sqrt(eps))
    model2 = BooleanTransformer(TransformerConfig(D=4, L=2, H=2, eps=0.25))
    model2.load_state_dict(model.state_dict())
    with torch.no_grad():
        T, beta = model2(torch.tensor([1, 0, 1]), return_blowup=True)
    assert float(T) == 0.0 and float(beta) == pytest.approx(3.0**4)


def test_zero_variance_at_one_position_and_mlp_layer_norm():
    # L = 2: layer 1 runs at every position (with L = 1 only eos is normalised unless the
    # blowup is requested, and a bit position cannot influence T through its own LN)
    cfg = TransformerConfig(D=4, L=2, H=1, eps=0.0, N_max=5)
    model = random_model(cfg, "uniform", 2)
    with torch.no_grad():
        # attention sublayer outputs 0, so the attention-LN input is the embedding E_t + P_n
        model.layers[0].o.weight.zero_()
        model.layers[0].o.bias.zero_()
        model.pos[3] = 0.7 - model.tok[0]  # constant vector at position 3 when bit 3 is 0
    x = torch.tensor([[1, 1, 0, 1], [1, 1, 0, 0]])  # string 0 fine, string 1 has bit 3 = 0
    with pytest.raises(InputError, match=r"layer 1, attention layer norm, position 3 \(bit\), batch element 1"):
        model(x)
    model(x[0])  # the other string is fine
    # MLP layer norm: gain 0 makes h1 constant, fc2 = const -> MLP-LN input constant
    cfg = TransformerConfig(D=4, L=1, H=1, eps=0.0, N_max=5)
    model2 = random_model(cfg, "uniform", 3)
    with torch.no_grad():
        lay = model2.layers[0]
        lay.fc2.weight.zero_()
        lay.fc2.bias.fill_(0.5)
        lay.ln1.gain.zero_()
        lay.ln1.bias.fill_(0.25)
    with pytest.raises(InputError, match=r"layer 1, MLP layer norm, position 4 \(eos\)"):
        model2(torch.tensor([1, 0, 1, 1]))  # eos-only shortcut reports position N
    with pytest.raises(InputError, match=r"layer 1, MLP layer norm, position 0 \(bit\)"):
        model2(torch.tensor([1, 0, 1, 1]), return_blowup=True)


# -- margin recognition and influence -----------------------------------------------------
def test_margin_recognition():
    r = margin_recognition(torch.tensor([0.5, -0.6, 0.7, -0.2]), 0.2)
    assert r["recognises"] and r["nonconstant"] and r["table"].tolist() == [1, 0, 1, 0]
    r = margin_recognition(torch.tensor([0.5, -0.1]), 0.2)
    assert not r["recognises"] and r["undecided"] == 1 and r["table"] is None
    r = margin_recognition(torch.tensor([0.5, 0.3]), 0.2)
    assert r["constant"] and not r["nonconstant"]
    with raises_input_error("xi"):
        margin_recognition(torch.tensor([1.0]), 0)
    with raises_input_error("T", "finite"):
        margin_recognition(torch.tensor([float("nan")]), 0.1)


def test_max_influence_matches_brute_force():
    model = random_model(TransformerConfig(D=8, L=2, H=2, eps=1e-2, N_max=10), "uniform", 1)
    N = 5
    # all strings sampled many times covers every x: the maximum is then the exact one
    inf = max_influence(model, N, samples=200, generator=torch.Generator().manual_seed(0))
    T = evaluate_all(model, N)
    idx = torch.arange(2**N)
    exact = max(float((T[idx ^ (1 << n)] - T).abs().max()) for n in range(N))
    assert_close(inf, exact, scale=float(T.abs().max()), what="max influence")
    with raises_input_error("samples"):
        max_influence(model, N, samples=0)


@pytest.mark.gpu
def test_cuda_matches_cpu():
    cfg = TransformerConfig(D=16, L=2, H=2, eps=0.0, N_max=12)
    cpu = random_model(cfg, "xavier_uniform", 7)
    gpu = random_model(cfg, "xavier_uniform", 7, device="cuda")
    T_cpu = evaluate_all(cpu, 10)
    T_gpu = evaluate_all(gpu, 10).cpu()
    tol = tolerance("float64", device="cuda")
    assert torch.allclose(T_gpu, T_cpu, rtol=tol.rtol, atol=tol.atol * float(T_cpu.abs().max()))


@pytest.mark.parametrize("kw", [dict(eps=True), dict(eps=False), dict(eps="0.1"),
                                dict(eps=float("nan")), dict(eps=-1e-3)])
def test_config_rejects_non_numeric_eps(kw):
    with raises_input_error("eps"):
        TransformerConfig(**kw)
