r"""Paper B's displayed identities (sensitivity of Boolean functions), each with its check.

The profiles are printed from the claims that :mod:`verify.symbolic.profile_proofs` proves for
symbolic ``N`` and are checked twice: the proof must hold, and the displayed formula must equal
the profile enumerated over all :math:`2^N` strings (:mod:`numeric.boolean`) for ``N`` up to 12.
The facts on random functions come from :mod:`verify.reference.random_functions`, the bound on
the layer norms from :mod:`verify.reference.bounds` and the engine, the crossover from the Arb
balls of :mod:`verify.reference.certified`.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from verify.symbolic import profile_proofs
from verify.derivations.identity import Identity
from verify.symbolic.printing import tex

_N = sp.Symbol("N", integer=True, positive=True)
_NS = range(2, 13)


def _profile(name, N, **params):
    import numeric.boolean as nb

    counts = nb.profile(nb.truth_table(name, N, **params)).tolist()
    return {k: int(c) for k, c in enumerate(counts) if c}


def _holds(*proofs):
    bad = [f"{p.name} ({p.form})" for p in proofs if not p.holds]
    return not bad, ("proofs hold" if not bad else f"proof fails: {bad}")


def _against_enumeration(name, formula, Ns=_NS, **params):
    for N in Ns:
        got = _profile(name, N, **params)
        want = {k: v for k, v in formula(N).items() if v}
        if got != want:
            return False, f"N = {N}: enumeration {got} != formula {want}"
    return True, f"enumeration, N = {Ns[0]}..{Ns[-1]}"


def _both(a, b):
    return a[0] and b[0], f"{a[1]}; {b[1]}"


def _K0_formula():
    return profile_proofs.majority_claim(_N)[0]


def _majority_formula(N):
    m = N // 2
    K0 = int(_K0_formula().subs(_N, N))
    if N % 2 == 0:
        return {0: K0, m: int(sp.binomial(N, m)), m + 1: int(sp.binomial(N, m + 1))}
    return {0: K0, m + 1: int(sp.binomial(N + 1, m + 1))}


def _check_majority(form):
    proof = profile_proofs.prove_majority(form)
    Ns = [N for N in _NS if N % 2 == (0 if form == "even" else 1)]
    enum = _against_enumeration("majority", _majority_formula, Ns=Ns)
    return _both(_holds(proof), enum)


#: half the length in MAJORITY's cases, ``N = 2r`` and ``N = 2r + 1`` (``m`` is paper A's
#: embedding dimension)
_r = sp.Symbol("r", integer=True, positive=True)


def _majority_body(form):
    claim = profile_proofs.majority_claim(2 * _r if form == "even" else 2 * _r + 1)
    items = sorted(claim.items(), key=lambda kv: sp.default_sort_key(kv[0]))
    return r",\quad ".join(rf"K_{{{sp.latex(k)}}} = {sp.latex(v)}" for k, v in items)


def _check_K0():
    proofs = _holds(profile_proofs.prove_majority("even"), profile_proofs.prove_majority("odd"))
    K0 = _K0_formula()
    for N in _NS:
        got = _profile("majority", N).get(0, 0)
        if int(K0.subs(_N, N)) != got:
            return False, f"N = {N}: enumeration K_0 = {got}, formula {K0.subs(_N, N)}"
    return proofs[0], f"{proofs[1]}; enumeration, N = 2..12"


def _check_weight_rule():
    """s(w) summed over weights reproduces the enumerated profile (majority, sparse parity)."""
    for name, N, n, g, params in (("majority", 7, 7, lambda w: int(2 * w > 7), {}),
                                  ("majority", 8, 8, lambda w: int(2 * w > 8), {}),
                                  ("sparse_parity", 6, 3, lambda w: w % 2, {"S": [0, 2, 5]})):
        prof = {}
        for w in range(n + 1):
            s = int(profile_proofs.weight_sensitivity(g, n, w))
            prof[s] = prof.get(s, 0) + int(sp.binomial(n, w)) * 2 ** (N - n)
        if prof != _profile(name, N, **params):
            return False, f"{name}, N = {N}"
    return True, "MAJORITY N = 7, 8; sparse parity N = 6, |S| = 3: every string"


def _check_simple(prove, name, formula, **params):
    proofs = _holds(*[prove(f) for f in profile_proofs.FORMS])
    return _both(proofs, _against_enumeration(name, formula, **params))


def _check_EK0():
    from verify.reference.random_functions import enumerate_random_functions, expected_K0

    sym = sp.simplify(expected_K0() - 1) == 0
    enum = all(enumerate_random_functions(N)["E_K0"] == 1 for N in (1, 2, 3, 4))
    return sym and enum, "symbolic N; every function for N = 1..4"


def _var_body():
    from verify.reference.random_functions import variance_K0_claim

    return r"\operatorname{Var}[K_0] = " + tex(variance_K0_claim(), {}, ascending=True)


def _check_var():
    from verify.reference.random_functions import enumerate_random_functions, variance_K0, variance_K0_claim

    sym = sp.simplify(variance_K0() - variance_K0_claim()) == 0
    for N in (1, 2, 3, 4):
        e = enumerate_random_functions(N)
        var = e["E_K0_sq"] - e["E_K0"] ** 2
        if Fraction(str(variance_K0_claim(N))) != var:
            return False, f"N = {N}: {var}"
    return sym, "symbolic N; every function for N = 1..4"


def _chen_stein(N):
    return Fraction(1 + 3 * N + 3 * N * (N - 1) // 2, 2 ** N)


def _check_poisson():
    import mpmath

    from verify.reference.random_functions import enumerate_random_functions, poisson_limit

    with mpmath.workdps(60):
        limit = mpmath.mpf(poisson_limit(50))
        ok = abs(limit - (1 - mpmath.exp(-1))) < mpmath.mpf(10) ** -49
        for N in (1, 2, 3, 4):
            p = enumerate_random_functions(N)["p_K0_ge_1"]
            cs = _chen_stein(N)
            ok &= abs(mpmath.mpf(p.numerator) / p.denominator - limit) <= mpmath.mpf(cs.numerator) / cs.denominator
    ok &= _chen_stein(16) <= Fraction(1, 100) and _chen_stein(40) <= Fraction(1, 10 ** 8)
    return bool(ok), "exact P for N = 1..4 within the bound; bound <= 0.01 at N = 16, <= 1e-8 at N = 40"


def _check_blowup():
    import math

    import torch

    from numeric.transformer import BooleanTransformer, TransformerConfig, initialize_
    from verify.reference.bounds import blowup_bound

    eps, L = 1e-4, 2
    x = torch.tensor([[0, 1, 1, 0, 1], [1, 1, 0, 0, 0]])
    bound = float(blowup_bound(eps, 2 * L))
    ok = abs(bound - (1 + 1 / math.sqrt(eps)) ** (2 * L)) <= 1e-12 * bound
    worst = 0.0
    for seed in range(4):
        model = BooleanTransformer(TransformerConfig(D=8, L=L, H=2, eps=eps))
        initialize_(model, "uniform", generator=torch.Generator().manual_seed(seed))
        with torch.no_grad():
            if seed == 0:
                for p in model.parameters():
                    p.zero_()
            d = model.blowup(x)
        ok &= float(d["z"].max()) * math.sqrt(eps) <= 1 + 1e-10
        worst = max(worst, float(d["beta"].max()) / bound)
        ok &= worst <= 1 + 1e-10
    ok &= worst >= 1 - 1e-10     # attained: zero parameters give zero variance
    return bool(ok), f"eps = 1e-4, L' = 4: zero and 3 random models, max beta/bound = {worst:.12f}"


def _check_exponent():
    from verify.reference.bounds import theorem_exponent

    D, L = sp.symbols("D L", positive=True)
    expr = (D - 1) / (2 * L) - 5
    for Dv in (8, 16, 32, 64, 128):
        for Lv in (1, 2, 4):
            if Fraction(str(expr.subs({D: Dv, L: Lv}))) != theorem_exponent(Dv, Lv):
                return False, f"D = {Dv}, L = {Lv}"
    return True, "exact rationals, D = 8..128, L = 1, 2, 4"


def _check_crossover():
    import mpmath

    from verify.reference import certified
    from verify.reference.bounds import crossover, theorem_exponent

    out = []
    for (D, L), want in (((64, 2), 65), ((32, 2), 9)):
        a = theorem_exponent(D, L)
        c = certified.crossover(a)
        ref = crossover(a)
        with mpmath.workdps(50):
            af = mpmath.mpf(a.numerator) / a.denominator
            root = -(af / mpmath.log(2)) * mpmath.lambertw(-mpmath.log(2) / af, -1)
            lambert = int(mpmath.floor(mpmath.re(root))) + 1
        out.append(c.value == want == ref["N_star"] == lambert)
    return all(out), f"Arb balls ({c.precision}) and 50-digit Lambert W, (D, L) = (64, 2), (32, 2)"


def _crossover_body():
    from verify.reference import certified
    from verify.reference.bounds import theorem_exponent

    a = theorem_exponent(64, 2)
    n = certified.crossover(a).value
    return (r"N^* = \lfloor N_{-1}\rfloor + 1,\quad N_{-1} = -\frac{a}{\ln 2}\,"
            r"W_{-1}\!\left(-\frac{\ln 2}{a}\right);\qquad "
            rf"a(64, 2) = \tfrac{{{a.numerator}}}{{{a.denominator}}},\ N^* = {n}")


def paper_b():
    """Paper B's identities, in the order displayed."""
    pp = profile_proofs
    return [
        Identity("sens-w", "profiles",
                 lambda: (r"s(w) = w\,\bigl(g(w-1) - g(w)\bigr)^2 + (n-w)\,\bigl(g(w+1) - g(w)\bigr)^2,"
                          r"\qquad K_k = \sum_{w:\,s(w)=k}\binom{n}{w}2^{N-n}"),
                 _check_weight_rule, "against enumeration", "MAJORITY N = 7, 8; sparse parity N = 6"),
        Identity("parity", "profiles", lambda: r"K_N = 2^N,\qquad K_k = 0\ (k < N)",
                 lambda: _check_simple(pp.prove_parity, "parity", lambda N: {N: 2 ** N}),
                 "sympy proof (N, 2r, 2r+1); enumeration", "symbolic N; N = 2..12"),
        Identity("sparse", "profiles", lambda: r"K_{|S|} = 2^N,\qquad K_k = 0\ (k \ne |S|)",
                 lambda: _check_simple(pp.prove_sparse_parity, "sparse_parity",
                                       lambda N: {2: 2 ** N}, S=[0, 1]),
                 "sympy proof (symbolic |S|); enumeration", "symbolic N; N = 2..12, S = {0, 1}"),
        Identity("dictator", "profiles", lambda: r"K_1 = 2^N,\qquad K_k = 0\ (k \ne 1)",
                 lambda: _both(_check_simple(pp.prove_dictator, "dictator", lambda N: {1: 2 ** N}, i=1),
                               _against_enumeration("first", lambda N: {1: 2 ** N})),
                 "sympy proof (|S| = 1); enumeration of DICTATOR (i = 1) and FIRST (i = 0)",
                 "symbolic N; N = 2..12"),
        Identity("maj-even", "profiles", lambda: _majority_body("even"), lambda: _check_majority("even"),
                 "sympy proof over weights; enumeration", "N = 2r symbolic; N = 2..12 even"),
        Identity("maj-odd", "profiles", lambda: _majority_body("odd"), lambda: _check_majority("odd"),
                 "sympy proof over weights; enumeration", "N = 2r+1 symbolic; N = 3..11 odd"),
        Identity("maj-K0", "profiles", lambda: "K_0 = " + sp.latex(_K0_formula()), _check_K0,
                 "both proofs; enumeration", "symbolic N; N = 2..12"),
        Identity("EK0", "random", lambda: (r"\mathbb{E}[K_0] = \sum_{x}\Pr[s(x) = 0] = "
                                           r"2^N\cdot 2\cdot 2^{-(N+1)} = 1"),
                 _check_EK0, "sympy; every function enumerated", "symbolic N; N = 1..4"),
        Identity("varK0", "random", _var_body, _check_var, "sympy; every function enumerated", "symbolic N; N = 1..4"),
        Identity("poisson", "random",
                 lambda: (r"\Bigl|\Pr[K_0\ge 1] - \bigl(1 - e^{-1}\bigr)\Bigr| \le "
                          r"\frac{1 + 3N + 3\binom{N}{2}}{2^N} \xrightarrow[N\to\infty]{} 0"),
                 _check_poisson, "exact rationals; 50 digits", "N = 1..4 enumerated; N = 16, 40"),
        Identity("ln-z", "blowup",
                 lambda: (r"z_n = \frac{1}{\sqrt{\operatorname{var}(u_n) + \varepsilon}} \le "
                          r"\frac{1}{\sqrt\varepsilon},\qquad \beta^L = \prod_{\ell=1}^{L'}"
                          r"\max_n\bigl(1 + z_n^{\ell}\bigr) \le \Bigl(1 + \frac{1}{\sqrt\varepsilon}\Bigr)^{L'}"),
                 _check_blowup, "float64 engine against the 50-digit bound; attained",
                 "eps = 1e-4, L' = 4, zero and random parameters"),
        Identity("exponent", "crossover", lambda: r"a(D, L) = \frac{D-1}{2L} - 5",
                 _check_exponent, "exact rationals", "D = 8..128, L = 1, 2, 4"),
        Identity("crossover", "crossover", _crossover_body, _check_crossover,
                 "Arb balls; 50-digit Lambert W", "(D, L) = (64, 2), (32, 2)"),
    ]


__all__ = ["paper_b"]
