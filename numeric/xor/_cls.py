r"""The standard one-layer, two-head CLS-token transformer of claim SX-3 (docs/claims.md).

Tokens :math:`t_i = [x_i; v_i] \in \mathbb{R}^{1+m}` (content; position) for the :math:`d` bits,
plus a CLS token :math:`c \in \mathbb{R}^{1+m}` in front. Head :math:`h` has
:math:`W_Q^h \in \mathbb{R}^{k\times(1+m)}` (trainable), :math:`W_K^h \in \mathbb{R}^{k\times(1+m)}`
and :math:`W_V^h \in \mathbb{R}^{1\times(1+m)}` (frozen), with the structural masks of the claim:

- keys read only the position part (the content column of :math:`W_K^h` is masked to 0),
- values read only the content part (the position columns of :math:`W_V^h` are masked to 0),
- the CLS row attends only to the :math:`d` bit tokens (not to itself).

The output read at the CLS position is :math:`o_h = \sum_i \mathrm{softmax}_i(s^h)\,W_V^h t_i` with
scores :math:`s^h_i = (W_Q^h c)^\top W_K^h t_i = \theta_h^\top v_i`,
:math:`\theta_h = (W_K^{h,\mathrm{pos}})^\top W_Q^h c`; the readout is :math:`-o_1 o_2`. With
:math:`W_V^h = e_0^\top` this is the two-head model :math:`f(x) = -(\gamma\cdot x)(\tilde\gamma\cdot x)`.

The module runs a *generic* masked multi-head attention over the whole sequence (every row, then
the CLS row is read), so that the equivalence is checked on a standard transformer rather than on
the reduced formula. The model does not use :mod:`numeric.xor` (only its input check
:func:`numeric.xor.check_support`). Every tensor the model creates takes the dtype and device
of ``V``.
"""

from __future__ import annotations

import itertools

import torch

from numeric.validation import (check_finite, check_float_tensor, check_int, check_real,
                                check_support, reject)


def _shape(t):
    return f"<tensor of shape {tuple(t.shape)}>"


