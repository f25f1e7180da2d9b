r"""SX-8: after the step the heads specialise one-to-one on a, b: the gradient's alignment with
v_a, v_b dominates every ambient position, and the assignment (head 1 <-> a or b) is decided by
sign((v_a - v_b) . theta0) (as formalised in boolverify), checked per instance.

Estimands, per random instance (``SX8.d``, ``SX8.m``, seeds from ``BOOLVERIFY_SEED``):

- :math:`p_{\mathrm{dom}}` = P(both heads' target alignment beats every ambient position);
- :math:`p_{\mathrm{order}}` = P(each head's gradient prefers the target the sign predicts);
- :math:`p_{r}` = P(alignment ratio > ``ratio_cut``), i.e. the median ratio is above
  ``ratio_cut`` iff :math:`p_{r} > 1/2`;
- the number of successful steps whose realised assignment differs from the predicted one,
  or that happen without the predicted order (exact counts: the statement is per instance).

The predicted assignment :math:`\mathrm{sign}((v_a - v_b)\cdot\theta^{(0)})` and the realised one
(head 1 on a iff its post-step softmax weight of a exceeds that of b) are computed in this file
from those definitions, not asked from the functions under test; those functions
(``predicted_assignment``, ``step_metrics``' assignment) must agree with them on every instance
(exact; a prediction that reads the realised step fails there).

Decision rules (fixed in advance; the numbers are those of
:data:`verify.experiments.claim_rules.SX8`, rendered in ``docs/claims.md#sx-8``): pass iff the
one-sided ``SX8.level`` Clopper-Pearson lower bound of :math:`p_{\mathrm{dom}}` is above
``dominance_floor``, that of :math:`p_{\mathrm{order}}` above ``order_floor``, that of
:math:`p_{r}` above ``ratio_floor``, and both exact counts are 0. Each rule rejects its
alternative (:math:`p` at or below its floor) with probability >= 99 % by the coverage of the
bound.

Sample size and error rates: with ``SX8.seeds`` instances the rule fails on correct code only
if the rates fall several standard deviations below those measured over many seed bases
(``docs/results-paper-a.md``): false-fail probability far below 0.1 %. The exceptions are
near-ties :math:`|(v_a - v_b)\cdot\theta_0| \approx 0`.
"""

import pytest
import torch

from numeric import xor
from numeric.xor import step_metrics
from verify.common.seeds import seed_offset
from verify.experiments.xor_sweeps import cell_support, make_instances
from verify.stats.decisions import exact, lower_bound_above
from verify.stats.intervals import clopper_pearson
from verify.experiments.claim_rules import SX8
from verify.experiments.claim_rules import SX4  # the instance sampler's known-answer numbers, as SX-4 checks it
from verify.experiments.known_answers import instance_sampler_check, instance_sampler_decision

pytestmark = pytest.mark.claim("SX-8")

def _measure(d, m, n_seeds, evidence):
    a, b = cell_support(d, 1, m)
    start = seed_offset()
    V, th0, tt0 = make_instances(d, m, list(range(start, start + n_seeds)))
    g, gt = xor.population_grad(V, th0, tt0, (a, b))
    # the prediction from its plain definition, sign((v_a - v_b) . theta0), +1: head 1 <-> a
    pred = torch.sign(torch.einsum("sm,sm->s", V[:, a, :] - V[:, b, :], th0))
    asked = xor.predicted_assignment(V, th0, (a, b))
    amb = torch.ones(d, dtype=torch.bool)
    amb[[a, b]] = False
    ratios, order_ok = [], []
    for grad, sgn in ((g, 1.0), (gt, -1.0)):
        s = -(V @ grad.unsqueeze(-1)).squeeze(-1)  # alignment of -grad with each v_i (|v_i| = 1)
        target = torch.where(pred * sgn > 0, s[:, a], s[:, b])
        other = torch.where(pred * sgn > 0, s[:, b], s[:, a])
        ratios.append(target / s[:, amb].max(-1).values)
        order_ok.append(target > other)
    ratio = torch.minimum(ratios[0], ratios[1])
    both = order_ok[0] & order_ok[1]
    th1, tt1 = xor.one_step(V, th0, tt0, (a, b), xor.default_lr(d, m))
    met = step_metrics(V, th1, tt1, (a, b), exact_sup=False)
    succ = met["success"]
    # the realised assignment from the plain definition: head 1 attends more to a than to b
    gamma1 = torch.softmax(torch.einsum("sdm,sm->sd", V, th1), -1)
    realised = torch.where(gamma1[:, a] > gamma1[:, b], 1.0, -1.0).to(pred.dtype)
    wrong_assignment = succ & (realised != pred)
    counts = {
        "dominant": int((ratio > 1).sum()), "order": int(both.sum()),
        f"ratio_gt_{SX8.ratio_cut:g}": int((ratio > SX8.ratio_cut).sum()),
        "successes": int(succ.sum()), "success_with_wrong_assignment": int(wrong_assignment.sum()),
        "success_without_order": int((succ & ~both).sum()),
        "predicted_assignment_differs_from_definition": int((asked != pred).sum()),
        "success_metrics_assignment_differs_from_definition": int((succ & (met["assignment"].to(pred.dtype)
                                                                            != realised)).sum()),
    }
    evidence.update({"d": d, "m": m, "seeds": n_seeds, "seed_offset": start, "counts": counts,
                     "median_alignment_ratio": float(ratio.median())})
    return counts


def _decide(counts, n, evidence):
    bad = counts["predicted_assignment_differs_from_definition"] + counts["success_metrics_assignment_differs_from_definition"]
    evidence.decide(exact("instances where numeric's predicted or realised assignment differs from its plain "
                          "definition (sign((v_a - v_b) . theta0); head 1's larger weight of a, b after the step)",
                          bad, "pass iff 0", bad == 0))
    for key, estimand, threshold in (
            ("dominant", "P(targets dominate every ambient position)", SX8.dominance_floor),
            ("order", "P(each head prefers its predicted target)", SX8.order_floor),
            (f"ratio_gt_{SX8.ratio_cut:g}", f"P(alignment ratio > {SX8.ratio_cut:g})", SX8.ratio_floor)):
        lo, hi = clopper_pearson(counts[key], n, SX8.level, side="lower")
        evidence.decide(lower_bound_above(estimand, counts[key] / n, (lo, hi), SX8.level, threshold))
    evidence.decide(exact("successful steps with the wrong assignment or order",
                          counts["success_with_wrong_assignment"] + counts["success_without_order"],
                          "pass iff 0", counts["success_with_wrong_assignment"] + counts["success_without_order"] == 0))


def decide_instance_sampler(evidence):
    """The instances: unit embeddings and query, the antisymmetric init, a fresh draw per seed
    that does not depend on the batch, and the second moment of a uniform direction."""
    check = instance_sampler_check(SX8.d, SX8.m, [seed_offset() + k for k in range(SX4.sampler_seeds)],
                                   SX4.sampler_false_fail)
    evidence["known_answer_instance_sampler"] = check
    evidence.decide(instance_sampler_decision(f"instances of {SX4.sampler_seeds} seeds at d = {SX8.d}, m = {SX8.m}",
                                              check))


def test_interpretability_fast(evidence):
    decide_instance_sampler(evidence)
    counts = _measure(SX8.d, SX8.m, SX8.seeds, evidence)
    _decide(counts, SX8.seeds, evidence)


@pytest.mark.slow
def test_interpretability_full(evidence):
    counts = _measure(SX8.full_d, SX8.m, SX8.full_seeds, evidence)
    _decide(counts, SX8.full_seeds, evidence)
