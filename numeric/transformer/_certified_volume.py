r"""Certified boxes around a solution (as formalised in boolverify): outward-rounded interval
arithmetic through the whole forward pass of a one-layer
:class:`~numeric.transformer.BooleanTransformer`, over every string of :math:`\{0,1\}^N` at
once, so that **every** parameter vector in a box :math:`\prod_i [\theta^*_i - h, \theta^*_i + h]`
is proved to compute a given truth table on **every** string.

What is certified is the exact (real-number) model of :mod:`numeric.transformer`: each
quantity is enclosed in an interval ``[lo, hi]`` of float64 numbers that contains its exact value
for every parameter vector of the box. Every operation rounds its lower end towards
:math:`-\infty` and its upper end towards :math:`+\infty` by one ``torch.nextafter`` step after
the round-to-nearest result (IEEE addition, multiplication, division and square root are
correctly rounded, so the true result lies within one step); ``exp`` (SLEEF/libm, at most about
one ulp off) is widened by :data:`TRANSCENDENTAL_STEPS` steps. The operations are those of
:mod:`numeric.intervals` (re-exported here). Sums are taken term by term,
rounding after each addition, so no summation order of a library enters. (Assumed: torch's
default of keeping subnormal numbers, ``torch.set_flush_denormal(False)``; flushed to zero, a
tiny product could fall outside its one-step bound, so :func:`interval_outputs` refuses to run
then.)

The forward pass (one layer, post-LN, linear readout: the ``boolverify`` preset, as
:func:`numeric.transformer.batched_outputs` evaluates):

- **Embeddings and projections.** Position :math:`n`'s embedding takes two values
  (:math:`x_n = 0, 1`), so keys and values are enclosed once per (position, bit) and gathered
  per string; the eos query once.
- **Attention** (per head, scores :math:`s_k = q\cdot k_k/\sqrt{d_h}`). The weights in the
  stable form :math:`a_n = 1/(1 + \sum_{k \ne n} e^{s_k - s_n})`, monotone in every score: the
  lower end from the upper ends of the differences and vice versa (exact range of the softmax
  over a box of scores, up to rounding; no overflow: a huge exponent gives ``inf`` and the
  weight's bound 0).
- **Layer norm** at :math:`\varepsilon \ge 0` (``eps = 0`` included). The centred components
  in coefficient form, :math:`u_i - \bar u = ((D-1)u_i - \sum_{j\ne i}u_j)/D`, so each
  :math:`u_i` enters once; the variance from the squares' enclosures
  (:math:`[0, \max]` for an interval across 0); :math:`1/\sqrt{\operatorname{var} + \varepsilon}`
  only where the variance's lower end is :math:`> 0`: otherwise LN may be undefined in the box
  and the string is **not** certifiable (its output enclosure is :math:`(-\infty, \infty)`).
- **MLP** (ReLU is monotone: applied to both ends) and the **readout**
  :math:`T = w^\top h_{\mathrm{eos}} + \omega`.

A string is certified when its output interval excludes 0 on the side of its table value
(:math:`\mathrm{lo} > 0` for 1, :math:`\mathrm{hi} < 0` for 0, the linear readout
:math:`1[T > 0]`); the box is certified when every string is. Plain intervals lose the
correlations between quantities (the dependency problem): the certified half-width is a lower
bound on the largest box that computes the function, not its value.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch

from numeric.intervals import (TRANSCENDENTAL_STEPS, Interval, add, divide, exp, mul,
                               reciprocal_sqrt, relu, round_down, round_up, scale, square, sub, total)
from numeric.transformer._local_volume import check_batchable, check_one_layer, parameter_names, stacked_parameters
from numeric.validation import check_bool, check_int, check_real, reject

#: Longest input certified at once (the enclosures are ``(2^N, N+1, ...)`` tensors).
MAX_N = 16

_DT = torch.float64


def affine(x: Interval, weight: Interval, bias: Interval) -> Interval:
    """``W x + b`` for ``x`` (..., in), ``W`` (out, in), ``b`` (out)."""
    prod = mul(x.map(lambda t: t.unsqueeze(-2)), weight)  # (..., out, in)
    return add(total(prod, -1), bias)


def layer_norm(u: Interval, gain: Interval, bias: Interval, eps: float) -> tuple[Interval, torch.Tensor]:
    r"""LN over the last axis of ``u`` (..., D): ``(enclosure, defined)`` where ``defined`` (...)
    says the variance's lower end is :math:`> 0` (module docstring)."""
    D = u.lo.shape[-1]
    others = torch.tensor([[j for j in range(D) if j != i] for i in range(D)], device=u.lo.device)
    rest = total(u.map(lambda t: t[..., others]), -1)  # (..., D): sum over j != i
    c = divide(sub(scale(u, float(D - 1)), rest), float(D))
    var = divide(total(square(c), -1), float(D))
    if eps > 0:
        var = add(var, Interval.point(torch.tensor(eps, dtype=_DT, device=u.lo.device)))
    z = reciprocal_sqrt(var)
    defined = var.lo > 0
    y = add(mul(mul(c, z.map(lambda t: t.unsqueeze(-1))), gain), bias)
    return y, defined


