r"""Exhaustive enumeration of :math:`\{\pm1\}^d` as exact polynomials: the independent symbolic
side of the population loss and gradient.

:func:`enumerated_loss_poly` sums :math:`L = 2^{-d}\sum_x(-(\gamma\cdot x)(\tilde\gamma\cdot x) + x_ax_b)^2`
as an exact polynomial in symbolic :math:`\gamma_0..\gamma_{d-1}, \tilde\gamma_0..\tilde\gamma_{d-1}`
(sympy's sparse polynomial ring over :math:`\mathbb{Q}`, so comparisons are exact and fast). It
never uses the derived closed form. (The numeric brute force at high precision is
:mod:`verify.reference.oracle`.)

The ``check_*`` functions compare a *candidate* expression (in the invariant symbols of
:class:`verify.symbolic.derivation.Invariants`) with the enumeration and return a report; the
theorem tests use the same functions on the derived expressions and on deliberately wrong ones.
"""

from __future__ import annotations

import itertools
import random
from functools import lru_cache
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp
from sympy.polys.rings import ring

from numeric.validation import InputError, check_int, check_support

MAX_ENUM_D = 16


# -------------------------------------------------------------------- symbolic enumeration


def _ring(d):
    names = [f"g{i}" for i in range(d)] + [f"gt{i}" for i in range(d)]
    R, *gens = ring(",".join(names), sp.QQ)
    return R, gens[:d], gens[d:]


@lru_cache(maxsize=16)
def _enumerated_products(d):
    """For every x in {±1}^d: (x, P_x = (gamma.x)(gamma~.x)), and sum_x P_x^2."""
    R, g, gt = _ring(d)
    prods, sq = [], R.zero
    for x in itertools.product((-1, 1), repeat=d):
        gx = sum((xi * gi for xi, gi in zip(x, g)), R.zero)
        gtx = sum((xi * gi for xi, gi in zip(x, gt)), R.zero)
        P = gx * gtx
        prods.append((x, P))
        sq += P * P
    return R, g, gt, prods, sq


@lru_cache(maxsize=256)
def enumerated_loss_poly(d, a, b):
    r"""Exact :math:`L(\gamma,\tilde\gamma)` by summing over all :math:`2^d` inputs; returns
    ``(poly, gamma_gens, gamma_t_gens)`` in a sparse polynomial ring over :math:`\mathbb{Q}`.

    Each squared error is :math:`(-P_x + x_ax_b)^2 = P_x^2 - 2x_ax_bP_x + 1` with
    :math:`P_x = (\gamma\cdot x)(\tilde\gamma\cdot x)`, so the support-free part
    :math:`\sum_x P_x^2` is enumerated once per ``d``.
    """
    check_int(d, "d", lo=2, hi=10)  # 2^d symbolic terms
    check_support((a, b), d, "(a, b)")
    R, g, gt, prods, sq = _enumerated_products(d)
    cross = R.zero
    for x, P in prods:
        cross = cross + P if x[a] * x[b] > 0 else cross - P
    total = sq - 2 * cross + 2 ** d
    return total * sp.QQ(1, 2 ** d), g, gt


def evaluate_exact(expr, values):
    """Evaluate a polynomial sympy expression with ``values`` (ring elements or Fractions) exactly."""
    syms = sorted(expr.free_symbols, key=str)
    if not syms:
        return Fraction(int(sp.Rational(expr).p), int(sp.Rational(expr).q))
    missing = [s for s in syms if s not in values]
    if missing:
        raise InputError(f"values = <no value for {missing}>: expected a value for every symbol of expr")
    total = None
    for monom, coeff in sp.Poly(expr, *syms).terms():
        c = Fraction(int(coeff.p), int(coeff.q))
        term = None
        for s, e in zip(syms, monom):
            if e:
                term = values[s] ** e if term is None else term * values[s] ** e
        term = c if term is None else term * c
        total = term if total is None else total + term
    return total


def _subs(inv, vectors, a, b, index=None, extra=None):
    vals = inv.concrete_values(vectors, a, b)
    if index is not None:
        from verify.symbolic.derivation import delta, index_symbol

        for n, vec in vectors.items():
            vals[index_symbol(n)] = vec[index]
        vals[delta("a")] = int(index == a)
        vals[delta("b")] = int(index == b)
    vals.update(extra or {})
    return vals


# -------------------------------------------------------------------- reports


@dataclass
class CheckReport:
    """Result of comparing a candidate expression with enumeration, case by case."""

    what: str
    passed: bool = True
    cases: list = field(default_factory=list)
    mismatch: str | None = None

    def fail(self, msg):
        if self.passed:
            self.mismatch = msg
        self.passed = False

    def as_evidence(self):
        return {"what": self.what, "passed": self.passed, "cases": len(self.cases),
                "d": sorted({c[0] for c in self.cases}), "mismatch": self.mismatch}


