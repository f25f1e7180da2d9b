r"""Population loss and gradient of the two-head model in weight space, in torch (claims SX-1,
SX-2 of docs/claims.md).

Everything here acts on the attention weights of the two heads, stacked as one tensor
``Gam`` of shape ``(*batch, 2, d)`` (head 1 :math:`\gamma`, head 2 :math:`\tilde\gamma`), so
that one GEMM serves both heads. :mod:`numeric.xor` adds the maps :math:`\theta \mapsto \gamma`.

Three arrangements of the same quantity
---------------------------------------
1. **Expanded closed form** (SX-1), valid for any weight vectors:

   .. math::

       L = \|\gamma\|^2\|\tilde\gamma\|^2 + 2(\gamma\cdot\tilde\gamma)^2
           - 2\sum_i\gamma_i^2\tilde\gamma_i^2 - 2(\gamma_a\tilde\gamma_b + \gamma_b\tilde\gamma_a) + 1 .

   It subtracts numbers near 1 when :math:`L` is small and loses :math:`\log_{10}(1/L)` digits:
   :func:`closed_form_loss` (kept as the differentiable reference for autograd and for
   showing the loss of accuracy).

2. **Residual polynomial.** With :math:`\gamma = e_a + u`, :math:`\tilde\gamma = e_b + \tilde u`,
   :math:`f - y = -x_a(\tilde u\cdot x) - x_b(u\cdot x) - (u\cdot x)(\tilde u\cdot x)` and,
   from the Rademacher moments (:math:`E[x_a x_b x_i x_j] = [\{i,j\}=\{a,b\}]`,
   :math:`E[x_a x_i x_j x_k] = 1` iff the indices pair up),

   .. math::

       L = \|u\|^2 + \|\tilde u\|^2 + 2(u_a\tilde u_b + u_b\tilde u_a)
           + 2u_a\|\tilde u\|^2 + 4\tilde u_a(u\cdot\tilde u) - 4u_a\tilde u_a^2
           + 2\tilde u_b\|u\|^2 + 4u_b(u\cdot\tilde u) - 4\tilde u_b u_b^2
           + \|u\|^2\|\tilde u\|^2 + 2(u\cdot\tilde u)^2 - 2\sum_i u_i^2\tilde u_i^2,

   a polynomial without constant term (:func:`residual_polynomial`; checked against
   enumeration of :math:`\{\pm1\}^d` and sympy in the tests).

3. **Sum of squares (what the engine evaluates).** :math:`f - y` is a multilinear polynomial
   of degree 2 in :math:`x`; by Parseval :math:`L` is the sum of its squared Fourier
   coefficients. With :math:`R = \{1..d\}\setminus\{a,b\}` and
   :math:`t = 1 - \gamma_a\tilde\gamma_b - \gamma_b\tilde\gamma_a`,

   .. math::

       L = (\gamma\cdot\tilde\gamma)^2 + t^2
           + \sum_{j\in R}\big[(\gamma_a\tilde\gamma_j + \gamma_j\tilde\gamma_a)^2
                              + (\gamma_b\tilde\gamma_j + \gamma_j\tilde\gamma_b)^2\big]
           + \sum_{i<j\in R}(\gamma_i\tilde\gamma_j + \gamma_j\tilde\gamma_i)^2 .

   Every coefficient vanishes at the solution, so this is the residual polynomial (2) grouped
   into squares. The only subtraction near a solution is inside :math:`t`, evaluated from the
   complements :math:`c_p = 1 - \gamma_p` of the closer assignment:
   :math:`1 - \gamma_a\tilde\gamma_b = c_a + \gamma_a\tilde c_b` (resp. with :math:`a \leftrightarrow b`).
   For softmax :math:`c_p = \sum_{j\ne p}\gamma_j` is a sum of positive terms, every term above
   is non-negative, and the last sum (computed as
   :math:`\|\gamma_R\|^2\|\tilde\gamma_R\|^2 + (\gamma_R\cdot\tilde\gamma_R)^2 - 2\sum_R\gamma_i^2\tilde\gamma_i^2`)
   loses at most :math:`2\epsilon L`; so the relative error is a few ulps of the weights over
   the whole range (the weights themselves carry :math:`\approx\epsilon|z|` from rounding the
   logits), with no switch to the expanded form needed: the grouping is exact everywhere and
   never subtracts numbers of size 1 that the result does not contain.

Gradient in weight space (SX-2): :math:`g_i = 2\gamma_i\|\tilde\gamma\|^2
+ 4(\gamma\cdot\tilde\gamma)\tilde\gamma_i - 4\gamma_i\tilde\gamma_i^2
- 2(\delta_{ia}\tilde\gamma_b + \delta_{ib}\tilde\gamma_a)`, and the two entries that cancel
near a solution are evaluated from the same squares:
:math:`g_a = 2(\gamma\cdot\tilde\gamma)\tilde\gamma_a + 2\gamma_a\|\tilde\gamma_R\|^2
+ 2\tilde\gamma_a(\gamma_R\cdot\tilde\gamma_R) - 2t\tilde\gamma_b` (and :math:`a\leftrightarrow b`,
:math:`\gamma\leftrightarrow\tilde\gamma`).
"""

