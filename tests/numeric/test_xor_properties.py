"""Hypothesis properties: the torch engine against the 50-digit mpmath reference (SX-1, SX-2).

Instances: d in 2..12, m in 1..8, all three attention maps, query norms (hence logits
|v.theta| <= |theta|) from 1e-2 to 1e3, optionally after one population step with the
default step size (post-step models reach L < 1e-20 and far below), batched and unbatched.
Comparisons use the one tolerance table (verify.tolerances): the loss to rtol 1e-10 relative
(no absolute slack), each gradient vector to rtol 1e-10 plus atol 1e-12 x its largest
component. Values below float64's normal range cannot carry relative accuracy; there the
engine must return a value below that threshold (UNDERFLOW).
"""

from __future__ import annotations

import itertools

import mpmath
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from numeric.xor import population_grad, population_loss
from verify import reference
from verify.common.tolerances import assert_close
from tests.helpers import xor_instance, xor_instances, xor_supports

# below this the float64 products that form L (or a gradient) are subnormal or underflow
UNDERFLOW = {torch.float64: 1e-280, torch.float32: 1e-30}


def ref_dps(V, th, tt):
    """Digits for the reference: 50 plus what a saturated softmax head needs.

    The reference evaluates w = gamma * (g - (gamma . g)) with working precision dps + 15; when
    a head puts weight 1 - c on one position with c = e^{-gap} below 10^-(dps + 15), that
    difference vanishes at every precision it tries (and both evaluations agree), so it
    would return a wrong gradient. Asking for gap / ln 10 more digits keeps
    it exact; the loss needs no more (its residuals are sums of positive terms).
    """
    gaps = []
    for t in (th, tt):
        z = (V.double() @ t.double()).sort(descending=True).values
        gaps.append(float(z[0] - z[1]) if z.numel() > 1 else 0.0)
    return 50 + int(max(gaps) / 2.302585) + 1


def check_loss(ours, V, th, tt, support, attention, dtype=torch.float64):
    """Assert one engine loss against the reference; returns (relative error, reference)."""
    with mpmath.workdps(50):
        ref = reference.population_loss(V, th, tt, support, attention)
        if abs(ref) < UNDERFLOW[dtype]:
            assert 0 <= float(ours) < UNDERFLOW[dtype], (float(ours), ref)
            return 0.0, ref
        rel = abs((mpmath.mpf(float(ours)) - ref) / ref)
    assert_close(float(ours), float(ref), dtype=dtype, scale=0.0,
                 what=f"population_loss ({attention}, d={V.shape[0]}, m={V.shape[1]})")
    return float(rel), ref


def _complements(gam):
    """sum_{j != i} x_j for each i, as a sum (no cancellation; 1 - gamma_i for softmax)."""
    d = gam.shape[0]
    return torch.stack([torch.cat((gam[:i], gam[i + 1:])).sum() for i in range(d)])


