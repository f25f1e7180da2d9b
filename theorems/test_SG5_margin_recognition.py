r"""SG-5 (as formalised in boolverify): for :math:`\varepsilon > 0` only the constant
functions stay recognisable with margin :math:`\xi` as :math:`N` grows.

Two checks:

1. **Random models.** A model recognises a function with margin :math:`\xi` if every string
   has :math:`T \ge \xi` (accept) or :math:`T \le -\xi` (reject); a non-constant such
   function needs a neighbouring pair with :math:`|T(x) - T(x\oplus e_n)| \ge 2\xi`, which the
   :math:`O(1/N)` influence (SG-4) forbids for large :math:`N`. Over all :math:`2^N` strings
   of 200 uniform-box models (D = 16, L = 2, H = 2, eps = 1e-5, B = 1, xi = 0.01), the count
   recognising a non-constant function must be :math:`\ge 5` at some small :math:`N` (the
   check is not vacuous) and :math:`\le 1` at :math:`N = 10`.
2. **Packing bound** (:mod:`verify.bounds`, 50 digits): :math:`|F_N| \le (1 +
   C_{\mathrm{Lip}}\operatorname{diam}\Theta/\xi)^M` does not depend on :math:`N`, while there
   are :math:`2^{2^N}` functions; the crossover :math:`N^*` (smallest :math:`N` with
   :math:`2^{2^N}` above the bound) is :math:`\le 40` for every tabulated
   :math:`C_{\mathrm{Lip}} \le 10^{24}`, :math:`D \le 64`, :math:`\xi \ge 0.01` (the
   constant :math:`C_{\mathrm{Lip}}` is a parameter of our formalisation).
"""

from __future__ import annotations

import math

import pytest

from numeric.transformer import TransformerConfig
from verify.experiments.random_transformers import margin_sweep
from verify.reference.bounds import DEFAULT_C_LIPS, n_params, packing_crossover
from verify.common.tolerances import assert_close




CFG = dict(D=16, L=2, H=2, eps=1e-5)
XI = 0.01


def _check_models(Ns, models, evidence, last_max=1, peak_min=5):
    cfg = TransformerConfig(N_max=64, **CFG)
    res = margin_sweep(cfg, Ns, models, [XI], seed=4000, B=1.0)[str(XI)]
    nonconst = res["nonconstant"]
    evidence.update({
        "Ns": list(Ns), "models": models, "xi": XI, "config": {**CFG, "B": 1.0, "init": "uniform"},
        "nonconstant_counts": nonconst, "recognises_counts": res["recognises"],
        "nonconstant_fraction": [c / models for c in nonconst],
    })
    assert max(nonconst) >= peak_min, f"no non-constant recognition at small N: {nonconst}"
    assert nonconst[-1] <= last_max, f"N = {Ns[-1]}: {nonconst[-1]} of {models} models non-constant"
    return nonconst


@pytest.mark.claim("SG-5")
def test_nonconstant_margin_recognition_vanishes(evidence):
    _check_models((1, 2, 3, 4, 6, 8, 10), 200, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-5")
def test_nonconstant_margin_recognition_vanishes_full(evidence):
    # the full run's settings (python -m bench.transformer_sweeps sg5)
    nonconst = _check_models((1, 2, 3, 4, 5, 6, 8, 10, 12), 200, evidence, last_max=1, peak_min=10)
    assert nonconst[-1] == 0 or nonconst[-1] < nonconst[-2]


@pytest.mark.claim("SG-5")
def test_packing_bound_crossover_table(evidence):
    rows = []
    for D in (16, 32, 64):
        M = n_params(D, 2, None, 64)
        for xi in (0.01, 0.1):
            for C in DEFAULT_C_LIPS:
                p = packing_crossover(M, C, 2.0, xi)
                assert p["checked"]
                # independent float evaluation of log2 of (1 + C diam / xi)^M
                assert_close(p["log2_bound"], M * math.log2(1 + C * 2.0 / xi), what="log2 bound")
                N = p["N_star"]
                # 2^(2^N) > bound at N*, not at N* - 1 (in logs: 2^N vs log2 bound)
                assert 2.0**N > p["log2_bound"] >= 2.0 ** (N - 1)
                rows.append({"D": D, "M": M, "xi": xi, "C_lip": C, "log2_bound": float(p["log2_bound"]),
                             "N_star": N})
    worst = max(r["N_star"] for r in rows)
    evidence["table"] = rows
    evidence["max_crossover_N"] = worst
    # even the loosest row (D = 64, M = 104385, C_lip = 1e24, xi = 0.01: log2 bound ~ 9.1e6 < 2^24)
    # is overtaken by 2^(2^N) at N <= 25: the count of recognisable functions is bounded
    # independently of N while 2^(2^N) is not
    assert worst <= 25
