"""`boolverify xor …`: the one-step experiments of paper A (as formalised in boolverify).

- ``xor step --d D --m M --seed S [--figure F]``: one instance, the step's metrics.
- ``xor sweep --d LIST --m LIST --seeds N``: success over ``(d, m)``, ``m*(d)``, fits (SX-4).
- ``xor samples --d LIST --n LIST --m M --seeds N``: empirical-gradient step, ``n*(d)`` (SX-6).
- ``xor compare --d D --m M --seeds N --steps T``: softmax vs linear vs erf (SX-5).

Each prints a rich table, shows a progress bar on long runs, writes results with ``--out FILE``
(atomically; sweep/samples files are resumable) and figures with ``--figure FILE``.
"""

from __future__ import annotations

from numeric.validation import check_device, check_int, check_real, check_support, reject
from numeric.vocabulary import ATTENTIONS
from verify.common.atomic_io import check_figure_path


def _int_list(text, name, lo):
    """Comma-separated integers (``1e6`` allowed), each ``>= lo``."""
    try:
        vals = [int(float(t)) if "e" in t.lower() else int(t) for t in str(text).split(",") if t.strip()]
    except (ValueError, OverflowError):
        reject(name, text, "comma-separated integers, e.g. 100,1000")
    if not vals:
        reject(name, text, "at least one integer")
    return [check_int(v, name, lo=lo) for v in vals]


def _seeds_for_d(text):
    out = {}
    for part in (text or "").split(","):
        if not part:
            continue
        try:
            d, s = part.split(":")
            out[int(float(d))] = int(s)
        except (ValueError, OverflowError):
            reject("--seeds-for-d", text, "D:N pairs, e.g. 1000000:20")
        check_int(out[int(float(d))], "--seeds-for-d", lo=1)
    return out


def _support(text, d):
    if text is None:
        return None
    try:
        pair = tuple(int(t) for t in text.split(","))
    except ValueError:
        reject("--support", text, "two comma-separated indices 'a,b'")
    return check_support(pair, d, "--support")


def _progress():
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                    TimeElapsedColumn(), TimeRemainingColumn(), transient=True)


def _callback(prog, task):
    def cb(done, total, text):
        prog.update(task, completed=done, total=total, description=text)
    return cb


def _common(p):
    p.add_argument("--c", type=float, default=10.0, help="learning-rate constant: eta = c d^2 sqrt(m) ln d")
    p.add_argument("--eps", type=float, default=0.01, help="success threshold epsilon (default 0.01)")
    p.add_argument("--out", metavar="FILE", help="write results (JSON) atomically")
    p.add_argument("--figure", metavar="FILE", help="draw a figure (.png or .pdf)")


