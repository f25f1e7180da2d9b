r"""SG-4 (as formalised in boolverify): for :math:`\varepsilon > 0` and parameters in a box,
flipping one input bit moves :math:`T` at ``eos`` by :math:`O(1/N)`.

**Estimand.** For a uniform-box model (D = 16, L = 2, H = 2, eps = 1e-5, B = 1; one
parameter vector per model, used at every N) let :math:`m_N` be the expected largest
influence :math:`|T(x) - T(x \oplus e_n)|` over 32 uniformly random pairs :math:`(x, n)`
(4 strings, 8 distinct positions each; the same number of pairs at every N, so :math:`m_N`
is the same upper quantile of the influence at every N). The estimand is the mean over models
of the least-squares slope :math:`\sigma` of :math:`\log m_N` against :math:`\log N`,
N = 8 … 256. Bounded logits give every key an attention weight :math:`\Theta(1/N)`, so the
claim predicts :math:`\sigma \to -1`.

**Estimator.** 30 models; per model the slope of the log of the sampled maxima; their mean
with the Student-t interval (per-model slopes are near-normal: skewness 0.18 over 120 models).

**Decision rules** (fixed before the data):

0. exact: every sampled maximum is positive (else no log-log slope exists: a model whose
   flips never move :math:`T` fails here: planted, a model that ignores its input and one with
   hard-max attention both did);
1. pass iff the one-sided 99 % upper bound of :math:`\sigma` is :math:`< -0.5`, else fail.
   This rejects :math:`O(1)` (slope 0) and :math:`O(N^{-1/2})` influence: under either
   alternative the test passes with probability :math:`\le 1\%`.
2. three-way, the two-sided 99 % interval against :math:`[-1.3, -0.7]` (consistent with
   :math:`1/N`): pass iff inside, fail iff disjoint, inconclusive when it straddles an end.

**Sample size and error rates.** Measured over 30 seed bases of this test (900 models):
per-model slopes mean -0.784, standard deviation 0.220; the 30 test means lay in
[-0.878, -0.707] (standard deviation 0.036, as 0.220/sqrt(30) predicts). Rule 1 fails only if
the mean comes out above -0.60, 4.6 standard errors from -0.784 (probability
:math:`\approx 2\cdot 10^{-6}`); the largest upper bound seen was -0.61. Rule 2 fails only if
the mean is above -0.59 (about :math:`10^{-6}`); seen: 7 pass, 23 inconclusive, 0 fail (this
quantile's slope sits near -0.78, so its interval often straddles -0.7). Rule 0 fails only if
a sampled flip leaves :math:`T` bitwise unchanged at every one of 32 pairs.

**What the data show** (120 models, one seed block). The measured slope depends on how high a
quantile is tracked: the mean influence decays like :math:`N^{-0.96}`, the maximum over 8 pairs
like :math:`N^{-0.86}`, over 32 like :math:`N^{-0.79}`, over 256 (about all positions at
N = 256) like :math:`N^{-0.61}`. The largest attention weights among :math:`N` random logits shrink
more slowly than :math:`1/N` until :math:`N` is large against :math:`e^{2\max|\text{logit}|}`,
so the true maximum over all :math:`(x, n)` is not yet in its :math:`1/N` regime at
:math:`N \le 256`; the finite-N check decides on a fixed quantile, not on the supremum.

**eps (decided, exact).** The first 4 models again at eps = 0 and at eps = 1, same pairs:
SG-4's numbers do not differ between eps = 0 and eps = 1e-5: pass iff every relative change is
< 1e-3 (measured :math:`4.5\cdot 10^{-6}`; the change scales like eps over the layer-norm
variance, of order one at random parameters, so the eps mechanism, bounded blowup, is not
exercised here). Control: the same comparison must see eps = 1, comparable to those variances:
pass iff some relative change > 1e-2 (measured 0.23). Planted: a transformer that runs at
eps = 1e-5 whatever its config fails the control.

**Exact supremum** (:data:`~verify.experiments.plans.SG4_EXACT`): for the first 10 models the
largest :math:`|T(x) - T(x \oplus e_n)|` over all :math:`2^N` strings and all positions,
N = 4, 6, 8, 10 (slow: 30 models to N = 14). Decided (exact): every sampled maximum of the
quantile test at N = 8 is at most the supremum (a mean in place of the max fails here) and every
supremum is positive. Measured, not decided: the per-model slope of its log against log N, mean
0.24, 98 % t interval [-0.34, 0.82] at base 0, i.e. no decay at all at these N (geometric means
0.29, 0.38, 0.33, 0.39); slow, 30 models to N = 14: +0.21, [+0.02, +0.40], a slight rise.
The claim is asymptotic; at enumerable N the supremum sits on strings
where attention is nearly hard, so no finite-N rule on it would test the claim, and none is set.

Fast: :data:`verify.experiments.plans.SG4_FAST`. Slow: N up to 1024
(:data:`~verify.experiments.plans.SG4_SLOW`), same rules (not re-run for every change: about
a minute).
"""

