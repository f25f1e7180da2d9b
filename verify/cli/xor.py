"""`boolverify xor …`: the one-step experiments of paper A (as formalised in boolverify).

- ``xor step --d D --m M --seed S [--figure F]``: one instance, the step's metrics.
- ``xor sweep --d LIST --m LIST --seeds N``: success over ``(d, m)``, ``m*(d)``, fits (SX-4).
- ``xor samples --d LIST --n LIST --m M --seeds N``: empirical-gradient step, ``n*(d)`` (SX-6).
- ``xor compare --d D --m M --seeds N --steps T``: softmax vs linear vs erf (SX-5).

Each prints a rich table, shows a progress bar on long runs, writes results with ``--out FILE``
(atomically; sweep/samples files are resumable) and figures with ``--figure FILE``.
"""

from __future__ import annotations

from numeric.validation import check_device, check_int, check_seed
from verify.cli.options import integer
from numeric.vocabulary import ATTENTIONS
from verify.cli import as_options, needs_subcommand
from verify.cli.options import add_backend_options, check_backend_options
from verify.cli.xor_options import (MAX_SIZE, add_common_options, check_common, check_lr_constant, check_stream_time,
                                    check_xor_memory,
                                    parse_int_list, parse_seeds_for_d, parse_support, report_step)
from verify.cli.xor_stream import streamed_step


def register(sub):
    p = sub.add_parser("xor", help="one-step sparse-XOR experiments (paper A, SX-3 … SX-8)")
    xs = p.add_subparsers(dest="xor_command", metavar="SUBCOMMAND")
    p.set_defaults(func=needs_subcommand(p, xs))

    s = xs.add_parser("step", help="one instance: the population step and its metrics")
    s.add_argument("--d", type=integer, required=True, help="sequence length d, an integer >= 2 (required)")
    s.add_argument("--m", type=integer, required=True, help="embedding dimension m, an integer >= 1 (required)")
    s.add_argument("--seed", type=integer, default=0, help="seed of the instance, 0 .. 2^63 - 1")
    s.add_argument("--support", help="'a,b': the two relevant positions, 0-based, distinct, below d "
                                     "(default: drawn from the seeds of (d, m))")
    s.add_argument("--attention", default="softmax", choices=ATTENTIONS, help="attention of both heads")
    s.add_argument("--stream", action="store_true",
                   help="generate V block by block, never in memory (any d; no --figure)")
    add_common_options(s)
    s.set_defaults(func=_step)

    w = xs.add_parser("sweep", help="success over (d, m), m*(d) and its fits (SX-4)")
    w.add_argument("--d", required=True, help="comma-separated d values, e.g. 100,1000")
    w.add_argument("--m", required=True, help="comma-separated m values, e.g. 8,16,32")
    w.add_argument("--seeds", type=integer, default=100, help="instances per (d, m) cell, an integer >= 1")
    w.add_argument("--seeds-for-d", help="fewer seeds at large d, e.g. 1000000:20 (D among --d, N >= 1; "
                                         "default: --seeds at every d)")
    w.add_argument("--device", default="cpu", help="cpu or cuda (instances are drawn on the CPU either way)")
    w.add_argument("--stream", action="store_true",
                   help="generate each V block by block, never in memory (any d; other instances, "
                        "so other cells, than without --stream)")
    add_backend_options(w, "run the cells")
    add_common_options(w)
    w.set_defaults(func=_sweep)

    n = xs.add_parser("samples", help="empirical-gradient step: n*(d) (SX-6)")
    n.add_argument("--d", required=True, help="comma-separated d values")
    n.add_argument("--n", required=True, help="comma-separated sample sizes (used for every d)")
    n.add_argument("--m", type=integer, default=64, help="embedding dimension m, an integer >= 1")
    n.add_argument("--seeds", type=integer, default=40, help="instances per (d, n) cell, an integer >= 1")
    n.add_argument("--device", default="cpu", help="cpu or cuda (instances are drawn on the CPU either way)")
    add_backend_options(n, "run the cells")
    add_common_options(n)
    n.set_defaults(func=_samples)

    c = xs.add_parser("compare", help="softmax vs linear vs erf attention (SX-5)")
    c.add_argument("--d", type=integer, default=1000, help="sequence length d, an integer >= 2")
    c.add_argument("--m", type=integer, default=32, help="embedding dimension m, 1 .. min(64, d - 1)")
    c.add_argument("--seeds", type=integer, default=50, help="instances of the one-step comparison, an integer >= 1")
    c.add_argument("--train-seeds", type=integer, help="instances trained for T steps, 1 .. --seeds "
                                                      "(default: all --seeds)")
    c.add_argument("--steps", type=integer, default=2000, help="training steps T of gradient descent and Adam, "
                                                              "an integer >= 0")
    add_common_options(c)
    c.set_defaults(func=_compare)


