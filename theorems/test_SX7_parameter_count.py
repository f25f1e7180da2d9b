r"""SX-7: the two-head model needs :math:`2\,m^*(d)` trainable parameters, against :math:`\ge d`
for any FFNN whose first layer is dense (as formalised in boolverify).

Estimand: :math:`2\,m^*_q(d)`, where :math:`m^*_q(d)` is the :math:`m` at which the
rising part of the success curve reaches :math:`q` = ``SX7.quantile`` (the SX-4 model,
:func:`verify.stats.thresholds.fit_threshold_curves` with a free location per
:math:`d`), with its profile-likelihood interval, at every :math:`d` measured.

Decision rule (fixed before the data; the numbers are those of
:data:`verify.experiments.claim_rules.SX7`, rendered in ``docs/claims.md#sx-7``): at every
:math:`d \ge` ``decide_from`` of the plan, the one-sided ``SX7.level`` upper bound of
:math:`2\,m^*_q(d)` (:math:`q` = ``quantile``) is below :math:`d/`\ ``param_divisor`` (an order
of magnitude fewer parameters than the FFNN's :math:`d`). Smaller :math:`d` (full run) are
reported, not decided: there :math:`2m^*` is no order of magnitude below :math:`d`. Fast: the
SX-4 cells (:data:`verify.experiments.plans.FAST_SWEEP`, shared in one process). Error rates:
the rule passes an implementation whose :math:`2m^*` reaches the bound with probability at most
1 % (coverage); correct code fails only if the upper bound is off by the margin between the
measured :math:`2m^*` and the bound (``docs/results-paper-a.md``), far beyond the interval
widths of the fast plan.
"""

import pytest

from verify.common.seeds import seed_offset
from verify.experiments.plans import FULL_DS, fast_cells, full_cells
from verify.stats.decisions import upper_bound_below
from verify.stats.likelihood import quasi_level
from verify.stats.thresholds import fit_threshold_curves
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
