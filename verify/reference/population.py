r"""50-digit mpmath references for the two-head sparse-XOR model (claims SX-1 and SX-2 of
``docs/claims.md``), as formalised in boolverify.

Model: attention weights :math:`\gamma = \alpha(V\theta)`, :math:`\tilde\gamma = \alpha(V\tilde\theta)`,
prediction :math:`f(x) = -(\gamma\cdot x)(\tilde\gamma\cdot x)`, target :math:`y = -x_a x_b`,
population loss :math:`L = \mathbb{E}_{x\sim\{\pm1\}^d}[(f(x)-y)^2]`, whose closed form is

.. math::

    L = \|\gamma\|^2\|\tilde\gamma\|^2 + 2(\gamma\cdot\tilde\gamma)^2
        - 2\sum_i \gamma_i^2\tilde\gamma_i^2 - 2(\gamma_a\tilde\gamma_b + \gamma_b\tilde\gamma_a) + 1 .

How precision is kept
---------------------
Near a solution :math:`L` can be :math:`10^{-20}` or :math:`10^{-60}`, and the expanded closed
form above subtracts numbers near 1, losing :math:`\log_{10}(1/L)` digits. Therefore

0. **Exact logits.** Inputs are dyadic rationals (float64 / mpf), so :math:`z = V\theta` is
   computed exactly (``Fraction``) once and rounded a single time at each working precision;
   softmax differences :math:`z_j - z_{\max}` and, for linear attention, :math:`z_a - d` are
   formed exactly before rounding.
1. **Residual variables near a solution.** With the assignment :math:`\gamma \approx e_a`,
   :math:`\tilde\gamma \approx e_b` (or the swapped one, whichever is closer; :math:`L` is
   symmetric in :math:`a, b`) it writes :math:`\gamma = e_a + u`, :math:`\tilde\gamma = e_b + \tilde u`.
   For softmax the residual is computed without cancellation:
   :math:`u_a = \gamma_a - 1 = -\sum_{j\ne a} e^{z_j - z_{\max}} / \sum_j e^{z_j - z_{\max}}`
   (log-sum-exp shift, so logits of size :math:`10^8` are fine), :math:`u_j = \gamma_j` otherwise.
2. **Residual form.** With :math:`f - y = -x_a(\tilde u\cdot x) - x_b(u\cdot x) - (u\cdot x)(\tilde u\cdot x)`,

   .. math::

       L = \|u\|^2 + \|\tilde u\|^2 + 2(u_a\tilde u_b + u_b\tilde u_a)
           + 2u_a\|\tilde u\|^2 + 4\tilde u_a (u\cdot\tilde u) - 4u_a\tilde u_a^2
           + 2\tilde u_b\|u\|^2 + 4u_b (u\cdot\tilde u) - 4\tilde u_b u_b^2
           + \|u\|^2\|\tilde u\|^2 + 2(u\cdot\tilde u)^2 - 2\sum_i u_i^2\tilde u_i^2 ,

   a polynomial without constant term (derived by sympy in :mod:`verify.symbolic.derivation`; the
   expressions evaluated here are the derived ones, lambdified). The gradient
   :math:`g = \partial L/\partial\gamma = \partial L/\partial u` likewise has no constant term.
   For softmax the quadratic part is a sum of non-negative terms (:math:`u_a, \tilde u_b \le 0`,
   all other residuals :math:`\ge 0`), so no digits are lost even at :math:`L = 10^{-60}`.
   This form is used when :math:`|u_a|, |\tilde u_b| \le 1/2`; elsewhere (e.g. tiny weights,
   where :math:`u_a \approx -1` would bury the information of :math:`\gamma_a` and the gradient
   would cancel :math:`O(1)` terms) the derived closed form in :math:`\gamma` is evaluated.
3. **Working precision with a check.** Everything is evaluated at ``dps + 15`` digits and again
   at ``dps + 35``; when the two disagree beyond :math:`10^{-(dps+2)}` relative (cancellation
   inherent in the inputs, e.g. a gradient :math:`V^\top w` whose terms cancel), the working
   precision is doubled and both are redone. The loss is accurate to ``dps`` digits relative;
   each gradient vector to ``dps`` digits relative to its largest component. (The check cannot
   see information that both precisions round away identically; steps 0-2 are there so that
   none is.)

Returned ``mpf`` values carry ``dps`` digits; compare them
inside ``mpmath.workdps(dps)`` (the global ``mp.dps`` defaults to 15).
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from functools import lru_cache

import mpmath

from numeric import vocabulary
from numeric.validation import check_choice, check_int, check_real, check_support, reject
from numeric.vocabulary import ATTENTIONS
from verify.reference.attention_maps import reference_map, round_fraction

_GUARD = 15          # guard digits above dps
_CHECK = 20          # extra digits of the confirming evaluation
_MAX_EXTRA = 4000    # give up raising the precision beyond dps + this (exact zero results)


# --------------------------------------------------------------------------- validation


def _to_nested(x, name):
    """torch / numpy / mpmath.matrix / nested sequences -> nested python lists."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch tensor
        from numeric.validation import check_tensor_storage

        x = check_tensor_storage(x, name).detach().cpu()
        if x.is_complex():
            reject(name, f"<tensor of dtype {x.dtype}>", "real entries")
        return x.tolist()
    if isinstance(x, mpmath.matrix):
        return x.tolist() if x.cols > 1 else [x[i] for i in range(x.rows)]
    if hasattr(x, "tolist") and hasattr(x, "shape"):  # numpy array
        return x.tolist()
    return x


