"""The check report: each test's evidence under that test's id (never merged across tests, in
JSON and Markdown), and the report's provenance (version, commit, seed base) in both forms."""

from __future__ import annotations

import json
import os

from verify.common.provenance import check_record, source_state
from verify.report.runner import ClaimResult, to_markdown


def _test(name, evidence, outcome="passed"):
    return {"nodeid": f"theorems/test_SX1_closed_form.py::{name}", "outcome": outcome, "duration": 0.1,
            "evidence": evidence, "message": ""}


def test_two_tests_with_the_same_key_both_survive():
    claim = ClaimResult("SX-1", "L = |g|^2", "theorems/test_SX1_closed_form.py")
    claim.tests += [_test("test_claim", {"mismatch": 0.0, "passed": True}),
                    _test("test_negative_control", {"mismatch": 0.75, "passed": False})]
    evidence = claim.to_dict()["evidence"]
    assert evidence == {"test_claim": {"mismatch": 0.0, "passed": True},
                        "test_negative_control": {"mismatch": 0.75, "passed": False}}
    report = {"profile": "quick", "started": "T", "duration_s": 1.0, "passed": True, "worker_errors": [],
              "environment": {"python": "3", "torch": "2", "cuda": False, "cpus": 2, "seed_base": 0},
              "claims": [claim.to_dict()]}
    row = next(line for line in to_markdown(report).splitlines() if line.startswith("| SX-1"))
    assert "test_claim: mismatch=0, passed=True" in row
    assert "test_negative_control: mismatch=0.75, passed=False" in row


def test_check_report_carries_provenance_in_json_and_markdown(tmp_path, capsys):
    from verify.cli import main

    j, m = tmp_path / "r.json", tmp_path / "r.md"
    argv = ["check", "--claim", "SX-1", "--seed", "3", "--threads", "1", "--jobs", "1", "--json", str(j),
            "--markdown", str(m)]
    before = os.environ.get("BOOLVERIFY_SEED")
    assert main(argv) == 0
    # the seed base reaches the workers but does not stay in this process's environment
    assert os.environ.get("BOOLVERIFY_SEED") == before
    report = json.loads(j.read_text())
    record = check_record(report["provenance"])
    assert record["command"] == ["boolverify", *argv]
    assert (record["seed_base"], record["threads"]) == (3, 1)
    assert (record["commit"], record["dirty"]) == source_state() and record["boolverify_version"]
    (claim,) = report["claims"]
    assert set(claim["evidence"]) == {t["nodeid"].split("::", 1)[1] for t in claim["tests"]}
    text = m.read_text()
    commit, dirty = source_state()
    assert f"boolverify {record['boolverify_version']}, commit `{commit}`" in text
    assert ("with uncommitted changes" if dirty else "(clean)") in text and "seed base 3" in text
