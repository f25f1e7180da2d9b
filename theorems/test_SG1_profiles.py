"""SG-1: exact sensitivity profiles of PARITY, sparse parity, FIRST, DICTATOR and strict
MAJORITY (as formalised in boolverify, docs/claims.md#sg-1).

Two independent checks: a sympy proof for all N (symbolic N, N = 2m and N = 2m + 1) built
from a sum over Hamming weights (verify.symbolic.profile_proofs), and exact enumeration of all
2^N strings with the torch engine (numeric.boolean.profile), N <= 20.
"""

import math

import pytest

from numeric.boolean import truth_table
from numeric.boolean import profile
from verify.stats.decisions import exact
from verify.symbolic.profile_proofs import FORMS, formula_profile, prove_all
from verify.experiments.claim_rules import SG1




def _as_dict(K):
    return {k: int(v) for k, v in enumerate(K.tolist()) if v}


def _cases(N):
    """(table name, params, formula name, formula kwargs) for one N."""
    S = list(range(0, N, 3))  # k-sparse parity on every third position
    out = [
        ("parity", {}, "parity", {}),
        ("first", {}, "first", {}),
        ("dictator", {"i": N - 1}, "dictator", {}),
        ("sparse_parity", {"S": S}, "sparse_parity", {"k": len(S)}),
    ]
    if N >= 2:
        out.append(("majority", {}, "majority", {}))
    return out


@pytest.mark.claim("SG-1")
def test_symbolic_profiles_for_all_N(evidence):
    proofs = prove_all()
    failed = [(p.name, p.form, c) for p in proofs for c, ok in p.checks if not ok]
    evidence["proofs"] = [
        {"function": p.name, "N": str(p.N), "profile": {str(k): str(v) for k, v in p.profile.items()},
         "checks": len(p.checks)}
        for p in proofs
    ]
    evidence["checks_total"] = sum(len(p.checks) for p in proofs)
    evidence["checks_failed"] = len(failed)
    evidence.decide(exact("failed symbolic profile checks (PARITY, sparse parity, DICTATOR, MAJORITY)",
                          len(failed), f"pass iff 0 of {evidence['checks_total']}", not failed))
    # every function is proved for symbolic N, N = 2m and N = 2m + 1 (majority: even and odd)
    covered = {(p.name, p.form) for p in proofs}
    for name in ("parity", "sparse_parity", "dictator"):
        assert {(name, f) for f in FORMS} <= covered
    assert {("majority", "even"), ("majority", "odd")} <= covered


@pytest.mark.claim("SG-1")
def test_majority_literal_and_K0_fraction(evidence):
    # N = 10: K_0 = 2^10 - C(11, 6) = 562, from the proof and from enumeration
    assert formula_profile("majority", 10) == {0: 562, 5: 252, 6: 210}
    assert _as_dict(profile(truth_table("majority", 10))) == {0: 562, 5: 252, 6: 210}
    # K_0 / 2^N -> 1: exact values from the proved formula
    frac = {N: formula_profile("majority", N)[0] / 2**N for N in (10, 11, 100, 1000, 10000)}
    evidence["majority_K0_fraction"] = {str(N): f for N, f in frac.items()}
    assert frac[10] < frac[100] < frac[1000] < frac[10000] < 1
    # 1 - K_0/2^N = C(N+1, N/2+1)/2^N ~ 2 sqrt(2/(pi N)) (Stirling): -> 0 like N^(-1/2)
    ratio = (1 - frac[10000]) / (2 * (2 / (math.pi * 10000)) ** 0.5)
    evidence["stirling_ratio_N10000"] = ratio
    assert abs(ratio - 1) < 1e-3


def _enumerate(Ns, evidence):
    compared = 0
    for N in Ns:
        for name, params, fname, fparams in _cases(N):
            got = _as_dict(profile(truth_table(name, N, **params)))
            want = formula_profile(fname, N, **fparams)
            assert got == want, (name, N, got, want)
            compared += 1
    evidence["N_range"] = [min(Ns), max(Ns)]
    evidence["profiles_compared"] = compared


@pytest.mark.claim("SG-1")
def test_enumeration_matches_proof_N_le_20(evidence):
    _enumerate(range(1, SG1.enumeration_N_max + 1), evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-1")
def test_enumeration_matches_proof_all_dictators_and_sparse_sets(evidence):
    # every dictator position and several sparse sets, every N of the enumeration
    compared = 0
    for N in range(1, SG1.enumeration_N_max + 1):
        for i in range(N):
            assert _as_dict(profile(truth_table("dictator", N, i=i))) == formula_profile("dictator", N)
            compared += 1
        for k in range(1, N + 1):
            S = list(range(N - k, N))
            got = _as_dict(profile(truth_table("sparse_parity", N, S=S)))
            assert got == formula_profile("sparse_parity", N, k=k)
            compared += 1
    evidence["profiles_compared"] = compared
