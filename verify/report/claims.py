"""The registry of claims: id -> statement as formalised in boolverify (``docs/claims.md``,
anchors ``docs/claims.md#sx-1`` ... ``#sg-8``, gives each claim in full with how it is checked).

One source for the README table (:mod:`verify.report.readme`), the report and the claim
markers. Statements are our formalisation of the papers, not quotations.
"""

from __future__ import annotations

from dataclasses import dataclass

from numeric.validation import check_choice


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str  # "A" (sparse XOR, two-head) or "B" (sensitivity, random transformers)
    statement: str
    theorem_file: str


_A = [
    ("SX-1", "Closed-form population loss of the two-head model: L = ‖γ‖²‖γ̃‖² + 2(γ·γ̃)² "
             "− 2Σ_i γ_i²γ̃_i² − 2(γ_aγ̃_b + γ_bγ̃_a) + 1", "test_SX1_population_loss.py"),
    ("SX-2", "Closed-form population gradient through softmax, linear and erf attention",
             "test_SX2_population_gradient.py"),
    ("SX-3", "The CLS-token one-layer two-head transformer equals the two-head model, forward "
             "and one gradient step (learning rate scaled by W_K^T W_K)", "test_SX3_cls_equivalence.py"),
    ("SX-4", "One population step from the antisymmetric init learns the support with "
             "m = O(polylog d): m*(d) fits (ln d)^k better than d^alpha", "test_SX4_one_step.py"),
    ("SX-5", "Softmax is necessary: with m << d linear and erf attention fail in one step and "
             "after T GD/Adam steps; softmax succeeds", "test_SX5_softmax_necessity.py"),
    ("SX-6", "Finite samples: the proof's n = Omega(d^4 polylog d) is loose: the measured exponent "
             "of n*(d) is below 4 (the seed's 'about linear' is reported, not asserted)",
             "test_SX6_sample_complexity.py"),
    ("SX-7", "Parameter count 2m = O(polylog d) against >= d for a dense-first-layer FFNN",
             "test_SX7_parameter_count.py"),
    ("SX-8", "After the step the heads specialise one-to-one on a, b, assignment decided by "
             "sign((v_a - v_b).theta0)", "test_SX8_interpretability.py"),
]
_B = [
    ("SG-1", "Exact sensitivity profiles of PARITY, sparse parity, FIRST, DICTATOR, strict "
             "MAJORITY (K_0 = 2^N - C(N+1, floor(N/2)+1))", "test_SG1_profiles.py"),
    ("SG-2", "Uniformly random Boolean function: E[K_0] = 1, P(K_0 >= 1) -> about 1 - 1/e",
             "test_SG2_random_functions.py"),
    ("SG-3", "eps > 0: z <= 1/sqrt(eps), so blowup beta^L <= (1 + 1/sqrt(eps))^L' for all "
             "parameters and inputs", "test_SG3_blowup_bound.py"),
    ("SG-4", "eps > 0, parameters in a box: a single bit flip moves T(eos) by O(1/N)",
             "test_SG4_influence.py"),
    ("SG-5", "eps > 0: only constant functions stay recognisable with margin xi as N grows "
             "(packing bound independent of N)", "test_SG5_margin_recognition.py"),
    ("SG-6", "eps = 0, random init: random transformers have zero-sensitivity strings "
             "(K_0 >= 1, profile skewed to 0, vs ~0.632 for random functions); the Theorem 4.5 "
             "exponent a = (D-1)/(2L) - 5 and the N where N^a < 2^N are computed, not asserted at finite N",
             "test_SG6_random_init_sensitivity.py"),
    ("SG-7", "PARITY, sparse parity, DICTATOR, FIRST have K_0 = 0, hence lie in the "
             "measure-zero set of Theorem 4.5", "test_SG7_measure_zero_targets.py"),
    ("SG-8", "Training: MAJORITY learned, FIRST at moderate N, PARITY fails as N grows; "
             "trained profiles stay skewed to low sensitivity", "test_SG8_training.py"),
]

CLAIMS: dict[str, Claim] = {
    cid: Claim(cid, "A" if cid.startswith("SX") else "B", stmt, f"theorems/{fname}")
    for cid, stmt, fname in _A + _B
}


def get_claim(claim_id: str) -> Claim:
    """The registered claim with id ``claim_id`` (e.g. ``"SX-1"``)."""
    return CLAIMS[check_choice(claim_id, "claim_id", tuple(CLAIMS))]


__all__ = ["Claim", "CLAIMS", "get_claim"]
