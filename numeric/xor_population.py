r"""The two-head model for the sparse XOR (SPEC §2, as formalised in boolverify), in torch.

Model: frozen embeddings :math:`V \in \mathbb R^{d\times m}` (rows :math:`v_i`), queries
:math:`\theta, \tilde\theta \in \mathbb R^m`, weights :math:`\gamma = \alpha(V\theta)`,
:math:`\tilde\gamma = \alpha(V\tilde\theta)`, prediction :math:`f(x) = -(\gamma\cdot x)(\tilde\gamma\cdot x)`,
target :math:`y = -x_a x_b` on :math:`x \in \{\pm1\}^d`, loss :math:`L = E_x[(f - y)^2]`.

Conventions: leading batch dimensions of ``V`` ``(*batch, d, m)``, ``theta`` and
``theta_tilde`` ``(*batch, m)`` broadcast; ``support = (a, b)``, 0-based, ``a != b``;
float64 by default, float32 allowed; CPU or CUDA (all inputs on one device).

Cost: ``population_loss`` reads ``V`` once (one GEMM for both heads), ``population_grad``
twice (:math:`Z = \Theta V^\top`, then :math:`W V`), plus :math:`O(d)` work: the memory floor.
Formulas and their numerics: :mod:`numeric.xor_forms`. Step metrics: :mod:`numeric.xor_metrics`.
"""

from __future__ import annotations

import math
import numbers
import operator

import torch

from numeric.validation import check_support  # noqa: F401  (public here too: numeric.xor.check_support)
from numeric.validation import InputError

from numeric.attention import (_check_finite, _check_float_tensor, map_unchecked, map_vjp_unchecked, attention_weights,
                        check_attention)
from numeric.xor_forms import ClosedFormState

_DTYPES = (torch.float64, torch.float32)


# --------------------------------------------------------------------------- validation


def _int(x, name, lo):
    if isinstance(x, bool):
        raise InputError(f"{name} must be an integer >= {lo}; got {x!r}")
    try:
        v = operator.index(x)
    except TypeError:
        raise InputError(f"{name} must be an integer >= {lo}; got {x!r}") from None
    if v < lo:
        raise InputError(f"{name} = {v}; expected an integer >= {lo}")
    return v


def check_model(V, theta, theta_tilde, support, attention):
    """Validate the common arguments; returns ``(a, b, batch_shape)``."""
    check_attention(attention)
    _check_float_tensor(V, "V", min_dim=2)
    d, m = V.shape[-2], V.shape[-1]
    if d < 2:
        raise InputError(f"V has d = {d} rows; the model needs d >= 2 positions "
                         "(V must have shape (*batch, d, m))")
    if m < 1:
        raise InputError(f"V has m = {m} columns; the embedding dimension must be m >= 1")
    for name, t in (("theta", theta), ("theta_tilde", theta_tilde)):
        _check_float_tensor(t, name, min_dim=1)
        if t.dtype != V.dtype:
            raise InputError(f"{name} has dtype {t.dtype} but V has {V.dtype}; use one dtype")
        if t.device != V.device:
            raise InputError(f"{name} is on {t.device} but V is on {V.device}; use one device")
        if t.shape[-1] != m:
            raise InputError(f"{name} has shape {tuple(t.shape)}; expected (*batch, m) with "
                             f"m = {m} to match V of shape {tuple(V.shape)}")
        _check_finite(t, name)
    try:
        batch = torch.broadcast_shapes(V.shape[:-2], theta.shape[:-1], theta_tilde.shape[:-1])
    except RuntimeError:
        raise InputError(f"batch dimensions do not broadcast: V {tuple(V.shape[:-2])}, theta "
                         f"{tuple(theta.shape[:-1])}, theta_tilde {tuple(theta_tilde.shape[:-1])}"
                         ) from None
    a, b = check_support(support, d)
    return a, b, batch


