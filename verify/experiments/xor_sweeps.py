r"""Sweeps of the one-step experiment over ``(d, m, seed)`` and ``(d, n, seed)`` (claims SX-4,
SX-6, SX-8); each cell is a typed record of :mod:`verify.experiments.records`.

Each *cell* (one ``(d, m)`` or ``(d, n)`` pair) runs all its seeds batched: the instances are
drawn per seed from their own generator (so a seed's instance does not depend on the batching),
stacked, and pushed through :mod:`numeric.xor` in chunks that keep the embeddings under
``max_elems`` float64 entries.

*Resumable*: with ``out=PATH`` every completed cell is merged into the results file under a
lock (:func:`verify.common.atomic_io.merge_json_records`: the file is read again, the cell
added unless a cell of the same identity is already there, the union written atomically), and
a rerun skips every cell already present with the same settings; two sweeps into one file
therefore leave the union of their cells, each once. A cell's *identity* is its key without the
settings ``c``, ``eps``, ``dtype``; a cell of the same identity but other settings is refused
before any work. *Progress*: an optional ``progress(done, total, description)`` callback, in
work units proportional to the cost (``d * m`` per seed); this module never imports rich.

*Where*: in this process by default; ``workers=N`` runs the cells as tasks of an embedded Dask
cluster, ``scheduler=ADDRESS`` on a running one (:mod:`verify.experiments.distributed`); this
process stays the only writer of the results file, and the cells are the same either way.

Instance of seed ``s`` in cell ``(d, m)``: a generator seeded by :func:`instance_seed`, then
``V = sample_embeddings(d, m)``, ``theta0 = sample_init(m)``; the support ``(a, b)`` is drawn
once per cell from the cell's own generator (rows of ``V`` are i.i.d., so its location does not
matter statistically; drawing it avoids always testing the same indices).
"""

from __future__ import annotations

import time
from pathlib import Path

import torch

from numeric import xor
from numeric.validation import InputError, check_bool, check_device, check_int, check_ints, check_real, check_seed, check_seeds, reject
from numeric.xor import limit_step_attention, predicted_assignment, step_metrics
from numeric.xor import (instance_seed, stream_loss_and_grad, stream_predicted_assignment,
                                stream_step_metrics, streamed_instance)
from verify.common.atomic_io import config_mismatch, merge_json_records
from verify.experiments import distributed
from verify.experiments.records import (
    SWEEP_SCHEMA, SamplesCell, SweepCell, cell_from_dict, load_results,
)


def cell_support(d, tag, key1):
    """The support ``(a, b)`` of a cell, drawn from the cell's generator."""
    g = torch.Generator().manual_seed(instance_seed(tag, d, key1, 7))
    a, b = torch.randperm(d, generator=g)[:2].tolist()
    return int(a), int(b)


def make_instances(d, m, seeds, *, dtype=torch.float64, tag=0, device=None):
    r"""Stack the instances of ``seeds`` for cell ``(d, m)``.

    Drawn on the CPU from per-seed generators (so an instance does not depend on the device or
    on the batching of seeds), then moved to ``device``.

    Returns:
        ``(V, theta0, theta_tilde0)`` of shapes ``(S, d, m)``, ``(S, m)``, ``(S, m)`` with
        :math:`\tilde\theta^{(0)} = -\theta^{(0)}`.
    """
    seeds = check_seeds(seeds, "seeds")
    S = len(seeds)
    V = torch.empty(S, d, m, dtype=dtype)
    th = torch.empty(S, m, dtype=dtype)
    for k, s in enumerate(seeds):
        g = torch.Generator().manual_seed(instance_seed(tag, d, m, s))
        V[k] = xor.sample_embeddings(d, m, generator=g, dtype=dtype)
        th[k] = xor.sample_init(m, generator=g, dtype=dtype)[0]
    if device is not None:
        V, th = V.to(device), th.to(device)
    return V, th, -th


def check_grid(values, name, lo):
    """A grid of distinct integers ``>= lo`` (:func:`numeric.validation.check_ints`), sorted."""
    vals = check_ints(values, name, lo=lo)
    if len(set(vals)) != len(vals):
        raise InputError(f"{name} = {vals}: expected distinct values")
    return sorted(vals)