def _shape(x, name):
    """Shape of a rectangular nested list (raises on ragged input)."""
    if isinstance(x, (list, tuple)):
        if len(x) == 0:
            return (0,)
        subs = [_shape(e, name) for e in x]
        if any(s != subs[0] for s in subs):
            reject(name, f"<ragged, entries of shapes {sorted(set(subs))}>", "a rectangular array")
        return (len(x),) + subs[0]
    return ()


def _scalar(x, name):
    """One real entry as an exact ``Fraction`` (floats and mpf values are dyadic rationals)."""
    if not isinstance(x, (numbers.Real, list, tuple)) and hasattr(x, "item"):  # numpy / torch scalar
        x = x.item()
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return Fraction(int(x))
    if isinstance(x, mpmath.mpf) and mpmath.isfinite(x):  # exact, also beyond the float range
        sign, man, exp, _ = x._mpf_  # man_exp drops the sign
        man = -man if sign else man
        return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)
    return Fraction(check_real(x, name))


def validate_instance(V, theta, theta_tilde, support, attention, dps):
    """One instance ``(V, theta, theta_tilde, support)`` of the model, checked with the shared
    helpers of :mod:`numeric.validation`; returns ``(rows, theta, theta_tilde, a, b, dps)`` with
    exact ``Fraction`` entries."""
    check_choice(attention, "attention", vocabulary.ATTENTIONS)
    reference_map(attention)
    dps = check_int(dps, "dps", lo=15)
    Vn = _to_nested(V, "V")
    sV = _shape(Vn, "V")
    if len(sV) != 2:
        reject("V", f"<shape {sV}>", "shape (d, m) (one instance, no batch dimensions: loop "
                   "over a batch)")
    d, m = sV
    check_int(d, "len(V)", lo=2)  # the model needs d >= 2 positions
    check_int(m, "len(V[0])", lo=1)  # and an embedding dimension m >= 1
    vecs = []
    for name, t in (("theta", theta), ("theta_tilde", theta_tilde)):
        tn = _to_nested(t, name)
        st = _shape(tn, name)
        if st != (m,):
            reject(name, f"<shape {st}>", f"shape (m,) = ({m},) to match V of shape ({d}, {m})")
        vecs.append([_scalar(tn[k], f"{name}[{k}]") for k in range(m)])
    rows = [[_scalar(Vn[i][k], f"V[{i}][{k}]") for k in range(m)] for i in range(d)]
    a, b = check_support(support, d)
    return rows, vecs[0], vecs[1], a, b, dps


# --------------------------------------------------------------------------- evaluation


def _logits(rows, th):
    """Exact logits z = V theta (Fractions): computed once, independent of the precision, so
    that no information is lost before the attention map (e.g. z_a - d for linear attention)."""
    return [sum((v * t for v, t in zip(row, th)), Fraction(0)) for row in rows]


def _invariants(u, ut, a, b):
    return dict(
        nu=mpmath.fsum(x * x for x in u),
        nut=mpmath.fsum(x * x for x in ut),
        p=mpmath.fsum(x * y for x, y in zip(u, ut)),
        s=mpmath.fsum((x * y) ** 2 for x, y in zip(u, ut)),
        ua=u[a], ub=u[b], uta=ut[a], utb=ut[b],
    )


