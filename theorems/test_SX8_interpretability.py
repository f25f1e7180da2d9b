"""SX-8: after the step the heads specialise one-to-one on a, b: the gradient's alignment with
v_a, v_b dominates every ambient position, and the assignment (head 1 <-> a or b) is decided by
sign((v_a - v_b) . theta0) (as formalised in boolverify), checked per seed."""

import pytest
import torch

from numeric import xor
from verify.experiments.xor_sweeps import cell_support, make_instances
from numeric.xor_metrics import step_metrics

pytestmark = pytest.mark.claim("SX-8")


def _check(d, m, n_seeds, evidence):
    a, b = cell_support(d, 1, m)
    V, th0, tt0 = make_instances(d, m, list(range(n_seeds)))
    g, gt = xor.population_grad(V, th0, tt0, (a, b))
    pred = xor.predicted_assignment(V, th0, (a, b))  # +1: head 1 <-> a
    amb = torch.ones(d, dtype=torch.bool)
    amb[[a, b]] = False
    ratios, order_ok = [], []
    for head, grad, sgn in ((1, g, 1.0), (2, gt, -1.0)):
        s = -(V @ grad.unsqueeze(-1)).squeeze(-1)  # alignment of -grad with each v_i (|v_i| = 1)
        target = torch.where(pred * sgn > 0, s[:, a], s[:, b])
        other = torch.where(pred * sgn > 0, s[:, b], s[:, a])
        ratios.append(target / s[:, amb].max(-1).values)
        order_ok.append(target > other)
    ratio = torch.minimum(ratios[0], ratios[1])
    th1, tt1 = xor.one_step(V, th0, tt0, (a, b), xor.default_lr(d, m))
    met = step_metrics(V, th1, tt1, (a, b), exact_sup=False)
    succ = met["success"]
    agree = succ & (met["assignment"].to(pred.dtype) == pred)
    evidence.update({
        "d": d, "m": m, "seeds": n_seeds,
        "frac_alignment_ratio_gt_1": float((ratio > 1).double().mean()),
        "median_alignment_ratio": float(ratio.median()),
        "frac_sign_orders_targets": float((order_ok[0] & order_ok[1]).double().mean()),
        "successes": int(succ.sum()), "assignment_agrees_with_sign": int(agree.sum()),
    })
    return ratio, order_ok, succ, agree


def test_interpretability_fast(evidence):
    ratio, order_ok, succ, agree = _check(1000, 32, 200, evidence)
    # the target positions beat every ambient position in the gradient direction
    assert float((ratio > 1).double().mean()) >= 0.95
    assert float(ratio.median()) > 1.2
    # per seed: each head's gradient prefers the target the sign predicts (one-to-one); the
    # exceptions are near-ties |(v_a - v_b).theta0| ~ 0, and none of them is a successful step
    both = order_ok[0] & order_ok[1]
    assert float(both.double().mean()) >= 0.95
    assert not bool((succ & ~both).any())
    # every successful step realises exactly the predicted assignment
    assert int(succ.sum()) >= 180
    assert torch.equal(agree, succ)


@pytest.mark.slow
def test_interpretability_full(evidence):
    ratio, order_ok, succ, agree = _check(10000, 32, 1000, evidence)
    assert float((ratio > 1).double().mean()) >= 0.95
    both = order_ok[0] & order_ok[1]
    assert float(both.double().mean()) >= 0.95
    assert not bool((succ & ~both).any())
    assert torch.equal(agree, succ)
