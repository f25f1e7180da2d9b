"""The HTML report (:mod:`verify.report.html_report`, ``boolverify check --html``), rendered
from the stored docs/report.json: a section per claim with its decisions, the exact checks
behind it, its instruments and its reproduce command; everything escaped; a missing figure is
a note, never a broken image. The page in a real browser: test_html_browser.py."""

from __future__ import annotations

import copy
import html
import json
import math
import re
from html.parser import HTMLParser

import pytest

from tests.helpers import PROJECT_ROOT, raises_input_error, run_cli_process
from verify.report.claim_figures import REPORT_FIGURES
from verify.report.claims import CLAIMS
from verify.report.html_report import (CLAIM_FIGURES, FIGURES_DIR, check_report, render_html, reproduce_command,
                                       write_html)

REPORT = PROJECT_ROOT / "docs" / "report.json"


@pytest.fixture(scope="module")
def report():
    return json.loads(REPORT.read_text())


@pytest.fixture(scope="module")
def page(report):
    return render_html(report, FIGURES_DIR)


class _Page(HTMLParser):
    """The claim sections of a page (their ``id`` and ``data-claim``), its images and the
    external references it holds (none are allowed)."""

    def __init__(self):
        super().__init__()
        self.sections, self.images, self.external = [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section" and "claim" in (attrs.get("class") or "").split():
            self.sections.append(attrs.get("data-claim"))
        if tag == "img":
            self.images.append(attrs.get("src") or "")
        for key in ("src", "href"):
            value = attrs.get(key) or ""
            if value and not value.startswith(("#", "data:")):
                self.external.append((tag, key, value[:80]))
        if tag in ("link", "script"):
            self.external.append((tag, "", ""))


def _parse(text) -> _Page:
    parsed = _Page()
    parsed.feed(text)
    return parsed


def _section(page: str, claim_id: str) -> str:
    start = page.index(f'data-claim="{claim_id}"')
    end = page.find("<section class=\"claim\"", start)
    return page[start:end if end > 0 else len(page)]


def test_every_claim_has_a_section_in_report_order(report, page):
    parsed = _parse(page)
    assert parsed.sections == [c["id"] for c in report["claims"]]
    assert len(parsed.sections) == len(CLAIMS) == 17
    # the contents link every section
    for cid in parsed.sections:
        assert f'href="#claim-{cid.lower()}"' in page


def test_the_page_is_self_contained(page):
    parsed = _parse(page)
    assert parsed.external == []
    assert "http://" not in page and "https://" not in page and "@import" not in page and "url(" not in page
    assert all(src.startswith("data:image/png;base64,") for src in parsed.images)
    assert len(parsed.images) == sum(map(len, CLAIM_FIGURES.values())) + len(REPORT_FIGURES)


def test_decisions_reproduce_command_and_instruments_of_every_claim(report, page):
    for claim in report["claims"]:
        section = _section(page, claim["id"])
        command = reproduce_command(report, claim["id"])
        assert command == f"boolverify check --claim {claim['id']} --profile quick --seed 0 --threads 1"
        assert f"<code>{command}</code>" in section
        assert section.count("<tr><td>") >= len(claim["decisions"]) + len(report["instruments"][claim["id"]])
        for d in claim["decisions"]:
            assert html.escape(d["rule"]) in section
        for t in claim["tests"]:
            assert f"<code>{html.escape(t['nodeid'].split('::', 1)[1])}</code>" in section
        for row in report["instruments"][claim["id"]]:
            assert html.escape(row["description"]) in section


def test_the_exact_checks_of_sx1_are_listed(page):
    """The symbolic check a referee asks for: 70 symbolic cases, and each wrong closed form
    that was rejected, by name."""
    section = _section(page, "SX-1")
    assert "symbolic_cases = 70" in section
    assert "rejected: 6 entries" in section
    for wrong in ("without -2 sum g_i^2 g~_i^2", "flipped sign of 2(g.g~)^2", "without the constant 1",
                  "|g|^2|g~|^2 -&gt; (g.g~)^2"):
        assert f"<dt>{wrong}</dt>" in section


def test_provenance_is_at_the_top(report, page):
    top = page[:page.index('id="contents"')]
    prov = report["provenance"]
    # the state of the checkout the report ran in (a working copy with edits is not clean)
    state = "(with uncommitted changes)" if prov["dirty"] else "(clean)"
    for text in (prov["commit"], state, "seed base", "threads per worker", prov["cpu"],
                 f"torch {prov['libraries']['torch']}", prov["date"], f"{report['duration_s']} s",
                 " ".join(prov["command"])):
        assert str(text) in top, text


def test_unbounded_ends_are_never_shown_as_numbers(report, page):
    """A one-sided bound reads 'upper bound x' / 'lower bound x'; a stand-in end (-inf, a
    probability's 0) never appears as a number."""
    sx4 = _section(page, "SX-4")
    assert "upper bound <span class=\"num\">0.188167</span>" in sx4
    assert "[-inf" not in page.lower() and "-Infinity" not in page and "[0, 0.509" not in page
    decision = {"estimand": "x", "estimate": 1.0, "interval": [-math.inf, math.inf], "level": 0.95,
                "rule": "reported", "outcome": "pass"}
    one = copy.deepcopy(report)
    one["claims"] = [dict(one["claims"][0], decisions=[decision])]
    assert "(-\u221e, \u221e)" in render_html(one, FIGURES_DIR)


def test_strings_are_escaped(report):
    hostile = copy.deepcopy(report)
    claim = hostile["claims"][0]
    claim["statement"] = "L < 1 & <script>alert(1)</script>"
    claim["decisions"][0]["estimand"] = "<b>bold</b>"
    claim["tests"][0]["evidence"] = {"note": "<img src=x onerror=alert(1)>", "<key>": 1}
    text = render_html(hostile, FIGURES_DIR)
    assert "<script>" not in text and "<b>bold</b>" not in text and "<img src=x" not in text
    assert "L &lt; 1 &amp; &lt;script&gt;" in text and "&lt;b&gt;bold&lt;/b&gt;" in text
    assert "<dt>&lt;key&gt;</dt>" in text


def test_a_missing_figure_is_a_visible_note(report, tmp_path):
    (tmp_path / "xor_mstar.png").write_bytes((FIGURES_DIR / "xor_mstar.png").read_bytes())
    (tmp_path / "xor_loss_curves.png").write_text("not a png")
    text = render_html(report, tmp_path)
    parsed = _parse(text)
    # xor_mstar, shown under SX-4 and SX-7, and SG-6's decisions, drawn from the report itself
    assert len(parsed.images) == 3
    assert text.count('class="missing" role="note"') == sum(map(len, CLAIM_FIGURES.values())) - 2
    assert "xor_loss_curves.png</code> is not a PNG image" in text
    assert re.search(r"sg4_influence_vs_N\.png</code> is missing", text)
    # a figure without its provenance sidecar says so
    assert "no provenance record (xor_mstar.provenance.json missing or unreadable)" in text


def test_sg6_decisions_are_drawn_from_the_report_rendered(report, page):
    section = _section(page, "SG-6")
    assert "<code>sg6_decisions.png</code>: drawn from this report's SG-6 evidence" in section
    assert section.index("sg6_decisions.png") < section.index("sg6_K0_fraction_vs_N.png")
    # a report whose SG-6 carries no evidence (a stored summary) gets a note, not a stale figure
    bare = {**report, "claims": [{**c, "evidence": {}} if c["id"] == "SG-6" else c for c in report["claims"]]}
    section = _section(render_html(bare, FIGURES_DIR), "SG-6")
    assert "Figure not drawn:" in section and "sg6_decisions.png</code>: drawn" not in section


def test_the_figure_mapping_names_committed_figures():
    assert set(CLAIM_FIGURES) == set(CLAIMS)
    for stems in CLAIM_FIGURES.values():
        for stem in stems:
            assert (FIGURES_DIR / f"{stem}.png").is_file(), stem
            assert (FIGURES_DIR / f"{stem}.provenance.json").is_file(), stem


@pytest.mark.parametrize("bad", [[], {"claims": []}, {"profile": "quick", "duration_s": 1, "passed": True,
                                                      "environment": {}, "claims": [{"id": "SX-1"}]}])
def test_a_malformed_report_is_refused(bad):
    with raises_input_error("report"):
        check_report(bad)


def test_write_html_is_atomic_and_complete(report, tmp_path):
    out = write_html(tmp_path / "r.html", report)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_cli_renders_a_stored_report_without_running(tmp_path):
    out, md = tmp_path / "r.html", tmp_path / "r.md"
    proc = run_cli_process("check", "--from-report", REPORT, "--html", out, "--markdown", md, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == f"wrote {out}"
    assert len(_parse(out.read_text()).sections) == 17
    assert "| SX-1 |" in md.read_text()


@pytest.mark.parametrize("args, name", [
    (["--from-report", "{report}", "--json", "{tmp}/r.json"], "--from-report"),
    (["--from-report", "{report}", "--claim", "SX-1"], "--from-report"),
    (["--from-report", "{tmp}/missing.json", "--html", "{tmp}/r.html"], "--from-report"),
    (["--from-report", "{tmp}/bad.json", "--html", "{tmp}/r.html"], "--from-report"),
    (["--from-report", "{report}", "--html", "{tmp}"], "--html"),
    (["--claim", "SX-1", "--html", "{tmp}/no/such/folder/r.html"], "--html"),
])
def test_cli_refuses_bad_html_options_before_any_work(tmp_path, args, name):
    (tmp_path / "bad.json").write_text(json.dumps({"claims": "no"}))
    argv = [a.format(report=REPORT, tmp=tmp_path) for a in args]
    proc = run_cli_process("check", *argv, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"boolverify: error: {name} = "), proc.stderr
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "r.json").exists()


def test_cli_check_one_claim_writes_the_page(tmp_path):
    """End to end on a fast claim (about 15 s on 2 cores)."""
    out = tmp_path / "sx1.html"
    proc = run_cli_process("check", "--claim", "SX-1", "--jobs", "1", "--html", out, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == f"wrote {out}"
    text = out.read_text()
    assert _parse(text).sections == ["SX-1"]
    assert "boolverify check --claim SX-1 --profile quick" in text and "symbolic_cases = 70" in text
