"""Figures drawn from a check report's evidence: SG-6's decisions figure reads exactly the
decisions and per-model ratios the claim recorded, and refuses a report that lacks them."""

import copy
import json

from tests.helpers import PROJECT_ROOT, raises_input_error
from verify.report.claim_figures import SG6_ESTIMANDS, sg6_cells, sg6_decisions_figure

REPORT = json.loads((PROJECT_ROOT / "docs" / "report.json").read_text())


def _sg6(report):
    return next(c for c in report["claims"] if c["id"] == "SG-6")


def test_sg6_cells_are_the_claims_decisions_and_models():
    cells = sg6_cells(REPORT)
    claim = _sg6(REPORT)
    # every interval-bearing decision of the four estimands, in the report's order, is drawn
    decided = [d for d in claim["decisions"] if d["estimand"].partition(": ")[2] in SG6_ESTIMANDS.values()]
    drawn = [c["decisions"][k] for c in cells for k in SG6_ESTIMANDS]
    assert sorted(map(json.dumps, drawn)) == sorted(map(json.dumps, decided))
    assert len(cells) == 5 and cells[-1]["plan"]["preset"] == "bhattamishra"
    for c in cells:
        assert len(c["K0_ratio"]) == len(c["as_ratio"]) == c["nonconstant"]
        # the decided medians (the lower middle value) are those of the models drawn beside them
        for key in ("K0_ratio", "as_ratio"):
            ratios = sorted(c[key])
            assert ratios[(len(ratios) - 1) // 2] == c["decisions"][key]["estimate"]


def test_sg6_decisions_figure_is_drawn_with_its_sources(tmp_path):
    paths = sg6_decisions_figure(REPORT, tmp_path, data=[PROJECT_ROOT / "docs" / "report.json"])
    assert [p.name for p in paths] == ["sg6_decisions.png", "sg6_decisions.pdf"]
    side = json.loads((tmp_path / "sg6_decisions.provenance.json").read_text())
    assert side["data"] == ["docs/report.json"]


def test_a_report_without_sg6_or_its_decisions_is_refused(tmp_path):
    without = {**REPORT, "claims": [c for c in REPORT["claims"] if c["id"] != "SG-6"]}
    with raises_input_error("report", "SG-6"):
        sg6_cells(without)
    lacking = copy.deepcopy(REPORT)
    for evidence in _sg6(lacking)["evidence"].values():
        if isinstance(evidence, dict) and "decisions" in evidence:
            evidence["decisions"] = [d for d in evidence["decisions"] if "P(constant function)" not in d["estimand"]]
    with raises_input_error("report", "P(constant function)"):
        sg6_cells(lacking)
