r"""The displayed identities of the derivation document, each with the check that verifies it.

An :class:`Identity` is one numbered equation of ``docs/derivations.tex``: its LaTeX is printed
from the same sympy object (or exact fact) that its ``check`` compares with an independent
computation (exhaustive enumeration of :math:`\{\pm1\}^d`, sympy's own differentiation, the
float64 engine, Arb balls). The document is rendered from :data:`IDENTITIES`, and
``tests/verify/derivations/test_derivation_document.py`` runs every check under the identity's
label, so a displayed formula and its check cannot drift apart.

This module holds paper A's identities (two-head XOR model); :mod:`verify.derivations.paper_b`
holds paper B's (sensitivity of Boolean functions).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Callable

import sympy as sp

from verify.symbolic import one_step
from verify.derivations.identity import Identity
from verify.symbolic.printing import tex as _tex

# --------------------------------------------------------------------------- notation


@lru_cache(maxsize=1)
def _notation():
    from verify.symbolic.chain_rule import dij, g_i, g_j, gdot, gi, gj, zi, zj
    from verify.symbolic.derivation import delta, derive, index_latex

    inv = derive().inv
    names = dict(inv.latex)
    names.update(index_latex())
    names.update({dij: r"\delta_{ij}", gdot: r"\gamma\cdot g", g_i: "g_i", g_j: "g_j",
                  gi: r"\gamma_i", gj: r"\gamma_j", zi: "z_i", zj: "z_j", one_step.d_sym: "d",
                  one_step.zeta_i: r"\zeta_i", one_step.zeta_a: r"\zeta_a", one_step.zeta_b: r"\zeta_b"})
    dots = [gdot]
    for s, cnt in inv.sums.items():
        if len(cnt) == 2 and all(c == 1 for c in cnt.values()):
            names[s] = names[s].strip("()")      # bare dot product; parenthesised in products
            dots.append(s)
        elif names[s].startswith(r"\Big("):
            names[s] = names[s][len(r"\Big("):-len(r"\Big)")]
            dots.append(s)
    weights = {s: sum(c.values()) for s, c in inv.sums.items()}
    weights[one_step.d_sym] = 0
    deltas = {delta("a"), delta("b"), dij}
    return names, dict(weights=weights, deltas=deltas, dots=dots)


def tex(expr, ascending=False) -> str:
    """``expr`` printed by the document's rules (:mod:`verify.symbolic.printing`)."""
    names, settings = _notation()
    return _tex(expr, names, ascending=ascending, **settings)


def _ok(report):
    return report.passed, f"{len(report.cases)} cases" + ("" if report.passed else f": {report.mismatch}")


# --------------------------------------------------------------------------- moments and expansion

_LETTERS = "ijkl"


def _moment_body(k):
    from verify.symbolic.derivation import moment_coefficients

    idx = _LETTERS[:k]
    parts = []
    for sigma, c in moment_coefficients(k):
        deltas = "".join(r"\delta_{" + "".join(idx[i] for i in blk) + "}" for blk in sigma)
        parts.append(("" if c == 1 else "-" if c == -1 else str(c)) + deltas)
    rhs = " + ".join(parts).replace("+ -", "- ")
    return rf"\mathbb{{E}}[{' '.join('x_' + i for i in idx)}] = {rhs}"


def _check_moments(k, d=3):
    from verify.symbolic.derivation import moment_coefficients

    points = list(itertools.product((1, -1), repeat=d))
    n = 0
    for tup in itertools.product(range(d), repeat=k):
        lhs = Fraction(sum(_prod(x[i] for i in tup) for x in points), len(points))
        rhs = sum(c * _prod(int(len({tup[i] for i in blk}) == 1) for blk in sigma)
                  for sigma, c in moment_coefficients(k))
        n += 1
        if lhs != rhs:
            return False, f"index tuple {tup}: {lhs} != {rhs}"
    return True, f"all {n} index tuples, d = {d}"


def _prod(it):
    out = 1
    for v in it:
        out *= v
    return out


