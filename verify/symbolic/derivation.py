r"""Symbolic derivation of the two-head population loss from the Rademacher moment rules
(claims SX-1 and SX-2 of ``docs/claims.md``), as formalised in boolverify.

Nothing here is typed in: the closed form, its gradient and the residual form are *computed*
by sympy from

1. the moment rule :math:`\mathbb{E}[x_{i_1}\cdots x_{i_k}] = 1` iff every index value occurs an
   even number of times, turned into Kronecker deltas by Möbius inversion over the lattice of
   set partitions (index-coincidence patterns), e.g.
   :math:`\mathbb{E}[x_ix_jx_kx_l] = \delta_{ij}\delta_{kl} + \delta_{ik}\delta_{jl} + \delta_{il}\delta_{jk} - 2\delta_{ijkl}`;
2. multilinear bookkeeping of products of linear forms :math:`w\cdot x`, where a vector is a
   name (``"g"`` for :math:`\gamma`, ``"gt"`` for :math:`\tilde\gamma`, ``"u"``, ``"ut"`` for the
   residuals, ``"ea"``, ``"eb"`` for the unit vectors :math:`e_a, e_b`);
3. contraction of each coincidence block :math:`B` into an invariant
   :math:`\sum_i \prod_{w\in B} w_i` (e.g. :math:`\|\gamma\|^2`, :math:`\gamma\cdot\tilde\gamma`,
   :math:`\sum_i\gamma_i^2\tilde\gamma_i^2`), where a block containing :math:`e_a` picks component
   :math:`a` and a block containing both :math:`e_a, e_b` vanishes (:math:`a\ne b`).

The result is a sympy polynomial in invariant symbols valid for every ``d``. It is checked
against exhaustive enumeration of :math:`\{\pm1\}^d` in :mod:`verify.symbolic.enumeration`.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp
from sympy.utilities.iterables import multiset_partitions

# vector name -> LaTeX of the vector (components get a subscript)
VECTORS = {"g": r"\gamma", "gt": r"\tilde\gamma", "u": "u", "ut": r"\tilde u"}
UNIT = {"ea": "a", "eb": "b"}

# -------------------------------------------------------------------- moments and Möbius


def _blocks_refine(pi, sigma):
    """True iff every block of ``pi`` lies inside a block of ``sigma`` (pi finer than sigma)."""
    return all(any(blk <= s for s in sigma) for blk in pi)


def _mobius(pi, sigma):
    """Möbius function of the set-partition lattice: prod over blocks of sigma of (-1)^(n-1)(n-1)!."""
    out = 1
    for s in sigma:
        n = sum(1 for blk in pi if blk <= s)
        out *= (-1) ** (n - 1) * math.factorial(n - 1)
    return out


@lru_cache(maxsize=None)
def moment_coefficients(k: int) -> tuple:
    r"""Coefficients :math:`c_\sigma` with :math:`\mathbb{E}[x_{i_1}\cdots x_{i_k}] = \sum_\sigma c_\sigma \prod_{B\in\sigma}\delta_B`.

    :math:`\delta_B = 1` iff the indices in block :math:`B` are equal. Derived from
    :math:`\mathbb{E} = \sum_{\pi\ \text{all blocks even}} [\text{pattern} = \pi]` and
    :math:`[\text{pattern} = \pi] = \sum_{\sigma\ge\pi}\mu(\pi,\sigma)\prod_{B\in\sigma}\delta_B`.
    Returns a tuple of ``(sigma, c)`` with ``sigma`` a tuple of sorted index tuples, ``c != 0``.
    """
    parts = [tuple(frozenset(b) for b in p) for p in multiset_partitions(list(range(k)))]
    even = [p for p in parts if all(len(b) % 2 == 0 for b in p)]
    out = []
    for sigma in parts:
        c = sum(_mobius(pi, sigma) for pi in even if _blocks_refine(pi, sigma))
        if c:
            out.append((tuple(sorted(tuple(sorted(b)) for b in sigma)), c))
    return tuple(sorted(out))


# -------------------------------------------------------------------- invariants


@dataclass
class Invariants:
    """Registry of invariant symbols :math:`\\sum_i\\prod_{w\\in M} w_i` and components :math:`w_a`."""

    sums: dict = field(default_factory=dict)        # Symbol -> Counter of vector names
    comps: dict = field(default_factory=dict)       # Symbol -> (vector, "a" | "b")
    latex: dict = field(default_factory=dict)       # Symbol -> LaTeX

    def component(self, vec, idx):
        s = sp.Symbol(f"{vec}_{idx}", real=True)
        self.comps[s] = (vec, idx)
        self.latex[s] = f"{VECTORS[vec]}_{idx}"
        return s

    def contract(self, names):
        """The invariant of one coincidence block (a multiset of vector names)."""
        c = Counter(names)
        units = [n for n in c if n in UNIT]
        if len(units) == 2:
            return sp.Integer(0)  # delta_{ia} delta_{ib} = 0 since a != b
        rest = [n for n in names if n not in UNIT]
        if units:
            return sp.Mul(*[self.component(n, UNIT[units[0]]) for n in rest])
        return self.sum_symbol(Counter(rest))

    def sum_symbol(self, counter):
        key = "_".join(f"{n}{counter[n]}" for n in sorted(counter))
        s = sp.Symbol(f"I_{key}", real=True)
        self.sums[s] = Counter(counter)
        items = sorted(counter.items())
        if len(items) == 1 and items[0][1] == 2:
            tex = rf"\|{VECTORS[items[0][0]]}\|^2"
        elif len(items) == 2 and all(c == 1 for _, c in items):
            tex = rf"({VECTORS[items[0][0]]}\cdot {VECTORS[items[1][0]]})"
        else:
            tex = r"\Big(\sum_i " + " ".join(
                f"{VECTORS[n]}_i" + (f"^{c}" if c > 1 else "") for n, c in items) + r"\Big)"
        self.latex[s] = tex
        return s

    def concrete_values(self, vectors: dict, a: int, b: int) -> dict:
        """Value of every registered invariant for concrete vectors ``{name: list}`` whose entries
        are sympy numbers, Fractions or polynomial-ring elements (exact arithmetic)."""
        vals = {}
        for s, cnt in self.sums.items():
            if not all(n in vectors for n in cnt):
                continue
            d = len(vectors[next(iter(cnt))])
            total = 0
            for i in range(d):
                term = 1
                for n, c in cnt.items():
                    term = term * vectors[n][i] ** c
                total = total + term
            vals[s] = total
        for s, (vec, idx) in self.comps.items():
            if vec in vectors:
                vals[s] = vectors[vec][a if idx == "a" else b]
        return vals


# -------------------------------------------------------------------- multilinear bookkeeping

# A polynomial in linear forms: dict {sorted tuple of vector names: sympy coefficient}.


def linear(**coeffs):
    """A sum of linear forms, e.g. ``linear(ea=1, u=1)`` for :math:`(e_a + u)\\cdot x`."""
    return {(n,): sp.Integer(c) for n, c in coeffs.items()}


def mul(*polys):
    out = {(): sp.Integer(1)}
    for p in polys:
        new = {}
        for t1, c1 in out.items():
            for t2, c2 in p.items():
                key = tuple(sorted(t1 + t2))
                new[key] = new.get(key, 0) + c1 * c2
        out = {k: v for k, v in new.items() if v != 0}
    return out


def add(*polys, coeffs=None):
    out = {}
    for j, p in enumerate(polys):
        w = 1 if coeffs is None else coeffs[j]
        for t, c in p.items():
            out[t] = out.get(t, 0) + w * c
    return {k: v for k, v in out.items() if v != 0}


def expectation(poly, inv: Invariants):
    r""":math:`\mathbb{E}_x` of a polynomial in linear forms, by the moment rule and contraction."""
    total = sp.Integer(0)
    for names, coeff in poly.items():
        term = sp.Integer(0)
        for sigma, c in moment_coefficients(len(names)):
            term += c * sp.Mul(*[inv.contract([names[i] for i in blk]) for blk in sigma])
        total += coeff * term
    return sp.expand(total)


# -------------------------------------------------------------------- gradients in index notation


def index_gradient(expr, vec, inv: Invariants):
    r""":math:`\partial\,\mathrm{expr}/\partial w_i` for the vector ``vec``, in index notation.

    Chain rule through the invariants: :math:`\partial(\sum_j\prod_{n\in M} n_j)/\partial w_i = c\,\prod_{M - w} n_i`
    (``c`` = multiplicity of ``w`` in ``M``), :math:`\partial w_a/\partial w_i = \delta_{ia}`.
    Components at the free index ``i`` are symbols ``<vec>_i``; deltas are ``delta_ia``, ``delta_ib``.
    """
    out = sp.Integer(0)
    for s in expr.free_symbols:
        if s in inv.sums:
            cnt = inv.sums[s]
            if not cnt.get(vec):
                continue
            rest = Counter(cnt)
            rest[vec] -= 1
            dsi = cnt[vec] * sp.Mul(*[index_symbol(n) ** c for n, c in rest.items() if c])
        elif s in inv.comps and inv.comps[s][0] == vec:
            dsi = delta(inv.comps[s][1])
        else:
            continue
        out += sp.diff(expr, s) * dsi
    return sp.expand(out)


def index_symbol(vec):
    return sp.Symbol(f"{vec}_i", real=True)


def delta(idx):
    return sp.Symbol(f"delta_i{idx}", real=True)


def index_latex():
    names = {index_symbol(v): f"{t}_i" for v, t in VECTORS.items()}
    names.update({delta("a"): r"\delta_{ia}", delta("b"): r"\delta_{ib}"})
    return names


# -------------------------------------------------------------------- the derivation


@dataclass
class Derivation:
    """Everything derived, with the sympy objects used by the references, tests and LaTeX."""

    inv: Invariants
    residual_poly: dict          # f - y in residual linear forms
    loss: sp.Expr                # closed form in gamma invariants
    grad_g: sp.Expr              # dL/dgamma_i
    grad_gt: sp.Expr             # dL/dgamma~_i
    residual_loss: sp.Expr       # residual form in u invariants (no constant term)
    residual_grad_u: sp.Expr     # dL/du_i
    residual_grad_ut: sp.Expr
    seconds: float

    def latex_names(self):
        names = dict(self.inv.latex)
        names.update(index_latex())
        return names


def prediction_error(gamma, gamma_t):
    """:math:`f - y = -(\\gamma\\cdot x)(\\tilde\\gamma\\cdot x) + (e_a\\cdot x)(e_b\\cdot x)`."""
    return add(mul(gamma, gamma_t), mul(linear(ea=1), linear(eb=1)), coeffs=[-1, 1])


@lru_cache(maxsize=1)
def derive() -> Derivation:
    """Run the whole derivation (cached; takes well under a second)."""
    t0 = time.perf_counter()
    inv = Invariants()
    h = prediction_error(linear(g=1), linear(gt=1))
    loss = expectation(mul(h, h), inv)
    grad_g = index_gradient(loss, "g", inv)
    grad_gt = index_gradient(loss, "gt", inv)
    # residual: gamma = e_a + u, gamma~ = e_b + u~; the (e_a.x)(e_b.x) terms cancel by construction
    hr = prediction_error(linear(ea=1, u=1), linear(eb=1, ut=1))
    residual_loss = expectation(mul(hr, hr), inv)
    residual_grad_u = index_gradient(residual_loss, "u", inv)
    residual_grad_ut = index_gradient(residual_loss, "ut", inv)
    return Derivation(inv, hr, loss, grad_g, grad_gt, residual_loss, residual_grad_u,
                      residual_grad_ut, time.perf_counter() - t0)


def invariant(inv: Invariants, **counts):
    """The registered invariant symbol for a multiset, e.g. ``invariant(inv, g=2)`` = ||gamma||^2."""
    return inv.sum_symbol(Counter(counts))


def form_lambdas(form="residual"):
    """mpmath callables ``loss(nu, nut, p, s, ua, ub, uta, utb)`` and
    ``grad(ui, uti, dia, dib, <same>) -> (dL/dw_i, dL/dw~_i)`` lambdified from the derived
    ``form``: ``"residual"`` (``w = u``: ``nu`` = ||u||^2, ``p`` = u.u~, ``s`` = sum u_i^2 u~_i^2,
    ``ua`` = u_a, ...) or ``"gamma"`` (the closed form, the same names for the gamma quantities)."""
    D = derive()
    inv = D.inv
    v, vt = ("u", "ut") if form == "residual" else ("g", "gt")
    names = {
        "nu": invariant(inv, **{v: 2}), "nut": invariant(inv, **{vt: 2}),
        "p": invariant(inv, **{v: 1, vt: 1}), "s": invariant(inv, **{v: 2, vt: 2}),
        "ua": inv.component(v, "a"), "ub": inv.component(v, "b"),
        "uta": inv.component(vt, "a"), "utb": inv.component(vt, "b"),
        "ui": index_symbol(v), "uti": index_symbol(vt), "dia": delta("a"), "dib": delta("b"),
    }
    if form == "residual":
        exprs = (D.residual_loss, D.residual_grad_u, D.residual_grad_ut)
    else:
        exprs = (D.loss, D.grad_g, D.grad_gt)
    unknown = set().union(*(e.free_symbols for e in exprs)) - set(names.values())
    if unknown:  # the form must only involve the invariants the reference computes
        raise RuntimeError(f"{form} form has unexpected invariants {unknown}")
    order = list(names)
    syms = [names[k] for k in order]
    f_loss = sp.lambdify(syms, exprs[0], modules="mpmath")
    f_grad = sp.lambdify(syms, list(exprs[1:]), modules="mpmath")

    def loss(**kw):
        return f_loss(*[kw.get(k, 0) for k in order])

    def grad(**kw):
        return tuple(f_grad(*[kw[k] for k in order]))

    return loss, grad


def residual_lambdas():
    """:func:`form_lambdas` of the residual form."""
    return form_lambdas("residual")


__all__ = [
    "Derivation", "Invariants", "derive", "moment_coefficients", "expectation", "index_gradient",
    "linear", "mul", "add", "prediction_error", "invariant", "form_lambdas", "residual_lambdas",
]
