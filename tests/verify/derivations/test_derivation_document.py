"""The derivation document: every displayed identity has its check, every check passes, the
printing is readable, and the document compiles without overfull boxes."""

import re
import shutil

import pytest

from verify.derivations.document import render
from verify.derivations.paper_a import tex
from verify.derivations.registry import all_identities, identity
from verify.derivations.latex import LAST_LOG, compile_pdf

LABELS = [i.label for i in all_identities()]


@pytest.fixture(scope="module")
def document():
    return render(checks=False)


@pytest.mark.parametrize("label", LABELS)
def test_identity(label):
    ok, detail = identity(label).check()
    assert ok, f"{label}: {detail}"


def test_every_displayed_identity_is_checked(document):
    displayed = re.findall(r"\\begin\{equation\}\\label\{eq:([^}]+)\}", document)
    tags = re.findall(r"\\tag\{([^}]+)\}", document)
    assert displayed == tags                       # each equation is tagged with its label
    assert sorted(displayed) == sorted(LABELS) and len(set(LABELS)) == len(LABELS)
    assert document.count(r"\begin{equation}") == len(LABELS)
    for env in ("align", "align*", "equation*", "gather", "multline"):
        assert rf"\begin{{{env}}}" not in document  # no unnumbered, unchecked display
    assert r"\[" not in document and "$$" not in document
    table = document[document.index(r"\section*{Checks}"):]
    assert all(rf"\eqref{{eq:{label}}}" in table for label in LABELS)


def test_sections_and_no_run_details(document):
    for title in ("Model and notation", "The loss (SX-1)", "The gradients (SX-2)", "(SX-3)",
                  "antisymmetric initialisation", "(SG-1)", "(SG-2)", "(SG-3)", "(SG-6)"):
        assert title in document
    for word in ("seconds", "time", " s)", "cases,"):
        assert word not in document.split(r"\section*{Checks}")[0].replace("times", "")


def test_readable_forms_are_pinned():
    from verify.symbolic.chain_rule import derive_jacobian
    from verify.symbolic.derivation import derive

    J = derive_jacobian("softmax")
    assert tex(J.case_eq) == r"\gamma_i\left(1 - \gamma_i\right)"
    assert tex(J.weighted) == r"\gamma_i\left(g_i - \gamma\cdot g\right)"
    assert tex(derive().loss) == (r"\|\gamma\|^2 \|\tilde\gamma\|^2 + 2 \left(\gamma\cdot \tilde\gamma\right)^{2}"
                                  r" - 2 \sum_i \gamma_i^2 \tilde\gamma_i^2 - 2 \gamma_a \tilde\gamma_b"
                                  r" - 2 \gamma_b \tilde\gamma_a + 1")
    doc = render(checks=False)
    assert "x_a^2" not in doc.replace("$x_a^2 = x_b^2 = 1$", "")   # reduced, except where stated


def test_residual_forms_are_set_one_degree_per_line():
    import sympy as sp

    from verify.symbolic.derivation import derive
    from verify.derivations.paper_a import residual_printer

    D, pr = derive(), residual_printer()
    for label, expr, degrees in (("res-loss", D.residual_loss, [2, 3, 4]),
                                 ("res-grad", D.residual_grad_u, [1, 2, 3])):
        groups = pr.by_degree(expr)
        assert [deg for deg, _ in groups] == degrees
        assert all(pr.degree(t) == deg for deg, terms in groups for t in terms)
        assert sp.expand(sp.Add(*[t for _, terms in groups for t in terms]) - expr) == 0
        body = identity(label).body()
        assert body.count(r"\\") == len(degrees) - 1       # one line per degree
        assert body.split("&= ", 1)[1].split(r"\\ &\quad ") == pr.lines_by_degree(expr)


def test_variance_and_majority_are_printed_as_stated():
    from verify.reference.random_functions import variance_K0_claim
    from verify.symbolic import printing

    body = identity("varK0").body()
    assert body == (r"\operatorname{Var}[K_0] = 1 + \frac{\left(N + 2\right) "
                    r"\left(N - 1\right)}{2^{N + 1}}")
    # printed from the very expression the check compares (rules 1, 5, 6 of the printer)
    assert body.endswith(printing.tex(variance_K0_claim(), {}, ascending=True))
    for label in ("maj-even", "maj-odd"):
        body = identity(label).body()
        assert "r + 1" in body and "m" not in body.replace(r"\binom", "")
        assert "2r" in identity(label).on_what and "2m" not in identity(label).on_what


def test_checks_table_is_one_longtable(document):
    table = document[document.index(r"\section*{Checks}"):]
    assert table.count(r"\begin{longtable}") == 1 and r"\begin{tabular}" not in table
    assert table.count(r"\endfirsthead") == 1 and table.count(r"\endhead") == 1
    assert "did not run when this document was generated" in table


def test_planted_wrong_sign_in_the_init_gradient_is_caught():
    from verify.symbolic import one_step

    w0, w1 = one_step.init_gradient("g")
    ok, _ = one_step.check_init_gradient(ds=(3, 4), w=(w0, -w1))
    assert not ok


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_document_compiles_without_overfull_boxes(tmp_path, document):
    path = tmp_path / "derivations.tex"
    path.write_text(document)
    pdf = compile_pdf(path)
    log = LAST_LOG[str(pdf)]
    assert "Overfull" not in log
    assert "undefined" not in log.lower().replace("undefined references", "UNDEF")
    assert "LaTeX Warning: Reference" not in log
