"""The figures drawn at a claim's settings draw the data that claim decides on: the decided
numbers in their data files equal the decisions in docs/report.json (seed base 0), so a figure
cannot drift from its claim without this failing."""

import json

import pytest

from tests.helpers import PROJECT_ROOT
from verify.common.tolerances import assert_close

DATA = PROJECT_ROOT / "docs" / "data"


def _decisions(claim):
    report = json.loads((PROJECT_ROOT / "docs" / "report.json").read_text())
    assert report["provenance"]["seed_base"] == 0
    (entry,) = [c for c in report["claims"] if c["id"] == claim]
    return entry["decisions"]


def test_sg4_figure_data_give_the_decided_slope_and_intervals():
    sg4 = json.loads((DATA / "sg4_influence.json").read_text())
    slope = [d for d in _decisions("SG-4") if d["estimand"].startswith("mean per-model slope")]
    rule2, rule1 = sorted(slope, key=lambda d: "consistent" not in d["estimand"])
    for got, want in ((sg4["slope_mean_log"], rule1["estimate"]), (sg4["slope_mean_log"], rule2["estimate"]),
                      *zip(sg4["slope_interval_rule1"], rule1["interval"]),
                      *zip(sg4["slope_interval_rule2"], rule2["interval"])):
        assert_close(got, want, what="SG-4 slope or interval end")
    cells = [d["estimate"] for d in _decisions("SG-4") if d["estimand"].startswith("(model, N) cells")][0]
    assert cells == f"{len(sg4['slope_per_model']) * len(sg4['Ns'])}/{len(sg4['slope_per_model']) * len(sg4['Ns'])}"


def test_sg8_figure_data_give_the_decided_proportions_and_intervals():
    cells = json.loads((DATA / "sg8_decisions.json").read_text())["decisions"]
    decided = [d for d in _decisions("SG-8") if d["estimand"].startswith("P(") and d["interval"] is not None]
    assert len(decided) == len(cells)
    for cell, decision in zip(cells.values(), decided):
        last = cell["looks_taken"][-1]
        assert last["hits"] / last["runs"] == pytest.approx(decision["estimate"], rel=0, abs=0)
        for got, want in zip(last["interval"], decision["interval"]):
            assert_close(got, want, what=f"SG-8 {cell['claim']} interval end")
        assert cell["outcome"] == decision["outcome"]
