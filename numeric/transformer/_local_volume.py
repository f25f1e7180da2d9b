r"""Local volume around a solution (as formalised in boolverify): the fraction of Gaussian
perturbations :math:`\theta^* + \sigma z`, :math:`z \sim \mathcal N(0, I_M)`, of a
:class:`~numeric.transformer.BooleanTransformer` that still compute its Boolean function
exactly on all :math:`2^N` strings, and the mean fraction of strings that keep their value.

:math:`z` covers every parameter of ``model.named_parameters()`` (embeddings, positions,
attention, MLP, readout, and, with ``include_ln=True``, the layer-norm gains and biases;
``include_ln=False`` keeps those at :math:`\theta^*`).

**Batched evaluation** (:func:`batched_outputs`): :math:`T(x)` of ``K`` models at once over all
:math:`2^N` strings, for models under the ``boolverify`` conventions (post-LN, linear readout,
float64; any ``D``, ``H``, ``F``, ``eps``, ``L``). A model of :math:`L \ge 2` layers (trained
solutions) runs every position of every string through the first :math:`L - 1` layers as batched
matrix products over (model, string) pairs, and the last layer at eos only. With :math:`L = 1`
only the eos row is needed after the attention, and position :math:`n`'s score and value take one of two values
(:math:`x_n = 0, 1`): the scores of all strings are
:math:`s_{n,0} + x_n (s_{n,1} - s_{n,0})`, the softmax is the max-subtracted one, and the
attention output is :math:`\sum_n a_n v_{n,0} + \sum_n a_n x_n (v_{n,1} - v_{n,0}) + a_{\mathrm{eos}} v_{\mathrm{eos}}`:
bit-matrix products per model and head, no ``D x D`` product per string. (Writing the output
as a ratio of sums affine in the bits is cheaper but cancels catastrophically when one
position's two scores are far apart; not used.) A string with a non-finite output, or an
exactly zero variance at ``eps = 0`` (where LN is undefined; probability 0 under a Gaussian
perturbation), counts as **not** keeping its value.
The Boolean tables agree with the model's own evaluation (tested); the real outputs agree up
to the order of floating-point sums.
"""

from __future__ import annotations

import math

import torch

from numeric.transformer._model import BooleanTransformer, check_transformer
from numeric.validation import check_bool, check_int, check_real, reject

#: A variance below this multiple of the mean square is checked for all-equal components (the
#: computed variance of equal components is at most a few ulps of their square).
_ROUNDING_VAR = 2.0 ** -40
#: Models per draw of directions, and at most per batched pass (bounds the ``(K, 2^N, F)``
#: temporaries).
DEFAULT_MODEL_CHUNK = 32
#: :func:`volume_point` evaluates at most this many (model, string) pairs per batched pass: at
#: long N a pass over fewer models stays in cache (one thread: 5x faster at N = 16 than 32
#: models per pass, the same at N <= 8).
EVAL_PAIRS = 1 << 14


def check_batchable(model) -> BooleanTransformer:
    """``model`` must be a :class:`BooleanTransformer` under the boolverify conventions (post-LN,
    linear readout) in float64, of any depth (what :func:`batched_outputs` evaluates)."""
    check_transformer(model)
    cfg = model.config
    if cfg.preset != "boolverify" or cfg.dtype != "float64":
        reject("model", f"<L = {cfg.L}, preset {cfg.preset}, {cfg.dtype}>",
               "a model under the boolverify conventions in float64 (the batched pass)")
    return model


def check_one_layer(model) -> BooleanTransformer:
    """:func:`check_batchable` and one layer (what the interval propagation of
    :mod:`numeric.transformer` encloses)."""
    check_batchable(model)
    if model.config.L != 1:
        reject("model", f"<L = {model.config.L}>", "a one-layer model (the certified interval pass)")
    return model


def parameter_names(model, include_ln: bool = True) -> list[str]:
    """The names of the perturbed parameters, in ``named_parameters`` order."""
    names = []
    for name, _ in model.named_parameters():
        is_ln = ".ln1." in name or ".ln2." in name or name.startswith("ln_f.")
        if include_ln or not is_ln:
            names.append(name)
    return names


