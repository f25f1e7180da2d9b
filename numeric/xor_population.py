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
Formulas and their numerics: :mod:`numeric.xor_forms`. Step metrics: :mod:`numeric.xor_metrics`.
Embeddings generated block by block: :mod:`numeric.xor_stream`.

One read of ``V`` (softmax)
---------------------------
With :math:`g = \partial L/\partial\gamma`, :math:`\nabla_\theta L = V^\top(\gamma\odot(g -
(\gamma\cdot g)\mathbf 1)) = \sum_i W_i v_i`, :math:`W_i = \gamma_i(g_i - \gamma\cdot g)`. Differentiating
the residual form of :mod:`numeric.xor_forms` (:math:`R = [d]\setminus\{a,b\}`), for
:math:`i \in R`

.. math::

    g_i = 4(c_0 - \gamma_i\tilde\gamma_i)\tilde\gamma_i + 2\|\tilde\gamma\|^2\gamma_i,
    \qquad c_0 = \gamma\cdot\tilde\gamma,

so :math:`\gamma_i g_i = 4c_0\,\gamma_i\tilde\gamma_i - 4\gamma_i^2\tilde\gamma_i^2
+ 2\|\tilde\gamma\|^2\gamma_i^2` is a combination of four monomials with coefficients that are
global scalars. Hence

.. math::

    \nabla_\theta L = 4c_0\,C - 4D + 2\|\tilde\gamma\|^2 B_1 - (\gamma\cdot g)\,A_1
                      + W_a v_a + W_b v_b,

with the weighted row sums over :math:`R` :math:`A_1 = \sum\gamma_i v_i`,
:math:`B_1 = \sum\gamma_i^2 v_i`, :math:`C = \sum\gamma_i\tilde\gamma_i v_i`,
:math:`D = \sum\gamma_i^2\tilde\gamma_i^2 v_i` (and :math:`A_2, B_2` for :math:`\tilde\theta`,
whose gradient is the same with the heads swapped: six vectors of length ``m``), and scalars
from the same pass: :math:`\gamma\cdot g = \sum_R\gamma_i g_i + \gamma_a g_a + \gamma_b g_b`
with :math:`\sum_R\gamma_i g_i = 4c_0P - 4Q + 2\|\tilde\gamma\|^2 N_1` (:math:`N, P, Q` the sums
of :class:`~numeric.xor_forms.ClosedFormState`), and :math:`g_a, g_b` in their non-cancelling
forms. The support rows are kept out of the sums and added exactly, with
:math:`W_a = \gamma_a(c_a g_a - \sum_{j\ne a}\gamma_j g_j)` when head 1 is saturated on ``a``
(likewise ``b`` and head 2), as in :meth:`~numeric.xor_forms.ClosedFormState.logit_cotangent`.

