r"""The two-head model for the sparse XOR (as formalised in boolverify, docs/claims.md), in torch.

Model: frozen embeddings :math:`V \in \mathbb R^{d\times m}` (rows :math:`v_i`), queries
:math:`\theta, \tilde\theta \in \mathbb R^m`, weights :math:`\gamma = \alpha(V\theta)`,
:math:`\tilde\gamma = \alpha(V\tilde\theta)`, prediction :math:`f(x) = -(\gamma\cdot x)(\tilde\gamma\cdot x)`,
target :math:`y = -x_a x_b` on :math:`x \in \{\pm1\}^d`, loss :math:`L = E_x[(f - y)^2]`.

Conventions: leading batch dimensions of ``V`` ``(*batch, d, m)``, ``theta`` and
``theta_tilde`` ``(*batch, m)`` broadcast; ``support = (a, b)``, 0-based, ``a != b``;
float64 by default, float32 allowed; CPU or CUDA (all inputs on one device).

Cost: ``population_loss`` reads ``V`` once (one GEMM for both heads). ``population_grad``
reads it once for an unbatched ``V`` and queries (below), otherwise twice
(:math:`Z = \Theta V^\top`, then :math:`W V`), plus :math:`O(d)` work.
Formulas and their numerics: :mod:`numeric.xor`. Step metrics: :mod:`numeric.xor`.
Embeddings generated block by block: :mod:`numeric.xor`.

The passes over blocks of rows of ``V`` (one read for the gradient): :mod:`numeric.xor`.
"""

from __future__ import annotations

import functools
import math

import torch

from numeric.xor._attention import ATTENTION_MAPS, attention_map_of, map_unchecked
from numeric.validation import (check_device, check_dtype, check_finite, check_float_tensor, check_int,
                                check_like, check_real, check_support, reject)
from numeric.xor._blocks import block_rows, one_pass_grad, slices, sums_pass, weight_pullback
from numeric.xor._path import COMPILED, MIN_BLOCK_BYTES, resolve_path
from numeric.xor._forms import ClosedFormState
from numeric.xor._single import single_model_grad


# --------------------------------------------------------------------------- validation


def check_model(V, theta, theta_tilde, support, *, finite=True, grad=True):
    """Validate the common tensor and support arguments (the public functions resolve their
    ``attention`` before, with :func:`numeric.xor._attention.attention_map_of`); returns
    ``(a, b, batch_shape)``. ``finite=False`` leaves out the queries' NaN/inf check, for a caller
    that tests its logits instead (a NaN or inf in a query reaches every logit) and calls
    :func:`check_queries_finite` before naming a cause; ``grad=False`` refuses tensors that
    require grad (for a closed form that autograd cannot follow)."""
    check_float_tensor(V, "V", min_dim=2, grad=grad)
    d, m = V.shape[-2], V.shape[-1]
    if d < 2:
        reject("V", f"<tensor of shape {tuple(V.shape)}>",
               "shape (*batch, d, m) with d >= 2 positions")
    if m < 1:
        reject("V", f"<tensor of shape {tuple(V.shape)}>",
               "shape (*batch, d, m) with an embedding dimension m >= 1")
    batch = V.shape[:-2]
    for name, t in (("theta", theta), ("theta_tilde", theta_tilde)):
        check_float_tensor(t, name, min_dim=1, grad=grad)
        check_like(t, name, V, "V")
        if t.shape[-1] != m:
            reject(name, f"<tensor of shape {tuple(t.shape)}>",
                   f"shape (*batch, m) with m = {m} to match V of shape {tuple(V.shape)}")
        if finite:
            check_finite(t, name)
        if t.shape[:-1] == batch:
            continue            # (torch.broadcast_shapes runs in Python: tens of microseconds)
        try:
            batch = torch.broadcast_shapes(batch, t.shape[:-1])
        except RuntimeError:
            reject(name, f"<tensor of shape {tuple(t.shape)}>",
                   f"batch dimensions that broadcast with {tuple(batch)} (V and the "
                   "parameters before it)")
    a, b = check_support(support, d)
    return a, b, batch