def head_logits(V, theta, theta_tilde, batch):
    r"""Logits of both heads, ``Z = [\theta; \tilde\theta] V^\top`` of shape (*batch, 2, d).

    One GEMM ``V @ Theta^T`` with ``V`` on the left (BLAS then streams ``V`` once; the form
    ``Theta @ V^T`` reads it twice on this CPU build). Non-finite logits mean NaN/inf in ``V``
    (a NaN or inf entry always propagates into its row's logit) or overflow; checked in
    O(d), not O(dm).
    """
    d, m = V.shape[-2], V.shape[-1]
    if theta.shape != theta_tilde.shape:
        shp = torch.broadcast_shapes(theta.shape, theta_tilde.shape)
        theta, theta_tilde = theta.expand(shp), theta_tilde.expand(shp)
    Th = torch.stack((theta, theta_tilde), dim=-2)            # (*bt, 2, m)
    if V.dim() == 2:
        # all query vectors against one V: a single (d, m) x (m, K) product
        Z = (V @ Th.reshape(-1, m).T).T.reshape(*Th.shape[:-1], d)
    else:
        Z = torch.matmul(V, Th.mT).mT                          # (*batch, 2, d)
    Z = Z.expand(*batch, 2, d).contiguous()
    if not bool(torch.isfinite(Z).all()):
        if not bool(torch.isfinite(V).all()):
            raise InputError("V contains NaN or inf; entries must be finite")
        raise InputError("the logits V @ theta overflow float range; reduce |theta|")
    return Z


_PULLBACK_BLOCK_BYTES = 1 << 19      # rows of V per block in the pull-back: ~512 KiB (cache)


