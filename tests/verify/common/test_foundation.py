"""The skeleton: tolerance table, claims registry, atomic writes, CLI error contract."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import torch

from verify import CLAIMS, assert_close, get_claim, is_close, tolerance
from verify.common.atomic_io import atomic_savefig, atomic_write_json, atomic_write_text
from tests.helpers import raises_input_error, run_cli_process


def test_tolerance_table_is_keyed_by_dtype():
    assert tolerance(torch.float64).rtol == 1e-10
    assert tolerance("float32").rtol == 1e-5
    assert tolerance(torch.float64, device="cuda:0").rtol == 1e-5
    with raises_input_error("dtype"):
        tolerance("int8")


def test_is_close_uses_relative_and_scaled_absolute_terms():
    assert is_close(1.0 + 5e-11, 1.0)
    assert not is_close(1.0 + 5e-10, 1.0)
    assert is_close(1e-13, 0.0)  # atol 1e-12 x scale 1
    assert not is_close(1e-11, 0.0)
    assert is_close(1e-11, 0.0, scale=100.0)
    with pytest.raises(AssertionError, match=r"loss: got 2.0, expected 1.0"):
        assert_close(2.0, 1.0, what="loss")


def test_claims_registry_has_all_sixteen_ids():
    ids = list(CLAIMS)
    assert {f"{p}-{i}" for p in ("SX", "SG") for i in range(1, 9)} <= set(ids)
    # paper A (SX) before paper B (SG), numbered in order within each: a new claim appends
    assert ids == sorted(ids, key=lambda cid: (cid[:2] != "SX", int(cid[3:])))
    for prefix, paper in (("SX", "A"), ("SG", "B")):
        own = [cid for cid in ids if cid.startswith(prefix + "-")]
        assert own == [f"{prefix}-{i}" for i in range(1, len(own) + 1)]
        assert all(CLAIMS[cid].paper == paper for cid in own)
    assert len(ids) == len(set(ids)) and all(cid[:2] in ("SX", "SG") for cid in ids)
    assert get_claim("SG-6").theorem_file == "theorems/test_SG6_random_init_sensitivity.py"


@pytest.mark.parametrize("claim_id", ["SX-9", "sx-1", None, ["SX-1"]])
def test_get_claim_bad_input(claim_id):
    with raises_input_error("claim_id"):
        get_claim(claim_id)


def test_atomic_write_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "out" / "report.json"
    atomic_write_json(target, {"a": 1})
    before = target.read_text()
    assert json.loads(before)["a"] == 1

    class Boom:
        def tolist(self):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write_json(target, {"a": Boom()})
    assert target.read_text() == before  # old content intact
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]  # no temporary left


def test_atomic_savefig(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    for name in ("f.png", "f.pdf"):
        atomic_savefig(fig, tmp_path / name)
    plt.close(fig)
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"
    atomic_write_text(tmp_path / "t.txt", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.pdf", "f.png", "t.txt"]


def _one_line_exit_2(r, name):
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("boolverify: error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr and name in r.stderr


@pytest.mark.parametrize(
    "args, name",
    [
        (["--claim", "SX-99"], "--claim"),
        (["--claim", "SX-1", "--claim", "sg-1"], "--claim"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "two"], "--jobs"),
        (["--profile", "huge"], "--profile"),
        (["--claim", "SX-1", "--json", "/"], "--json"),
        (["--threads", "0"], "--threads"),
        (["--threads", "2.5"], "--threads"),
    ],
)
def test_check_bad_input_one_line_exit_2(args, name):
    _one_line_exit_2(run_cli_process("check", *args), name)


def test_unknown_command_one_line_exit_2():
    _one_line_exit_2(run_cli_process("nosuchcommand"), "COMMAND")


def test_run_checks_bad_input():
    from verify.report.runner import run_checks

    for kwargs, name in [({"profile": "huge"}, "profile"), ({"jobs": 0}, "jobs"),
                         ({"claims": ["SX-99"]}, "claims[0]"), ({"threads": 0}, "threads")]:
        with raises_input_error(name):
            run_checks(**kwargs)


def test_check_interrupted_writes_no_report(tmp_path):
    """Ctrl-C while the workers run: exit 130, no report, the workers' folder removed.

    The signal is sent once the run has started (its temporary folder exists), not after a
    fixed delay: on a loaded machine start-up alone can take longer than any fixed delay.
    """
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    out.mkdir()
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.Popen([sys.executable, "-m", "verify.cli", "check", "--json", str(out / "r.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not list(tmp.glob("boolverify-check-*/events-*.jsonl")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    time.sleep(1)  # the workers are importing their tests
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert os.listdir(out) == []
    assert list(tmp.glob("boolverify-check-*")) == []


def test_interrupt_during_start_up_exits_130(monkeypatch, capsys):
    """Ctrl-C before the command runs (while the parser loads the command modules)."""
    import verify.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["check"]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_report_rendering():
    from verify.report.runner import format_evidence, to_markdown

    ev = {"curve": [1, 2, 3], "max_rel_err": 3.14159e-17, "passed": True, "note": "ok"}
    # scalars first, nested values left to the JSON report
    assert format_evidence(ev) == "max_rel_err=3.14e-17, passed=True, note=ok, (+1 more in the JSON report)"
    report = {
        "profile": "quick", "started": "T", "duration_s": 1.0, "passed": False, "worker_errors": [],
        "environment": {"python": "3", "torch": "2", "cuda": False, "cpus": 2},
        "claims": [{"id": "SX-1", "statement": "L = |g|^2", "evidence": {"x": ev}, "status": "fail", "duration_s": 0.5,
                    "tests": [{"nodeid": "t::x", "outcome": "failed", "message": "assert 1 == 2\nmore"}]}],
    }
    md = to_markdown(report)
    row = next(line for line in md.splitlines() if line.startswith("| SX-1"))
    assert row.count(" | ") == 6  # seven cells: the statement's pipes are escaped
    assert "overall: **FAIL**" in md and "- SX-1 `t::x`: assert 1 == 2" in md


def test_inconclusive_is_reported_and_does_not_fail():
    from verify.report.runner import ClaimResult, to_markdown
    from verify.stats.decisions import inside, upper_bound_below

    straddles = inside("slope", -1.0, (-1.4, -0.9), 0.99, -1.3, -0.7)
    assert straddles.outcome == "inconclusive"
    assert inside("slope", -1.0, (-1.2, -0.9), 0.99, -1.3, -0.7).outcome == "pass"
    assert inside("slope", 0.0, (-0.2, 0.1), 0.99, -1.3, -0.7).outcome == "fail"
    assert upper_bound_below("alpha", 0.1, (0.0, 0.31), 0.99, 0.3).outcome == "fail"
    ok = {"nodeid": "t::a", "outcome": "passed", "duration": 0.1, "message": "",
          "evidence": {"decisions": [straddles.as_dict()]}}
    res = ClaimResult("SG-4", "s", "f", [ok])
    assert res.status == "inconclusive"
    claim = res.to_dict()
    report = {"profile": "quick", "started": "T", "duration_s": 1.0, "passed": True, "worker_errors": [],
              "environment": {}, "claims": [claim]}
    md = to_markdown(report)
    row = next(line for line in md.splitlines() if line.startswith("| SG-4"))
    assert "-> **inconclusive**" in row and "[-1.4, -0.9] (0.99)" in row and row.endswith("| inconclusive | 0.1 |")
    assert "(1 inconclusive)" in md


def test_contains_and_meets_are_two_way_rules():
    from verify.stats.decisions import contains, meets

    assert contains("p", 0.5, (0.4, 0.6), 0.99, 0.6, "the exact value").outcome == "pass"
    missed = contains("p", 0.5, (0.4, 0.6), 0.99, 0.61, "the exact value")
    assert missed.outcome == "fail" and missed.rule == "pass iff the interval contains the exact value = 0.61"
    assert meets("p", 0.5, (0.4, 0.6), 0.99, 0.6, 0.7, "the band").outcome == "pass"
    apart = meets("p", 0.5, (0.4, 0.6), 0.99, 0.61, 0.7, "the band")
    assert apart.outcome == "fail" and apart.rule.endswith("[0.61, 0.7], fail iff disjoint")


def test_evidence_decide_raises_only_on_fail():
    from verify.report.pytest_plugin import Evidence
    from verify.stats.decisions import exact

    ev = Evidence()
    ev.decide(exact("N*", 65, "pass iff N* = 65", True))
    with pytest.raises(AssertionError, match="N\\* = 64: pass iff N\\* = 65 -> fail"):
        ev.decide(exact("N*", 64, "pass iff N* = 65", False))
    assert [d["outcome"] for d in ev["decisions"]] == ["pass", "fail"]


@pytest.mark.parametrize("raw", ["x", "-1", "1.5", "9" * 30])
def test_seed_base_refuses_malformed_values(raw, monkeypatch):
    from verify.common import seeds

    monkeypatch.setenv("BOOLVERIFY_SEED", raw)
    with raises_input_error("BOOLVERIFY_SEED"):
        seeds.base_seed()


def test_seed_base_shifts_seeds(monkeypatch):
    from verify.common import seeds

    monkeypatch.delenv("BOOLVERIFY_SEED", raising=False)
    assert seeds.seed(5) == 5
    monkeypatch.setenv("BOOLVERIFY_SEED", "3")
    assert seeds.seed(5) == 3 * seeds.SEED_STRIDE + 5


@pytest.mark.parametrize(
    "args, name",
    [
        (["derive", "--out", "/", "--no-checks"], "--out"),
        (["check", "--mutants", "/no/such/mutants.json"], "--mutants"),
        (["check", "--seed", "-1"], "--seed"),
        (["derive", "--out", "d.txt", "--no-checks"], "--out"),
        (["sensitivity", "train", "--target", "majority", "--N", "4", "--figure", "out.xyz"], "--figure"),
        (["xor", "sweep", "--d", "1e400", "--m", "8"], "--d"),
        (["xor", "step", "--d", "8", "--m", "2", "--figure", "a.gif"], "--figure"),
    ],
)
def test_cli_bad_paths_and_options_one_line_exit_2(args, name):
    """A few rows per command; the full tables are in tests/verify/cli/test_cli_sensitivity_*.py,
    tests/verify/cli/test_cli_xor.py and tests/verify/experiments/test_train.py."""
    _one_line_exit_2(run_cli_process(*args), name)


@pytest.mark.parametrize(
    "content, name",
    [
        ('{"instances": [{"V": [[1.0], [-1.0]], "theta": [1.0], "theta_tilde": [-1.0], "support": ["x", 1], '
         '"loss": 1.0}]}', "support"),
        ('{"instances": [{"V": [[1.0], [-1.0]], "theta": [1.0], "theta_tilde": [-1.0], "support": [0.5, 1], '
         '"loss": 1.0}]}', "support"),
    ],
)
def test_crossval_file_support_must_be_integers(tmp_path, content, name):
    p = tmp_path / "f.json"
    p.write_text(content)
    r = run_cli_process("crossval", "xor-file", str(p))
    _one_line_exit_2(r, name)


def test_crossval_profile_claimed_must_be_integers(tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"table": [0, 1, 1, 0], "profile": ["a", 1, 2]}')
    r = run_cli_process("crossval", "profile", str(p))
    _one_line_exit_2(r, "profile")
    p.write_text('{"table": [0, 1, 1, 0], "profile": [0, 0, 4]}')
    assert run_cli_process("crossval", "profile", str(p)).returncode == 0


@pytest.mark.parametrize(
    "args, name",
    [
        (["xor-grad", "math:hypot", "--examples", "0"], "--examples"),
        (["xor-loss", "math:hypot", "--attention", "tanh"], "--attention"),
        (["profile", "math:hypot", "--examples", "0"], "--examples"),
        (["profile", "{table}", "--claimed", "0,x"], "--claimed"),
    ],
)
def test_crossval_options_bad_input(tmp_path, args, name):
    table = tmp_path / "t.json"
    table.write_text('{"table": [0, 1, 1, 0]}')
    _one_line_exit_2(run_cli_process("crossval", *(a.format(table=table) for a in args)), name)
