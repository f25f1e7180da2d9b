"""`boolverify derive`: write the step-by-step SX-1/SX-2 derivation as LaTeX (and a PDF).

The document is generated from the sympy objects that the theorem tests check (moments ->
expansion -> closed form -> gradient -> attention Jacobians -> residual form).
"""

from __future__ import annotations

DEFAULT_OUT = "docs/derivations.tex"


def register(sub):
    p = sub.add_parser(
        "derive",
        help="write the sympy derivation of the population loss and gradient as LaTeX (--pdf: compile)",
        description="Generate docs/derivations.tex from the sympy derivation (as formalised in "
        "boolverify) and, with --pdf, compile it with pdflatex next to the .tex.",
    )
    p.add_argument("--out", default=DEFAULT_OUT, metavar="FILE",
                   help=f"LaTeX file to write atomically (default: {DEFAULT_OUT})")
    p.add_argument("--pdf", action="store_true", help="also compile FILE.pdf with pdflatex")
    p.add_argument("--no-checks", action="store_true",
                   help="skip the exact enumeration checks reported at the end of the document")
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
    from verify.symbolic.latex import LatexError, compile_pdf, write_tex

    t0 = time.perf_counter()
    with console().status("deriving with sympy, then writing the LaTeX"
                          + ("" if args.no_checks else " and the enumeration checks")):
        D = derive()
        with writing(args.out, "--out"):
            checks_ok = write_tex(out, checks=not args.no_checks)
    t_tex = time.perf_counter() - t0
    table = Table(title="boolverify derive (as formalised in boolverify)")
    table.add_column("step")
    table.add_column("result")
    table.add_row("derivation (sympy)", f"{D.seconds:.3f} s")
    table.add_row("LaTeX" + ("" if args.no_checks else " + enumeration checks"),
                  f"{out} ({t_tex:.2f} s)")
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
        print(f"boolverify: the enumeration checks in {out} found a MISMATCH", file=sys.stderr)
        return 1
    return 0
