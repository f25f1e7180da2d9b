r"""Passes over blocks of rows of ``V`` for the two-head model, shared by the materialised
(:mod:`numeric.xor`) and the streamed (:mod:`numeric.xor`) paths.

Blocks of rows of ``V`` are an iterable of ``(start, V[start:start + r])`` pairs: a materialised
``V`` is cut into :func:`slices`, a streamed one generates them on demand. What depends on the
attention map is read from its :class:`numeric.xor._attention.AttentionMap`.

One read of ``V`` (softmax)
---------------------------
With :math:`g = \partial L/\partial\gamma`, :math:`\nabla_\theta L = V^\top(\gamma\odot(g -
(\gamma\cdot g)\mathbf 1)) = \sum_i W_i v_i`, :math:`W_i = \gamma_i(g_i - \gamma\cdot g)`. Differentiating
the residual form of :mod:`numeric.xor` (:math:`R = [d]\setminus\{a,b\}`), for
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
of :class:`~numeric.xor._forms.ClosedFormState`), and :math:`g_a, g_b` in their non-cancelling
forms. The support rows are kept out of the sums and added exactly, with
:math:`W_a = \gamma_a(c_a g_a - \sum_{j\ne a}\gamma_j g_j)` when head 1 is saturated on ``a``
(likewise ``b`` and head 2), as in :meth:`~numeric.xor._forms.ClosedFormState.logit_cotangent`.

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

import numpy as np
import torch

from numeric.xor._attention import AttentionMap
from numeric.validation import reject
from numeric.xor._forms import ClosedFormState
from numeric.xor._path import pullback_backend

PULLBACK_BLOCK_BYTES = 1 << 19      # rows of V per block in the pull-back: ~512 KiB (cache)


def weight_pullback(V, W, backend=None):
    """``W V``: (*batch, 2, d) x (*batch, d, m) -> (*batch, 2, m), one pass over ``V``.

    On CPU the product is accumulated over blocks of rows of ``V`` that stay in cache, so
    that both heads use each block while it is hot (a single ``(2, d) x (d, m)`` GEMM streams
    ``V`` about twice on this CPU build: measured in ``bench/xor.py``); a ``V`` that stays in
    cache is one product. ``backend``: the library whose BLAS runs the product with an unbatched
    ``V`` and at most 8 queries (``None``: this machine's measured choice,
    :func:`numeric.xor._path.pullback_backend`; torch's MKL took twice numpy's OpenBLAS time on
    an AMD EPYC).
    """
    d, m = V.shape[-2], V.shape[-1]
    rows = max(64, PULLBACK_BLOCK_BYTES // (m * V.element_size()))
    if V.device.type != "cpu":
        return torch.matmul(W, V)
    if V.dim() == 2 and W.numel() <= 8 * d:      # more queries: the GEMM is efficient
        Wf = W.reshape(-1, d)
        if (backend or pullback_backend()) == "numpy" and not (V.requires_grad or W.requires_grad):
            with np.errstate(all="ignore"):          # an overflow is the caller's to see, as in torch
                out = numpy_pullback(V.numpy(), Wf.numpy())
            return torch.from_numpy(out).reshape(*W.shape[:-1], m)
        if d <= 4 * rows:
            return torch.matmul(W, V)
        out = torch.zeros(Wf.shape[0], m, dtype=V.dtype, device=V.device)
        for s in range(0, d, rows):
            out.addmm_(Wf[:, s:s + rows], V[s:s + rows])
        return out.reshape(*W.shape[:-1], m)
    if d <= 4 * rows or V.dim() == 2 or V.shape[:-2] != W.shape[:-2]:
        return torch.matmul(W, V)
    Vf, Wf = V.reshape(-1, d, m), W.reshape(-1, W.shape[-2], d)
    out = torch.zeros(Wf.shape[0], Wf.shape[1], m, dtype=V.dtype, device=V.device)
    for s in range(0, d, rows):
        out.baddbmm_(Wf[:, :, s:s + rows], Vf[:, s:s + rows])
    return out.reshape(*W.shape[:-1], m)


def numpy_pullback(Vn, Wn):
    """``Wn @ Vn`` for numpy arrays ``Wn`` (k, d) and ``Vn`` (d, m) on numpy's BLAS, as
    :func:`weight_pullback` runs it: one product where ``V`` stays in cache, else over blocks of
    rows."""
    d, m = Vn.shape
    rows = max(64, PULLBACK_BLOCK_BYTES // (m * Vn.itemsize))
    if d <= 4 * rows:
        return Wn @ Vn
    acc = np.zeros((Wn.shape[0], m), dtype=Vn.dtype)
    for s in range(0, d, rows):
        acc += Wn[:, s:s + rows] @ Vn[s:s + rows]
    return acc


# --------------------------------------------------------------------------- one pass over V
#
# Blocks of rows of V: an iterable of (start, V[start:start + r]) pairs; a materialised V is
# cut into slices, a streamed one (numeric.xor) generates them on demand.

# rows of V per block in the streamed one-pass gradient: 16 MiB (re-read from the last-level
# cache; on the development machine about 1.25x faster than blocks of 1 MiB that fit in L2, which
# pay more per-block calls and thinner GEMMs: bench/xor.py, docs/performance.md). A materialised
# V takes the block size that numeric.xor derives from this machine's cache.
ONE_PASS_BLOCK_BYTES = 1 << 24
GPU_BLOCK_BYTES = 1 << 28
FALLBACK_RATIO = 16.0
HOST_BRANCH = True              # see normalised_one_pass_grad: tolerated loss of accuracy vs two passes


def block_rows(m, itemsize, device):
    """Rows of ``V`` per block: 16 MiB on the CPU (the block is read again from cache),
    large on a GPU (fewer kernel launches)."""
    size = GPU_BLOCK_BYTES if torch.device(device).type != "cpu" else ONE_PASS_BLOCK_BYTES
    return max(64, size // (m * itemsize))


def slices(V, rows):
    for s in range(0, V.shape[0], rows):
        yield s, V[s:s + rows]


class BlockSums:
    r"""What one pass over the blocks of ``V`` accumulates for both heads (softmax: relative to
    the running maximum ``M`` of each head's logits, as in online softmax).

    Rows of the block weights ``E`` (6, r): :math:`e_1, e_2, e_1^2, e_2^2, e_1e_2, e_1^2e_2^2`
    with :math:`e_h = \exp(z_h - M_h)` (softmax) or :math:`e_h = \gamma_h` (linear, erf),
    zero at ``a`` and ``b`` (sums over R); linear and erf add :math:`|e_1|, |e_2|`.
    ``S`` holds their sums, ``Mom`` (6, m) the weighted row sums :math:`E V_{block}`.
    ``amap``: the :class:`AttentionMap` resolved by the public function.
    """

    def __init__(self, Th, d, a, b, amap: AttentionMap, moments):
        dev, dt = Th.device, Th.dtype
        self.Th, self.d, self.a, self.b, self.moments = Th, d, a, b, moments
        self.map = amap
        self.soft = self.map.normalised
        # host-side test of the rare max update on the CPU (free there); on a GPU the update is
        # branch-free, so that nothing waits for the device
        self.branch = dev.type == "cpu" and HOST_BRANCH
        ncol = 6 if self.soft else 8
        self.S = torch.zeros(ncol, dtype=dt, device=dev)
        self.Mom = torch.zeros(6, Th.shape[-1], dtype=dt, device=dev) if moments else None
        self.ThT = Th.T                     # a view: MKL's kernel for it was 2x faster than for a copy
        # the moments' products on the BLAS measured faster for this (6, r) x (r, m) shape (as the
        # pull-back W V: numeric.xor._path); numpy's view of Mom shares its memory, so the rescaling
        # of Mom below acts on what numpy adds to
        self.mom_np = (self.Mom.numpy() if moments and dev.type == "cpu" and pullback_backend() == "numpy"
                       else None)
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
        # (2, r), as a view of Vb @ Th^T: with the block on the left the BLAS streams it once
        # (the form Th @ Vb^T took 4x as long on an AMD EPYC); the moments below read it again
        # from cache
        Z = Z2 = torch.mm(Vb, self.ThT).T
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
            E = self.map.pointwise(Z, self.d)
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
            self._add_moments(W[:6], Vb)
            return
        # linear, erf: per head h (other head o) the rows phi_h gamma_o, phi_h gamma_h gamma_o^2,
        # phi_h gamma_h, with phi = 1 (linear) or exp(-z_h^2) (erf; constants at the end)
        g1, g2 = W[0], W[1]                                     # zero at a and b
        phi = self.map.slope(Z) if self.map.slope is not None else None
        Wm = torch.empty(6, r, dtype=Z.dtype, device=Z.device)
        for h, (gh, go) in enumerate(((g1, g2), (g2, g1))):
            torch.mul(gh, go * go, out=Wm[3 * h + 1])
            Wm[3 * h] = go
            Wm[3 * h + 2] = gh
            if phi is not None:
                Wm[3 * h:3 * h + 3] *= phi[h]
        self._add_moments(Wm, Vb)

    def _add_moments(self, W, Vb):
        if self.mom_np is not None:
            self.mom_np += W.numpy() @ Vb.numpy()
        else:
            self.Mom.addmm_(W, Vb)

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
            ga, gb = self.map.pointwise(self.za, self.d), self.map.pointwise(self.zb, self.d)
            tot = torch.ones(2, dtype=ga.dtype, device=ga.device)
            self.tot = tot
            SR = self.S[0:2]
        t12 = tot[0] * tot[1]
        N = self.S[2:4] / (tot * tot)
        P, Q = self.S[4] / t12, self.S[5] / (t12 * t12)
        self.state = ClosedFormState.from_sums(ga, gb, SR, N, P, Q, self.a, self.b, self.map)
        return self.state


def sums_pass(blocks, Th, d, a, b, amap, moments, check_V=None, progress=None):
    acc = BlockSums(Th, d, a, b, amap, moments)
    for s, Vb in blocks:
        acc.add(s, Vb)
        if progress is not None:
            progress(min(d, s + Vb.shape[0]))
    acc.finish(check_V)
    return acc


def normalised_one_pass_grad(acc):
    r"""Softmax (normalised) gradient from the sums of one pass (derivation: module
    docstring), or None where the moment combination would cancel (the caller then runs two
    passes)."""
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
            if bool(T > FALLBACK_RATIO * (Wk.abs() + rest)):
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


def one_pass_grad(acc):
    """The gradient from the sums of one pass (:func:`normalised_one_pass_grad` or
    :func:`pointwise_one_pass_grad`, as the map is), or None where the caller must run
    :func:`two_pass_grad`."""
    if acc.map.normalised:
        return normalised_one_pass_grad(acc)
    return pointwise_one_pass_grad(acc)


def pointwise_one_pass_grad(acc):
    r"""Linear and erf gradient from the sums of one pass: :math:`W_i = \phi_i g_i` with
    :math:`\phi = 1/d` (linear) or :math:`\tfrac{2}{\sqrt\pi d}e^{-z_i^2}` (erf) and, on R,
    :math:`g_i = 4c_0\tilde\gamma_i - 4\gamma_i\tilde\gamma_i^2 + 2\|\tilde\gamma\|^2\gamma_i`:
    every term is rounded at the scale it has in the two-pass path (no normalisation, no
    argmax form), so no fallback is needed."""
    st, d = acc.state, acc.d
    ga, gb, N, c0 = st.ga, st.gb, st.N, st.c0
    Ga, Gb = st.support_grad()
    full_o = (N + ga * ga + gb * gb).flip(-1)
    amap = acc.map
    scale = amap.slope_scale(d)
    if amap.slope is None:
        pa, pb = 1.0, 1.0
    else:
        pa, pb = amap.slope(acc.za), amap.slope(acc.zb)
    Wa, Wb = pa * Ga, pb * Gb
    Mom = acc.Mom
    out = []
    for h in (0, 1):
        g = 4 * c0 * Mom[3 * h] - 4 * Mom[3 * h + 1] + 2 * full_o[h] * Mom[3 * h + 2]
        out.append(scale * (g + Wa[h] * acc.va + Wb[h] * acc.vb))
    return out[0], out[1]


def two_pass_grad(blocks_fn, Th, d, a, b, amap, acc, progress=None):
    r"""Exact gradient in two passes over the blocks (the first is ``acc``): the logit
    cotangent of :meth:`ClosedFormState.logit_cotangent` row by row, with the softmax
    argmax term :math:`\gamma_k(c_k g_k - \sum_{j\ne k}\gamma_j g_j)` from sums of the second
    pass. For blocks generated on demand (a materialised ``V`` uses the full-vector path)."""
    st = acc.state
    ga, gb, N, c0 = st.ga, st.gb, st.N, st.c0
    Ga, Gb = st.support_grad()
    full_o = (N + ga * ga + gb * gb).flip(-1)
    soft = amap.normalised
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
            Gam = amap.pointwise(Z, d)
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
        else:
            Wt = amap.cotangent(Z, G, d)
        out.addmm_(Wt.T, Vb)
        if progress is not None:
            progress(min(d, s + r))
    if soft:
        out += (gk * (cK * Gk - dotK))[:, None] * vk
    return out[0], out[1]