def _step(args):
    if args.stream:
        return streamed_step(args)
    check_common(args)
    check_int(args.d, "--d", lo=2, hi=MAX_SIZE)
    check_int(args.m, "--m", lo=1, hi=MAX_SIZE)
    check_seed(args.seed, "--seed")
    support = parse_support(args.support, args.d)
    check_lr_constant(args.c, args.d, args.m)
    check_xor_memory(args.d, args.m, 1, f"--d = {args.d}, --m = {args.m}", copies=4)
    from verify.cli.options import console

    from numeric import attention_weights, step_metrics, xor
    from verify.experiments.xor_sweeps import cell_support, make_instances

    support = support or cell_support(args.d, 1, args.m)
    a, b = support
    with console().status(f"drawing V ({args.d} x {args.m}) and taking the population step"):
        V, th0, tt0 = make_instances(args.d, args.m, [args.seed])
        V, th0, tt0 = V[0], th0[0], tt0[0]
        lr = xor.default_lr(args.d, args.m, args.c)
        att = args.attention
        L0 = float(xor.population_loss(V, th0, tt0, support, attention=att))
        th1, tt1 = xor.one_step(V, th0, tt0, support, lr, attention=att)
        met = step_metrics(V, th1, tt1, support, eps=args.eps, attention=att,
                           exact_sup=None if args.d <= 20 else False)
    pred = int(xor.predicted_assignment(V, th0, support))
    rows = {"d": args.d, "m": args.m, "seed": args.seed, "support": f"({a}, {b})",
            "attention": att, "lr": lr, "loss before": L0}
    for k, v in met.items():
        v = v.item() if hasattr(v, "item") else v
        rows[k] = v
    rows["predicted assignment sign((v_a-v_b).theta0)"] = pred
    # both heads' attention over the d positions, in the JSON only (the figure's data)
    weights = {"attention_before": [attention_weights(V, th0, att).tolist(), attention_weights(V, tt0, att).tolist()],
               "attention_after": [attention_weights(V, th1, att).tolist(), attention_weights(V, tt1, att).tolist()]}
    report_step(rows, "one population step (as formalised in boolverify)", args.out, weights)
    if args.figure:
        from verify.report.xor_figures import attention_before_after

        attention_before_after(weights["attention_before"], weights["attention_after"], support, args.figure,
                               data=[args.out] if args.out else ())
    return 0


def _sweep(args):
    check_common(args)
    ds = parse_int_list(args.d, "--d", 2)
    ms = parse_int_list(args.m, "--m", 1)
    check_int(args.seeds, "--seeds", lo=1, hi=MAX_SIZE)
    sfd = parse_seeds_for_d(args.seeds_for_d, ds)
    check_device(args.device, "--device")
    for d in ds:
        for m in ms:
            check_lr_constant(args.c, d, m)
    # seeds are batched in chunks of at most 2^25 embedding entries, but one seed is whole
    # (streamed: a few blocks of one seed)
    d, m = max(ds), max(ms)
    if not args.stream:
        check_xor_memory(d, m, 1, f"--d = {args.d}, --m = {args.m}")
    from verify.cli.options import FLOPS_PER_SECOND, require_time

    seeds = max([args.seeds, *sfd.values()])
    require_time(4.0 * sum(ds) * sum(ms) * seeds / FLOPS_PER_SECOND, "the population steps",
                 f"--seeds = {seeds}, --d = {args.d}, --m = {args.m}")
    if args.stream and args.scheduler is None:
        # generation dominates a streamed cell; on a remote cluster its cores are unknown here
        check_stream_time(sum(ds), sum(ms), seeds, f"--seeds = {seeds}, --d = {args.d}, --m = {args.m}")
    scheduler = check_backend_options(args)
    from verify.cli.options import console
    from rich.table import Table

    from verify.experiments.fits import sweep_laws
    from verify.stats.intervals import wilson_interval
    from verify.experiments.xor_sweeps import run_sweep

    from verify.cli.progress import progress

    with progress("sweep", len(ds) * len(ms), unit="cells") as shown, \
            as_options({"results file": "--json", "scheduler": "--scheduler"}):
        cells = run_sweep(ds, ms, args.seeds, c=args.c, eps=args.eps, out=args.out,
                          progress=shown.work, seeds_for_d=sfd, device=args.device,
                          workers=args.workers, scheduler=scheduler, stream=args.stream)
    t = Table(title="one-step success per (d, m) (as formalised in boolverify)")
    for col in ("d", "m", "seeds", "success", "95% Wilson CI", "eta->inf", "assignment ok", "median L", "time (s)"):
        t.add_column(col, justify="right")
    for c in cells:
        lo, hi = wilson_interval(c.successes, c.n_seeds)
        t.add_row(str(c.d), str(c.m), str(c.n_seeds), f"{c.rate:.3f}", f"[{lo:.3f}, {hi:.3f}]",
                  f"{c.rate_limit:.3f}", f"{c.assignment_matches}/{c.successes}",
                  f"{c.median_loss:.2e}", f"{c.seconds:.1f}")
    con = console()
    con.print(t)
    _print_laws(con, lambda: sweep_laws(cells), "m", args.figure, cells, [args.out] if args.out else ())
    return 0


