"""SX-6: finite samples (as formalised in boolverify). The one step with the empirical gradient
on n i.i.d. samples reproduces the population step once n >= n*(d); the proof's
n = Omega(d^4 polylog d) is sufficient but loose, so the measured exponent of n*(d) lies below 4.

n*(d): the smallest n on the grid whose isotonic rate of "empirical step succeeds, given that the
population step on the same instance succeeds" reaches LEVEL (conditioning removes the population
step's own failures, ~5-10% at small d). LEVEL = 0.9, not 0.95: with 20-40 seeds per cell the
conditional rate plateaus at 0.88-0.94 at d = 16, 32 even at n = 64 d^2 (near-ties
(v_a - v_b).theta0 ~ 0 that the sampling noise tips over), so the 0.95 level is not resolved on
this CPU budget. m = 32, eta = 10 d^2 sqrt(m) ln d, eps = 0.01.

The seed's "empirically O(d)" is NOT asserted: at fixed m the measured exponent is close to 2
(recorded in the evidence; see docs/results-paper-a.md).
"""

import math

import pytest

from verify.experiments.fits import fit_power, m_star_from_cells
from verify.experiments.plans import (
    SAMPLES_FAST_DS, SAMPLES_FULL, fast_samples_cells, full_samples_cells,
)

pytestmark = pytest.mark.claim("SX-6")


LEVEL = 0.9


def _nstar(cells, ds):
    return {d: m_star_from_cells(cells, d, target=LEVEL, key="rate_given_population", size="n")
            for d in ds}


def test_sample_complexity_fast(evidence):
    ds = list(SAMPLES_FAST_DS)
    cells = fast_samples_cells()
    ns = _nstar(cells, ds)
    evidence["n_star"] = {str(d): v for d, v in ns.items()}
    evidence["level"] = LEVEL
    evidence["rates_given_population"] = {f"{c.d},{c.n}": c.rate_given_population for c in cells}
    assert all(v is not None for v in ns.values())
    # too few samples fail: the threshold is not at the bottom of the grid
    assert all(ns[d] > 2 * d * d for d in ds)
    expo = math.log(ns[32] / ns[16]) / math.log(2)
    evidence["two_point_exponent"] = expo
    assert expo < 4  # the proof's d^4 rate is loose


@pytest.mark.slow
def test_sample_complexity_full(evidence, tmp_path):
    cells = full_samples_cells(tmp_path)
    ds = [row[0] for row in SAMPLES_FULL]
    ns = _nstar(cells, ds)
    known = [d for d in ds if ns[d] is not None]
    evidence["n_star"] = {str(d): v for d, v in ns.items()}
    assert len(known) >= 3
    fit = fit_power(known, [ns[d] for d in known])
    evidence["fit"] = fit.as_dict()
    evidence["proof_exponent"] = 4
    assert fit.exponent < 4
