"""`boolverify sensitivity volume`: a small run end to end, and bad options refused before work."""

import json
import os

import pytest

from tests.helpers import PROJECT_ROOT, run_cli_process


GRID = ("1e-4", "1e-2", "1")


def test_small_run_writes_json_and_figure(tmp_path):
    out, fig = tmp_path / "v.json", tmp_path / "v.png"
    r = run_cli_process("sensitivity", "volume", "--function", "parity", "--N", "4,5", "--sigmas",
                        ",".join(GRID), "--models", "12", "--seed", "3", "--json", str(out), "--figure", str(fig))
    assert r.returncode == 0, r.stderr
    assert "volume: [6/6] parity N=5 sigma=1 (" in r.stderr and "sigma=" not in r.stdout
    data = json.loads(out.read_text())
    assert [c["N"] for c in data["curves"]] == [4, 5]
    for c in data["curves"]:
        assert c["function"] == "parity" and c["points"][0]["exact"] == 12 and c["points"][-1]["exact"] == 0
        assert float(GRID[0]) < c["radius"] < float(GRID[-1]) and c["crossing"] == "crossed"
    assert fig.stat().st_size > 0


def test_certify_adds_boxes_to_json_table_and_figure(tmp_path):
    out, fig = tmp_path / "v.json", tmp_path / "v.png"
    r = run_cli_process("sensitivity", "volume", "--function", "majority,parity", "--N", "4", "--sigmas",
                        ",".join(GRID), "--models", "4", "--seed", "3", "--certify", "--json", str(out),
                        "--figure", str(fig))
    assert r.returncode == 0, r.stderr
    assert "certify: [2/2] parity N=4: half-width" in r.stderr and "certify" not in r.stdout.split("certified boxes")[0]
    assert "certified boxes" in r.stdout and "log-volume" in r.stdout
    data = json.loads(out.read_text())
    assert [(b["function"], b["N"]) for b in data["certified"]] == [("majority", 4), ("parity", 4)]
    for b in data["certified"]:
        assert b["box"]["certified"] and b["box"]["strings_total"] == 16 and 0 < b["half_width"] < 1
    assert fig.stat().st_size > 0


def test_without_certify_the_json_has_no_boxes(tmp_path):
    out = tmp_path / "v.json"
    r = run_cli_process("sensitivity", "volume", "--function", "first", "--N", "3", "--sigmas", "0.01",
                        "--models", "2", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert set(json.loads(out.read_text())) == {"provenance", "functions", "curves", "note"}
    assert "certif" not in r.stdout + r.stderr.replace(f"wrote {out}", "")


def test_trained_solution_end_to_end(tmp_path):
    out = tmp_path / "v.json"
    r = run_cli_process("sensitivity", "volume", "--solution", "trained", "--function", "first", "--N", "3",
                        "--sigmas", ",".join(GRID), "--models", "6", "--steps", "150", "--tries", "3",
                        "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "volume: train first N=3: seed 0 (run 1 of at most 3)" in r.stderr and "volume: [3/3] first N=3 sigma=1" in r.stderr
    assert "trained solution" in r.stdout and "trained solutions" in r.stdout
    data = json.loads(out.read_text())
    assert data["solution"] == "trained" and len(data["training"]) == 1
    t, c = data["training"][0], data["curves"][0]
    assert t["accuracies"][-1] == 1.0 and t["seed"] == t["seeds"][-1] == t["tries"] - 1
    assert (c["L"], c["D"], c["eps"], c["solution"]) == (2, 16, 1e-5, "given")
    assert c["points"][0]["exact"] == 6 and c["points"][-1]["exact"] == 0


@pytest.mark.parametrize("args, name", [
    (["--function", "xor"], "--function"),
    (["--N", "4,x"], "--N"),
    (["--N", "0"], "--N"),
    (["--sigmas", "0.1,0.01"], "--sigmas"),
    (["--sigmas", "0,0.1"], "--sigmas[0]"),
    (["--models", "0"], "--models"),
    (["--json", "/nonexistent-folder/v.json"], "--json"),
    (["--models", "1.5e0"], "--models"),
    (["--function", "first,first"], "--function"),
    (["--sigmas", "nan"], "--sigmas[0]"),
    (["--level", "1"], "--level"),
    (["--seed", "-1"], "--seed"),
    (["--threads", "5000"], "--threads"),
    (["--json", "same.png", "--figure", "same.png"], "--figure"),
    (["--N", "12", "--models", "1e6", "--max-days", "0.001"], "--N = 12, --models"),
    (["--solution", "learned"], "--solution"),
    (["--steps", "100"], "--steps"),
    (["--tries", "2"], "--tries"),
    (["--train-seed", "1"], "--train-seed"),
    (["--solution", "trained", "--certify"], "--certify"),
    (["--solution", "trained", "--steps", "0"], "--steps"),
    (["--solution", "trained", "--tries", "0"], "--tries"),
    (["--solution", "trained", "--train-seed", "-1"], "--train-seed"),
    (["--solution", "trained", "--N", "12", "--models", "1e5", "--max-days", "0.001"], "--N = 12, --models"),
])
def test_bad_options_one_line_exit_2(args, name, tmp_path):
    # run from an empty folder (nothing may be written there), this checkout on the path
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    r = run_cli_process("sensitivity", "volume", *args, cwd=tmp_path, env=env)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"boolverify: error: {name}"), r.stderr
    assert list(tmp_path.iterdir()) == []
