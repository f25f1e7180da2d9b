r"""The Boolean targets of the training experiments (claim SG-8): MAJORITY (strict), FIRST and
PARITY, as labels computed from bits (any :math:`N`), as truth tables, and their exact
statistics (best constant's accuracy, average sensitivity, sensitivity profile) from the
Hamming-weight form of the symmetric targets, so that they hold for any :math:`N`.

The training loop that uses them is :mod:`verify.experiments.training`.
"""

from __future__ import annotations

import math

import torch

from numeric.boolean import truth_table
from numeric.validation import check_choice, check_int
from numeric.vocabulary import TRAINING_TARGETS as TARGETS


def labels(target: str, bits: torch.Tensor) -> torch.Tensor:
    r"""Target values on a bit matrix, computed from the bits (any N).

    MAJORITY (strict): :math:`1[|x| > N/2]`; FIRST: :math:`x_0`; PARITY: :math:`|x| \bmod 2`.

    Args: ``target`` one of ``TARGETS``; ``bits`` a ``(B, N)`` integer 0/1 tensor.
    Returns: ``(B,)`` int64 tensor of 0/1.
    """
    check_choice(target, "target", TARGETS)
    check_int(bits.ndim, "bits.ndim", lo=2, hi=2)
    check_int(bits.shape[1], "bits.shape[1]", lo=1)
    N = bits.shape[1]
    w = bits.to(torch.int64).sum(-1)
    if target == "majority":
        return (2 * w > N).to(torch.int64)
    if target == "first":
        return bits[:, 0].to(torch.int64)
    return (w % 2).to(torch.int64)


def weight_function(target: str, N: int):
    """The target as a function of the Hamming weight (MAJORITY, PARITY), or ``None`` (FIRST)."""
    check_choice(target, "target", TARGETS)
    if target == "majority":
        return lambda w: int(2 * w > N)
    if target == "parity":
        return lambda w: w % 2
    return None


def _weight_sensitivity(g, N, w):
    """Sensitivity of every string of weight ``w`` under the symmetric target ``g``."""
    return (N - w) * (w < N and g(w + 1) != g(w)) + w * (w > 0 and g(w - 1) != g(w))


def baseline_accuracy(target: str, N: int) -> float:
    r"""Accuracy of the best constant function, :math:`\max(p, 1-p)` with :math:`p = P(f = 1)`.

    Exact: :math:`p = 2^{-N}\sum_{w: f(w)=1}\binom{N}{w}` for symmetric targets, ``1/2`` for FIRST.
    """
    check_choice(target, "target", TARGETS)
    check_int(N, "N", lo=1)
    g = weight_function(target, N)
    if g is None:
        return 0.5
    ones = sum(math.comb(N, w) for w in range(N + 1) if g(w))
    p = ones / 2**N
    return max(p, 1.0 - p)


def target_mean_sensitivity(target: str, N: int) -> float:
    r"""Exact average sensitivity :math:`\mathrm{as}(f) = 2^{-N}\sum_x s(x, f)` of a target.

    For a symmetric :math:`f` a string of weight :math:`w` has
    :math:`s = (N - w)\,1[f(w+1) \ne f(w)] + w\,1[f(w-1) \ne f(w)]`; FIRST has :math:`s \equiv 1`.
    """
    check_choice(target, "target", TARGETS)
    check_int(N, "N", lo=1)
    g = weight_function(target, N)
    if g is None:
        return 1.0
    total = 0
    for w in range(N + 1):
        total += math.comb(N, w) * _weight_sensitivity(g, N, w)
    return total / 2**N


def target_profile_fraction(target: str, N: int) -> list[float]:
    r"""Exact profile of a target as fractions :math:`K_k / 2^N`, :math:`k = 0..N`, any N.

    Symmetric targets: every string of weight :math:`w` has the sensitivity :math:`s(w)` of
    :func:`target_mean_sensitivity`, so :math:`K_k = \sum_{w : s(w) = k} \binom{N}{w}`;
    FIRST: :math:`K_1 = 2^N`.
    """
    check_choice(target, "target", TARGETS)
    check_int(N, "N", lo=1)
    g = weight_function(target, N)
    K = [0] * (N + 1)
    if g is None:
        K[1] = 2**N
    else:
        for w in range(N + 1):
            K[_weight_sensitivity(g, N, w)] += math.comb(N, w)
    return [k / 2**N for k in K]


def target_table(target: str, N: int) -> torch.Tensor:
    """Truth table over all ``2^N`` strings in string-index order (int64), via
    :func:`numeric.boolean.truth_table`."""
    check_choice(target, "target", TARGETS)
    return truth_table(target, N).to(torch.int64).reshape(-1)


__all__ = ["TARGETS", "labels", "weight_function", "baseline_accuracy", "target_mean_sensitivity",
           "target_profile_fraction", "target_table"]