def plain_single_model(V, theta, theta_tilde) -> bool:
    """Whether the three tensors are, by a few attribute reads, what :func:`check_model` accepts
    for one model on the CPU: dense CPU tensors (not subclasses) of one float dtype, ``V`` of
    shape ``(d, m)`` with ``d >= 2`` and ``m >= 1``, queries of shape ``(m,)``, none requiring grad.
    False decides nothing: :func:`check_model` then accepts or names what is wrong. (Its checks
    cost a gradient at small d more than these reads.)"""
    T = torch.Tensor
    if not (type(V) is T and type(theta) is T and type(theta_tilde) is T):
        return False
    dtype = V.dtype
    if not ((dtype is torch.float64 or dtype is torch.float32)
            and theta.dtype is dtype and theta_tilde.dtype is dtype
            and V.is_cpu and theta.is_cpu and theta_tilde.is_cpu
            and V.layout is torch.strided and theta.layout is torch.strided
            and theta_tilde.layout is torch.strided
            and not (V.requires_grad or theta.requires_grad or theta_tilde.requires_grad)):
        return False
    shape = V.shape
    return (len(shape) == 2 and shape[0] >= 2 and shape[1] >= 1
            and theta.shape == theta_tilde.shape == shape[1:])


def check_queries_finite(theta, theta_tilde):
    """The queries' NaN/inf check that :func:`check_model` leaves out with ``finite=False``."""
    check_finite(theta, "theta")
    check_finite(theta_tilde, "theta_tilde")


def head_logits(V, theta, theta_tilde, batch):
    r"""Logits of both heads, ``Z = [\theta; \tilde\theta] V^\top`` of shape (*batch, 2, d).

    One GEMM ``V @ Theta^T`` with ``V`` on the left (BLAS then streams ``V`` once; the form
    ``Theta @ V^T`` reads it twice on this CPU build). Non-finite logits mean NaN/inf in ``V``
    (a NaN or inf entry always propagates into its row's logit) or overflow; checked in
    O(d), not O(dm).
    """
    Z = logits_unchecked(V, theta, theta_tilde, batch)
    if not bool(torch.isfinite(Z).all()):
        if not bool(torch.isfinite(V).all()):
            check_finite(V, "V")
        reject("theta", "<query>", "logits V @ theta within the float range (they overflow); "
               "reduce |theta|")
    return Z


def logits_unchecked(V, theta, theta_tilde, batch):
    """:func:`head_logits` without the finiteness check (for a caller that checks its result)."""
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
    return Z.expand(*batch, 2, d).contiguous()


# --------------------------------------------------------------------------- sampling


def _batch_shape(batch_shape):
    try:
        shp = tuple(batch_shape)
    except TypeError:
        reject("batch_shape", batch_shape, "a tuple of non-negative integers")
    return tuple(check_int(s, f"batch_shape[{i}]", lo=0) for i, s in enumerate(shp))


def _randn(shape, generator, dtype, device, name="d"):
    """Gaussian sample drawn on the generator's device (reproducible), then moved; refused before
    allocating when the sample and its normalised copy cannot fit (``name`` sets the size)."""
    device = check_device(device, "device")
    from numeric.validation import check_allocation

    entries, core = math.prod(shape), 2 if name == "d" else 1
    batch = shape[:-core]
    # the error names the factor that makes the size: the batch or the argument of the sample
    name, value = ("batch_shape", batch) if math.prod(batch) > math.prod(shape[-core:]) else (name, shape[-core])
    check_allocation(2 * entries * torch.empty((), dtype=dtype).element_size(), name, value,
                     f"{entries} entries of shape {tuple(shape)}", device=device)
    gdev = generator.device if generator is not None else device
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
    d, m = check_int(d, "d", lo=2), check_int(m, "m", lo=1)
    dtype = check_dtype(dtype)
    G = _randn((*_batch_shape(batch_shape), d, m), generator, dtype, device)
    return G / torch.linalg.vector_norm(G, dim=-1, keepdim=True)


def sample_init(m, *, batch_shape=(), generator=None, dtype=torch.float64, device="cpu"):
    r"""Antisymmetric initialisation :math:`\theta^{(0)} \sim \mathrm{Unif}(S^{m-1})`,
    :math:`\tilde\theta^{(0)} = -\theta^{(0)}`.

    Returns:
        ``(theta0, theta_tilde0)``, each ``(*batch_shape, m)``.
    """
    m = check_int(m, "m", lo=1)
    dtype = check_dtype(dtype)
    G = _randn((*_batch_shape(batch_shape), m), generator, dtype, device, name="m")
    theta = G / torch.linalg.vector_norm(G, dim=-1, keepdim=True)
    return theta, -theta


