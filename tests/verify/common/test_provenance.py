"""Provenance of written files: the committed data files and figures carry valid records, a
command's fresh ``--json`` names the command and the commit, figures get their sidecars, a
library write outside a run still gets a record, and backfilled records come from git history."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.helpers import PROJECT_ROOT, raises_input_error
from verify.cli import main
from verify.common.atomic_io import FIGURE_SUFFIXES, atomic_write_json, pyplot, save_figure
from verify.common.provenance import (FIELDS, check_record, provenance, run_context, sidecar_path,
                                      source_state, without_provenance)

DATA = sorted((PROJECT_ROOT / "docs" / "data").glob("*.json"))
FIGURES = PROJECT_ROOT / "docs" / "figures"
STEMS = sorted({p.with_suffix("") for p in FIGURES.iterdir() if p.suffix.lower() in FIGURE_SUFFIXES})


def test_there_are_committed_files_to_check():
    assert len(DATA) >= 20 and len(STEMS) >= 15


@pytest.mark.parametrize("path", DATA, ids=lambda p: p.name)
def test_every_committed_data_file_has_valid_provenance(path):
    obj = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(obj, dict) and "provenance" in obj, f"{path.name}: no provenance record"
    record = check_record(obj["provenance"], f"{path.name}: provenance")
    # the command is known, except for a record reconstructed from history that could not tell it
    assert record["commit"] is not None and (record["command"] or record["reconstructed"]), path.name


@pytest.mark.parametrize("stem", STEMS, ids=lambda p: p.name)
def test_every_committed_figure_has_its_sidecar(stem):
    sidecar = sidecar_path(stem.with_suffix(".png"))
    assert sidecar.exists(), f"{stem.name}: no {sidecar.name}"
    side = json.loads(sidecar.read_text(encoding="utf-8"))
    check_record(side["provenance"], f"{sidecar.name}: provenance")
    images = sorted(p.name for p in FIGURES.iterdir() if p.with_suffix("") == stem
                    and p.suffix.lower() in FIGURE_SUFFIXES)
    assert sorted(side["files"]) == images
    for data in side["data"]:
        assert (PROJECT_ROOT / data).exists(), f"{sidecar.name} names {data}, which is not there"


def test_a_commands_json_names_the_command_and_the_commit(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["sensitivity", "profile", "--function", "majority", "--N", "4", "--json", "p.json"]
    assert main(argv) == 0
    record = check_record(json.loads((tmp_path / "p.json").read_text())["provenance"])
    assert record["command"] == ["boolverify", *argv]
    assert (record["commit"], record["dirty"]) == source_state() and record["reconstructed"] is False
    assert record["boolverify_version"] and record["libraries"]["torch"] and record["libraries"]["python"]
    assert record["duration_s"] >= 0 and set(record) == set(FIELDS)


def test_a_library_write_outside_a_run_has_a_record_without_command(tmp_path):
    path = atomic_write_json(tmp_path / "x.json", {"a": 1, "provenance": {"stale": True}})
    obj = json.loads(path.read_text())
    assert list(obj) == ["provenance", "a"]  # first, replacing what the object had
    record = check_record(obj["provenance"])
    assert record["command"] is None and record["plan"] is None and record["duration_s"] is None
    assert record["commit"] == source_state()[0]


def test_a_run_context_names_plan_seed_base_and_threads(tmp_path):
    with run_context(["runs", "sg2"]) as ctx:
        ctx.plan, ctx.seed_base, ctx.threads = "SG2_REPORT", 3, 2
        atomic_write_json(tmp_path / "x.json", {"a": 1})
    record = json.loads((tmp_path / "x.json").read_text())["provenance"]
    assert record["command"] == ["boolverify", "runs", "sg2"]
    assert (record["plan"], record["seed_base"], record["threads"]) == ("SG2_REPORT", 3, 2)
    assert provenance()["command"] is None  # the context ended with the block


def test_a_figure_gets_one_sidecar_for_all_its_formats(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "d.json").write_text("{}")
    plt = pyplot()
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    paths = save_figure(fig, [tmp_path / "fig" / "f.png", tmp_path / "fig" / "f.pdf"],
                        data=[tmp_path / "data" / "d.json"])
    plt.close(fig)
    assert sorted(p.name for p in (tmp_path / "fig").iterdir()) == ["f.pdf", "f.png", "f.provenance.json"]
    side = json.loads((tmp_path / "fig" / "f.provenance.json").read_text())
    check_record(side["provenance"])
    assert side["files"] == ["f.png", "f.pdf"] and side["data"] == ["data/d.json"]
    assert [p.name for p in paths] == ["f.png", "f.pdf"]
    with raises_input_error("paths"):
        save_figure(fig, [tmp_path / "a.png", tmp_path / "b.pdf"])  # two stems: two figures


@pytest.mark.parametrize("field, value", [
    ("commit", "abc"), ("dirty", "yes"), ("command", "boolverify runs"), ("seed_base", -1),
    ("threads", True), ("date", "yesterday"), ("duration_s", -1.0), ("reconstructed", None),
])
def test_a_malformed_record_is_refused(field, value):
    record = provenance()
    check_record(record)
    with raises_input_error(f"provenance.{field}"):
        check_record({**record, field: value})
    with raises_input_error("provenance", f"the fields {field}"):
        check_record({k: v for k, v in record.items() if k != field})


def _git(repo, *args, date="2026-01-02T03:04:05Z"):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "GIT_AUTHOR_DATE": date,
                        "GIT_COMMITTER_DATE": date, "PATH": "/usr/bin:/bin"})


def test_backfill_takes_commit_and_date_from_git_and_keeps_the_layout(tmp_path):
    from verify.report.provenance_backfill import backfill, main as backfill_main

    repo = tmp_path / "repo"
    (repo / "docs" / "data").mkdir(parents=True)
    (repo / "docs" / "figures").mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "boolverify"\nversion = "0.0.9"\n')
    data = repo / "docs" / "data" / "r.json"
    data.write_text(json.dumps({"b": [1, 2.5], "a": {"x": None}}, indent=1) + "\n")
    fig = repo / "docs" / "figures" / "r.png"
    fig.write_bytes(b"\x89PNG")
    (repo / "docs" / "figures" / "r.pdf").write_bytes(b"%PDF")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "results")
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    # a later commit (another file, a new version): the record is still that of the results commit
    (repo / "other.txt").write_text("x")
    (repo / "pyproject.toml").write_text('[project]\nname = "boolverify"\nversion = "0.2.0"\n')
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "later", date="2026-02-03T04:05:06Z")
    before = data.read_text()
    assert backfill_main([str(data), "--command", "boolverify runs r --threads 1", "--plan", "R_FULL"]) == 0
    obj = json.loads(data.read_text())
    record = check_record(obj["provenance"])
    assert record["reconstructed"] is True and record["commit"] == head
    assert record["date"] == "2026-01-02T03:04:05Z" and record["boolverify_version"] == "0.0.9"
    assert record["command"] == ["boolverify", "runs", "r", "--threads", "1"] and record["plan"] == "R_FULL"
    assert all(record[k] is None for k in ("dirty", "seed_base", "threads", "cpu", "libraries", "duration_s"))
    assert without_provenance(obj) == json.loads(before)
    assert data.read_text().endswith(before.split("\n", 1)[1])  # the rest, as it was (indent 1)
    assert backfill(data, ["other"]) is None  # a record is there: left alone
    side = backfill(fig, ["boolverify", "runs", "r"], data=["docs/data/r.json"])
    assert side == repo / "docs" / "figures" / "r.provenance.json"
    s = json.loads(side.read_text())
    assert s["files"] == ["r.png", "r.pdf"] and s["data"] == ["docs/data/r.json"]
    assert s["provenance"]["commit"] == head and s["provenance"]["reconstructed"] is True
    (repo / "new.json").write_text("{}")
    with raises_input_error("path", "commit in git history"):
        backfill(repo / "new.json", ["x"])


def test_outside_its_own_checkout_the_commit_is_null(tmp_path, monkeypatch):
    from verify.common import provenance as prov

    _git(tmp_path, "init", "-q")  # some other repository around an installed copy
    (tmp_path / "verify").mkdir()
    (tmp_path / "verify" / "x.py").write_text("")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "other")
    monkeypatch.setattr(prov, "SOURCE_ROOT", tmp_path / "verify")
    prov.source_state.cache_clear()
    try:
        assert prov.source_state() == (None, None)
        record = check_record(provenance())
        assert (record["commit"], record["dirty"]) == (None, None)
    finally:
        prov.source_state.cache_clear()


def test_an_interrupt_after_a_write_names_the_file(tmp_path, capsys, monkeypatch):
    from verify.report import sensitivity_figures

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sensitivity_figures, "draw_histogram", interrupted)
    out = tmp_path / "p.json"
    assert main(["sensitivity", "profile", "--function", "majority", "--N", "4", "--json", str(out),
                 "--figure", str(tmp_path / "p.png")]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (f"boolverify: interrupted; kept: {out} (written before the interrupt, with what was "
                    "finished by then)")
    assert out.exists() and not (tmp_path / "p.png").exists()
