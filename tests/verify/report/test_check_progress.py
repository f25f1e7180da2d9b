"""`boolverify check` progress: one line per finished claim on stderr when the output is not a
terminal, the claim's status final when its line is written; stdout keeps only the report."""

from __future__ import annotations

import io

from tests.helpers import run_cli_process
from verify.cli.progress import Progress
from verify.report.claims import CLAIMS
from verify.report.runner import ClaimProgress, stored_durations


def _test(nodeid, claim, outcome="passed", evidence=None):
    return {"event": "test", "nodeid": nodeid, "claim": claim, "outcome": outcome, "duration": 0.5,
            "evidence": evidence or {}, "message": ""}


def test_a_claim_finishes_with_its_last_collected_test():
    progress = ClaimProgress(["SX-1", "SX-2"])
    assert progress.feed({"event": "collected", "count": 3,
                          "claims": {"SX-1": ["a", "b"], "SX-2": ["c"]}}) is None
    assert progress.feed(_test("a", "SX-1")) is None
    done = progress.feed(_test("c", "SX-2", outcome="failed"))
    assert (done.id, done.status, progress.done) == ("SX-2", "fail", 1)
    assert progress.total == 2 and done.duration == 0.5
    done = progress.feed(_test("b", "SX-1"))
    assert (done.id, done.status, progress.done) == ("SX-1", "pass", 2)
    # a teardown error after the claim finished, an unclaimed test: no second line
    assert progress.feed(_test("b", "SX-1", outcome="error")) is None
    assert progress.feed(_test("z", None)) is None


def test_skipped_and_inconclusive_claims():
    progress = ClaimProgress()
    progress.feed({"event": "collected", "count": 2, "claims": {"SX-1": ["a"], "SX-2": ["b"]}})
    assert progress.feed(_test("a", "SX-1", outcome="skipped")).status == "no test"
    decision = {"decisions": [{"outcome": "inconclusive"}]}
    assert progress.feed(_test("b", "SX-2", evidence=decision)).status == "inconclusive"


def test_check_writes_a_line_per_claim_to_a_piped_stderr():
    proc = run_cli_process("check", "--claim", "SX-1", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("check: ")]
    assert len(lines) == 1 and lines[0].startswith("check: [1/1] SX-1 pass ("), proc.stderr
    assert "check: SX-1" not in proc.stdout and "1/1 claims pass" in proc.stdout


def test_the_estimate_weighs_each_claim_by_its_stored_time(tmp_path):
    progress = ClaimProgress(["SX-1", "SG-8"], weights={"SX-1": 2.0, "SG-8": 240.0, "SX-2": 9.0})
    assert (progress.weight_done, progress.weight_total) == (0.0, 242.0)
    progress.feed({"event": "collected", "count": 2, "claims": {"SX-1": ["a"], "SG-8": ["b"]}})
    progress.feed(_test("a", "SX-1"))
    # one claim of two finished, but under 1 % of the expected work
    assert (progress.done, progress.weight_done) == (1, 2.0)
    # an unknown claim weighs 1; no stored report: every claim weighs 1
    assert ClaimProgress(["SX-1", "SX-3"], weights={"SX-1": 5.0}).weight_total == 6.0
    assert stored_durations(tmp_path / "none.json") == {}
    stored = stored_durations()
    assert set(stored) == set(CLAIMS) and max(stored, key=stored.get) == "SG-8"


def test_weighted_work_gives_the_estimate_and_the_units_own_time():
    stream = io.StringIO()
    with Progress("check", 2, unit="claims", stream=stream) as shown:
        shown._base_t -= 10.0  # ten seconds into the run
        shown.work(2.0, 242.0, "SX-1 pass", seconds=1.5)
    line = stream.getvalue().strip()
    # 10 s for 2 of 242 units of work: 1200 s left, not the 10 s that counting claims would give
    assert line.startswith("check: [1/2] SX-1 pass (1.5 s, about 20:0"), line