Every term is accumulated block by block: the logits of a cache-sized block of rows of ``V``,
its weights :math:`e_i = \exp(z_i - M)` relative to the running maximum ``M`` of each head, and
the six products ``E^T V_block`` are computed while the block is hot; when ``M`` grows the
sums are rescaled by :math:`e^{M_{old} - M_{new}}` (its square for the squared weights, the
product of both heads' for :math:`C`, :math:`D`), as in online softmax (flash attention). At the
end :math:`\gamma_i = e_i/\sum_j e_j`. So ``V`` is read once.

Accuracy: each moment term is rounded at the scale :math:`\gamma_i(|g_i| + |\gamma\cdot g|)`,
as :math:`W_i` is in the two-pass path, except the argmax ``k`` of a head, which the two-pass
path evaluates as :math:`\gamma_k(c_k g_k - \sum_{j\ne k}\gamma_j g_j)` without cancellation.
If ``k`` is ``a`` or ``b`` the one pass does the same. If ``k`` lies in ``R`` the implicit
:math:`\gamma_k(g_k - \gamma\cdot g)` cancels when the head is saturated there; the one pass
then compares :math:`\gamma_k(|g_k| + |\gamma\cdot g|)` with :math:`|W_k|` plus the rounding
scale of all other terms, and when the former is more than 16 times larger (the moments would
lose more than 4 bits against the two-pass path) it falls back to the exact two-pass path. That
happens only far from a solution (a head saturated off the support); near a solution
(:math:`L < 10^{-20}`) both heads sit on ``a``/``b`` and the one pass is exact.

Linear and erf attention have no normalisation: on R, :math:`W_i = \phi_i g_i` with
:math:`\phi_i = 1/d` (linear) or :math:`\tfrac{2}{\sqrt\pi d}e^{-z_i^2}` (erf), so per head the
three sums :math:`\sum\phi_i\tilde\gamma_i v_i`, :math:`\sum\phi_i\gamma_i\tilde\gamma_i^2 v_i`,
:math:`\sum\phi_i\gamma_i v_i` give the gradient in one pass too; every term is rounded at
the scale it has in the two-pass path (no argmax form there), so they need no fallback.
Batched ``V`` or batched queries keep the two-pass path.
"""

from __future__ import annotations

import math

import torch

from numeric.attention import check_attention, map_unchecked, map_vjp_unchecked
from numeric.validation import (check_device, check_dtype, check_finite, check_float_tensor, check_int,
                                check_like, check_real, check_support, reject)
from numeric.xor_forms import ClosedFormState


# --------------------------------------------------------------------------- validation


def check_model(V, theta, theta_tilde, support, attention):
    """Validate the common arguments; returns ``(a, b, batch_shape)``."""
    check_attention(attention)
    check_float_tensor(V, "V", min_dim=2)
    d, m = V.shape[-2], V.shape[-1]
    if d < 2:
        reject("V", f"<tensor of shape {tuple(V.shape)}>",
               "shape (*batch, d, m) with d >= 2 positions")
    if m < 1:
        reject("V", f"<tensor of shape {tuple(V.shape)}>",
               "shape (*batch, d, m) with an embedding dimension m >= 1")
    batch = V.shape[:-2]
    for name, t in (("theta", theta), ("theta_tilde", theta_tilde)):
        check_float_tensor(t, name, min_dim=1)
        check_like(t, name, V, "V")
        if t.shape[-1] != m:
            reject(name, f"<tensor of shape {tuple(t.shape)}>",
                   f"shape (*batch, m) with m = {m} to match V of shape {tuple(V.shape)}")
        check_finite(t, name)
        try:
            batch = torch.broadcast_shapes(batch, t.shape[:-1])
        except RuntimeError:
            reject(name, f"<tensor of shape {tuple(t.shape)}>",
                   f"batch dimensions that broadcast with {tuple(batch)} (V and the "
                   "parameters before it)")
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
            check_finite(V, "V")
        reject("theta", "<query>", "logits V @ theta within the float range (they overflow); "
               "reduce |theta|")
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


# --------------------------------------------------------------------------- one pass over V
#
# Blocks of rows of V: an iterable of (start, V[start:start + r]) pairs; a materialised V is
# cut into slices, a streamed one (numeric.xor_stream) generates them on demand.

# rows of V per block in the one-pass gradient: 16 MiB (re-read from the last-level cache; on the
# development machine about 1.25x faster than blocks of 1 MiB that fit in L2, which pay more
# per-block calls and thinner GEMMs: bench/xor.py, docs/performance.md)
_ONE_PASS_BLOCK_BYTES = 1 << 24
_GPU_BLOCK_BYTES = 1 << 28
_FALLBACK_RATIO = 16.0
_HOST_BRANCH = True              # see _one_pass_grad: tolerated loss of accuracy vs two passes


def _block_rows(m, itemsize, device):
    """Rows of ``V`` per block: 16 MiB on the CPU (the block is read again from cache),
    large on a GPU (fewer kernel launches)."""
    size = _GPU_BLOCK_BYTES if torch.device(device).type != "cpu" else _ONE_PASS_BLOCK_BYTES
    return max(64, size // (m * itemsize))


def _slices(V, rows):
    for s in range(0, V.shape[0], rows):
        yield s, V[s:s + rows]


def _weights_of_block(Z, d, attention):
    if attention == "linear":
        return Z / d
    return torch.erf(Z) / d


class _Sums:
    r"""What one pass over the blocks of ``V`` accumulates for both heads (softmax: relative to
    the running maximum ``M`` of each head's logits, as in online softmax).

    Rows of the block weights ``E`` (6, r): :math:`e_1, e_2, e_1^2, e_2^2, e_1e_2, e_1^2e_2^2`
    with :math:`e_h = \exp(z_h - M_h)` (softmax) or :math:`e_h = \gamma_h` (linear, erf),
    zero at ``a`` and ``b`` (sums over R); linear and erf add :math:`|e_1|, |e_2|`.
    ``S`` holds their sums, ``Mom`` (6, m) the weighted row sums :math:`E V_{block}`.
    """

    def __init__(self, Th, d, a, b, attention, moments):
        dev, dt = Th.device, Th.dtype
        self.Th, self.d, self.a, self.b, self.att, self.moments = Th, d, a, b, attention, moments
        self.soft = attention == "softmax"
        # host-side test of the rare max update on the CPU (free there); on a GPU the update is
        # branch-free, so that nothing waits for the device
        self.branch = dev.type == "cpu" and _HOST_BRANCH
        ncol = 6 if self.soft else 8
        self.S = torch.zeros(ncol, dtype=dt, device=dev)
        self.Mom = torch.zeros(6, Th.shape[-1], dtype=dt, device=dev) if moments else None
        self.M = torch.full((2,), -math.inf, dtype=dt, device=dev)
        self.lo = torch.full((2,), math.inf, dtype=dt, device=dev)
        self.zk = torch.zeros(2, 2, dtype=dt, device=dev)           # logits at each head's argmax
        self.kidx = torch.zeros(2, dtype=torch.int64, device=dev)   # argmax of each head
        self.za = self.zb = self.va = self.vb = None
        self.Mh = [-math.inf, -math.inf]

    def _rescale(self, Mn):
        al = torch.exp(self.M - Mn)          # 0 on the first block (M = -inf)
        p = al[0] * al[1]
        f = torch.stack((al[0], al[1], al[0] * al[0], al[1] * al[1], p, p * p))
        self.S.mul_(f)
        if self.moments:
            self.Mom.mul_(f[:, None])
        self.M = Mn

    def _update_max(self, Z2, bmax, s, barg=None):
        if barg is None:
            barg = Z2.argmax(1)
        upd = bmax > self.M
        self.zk = torch.where(upd[:, None], Z2[:, barg].T, self.zk)
        self.kidx = torch.where(upd, barg + s, self.kidx)
        self._rescale(torch.maximum(self.M, bmax))
        if self.branch:
            self.Mh = self.M.tolist()

    def add(self, s, Vb):
        r = Vb.shape[0]
        a, b = self.a, self.b
        # (2, r): the form Th @ Vb^T streams the block once; the moments below then read it
        # again from cache
        Z = Z2 = torch.mm(self.Th, Vb.T)
        if s <= a < s + r:
            self.za, self.va = Z2[:, a - s].clone(), Vb[a - s].clone()
        if s <= b < s + r:
            self.zb, self.vb = Z2[:, b - s].clone(), Vb[b - s].clone()
        if self.soft:
            if self.branch:
                # CPU: the running maximum rarely changes; test it on the host and find the
                # argmax only then
                lo, bmax = torch.aminmax(Z2, dim=1)
                bm = bmax.tolist()
                if bm[0] > self.Mh[0] or bm[1] > self.Mh[1]:
                    self._update_max(Z2, bmax, s)
            else:
                lo, (bmax, barg) = Z2.amin(1), Z2.max(1)
                self._update_max(Z2, bmax, s, barg)
            self.lo = torch.minimum(self.lo, lo)
            W = torch.empty(6, r, dtype=Z.dtype, device=Z.device)   # e1, e2, e1^2, ...
            torch.exp(Z - self.M[:, None], out=W[0:2])
            torch.mul(W[0:2], W[0:2], out=W[2:4])
            torch.mul(W[0], W[1], out=W[4])
            torch.mul(W[4], W[4], out=W[5])
        else:
            self.lo = torch.minimum(self.lo, Z2.amin(1))
            E = _weights_of_block(Z, self.d, self.att)
            W = torch.empty(8, r, dtype=Z.dtype, device=Z.device)
            W[0:2] = E
            torch.mul(E, E, out=W[2:4])
            torch.mul(E[0], E[1], out=W[4])
            torch.mul(W[4], W[4], out=W[5])
            torch.abs(E, out=W[6:8])
        for p in (a, b):
            if s <= p < s + r:
                W[:, p - s] = 0
        self.S += W.sum(1)
        if not self.moments:
            return
        if self.soft:
            self.Mom.addmm_(W[:6], Vb)
            return
        # linear, erf: per head h (other head o) the rows phi_h gamma_o, phi_h gamma_h gamma_o^2,
        # phi_h gamma_h, with phi = 1 (linear) or exp(-z_h^2) (erf; constants at the end)
        g1, g2 = W[0], W[1]                                     # zero at a and b
        phi = torch.exp(-Z * Z) if self.att == "erf" else None
        Wm = torch.empty(6, r, dtype=Z.dtype, device=Z.device)
        for h, (gh, go) in enumerate(((g1, g2), (g2, g1))):
            torch.mul(gh, go * go, out=Wm[3 * h + 1])
            Wm[3 * h] = go
            Wm[3 * h + 2] = gh
            if phi is not None:
                Wm[3 * h:3 * h + 3] *= phi[h]
        self.Mom.addmm_(Wm, Vb)

    def finish(self, check_V=None):
        """Normalise: returns the :class:`ClosedFormState` (from sums) and stores the scales."""
        parts = [self.S, self.M if self.soft else self.S, self.lo, self.za, self.zb]
        if self.moments:
            parts.append(self.Mom)
        if not all(bool(torch.isfinite(t).all()) for t in parts):
            if check_V is not None:
                check_V()
            reject("theta", "<query>", "logits V @ theta within the float range (they "
                   "overflow); reduce |theta|")
        if self.soft:
            ea, eb = torch.exp(self.za - self.M), torch.exp(self.zb - self.M)
            tot = self.S[0:2] + ea + eb                  # sum of all e_i per head (>= 1)
            self.tot = tot
            ga, gb, SR = ea / tot, eb / tot, self.S[0:2] / tot
        else:
            ga, gb = _weights_of_block(self.za, self.d, self.att), \
                _weights_of_block(self.zb, self.d, self.att)
            tot = torch.ones(2, dtype=ga.dtype, device=ga.device)
            self.tot = tot
            SR = self.S[0:2]
        t12 = tot[0] * tot[1]
        N = self.S[2:4] / (tot * tot)
        P, Q = self.S[4] / t12, self.S[5] / (t12 * t12)
        self.state = ClosedFormState.from_sums(ga, gb, SR, N, P, Q, self.a, self.b, self.att)
        return self.state


def _sums_pass(blocks, Th, d, a, b, attention, moments, check_V=None, progress=None):
    acc = _Sums(Th, d, a, b, attention, moments)
    for s, Vb in blocks:
        acc.add(s, Vb)
        if progress is not None:
            progress(min(d, s + Vb.shape[0]))
    acc.finish(check_V)
    return acc


def _one_pass_grad(acc):
    r"""Softmax gradient from the sums of one pass (derivation: module docstring), or None
    where the moment combination would cancel (the caller then runs two passes)."""
    st, a, b = acc.state, acc.a, acc.b
    ga, gb, N, P, Q, c0, ca, cb = st.ga, st.gb, st.N, st.P, st.Q, st.c0, st.ca, st.cb
    Ga, Gb = st.support_grad()
    full_o = (N + ga * ga + gb * gb).flip(-1)       # ||gamma~||^2 for head 1, ||gamma||^2 for head 2
    SRG = 4 * c0 * P - 4 * Q + 2 * full_o * N      # sum_R gamma_i g_i per head (terms >= 0)
    gG = SRG + ga * Ga + gb * Gb                    # gamma . g per head
    Wa, Wb = ga * (Ga - gG), gb * (Gb - gG)
    kidx = acc.kidx.tolist()
    tot = acc.tot
    for h in (0, 1):
        o = 1 - h
        if kidx[h] == a:        # saturated on a: gamma_a (c_a g_a - sum_{j != a} gamma_j g_j)
            Wa[h] = ga[h] * (ca[h] * Ga[h] - (SRG[h] + gb[h] * Gb[h]))
        elif kidx[h] == b:
            Wb[h] = gb[h] * (cb[h] * Gb[h] - (SRG[h] + ga[h] * Ga[h]))
        else:
            # argmax k in R: its term gamma_k (g_k - gamma.g) is rounded at the scale
            # gamma_k (|g_k| + |gamma.g|), the two-pass path's at |W_k| (exact form) plus the
            # rounding scale of the other terms, which both paths share
            gk = torch.exp(acc.zk[h, h] - acc.M[h]) / tot[h]
            gko = torch.exp(acc.zk[h, o] - acc.M[o]) / tot[o]
            Gk = 4 * (c0 - gk * gko) * gko + 2 * full_o[h] * gk
            T = gk * (Gk.abs() + gG[h].abs())
            Wk = gk * ((1 - gk) * Gk - (gG[h] - gk * Gk))
            rest = (SRG[h] + (ga[h] * Ga[h]).abs() + (gb[h] * Gb[h]).abs() - gk * Gk.abs()
                    ).clamp_min(0) + gG[h].abs() * (1 - gk)
            if bool(T > _FALLBACK_RATIO * (Wk.abs() + rest)):
                return None
    t1, t2 = tot[0], tot[1]
    t12 = t1 * t2
    Mom = acc.Mom           # rows: e1, e2, e1^2, e2^2, e1 e2, e1^2 e2^2 (sums over R)
    C = Mom[4] / t12
    D = Mom[5] / (t12 * t12)
    out = []
    for h, th in ((0, t1), (1, t2)):
        A, B = Mom[h] / th, Mom[2 + h] / (th * th)
        g = 4 * c0 * C - 4 * D + 2 * full_o[h] * B - gG[h] * A
        out.append(g + Wa[h] * acc.va + Wb[h] * acc.vb)
    return out[0], out[1]


def _one_pass_grad_poly(acc):
    r"""Linear and erf gradient from the sums of one pass: :math:`W_i = \phi_i g_i` with
    :math:`\phi = 1/d` (linear) or :math:`\tfrac{2}{\sqrt\pi d}e^{-z_i^2}` (erf) and, on R,
    :math:`g_i = 4c_0\tilde\gamma_i - 4\gamma_i\tilde\gamma_i^2 + 2\|\tilde\gamma\|^2\gamma_i`:
    every term is rounded at the scale it has in the two-pass path (no normalisation, no
    argmax form), so no fallback is needed."""
    st, d = acc.state, acc.d
    ga, gb, N, c0 = st.ga, st.gb, st.N, st.c0
    Ga, Gb = st.support_grad()
    full_o = (N + ga * ga + gb * gb).flip(-1)
    if acc.att == "linear":
        scale, pa, pb = 1.0 / d, 1.0, 1.0
    else:
        scale = 2.0 / math.sqrt(math.pi) / d
        pa, pb = torch.exp(-acc.za * acc.za), torch.exp(-acc.zb * acc.zb)
    Wa, Wb = pa * Ga, pb * Gb
    Mom = acc.Mom
    out = []
    for h in (0, 1):
        g = 4 * c0 * Mom[3 * h] - 4 * Mom[3 * h + 1] + 2 * full_o[h] * Mom[3 * h + 2]
        out.append(scale * (g + Wa[h] * acc.va + Wb[h] * acc.vb))
    return out[0], out[1]


def _two_pass_grad(blocks_fn, Th, d, a, b, attention, acc, progress=None):
    r"""Exact gradient in two passes over the blocks (the first is ``acc``): the logit
    cotangent of :meth:`ClosedFormState.logit_cotangent` row by row, with the softmax
    argmax term :math:`\gamma_k(c_k g_k - \sum_{j\ne k}\gamma_j g_j)` from sums of the second
    pass. For blocks generated on demand (a materialised ``V`` uses the full-vector path)."""
    st = acc.state
    ga, gb, N, c0 = st.ga, st.gb, st.N, st.c0
    Ga, Gb = st.support_grad()
    full_o = (N + ga * ga + gb * gb).flip(-1)
    soft = attention == "softmax"
    dt, dev = Th.dtype, Th.device
    out = torch.zeros(2, Th.shape[-1], dtype=dt, device=dev)
    if soft:
        SRG = 4 * c0 * st.P - 4 * st.Q + 2 * full_o * N
        gG = SRG + ga * Ga + gb * Gb
        kidx = acc.kidx.tolist()
        cK = torch.zeros(2, dtype=dt, device=dev)
        dotK = torch.zeros(2, dtype=dt, device=dev)
        gk = torch.zeros(2, dtype=dt, device=dev)
        Gk = torch.zeros(2, dtype=dt, device=dev)
        vk = torch.zeros(2, Th.shape[-1], dtype=dt, device=dev)
    for s, Vb in blocks_fn():
        r = Vb.shape[0]
        Z = Vb @ Th.T
        if soft:
            Gam = torch.exp(Z - acc.M) / acc.tot
        else:
            Gam = _weights_of_block(Z, d, attention)
        prod = Gam[:, 0] * Gam[:, 1]
        G = 4 * (c0 - prod)[:, None] * Gam.flip(-1) + 2 * full_o * Gam
        if s <= a < s + r:
            G[a - s] = Ga
        if s <= b < s + r:
            G[b - s] = Gb
        if soft:
            Wt = Gam * (G - gG)
            GamK = Gam
            for h in (0, 1):
                k = kidx[h]
                if s <= k < s + r:
                    gk[h], Gk[h], vk[h] = Gam[k - s, h], G[k - s, h], Vb[k - s]
                    Wt[k - s, h] = 0
                    GamK = GamK.clone() if GamK is Gam else GamK
                    GamK[k - s, h] = 0
            cK += GamK.sum(0)                   # sum_{j != k} gamma_j: no 1 - gamma_k formed
            dotK += (GamK * G).sum(0)
        elif attention == "linear":
            Wt = G / d
        else:
            Wt = (2.0 / math.sqrt(math.pi) / d) * torch.exp(-Z * Z) * G
        out.addmm_(Wt.T, Vb)
        if progress is not None:
            progress(min(d, s + r))
    if soft:
        out += (gk * (cK * Gk - dotK))[:, None] * vk
    return out[0], out[1]


# --------------------------------------------------------------------------- sampling


def _batch_shape(batch_shape):
    try:
        shp = tuple(batch_shape)
    except TypeError:
        reject("batch_shape", batch_shape, "a tuple of non-negative integers")
    return tuple(check_int(s, f"batch_shape[{i}]", lo=0) for i, s in enumerate(shp))


def _randn(shape, generator, dtype, device):
    """Gaussian sample drawn on the generator's device (reproducible), then moved."""
    device = check_device(device, "device")
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
    G = _randn((*_batch_shape(batch_shape), m), generator, dtype, device)
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
    (evaluated without cancellation near a solution, :mod:`numeric.xor_forms`) and
    :math:`J` the Jacobian of the map; for softmax
    :math:`\nabla_\theta L = V^\top(\gamma\odot(g - (\gamma\cdot g)\mathbf 1))`. Cost
    :math:`O(dm)`: with ``V`` of shape ``(d, m)`` and queries ``(m,)``, one pass over ``V``
    (weighted row sums, with online-softmax rescaling for softmax: module docstring) and a
    fallback to two passes where the softmax sums would cancel; batched, exactly two passes.

    Args: as :func:`population_loss`.

    Returns:
        ``(grad_theta, grad_theta_tilde)``, each of shape ``(*batch, m)``.
    """
    a, b, batch = check_model(V, theta, theta_tilde, support, attention)
    if V.dim() == 2 and theta.dim() == 1 and theta_tilde.dim() == 1:
        d, m = V.shape
        Th = torch.stack((theta, theta_tilde))
        acc = _sums_pass(_slices(V, _block_rows(m, V.element_size(), V.device)), Th, d, a, b,
                         attention, True, check_V=lambda: check_finite(V, "V"))
        res = _one_pass_grad(acc) if attention == "softmax" else _one_pass_grad_poly(acc)
        if res is not None:
            return res
    Z = head_logits(V, theta, theta_tilde, batch)
    W = ClosedFormState(Z, a, b, attention).logit_cotangent(Z, attention)
    grad = _weight_pullback(V, W)
    return grad[..., 0, :], grad[..., 1, :]


def _check_lr(lr, batch, ref):
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
    n, d = check_int(n, "n", lo=1), check_int(d, "d", lo=2)
    a, b = check_support(support, d)
    dtype = check_dtype(dtype)
    shape = (*_batch_shape(batch_shape), n, d)
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
