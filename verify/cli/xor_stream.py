"""`boolverify xor step --stream …`: one population step with embeddings generated block by
block (:mod:`numeric.xor`), so that ``d`` is limited by time, not memory.

The instance follows :func:`numeric.xor.streamed_instance`: the same seed mixing as
``make_instances``/``cell_support``, but ``V`` is drawn per block and the support by two
``randint`` draws, so a streamed instance is not the materialised instance of the same seed.
Passes over ``V`` (each regenerates it): one for the loss and the gradient (two more only where
the one-pass moments would cancel, or for linear/erf), one for the metrics after the step.
"""

from __future__ import annotations

import time

from numeric.validation import check_int, check_seed, reject
from verify.cli.options import available_memory
from verify.cli.xor_options import check_common, check_lr_constant, check_stream_time, parse_support, report_step

_MEMORY_FRACTION = 0.5      # blocks in flight may use at most this share of the free memory


def _check_args(args):
    check_common(args)
    d = check_int(args.d, "--d", lo=2, hi=2 ** 62)
    m = check_int(args.m, "--m", lo=1, hi=2 ** 20)
    check_seed(args.seed, "--seed")
    if getattr(args, "figure", None):
        reject("--figure", args.figure, "no figure with --stream (the attention vectors have "
               "d entries and are never held in memory)")
    sup = parse_support(args.support, d)
    check_lr_constant(args.c, d, m)
    # the streamed path has no memory limit on d, so time is what bounds it
    check_stream_time(d, m, 1, f"--d = {d}, --m = {m}")
    return d, m, sup


def _check_block_memory(E):
    """Blocks in flight (drawn ahead by the workers, plus the one in use and its slices)."""
    need = (2 * E.workers + 2) * E.block_bytes()
    avail = available_memory()
    if need > _MEMORY_FRACTION * avail:
        reject("--m", E.m, f"blocks that fit in memory: {E.workers} workers x {E.block} rows "
               f"x m = {E.m} need {need / 2**20:.0f} MiB, more than half of the "
               f"{avail / 2**20:.0f} MiB available")
    return need


def streamed_step(args):
    """Handler of ``xor step --stream``: validate, then loss, step and metrics in passes."""
    d, m, sup = _check_args(args)
    import torch

    from numeric import xor
    from numeric.xor import (stream_loss_and_grad, stream_predicted_assignment,
                                    stream_step_metrics, streamed_instance)

    E, support, th0, tt0 = streamed_instance(d, m, args.seed, tag=1)
    if sup is not None:
        support = sup
    need = _check_block_memory(E)
    a, b = support
    att = args.attention
    lr = xor.default_lr(d, m, args.c)
    t0 = time.perf_counter()
    from verify.cli.progress import progress

    # the units are rows of V, reported per block: on a pipe, a line at most every 10 s
    with progress("step --stream", d, unit="rows", every=10.0) as shown:
        state = {"pass": 1, "last": 0}

        def cb(done, total):
            if done < state["last"]:            # a new pass over V
                state["pass"] += 1
                shown.note(f"pass {state['pass']}: gradient (second pass)")
            state["last"] = done
            shown.position(done, total, f"pass {state['pass']}")

        shown.note("pass 1: loss and gradient")
        L0, g, gt = stream_loss_and_grad(E, th0, tt0, support, att, progress=cb)
        th1, tt1 = th0 - lr * g, tt0 - lr * gt
        passes = state["pass"]
        shown.note(f"pass {passes + 1}: metrics after the step")
        shown.position(0)
        met = stream_step_metrics(E, th1, tt1, support, eps=args.eps, attention=att,
                                  progress=lambda done, total: shown.position(done, total, f"pass {passes + 1}"))
    pred = int(stream_predicted_assignment(E, th0, support))
    elapsed = time.perf_counter() - t0
    rows = {"d": d, "m": m, "seed": args.seed, "support": f"({a}, {b})", "attention": att,
            "lr": lr, "loss before": float(L0)}
    for k, v in met.items():
        rows[k] = v.item() if hasattr(v, "item") else v
    rows["predicted assignment sign((v_a-v_b).theta0)"] = pred
    rows["streamed"] = True
    rows["passes over V"] = passes + 1
    rows["block rows"] = E.block
    rows["block memory (MiB)"] = round(need / 2 ** 20, 1)
    rows["threads"] = torch.get_num_threads()
    rows["seconds"] = round(elapsed, 2)
    report_step(rows, "one population step, streamed embeddings (as formalised in boolverify)", args.out)
    return 0


__all__ = ["streamed_step"]
