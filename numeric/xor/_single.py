r"""The closed-form gradient of a single model on the CPU, its O(d) steps in numpy.

A model without batch dimensions (``V`` of shape ``(d, m)``, queries of shape ``(m,)``) on the CPU,
whose ``V`` fits in one 1 MiB block (beyond it torch's kernels are the faster), runs the two-pass
gradient of :class:`numeric.xor._forms.ClosedFormState` here: the logits and the
attention weights from torch (the engine's map, bit for bit), then the sums over R, the weight-space
gradient ``G`` and the z-space cotangent ``W`` in numpy, on views of the same memory, then ``W V`` on
the calibrated BLAS (:func:`numeric.xor._blocks.weight_pullback`).

Why numpy: between its two products with ``V`` the gradient takes about forty elementwise steps on
vectors of length ``d``. At d <= 10^4 each costs its dispatch more than its arithmetic, and
numpy's dispatch is several times shorter than torch's (``python -m bench.xor``,
docs/performance.md). The O(1) algebra between the sums runs on Python floats, through the same
functions as the tensor path (:func:`numeric.xor._forms.overlap_and_target`,
:func:`numeric.xor._forms.support_weight_grads`); the O(d) steps are the tensor path's formulas in the
same order of operations (:meth:`~numeric.xor._forms.ClosedFormState.weight_grad`,
:meth:`~numeric.xor._forms.ClosedFormState.logit_cotangent`), so both paths agree within the tolerance
table (tests/numeric/test_xor_path.py compares them on saturated and unsaturated heads).

Validation: the public function checks shapes, dtypes and the support before; a NaN or inf in the
queries or in ``V``, or logits that overflow, make the logits non-finite, and then this function
returns None and the caller runs its full checks, which name the cause.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from numeric.xor._attention import AttentionMap, map_unchecked
from numeric.xor._blocks import numpy_pullback, weight_pullback
from numeric.xor._forms import overlap_and_target, support_weight_grads
from numeric.xor._path import pullback_backend


def _pick(condition, x, y):
    return x if condition else y


def single_model_grad(V, theta, theta_tilde, a: int, b: int, amap: AttentionMap):
    """``(grad_theta, grad_theta_tilde)`` for ``V`` ``(d, m)`` and queries ``(m,)`` on the CPU, or
    None where the logits are not all finite (the caller's checks then name the cause)."""
    # overflow and NaN are the caller's to report (as torch does, silently here)
    with np.errstate(all="ignore"):
        return _grad(V, theta, theta_tilde, a, b, amap)


def _grad(V, theta, theta_tilde, a, b, amap):
    on_numpy = pullback_backend() == "numpy"      # the thin products with V on numpy's BLAS
    if on_numpy:
        Zn = np.array((theta.numpy(), theta_tilde.numpy())) @ V.numpy().T
        Z = torch.from_numpy(Zn)
    else:
        Z = torch.mm(torch.stack((theta, theta_tilde)), V.T)         # (2, d)
        Zn = Z.numpy()
    Gam = map_unchecked(Z, amap.name).numpy()
    d = Gam.shape[1]
    # rows: gamma_R, gamma~_R (the weights with the support zeroed), their product, ones
    M = np.empty((4, d), dtype=Gam.dtype)
    M[:2] = Gam
    M[:2, a] = 0.0
    M[:2, b] = 0.0
    np.multiply(M[0], M[1], out=M[2])
    M[3] = 1.0
    (N1, P, _, SR1), (_, N2, _, SR2), (_, _, Q, _) = (M[:3] @ M.T).tolist()
    if not math.isfinite(Zn.sum() + N1 + N2 + P + Q + SR1 + SR2):
        return None
    (g1a, g2a), (g1b, g2b) = Gam[:, a].tolist(), Gam[:, b].tolist()
    if amap.normalised:
        # 1 - gamma_p as a sum of positive terms: no cancellation when gamma_p ~ 1
        ca1, ca2, cb1, cb2 = SR1 + g1b, SR2 + g2b, SR1 + g1a, SR2 + g2a
    else:
        ca1, ca2, cb1, cb2 = 1 - g1a, 1 - g2a, 1 - g1b, 1 - g2b
    c0, t = overlap_and_target(P, g1a, g2a, g1b, g2b, ca1, ca2, cb1, cb2, _pick)
    Ga1, Gb1 = support_weight_grads(c0, t, P, g1a, g1b, g2a, g2b, N2)
    Ga2, Gb2 = support_weight_grads(c0, t, P, g2a, g2b, g1a, g1b, N1)
    full = (N2 + g2a * g2a + g2b * g2b, N1 + g1a * g1a + g1b * g1b)    # ||gamma~||^2, ||gamma||^2
    G = weight_grad(Gam, M[2], c0, full, a, b, (Ga1, Ga2), (Gb1, Gb2))
    if amap.normalised:
        W = softmax_cotangent(Gam, G, M[:2], a, b, ((ca1, cb1, g1a, g1b), (ca2, cb2, g2a, g2b)))
    else:
        W = amap.cotangent(Z, torch.from_numpy(G), d).numpy()
    if on_numpy:
        grad = numpy_pullback(V.numpy(), W)
    else:
        grad = weight_pullback(V, torch.from_numpy(W), backend="torch").numpy()
    return torch.from_numpy(grad[0]), torch.from_numpy(grad[1])


def weight_grad(Gam, prod, c0, full, a, b, Ga, Gb):
    r"""``G`` of shape (2, d): :math:`g_i = 4(c_0 - \gamma_i\tilde\gamma_i)\tilde\gamma_i
    + 2\|\tilde\gamma\|^2\gamma_i` (and the heads swapped) with the support entries ``Ga``, ``Gb``
    (pairs over the heads) in their non-cancelling forms. ``prod``: :math:`\gamma_i\tilde\gamma_i` on
    R (0 on the support, where ``G`` is overwritten), overwritten; ``full``: the pair
    :math:`(\|\tilde\gamma\|^2, \|\gamma\|^2)`."""
    coef = prod
    coef *= -4.0
    coef += 4.0 * c0                                  # 4 (c0 - gamma_i gamma~_i), shared by both heads
    G = Gam[::-1] * coef
    G += Gam * np.array(((2.0 * full[0],), (2.0 * full[1],)), dtype=Gam.dtype)
    G[:, a] = Ga
    G[:, b] = Gb
    return G


def softmax_cotangent(Gam, G, GamR, a, b, heads):
    r"""``W = J^T G`` for softmax, in place of ``G``: :math:`W_j = \gamma_j(g_j - \gamma\cdot g)`
    except at the argmax ``k`` of each head, :math:`W_k = \gamma_k(c_k g_k - \sum_{j\ne k}\gamma_j g_j)`
    with :math:`c_k = \sum_{j\ne k}\gamma_j`, exact when the head is saturated there.

    ``GamR``: the weights (2, d) with the support zeroed (overwritten); ``heads``: per head
    ``(c_a, c_b, gamma_a, gamma_b)``, where :math:`c_p = 1 - \gamma_p` as sums of positive terms."""
    k1, k2 = Gam.argmax(1).tolist()
    gam_k = (float(Gam[0, k1]), float(Gam[1, k2]))
    g_k = (float(G[0, k1]), float(G[1, k2]))
    GamR[0, k1] = 0.0                                 # the sums over R without k
    GamR[1, k2] = 0.0
    sums = GamR.sum(1).tolist()
    W = G
    W *= Gam
    W[0, k1] = 0.0
    W[1, k2] = 0.0
    dots = W.sum(1).tolist()                          # sum over j != k of gamma_j g_j
    coef, w_k = [], []
    for k, (ca, cb, ga, gb), s, gamk, gk, dot in zip((k1, k2), heads, sums, gam_k, g_k, dots):
        ck = ca if k == a else cb if k == b else s + ga + gb
        coef.append((dot + gamk * gk,))
        w_k.append(gamk * (ck * gk - dot))
    W -= Gam * np.array(coef, dtype=Gam.dtype)
    W[0, k1], W[1, k2] = w_k
    return W
