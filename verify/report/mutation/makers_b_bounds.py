"""The makers of paper B's mutants of the bounds (:mod:`verify.report.mutation.catalogue_b`): the
closed-form bounds and the parameter count, the random-function facts, and the local and certified
volumes with their interval arithmetic. Each takes the original (public) function, method or value
and returns the bug: the original called with altered inputs, or its output perturbed. torch,
numpy, sympy and mpmath are imported inside the makers.
"""

from __future__ import annotations


def blowup_exponent_L(original):
    def blowup_bound(eps, L_prime, *, dps=50):
        b = original(eps, L_prime, dps=dps)
        import mpmath

        with mpmath.workdps(dps):
            return mpmath.sqrt(b)           # (1 + 1/sqrt(eps))^L: L layers, not L' = 2L LNs
    return blowup_bound


def theorem_exponent_minus_4(original):
    def theorem_exponent(D, L):
        return original(D, L) + 1           # (D - 1)/(2L) - 4
    return theorem_exponent


def crossover_direct_off_by_one(original):
    def crossover_direct(a, *, dps=50):
        return original(a, dps=dps) - 1      # the last N with N^a >= 2^N, not the one after it
    return crossover_direct


def certificate_first_half(original):
    def certified_strings(T, table):
        import torch

        half = (table.shape[0] + 1) // 2
        ok = original(T[:half], table[:half])      # only the first half of the strings checked
        return torch.cat([ok, torch.ones(table.shape[0] - half, dtype=torch.bool, device=ok.device)])
    return certified_strings


def attention_from_midpoints(original):
    def attention_weights(scores):
        mid = 0.5 * (scores.lo + scores.hi)
        a = original(type(scores)(mid, mid))      # the scores' widths never reach the weights
        return a
    return attention_weights


def two_corners_only(original):
    def interval_outputs(model, box, N):
        import torch

        from numeric.intervals import Interval
        from numeric.transformer import batched_outputs

        # the float64 outputs at the box's two extreme corners (every parameter at its lower
        # end, every one at its upper end) taken for the enclosure of the whole box
        ends = {name: torch.stack([iv.lo, iv.hi]) for name, iv in box.items()}
        out = batched_outputs(model, ends, N)
        return Interval(out.amin(0), out.amax(0))
    return interval_outputs


def box_points_at_centre(original):
    def box_points(model, half_width, K, generator, **kwargs):
        return original(model, 0.0, K, generator, **kwargs)   # every point is theta* itself
    return box_points


def mul_two_products(original):
    def mul(a, b):
        import torch

        from numeric.intervals import Interval

        # only lo * lo and hi * hi: [-1, 2] * [-3, 4] = [3, 8], not [-6, 8]
        lows = original(Interval.point(a.lo), Interval.point(b.lo))
        highs = original(Interval.point(a.hi), Interval.point(b.hi))
        return Interval(torch.minimum(lows.lo, highs.lo), torch.maximum(lows.hi, highs.hi))
    return mul


def lower_rounded_up(original):
    def round_down(x, steps=1):
        from numeric.intervals import round_up

        return round_up(x, steps)      # every lower end rounded towards +inf
    return round_down


def square_positive_across_zero(original):
    def square(a):
        import torch

        r = original(a)
        across = (a.lo < 0) & (a.hi > 0)
        # across 0 the smaller end square taken for the lower end (0 belongs to the range)
        return type(r)(torch.where(across, torch.minimum(a.lo * a.lo, a.hi * a.hi), r.lo), r.hi)
    return square


def no_widening(original):
    return 0                           # exp's ends as libm returns them: its last-ulp error unenclosed


def refused_end_reported(original):
    def largest_certified_half_width(function, N, **kwargs):
        import dataclasses

        c = original(function, N, **kwargs)
        if c.half_width is None or c.refused_half_width is None:
            return c
        return dataclasses.replace(c, half_width=c.refused_half_width)   # the box the certifier refused
    return largest_certified_half_width


