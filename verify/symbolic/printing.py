r"""The printing rules of the derivation document, written once.

sympy's own order (``-\gamma_i(\gamma_i - 1)``, terms in the order of its hash-stable sort) is not
how a mathematician writes a formula. :class:`ReadablePrinter` is ``sympy.latex`` with six rules:

1. *Terms by degree.* A sum is ordered by degree in the vector entries (an invariant
   :math:`\sum_i\gamma_i^2\tilde\gamma_i^2` has degree 4, a Kronecker delta degree 0), highest
   first unless ``ascending`` (which orders the outermost sum only); terms carrying a
   Kronecker delta come last (within their degree when a sum is set by degree), so that
   :math:`\delta_{ia}` and :math:`\delta_{ib}` terms stand together. A long sum is set one
   degree per line (:meth:`ReadablePrinter.lines_by_degree`).
2. *A sum starts with a positive term* where it has one (``1 - \gamma_i``, not ``-\gamma_i + 1``).
3. *No leading minus on a product with one sum factor:* :math:`-\gamma_i(\gamma_i - 1)` is
   printed :math:`\gamma_i(1 - \gamma_i)`.
4. *Parentheses only where needed:* a dot product :math:`\gamma\cdot\tilde\gamma` is
   parenthesised inside a product or a power, bare as a term of a sum.
5. *A power of a number with a negative symbolic exponent is a denominator:*
   :math:`2^{-N-1}(N-1)` is printed :math:`\frac{N-1}{2^{N+1}}`.
6. *Sum factors without a minus sign first:* :math:`(N+2)(N-1)`, not :math:`(N-1)(N+2)`.

Everything the document prints goes through :func:`tex`; nothing is edited as a string.
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter


class ReadablePrinter(LatexPrinter):
    """``sympy.latex`` with the rules of the module docstring.

    Args:
        names: ``{Symbol: LaTeX}`` of every named symbol.
        weights: ``{Symbol: degree}``; symbols not listed have degree 1, numbers 0.
        deltas: symbols that mark a Kronecker delta (their terms are printed last).
        dots: symbols printed as a bare dot product, parenthesised inside products and powers.
        ascending: order the terms of the outermost sum by increasing degree.
    """

    def __init__(self, names, weights=None, deltas=(), dots=(), ascending=False):
        self._dots = {s: sp.Symbol(f"({s.name})", **s.assumptions0) for s in dots}
        names = dict(names)
        for s, proxy in self._dots.items():
            names[proxy] = r"\left(" + names[s] + r"\right)"
        super().__init__({"symbol_names": names, "order": "none"})
        self._weights = dict(weights or {})
        self._deltas = set(deltas)
        for s in self._deltas:               # a Kronecker delta is a number: degree 0
            self._weights.setdefault(s, 0)
        self._ascending = ascending
        self._depth = 0                      # sums being printed around the current term

    # ------------------------------------------------------------------ rule 1, 2
    def degree(self, term) -> int:
        out = 0
        for base, exp in term.as_powers_dict().items():
            if base.is_Symbol and exp.is_Integer:
                out += self._weights.get(base, 1) * int(exp)
            elif base.is_Add:
                out += max(self.degree(t) for t in base.args) * (int(exp) if exp.is_Integer else 1)
            elif not base.is_Number:
                out += 1
        return out

    def _key(self, term):
        deg = self.degree(term)
        coeff = abs(term.as_coeff_Mul()[0])
        ascending = self._ascending and self._depth == 0      # a sum in parentheses: descending
        return (bool(term.free_symbols & self._deltas), deg if ascending else -deg,
                term.could_extract_minus_sign(), coeff, sp.default_sort_key(term))

    def ordered(self, expr):
        terms = sorted(sp.Add.make_args(expr), key=self._key)
        if terms and terms[0].could_extract_minus_sign():
            pos = next((k for k, t in enumerate(terms) if not t.could_extract_minus_sign()), None)
            if pos is not None:
                terms.insert(0, terms.pop(pos))
        return terms

    def _print_Add(self, expr, order=None):
        return self.join(self.ordered(expr))

    def join(self, terms, continued=False) -> str:
        """``terms`` printed as a sum; ``continued``: a continuation line, which starts with its sign."""
        out = ""
        self._depth += 1
        try:
            for k, term in enumerate(terms):
                s = self._print(term)
                if s.startswith("-"):
                    out += (" - " if k else "- " if continued else "-") + s[1:].lstrip()
                else:
                    out += (" + " if k else "+ " if continued else "") + s
        finally:
            self._depth -= 1
        return out

    def by_degree(self, expr) -> list:
        """The terms of the sum ``expr`` grouped by degree, ``[(degree, terms)]``, in the order of
        rule 1 (each group in the printer's order)."""
        groups = {}
        for term in sorted(sp.Add.make_args(expr), key=self._key):
            groups.setdefault(self.degree(term), []).append(term)
        out = sorted(groups.items(), reverse=not (self._ascending and self._depth == 0))
        return [(deg, self.ordered(sp.Add(*terms)) if k == 0 else terms)
                for k, (deg, terms) in enumerate(out)]

    def lines_by_degree(self, expr) -> list:
        """``expr`` as one line per degree (rule 1); the lines after the first start with their sign."""
        return [self.join(terms, continued=k > 0) for k, (_, terms) in enumerate(self.by_degree(expr))]

    # ------------------------------------------------------------------ rule 3 to 6
    def _print_Mul(self, expr):
        coeff, factors = expr.as_coeff_mul()
        sums = [f for f in factors if f.is_Add]
        if coeff < 0 and len(sums) == 1:
            flipped = sp.Add(*[-t for t in sums[0].args], evaluate=False)
            rest = [f for f in factors if f is not sums[0]]
            head = [] if coeff == -1 else [-coeff]
            s = self._print_Mul(sp.Mul(*head, *rest)) if head or rest else ""
            if s == "1":
                s = ""
            return s + r"\left(" + self._print_Add(flipped) + r"\right)"
        # rule 5
        den = [f for f in factors if f.is_Pow and f.base.is_Number and f.base.is_positive
               and not f.exp.is_Number and f.exp.could_extract_minus_sign()]
        if den:
            num = sp.Mul(coeff, *[f for f in factors if f not in den])
            return (r"\frac{" + self._print(num) + "}{"
                    + self._print(sp.Mul(*[sp.Pow(f.base, -f.exp) for f in den])) + "}")
        # rule 6
        if len(sums) > 1:
            rest = sp.Mul(coeff, *[f for f in factors if not f.is_Add])
            head = "" if rest == 1 else "-" if rest == -1 else self._print(rest) + " "
            ordered = sorted(sums, key=lambda f: any(t.could_extract_minus_sign() for t in f.args))
            return head + " ".join(r"\left(" + self._print_Add(f) + r"\right)" for f in ordered)
        if sum(not f.is_Number for f in factors) > 1:
            expr = expr.xreplace(self._dots)
        return super()._print_Mul(expr)

    def _print_Pow(self, expr):
        if expr.base in self._dots:
            expr = sp.Pow(self._dots[expr.base], expr.exp, evaluate=False)
        return super()._print_Pow(expr)


def printer_for(names, **settings) -> ReadablePrinter:
    """A :class:`ReadablePrinter` for the names and settings given."""
    return ReadablePrinter(names, **settings)


def tex(expr, names, **settings) -> str:
    """``expr`` printed by the rules of this module (see :class:`ReadablePrinter`)."""
    return printer_for(names, **settings).doprint(expr)


__all__ = ["ReadablePrinter", "printer_for", "tex"]
