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
from verify.reference.attention_maps import reference_map, round_fraction
from verify.reference.population import validate_instance
from verify.symbolic.enumeration import MAX_ENUM_D

#: How :func:`enumerated_grad_mp` differentiates the enumerated loss.
GRAD_METHODS = ("jacobian", "diff")

#: The documented limit of :func:`enumerated_grad_converged`: it does not raise the working
#: precision beyond this many digits (an exactly-zero gradient would otherwise be chased
#: forever, its rounding noise shrinking with every raise); there the floor decides.
MAX_ORACLE_DPS = 4000

#: Digits of the working precision that the rounding floor does not trust: they cover the
#: constant factors of the error bound (up to 2^16 enumerated inputs, d-term sums, the
#: products of rounded factors).
_UNTRUSTED_DIGITS = 10


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
        weights = reference_map(attention).weights
        g = weights(_logits(rows, th))
        gt = weights(_logits(rows, tht))
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
    m = len(th)
    with mpmath.workdps(dps):
        if method == "diff":
            out = []
            for which in (0, 1):
                base = [list(map(_to_mp, th)), list(map(_to_mp, tht))]

                def loss_k(t, k, which=which, base=base):
                    vecs = [list(base[0]), list(base[1])]
                    vecs[which][k] = t
                    weights = reference_map(attention).weights
                    return _enum_gamma_loss(weights(_logits(rows, vecs[0])),
                                            weights(_logits(rows, vecs[1])), a, b)

                out.append([+mpmath.diff(lambda t: loss_k(t, k), base[which][k]) for k in range(m)])
            return out[0], out[1]
        return _jacobian_grad(rows, th, tht, a, b, attention)[0]


def _jacobian_grad(rows, th, tht, a, b, attention):
    r"""The enumerated gradient through the Jacobian matrix, and for each head the scale of the
    largest term that entered it: :math:`(1 + \max|z|)^2 \max_k \sum_i |V_{ik}| \sum_j |J|_{ji} D_j`
    with :math:`D_j` the enumerated sum of :math:`|\partial L/\partial\gamma_j|`'s terms before they
    cancel. The rounding error of each component is below ``10^(UNTRUSTED - dps)`` times it;
    the factor in ``z`` covers the single rounding of the logits (erf: :math:`e^{-z^2}`)."""
    d, m = len(rows), len(th)
    rmap = reference_map(attention)
    z, zt = _logits(rows, th), _logits(rows, tht)
    g, gt = rmap.weights(z), rmap.weights(zt)
    dg = [mpmath.mpf(0)] * d
    dgt = [mpmath.mpf(0)] * d
    dg_mag = dgt_mag = mpmath.mpf(0)  # the same for every i: |x_i| = 1
    for x in itertools.product((-1, 1), repeat=d):
        gx = mpmath.fsum(gi * xi for gi, xi in zip(g, x))
        gtx = mpmath.fsum(gi * xi for gi, xi in zip(gt, x))
        r = 2 * (-gx * gtx + x[a] * x[b])
        r_mag = 2 * (abs(gx * gtx) + 1)  # r cancels near a solution
        dg_mag += r_mag * abs(gtx)
        dgt_mag += r_mag * abs(gx)
        for i in range(d):
            dg[i] += r * (-x[i] * gtx)
            dgt[i] += r * (-x[i] * gx)
    dg = [v / 2 ** d for v in dg]
    dgt = [v / 2 ** d for v in dgt]
    res, scales = [], []
    for zz, dd, dd_mag in ((z, dg, dg_mag / 2 ** d), (zt, dgt, dgt_mag / 2 ** d)):
        J = rmap.jacobian(zz)
        dz = [mpmath.fsum(J[j][i] * dd[j] for j in range(d)) for i in range(d)]
        res.append([+mpmath.fsum(_to_mp(rows[i][k]) * dz[i] for i in range(d)) for k in range(m)])
        Jm = rmap.jacobian_magnitude(zz)
        dz_mag = [mpmath.fsum(Jm[j][i] for j in range(d)) * dd_mag for i in range(d)]
        z_factor = (1 + max(abs(v) for v in zz)) ** 2
        scales.append(z_factor * max(mpmath.fsum(abs(_to_mp(rows[i][k])) * dz_mag[i]
                                                 for i in range(d)) for k in range(m)))
    return (res[0], res[1]), scales


def enumerated_grad_converged(V, theta, theta_tilde, support, attention="softmax", rel_digits=45,
                              dps=80, max_dps=MAX_ORACLE_DPS):
    r"""The enumerated gradient (``method="jacobian"``) with the working precision raised until
    each head's rounding floor lies below ``10^-rel_digits`` of its largest component, or until
    ``max_dps`` (the documented limit, at most :data:`MAX_ORACLE_DPS`) is reached.

    Returns ``((grad_theta, grad_theta_tilde), (floor, floor_tilde))``: a value ``x`` of a head
    agrees with the enumeration ``ref`` when, for each component,

    .. math::

        |x_k - \mathrm{ref}_k| \le 10^{-\mathrm{rel\_digits}} \max_j |\mathrm{ref}_j|
            + \mathrm{floor}, \qquad \mathrm{floor} = 10^{-(\mathrm{dps} - 10)}\,\mathrm{scale},

    ``dps`` the final working precision and ``scale`` the largest term that entered the head's
    gradient (see ``_jacobian_grad``). Below the floor the enumeration cannot tell a value from
    0: an exactly-zero gradient (all rows of ``V`` equal under softmax; a symmetric support) comes
    back as rounding noise that shrinks with every raise, so it is never chased past
    ``max_dps``. A small true gradient (a saturated softmax, ``1 - erf(z)`` below the working
    precision, which can round to an exact 0) makes the floor exceed the tolerance and the
    precision is raised, at least doubled each time.
    """
    rows, th, tht, a, b = _checked(V, theta, theta_tilde, support, attention, dps)
    check_int(max_dps, "max_dps", lo=dps, hi=MAX_ORACLE_DPS)
    check_int(rel_digits, "rel_digits", lo=1)
    while True:
        with mpmath.workdps(dps):
            grads, scales = _jacobian_grad(rows, th, tht, a, b, attention)
        with mpmath.workdps(30):
            floors = [mpmath.mpf(10) ** (_UNTRUSTED_DIGITS - dps) * sc for sc in scales]
            sizes = [max(abs(v) for v in y) for y in grads]
            if dps >= max_dps or all(f <= mpmath.mpf(10) ** -rel_digits * sz
                                     for f, sz in zip(floors, sizes)):
                return grads, tuple(floors)
            # the precision that puts each floor 2 digits under the tolerance of the size seen
            need = max(dps + rel_digits + 2 + int(mpmath.ceil(mpmath.log10(f / sz))) if sz > 0
                       else 2 * dps for f, sz in zip(floors, sizes) if f > 0)
        dps = min(max(need, 2 * dps), max_dps)


__all__ = ["GRAD_METHODS", "MAX_ORACLE_DPS", "enumerated_loss_mp", "enumerated_grad_mp",
           "enumerated_grad_converged"]