def attention_weights(scores: Interval) -> Interval:
    r"""Softmax enclosures over the last axis of ``scores`` (..., n), in the stable form
    :math:`a_j = 1/(1 + \sum_{k\ne j} e^{s_k - s_j})` (module docstring)."""
    n = scores.lo.shape[-1]
    # differences s_k - s_j, (..., j, k)
    up_diff = round_up(scores.hi.unsqueeze(-2) - scores.lo.unsqueeze(-1))
    down_diff = round_down(scores.lo.unsqueeze(-2) - scores.hi.unsqueeze(-1))
    e = exp(Interval(down_diff, up_diff))
    off = ~torch.eye(n, dtype=torch.bool, device=scores.lo.device)
    e = Interval(torch.where(off, e.lo, 0.0), torch.where(off, e.hi, 0.0))
    s = total(e, -1)
    lo = round_down(1.0 / round_up(1.0 + s.hi))
    hi = round_up(1.0 / round_down(1.0 + s.lo))
    return Interval(lo.clamp(0.0, 1.0), hi.clamp(0.0, 1.0))


def _bit_matrix(N: int, device) -> torch.Tensor:
    idx = torch.arange(1 << N, device=device)
    return ((idx.unsqueeze(-1) >> torch.arange(N, device=device)) & 1).to(torch.bool)


def check_box(model, box) -> dict:
    """``box`` must be ``{name: Interval}`` over the model's parameter names, each of the
    parameter's shape, finite, ``lo <= hi``."""
    names = [name for name, _ in model.named_parameters()]
    if not isinstance(box, dict) or set(box) != set(names):
        reject("box", "<parameters>", "a dict of Intervals keyed by the model's parameter names")
    for name, p in model.named_parameters():
        iv = box[name]
        if not isinstance(iv, Interval) or iv.lo.shape != p.shape or iv.hi.shape != p.shape:
            reject(f"box[{name!r}]", f"<{type(iv).__name__}>", f"an Interval of shape {tuple(p.shape)}")
        if not (bool(torch.isfinite(iv.lo).all()) and bool(torch.isfinite(iv.hi).all())):
            reject(f"box[{name!r}]", "<interval with NaN or inf>", "finite ends")
        if bool((iv.lo > iv.hi).any()):
            reject(f"box[{name!r}]", "<interval with lo > hi>", "lo <= hi")
    return box


def widened_names(model, include_ln: bool = True, names=None) -> list[str]:
    """The parameters a box widens, in ``named_parameters`` order: ``names`` (a subset of the
    model's parameter names, e.g. one tensor alone) or, by default, every perturbed parameter
    (:func:`numeric.transformer.parameter_names`; the LN gains and biases only with
    ``include_ln``)."""
    check_bool(include_ln, "include_ln")
    if names is None:
        return parameter_names(model, include_ln)
    all_names = [name for name, _ in model.named_parameters()]
    if isinstance(names, str) or not all(isinstance(n, str) for n in names) or not set(names) <= set(all_names):
        reject("names", names, "an iterable of the model's parameter names")
    return [name for name in all_names if name in set(names)]


def parameter_box(model, half_width: float, *, include_ln: bool = True, names=None) -> dict:
    r"""``{name: Interval}``: :math:`\theta^* \pm h` (outward rounded) for every widened
    parameter (:func:`widened_names`: all perturbed parameters, or only ``names``), the point
    :math:`\theta^*` for the others."""
    check_one_layer(model)
    h = check_real(half_width, "half_width", lo=0)
    perturbed = set(widened_names(model, include_ln, names))
    box = {}
    for name, p in model.named_parameters():
        theta = p.detach().to(_DT)
        if name in perturbed and h > 0:
            box[name] = Interval(round_down(theta - h), round_up(theta + h))
        else:
            box[name] = Interval.point(theta)
    return box


