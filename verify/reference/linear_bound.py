r"""Representational lower bounds on the loss of linear and erf attention (claim SX-5).

**Set-up.** The prediction :math:`f(x) = -(\gamma\cdot x)(\tilde\gamma\cdot x) = -x^\top M x` with
:math:`M = \tfrac12(\gamma\tilde\gamma^\top + \tilde\gamma\gamma^\top)` and the target
:math:`y = -x^\top E x`, :math:`E = \tfrac12(e_ae_b^\top + e_be_a^\top)`. For a symmetric
:math:`A` and Rademacher :math:`x`, :math:`E[(x^\top A x)^2] = (\operatorname{tr}A)^2 +
2\sum_{i\ne j}A_{ij}^2`, so (with :math:`\operatorname{tr}E = 0`)

.. math:: L(M) = (\operatorname{tr} M)^2 + 2\sum_{i\ne j} (M - E)_{ij}^2 ,

a convex quadratic in :math:`M` (this reproduces the SX-1 closed form).

**Linear attention.** :math:`\gamma = V\theta/d` ranges over :math:`S = \operatorname{span}(V)`
(dimension :math:`m < d`), and so does :math:`\tilde\gamma`; hence :math:`M = UAU^\top` for an
orthonormal basis :math:`U \in \mathbb{R}^{d\times m}` of :math:`S` and a symmetric
:math:`A` (of rank :math:`\le 2`). Dropping the rank constraint gives a convex problem whose
minimum is a lower bound on the best loss over all :math:`\theta, \tilde\theta`:

.. math:: L^\star_{\mathrm{lin}} \ge \min_{A = A^\top} Q(A),\quad
   Q(A) = (\operatorname{tr}A)^2 + 2\|A\|_F^2 - 2\sum_i (u_i^\top A u_i)^2 - 4\langle A, B\rangle + 1,

with :math:`u_i` the rows of :math:`U` and :math:`B = U^\top E U`. In vectorised form
:math:`Q = x^\top H x - 4 b^\top x + 1`, :math:`H = \mathrm{vec}(I)\mathrm{vec}(I)^\top + 2I -
2W^\top W` (rows of :math:`W`: :math:`\mathrm{vec}(u_iu_i^\top)`), PSD; the minimum is
:math:`1 - 4 b^\top H^{+} b`. (Antisymmetric parts of :math:`A` only add :math:`2\|K\|_F^2`, so
minimising over all :math:`A` is the same.)

**erf attention.** :math:`|\gamma_i| = |\mathrm{erf}(v_i\cdot\theta)|/d < 1/d`, so
:math:`|M_{ab}| < 1/d^2` and :math:`L \ge 4(\tfrac12 - M_{ab})^2 > (1 - 2/d^2)^2`.

numpy only.
"""

from __future__ import annotations

import numpy as np

from numeric.validation import check_int, check_support, reject


def _matrix(M, name, square=False):
    """``M`` as a float array of shape ``(rows, cols)`` (square when asked) with finite entries."""
    expected = "a square matrix" if square else "a (d, m) array of real numbers"
    try:
        M = np.asarray(M, dtype=float)
    except (TypeError, ValueError):
        reject(name, "<not a rectangular array of numbers>", expected)
    if M.ndim != 2 or (square and M.shape[0] != M.shape[1]):
        reject(name, f"<array of shape {M.shape}>", expected)
    bad = np.argwhere(~np.isfinite(M))
    if bad.size:
        i, k = bad[0]
        reject(name, f"<array whose entry [{i}][{k}] is {M[i, k]}>", "finite entries")
    return M


def _check(V, support):
    """The instance ``(V, support)`` of the linear bound: ``d >= 2``, ``1 <= m < d``, ``m <= 64``
    (the dense m^2 x m^2 system), finite entries."""
    V = _matrix(V, "V")
    d, m = V.shape
    if d < 2 or not 1 <= m <= min(d - 1, 64):  # the bound is for m < d
        reject("V", f"<array of shape {V.shape}>", "shape (d, m) with d >= 2 and 1 <= m < d, m <= 64")
    a, b = check_support(support, d)
    return V, a, b