def term_scale(V, th, tt, support, attention):
    r"""Largest term of each gradient :math:`V^\top w`, :math:`w = J^\top g`, in magnitude.

    By Parseval :math:`L = \sum_S c_S^2` over the Fourier coefficients of :math:`f - y`
    (:math:`c_\emptyset = \gamma\cdot\tilde\gamma`, :math:`c_{ij} = \gamma_i\tilde\gamma_j
    + \gamma_j\tilde\gamma_i - [\{i,j\} = \{a,b\}]`), so
    :math:`g_i = 2c_\emptyset\tilde\gamma_i + 2\sum_{j\ne i} c_{ij}\tilde\gamma_j`, whose terms
    have size :math:`|g|_i = 2|c_\emptyset||\tilde\gamma_i| + 2\sum_{j\ne i}|c_{ij}||\tilde\gamma_j|`
    (symmetric for head 2). For softmax :math:`w_i = \gamma_i\sum_{j\ne i}\gamma_j(g_i - g_j)`,
    terms :math:`T_i = \gamma_i\sum_{j\ne i}\gamma_j(|g|_i + |g|_j)`; linear :math:`|g|_i/d`; erf
    :math:`\tfrac{2}{\sqrt\pi}e^{-z_i^2}|g|_i/d`. The scale is :math:`\max_{i,k}|V_{ik}|T_i`:
    no float evaluation of :math:`V^\top w` can beat rounding relative to the terms it adds
    (tied logits, e.g. m = 1 where every v_i = +-1, make O(1) terms cancel). Near a solution
    every coefficient is small, so the scale is small there too (1 - gamma_a gamma~_b is taken
    from the complements, as a sum of non-negative terms).
    """
    a, b = support
    d = V.shape[0]
    Vd = V.double()
    z = (Vd @ th.double(), Vd @ tt.double())
    gam = [torch.softmax(x, -1) if attention == "softmax" else
           (x / d if attention == "linear" else torch.erf(x) / d) for x in z]
    g1, g2 = gam
    C = g1[:, None] * g2[None, :] + g2[:, None] * g1[None, :]
    c1, c2 = (_complements(g1), _complements(g2)) if attention == "softmax" else (1 - g1, 1 - g2)
    if g1[a] * g2[b] >= g1[b] * g2[a]:     # expand 1 - (the larger product) via complements
        t = abs(float(c1[a] + g1[a] * c2[b] - g1[b] * g2[a]))
    else:
        t = abs(float(c1[b] + g1[b] * c2[a] - g1[a] * g2[b]))
    C[a, b] = C[b, a] = t
    C.fill_diagonal_(0.0)
    c0 = float((g1 * g2).abs().sum())
    out = []
    for zz, gm, other in ((z[0], g1, g2), (z[1], g2, g1)):
        G = 2 * c0 * other.abs() + 2 * (C.abs() @ other.abs())
        if attention == "softmax":
            c = _complements(gm)
            T = gm * (c * G + _complements(gm * G))
        elif attention == "linear":
            T = G / d
        else:
            T = 2 / torch.pi ** 0.5 * torch.exp(-zz * zz) * G / d
        out.append(float((Vd.abs() * T[:, None]).max()))
    return out


def check_grad(ours, V, th, tt, support, attention, dtype=torch.float64):
    """Assert both engine gradients against the reference (tolerance: rtol |ref_k| + atol x the
    largest term of V^T w); returns the max error relative to each vector's largest component."""
    with mpmath.workdps(50):
        refs = reference.population_grad(V, th, tt, support, attention,
                                         dps=ref_dps(V, th, tt) if attention == "softmax" else 50)
        scales = term_scale(V, th, tt, support, attention)
        worst = 0.0
        for head, (g, r, scale) in enumerate(zip(ours, refs, scales)):
            if scale < UNDERFLOW[dtype]:
                assert float(g.abs().max()) < UNDERFLOW[dtype], (g, r)
                continue
            for k in range(len(r)):
                assert_close(float(g[k]), float(r[k]), dtype=dtype, scale=scale,
                             what=f"grad head {head + 1} [{k}] ({attention})")
            big = max(abs(x) for x in r)
            if big > 0:
                worst = max(worst, float(max(abs(mpmath.mpf(float(g[k])) - r[k])
                                             for k in range(len(r))) / big))
    return worst


dims = st.integers(2, 12)
ms = st.integers(1, 8)
attentions = st.sampled_from(["softmax", "linear", "erf"])
tildes = st.sampled_from(["anti", "same", "independent"])
steps = st.sampled_from([None, None, 1.0, 10.0, 100.0])


@settings(max_examples=60)
@given(d=dims, m=ms, seed=st.integers(0, 2**31 - 1), log_norm=st.floats(-2, 3),
       tilde=tildes, steps_c=steps, attention=attentions, data=st.data())
@example(d=2, m=1, seed=0, log_norm=0.0, tilde="anti", steps_c=None, attention="softmax",
         data=None)
