r"""Attention maps of the two-head model and their Jacobian products, in torch (claims SX-1 to
SX-3 of docs/claims.md).

Three component maps :math:`\alpha: \mathbb R^d \to \mathbb R^d` act on the logits
:math:`z = V\theta` (``V`` of shape ``(*batch, d, m)``, row ``i`` is :math:`v_i`):

.. math::

    \text{softmax: } \gamma_i = \frac{e^{z_i}}{\sum_j e^{z_j}} = e^{z_i - \mathrm{lse}(z)}, \qquad
    \text{linear: } \gamma_i = \frac{z_i}{d}, \qquad
    \text{erf: } \gamma_i = \frac{\mathrm{erf}(z_i)}{d}.

Their Jacobians :math:`J = \partial\gamma/\partial z` are symmetric:
:math:`J = \mathrm{diag}\,\gamma - \gamma\gamma^\top` (softmax), :math:`I/d` (linear),
:math:`\mathrm{diag}(\tfrac{2}{\sqrt\pi}e^{-z_i^2})/d` (erf). With
:math:`\partial\gamma/\partial\theta = JV`:

- JVP (tangent :math:`t \in \mathbb R^m`): :math:`\dot\gamma = J V t`;
  softmax :math:`\dot\gamma = \gamma \odot (\dot z - (\gamma\cdot\dot z)\mathbf 1)`, :math:`\dot z = Vt`.
- VJP (cotangent :math:`g = \partial L/\partial\gamma`): :math:`\nabla_\theta L = V^\top J g`;
  softmax :math:`\nabla_\theta L = V^\top(\gamma\odot(g - (\gamma\cdot g)\mathbf 1))`.

Softmax is evaluated as :math:`e^{z_i - \max z}/\sum_j e^{z_j - \max z}` (``torch.softmax``:
one pass of ``exp``; the log-sum-exp form ``exp(log_softmax(z))`` takes two and is no more
accurate), so logits of size :math:`10^8` give finite weights. Every function broadcasts over
leading batch dimensions.
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from typing import Callable

import torch

from numeric import vocabulary
from numeric.validation import (check_entry, check_finite, check_float_tensor, check_like,
                                reject)
from numeric.vocabulary import ATTENTIONS

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# --------------------------------------------------------------------------- the maps


@dataclass(frozen=True)
class AttentionMap:
    r"""One attention map of the engine: everything the model's passes need to know about it.

    Every function of the engine that depends on the map reads it from here (no code branches
    on the map's name), so a map is added by adding one entry to :data:`ATTENTION_MAPS`.

    Attributes:
        name: the map's name in :data:`numeric.vocabulary.ATTENTIONS`.
        weights: ``weights(z)``: :math:`\gamma = \alpha(z)` along the last dimension.
        vjp: ``vjp(z, g, gamma)``: :math:`Jg` (the Jacobians are symmetric), broadcast over
            ``z`` and ``g``; ``gamma`` is an optional precomputed :math:`\alpha(z)`.
        normalised: ``True`` for the normalised exponential (softmax): the weights are
            :math:`e^{z_i - M}/\sum_j e^{z_j - M}`, so the passes keep a running maximum ``M``,
            :math:`1 - \gamma_p` is formed as the sum of the other weights, a saturated head
            takes the argmax form of the cotangent, and the :math:`\eta \to \infty` limit is
            the argmax of the step direction (ties split evenly). ``False`` for a pointwise map
            :math:`\gamma_i = h(z_i)/d`, described by the four fields below.
        pointwise: ``pointwise(Z, d)``: :math:`h(Z)/d` entry by entry (pointwise maps).
        slope: ``slope(Z)``: the non-constant factor :math:`\phi` of :math:`h'(Z)`, or None
            where :math:`h'` is constant (pointwise maps).
        slope_scale: ``slope_scale(d)``: the constant factor, :math:`h'(z)/d = ` scale
            :math:`\cdot\,\phi(z)` (pointwise maps).
        cotangent: ``cotangent(Z, G, d)``: :math:`J^\top G` of the closed-form paths, in their
            order of operations (pointwise maps).
        limit: ``limit(s, d)``: the weights of the :math:`\eta\to\infty` step along the
            direction ``s`` of the logits, or None where the map has no such limit.
    """

    name: str
    weights: Callable
    vjp: Callable
    normalised: bool
    pointwise: Callable | None = None
    slope: Callable | None = None
    slope_scale: Callable | None = None
    cotangent: Callable | None = None
    limit: Callable | None = None


def _softmax_weights(z):
    return torch.softmax(z, dim=-1)


def _softmax_vjp(z, g, gamma=None):
    if gamma is None:
        gamma = map_unchecked(z, "softmax")
    dot = (gamma * g).sum(-1, keepdim=True)
    return gamma * (g - dot)


def _argmax_limit(s, d):
    top = s == s.amax(-1, keepdim=True)
    w = top.to(s.dtype)
    return w / w.sum(-1, keepdim=True)


def _linear_pointwise(Z, d):
    return Z / d


def _erf_pointwise(Z, d):
    return torch.erf(Z) / d


def _erf_slope(Z):
    return torch.exp(-Z * Z)


#: The engine's attention maps, keyed by the names of :data:`numeric.vocabulary.ATTENTIONS`.
ATTENTION_MAPS = {
    "softmax": AttentionMap(
        name="softmax", weights=_softmax_weights, vjp=_softmax_vjp, normalised=True,
        limit=_argmax_limit),
    "linear": AttentionMap(
        name="linear",
        weights=lambda z: _linear_pointwise(z, z.shape[-1]),
        vjp=lambda z, g, gamma=None: (g / z.shape[-1]).expand(torch.broadcast_shapes(z.shape, g.shape)),
        normalised=False, pointwise=_linear_pointwise, slope=None,
        slope_scale=lambda d: 1.0 / d,
        cotangent=lambda Z, G, d: G / d,
        limit=None),            # the weights V theta / d grow without bound
    "erf": AttentionMap(
        name="erf",
        weights=lambda z: _erf_pointwise(z, z.shape[-1]),
        vjp=lambda z, g, gamma=None: _TWO_OVER_SQRT_PI * torch.exp(-z * z) * g / z.shape[-1],
        normalised=False, pointwise=_erf_pointwise, slope=_erf_slope,
        slope_scale=lambda d: 2.0 / math.sqrt(math.pi) / d,
        cotangent=lambda Z, G, d: (2.0 / math.sqrt(math.pi) / d) * torch.exp(-Z * Z) * G,
        limit=lambda s, d: torch.sign(s) / d),
}


def attention_map_of(attention) -> AttentionMap:
    """The engine's :class:`AttentionMap` named ``attention``; :class:`InputError` for a name
    outside :data:`numeric.vocabulary.ATTENTIONS` or one the engine does not implement.

    The one check of the name: every public function resolves its ``attention`` here once and
    hands the entry to the private helpers, which do not check it again."""
    return check_entry(attention, "attention", ATTENTION_MAPS, vocabulary.ATTENTIONS,
                       "the attention maps the engine implements")


def map_entry(attention) -> AttentionMap:
    """The registry entry of an already checked name; a name without one raises
    :class:`InputError` (never a fallback to another map)."""
    try:
        return ATTENTION_MAPS[attention]
    except (KeyError, TypeError):
        reject("attention", attention, f"one of {tuple(ATTENTION_MAPS)}, the attention maps the "
               "engine implements")


def limit_of(amap: AttentionMap):
    r"""The :math:`\eta\to\infty` limit (``limit(s, d)``) of the resolved map ``amap``;
    :class:`InputError` for a map without one (linear: the weights :math:`V\theta/d` grow
    without bound)."""
    if amap.limit is None:
        with_limit = tuple(n for n, m in ATTENTION_MAPS.items() if m.limit is not None)
        reject("attention", amap.name, f"one of {with_limit}: {amap.name!r} has no eta -> infinity "
               "limit (the weights grow without bound); or use a finite lr")
    return amap.limit


# --------------------------------------------------------------------------- validation


def check_attention(attention) -> str:
    """Return ``attention`` if it names a known map, else raise :class:`InputError`."""
    attention_map_of(attention)
    return attention


def check_logits(z, name="z"):
    """A float tensor of logits ``(*batch, d)`` with ``d >= 1``."""
    check_float_tensor(z, name, min_dim=1)
    if z.shape[-1] < 1:
        reject(name, f"<tensor of shape {tuple(z.shape)}>", "d >= 1 logits in the last dimension")
    return z


# --------------------------------------------------------------------------- maps on logits


def attention_map(z: torch.Tensor, attention: str = "softmax") -> torch.Tensor:
    r"""Attention weights :math:`\gamma = \alpha(z)` along the last dimension.

    Args:
        z: logits, shape ``(*batch, d)``, float64 or float32.
        attention: ``"softmax"`` (:math:`e^{z - \mathrm{lse}(z)}`), ``"linear"`` (:math:`z/d`)
            or ``"erf"`` (:math:`\mathrm{erf}(z)/d`).

    Returns:
        :math:`\gamma`, same shape and dtype as ``z``.
    """
    check_attention(attention)
    check_logits(z)
    check_finite(z, "z")
    return map_unchecked(z, attention)


def map_unchecked(z, attention):
    r""":math:`\alpha(z)` for a name already checked at the public boundary (no validation).

    The one function every weight computation goes through; it takes the name (not the entry)
    so that a wrapper around it can tell the maps apart."""
    return ATTENTION_MAPS[attention].weights(z)


def _check_map_args(z, t, name, attention):
    """The arguments of :func:`map_jvp` / :func:`map_vjp`: logits ``z`` and a tangent or
    cotangent ``t`` (named ``name``) of the same dtype and device, both finite; returns the
    map's entry."""
    amap = attention_map_of(attention)
    check_logits(z)
    check_float_tensor(t, name)
    check_like(t, name, z, "z")
    check_finite(z, "z")
    check_finite(t, name)
    return amap


def map_jvp(z: torch.Tensor, dz: torch.Tensor, attention: str = "softmax",
            gamma: torch.Tensor | None = None) -> torch.Tensor:
    r"""Jacobian-vector product :math:`J\dot z` of the map :math:`z \mapsto \alpha(z)`.

    softmax: :math:`\gamma\odot(\dot z - (\gamma\cdot\dot z)\mathbf 1)`; linear: :math:`\dot z/d`;
    erf: :math:`\tfrac{2}{\sqrt\pi}e^{-z^2}\odot\dot z/d`.

    Args:
        z: logits ``(*batch, d)``. dz: tangent, broadcastable to ``z``.
        attention: the map. gamma: optional precomputed :math:`\alpha(z)` (softmax only).

    Returns:
        :math:`\dot\gamma`, broadcast shape of ``z`` and ``dz``.
    """
    return _check_map_args(z, dz, "dz", attention).vjp(z, dz, gamma)


def map_vjp(z: torch.Tensor, g: torch.Tensor, attention: str = "softmax",
            gamma: torch.Tensor | None = None) -> torch.Tensor:
    r"""Vector-Jacobian product :math:`J^\top g` (:math:`= Jg`, the Jacobians are symmetric).

    softmax: :math:`\gamma\odot(g - (\gamma\cdot g)\mathbf 1)`; linear: :math:`g/d`;
    erf: :math:`\tfrac{2}{\sqrt\pi}e^{-z^2}\odot g/d`.

    Args / Returns: as :func:`map_jvp` with the cotangent ``g`` in place of ``dz``.
    """
    return _check_map_args(z, g, "g", attention).vjp(z, g, gamma)


# --------------------------------------------------------------------------- maps of theta


def check_embeddings_and_query(V, theta, vname="V", tname="theta"):
    """``V`` of shape ``(*batch, d, m)`` and a query ``theta`` of shape ``(*batch, m)`` with the
    same dtype and device and broadcasting batch dimensions."""
    check_float_tensor(V, vname, min_dim=2)
    check_float_tensor(theta, tname, min_dim=1)
    check_like(theta, tname, V, vname)
    d, m = V.shape[-2], V.shape[-1]
    if d < 1 or m < 1:
        reject(vname, f"<tensor of shape {tuple(V.shape)}>",
               "shape (*batch, d, m) with d >= 1, m >= 1")
    if theta.shape[-1] != m:
        reject(tname, f"<tensor of shape {tuple(theta.shape)}>",
               f"shape (*batch, {m}): last dimension m = {m}, the columns of {vname}")
    try:
        torch.broadcast_shapes(V.shape[:-2], theta.shape[:-1])
    except RuntimeError:
        reject(tname, f"<tensor of shape {tuple(theta.shape)}>",
               f"batch dimensions that broadcast with those of {vname} {tuple(V.shape[:-2])}")


def logits(V: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
    r"""Logits :math:`z = V\theta`, shape ``(*batch, d)`` (one pass over ``V``)."""
    check_embeddings_and_query(V, theta)
    return _logits(V, theta)


def _logits(V, theta):
    if V.dim() == 2 and theta.dim() == 1:
        return torch.mv(V, theta)
    # (..., m) @ (m, d) folds the batch into one GEMM when V is unbatched
    return torch.matmul(theta.unsqueeze(-2), V.mT).squeeze(-2)


def _vt_mul(V, w):
    r""":math:`V^\top w` batched: ``(*batch, d, m)``, ``(*batch, d)`` -> ``(*batch, m)``."""
    if V.dim() == 2 and w.dim() == 1:
        return torch.mv(V.T, w)
    return torch.matmul(w.unsqueeze(-2), V).squeeze(-2)


def attention_weights(V: torch.Tensor, theta: torch.Tensor,
                      attention: str = "softmax") -> torch.Tensor:
    r"""Attention weights :math:`\gamma = \alpha(V\theta)`.

    Args:
        V: embeddings ``(*batch, d, m)``; theta: query ``(*batch, m)``; batch dims broadcast.
        attention: ``"softmax"``, ``"linear"`` or ``"erf"``.

    Returns:
        :math:`\gamma` of shape ``(*batch, d)``.

    Raises:
        InputError: shapes, dtypes, NaN/inf, unknown attention.
    """
    check_attention(attention)
    check_embeddings_and_query(V, theta)
    check_finite(theta, "theta")
    z = _logits(V, theta)
    check_finite(z, "V @ theta", hint="V contains NaN/inf or the logits overflow")
    return map_unchecked(z, attention)


def attention_jvp(V: torch.Tensor, theta: torch.Tensor, tangent: torch.Tensor,
                  attention: str = "softmax") -> torch.Tensor:
    r"""Directional derivative :math:`\dot\gamma = (\partial\gamma/\partial\theta)\,t = J V t`.

    Args:
        V ``(*batch, d, m)``, theta ``(*batch, m)``, tangent :math:`t` ``(*batch, m)``.

    Returns:
        :math:`\dot\gamma`, shape ``(*batch, d)``.
    """
    amap = attention_map_of(attention)
    check_embeddings_and_query(V, theta)
    check_embeddings_and_query(V, tangent, tname="tangent")
    check_finite(theta, "theta")
    check_finite(tangent, "tangent")
    z = _logits(V, theta)
    check_finite(z, "V @ theta", hint="V contains NaN/inf or the logits overflow")
    return amap.vjp(z, _logits(V, tangent), None)


def attention_vjp(V: torch.Tensor, theta: torch.Tensor, g: torch.Tensor,
                  attention: str = "softmax") -> torch.Tensor:
    r"""Pull-back :math:`\nabla_\theta = (\partial\gamma/\partial\theta)^\top g = V^\top J g`.

    softmax: :math:`V^\top(\gamma\odot(g - (\gamma\cdot g)\mathbf 1))`; linear :math:`V^\top g/d`;
    erf :math:`V^\top(\tfrac{2}{\sqrt\pi}e^{-z^2}\odot g)/d`.

    Args:
        V ``(*batch, d, m)``, theta ``(*batch, m)``, g: cotangent ``(*batch, d)``.

    Returns:
        shape ``(*batch, m)``.
    """
    amap = attention_map_of(attention)
    check_embeddings_and_query(V, theta)
    check_float_tensor(g, "g")
    check_like(g, "g", V, "V")
    if g.shape[-1] != V.shape[-2]:
        reject("g", f"<tensor of shape {tuple(g.shape)}>",
               f"shape (*batch, d) with d = {V.shape[-2]}, the rows of V")
    check_finite(theta, "theta")
    check_finite(g, "g")
    z = _logits(V, theta)
    check_finite(z, "V @ theta", hint="V contains NaN/inf or the logits overflow")
    return _vt_mul(V, amap.vjp(z, g, None))
