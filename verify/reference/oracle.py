r"""Brute-force enumeration of :math:`\{\pm1\}^d` at high mpmath precision: the independent
numeric side of the population loss and gradient.

:func:`enumerated_loss_mp` sums :math:`(f(x) - y(x))^2` over all :math:`2^d` inputs from the
logits :math:`V\theta` (a sum of squares, so no cancellation); :func:`enumerated_grad_mp` gives
the :math:`\theta`-gradient either through the enumerated :math:`\partial L/\partial\gamma` and
the explicit Jacobian matrix, or by mpmath's high-precision differentiation of the enumerated
loss. Neither uses the derived closed form.
"""

from __future__ import annotations

import itertools

import mpmath

from numeric.validation import check_choice, check_int
from verify.reference.population import round_fraction, validate_instance
from verify.symbolic.enumeration import MAX_ENUM_D

#: How :func:`enumerated_grad_mp` differentiates the enumerated loss.
GRAD_METHODS = ("jacobian", "diff")


def _attention(z, attention):
    d = len(z)
    if attention == "softmax":
        zmax = max(z)
        e = [mpmath.exp(zi - zmax) for zi in z]
        S = mpmath.fsum(e)
        return [ei / S for ei in e]
    if attention == "linear":
        return [zi / d for zi in z]
    return [mpmath.erf(zi) / d for zi in z]


def _jacobian(z, attention):
    """Full matrix J[j][i] = d gamma_j / d z_i, written out per attention map."""
    d = len(z)
    if attention == "softmax":
        g = _attention(z, attention)
        return [[g[j] * ((1 if i == j else 0) - g[i]) for i in range(d)] for j in range(d)]
    if attention == "linear":
        return [[mpmath.mpf(1) / d if i == j else mpmath.mpf(0) for i in range(d)] for j in range(d)]
    c = 2 / mpmath.sqrt(mpmath.pi) / d
    return [[c * mpmath.exp(-z[i] ** 2) if i == j else mpmath.mpf(0) for i in range(d)]
            for j in range(d)]


def _checked(V, theta, theta_tilde, support, attention, dps):
    """The instance as :func:`validate_instance` checks it, with ``d <= MAX_ENUM_D`` (``2^d``
    inputs are enumerated) and ``dps`` the working precision."""
    rows, th, tht, a, b, _ = validate_instance(V, theta, theta_tilde, support, attention, 50)
    check_int(len(rows), "len(V)", lo=2, hi=MAX_ENUM_D)
    check_int(dps, "dps", lo=15)
    return rows, th, tht, a, b


def _logits(rows, th):
    """Plain mpmath dot products at the working precision (entries: exact Fractions or mpf)."""
    return [mpmath.fsum(_to_mp(v) * _to_mp(t) for v, t in zip(r, th)) for r in rows]


def _to_mp(x):
    return x if isinstance(x, mpmath.mpf) else round_fraction(x)


def _enum_gamma_loss(g, gt, a, b):
    d = len(g)
    total = mpmath.mpf(0)
    for x in itertools.product((-1, 1), repeat=d):
        gx = mpmath.fsum(gi for gi, xi in zip(g, x) if xi > 0) - mpmath.fsum(
            gi for gi, xi in zip(g, x) if xi < 0)
        gtx = mpmath.fsum(gi for gi, xi in zip(gt, x) if xi > 0) - mpmath.fsum(
            gi for gi, xi in zip(gt, x) if xi < 0)
        e = -gx * gtx + x[a] * x[b]
        total += e * e
    return total / 2 ** d


def enumerated_loss_mp(V, theta, theta_tilde, support, attention="softmax", dps=80):
    r""":math:`2^{-d}\sum_{x\in\{\pm1\}^d}(f(x) - y(x))^2` at ``dps`` digits, by brute force.

    Near a solution :math:`f - y` is computed with cancellation (:math:`\log_{10}(1/|f-y|)` digits
    are lost), so pass ``dps`` well above 50 + that; the sum of squares itself loses nothing.
    """
    rows, th, tht, a, b = _checked(V, theta, theta_tilde, support, attention, dps)
    with mpmath.workdps(dps):
        g = _attention(_logits(rows, th), attention)
        gt = _attention(_logits(rows, tht), attention)
        return +_enum_gamma_loss(g, gt, a, b)


def enumerated_grad_mp(V, theta, theta_tilde, support, attention="softmax", dps=80,
                       method="jacobian"):
    r"""The :math:`\theta`- and :math:`\tilde\theta`-gradients of the enumerated loss.

    ``method="jacobian"``: :math:`\partial L/\partial\gamma_i = 2^{-d}\sum_x 2(f-y)(-x_i\,\tilde\gamma\cdot x)`
    by enumeration, then :math:`\nabla_\theta L = V^\top J^\top\partial L/\partial\gamma` with the full
    Jacobian matrix. ``method="diff"``: ``mpmath.diff`` of the enumerated loss in each
    :math:`\theta_k` (high-precision numerical differentiation; slower).
    """
    rows, th, tht, a, b = _checked(V, theta, theta_tilde, support, attention, dps)
    check_choice(method, "method", GRAD_METHODS)
    d, m = len(rows), len(th)
    with mpmath.workdps(dps):
        if method == "diff":
            out = []
            for which in (0, 1):
                base = [list(map(_to_mp, th)), list(map(_to_mp, tht))]

                def loss_k(t, k, which=which, base=base):
                    vecs = [list(base[0]), list(base[1])]
                    vecs[which][k] = t
                    return _enum_gamma_loss(_attention(_logits(rows, vecs[0]), attention),
                                            _attention(_logits(rows, vecs[1]), attention), a, b)

                out.append([+mpmath.diff(lambda t: loss_k(t, k), base[which][k]) for k in range(m)])
            return out[0], out[1]
        z, zt = _logits(rows, th), _logits(rows, tht)
        g, gt = _attention(z, attention), _attention(zt, attention)
        dg = [mpmath.mpf(0)] * d
        dgt = [mpmath.mpf(0)] * d
        for x in itertools.product((-1, 1), repeat=d):
            gx = mpmath.fsum(gi * xi for gi, xi in zip(g, x))
            gtx = mpmath.fsum(gi * xi for gi, xi in zip(gt, x))
            r = 2 * (-gx * gtx + x[a] * x[b])
            for i in range(d):
                dg[i] += r * (-x[i] * gtx)
                dgt[i] += r * (-x[i] * gx)
        dg = [v / 2 ** d for v in dg]
        dgt = [v / 2 ** d for v in dgt]
        res = []
        for zz, dd in ((z, dg), (zt, dgt)):
            J = _jacobian(zz, attention)
            dz = [mpmath.fsum(J[j][i] * dd[j] for j in range(d)) for i in range(d)]
            res.append([+mpmath.fsum(_to_mp(rows[i][k]) * dz[i] for i in range(d))
                        for k in range(m)])
        return res[0], res[1]


__all__ = ["GRAD_METHODS", "enumerated_loss_mp", "enumerated_grad_mp"]