@example(d=2, m=2, seed=1, log_norm=0.0, tilde="anti", steps_c=100.0, attention="softmax",
         data=None)   # a near-solution model, L ~ 4e-43 (asserted in test_near_solution_...)
def test_loss_and_grad_match_reference(d, m, seed, log_norm, tilde, steps_c, attention, data):
    support = data.draw(xor_supports(d)) if data is not None else (0, 1)
    V, th, tt = xor_instance(d, m, seed, log_norm, tilde, steps_c, support, attention)
    check_loss(population_loss(V, th, tt, support, attention), V, th, tt, support, attention)
    check_grad(population_grad(V, th, tt, support, attention), V, th, tt, support, attention)


@settings(max_examples=15)
@given(d=st.integers(2, 8), m=st.integers(1, 5), seed=st.integers(0, 2**31 - 1),
       log_norm=st.floats(-2, 3), steps_c=steps, attention=attentions,
       batch=st.sampled_from([(2,), (3,), (2, 1)]))
def test_batched_matches_reference_per_instance(d, m, seed, log_norm, steps_c, attention, batch):
    support = (d - 1, 0)
    V, th, tt = xor_instance(d, m, seed, log_norm, "anti", steps_c, support, attention, batch=batch)
    L = population_loss(V, th, tt, support, attention)
    g, gt = population_grad(V, th, tt, support, attention)
    assert L.shape == batch and g.shape == (*batch, m) and gt.shape == (*batch, m)
    for idx in itertools.product(*(range(n) for n in batch)):
        check_loss(L[idx], V[idx], th[idx], tt[idx], support, attention)
        check_grad((g[idx], gt[idx]), V[idx], th[idx], tt[idx], support, attention)


@settings(max_examples=15)
@given(d=st.integers(2, 10), m=st.integers(1, 6), seed=st.integers(0, 2**31 - 1),
       log_norm=st.floats(-2, 1), attention=attentions)
def test_float32_matches_reference_at_float32_tolerance(d, m, seed, log_norm, attention):
    # |logits| <= 10: float32 logits carry absolute error ~1e-6 x |z|, so larger logits would
    # exceed rtol 1e-5 through the input rounding alone
    support = (0, d - 1)
    V, th, tt = xor_instance(d, m, seed, log_norm, "independent", None, support, attention,
                         dtype=torch.float32)
    check_loss(population_loss(V, th, tt, support, attention), V, th, tt, support, attention,
               dtype=torch.float32)
    g = population_grad(V, th, tt, support, attention)
    assert g[0].dtype == torch.float32
    check_grad(g, V, th, tt, support, attention, dtype=torch.float32)


@settings(max_examples=20)
@given(inst=xor_instances(dims=dims, ms=ms, log_norms=st.floats(3, 8), steps=st.just(None)))
def test_extreme_logits_give_finite_results(inst):
    V, th, tt, support, attention = inst
    L = population_loss(V, th, tt, support, attention)
    g, gt = population_grad(V, th, tt, support, attention)
    assert bool(torch.isfinite(L)) and L >= 0
    assert bool(torch.isfinite(g).all()) and bool(torch.isfinite(gt).all())


def test_near_solution_examples_are_really_near_a_solution():
    """The post-step instances used above reach the regime the residual form exists for."""
    V, th, tt = xor_instance(2, 2, 1, 0.0, "anti", 100.0)
    rel, ref = check_loss(population_loss(V, th, tt, (0, 1)), V, th, tt, (0, 1), "softmax")
    assert 1e-200 < ref < 1e-20
    smallest = []
    for seed in range(6):
        V, th, tt = xor_instance(12, 8, seed, 0.0, "anti", 10.0, support=(3, 9))
        rel, ref = check_loss(population_loss(V, th, tt, (3, 9)), V, th, tt, (3, 9), "softmax")
        check_grad(population_grad(V, th, tt, (3, 9)), V, th, tt, (3, 9), "softmax")
        smallest.append(float(ref))
    assert min(smallest) < 1e-20
