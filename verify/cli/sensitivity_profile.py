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

A truth-table file is ``.npy`` (a 1-D array of 0/1) or text holding only the characters 0
and 1 (whitespace and commas ignored), entry ``x`` at string index ``x = sum_n bit_n 2^n``;
``--msb-first`` reads files listed with position 0 as the most significant bit (the order of
``itertools.product([0, 1], repeat=N)``).
"""

from __future__ import annotations

from pathlib import Path

from numeric.validation import InputError

_FORMULAS = ("parity", "first", "dictator", "sparse_parity", "majority")


def register(sub):
    p = sub.add_parser(
        "profile",
        help="exact sensitivity profile K_0..K_N of a named function or a truth-table file (SG-1)",
        description="Exact sensitivity profile of a Boolean function over all 2^N strings "
        "(as formalised in boolverify).",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--function", metavar="NAME",
                     help="parity, majority, first, dictator, sparse_parity, sparse_majority, "
                     "constant or random")
    src.add_argument("--table", metavar="FILE", help="truth table: .npy or text of 0/1")
    p.add_argument("--N", type=int, default=None, help="input length (with --function)")
    p.add_argument("--i", type=int, default=None, help="dictator position (0-based)")
    p.add_argument("--S", default=None, help="positions of sparse_parity / sparse_majority, e.g. 0,2,5")
    p.add_argument("--value", type=int, default=None, help="constant value, 0 or 1")
    p.add_argument("--seed", type=int, default=None, help="seed of the random function")
    p.add_argument("--msb-first", action="store_true",
                   help="the --table file lists position 0 as the most significant bit")
    p.add_argument("--allow-large", action="store_true",
                   help="allow N above the default memory limit (24), up to 32")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--json", metavar="FILE", default=None, help="write the results as JSON (atomic)")
    p.add_argument("--figure", metavar="FILE", default=None,
                   help="histogram of K_k / 2^N (PNG or PDF by suffix, atomic)")
    p.set_defaults(func=_handler)


def _params(args) -> dict:
    params = {}
    if args.i is not None:
        params["i"] = args.i
    if args.S is not None:
        try:
            params["S"] = [int(t) for t in args.S.split(",") if t.strip()]
        except ValueError:
            raise InputError(f"--S {args.S!r}: expected comma-separated integers, e.g. 0,2,5") from None
    if args.value is not None:
        params["value"] = args.value
    if args.seed is not None:
        params["seed"] = args.seed
    return params


def read_table_file(path, msb_first=False):
    """Read a truth table from ``.npy`` or a text file of 0/1 (see the module docstring)."""
    import numpy as np

    path = Path(path)
    if not path.is_file():
        raise InputError(f"--table {str(path)!r}: no such file")
    if path.suffix.lower() == ".npy":
        try:
            arr = np.load(path, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise InputError(f"--table {str(path)!r}: not a readable .npy file ({exc})") from None
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"--table {str(path)!r}: not a readable text file ({exc})") from None
        chars = "".join(text.replace(",", " ").split())
        bad = sorted(set(chars) - {"0", "1"})
        if bad:
            raise InputError(f"--table {str(path)!r}: unexpected character {bad[0]!r}; expected only 0 and 1 "
                             "(whitespace and commas are ignored)")
        arr = np.frombuffer(chars.encode(), dtype=np.uint8) - ord("0")
    if arr.ndim != 1:
        raise InputError(f"--table {str(path)!r}: expected a 1-D table, got shape {arr.shape}")
    return arr


def _handler(args):
    from numeric.boolean import truth_table
    from numeric.sensitivity import as_table, from_msb_first, profile

    if args.function is not None:
        if args.N is None:
            raise InputError("--function needs --N (the input length)")
        if args.msb_first:
            raise InputError("--msb-first applies to --table files only")
        params = _params(args)
        table = truth_table(args.function, args.N, device=args.device, allow_large=args.allow_large, **params)
        label = args.function.lower() + "".join(f" {k}={v}" for k, v in params.items())
    else:
        if args.N is not None or _params(args):
            raise InputError("--N, --i, --S, --value and --seed go with --function, not --table")
        arr = read_table_file(args.table, args.msb_first)
        table, _ = as_table(arr, allow_large=args.allow_large, what=f"--table {args.table!r}")
        if args.msb_first:
            table = from_msb_first(table)
        if str(args.device) != "cpu":
            from numeric.boolean import _device

            table = table.to(_device(args.device))
        params = {}
        label = str(args.table)
    K = profile(table, allow_large=args.allow_large).cpu()
    N = K.numel() - 1
    result = _summarise(K, label)
    result.update({"function": args.function, "params": params, "table_file": args.table})
    if args.function is not None and args.function.lower() in _FORMULAS and not (
        args.function.lower() == "majority" and N < 2
    ):
        from verify.symbolic.profile_proofs import formula_profile

        kw = {"k": len(params["S"])} if args.function.lower() == "sparse_parity" else {}
        formula = formula_profile(args.function.lower(), N, **kw)
        result["formula"] = {str(k): v for k, v in sorted(formula.items())}
        result["formula_agrees"] = formula == {k: v for k, v in enumerate(result["profile"]) if v}
    _print(result)
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.json, result)
    if args.figure:
        draw_histogram(result, args.figure)
    return 0 if result.get("formula_agrees", True) else 1


def _summarise(K, label) -> dict:
    from fractions import Fraction

    counts = [int(v) for v in K.tolist()]
    N = len(counts) - 1
    total = sum(k * c for k, c in enumerate(counts))
    as_f = Fraction(total, 1 << N)
    nz = [k for k, c in enumerate(counts) if c]
    return {
        "label": label, "N": N, "profile": counts,
        "fractions": [c / (1 << N) for c in counts],
        "average_sensitivity": float(as_f), "average_sensitivity_exact": str(as_f),
        "average_sensitivity_over_N": float(as_f / N) if N else 0.0,
        "min_sensitivity": nz[0], "max_sensitivity": nz[-1],
        "K0": counts[0],
    }


def _print(result):
    from rich.console import Console
    from rich.table import Table

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
    con = Console()
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


def draw_histogram(result, path):
    """Bar chart of ``K_k / 2^N`` against ``k`` (atomic write, format from the suffix)."""
    return draw_profiles([result], path)


def draw_profiles(results, path, ncols=None):
    """One bar chart of ``K_k / 2^N`` per result (a dict of :func:`_summarise`), atomic."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from verify.common.atomic_io import atomic_savefig

    from verify.common.atomic_io import check_figure_path

    check_figure_path(path)
    n = len(results)
    ncols = ncols or min(n, 2)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6 * ncols, 3.2 * nrows), squeeze=False)
    for ax, result in zip(axes.flat, results):
        N = result["N"]
        ax.bar(list(range(N + 1)), result["fractions"], color="tab:blue")
        ax.set_xlabel("sensitivity k")
        ax.set_ylabel(r"$K_k / 2^N$")
        ax.set_title(f"{result['label']}, N = {N}: as(f) = {result['average_sensitivity']:.4g}, "
                     f"K_0 = {result['K0']}", fontsize=9)
        ax.set_xlim(-0.6, N + 0.6)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    try:
        atomic_savefig(fig, path)
    finally:
        plt.close(fig)
    return path


def docs_figure(stem="docs/figures/sg1_profiles", N=16):
    """The profile figure of docs/results-boolean.md (PNG and PDF): MAJORITY, PARITY,
    3-sparse parity, FIRST and a random function at ``N``; also returns the summaries."""
    from numeric.boolean import truth_table
    from numeric.sensitivity import profile

    specs = [("majority", {}), ("parity", {}), ("sparse_parity", {"S": [0, 5, 11]}),
             ("first", {}), ("random", {"seed": 0}), ("sparse_majority", {"S": [0, 1, 2, 3, 4]})]
    results = []
    for name, params in specs:
        label = name + "".join(f" {k}={v}" for k, v in params.items())
        results.append(_summarise(profile(truth_table(name, N, **params)), label))
    for ext in (".png", ".pdf"):
        draw_profiles(results, f"{stem}{ext}")
    return results
