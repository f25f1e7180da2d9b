r"""The attention maps of the mpmath references, one entry per map (the reference layer's
registry, keyed by the names of :data:`numeric.vocabulary.ATTENTIONS`).

Each :class:`ReferenceMap` holds what :mod:`verify.reference.population` (residual forms from
exact logits) and :mod:`verify.reference.oracle` (brute-force enumeration) evaluate of the map:

- softmax :math:`\gamma_i = e^{z_i}/\sum_j e^{z_j}`, :math:`J = \mathrm{diag}\,\gamma - \gamma\gamma^\top`;
- linear :math:`\gamma_i = z_i/d`, :math:`J = I/d`;
- erf :math:`\gamma_i = \mathrm{erf}(z_i)/d`, :math:`J = \mathrm{diag}(\tfrac{2}{\sqrt\pi}e^{-z_i^2})/d`.

No code of the reference layer branches on a map's name: a name without an entry raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import mpmath
from mpmath.libmp import from_rational, round_nearest

from numeric.validation import reject


def round_fraction(q):
    """A Fraction rounded once (to nearest) to the working precision."""
    return mpmath.mpf(from_rational(q.numerator, q.denominator, mpmath.mp.prec, round_nearest))


@dataclass(frozen=True)
class ReferenceMap:
    r"""One attention map of the references.

    Attributes:
        name: the map's name in :data:`numeric.vocabulary.ATTENTIONS`.
        weights: ``weights(z)``: :math:`\gamma` from mpf logits at the working precision.
        jacobian: ``jacobian(z)``: the full matrix ``J[j][i]`` :math:`= \partial\gamma_j/\partial z_i`.
        jacobian_magnitude: ``jacobian_magnitude(z)``: ``|J|`` with each entry replaced by the
            magnitude of what it is computed from (its rounding scale).
        exact: ``exact(zq)``: the weights from exact ``Fraction`` logits, an object with
            ``gamma``, ``residual(idx)`` (:math:`\gamma - e_{idx}` without cancellation) and
            ``jvp_t(g, idx=None, u_idx=None)`` (:math:`J^\top g`, exact at the residual index).
        resolution_tail: ``resolution_tail(z, zt)``: how far down (a positive number, e.g.
            :math:`10^{-k}`) the weights of the exact logits of both heads hold their
            information, or None where they need no digits beyond the working precision.
    """

    name: str
    weights: Callable
    jacobian: Callable
    jacobian_magnitude: Callable
    exact: Callable
    resolution_tail: Callable | None


def _diagonal(entries):
    d = len(entries)
    return [[entries[i] if i == j else mpmath.mpf(0) for i in range(d)] for j in range(d)]


def _abs_jacobian(jacobian):
    return lambda z: [[abs(v) for v in row] for row in jacobian(z)]


# --------------------------------------------------------------------------- softmax


def _softmax_weights(z):
    zmax = max(z)
    e = [mpmath.exp(zi - zmax) for zi in z]
    S = mpmath.fsum(e)
    return [ei / S for ei in e]


def _softmax_jacobian(z):
    d = len(z)
    g = _softmax_weights(z)
    return [[g[j] * ((1 if i == j else 0) - g[i]) for i in range(d)] for j in range(d)]


def _softmax_jacobian_magnitude(z):
    # the entry g_j (delta_ij - g_i) cancels when g_i is near 1: its rounding error is ~eps g_j
    d = len(z)
    g = _softmax_weights(z)
    return [[g[j] * ((1 if i == j else 0) + g[i]) for i in range(d)] for j in range(d)]


class _SoftmaxExact:
    """Softmax weights of exact logits (log-sum-exp shift, exact differences)."""

    def __init__(self, zq):
        self.zq = zq
        zmax = max(zq)
        self.e = [mpmath.exp(round_fraction(q - zmax)) for q in zq]
        self.S = mpmath.fsum(self.e)
        self.gamma = [ei / self.S for ei in self.e]

    def residual(self, idx):
        u = list(self.gamma)
        # 1 - gamma_idx = sum_{j != idx} gamma_j: no cancellation
        u[idx] = -mpmath.fsum(e for j, e in enumerate(self.e) if j != idx) / self.S
        return u

    def jvp_t(self, g, idx=None, u_idx=None):
        """w_i = gamma_i (g_i - gamma.g). At the residual index ``idx`` (gamma_idx near 1)
        g_idx - gamma.g = (1 - gamma_idx) g_idx - sum_{j != idx} gamma_j g_j with
        1 - gamma_idx = -u_idx exact, so the O(u^2) result is not a difference of O(u) terms."""
        d = len(self.gamma)
        if idx is None:
            # Far from the target the most-attended position can still be saturated
            # (1 - gamma_k below the working precision): treat it as the residual index too.
            idx = max(range(d), key=lambda j: self.e[j])
            u_idx = self.residual(idx)[idx]
        rest = mpmath.fsum(gi * gg for j, (gi, gg) in enumerate(zip(g, self.gamma)) if j != idx)
        s = rest + self.gamma[idx] * g[idx]
        w = [gg * (gi - s) for gi, gg in zip(g, self.gamma)]
        w[idx] = self.gamma[idx] * (-u_idx * g[idx] - rest)
        return w


def _softmax_tail(z, zt):
    # weights of nearly equal logits differ only ~log10(1/spread) digits down
    spreads = [max(h) - min(h) for h in (z, zt) if max(h) != min(h)]  # exact Fractions
    return round_fraction(min(spreads)) if spreads else mpmath.mpf(1)


# --------------------------------------------------------------------------- linear


def _linear_weights(z):
    d = len(z)
    return [zi / d for zi in z]


def _linear_jacobian(z):
    d = len(z)
    return _diagonal([mpmath.mpf(1) / d] * d)


class _LinearExact:
    """Linear weights z/d of exact logits, each rounded once."""

    def __init__(self, zq):
        self.zq = zq
        d = len(zq)
        self.gamma = [round_fraction(q / d) for q in zq]

    def residual(self, idx):
        u = list(self.gamma)
        u[idx] = round_fraction((self.zq[idx] - len(self.zq)) / len(self.zq))  # exact, then rounded once
        return u

    def jvp_t(self, g, idx=None, u_idx=None):
        d = len(self.gamma)
        return [gi / d for gi in g]


# --------------------------------------------------------------------------- erf


def _erf_weights(z):
    d = len(z)
    return [mpmath.erf(zi) / d for zi in z]


def _erf_jacobian(z):
    d = len(z)
    c = 2 / mpmath.sqrt(mpmath.pi) / d
    return _diagonal([c * mpmath.exp(-z[i] ** 2) for i in range(d)])


class _ErfExact:
    """Erf weights erf(z)/d of the rounded exact logits."""

    def __init__(self, zq):
        self.zq = zq
        self.z = [round_fraction(q) for q in zq]
        d = len(zq)
        self.gamma = [mpmath.erf(zi) / d for zi in self.z]

    def residual(self, idx):
        u = list(self.gamma)
        u[idx] = self.gamma[idx] - 1
        return u

    def jvp_t(self, g, idx=None, u_idx=None):
        d = len(self.gamma)
        c = 2 / mpmath.sqrt(mpmath.pi) / d
        return [c * mpmath.exp(-zi * zi) * gi for gi, zi in zip(g, self.z)]


def _erf_tail(z, zt):
    # saturated weights hold their information ~log10(1/erfc|z|) digits down
    return mpmath.erfc(max(abs(round_fraction(q)) for q in list(z) + list(zt)))


#: The references' attention maps, keyed by the names of :data:`numeric.vocabulary.ATTENTIONS`.
REFERENCE_MAPS = {
    "softmax": ReferenceMap("softmax", _softmax_weights, _softmax_jacobian,
                            _softmax_jacobian_magnitude, _SoftmaxExact, _softmax_tail),
    "linear": ReferenceMap("linear", _linear_weights, _linear_jacobian,
                           _abs_jacobian(_linear_jacobian), _LinearExact, None),
    "erf": ReferenceMap("erf", _erf_weights, _erf_jacobian, _abs_jacobian(_erf_jacobian),
                        _ErfExact, _erf_tail),
}


def reference_map(attention) -> ReferenceMap:
    """The entry of ``attention``; :class:`InputError` for a name without one (never a
    fallback to another map)."""
    try:
        return REFERENCE_MAPS[attention]
    except (KeyError, TypeError):
        reject("attention", attention, f"one of {tuple(REFERENCE_MAPS)}, the attention maps the "
               "references implement")


__all__ = ["ReferenceMap", "REFERENCE_MAPS", "reference_map", "round_fraction"]