from __future__ import annotations

import torch

from numeric.xor._attention import ATTENTION_MAPS, AttentionMap, map_unchecked


def closed_form_loss(gamma: torch.Tensor, gamma_tilde: torch.Tensor, support) -> torch.Tensor:
    r"""Expanded closed form (SX-1) for arbitrary weights, differentiable by autograd.

    .. math::

        L = \|\gamma\|^2\|\tilde\gamma\|^2 + 2(\gamma\cdot\tilde\gamma)^2
            - 2\sum_i\gamma_i^2\tilde\gamma_i^2 - 2(\gamma_a\tilde\gamma_b + \gamma_b\tilde\gamma_a) + 1

    Args:
        gamma, gamma_tilde: weights ``(*batch, d)``. support: ``(a, b)``, already validated.

    Returns:
        ``(*batch)``. Loses :math:`\log_{10}(1/L)` digits near a solution; use
        :func:`numeric.xor.population_loss` for accurate values.
    """
    a, b = support
    n1 = (gamma * gamma).sum(-1)
    n2 = (gamma_tilde * gamma_tilde).sum(-1)
    p = (gamma * gamma_tilde).sum(-1)
    q = (gamma * gamma * gamma_tilde * gamma_tilde).sum(-1)
    cross = gamma[..., a] * gamma_tilde[..., b] + gamma[..., b] * gamma_tilde[..., a]
    return n1 * n2 + 2 * p * p - 2 * q - 2 * cross + 1


def closed_form_weight_grad(gamma: torch.Tensor, gamma_tilde: torch.Tensor, support):
    r"""Textbook :math:`(g, \tilde g) = (\partial L/\partial\gamma, \partial L/\partial\tilde\gamma)`.

    :math:`g_i = 2\gamma_i\|\tilde\gamma\|^2 + 4(\gamma\cdot\tilde\gamma)\tilde\gamma_i
    - 4\gamma_i\tilde\gamma_i^2 - 2(\delta_{ia}\tilde\gamma_b + \delta_{ib}\tilde\gamma_a)`,
    symmetric for :math:`\tilde g`. Cancels near a solution (kept for comparisons).
    """
    a, b = support
    n1 = (gamma * gamma).sum(-1, keepdim=True)
    n2 = (gamma_tilde * gamma_tilde).sum(-1, keepdim=True)
    p = (gamma * gamma_tilde).sum(-1, keepdim=True)
    g = 2 * gamma * n2 + 4 * p * gamma_tilde - 4 * gamma * gamma_tilde ** 2
    gt = 2 * gamma_tilde * n1 + 4 * p * gamma - 4 * gamma_tilde * gamma ** 2
    g = g.clone()
    gt = gt.clone()
    g[..., a] -= 2 * gamma_tilde[..., b]
    g[..., b] -= 2 * gamma_tilde[..., a]
    gt[..., a] -= 2 * gamma[..., b]
    gt[..., b] -= 2 * gamma[..., a]
    return g, gt


