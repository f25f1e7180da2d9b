r"""Embeddings generated block by block, never materialised, and the two-head model on them.

:class:`StreamedEmbeddings` stands for a ``(d, m)`` matrix ``V`` of unit rows (normalised
Gaussians, as :func:`numeric.xor.sample_embeddings`) of which only one block of rows exists at
a time: block ``k`` (rows ``k*block .. (k+1)*block - 1``) is drawn from its own generator,
``numpy.random.SFC64(SeedSequence((seed, k)))``, on the CPU in float64, normalised, then cast
and moved to the device. A block therefore depends on ``(seed, k)`` only: the same ``V`` comes
back block by block in any order, on any device, in any worker. (SFC64 seeded per block rather
than a Philox counter: it draws normals twice as fast here, ~8 ns against ~16 ns, and seeding
by ``(seed, k)`` gives the same independence of order.) The random stream differs from
:func:`numeric.xor.sample_embeddings` (a torch generator over the whole matrix): for the same
seed a streamed and a materialised instance are different draws of the same distribution;
:meth:`StreamedEmbeddings.materialize` returns the streamed ``V`` itself.

Memory: ``O(block * m)`` per worker (a few blocks in flight while the next are drawn).

The functions below take a :class:`StreamedEmbeddings` in place of ``V`` (unbatched: ``theta``
and ``theta_tilde`` of shape ``(m,)``) and compute what :mod:`numeric.xor` computes, in passes
over the generated blocks (a pass regenerates ``V``; generation dominates the time):

- :func:`stream_loss`: one pass; :func:`stream_grad`, :func:`stream_loss_and_grad`: one pass
  (the weighted row sums of :mod:`numeric.xor`), two for a softmax head saturated
  off the support, where the softmax moment combination would cancel (the exact row-by-row
  cotangent);
- :func:`stream_one_step`; :func:`stream_step_metrics`: the entries of
  :func:`numeric.xor.step_metrics` with ``exact_sup=False`` (loss after the step, the
  success criterion, ``eps1, eps2``, the assignment, attention on the support, ``sup_bound``),
  one pass, which with ``limit_from`` also gives the attention of the :math:`\eta\to\infty` step
  on the support (:func:`numeric.xor.limit_step_attention`);
  :func:`stream_predicted_assignment`: the two support rows only.

``numeric.xor.population_loss``, ``population_grad`` and ``one_step`` also accept a
:class:`StreamedEmbeddings` and dispatch here.
"""

from __future__ import annotations

import math
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from numeric.validation import (check_bool, check_device, check_dtype, check_finite,
                                check_float_tensor, check_int, check_real, check_seed, check_support, reject)
from numeric.xor._attention import attention_map_of, limit_of
from numeric.xor._blocks import ONE_PASS_BLOCK_BYTES, one_pass_grad, sums_pass, two_pass_grad
from numeric.xor._population import check_lr

MAX_MATERIALIZE = 1 << 27          # entries of V that materialize() builds
_DEFAULT_BLOCK_BYTES = 1 << 24     # rows generated per block: ~16 MiB of float64


