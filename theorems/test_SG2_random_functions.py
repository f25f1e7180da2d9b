r"""SG-2: a uniformly random Boolean function has E[K_0] = 1 and P(K_0 >= 1) near 1 - 1/e
(as formalised in boolverify, docs/claims.md#sg-2).

Exact: E[K_0] = 1 and Var[K_0] = 1 + (N+2)(N-1)/2^(N+1) derived with sympy for symbolic N and
checked against the enumeration of all 2^(2^N) functions for N <= 4 (which also gives
P(K_0 >= 1) exactly). The limit: the Chen-Stein bound
:math:`|P_N(K_0 \ge 1) - (1 - 1/e)| \le \delta_N = (1 + 3N + 3\binom N2)\,2^{-N}`
(:func:`~verify.experiments.random_function_sampling.chen_stein_bound`, exact rationals) tends
to 0, so :math:`P_N(K_0 \ge 1) \to 1 - 1/e`; :math:`\delta_{16} = 409/65536 \approx 0.0062`.

Monte Carlo (the statistical contract; the numbers are those of
:data:`verify.experiments.claim_rules.SG2`, rendered in ``docs/claims.md#sg-2``). Estimands,
per N in ``SG2.Ns``: :math:`p_N = P(K_0 \ge 1)` and :math:`E[K_0]`. Estimators: the fraction of
``SG2.samples`` sampled functions with :math:`K_0 \ge 1`, with its exact two-sided
Clopper-Pearson interval, and the sample mean of :math:`K_0` with the normal interval of the
*exact* variance (a mean of that many near-Poisson counts: the normal quantile is accurate).
Rules (fixed in advance): the interval of :math:`p_N` contains the enumerated exact value
(N <= ``exact_N_max``); the interval of :math:`E[K_0]` contains 1 (every N); the interval of
:math:`p_N` meets the band :math:`[1 - 1/e - \delta_N, 1 - 1/e + \delta_N]`, which contains
the exact :math:`p_N` (N >= ``band_N_min``; fail iff disjoint).

Error rates: every interval is at two-sided level :math:`1 - \text{false\_fail}/k`, :math:`k`
the number of decisions of the test (9 in the quick plan), so by Bonferroni correct code fails
with probability at most ``false_fail`` (0.1 %) whatever the seed base. Power: at N = 16 the
interval's half-width is about 4 binomial standard errors (:math:`\sqrt{p(1-p)/8192} \approx
0.0053`), so a sampler whose :math:`p_{16}` is off by 0.04 or more from :math:`1 - 1/e` (e.g.
a wrong neighbourhood, a biased bit source) fails with probability :math:`\ge 99\%`; a mean of
:math:`K_0` off by 0.07 likewise. Measured values: ``docs/results-boolean.md`` and the report.
"""

from fractions import Fraction
from statistics import NormalDist

import pytest
import sympy as sp
import torch

from numeric.boolean import profile
from verify.common.seeds import seed
from verify.experiments.plans import SG2_FAST, SG2_SLOW
from verify.experiments.claim_rules import SG2
from verify.experiments.random_function_sampling import chen_stein_bound, monte_carlo_K0
from verify.reference.random_functions import (
    enumerate_random_functions, expected_K0, poisson_limit, variance_K0, variance_K0_claim,
)
from verify.stats.decisions import contains, exact, meets


@pytest.mark.claim("SG-2")
def test_expected_K0_is_one_exactly(evidence):
    E = expected_K0()
    V = variance_K0()
    assert E == 1
    assert sp.simplify(V - variance_K0_claim()) == 0
    exact_rows = {}
    for N in range(1, SG2.exact_N_max + 1):
        r = enumerate_random_functions(N)
        assert r["E_K0"] == 1
        assert r["E_K0_sq"] - 1 == Fraction(str(variance_K0(N)))
        exact_rows[N] = r
    evidence["E_K0_symbolic"] = str(E)
    evidence["Var_K0_symbolic"] = str(sp.factor(V))
    evidence["Var_K0_exact_N_le_4"] = {str(N): str(r["E_K0_sq"] - 1) for N, r in exact_rows.items()}


