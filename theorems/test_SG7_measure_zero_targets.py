"""SG-7: PARITY, sparse parity, DICTATOR and FIRST have K_0 = 0, hence (Theorem 4.5, as
formalised in boolverify) they lie in the measure-zero set of parameters.

K_0 = 0 is checked twice: by the sympy profile proofs for all N (the only non-zero entries
sit at k = N, k = |S| >= 1, k = 1) and by exact enumeration of all 2^N strings, N <= 20.
"""

import pytest
import sympy as sp

from numeric.boolean import truth_table
from numeric.boolean import min_sensitivity, profile
from verify.stats.decisions import exact
from verify.symbolic.profile_proofs import FORMS, formula_profile, prove_dictator, prove_parity, prove_sparse_parity
from verify.experiments.claim_rules import SG7




IMPLICATION = (
    "Theorem 4.5 as formalised in boolverify (SG-6): with eps = 0 and parameters drawn from "
    "the initialisation distribution, for almost every parameter vector theta the Boolean "
    "function f_theta of the transformer has K_0(f_theta) >= N^a with a = (D-1)/(2L) - 5, for "
    "all large N. Since N^a > 0 and K_0 is an integer, this gives K_0(f_theta) >= 1. "
    "Contrapositive: every theta whose function has K_0 = 0 belongs to the exceptional set "
    "{theta : K_0(f_theta) < N^a}, which has measure zero. PARITY (K_N = 2^N), k-sparse parity "
    "(K_k = 2^N, k >= 1), DICTATOR and FIRST (K_1 = 2^N) have K_0 = 0 for every N >= 1 (the "
    "sympy proofs of SG-1; enumeration below), so the parameters computing them lie in that "
    "measure-zero set, for every large N. MAJORITY is not excluded: K_0 = 2^N - C(N+1, "
    "floor(N/2)+1) > 0."
)


@pytest.mark.claim("SG-7")
def test_K0_is_zero_for_all_N_symbolically(evidence):
    checked = []
    for form in FORMS:
        for proof in (prove_parity(form), prove_sparse_parity(form), prove_dictator(form)):
            assert proof.holds, [c for c, ok in proof.checks if not ok]
            # all 2^N strings sit at one k, and that k is a positive integer
            (k,) = proof.profile
            assert sp.simplify(proof.profile[k] - 2 ** proof.N) == 0
            assert sp.ask(sp.Q.positive(k)) is True, k
            checked.append(f"{proof.name} ({form}): K_{{{k}}} = {proof.profile[k]}, so K_0 = 0")
    evidence["symbolic"] = checked
    evidence["implication"] = IMPLICATION
    evidence.decide(exact("K_0 of PARITY, sparse parity, DICTATOR for symbolic N", 0,
                          f"pass iff every profile sits at one k > 0 ({len(checked)} proofs)", True))


@pytest.mark.claim("SG-7")
def test_K0_is_zero_by_enumeration(evidence):
    rows = 0
    N_max = SG7.enumeration_N_max
    for N in range(1, N_max + 1):
        tables = {
            "parity": truth_table("parity", N),
            "first": truth_table("first", N),
            "dictator": truth_table("dictator", N, i=N // 2),
            "sparse_parity": truth_table("sparse_parity", N, S=list(range(1, N, 2)) or [0]),
        }
        for name, t in tables.items():
            K = profile(t)
            assert int(K[0]) == 0, (name, N)
            assert min_sensitivity(t) >= 1
            rows += 1
        # the contrast of the claim: MAJORITY has zero-sensitivity strings (N >= 2)
        if N >= 2:
            K0 = int(profile(truth_table("majority", N))[0])
            assert K0 == formula_profile("majority", N)[0] > 0
    evidence["functions_checked"] = rows
    evidence["N_range"] = [1, N_max]
    evidence[f"majority_K0_N{N_max}"] = formula_profile("majority", N_max)[0]
    evidence["implication"] = IMPLICATION