class CLSTransformer(torch.nn.Module):
    r"""One-layer two-head transformer with a CLS token and structural masks.

    Args:
        V: positional embeddings, a float64/float32 tensor of shape ``(d, m)`` (row ``i`` is
            :math:`v_i`), frozen; its dtype and device are the model's.
        W_Q: shape ``(2, k, 1+m)``, the two query matrices (trainable parameter).
        W_K: shape ``(2, k, 1+m)``, the two key matrices (frozen; column 0 is masked out).
        W_V: shape ``(2, 1+m)`` or ``None`` (default :math:`e_0^\top` for both heads; the
            position columns are masked out).
        cls: the CLS token, shape ``(1+m,)``.
    """

    def __init__(self, V, W_Q, W_K, cls, W_V=None):
        super().__init__()
        check_float_tensor(V, "V")
        dt, dev = V.dtype, V.device
        W_Q, W_K, cls = (torch.as_tensor(t) for t in (W_Q, W_K, cls))
        if V.ndim != 2 or V.shape[0] < 2 or V.shape[1] < 1:
            reject("V", _shape(V), "shape (d, m) with d >= 2, m >= 1")
        d, m = V.shape
        D = 1 + m
        if W_Q.ndim != 3 or W_Q.shape[0] != 2 or W_Q.shape[2] != D or W_Q.shape[1] < 1:
            reject("W_Q", _shape(W_Q), f"shape (2, k, {D}) with k >= 1")
        if tuple(W_K.shape) != tuple(W_Q.shape):
            reject("W_K", _shape(W_K), f"shape {tuple(W_Q.shape)}, like W_Q")
        if tuple(cls.shape) != (D,):
            reject("cls", _shape(cls), f"shape ({D},)")
        if W_V is None:
            W_V = torch.zeros(2, D, dtype=dt, device=dev)
            W_V[:, 0] = 1.0
        W_V = torch.as_tensor(W_V)
        if tuple(W_V.shape) != (2, D):
            reject("W_V", _shape(W_V), f"shape (2, {D})")
        for name, t in (("V", V), ("W_Q", W_Q), ("W_K", W_K), ("cls", cls), ("W_V", W_V)):
            check_finite(t, name)
        self.d, self.m, self.k = d, m, W_Q.shape[1]
        self.register_buffer("V", V.clone())
        self.W_Q = torch.nn.Parameter(W_Q.to(dtype=dt, device=dev).clone())
        # Structural masks: keys see positions only, values see content only.
        key_mask = torch.ones(D, dtype=dt, device=dev)
        key_mask[0] = 0.0
        val_mask = torch.zeros(D, dtype=dt, device=dev)
        val_mask[0] = 1.0
        self.register_buffer("W_K", W_K.to(dtype=dt, device=dev) * key_mask)
        self.register_buffer("W_V", W_V.to(dtype=dt, device=dev) * val_mask)
        self.register_buffer("cls", cls.to(dtype=dt, device=dev).clone())
        # Row 0 (CLS) attends to the d bit tokens only; bit rows attend to everything (their
        # outputs are not read; the mask just has to be a standard one).
        mask = torch.ones(d + 1, d + 1, dtype=torch.bool, device=dev)
        mask[0, 0] = False
        self.register_buffer("attn_mask", mask)

    def tokens(self, X):
        r"""The token sequence ``(*batch, d+1, 1+m)``: CLS then :math:`[x_i; v_i]`."""
        X = torch.as_tensor(X, dtype=self.V.dtype, device=self.V.device)
        if X.ndim < 1 or X.shape[-1] != self.d:
            reject("X", _shape(X), f"shape (..., {self.d})")
        check_finite(X, "X")
        batch = X.shape[:-1]
        bits = torch.cat([X.unsqueeze(-1), self.V.expand(*batch, self.d, self.m)], dim=-1)
        cls = self.cls.expand(*batch, 1, 1 + self.m)
        return torch.cat([cls, bits], dim=-2)

    def head_outputs(self, X):
        r"""Per-head outputs at the CLS position, shape ``(*batch, 2)``.

        Generic masked attention: :math:`A^h = \mathrm{softmax}(Q^h K^{h\top} + \text{mask})`,
        :math:`O^h = A^h (T W_V^{h\top})`, read at row 0.
        """
        T = self.tokens(X)  # (*b, n, D)
        Q = torch.einsum("...nD,hkD->...hnk", T, self.W_Q)
        K = torch.einsum("...nD,hkD->...hnk", T, self.W_K)
        Vv = torch.einsum("...nD,hD->...hn", T, self.W_V)
        scores = Q @ K.transpose(-1, -2)  # (*b, 2, n, n)
        scores = scores.masked_fill(~self.attn_mask, float("-inf"))
        A = torch.softmax(scores, dim=-1)
        out = (A @ Vv.unsqueeze(-1)).squeeze(-1)  # (*b, 2, n)
        return out[..., 0]

    def forward(self, X):
        """Readout ``-(head_1)(head_2)`` at the CLS position, shape ``(*batch,)``."""
        o = self.head_outputs(X)
        return -o[..., 0] * o[..., 1]

    def attention(self):
        r"""CLS attention weights of both heads, ``(2, d)`` (independent of the content)."""
        theta = self.theta()
        return torch.softmax(theta @ self.V.T, dim=-1)

    def theta(self):
        r""":math:`\theta_h = (W_K^{h})^\top W_Q^h c` restricted to the position part, ``(2, m)``."""
        return torch.einsum("hkD,hkE,E->hD", self.W_K, self.W_Q, self.cls)[:, 1:]

    def lr_matrix(self):
        r"""The matrix :math:`\|c\|^2 (W_K^{h,\mathrm{pos}})^\top W_K^{h,\mathrm{pos}}` per head, ``(2, m, m)``:
        one step of size :math:`\eta` on :math:`W_Q^h` moves :math:`\theta_h` by
        :math:`-\eta\,\|c\|^2 W_K^\top W_K \nabla_{\theta_h} L`."""
        Kp = self.W_K[:, :, 1:]
        return (self.cls @ self.cls) * Kp.transpose(-1, -2) @ Kp


def all_inputs(d, dtype=torch.float64, device=None):
    r"""All :math:`2^d` points of :math:`\{\pm1\}^d`, shape ``(2**d, d)`` (``d <= 16``),
    as ``dtype`` on ``device`` (``None``: the default device)."""
    d = check_int(d, "d", lo=1, hi=16)  # exhaustive enumeration of 2^d points
    pts = torch.tensor(list(itertools.product((-1.0, 1.0), repeat=d)), dtype=dtype,
                       device=device)
    return pts


def cls_population_loss(model: CLSTransformer, support):
    r"""Population MSE :math:`E_x[(f(x) - y)^2]`, :math:`y = -x_a x_b`, by enumeration.

    Args:
        model: a :class:`CLSTransformer` with ``d <= 16``.
        support: ``(a, b)``, 0-based, ``a != b``.
    Returns:
        a 0-d tensor differentiable w.r.t. ``model.W_Q``.
    """
    a, b = check_support(support, model.d)
    X = all_inputs(model.d, model.V.dtype, model.V.device)
    y = -X[:, a] * X[:, b]
    return ((model(X) - y) ** 2).mean()


def cls_step(model: CLSTransformer, support, lr):
    r"""One gradient step of size ``lr`` on :math:`W_Q` (``W_K``, ``W_V`` fixed) by autograd.

    Returns:
        ``(theta_before, theta_after)``, each ``(2, m)``.
    """
    lr = check_real(lr, "lr", lo=0, lo_open=True)
    theta0 = model.theta().detach().clone()
    model.W_Q.grad = None
    loss = cls_population_loss(model, support)
    loss.backward()
    with torch.no_grad():
        model.W_Q -= lr * model.W_Q.grad
    return theta0, model.theta().detach().clone()