def stacked_parameters(model, K: int) -> dict:
    """``{name: tensor (K, *shape)}``: ``K`` copies of the model's parameters (detached)."""
    return {name: p.detach().unsqueeze(0).expand(K, *p.shape).clone() for name, p in model.named_parameters()}


def perturbed_parameters(model, sigma: float, K: int, generator: torch.Generator, include_ln: bool = True) -> dict:
    r"""``K`` draws of :math:`\theta^* + \sigma z` as stacked parameters; :math:`z` drawn on the
    CPU from ``generator`` (float64), one ``(K, *shape)`` block per perturbed parameter in
    ``named_parameters`` order."""
    theta = stacked_parameters(model, K)
    for name in parameter_names(model, include_ln):
        z = torch.randn(theta[name].shape, generator=generator, dtype=torch.float64)
        theta[name] += sigma * z.to(theta[name].device)
    return theta


def perturbation_chunks(model, sigma: float, K: int, generator: torch.Generator, *, include_ln: bool = True,
                        chunk: int = DEFAULT_MODEL_CHUNK):
    r"""The ``K`` perturbations :math:`\theta^* + \sigma z_k` that :func:`volume_point` evaluates,
    as stacked parameters in chunks of at most ``chunk`` models, drawn chunk by chunk from one
    stream of ``generator`` (what the stream means does not depend on the machine): every
    :math:`z_k` a fresh draw."""
    for start in range(0, K, chunk):
        yield perturbed_parameters(model, sigma, min(chunk, K - start), generator, include_ln)


def _bits(N, dev):
    idx = torch.arange(1 << N, device=dev)
    return ((idx.unsqueeze(-1) >> torch.arange(N, device=dev)) & 1).to(torch.float64)


def _layer_norm(u, gain, bias, eps, dim=-1):
    """LN over axis ``dim`` of ``u`` (model axis first: (K, D, X) feature-major with ``dim=1``,
    (K, ..., D) with ``dim=-1``); ``gain``, ``bias`` (K, D)."""
    c = u - u.mean(dim, keepdim=True)
    var = (c * c).mean(dim, keepdim=True)
    if eps == 0.0 and bool((var <= _ROUNDING_VAR * (u * u).mean(dim, keepdim=True)).any()):
        # a variance at rounding level: undefined (NaN) where the components are all equal
        flat = (u == u.narrow(dim, 0, 1)).all(dim, keepdim=True) | (var == 0)
        var = torch.where(flat, torch.full_like(var, math.nan), var)
    shape = [1] * u.dim()
    shape[0], shape[dim] = gain.shape
    return gain.reshape(shape) * (c * torch.rsqrt(var + eps)) + bias.reshape(shape)


def _linear_fm(x, theta, name):
    """``W x + b`` for feature-major ``x`` (K, in, X)."""
    return torch.baddbmm(theta[name + ".bias"].unsqueeze(-1), theta[name + ".weight"], x)


def _linear(x, theta, name):
    # x (K, ..., in), weight (K, out, in), bias (K, out)
    W, b = theta[name + ".weight"], theta[name + ".bias"]
    shape = x.shape
    y = torch.bmm(x.reshape(shape[0], -1, shape[-1]), W.transpose(1, 2)) + b.unsqueeze(1)
    return y.reshape(*shape[:-1], W.shape[1])


