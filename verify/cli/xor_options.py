"""Options and checks shared by the ``boolverify xor`` commands (materialised and streamed):
lists of sizes, the support, the learning-rate constant, the memory and time a run implies, and
the progress bar."""

from __future__ import annotations

from numeric.validation import check_int, check_real, check_support, reject


def parse_int_list(text, name, lo):
    """Comma-separated integers (``1e6`` allowed), each ``>= lo``."""
    try:
        vals = [int(float(t)) if "e" in t.lower() else int(t) for t in str(text).split(",") if t.strip()]
    except (ValueError, OverflowError):
        reject(name, text, "comma-separated integers, e.g. 100,1000")
    if not vals:
        reject(name, text, "at least one integer")
    return [check_int(v, name, lo=lo) for v in vals]


def parse_seeds_for_d(text):
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


def parse_support(text, d):
    if text is None:
        return None
    parts = str(text).split(",")
    try:
        pair = tuple(int(t) for t in parts)
    except ValueError:
        reject("--support", text, "two comma-separated indices 'a,b'")
    if len(pair) != 2:
        reject("--support", text, "two comma-separated indices 'a,b'")
    return check_support(pair, d, "--support")


def progress_bar():
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                    TimeElapsedColumn(), TimeRemainingColumn(), transient=True)


def progress_callback(prog, task):
    def cb(done, total, text):
        prog.update(task, completed=done, total=total, description=text)
    return cb


def add_common_options(p):
    p.add_argument("--c", type=float, default=10.0, help="learning-rate constant: eta = c d^2 sqrt(m) ln d")
    p.add_argument("--eps", type=float, default=0.01, help="success threshold epsilon in (0, 0.5) (default 0.01)")
    p.add_argument("--json", "--out", dest="out", metavar="FILE",
                   help="write results as JSON, atomically (--out is the same option)")
    p.add_argument("--figure", metavar="FILE", help="draw a figure (.png, .pdf or .svg: the suffix sets the format)")


def check_common(args):
    from verify.cli.options import check_distinct_files, check_figure_output, check_output

    # the success criterion is defined for eps < 1/2 (numeric.xor_metrics)
    check_real(args.eps, "--eps", lo=0, hi=0.5, lo_open=True, hi_open=True)
    check_real(args.c, "--c", lo=0, lo_open=True)
    check_figure_output(args.figure)
    check_output(args.out, "--json")
    # a resumable --json is read and written: an output, which no other output may name
    check_distinct_files([("--json", args.out), ("--figure", args.figure)])


def check_lr_constant(c, d, m):
    """The step size eta = c d^2 sqrt(m) ln d must be a finite float for every (d, m) of the run."""
    import math

    eta = c * float(d) * float(d) * math.sqrt(m) * math.log(d)
    if not math.isfinite(eta):
        reject("--c", c, f"a constant for which eta = c d^2 sqrt(m) ln d is finite (it overflows at d = {d}, m = {m})")


def check_xor_memory(d, m, seeds, options, copies=3):
    """The embeddings of ``seeds`` instances (``copies`` arrays of d x m float64 during a step)."""
    from verify.cli.options import FLOPS_PER_SECOND, require_memory, require_time

    require_memory(copies * 8.0 * d * m * seeds, f"{seeds} instance(s) of d x m embeddings", options)
    require_time(4.0 * d * m * seeds / FLOPS_PER_SECOND, "the population steps", options)


def report_step(rows: dict, title: str, out=None) -> None:
    """Print one step's quantities as a two-column table and, with ``out``, write them as JSON
    (atomically); shared by ``xor step`` and ``xor step --stream``."""
    from rich.table import Table

    from verify.cli.options import console

    table = Table(title=title)
    table.add_column("quantity")
    table.add_column("value", justify="right")
    for k, v in rows.items():
        table.add_row(k, f"{v:.6g}" if isinstance(v, float) else str(v))
    console().print(table)
    if out:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(out, rows)
