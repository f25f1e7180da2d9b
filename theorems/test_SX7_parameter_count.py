r"""SX-7: the two-head model needs :math:`2\,m^*(d)` trainable parameters, against :math:`\ge d`
for any FFNN whose first layer is dense (as formalised in boolverify).

Estimand: :math:`2\,m^*_{0.9}(d)`, where :math:`m^*_{0.9}(d)` is the :math:`m` at which the
rising part of the success curve reaches 0.9 (the SX-4 model,
:func:`verify.experiments.inference.fit_threshold_curves` with a free location per
:math:`d`), with its profile-likelihood interval, at every :math:`d` measured.

Decision rule (fixed before the data): at every :math:`d \ge 10^3` of the plan, the one-sided
99 % upper bound of :math:`2\,m^*_{0.9}(d)` is below :math:`d/10` (an order of magnitude fewer
parameters than the FFNN's :math:`d`). At :math:`d = 10^2` (full run) the row is reported, not
decided: :math:`2m^* \approx 30` against 100 is no order of magnitude. Fast: the SX-4 cells
(:data:`verify.experiments.plans.FAST_SWEEP`, shared in one process); the measured
:math:`2m^*_{0.9}(10^3) \approx 40` leaves a factor 2.5 to the bound 100, so the rule fails on
correct code only if the upper bound is off by that factor (far beyond the interval widths
of 200 seeds per cell).
"""

import pytest

from verify.common.decisions import upper_bound_below
from verify.common.seeds import seed_offset
from verify.experiments.inference import fit_threshold_curves, quasi_level
from verify.experiments.plans import FULL_DS, fast_cells, full_cells
from verify.experiments.claim_rules import SX7

pytestmark = pytest.mark.claim("SX-7")

def _table(cells, ds, evidence, decide_from=SX7.decide_from):
    fit = fit_threshold_curves([c.d for c in cells], [c.m for c in cells],
                               [c.successes for c in cells], [c.n_seeds for c in cells], law="free")
    rows = []
    for d in ds:
        m90 = fit.threshold(d, SX7.quantile)
        lo, hi = fit.threshold_interval(d, level=SX7.quantile, conf=quasi_level(SX7.level, fit.dispersion, "upper"),
                                        side="upper")
        rows.append({"d": d, "params_two_head": 2 * m90, "params_upper_99": 2 * hi, "params_ffnn_min": d,
                     "ratio": 2 * m90 / d})
        if d >= decide_from:
            evidence.decide(upper_bound_below(f"2 m*_{SX7.quantile:g}(d={d}) (two-head parameters)", 2 * m90,
                                              (2 * lo, 2 * hi), SX7.level, d / SX7.param_divisor))
    evidence["table"] = rows
    return rows


def test_parameter_count_fast(evidence):
    cells = list(fast_cells(seed_offset()))  # the SX-4 fast sweep (cached when both run in one process)
    _table(cells, sorted({c.d for c in cells}), evidence)


@pytest.mark.slow
def test_parameter_table_full(evidence, tmp_path):
    cells = full_cells(tmp_path, seed_offset=seed_offset())
    _table(cells, FULL_DS, evidence)