def residual_polynomial(u: torch.Tensor, u_tilde: torch.Tensor, support) -> torch.Tensor:
    r"""The residual form of :math:`L` as a polynomial in :math:`u = \gamma - e_a`,
    :math:`\tilde u = \tilde\gamma - e_b` (module docstring, item 2), monomial by monomial.

    Args:
        u, u_tilde: residuals ``(*batch, d)``. support: ``(a, b)``; the residuals are taken
            around :math:`e_a` (head 1) and :math:`e_b` (head 2).

    Returns:
        ``(*batch)``.
    """
    a, b = support
    nu = (u * u).sum(-1)
    nut = (u_tilde * u_tilde).sum(-1)
    p = (u * u_tilde).sum(-1)
    s = (u * u * u_tilde * u_tilde).sum(-1)
    ua, ub, uta, utb = u[..., a], u[..., b], u_tilde[..., a], u_tilde[..., b]
    return (nu + nut + 2 * (ua * utb + ub * uta)
            + 2 * ua * nut + 4 * uta * p - 4 * ua * uta ** 2
            + 2 * utb * nu + 4 * ub * p - 4 * utb * ub ** 2
            + nu * nut + 2 * p * p - 2 * s)


def overlap_and_target(P, g1a, g2a, g1b, g2b, ca1, ca2, cb1, cb2, pick):
    r"""The two scalars of the support term from the sums over R and the support weights:
    :math:`c_0 = \gamma\cdot\tilde\gamma` and :math:`t = 1 - \gamma_a\tilde\gamma_b - \gamma_b\tilde\gamma_a`,
    the latter from the complements :math:`c_p = 1 - \gamma_p` of the closer assignment (module
    docstring). Heads 1 and 2 are the suffixes 1 and 2; every argument is a float or a tensor of the
    batch shape, and ``pick(condition, x, y)`` selects (``torch.where``, or its float form)."""
    c0 = P + g1a * g2a + g1b * g2b                # gamma . gamma~
    pab, pba = g1a * g2b, g1b * g2a
    t_ab = ca1 + g1a * cb2 - pba                  # head 1 ~ e_a, head 2 ~ e_b
    t_ba = cb1 + g1b * ca2 - pab                  # swapped
    return c0, pick(pab >= pba, t_ab, t_ba)


def support_weight_grads(c0, t, P, ga, gb, ga_o, gb_o, N_o):
    r"""``(dL/dgamma_a, dL/dgamma_b)`` of one head in the form that does not cancel near a solution
    (module docstring): ``ga, gb`` its weights on the support, ``ga_o, gb_o, N_o`` the other head's
    and its :math:`\|\gamma_R\|^2`; floats, or tensors that broadcast (both heads at once)."""
    Ga = 2 * c0 * ga_o + 2 * ga * N_o + 2 * ga_o * P - 2 * t * gb_o
    Gb = 2 * c0 * gb_o + 2 * gb * N_o + 2 * gb_o * P - 2 * t * ga_o
    return Ga, Gb


