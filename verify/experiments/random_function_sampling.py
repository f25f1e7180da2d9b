r"""Monte Carlo over uniformly random Boolean functions (claim SG-2): the fraction with
:math:`K_0 \ge 1` with a Wilson interval, next to the exact values of
:mod:`verify.reference.random_functions`."""

from __future__ import annotations

import sympy as sp

from numeric.bitsliced import popcount_sum
from numeric.validation import check_int
from verify.experiments.statistics import wilson_interval
from verify.reference.random_functions import (
    enumerate_random_functions, expected_K0, poisson_limit, variance_K0,
)


def monte_carlo_K0(N: int, samples: int, seed: int = 0, z: float = 1.959963984540054) -> dict:
    r"""Monte Carlo over uniformly random functions: the fraction with :math:`K_0 \ge 1` with a
    Wilson interval, and the mean of :math:`K_0`.

    64 functions at a time: ``T[x]`` is a ``uint64`` whose bit ``r`` is :math:`f_r(x)` (fair
    i.i.d. bits). ``Z[x]`` keeps bit ``r`` iff :math:`f_r(x) = f_r(x \oplus e_n)` for every
    ``n``; OR over ``x`` flags :math:`K_0(f_r)\ge 1`, popcounts give :math:`\sum_r K_0(f_r)`.
    ``samples`` is rounded up to a multiple of 64.
    """
    import numpy as np

    N = check_int(N, "N", lo=1, hi=20)
    samples = check_int(samples, "samples", lo=1)
    seed = check_int(seed, "seed", lo=0)
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
    return {
        "N": N, "samples": n_f, "seed": seed, "hits": hits, "p_hat": hits / n_f,
        "wilson": [lo, hi], "z": z, "mean_K0": k0_total / n_f,
    }


def random_function_report(N_max: int = 16, samples: int = 1 << 16, seed: int = 2024,
                           z: float = 1.959963984540054) -> dict:
    """The SG-2 numbers in one JSON-ready dict: exact values for ``N <= 4`` (as strings and
    floats), Monte Carlo rows for ``N = 1..N_max`` (seed ``seed + N``), the limit."""
    exact = {}
    for N in range(1, 5):
        r = enumerate_random_functions(N)
        exact[str(N)] = {"p_K0_ge_1": str(r["p_K0_ge_1"]), "p_float": float(r["p_K0_ge_1"]),
                         "E_K0": str(r["E_K0"]), "Var_K0": str(r["E_K0_sq"] - 1),
                         "functions": r["functions"]}
    mc = {str(N): monte_carlo_K0(N, samples, seed=seed + N, z=z) for N in range(1, N_max + 1)}
    return {"exact": exact, "monte_carlo": mc, "limit_1_minus_1_over_e": poisson_limit(50),
            "E_K0": str(expected_K0()), "Var_K0": str(sp.factor(variance_K0()))}


__all__ = ["monte_carlo_K0", "random_function_report"]