def _pairs(d, all_pairs):
    if all_pairs:
        return [(a, b) for a in range(d) for b in range(d) if a != b]
    return sorted({(0, 1), (1, 0), (0, d - 1), (d - 1, d // 2) if d // 2 != d - 1 else (1, 0)})


def _diff_summary(diff):
    terms = diff.terms()
    return f"difference has {len(terms)} terms, e.g. {terms[0][1]} * monomial {terms[0][0]}"


def check_closed_form(expr, inv, ds=range(2, 7), all_pairs=True, form="gamma", fail_fast=True):
    r"""Compare a candidate loss ``expr`` (invariant symbols) with symbolic enumeration, exactly.

    Stops at the first mismatch unless ``fail_fast=False``.
    ``form="gamma"``: ``expr`` is in :math:`\gamma` invariants; ``form="residual"``: in the residual
    invariants, substituted with :math:`u = \gamma - e_a`, :math:`\tilde u = \tilde\gamma - e_b`.
    """
    rep = CheckReport(f"loss ({form} form) == enumeration, symbolic")
    for d in ds:
        for a, b in _pairs(d, all_pairs):
            L, g, gt = enumerated_loss_poly(d, a, b)
            cand = evaluate_exact(expr, _subs(inv, _vectors(g, gt, a, b, form), a, b))
            diff = L - cand
            rep.cases.append((d, a, b))
            if diff != 0:
                rep.fail(f"d={d}, support=({a},{b}): {_diff_summary(diff)}")
                if fail_fast:
                    return rep
    return rep


def check_gradient(grad_expr, vec, inv, ds=range(2, 7), all_pairs=False, form="gamma",
                   fail_fast=True):
    r"""Compare a candidate :math:`\partial L/\partial w_i` (index notation, ``vec`` in ``"g"``, ``"gt"``)
    with the derivative of the enumerated polynomial, for every ``i``, exactly."""
    rep = CheckReport(f"dL/d{vec}_i ({form} form) == d(enumeration)/d{vec}_i, symbolic")
    for d in ds:
        for a, b in _pairs(d, all_pairs):
            L, g, gt = enumerated_loss_poly(d, a, b)
            vectors = _vectors(g, gt, a, b, form)
            wrt = g if vec == "g" else gt
            for i in range(d):
                cand = evaluate_exact(grad_expr, _subs(inv, vectors, a, b, index=i))
                diff = L.diff(wrt[i]) - cand
                rep.cases.append((d, a, b, i))
                if diff != 0:
                    rep.fail(f"d={d}, support=({a},{b}), i={i}: {_diff_summary(diff)}")
                    if fail_fast:
                        return rep
    return rep


def _vectors(g, gt, a, b, form):
    if form == "gamma":
        return {"g": list(g), "gt": list(gt)}
    u = [gi - (1 if i == a else 0) for i, gi in enumerate(g)]
    ut = [gi - (1 if i == b else 0) for i, gi in enumerate(gt)]
    return {"u": u, "ut": ut}


def check_closed_form_numeric(expr, inv, ds=range(7, 13), seed=0, denominator=97):
    r"""Compare ``expr`` with enumeration at random rational :math:`\gamma, \tilde\gamma = p/D, q/D`
    (integers, so the :math:`2^d`-term sum is exact and fast), one support per ``d``."""
    rep = CheckReport("loss (gamma form) == enumeration, exact rationals")
    rng = random.Random(seed)
    D = denominator
    for d in ds:
        a, b = rng.sample(range(d), 2)
        p = [rng.randint(-D, D) for _ in range(d)]
        q = [rng.randint(-D, D) for _ in range(d)]
        total = 0
        for x in itertools.product((-1, 1), repeat=d):
            px = sum(pi * xi for pi, xi in zip(p, x))
            qx = sum(qi * xi for qi, xi in zip(q, x))
            e = -px * qx + D * D * x[a] * x[b]
            total += e * e
        L = Fraction(total, 2 ** d * D ** 4)
        vectors = {"g": [Fraction(v, D) for v in p], "gt": [Fraction(v, D) for v in q]}
        cand = evaluate_exact(expr, _subs(inv, vectors, a, b))
        rep.cases.append((d, a, b))
        if L != cand:
            rep.fail(f"d={d}, support=({a},{b}): enumeration {L} != candidate {cand}")
    return rep


__all__ = [
    "CheckReport", "enumerated_loss_poly", "evaluate_exact", "check_closed_form", "check_gradient",
    "check_closed_form_numeric", "MAX_ENUM_D",
]
