r"""SG-6 (as formalised in boolverify): at :math:`\varepsilon = 0`, randomly initialised
transformers compute Boolean functions with zero-sensitivity strings; Theorem 4.5 states
:math:`K_0 \ge N^{a}` for all large :math:`N`, :math:`a(D,L) = \frac{D-1}{2L} - 5`.

Finite-:math:`N` evidence (exact profiles over all :math:`2^N` strings, one batched forward
pass per string), at D = 8, L = 2, H = 2, F = 4D, eps = 0, N = 10 (uniform box B = 1,
Gaussian sigma = 1; :data:`verify.experiments.plans.SG6_FAST`). Most random models compute a
*constant* function (measured: 94 % uniform, 88 % Gaussian, 64–66 % Xavier), which has
:math:`K_0 = 2^N` trivially; the claim is about the **non-constant** ones. Per init scheme,
models are drawn (seeds from the seed base) until 30 compute a non-constant function, at most
1,500 draws.

*Estimands and rules* (fixed in advance; one-sided 99 % bounds; Clopper-Pearson for
proportions, exact also under this draw-until-30 rule; Student t for means):

1. pass iff 30 non-constant models turn up within 1,500 draws (exact count);
2. :math:`P(\text{constant})`: pass iff the upper bound is :math:`< 0.99`;
3. :math:`P(K_0 \ge 1 \mid \text{non-constant})`: pass iff the lower bound is above
   :math:`1 - 1/e \approx 0.632`, the value of uniformly random functions;
4. :math:`E[K_0/2^N \mid \text{non-constant}]`: pass iff the lower bound is above
   :math:`2^{-N}`, the random-function value;
5. :math:`E[\text{average sensitivity} \mid \text{non-constant}]`: pass iff the upper bound is
   below :math:`N/2`, the random-function value.

Under the alternative "like a uniformly random function" rules 3–5 pass with probability
:math:`\le 1\%` each; a transformer that ignores its input computes only constants and fails
rules 1 and 2 (checked by planting the bug). *Error rates of correct code*, from 600 draws per
scheme (N = 10): non-constant share 0.055 / 0.117 / 0.358 / 0.337 (uniform / Gaussian /
Xavier-uniform / Xavier-normal), so rule 1 needs on average 545 / 256 / 84 / 89 draws and
fails with probability :math:`< 10^{-11}`; among the 520 non-constant models one had
:math:`K_0 = 0`, and rule 3 fails only if 5 of 30 do (:math:`4\cdot 10^{-9}` at that rate,
:math:`7\cdot 10^{-6}` at its 95 % upper bound 0.009); :math:`K_0/2^N` averaged 0.48–0.70
(standard deviation :math:`\le 0.34`), so rule 4 fails only 5 standard errors below the
measured mean; average sensitivity averaged 0.86–1.15
(standard deviation :math:`\le 0.82`, largest single model 2.55) against :math:`N/2 = 5`.
Over 20 decisions the false-fail probability is far below 0.1 %. Measured over 25 seed
bases of this test (3,000 non-constant models, 100 passed runs): draws per run 308–621 /
168–339 / 59–120 / 60–121; 2 of the 3,000 had :math:`K_0 = 0` (Gaussian); the smallest lower
bound of rule 3 was 0.80, of rule 4 0.26; the largest upper bound of rule 2 was 0.97, of
rule 5 1.62 (against 5).

*eps*: the same non-constant models at eps = 1e-5 are recorded beside eps = 0 (fraction with
:math:`K_0 \ge 1`, how many profiles change). Over the 25 bases 6 of 3,000 profiles changed
(a string with :math:`T` within rounding of 0), none of them in :math:`K_0 \ge 1`: at random
parameters the layer-norm variances are of order one, so the difference between eps = 0
(Theorem 4.5) and eps > 0 (SG-4, SG-5) does not show at these N.

*The forward pass itself* is checked against a plain-Python loop written here from the
architecture in ``docs/results-paper-b.md`` (post-LN, biased variance, eps inside the square
root, affine Q/K/V/O, ReLU MLP, readout at ``eos``), for fixed small weights, at eps = 0,
1e-5 and 0.5, to 1e-10: a layer norm with the unbiased variance, a misplaced eps or an input
that is ignored fail there.

At D = 8, :math:`a(8, 2) < 0`, so the theorem's bound is only :math:`K_0 \ge 1`. The slow
variants apply the same rules at D = 16, N = 14 and at D = 32, N = 12, where
:math:`a(32, 2) = 2.75` (:data:`~verify.experiments.plans.SG6_SLOW`; minutes per scheme, not
re-run for every change).

Bound side (mpmath, 50 digits): :math:`a(D, L)` exactly, and the crossover
:math:`N^*` where :math:`N^a < 2^N` starts to hold for good, from the Lambert-W closed form
:math:`N = -(a/\ln 2)\,W_{-1}(-\ln 2/a)` and by direct evaluation; they must agree.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from numeric.transformer import SCHEMES, BooleanTransformer, TransformerConfig, model_profile, random_model
from verify.common.decisions import exact
from verify.reference import certified
from verify.reference.bounds import crossover, theorem_exponent
from verify.common.decisions import lower_bound_above, upper_bound_below
from verify.common.seeds import seed
from verify.experiments.plans import SG6_FAST, SG6_SLOW
from verify.experiments.inference import clopper_pearson, mean_interval
from verify.experiments.random_transformers import (
    profile_statistics, sample_nonconstant_profiles,
)




P_RANDOM = 1 - math.exp(-1)
LEVEL = 0.99
CONSTANT_MAX = 0.99


def _config(plan, eps):
    return TransformerConfig(N_max=plan["N"], D=plan["D"], L=plan["L"], H=plan["H"], eps=eps)


def _check_init(scheme, plan, evidence):
    N, target, cap = plan["N"], plan["target"], plan["max_draws"]
    s0 = seed(plan["seed"])
    got = sample_nonconstant_profiles(_config(plan, plan["eps"]), scheme, N, target, cap, seed=s0,
                                      chunk=plan["chunk"])
    K, draws, n = got["profiles"], got["draws"], len(got["seeds"])
    # the eps mechanism: the same non-constant models at eps > 0
    at_eps = _config(plan, plan["eps_check"])
    K_eps = [model_profile(random_model(at_eps, scheme, s), N, chunk=plan["chunk"]) for s in got["seeds"]]
    changed = sum(int((a != b).any()) for a, b in zip(K, K_eps))
    stats = profile_statistics(K, N)
    evidence[scheme] = {
        "N": N, "draws": draws, "constant": got["constant"], "nonconstant": n, "first_seed": s0,
        "nonconstant_K0_ge_1": int(stats["has_K0"].sum()),
        "nonconstant_K0_frac": [float(v) for v in stats["K0_frac"]],
        "nonconstant_avg_sensitivity": [float(v) for v in stats["avg_sensitivity"]],
        "random_function": {"P_K0_ge_1": P_RANDOM, "K0_frac": 2.0**-N, "avg_sensitivity": N / 2},
        f"eps_{plan['eps_check']:g}": {"nonconstant_K0_ge_1": sum(int(k[0] >= 1) for k in K_eps),
                                       "profiles_changed": changed},
    }
    lvl = 2 * LEVEL - 1  # two-sided 98 % intervals: their ends are the one-sided 99 % bounds
    evidence.decide(exact(f"{scheme}: non-constant models within {cap} draws", n,
                          f"pass iff >= {target}", n >= target))
    evidence.decide(upper_bound_below(f"{scheme}: P(constant function)", got["constant"] / draws,
                                      clopper_pearson(got["constant"], draws, lvl), lvl, CONSTANT_MAX))
    if n < 2:  # nothing to estimate from (rule 1 has already failed): say so
        evidence.decide(exact(f"{scheme}: non-constant models to decide on", n, "pass iff >= 2", False))
    has = int(stats["has_K0"].sum())
    evidence.decide(lower_bound_above(f"{scheme}: P(K_0 >= 1 | non-constant)", has / n,
                                      clopper_pearson(has, n, lvl), lvl, P_RANDOM))
    mean, ci, _ = mean_interval(stats["K0_frac"], lvl)
    evidence.decide(lower_bound_above(f"{scheme}: E[K_0/2^N | non-constant]", mean, ci, lvl, 2.0**-N))
    mean, ci, _ = mean_interval(stats["avg_sensitivity"], lvl)
    evidence.decide(upper_bound_below(f"{scheme}: E[average sensitivity | non-constant]", mean, ci, lvl, N / 2))


@pytest.mark.claim("SG-6")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_random_transformers_have_zero_sensitivity_strings(scheme, evidence):
    evidence["plan"] = dict(SG6_FAST)
    _check_init(scheme, SG6_FAST, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-6")
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("plan", SG6_SLOW, ids=[f"D{p['D']}-N{p['N']}" for p in SG6_SLOW])
def test_random_transformers_full(scheme, plan, evidence):
    evidence["plan"] = dict(plan)
    _check_init(scheme, plan, evidence)


# -- the forward pass against an independent loop --------------------------------------------
def _reference_T(P, bits, D, H, L, eps):
    """T(x) from the parameter lists ``P``: plain Python loops over positions, heads and
    components (float64 arithmetic), written from the architecture description."""
    seq = list(bits) + [2]  # the bits, then eos (token 2), eos at position N
    h = [[P["tok"][t][i] + P["pos"][p][i] for i in range(D)] for p, t in enumerate(seq)]

    def affine(name, v):
        W, b = P[name + ".weight"], P[name + ".bias"]
        return [sum(W[r][c] * v[c] for c in range(len(v))) + b[r] for r in range(len(b))]

    def layer_norm(name, v):
        m = sum(v) / D
        var = sum((vi - m) ** 2 for vi in v) / D  # biased: divide by D
        s = math.sqrt(var + eps)
        return [P[name + ".gain"][i] * (v[i] - m) / s + P[name + ".bias"][i] for i in range(D)]

    dh = D // H
    for layer in range(L):
        pre = f"layers.{layer}."
        q = [affine(pre + "q", v) for v in h]
        k = [affine(pre + "k", v) for v in h]
        val = [affine(pre + "v", v) for v in h]
        out = []
        for a in range(len(seq)):
            heads = []
            for head in range(H):
                cols = range(head * dh, (head + 1) * dh)
                logits = [sum(q[a][i] * k[b][i] for i in cols) / math.sqrt(dh) for b in range(len(seq))]
                top = max(logits)
                w = [math.exp(z - top) for z in logits]
                total = sum(w)
                heads += [sum(w[b] / total * val[b][i] for b in range(len(seq))) for i in cols]
            mixed = affine(pre + "o", heads)
            h1 = layer_norm(pre + "ln1", [h[a][i] + mixed[i] for i in range(D)])
            hidden = [max(0.0, z) for z in affine(pre + "fc1", h1)]
            mlp = affine(pre + "fc2", hidden)
            out.append(layer_norm(pre + "ln2", [h1[i] + mlp[i] for i in range(D)]))
        h = out
    return sum(P["out.weight"][0][i] * h[-1][i] for i in range(D)) + P["out.bias"][0]


@pytest.mark.claim("SG-6")
def test_forward_pass_matches_independent_loop(evidence):
    """Deterministic (fixed weights, not from the seed base): an identity check, not a statistic."""
    import random

    import torch

    D, H, L, F, N = 4, 2, 2, 6, 5
    worst = {}
    for eps in (0.0, 1e-5, 0.5):
        cfg = TransformerConfig(D=D, H=H, L=L, F=F, N_max=N, eps=eps)
        model = BooleanTransformer(cfg)
        rng = random.Random(20240611)
        P = {name: [[rng.gauss(0, 0.8) for _ in range(t.shape[1])] for _ in range(t.shape[0])] if t.dim() == 2
             else [rng.gauss(0, 0.8) + (1.0 if name.endswith("gain") else 0.0) for _ in range(t.shape[0])]
             for name, t in model.state_dict().items()}
        model.load_state_dict({k: torch.tensor(v, dtype=torch.float64) for k, v in P.items()})
        strings = [[(x >> n) & 1 for n in range(N)] for x in range(1 << N)]
        with torch.no_grad():
            T_model = model(torch.tensor(strings))
            T_full, _ = model(torch.tensor(strings), return_blowup=True)
        T_ref = torch.tensor([_reference_T(P, b, D, H, L, eps) for b in strings], dtype=torch.float64)
        worst[str(eps)] = max(float((T_model - T_ref).abs().max()), float((T_full - T_ref).abs().max()))
        evidence.decide(exact(f"max |T_model - T_loop| over all 2^{N} strings, eps = {eps:g}", worst[str(eps)],
                              "pass iff <= 1e-10", worst[str(eps)] <= 1e-10))
    evidence["spread_of_T"] = float(T_ref.max() - T_ref.min())
    evidence["max_abs_difference"] = worst


@pytest.mark.claim("SG-6")
def test_theorem_exponent_and_lambert_w_crossover(evidence):
    rows = []
    for L in (1, 2, 4):
        for D in (8, 16, 22, 32, 64, 128, 256, 1024):
            a = theorem_exponent(D, L)
            assert a == Fraction(D - 1, 2 * L) - 5
            c = crossover(a)
            assert c["agree"], (D, L, c)
            N = c["N_star"]
            with mpmath.workdps(50):
                af = mpmath.mpf(a.numerator) / a.denominator
                assert N**af < mpmath.mpf(2) ** N  # holds at N* ...
                if c["regime"] == "two-crossings":
                    # ... and fails just below it; N* - 1 < root < N*
                    assert (N - 1) ** af >= mpmath.mpf(2) ** (N - 1)
                    assert N - 1 < c["N_upper"] < N
                    # the root solves a ln N = N ln 2 to 40 digits
                    r = c["N_upper"]
                    assert abs(af * mpmath.log(r) - r * mpmath.log(2)) < mpmath.mpf(10) ** -40 * r
                else:
                    assert N == 1
            # the same integer from balls (Arb): N* - 1 fails and N* holds, certainly
            cc = certified.crossover(a)
            assert cc.value == N, (D, L, cc)
            rows.append({"D": D, "L": L, "a": str(a), "regime": c["regime"], "N_star": N,
                         "N_upper": None if c["N_upper"] is None else float(c["N_upper"]),
                         "N_star_certified": cc.value, "precision": cc.precision})
    evidence["table"] = rows
    key = {(r["D"], r["L"]): r for r in rows}
    # the headline configuration, checked by hand: a(64, 2) = 43/4; 64^a = 2^(6 a) = 2^64.5
    # > 2^64 but 65^a = 2^(10.75 log2 65) = 2^64.74 < 2^65, so N* = 65. a(32, 2) = 11/4:
    # 8^a = 2^8.25 > 2^8, 9^a = 2^8.72 < 2^9, so N* = 9.
    assert key[(64, 2)]["a"] == "43/4" and key[(64, 2)]["N_star"] == 65
    assert key[(32, 2)]["a"] == "11/4" and key[(32, 2)]["N_star"] == 9
    evidence["a_64_2"] = "43/4"
    evidence["N_star_64_2"] = 65
    evidence["N_star_32_2"] = key[(32, 2)]["N_star"]
    # "certified" with python-flint (Arb balls), "50-digit" (mpmath) without it
    headline = certified.crossover(theorem_exponent(64, 2))
    evidence["precision"] = headline.precision
    evidence["certificate_64_2"] = headline.evidence
    evidence.decide(exact(f"crossover N* of (64, 2) [{headline.precision}]", headline.value,
                          "pass iff N* = 65: 64^(43/4) >= 2^64 and N^(43/4) < 2^N for every N >= 65",
                          headline.value == 65))
