"""`boolverify sensitivity profile`: exact sensitivity profile of a Boolean function (SG-1).

Examples::

    boolverify sensitivity profile --function majority --N 10
    boolverify sensitivity profile --function sparse_parity --N 12 --S 0,2,5 --json out.json
    boolverify sensitivity profile --table f.npy --figure profile.png
    boolverify sensitivity profile --table f.txt --msb-first

Prints ``K_k = #{x : s(x, f) = k}`` for ``k = 0..N`` with ``K_k / 2^N``, the average
sensitivity ``as(f)`` (and ``as(f)/N``), the minimal and maximal sensitivity. For the named
functions with a proved formula (parity, first, dictator, sparse_parity, majority) the table
also shows the profile of the sympy proof (verify.symbolic.profile_proofs) and whether the two agree.
The results are computed by :mod:`verify.report.sensitivity_profiles` and drawn by
:mod:`verify.report.sensitivity_figures`; this module parses the options and prints.

A truth-table file is ``.npy`` (a 1-D array of 0/1) or text holding only the characters 0
and 1 (whitespace and commas ignored), entry ``x`` at string index ``x = sum_n bit_n 2^n``;
``--msb-first`` reads files listed with position 0 as the most significant bit (the order of
``itertools.product([0, 1], repeat=N)``).
"""

from __future__ import annotations

from numeric.validation import InputError, check_choice, check_device, check_int, check_ints, check_seed
from verify.cli.options import integer, integers
from numeric.vocabulary import FUNCTIONS
from verify.cli import as_options, writing


def register(sub):
    p = sub.add_parser(
        "profile",
        help="exact sensitivity profile K_0..K_N of a named function or a truth-table file (SG-1)",
        description="Exact sensitivity profile of a Boolean function over all 2^N strings "
        "(as formalised in boolverify).",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--function", metavar="NAME", help="the function, one of " + ", ".join(FUNCTIONS) + " (this or --table is required)")
    src.add_argument("--table", metavar="FILE", help="truth table: .npy or text of 0/1, 2^N entries (this or --function is required)")
    p.add_argument("--N", type=integer, default=None, help="input length N >= 1 (required with --function; default: none)")
    p.add_argument("--i", type=integer, default=None, help="dictator position, 0 .. N - 1 (required with dictator; default: none)")
    p.add_argument("--S", default=None, help="positions of sparse_parity / sparse_majority, each 0 .. N - 1, e.g. 0,2,5 "
                   "(required with them; default: none)")
    p.add_argument("--value", type=integer, default=None, help="constant value, 0 or 1 (default 0)")
    p.add_argument("--seed", type=integer, default=None, help="seed of the random function, 0 .. 2^63 - 1 (required with random; default: none)")
    p.add_argument("--msb-first", action="store_true",
                   help="the --table file lists position 0 as the most significant bit")
    p.add_argument("--allow-large", action="store_true",
                   help="allow N above the default memory limit (24), up to 32")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--json", metavar="FILE", default=None, help="write the results as JSON (atomic)")
    p.add_argument("--figure", metavar="FILE", default=None,
                   help="histogram of K_k / 2^N (PNG, PDF or SVG by suffix, atomic)")
    p.set_defaults(func=_handler)


def _params(args) -> dict:
    params = {}
    if args.i is not None:
        params["i"] = args.i
    if args.S is not None:
        params["S"] = integers(args.S, "--S")
    if args.value is not None:
        params["value"] = args.value
    if args.seed is not None:
        params["seed"] = args.seed
    return params


def _validate(args) -> dict:
    """Option checks before any work; returns the function's parameters."""
    from numeric.boolean import check_N, function_entry

    from verify.cli.options import check_distinct_files, check_figure_output, check_output

    check_device(args.device, "--device")
    check_output(args.json, "--json")
    check_figure_output(args.figure)
    check_distinct_files([("--json", args.json), ("--figure", args.figure)], [("--table", args.table)])
    if args.function is None:
        if args.N is not None or _params(args):
            raise InputError("--N, --i, --S, --value and --seed go with --function, not --table")
        return {}
    function = function_entry(check_choice(args.function.lower(), "--function", FUNCTIONS), "--function")
    if args.N is None:
        raise InputError("--N = None: expected the input length; --function needs --N")
    check_N(args.N, allow_large=args.allow_large, what="--N")
    if args.msb_first:
        raise InputError("--msb-first = True: expected only with --table (it applies to table files)")
    params = _params(args)
    _check_params(function, args.N, params)
    return params


def _check_params(function, N, params):
    """Ranges of the parameters ``function`` (a registry entry) takes, by option name (the engine
    checks the rest: parameters a function does not take, repeated positions)."""
    takes = function.params
    if "i" in takes and "i" in params:
        check_int(params["i"], "--i", lo=0, hi=N - 1)
    if "S" in takes and params.get("S"):
        check_ints(params["S"], "--S", lo=0, hi=N - 1)
    if "seed" in takes and "seed" in params:
        check_seed(params["seed"], "--seed")
    if "value" in takes and "value" in params:
        check_choice(params["value"], "--value", (0, 1))


def _handler(args):
    from verify.report.sensitivity_profiles import function_result, load_table, profile_result

    params = _validate(args)
    from verify.cli.options import console

    with console().status("computing the profile over all 2^N strings"):
        if args.function is not None:
            with as_options({"i": "--i", "S": "--S", "value": "--value", "seed": "--seed", "N": "--N"}):
                result = function_result(args.function, args.N, params, device=args.device,
                                         allow_large=args.allow_large)
        else:
            table = load_table(args.table, msb_first=args.msb_first, device=args.device,
                               allow_large=args.allow_large)
            result = profile_result(table, str(args.table), table_file=args.table,
                                    allow_large=args.allow_large)
    _print(result)
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        with writing(args.json, "--json"):
            atomic_write_json(args.json, result)
    if args.figure:
        from verify.report.sensitivity_figures import draw_histogram

        with writing(args.figure, "--figure"):
            draw_histogram(result, args.figure, data=[args.json] if args.json else ())
    return 0 if result.get("formula_agrees", True) else 1


def _print(result):
    from rich.table import Table

    from verify.cli.options import console

    N = result["N"]
    formula = result.get("formula")
    t = Table(title=f"sensitivity profile of {result['label']} (N = {N}, 2^N = {1 << N})")
    t.add_column("k", justify="right")
    t.add_column("K_k", justify="right")
    t.add_column("K_k / 2^N", justify="right")
    if formula is not None:
        t.add_column("proved K_k", justify="right")
    for k, c in enumerate(result["profile"]):
        row = [str(k), str(c), f"{result['fractions'][k]:.6g}"]
        if formula is not None:
            row.append(str(formula.get(str(k), 0)))
        t.add_row(*row)
    con = console()
    con.print(t)
    con.print(
        f"as(f) = {result['average_sensitivity_exact']} = {result['average_sensitivity']:.10g}  "
        f"(as(f)/N = {result['average_sensitivity_over_N']:.6g}); min s = {result['min_sensitivity']}, "
        f"max s = {result['max_sensitivity']}; K_0 = {result['K0']}"
        + ("  (no zero-sensitivity string)" if result["K0"] == 0 else ""),
        soft_wrap=True,
    )
    if formula is not None:
        con.print("proof (verify.symbolic.profile_proofs) and enumeration "
                  + ("agree" if result["formula_agrees"] else "DISAGREE"), soft_wrap=True)
