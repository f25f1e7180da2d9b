r"""Attention maps of the two-head model (SPEC §2) and their Jacobian products, in torch.

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

from numeric.validation import InputError

from numeric.vocabulary import ATTENTIONS

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# --------------------------------------------------------------------------- validation


def check_attention(attention) -> str:
    """Return ``attention`` if it names a known map, else raise :class:`InputError`."""
    if not isinstance(attention, str) or attention not in ATTENTIONS:
        raise InputError(f"attention must be one of {', '.join(map(repr, ATTENTIONS))}; "
                         f"got {attention!r}")
    return attention


def _check_float_tensor(x, name, min_dim=1):
    if not isinstance(x, torch.Tensor):
        raise InputError(f"{name} must be a torch.Tensor; got {type(x).__name__}")
    if x.dtype not in (torch.float32, torch.float64):
        raise InputError(f"{name} must have dtype float64 or float32; got {x.dtype}")
    if x.dim() < min_dim:
        raise InputError(f"{name} must have at least {min_dim} dimension(s); got shape "
                         f"{tuple(x.shape)}")


def _check_finite(x, name):
    if not bool(torch.isfinite(x).all()):
        raise InputError(f"{name} contains NaN or inf; entries must be finite")


def _check_logits(z, name="z"):
    _check_float_tensor(z, name)
    if z.shape[-1] < 1:
        raise InputError(f"{name} has an empty last dimension; expected d >= 1 logits")


def _check_pair(x, y, xname, yname):
    """Same dtype and device."""
    if x.dtype != y.dtype:
        raise InputError(f"{yname} has dtype {y.dtype} but {xname} has {x.dtype}; use one dtype")
    if x.device != y.device:
        raise InputError(f"{yname} is on {y.device} but {xname} is on {x.device}; use one device")


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
    _check_logits(z)
    _check_finite(z, "z")
    return map_unchecked(z, attention)


def map_unchecked(z, attention):
    if attention == "softmax":
        return torch.log_softmax(z, dim=-1).exp()
    d = z.shape[-1]
    if attention == "linear":
        return z / d
    return torch.erf(z) / d


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
    check_attention(attention)
    _check_logits(z)
    _check_float_tensor(dz, "dz")
    _check_pair(z, dz, "z", "dz")
    _check_finite(z, "z")
    _check_finite(dz, "dz")
    return map_vjp_unchecked(z, dz, attention, gamma)


def map_vjp(z: torch.Tensor, g: torch.Tensor, attention: str = "softmax",
            gamma: torch.Tensor | None = None) -> torch.Tensor:
    r"""Vector-Jacobian product :math:`J^\top g` (:math:`= Jg`, the Jacobians are symmetric).

    softmax: :math:`\gamma\odot(g - (\gamma\cdot g)\mathbf 1)`; linear: :math:`g/d`;
    erf: :math:`\tfrac{2}{\sqrt\pi}e^{-z^2}\odot g/d`.

    Args / Returns: as :func:`map_jvp` with the cotangent ``g`` in place of ``dz``.
    """
    check_attention(attention)
    _check_logits(z)
    _check_float_tensor(g, "g")
    _check_pair(z, g, "z", "g")
    _check_finite(z, "z")
    _check_finite(g, "g")
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


def _check_V_theta(V, theta, vname="V", tname="theta"):
    _check_float_tensor(V, vname, min_dim=2)
    _check_float_tensor(theta, tname, min_dim=1)
    _check_pair(V, theta, vname, tname)
    d, m = V.shape[-2], V.shape[-1]
    if d < 1 or m < 1:
        raise InputError(f"{vname} has shape {tuple(V.shape)}; expected (*batch, d, m) with "
                         "d >= 1, m >= 1")
    if theta.shape[-1] != m:
        raise InputError(f"{tname} has last dimension {theta.shape[-1]} but {vname} has m = {m} "
                         f"columns; expected {tname} of shape (*batch, {m})")
    try:
        torch.broadcast_shapes(V.shape[:-2], theta.shape[:-1])
    except RuntimeError:
        raise InputError(f"batch dimensions of {vname} {tuple(V.shape[:-2])} and {tname} "
                         f"{tuple(theta.shape[:-1])} do not broadcast") from None


def logits(V: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
    r"""Logits :math:`z = V\theta`, shape ``(*batch, d)`` (one pass over ``V``)."""
    _check_V_theta(V, theta)
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
    _check_V_theta(V, theta)
    _check_finite(theta, "theta")
    z = _logits(V, theta)
    _check_finite(z, "V @ theta (V contains NaN/inf or the logits overflow)")
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
    _check_V_theta(V, theta)
    _check_V_theta(V, tangent, tname="tangent")
    _check_finite(theta, "theta")
    _check_finite(tangent, "tangent")
    z = _logits(V, theta)
    _check_finite(z, "V @ theta (V contains NaN/inf or the logits overflow)")
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
    _check_V_theta(V, theta)
    _check_float_tensor(g, "g")
    _check_pair(V, g, "V", "g")
    if g.shape[-1] != V.shape[-2]:
        raise InputError(f"g has last dimension {g.shape[-1]}; expected d = {V.shape[-2]}")
    _check_finite(theta, "theta")
    _check_finite(g, "g")
    z = _logits(V, theta)
    _check_finite(z, "V @ theta (V contains NaN/inf or the logits overflow)")
    return _vt_mul(V, map_vjp_unchecked(z, g, attention))


__all__ = [
    "ATTENTIONS", "check_attention", "attention_map", "map_jvp", "map_vjp", "logits",
    "map_unchecked", "map_vjp_unchecked",
    "attention_weights", "attention_jvp", "attention_vjp",
]
