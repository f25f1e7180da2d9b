"""`boolverify crossval ...`: check someone else's implementation against our references.

The checks are :mod:`verify.crossval.xor_functions`', :mod:`verify.crossval.claim_files`' and
:mod:`verify.crossval.profile_functions`' (a table file is read by
:mod:`verify.crossval.table_files`; its own profile is
:func:`verify.report.sensitivity_profiles.profile_counts`); this module parses the options,
validates them before any work, and prints the verdicts. A ``MODULE:FUNCTION`` target runs in a
child process with a time limit per call; a target that raises, exits, dies or hangs is bad
input (exit 2), never agreement.
"""

from __future__ import annotations

from pathlib import Path

from numeric.validation import InputError, check_int, reject
from verify.cli.options import integer
from numeric.vocabulary import ATTENTIONS
from verify.cli import crossval_sharpness, needs_subcommand

_EXECUTES = ("MODULE:FUNCTION is imported and run as code, in a child process with --timeout seconds "
             "per call: only check code you trust. MODULE is a dotted module (the current folder and "
             "--path folders are importable) or a path/to/file.py (its folder is importable too).")
_EXIT = ("Exit 0: agrees; 1: a mismatch (the shrunk counterexample is printed); 2: bad input (missing "
         "module/file, malformed data, a function that raises, calls sys.exit, dies or exceeds --timeout); "
         "130: the function raised KeyboardInterrupt, or Ctrl-C.")


def register(sub):
    p = sub.add_parser("crossval", help="cross-validate another implementation against boolverify's references",
                       description=_EXIT + " " + _EXECUTES)
    inner = p.add_subparsers(dest="crossval_command", metavar="SUBCOMMAND", parser_class=type(p))
    for kind in ("grad", "loss"):
        q = inner.add_parser(f"xor-{kind}",
                             help=f"a population-{kind} function of the two-head model (MODULE:FUNCTION)",
                             description="FUNCTION(V, theta, theta_tilde, support[, attention=...]) -> "
                             + ("(grad_theta, grad_theta_tilde)" if kind == "grad" else "loss")
                             + ", V of shape (d, m); driven by Hypothesis against the 50-digit reference. "
                             + _EXECUTES + " " + _EXIT)
        q.add_argument("target", metavar="MODULE:FUNCTION", help="the function to test: a module on the "
                       "import path (or under --path) and a function in it")
        _xor_conventions(q)
        _function_options(q, examples=200)
        _json_option(q)
        q.set_defaults(func=_run_xor, kind=kind)
    q = inner.add_parser("xor-file", help="a .json/.npz file of instances with claimed losses/gradients",
                         description="Schema: docs/crossval.md. " + _EXIT)
    q.add_argument("file", metavar="FILE", help="the .json or .npz file of instances (schema: docs/crossval.md)")
    _json_option(q)
    q.set_defaults(func=_run_file)
    q = inner.add_parser("profile", help="a sensitivity-profile implementation (MODULE:FUNCTION) or a truth-table file",
                         description="MODULE:FUNCTION maps a truth table (numpy int64 array of length 2^N) to a "
                         "profile K_0..K_N (or as(f), or as(f)/N: --returns) and is driven with tables of every N "
                         "up to --N; a FILE (.npy, .json, text of 0/1) is a truth table whose profile is printed "
                         "and compared with a claimed one (--claimed, or the 'profile' field of a JSON file). "
                         + _EXECUTES + " " + _EXIT)
    q.add_argument("target", metavar="FILE_OR_MODULE:FUNCTION",
                   help="a truth-table file, or the function to test as MODULE:FUNCTION")
    q.add_argument("--N", type=integer, default=None,
                   help="function: largest N tried, 1..20 (default 10); file: the table's N, checked")
    q.add_argument("--values", choices=["01", "pm1"], default="01",
                   help="table values: 0/1 (default) or +1/-1 (0 -> +1, 1 -> -1), for the function's input "
                   "or the file's entries")
    q.add_argument("--returns", choices=["profile", "average", "normalised"], default=None,
                   help="function only: it returns the profile K_0..K_N (default), as(f), or as(f)/N")
    q.add_argument("--claimed", default=None, help="file only: claimed profile, comma-separated K_0,...,K_N (default: none, only ours is printed)")
    q.add_argument("--allow-large", action="store_true",
                   help="file only: accept tables of up to 2^32 entries (default limit 2^24)")
    q.add_argument("--array", choices=["numpy", "torch", "list"], default=None,
                   help="function only: the table is handed over as a numpy int64 array (default), a torch "
                   "tensor or a plain list")
    _function_options(q, examples=100)
    _json_option(q)
    q.set_defaults(func=_run_profile)
    q = inner.add_parser("influences", help="a per-variable influence (activity) implementation (MODULE:FUNCTION)",
                         description="FUNCTION maps a truth table (numpy int64 array of length 2^N, x = sum_n "
                         "bit_n 2^n) to the N influences Inf_i(f) = Pr[f(x) != f(x with bit i flipped)] (BoolForge's "
                         "activities), driven with tables of every N up to --N against boolverify's exact "
                         "enumeration. " + _EXECUTES + " " + _EXIT)
    q.add_argument("target", metavar="MODULE:FUNCTION", help="the function to test: a module on the "
                   "import path (or under --path) and a function in it")
    q.add_argument("--N", type=integer, default=None, help="largest N tried, 1..20 (default 10)")
    q.add_argument("--values", choices=["01", "pm1"], default="01",
                   help="table values: 0/1 (default) or +1/-1 (0 -> +1, 1 -> -1)")
    q.add_argument("--order", choices=["lsb", "msb"], default="lsb",
                   help="entry i is the influence of bit i of x (lsb, default) or of bit N-1-i (msb: variable x_i "
                   "of an MSB-first table, as BoolForge lists its activities)")
    q.add_argument("--array", choices=["numpy", "torch", "list"], default="numpy",
                   help="the table is handed over as a numpy int64 array (default), a torch tensor or a plain list")
    _function_options(q, examples=100)
    _json_option(q)
    q.set_defaults(func=_run_influences)
    crossval_sharpness.register(inner)
    p.set_defaults(func=needs_subcommand(p, inner))