_FORM = {"g": r"(\gamma\cdot x)", "gt": r"(\tilde\gamma\cdot x)", "u": r"(u\cdot x)",
         "ut": r"(\tilde u\cdot x)", "ea": "x_a", "eb": "x_b"}


def reduce_units(poly):
    """``x_a^2 = x_b^2 = 1`` on the cube: unit forms keep their exponent mod 2."""
    out = {}
    for names, c in poly.items():
        keep = tuple(n for n in names if n not in ("ea", "eb"))
        units = tuple(n for n in ("ea", "eb") if names.count(n) % 2)
        key = tuple(sorted(keep + units))
        out[key] = out.get(key, 0) + c
    return {k: v for k, v in out.items() if v != 0}


def _product_tex(names):
    from collections import Counter

    c = Counter(names)
    if not c:
        return "1"
    return "".join(_FORM[n] + (f"^{k}" if k > 1 else "") for n, k in sorted(c.items(), key=_form_order))


def _form_order(item):
    return ({"ea": 2, "eb": 3}.get(item[0], 0), item[0])


def poly_tex(poly):
    """A polynomial in linear forms, highest degree first, constant last."""
    parts = []
    for names, coeff in sorted(poly.items(), key=lambda kv: (-len(kv[0]), _form_key(kv[0]))):
        c = sp.latex(coeff)
        if names:
            c = "" if c == "1" else ("-" if c == "-1" else c)
        parts.append(c + ("" if not names else _product_tex(names)))
    return " + ".join(parts).replace("+ -", "- ")


def _form_key(names):
    return tuple(sorted(_form_order((n, 1)) for n in names))


def _poly_value(poly, vectors, x, a, b):
    vals = {n: sum(v * xi for v, xi in zip(vec, x)) for n, vec in vectors.items()}
    vals["ea"], vals["eb"] = x[a], x[b]
    return sum(c * _prod(vals[n] for n in names) for names, c in poly.items())


def _check_poly(poly_of_vectors, target, d=4, seed=0):
    """``poly`` against ``target(vectors, x)`` at random rational vectors, every x in the cube."""
    rng = random.Random(seed)
    a, b = 1, 3
    vectors = {n: [Fraction(rng.randint(-9, 9), 7) for _ in range(d)] for n in ("g", "gt", "u", "ut")}
    for x in itertools.product((1, -1), repeat=d):
        lhs = target(vectors, x, a, b)
        rhs = _poly_value(poly_of_vectors, vectors, x, a, b)
        if lhs != rhs:
            return False, f"x = {x}: {lhs} != {rhs}"
    return True, f"all {2 ** d} points x, d = {d}, random rational vectors"


def _dot(v, x):
    return sum(vi * xi for vi, xi in zip(v, x))


def _error(vectors, x, a, b):
    return -_dot(vectors["g"], x) * _dot(vectors["gt"], x) + x[a] * x[b]


def _error_sq(vectors, x, a, b):
    return _error(vectors, x, a, b) ** 2


def _residual_error(vectors, x, a, b):
    g = [u + (1 if i == a else 0) for i, u in enumerate(vectors["u"])]
    gt = [u + (1 if i == b else 0) for i, u in enumerate(vectors["ut"])]
    return _error({"g": g, "gt": gt}, x, a, b)


def _h():
    from verify.symbolic.derivation import linear, prediction_error

    return prediction_error(linear(g=1), linear(gt=1))


def _square():
    from verify.symbolic.derivation import mul

    h = _h()
    return reduce_units(mul(h, h))


def _expect_rows():
    from verify.symbolic.derivation import Invariants, expectation

    rows = []
    inv = Invariants()
    for names, _c in sorted(_square().items(), key=lambda kv: (-len(kv[0]), _form_key(kv[0]))):
        if names:
            rows.append((names, expectation({names: sp.Integer(1)}, inv), inv))
    return rows


def _expect_body():
    lines = [rf"\mathbb{{E}}\big[{_product_tex(n)}\big] &= {tex(e)}" for n, e, _ in _expect_rows()]
    return r",\\ ".join(lines)


