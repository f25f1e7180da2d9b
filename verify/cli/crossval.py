"""`boolverify crossval ...`: check someone else's implementation against our references.

The checks are :mod:`verify.crossval.implementations`'s (a table file's own profile is
:func:`verify.report.sensitivity_profiles.profile_counts`); this module parses the options and
prints the verdicts.
"""

from __future__ import annotations

from numeric.validation import InputError, check_int
from numeric.vocabulary import ATTENTIONS


def register(sub):
    p = sub.add_parser("crossval", help="cross-validate another implementation against boolverify's references",
                       description="Exit 0: agrees; 1: a mismatch (the shrunk counterexample is printed); "
                       "2: bad input (missing module/file, malformed data, a function that raises).")
    inner = p.add_subparsers(dest="crossval_command", metavar="SUBCOMMAND", parser_class=type(p))
    for kind in ("grad", "loss"):
        q = inner.add_parser(f"xor-{kind}", help=f"a population-{kind} function of the two-head model (MODULE:FUNCTION)",
                             description="FUNCTION(V, theta, theta_tilde, support[, attention=...]) -> "
                             + ("(grad_theta, grad_theta_tilde)" if kind == "grad" else "loss")
                             + ", V of shape (d, m); driven by Hypothesis against the 50-digit reference.")
        q.add_argument("target", metavar="MODULE:FUNCTION")
        _xor_conventions(q)
        q.add_argument("--examples", type=int, default=200, help="Hypothesis examples (default 200)")
        q.add_argument("--seed", type=int, default=0)
        q.set_defaults(func=_run_xor, kind=kind)
    q = inner.add_parser("xor-file", help="a .json/.npz file of instances with claimed losses/gradients",
                         description="Schema: docs/crossval.md.")
    q.add_argument("file", metavar="FILE")
    q.set_defaults(func=_run_file)
    q = inner.add_parser("profile", help="a sensitivity-profile implementation (MODULE:FUNCTION) or a truth-table file",
                         description="MODULE:FUNCTION maps a truth table (numpy array of length 2^N) to a profile "
                         "K_0..K_N (or as(f), or as(f)/N: --returns); a FILE (.npy, .json, text of 0/1) is a truth "
                         "table whose profile is printed and compared with a claimed one (--claimed, or the "
                         "'profile' field of a JSON file).")
    q.add_argument("target", metavar="FILE_OR_MODULE:FUNCTION")
    q.add_argument("--N", type=int, default=None, help="input length (file) or largest N tried (function, default 10)")
    q.add_argument("--values", choices=["01", "pm1"], default="01", help="table values the function expects")
    q.add_argument("--returns", choices=["profile", "average", "normalised"], default="profile",
                   help="what the function returns: profile K_0..K_N, as(f), or as(f)/N")
    q.add_argument("--claimed", help="claimed profile for a table file, comma-separated K_0,...,K_N")
    q.add_argument("--examples", type=int, default=100)
    q.add_argument("--seed", type=int, default=0)
    q.set_defaults(func=_run_profile)
    p.set_defaults(func=lambda args: p.print_help() or 2)


def _xor_conventions(q):
    q.add_argument("--attention", choices=ATTENTIONS, default="softmax")
    q.add_argument("--array", choices=["numpy", "torch", "list"], default="numpy", help="input type passed to FUNCTION")
    q.add_argument("--one-based", action="store_true", help="FUNCTION takes a 1-based support")
    q.add_argument("--half-mse", action="store_true", help="FUNCTION uses the 1/2 MSE convention (loss and grads halved)")


def _examples(n):
    return check_int(n, "--examples", lo=1)


def _run_xor(args) -> int:
    from rich.console import Console

    from verify.crossval.implementations import XorConventions, crossval_xor, load_callable

    examples = _examples(args.examples)
    conv = XorConventions(array=args.array, index_base=1 if args.one_based else 0,
                          loss_scale=0.5 if args.half_mse else 1.0, attention=args.attention)
    fn = load_callable(args.target)
    console = Console()
    with console.status(f"driving {args.target} with Hypothesis against the 50-digit reference"):
        res = crossval_xor(fn, kind=args.kind, conventions=conv, max_examples=examples, seed=args.seed)
    return _verdict(console, res, args.target)


