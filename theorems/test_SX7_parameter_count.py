r"""SX-7: the two-head model needs :math:`2\,m^*(d)` trainable parameters, against :math:`\ge d`
for any FFNN whose first layer is dense (as formalised in boolverify).

Estimand: :math:`2\,m^*_q(d)`, where :math:`m^*_q(d)` is the :math:`m` at which the
rising part of the success curve reaches :math:`q` = ``SX7.quantile`` (the SX-4 model,
:func:`verify.stats.thresholds.fit_threshold_curves` with a free location per
:math:`d`), with its profile-likelihood interval, at every :math:`d` measured.

Known answer (exact, before the data): the same fit on binomial cells drawn at the fast grid
from SX-4's threshold model with known parameters (``SX4.known_answer``): every fitted
:math:`m^*_q(d)` lies inside the measured m grid and its two-sided ``known_answer_level``
interval contains the true one (sizes read on the wrong logarithm fail here). On the data:
every fitted :math:`m^*_q(d)` lies inside its measured m grid (exact).

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
import torch

from verify.common.seeds import seed_offset
from verify.experiments.known_answers import (
    success_threshold_check, threshold_fit_known_answer, thresholds_inside_grid,
)
from verify.experiments.plans import FAST_SWEEP, FULL_DS, fast_cells, full_cells
from verify.stats.decisions import exact, upper_bound_below
from verify.stats.likelihood import quasi_level
from verify.stats.thresholds import fit_threshold_curves
from verify.experiments.claim_rules import SX4, SX7

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
    gen = torch.Generator().manual_seed(seed_offset() + 2)
    check = threshold_fit_known_answer(FAST_SWEEP, SX4.known_answer, (SX7.quantile,), SX7.known_answer_level, gen)
    evidence["known_answer_threshold_fit"] = check
    evidence.decide(exact(f"m*_{SX7.quantile:g} of the threshold fit on synthetic cells at the fast grid",
                          [round(r["fitted"], 3) for r in check["thresholds"]],
                          f"pass iff the {SX7.known_answer_level:g} intervals contain the truth "
                          f"{[round(r['true'], 3) for r in check['thresholds']]} and every fitted value lies "
                          "inside the measured m grid", check["ok"]))
    cells = list(fast_cells(seed_offset()))  # the SX-4 fast sweep (cached when both run in one process)
    threshold = success_threshold_check(cells, SX4.success_eps)
    evidence["known_answer_success_threshold"] = threshold
    evidence.decide(exact("success threshold of the cells behind m*, and near-miss heads (1 - gamma = "
                          f"{threshold['misses']})", f"eps {threshold['recorded_eps']}: {threshold['step_metrics']}, "
                          f"{threshold['limit_success']}", f"pass iff eps = {SX4.success_eps:g} and both are "
                          f"{threshold['expected']}", threshold["ok"]))
    rows = _table(cells, sorted({c.d for c in cells}), evidence)
    fit = fit_threshold_curves([c.d for c in cells], [c.m for c in cells], [c.successes for c in cells],
                               [c.n_seeds for c in cells], law="free")
    outside = thresholds_inside_grid(fit, FAST_SWEEP, (SX7.quantile,))
    evidence.decide(exact(f"fitted m*_{SX7.quantile:g}(d) outside the measured m grid", outside,
                          "pass iff none", not outside and len(rows) > 0))


@pytest.mark.slow
def test_parameter_table_full(evidence, tmp_path):
    cells = full_cells(tmp_path, seed_offset=seed_offset())
    _table(cells, FULL_DS, evidence)
