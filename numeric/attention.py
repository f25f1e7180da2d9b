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

Softmax is evaluated in log-sum-exp form (``log_softmax`` then ``exp``), so logits of size
:math:`10^8` give finite weights. Every function broadcasts over leading batch dimensions.
"""

from __future__ import annotations

import math

import torch

from numeric.validation import (check_choice, check_finite, check_float_tensor, check_like,
                                reject)
from numeric.vocabulary import ATTENTIONS

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# --------------------------------------------------------------------------- validation


def check_attention(attention) -> str:
    """Return ``attention`` if it names a known map, else raise :class:`InputError`."""
    return check_choice(attention, "attention", ATTENTIONS)


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
    if attention == "softmax":
        return torch.log_softmax(z, dim=-1).exp()
    d = z.shape[-1]
    if attention == "linear":
        return z / d
    return torch.erf(z) / d


def _check_map_args(z, t, name, attention):
    """The arguments of :func:`map_jvp` / :func:`map_vjp`: logits ``z`` and a tangent or
    cotangent ``t`` (named ``name``) of the same dtype and device, both finite."""
    check_attention(attention)
    check_logits(z)
    check_float_tensor(t, name)
    check_like(t, name, z, "z")
    check_finite(z, "z")
    check_finite(t, name)


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
    _check_map_args(z, dz, "dz", attention)
    return map_vjp_unchecked(z, dz, attention, gamma)


def map_vjp(z: torch.Tensor, g: torch.Tensor, attention: str = "softmax",
            gamma: torch.Tensor | None = None) -> torch.Tensor:
    r"""Vector-Jacobian product :math:`J^\top g` (:math:`= Jg`, the Jacobians are symmetric).

    softmax: :math:`\gamma\odot(g - (\gamma\cdot g)\mathbf 1)`; linear: :math:`g/d`;
    erf: :math:`\tfrac{2}{\sqrt\pi}e^{-z^2}\odot g/d`.

    Args / Returns: as :func:`map_jvp` with the cotangent ``g`` in place of ``dz``.
    """
    _check_map_args(z, g, "g", attention)
    return map_vjp_unchecked(z, g, attention, gamma)


def map_vjp_unchecked(z, g, attention, gamma=None):
    """J g for the symmetric Jacobian J of the map at z (no validation)."""
    d = z.shape[-1]
    if attention == "softmax":
        if gamma is None:
            gamma = map_unchecked(z, "softmax")
        dot = (gamma * g).sum(-1, keepdim=True)
        return gamma * (g - dot)
    if attention == "linear":
        return (g / d).expand(torch.broadcast_shapes(z.shape, g.shape))
    return _TWO_OVER_SQRT_PI * torch.exp(-z * z) * g / d


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
    check_attention(attention)
    check_embeddings_and_query(V, theta)
    check_embeddings_and_query(V, tangent, tname="tangent")
    check_finite(theta, "theta")
    check_finite(tangent, "tangent")
    z = _logits(V, theta)
    check_finite(z, "V @ theta", hint="V contains NaN/inf or the logits overflow")
    return map_vjp_unchecked(z, _logits(V, tangent), attention)


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
    check_attention(attention)
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
    return _vt_mul(V, map_vjp_unchecked(z, g, attention))


__all__ = [
    "ATTENTIONS", "check_attention", "attention_map", "map_jvp", "map_vjp", "logits",
    "map_unchecked", "map_vjp_unchecked", "check_logits", "check_embeddings_and_query",
    "attention_weights", "attention_jvp", "attention_vjp",
]