def _one_layer_outputs(cfg, theta, N, X):
    """T (K, 2^N) of stacked parameters ``theta`` (one layer, post-LN)."""
    K = theta["tok"].shape[0]
    D, H = cfg.D, cfg.H
    dh = D // H
    n = N + 1
    tok, pos = theta["tok"], theta["pos"][:, :n]
    bits_emb = tok[:, None, :2, :] + pos[:, :N, None, :]  # (K, N, 2, D)
    eos_emb = tok[:, 2, :] + pos[:, N, :]  # (K, D)
    pre = "layers.0."
    q = _linear(eos_emb, theta, pre + "q").reshape(K, H, dh)
    kb = _linear(bits_emb, theta, pre + "k").reshape(K, N, 2, H, dh)
    ke = _linear(eos_emb, theta, pre + "k").reshape(K, H, dh)
    vb = _linear(bits_emb, theta, pre + "v").reshape(K, N, 2, H, dh)
    ve = _linear(eos_emb, theta, pre + "v").reshape(K, H, dh)
    scale = 1.0 / math.sqrt(dh)
    sb = (q[:, None, None, :, :] * kb).sum(-1).permute(0, 3, 1, 2) * scale  # (K, H, N, 2)
    se = (q * ke).sum(-1) * scale  # (K, H)
    # scores of every string, feature-major (K, H, N+1, 2^N): position n scores
    # s_{n,0} + x_n (s_{n,1} - s_{n,0}); eos last
    Xt = X.t()  # (N, 2^N)
    S = sb[..., 0].unsqueeze(-1) + Xt * (sb[..., 1] - sb[..., 0]).unsqueeze(-1)  # (K, H, N, 2^N)
    S = torch.cat([S, se[..., None, None].expand(K, H, 1, 1 << N)], dim=2)
    a = torch.softmax(S, dim=2)  # max-subtracted
    vbh = vb.permute(0, 3, 4, 1, 2)  # (K, H, dh, N, 2)
    ab = a[:, :, :N]
    att = (vbh[..., 0] @ ab + (vbh[..., 1] - vbh[..., 0]) @ (ab * Xt)
           + ve.unsqueeze(-1) * a[:, :, N:])  # (K, H, dh, 2^N)
    att = att.reshape(K, D, 1 << N)
    u = eos_emb.unsqueeze(-1) + _linear_fm(att, theta, pre + "o")
    h1 = _layer_norm(u, theta[pre + "ln1.gain"], theta[pre + "ln1.bias"], cfg.eps, dim=1)
    m = _linear_fm(torch.relu(_linear_fm(h1, theta, pre + "fc1")), theta, pre + "fc2")
    h2 = _layer_norm(h1 + m, theta[pre + "ln2.gain"], theta[pre + "ln2.bias"], cfg.eps, dim=1)
    return _linear_fm(h2, theta, "out").squeeze(1)


def _deep_outputs(cfg, theta, N, X):
    """T (K, 2^N) of stacked parameters ``theta`` with ``L >= 2`` post-LN layers: every position
    of every string through the first ``L - 1`` layers, the last layer at eos only (as the
    model's own forward pass)."""
    K = theta["tok"].shape[0]
    D, H, L = cfg.D, cfg.H, cfg.L
    dh = D // H
    n = N + 1
    S = X.shape[0]
    # token ids of every string, eos last, and the (position, token) row of the embedding table
    tokens = torch.cat([X.to(torch.long), torch.full((S, 1), 2, dtype=torch.long, device=X.device)], dim=1)
    rows = (tokens + 3 * torch.arange(n, device=X.device)).reshape(-1)
    table = (theta["tok"][:, None, :, :] + theta["pos"][:, :n, None, :]).reshape(K, 3 * n, D)
    h = table.index_select(1, rows).reshape(K, S, n, D)
    scale = 1.0 / math.sqrt(dh)
    for ell in range(L):
        pre = f"layers.{ell}."
        hq = h[:, :, -1:, :] if ell == L - 1 else h
        q = _linear(hq, theta, pre + "q").reshape(K, S, hq.shape[2], H, dh).transpose(2, 3)
        k = _linear(h, theta, pre + "k").reshape(K, S, n, H, dh).transpose(2, 3)
        v = _linear(h, theta, pre + "v").reshape(K, S, n, H, dh).transpose(2, 3)
        a = torch.softmax((q @ k.transpose(-1, -2)) * scale, dim=-1)  # max-subtracted
        att = (a @ v).transpose(2, 3).reshape(K, S, hq.shape[2], D)
        h1 = _layer_norm(hq + _linear(att, theta, pre + "o"), theta[pre + "ln1.gain"], theta[pre + "ln1.bias"],
                         cfg.eps)
        m = _linear(torch.relu(_linear(h1, theta, pre + "fc1")), theta, pre + "fc2")
        h = _layer_norm(h1 + m, theta[pre + "ln2.gain"], theta[pre + "ln2.bias"], cfg.eps)
    return _linear(h[:, :, -1, :], theta, "out").squeeze(-1)


