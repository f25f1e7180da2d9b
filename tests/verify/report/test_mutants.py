"""Tests of the mutation catalogue (verify.report.mutation): every mutant resolves to a public
target, installs everywhere its target is bound, really changes behaviour (its own probe), and
undoes; the CLI refuses bad input before running anything, and a killed run leaves no worker.
The full run (every mutant caught) is ``slow``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
import torch

from verify.report.mutation.engine import ROOT, Installed, install, resolve
from verify.report.mutation import runner
from verify.report.mutation.probes_a import xor_probe_instance
from verify.report.mutation.runner import MUTANTS, by_name, mutation_summary, run_mutants, select
from tests.helpers import (
    assert_all_exit, assert_next_run_removes_folder, children_of, is_public_path, raises_input_error,
)


def test_catalogue_has_at_least_58_uniquely_named_mutants():
    names = [m.name for m in MUTANTS]
    assert len(names) >= 58
    assert len(set(names)) == len(names)
    assert all(m.description and m.target and callable(m.probe) for m in MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_target_resolves_and_expected_files_exist(mutant):
    owner, attr, original = resolve(mutant.target)
    assert getattr(owner, attr) is original
    if mutant.kind == "claim":
        assert mutant.claim_files and not mutant.unit_files
        for f in mutant.claim_files:
            assert f.startswith("theorems/test_") and (ROOT / f).is_file(), f
    else:
        for f in mutant.unit_files:
            assert f.startswith("tests/") and (ROOT / f.split("::")[0]).is_file(), f


def test_targets_are_public_names():
    assert [m.name for m in MUTANTS if not is_public_path(m.target)] == []


def _same(x, y) -> bool:
    if isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
        return (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and x.shape == y.shape
                and x.dtype == y.dtype and bool(torch.equal(x, y)))
    return type(x) is type(y) and x == y


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_mutant_changes_behaviour_and_undoes(mutant):
    probe = mutant.probe
    before = probe()
    installed = install(mutant)
    try:
        assert installed.rebound >= 1
        during = probe()
    finally:
        installed.undo()
    assert not _same(before, during), f"{mutant.name} does not change {probe.__name__}"
    assert _same(probe(), before), f"{mutant.name} was not undone"
    owner, attr, _ = resolve(mutant.target)
    assert (owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)) is installed.original


def test_install_rebinds_every_module_and_later_imports():
    import numeric.xor
    import numeric.xor._metrics
    import numeric.xor._population

    original = numeric.xor._population.population_grad
    V, th, tt, sup = xor_probe_instance()
    before = torch.cat(numeric.xor.population_grad(V, th, tt, sup))
    installed = install(by_name("grad_halved"))
    try:
        mutant = installed.replacement
        # bound before install: the defining module and a user module
        assert numeric.xor._population.population_grad is mutant
        assert numeric.xor._metrics.population_grad is mutant
        # the public function (it also takes streamed embeddings) calls the engine's at each call
        assert torch.equal(torch.cat(numeric.xor.population_grad(V, th, tt, sup)), 0.5 * before)
        # what a theorem module does at import, after install
        namespace = {}
        exec("from numeric.xor import population_grad", namespace)
        assert torch.equal(torch.cat(namespace["population_grad"](V, th, tt, sup)), 0.5 * before)
        assert mutant.__name__ == "population_grad" and mutant is not original
    finally:
        installed.undo()
    assert numeric.xor._population.population_grad is original
    assert numeric.xor._metrics.population_grad is original
    assert torch.equal(torch.cat(numeric.xor.population_grad(V, th, tt, sup)), before)


def test_install_on_a_class_replaces_the_class_attribute():
    from numeric.xor._forms import ClosedFormState

    original = ClosedFormState.__dict__["loss"]
    installed = install(by_name("loss_drops_t_squared"))
    try:
        assert isinstance(installed, Installed)
        assert ClosedFormState.__dict__["loss"] is installed.replacement
    finally:
        installed.undo()
    assert ClosedFormState.__dict__["loss"] is original


def test_select_and_by_name_refuse_unknown_names():
    assert [m.name for m in select(["grad_halved"])] == ["grad_halved"]
    assert len(select(None)) == len(MUTANTS)
    with raises_input_error("--only"):
        select(["grad_halved", "nosuch"])
    with raises_input_error("mutant"):
        by_name("nosuch")


def test_mutation_summary_renders_the_table():
    result = {
        "mutants": [
            {"name": "a", "description": "bug a", "target": "numeric.x.f", "expected_files": [
                "theorems/test_SX1_population_loss.py"], "kind": "claim", "caught": True,
             "caught_by": "theorems/test_SX1_population_loss.py::test_x", "message": "assert 1 == 2",
             "status": "caught", "seconds": 3.2},
            {"name": "b", "description": "bug | b", "target": "numeric.y.g",
             "expected_files": ["tests/verify/reference/test_bounds.py"], "kind": "unit", "caught": False,
             "caught_by": None, "message": "", "status": "survived", "seconds": 1.0},
        ],
        "score": 0.5, "caught": 1, "total": 2, "survivors": ["b"],
    }
    md = mutation_summary(result)
    assert md.startswith("## Mutation score\n")
    assert "1/2 mutants caught (score 0.50)" in md
    assert "`theorems/test_SX1_population_loss.py::test_x`" in md
    assert "bug \\| b" in md and "(unit tests)" in md and "**survived**" in md
    assert "Survivors" in md and "`b`" in md


# -- the command line -------------------------------------------------------------------------

def _cli(*args):
    return subprocess.run([sys.executable, "-m", "verify.cli", "mutants", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(
    "args, name",
    [
        (["--only", "nosuch"], "--only"),
        (["--only", "grad_halved", "--only", "nosuch"], "--only"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "two"], "--jobs"),
        (["--json", "/"], "--json"),
    ],
)
def test_cli_bad_input_one_line_exit_2(args, name):
    r = _cli(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("boolverify: error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr and name in r.stderr
    assert "running" not in r.stdout  # refused before any mutant ran


def test_cli_unwritable_json_refused_before_running(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = _cli("--json", str(blocker / "out.json"), "--only", "grad_halved")
    assert r.returncode == 2 and "--json" in r.stderr and "running" not in r.stdout


def test_cli_list():
    r = _cli("--list")
    assert r.returncode == 0, r.stderr
    for m in MUTANTS:
        assert m.name in r.stdout
    assert f"{len(MUTANTS)} of {len(MUTANTS)} mutants" in r.stdout


def test_one_mutant_end_to_end(tmp_path):
    """The cheapest claim mutant through the CLI: caught, by which test, written as JSON."""
    out = tmp_path / "m.json"
    r = _cli("--only", "blowup_bound_exponent_L", "--json", str(out), "--jobs", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "blowup_bound_exponent_L" in r.stdout and "caught" in r.stdout
    data = json.loads(out.read_text())
    (rec,) = data["mutants"]
    assert data["score"] == 1.0 and data["survivors"] == [] and (data["caught"], data["total"]) == (1, 1)
    assert rec["caught"] and rec["status"] == "caught" and rec["kind"] == "claim"
    assert rec["caught_by"].startswith("theorems/test_SG3_blowup_bound.py::")
    assert rec["rebound"] >= 1 and rec["message"]
    assert set(rec) >= {"name", "description", "target", "expected_files", "kind", "caught",
                        "caught_by", "message", "seconds"}


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_mutants_killed_leaves_no_worker_and_the_next_run_removes_its_folder(tmp_path, monkeypatch):
    """SIGKILL cannot be handled: the pytest workers of ``boolverify mutants`` die with their
    parent (as those of ``boolverify check``), and the next run removes the folder it left. The
    mutant's checks take tens of seconds, so a worker gone within seconds was killed with it."""
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "verify.cli", "mutants", "--only",
                             "limit_step_argmin", "--jobs", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not (list(tmp_path.glob("boolverify-mutants-*/events-*.jsonl")) and children_of(proc.pid)):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    workers = children_of(proc.pid)
    proc.kill()
    proc.communicate(timeout=60)
    assert_all_exit(workers, 5, "a mutant's pytest worker")
    assert_next_run_removes_folder(tmp_path, runner.TMP_PREFIX, monkeypatch)


@pytest.mark.slow
def test_every_mutant_is_caught():
    result = run_mutants(jobs=2)
    assert result["total"] == len(MUTANTS)
    assert not any(r["status"] == "crashed" for r in result["mutants"]), [
        (r["name"], r["message"]) for r in result["mutants"] if r["status"] == "crashed"]
    assert result["survivors"] == [], mutation_summary(result)