def box_points(model, half_width: float, K: int, generator: torch.Generator, *, corners: bool,
               include_ln: bool = True, names=None) -> dict:
    r"""``K`` parameter vectors of the box :math:`\theta^* \pm h` as stacked parameters
    (:func:`numeric.transformer.stacked_parameters`): :math:`\theta^* + h u` over the widened
    parameters (:func:`widened_names`), :math:`u` drawn on the CPU from ``generator``, one
    ``(K, *shape)`` block per parameter in ``named_parameters`` order: uniform signs (``corners``:
    the box's corners) or uniform on :math:`[-1, 1]` (points inside). The other parameters stay
    at :math:`\theta^*`. Each point lies in :func:`parameter_box`'s enclosure of the same box
    (that box is rounded outwards; :math:`\theta^* + h u` is rounded to nearest)."""
    check_batchable(model)
    h = check_real(half_width, "half_width", lo=0)
    K = check_int(K, "K", lo=1)
    check_bool(corners, "corners")
    theta = stacked_parameters(model, K)
    for name in widened_names(model, include_ln, names):
        shape = theta[name].shape
        if corners:
            u = torch.randint(0, 2, shape, generator=generator).to(_DT) * 2 - 1
        else:
            u = torch.rand(shape, generator=generator, dtype=_DT) * 2 - 1
        theta[name] += h * u.to(theta[name].device)
    return theta


@torch.no_grad()
def interval_forward(model, box: dict, N: int) -> dict:
    r"""Enclosures of every quantity of the forward pass that the certificate relies on, for
    every parameter vector of ``box`` (``{name: Interval}``, :func:`parameter_box`) and all
    :math:`2^N` strings in string-index order, as :class:`Interval` s: ``"scores"``
    (2^N, H, N+1) the eos query's scaled scores (eos last, the inputs of the softmax);
    ``"attention"`` (2^N, H, N+1) the eos row's weights (eos last); ``"attention_output"``
    (2^N, D) the heads' concatenated output before ``o``; ``"ln1"`` (2^N, D) the first layer
    norm's output; ``"hidden"`` (2^N, F) the MLP's ReLU units; ``"ln2"`` (2^N, D) the second
    layer norm's output; ``"output"`` (2^N,) :math:`T(x)` as computed, and ``"defined"`` (2^N,)
    bool: both layer norms' variances are certainly :math:`> 0` (elsewhere the enclosures
    after them mean nothing)."""
    check_one_layer(model)
    cfg = model.config
    N = check_int(N, "N", lo=1, hi=min(cfg.N_max, MAX_N))
    check_box(model, box)
    tiny = torch.tensor(2.0 ** -1074, dtype=_DT, device=box["tok"].lo.device)
    if float(tiny * 0.5 + tiny) == 0.0:
        reject("flush_denormal", True, "subnormals kept (torch.set_flush_denormal(False)): the "
               "outward rounding assumes them")
    D, H = cfg.D, cfg.H
    dh = D // H
    pre = "layers.0."

    def lin(x, name):
        return affine(x, box[name + ".weight"], box[name + ".bias"])

    tok, pos = box["tok"], box["pos"][: N + 1]
    bits_emb = add(tok[:2].map(lambda t: t.unsqueeze(0)), pos[:N].map(lambda t: t.unsqueeze(1)))  # (N, 2, D)
    eos_emb = add(tok[2], pos[N])  # (D,)
    q = lin(eos_emb, pre + "q").map(lambda t: t.reshape(H, dh))
    kb = lin(bits_emb, pre + "k").map(lambda t: t.reshape(N, 2, H, dh))
    ke = lin(eos_emb, pre + "k").map(lambda t: t.reshape(H, dh))
    vb = lin(bits_emb, pre + "v")  # (N, 2, D)
    ve = lin(eos_emb, pre + "v")  # (D,)
    # scores per (position, bit, head) and of eos, scaled by an enclosure of 1/sqrt(dh)
    r = 1.0 / math.sqrt(dh)
    inv_root = Interval.point(torch.tensor(r, dtype=_DT)).map(lambda t: t.to(q.lo.device))
    inv_root = Interval(round_down(inv_root.lo, 3), round_up(inv_root.hi, 3))  # two roundings: < 2 ulps
    sb = mul(total(mul(q, kb), -1), inv_root)  # (N, 2, H)
    se = mul(total(mul(q, ke), -1), inv_root)  # (H,)
    X = _bit_matrix(N, q.lo.device)  # (S, N)
    S = 1 << N

    def gather(t, tail):  # (N, 2, *tail) -> (S, N, *tail) by each string's bits
        sel = X.reshape(S, N, *([1] * len(tail)))
        return torch.where(sel, t[:, 1], t[:, 0])

    scores = Interval(torch.cat([gather(sb.lo, (H,)), se.lo.expand(S, 1, H)], 1),
                      torch.cat([gather(sb.hi, (H,)), se.hi.expand(S, 1, H)], 1))  # (S, N+1, H)
    a = attention_weights(scores.map(lambda t: t.transpose(1, 2)))  # (S, H, N+1)
    values = Interval(torch.cat([gather(vb.lo, (D,)), ve.lo.expand(S, 1, D)], 1),
                      torch.cat([gather(vb.hi, (D,)), ve.hi.expand(S, 1, D)], 1))  # (S, N+1, D)
    values = values.map(lambda t: t.reshape(S, N + 1, H, dh))
    weighted = mul(a.map(lambda t: t.transpose(1, 2).unsqueeze(-1)), values)  # (S, N+1, H, dh)
    att = total(weighted, 1).map(lambda t: t.reshape(S, D))
    u = add(eos_emb.map(lambda t: t.unsqueeze(0)), lin(att, pre + "o"))
    h1, ok1 = layer_norm(u, box[pre + "ln1.gain"], box[pre + "ln1.bias"], cfg.eps)
    hidden = relu(lin(h1, pre + "fc1"))
    h2, ok2 = layer_norm(add(h1, lin(hidden, pre + "fc2")), box[pre + "ln2.gain"], box[pre + "ln2.bias"], cfg.eps)
    T = lin(h2, "out").map(lambda t: t.squeeze(-1))
    return {"scores": scores.map(lambda t: t.transpose(1, 2)), "attention": a, "attention_output": att, "ln1": h1,
            "hidden": hidden, "ln2": h2, "output": T, "defined": ok1 & ok2}