def _outputs(cfg, theta, N, X):
    """T (K, 2^N): the one-layer pass (bit-matrix products, eos row only) or the deep one."""
    return _one_layer_outputs(cfg, theta, N, X) if cfg.L == 1 else _deep_outputs(cfg, theta, N, X)



@torch.no_grad()
def batched_outputs(model, theta: dict, N: int, *, chunk: int = DEFAULT_MODEL_CHUNK) -> torch.Tensor:
    r""":math:`T(x)` of the ``K`` parameter sets ``theta`` (``{name: (K, *shape)}``, the names
    of ``model.named_parameters()``; ``model`` gives the shape) over all :math:`2^N` strings
    in string-index order: ``(K, 2^N)`` float64."""
    check_batchable(model)
    N = check_int(N, "N", lo=1, hi=min(model.config.N_max, 24))
    chunk = check_int(chunk, "chunk", lo=1)
    names = [name for name, _ in model.named_parameters()]
    if not isinstance(theta, dict) or set(theta) != set(names):
        reject("theta", "<parameters>", "a dict of stacked tensors keyed by the model's parameter names")
    K = theta["tok"].shape[0]
    X = _bits(N, theta["tok"].device)
    out = []
    for start in range(0, K, chunk):
        part = {k: v[start:start + chunk] for k, v in theta.items()}
        out.append(_outputs(model.config, part, N, X))
    return torch.cat(out)


def kept_values(T: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    r"""``(K, 2^N)`` bool: string :math:`x` of model :math:`k` keeps the value ``table[x]``
    under the linear readout :math:`1[T > 0]` (a non-finite output keeps nothing)."""
    bits = T > 0
    return (bits == table.to(torch.bool).to(T.device)) & torch.isfinite(T)


@torch.no_grad()
def volume_point(model, table: torch.Tensor, N: int, sigma: float, K: int, generator: torch.Generator, *,
                 include_ln: bool = True, chunk: int = DEFAULT_MODEL_CHUNK) -> dict:
    r"""One point of the volume curve: ``K`` perturbations :math:`\theta^* + \sigma z`.

    Returns:
        ``{"exact": number of models computing ``table`` on all strings, "models": K,
        "kept_fraction": mean over models of the fraction of strings keeping their value,
        "kept_min": the smallest such fraction}``.
    """
    check_batchable(model)
    N = check_int(N, "N", lo=1, hi=min(model.config.N_max, 24))
    sigma = check_real(sigma, "sigma", lo=0)
    K = check_int(K, "models", lo=1)
    check_bool(include_ln, "include_ln")
    if not isinstance(table, torch.Tensor) or table.shape != (1 << N,):
        reject("table", f"<{type(table).__name__}>", f"a 0/1 tensor of shape ({1 << N},), the truth table at N = {N}")
    if not isinstance(generator, torch.Generator):
        reject("generator", f"<{type(generator).__name__}>", "a CPU torch.Generator")
    exact, kept_sum, kept_min = 0, 0.0, 1.0
    # evaluated in passes of at most EVAL_PAIRS (model, string) pairs
    passes = max(1, min(chunk, EVAL_PAIRS >> N))
    for theta in perturbation_chunks(model, sigma, K, generator, include_ln=include_ln, chunk=chunk):
        kept = kept_values(batched_outputs(model, theta, N, chunk=passes), table)
        frac = kept.to(torch.float64).mean(-1)
        exact += int(kept.all(-1).sum())
        kept_sum += float(frac.sum())
        kept_min = min(kept_min, float(frac.min()))
    return {"exact": exact, "models": K, "kept_fraction": kept_sum / K, "kept_min": kept_min}


def load_parameters(model, theta: dict, k: int) -> BooleanTransformer:
    """``model`` with its parameters set to entry ``k`` of stacked ``theta`` (in place)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(theta[name][k])
    return model