def _check_expect(d=4, seed=2):
    from verify.symbolic.enumeration import evaluate_exact

    rng = random.Random(seed)
    a, b = 0, 2
    vectors = {n: [sp.Rational(rng.randint(-9, 9), 5) for _ in range(d)] for n in ("g", "gt")}
    points = list(itertools.product((1, -1), repeat=d))
    n = 0
    for names, e, inv in _expect_rows():
        lhs = sum(_poly_value({names: 1}, vectors, x, a, b) for x in points) / sp.Integer(len(points))
        rhs = evaluate_exact(e, inv.concrete_values(vectors, a, b))
        n += 1
        if sp.simplify(lhs - rhs) != 0:
            return False, f"E[{names}]: {lhs} != {rhs}"
    return True, f"{n} expectations, all {len(points)} points x, d = {d}"


# --------------------------------------------------------------------------- loss, gradient, Jacobians


def _D():
    from verify.symbolic.derivation import derive

    return derive()


def _check_loss():
    from verify.symbolic.enumeration import check_closed_form

    D = _D()
    return _ok(check_closed_form(D.loss, D.inv, ds=range(2, 7)))


def _check_grad(vec):
    from verify.symbolic.enumeration import check_gradient

    D = _D()
    return _ok(check_gradient(D.grad_g if vec == "g" else D.grad_gt, vec, D.inv, ds=range(2, 7)))


def _jac(att):
    from verify.symbolic.chain_rule import derive_jacobian

    return derive_jacobian(att)


def _jac_body(att):
    J = _jac(att)
    if att == "softmax":
        return (rf"J_{{ij}} &= {tex(J.combined)} \qquad (J_{{ii}} = {tex(J.case_eq)},\ "
                rf"J_{{ij}} = {tex(J.case_neq)} \text{{ for }} i\ne j),\\ w_i &= {tex(J.weighted)}")
    return rf"J_{{ij}} &= {tex(J.combined)},\qquad w_i = {tex(J.weighted)}"


def _check_chain(att):
    from verify.symbolic.chain_rule import check_chain_rule

    D = _D()
    rep = check_chain_rule(D.grad_g, D.grad_gt, D.inv, att, d=3, m=2)
    return rep.passed, f"{att}: {len(rep.cases)} components of both heads, d = 3, m = 2"


def _check_chain_all():
    out = [_check_chain(att) for att in ("softmax", "linear", "erf")]
    return all(ok for ok, _ in out), "; ".join(d for _, d in out)


def residual_printer():
    """The printer of the residual forms: terms by increasing degree in :math:`u, \\tilde u`."""
    from verify.symbolic.printing import printer_for

    names, settings = _notation()
    return printer_for(names, ascending=True, **settings)


def _residual_body(expr, lhs):
    """A long sum set one degree per line (printing rule 1), lowest degree first."""
    return lhs + " &= " + r"\\ &\quad ".join(residual_printer().lines_by_degree(expr))


def _check_residual_loss():
    from verify.symbolic.enumeration import check_closed_form

    D = _D()
    rep = check_closed_form(D.residual_loss, D.inv, ds=range(2, 7), form="residual")
    const = D.residual_loss.as_coeff_Add()[0]
    return rep.passed and const == 0, f"{len(rep.cases)} cases; constant term {const}"


def _check_residual_grad():
    from verify.symbolic.enumeration import check_gradient

    D = _D()
    return _ok(check_gradient(D.residual_grad_u, "g", D.inv, ds=range(2, 6), form="residual"))


def _check_cls(part):
    from verify.symbolic.cls_identity import prove_cls_identity

    r = prove_cls_identity(k=2, m=2, p=2)
    if part == "forward":
        return r.forward_residual == 0 and r.value_residual == 0, "symbolic 2x2 W_Q, W_K, c"
    ok = all(e == 0 for e in r.step_residual) and all(e == 0 for e in r.identity_case_residual)
    return ok, "symbolic W_Q, W_K, c and a generic cubic loss"