class StreamedEmbeddings:
    r"""Unit-row embeddings ``V`` (d x m) generated on demand, block by block (module docstring).

    Args:
        d: positions (>= 2). m: embedding dimension (>= 1). seed: integer in [0, 2^63).
        block: rows per generated block (default: ~16 MiB of float64, at least 1024 rows).
        dtype: float64 (default) or float32. device: where the blocks are used ("cpu", "cuda").
        workers: threads that draw blocks ahead (default: ``torch.get_num_threads()``).

    Raises:
        InputError: for any argument out of range.
    """

    is_streamed = True

    def __init__(self, d, m, seed, *, block=None, dtype=torch.float64, device="cpu",
                 workers=None):
        self.d = check_int(d, "d", lo=2)
        self.m = check_int(m, "m", lo=1)
        self.seed = check_seed(seed, "seed")
        if block is None:
            block = max(1024, _DEFAULT_BLOCK_BYTES // (8 * self.m))
        self.block = min(check_int(block, "block", lo=1), self.d)
        self.dtype = check_dtype(dtype)
        dev = check_device(device)
        if dev.type == "cuda" and dev.index is None:
            dev = torch.device("cuda", torch.cuda.current_device())
        self.device = dev
        if workers is None:
            workers = max(1, torch.get_num_threads())
        self.workers = check_int(workers, "workers", lo=1, hi=256)
        self.n_blocks = -(-self.d // self.block)

    @property
    def shape(self):
        return (self.d, self.m)

    def __repr__(self):
        return (f"StreamedEmbeddings(d={self.d}, m={self.m}, seed={self.seed}, block={self.block}, "
                f"dtype={self.dtype}, device='{self.device}')")

    def block_bytes(self):
        """Bytes of one generated block (float64 on the CPU, plus its cast on the device)."""
        itemsize = torch.tensor([], dtype=self.dtype).element_size()
        return self.block * self.m * (8 + itemsize)

    def _draw(self, k):
        start = k * self.block
        r = min(self.block, self.d - start)
        rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence((self.seed, k))))
        G = torch.from_numpy(rng.standard_normal((r, self.m)))
        G /= torch.linalg.vector_norm(G, dim=1, keepdim=True)
        return G.to(dtype=self.dtype, device=self.device)

    def block_at(self, k):
        """Rows ``k*block ..`` of ``V`` (``(r, m)``, on the device)."""
        k = check_int(k, "k", lo=0, hi=self.n_blocks - 1)
        return self._draw(k)

    def generated(self):
        """``(k, block k)`` for every block in order, drawn ahead by ``workers`` threads
        (numpy draws without the GIL)."""
        if self.workers == 1 or self.n_blocks == 1:
            for k in range(self.n_blocks):
                yield k, self._draw(k)
            return
        ahead = 2 * self.workers
        with ThreadPoolExecutor(self.workers) as ex:
            pending = deque()
            nxt = 0
            for k in range(self.n_blocks):
                while nxt < self.n_blocks and len(pending) < ahead:
                    pending.append(ex.submit(self._draw, nxt))
                    nxt += 1
                yield k, pending.popleft().result()

    def blocks(self, rows=None):
        """``(start, V[start:start + r])`` over all of ``V``, in slices of ``rows`` rows of the
        generated blocks (default: the cache-sized slices of the one-pass gradient)."""
        if rows is None:
            itemsize = torch.tensor([], dtype=self.dtype).element_size()
            rows = max(64, ONE_PASS_BLOCK_BYTES // (self.m * itemsize))
        if self.device.type != "cpu":
            rows = self.block
        for k, B in self.generated():
            base = k * self.block
            for s in range(0, B.shape[0], rows):
                yield base + s, B[s:s + rows]

    def rows(self, index):
        """Rows ``V[index]`` for a list of indices (only their blocks are drawn)."""
        idx = [check_int(i, f"index[{j}]", lo=0, hi=self.d - 1) for j, i in enumerate(index)]
        cache = {}
        out = []
        for i in idx:
            k = i // self.block
            if k not in cache:
                cache[k] = self._draw(k)
            out.append(cache[k][i - k * self.block])
        return torch.stack(out) if out else torch.empty(0, self.m, dtype=self.dtype,
                                                         device=self.device)

    def materialize(self):
        """The whole ``V`` (``(d, m)``), for small ``d * m <= 2^27`` (tests)."""
        if self.d * self.m > MAX_MATERIALIZE:
            reject("d * m", self.d * self.m, f"at most {MAX_MATERIALIZE} entries to materialize "
                   "(use the streamed functions instead)")
        return torch.cat([B for _, B in self.generated()])


# --------------------------------------------------------------------------- validation


def check_streamed(E, theta, theta_tilde, support):
    """Validate the embeddings, query and support arguments of the streamed functions (the
    public functions resolve their ``attention`` before, once); returns ``(a, b, Th)``."""
    if not isinstance(E, StreamedEmbeddings):
        reject("V", f"<{type(E).__name__}>", "a StreamedEmbeddings")
    for name, t in (("theta", theta), ("theta_tilde", theta_tilde)):
        check_float_tensor(t, name, min_dim=1)
        if tuple(t.shape) != (E.m,):
            reject(name, f"<tensor of shape {tuple(t.shape)}>",
                   f"shape ({E.m},): one query of the m = {E.m} columns of the streamed V "
                   "(streamed runs are unbatched)")
        if t.dtype != E.dtype or t.device != E.device:
            reject(name, f"<tensor of dtype {t.dtype} on {t.device}>",
                   f"dtype {E.dtype} on {E.device}, those of the streamed V")
        check_finite(t, name)
    a, b = check_support(support, E.d)
    return a, b, torch.stack((theta, theta_tilde))


def _progress(progress, d):
    if progress is None:
        return None
    return lambda done: progress(done, d)


# --------------------------------------------------------------------------- population


def _pass(E, Th, a, b, amap, moments, progress):
    return sums_pass(E.blocks(), Th, E.d, a, b, amap, moments,
                      progress=_progress(progress, E.d))


def stream_loss(E, theta, theta_tilde, support, attention="softmax", progress=None):
    """Population loss (as :func:`numeric.xor.population_loss`), one pass over ``V``.

    Args:
        E: :class:`StreamedEmbeddings`. theta, theta_tilde: ``(m,)`` on ``E``'s dtype/device.
        progress: optional ``callable(rows_done, d)`` called after each block.

    Returns:
        0-dim tensor.
    """
    amap = attention_map_of(attention)
    a, b, Th = check_streamed(E, theta, theta_tilde, support)
    return _pass(E, Th, a, b, amap, False, progress).state.loss()


def stream_loss_and_grad(E, theta, theta_tilde, support, attention="softmax", progress=None):
    r"""``(loss, grad_theta, grad_theta_tilde)`` at once: one pass (two where the softmax
    moment combination would cancel, see :func:`numeric.xor.population_grad`).
    ``progress(rows_done, d)`` counts every pass (``rows_done`` restarts at 0)."""
    amap = attention_map_of(attention)
    a, b, Th = check_streamed(E, theta, theta_tilde, support)
    return _loss_and_grad(E, Th, a, b, amap, progress)


def _loss_and_grad(E, Th, a, b, amap, progress):
    acc = _pass(E, Th, a, b, amap, True, progress)
    loss = acc.state.loss()
    res = one_pass_grad(acc)
    if res is None:
        res = two_pass_grad(E.blocks, Th, E.d, a, b, amap, acc,
                             progress=_progress(progress, E.d))
    return loss, res[0], res[1]


def stream_grad(E, theta, theta_tilde, support, attention="softmax", progress=None):
    """Gradient (as :func:`numeric.xor.population_grad`): ``(grad_theta, grad_theta_tilde)``."""
    _, g, gt = stream_loss_and_grad(E, theta, theta_tilde, support, attention, progress)
    return g, gt


def stream_one_step(E, theta, theta_tilde, support, lr, attention="softmax", progress=None):
    """One population gradient step (as :func:`numeric.xor.one_step`)."""
    amap = attention_map_of(attention)
    a, b, Th = check_streamed(E, theta, theta_tilde, support)
    eta = check_lr(lr, (), theta)
    _, g, gt = _loss_and_grad(E, Th, a, b, amap, progress)
    return theta - eta * g, theta_tilde - eta * gt


def stream_predicted_assignment(E, theta, support):
    r""":math:`\mathrm{sign}((v_a - v_b)\cdot\theta)` (as
    :func:`numeric.xor.predicted_assignment`), from the two support rows."""
    a, b, _ = check_streamed(E, theta, theta, support)
    va, vb = E.rows([a, b])
    return torch.sign(((va - vb) * theta).sum())


class _LimitArgmax:
    r"""The :math:`\eta\to\infty` attention of :func:`numeric.xor.limit_step_attention`
    on the support, accumulated block by block: per head the maximum of :math:`s = -V\nabla L`,
    how many rows attain it (exact ties split the weight evenly) and :math:`s_a, s_b`."""

    def __init__(self, grads, d, a, b, amap):
        self.S = -torch.stack(grads)                      # (2, m)
        self.d, self.a, self.b = d, a, b
        self.map = amap
        self.top = [-math.inf, -math.inf]
        self.count = [0, 0]
        self.sa = self.sb = None

    def add(self, s, Vb):
        r = Vb.shape[0]
        Z = torch.mm(self.S, Vb.T)                        # (2, r)
        if s <= self.a < s + r:
            self.sa = Z[:, self.a - s].clone()
        if s <= self.b < s + r:
            self.sb = Z[:, self.b - s].clone()
        if not self.map.normalised:
            return
        # normalised map: the limit is the argmax of s, ties split evenly
        bmax = Z.amax(1)
        for h, v in enumerate(bmax.tolist()):
            if v > self.top[h]:
                self.top[h], self.count[h] = v, int((Z[h] == v).sum())
            elif v == self.top[h]:
                self.count[h] += int((Z[h] == v).sum())

    def attention(self):
        """``(2, 2)``: rows the heads, columns the weight on ``a`` and on ``b``."""
        out = torch.empty(2, 2, dtype=self.S.dtype, device=self.S.device)
        for h in (0, 1):
            for j, v in enumerate((self.sa[h], self.sb[h])):
                if self.map.normalised:
                    out[h, j] = (1.0 / self.count[h]) if float(v) == self.top[h] else 0.0
                else:
                    out[h, j] = self.map.limit(v, self.d)
        return out


def _tapped(blocks, *consumers):
    for s, Vb in blocks:
        for c in consumers:
            c.add(s, Vb)
        yield s, Vb


def stream_step_metrics(E, theta, theta_tilde, support, eps=0.01, attention="softmax",
                        exact_sup=False, progress=None, limit_from=None):
    r"""What :func:`numeric.xor.step_metrics` reports with ``exact_sup=False``, one
    pass over ``V``: ``attn_a_head1, attn_b_head1, attn_a_head2, attn_b_head2, eps1, eps2,
    success, assignment, loss, sup_bound`` (same definitions and the same accurate forms:
    :math:`\epsilon = \sum_{j\ne p}\gamma_j` for softmax, shares of :math:`\|\gamma\|_1` for
    linear and erf). ``exact_sup`` must be False (no enumeration of :math:`2^d` inputs here).

    ``limit_from``: the gradient ``(grad_theta, grad_theta_tilde)`` of the step; then the same
    pass also gives the attention of the :math:`\eta\to\infty` step on the support
    (:func:`numeric.xor.limit_step_attention` at ``a`` and ``b``):
    ``limit_attn_a_head1, limit_attn_b_head1, limit_attn_a_head2, limit_attn_b_head2`` (softmax
    or erf; linear has no such limit).
    """
    eps = check_real(eps, "eps", lo=0, hi=0.5, lo_open=True, hi_open=True)
    check_bool(exact_sup, "exact_sup")
    if exact_sup:
        reject("exact_sup", exact_sup, "False: streamed embeddings have no exact sup "
               "(use step_metrics on a materialised V with d <= 20)")
    amap = attention_map_of(attention)
    a, b, Th = check_streamed(E, theta, theta_tilde, support)
    limit = None
    if limit_from is not None:
        limit_of(amap)
        if not isinstance(limit_from, (tuple, list)) or len(limit_from) != 2:
            reject("limit_from", f"<{type(limit_from).__name__}>",
                   "a pair (grad_theta, grad_theta_tilde)")
        check_streamed(E, limit_from[0], limit_from[1], support)
        limit = _LimitArgmax(tuple(limit_from), E.d, a, b, amap)
        blocks = _tapped(E.blocks(), limit)
    else:
        blocks = E.blocks()
    acc = sums_pass(blocks, Th, E.d, a, b, amap, False, progress=_progress(progress, E.d))
    st = acc.state
    normalised = amap.normalised
    if normalised:
        ca, cb = st.ca, st.cb
        l1 = None
    else:
        # as step_metrics: theta = 0 gives gamma = 0, no share on the support (eps = 1)
        l1 = acc.S[6:8] + st.ga.abs() + st.gb.abs()
        pos = l1 > 0
        ca = 1 - torch.where(pos, st.ga / torch.where(pos, l1, 1), 0)
        cb = 1 - torch.where(pos, st.gb / torch.where(pos, l1, 1), 0)
    plus = (1 + 2 * ca[0]) * (1 + 2 * cb[1])
    minus = (1 + 2 * cb[0]) * (1 + 2 * ca[1])
    swap = minus < plus
    eps1 = torch.where(swap, cb[0], ca[0])
    eps2 = torch.where(swap, ca[1], cb[1])
    ga, gb = st.ga, st.gb
    if normalised:
        sup_bound = 2 * eps2 + 2 * eps1 + 4 * eps1 * eps2
    else:
        gp = torch.where(swap, gb[0], ga[0])
        gq = torch.where(swap, ga[1], gb[1])
        r1 = (l1[0] - gp.abs()).clamp_min(0)
        r2 = (l1[1] - gq.abs()).clamp_min(0)
        sup_bound = (1 - gp * gq).abs() + gp.abs() * r2 + gq.abs() * r1 + r1 * r2
    out = {
        "attn_a_head1": ga[0], "attn_b_head1": gb[0],
        "attn_a_head2": ga[1], "attn_b_head2": gb[1],
        "eps1": eps1, "eps2": eps2,
        "success": (eps1 <= eps) & (eps2 <= eps),
        "assignment": torch.where(swap, -1, 1).to(torch.int64),
        "loss": st.loss(),
        "sup_bound": sup_bound,
    }
    if limit is not None:
        lim = limit.attention()
        for h in (0, 1):
            out[f"limit_attn_a_head{h + 1}"] = lim[h, 0]
            out[f"limit_attn_b_head{h + 1}"] = lim[h, 1]
    return out


def streamed_instance(d, m, seed, *, tag=1, block=None, dtype=torch.float64, device="cpu",
                      workers=None):
    r"""A streamed instance: ``(E, support, theta0, theta_tilde0)``.

    Conventions of :func:`verify.experiments.xor_sweeps.make_instances` and ``cell_support``
    where they do not need ``O(d)`` memory: the initial query is drawn by
    :func:`numeric.xor.sample_init` from ``torch.Generator().manual_seed(instance_seed(tag,
    d, m, seed))`` (but as that generator's first draw: ``V`` is not drawn from it), and the
    support from ``instance_seed(tag, d, m, 7)`` by two ``randint`` draws (``cell_support``
    uses ``randperm(d)``, which needs ``8 d`` bytes). ``V`` is :class:`StreamedEmbeddings`
    with ``seed = instance_seed(tag, d, m, seed)``. So a streamed instance differs from the
    materialised one of the same ``(d, m, seed)``.
    """
    from numeric.xor._population import sample_init

    d, m = check_int(d, "d", lo=2), check_int(m, "m", lo=1)
    seed = check_seed(seed, "seed")
    tag = check_int(tag, "tag", lo=0)
    key = instance_seed(tag, d, m, seed)
    E = StreamedEmbeddings(d, m, key, block=block, dtype=dtype, device=device, workers=workers)
    gs = torch.Generator().manual_seed(instance_seed(tag, d, m, 7))
    a = int(torch.randint(d, (1,), generator=gs))
    b = int(torch.randint(d - 1, (1,), generator=gs))
    b += b >= a
    th, _ = sample_init(m, generator=torch.Generator().manual_seed(key), dtype=dtype)
    th = th.to(E.device)
    return E, (a, b), th, -th


def instance_seed(*parts) -> int:
    """A deterministic 63-bit seed from integer parts (splitmix-style mixing); the instances of
    the sweeps (:mod:`verify.experiments.xor_sweeps`) are seeded by it as well."""
    h = 0x9E3779B97F4A7C15
    for p in parts:
        h ^= (int(p) + 0x9E3779B97F4A7C15 + (h << 6) + (h >> 2)) & 0xFFFFFFFFFFFFFFFF
        h = (h * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        h ^= h >> 31
    return h & 0x7FFFFFFFFFFFFFFF