def register(sub):
    p = sub.add_parser("xor", help="one-step sparse-XOR experiments (paper A, SX-3 … SX-8)")
    xs = p.add_subparsers(dest="xor_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: p.print_help() or 2)

    s = xs.add_parser("step", help="one instance: the population step and its metrics")
    s.add_argument("--d", type=int, required=True)
    s.add_argument("--m", type=int, required=True)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--support", help="'a,b' (0-based); default drawn per (d, m)")
    s.add_argument("--attention", default="softmax", choices=ATTENTIONS)
    _common(s)
    s.set_defaults(func=_step)

    w = xs.add_parser("sweep", help="success over (d, m), m*(d) and its fits (SX-4)")
    w.add_argument("--d", required=True, help="comma-separated d values, e.g. 100,1000")
    w.add_argument("--m", required=True, help="comma-separated m values, e.g. 8,16,32")
    w.add_argument("--seeds", type=int, default=100)
    w.add_argument("--seeds-for-d", help="fewer seeds at large d, e.g. 1000000:20")
    w.add_argument("--device", default="cpu", help="cpu or cuda (instances are drawn on the CPU either way)")
    _common(w)
    w.set_defaults(func=_sweep)

    n = xs.add_parser("samples", help="empirical-gradient step: n*(d) (SX-6)")
    n.add_argument("--d", required=True, help="comma-separated d values")
    n.add_argument("--n", required=True, help="comma-separated sample sizes (used for every d)")
    n.add_argument("--m", type=int, default=64)
    n.add_argument("--seeds", type=int, default=40)
    n.add_argument("--device", default="cpu", help="cpu or cuda (instances are drawn on the CPU either way)")
    _common(n)
    n.set_defaults(func=_samples)

    c = xs.add_parser("compare", help="softmax vs linear vs erf attention (SX-5)")
    c.add_argument("--d", type=int, default=1000)
    c.add_argument("--m", type=int, default=32)
    c.add_argument("--seeds", type=int, default=50)
    c.add_argument("--train-seeds", type=int, help="seeds for the T-step runs (default: all)")
    c.add_argument("--steps", type=int, default=2000)
    _common(c)
    c.set_defaults(func=_compare)


def _check_common(args):
    check_real(args.eps, "--eps", lo=0, hi=1, lo_open=True, hi_open=True)
    check_real(args.c, "--c", lo=0, lo_open=True)
    if args.figure:
        check_figure_path(args.figure, name="--figure")


def _step(args):
    _check_common(args)
    check_int(args.d, "--d", lo=2)
    check_int(args.m, "--m", lo=1, hi=max(1, 2**27 // args.d))  # d*m embedding entries <= 2^27
    from rich.console import Console
    from rich.table import Table

    from numeric import attention_weights, step_metrics, xor
    from verify.experiments.xor_sweeps import cell_support, make_instances

    support = _support(args.support, args.d) or cell_support(args.d, 1, args.m)
    a, b = support
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
    table = Table(title="one population step (as formalised in boolverify)")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for k, v in rows.items():
        table.add_row(k, f"{v:.6g}" if isinstance(v, float) else str(v))
    Console().print(table)
    if args.out:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.out, {k: (float(v) if isinstance(v, float) else v) for k, v in rows.items()})
    if args.figure:
        from verify.report.xor_figures import attention_before_after

        before = [attention_weights(V, th0, att).tolist(), attention_weights(V, tt0, att).tolist()]
        after = [attention_weights(V, th1, att).tolist(), attention_weights(V, tt1, att).tolist()]
        attention_before_after(before, after, support, args.figure)
    return 0


def _sweep(args):
    _check_common(args)
    ds = _int_list(args.d, "--d", 2)
    ms = _int_list(args.m, "--m", 1)
    check_int(args.seeds, "--seeds", lo=1)
    sfd = _seeds_for_d(args.seeds_for_d)
    check_device(args.device, "--device")
    from rich.console import Console
    from rich.table import Table

    from verify.experiments.fits import sweep_laws, wilson_interval
    from verify.experiments.xor_sweeps import run_sweep

    with _progress() as prog:
        task = prog.add_task("sweep", total=1)
        cells = run_sweep(ds, ms, args.seeds, c=args.c, eps=args.eps, out=args.out,
                          progress=_callback(prog, task), seeds_for_d=sfd, device=args.device)
    t = Table(title="one-step success per (d, m) (as formalised in boolverify)")
    for col in ("d", "m", "seeds", "success", "95% Wilson CI", "eta->inf", "assignment ok", "median L", "s"):
        t.add_column(col, justify="right")
    for c in cells:
        lo, hi = wilson_interval(c.successes, c.n_seeds)
        t.add_row(str(c.d), str(c.m), str(c.n_seeds), f"{c.rate:.3f}", f"[{lo:.3f}, {hi:.3f}]",
                  f"{c.rate_limit:.3f}", f"{c.assignment_matches}/{c.successes}",
                  f"{c.median_loss:.2e}", f"{c.seconds:.1f}")
    con = Console()
    con.print(t)
    _print_laws(con, lambda: sweep_laws(cells), "m", args.figure, cells)
    return 0


def _print_laws(con, summarise, size, figure, cells):
    """Thresholds with intervals and, over two or more d, the fitted law (likelihood over all
    cells; :func:`verify.experiments.fits.law_summary`)."""
    from verify.experiments.inference import FitFailure

    try:
        summary = summarise()
    except FitFailure as exc:
        con.print(f"{size}*(d): too few cells to fit the success curves ({exc})")
        if figure and size == "m":
            from verify.report.xor_figures import success_heatmap

            success_heatmap(cells, figure)
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
            threshold_law_plot(summary, figure, size=size)
        elif size == "m":
            success_heatmap(cells, figure)


def _samples(args):
    _check_common(args)
    ds = _int_list(args.d, "--d", 2)
    ns = _int_list(args.n, "--n", 1)
    check_int(args.m, "--m", lo=1)
    check_int(args.seeds, "--seeds", lo=1)
    check_device(args.device, "--device")
    from rich.console import Console
    from rich.table import Table

    from verify.experiments.fits import samples_laws, wilson_interval
    from verify.experiments.xor_sweeps import run_samples

    with _progress() as prog:
        task = prog.add_task("samples", total=1)
        cells = run_samples(ds, {d: ns for d in ds}, args.m, args.seeds, c=args.c, eps=args.eps,
                            out=args.out, progress=_callback(prog, task), device=args.device)
    t = Table(title=f"empirical-gradient step, m = {args.m} (as formalised in boolverify)")
    for col in ("d", "n", "seeds", "success", "95% Wilson CI", "pop. success", "given pop.", "s"):
        t.add_column(col, justify="right")
    for c in cells:
        lo, hi = wilson_interval(c.successes, c.n_seeds)
        t.add_row(str(c.d), str(c.n), str(c.n_seeds), f"{c.rate:.3f}", f"[{lo:.3f}, {hi:.3f}]",
                  f"{c.population_successes}/{c.n_seeds}", f"{c.rate_given_population:.3f}",
                  f"{c.seconds:.1f}")
    con = Console()
    con.print(t)
    # n*(d): samples for the empirical step to reproduce a successful population step
    if any(c.population_successes for c in cells):
        _print_laws(con, lambda: samples_laws(cells), "n", args.figure, cells)
    return 0


def _compare(args):
    _check_common(args)
    check_int(args.d, "--d", lo=2)
    check_int(args.m, "--m", lo=1, hi=min(64, args.d - 1))  # the comparison needs m < d, m <= 64
    check_int(args.seeds, "--seeds", lo=1)
    check_int(args.steps, "--steps", lo=0)
    if args.train_seeds is not None:
        check_int(args.train_seeds, "--train-seeds", lo=1, hi=args.seeds)
    from rich.console import Console
    from rich.table import Table

    from verify.experiments.attention_comparison import compare, representational_bounds

    with _progress() as prog:
        task = prog.add_task("compare", total=1)
        res = compare(args.d, args.m, args.seeds, train_seeds=args.train_seeds, steps=args.steps, eps=args.eps, c=args.c,
                      progress=_callback(prog, task))
    bounds = representational_bounds(args.d, args.m)
    t = Table(title=f"d = {args.d}, m = {args.m}, {args.seeds} seeds (training: "
                    f"{res.config['train_seeds']}), T = {args.steps} "
                    "(as formalised in boolverify)")
    for col in ("attention", "1-step median L", "1-step L<1e-6", "1-step success",
                "GD median L(T)", "GD success", "Adam median L(T)", "Adam success"):
        t.add_column(col, justify="right")
    for att in ATTENTIONS:
        r = res.results[att]
        o, g, a = r["one_step"], r.get("gd", {}), r.get("adam", {})
        t.add_row(att, f"{o['median_loss']:.3g}", f"{o['frac_below_1e-6']:.2f}", f"{o['success_rate']:.2f}",
                  f"{g.get('median_final_loss', float('nan')):.3g}", f"{g.get('success_rate', float('nan')):.2f}",
                  f"{a.get('median_final_loss', float('nan')):.3g}", f"{a.get('success_rate', float('nan')):.2f}")
    con = Console()
    con.print(t)
    con.print(f"linear attention, best loss over all theta (seed 0) >= {bounds['linear_bound']['bound']:.6f}; "
              f"erf attention >= {bounds['erf_bound']:.6f}")
    data = {**res.as_dict(), **bounds}  # the format of docs/data/xor_compare.json
    if args.out:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.out, data)
    if args.figure:
        from verify.report.xor_figures import loss_curves

        loss_curves(data, args.figure)
    return 0