def _xor_conventions(q):
    q.add_argument("--attention", choices=ATTENTIONS, default="softmax",
                   help="the attention map to test, passed as attention=... when FUNCTION has that parameter")
    q.add_argument("--array", choices=["numpy", "torch", "list"], default="numpy", help="input type passed to FUNCTION")
    q.add_argument("--one-based", action="store_true", help="FUNCTION takes a 1-based support")
    q.add_argument("--half-mse", action="store_true",
                   help="FUNCTION uses the 1/2 MSE convention (loss and grads halved)")


def _function_options(q, examples):
    q.add_argument("--examples", type=integer, default=None, help=f"Hypothesis examples (default {examples})")
    q.add_argument("--seed", type=integer, default=None, help="Hypothesis seed (default 0)")
    q.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="time limit of one call of FUNCTION, and of importing its module (default 60)")
    q.add_argument("--path", action="append", default=None, metavar="DIR",
                   help="a folder to add to the import path of MODULE (repeatable; default: none)")
    q.add_argument("--python", default=None, metavar="PATH",
                   help="run MODULE:FUNCTION under this Python interpreter (e.g. VENV/bin/python, 3.8 or newer, "
                   "boolverify not needed there) instead of boolverify's own; only plain data is exchanged "
                   "(default: boolverify's own interpreter)")
    q.set_defaults(default_examples=examples)


def _json_option(q):
    q.add_argument("--json", default=None, metavar="FILE", help="also write the verdict as JSON to FILE")


# --------------------------------------------------------------------------- validation


def _function_settings(args) -> dict:
    """The checked options of a MODULE:FUNCTION run (before anything is imported)."""
    from verify.crossval.property_runs import MAX_EXAMPLES
    from numeric.validation import check_seed
    from verify.crossval.target import DEFAULT_TIMEOUT, check_paths, check_timeout, parse_target

    parse_target(args.target, "MODULE:FUNCTION")
    examples = args.default_examples if args.examples is None else args.examples
    settings = {
        "max_examples": check_int(examples, "--examples", lo=1, hi=MAX_EXAMPLES),
        "seed": check_seed(0 if args.seed is None else args.seed, "--seed"),
        "timeout": check_timeout(DEFAULT_TIMEOUT if args.timeout is None else args.timeout, "--timeout"),
        "paths": check_paths(args.path, "--path"),
        "python": None,
    }
    if args.python is not None:
        from verify.crossval.remote import check_python

        settings["python"] = check_python(args.python, "--python")[0]
    return settings


def _check_json_path(args, source=None):
    """``--json`` is checked before the run, so a long run does not end on an unwritable name,
    and it must not name the run's input: ``source`` (a table or claims file, as the option
    ``FILE``) or the target's module file."""
    if args.json is None:
        return
    from verify.cli.options import check_output

    if not args.json or Path(args.json).is_dir():
        reject("--json", args.json, "a file name (not a folder) to write the verdict to")
    inputs = [("FILE", source)]
    if source is None and getattr(args, "target", None):
        from verify.crossval.target import target_source

        inputs = [("MODULE:FUNCTION", target_source(args.target, args.path or ()))]
    inputs = [(name, path) for name, path in inputs if path is not None]
    check_output(args.json, "--json", inputs=inputs)


