"""verify.derivations.latex and `boolverify derive`: generated LaTeX, compilation, missing pdflatex."""

import shutil

import pytest

from verify.cli import main
from verify.symbolic.derivation import derive
from numeric.validation import InputError
from tests.helpers import raises_input_error
from verify.derivations.latex import LatexError, compile_pdf, derivation_tex, tex

needs_pdflatex = pytest.mark.skipif(shutil.which("pdflatex") is None,
                                    reason="pdflatex not installed (CI installs texlive-latex-base)")


@pytest.fixture(scope="module")
def document():
    return derivation_tex(checks=True)


def test_document_is_generated_from_the_sympy_objects(document):
    D = derive()
    assert tex(D.loss) in document
    assert tex(D.grad_g) in document and tex(D.grad_gt) in document
    assert r"\delta_{ij}\delta_{kl} - 2\delta_{ijkl}" in document
    assert "boolverify's formalisation" in document
    assert "MISMATCH" not in document and "pass" in document
    assert "These checks ran when this document was generated, and the column" in document
    for section in ("Moments", "The loss", "The gradients", "The CLS", "One step", "Sensitivity profiles",
                    "Random functions", "Layer-norm", "The exponent of Theorem 4.5"):
        assert rf"\section{{{section}" in document


@needs_pdflatex
def test_generated_tex_compiles(tmp_path, document):
    path = tmp_path / "derivations.tex"
    path.write_text(document)
    pdf = compile_pdf(path)
    assert pdf == tmp_path / "derivations.pdf"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["derivations.pdf", "derivations.tex"]


@needs_pdflatex
def test_broken_tex_gives_latex_error_and_no_pdf(tmp_path):
    path = tmp_path / "bad.tex"
    path.write_text(r"\documentclass{article}\begin{document}\undefinedmacro\end{document}")
    with pytest.raises(LatexError, match=r"pdflatex failed on .*bad.tex: ! Undefined control"):
        compile_pdf(path)
    assert not (tmp_path / "bad.pdf").exists()


@needs_pdflatex
def test_cli_derive_writes_tex_and_pdf(tmp_path, capsys):
    out = tmp_path / "sub" / "derivations.tex"
    out.parent.mkdir()
    assert main(["derive", "--out", str(out), "--pdf", "--no-checks"]) == 0
    assert out.read_text().startswith(r"\documentclass")
    assert out.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
    assert "pdflatex" in capsys.readouterr().out


def test_missing_pdflatex_is_a_clean_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    out = tmp_path / "d.tex"
    assert main(["derive", "--out", str(out), "--pdf"]) == 2
    err = capsys.readouterr().err
    assert err == ("boolverify: error: pdflatex not found; install texlive-latex-base or drop "
                   "--pdf\n")
    assert not out.exists()  # checked before any work
    out.write_text("x")
    with pytest.raises(InputError, match=r"^pdflatex not found; install texlive-latex-base or drop --pdf$"):
        compile_pdf(out)


def test_bad_out_and_missing_file(tmp_path, capsys):
    assert main(["derive", "--out", str(tmp_path / "d.txt")]) == 2
    assert "expected a file name ending in .tex" in capsys.readouterr().err
    if shutil.which("pdflatex"):
        with raises_input_error("tex_path"):
            compile_pdf(tmp_path / "missing.tex")


def test_missing_tex_file_names_the_argument(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/pdflatex")  # never run
    with raises_input_error("tex_path"):
        compile_pdf(tmp_path / "missing.tex")


def test_derive_exits_1_when_an_enumeration_check_fails(tmp_path, monkeypatch, capsys):
    from verify.symbolic import enumeration
    from verify.cli import main

    real = enumeration.check_gradient

    def broken(*args, **kwargs):
        report = real(*args, **kwargs)
        report.passed = False  # as if one case disagreed
        return report

    monkeypatch.setattr(enumeration, "check_gradient", broken)
    out = tmp_path / "d.tex"
    assert main(["derive", "--out", str(out)]) == 1
    assert r"\textbf{MISMATCH}" in out.read_text()
    assert "found a MISMATCH" in capsys.readouterr().err
    monkeypatch.setattr(enumeration, "check_gradient", real)
    assert main(["derive", "--out", str(out)]) == 0