def _weight_pullback(V, W):
    """``W V``: (*batch, 2, d) x (*batch, d, m) -> (*batch, 2, m), one pass over ``V``.

    On CPU the product is accumulated over blocks of rows of ``V`` that stay in cache, so
    that both heads use each block while it is hot (a single ``(2, d) x (d, m)`` GEMM streams
    ``V`` about twice on this CPU build: measured in ``bench/xor.py``).
    """
    d, m = V.shape[-2], V.shape[-1]
    rows = max(64, _PULLBACK_BLOCK_BYTES // (m * V.element_size()))
    if V.device.type != "cpu" or d <= 4 * rows:
        return torch.matmul(W, V)
    if V.dim() == 2:
        Wf = W.reshape(-1, d)
        if Wf.shape[0] > 8:                      # many queries: the GEMM is efficient
            return torch.matmul(W, V)
        out = torch.zeros(Wf.shape[0], m, dtype=V.dtype, device=V.device)
        for s in range(0, d, rows):
            out.addmm_(Wf[:, s:s + rows], V[s:s + rows])
        return out.reshape(*W.shape[:-1], m)
    if V.shape[:-2] != W.shape[:-2]:
        return torch.matmul(W, V)
    Vf, Wf = V.reshape(-1, d, m), W.reshape(-1, W.shape[-2], d)
    out = torch.zeros(Wf.shape[0], Wf.shape[1], m, dtype=V.dtype, device=V.device)
    for s in range(0, d, rows):
        out.baddbmm_(Wf[:, :, s:s + rows], Vf[:, s:s + rows])
    return out.reshape(*W.shape[:-1], m)


# --------------------------------------------------------------------------- sampling


def _batch_shape(batch_shape):
    try:
        shp = tuple(batch_shape)
    except TypeError:
        raise InputError(f"batch_shape must be a tuple of non-negative integers; got "
                         f"{batch_shape!r}") from None
    return tuple(_int(s, "batch_shape entry", 0) for s in shp)


def _check_dtype(dtype):
    if dtype not in _DTYPES:
        raise InputError(f"dtype must be torch.float64 or torch.float32; got {dtype!r}")


def _randn(shape, generator, dtype, device):
    """Gaussian sample drawn on the generator's device (reproducible), then moved."""
    gdev = generator.device if generator is not None else torch.device(device)
    x = torch.randn(shape, generator=generator, dtype=dtype, device=gdev)
    return x.to(device)


def sample_embeddings(d, m, *, batch_shape=(), generator=None, dtype=torch.float64,
                      device="cpu") -> torch.Tensor:
    r"""Embeddings :math:`v_1..v_d` i.i.d. uniform on :math:`S^{m-1}` (normalised Gaussians).

    Args:
        d: positions (>= 2). m: embedding dimension (>= 1). batch_shape: leading dims (seeds).
        generator: ``torch.Generator`` for reproducibility. dtype, device: of the result.

    Returns:
        ``V`` of shape ``(*batch_shape, d, m)`` with unit rows.
    """
    d, m = _int(d, "d", 2), _int(m, "m", 1)
    _check_dtype(dtype)
    G = _randn((*_batch_shape(batch_shape), d, m), generator, dtype, device)
    return G / torch.linalg.vector_norm(G, dim=-1, keepdim=True)


def sample_init(m, *, batch_shape=(), generator=None, dtype=torch.float64, device="cpu"):
    r"""Antisymmetric initialisation :math:`\theta^{(0)} \sim \mathrm{Unif}(S^{m-1})`,
    :math:`\tilde\theta^{(0)} = -\theta^{(0)}`.

    Returns:
        ``(theta0, theta_tilde0)``, each ``(*batch_shape, m)``.
    """
    m = _int(m, "m", 1)
    _check_dtype(dtype)
    G = _randn((*_batch_shape(batch_shape), m), generator, dtype, device)
    theta = G / torch.linalg.vector_norm(G, dim=-1, keepdim=True)
    return theta, -theta


def check_embeddings(V, rtol=None):
    """Raise :class:`InputError` unless every row of ``V`` has unit norm (``|‖v_i‖ - 1| <= rtol``).

    The closed forms hold for any ``V``, so the population functions accept any finite ``V``;
    call this where the model's unit-sphere embeddings are required. ``rtol`` defaults to
    1e-12 (float64) or 1e-6 (float32).
    """
    _check_float_tensor(V, "V", min_dim=2)
    _check_finite(V, "V")
    if rtol is None:
        rtol = 1e-12 if V.dtype == torch.float64 else 1e-6
    norms = torch.linalg.vector_norm(V, dim=-1).flatten()
    dev = (norms - 1).abs()
    if dev.numel() and float(dev.max()) > rtol:
        i = int(dev.argmax())
        raise InputError(f"embedding rows must have unit norm (|norm - 1| <= {rtol:g}); row "
                         f"{i % V.shape[-2]} (flat index {i}) has norm {float(norms[i]):.12g}")


def default_lr(d, m, c=10.0) -> float:
    r"""Default step size :math:`\eta = c\, d^2 \sqrt m \ln d` (our choice, SPEC §2; overridable).

    Args:
        d: positions (>= 2). m: embedding dimension (>= 1). c: positive finite constant.
    """
    d, m = _int(d, "d", 2), _int(m, "m", 1)
    if isinstance(c, bool) or not isinstance(c, numbers.Real) or not math.isfinite(c) or c <= 0:
        raise InputError(f"c must be a positive finite number; got {c!r}")
    return float(c) * d * d * math.sqrt(m) * math.log(d)


# --------------------------------------------------------------------------- population


def population_loss(V, theta, theta_tilde, support, attention="softmax") -> torch.Tensor:
    r"""Population loss :math:`L = E_x[(f(x) - y)^2]` in the residual (sum-of-squares) form.

    .. math::

        L = (\gamma\cdot\tilde\gamma)^2 + t^2
            + \sum_{j\in R}\big[(\gamma_a\tilde\gamma_j + \gamma_j\tilde\gamma_a)^2
                               + (\gamma_b\tilde\gamma_j + \gamma_j\tilde\gamma_b)^2\big]
            + \sum_{i<j\in R}(\gamma_i\tilde\gamma_j + \gamma_j\tilde\gamma_i)^2,
        \quad t = 1 - \gamma_a\tilde\gamma_b - \gamma_b\tilde\gamma_a,\ R = [d]\setminus\{a,b\},

    equal to the closed form of SX-1 but with relative error :math:`O(\epsilon(1 + |z|))` also
    when :math:`L < 10^{-20}` (see :mod:`numeric.xor_forms`; measured against the 50-digit
    reference: <= 4e-13 for logits up to 1e3). Differentiable by autograd (whose backward is
    less accurate near a solution than :func:`population_grad`).

    Args:
        V: ``(*batch, d, m)``, d >= 2, m >= 1, finite. theta, theta_tilde: ``(*batch, m)``.
        support: ``(a, b)``, ``0 <= a != b < d``. attention: ``"softmax"``, ``"linear"``, ``"erf"``.

    Returns:
        Tensor of shape ``batch`` (0-dim when unbatched).

    Raises:
        InputError: shapes, dtypes/devices, d < 2, m < 1, support, NaN/inf, attention.
    """
    a, b, batch = check_model(V, theta, theta_tilde, support, attention)
    Z = head_logits(V, theta, theta_tilde, batch)
    return ClosedFormState(Z, a, b, attention).loss()


def population_grad(V, theta, theta_tilde, support, attention="softmax"):
    r"""Closed-form gradient :math:`(\nabla_\theta L, \nabla_{\tilde\theta} L)`, no autograd.

    :math:`\nabla_\theta L = V^\top J g` with :math:`g = \partial L/\partial\gamma`
    (SPEC §2, evaluated without cancellation near a solution, :mod:`numeric.xor_forms`) and
    :math:`J` the Jacobian of the map; for softmax
    :math:`\nabla_\theta L = V^\top(\gamma\odot(g - (\gamma\cdot g)\mathbf 1))`. Cost
    :math:`O(dm)`: exactly two passes over ``V`` for both heads together.

    Args: as :func:`population_loss`.

    Returns:
        ``(grad_theta, grad_theta_tilde)``, each of shape ``(*batch, m)``.
    """
    a, b, batch = check_model(V, theta, theta_tilde, support, attention)
    Z = head_logits(V, theta, theta_tilde, batch)
    W = ClosedFormState(Z, a, b, attention).logit_cotangent(Z, attention)
    grad = _weight_pullback(V, W)
    return grad[..., 0, :], grad[..., 1, :]


def _check_lr(lr, batch, ref):
    if isinstance(lr, torch.Tensor):
        if lr.dtype not in _DTYPES:
            raise InputError(f"lr tensor must be float64 or float32; got {lr.dtype}")
        if not bool(torch.isfinite(lr).all()) or bool((lr < 0).any()):
            raise InputError("lr must be finite and >= 0")
        try:
            fits = torch.broadcast_shapes(lr.shape, batch) == tuple(batch)
        except RuntimeError:
            fits = False
        if not fits:
            raise InputError(f"lr of shape {tuple(lr.shape)} does not broadcast to the batch "
                             f"{tuple(batch)}; expected a shape that broadcasts to "
                             f"{tuple(batch)} without enlarging it (e.g. {tuple(batch)} or ())")
        return lr.to(dtype=ref.dtype, device=ref.device).unsqueeze(-1)
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real) or not math.isfinite(lr) or lr < 0:
        raise InputError(f"lr must be a finite number >= 0 or a tensor; got {lr!r}")
    return float(lr)


