"""Several writers into one results file: the locked merge of verify.common.atomic_io keeps the
union of their records, each once, and refuses a record whose settings disagree with the file."""

import json
import multiprocessing
import os
import subprocess
import sys

import pytest

from verify.common.atomic_io import lock_path, locked, merge_json_records
from verify.experiments.xor_sweeps import load_results, run_sweep
from tests.helpers import PROJECT_ROOT, raises_input_error

ROOT = PROJECT_ROOT


def _merge_many(path, worker, count):
    # one record per call, so that the writers interleave as much as they can
    for i in range(count):
        merge_json_records(path, [{"id": f"{worker}-{i}", "x": i}], lambda r: r["id"],
                           config_fn=lambda r: {"x": r["x"]})


def test_concurrent_merges_keep_every_record(tmp_path):
    path = tmp_path / "records.json"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_merge_many, args=(path, w, 25)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * 4
    ids = [r["id"] for r in json.loads(path.read_text())]
    assert sorted(ids) == sorted(f"{w}-{i}" for w in range(4) for i in range(25))
    assert not lock_path(path).exists()  # its last holder removed it
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files


def test_merge_does_not_duplicate_and_refuses_other_settings(tmp_path):
    path = tmp_path / "r.json"
    key, cfg = (lambda r: r["id"]), (lambda r: {"c": r["c"]})
    merge_json_records(path, [{"id": "a", "c": 1, "v": 1}], key, config_fn=cfg)
    # the same record again (another value that is not a setting: e.g. a timing) is not added
    out = merge_json_records(path, [{"id": "a", "c": 1, "v": 2}, {"id": "b", "c": 1, "v": 3}], key,
                             config_fn=cfg)
    assert out == [{"id": "a", "c": 1, "v": 1}, {"id": "b", "c": 1, "v": 3}]
    before = path.read_text()
    with raises_input_error("results file", "its record a has c = 1 on file, 2 here"):
        merge_json_records(path, [{"id": "c", "c": 2}, {"id": "a", "c": 2}], key, config_fn=cfg)
    assert path.read_text() == before  # nothing written


def test_lock_is_exclusive(tmp_path):
    path = tmp_path / "f.json"
    with locked(path):
        # another process cannot take it while this one holds it
        code = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); "
                "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)")
        r = subprocess.run([sys.executable, "-c", code, str(lock_path(path))], capture_output=True)
        assert r.returncode != 0 and b"BlockingIOError" in r.stderr
    assert not lock_path(path).exists()  # no lock file outlives its holder


def test_sweep_refuses_other_settings_before_any_work(tmp_path, monkeypatch):
    out = tmp_path / "s.json"
    run_sweep([30], [4], 3, out=out)
    from numeric import xor

    monkeypatch.setattr(xor, "one_step", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("ran")))
    with raises_input_error("results file", "(d=30, kind=step, m=4, n_seeds=3, seed_offset=0) has c = 10.0 "
                                            "on file, 5.0 here"):
        run_sweep([30], [8, 4], 3, c=5.0, out=out)  # m=8 would be new, but nothing runs


def _sweep_cli(out, d, m, seeds):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-m", "verify.cli", "xor", "sweep", "--d", d, "--m", m,
                             "--seeds", str(seeds), "--out", str(out)],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_two_concurrent_cli_sweeps_leave_the_union(tmp_path):
    out = tmp_path / "sweep.json"
    # different grids sharing the cell (d=1500, m=8); started together, so their writes interleave
    a = _sweep_cli(out, "1500", "4,8,12", 8)
    b = _sweep_cli(out, "1500,2500", "8", 8)
    errs = [p.communicate(timeout=120)[1].decode() for p in (a, b)]
    assert [a.returncode, b.returncode] == [0, 0], errs
    cells = load_results(out)["cells"]
    got = sorted((c["d"], c["m"]) for c in cells)
    assert got == [(1500, 4), (1500, 8), (1500, 12), (2500, 8)]  # the union, each cell once
    # the cells are those of a single in-process run
    alone = {(c.d, c.m): c.success_bits for c in run_sweep([1500, 2500], [4, 8, 12], 8)}
    assert all(c["success_bits"] == alone[(c["d"], c["m"])] for c in cells)
    # a rerun of either grid finds everything and adds nothing
    before = out.read_text()
    run_sweep([1500, 2500], [8], 8, out=out)
    assert out.read_text() == before


def test_an_interrupted_sweep_keeps_its_finished_cell_and_removes_its_lock(tmp_path):
    out = tmp_path / "s.json"
    seen = []

    def progress(done, total, text):
        seen.append(text)
        raise KeyboardInterrupt  # Ctrl-C just after the first cell was saved

    with pytest.raises(KeyboardInterrupt):
        run_sweep([30], [4, 8], 3, out=out, progress=progress)
    assert [c["m"] for c in load_results(out)["cells"]] == [4]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]  # no lock, no temporary left


def test_ctrl_c_says_what_was_kept_and_the_rerun_says_what_it_resumed(tmp_path, capsys, monkeypatch):
    from verify.cli import main
    from verify.experiments.xor_sweeps import CellStore

    out = tmp_path / "s.json"
    add = CellStore.add

    def add_then_interrupt(self, cell):
        add(self, cell)
        raise KeyboardInterrupt

    monkeypatch.setattr(CellStore, "add", add_then_interrupt)
    argv = ["xor", "sweep", "--d", "30", "--m", "4,8", "--seeds", "3", "--json", str(out)]
    assert main(argv) == 130
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == (f"boolverify: interrupted; kept: {out} (1 finished record kept; rerun the same command "
                   "to resume from them)")
    assert len(load_results(out)["cells"]) == 1 and not lock_path(out).exists()
    monkeypatch.setattr(CellStore, "add", add)
    assert main(argv) == 0
    assert f"resumed from {out}: 1 of 2 cells kept from the file" in capsys.readouterr().err
    assert len(load_results(out)["cells"]) == 2
    # interrupted before anything was written: it says so
    monkeypatch.setattr(CellStore, "add", add_then_interrupt)
    assert main(["xor", "sweep", "--d", "30", "--m", "4", "--seeds", "3"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "boolverify: interrupted; no output was written"