@torch.no_grad()
def interval_outputs(model, box: dict, N: int) -> Interval:
    r"""Enclosures of :math:`T(x)` for every parameter vector of ``box`` (``{name: Interval}``,
    :func:`parameter_box`), for all :math:`2^N` strings in string-index order: an
    :class:`Interval` of shape ``(2^N,)``; :math:`(-\infty, \infty)` where a layer norm's
    variance may vanish in the box (:func:`interval_forward`)."""
    passes = interval_forward(model, box, N)
    T = passes["output"]
    defined = passes["defined"] & torch.isfinite(T.lo) & torch.isfinite(T.hi)
    return Interval(torch.where(defined, T.lo, -math.inf), torch.where(defined, T.hi, math.inf))


def certified_strings(T: Interval, table: torch.Tensor) -> torch.Tensor:
    r"""Bool ``(2^N,)``: string :math:`x`'s enclosure excludes 0 on the side of ``table[x]``
    (:math:`\mathrm{lo} > 0` for 1, :math:`\mathrm{hi} < 0` for 0)."""
    one = table.to(torch.bool).to(T.lo.device)
    return torch.where(one, T.lo > 0, T.hi < 0)


@dataclass(frozen=True)
class CertifiedBox:
    r"""The verdict on one box :math:`\theta^* \pm h`: ``strings_certified`` of
    ``strings_total`` (:math:`= 2^N`) strings proved to keep their value for every parameter in
    the box; ``certified`` iff all are. ``log_volume`` :math:`= M \log(2h)` over the ``M``
    perturbed parameters (:math:`-\infty` at ``h = 0``); ``margin``: the smallest signed end
    over the strings (lo for a 1, -hi for a 0; > 0 iff certified)."""

    function: str
    N: int
    half_width: float
    n_params: int
    include_ln: bool
    strings_certified: int
    strings_total: int
    certified: bool
    log_volume: float
    margin: float

    def as_dict(self) -> dict:
        return asdict(self)


def certify_box(model, table: torch.Tensor, N: int, half_width: float, *, function: str,
                include_ln: bool = True) -> CertifiedBox:
    r"""Whether every parameter vector of :math:`\theta^* \pm h` (``model``'s parameters,
    ``h = half_width``, every parameter or, without ``include_ln``, all but the LN gains and
    biases) computes ``table`` (0/1, shape ``(2^N,)``) on every string; ``function`` names the
    table in the record."""
    check_one_layer(model)
    N = check_int(N, "N", lo=1, hi=min(model.config.N_max, MAX_N))
    h = check_real(half_width, "half_width", lo=0)
    check_bool(include_ln, "include_ln")
    if not isinstance(function, str):
        reject("function", function, "the name of the table (a string)")
    if not isinstance(table, torch.Tensor) or table.shape != (1 << N,) or bool(((table != 0) & (table != 1)).any()):
        reject("table", f"<{type(table).__name__}>", f"a 0/1 tensor of shape ({1 << N},), the truth table at N = {N}")
    T = interval_outputs(model, parameter_box(model, h, include_ln=include_ln), N)
    ok = certified_strings(T, table)
    one = table.to(torch.bool).to(T.lo.device)
    signed = torch.where(one, T.lo, -T.hi)
    perturbed = set(parameter_names(model, include_ln))
    M = sum(p.numel() for name, p in model.named_parameters() if name in perturbed)
    return CertifiedBox(function=function, N=N, half_width=h, n_params=M, include_ln=include_ln,
                        strings_certified=int(ok.sum()), strings_total=int(ok.numel()),
                        certified=bool(ok.all()) and int(ok.numel()) == 1 << N,
                        log_volume=M * math.log(2 * h) if h > 0 else -math.inf,
                        margin=float(signed.min()))
