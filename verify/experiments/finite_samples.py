r"""Finite samples (SX-6): does training on ``n`` samples reproduce the population step?

Two regimes, on the same instances and the same samples (a cell ``(d, n)`` and a seed fix both):

- ``"one_step"``: one step of the empirical gradient on ``n`` fresh samples,
  :math:`\theta^{(1)} = \theta^{(0)} - \eta\nabla\hat L`, with the model's step size
  :math:`\eta = c\,d^2\sqrt m\ln d` (:func:`numeric.xor.default_lr`);
- ``"gradient_flow"``: training on a *fixed* sample of ``n`` points until the heads settle: the
  gradient-flow path of :math:`\hat L` from the antisymmetric init, traced by ``steps``
  normalised gradient steps of length ``step_length`` in :math:`(\theta, \tilde\theta)`
  (gradient descent with the step size :math:`h/\|\nabla\hat L\|`). Why not a constant step
  size: with the model's :math:`\eta` the first step saturates the softmax and the later steps
  change almost nothing (the one-step result again), and with constant steps down to
  :math:`3\cdot10^{-4}\eta` the outcome still depends on the step size (the early steps
  overshoot; at d = 32, n = d the success given the population step went 12 -> 23 -> 29 of 52
  for :math:`3, 1, 0.3\cdot10^{-3}\eta`). Normalised steps follow the flow's path whatever the
  flow's speed, and the outcome stops depending on ``step_length`` (seed by seed the same for
  0.1 ... 0.4; ``tests/verify/experiments/test_sample_complexity.py``).

Success is measured with the population metric :func:`numeric.xor.step_metrics` (both heads
at least ``1 - eps`` on the support, one on each position). The population step on the same
instance is run too: ``both_successes`` counts the seeds where both succeed, and the question
of SX-6 is the rate ``both_successes / population_successes``.

Instances and samples: seed ``s`` of cell ``(d, n)`` seeds one generator
(:func:`verify.experiments.xor_sweeps.instance_seed` of ``(TAG, d, n, m, s)``) that draws
``V``, :math:`\theta^{(0)}`, then the samples in blocks of :data:`DATA_BLOCK` rows. Every cell
thus has its own instances (cells are independent, as the binomial fits of SX-6 assume), and
a seed's data depend neither on the batching of seeds nor on ``max_elems``. Inputs are drawn
as 32-bit words (4 bytes, 8 signs each, through a lookup table): about ten times faster than
one random integer per sign.

Resumable like :func:`verify.experiments.xor_sweeps.run_sweep` (``out=PATH``, one atomic
rewrite per finished cell); cells are :class:`~verify.experiments.records.FiniteSampleCell`.
"""

from __future__ import annotations

import math
import time

import torch

from numeric import xor
from numeric.validation import (InputError, check_choice, check_device, check_dtype, check_int, check_real,
                                check_seed)
from verify.experiments.records import FiniteSampleCell
from verify.experiments.xor_sweeps import (check_eps, seed_chunks, check_grid, CellStore, cell_support,
                                          instance_seed)

REGIMES = ("one_step", "gradient_flow")
#: instance_seed tag of this experiment (the sweeps use 0 to 3)
TAG = 4
#: rows per draw from a seed's generator: the unit of the sample stream (fixed, so that the
#: data of a seed do not depend on memory settings)
DATA_BLOCK = 2048
_WORD_BITS = 32


def sample_grid(d, j_lo, j_hi):
    r"""The sample sizes :math:`n_j = \max(1, \mathrm{round}(d\,2^{j/2}))` for
    ``j = j_lo .. j_hi``: the same log-spaced multiples of ``d`` (a factor :math:`\sqrt2`
    apart) at every ``d``; duplicates (at small ``d`` and negative ``j``) are dropped."""
    d = check_int(d, "d", lo=2)
    j_lo = check_int(j_lo, "j_lo")
    j_hi = check_int(j_hi, "j_hi", lo=j_lo)
    return sorted({max(1, int(math.floor(d * 2.0 ** (j / 2) + 0.5)))
                   for j in range(j_lo, j_hi + 1)})


