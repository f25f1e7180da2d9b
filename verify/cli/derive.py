"""`boolverify derive`: write the derivation document as LaTeX (and a PDF).

The document (:mod:`verify.derivations.document`) is rendered from the identity registry of
:mod:`verify.derivations.paper_a`: every numbered equation is printed from the object its check
verifies, and with checks (the default) every check is run and its result tabulated.
"""

from __future__ import annotations

DEFAULT_OUT = "docs/derivations.tex"


def register(sub):
    p = sub.add_parser(
        "derive",
        help="write the checked derivation document as LaTeX (--pdf: compile)",
        description="Generate docs/derivations.tex from the sympy derivation (as formalised in "
        "boolverify) and, with --pdf, compile it with pdflatex next to the .tex.",
    )
    p.add_argument("--out", default=DEFAULT_OUT, metavar="FILE",
                   help=f"LaTeX file to write atomically (default: {DEFAULT_OUT})")
    p.add_argument("--pdf", action="store_true", help="also compile FILE.pdf with pdflatex")
    p.add_argument("--no-checks", action="store_true",
                   help="skip running the checks of the displayed identities (the table at the end)")
    p.set_defaults(func=run)


def _validate(args):
    import shutil
    from pathlib import Path

    from numeric.validation import InputError

    from verify.cli.options import check_output

    out = Path(args.out)
    if out.suffix != ".tex":
        raise InputError(f"--out = {args.out!r}: expected a file name ending in .tex")
    check_output(out, "--out")
    if args.pdf:  # the PDF is written beside the .tex under the same name
        check_output(out.with_suffix(".pdf"), "--out (its .pdf)", outputs=[("--out", out)])
    if args.pdf and shutil.which("pdflatex") is None:  # fail before doing any work
        raise InputError("pdflatex not found; install texlive-latex-base or drop --pdf")
    return out


def run(args) -> int:
    import sys
    import time

    from rich.table import Table

    from verify.cli import writing
    from verify.cli.options import console

    out = _validate(args)
    from verify.symbolic.derivation import derive
    from verify.derivations import LatexError, all_identities, compile_pdf, write_tex

    t0 = time.perf_counter()
    with console().status("deriving with sympy, then writing the LaTeX"
                          + ("" if args.no_checks else " and checking every identity")):
        D = derive()
        with writing(args.out, "--out"):
            checks_ok = write_tex(out, checks=not args.no_checks)
    t_tex = time.perf_counter() - t0
    table = Table(title="boolverify derive (as formalised in boolverify)")
    table.add_column("step")
    table.add_column("result")
    table.add_row("derivation (sympy)", f"{D.seconds:.3f} s")
    table.add_row("LaTeX" + ("" if args.no_checks else " + identity checks"),
                  f"{out} ({t_tex:.2f} s)")
    n = len(all_identities())
    table.add_row("displayed identities",
                  f"{n}, checks not run (--no-checks)" if args.no_checks
                  else f"{n}, each checked: " + ("all pass" if checks_ok else "MISMATCH (see the table at the end)"))
    if args.pdf:
        t1 = time.perf_counter()
        try:
            pdf = compile_pdf(out)
        except LatexError as exc:
            print(f"boolverify: error: {exc}", file=sys.stderr)
            return 1
        table.add_row("pdflatex", f"{pdf} ({time.perf_counter() - t1:.2f} s)")
    console().print(table)
    if not checks_ok:
        print(f"boolverify: a check of a displayed identity in {out} found a MISMATCH", file=sys.stderr)
        return 1
    return 0
