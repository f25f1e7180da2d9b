"""`boolverify reproduce` and the run registry behind it: every file of docs/data and
docs/figures is produced by exactly one run; a quick rerun agrees with the committed data; a
planted difference in a copy of the committed data is reported (exit 1); bad input exits 2
before any work."""

import json
import shutil

import pytest

from tests.helpers import PROJECT_ROOT
from verify.cli import main
from verify.cli.reproduce import command_matches
from verify.cli.runs import RUNS
from verify.report.reproduction import exact_differences, proportions, structure_differences

DOCS = PROJECT_ROOT / "docs"


def test_every_docs_file_is_produced_by_exactly_one_run():
    named = [f"data/{f}" for r in RUNS.values() for f in r.data]
    named += [f"figures/{f}" for r in RUNS.values() for f in r.figure_files]
    assert len(named) == len(set(named)), sorted({f for f in named if named.count(f) > 1})
    present = {f"{sub}/{p.name}" for sub in ("data", "figures") for p in (DOCS / sub).iterdir()
               if p.is_file() and not p.name.endswith((".lock", ".provenance.json"))}
    assert present - set(named) == set(), "files in docs/ that no run of 'boolverify runs' produces"
    assert set(named) - present == set(), "runs naming files that docs/ lacks"


def test_every_figure_is_shown_by_a_page():
    pages = "".join(p.read_text() for p in [PROJECT_ROOT / "README.md", *DOCS.glob("*.md")])
    shown = {p.name for p in (DOCS / "figures").glob("*.png")}
    assert {name for name in shown if f"figures/{name}" not in pages} == set()


def _committed_copy(tmp_path, name):
    committed = tmp_path / "committed"
    (committed / "data").mkdir(parents=True)
    for f in RUNS[name].data:
        shutil.copy(DOCS / "data" / f, committed / "data" / f)
    return committed


@pytest.mark.parametrize("name", ["sg2", "xor-sweep", "xor-step-d64"])
def test_quick_rerun_agrees_with_the_committed_data(name, tmp_path, capsys):
    assert main(["reproduce", name, "--quick", "--out-dir", str(tmp_path / "scratch")]) == 0
    out = capsys.readouterr().out
    assert f"reproduce {name}: agrees" in out
    assert all(f"data/{f}: agrees" in out for f in RUNS[name].data)


@pytest.mark.parametrize("name, edit, where", [
    # a Monte Carlo count far from the quick rerun's: the proportions test sees it
    ("sg2", lambda d: d["monte_carlo"]["2"].update(hits=d["monte_carlo"]["2"]["samples"] // 10),
     "monte_carlo.2"),
    # one real of a deterministic run, beyond the float64 tolerance
    ("xor-step-d64", lambda d: d.update({"loss before": d["loss before"] * (1 + 1e-6)}), "loss before"),
    # one Boolean of the same run
    ("xor-step-d64", lambda d: d.update(success=not d["success"]), "success"),
])
def test_planted_difference_is_reported(name, edit, where, tmp_path, capsys):
    committed = _committed_copy(tmp_path, name)
    path = committed / "data" / RUNS[name].data[0]
    content = json.loads(path.read_text())
    edit(content)
    path.write_text(json.dumps(content))
    rc = main(["reproduce", name, "--quick", "--out-dir", str(tmp_path / "scratch"), "--committed", str(committed)])
    out = capsys.readouterr().out
    assert rc == 1
    assert f"data/{RUNS[name].data[0]}: DIFFERS" in out
    assert f"  {where}" in out


def test_provenance_command_of_another_run_is_reported(tmp_path, capsys):
    committed = _committed_copy(tmp_path, "xor-step-d64")
    path = committed / "data" / "xor_step_d64.json"
    content = json.loads(path.read_text())
    content["provenance"] = {"command": ["boolverify", "runs", "sg2"], "date": "2026-12-05"}
    path.write_text(json.dumps(content))
    args = ["reproduce", "xor-step-d64", "--quick", "--out-dir", str(tmp_path / "s"), "--committed", str(committed)]
    assert main(args) == 1
    assert "provenance.command" in capsys.readouterr().out
    content["provenance"]["command"] = ["boolverify", "runs", "xor-step-d64", "--quick"]
    path.write_text(json.dumps(content))
    assert main(args) == 0  # the record's own fields (date, ...) are not compared


def test_command_matches_the_wrapped_command_line():
    step = RUNS["xor-step-d64"]
    assert command_matches("xor-step-d64", step, ["boolverify", "xor", "step", "--d", "64"]) is True
    assert command_matches("xor-step-d64", step, ["boolverify", "xor", "sweep", "--d", "64"]) is False
    assert command_matches("sg2", RUNS["sg2"], ["boolverify", "runs", "sg2"]) is True


@pytest.mark.parametrize("argv, needle", [
    (["reproduce", "no-such-run"], "NAME"),
    (["reproduce", "figures"], "only redraws"),
    (["reproduce", "sg2", "--out-dir", "docs/scratch"], "--out-dir"),
    (["reproduce", "sg2", "--committed", "{tmp}/missing"], "--committed"),
])
def test_bad_input_is_one_line_exit_2_before_work(argv, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(PROJECT_ROOT)
    started = []
    monkeypatch.setitem(RUNS, "sg2", RUNS["sg2"].__class__(**{**RUNS["sg2"].__dict__,
                                                              "run": lambda *a: started.append(a)}))
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and needle in err
    assert started == []


def test_exact_rule_compares_integers_booleans_strings_and_reals_by_the_table():
    base = {"n": 3, "ok": True, "name": "a", "x": 0.5, "provenance": {"commit": "abc"}, "seconds": 1.0}
    assert exact_differences(dict(base), dict(base)) == []
    assert exact_differences(base | {"provenance": {"commit": "def"}, "seconds": 9.0}, base) == []
    assert exact_differences(base | {"n": 4}, base) == ["n: 4, committed 3"]
    assert exact_differences(base | {"ok": False}, base) == ["ok: False, committed True"]
    assert exact_differences(base | {"ok": 1}, base)  # a Boolean is not an integer
    assert exact_differences(base | {"x": 0.5 * (1 + 1e-14)}, base) == []  # within the float64 entry
    assert exact_differences(base | {"x": 0.5 * (1 + 1e-6)}, base)
    assert exact_differences({"n": 3}, base)  # a missing key
    assert exact_differences({"n": 3}, base, subset=True) == []


def test_proportions_rule_matches_records_and_tests_them():
    committed = {"cells": [{"d": 10, "m": 4, "successes": 500, "n_seeds": 1000},
                           {"d": 10, "m": 8, "successes": 990, "n_seeds": 1000}]}
    rule = proportions([("successes", "n_seeds")], ("d", "m"))
    assert rule({"cells": [{"d": 10, "m": 8, "successes": 10, "n_seeds": 10}]}, committed) == []
    assert rule({"cells": [{"d": 10, "m": 8, "successes": 2, "n_seeds": 10}]}, committed)
    assert rule({"cells": [{"d": 99, "m": 8, "successes": 10, "n_seeds": 10}]}, committed)  # nothing matched


def test_structure_rule_sees_a_new_key_and_another_kind():
    assert structure_differences({"a": 1, "b": [1.0]}, {"a": 2, "b": [3.0, 4.0]}) == []
    assert structure_differences({"a": 1, "c": 2}, {"a": 2}) == ["c: not in the committed file"]
    assert structure_differences({"a": "x"}, {"a": 2}) == ["a: a str, committed a number"]
