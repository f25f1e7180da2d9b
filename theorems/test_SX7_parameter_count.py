"""SX-7: the two-head model needs 2 m*(d) trainable parameters, against >= d for any FFNN
whose first layer is dense (as formalised in boolverify). Fast: m*(10^3) measured here. Full
(slow): the table for d = 10^2 ... 10^7 from the measured m*(d) (d <= 10^6) and the polylog fit
extrapolated beyond (marked as extrapolated)."""

import os

import pytest

from numeric.sweep import run_sweep
from verify.fits import compare_fits, m_star_from_cells, parameter_table

pytestmark = pytest.mark.claim("SX-7")


def test_parameter_count_fast(evidence):
    cells = run_sweep([1000], [8, 16, 24, 32, 48, 64], 200)
    m = m_star_from_cells(cells, 1000)
    rows = parameter_table({1000: m}, ds=(1000,))
    evidence["table"] = rows
    assert rows[0]["source"] == "measured" and m is not None
    # 2 m*(d) trainable parameters against >= d = 1000 for a dense first layer
    assert rows[0]["params_two_head"] <= 128 < rows[0]["params_ffnn_min"]
    assert rows[0]["ratio"] < 0.13


@pytest.mark.slow
def test_parameter_table_full(evidence, tmp_path):
    out = os.environ.get("BOOLVERIFY_XOR_SWEEP_FILE") or tmp_path / "sweep.json"
    g1 = [4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]
    cells = (run_sweep([100], g1, 1000, out=out) + run_sweep([1000], g1, 400, out=out)
             + run_sweep([10000], g1, 200, out=out)
             + run_sweep([100000], [8, 12, 16, 24, 32, 48, 64, 96], 60, out=out)
             + run_sweep([1000000], [12, 16, 24, 32, 48, 64], 20, out=out))
    measured = {d: m_star_from_cells(cells, d) for d in (100, 1000, 10000, 100000, 1000000)}
    known = [d for d, v in measured.items() if v is not None]
    fit = compare_fits(known, [measured[d] for d in known])["polylog"]
    rows = parameter_table(measured, fit)
    evidence["table"] = rows
    for r in rows:
        if r["d"] >= 1000:
            assert r["params_two_head"] is not None and r["params_two_head"] < r["params_ffnn_min"] / 10
    assert [r["source"] for r in rows if r["d"] == 10**7] == ["extrapolated (polylog fit)"]