def _print_laws(con, summarise, size, figure, cells, data=()):
    """Thresholds with intervals and, over two or more d, the fitted law (likelihood over all
    cells; :func:`verify.stats.thresholds.law_summary`); ``data``: the results file of the cells."""
    from verify.stats.likelihood import FitFailure

    try:
        summary = summarise()
    except FitFailure as exc:
        con.print(f"{size}*(d): too few cells to fit the success curves ({exc})")
        if figure and size == "m":
            from verify.report.xor_figures import success_heatmap

            success_heatmap(cells, figure, data=data)
        return
    for d, levels in summary["thresholds"].items():
        con.print(f"{size}*(d={d}): " + "; ".join(f"level {q}: {est:.3g} [{lo:.3g}, {hi:.3g}]"
                                         for q, (est, lo, hi) in levels.items()))
    if "power" in summary:
        lo, hi = summary["power"]["interval"]
        con.print(f"power law: {size}*(d) ~ d^alpha, alpha = {summary['power']['alpha']:.3f} [{lo:.3f}, {hi:.3f}] (95 %)")
    if "polylog" in summary:
        lo, hi = summary["polylog"]["interval"]
        con.print(f"polylog law: {size}*(d) ~ (ln d)^k, k = {summary['polylog']['k']:.3f} [{lo:.3f}, {hi:.3f}]; "
                  f"polylog vs power (log-likelihood margin {summary['margin']:g}): {summary['comparison']}")
    if summary["deviance"] > 2 * max(summary["dof"], 1):
        con.print(f"note: deviance {summary['deviance']:.0f} on {summary['dof']} degrees of freedom: the logistic "
                  "shape is approximate and the intervals are optimistic")
    if figure:
        from verify.report.xor_figures import success_heatmap, threshold_law_plot

        if "power" in summary:
            threshold_law_plot(summary, figure, size=size, data=data)
        elif size == "m":
            success_heatmap(cells, figure, data=data)


def _samples(args):
    check_common(args)
    ds = parse_int_list(args.d, "--d", 2)
    ns = parse_int_list(args.n, "--n", 1)
    check_int(args.m, "--m", lo=1, hi=MAX_SIZE)
    check_int(args.seeds, "--seeds", lo=1, hi=MAX_SIZE)
    check_device(args.device, "--device")
    for d in ds:
        check_lr_constant(args.c, d, args.m)
    # samples are drawn in blocks of at most 2^25 entries per seed, beside the embeddings
    check_xor_memory(max(ds), args.m, 1, f"--d = {args.d}, --m = {args.m}", copies=4)
    from verify.cli.options import FLOPS_PER_SECOND, require_time

    require_time(4.0 * sum(ds) * (sum(ns) + args.m) * args.seeds / FLOPS_PER_SECOND,
                 "the sampled gradients", f"--n = {args.n}, --d = {args.d}, --seeds = {args.seeds}")
    scheduler = check_backend_options(args)
    from verify.cli.options import console
    from rich.table import Table

    from verify.experiments.fits import samples_laws
    from verify.stats.intervals import wilson_interval
    from verify.experiments.xor_sweeps import run_samples

    from verify.cli.progress import progress

    with progress("samples", len(ds) * len(ns), unit="cells") as shown, \
            as_options({"results file": "--json", "scheduler": "--scheduler"}):
        cells = run_samples(ds, {d: ns for d in ds}, args.m, args.seeds, c=args.c, eps=args.eps,
                            out=args.out, progress=shown.work, device=args.device,
                            workers=args.workers, scheduler=scheduler)
    t = Table(title=f"empirical-gradient step, m = {args.m} (as formalised in boolverify)")
    for col in ("d", "n", "seeds", "success", "95% Wilson CI", "pop. success", "given pop.", "time (s)"):
        t.add_column(col, justify="right")
    for c in cells:
        lo, hi = wilson_interval(c.successes, c.n_seeds)
        t.add_row(str(c.d), str(c.n), str(c.n_seeds), f"{c.rate:.3f}", f"[{lo:.3f}, {hi:.3f}]",
                  f"{c.population_successes}/{c.n_seeds}", f"{c.rate_given_population:.3f}",
                  f"{c.seconds:.1f}")
    con = console()
    con.print(t)
    # n*(d): samples for the empirical step to reproduce a successful population step
    if any(c.population_successes for c in cells):
        _print_laws(con, lambda: samples_laws(cells), "n", args.figure, cells, [args.out] if args.out else ())
    return 0