def _write_json(args, res, **extra):
    if args.json is None:
        return
    from verify.cli import writing
    from verify.common.atomic_io import atomic_write_json

    record = {"command": f"crossval {args.crossval_command}", **extra, **res.as_dict()}
    with writing(args.json, "--json"):
        atomic_write_json(args.json, record)


def _target_error(target, exc):
    """A target that raised, exited, died or timed out: bad input, said as such."""
    return InputError(f"{target}: {exc}")


def _run_check(console, status, target, run):
    """``run()`` under a status line; a target that failed is bad input (exit 2), one that raised
    KeyboardInterrupt an interrupted run (exit 130, one line, like Ctrl-C); returns (result, None)
    or (None, exit code)."""
    import sys

    from verify.crossval.target import TargetFailed, TargetInterrupted

    try:
        with console.status(status):
            return run(), None
    except TargetInterrupted as exc:
        print(f"boolverify: interrupted: {target}: {exc}", file=sys.stderr)
        return None, 130
    except TargetFailed as exc:
        raise _target_error(target, exc) from None


# --------------------------------------------------------------------------- handlers


def _hypothesis_home() -> None:
    """Hypothesis keeps caches in ``.hypothesis/`` of the current folder; a command run from a
    user's project must not leave one there, so they go to the user's cache folder."""
    import os
    from pathlib import Path

    from hypothesis.configuration import set_hypothesis_home_dir

    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    if not (base if base.exists() else base.parent).is_dir():
        # a missing $HOME (or cache folder above it) is not ours to create: a folder of the
        # temporary directory instead
        import tempfile

        base = Path(tempfile.gettempdir()) / f"boolverify-cache-{os.getuid()}"
    set_hypothesis_home_dir(base / "boolverify" / "hypothesis")


def _run_xor(args) -> int:
    from verify.crossval.xor_functions import XorConventions, crossval_xor

    _hypothesis_home()
    settings = _function_settings(args)
    _check_json_path(args)
    conv = XorConventions(array=args.array, index_base=1 if args.one_based else 0,
                          loss_scale=0.5 if args.half_mse else 1.0, attention=args.attention)
    console = _console()
    res, rc = _run_check(console, f"driving {args.target} with Hypothesis against the 50-digit reference",
                         args.target, lambda: crossval_xor(args.target, kind=args.kind, conventions=conv, **settings))
    if res is None:
        return rc
    rc = _verdict(console, res, args.target)
    _write_json(args, res, target=args.target, conventions=vars(conv))
    return rc


def _console():
    from rich.console import Console

    return Console(soft_wrap=True)


def _escape(text):
    from rich.markup import escape

    return escape(text)


def _verdict(console, res, target, what="examples") -> int:
    from verify.crossval.results import render_hint

    if res.ok:
        console.print(
            f"[green]agrees[/]: {_escape(target)} matches boolverify's {_escape(res.compared)} on {res.examples} "
            f"{what}, {_escape(res.sizes_text())} (float64 tolerance table); {_escape(res.agreement_text())}",
            highlight=False)
        return 0
    mm = res.mismatch
    if mm.error:
        # a function that raises is bad input, not a wrong answer
        where = f" on d={mm.inputs['d']}, m={mm.inputs['m']}" if "d" in mm.inputs else (
            f" on a table with N={mm.inputs['N']}" if "N" in mm.inputs else "")
        hints = "".join(f"; hint: {render_hint(t, c)}" for t, c in mm.hints)
        raise InputError(f"{target} raised {mm.error}{where}{hints}")
    console.print(f"[bold red]MISMATCH[/] of the {_escape(res.compared)} after {res.examples} examples", highlight=False)
    console.print(mm.describe(), highlight=False, markup=False)
    return 1


def _run_file(args) -> int:
    from rich.table import Table

    from verify.crossval.claim_files import crossval_file

    _check_json_path(args, args.file)
    res = crossval_file(args.file)
    console = _console()
    table = Table(title=f"crossval {args.file}")
    for col in ("instance", "quantity", "expected", "received", "result"):
        table.add_column(col, overflow="fold")
    for r in res.rows:
        fmt = lambda xs: ", ".join(f"{x:.12g}" for x in xs)  # noqa: E731
        table.add_row(str(r["instance"]), r["quantity"], fmt(r["expected"]), fmt(r["received"]),
                      "[green]ok[/]" if r["ok"] else "[bold red]MISMATCH[/]")
    console.print(table)
    bad = sum(not r["ok"] for r in res.rows)
    console.print(f"{len(res.rows) - bad}/{len(res.rows)} claimed quantities agree ({res.examples} instances, "
                  f"{res.sizes_text()})", highlight=False)
    _write_json(args, res, file=args.file)
    return 0 if res.ok else 1


_TABLE_SUFFIXES = (".npy", ".json", ".txt")


