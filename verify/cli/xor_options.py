"""Options and checks shared by the ``boolverify xor`` commands (materialised and streamed):
lists of sizes, the support, the learning-rate constant, and the memory and time a run implies."""

from __future__ import annotations

from numeric.validation import check_real, check_support, reject


#: the largest d, m or n of any run: far beyond what fits in memory or time, small enough
#: that the step size and the estimates are finite floats
MAX_SIZE = 2 ** 62


def parse_int_list(text, name, lo):
    """Comma-separated integers (``1e6`` allowed, ``1.5e0`` not), each ``>= lo``, distinct:
    a repeated value would run (and count) its cells twice."""
    from verify.cli.options import integers

    vals = integers(text, name, lo=lo, hi=MAX_SIZE)
    if len(set(vals)) != len(vals):
        reject(name, text, f"distinct values ({sorted(v for v in set(vals) if vals.count(v) > 1)} repeated)")
    return vals


def parse_seeds_for_d(text, ds):
    """``D:N,D:N``: ``N >= 1`` seeds at each ``D``, which must be one of ``ds`` (the ``--d``
    values) and given once."""
    from numeric.validation import parse_integer

    out = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        if part.count(":") != 1:
            reject("--seeds-for-d", text, "D:N pairs, e.g. 1000000:20")
        d_text, s_text = part.split(":")
        d = parse_integer(d_text, "--seeds-for-d", lo=2)
        s = parse_integer(s_text, "--seeds-for-d", lo=1, hi=MAX_SIZE)
        if d in out:
            reject("--seeds-for-d", text, f"each D once (D = {d} is given twice)")
        if d not in ds:
            reject("--seeds-for-d", text, f"D values among --d = {','.join(map(str, ds))} (D = {d} is not)")
        out[d] = s
    return out


def parse_support(text, d):
    if text is None:
        return None
    from numeric.validation import parse_integer

    parts = str(text).split(",")
    if len(parts) != 2:
        reject("--support", text, "two comma-separated indices 'a,b'")
    pair = tuple(parse_integer(t, "--support") for t in parts)
    return check_support(pair, d, "--support")


def add_common_options(p):
    p.add_argument("--c", type=float, default=10.0, help="learning-rate constant, > 0: eta = c d^2 sqrt(m) ln d")
    p.add_argument("--eps", type=float, default=0.01, help="success threshold epsilon in (0, 0.5)")
    p.add_argument("--json", "--out", dest="out", metavar="FILE",
                   help="write results as JSON, atomically (--out is the same option)")
    p.add_argument("--figure", metavar="FILE", help="draw a figure (.png, .pdf or .svg: the suffix sets the format)")
    from verify.cli.options import add_time_budget

    add_time_budget(p)


def check_common(args):
    from verify.cli.options import check_distinct_files, check_figure_output, check_output

    # the success criterion is defined for eps < 1/2 (numeric.xor)
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


#: seconds per entry of V and per pass of a streamed run, a lower bound: SFC64 draws one normal
#: in about 8 ns (measured, numeric/xor/_stream.py); a whole pass measured 18-20 ns per entry
#: (docs/performance.md), so only runs that cannot finish are refused
STREAM_SECONDS_PER_ENTRY = 8e-9
#: passes over V of a streamed step: the loss and gradient, then the metrics after the step
STREAM_PASSES = 2


def check_stream_time(d, m, seeds, options, parallel=None):
    """The time budget of streamed runs: ``seeds`` instances of ``d x m`` generated
    :data:`STREAM_PASSES` times, the drawing spread over at most ``parallel`` cores (default:
    every core of this machine, so the estimate stays a lower bound)."""
    import os

    from verify.cli.options import require_time

    parallel = parallel or os.cpu_count() or 1
    require_time(STREAM_PASSES * STREAM_SECONDS_PER_ENTRY * float(d) * float(m) * seeds / parallel,
                 f"drawing V anew in each of {STREAM_PASSES} passes", options)


def report_step(rows: dict, title: str, out=None, arrays=None) -> None:
    """Print one step's quantities as a two-column table and, with ``out``, write them and the
    ``arrays`` (not printed) as JSON (atomically); shared by ``xor step`` and ``xor step --stream``."""
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

        atomic_write_json(out, {**rows, **(arrays or {})})
