r"""Several training runs of one cell trained together (claim SG-8's cells): the runs of
:func:`verify.experiments.training.train` at many seeds, one batched step for all of them.

The models' parameters are stacked and one ``torch.func.vmap`` of the forward pass and loss runs
over the runs; one backward pass of the sum of the runs' losses gives each run its own gradient
(the sum's gradient in run ``i``'s parameters is run ``i``'s), and AdamW, elementwise, updates each
run as its own optimiser would. A step of a small model costs mostly the dispatch of many small
kernels, so training nine runs at once costs far less than nine runs one after another.

A run's bits do not depend on the other runs of its group nor on their order (SG-8 checks it);
they are not the bits of :func:`~verify.experiments.training.train` (a batched matrix product adds in
another order, and float32 training carries such differences far).
"""

from __future__ import annotations

import copy
import time

import torch
from torch.func import functional_call, stack_module_state, vmap

from numeric.boolean import labels
from numeric.validation import InputError, check_seed
from verify.experiments.training import (
    DEFAULT_LR, Batches, TrainResult, build_model, check_finite_loss, evaluate, examples_seen, pinned_threads,
    train_result, training_data, training_loss, validate_options,
)

#: the fewest runs :func:`fit_runs` trains at once (smaller groups get copies of their first run):
#: ``vmap`` over one run takes other kernels than over two or more, which agree run by run
SMALLEST_GROUP = 2


