"""The instruments of :mod:`verify.experiments.instruments` in docs/claims.md's table and in the
report of ``boolverify check`` (the table's staleness: ``test_readme_table.py``)."""

from verify.experiments.instruments import INSTRUMENTS
from verify.report.instrument_table import instruments_markdown, render_instruments, report_instruments
from verify.report.runner import to_markdown


def test_docs_table_has_one_row_per_instrument_with_its_known_answer_functions():
    rows = render_instruments().splitlines()[2:]
    declared = [(cid, ins) for cid, group in INSTRUMENTS.items() for ins in group]
    assert len(rows) == len(declared)
    for row, (cid, ins) in zip(rows, declared):
        assert row.startswith(f"| {cid} | ") and f"`{ins.seam}`" in row
        assert all(f"`{fn}`" in row for fn in ins.known_answer)


def test_report_lists_each_claims_instruments_and_their_checks():
    entry = report_instruments(["SX-4", "SG-8"])
    assert list(entry) == ["SX-4", "SG-8"]
    assert [row["name"] for row in entry["SX-4"]] == [ins.name for ins in INSTRUMENTS["SX-4"]]
    report = {"profile": "quick", "started": "T", "duration_s": 1.0, "passed": True, "worker_errors": [],
              "environment": {}, "claims": [], "instruments": entry}
    md = to_markdown(report)
    assert "## Instruments and their known-answer checks" in md
    assert "`decide_success_threshold`" in md and "training subset (sampler)" in md
    assert instruments_markdown({"claims": []}) == ""
    assert "## Instruments" not in to_markdown(dict(report, instruments={}))