def one_step(V, theta, theta_tilde, support, lr, attention="softmax"):
    r"""One population gradient step :math:`\theta^{(1)} = \theta - \eta\nabla_\theta L`,
    :math:`\tilde\theta^{(1)} = \tilde\theta - \eta\nabla_{\tilde\theta} L`.

    Args:
        lr: :math:`\eta \ge 0`, a float or a tensor broadcasting over the batch shape
            (e.g. :func:`default_lr`). Other args: as :func:`population_loss`.

    Returns:
        ``(theta_1, theta_tilde_1)``, each ``(*batch, m)``.
    """
    _, _, batch = check_model(V, theta, theta_tilde, support, attention)
    eta = _check_lr(lr, batch, V)
    g, gt = population_grad(V, theta, theta_tilde, support, attention)
    return theta - eta * g, theta_tilde - eta * gt


# --------------------------------------------------------------------------- empirical


def sample_data(n, d, support, *, generator=None, batch_shape=(), dtype=torch.float64,
                device="cpu"):
    r"""``n`` i.i.d. samples :math:`x \sim \mathrm{Unif}\{\pm1\}^d`, :math:`y = -x_a x_b`.

    Returns:
        ``(X, y)`` of shapes ``(*batch_shape, n, d)`` and ``(*batch_shape, n)``.
    """
    n, d = _int(n, "n", 1), _int(d, "d", 2)
    a, b = check_support(support, d)
    _check_dtype(dtype)
    shape = (*_batch_shape(batch_shape), n, d)
    gdev = generator.device if generator is not None else torch.device(device)
    bits = torch.randint(0, 2, shape, generator=generator, device=gdev, dtype=torch.int8)
    X = (1 - 2 * bits).to(dtype=dtype, device=device)
    return X, -X[..., a] * X[..., b]