@pytest.mark.claim("SG-2")
def test_P_K0_exact_for_N_le_4(evidence):
    got = {N: enumerate_random_functions(N) for N in range(1, SG2.exact_N_max + 1)}
    # N = 1: the two constant functions have K_0 = 2, the two others K_0 = 0
    assert got[1]["p_K0_ge_1"] == Fraction(1, 2)
    # independent count through the torch engine for N <= 3 (all 2^(2^N) tables)
    for N in (1, 2, 3):
        size = 1 << N
        F = torch.arange(1 << size)
        tables = ((F[:, None] >> torch.arange(size)) & 1).to(torch.uint8)
        K0 = torch.stack([profile(t)[0] for t in tables])
        assert int((K0 >= 1).sum()) == got[N]["hits"]
        assert Fraction(int(K0.sum()), 1 << size) == got[N]["E_K0"] == 1
    evidence["P_K0_ge_1_exact"] = {str(N): str(r["p_K0_ge_1"]) for N, r in got.items()}
    evidence["P_K0_ge_1_float"] = {str(N): float(r["p_K0_ge_1"]) for N, r in got.items()}
    evidence["functions_enumerated"] = sum(r["functions"] for r in got.values())


@pytest.mark.claim("SG-2")
def test_chen_stein_bound_tends_to_zero(evidence):
    """The limit itself, without sampling: delta_N bounds |P_N - (1 - 1/e)| and -> 0."""
    limit = float(poisson_limit(50))
    deltas = {N: chen_stein_bound(N) for N in range(1, 41)}
    for N in range(1, SG2.exact_N_max + 1):  # the bound holds where P_N is known exactly (loose there)
        assert abs(float(enumerate_random_functions(N)["p_K0_ge_1"]) - limit) <= deltas[N]
    # delta_N = (1 + 3N + 3 C(N,2)) / 2^N, independently of the function's bookkeeping
    assert all(deltas[N] == Fraction(1 + 3 * N + 3 * N * (N - 1) // 2, 2**N) for N in deltas)
    # decreasing from N = 5 on, and below 1e-8 at N = 40
    assert all(deltas[N + 1] < deltas[N] for N in range(5, 40))
    for N, bound in SG2.chen_stein_checks:
        evidence.decide(exact(f"Chen-Stein bound on |P_{N}(K_0>=1) - (1-1/e)|", float(deltas[N]),
                              f"pass iff <= {float(bound):g}".replace("e-0", "e-"), deltas[N] <= bound))
    evidence["delta_N"] = {str(N): str(deltas[N]) for N in (4, 8, 12, 16, 20, 30, 40)}


def _monte_carlo(plan, evidence):
    Ns, samples = list(plan["Ns"]), plan["samples"]
    limit = float(poisson_limit(50))
    band_Ns = [N for N in Ns if N >= SG2.band_N_min]
    exact_Ns = [N for N in Ns if N <= SG2.exact_N_max]
    alpha = SG2.false_fail / (len(Ns) + len(band_Ns) + len(exact_Ns))
    level = 1 - alpha
    z = NormalDist().inv_cdf(1 - alpha / 2)
    rows = {}
    for N in Ns:
        r = monte_carlo_K0(N, samples, seed=seed(plan["seed"] + N), z=z, level=level)
        cp = list(r.clopper_pearson)
        if N in exact_Ns:  # the Monte Carlo machinery against the exact enumeration
            p = float(enumerate_random_functions(N)["p_K0_ge_1"])
            evidence.decide(contains(f"P(K_0>=1) at N={N}", r.p_hat, cp, level, p, "the exact value"))
        se = (float(variance_K0_claim(N)) / r.samples) ** 0.5
        evidence.decide(contains(f"E[K_0] at N={N}", r.mean_K0, (r.mean_K0 - z * se, r.mean_K0 + z * se),
                                  level, 1.0, "E[K_0]"))
        if N in band_Ns:
            d = float(chen_stein_bound(N))
            evidence.decide(meets(f"P(K_0>=1) at N={N}", r.p_hat, cp, level, limit - d, limit + d,
                                   "the Chen-Stein band around 1-1/e"))
        rows[str(N)] = {"p_hat": r.p_hat, "clopper_pearson": cp, "samples": r.samples,
                        "mean_K0": r.mean_K0, "seed": r.seed}
    evidence["limit_1_minus_1_over_e"] = poisson_limit(50)
    evidence["level_two_sided"] = level
    evidence["monte_carlo"] = rows
    return rows


@pytest.mark.claim("SG-2")
def test_monte_carlo_approaches_one_minus_inv_e(evidence):
    assert poisson_limit(50) == "0.63212055882855767840447622983853913255418886896823"
    _monte_carlo(SG2_FAST, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-2")
def test_monte_carlo_all_N_to_16(evidence):
    # 16 + 4 + 5 decisions at level 1 - 4e-5 each; half-width at N = 16 about 0.0055
    _monte_carlo(SG2_SLOW, evidence)