#: settings of a cell that must agree with a saved cell of the same identity (the rest of the
#: key, the kind, the grid point and the seed block, is the identity)
CONFIG_FIELDS = ("c", "eps", "dtype")


def cell_identity(key):
    """The identity of a cell key (its fields other than :data:`CONFIG_FIELDS`), as text."""
    if not isinstance(key, dict):
        return repr(key)
    return "(" + ", ".join(f"{k}={key[k]}" for k in sorted(key) if k not in CONFIG_FIELDS) + ")"


def _config(key):
    return {k: key[k] for k in CONFIG_FIELDS if isinstance(key, dict) and k in key}


class CellStore:
    """The cells of a results file (kept as their JSON dicts, so that a file may hold cells of
    several kinds); each new cell is merged into the file under its lock."""

    def __init__(self, out, keys=()):
        self.out = Path(out) if out is not None else None
        self.cells = []
        if self.out is not None and self.out.exists():
            self.cells = load_results(self.out)["cells"]
        self.check(keys)

    def check(self, keys):
        """Refuse keys whose identity is on file with other settings (before any work)."""
        on_file = {cell_identity(c.get("key")): c.get("key") for c in self.cells if isinstance(c, dict)}
        for key in keys:
            old = on_file.get(cell_identity(key))
            diff = config_mismatch(_config(old), _config(key)) if old is not None else ""
            if diff:
                reject("results file", str(self.out),
                       f"cells with the settings of this run; its cell {cell_identity(key)} has {diff}")

    def find(self, key):
        for c in self.cells:
            if isinstance(c, dict) and c.get("key") == key:
                return cell_from_dict(c)
        return None

    def add(self, cell):
        """Save ``cell`` (unless a cell of its identity is already saved); returns the saved cell."""
        rec = cell.as_dict()
        if self.out is None:
            if self.find(cell.key) is None:
                self.cells.append(rec)
        else:
            on_file = {}

            def read(path):
                # the whole file, so that its other top-level fields are written back as they were
                on_file.update(load_results(path))
                return on_file["cells"]

            self.cells = merge_json_records(
                self.out, [rec], lambda c: cell_identity(c.get("key") if isinstance(c, dict) else c),
                config_fn=lambda c: _config(c.get("key") if isinstance(c, dict) else None),
                read=read, wrap=lambda cells: {**on_file, "schema": SWEEP_SCHEMA, "cells": cells},
                what="cell")
        return self.find(cell.key) or cell

    def cached(self, key, run):
        """The saved cell for ``key``, or ``run()``'s cell, saved before it is returned."""
        self.check([key])
        cell = self.find(key)
        if cell is None:
            cell = self.add(run())
        return cell

    def run(self, plan, fn, progress, describe, workers=None, scheduler=None, label="cell"):
        """The cells of ``plan`` (``(key, args, cost)``, ``fn(*args)`` computes the cell of
        ``key``), computing those not saved yet (where :func:`distributed.run_tasks` says) and
        saving each as it completes; returned in the order of ``plan``."""
        self.check([key for key, _, _ in plan])
        total = sum(cost for _, _, cost in plan)
        done, count, todo = 0, 0, []
        for key, args, cost in plan:
            cell = self.find(key)
            if cell is None:
                todo.append((key, args, cost))
                continue
            done, count = done + cost, count + 1
            if progress is not None:
                progress(done, total, f"{describe(cell)} (saved; {count}/{len(plan)} cells)")
        if count and progress is not None:
            progress(done, total, f"resumed from {self.out}: {count} of {len(plan)} cells kept from the file")
        tasks = [(key, args) for key, args, _ in todo]
        for i, cell in distributed.run_tasks(fn, tasks, workers=workers, scheduler=scheduler, label=label):
            cell = self.add(cell)
            done, count = done + todo[i][2], count + 1
            if progress is not None:
                progress(done, total, f"{describe(cell)} ({count}/{len(plan)} cells)")
        return [self.find(key) for key, _, _ in plan]


