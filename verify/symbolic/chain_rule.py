r"""The chain rule from :math:`\partial L/\partial\gamma` to :math:`\nabla_\theta L` through the three
attention maps (claim SX-2 of ``docs/claims.md``), derived with sympy, as formalised in boolverify.

Jacobians for general ``d`` by index coincidence: for :math:`i \ne j` and :math:`i = j` the
softmax weight :math:`\gamma_i = e^{z_i}/(e^{z_i} + e^{z_j} + R)` (resp. :math:`e^{z_i}/(e^{z_i}+R)`,
``R`` = the rest of the sum, independent of :math:`z_i, z_j`) is differentiated by sympy and
rewritten in the weights themselves; the two cases combine into
:math:`J_{ij} = \partial\gamma_i/\partial z_j = \delta_{ij}\gamma_i - \gamma_i\gamma_j`.
Contracting :math:`\sum_j g_j J_{ji}` gives :math:`w_i = \gamma_i(g_i - \gamma\cdot g)` and
:math:`\nabla_\theta L = V^\top w` since :math:`z = V\theta`.

:func:`check_chain_rule` checks the derived formula exactly for small ``d, m``: sympy
differentiates the *enumerated* loss composed with :math:`\gamma(V\theta)` in :math:`\theta` and the
difference to :math:`V^\top w` is reduced to zero. For softmax the weights are written in
:math:`t_k = e^{z_k}` (only :math:`\partial t_k/\partial\theta_l = t_kV_{kl}` is used), so the
difference is a rational function whose numerator must expand to 0; for erf each
transcendental atom (:math:`\mathrm{erf}(z_i)`, :math:`e^{-z_i^2}`) is replaced by a symbol after
differentiation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from numeric import vocabulary
from numeric.validation import check_choice, reject
from numeric.vocabulary import ATTENTIONS
from verify.symbolic.enumeration import CheckReport, enumerated_loss_poly

zi, zj, R, d_ = sp.symbols("z_i z_j R d", real=True)
gi, gj = sp.symbols("gamma_i gamma_j", positive=True)
dij = sp.Symbol("delta_ij")
S_ = sp.Symbol("S", positive=True)


@dataclass
class Jacobian:
    """:math:`J_{ij} = \\partial\\gamma_i/\\partial z_j` derived for one attention map."""

    attention: str
    weight: sp.Expr          # gamma_i as a function of z
    case_neq: sp.Expr        # i != j, in terms of the weights
    case_eq: sp.Expr         # i == j
    combined: sp.Expr        # with delta_ij
    weighted: sp.Expr        # w_i = sum_j g_j J_ji, contracted


# components of g = dL/dgamma (named grad_* so as not to clash with the index symbol g_i = gamma_i)
g_i, g_j, gdot = sp.symbols("grad_i grad_j gamma_dot_grad", real=True)


def _to_weights(expr, base):
    """Replace every exp(c_i z_i + c_j z_j) by prod (gamma S)^c, i.e. e^{z_k} = gamma_k S."""
    def rep(arg):
        poly = sp.Poly(arg, *base)
        if poly.total_degree() > 1 or poly.coeff_monomial(1) != 0:
            raise RuntimeError(f"unexpected exponential exp({arg})")
        return sp.Mul(*[base[z] ** poly.coeff_monomial(z) for z in base])
    return expr.replace(sp.exp, rep)


def _softmax_cases():
    Ei, Ej = sp.exp(zi), sp.exp(zj)
    # i != j: gamma_i = E_i / (E_i + E_j + R); rewrite with E = gamma S, R = S(1 - gamma_i - gamma_j)
    neq = sp.diff(Ei / (Ei + Ej + R), zj)
    neq = sp.cancel(_to_weights(neq, {zi: gi * S_, zj: gj * S_}).xreplace({R: S_ * (1 - gi - gj)}))
    # i == j: gamma_i = E_i / (E_i + R), R = S(1 - gamma_i)
    eq = sp.diff(Ei / (Ei + R), zi)
    eq = sp.cancel(_to_weights(eq, {zi: gi * S_}).xreplace({R: S_ * (1 - gi)}))
    return Ei / sp.Symbol(r"\sum_k e^{z_k}"), neq, eq


def _pointwise_cases(weight):
    """``(weight, case_neq, case_eq)`` of a map whose weight depends on its own logit only."""
    return lambda: (weight, sp.diff(weight, zj), sp.diff(weight, zi))


def _softmax_concrete_weights(z, t):
    S = sum(t)
    return [tk / S for tk in t]


def _d_dtheta_exp(F, thetas, k, V, t):
    # F depends on t_i = e^{z_i}; the only rule used is d t_i / d theta_k = t_i V_ik
    return sum(sp.diff(F, ti) * ti * V[i][k] for i, ti in enumerate(t))


def _d_dtheta_plain(F, thetas, k, V, t):
    return sp.diff(F, thetas[k])


def _reduce_rational(diff):
    # rational in t: clear denominators
    return sp.expand(sp.fraction(sp.together(diff))[0])


def _reduce_transcendental(diff):
    # expand exponents first so that equal atoms are recognised, then symbolise
    return sp.cancel(sp.expand(_atoms_to_symbols(sp.expand(diff))))


@dataclass(frozen=True)
class SymbolicMap:
    r"""One attention map of the symbolic layer (an entry of :data:`SYMBOLIC_MAPS`).

    Attributes:
        name: the map's name in :data:`numeric.vocabulary.ATTENTIONS`.
        cases: ``cases()``: ``(weight, case_neq, case_eq)``: :math:`\gamma_i` and
            :math:`\partial\gamma_i/\partial z_j` for :math:`i \ne j` and :math:`i = j`, in the
            weights (no normaliser left).
        concrete_weights: ``concrete_weights(z, t)``: the weights of concrete logits ``z``
            (softmax: in the symbols ``t_k = e^{z_k}``).
        d_dtheta: ``d_dtheta(F, thetas, k, V, t)``: sympy's derivative of ``F`` in
            :math:`\theta_k`.
        reduce: ``reduce(difference)``: a form of a difference of two expressions that is 0
            exactly when they are equal.
    """

    name: str
    cases: object
    concrete_weights: object
    d_dtheta: object
    reduce: object


#: The symbolic attention maps, keyed by the names of :data:`numeric.vocabulary.ATTENTIONS`.
SYMBOLIC_MAPS = {
    "softmax": SymbolicMap("softmax", _softmax_cases, _softmax_concrete_weights,
                           _d_dtheta_exp, _reduce_rational),
    "linear": SymbolicMap("linear", _pointwise_cases(zi / d_),
                          lambda z, t: [zk / len(z) for zk in z], _d_dtheta_plain,
                          _reduce_transcendental),
    "erf": SymbolicMap("erf", _pointwise_cases(sp.erf(zi) / d_),
                       lambda z, t: [sp.erf(zk) / len(z) for zk in z], _d_dtheta_plain,
                       _reduce_transcendental),
}


def symbolic_map(attention) -> SymbolicMap:
    """The entry of ``attention`` (checked against :data:`numeric.vocabulary.ATTENTIONS`);
    :class:`InputError` for a name without one (never a fallback to another map)."""
    check_choice(attention, "attention", vocabulary.ATTENTIONS)
    try:
        return SYMBOLIC_MAPS[attention]
    except KeyError:
        reject("attention", attention, f"one of {tuple(SYMBOLIC_MAPS)}, the attention maps the "
               "symbolic layer implements")


@lru_cache(maxsize=None)
def derive_jacobian(attention: str) -> Jacobian:
    """Derive the Jacobian of ``attention`` by the two index-coincidence cases, then contract it."""
    weight, neq, eq = symbolic_map(attention).cases()
    if neq.has(S_) or eq.has(S_):  # the rewrite must eliminate the normaliser
        raise RuntimeError(f"{attention}: Jacobian not expressed in the weights: {neq}, {eq}")
    # combine the cases: J_ij = case_neq + delta_ij (case_eq - case_neq at j = i)
    combined = sp.expand(neq + dij * sp.expand(eq - neq.xreplace({gj: gi, zj: zi})))
    # w_i = sum_j g_j J_ji: swap i <-> j, then contract the delta and the dot product over j
    Jji = combined.xreplace({gi: gj, gj: gi, zi: zj, zj: zi})
    w = sp.Integer(0)
    for t in sp.Add.make_args(sp.expand(g_j * Jji)):
        if t.has(dij):
            w += t.xreplace({dij: 1, g_j: g_i, gj: gi, zj: zi})   # sum_j delta_ij X_j = X_i
        else:
            jpart = sp.Mul(*[f for f in sp.Mul.make_args(t) if f.has(g_j, gj, zj)])
            if jpart != g_j * gj:
                raise RuntimeError(f"{attention}: cannot contract {t} over j")
            w += t / jpart * gdot                                    # sum_j g_j gamma_j = gamma.g
    return Jacobian(attention, weight, sp.factor(neq), sp.factor(eq), combined, sp.factor(w))


def _concrete_w(attention, z, gam, grad):
    """w_i from the derived contraction, evaluated with concrete weights and gradient."""
    J = derive_jacobian(attention)
    gd = sum(a * b for a, b in zip(gam, grad))
    out = []
    for i, zz in enumerate(z):
        out.append(J.weighted.xreplace({gi: gam[i], g_i: grad[i], gdot: gd, zi: zz, d_: len(z)}))
    return out


def _atoms_to_symbols(expr):
    reps, k = {}, 0
    for atom in expr.atoms(sp.exp, sp.erf):
        reps[atom] = sp.Symbol(f"_t{k}", positive=True)
        k += 1
    return expr.xreplace(reps)


def check_chain_rule(grad_g, grad_gt, inv, attention, d=3, m=2, seed=0, weighted=None):
    r"""Exact check of :math:`\nabla_\theta L = V^\top w` against sympy's derivative of the enumerated
    loss composed with :math:`\gamma = \alpha(V\theta)`, at a random rational ``V`` (symbolic
    :math:`\theta`, :math:`\tilde\theta`). ``grad_g``/``grad_gt``: candidate :math:`\partial L/\partial\gamma_i`
    (index notation); ``weighted``: optional candidate replacing the derived contraction."""
    from verify.symbolic.derivation import delta, index_symbol
    from verify.symbolic.enumeration import evaluate_exact

    rep = CheckReport(f"grad_theta L through {attention} == d/dtheta (enumerated loss), exact")
    rng = random.Random(seed)
    a, b = rng.sample(range(d), 2)
    V = [[sp.Rational(rng.randint(-9, 9), 7) for _ in range(m)] for _ in range(d)]
    th = sp.symbols(f"th0:{m}", real=True)
    tht = sp.symbols(f"tht0:{m}", real=True)
    z = [sum(V[i][k] * th[k] for k in range(m)) for i in range(d)]
    zt = [sum(V[i][k] * tht[k] for k in range(m)) for i in range(d)]
    t = sp.symbols(f"t0:{d}", positive=True)
    tt = sp.symbols(f"tt0:{d}", positive=True)
    smap = symbolic_map(attention)
    gam, gamt = smap.concrete_weights(z, t), smap.concrete_weights(zt, tt)
    Lp, G, Gt = enumerated_loss_poly(d, a, b)
    L = Lp.as_expr().xreplace({sp.Symbol(str(s)): v for s, v in zip(G + Gt, gam + gamt)})
    vectors = {"g": gam, "gt": gamt}
    vals = inv.concrete_values(vectors, a, b)
    for which, (expr, zz, gg, thetas, ts) in enumerate(((grad_g, z, gam, th, t),
                                                        (grad_gt, zt, gamt, tht, tt))):
        grad = []
        for i in range(d):
            v = dict(vals)
            v.update({index_symbol("g"): gam[i], index_symbol("gt"): gamt[i],
                      delta("a"): int(i == a), delta("b"): int(i == b)})
            grad.append(sp.sympify(evaluate_exact(expr, v)) if expr.free_symbols else expr)
        if weighted is None:
            w = _concrete_w(attention, zz, gg, grad)
        else:
            w = [weighted(gg, grad, zz, i) for i in range(d)]
        for k in range(m):
            lhs = smap.d_dtheta(L, thetas, k, V, ts)
            rhs = sum(V[i][k] * w[i] for i in range(d))
            diff = smap.reduce(lhs - rhs)
            rep.cases.append((d, a, b, which, k))
            if diff != 0:
                rep.fail(f"{attention}, d={d}, m={m}, component {k} of "
                         f"{'theta' if which == 0 else 'theta~'}: nonzero difference")
                return rep
    return rep


__all__ = ["Jacobian", "SymbolicMap", "SYMBOLIC_MAPS", "symbolic_map", "derive_jacobian",
           "check_chain_rule", "ATTENTIONS"]
