"""The one plotting style: every figure module draws and saves through verify.report.plot_style,
writes symbols as mathtext, and every figure of docs/figures has its PDF, its provenance and a
results page that shows it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
#: the modules allowed to touch matplotlib's saving and styling: the style itself and the atomic writer
OWNERS = {ROOT / "verify/report/plot_style.py", ROOT / "verify/common/atomic_io.py"}
#: calls that would bypass the style (a second look, or a file written past save's atomic write)
FORBIDDEN_CALLS = {"savefig", "tight_layout", "rc_context", "rcdefaults"}
FORBIDDEN_ATTRIBUTES = {"style", "rcParams"}
#: Greek names written out as plain text in figure text (mathtext: $\eta$, $\alpha$, ...)
PLAIN_GREEK = re.compile(r"(?<![\\A-Za-z])(eta|alpha|theta|sigma|gamma|epsilon|eps|xi)(?![A-Za-z_])")
TEXT_CALLS = {"set_xlabel", "set_ylabel", "set_title", "suptitle", "supxlabel", "text", "annotate", "note_below"}


def _figure_modules():
    files = sorted((ROOT / "verify").rglob("*.py")) + sorted((ROOT / "numeric").rglob("*.py"))
    draws = re.compile(r"^\s*(import matplotlib|from matplotlib)|pyplot\(\)", re.M)
    return [f for f in files if f not in OWNERS and (draws.search(f.read_text(encoding="utf-8"))
                                                     or f.name.endswith("figures.py"))]


def _strings(node):
    """The literal text of a string or f-string node (the formatted values left out)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.JoinedStr):
        yield "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    elif isinstance(node, ast.BinOp):
        yield from _strings(node.left)
        yield from _strings(node.right)


def style_problems(source: str) -> list:
    """What in a figure module's ``source`` bypasses the style or writes a symbol as plain text."""
    problems = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            problems.append(f"line {node.lineno}: .{node.attr} (the style belongs to plot_style)")
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in FORBIDDEN_CALLS:
            problems.append(f"line {node.lineno}: {name}() (save through plot_style.save)")
        texts = [a for a in node.args if name in TEXT_CALLS]
        texts += [k.value for k in node.keywords if k.arg == "label"]
        for arg in texts:
            for text in _strings(arg):
                # only the text outside $...$ is plain; inside it a name without a backslash is still plain
                for m in PLAIN_GREEK.finditer(text):
                    problems.append(f"line {node.lineno}: {m.group(0)!r} as plain text in {text!r}")
    return problems


def test_the_checker_can_fail():
    bad = ('fig.savefig("a.png")\nplt.style.use("ggplot")\nax.set_xlabel("eta")\n'
           'ax.plot(x, y, label=f"alpha = {a}")\nax.set_title("theta~ and eps=0")\n')
    found = style_problems(bad)
    assert len(found) == 6, found
    good = ('ax.set_xlabel(r"$\\eta$")\nax.plot(x, y, label=rf"$\\alpha = {a}$")\n'
            'ax.set_title(r"$\\tilde\\theta$, $\\varepsilon = 0$, beta-free")\nsave(fig, path)\n')
    assert style_problems(good) == []


def test_figure_modules_are_found():
    names = {f.name for f in _figure_modules()}
    assert {"xor_figures.py", "transformer_figures.py", "sensitivity_figures.py", "volume_figures.py"} <= names


@pytest.mark.parametrize("path", _figure_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_figure_module_uses_the_style(path):
    source = path.read_text(encoding="utf-8")
    assert style_problems(source) == []
    assert "plot_style" in source, f"{path.name} draws figures without verify.report.plot_style"


def test_save_writes_png_pdf_and_sidecar(tmp_path):
    from verify.report.plot_style import image_paths, save, styled, subplots

    @styled
    def draw(target):
        fig, ax = subplots()
        ax.plot([0, 1], [0, 1])
        return save(fig, target)

    paths = draw(tmp_path / "f.png")
    assert [p.name for p in paths] == ["f.png", "f.pdf"]
    assert (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "f.provenance.json").exists()
    assert [p.name for p in image_paths(tmp_path / "g.svg")] == ["g.svg"]
    assert [p.name for p in image_paths(tmp_path / "h")] == ["h.png", "h.pdf"]


def test_series_never_repeats_within_the_palette():
    from verify.report.plot_style import COLOURS, series

    styles = [series(i) for i in range(len(COLOURS))]
    assert len({s["color"] for s in styles}) == len({s["marker"] for s in styles}) == len(COLOURS)


def figure_page_problems(fig_dir: Path, pages) -> list:
    """Each PNG of ``fig_dir`` needs its PDF, its provenance sidecar and a results page showing it."""
    text = "\n".join(Path(p).read_text(encoding="utf-8") for p in pages)
    problems = []
    for png in sorted(fig_dir.glob("*.png")):
        if not png.with_suffix(".pdf").exists():
            problems.append(f"{png.name}: no PDF beside it")
        if not (fig_dir / f"{png.stem}.provenance.json").exists():
            problems.append(f"{png.name}: no provenance file")
        if f"](figures/{png.name})" not in text:
            problems.append(f"{png.name}: no results page shows it")
    return problems


def test_figure_page_check_can_fail(tmp_path):
    (tmp_path / "a.png").write_bytes(b"x")
    page = tmp_path / "results-x.md"
    page.write_text("no figure here\n")
    assert len(figure_page_problems(tmp_path, [page])) == 3


def test_every_docs_figure_has_pdf_provenance_and_a_page():
    pages = sorted((ROOT / "docs").glob("results-*.md"))
    assert pages
    assert figure_page_problems(ROOT / "docs/figures", pages) == []