def _check_data(V, X, y, batch):
    d = V.shape[-2]
    _check_float_tensor(X, "X", min_dim=2)
    _check_float_tensor(y, "y", min_dim=1)
    for name, t in (("X", X), ("y", y)):
        if t.dtype != V.dtype or t.device != V.device:
            raise InputError(f"{name} must have V's dtype {V.dtype} and device {V.device}; got "
                             f"{t.dtype} on {t.device}")
    if X.shape[-1] != d:
        raise InputError(f"X has shape {tuple(X.shape)}; expected (*batch, n, d) with d = {d}")
    n = X.shape[-2]
    if n < 1:
        raise InputError("X has n = 0 samples; expected n >= 1")
    if y.shape[-1] != n:
        raise InputError(f"y has shape {tuple(y.shape)}; expected (*batch, n) with n = {n}")
    if not bool((X.abs() == 1).all()):
        raise InputError("X must have entries in {-1, +1} (inputs on the hypercube)")
    _check_finite(y, "y")
    try:
        return torch.broadcast_shapes(batch, X.shape[:-2], y.shape[:-1])
    except RuntimeError:
        raise InputError(f"batch dimensions of X {tuple(X.shape[:-2])} / y {tuple(y.shape[:-1])}"
                         f" do not broadcast with the model's {tuple(batch)}") from None


def _empirical(V, theta, theta_tilde, X, y, attention, need_grad):
    # a dummy support (0, 1) only for validation: the empirical loss does not use it
    _, _, batch = check_model(V, theta, theta_tilde, (0, 1), attention)
    _check_data(V, X, y, batch)
    Z = head_logits(V, theta, theta_tilde, batch)
    Gam = map_unchecked(Z, attention)                                   # (*, 2, d)
    S = torch.matmul(X, Gam.mT)                                # (*, n, 2): gamma.x, gamma~.x
    r = -S[..., 0] * S[..., 1] - y                             # f - y
    loss = (r * r).mean(-1)
    if not need_grad:
        return loss
    n = X.shape[-2]
    # dL/dgamma_i = (2/n) sum_k r_k (-x_ki (gamma~ . x_k)), and symmetrically
    C = (-2.0 / n) * r[..., None] * S.flip(-1)                 # (*, n, 2)
    G = torch.matmul(C.mT, X)                                  # (*, 2, d)
    grad = _weight_pullback(V, map_vjp_unchecked(Z, G, attention, Gam if attention == "softmax" else None))
    return loss, grad[..., 0, :], grad[..., 1, :]


def empirical_loss(V, theta, theta_tilde, X, y, attention="softmax") -> torch.Tensor:
    r"""Empirical loss :math:`\hat L = \frac1n\sum_k (f(x_k) - y_k)^2`.

    Args:
        X: inputs ``(*batch, n, d)`` with entries in :math:`\{\pm1\}`; y: targets ``(*batch, n)``.
        Other args: as :func:`population_loss`.

    Returns:
        ``(*batch)``.
    """
    return _empirical(V, theta, theta_tilde, X, y, attention, need_grad=False)


def empirical_grad(V, theta, theta_tilde, X, y, attention="softmax"):
    r"""Gradient of :math:`\hat L`, closed form in :math:`\gamma`-space:
    :math:`\partial f/\partial\gamma_i = -x_i(\tilde\gamma\cdot x)`, so
    :math:`\partial\hat L/\partial\gamma = -\tfrac2n X^\top(r\odot X\tilde\gamma)`,
    :math:`r = f - y`, then :math:`V^\top J(\cdot)` as in :func:`population_grad`. Cost
    :math:`O(nd + dm)`.

    Returns:
        ``(g, g_tilde)``, each ``(*batch, m)``.
    """
    _, g, gt = _empirical(V, theta, theta_tilde, X, y, attention, need_grad=True)
    return g, gt


__all__ = [
    "check_model", "head_logits", "check_embeddings", "sample_embeddings", "sample_init", "default_lr",
    "population_loss", "population_grad", "one_step",
    "sample_data", "empirical_loss", "empirical_grad",
]