def _compare(args):
    check_common(args)
    check_int(args.d, "--d", lo=2, hi=MAX_SIZE)
    check_int(args.m, "--m", lo=1, hi=min(64, args.d - 1))  # the comparison needs m < d, m <= 64
    # upper bounds keep the estimates below finite floats
    check_int(args.seeds, "--seeds", lo=1, hi=MAX_SIZE)
    check_int(args.steps, "--steps", lo=0, hi=MAX_SIZE)
    if args.train_seeds is not None:
        check_int(args.train_seeds, "--train-seeds", lo=1, hi=args.seeds)
    check_lr_constant(args.c, args.d, args.m)
    # all seeds are batched; training keeps parameters, gradients and optimiser state per seed
    options = f"--d = {args.d}, --m = {args.m}, --seeds = {args.seeds}"
    check_xor_memory(args.d, args.m, args.seeds, options, copies=4)
    from verify.cli.options import FLOPS_PER_SECOND, require_time

    train = args.seeds if args.train_seeds is None else args.train_seeds
    require_time(3 * 4.0 * args.d * args.m * train * args.steps / FLOPS_PER_SECOND,
                 f"{args.steps} training steps of three attentions", f"--steps = {args.steps}, --d = {args.d}, --m = {args.m}, --train-seeds = {train}")
    from verify.cli.options import console
    from rich.table import Table

    from verify.experiments.attention_comparison import (
        ONE_STEP_BELOW_KEY, compare, representational_bounds, threshold_text,
    )
    from verify.experiments.claim_rules import SX5

    from verify.cli.progress import progress

    # the units: one step of each attention, then each (attention, optimiser, rate) training run
    with progress("compare", unit="runs") as shown:
        res = compare(args.d, args.m, args.seeds, train_seeds=args.train_seeds, steps=args.steps, eps=args.eps, c=args.c,
                      progress=shown.position)
    bounds = representational_bounds(args.d, args.m)
    t = Table(title=f"d = {args.d}, m = {args.m}, {args.seeds} seeds (training: "
                    f"{res.config['train_seeds']}), T = {args.steps} "
                    "(as formalised in boolverify)")
    for col in ("attention", "1-step median L", f"1-step L<{threshold_text(SX5.one_step_loss_threshold)}", "1-step success",
                "GD median L(T)", "GD success", "Adam median L(T)", "Adam success"):
        t.add_column(col, justify="right")
    for att in ATTENTIONS:
        r = res.results[att]
        o, g, a = r["one_step"], r.get("gd", {}), r.get("adam", {})
        t.add_row(att, f"{o['median_loss']:.3g}", f"{o[ONE_STEP_BELOW_KEY]:.2f}", f"{o['success_rate']:.2f}",
                  _run_cell(g, "median_final_loss", ".3g"), _run_cell(g, "success_rate", ".2f"),
                  _run_cell(a, "median_final_loss", ".3g"), _run_cell(a, "success_rate", ".2f"))
    con = console()
    con.print(t)
    con.print(f"linear attention, best loss over all theta (seed 0) >= {bounds['linear_bound']['bound']:.6f}; "
              f"erf attention >= {bounds['erf_bound']:.6f}")
    data = {**res.as_dict(), **bounds}  # the format of docs/data/xor_compare.json
    if args.out:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.out, data)
    if args.figure:
        from verify.report.xor_figures import loss_curves

        loss_curves(data, args.figure, data=[args.out] if args.out else ())
    return 0


def _run_cell(entry: dict, key: str, fmt: str) -> str:
    # no training run of that optimiser (--steps 0): a dash, not "nan"
    return "—" if key not in entry else format(entry[key], fmt)
