"""README.md's claims table is what the claims registry and docs/report.json render
(:mod:`verify.report.readme`); regenerate it with ``python -m verify.report.readme``."""


import pytest

from tests.helpers import PROJECT_ROOT, raises_input_error
from verify.report.claims import CLAIMS
from verify.report.readme import (
    END, START, load_report, main, render_table, replace_region, table_region, update_readme,
)

ROOT = PROJECT_ROOT
README = ROOT / "README.md"
REPORT = ROOT / "docs" / "report.json"


def test_readme_table_is_generated_from_registry_and_report():
    rendered = render_table(load_report(REPORT))
    assert table_region(README.read_text(encoding="utf-8")) == rendered, (
        "README.md's claims table is stale: run `python -m verify.report.readme`")
    assert update_readme(README, REPORT, write=False) is False


def test_render_table_rows_links_and_status():
    report = {"profile": "full", "started": "2027-01-02T03:04:05Z",
              "claims": [{"id": "SX-1", "status": "fail"}, {"id": "SG-8", "status": "pass"}]}
    table = render_table(report)
    lines = table.splitlines()
    assert "full, 2027-01-02" in lines[0]
    assert len(lines) == 2 + len(CLAIMS)
    sx1 = next(line for line in lines if line.startswith("| SX-1 |"))
    assert sx1.endswith("| [test_SX1_population_loss.py](theorems/test_SX1_population_loss.py) | fail |")
    assert next(line for line in lines if line.startswith("| SX-2 |")).endswith("| not run |")
    assert all(line.count(" | ") == 3 for line in lines[2:])  # pipes in statements are escaped


def test_rewrite_touches_only_the_marked_region(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\nbefore\n{START}\n| old | table |\n{END}\nafter\n")
    assert update_readme(readme, REPORT) is True
    text = readme.read_text()
    assert text.startswith(f"# title\n\nbefore\n{START}\n| id | claim")
    assert text.endswith(f"{END}\nafter\n")
    assert table_region(text) == render_table(load_report(REPORT))
    assert update_readme(readme, REPORT) is False  # idempotent
    assert main(["--readme", str(readme), "--report", str(REPORT), "--check"]) == 0
    readme.write_text(replace_region(text, "| stale |\n"))
    assert main(["--readme", str(readme), "--report", str(REPORT), "--check"]) == 1
    assert readme.read_text().count("| stale |") == 1  # --check writes nothing


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--readme", "{tmp}/missing.md"], "--readme"),
        (["--readme", "{tmp}/nomarkers.md"], "--readme"),
        (["--readme", "{tmp}/ok.md", "--report", "{tmp}/missing.json"], "--report"),
        (["--readme", "{tmp}/ok.md", "--report", "{tmp}/bad.json"], "--report"),
    ],
)
def test_bad_input_one_line_exit_2(tmp_path, capsys, argv, name):
    (tmp_path / "nomarkers.md").write_text("# no table\n")
    (tmp_path / "ok.md").write_text(f"{START}\n{END}\n")
    (tmp_path / "bad.json").write_text("{not json")
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boolverify: error: ") and err.count("\n") == 1
    assert name in err and "Traceback" not in err


def test_api_bad_input_raises_input_error(tmp_path):
    with raises_input_error("readme"):
        replace_region("no markers", "| x |\n")
    with raises_input_error("report"):
        load_report(tmp_path / "missing.json")


def test_claims_doc_tables_are_generated_from_registry():
    """docs/claims.md's decision rules and per-paper tables are what the registry renders."""
    from verify.report.readme import claims_doc_regions, update_claims_doc

    doc = ROOT / "docs" / "claims.md"
    text = doc.read_text(encoding="utf-8")
    for markers, table in claims_doc_regions():
        assert table_region(text, markers=markers) == table, (
            f"docs/claims.md's region {markers[0]} is stale: run `python -m verify.report.readme`")
    assert update_claims_doc(doc, write=False) is False
    kinds = {c.kind for c in CLAIMS.values()}
    assert kinds == {"exact", "stochastic"}
    assert all(c.rule and c.formalised and c.checked for c in CLAIMS.values())


def test_paper_tables_have_one_anchored_row_per_claim():
    from verify.report.readme import render_paper_table

    rows = [line for paper in ("A", "B") for line in render_paper_table(paper).splitlines()[2:]]
    assert [row.split("</a>")[1].split(" |")[0] for row in rows] == list(CLAIMS)
    for row, claim in zip(rows, CLAIMS.values()):
        assert row.startswith(f'| <a id="{claim.id.lower()}"></a>{claim.id} |')
        assert row.endswith(f"(../{claim.theorem_file}) |") and row.count(" | ") == 3


def test_stale_claims_doc_region_is_rewritten_and_checked(tmp_path):
    from verify.report.readme import PAPER_MARKERS, update_claims_doc

    doc = tmp_path / "claims.md"
    text = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    first, _ = PAPER_MARKERS["B"]
    stale = text.replace("| theorem file |", "| theorem |", 2)
    assert stale != text and first in stale
    doc.write_text(stale, encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text((ROOT / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
    argv = ["--readme", str(readme), "--report", str(REPORT), "--claims-doc", str(doc)]
    assert main(argv + ["--check"]) == 1
    assert doc.read_text(encoding="utf-8") == stale  # --check writes nothing
    assert main(argv) == 0 and doc.read_text(encoding="utf-8") == text
    assert update_claims_doc(doc, write=False) is False