@lru_cache(maxsize=2)
def _derived(form):
    """The loss and gradient of ``form``, lambdified from the sympy derivation (cached)."""
    from verify.symbolic.derivation import form_lambdas

    return form_lambdas(form)


# Use the residual form when both heads are within this distance of their targets (there the
# closed form would cancel); elsewhere the closed form in gamma, whose inputs are the weights
# themselves (the residual form would lose the information of tiny weights in u_a = gamma_a - 1).
_RESIDUAL_RADIUS = mpmath.mpf(1) / 2


def _state(z, zt, a, b, attention):
    """Weights, the vectors the chosen form is evaluated in, the (possibly swapped) support and
    the form: ``"residual"`` (vectors u, u~) near the solution, else ``"gamma"``."""
    exact = reference_map(attention).exact
    W, Wt = exact(z), exact(zt)
    # pick the assignment (gamma ~ e_a, gamma~ ~ e_b) or the swapped one, whichever is closer
    if W.gamma[a] + Wt.gamma[b] < W.gamma[b] + Wt.gamma[a]:
        a, b = b, a
    u, ut = W.residual(a), Wt.residual(b)
    if max(abs(u[a]), abs(ut[b])) <= _RESIDUAL_RADIUS:
        return W, Wt, u, ut, a, b, "residual"
    return W, Wt, W.gamma, Wt.gamma, a, b, "gamma"


def _loss_at(z, zt, a, b, attention):
    _, _, u, ut, a, b, form = _state(z, zt, a, b, attention)
    loss_fn, _ = _derived(form)
    return [loss_fn(**_invariants(u, ut, a, b))]


def _grad_at(rows, z, zt, a, b, attention):
    W, Wt, u, ut, a, b, form = _state(z, zt, a, b, attention)
    _, grad_fn = _derived(form)
    inv = _invariants(u, ut, a, b)
    d, m = len(rows), len(rows[0])
    g, gt = [], []
    for i in range(d):
        gi, gti = grad_fn(ui=u[i], uti=ut[i], dia=int(i == a), dib=int(i == b), **inv)
        g.append(gi)
        gt.append(gti)
    out = []
    for Wx, gx, idx, ux in ((W, g, a, u), (Wt, gt, b, ut)):
        w = Wx.jvp_t(gx, idx, ux[idx]) if form == "residual" else Wx.jvp_t(gx)
        out.append([mpmath.fsum(round_fraction(rows[i][k]) * w[i] for i in range(d)) for k in range(m)])
    return out[0] + out[1], m


def _agree(x, y, dps, groups):
    tol = mpmath.mpf(10) ** (-(dps + 2))
    for lo, hi in groups:
        scale = max(abs(v) for v in y[lo:hi])
        if scale == 0:
            if any(v != 0 for v in x[lo:hi]):
                return False
            continue
        if max(abs(p - q) for p, q in zip(x[lo:hi], y[lo:hi])) > tol * scale:
            return False
    return True


def _resolution_digits(z, zt, attention):
    """Digits that the weights need beyond ``dps`` so that the stability check can see them.

    Two working precisions that both round away the same information agree on a wrong answer:
    saturated erf weights hold it ~log10(1/erfc|z|) digits down (d = 2, |z| = 14: gradient
    5.2e-172, not 0), and softmax weights of nearly equal logits differ only ~log10(1/spread)
    digits down (spread 1.2e-239: gradient 1.2e-239, not 0). Beyond ``_MAX_EXTRA`` digits the
    information is out of reach anyway (the result rounds to 0, a documented limit), so no
    extra precision is spent there."""
    resolution_tail = reference_map(attention).resolution_tail
    if resolution_tail is None:
        return 0
    with mpmath.workdps(30):
        tail = resolution_tail(z, zt)
        digits = int(mpmath.ceil(-mpmath.log10(tail))) if tail > 0 else _MAX_EXTRA + 1
    return digits if 0 < digits <= _MAX_EXTRA else 0


def _stable(fn, dps, groups_of, start_extra=0):
    """Evaluate ``fn`` at two working precisions; raise the precision until they agree."""
    extra = _GUARD + start_extra
    while True:
        with mpmath.workdps(dps + extra):
            r1 = fn()
        with mpmath.workdps(dps + extra + _CHECK):
            r2 = fn()
            groups = groups_of(len(r2))
            if _agree(r1, r2, dps, groups) or extra > _MAX_EXTRA:
                break
        extra *= 2
    with mpmath.workdps(dps):
        return [+v for v in r2]


