"""SX-5: softmax is necessary (as formalised in boolverify). On the same instances
(d = 1000, m = 32): one softmax step reaches L < 1e-6 in about 95% of seeds (asserted: the
Wilson interval reaches 0.95 and the rate is >= 0.9; measured 94.5% over 400 seeds), while linear and erf
attention fail in one step and after T GD/Adam steps (loss stays > 0.9, no specialisation).
Representational side: with m < d, the best loss of linear attention over all theta, theta~ is
>= the convex-relaxation bound (verify.linear_bound), and erf attention's is >= (1 - 2/d^2)^2;
the trained losses must respect these bounds.

Fast: 100 seeds for the one step, 6 seeds x T = 200 steps. Full (slow): 400 seeds,
30 seeds x T = 2000 steps, a grid of learning rates.
"""

import math

import pytest

from numeric import xor
from verify.experiments.attention_comparison import compare, train
from verify.experiments.xor_sweeps import cell_support, make_instances
from verify.reference.linear_bound import erf_attention_loss_bound, linear_attention_loss_bound, matrix_form_loss
from verify.experiments.fits import wilson_interval
from verify.common.tolerances import assert_close

pytestmark = pytest.mark.claim("SX-5")

D, M = 1000, 32


def _assert_comparison(res, evidence):
    sm = res.results["softmax"]["one_step"]
    n = res.config["n_seeds"]
    k = round(sm["frac_below_1e-6"] * n)
    lo, hi = wilson_interval(k, n)
    evidence["softmax_one_step_frac_below_1e-6"] = sm["frac_below_1e-6"]
    evidence["softmax_one_step_wilson95"] = [lo, hi]
    evidence["softmax_one_step_success"] = sm["success_rate"]
    # ">= 95% of seeds reach L < 1e-6": the data must not reject it (Wilson upper end >= 0.95)
    # and the point estimate must be close (the full run measures 0.945 over 400 seeds)
    assert hi >= 0.95 and sm["frac_below_1e-6"] >= 0.9
    for att in ("linear", "erf"):
        one = res.results[att]["one_step"]
        evidence[f"{att}_one_step_median_loss"] = one["median_loss"]
        assert one["success_rate"] == 0.0 and one["median_loss"] > 0.9
        for opt in ("gd", "adam"):
            r = res.results[att][opt]
            evidence[f"{att}_{opt}_min_final_loss"] = r["min_final_loss"]
            evidence[f"{att}_{opt}_lr"] = r["lr"]
            assert math.isfinite(r["min_final_loss"])  # a diverged run proves nothing
            assert r["frac_final_above_0.9"] == 1.0 and r["min_final_loss"] > 0.9
            assert r["success_rate"] == 0.0


def test_softmax_necessity_fast(evidence):
    eta = xor.default_lr(D, M)
    # GD over a grid of rates: eta itself diverges for linear attention (loss -> inf), which
    # would make "loss stays > 0.9" hold trivially; the best rate of the grid is what counts
    res = compare(D, M, 100, train_seeds=6, steps=200, gd_lrs=(eta, eta * 1e-4, eta * 1e-6), adam_lrs=(0.1,),
                  record_every=50)
    _assert_comparison(res, evidence)


def test_representational_bounds_fast(evidence):
    support = cell_support(D, 1, M)
    V, th0, tt0 = make_instances(D, M, [0, 1, 2])
    res = [linear_attention_loss_bound(V[k].numpy(), support) for k in range(3)]
    bounds = [r["bound"] for r in res]
    evidence["linear_bounds"] = bounds
    assert min(bounds) > 0.99
    # the reported minimum is the loss of the reported minimiser, computed independently
    for r in res:
        assert_close(matrix_form_loss(r["argmin_M"], support), r["bound"], what="relaxation minimum")
    # trained linear attention cannot beat its bound; it gets close (the bound is informative)
    r = train(V, th0, tt0, support, attention="linear", optimizer="adam", steps=300, lr=1.0)
    final = r["loss"][-1].tolist()
    evidence["linear_trained"] = final
    for L, B in zip(final, bounds):
        assert L >= B * (1 - 1e-10)
        assert L - B < 1e-2
    eb = erf_attention_loss_bound(D)
    r = train(V, th0, tt0, support, attention="erf", optimizer="adam", steps=100, lr=1.0)
    evidence["erf_bound"], evidence["erf_trained_min"] = eb, float(r["loss"].min())
    assert float(r["loss"].min()) >= eb * (1 - 1e-10)


@pytest.mark.slow
def test_softmax_necessity_full(evidence):
    eta = xor.default_lr(D, M)
    res = compare(D, M, 400, train_seeds=30, steps=2000,
                  gd_lrs=(eta, eta * 1e-2, eta * 1e-4, eta * 1e-6), adam_lrs=(0.1, 1.0))
    _assert_comparison(res, evidence)