# --------------------------------------------------------------------------- one step


def _init_w_body(head):
    w0, w1 = one_step.init_gradient(head)
    d = one_step.d_sym
    lhs = "w_i" if head == "g" else r"\tilde w_i"
    c = 2 / d ** 2
    p0 = sp.expand(w0 / c)
    p1 = sp.collect(sp.expand(w1 / c), list(_notation()[1]["deltas"]))
    return (rf"{lhs} &= {tex(c)}\left({tex(p0)}\right) \\ &\quad + {tex(c)}\left({tex(p1)}\right)"
            r" + O(\|z\|^2)")


def _check_init(head):
    ok, detail = one_step.check_init_gradient(head=head)
    if head == "gt":
        ok2, d2 = one_step.check_heads_mirror()
        return ok and ok2, detail + "; " + d2
    return ok, detail


def _check_softmax_expansion(d=4):
    t = sp.Symbol("t")
    z = sp.symbols(f"z0:{d}", real=True)
    zbar = sum(z) / d
    for sign in (1, -1):
        E = [sp.exp(sign * t * zk) for zk in z]
        for i in range(d):
            gam = E[i] / sum(E)
            value, slope = gam.subs(t, 0), sp.diff(gam, t).subs(t, 0)
            if sp.simplify(value - sp.Rational(1, d)) != 0 or sp.simplify(slope - sign * (z[i] - zbar) / d) != 0:
                return False, f"component {i}, sign {sign}"
    return True, f"both heads' softmax, d = {d}"


def _assign_body():
    return (r"s_a - s_b = \kappa(d)\,(v_a - v_b)\cdot\theta^{(0)} + O(\|z\|^2),\qquad "
            rf"\kappa(d) = {tex(one_step.assignment_margin())} > 0")


def _check_assign():
    kappa = one_step.assignment_margin()
    d = one_step.d_sym
    num, den = sp.fraction(sp.factor(kappa))
    roots = sp.solve(sp.Eq(num, 0), d)
    positive = all(sp.re(r) < 2 for r in roots) and kappa.subs(d, 2) > 0
    ok, detail = one_step.check_engine_first_order()
    return positive and ok, f"kappa > 0 for d >= 2 (roots of the numerator {roots}); " + detail


def _cls_body(part):
    if part == "forward":
        return (r"(W_Qc)^\top W_K\begin{pmatrix}x_i\\ v_i\end{pmatrix} = \theta^\top v_i,\qquad "
                r"\theta = (W_K^{\mathrm{pos}})^\top W_Q c")
    return (r"\theta' - \theta = -\eta\,\|c\|^2\,(W_K^{\mathrm{pos}})^\top W_K^{\mathrm{pos}}\,"
            r"\nabla_\theta L")


