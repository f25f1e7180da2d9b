r"""Symbolic proof of the SX-3 identity (CLS-token transformer = two-head model), with sympy.

Two identities, checked exactly (``expand``, no ``simplify``) for symbolic matrices:

1. *Forward.* With the key reading only the position part,
   :math:`(W_Q c)^\top W_K [x_i; v_i] = \theta^\top v_i` where
   :math:`\theta = (W_K^{\mathrm{pos}})^\top W_Q c`; the value reading only the content part gives
   :math:`W_V [x_i; v_i] = w\,x_i`.

2. *One step.* For any differentiable loss :math:`L(\theta)`, by the chain rule
   :math:`\partial L/\partial W_Q = W_K^{\mathrm{pos}}\,\nabla_\theta L\,c^\top`, so the step
   :math:`W_Q \leftarrow W_Q - \eta\,\partial L/\partial W_Q` moves :math:`\theta` by
   :math:`-\eta\,\|c\|^2\,(W_K^{\mathrm{pos}})^\top W_K^{\mathrm{pos}}\,\nabla_\theta L`
   (and by :math:`-\eta\|c\|^2\nabla_\theta L` when :math:`W_K^{\mathrm{pos}} = I`).

The chain rule is *not* typed in: the step is computed by differentiating
:math:`L(\theta(W_Q))` with respect to every entry of :math:`W_Q` (sympy ``diff``), for a
generic polynomial :math:`L` whose coefficients are symbols, and compared with the claimed form.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from numeric.validation import check_int


@dataclass(frozen=True)
class IdentityResult:
    forward_residual: sp.Expr  # score - theta.v, expanded (0 when the identity holds)
    value_residual: sp.Expr  # value - w x, expanded
    step_residual: sp.Matrix  # (theta' - theta) - (-eta |c|^2 K^T K grad L), expanded
    identity_case_residual: sp.Matrix  # same with K = I (k = m)

    @property
    def holds(self) -> bool:
        return (
            self.forward_residual == 0
            and self.value_residual == 0
            and all(e == 0 for e in self.step_residual)
            and all(e == 0 for e in self.identity_case_residual)
        )


def _generic_loss(theta, tag):
    r"""A generic cubic polynomial in :math:`\theta` with symbolic coefficients (``tag`` prefix)."""
    m = len(theta)
    terms = [sp.Symbol(f"{tag}0")]
    idx = 1
    for i in range(m):
        terms.append(sp.Symbol(f"{tag}{idx}") * theta[i]); idx += 1
        for j in range(i, m):
            terms.append(sp.Symbol(f"{tag}{idx}") * theta[i] * theta[j]); idx += 1
            for l in range(j, m):
                terms.append(sp.Symbol(f"{tag}{idx}") * theta[i] * theta[j] * theta[l]); idx += 1
    return sp.Add(*terms)


def _step_residual(k, m, p, identity_keys):
    eta = sp.Symbol("eta", positive=True)
    WQ = sp.Matrix(k, p, lambda r, s: sp.Symbol(f"q_{r}{s}"))
    if identity_keys:
        check_int(k, "k", lo=m, hi=m)  # identity keys are square
        K = sp.eye(m)
    else:
        K = sp.Matrix(k, m, lambda r, s: sp.Symbol(f"k_{r}{s}"))
    c = sp.Matrix(p, 1, lambda r, _: sp.Symbol(f"c_{r}"))
    theta = K.T * WQ * c  # (m, 1)
    th = sp.symbols(f"t0:{m}")
    L_theta = _generic_loss(th, "l")
    L = L_theta.subs(dict(zip(th, list(theta))), simultaneous=True)
    # The step on W_Q, from sympy's own differentiation of L(theta(W_Q)).
    G = sp.Matrix(k, p, lambda r, s: sp.diff(L, WQ[r, s]))
    theta_new = K.T * (WQ - eta * G) * c
    grad_theta = sp.Matrix([sp.diff(L_theta, t) for t in th]).subs(
        dict(zip(th, list(theta))), simultaneous=True
    )
    c2 = (c.T * c)[0, 0]
    claimed = theta - eta * c2 * (K.T * K) * grad_theta
    return (theta_new - claimed).applyfunc(sp.expand)


def prove_cls_identity(k=2, m=2, p=3) -> IdentityResult:
    r"""Check both SX-3 identities for symbolic :math:`W_Q \in \mathbb{R}^{k\times p}`,
    :math:`W_K^{\mathrm{pos}} \in \mathbb{R}^{k\times m}`, :math:`c \in \mathbb{R}^p`.

    Args:
        k: query/key width; m: position dimension; p: CLS-token dimension (all >= 1, small:
            the expansion grows like the number of monomials of a cubic in ``k p`` variables).
    Returns:
        :class:`IdentityResult`; ``.holds`` is ``True`` when every residual expands to 0.
    """
    for name, v in (("k", k), ("m", m), ("p", p)):
        check_int(v, name, lo=1, hi=4)  # symbolic sizes stay small
    # Forward: score of the CLS query against token [x; v], with the content column of W_K masked.
    WQ = sp.Matrix(k, p, lambda r, s: sp.Symbol(f"q_{r}{s}"))
    Kfull = sp.Matrix(k, 1 + m, lambda r, s: 0 if s == 0 else sp.Symbol(f"k_{r}{s - 1}"))
    Kpos = Kfull[:, 1:]
    c = sp.Matrix(p, 1, lambda r, _: sp.Symbol(f"c_{r}"))
    x = sp.Symbol("x")
    v = sp.Matrix(m, 1, lambda r, _: sp.Symbol(f"v_{r}"))
    tok = sp.Matrix.vstack(sp.Matrix([[x]]), v)
    score = ((WQ * c).T * (Kfull * tok))[0, 0]
    theta = Kpos.T * WQ * c
    forward_residual = sp.expand(score - (theta.T * v)[0, 0])
    w = sp.Symbol("w")
    WV = sp.Matrix(1, 1 + m, lambda _, s: w if s == 0 else 0)
    value_residual = sp.expand((WV * tok)[0, 0] - w * x)
    step = _step_residual(k, m, p, identity_keys=False)
    ident = _step_residual(m, m, p, identity_keys=True)
    return IdentityResult(forward_residual, value_residual, step, ident)


__all__ = ["IdentityResult", "prove_cls_identity"]
