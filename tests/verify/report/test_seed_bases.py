"""The outcome counts over seed bases: counted per decision, rendered, and the table in
docs/claims.md matching its data file."""

from __future__ import annotations

import json

import pytest

from tests.helpers import PROJECT_ROOT, raises_input_error
from verify.common.provenance import check_record, without_provenance
from verify.report import seed_bases


def _report(base, window_outcome, status=None, claim_id="SG-4", commit="ab" * 20, dirty=False):
    decisions = [
        {"estimand": "slope in the window", "estimate": -0.8, "interval": [-0.9, -0.7], "level": 0.99,
         "rule": "inside [-1.3, -0.7]", "outcome": window_outcome},
        {"estimand": "known answer", "estimate": 0.0, "interval": None, "level": None, "rule": "pass iff 0",
         "outcome": "pass"},
    ]
    evidence = {"design": {"outcome_probabilities": {"pass": 0.99, "fail": 0.0, "inconclusive": 0.006}}}
    # the report keeps each test's evidence under its id, and in the test's own record
    claim = {"id": claim_id, "status": status or window_outcome, "decisions": decisions,
             "evidence": {"test_window": evidence},
             "tests": [{"nodeid": "theorems/t.py::test_window", "evidence": evidence}]}
    return {"provenance": {"commit": commit, "dirty": dirty}, "environment": {"seed_base": base},
            "profile": "full", "duration_s": 90.0 + base, "claims": [claim]}


def test_counts_each_decision_over_bases():
    reports = {f"b{b}": _report(b, "inconclusive" if b == 3 else "pass") for b in (1, 2, 3)}
    summary = seed_bases.summarise(reports)
    assert summary["bases"] == [1, 2, 3]
    window, known = summary["decisions"]
    assert window["kind"] == "stochastic" and window["counts"] == {"pass": 2, "inconclusive": 1, "fail": 0}
    assert known["kind"] == "exact" and known["counts"]["pass"] == 3
    (claim,) = summary["claims"]
    assert claim["status"] == {"pass": 2, "inconclusive": 1, "fail": 0}
    assert claim["designed_inconclusive_max"] == pytest.approx(0.006)
    text = seed_bases.render(summary)
    assert "| SG-4 | slope in the window | stochastic | 2 | 1 | 0 |" in text
    assert "1 exact decisions" in text and "Seed bases 1-3" in text
    assert claim["commits"] == ["abababababab"] and "| 0.006 | `abababababab` |" in text
    assert summary["checks"] == [{"base": b, "commit": "abababababab", "profile": "full", "claims": 1,
                                  "duration_s": 90.0 + b} for b in (1, 2, 3)]


def test_each_claim_names_the_commits_its_reports_ran_from():
    reports = {"b1": _report(1, "pass", commit="12" * 20), "b2": _report(2, "pass", commit="12" * 20, dirty=True),
               "b3": _report(3, "pass", commit="34" * 20)}
    reports["b4"] = _report(4, "pass")
    del reports["b4"]["provenance"]
    (claim,) = seed_bases.summarise(reports)["claims"]
    assert claim["commits"] == ["121212121212", "121212121212 (dirty)", "343434343434", "unknown"]


def test_a_claim_swept_on_its_own_is_merged_into_an_existing_summary(tmp_path):
    old = seed_bases.summarise({f"b{b}": _report(b, "pass") for b in (1, 2)}
                               | {f"c{b}": _report(b, "inconclusive", claim_id="SG-8") for b in (1, 2)})
    new = seed_bases.summarise({f"n{b}": _report(b, "pass", claim_id="SG-8") for b in (1, 2, 3)})
    merged = seed_bases.merge(old, new)
    assert merged["bases"] == [1, 2, 3] and [r["claim"] for r in merged["claims"]] == ["SG-4", "SG-8"]
    sg4, sg8 = merged["claims"]
    assert sg4 == old["claims"][0] and sg8["status"] == {"pass": 3, "inconclusive": 0, "fail": 0}
    rows = {(d["claim"], d["estimand"]): d for d in merged["decisions"]}
    assert len(rows) == len(merged["decisions"]) == 4  # SG-8's old rows gone, not added to
    assert rows[("SG-8", "slope in the window")]["counts"] == {"pass": 3, "inconclusive": 0, "fail": 0}
    assert rows[("SG-4", "slope in the window")]["bases"] == [1, 2]
    assert merged["checks"] == old["checks"] + new["checks"] and len(merged["checks"]) == 7
    # the command: reports merged into a summary file
    (tmp_path / "old.json").write_text(json.dumps(old))
    paths = []
    for b in (1, 2, 3):
        paths.append(tmp_path / f"n{b}.json")
        paths[-1].write_text(json.dumps(_report(b, "pass", claim_id="SG-8")))
    doc = tmp_path / "doc.md"
    doc.write_text(f"x\n{seed_bases.START}\n{seed_bases.END}\n")
    out = tmp_path / "merged.json"
    assert seed_bases.main([*map(str, paths), "--merge", str(tmp_path / "old.json"), "--json", str(out),
                            "--doc", str(doc)]) == 0
    written = json.loads(out.read_text())
    assert without_provenance(written) == merged and check_record(written["provenance"])
    assert seed_bases.main(["--from", str(out), "--merge", str(out), "--doc", str(doc)]) == 2
    with raises_input_error("update"):
        seed_bases.merge(old, {"claims": []})


def test_a_report_without_its_seed_base_is_refused():
    with raises_input_error("r"):
        seed_bases.summarise({"r": {"claims": []}})


def test_the_docs_table_is_its_data_rendered():
    data = PROJECT_ROOT / "docs" / "data" / "seed_bases.json"
    summary = json.loads(data.read_text(encoding="utf-8"))
    assert len(summary["bases"]) >= 20
    assert not seed_bases.update_doc(summary, PROJECT_ROOT / "docs" / "claims.md", write=False), \
        "docs/claims.md's seed-bases table is stale: python -m verify.report.seed_bases --from docs/data/seed_bases.json"
