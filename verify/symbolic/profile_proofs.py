r"""Exact facts about sensitivity profiles (claims SG-1 and SG-7), as formalised
in boolverify.

**Profiles for all N (sympy).** Every function of SG-1 has the form
:math:`f(x) = g(|x_S|)` for a set :math:`S` of :math:`n` positions (:math:`S` = all ``N``
positions for PARITY and MAJORITY). A string with :math:`|x_S| = w` has :math:`w` ones in
:math:`S`, whose flips lead to weight :math:`w-1`, and :math:`n-w` zeros in :math:`S`, whose
flips lead to :math:`w+1`; flips outside :math:`S` never change :math:`f`. With 0/1 values,
:math:`[a \ne b] = (a-b)^2`, so

.. math::  s(w) = w\,(g(w-1)-g(w))^2 + (n-w)\,(g(w+1)-g(w))^2 ,

and :math:`\binom{n}{w} 2^{N-n}` strings have :math:`|x_S| = w`. Hence
:math:`K_k = \sum_{w : s(w)=k} \binom{n}{w} 2^{N-n}`. The weight range :math:`0..n` is cut
into *cases* (a single weight, or a range parametrised by a fresh non-negative integer
``j``); sympy evaluates :math:`s` on each case (it must come out free of ``j``), the cases must
tile :math:`0..n` (their sizes add to :math:`n+1`), singletons contribute
:math:`\binom{n}{w_0}2^{N-n}` and the ranges (all with one common ``s``) contribute the rest
of :math:`\sum_w \binom{n}{w}2^{N-n} = 2^N` (sympy ``summation``). The result is compared
with the stated profile (claim SG-1 of ``docs/claims.md``) by exact binomial identities
(``gammasimp``), for symbolic ``N``, ``N = 2m`` and ``N = 2m+1``.

The facts about uniformly random functions are in :mod:`verify.reference.random_functions`.

Independent of :mod:`numeric` (numpy only), so that the theorem tests compare two codes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

import sympy as sp

from numeric.validation import check_choice, check_int

# symbols: N general, m for N = 2m / 2m + 1, j a case parameter, k = |S|
_N = sp.Symbol("N", integer=True, positive=True)
_m = sp.Symbol("m", integer=True, positive=True)
_j = sp.Symbol("j", integer=True, nonnegative=True)
_w = sp.Symbol("w", integer=True, nonnegative=True)
_k = sp.Symbol("k", integer=True, positive=True)

FORMS = ("general", "even", "odd")  # N symbolic, N = 2m, N = 2m + 1


@dataclass
class Case:
    """Weights ``start .. start+size-1`` (a singleton when ``size == 1``), parametrised as
    ``w = start + j`` or, with ``from_top``, ``w = start + size - 1 - j`` (counting down from
    the threshold, so that sympy can decide ``2w > N`` from ``j >= 0``)."""

    start: sp.Expr
    size: sp.Expr
    s: sp.Expr = None  # sensitivity on the case, filled by the proof
    from_top: bool = False

    def weight(self):
        if self.size == 1:
            return self.start
        return self.start + self.size - 1 - _j if self.from_top else self.start + _j


@dataclass
class ProfileProof:
    name: str
    form: str
    N: sp.Expr
    cases: list[Case]
    profile: dict  # sympy k -> sympy K_k (only the entries that can be non-zero)
    claim: dict
    checks: list[tuple[str, bool]] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return bool(self.checks) and all(ok for _, ok in self.checks)

    def at(self, **values) -> dict[int, int]:
        """The proved profile at concrete symbols, e.g. ``at(m=5)`` or ``at(N=10, k=3)``."""
        subs = {sp.Symbol(name, integer=True, positive=True): v for name, v in values.items()}
        subs.update({sp.Symbol(name, integer=True, nonnegative=True): v for name, v in values.items()})
        out: dict[int, int] = {}
        for k, K in self.profile.items():
            kk, KK = int(sp.sympify(k).subs(subs)), int(sp.sympify(K).subs(subs))
            out[kk] = out.get(kk, 0) + KK
        return {k: v for k, v in out.items() if v}


def weight_sensitivity(g, n, w):
    r""":math:`s(w) = w (g(w-1)-g(w))^2 + (n-w)(g(w+1)-g(w))^2` for :math:`f = g(|x_S|)`,
    :math:`|S| = n` (0/1-valued ``g``)."""
    return w * (g(w - 1) - g(w)) ** 2 + (n - w) * (g(w + 1) - g(w)) ** 2


def _zero(expr) -> bool:
    return sp.simplify(sp.gammasimp(sp.expand_func(sp.expand(expr)))) == 0


def prove_by_weights(name, form, N, n, g, cases, claim) -> ProfileProof:
    """Sum over Hamming weights: evaluate ``s`` per case, tile ``0..n``, add the counts, and
    compare the profile with ``claim`` (a dict ``k -> K_k``) entry by entry.

    ``g`` is the 0/1 function of the weight on the ``n`` positions of ``S``, ``cases`` the
    :class:`Case` list that must tile ``0..n``; every check is recorded in the proof, so a wrong
    claim or a gap in the cases gives a proof that does not hold."""
    mult = 2 ** (N - n)
    checks = []
    # the cases tile 0..n: consecutive starts and total size n + 1
    pos = sp.Integer(0)
    for c in cases:
        checks.append((f"case starting at {c.start} follows the previous one", _zero(c.start - pos)))
        pos = c.start + c.size
    checks.append(("cases tile the weights 0..n", _zero(pos - (n + 1))))
    for c in cases:
        c.s = sp.simplify(weight_sensitivity(g, n, c.weight()))
        checks.append((f"s = {c.s} is constant on the case w = {c.weight()}", _j not in c.s.free_symbols))
    total = sp.simplify(sp.summation(sp.binomial(n, _w) * mult, (_w, 0, n)))
    checks.append((f"sum_w C(n,w) 2^(N-n) = 2^N (sympy: {total})", _zero(total - 2 ** N)))
    profile: dict = {}
    singles = [c for c in cases if c.size == 1]
    ranges = [c for c in cases if c.size != 1]
    for c in singles:
        profile[c.s] = profile.get(c.s, 0) + sp.binomial(n, c.start) * mult
    if ranges:
        s_vals = {r.s for r in ranges}
        checks.append(("all ranges share one sensitivity value", len(s_vals) == 1))
        (s_r,) = s_vals if len(s_vals) == 1 else (next(iter(s_vals)),)
        rest = total - sum(sp.binomial(n, c.start) * mult for c in singles)
        profile[s_r] = profile.get(s_r, 0) + rest
    profile = {k: sp.simplify(v) for k, v in profile.items()}
    # compare with the stated profile, entry by entry (keys may be symbolic)
    keys = set(profile) | set(claim)
    for key in keys:
        ok = _zero(profile.get(key, 0) - claim.get(key, 0))
        checks.append((f"K_{{{key}}} = {claim.get(key, 0)}", ok))
    checks.append(("profile sums to 2^N", _zero(sum(profile.values()) - 2 ** N)))
    return ProfileProof(name, form, N, cases, profile, claim, checks)


def _N_of(form):
    if form == "general":
        return _N
    if form == "even":
        return 2 * _m
    check_choice(form, "form", FORMS)
    return 2 * _m + 1


def prove_parity(form="general") -> ProfileProof:
    r"""PARITY :math:`g(w) = w \bmod 2`: :math:`s(w) = N` for every weight, so :math:`K_N = 2^N`."""
    N = _N_of(form)
    g = lambda w: sp.Mod(w, 2)  # noqa: E731
    checks = []
    s_even = sp.simplify(weight_sensitivity(g, N, 2 * _j))
    s_odd = sp.simplify(weight_sensitivity(g, N, 2 * _j + 1))
    checks.append((f"s(2j) = {s_even}", _zero(s_even - N)))
    checks.append((f"s(2j+1) = {s_odd}", _zero(s_odd - N)))
    total = sp.simplify(sp.summation(sp.binomial(N, _w), (_w, 0, N)))
    checks.append((f"sum_w C(N,w) = {total}", _zero(total - 2 ** N)))
    profile = {N: total}
    claim = {N: 2 ** N}
    checks.append(("K_N = 2^N", _zero(profile[N] - claim[N])))
    cases = [Case(2 * _j, sp.Symbol("evens"), s_even), Case(2 * _j + 1, sp.Symbol("odds"), s_odd)]
    return ProfileProof("parity", form, N, cases, profile, claim, checks)


def prove_sparse_parity(form="general", k=None) -> ProfileProof:
    r"""``k``-sparse parity on :math:`S`, :math:`|S| = k \le N`: :math:`s = k` for every string,
    :math:`K_k = 2^N`. ``k`` symbolic by default; ``k = 1`` is DICTATOR (and FIRST, ``i = 0``)."""
    N = _N_of(form)
    kk = _k if k is None else sp.Integer(k)
    g = lambda w: sp.Mod(w, 2)  # noqa: E731
    checks = []
    s_even = sp.simplify(weight_sensitivity(g, kk, 2 * _j))
    s_odd = sp.simplify(weight_sensitivity(g, kk, 2 * _j + 1))
    checks.append((f"s(2j) = {s_even} on |x_S| even", _zero(s_even - kk)))
    checks.append((f"s(2j+1) = {s_odd} on |x_S| odd", _zero(s_odd - kk)))
    total = sp.simplify(sp.summation(sp.binomial(kk, _w) * 2 ** (N - kk), (_w, 0, kk)))
    checks.append((f"sum_w C(k,w) 2^(N-k) = {total}", _zero(total - 2 ** N)))
    profile = {kk: total}
    claim = {kk: 2 ** N}
    checks.append(("K_k = 2^N", _zero(profile[kk] - claim[kk])))
    name = "sparse_parity" if k is None else ("dictator" if k == 1 else f"sparse_parity_k{k}")
    cases = [Case(2 * _j, sp.Symbol("evens"), s_even), Case(2 * _j + 1, sp.Symbol("odds"), s_odd)]
    return ProfileProof(name, form, N, cases, profile, claim, checks)


def prove_dictator(form="general") -> ProfileProof:
    r"""DICTATOR :math:`x_i` (FIRST is :math:`i = 0`): :math:`K_1 = 2^N`."""
    return prove_sparse_parity(form, k=1)


def majority_claim(N):
    r"""The stated profile of strict MAJORITY (claim SG-1 of ``docs/claims.md``):
    :math:`K_0 = 2^N - \binom{N+1}{\lfloor N/2\rfloor + 1}` and the non-zero entries
    (``N = 2m``: :math:`K_m = \binom{2m}{m}`, :math:`K_{m+1} = \binom{2m}{m+1}`;
    ``N = 2m+1``: :math:`K_{m+1} = \binom{2m+2}{m+1}`)."""
    K0 = 2 ** N - sp.binomial(N + 1, sp.floor(N / sp.Integer(2)) + 1)
    mm = sp.floor(N / sp.Integer(2))
    if N.is_even or sp.ask(sp.Q.even(N)):
        return {0: K0, mm: sp.binomial(N, mm), mm + 1: sp.binomial(N, mm + 1)}
    return {0: K0, mm + 1: sp.binomial(N + 1, mm + 1)}


def prove_majority(form="even", n=None) -> ProfileProof:
    r"""Strict MAJORITY :math:`g(w) = [2w > n]` (on all ``N`` positions, or on ``n`` of them
    for sparse majority when ``n`` is given), for ``N = 2m`` (``form="even"``) or
    ``N = 2m+1`` (``"odd"``). Cases: :math:`w = m-1-j` (below), :math:`w = m`,
    :math:`w = m+1`, :math:`w = m+2+j` (above)."""
    check_choice(form, "form", ("even", "odd"))
    N = _N_of(form)
    g = lambda w: sp.Piecewise((1, 2 * w > N), (0, True))  # noqa: E731
    cases = [
        Case(sp.Integer(0), _m, from_top=True),
        Case(_m, sp.Integer(1)),
        Case(_m + 1, sp.Integer(1)),
        Case(_m + 2, N + 1 - (_m + 2)),
    ]
    return prove_by_weights("majority", form, N, N, g, cases, majority_claim(N))


def prove_all() -> list[ProfileProof]:
    """Every SG-1 profile proof: parity, sparse parity (symbolic ``k``), dictator/first, for
    ``N`` general, even and odd; majority for even and odd ``N``."""
    out = []
    for form in FORMS:
        out += [prove_parity(form), prove_sparse_parity(form), prove_dictator(form)]
    out += [prove_majority("even"), prove_majority("odd")]
    return out


@functools.lru_cache(maxsize=None)
def _proved(prove, form) -> ProfileProof:
    proof = prove(form)
    if not proof.holds:  # never evaluate a formula whose proof failed
        bad = [c for c, ok in proof.checks if not ok]
        raise AssertionError(f"{proof.name} ({form}): proof checks failed: {bad}")
    return proof


@dataclass(frozen=True)
class FunctionProof:
    """The proved profile of one function of :data:`numeric.vocabulary.FUNCTIONS`.

    Every function of this module that depends on the function reads it from here (no code
    branches on its name), so a proof is added by adding one entry to :data:`PROFILE_PROOFS`.

    Attributes:
        name: the function's name (a key of ``numeric.boolean.BOOLEAN_FUNCTIONS``).
        smallest_N: the smallest ``N`` its proof covers (its cases need it).
        evaluate: ``evaluate(N, k)``: the proved profile at ``N`` (already checked against
            :attr:`smallest_N`), non-zero entries only; ``k`` is the size of its set of positions
            where the function has one (sparse parity), else ignored.
        set_size: ``set_size(params)``: the ``k`` of ``evaluate`` from the function's parameters
            (None where the profile does not depend on them).
    """

    name: str
    smallest_N: int
    evaluate: Callable
    set_size: Callable = lambda params: None


def _sparse_parity_profile(N, k):
    k = check_int(k, "k", lo=1, hi=N)
    return _proved(prove_sparse_parity, "general").at(N=N, k=k)


#: The functions whose profile is proved here, keyed by name.
PROFILE_PROOFS = {
    "parity": FunctionProof("parity", 1, lambda N, k=None: _proved(prove_parity, "general").at(N=N)),
    "first": FunctionProof("first", 1, lambda N, k=None: _proved(prove_dictator, "general").at(N=N)),
    "dictator": FunctionProof("dictator", 1, lambda N, k=None: _proved(prove_dictator, "general").at(N=N)),
    "sparse_parity": FunctionProof("sparse_parity", 1, _sparse_parity_profile,
                                   set_size=lambda params: len(params["S"])),
    # the cases of the majority proof need m >= 1
    "majority": FunctionProof("majority", 2, lambda N, k=None: _proved(
        prove_majority, "even" if N % 2 == 0 else "odd").at(m=N // 2)),
}
#: The functions of :data:`numeric.vocabulary.FUNCTIONS` whose profile is proved here.
FORMULA_FUNCTIONS = tuple(PROFILE_PROOFS)


def profile_proof(name) -> FunctionProof:
    """The :class:`FunctionProof` of ``name``; :class:`InputError` listing the proved functions
    for any other name."""
    check_choice(name, "name", tuple(PROFILE_PROOFS))
    return PROFILE_PROOFS[name]


def formula_profile(name, N: int, k: int | None = None) -> dict[int, int]:
    """The proved profile evaluated at a concrete ``N`` (non-zero entries only), e.g.
    ``formula_profile("majority", 10) == {0: 562, 5: 252, 6: 210}``."""
    N = check_int(N, "N", lo=1)
    proof = profile_proof(name)
    return proof.evaluate(check_int(N, "N", lo=proof.smallest_N), k)


__all__ = [
    "Case", "ProfileProof", "FunctionProof", "PROFILE_PROOFS", "profile_proof", "FORMS", "FORMULA_FUNCTIONS", "weight_sensitivity", "prove_by_weights",
    "prove_parity", "prove_sparse_parity", "prove_dictator", "prove_majority", "majority_claim", "prove_all", "formula_profile",
]