from __future__ import annotations

import pytest

from numeric.transformer import TransformerConfig
from verify.common.decisions import exact, inside, upper_bound_below
from verify.common.seeds import seed
from verify.common.tolerances import tolerance
from verify.experiments.plans import SG4_EXACT, SG4_EXACT_SLOW, SG4_FAST, SG4_SLOW
from verify.experiments.inference import mean_interval
from verify.experiments.random_transformers import (
    exact_influence_maxima, influence_maxima, per_model_slopes,
)

SLOPE_MAX = -0.5
CONSISTENT = (-1.3, -0.7)
LEVEL = 0.99
#: eps ablation: "no difference" iff every relative change of a sampled maximum is below this ...
EPS_SAME = 1e-3
#: ... and the ablation can see eps iff at eps = eps_control some relative change exceeds this
EPS_SEEN = 1e-2


def _maxima(plan, Ns, models, eps):
    # N_max (which fixes the draw of the positional embeddings) from the plan, whatever Ns
    cfg = TransformerConfig(N_max=max(plan["Ns"]), D=plan["D"], L=plan["L"], H=plan["H"], eps=eps)
    return influence_maxima(cfg, Ns, models, strings=plan["strings"], positions=plan["positions"],
                            seed=seed(plan["seed"]), B=plan["B"])


def _check(plan, evidence):
    Ns = plan["Ns"]
    vals = _maxima(plan, Ns, plan["models"], plan["eps"])
    # a model whose sampled flips never move T (one that ignores its input) has no log-log slope
    positive = int((vals > 0).sum())
    evidence.decide(exact("(model, N) cells with a positive sampled max influence", f"{positive}/{vals.numel()}",
                          "pass iff all (the log-log fit needs them)", positive == vals.numel()))
    slopes = per_model_slopes(Ns, vals)
    # a two-sided 98 % interval: its upper end is the one-sided 99 % upper bound of rule 1
    mean, ci98, sd = mean_interval(slopes, 2 * LEVEL - 1, "two-sided")
    _, ci99, _ = mean_interval(slopes, LEVEL, "two-sided")
    gm = vals.log().mean(0).exp()
    # the eps mechanism: the first models again at eps = 0 and at eps_control (same parameters,
    # same pairs); the change from eps = 0 scales like eps / (layer-norm variance)
    k = plan["eps_models"]
    at_zero = _maxima(plan, Ns, k, 0.0)
    rel = float(((at_zero - vals[:k]).abs() / at_zero).max())
    at_control = _maxima(plan, Ns, k, plan["eps_control"])
    rel_control = float(((at_control - at_zero).abs() / at_zero).max())
    evidence.update({
        "plan": {key: (list(v) if isinstance(v, tuple) else v) for key, v in plan.items()},
        "seed": seed(plan["seed"]),
        "per_model_slopes": [float(s) for s in slopes], "slope_sd": sd,
        "geometric_mean_influence": [float(v) for v in gm],
        "N_times_geometric_mean": [float(v * n) for v, n in zip(gm, Ns)],
        "eps_0_vs_eps_max_relative_difference": rel,
        "eps_0_vs_eps_control_max_relative_difference": rel_control,
        "eps_0_per_model_slopes": [float(s) for s in per_model_slopes(Ns, at_zero)],
    })
    evidence.decide(exact(f"largest relative change of a sampled max influence, eps = 0 vs eps = "
                          f"{plan['eps']:g} ({k} models x {len(Ns)} N)", rel,
                          f"pass iff < {EPS_SAME:g}: SG-4's numbers do not differ between eps = 0 and "
                          "this eps", rel < EPS_SAME))
    evidence.decide(exact(f"largest relative change of a sampled max influence, eps = 0 vs eps = "
                          f"{plan['eps_control']:g} (control)", rel_control,
                          f"pass iff > {EPS_SEEN:g}: the ablation sees eps once it is comparable to the "
                          "layer-norm variances", rel_control > EPS_SEEN))
    est = f"mean per-model slope of log(max influence over {plan['strings']}x{plan['positions']} pairs) vs log N"
    evidence.decide(inside(est + " [consistent with 1/N]", mean, ci99, LEVEL, *CONSISTENT))
    evidence.decide(upper_bound_below(est, mean, ci98, 2 * LEVEL - 1, SLOPE_MAX))


