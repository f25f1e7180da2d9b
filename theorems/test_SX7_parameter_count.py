"""SX-7: the two-head model needs 2 m*(d) trainable parameters, against >= d for any FFNN
whose first layer is dense (as formalised in boolverify). Fast: m*(10^3) measured here. Full
(slow): the table for d = 10^2 ... 10^7 from the measured m*(d) (d <= 10^6) and the polylog fit
extrapolated beyond (marked as extrapolated)."""


import pytest

from verify.experiments.plans import FULL_DS, fast_cells, full_cells
from verify.experiments.fits import compare_fits, m_star_from_cells, parameter_table

pytestmark = pytest.mark.claim("SX-7")


def test_parameter_count_fast(evidence):
    cells = list(fast_cells(1000, 200))  # the SX-4 fast sweep (cached when both run in one process)
    m = m_star_from_cells(cells, 1000)
    rows = parameter_table({1000: m}, ds=(1000,))
    evidence["table"] = rows
    assert rows[0]["source"] == "measured" and m is not None
    # 2 m*(d) trainable parameters against >= d = 1000 for a dense first layer
    assert rows[0]["params_two_head"] <= 128 < rows[0]["params_ffnn_min"]
    assert rows[0]["ratio"] < 0.13


@pytest.mark.slow
def test_parameter_table_full(evidence, tmp_path):
    cells = full_cells(tmp_path)
    measured = {d: m_star_from_cells(cells, d) for d in FULL_DS}
    known = [d for d, v in measured.items() if v is not None]
    fit = compare_fits(known, [measured[d] for d in known])["polylog"]
    rows = parameter_table(measured, fit)
    evidence["table"] = rows
    for r in rows:
        if r["d"] >= 1000:
            assert r["params_two_head"] is not None and r["params_two_head"] < r["params_ffnn_min"] / 10
    assert [r["source"] for r in rows if r["d"] == 10**7] == ["extrapolated (polylog fit)"]