def seed_chunks(seeds, per_seed_elems, max_elems):
    """Consecutive blocks of ``seeds`` of at most ``max_elems`` elements in all (at least one
    seed per block), ``per_seed_elems`` elements per seed."""
    size = max(1, int(max_elems // max(1, per_seed_elems)))
    for i in range(0, len(seeds), size):
        yield seeds[i : i + size]


def limit_success(g1a, g1b, g2a, g2b, eps):
    """Success of the eta -> infinity step from the attention of head 1 and head 2 on ``a`` and
    ``b`` (tensors of any shape, elementwise)."""
    one = 1.0 - eps
    return ((g1a >= one) & (g2b >= one)) | ((g1b >= one) & (g2a >= one))


def check_eps(eps):
    """The success threshold: a number in (0, 0.5), as :func:`numeric.xor.step_metrics`
    requires (checked before any cell runs)."""
    return check_real(eps, "eps", lo=0, hi=0.5, lo_open=True, hi_open=True)


def run_sweep(ds, ms, n_seeds, *, c=10.0, eps=0.01, seed_offset=0, out=None, progress=None,
              max_elems=2**25, dtype=torch.float64, seeds_for_d=None, device=None, workers=None,
              scheduler=None, stream=False):
    r"""One population step for every ``(d, m)`` cell and ``n_seeds`` seeds (SX-4, SX-8).

    For each seed: :math:`\theta^{(1)} = \theta^{(0)} - \eta\nabla_\theta L` with
    :math:`\eta = c\,d^2\sqrt m\ln d` (:func:`numeric.xor.default_lr`), and the
    :math:`\eta\to\infty` limit (:func:`numeric.xor.limit_step_attention`).

    Args:
        ds, ms: grids of ``d >= 2`` and ``m >= 1``; n_seeds: seeds per cell (``>= 1``), or
            ``seeds_for_d`` a dict ``d -> n_seeds`` overriding it (fewer seeds at large ``d``);
        c: learning-rate constant; eps: success threshold :math:`\varepsilon`;
        out: results file (JSON), resumable; progress: ``callback(done, total, text)``;
        max_elems: largest number of embedding entries held at once; device: where the steps
        run (``"cuda"`` when present; instances are drawn on the CPU either way);
        workers: run the cells on an embedded Dask cluster of that many processes (1..64);
        scheduler: run them on the Dask cluster of this scheduler (``tcp://HOST:8786``);
        stream: embeddings generated block by block (:func:`numeric.xor.streamed_instance`,
            memory ``O(block * m)``, two passes over ``V`` per seed), one seed at a time: for ``d``
            whose ``V`` does not fit in memory. Streamed instances are other draws of the same
            distribution than the materialised ones, so their cells are other cells (the key
            has ``"stream": True``).
    Returns:
        list of :class:`~verify.experiments.records.SweepCell` (``d, m, n_seeds, successes,
        successes_limit, rate, rate_limit, assignment_matches, median_loss, seconds,
        success_bits``).
    """
    ds = check_grid(ds, "ds", 2)
    ms = check_grid(ms, "ms", 1)
    check_int(n_seeds, "n_seeds", lo=1)
    check_eps(eps)
    device = check_device(device)
    check_real(c, "c", lo=0, lo_open=True)
    seeds_for_d = dict(seeds_for_d or {})
    for d, s in seeds_for_d.items():
        check_int(s, f"seeds_for_d[{d}]", lo=1)
    # the cells number their instances seed_offset + 0 .. seed_offset + S - 1
    check_seed(seed_offset, "seed_offset", count=max([n_seeds, *seeds_for_d.values()]))
    check_bool(stream, "stream")
    workers, scheduler = distributed.check_backend(workers, scheduler)
    plan = []
    for d in ds:
        for m in ms:
            S = seeds_for_d.get(d, n_seeds)
            key = {"kind": "step", "d": d, "m": m, "n_seeds": S, "seed_offset": seed_offset, "c": c,
                   "eps": eps, "dtype": str(dtype)}
            if stream:
                key["stream"] = True
            plan.append((key, (d, m, S, key, c, eps, seed_offset, max_elems, dtype, device), d * m * S))
    return CellStore(out).run(plan, _run_stream_cell if stream else _run_cell, progress,
                           lambda cell: f"d={cell.d} m={cell.m}: {cell.successes}/{cell.n_seeds}",
                           workers=workers, scheduler=scheduler, label="step")


def _run_cell(d, m, S, key, c, eps, seed_offset, max_elems, dtype, device=None):
    t0 = time.perf_counter()
    support = cell_support(d, 1, m)
    a, b = support
    lr = xor.default_lr(d, m, c)
    succ, succ_lim, match, losses, bits = 0, 0, 0, [], []
    seeds = list(range(seed_offset, seed_offset + S))
    for chunk in seed_chunks(seeds, d * m, max_elems):
        V, th0, tt0 = make_instances(d, m, chunk, dtype=dtype, device=device)
        th1, tt1 = xor.one_step(V, th0, tt0, support, lr)
        met = step_metrics(V, th1, tt1, support, eps=eps, exact_sup=False)
        g1, gt1 = limit_step_attention(V, th0, tt0, support)
        ok = met["success"].bool()
        ok_lim = limit_success(g1[..., a], g1[..., b], gt1[..., a], gt1[..., b], eps)
        pred = predicted_assignment(V, th0, support)
        realised = met["assignment"].to(pred.dtype)
        succ += int(ok.sum())
        succ_lim += int(ok_lim.sum())
        match += int((ok & (realised == pred)).sum())
        losses += met["loss"].tolist()
        bits += ["1" if o else "0" for o in ok.tolist()]
        del V, th0, tt0, th1, tt1, g1, gt1
    return _sweep_cell(key, d, m, S, support, lr, succ, succ_lim, match, losses, bits, t0)


def _sweep_cell(key, d, m, S, support, lr, succ, succ_lim, match, losses, bits, t0):
    losses = sorted(losses)
    return SweepCell(
        key=key, d=d, m=m, n_seeds=S, support=tuple(support), lr=lr,
        successes=succ, successes_limit=succ_lim, rate=succ / S, rate_limit=succ_lim / S,
        assignment_matches=match, median_loss=losses[len(losses) // 2],
        seconds=time.perf_counter() - t0, success_bits="".join(bits),
    )


def _run_stream_cell(d, m, S, key, c, eps, seed_offset, max_elems, dtype, device=None):
    """A cell of :func:`run_sweep` with streamed instances: per seed one pass for the step,
    one for the metrics and the eta -> infinity limit together (``max_elems`` unused: one
    seed is in flight, a few blocks of it in memory)."""
    t0 = time.perf_counter()
    lr = xor.default_lr(d, m, c)
    succ, succ_lim, match, losses, bits = 0, 0, 0, [], []
    support = None
    for seed in range(seed_offset, seed_offset + S):
        E, support, th0, tt0 = streamed_instance(d, m, seed, tag=1, dtype=dtype,
                                                 device=device or "cpu")
        _, g, gt = stream_loss_and_grad(E, th0, tt0, support)
        met = stream_step_metrics(E, th0 - lr * g, tt0 - lr * gt, support, eps=eps,
                                  limit_from=(g, gt))
        ok = bool(met["success"])
        ok_lim = bool(limit_success(*(met[f"limit_attn_{p}_head{h}"] for h in (1, 2) for p in "ab"),
                                     eps))
        pred = int(stream_predicted_assignment(E, th0, support))
        succ += ok
        succ_lim += ok_lim
        match += ok and int(met["assignment"]) == pred
        losses.append(float(met["loss"]))
        bits.append("1" if ok else "0")
    return _sweep_cell(key, d, m, S, support, lr, succ, succ_lim, match, losses, bits, t0)


def run_samples(ds, ns_for_d, m, n_seeds, *, c=10.0, eps=0.01, seed_offset=0, out=None,
                progress=None, max_elems=2**25, dtype=torch.float64, device=None, workers=None,
                scheduler=None):
    r"""One *empirical*-gradient step for every ``(d, n)`` cell (SX-6).

    :math:`\hat L = \frac1n\sum_k (f(x_k) - y_k)^2` on ``n`` fresh samples per seed, gradient by
    :func:`numeric.xor.empirical_grad`, step with :math:`\eta = c\,d^2\sqrt m\ln d`; success as
    in :func:`run_sweep` (population attention after the step).

    Args:
        ds: grid of ``d``; ns_for_d: dict ``d -> list of n`` (increasing); m: embedding
            dimension; n_seeds: seeds per cell; the rest (``workers``, ``scheduler`` too) as
            :func:`run_sweep`.
    Returns:
        list of :class:`~verify.experiments.records.SamplesCell` (``d, n, m, n_seeds,
        successes, rate, population_successes`` (the population step on the same instances),
        ``both_successes``, ``rate_given_population`` (= both / population: how often ``n``
        samples reproduce a successful population step) and ``seconds``).
    """
    ds = check_grid(ds, "ds", 2)
    check_int(m, "m", lo=1)
    check_int(n_seeds, "n_seeds", lo=1)
    check_seed(seed_offset, "seed_offset", count=n_seeds)
    check_eps(eps)
    device = check_device(device)
    if not isinstance(ns_for_d, dict) or set(ns_for_d) != set(ds):
        raise InputError(f"ns_for_d = {ns_for_d!r}: expected a dict with one list of sample "
                         f"sizes per d in ds = {ds}")
    workers, scheduler = distributed.check_backend(workers, scheduler)
    plan = []
    for d in ds:
        for n in check_grid(ns_for_d[d], f"ns_for_d[{d}]", 1):
            key = {"kind": "samples", "d": d, "n": n, "m": m, "n_seeds": n_seeds,
                   "seed_offset": seed_offset, "c": c, "eps": eps, "dtype": str(dtype)}
            plan.append((key, (d, n, m, n_seeds, key, c, eps, seed_offset, max_elems, dtype, device),
                         n * d * n_seeds))
    return CellStore(out).run(plan, _run_samples_cell, progress,
                           lambda cell: f"d={cell.d} n={cell.n}: {cell.successes}/{cell.n_seeds}",
                           workers=workers, scheduler=scheduler, label="samples")


def _run_samples_cell(d, n, m, S, key, c, eps, seed_offset, max_elems, dtype, device=None):
    t0 = time.perf_counter()
    support = cell_support(d, 2, m)
    lr = xor.default_lr(d, m, c)
    succ, pop_succ, both = 0, 0, 0
    seeds = list(range(seed_offset, seed_offset + S))
    # Samples enter the gradient through an average, so blocks of samples are averaged with
    # weights n_block / n: memory stays under max_elems for any n.
    block = max(1, min(n, int(max_elems // d)))
    for chunk in seed_chunks(seeds, min(n, block) * d + d * m, max_elems):
        V, th0, tt0 = make_instances(d, m, chunk, dtype=dtype, tag=2, device=device)
        # one sample stream per seed: the data of a seed depend neither on the batching of
        # seeds nor on the block size
        gens = [torch.Generator().manual_seed(instance_seed(3, d, n, m, s)) for s in chunk]
        gt = torch.zeros_like(th0)
        gtt = torch.zeros_like(tt0)
        for start in range(0, n, block):
            nb = min(block, n - start)
            pairs = [xor.sample_data(nb, d, support, generator=gs, dtype=dtype) for gs in gens]
            X = torch.stack([p[0] for p in pairs]).to(V.device)
            y = torch.stack([p[1] for p in pairs]).to(V.device)
            del pairs
            g1, g2 = xor.empirical_grad(V, th0, tt0, X, y)
            gt += (nb / n) * g1
            gtt += (nb / n) * g2
            del X, y
        met = step_metrics(V, th0 - lr * gt, tt0 - lr * gtt, support, eps=eps, exact_sup=False)
        th1, tt1 = xor.one_step(V, th0, tt0, support, lr)
        pop = step_metrics(V, th1, tt1, support, eps=eps, exact_sup=False)["success"]
        succ += int(met["success"].sum())
        pop_succ += int(pop.sum())
        both += int((met["success"] & pop).sum())
        del V
    return SamplesCell(key=key, d=d, n=n, m=m, n_seeds=S, support=tuple(support), lr=lr,
                       successes=succ, rate=succ / S,
                       population_successes=pop_succ, both_successes=both,
                       # the question of SX-6: does the n-sample step reproduce the population step?
                       rate_given_population=both / pop_succ if pop_succ else 0.0,
                       seconds=time.perf_counter() - t0)


__all__ = ["instance_seed", "cell_support", "make_instances", "run_sweep", "run_samples",
           "load_results", "SweepCell", "SamplesCell", "CONFIG_FIELDS", "cell_identity", "check_grid",
           "check_eps", "seed_chunks", "limit_success", "CellStore"]