def paper_a():
    D = _D
    exact = "exactly, every point of the cube"
    return [
        Identity("mom2", "moments", lambda: _moment_body(2), lambda: _check_moments(2),
                 "averaged over the cube, exactly", "all index pairs, d = 3"),
        Identity("mom4", "moments", lambda: _moment_body(4), lambda: _check_moments(4),
                 "averaged over the cube, exactly", "all index 4-tuples, d = 3"),
        Identity("error", "model", lambda: "f - y = " + poly_tex(_h()),
                 lambda: _check_poly(_h(), _error), exact, "random rational weights, d = 4"),
        Identity("square", "expansion", lambda: "(f-y)^2 = " + poly_tex(_square()),
                 lambda: _check_poly(_square(), _error_sq), exact, "random rational weights, d = 4"),
        Identity("expect", "expansion", _expect_body, _check_expect,
                 "average over the cube, exactly", "random rational weights, d = 4"),
        Identity("loss", "loss", lambda: "L = " + tex(D().loss), _check_loss,
                 "symbolic enumeration of the loss", "d = 2..6, every support"),
        Identity("grad-g", "gradient", lambda: r"\frac{\partial L}{\partial\gamma_i} = " + tex(D().grad_g),
                 lambda: _check_grad("g"), "derivative of the enumerated loss", "d = 2..6, every i"),
        Identity("grad-gt", "gradient",
                 lambda: r"\frac{\partial L}{\partial\tilde\gamma_i} = " + tex(D().grad_gt),
                 lambda: _check_grad("gt"), "derivative of the enumerated loss", "d = 2..6, every i"),
        Identity("jac-soft", "gradient", lambda: _jac_body("softmax"), lambda: _check_chain("softmax"),
                 "sympy's derivative of the composed loss", "rational V, d = 3, m = 2"),
        Identity("jac-lin", "gradient", lambda: _jac_body("linear"), lambda: _check_chain("linear"),
                 "sympy's derivative of the composed loss", "rational V, d = 3, m = 2"),
        Identity("jac-erf", "gradient", lambda: _jac_body("erf"), lambda: _check_chain("erf"),
                 "sympy's derivative of the composed loss", "rational V, d = 3, m = 2"),
        Identity("chain", "gradient",
                 lambda: r"\nabla_\theta L = V^\top w,\qquad \nabla_{\tilde\theta} L = V^\top\tilde w",
                 _check_chain_all, "sympy's derivative of the composed loss",
                 "three maps, both heads, d = 3, m = 2"),
        Identity("res-error", "residual", lambda: "f - y = " + poly_tex(D().residual_poly),
                 lambda: _check_poly(D().residual_poly, _residual_error), exact,
                 "random rational residuals, d = 4"),
        Identity("res-loss", "residual", lambda: _residual_body(D().residual_loss, "L"),
                 _check_residual_loss, "symbolic enumeration; no constant term", "d = 2..6, every support"),
        Identity("res-grad", "residual",
                 lambda: _residual_body(D().residual_grad_u, r"\frac{\partial L}{\partial u_i}"),
                 _check_residual_grad, "derivative of the enumerated loss", "d = 2..5, every i"),
        Identity("cls-fwd", "cls", lambda: _cls_body("forward"), lambda: _check_cls("forward"),
                 "sympy expansion, residual 0", "symbolic matrices, k = m = p = 2"),
        Identity("cls-step", "cls", lambda: _cls_body("step"), lambda: _check_cls("step"),
                 "sympy's derivative in every entry of W_Q", "symbolic matrices, generic cubic loss"),
        Identity("init-gam", "one-step",
                 lambda: (r"\gamma_i = \frac{1 + \zeta_i}{d} + O(\|z\|^2),\qquad "
                          r"\tilde\gamma_i = \frac{1 - \zeta_i}{d} + O(\|z\|^2)"),
                 _check_softmax_expansion, "value and slope in the logit scale (sympy)", "symbolic logits, d = 4"),
        Identity("init-w", "one-step", lambda: _init_w_body("g"), lambda: _check_init("g"),
                 "value and slope of the enumerated gradient", "symbolic logits, d = 3, 4, 5"),
        Identity("init-wt", "one-step", lambda: _init_w_body("gt"), lambda: _check_init("gt"),
                 "as (init-w); mirror symbolically", "symbolic logits, d = 3, 4, 5"),
        Identity("update", "one-step",
                 lambda: (r"\theta^{(1)} &= \theta^{(0)} - \eta V^\top w,\qquad "
                          r"\tilde\theta^{(1)} = \tilde\theta^{(0)} - \eta V^\top\tilde w,\\ "
                          r"z^{(1)} &= z^{(0)} - \eta\,G w,\qquad \eta = c\,d^2\sqrt m\,\ln d"),
                 one_step.check_update, "float64 engine step, rtol 1e-12", "d = 7, m = 3"),
        Identity("assign", "one-step", _assign_body, _check_assign,
                 "sympy (sign of kappa); float64 engine at small logits",
                 "symbolic d; 40 orthonormal instances, d = 6"),
    ]


__all__ = ["paper_a", "tex", "residual_printer", "poly_tex", "reduce_units"]