def reseeded_per_chunk(original):
    def perturbed_parameters(model, sigma, K, generator, include_ln=True):
        generator.manual_seed(generator.initial_seed())    # each chunk restarts the stream
        return original(model, sigma, K, generator, include_ln)
    return perturbed_parameters


def per_point_level(original):
    def bonferroni_level(level, points):
        original(level, points)
        return level                   # each grid point's interval at the joint level
    return bonferroni_level


def one_side_of_centre(original):
    def box_points(model, half_width, K, generator, **kwargs):
        from numeric.transformer import stacked_parameters

        theta = original(model, half_width, K, generator, **kwargs)
        star = stacked_parameters(model, K)
        return {name: star[name] + (t - star[name]).abs() for name, t in theta.items()}   # theta* + h |u|
    return box_points


def n_params_without_ln(original):
    def n_params(D, L, F=None, N_max=64):
        return original(D, L, F, N_max) - 4 * D * L   # gains and biases of the 2L layer norms
    return n_params


def sampler_top_bit_clear(original):
    def monte_carlo_K0(*args, **kwargs):
        import numpy as np

        real = np.random.Generator

        class Drawn63Bits:
            """The sampler's generator with draws below int64's maximum: bit 63 never set."""

            def __init__(self, bit_generator):
                self.generator = real(bit_generator)

            def integers(self, *a, **k):
                return self.generator.integers(*a, **k) & np.uint64(np.iinfo(np.int64).max)

            def __getattr__(self, name):
                return getattr(self.generator, name)

        # the sampler builds its generator from numpy.random at call time: swap it for the call
        np.random.Generator = Drawn63Bits
        try:
            return original(*args, **kwargs)
        finally:
            np.random.Generator = real
    return monte_carlo_K0


def variance_union_off_by_one(original):
    def variance_K0(N=None):
        import sympy as sp

        from verify.reference.random_functions import N_SYMBOL

        n = N_SYMBOL if N is None else sp.sympify(N)
        # the union of two overlapping neighbourhoods counted as 2N + 1 points, not 2N: each
        # of the N + C(N, 2) close pairs of each of the 2^N strings has half its probability
        close = 2 ** n * (n + sp.binomial(n, 2)) * sp.Rational(1, 2) ** (2 * n)
        return sp.simplify(sp.expand(original(N) - close))
    return variance_K0


def z_zeroed(original):
    def perturbed_parameters(model, sigma, K, generator, include_ln=True):
        original(model, sigma, K, generator, include_ln)      # the draws are made ...
        from numeric.transformer import stacked_parameters

        return stacked_parameters(model, K)                    # ... and never added: theta* itself
    return perturbed_parameters


def sigma_ignored(original):
    def perturbed_parameters(model, sigma, K, generator, include_ln=True):
        return original(model, 1.0, K, generator, include_ln)  # theta* + z whatever sigma
    return perturbed_parameters


def strings_msb_first(original):
    def batched_outputs(model, theta, N, *, chunk=32):
        import torch

        T = original(model, theta, N, chunk=chunk)
        idx = torch.arange(1 << N)
        rev = sum(((idx >> n) & 1) << (N - 1 - n) for n in range(N))  # bit n read as bit N-1-n
        return T[:, rev]
    return batched_outputs


def crossing_at_quarter(original):
    def crossing_interval(grid, successes, trials, level=0.99, crossing=0.5):
        return original(grid, successes, trials, level, crossing / 2)   # the crossing of 1/4
    return crossing_interval


def lower_end_next_point(original):
    def crossing_interval(grid, successes, trials, level=0.99, crossing=0.5):
        lo, hi = original(grid, successes, trials, level, crossing)
        g = [float(x) for x in grid]
        if lo in g and g.index(lo) + 1 < len(g):
            lo = g[g.index(lo) + 1]              # the first grid point past the lower bounds, not the last above
        return lo, hi
    return crossing_interval


def majority_K0_binomial_of_N(original):
    def majority_claim(N):
        import sympy as sp

        claim = dict(original(N))
        claim[0] = 2 ** N - sp.binomial(N, sp.floor(N / sp.Integer(2)) + 1)   # C(N, .) for C(N+1, .)
        return claim
    return majority_claim
