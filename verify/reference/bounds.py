r"""Closed-form bounds of paper B at 50 digits (mpmath), as formalised in boolverify.

1. **Theorem 4.5 exponent** (:math:`\varepsilon = 0`, random init):
   :math:`K_0 \ge N^{a}` for all large :math:`N`, with :math:`a(D, L) = \frac{D-1}{2L} - 5`.
   Since :math:`K_0 \le 2^N`, the bound can only hold (is informative) once
   :math:`N^a < 2^N`. For :math:`a \ge e\ln 2` the equation :math:`N^a = 2^N`, i.e.
   :math:`a \ln N = N \ln 2`, has two roots

   .. math:: N_{\pm} = -\frac{a}{\ln 2}\, W_{k}\!\left(-\frac{\ln 2}{a}\right),
      \qquad k = 0 \text{ (lower)},\; k = -1 \text{ (upper)},

   and :math:`N^a < 2^N` for every :math:`N > N_{-1}` (the function
   :math:`N\ln 2 - a\ln N` increases for :math:`N > a/\ln 2`). The crossover is
   :math:`N^* = \lfloor N_{-1} \rfloor + 1`, checked by direct evaluation. For
   :math:`0 < a < e\ln 2`, :math:`N^a < 2^N` for all :math:`N \ge 1` (:math:`N^* = 1`);
   for :math:`a \le 0`, :math:`N^a \le 1`, so the bound says only :math:`K_0 \ge 1`
   (:math:`N^* = 1`).

2. **Blowup bound** (:math:`\varepsilon > 0`, SG-3): :math:`z \le 1/\sqrt\varepsilon`, so
   :math:`\beta^L \le (1 + 1/\sqrt\varepsilon)^{L'}` with :math:`L' = 2L` LN applications.

3. **Packing bound** (:math:`\varepsilon > 0`, SG-5). Let :math:`F_N` be the set of
   functions on :math:`\{0,1\}^N` recognised with margin :math:`\xi` by some parameter
   :math:`\theta` in the box :math:`\Theta = [-B, B]^M`. *Assumption of our
   formalisation* (a documented parameter, not derived here): :math:`\theta \mapsto
   T_\theta(x)` is :math:`C_{\mathrm{Lip}}`-Lipschitz for the :math:`\ell_\infty` norm,
   uniformly in :math:`x` and :math:`N` (for :math:`\varepsilon > 0` every LN is
   Lipschitz with constant :math:`\le |g|/\sqrt\varepsilon`, which is why such a constant
   exists). Cut :math:`\Theta` into cubes of side :math:`s < 2\xi/C_{\mathrm{Lip}}`: two
   parameters in one cube differ by :math:`< 2\xi` at every :math:`x`, so they cannot
   recognise different functions (that needs :math:`T \ge \xi` against
   :math:`T \le -\xi`). Hence, with :math:`\operatorname{diam}\Theta = 2B`,

   .. math:: |F_N| \le \Bigl(1 + \frac{C_{\mathrm{Lip}} \operatorname{diam}\Theta}{\xi}\Bigr)^{M},

   independent of :math:`N`, while there are :math:`2^{2^N}` functions. The crossover is
   the smallest :math:`N` with :math:`2^N > M \log_2(1 + C_{\mathrm{Lip}}\,
   \operatorname{diam}\Theta/\xi)` (computed in logs). :math:`M` counts the parameters of
   our architecture (:func:`n_params`; the positional table has :math:`N_{\max}+1` rows).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from numeric.validation import check_int, check_real

DPS = 50
#: C_Lip values tabulated when none is given (the constant is a parameter, see module doc).
DEFAULT_C_LIPS = (1.0, 1e3, 1e6, 1e12, 1e24)


def _mpf(value, name, **interval):
    """``value`` checked by :func:`check_real` (``interval``: its ``lo``/``lo_open``) and returned
    as an mpf at the working precision, keeping every digit of a ``Fraction`` or an mpf."""
    v = check_real(value, name, **interval)
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    return mpmath.mpf(value) if isinstance(value, (int, mpmath.mpf)) else mpmath.mpf(v)


def theorem_exponent(D: int, L: int) -> Fraction:
    r"""Exact exponent :math:`a(D, L) = \frac{D-1}{2L} - 5` of Theorem 4.5 (as formalised)."""
    check_int(D, "D", lo=2)
    check_int(L, "L", lo=1)
    return Fraction(D - 1, 2 * L) - 5


def _reaches_two_power(n: int, a, af) -> bool:
    r""":math:`n^a \ge 2^n`, at the working precision; where the two sides are too close to call
    at that precision and ``a`` is an int or a ``Fraction`` (e.g. :math:`a = 128/7`, :math:`n =
    128`: :math:`n^a = 2^n` exactly), decided exactly in integers, :math:`n^p \ge 2^{nq}`."""
    lhs, rhs = af * mpmath.log(n), n * mpmath.log(2)
    close = abs(lhs - rhs) <= mpmath.mpf(2) ** (20 - mpmath.mp.prec) * rhs
    if close and isinstance(a, (int, Fraction)) and not isinstance(a, bool):
        exact = Fraction(a)
        return n ** exact.numerator >= 2 ** (n * exact.denominator)
    return lhs >= rhs


def _last_integer_reaching(up, a, af) -> int:
    r"""The largest integer :math:`k \le N_{-1}` (the upper root), with a root within rounding
    of an integer decided by :func:`_reaches_two_power`."""
    k = int(mpmath.nint(up))
    if abs(up - k) <= mpmath.mpf(2) ** (20 - mpmath.mp.prec) * up:
        return k if _reaches_two_power(k, a, af) else k - 1
    return int(mpmath.floor(up))


def crossover_direct(a, *, dps: int = DPS) -> int:
    r"""Smallest integer :math:`N^* \ge 1` with :math:`N^a < 2^N` for all :math:`N \ge N^*`,
    by direct evaluation of :math:`a \ln N` against :math:`N \ln 2` (no Lambert W).

    :math:`h(N) = N\ln 2 - a\ln N` is convex, so the integers with :math:`N^a \ge 2^N`
    (:math:`h \le 0`) form one run around the minimum at :math:`a/\ln 2`: if neither integer
    next to the minimum is in it, none is (:math:`N^* = 1`); otherwise its last element is
    found by doubling past the minimum, then bisection, in :math:`O(\log N^*)` evaluations.
    """
    with mpmath.workdps(dps):
        af = _mpf(a, "a")

        def bad(n):
            return _reaches_two_power(n, a, af)

        turn = max(1, int(mpmath.floor(af / mpmath.log(2))))
        start = next((n for n in (turn, turn + 1) if bad(n)), None)
        if start is None:
            return 1
        lo, step = start, 1                     # bad(lo) holds
        while bad(lo + step):
            lo, step = lo + step, 2 * step
        hi = lo + step                          # bad(hi) fails; h increases past the minimum
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if bad(mid) else (lo, mid)
        return lo + 1


def crossover(a, *, dps: int = DPS) -> dict:
    r"""Where :math:`N^a < 2^N` starts to hold for good (Lambert W, checked directly).

    Args:
        a: the exponent (``Fraction``, int, float or mpf).

    Returns:
        dict with ``a`` (mpf), ``regime`` (``"a<=0"``, ``"no-crossing"`` for
        :math:`0 < a < e\ln 2`, ``"two-crossings"``), ``N_upper`` / ``N_lower`` (real roots
        :math:`N_{-1}, N_0` from :math:`W_{-1}, W_0`, or ``None``), ``N_star`` (int),
        ``N_star_direct`` (int, :func:`crossover_direct`) and ``agree`` (bool).
    """
    with mpmath.workdps(dps):
        af = _mpf(a, "a")
        ln2 = mpmath.log(2)
        out = {"a": af, "N_upper": None, "N_lower": None}
        if af <= 0:
            out.update(regime="a<=0", N_star=1)
        elif af < mpmath.e * ln2:
            out.update(regime="no-crossing", N_star=1)
        else:
            arg = -ln2 / af
            up = -(af / ln2) * mpmath.lambertw(arg, -1)
            lo = -(af / ln2) * mpmath.lambertw(arg, 0)
            up, lo = mpmath.re(up), mpmath.re(lo)
            # N^a >= 2^N exactly on [N_lower, N_upper]; when no integer lies there (possible for
            # e ln 2 < a < 3 ln 2 / ln 3) the bound holds from N = 1 on
            last = _last_integer_reaching(up, a, af)
            has_integer = last >= mpmath.ceil(lo)
            out.update(regime="two-crossings", N_upper=up, N_lower=lo,
                       N_star=last + 1 if has_integer else 1)
        out["N_star_direct"] = crossover_direct(a, dps=dps)
        out["agree"] = out["N_star"] == out["N_star_direct"]
        return out


def blowup_bound(eps, L_prime: int, *, dps: int = DPS):
    r""":math:`(1 + 1/\sqrt\varepsilon)^{L'}`, the bound on :math:`\beta^L` for
    :math:`\varepsilon > 0` (no bound exists at :math:`\varepsilon = 0`)."""
    check_int(L_prime, "L_prime", lo=1)
    with mpmath.workdps(dps):
        # at eps = 0 the blowup is unbounded (z = 1/sqrt(var) as var -> 0): no bound to return
        e = _mpf(eps, "eps", lo=0, lo_open=True)
        return (1 + 1 / mpmath.sqrt(e)) ** L_prime


def n_params(D: int, L: int, F: int | None = None, N_max: int = 64) -> int:
    r"""Parameter count :math:`M` of the transformer of :mod:`numeric.transformer` (as formalised):
    :math:`3D + (N_{\max}+1)D + L\,[4(D^2 + D) + 2DF + F + D + 4D] + D + 1`."""
    check_int(D, "D", lo=2)
    check_int(L, "L", lo=1)
    check_int(N_max, "N_max", lo=1)
    F = 4 * D if F is None else check_int(F, "F", lo=1)
    layer = 4 * (D * D + D) + (D * F + F) + (F * D + D) + 4 * D
    return 3 * D + (N_max + 1) * D + L * layer + D + 1


def packing_log2_bound(M: int, C_lip, diam, xi, *, dps: int = DPS):
    r""":math:`\log_2 |F_N| \le M \log_2(1 + C_{\mathrm{Lip}}\operatorname{diam}\Theta/\xi)`."""
    check_int(M, "M", lo=1)
    with mpmath.workdps(dps):
        c = _mpf(C_lip, "C_lip", lo=0, lo_open=True)
        d = _mpf(diam, "diam", lo=0, lo_open=True)
        x = _mpf(xi, "xi", lo=0, lo_open=True)
        return M * mpmath.log(1 + c * d / x, 2)


def packing_crossover(M: int, C_lip, diam, xi, *, dps: int = DPS) -> dict:
    r"""Smallest :math:`N` with :math:`2^{2^N} > (1 + C_{\mathrm{Lip}}\operatorname{diam}/\xi)^M`,
    i.e. :math:`2^N > \log_2` of the bound (in logs; checked at :math:`N^*` and
    :math:`N^*-1`).

    Returns:
        dict with ``log2_bound`` (mpf), ``N_star`` (int) and ``checked`` (bool).
    """
    with mpmath.workdps(dps):
        lb = packing_log2_bound(M, C_lip, diam, xi, dps=dps)
        n = int(mpmath.floor(mpmath.log(lb, 2))) + 1 if lb >= 1 else 0
        # guard the floor against rounding at an exact power of two
        while n > 0 and mpmath.mpf(2) ** (n - 1) > lb:
            n -= 1
        while not mpmath.mpf(2) ** n > lb:
            n += 1
        checked = bool(mpmath.mpf(2) ** n > lb and (n == 0 or not mpmath.mpf(2) ** (n - 1) > lb))
        return {"log2_bound": lb, "N_star": n, "checked": checked}


def bounds_report(D: int, L: int, *, F: int | None = None, N_max: int = 64, eps=1e-5, xi=0.1,
                  B=1.0, C_lips=DEFAULT_C_LIPS, dps: int = DPS) -> dict:
    """Everything ``boolverify sensitivity bounds`` prints, as plain numbers/strings."""
    a = theorem_exponent(D, L)
    c = crossover(a, dps=dps)
    M = n_params(D, L, F, N_max)
    diam = 2 * _mpf(B, "B", lo=0, lo_open=True)
    with mpmath.workdps(dps):
        e = _mpf(eps, "eps", lo=0)
        blow = blowup_bound(e, 2 * L, dps=dps) if e > 0 else mpmath.inf
        rows = []
        for C in C_lips:
            p = packing_crossover(M, C, diam, xi, dps=dps)
            rows.append({"C_lip": float(C), "log2_bound": mpmath.nstr(p["log2_bound"], 15),
                         "N_star": p["N_star"], "checked": p["checked"]})
        return {
            "D": D, "L": L, "L_prime": 2 * L, "F": 4 * D if F is None else F, "N_max": N_max,
            "eps": float(eps), "xi": float(xi), "B": float(B), "diam": float(diam), "M": M,
            "a": str(a), "a_float": float(a), "regime": c["regime"],
            "N_upper": None if c["N_upper"] is None else mpmath.nstr(c["N_upper"], 30),
            "N_lower": None if c["N_lower"] is None else mpmath.nstr(c["N_lower"], 30),
            "N_star": c["N_star"], "N_star_direct": c["N_star_direct"], "agree": c["agree"],
            "blowup_bound": mpmath.nstr(blow, 20) if e > 0 else "unbounded (eps = 0)",
            "log10_blowup_bound": float(mpmath.log10(blow)) if e > 0 else None,
            "packing": rows,
            "note": "as formalised in boolverify; C_lip is a parameter of the formalisation",
        }


__all__ = [
    "DPS", "DEFAULT_C_LIPS", "theorem_exponent", "crossover", "crossover_direct", "blowup_bound",
    "n_params", "packing_log2_bound", "packing_crossover", "bounds_report",
]