def relaxation_hessian(U):
    r""":math:`H = \mathrm{vec}(I)\mathrm{vec}(I)^\top + 2I - 2W^\top W` of the vectorised
    relaxation :math:`Q = x^\top H x - 4 b^\top x + 1` (module docstring), for an orthonormal
    basis ``U`` ``(d, r)`` of the column space of ``V``; rows of :math:`W`:
    :math:`\mathrm{vec}(u_iu_i^\top)`. ``(r^2, r^2)``, PSD."""
    d, r = U.shape
    W = np.einsum("ip,iq->ipq", U, U).reshape(d, r * r)
    vecI = np.eye(r).reshape(-1)
    return np.outer(vecI, vecI) + 2.0 * np.eye(r * r) - 2.0 * (W.T @ W)


def linear_attention_loss_bound(V, support):
    r"""Lower bound on :math:`\min_{\theta,\tilde\theta} L` for linear attention (module docstring).

    Args:
        V: embeddings ``(d, m)``, ``m < d``, ``m <= 64``; support: ``(a, b)``.
    Returns:
        dict with ``bound`` (the convex-relaxation minimum, a lower bound on the best loss),
        ``rank`` (of ``V``), ``argmin_M`` (the minimising ``M = U A U^T``, ``(d, d)``, so that
        ``matrix_form_loss(argmin_M) == bound`` can be checked independently) and
        ``argmin_trace``.
    """
    V, a, b = _check(V, support)
    U, s, _ = np.linalg.svd(V, full_matrices=False)
    r = int((s > s[0] * 1e-12).sum())
    U = U[:, :r]
    H = relaxation_hessian(U)
    B = 0.5 * (np.outer(U[a], U[b]) + np.outer(U[b], U[a]))
    bv = B.reshape(-1)
    # H is PSD; the minimum 1 - 4 b^T H^+ b, through eigh (stable on a near-singular H).
    w, Q = np.linalg.eigh(H)
    keep = w > w.max() * 1e-13
    proj = Q[:, keep].T @ bv
    bound = 1.0 - 4.0 * float(proj @ (proj / w[keep]))
    x = 2.0 * Q[:, keep] @ (proj / w[keep])
    A = x.reshape(r, r)
    return {"bound": bound, "rank": r, "argmin_trace": float(np.trace(A)),
            "argmin_M": U @ (0.5 * (A + A.T)) @ U.T}


def erf_attention_loss_bound(d):
    r""":math:`(1 - 2/d^2)^2`, a lower bound on the loss of erf attention for every
    :math:`\theta, \tilde\theta` (module docstring)."""
    d = check_int(d, "d", lo=2)
    return (1.0 - 2.0 / d**2) ** 2


def matrix_form_loss(M, support):
    r""":math:`L(M) = (\operatorname{tr}M)^2 + 2\sum_{i\ne j}(M-E)_{ij}^2` for a symmetric ``M``
    ``(d, d)`` (the loss of the quadratic-form predictor :math:`-x^\top M x`)."""
    M = _matrix(M, "M", square=True)
    a, b = check_support(support, M.shape[0])
    R = M.copy()
    R[a, b] -= 0.5
    R[b, a] -= 0.5
    off = (R**2).sum() - (np.diag(R) ** 2).sum()
    return float(np.trace(M) ** 2 + 2 * off)


def quadratic_form_loss(gamma, gamma_tilde, support):
    r""":math:`L = (\operatorname{tr}M)^2 + 2\sum_{i\ne j}(M-E)_{ij}^2` for given weight vectors
    (numpy, a cross-check of the rewriting used above)."""
    g = np.asarray(gamma, dtype=float)
    gt = np.asarray(gamma_tilde, dtype=float)
    d = g.shape[0]
    a, b = check_support(support, d)
    M = 0.5 * (np.outer(g, gt) + np.outer(gt, g))
    E = np.zeros((d, d))
    E[a, b] = E[b, a] = 0.5
    R = M - E
    off = (R**2).sum() - (np.diag(R) ** 2).sum()
    return float(np.trace(M) ** 2 + 2 * off)


__all__ = ["linear_attention_loss_bound", "relaxation_hessian", "erf_attention_loss_bound", "matrix_form_loss",
           "quadratic_form_loss"]
