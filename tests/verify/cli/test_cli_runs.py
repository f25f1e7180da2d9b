"""`boolverify runs`: the named full runs behind docs/data (the list, bad names, a quick run)."""

from __future__ import annotations

import json

import pytest

from verify.cli import main
from verify.cli.runs import RUNS


def test_list_names_every_run_and_its_files(capsys, tmp_path):
    assert main(["runs", "--list", "--out-dir", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    for name, run in RUNS.items():
        assert name in out
        for f in run.data:
            assert f"data/{f}" in out
    assert not (tmp_path / "out").exists()  # listing writes nothing
    assert {"xor-sweep", "sg4", "sg5", "sg6", "theorem45"} <= set(RUNS)


@pytest.mark.parametrize("argv, name", [
    (["runs", "sg4", "no-such-run"], "NAME"),
    (["runs"], "run name"),
    (["runs", "sg5", "--threads", "0"], "--threads"),
])
def test_bad_input_is_one_line_before_any_work(argv, name, capsys, tmp_path):
    assert main(argv + ["--out-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("boolverify: error: ") and name in err[0]
    assert not (tmp_path / "out").exists()  # the good name before the bad one did not run


def test_out_dir_that_is_a_file_is_refused(capsys, tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    assert main(["runs", "sg5", "--quick", "--out-dir", str(f)]) == 2
    assert "--out-dir" in capsys.readouterr().err


def test_quick_runs_write_data_and_figures(capsys, tmp_path):
    out = tmp_path / "docs"
    assert main(["runs", "sg5", "theorem45", "--quick", "--out-dir", str(out)]) == 0
    err = capsys.readouterr().err
    assert "sg5: started (quick plan)" in err and "theorem45: done" in err
    sg5 = json.loads((out / "data" / "sg5_margin.json").read_text())
    assert sg5["Ns"] == [1, 2, 4] and set(sg5["counts"]) == {"0.01", "0.03", "0.1"}
    t45 = json.loads((out / "data" / "theorem45.json").read_text())
    assert set(t45["cells"]) == {"gaussian/N=6", "gaussian/N=9"}
    for fig in ("sg5_margin_vs_N.png", "sg5_margin_vs_N.pdf", "theorem45.png"):
        assert (out / "figures" / fig).stat().st_size > 1000
    # resumed: the Theorem 4.5 file is not rewritten; the figures are redrawn from the data
    before = (out / "data" / "theorem45.json").read_text()
    assert main(["runs", "theorem45", "--quick", "--out-dir", str(out)]) == 0
    assert (out / "data" / "theorem45.json").read_text() == before


def _tree(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_quick_run_leaves_the_committed_results_byte_for_byte(capsys, tmp_path, monkeypatch):
    from tests.helpers import PROJECT_ROOT

    # a working folder whose docs/ holds the committed SG-2 data (the default --out-dir of a full run)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs" / "data").mkdir(parents=True)
    name = "sg2_random_functions.json"
    (tmp_path / "docs" / "data" / name).write_bytes((PROJECT_ROOT / "docs" / "data" / name).read_bytes())
    before, committed = _tree(tmp_path / "docs"), _tree(PROJECT_ROOT / "docs" / "data")
    assert main(["runs", "sg2", "--quick"]) == 0
    assert _tree(tmp_path / "docs") == before and _tree(PROJECT_ROOT / "docs" / "data") == committed
    smoke = json.loads((tmp_path / "results" / "quick" / "data" / name).read_text())
    assert smoke["provenance"]["plan"] == "quick" and smoke["provenance"]["command"] == ["boolverify", "runs",
                                                                                         "sg2", "--quick"]
    # naming the committed folder with --quick is refused before any work, unless forced
    capsys.readouterr()
    assert main(["runs", "sg2", "--quick", "--out-dir", "docs"]) == 2
    err = capsys.readouterr().err
    assert "--out-dir" in err and "--force" in err and _tree(tmp_path / "docs") == before


def test_replacing_another_plans_data_needs_replace_and_says_what_it_replaces(capsys, tmp_path):
    data = tmp_path / "out" / "data"
    data.mkdir(parents=True)
    made = {"provenance": {"plan": "SG2_REPORT", "commit": "a" * 40}, "exact": {}}
    (data / "sg2_random_functions.json").write_text(json.dumps(made))
    before = _tree(tmp_path / "out")
    argv = ["runs", "sg2", "--quick", "--out-dir", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--replace" in err and "plan SG2_REPORT, commit aaaaaaaaaaaa" in err
    assert _tree(tmp_path / "out") == before  # refused before any work
    assert main(argv + ["--replace"]) == 0
    err = capsys.readouterr().err
    assert f"replacing {data / 'sg2_random_functions.json'} (plan SG2_REPORT, commit aaaaaaaaaaaa)" in err
    assert json.loads((data / "sg2_random_functions.json").read_text())["provenance"]["plan"] == "quick"
    # the same smoke plan again: nothing to confirm
    assert main(argv) == 0 and "runs: replacing" not in capsys.readouterr().err


def test_sg8_decisions_run_decides_at_the_claims_cells_and_draws_them(capsys, tmp_path):
    """The full plan is the claim test's own (SG8_FAST); the quick one counts, bounds and decides each
    cell by the claim's rule and draws the decisions figure."""
    from verify.experiments import plans
    from verify.common.seeds import base_seed, seed
    from verify.experiments.claim_rules import SG8
    from verify.stats.intervals import bonferroni_level, clopper_pearson

    assert plans.SG8_DECISIONS is plans.SG8_FAST
    out = tmp_path / "docs"
    assert main(["runs", "sg8-decisions", "--quick", "--out-dir", str(out)]) == 0
    report = json.loads((out / "data" / "sg8_decisions.json").read_text())
    assert report["provenance"]["seed_base"] == base_seed() and report["dtype"] == SG8.dtype
    decisions = report["decisions"]
    assert set(decisions) == set(plans.SG8_DECISIONS_QUICK) | {"profiles"}
    for name, cell in plans.SG8_DECISIONS_QUICK.items():
        d = decisions[name]
        look = d["looks_taken"][-1]
        assert [r["seed"] for r in d["runs"]] == [seed(cell["first_seed"]) + i for i in range(look["runs"])]
        assert look["hits"] == sum(r[d["quantity"]] >= d["threshold"] for r in d["runs"])
        level = bonferroni_level(SG8.level, len(cell["looks"]))
        lo = clopper_pearson(look["hits"], look["runs"], level, side="lower")[0]
        hi = clopper_pearson(look["hits"], look["runs"], level, side="upper")[1]
        assert look["interval"] == [lo, hi]
        passes = lo >= SG8.most_runs if d["side"] == "lower" else hi <= SG8.most_runs
        fails = hi < SG8.most_runs if d["side"] == "lower" else lo > SG8.most_runs
        assert d["outcome"] == ("pass" if passes else "fail" if fails else "inconclusive")
    for ext in ("png", "pdf"):
        assert (out / "figures" / f"sg8_training_profiles.{ext}").stat().st_size > 1000