# --------------------------------------------------------------------------- public API


def population_loss(V, theta, theta_tilde, support, attention="softmax", dps=50):
    r"""Population loss :math:`L(\theta,\tilde\theta) = \mathbb{E}_x[(f(x) - y)^2]` at ``dps`` digits.

    .. math::

        L = \|\gamma\|^2\|\tilde\gamma\|^2 + 2(\gamma\cdot\tilde\gamma)^2
            - 2\sum_i \gamma_i^2\tilde\gamma_i^2 - 2(\gamma_a\tilde\gamma_b + \gamma_b\tilde\gamma_a) + 1,
        \qquad \gamma = \alpha(V\theta),\ \tilde\gamma = \alpha(V\tilde\theta),

    evaluated in the residual form (module docstring) so that the relative error is
    :math:`\le 10^{-\mathrm{dps}}` also when :math:`L` is tiny.

    Args:
        V: embeddings, shape ``(d, m)`` (row ``i`` is :math:`v_i`), nested lists, numpy or torch;
            ``d >= 2``, ``m >= 1``, finite entries. One instance (no batch dimensions).
        theta, theta_tilde: query vectors, shape ``(m,)``.
        support: ``(a, b)`` with ``0 <= a != b < d`` (0-based).
        attention: ``"softmax"``, ``"linear"`` (:math:`\gamma_i = v_i\cdot\theta/d`) or ``"erf"``
            (:math:`\gamma_i = \mathrm{erf}(v_i\cdot\theta)/d`).
        dps: decimal digits of the result (>= 15).

    Returns:
        ``mpmath.mpf`` with ``dps`` digits.

    Raises:
        InputError: bad shapes, ``d < 2``, ``m < 1``, support out of range or ``a == b``,
        NaN/inf, unknown attention, ``dps < 15``.
    """
    rows, th, tht, a, b, dps = validate_instance(V, theta, theta_tilde, support, attention, dps)
    z, zt = _logits(rows, th), _logits(rows, tht)
    return _stable(lambda: _loss_at(z, zt, a, b, attention), dps, lambda n: [(0, 1)],
                   _resolution_digits(z, zt, attention))[0]


def population_grad(V, theta, theta_tilde, support, attention="softmax", dps=50):
    r"""Gradients :math:`(\nabla_\theta L, \nabla_{\tilde\theta} L)` at ``dps`` digits, no finite differences.

    With :math:`g = \partial L/\partial\gamma`,

    .. math::

        g_i = 2\gamma_i\|\tilde\gamma\|^2 + 4(\gamma\cdot\tilde\gamma)\tilde\gamma_i
              - 4\gamma_i\tilde\gamma_i^2 - 2(\delta_{ia}\tilde\gamma_b + \delta_{ib}\tilde\gamma_a)

    (symmetric for :math:`\tilde g`, evaluated as the residual-form derivative
    :math:`\partial L/\partial u`, which has no constant term), and
    :math:`\nabla_\theta L = (\partial\gamma/\partial\theta)^\top g = V^\top J g` with
    :math:`J = \mathrm{diag}\,\gamma - \gamma\gamma^\top` (softmax, so
    :math:`\nabla_\theta L = V^\top(\gamma\odot(g - (\gamma\cdot g)\mathbf 1))`),
    :math:`J = I/d` (linear), :math:`J = \mathrm{diag}(\tfrac{2}{\sqrt\pi}e^{-z_i^2})/d` (erf),
    :math:`z = V\theta`.

    Args: as :func:`population_loss`.

    Returns:
        ``(grad_theta, grad_theta_tilde)``: two lists of ``m`` ``mpmath.mpf``, each accurate to
        ``dps`` digits relative to its largest component.

    Raises:
        InputError: as :func:`population_loss`.
    """
    rows, th, tht, a, b, dps = validate_instance(V, theta, theta_tilde, support, attention, dps)
    m = len(th)
    z, zt = _logits(rows, th), _logits(rows, tht)
    r = _stable(lambda: _grad_at(rows, z, zt, a, b, attention)[0], dps,
                lambda n: [(0, m), (m, 2 * m)], _resolution_digits(z, zt, attention))
    return r[:m], r[m:]


__all__ = ["ATTENTIONS", "population_loss", "population_grad", "validate_instance"]