def _verdict(console, res, target) -> int:
    if res.ok:
        console.print(f"[green]agrees[/]: {target} matches boolverify on {res.examples} examples "
                      "(float64 tolerance table)")
        return 0
    if res.mismatch.error:
        # a function that raises is bad input, not a wrong answer
        raise InputError(f"{target} raised {res.mismatch.error} on d={res.mismatch.inputs.get('d')}, "
                         f"m={res.mismatch.inputs.get('m')}" if "d" in res.mismatch.inputs
                         else f"{target} raised {res.mismatch.error}")
    console.print(f"[bold red]MISMATCH[/] after {res.examples} examples", highlight=False)
    console.print(res.mismatch.describe(), highlight=False, markup=False)
    return 1


def _run_file(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from verify.crossval.implementations import crossval_file

    res = crossval_file(args.file)
    console = Console()
    table = Table(title=f"crossval {args.file}")
    for col in ("instance", "quantity", "expected", "received", "result"):
        table.add_column(col, overflow="fold")
    for r in res.rows:
        fmt = lambda xs: ", ".join(f"{x:.12g}" for x in xs)  # noqa: E731
        table.add_row(str(r["instance"]), r["quantity"], fmt(r["expected"]), fmt(r["received"]),
                      "[green]ok[/]" if r["ok"] else "[bold red]MISMATCH[/]")
    console.print(table)
    bad = sum(not r["ok"] for r in res.rows)
    console.print(f"{len(res.rows) - bad}/{len(res.rows)} claimed quantities agree")
    return 0 if res.ok else 1


def _run_profile(args) -> int:
    from pathlib import Path

    from rich.console import Console

    from verify.crossval.implementations import ProfileConventions

    console = Console()
    conv = ProfileConventions(values=args.values, returns=args.returns)
    looks_like_file = Path(args.target).suffix in (".npy", ".json", ".txt") or Path(args.target).is_file()
    if not looks_like_file:
        return _profile_function(args, conv, console)
    return _profile_file(args, console)


def _profile_function(args, conv, console) -> int:
    from verify.crossval.implementations import crossval_profile_function, load_callable

    examples = _examples(args.examples)
    fn = load_callable(args.target)
    res = crossval_profile_function(fn, conv, max_N=args.N if args.N is not None else 10,
                                    max_examples=examples, seed=args.seed)
    if res.ok:
        console.print(f"[green]agrees[/]: {args.target} matches boolverify's profile on {res.examples} random tables")
        return 0
    if res.mismatch.error:
        raise InputError(f"{args.target} raised {res.mismatch.error}")
    console.print(f"[bold red]MISMATCH[/] after {res.examples} tables", highlight=False)
    console.print(f"smallest table found: {res.mismatch.inputs['table']}\n  expected = {res.mismatch.expected}\n"
                  f"  received = {res.mismatch.received}", markup=False, highlight=False)
    return 1


def _profile_file(args, console) -> int:
    from verify.crossval.implementations import read_table
    from verify.report.sensitivity_profiles import profile_counts

    given = None
    if args.claimed:
        try:
            given = [int(x) for x in args.claimed.split(",")]
        except ValueError:
            raise InputError(f"--claimed = {args.claimed!r}: expected comma-separated integers K_0,...,K_N") from None
    table, claimed = read_table(args.target, args.N)
    ours = profile_counts(table)
    console.print(f"profile K_0..K_{len(ours) - 1} (ours): {ours}")
    if given is not None:
        claimed = given
    if claimed is None:
        return 0
    claimed = [int(x) for x in claimed]
    if claimed == ours:
        console.print("[green]agrees[/] with the claimed profile")
        return 0
    console.print(f"[bold red]MISMATCH[/]: claimed {claimed}", highlight=False)
    return 1