class _Outputs(torch.nn.Module):
    """``T(x)`` of a :class:`~numeric.transformer.BooleanTransformer` on bits made by the training
    loop (0/1 by construction): the model's checked-bits path, which ``torch.func.vmap`` can run."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model.run_bits(x, False, False)[0].reshape(-1)


def fit_runs(models, targets, N, pools, gens, *, steps, batch_size, loss, lr, weight_decay, dtype,
             device, seeds, on_batch=None) -> list[dict]:
    r""":func:`~verify.experiments.training.fit` for several runs of one shape at once (the module
    docstring); run ``i`` keeps its own target ``targets[i]`` and data stream ``(pools[i], gens[i])``. A group smaller than
    :data:`SMALLEST_GROUP` is trained beside copies of its first run (whose results are dropped),
    since ``vmap`` over a single run takes other kernels than over several. ``on_batch``: ``None``
    or one callback per run. The trained parameters are written back into ``models``.

    Returns:
        per run, the dict of :func:`~verify.experiments.training.fit`; ``train_time_s`` is the
        group's time shared evenly.
    """
    batch_loss = training_loss(loss).batch_loss
    runs = len(models)
    copies = max(0, SMALLEST_GROUP - runs)
    group = [_Outputs(m) for m in models] + [_Outputs(copy.deepcopy(models[0])) for _ in range(copies)]
    params, buffers = stack_module_state(group)
    skeleton = copy.deepcopy(group[0]).to("meta")

    def run_loss(p, b, x, y):
        return batch_loss(functional_call(skeleton, (p, b), (x,)), y)

    losses_of = vmap(run_loss)
    opt = torch.optim.AdamW(list(params.values()), lr=lr, weight_decay=weight_decay)
    streams = [Batches(N, pool, batch_size, gen) for pool, gen in zip(pools, gens)]
    curves, every, last = [[] for _ in range(runs)], max(1, steps // 100), [float("nan")] * runs
    t0 = time.perf_counter()
    for step in range(1, steps + 1):
        xs = [stream.next() for stream in streams]
        ys = [labels(target, xb).to(device=device, dtype=dtype) for target, xb in zip(targets, xs)]
        if on_batch is not None:
            for callback, xb, yb in zip(on_batch, xs, ys):
                callback(step, xb, yb)
        xs, ys = xs + xs[:1] * copies, ys + ys[:1] * copies
        ell = losses_of(params, buffers, torch.stack(xs).to(device), torch.stack(ys))
        opt.zero_grad(set_to_none=True)
        ell.sum().backward()
        opt.step()
        last = ell.detach()[:runs].tolist()
        for value, seed, target in zip(last, seeds, targets):
            check_finite_loss(value, step, target, N, seed)
        if step % every == 0 or step == steps:
            for curve, value in zip(curves, last):
                curve.append((step, value))
    elapsed = time.perf_counter() - t0
    with torch.no_grad():
        for i, outputs in enumerate(group[:runs]):
            for name, p in outputs.named_parameters():
                p.copy_(params[name][i])
    examples = examples_seen(steps, batch_size, pools[0])
    return [dict(loss_curve=curve, final_loss=value, examples_seen=examples, train_time_s=elapsed / runs)
            for curve, value in zip(curves, last)]


def train_runs(target, N: int, seeds, *, config=None, init: str = "xavier_uniform", steps: int = 400,
               lr: float = DEFAULT_LR, weight_decay: float = 0.01, loss: str = "bce", batch_size: int = 128,
               train_strings: int | None = None, test_samples: int = 2**14, profile_samples: int = 2048,
               exact: bool | None = None, confidence: float = 0.95, dtype="float64", device="cpu",
               chunk: int = 8192, init_kw: dict | None = None, on_batch=None) -> list[TrainResult]:
    """The runs of :func:`~verify.experiments.training.train` at each of ``seeds`` (same options), trained together by
    :func:`fit_runs` and each evaluated as :func:`~verify.experiments.training.train` evaluates: one :class:`TrainResult` per
    seed, in order. For the many small runs of one cell: one batched step of all the runs costs
    far less than a step of each. ``target``: one target for every run, or a list of one per seed
    (runs of several cells that share N and the options train as one group). ``on_batch``: ``None``
    or one callback per seed (:func:`~verify.experiments.training.fit`).
    The transformer's layer norms need ``eps > 0`` here (the ``eps = 0`` check branches on the
    data, which ``vmap`` cannot)."""
    seeds = list(seeds) if isinstance(seeds, (list, tuple, range)) else seeds
    if not isinstance(seeds, list) or not seeds:
        raise InputError(f"seeds = {seeds!r}: expected a non-empty list of seeds")
    for i, s in enumerate(seeds):
        check_seed(s, f"seeds[{i}]")
    targets = [target] * len(seeds) if isinstance(target, str) else target
    if not isinstance(targets, (list, tuple)) or len(targets) != len(seeds):
        raise InputError(f"target = {target!r}: expected a target or a list of one target per seed ({len(seeds)})")
    for t in targets[1:]:
        validate_options(t, N)
    if on_batch is not None and (not isinstance(on_batch, (list, tuple)) or len(on_batch) != len(seeds)):
        raise InputError(f"on_batch = <{type(on_batch).__name__}>: expected None or one callback per seed "
                         f"({len(seeds)})")
    o = validate_options(targets[0], N, init=init, seed=seeds[0], steps=steps, lr=lr,
                         weight_decay=weight_decay, loss=loss, batch_size=batch_size,
                         train_strings=train_strings, test_samples=test_samples,
                         profile_samples=profile_samples, exact=exact, confidence=confidence,
                         dtype=dtype, device=device, chunk=chunk)
    tdtype, dev = o["dtype"], o["device"]
    with pinned_threads(dev):
        built = [build_model(N, config, init, s, tdtype, dev, dict(init_kw or {})) for s in seeds]
        models, cfg = [m for m, _ in built], built[0][1]
        if cfg["eps"] == 0:
            raise InputError("config.eps = 0: train_runs needs eps > 0 (the eps = 0 layer-norm check "
                             "branches on the data, which the batched runs cannot); use train")
        data = [training_data(N, s, train_strings) for s in seeds]
        fitted = fit_runs(models, targets, N, [pool for _, pool, _ in data], [gen for gen, _, _ in data],
                          steps=steps, batch_size=batch_size, loss=loss, lr=o["lr"],
                          weight_decay=o["weight_decay"], dtype=tdtype, device=dev, seeds=seeds,
                          on_batch=on_batch)
        out = []
        for s, target, model, (_, pool, regime), fit_s in zip(seeds, targets, models, data, fitted):
            fixed = pool if regime == "fixed subset" else None
            ev = evaluate(model, target, N, exact=o["exact"], seed=s, held_out_pool=fixed,
                          test_samples=test_samples, profile_samples=profile_samples,
                          confidence=o["confidence"], dtype=tdtype, device=dev, chunk=chunk)
            out.append(train_result(dict(o, seed=s, target=target), init, cfg, regime, model, fixed, fit_s, ev))
    return out


__all__ = ["SMALLEST_GROUP", "fit_runs", "train_runs"]