class ClosedFormState:
    """Weights of both heads and the sums over R = complement of {a, b} (module docstring).

    ``amap``: the :class:`AttentionMap` that the public function resolved from its name."""

    __slots__ = ("Gam", "GamR", "ga", "gb", "ca", "cb", "N", "P", "Q", "c0", "t", "a", "b")

    def __init__(self, Z, a, b, amap: AttentionMap):
        self.a, self.b = a, b
        Gam = map_unchecked(Z, amap.name)                      # (*batch, 2, d)
        GamR = Gam.clone()
        GamR[..., a] = 0
        GamR[..., b] = 0
        ga, gb = Gam[..., a], Gam[..., b]             # (*batch, 2): (head 1, head 2)
        if amap.normalised:
            # 1 - gamma_p as a sum of positive terms: no cancellation when gamma_p ~ 1
            SR = GamR.sum(-1)
            ca, cb = SR + gb, SR + ga
        else:
            ca, cb = 1 - ga, 1 - gb
        prod = GamR[..., 0, :] * GamR[..., 1, :]
        self.N = (GamR * GamR).sum(-1)                # ||gamma_R||^2 per head
        self.P = prod.sum(-1)                         # gamma_R . gamma~_R
        self.Q = (prod * prod).sum(-1)                # sum_R gamma_i^2 gamma~_i^2
        self.Gam, self.GamR = Gam, GamR
        self._finish(ga, gb, ca, cb)

    @classmethod
    def from_sums(cls, ga, gb, SR, N, P, Q, a, b, amap: AttentionMap):
        """The state from the weights on the support and the sums over R alone (no weight
        vectors: ``Gam`` and ``GamR`` are None), e.g. accumulated block by block over ``V``.

        ``ga, gb, SR, N``: ``(*batch, 2)`` (per head: weight on a, on b, sum over R, sum of
        squares over R); ``P, Q``: ``(*batch)``. Same formulas as the constructor.
        """
        self = cls.__new__(cls)
        self.a, self.b = a, b
        self.Gam = self.GamR = None
        if amap.normalised:
            ca, cb = SR + gb, SR + ga
        else:
            ca, cb = 1 - ga, 1 - gb
        self.N, self.P, self.Q = N, P, Q
        self._finish(ga, gb, ca, cb)
        return self

    def _finish(self, ga, gb, ca, cb):
        self.ga, self.gb, self.ca, self.cb = ga, gb, ca, cb
        self.c0, self.t = overlap_and_target(self.P, ga[..., 0], ga[..., 1], gb[..., 0], gb[..., 1],
                                             ca[..., 0], ca[..., 1], cb[..., 0], cb[..., 1], torch.where)

    def loss(self):
        N1, N2 = self.N[..., 0], self.N[..., 1]
        g1a, g2a = self.ga[..., 0], self.ga[..., 1]
        g1b, g2b = self.gb[..., 0], self.gb[..., 1]
        P = self.P
        Aa = g1a * g1a * N2 + g2a * g2a * N1 + 2 * g1a * g2a * P
        Ab = g1b * g1b * N2 + g2b * g2b * N1 + 2 * g1b * g2b * P
        SRR = N1 * N2 + P * P - 2 * self.Q
        return self.c0 * self.c0 + self.t * self.t + Aa + Ab + SRR

    def weight_grad(self):
        """``G`` of shape (*batch, 2, d): dL/dgamma (head 1) and dL/dgamma~ (head 2)."""
        Gam, ga, gb, N = self.Gam, self.ga, self.gb, self.N
        full_o = (N + ga * ga + gb * gb).flip(-1)     # ||gamma~||^2 for head 1, ||gamma||^2 for head 2
        g1, g2 = Gam[..., 0, :], Gam[..., 1, :]
        # g_i = 4 (c0 - gamma_i gamma~_i) gamma~_i + 2 ||gamma~||^2 gamma_i (and the heads swapped):
        # the first factor is shared by both heads; in-place updates keep it to three passes over d
        coef = torch.addcmul(self.c0[..., None], g1, g2, value=-1).mul_(4)
        G = Gam.flip(-2).mul_(coef.unsqueeze(-2))
        G.addcmul_(Gam, 2 * full_o[..., None])
        Ga, Gb = self.support_grad()
        G[..., self.a] = Ga
        G[..., self.b] = Gb
        return G, Ga, Gb

    def support_grad(self):
        """``(Ga, Gb)``, each (*batch, 2): dL/dgamma_a, dL/dgamma_b per head, in the form that
        does not cancel near a solution (module docstring)."""
        ga, gb = self.ga, self.gb
        return support_weight_grads(self.c0[..., None], self.t[..., None], self.P[..., None],
                                    ga, gb, ga.flip(-1), gb.flip(-1), self.N.flip(-1))

    def logit_cotangent(self, Z, attention):
        r"""``W = J^T G`` (z-space cotangent) for both heads, accurate near a solution.

        ``attention``: the name of the state's map, already checked at the public boundary
        (the name, not the entry, so that a wrapper around this method can tell the maps apart)."""
        G, Ga, Gb = self.weight_grad()
        amap = ATTENTION_MAPS[attention]
        if not amap.normalised:
            return amap.cotangent(Z, G, Z.shape[-1])
        # g_k - gamma.g = c_k g_k - sum_{j != k} gamma_j g_j at the argmax k of each head, with
        # c_k = 1 - gamma_k = sum_{j != k} gamma_j: exact when the head is saturated (gamma_k ~ 1),
        # where the textbook form subtracts two numbers of size |g_k|. Elsewhere gamma_i < 1/2.
        Gam = self.Gam
        k = Gam.argmax(-1, keepdim=True)              # (*batch, 2, 1)
        gamk, gk = Gam.gather(-1, k), G.gather(-1, k)
        GamK = Gam.scatter(-1, k, 0.0)
        cK = GamK.sum(-1, keepdim=True)
        W = GamK * G                                  # gamma_j g_j, zero at k
        dotK = W.sum(-1, keepdim=True)
        W.addcmul_(GamK, dotK + gamk * gk, value=-1)  # gamma_j (g_j - gamma.g), j != k
        W.scatter_(-1, k, gamk * (cK * gk - dotK))
        return W