@pytest.mark.claim("SG-4")
def test_single_bit_influence_decays_like_one_over_N(evidence):
    _check(SG4_FAST, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-4")
def test_single_bit_influence_full_range(evidence):
    _check(SG4_SLOW, evidence)


def _check_exact(plan, evidence):
    Ns = plan["Ns"]
    cfg = TransformerConfig(N_max=plan["N_max"], D=plan["D"], L=plan["L"], H=plan["H"], eps=plan["eps"])
    ex = exact_influence_maxima(cfg, Ns, plan["models"], seed=seed(plan["seed"]), B=plan["B"])
    sup = ex["sup"]
    # the sampled estimator of the quantile test, same models and pairs, cannot exceed the
    # supremum over all pairs: ties the two estimators (and their position indexing) together
    n8 = plan["check_N"]
    assert plan["N_max"] == max(SG4_FAST["Ns"])  # the same models as the quantile test
    sampled = _maxima(SG4_FAST, (n8,), plan["models"], plan["eps"])[:, 0]
    over = int((sampled > sup[:, Ns.index(n8)] * (1 + tolerance().rtol)).sum())
    evidence.decide(exact(f"models whose sampled max influence at N = {n8} exceeds the exact "
                          "supremum over all strings and positions", f"{over} of {plan['models']}",
                          "pass iff 0", over == 0))
    positive = int((sup > 0).sum())
    evidence.decide(exact("(model, N) cells with a positive exact supremum", f"{positive}/{sup.numel()}",
                          "pass iff all (an input-blind model has none)", positive == sup.numel()))
    slopes = per_model_slopes(Ns, sup)
    mean, ci98, sd = mean_interval(slopes, 2 * LEVEL - 1, "two-sided")
    # measured, not decided: the claim is asymptotic and at enumerable N the supremum is not in
    # its 1/N regime (see the module docstring), so no finite-N rule on it tests the claim
    evidence.update({
        "plan": {key: (list(v) if isinstance(v, tuple) else v) for key, v in plan.items()},
        "seed": seed(plan["seed"]),
        "exact_sup_influence": sup.tolist(),
        "exact_max_boolean_influence": ex["boolean"].tolist(),
        "exact_sup_per_model_slopes": [float(v) for v in slopes],
        "exact_sup_mean_slope": mean, "exact_sup_slope_interval_98": list(ci98), "exact_sup_slope_sd": sd,
        "exact_sup_geometric_mean": [float(v) for v in sup.log().mean(0).exp()],
    })


@pytest.mark.claim("SG-4")
def test_exact_supremum_of_the_influence_is_measured(evidence):
    _check_exact(SG4_EXACT, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-4")
def test_exact_supremum_of_the_influence_up_to_N14(evidence):
    _check_exact(SG4_EXACT_SLOW, evidence)