def _is_function(target) -> bool:
    """MODULE:FUNCTION (a ':' before an identifier), or a table file; a .py without :FUNCTION and
    a name that is neither are errors, not tables."""
    head, sep, tail = target.rpartition(":")
    if sep and head and tail.isidentifier():
        return True
    path = Path(target)
    if path.suffix == ".py":
        reject("FILE_OR_MODULE:FUNCTION", target, f"{target}:FUNCTION: a Python file needs the name of the "
               "function to check")
    if path.suffix not in _TABLE_SUFFIXES and not path.exists():
        reject("FILE_OR_MODULE:FUNCTION", target, "a truth-table file (.npy, .json, text of 0/1) or "
               "MODULE:FUNCTION (no such file)")
    return False


def _run_profile(args) -> int:
    if _is_function(args.target):
        extra = [o for o, v in (("--claimed", args.claimed), ("--allow-large", args.allow_large or None))
                 if v is not None]
        if extra:
            raise InputError(f"{', '.join(extra)} = {getattr(args, extra[0][2:].replace('-', '_'))!r}: "
                             "expected only with a table FILE, not with MODULE:FUNCTION")
        return _profile_function(args)
    extra = [o for o, v in (("--returns", args.returns), ("--examples", args.examples), ("--seed", args.seed),
                            ("--timeout", args.timeout), ("--path", args.path), ("--python", args.python),
                            ("--array", args.array)) if v is not None]
    if extra:
        raise InputError(f"{extra[0]} = {getattr(args, extra[0][2:])!r}: expected only with MODULE:FUNCTION, "
                         "not with a table FILE")
    return _profile_file(args)


def _profile_function(args) -> int:
    from verify.crossval.profile_functions import MAX_PROFILE_N, ProfileConventions, crossval_profile_function

    _hypothesis_home()
    settings = _function_settings(args)
    max_N = check_int(10 if args.N is None else args.N, "--N", lo=1, hi=MAX_PROFILE_N)
    _check_json_path(args)
    conv = ProfileConventions(values=args.values, returns=args.returns or "profile", array=args.array or "numpy")
    console = _console()
    res, rc = _run_check(console, f"driving {args.target} with truth tables of N = 1..{max_N}", args.target,
                         lambda: crossval_profile_function(args.target, conv, max_N=max_N, **settings))
    if res is None:
        return rc
    rc = _verdict(console, res, args.target, "tables")
    _write_json(args, res, target=args.target, conventions=vars(conv))
    return rc


def _run_influences(args) -> int:
    from verify.crossval.influence_functions import MAX_INFLUENCE_N, InfluenceConventions, crossval_influences

    _hypothesis_home()
    settings = _function_settings(args)
    max_N = check_int(10 if args.N is None else args.N, "--N", lo=1, hi=MAX_INFLUENCE_N)
    _check_json_path(args)
    conv = InfluenceConventions(values=args.values, order=args.order, array=args.array)
    console = _console()
    res, rc = _run_check(console, f"driving {args.target} with truth tables of N = 1..{max_N}", args.target,
                         lambda: crossval_influences(args.target, conv, max_N=max_N, **settings))
    if res is None:
        return rc
    rc = _verdict(console, res, args.target, "tables")
    _write_json(args, res, target=args.target, conventions=vars(conv))
    return rc


def _parse_claimed(text):
    from numeric.validation import parse_integer

    return [parse_integer(x, "--claimed") for x in text.split(",")]


def _profile_file(args) -> int:
    from verify.crossval.results import CrossvalResult
    from verify.crossval.table_files import check_claimed, read_table
    from verify.report.sensitivity_profiles import profile_counts

    given = _parse_claimed(args.claimed) if args.claimed is not None else None
    if args.N is not None:
        check_int(args.N, "--N", lo=0, hi=32)
    _check_json_path(args, args.target)
    table, claimed = read_table(args.target, args.N, values=args.values, allow_large=args.allow_large)
    N = table.size.bit_length() - 1
    if given is not None:
        claimed = check_claimed(given, N, "--claimed")
    ours = profile_counts(table, allow_large=args.allow_large)
    console = _console()
    console.print(f"profile K_0..K_{N} (ours): {ours}", highlight=False)
    ok = claimed is None or claimed == ours
    if claimed is None:
        pass
    elif ok:
        console.print("[green]agrees[/] with the claimed profile")
    else:
        console.print(f"[bold red]MISMATCH[/]: claimed {claimed}", highlight=False)
    res = CrossvalResult(ok=ok, examples=1, compared="sensitivity profile K_0..K_N", sizes={"N": {N: 1}},
                         rows=[{"profile": ours, "claimed": claimed}])
    _write_json(args, res, file=args.target)
    return 0 if ok else 1