def byte_signs(dtype):
    """``(256, 8)``: row ``v`` holds the signs ``1 - 2 bit_k(v)``, ``k = 0..7``."""
    bits = (torch.arange(256)[:, None] >> torch.arange(8)) & 1
    return (1 - 2 * bits).to(dtype)


def padded_width(d):
    """Columns of a block of drawn inputs: ``d`` rounded up to whole 32-bit words."""
    return -(-d // _WORD_BITS) * _WORD_BITS


def draw_signs(generator, rows, d, signs, out=None):
    r"""``rows`` inputs uniform on :math:`\{\pm1\}^d`, as ``(rows, padded_width(d))``: the
    first ``d`` columns are the inputs, the rest are unused signs of the last word (callers
    give them zero weight instead of copying the block). 32-bit words from ``generator`` are
    split into bytes arithmetically (the same on any byte order) and each byte is looked up
    in ``signs`` (:func:`byte_signs`); ``out``: a ``(rows, padded_width(d))`` buffer."""
    width = padded_width(d)
    w = torch.randint(0, 2**_WORD_BITS, (rows, width // _WORD_BITS), generator=generator,
                      dtype=torch.int64)
    octets = ((w[..., None] >> torch.arange(0, _WORD_BITS, 8)) & 255).reshape(-1)
    if out is None:
        return signs.index_select(0, octets).reshape(rows, width)
    torch.index_select(signs, 0, octets, out=out.view(-1, 8))
    return out


class SampleStream:
    """The samples of a chunk of seeds, block by block (:data:`DATA_BLOCK` rows from each
    seed's generator), into one reused buffer ``(S, rows, padded_width(d))``."""

    def __init__(self, gens, d, n, support, dtype):
        self.gens, self.d, self.n, self.support = gens, d, n, support
        self.signs = byte_signs(dtype)
        self.buffer = torch.empty(len(gens), min(n, DATA_BLOCK), padded_width(d), dtype=dtype)

    def blocks(self):
        """Yield ``(X, y)`` for all ``n`` samples; ``X`` is a view of the buffer (valid until
        the next block)."""
        a, b = self.support
        for start in range(0, self.n, DATA_BLOCK):
            rows = min(DATA_BLOCK, self.n - start)
            X = self.buffer[:, :rows]
            for k, g in enumerate(self.gens):
                draw_signs(g, rows, self.d, self.signs, out=X[k])
            yield X, -X[..., a] * X[..., b]


def _instances(d, n, m, seeds, dtype):
    """Per seed a generator, then ``V`` ``(S, d, m)`` and ``theta0`` ``(S, m)`` drawn from it (the
    generators go on to draw the samples)."""
    gens, V, th = [], [], []
    for s in seeds:
        g = torch.Generator().manual_seed(instance_seed(TAG, d, n, m, s))
        V.append(xor.sample_embeddings(d, m, generator=g, dtype=dtype))
        th.append(xor.sample_init(m, generator=g, dtype=dtype)[0])
        gens.append(g)
    return gens, torch.stack(V), torch.stack(th)


def gamma_grad_sum(X, y, gam):
    r""":math:`\sum_k r_k\,(\tilde\gamma\cdot x_k)\,x_k` and :math:`\sum_k r_k(\gamma\cdot x_k)x_k`
    with :math:`r = f - y`: ``-(n/2)`` times the gradient of :math:`\hat L` in
    :math:`(\gamma, \tilde\gamma)`, summed (not averaged) so that blocks of samples add up.

    Args: ``X`` ``(S, rows, d)``, ``y`` ``(S, rows)``, ``gam`` ``(S, 2, d)`` (both heads).
    Returns: ``(S, 2, d)``.
    """
    proj = torch.matmul(X, gam.mT)                               # (S, rows, 2): gamma.x, gamma~.x
    r = -proj[..., 0] * proj[..., 1] - y
    return torch.matmul((r[..., None] * proj.flip(-1)).mT, X)


def theta_grad(V, gam, g_gamma):
    r"""Pull a gradient in :math:`(\gamma, \tilde\gamma)` back to :math:`(\theta, \tilde\theta)`
    through the softmax: :math:`V^\top(\gamma\odot(g - (\gamma\cdot g)\mathbf 1))` per head.

    Args: ``V`` ``(S, d, m)``, ``gam``, ``g_gamma`` ``(S, 2, d)``. Returns ``(S, 2, m)``.
    """
    w = gam * (g_gamma - (gam * g_gamma).sum(-1, keepdim=True))
    return torch.matmul(w, V)


def _heads(V, th):
    return torch.softmax(torch.matmul(th, V.mT), dim=-1)        # (S, 2, d)


def _success(V, th, support, eps):
    return xor.step_metrics(V, th[:, 0], th[:, 1], support, eps=eps, exact_sup=False)["success"]


def _pad(gam, width):
    """Zero weights on the unused columns of a padded block of inputs."""
    return torch.nn.functional.pad(gam, (0, width - gam.shape[-1]))


def _one_step_chunk(stream, V, th0, n, lr, device):
    d = V.shape[-2]
    gam = _heads(V, th0)
    gam_padded = _pad(gam, padded_width(d))
    acc = torch.zeros_like(gam_padded)
    for X, y in stream.blocks():
        acc += gamma_grad_sum(X.to(device), y.to(device), gam_padded)
    return th0 - lr * theta_grad(V, gam, (-2.0 / n) * acc[..., :d]), None


def _flow_chunk(stream, V, th0, n, steps, step_length, device, support, eps):
    d = V.shape[-2]
    X = torch.empty(V.shape[0], n, padded_width(d), dtype=V.dtype)
    y = torch.empty(V.shape[0], n, dtype=V.dtype)
    for k, (Xb, yb) in enumerate(stream.blocks()):
        X[:, k * DATA_BLOCK:k * DATA_BLOCK + Xb.shape[1]] = Xb
        y[:, k * DATA_BLOCK:k * DATA_BLOCK + Xb.shape[1]] = yb
    X, y = X.to(device), y.to(device)
    th, half = th0, None
    for t in range(1, steps + 1):
        gam = _heads(V, th)
        g_gamma = gamma_grad_sum(X, y, _pad(gam, X.shape[-1]))[..., :d]
        grad = theta_grad(V, gam, (-2.0 / n) * g_gamma)
        norm = torch.linalg.vector_norm(grad.flatten(1), dim=1)
        # a zero gradient (a stationary point) stays where it is
        scale = torch.where(norm > 0, step_length / norm.clamp_min(torch.finfo(norm.dtype).tiny),
                            0.0)
        th = th - scale[:, None, None] * grad
        if t == max(1, steps // 2):
            half = _success(V, th, support, eps)
    return th, half


def run_finite_samples(ds, ns_for_d, m, n_seeds, *, regime="one_step", steps=200, step_length=0.4,
                       c=10.0, eps=0.01, seed_offset=0, out=None, progress=None, max_elems=2**18,
                       dtype=torch.float64, device=None):
    r"""Train on ``n`` samples in one of the :data:`REGIMES` for every ``(d, n)`` cell (SX-6).

    Args:
        ds: grid of ``d >= 2``; ns_for_d: dict ``d -> list of n >= 1`` (e.g. :func:`sample_grid`);
            m: embedding dimension; n_seeds: seeds per cell, ``seed_offset .. seed_offset +
            n_seeds - 1``;
        regime: ``"one_step"`` or ``"gradient_flow"``; steps, step_length: the normalised steps
            of ``"gradient_flow"`` (not used, and not part of the cell's key, for ``"one_step"``);
        c: the constant of the step size :math:`\eta` (of the one step, and of the population
            step every regime is compared with); eps: success threshold;
        out: results file (JSON), resumable; progress: ``callback(done, total, text)``;
        max_elems: float entries of samples held at once: seeds are processed in chunks under
            it (at least one seed); the default keeps a chunk's block of samples in a core's
            cache for the one step; training holds all ``n`` samples of a chunk;
        dtype, device: of the computation (instances and samples are drawn on the CPU).
    Returns:
        list of :class:`~verify.experiments.records.FiniteSampleCell`, in the order of ``ds``
        and then ``n``.
    """
    ds = check_grid(ds, "ds", 2)
    check_int(m, "m", lo=1)
    check_int(n_seeds, "n_seeds", lo=1)
    regime = check_choice(regime, "regime", REGIMES)
    steps = check_int(steps, "steps", lo=1)
    step_length = check_real(step_length, "step_length", lo=0, lo_open=True)
    c = check_real(c, "c", lo=0, lo_open=True)
    eps = check_eps(eps)
    seed_offset = check_seed(seed_offset, "seed_offset", count=n_seeds)
    max_elems = check_int(max_elems, "max_elems", lo=1)
    dtype = check_dtype(dtype)
    device = check_device(device)
    if not isinstance(ns_for_d, dict) or set(ns_for_d) != set(ds):
        raise InputError(f"ns_for_d = {ns_for_d!r}: expected a dict with one list of sample "
                         f"sizes per d in ds = {ds}")
    plan = [(d, n) for d in ds for n in check_grid(ns_for_d[d], f"ns_for_d[{d}]", 1)]
    rounds = steps if regime == "gradient_flow" else 1
    total = sum(n * d * n_seeds * rounds for d, n in plan)
    store, done, cells = CellStore(out), 0, []
    for d, n in plan:
        key = {"kind": "finite_samples", "regime": regime, "d": d, "n": n, "m": m,
               "n_seeds": n_seeds, "seed_offset": seed_offset, "c": c, "eps": eps,
               "dtype": str(dtype)}
        if regime == "gradient_flow":
            key.update(steps=steps, step_length=step_length)
        cell = store.cached(key, lambda: _run_cell(key, max_elems, dtype, device))
        cells.append(cell)
        done += n * d * n_seeds * rounds
        if progress is not None:
            progress(done, total, f"{regime} d={d} n={n}: {cell.both_successes}/"
                                  f"{cell.population_successes}")
    return cells


def _run_cell(key, max_elems, dtype, device):
    t0 = time.perf_counter()
    d, n, m, S = key["d"], key["n"], key["m"], key["n_seeds"]
    regime, eps = key["regime"], key["eps"]
    support = cell_support(d, TAG, n)
    lr = xor.default_lr(d, m, key["c"])
    rows = min(n, DATA_BLOCK) if regime == "one_step" else n
    bits, pop_bits, half_both = [], [], 0
    seeds = list(range(key["seed_offset"], key["seed_offset"] + S))
    for chunk in seed_chunks(seeds, rows * padded_width(d), max_elems):
        gens, V, th0 = _instances(d, n, m, chunk, dtype)
        stream = SampleStream(gens, d, n, support, dtype)
        V, th0 = V.to(device), torch.stack((th0, -th0), dim=1).to(device)     # (S, 2, m)
        if regime == "one_step":
            th, half = _one_step_chunk(stream, V, th0, n, lr, device)
        else:
            th, half = _flow_chunk(stream, V, th0, n, key["steps"], key["step_length"], device,
                                   support, eps)
        ok = _success(V, th, support, eps)
        pop = _success(V, torch.stack(xor.one_step(V, th0[:, 0], th0[:, 1], support, lr), dim=1),
                       support, eps)
        if half is not None:
            half_both += int((half & pop).sum())
        bits += ["1" if v else "0" for v in ok.tolist()]
        pop_bits += ["1" if v else "0" for v in pop.tolist()]
        del V, th0, th
    succ = bits.count("1")
    pop_succ = pop_bits.count("1")
    both = sum(1 for u, v in zip(bits, pop_bits) if u == v == "1")
    return FiniteSampleCell(
        key=key, regime=regime, d=d, n=n, m=m, n_seeds=S, support=tuple(support), lr=lr,
        steps=key.get("steps", 1), step_length=key.get("step_length"),
        successes=succ, rate=succ / S, population_successes=pop_succ, both_successes=both,
        rate_given_population=both / pop_succ if pop_succ else 0.0,
        both_successes_half=half_both if regime == "gradient_flow" else None,
        success_bits="".join(bits), population_bits="".join(pop_bits),
        seconds=time.perf_counter() - t0)


__all__ = ["REGIMES", "TAG", "DATA_BLOCK", "sample_grid", "draw_signs", "SampleStream", "gamma_grad_sum",
           "theta_grad", "run_finite_samples"]
