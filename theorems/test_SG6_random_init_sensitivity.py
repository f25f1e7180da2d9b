r"""SG-6 (as formalised in boolverify): at :math:`\varepsilon = 0`, randomly initialised
transformers compute Boolean functions with zero-sensitivity strings; Theorem 4.5 states
:math:`K_0 \ge N^{a}` for all large :math:`N`, :math:`a(D,L) = \frac{D-1}{2L} - 5`.

Finite-:math:`N` evidence (exact profiles over all :math:`2^N` strings, one batched forward
pass per string): for each of the four init schemes, 100 random models at :math:`N = 12`:

- the fraction with :math:`K_0 \ge 1` is :math:`\ge 0.95`, and its 95% Wilson lower bound
  is above :math:`1 - 1/e \approx 0.632`, the value for uniformly random functions;
- the mean fraction of zero-sensitivity strings :math:`K_0/2^N` is :math:`\ge 0.5`
  (random functions: :math:`2^{-N} \approx 2.4\cdot 10^{-4}`);
- the mean average sensitivity is :math:`\le N/4` (random functions: :math:`N/2`).

Fast configuration (documented): D = 8, L = 2, H = 2, F = 4D, eps = 0, uniform box B = 1,
Gaussian sigma = 1. At this size :math:`a(8, 2) < 0`, so the theorem's bound is only
:math:`K_0 \ge 1`; the full run (``slow``; D = 16 and D = 32, N up to 16, in
``docs/results-paper-b.md``) has :math:`a(32, 2) = 2.75`.

Bound side (mpmath, 50 digits): :math:`a(D, L)` exactly, and the crossover
:math:`N^*` where :math:`N^a < 2^N` starts to hold for good, from the Lambert-W closed form
:math:`N = -(a/\ln 2)\,W_{-1}(-\ln 2/a)` and by direct evaluation; they must agree.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from numeric.transformer import SCHEMES, TransformerConfig
from numeric.transformer_eval import random_profiles
from verify.reference.bounds import crossover, theorem_exponent
from verify.experiments.random_transformers import summarize_profiles
from verify.experiments.statistics import wilson_interval




P_RANDOM = 1 - math.exp(-1)
FAST = dict(D=8, L=2, H=2, eps=0.0)


def _check_init(scheme, N, models, cfg_kw, seed, evidence):
    cfg = TransformerConfig(N_max=max(64, N), **cfg_kw)
    K = random_profiles(cfg, scheme, N, models, seed=seed)
    s = summarize_profiles(K, N)
    lo, hi = wilson_interval(int((K[:, 0] >= 1).sum()), models)
    evidence[scheme] = {
        "N": N, "models": models, "frac_K0_ge_1": s["frac_K0_ge_1"], "wilson95": [lo, hi],
        "mean_K0_frac": s["mean_K0_frac"], "frac_constant": s["frac_constant"],
        "mean_avg_sensitivity": s["mean_avg_sensitivity"], "min_K0": int(K[:, 0].min()),
        "random_function_P_K0_ge_1": P_RANDOM, "random_function_mean_K0_frac": 2.0**-N,
    }
    assert s["frac_K0_ge_1"] >= 0.95, (scheme, s["frac_K0_ge_1"])
    assert lo > P_RANDOM, (scheme, lo)
    assert s["mean_K0_frac"] >= 0.5, (scheme, s["mean_K0_frac"])
    assert s["mean_avg_sensitivity"] <= N / 4, (scheme, s["mean_avg_sensitivity"])


@pytest.mark.claim("SG-6")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_random_transformers_have_zero_sensitivity_strings(scheme, evidence):
    evidence["config"] = {**FAST, "B": 1.0, "sigma": 1.0}
    _check_init(scheme, 12, 100, FAST, 6000, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-6")
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("D,N,models,seed", [(16, 14, 30, 1000), (16, 16, 12, 1000), (32, 12, 100, 2000)])
def test_random_transformers_full(scheme, D, N, models, seed, evidence):
    """The full run's largest cells (same seeds as ``python -m bench.transformer_sweeps``)."""
    cfg = dict(D=D, L=2, H=2, eps=0.0)
    evidence["config"] = cfg
    _check_init(scheme, N, models, cfg, seed, evidence)


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
            rows.append({"D": D, "L": L, "a": str(a), "regime": c["regime"], "N_star": N,
                         "N_upper": None if c["N_upper"] is None else float(c["N_upper"])})
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