def check_embeddings(V, rtol=None):
    """Raise :class:`InputError` unless every row of ``V`` has unit norm (``|‖v_i‖ - 1| <= rtol``).

    The closed forms hold for any ``V``, so the population functions accept any finite ``V``;
    call this where the model's unit-sphere embeddings are required. ``rtol`` defaults to
    1e-12 (float64) or 1e-6 (float32).
    """
    check_float_tensor(V, "V", min_dim=2)
    check_finite(V, "V")
    if rtol is None:
        rtol = 1e-12 if V.dtype == torch.float64 else 1e-6
    norms = torch.linalg.vector_norm(V, dim=-1).flatten()
    dev = (norms - 1).abs()
    if dev.numel() and float(dev.max()) > rtol:
        i = int(dev.argmax())
        reject("V", f"<tensor whose row {i % V.shape[-2]} (flat index {i}) has norm "
               f"{float(norms[i]):.12g}>", f"rows of unit norm (|norm - 1| <= {rtol:g})")


def default_lr(d, m, c=10.0) -> float:
    r"""Default step size :math:`\eta = c\, d^2 \sqrt m \ln d` (our choice; overridable).

    Args:
        d: positions (>= 2). m: embedding dimension (>= 1). c: positive finite constant.
    """
    d, m = check_int(d, "d", lo=2), check_int(m, "m", lo=1)
    c = check_real(c, "c", lo=0, lo_open=True)
    if d > 2**1000:     # beyond any float64 step size (and not convertible to float)
        reject("d", d, "an integer whose step size c d^2 sqrt(m) ln d is a finite float64")
    eta = c * float(d) * float(d) * math.sqrt(m) * math.log(d)
    if not math.isfinite(eta):
        reject("c", c, f"a constant for which c d^2 sqrt(m) ln d is a finite float64 (d = {d}, m = {m})")
    return eta


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
    when :math:`L < 10^{-20}` (see :mod:`numeric.xor`; measured against the 50-digit
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
    amap = attention_map_of(attention)
    a, b, batch = check_model(V, theta, theta_tilde, support)
    Z = head_logits(V, theta, theta_tilde, batch)
    return ClosedFormState(Z, a, b, amap).loss()


def population_grad(V, theta, theta_tilde, support, attention="softmax", *, path=None):
    r"""Closed-form gradient :math:`(\nabla_\theta L, \nabla_{\tilde\theta} L)`, no autograd.

    :math:`\nabla_\theta L = V^\top J g` with :math:`g = \partial L/\partial\gamma`
    (evaluated without cancellation near a solution, :mod:`numeric.xor`) and
    :math:`J` the Jacobian of the map; for softmax
    :math:`\nabla_\theta L = V^\top(\gamma\odot(g - (\gamma\cdot g)\mathbf 1))`. Cost
    :math:`O(dm)`: with ``V`` of shape ``(d, m)`` and queries ``(m,)``, one pass over ``V``
    (weighted row sums, with online-softmax rescaling for softmax: :mod:`numeric.xor`) and a
    fallback to two passes where the softmax sums would cancel; batched, exactly two passes.
    On the CPU the one pass runs where it is the faster path on this machine (its cache size:
    :mod:`numeric.xor`); both paths agree within the tolerance table. An unbatched model on the
    CPU whose ``V`` fits in 1 MiB, none of its tensors requiring grad, takes the two passes' O(d)
    steps in numpy (fewer microseconds per step: :mod:`numeric.xor`).

    Args: as :func:`population_loss`; ``path``: ``"one-pass"``, ``"two-pass"``, ``"compiled"``
    (the two-pass form through ``torch.compile``, compiled at first use: :mod:`numeric.xor`) or
    ``"auto"`` (default: the ``BOOLVERIFY_GRAD_PATH`` environment variable, else ``"auto"``, which
    never compiles).

    Returns:
        ``(grad_theta, grad_theta_tilde)``, each of shape ``(*batch, m)``.
    """
    amap = attention_map_of(attention)
    if plain_single_model(V, theta, theta_tilde):
        # where a call costs its dispatch; with a larger V torch's kernels were the faster (the
        # two-pass row of python -m bench.xor at d = 10^6)
        a, b = check_support(support, V.shape[0])
        V_bytes = V.numel() * V.element_size()
        if V_bytes <= MIN_BLOCK_BYTES and resolve_path(path, "cpu", V_bytes).path == "two-pass":
            res = single_model_grad(V, theta, theta_tilde, a, b, amap)
            if res is not None:
                return res
            # non-finite logits: the checks below and the tensor path name the cause
    # a closed form: autograd cannot follow it (grad=False)
    a, b, batch = check_model(V, theta, theta_tilde, support, finite=False, grad=False)
    V_bytes = V.numel() * V.element_size()
    choice = resolve_path(path, V.device.type, V_bytes)
    single = V.dim() == 2 and theta.dim() == 1 and theta_tilde.dim() == 1
    check_queries_finite(theta, theta_tilde)
    if single and choice.path == "one-pass":
        d, m = V.shape
        Th = torch.stack((theta, theta_tilde))
        rows = (max(64, choice.block_bytes // (m * V.element_size())) if V.device.type == "cpu"
                else block_rows(m, V.element_size(), V.device))
        acc = sums_pass(slices(V, rows), Th, d, a, b,
                        amap, True, check_V=lambda: check_finite(V, "V"))
        res = one_pass_grad(acc)
        if res is not None:
            return res
    if choice.path == COMPILED:
        # a V within one block: everything in one compiled graph (fewest calls); a larger one: the
        # products with V as on the eager two-pass path (blocked, this machine's BLAS), the O(d)
        # closed form between them compiled into fused loops. A non-finite result goes the eager
        # way, which names its cause
        if V_bytes <= MIN_BLOCK_BYTES:
            g, gt, finite = _run_compiled("grad", V, theta, theta_tilde, a, b, amap.name)
        else:
            Z = logits_unchecked(V, theta, theta_tilde, batch)
            grad = weight_pullback(V, _run_compiled("cotangent", Z, a, b, amap.name))
            g, gt, finite = grad[..., 0, :], grad[..., 1, :], torch.isfinite(grad).all()
        if bool(finite):
            return g, gt
    Z = head_logits(V, theta, theta_tilde, batch)
    W = ClosedFormState(Z, a, b, amap).logit_cotangent(Z, amap.name)
    grad = weight_pullback(V, W)
    return grad[..., 0, :], grad[..., 1, :]


def _logit_cotangent(Z, a: int, b: int, attention: str):
    """The z-space cotangent ``W`` of :class:`ClosedFormState` (the same non-cancelling forms) as
    one function of the logits, for ``torch.compile``."""
    return ClosedFormState(Z, a, b, ATTENTION_MAPS[attention]).logit_cotangent(Z, attention)


def _two_pass_grad(V, theta, theta_tilde, a: int, b: int, attention: str):
    """The whole two-pass gradient as one function of its tensors, for ``torch.compile``: both
    heads' gradients, each ``(*batch, m)``, and whether all their entries are finite (tested in
    the compiled kernels rather than by further calls: at small d a call costs its dispatches)."""
    Th = torch.stack(torch.broadcast_tensors(theta, theta_tilde), dim=-2)
    # Theta V^T: MKL's kernel for this orientation was 2.5x faster at d = 1e4 on an AMD EPYC
    Z = torch.matmul(Th, V.mT)
    grad = torch.matmul(_logit_cotangent(Z, a, b, attention), V)
    return grad[..., 0, :], grad[..., 1, :], torch.isfinite(grad).all()


_COMPILABLE = {"grad": _two_pass_grad, "cotangent": _logit_cotangent}


@functools.lru_cache(maxsize=None)
def _compiled_function(name):
    return torch.compile(_COMPILABLE[name], dynamic=True, fullgraph=True)


def _run_compiled(name, *args):
    """The function ``name`` of :data:`_COMPILABLE`, compiled at its first call (the ``"compiled"``
    path of :mod:`numeric.xor`), on ``args``; a machine where ``torch.compile`` fails gets
    :class:`InputError`."""
    from torch._dynamo.exc import TorchDynamoException

    try:
        return _compiled_function(name)(*args)
    except TorchDynamoException as e:
        reject("path", COMPILED, f"a path this machine can run: torch.compile failed here "
               f"({type(e).__name__}); use 'one-pass', 'two-pass' or 'auto'")


def check_lr(lr, batch, ref):
    """The step size: a float >= 0, or a tensor of finite entries >= 0 broadcasting to the
    ``batch`` shape without enlarging it; a tensor comes back on ``ref``'s dtype and device
    with a trailing dimension for the queries."""
    if not isinstance(lr, torch.Tensor):
        return check_real(lr, "lr", lo=0)
    check_float_tensor(lr, "lr")
    if not bool(torch.isfinite(lr).all()) or bool((lr < 0).any()):
        reject("lr", "<tensor with NaN, inf or negative entries>", "finite entries >= 0")
    try:
        fits = torch.broadcast_shapes(lr.shape, batch) == tuple(batch)
    except RuntimeError:
        fits = False
    if not fits:
        reject("lr", f"<tensor of shape {tuple(lr.shape)}>",
               f"a shape that broadcasts to the batch {tuple(batch)} without enlarging it "
               f"(e.g. {tuple(batch)} or ())")
    return lr.to(dtype=ref.dtype, device=ref.device).unsqueeze(-1)


def one_step(V, theta, theta_tilde, support, lr, attention="softmax"):
    r"""One population gradient step :math:`\theta^{(1)} = \theta - \eta\nabla_\theta L`,
    :math:`\tilde\theta^{(1)} = \tilde\theta - \eta\nabla_{\tilde\theta} L`.

    Args:
        lr: :math:`\eta \ge 0`, a float or a tensor broadcasting over the batch shape
            (e.g. :func:`default_lr`). Other args: as :func:`population_loss`.

    Returns:
        ``(theta_1, theta_tilde_1)``, each ``(*batch, m)``.
    """
    # the attention is checked once, by population_grad (the step's gradient goes through the
    # public function, so that the step is the gradient's, whatever computes it)
    _, _, batch = check_model(V, theta, theta_tilde, support)
    eta = check_lr(lr, batch, V)
    g, gt = population_grad(V, theta, theta_tilde, support, attention)
    return theta - eta * g, theta_tilde - eta * gt


# --------------------------------------------------------------------------- empirical


def sample_data(n, d, support, *, generator=None, batch_shape=(), dtype=torch.float64,
                device="cpu"):
    r"""``n`` i.i.d. samples :math:`x \sim \mathrm{Unif}\{\pm1\}^d`, :math:`y = -x_a x_b`.

    Returns:
        ``(X, y)`` of shapes ``(*batch_shape, n, d)`` and ``(*batch_shape, n)``.
    """
    n, d = check_int(n, "n", lo=1), check_int(d, "d", lo=2)
    a, b = check_support(support, d)
    dtype = check_dtype(dtype)
    shape = (*_batch_shape(batch_shape), n, d)
    from numeric.validation import check_allocation

    # the bits (1 byte) and the samples in dtype
    check_allocation(math.prod(shape) * (1 + torch.empty((), dtype=dtype).element_size()), "n", n,
                     f"{math.prod(shape)} sampled entries", device=device)
    gdev = generator.device if generator is not None else torch.device(device)
    bits = torch.randint(0, 2, shape, generator=generator, device=gdev, dtype=torch.int8)
    X = (1 - 2 * bits).to(dtype=dtype, device=device)
    return X, -X[..., a] * X[..., b]


def _check_data(V, X, y, batch):
    d = V.shape[-2]
    check_float_tensor(X, "X", min_dim=2)
    check_float_tensor(y, "y", min_dim=1)
    check_like(X, "X", V, "V")
    check_like(y, "y", V, "V")
    if X.shape[-1] != d:
        reject("X", f"<tensor of shape {tuple(X.shape)}>", f"shape (*batch, n, d) with d = {d}")
    n = X.shape[-2]
    if n < 1:
        reject("X", f"<tensor of shape {tuple(X.shape)}>", "n >= 1 samples")
    if y.shape[-1] != n:
        reject("y", f"<tensor of shape {tuple(y.shape)}>", f"shape (*batch, n) with n = {n}")
    if not bool((X.abs() == 1).all()):
        reject("X", "<tensor with entries other than -1, +1>",
               "entries in {-1, +1} (inputs on the hypercube)")
    check_finite(y, "y")
    try:
        return torch.broadcast_shapes(batch, X.shape[:-2], y.shape[:-1])
    except RuntimeError:
        reject("X", f"<tensor of shape {tuple(X.shape)}>",
               f"batch dimensions that broadcast with y {tuple(y.shape[:-1])} and the model's "
               f"{tuple(batch)}")


def _empirical(V, theta, theta_tilde, X, y, attention, need_grad):
    amap = attention_map_of(attention)
    # a dummy support (0, 1) only for validation: the empirical loss does not use it
    _, _, batch = check_model(V, theta, theta_tilde, (0, 1))
    _check_data(V, X, y, batch)
    Z = head_logits(V, theta, theta_tilde, batch)
    Gam = map_unchecked(Z, amap.name)                                   # (*, 2, d)
    S = torch.matmul(X, Gam.mT)                                # (*, n, 2): gamma.x, gamma~.x
    r = -S[..., 0] * S[..., 1] - y                             # f - y
    loss = (r * r).mean(-1)
    if not need_grad:
        return loss
    n = X.shape[-2]
    # dL/dgamma_i = (2/n) sum_k r_k (-x_ki (gamma~ . x_k)), and symmetrically
    C = (-2.0 / n) * r[..., None] * S.flip(-1)                 # (*, n, 2)
    G = torch.matmul(C.mT, X)                                  # (*, 2, d)
    grad = weight_pullback(V, amap.vjp(Z, G, Gam))
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
