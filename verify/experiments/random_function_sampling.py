r"""Monte Carlo over uniformly random Boolean functions (claim SG-2): the fraction with
:math:`K_0 \ge 1` with a Wilson (and, on request, an exact Clopper-Pearson) interval, next to
the exact values of :mod:`verify.reference.random_functions` and the Chen-Stein bound on the
distance of the exact finite-:math:`N` probability from the Poisson limit :math:`1 - 1/e`."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import sympy as sp

from numeric.boolean import popcount_sum
from numeric.validation import check_int, check_real, check_seed
from verify.reference.random_functions import (
    enumerate_random_functions, expected_K0, poisson_limit, variance_K0,
)
from verify.experiments.transformer_records import MonteCarloK0
from verify.stats.intervals import clopper_pearson, wilson_interval


def chen_stein_bound(N: int) -> Fraction:
    r"""An upper bound on :math:`|P(K_0 \ge 1) - (1 - e^{-1})|` for a uniformly random function
    on :math:`\{0,1\}^N`: the Chen-Stein bound :math:`b_1 + b_2` (Arratia, Goldstein and
    Gordon 1989, Theorem 1, without its factor :math:`(1 - e^{-\lambda})/\lambda \le 1`).

    :math:`K_0 = \sum_x I_x` with :math:`I_x` = "f is constant on the closed neighbourhood of
    :math:`x`", :math:`p_x = 2^{-N}`, :math:`\lambda = E K_0 = 1`. :math:`I_x` is independent of
    every :math:`I_y` with :math:`d(x, y) \ge 3` (disjoint neighbourhoods), so the dependency
    neighbourhood is the Hamming ball of radius 2, :math:`1 + N + \binom N2` strings and
    :math:`b_3 = 0`. :math:`b_1 = 2^N (1 + N + \binom N2) 2^{-2N}`; at distance 1 or 2 the two
    neighbourhoods cover :math:`2N` strings, :math:`E[I_x I_y] = 2^{1-2N}`, so
    :math:`b_2 = 2^N (N + \binom N2) 2^{1-2N}`. Exact (a ``Fraction``); :math:`O(N^2 2^{-N})`.
    """
    N = check_int(N, "N", lo=1)
    near = N + comb(N, 2)
    b1 = Fraction(1 + near, 1 << N)
    b2 = Fraction(2 * near, 1 << N)
    return b1 + b2


def monte_carlo_K0(N: int, samples: int, seed: int = 0, z: float = 1.959963984540054,
                   level: float | None = None) -> MonteCarloK0:
    r"""Monte Carlo over uniformly random functions: the fraction with :math:`K_0 \ge 1` with a
    Wilson interval (normal quantile ``z``), and the mean of :math:`K_0`. With ``level`` also
    the exact two-sided Clopper-Pearson interval at that level (field ``clopper_pearson``).

    64 functions at a time: ``T[x]`` is a ``uint64`` whose bit ``r`` is :math:`f_r(x)` (fair
    i.i.d. bits). ``Z[x]`` keeps bit ``r`` iff :math:`f_r(x) = f_r(x \oplus e_n)` for every
    ``n``; OR over ``x`` flags :math:`K_0(f_r)\ge 1`, popcounts give :math:`\sum_r K_0(f_r)`.
    ``samples`` is rounded up to a multiple of 64.
    """
    import numpy as np

    N = check_int(N, "N", lo=1, hi=20)
    samples = check_int(samples, "samples", lo=1)
    seed = check_seed(seed, "seed")
    if level is not None:
        level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    rng = np.random.Generator(np.random.PCG64(seed))
    batches = -(-samples // 64)
    size = 1 << N
    hits = 0
    k0_total = 0
    for _ in range(batches):
        T = rng.integers(0, np.iinfo(np.uint64).max, size=size, dtype=np.uint64, endpoint=True)
        Z = np.full(size, np.iinfo(np.uint64).max, dtype=np.uint64)
        for n in range(N):
            v = T.reshape(-1, 2, 1 << n)
            eq = ~(v[:, 0, :] ^ v[:, 1, :])
            zv = Z.reshape(-1, 2, 1 << n)
            zv[:, 0, :] &= eq
            zv[:, 1, :] &= eq
        anyz = np.bitwise_or.reduce(Z)
        hits += popcount_sum(np.atleast_1d(anyz))
        k0_total += popcount_sum(Z)
    n_f = batches * 64
    lo, hi = wilson_interval(hits, n_f, z=z)
    return MonteCarloK0(
        N=N, samples=n_f, seed=seed, hits=hits, p_hat=hits / n_f, wilson=(lo, hi), z=z,
        mean_K0=k0_total / n_f,
        clopper_pearson=None if level is None else tuple(clopper_pearson(hits, n_f, level)),
        level=level,
    )


def random_function_report(N_max: int = 16, samples: int = 1 << 16, seed: int = 2024,
                           z: float = 1.959963984540054) -> dict:
    """The SG-2 numbers in one JSON-ready dict: exact values for ``N <= 4`` (as strings and
    floats), Monte Carlo rows for ``N = 1..N_max`` (seed ``seed + N``), the limit."""
    N_max = check_int(N_max, "N_max", lo=1, hi=20)
    seed = check_seed(seed, "seed", count=N_max + 1)
    exact = {}
    for N in range(1, 5):
        r = enumerate_random_functions(N)
        exact[str(N)] = {"p_K0_ge_1": str(r["p_K0_ge_1"]), "p_float": float(r["p_K0_ge_1"]),
                         "E_K0": str(r["E_K0"]), "Var_K0": str(r["E_K0_sq"] - 1),
                         "functions": r["functions"]}
    mc = {str(N): monte_carlo_K0(N, samples, seed=seed + N, z=z).as_dict() for N in range(1, N_max + 1)}
    return {"exact": exact, "monte_carlo": mc, "limit_1_minus_1_over_e": poisson_limit(50),
            "E_K0": str(expected_K0()), "Var_K0": str(sp.factor(variance_K0()))}


__all__ = ["chen_stein_bound", "monte_carlo_K0", "random_function_report"]
