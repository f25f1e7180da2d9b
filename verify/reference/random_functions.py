r"""Exact facts about uniformly random Boolean functions (claim SG-2), as formalised in
boolverify.

For a uniformly random :math:`f`, a string is zero-sensitive iff :math:`f` is constant on its
closed neighbourhood (``N + 1`` independent fair bits): probability
:math:`2 \cdot 2^{-(N+1)} = 2^{-N}`, so :math:`E[K_0] = 2^N 2^{-N} = 1` by linearity. Pairs at
distance 1 or 2 have overlapping closed neighbourhoods whose union has :math:`2N` points, giving
:math:`\mathrm{Var}[K_0] = 1 + (N+2)(N-1)/2^{N+1}`. :math:`P(K_0 \ge 1)` is computed exactly for
:math:`N \le 4` by enumerating all :math:`2^{2^N}` functions, beside the Poisson limit
:math:`1 - 1/e` (mpmath, 50 digits). The Monte Carlo estimate for larger ``N`` is
:mod:`verify.experiments.random_function_sampling`.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from numeric.validation import check_int

#: The symbolic ``N`` of the formulas below (used when no ``N`` is given).
N_SYMBOL = sp.Symbol("N", integer=True, positive=True)


def expected_K0(N=None):
    r"""Derive :math:`E[K_0]` for a uniformly random :math:`f` on :math:`\{0,1\}^N`.

    :math:`P(s(x)=0) = \sum_{v\in\{0,1\}} P(f(x)=v)\prod_{n} P(f(x\oplus e_n)=v) =
    2\cdot\tfrac12\cdot 2^{-N}`; summing over the :math:`2^N` strings (linearity) gives 1.
    Returns the sympy value (symbolic ``N`` unless given).
    """
    N = N_SYMBOL if N is None else sp.sympify(N)
    half = sp.Rational(1, 2)
    p_zero = sum(half * half ** N for _v in (0, 1))
    return sp.powsimp(sp.simplify(2 ** N * p_zero))


def variance_K0(N=None):
    r""":math:`\mathrm{Var}[K_0]` from the pair probabilities :math:`P(x, y` both zero-sensitive):
    ``y = x``: :math:`2^{-N}`; distance 1 or 2: the closed neighbourhoods overlap and their
    union has :math:`2N` points, so :math:`2\cdot 2^{-2N}`; distance :math:`\ge 3`: disjoint,
    :math:`2^{-2N}`. Result: :math:`1 + (N+2)(N-1)/2^{N+1}` (sympy expression)."""
    N = N_SYMBOL if N is None else sp.sympify(N)
    p1 = 2 * sp.Rational(1, 2) ** (N + 1)  # constant on N + 1 points
    n1, n2 = N, sp.binomial(N, 2)
    union = (N + 1) + (N + 1) - 2  # |B(x) u B(y)| at distance 1 (x, y shared) or 2 (2 shared)
    p_close = 2 * sp.Rational(1, 2) ** union
    far = 2 ** N - 1 - n1 - n2
    EK2 = 2 ** N * (p1 + (n1 + n2) * p_close + far * p1 ** 2)
    return sp.simplify(sp.expand(EK2 - expected_K0(N) ** 2))


def variance_K0_claim(N=None):
    r"""The stated :math:`\mathrm{Var}[K_0] = 1 + (N+2)(N-1)/2^{N+1}` (sympy expression), to
    compare with the derived :func:`variance_K0`."""
    N = N_SYMBOL if N is None else sp.sympify(N)
    return 1 + (N + 2) * (N - 1) / 2 ** (N + 1)


def enumerate_random_functions(N: int) -> dict:
    r"""All :math:`2^{2^N}` functions on :math:`\{0,1\}^N` (``N <= 4``): exact
    :math:`P(K_0\ge 1)`, :math:`E[K_0]`, :math:`E[K_0^2]` as ``Fraction`` and the number of
    functions with :math:`K_0 \ge 1`. Vectorised over functions (numpy): function ``F`` has
    :math:`f(x)` = bit ``x`` of ``F``."""
    import numpy as np

    N = check_int(N, "N", lo=1, hi=4)  # 2^(2^N) functions: 65536 at N = 4
    size = 1 << N
    F = np.arange(1 << size, dtype=np.int64)
    tables = ((F[:, None] >> np.arange(size)[None, :]) & 1).astype(np.uint8)  # (#f, 2^N)
    x = np.arange(size)
    zero = np.ones(tables.shape, dtype=bool)
    for n in range(N):
        zero &= tables == tables[:, x ^ (1 << n)]
    K0 = zero.sum(axis=1).astype(np.int64)
    total = 1 << size
    hits = int((K0 >= 1).sum())
    return {
        "N": N,
        "functions": total,
        "hits": hits,
        "p_K0_ge_1": Fraction(hits, total),
        "E_K0": Fraction(int(K0.sum()), total),
        "E_K0_sq": Fraction(int((K0 * K0).sum()), total),
    }


def poisson_limit(dps: int = 50) -> str:
    r""":math:`1 - 1/e` (the limit of :math:`P(K_0\ge 1)` if :math:`K_0` is asymptotically
    Poisson(1), consistent with :math:`E[K_0]=1`, :math:`\mathrm{Var}[K_0]\to 1`) as a decimal
    string of ``dps`` significant digits (mpmath)."""
    import mpmath

    dps = check_int(dps, "dps", lo=1, hi=10000)
    with mpmath.workdps(dps + 10):
        return mpmath.nstr(1 - mpmath.exp(-1), dps)


__all__ = ["N_SYMBOL", "expected_K0", "variance_K0", "variance_K0_claim", "enumerate_random_functions",
           "poisson_limit"]
