"""SG-2: a uniformly random Boolean function has E[K_0] = 1 and P(K_0 >= 1) near 1 - 1/e
(as formalised in boolverify, docs/claims.md#sg-2).

Exact: E[K_0] = 1 and Var[K_0] = 1 + (N+2)(N-1)/2^(N+1) derived with sympy for symbolic N and
checked against the enumeration of all 2^(2^N) functions for N <= 4 (which also gives
P(K_0 >= 1) exactly). Monte Carlo with Wilson intervals up to N = 16, beside 1 - 1/e at 50
digits (mpmath).
"""

from fractions import Fraction

import pytest
import sympy as sp
import torch

from numeric.sensitivity import profile
from verify.experiments.random_function_sampling import monte_carlo_K0
from verify.reference.random_functions import (
    enumerate_random_functions, expected_K0, poisson_limit, variance_K0, variance_K0_claim,
)




Z999 = 3.2905267314918945  # two-sided 99.9% normal quantile


@pytest.mark.claim("SG-2")
def test_expected_K0_is_one_exactly(evidence):
    E = expected_K0()
    V = variance_K0()
    assert E == 1
    assert sp.simplify(V - variance_K0_claim()) == 0
    exact = {}
    for N in range(1, 5):
        r = enumerate_random_functions(N)
        assert r["E_K0"] == 1
        assert r["E_K0_sq"] - 1 == Fraction(str(variance_K0(N)))
        exact[N] = r
    evidence["E_K0_symbolic"] = str(E)
    evidence["Var_K0_symbolic"] = str(sp.factor(V))
    evidence["Var_K0_exact_N_le_4"] = {str(N): str(r["E_K0_sq"] - 1) for N, r in exact.items()}


@pytest.mark.claim("SG-2")
def test_P_K0_exact_for_N_le_4(evidence):
    got = {N: enumerate_random_functions(N) for N in range(1, 5)}
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


def _monte_carlo(Ns, samples, evidence):
    limit = poisson_limit(50)
    L = float(limit)
    rows = {}
    for N in Ns:
        r = monte_carlo_K0(N, samples, seed=1000 + N, z=Z999)
        lo, hi = r["wilson"]
        if N <= 4:  # the Monte Carlo machinery against the exact enumeration
            p = float(enumerate_random_functions(N)["p_K0_ge_1"])
            assert lo <= p <= hi, (N, p, r)
        # the sample mean of K_0 against E = 1 (Chebyshev-free: 4.5 standard errors)
        se = (float(variance_K0_claim(N)) / r["samples"]) ** 0.5
        assert abs(r["mean_K0"] - 1) < 4.5 * se, (N, r["mean_K0"], se)
        rows[str(N)] = {"p_hat": r["p_hat"], "wilson_99.9": [lo, hi], "samples": r["samples"],
                        "mean_K0": r["mean_K0"]}
    big = rows[str(max(Ns))]
    assert big["wilson_99.9"][0] <= L <= big["wilson_99.9"][1], (big, limit)
    evidence["limit_1_minus_1_over_e"] = limit
    evidence["monte_carlo"] = rows
    return rows


@pytest.mark.claim("SG-2")
def test_monte_carlo_approaches_one_minus_inv_e(evidence):
    assert poisson_limit(50) == "0.63212055882855767840447622983853913255418886896823"
    _monte_carlo([2, 4, 8, 12, 16], 8192, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-2")
def test_monte_carlo_all_N_to_16(evidence):
    _monte_carlo(list(range(1, 17)), 1 << 16, evidence)
