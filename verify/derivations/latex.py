r"""Writing and compiling the derivation document.

The document itself is rendered by :mod:`verify.derivations.document` from the identities of
:mod:`verify.derivations.paper_a` (each printed from the sympy object its check verifies); this
module writes it atomically and compiles it with pdflatex.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from numeric.validation import InputError
from verify.common.atomic_io import atomic_path
from verify.derivations.document import MISMATCH

def tex(expr) -> str:
    """``expr`` printed by the document's rules (:mod:`verify.symbolic.printing`)."""
    from verify.derivations.paper_a import tex as _tex

    return _tex(expr)


def derivation_tex(checks: bool = True) -> str:
    """The complete LaTeX document (:mod:`verify.derivations.document`). With ``checks`` every
    displayed identity's check is run and its result printed in the final table."""
    from verify.derivations.document import render

    return render(checks=checks)


def write_tex(path, checks: bool = True) -> bool:
    """Write the document atomically to ``path``; ``False`` when an enumeration check failed."""
    from verify.common.atomic_io import atomic_write_text

    text = derivation_tex(checks=checks)
    atomic_write_text(path, text)
    return MISMATCH not in text


#: the pdflatex log of the last compilation of each PDF (path -> text), for the overfull-box check
LAST_LOG: dict = {}


#: most pdflatex passes: references need two, longtable's column widths one or two more
MAX_PASSES = 4


def _pdflatex(exe, src, tmp, timeout, tex_path) -> str:
    """Run pdflatex until the log asks for no rerun (equation references, longtable's column
    widths), at least twice and at most :data:`MAX_PASSES` times; the final log."""
    logfile = Path(tmp) / "doc.log"
    for k in range(MAX_PASSES):
        try:
            proc = subprocess.run(
                [exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", src.name],
                cwd=tmp, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise LatexError(f"pdflatex did not finish on {tex_path} within {timeout:g} s") from None
        if proc.returncode != 0 or not (Path(tmp) / "doc.pdf").is_file():
            log = proc.stdout.splitlines()
            err = next((ln for ln in log if ln.startswith("!")), log[-1] if log else "no output")
            raise LatexError(f"pdflatex failed on {tex_path}: {err}")
        log = logfile.read_text(errors="replace") if logfile.is_file() else proc.stdout
        if k >= 1 and "Rerun LaTeX" not in log and "Rerun to get" not in log:
            break
    return log


class LatexError(RuntimeError):
    """pdflatex ran but failed; the message carries the first error line of the log."""


def compile_pdf(tex_path, timeout: float = 180) -> Path:
    """Compile ``tex_path`` with pdflatex in a temporary folder and move the PDF next to it
    atomically. Raises :class:`InputError` when pdflatex is missing or the file does not exist."""
    exe = shutil.which("pdflatex")
    if exe is None:
        raise InputError("pdflatex not found; install texlive-latex-base or drop --pdf")
    tex_path = Path(tex_path)
    if not tex_path.is_file():
        raise InputError(f"tex_path = {str(tex_path)!r}: expected an existing file (no such file to compile)")
    pdf_path = tex_path.with_suffix(".pdf")
    with tempfile.TemporaryDirectory(prefix="boolverify-tex-") as tmp:
        src = Path(tmp) / "doc.tex"
        shutil.copyfile(tex_path, src)
        log = _pdflatex(exe, src, tmp, timeout, tex_path)
        out = Path(tmp) / "doc.pdf"
        LAST_LOG[str(pdf_path)] = log
        with atomic_path(pdf_path) as dst:
            shutil.copyfile(out, dst)
    return pdf_path


__all__ = ["tex", "derivation_tex", "write_tex", "compile_pdf", "LatexError", "LAST_LOG", "MISMATCH",
           "MAX_PASSES"]
