r"""Certified versions of the bounds that the suite states as facts: Arb balls (python-flint)
and exact rationals, never ``mpmath.iv`` (the precision contract, SPEC section 4).

What is certified here:

1. **Theorem 4.5 crossover** :math:`N^*(a)`, the smallest integer with :math:`N^a < 2^N` for
   every :math:`N \ge N^*`, and an enclosure of the upper root
   :math:`N_{-1} = -\frac{a}{\ln 2} W_{-1}(-\ln 2/a)` (Arb's ``lambertw``, branch -1). With
   :math:`f(N) = a\ln N - N\ln 2`:

   - :math:`a \le 0` (decided on the exact rational): :math:`f(N) < 0` for all
     :math:`N \ge 1`, so :math:`N^* = 1`;
   - :math:`0 < a < e\ln 2` (a ball comparison): the maximum of :math:`f` over
     :math:`N > 0`, :math:`a(\ln(a/\ln 2) - 1)`, is negative, so :math:`N^* = 1`;
   - :math:`a > e\ln 2`: the candidate :math:`n = \lfloor N_{-1}\rfloor + 1` is certified by
     two ball evaluations, :math:`f(n - 1) \ge 0` and :math:`f(n) < 0`. No scan is needed:
     :math:`f` is concave for :math:`a > 0` (:math:`f'' = -a/N^2`), so once it drops from
     :math:`n-1` to :math:`n` it keeps decreasing, and :math:`f(N) < f(n) < 0` for all
     :math:`N > n`; :math:`f(n-1) \ge 0` says that :math:`n - 1` is not a crossover. An exact
     tie :math:`f(n) = 0`, which balls cannot decide, is decided in integers (:math:`n^p`
     against :math:`2^{nq}` for :math:`a = p/q`).
   - Just above :math:`e\ln 2` the interval :math:`[N_0, N_{-1}]` where :math:`f \ge 0` may
     lie strictly between two integers (e.g. :math:`a = 1.89`: :math:`(2.518, 2.947)`); then
     :math:`f(n-1) < 0`, the balls of both roots certify :math:`n - 1 < N_0 \le N_{-1} < n`,
     and :math:`N^* = 1` (not :math:`\lfloor N_{-1}\rfloor + 1`).

2. **SG-3 blowup bound** :math:`(1 + 1/\sqrt\varepsilon)^{L'}` as a ball.
3. **SG-5 packing bound** :math:`M\log_2(1 + C_{\mathrm{Lip}}\operatorname{diam}/\xi)` as a
   ball, and its crossover, the smallest :math:`N` with :math:`2^N` above it, certified by
   the two comparisons at :math:`N` and :math:`N - 1` (:math:`2^N` increases, so the first
   :math:`N` above the bound is the crossover). With :math:`r = 1 + C_{\mathrm{Lip}}
   \operatorname{diam}/\xi` rational, :math:`\log_2 r` is an integer when :math:`r` is a power
   of two and irrational otherwise, so the bound can equal a power of two only in the first
   case, which is computed exactly in integers.
4. **SX-5 erf-attention bound** :math:`(1 - 2/d^2)^2`, an exact rational. (The
   linear-attention bound of :mod:`verify.reference.linear_bound` is the minimum of a numerical
   convex relaxation in float64 and is *not* certified.)

Inputs given as floats are taken as the exact binary numbers they are (as :mod:`mpmath` does in
:mod:`verify.reference.bounds`), rationals exactly.

**Refusal.** A decision (is this quantity below that threshold?) is made only when the ball
lies wholly on one side. When it straddles the threshold the precision is raised along
:data:`PRECISIONS`; if the last one still does not decide, :func:`certify_below` raises
:class:`CertificationRefused`, naming the quantity, the threshold and the ball. A tie that
holds exactly (e.g. :math:`4^2 = 2^4`, so :math:`f(4) = 0` for :math:`a = 2`) is therefore
refused at every precision rather than guessed; the two crossovers then decide it in exact
integers where the tie has that form (items 1 and 3) and refuse otherwise.

**Without python-flint** (a core dependency, but a platform without a wheel may lack it) the functions return the 50-digit mpmath values
of :mod:`verify.reference.bounds` marked ``precision = "50-digit"`` with ``lo = hi = value``;
the exact rational of item 4 needs no flint and is always certified. :func:`certify_below`
needs flint. Arb's working precision is set per call with ``flint.ctx.workprec`` (a process-wide
setting, restored on exit; not meant for concurrent threads).
"""

from __future__ import annotations

import math
import numbers
import sys
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from numeric.validation import check_int, check_real, reject
from verify.reference import bounds

#: Working precisions (bits) tried in turn for a decision before it is refused.
PRECISIONS = (53, 128, 256, 1024)
#: Largest integers (bits) built for an exact tie-break where balls cannot decide.
EXACT_BITS = 1 << 22
#: Working precision (bits) of the value balls: above the 50 digits (167 bits) of the mpmath
#: references, so a ball is tighter than the reference it is compared with.
VALUE_BITS = 192

CERTIFIED = "certified"
FIFTY_DIGIT = "50-digit"


class CertificationRefused(ArithmeticError):
    """The balls did not decide a comparison at the highest working precision tried: the
    quantity may sit exactly on the threshold, and a certificate does not guess."""


@dataclass(frozen=True)
class CertifiedValue:
    """A real number with an enclosure.

    ``value`` is the midpoint (nearest float); ``lo``/``hi`` are the ball's ends rounded
    outward to floats (an overflow gives ``hi = inf``); ``precision`` is ``"certified"`` (Arb
    ball or exact rational: the true value lies in ``[exact_lo, exact_hi]``) or ``"50-digit"``
    (mpmath, no enclosure: ``lo = hi = value``). ``bits`` is Arb's working precision (``None``
    for an exact rational or an mpmath value); ``text`` the ball or value in decimal.
    """

    value: float
    lo: float
    hi: float
    precision: str
    bits: int | None
    text: str
    exact_lo: Fraction = field(repr=False)
    exact_hi: Fraction = field(repr=False)

    @property
    def rel_radius(self) -> float:
        """Half the width of the enclosure relative to its midpoint (0 for a point)."""
        mid = (self.exact_lo + self.exact_hi) / 2
        if mid == 0:
            return 0.0 if self.exact_lo == self.exact_hi else math.inf
        return float((self.exact_hi - self.exact_lo) / (2 * abs(mid)))

    def encloses(self, x) -> bool:
        """Whether the exact value of ``x`` (int, float, ``Fraction`` or mpf) lies in
        ``[exact_lo, exact_hi]`` (for a ``"50-digit"`` value: equals the mpf)."""
        v = exact_fraction(x, "x")
        return self.exact_lo <= v <= self.exact_hi


@dataclass(frozen=True)
class CertifiedInteger:
    """An integer result (a crossover) with how it was obtained: ``precision`` as in
    :class:`CertifiedValue`; ``evidence`` holds the balls and comparisons that decide it
    (JSON-serialisable)."""

    value: int
    precision: str
    evidence: dict


@dataclass(frozen=True)
class Comparison:
    """A decided comparison: ``holds`` is whether ``quantity < threshold``, decided by the ball
    ``ball`` (text) of ``quantity - threshold`` at ``bits`` bits (:func:`certify_below`), or
    in exact integers (``bits = None``; ``ball`` then says which comparison)."""

    name: str
    threshold: str
    holds: bool
    bits: int | None
    ball: str

    def as_dict(self) -> dict:
        return {"name": self.name, "threshold": self.threshold, "holds": self.holds,
                "bits": self.bits, "ball": self.ball}


def flint_module():
    """python-flint if it is importable, else ``None`` (a platform without a wheel)."""
    try:
        import flint
    except ImportError:
        return None
    return flint


def _require_flint():
    flint = flint_module()
    if flint is None:
        raise ModuleNotFoundError("certified comparisons need python-flint (pip install python-flint)")
    return flint


def backend() -> dict:
    """Which arithmetic the bounds use in this process, for a report: ``precision``
    (``"certified"`` or ``"50-digit"``) and a sentence that says why."""
    flint = flint_module()
    if flint is not None:
        return {"precision": CERTIFIED, "note": f"bounds certified with Arb balls (python-flint "
                                                 f"{getattr(flint, '__version__', '?')})"}
    return {"precision": FIFTY_DIGIT,
            "note": "python-flint is not importable here (no wheel for this platform?): bounds marked "
                    "[50-digit] are mpmath values at 50 digits, not certified enclosures; "
                    "pip install python-flint to certify them"}


# ------------------------------------------------------------------ exact numbers and balls


def exact_fraction(value, name, **interval) -> Fraction:
    """``value`` (int, float, ``Fraction``, mpf, numpy scalar; finite, in the interval that
    ``interval`` gives :func:`check_real`) as the exact rational it denotes."""
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            reject(name, value, "a finite number")
        man, exp = value.man_exp
        value = Fraction(int(man)) * Fraction(2) ** int(exp)
    v = check_real(value, name, **interval)
    return Fraction(value) if isinstance(value, numbers.Rational) else Fraction(v)


def _ball(flint, x: Fraction):
    """The ball of an exact rational at the working precision (exact for dyadic numbers)."""
    if x.denominator == 1:
        return flint.arb(x.numerator)
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _end(point) -> Fraction:
    """An exact Arb point (a ball end) as a ``Fraction``."""
    man, exp = point.man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _float_down(x: Fraction) -> float:
    """The largest float <= ``x`` (the largest finite float when ``x`` is beyond it)."""
    try:
        f = float(x)
    except OverflowError:
        return sys.float_info.max if x > 0 else -math.inf
    return math.nextafter(f, -math.inf) if Fraction(f) > x else f


def _float_up(x: Fraction) -> float:
    """The smallest float >= ``x`` (``inf`` when ``x`` is beyond the largest float)."""
    try:
        f = float(x)
    except OverflowError:
        return math.inf if x > 0 else -sys.float_info.max
    return math.nextafter(f, math.inf) if Fraction(f) < x else f


def _nearest(x: Fraction) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _text(ball, digits=40) -> str:
    return ball.str(digits, radius=True)


def _from_ball(ball, bits: int, name: str) -> CertifiedValue:
    if not ball.is_finite():
        raise CertificationRefused(f"{name}: the ball {_text(ball)} at {bits} bits is not finite")
    lo, hi = _end(ball.lower()), _end(ball.upper())
    return CertifiedValue(value=_nearest((lo + hi) / 2), lo=_float_down(lo), hi=_float_up(hi),
                          precision=CERTIFIED, bits=bits, text=_text(ball), exact_lo=lo, exact_hi=hi)


def _from_fraction(x: Fraction) -> CertifiedValue:
    return CertifiedValue(value=_nearest(x), lo=_float_down(x), hi=_float_up(x), precision=CERTIFIED,
                          bits=None, text=f"{x.numerator}/{x.denominator} (exact)", exact_lo=x, exact_hi=x)


def _from_mpf(x) -> CertifiedValue:
    exact = exact_fraction(x, "value")
    v = _nearest(exact)
    return CertifiedValue(value=v, lo=v, hi=v, precision=FIFTY_DIGIT, bits=None,
                          text=mpmath.nstr(x, 50), exact_lo=exact, exact_hi=exact)


# ------------------------------------------------------------------ the decision helper


def certify_below(quantity, threshold, *, name: str, threshold_name: str | None = None,
                  precisions=PRECISIONS) -> Comparison:
    """Decide ``quantity < threshold`` with balls, or refuse.

    Args:
        quantity: a callable with no arguments returning an Arb ball, evaluated under each
            working precision of ``precisions`` in turn (so it must build its balls inside).
        threshold: an exact number (int, ``Fraction``, float) or a callable like ``quantity``.
        name: what ``quantity`` is, for the evidence and the refusal message.
        threshold_name: how to show ``threshold`` there (default: its value, or the callable's
            name).

    Returns:
        :class:`Comparison` with ``holds = True`` when the ball of ``quantity - threshold`` is
        wholly below 0, ``False`` when it is wholly at or above 0.

    Raises:
        CertificationRefused: at every precision the ball has points on both sides of 0 (or
            is not finite).
    """
    flint = _require_flint()
    if not precisions:
        reject("precisions", precisions, "a non-empty list of working precisions in bits")
    exact_threshold = None if callable(threshold) else exact_fraction(threshold, "threshold")
    if threshold_name is not None:
        shown = threshold_name
    else:
        shown = str(exact_threshold) if exact_threshold is not None else getattr(threshold, "__name__", "threshold")
    diff = None
    for bits in precisions:
        check_int(bits, "bits", lo=2)
        with flint.ctx.workprec(bits):
            t = threshold() if exact_threshold is None else _ball(flint, exact_threshold)
            diff = quantity() - t
            if not diff.is_finite():
                continue
            if diff < 0:
                return Comparison(name, shown, True, bits, _text(diff))
            if diff >= 0:
                return Comparison(name, shown, False, bits, _text(diff))
    raise CertificationRefused(
        f"{name} against {shown}: the ball of the difference, {_text(diff)} at {precisions[-1]} bits, "
        f"does not exclude 0, so neither '<' nor '>=' is certain (the two may be equal)")


# ------------------------------------------------------------------ Theorem 4.5 crossover


def _below_tangency(flint, a: Fraction, precisions) -> Comparison:
    r"""Whether :math:`a < e\ln 2`, below which :math:`N^a = 2^N` has no real root."""
    return certify_below(lambda: _ball(flint, a), lambda: flint.arb.const_e() * flint.arb.const_log2(),
                         name="a", threshold_name="e ln 2", precisions=precisions)


def _f(flint, a: Fraction, n: int):
    r"""Ball of :math:`a \ln n - n \ln 2` at the working precision."""
    return _ball(flint, a) * flint.arb(n).log() - n * flint.arb.const_log2()


def _f_below_zero(flint, a: Fraction, n: int, precisions) -> Comparison:
    r"""Whether :math:`n^a < 2^n`, i.e. :math:`a\ln n - n\ln 2 < 0` (:math:`a > 0`), by balls;
    where they cannot decide (an exact tie such as :math:`4^2 = 2^4`) in integers:
    :math:`n^a < 2^n \iff n^p < 2^{nq}` for :math:`a = p/q`."""
    name = f"a ln N - N ln 2 at N = {n} (a = {a})"
    try:
        return certify_below(lambda: _f(flint, a, n), 0, name=name, precisions=precisions)
    except CertificationRefused:
        p, q = a.numerator, a.denominator
        if n * q > EXACT_BITS or p * n.bit_length() > EXACT_BITS:
            raise
        lhs, rhs = n**p, 2 ** (n * q)
        rel = "<" if lhs < rhs else "=" if lhs == rhs else ">"
        return Comparison(name, "0", lhs < rhs, None, f"exact: N^{p} {rel} 2^(N*{q}) at N = {n}")


def _root(flint, a: Fraction, branch: int):
    r"""Ball of :math:`N_k = -(a/\ln 2) W_k(-\ln 2/a)` at the working precision: the upper root
    of :math:`a\ln N = N\ln 2` for ``branch = -1``, the lower one for ``branch = 0``."""
    ab = _ball(flint, a)
    ln2 = flint.arb.const_log2()
    return -(ab / ln2) * (-ln2 / ab).lambertw(branch)


def _fallback_crossover(a: Fraction) -> CertifiedInteger:
    c = bounds.crossover(a)
    ev = {"a": str(a), "regime": c["regime"], "agree": c["agree"], "N_star_direct": c["N_star_direct"],
          "N_upper": None if c["N_upper"] is None else mpmath.nstr(c["N_upper"], 50)}
    return CertifiedInteger(c["N_star"], FIFTY_DIGIT, ev)


def crossover(a, *, precisions=PRECISIONS) -> CertifiedInteger:
    r"""The smallest integer :math:`N^* \ge 1` with :math:`N^a < 2^N` for all
    :math:`N \ge N^*` (module docstring, item 1), certified with balls.

    Args:
        a: the exponent (``Fraction``, int, float or mpf; taken exactly), e.g.
            :func:`verify.reference.bounds.theorem_exponent`.

    Returns:
        :class:`CertifiedInteger`; ``evidence`` has ``a``, ``regime`` (as
        :func:`verify.reference.bounds.crossover`), the comparisons that decide it, and for two
        crossings the ball of :math:`N_{-1}` (``N_upper``) and of :math:`a/\ln 2` (``turn``).

    An exact tie (:math:`N^a = 2^N` at an integer, e.g. :math:`a = 2, N = 4` or
    :math:`a(95, 3) = 32/3, N = 64`) leaves the ball of :math:`f(N)` around 0 at every
    precision; it is then decided in integers, :math:`N^p` against :math:`2^{Nq}` for
    :math:`a = p/q` (the comparison's ``bits`` is ``None``).

    Raises:
        CertificationRefused: a comparison that neither the balls nor integers of at most
            :data:`EXACT_BITS` bits decide.
    """
    af = exact_fraction(a, "a")
    flint = flint_module()
    if flint is None:
        return _fallback_crossover(af)
    ev = {"a": str(af)}
    if af <= 0:
        ev.update(regime="a<=0", rule="a <= 0 (exact): N^a <= 1 < 2^N for every N >= 1")
        return CertifiedInteger(1, CERTIFIED, ev)
    tangency = _below_tangency(flint, af, precisions)
    ev["a_below_e_ln2"] = tangency.as_dict()
    if tangency.holds:
        ev.update(regime="no-crossing",
                  rule="0 < a < e ln 2: max over N > 0 of a ln N - N ln 2 is a (ln(a/ln 2) - 1) < 0")
        return CertifiedInteger(1, CERTIFIED, ev)
    ev["regime"] = "two-crossings"
    with flint.ctx.workprec(VALUE_BITS):
        root = _root(flint, af, -1)
        if not root.is_finite():
            raise CertificationRefused(f"N_upper for a = {af}: Lambert W ball {_text(root)} is not finite")
        n = math.floor(_end(root.mid())) + 1
        ev.update(N_upper=_text(root), N_lower=_text(_root(flint, af, 0)), bits_root=VALUE_BITS)
    # the candidate is off by one only when N_upper is an integer (an exact tie, f(N_upper) = 0,
    # which makes N_upper itself fail): then the midpoint may fall just below it; step up
    for _ in range(2):
        before = _f_below_zero(flint, af, n - 1, precisions)
        at = _f_below_zero(flint, af, n, precisions)
        if at.holds:
            break
        n += 1
    ev["at_N_star_minus_1"], ev["at_N_star"] = before.as_dict(), at.as_dict()
    if at.holds and not before.holds:
        ev["rule"] = ("a > e ln 2; f(N) = a ln N - N ln 2 is concave, f(N*-1) >= 0 > f(N*), "
                      "so f < 0 for every N >= N* and not at N* - 1")
        return CertifiedInteger(n, CERTIFIED, ev)
    if at.holds and before.holds:
        # f >= 0 exactly on [N_lower, N_upper]; just above e ln 2 that interval can fall between
        # two integers, and then N^a < 2^N for every integer N
        lower = certify_below(lambda: _root(flint, af, 0), n - 1, name="N_lower", precisions=precisions)
        upper = certify_below(lambda: _root(flint, af, -1), n, name="N_upper", precisions=precisions)
        ev["N_lower_below_N_star_minus_1"], ev["N_upper_below_N_star"] = lower.as_dict(), upper.as_dict()
        if not lower.holds and upper.holds:
            ev["rule"] = (f"a > e ln 2, but f(N) = a ln N - N ln 2 >= 0 only on [N_lower, N_upper], "
                          f"inside ({n - 1}, {n}): no integer N has N^a >= 2^N")
            return CertifiedInteger(1, CERTIFIED, ev)
    # unreachable while Arb's W_0 and W_{-1} enclose the roots
    raise CertificationRefused(
        f"crossover for a = {af}: the Lambert-W candidate N* = {n} is contradicted by direct "
        f"evaluation (f(N*-1) < 0: {before.holds}, f(N*) < 0: {at.holds})")


def crossover_root(a, *, bits: int = VALUE_BITS, precisions=PRECISIONS) -> CertifiedValue | None:
    r"""Ball of the upper root :math:`N_{-1} = -(a/\ln 2)\,W_{-1}(-\ln 2/a)` of
    :math:`a\ln N = N\ln 2`, or ``None`` when there is none (:math:`a \le e\ln 2`, decided as
    in :func:`crossover`)."""
    af = exact_fraction(a, "a")
    check_int(bits, "bits", lo=2)
    flint = flint_module()
    if flint is None:
        up = bounds.crossover(af)["N_upper"]
        return None if up is None else _from_mpf(up)
    if af <= 0:
        return None
    if _below_tangency(flint, af, precisions).holds:
        return None
    with flint.ctx.workprec(bits):
        return _from_ball(_root(flint, af, -1), bits, f"N_upper for a = {af}")


# ------------------------------------------------------------------ SG-3 and SG-5 bounds


def blowup_bound(eps, L_prime: int, *, bits: int = VALUE_BITS) -> CertifiedValue:
    r"""Ball of :math:`(1 + 1/\sqrt\varepsilon)^{L'}`, the SG-3 bound on :math:`\beta^L`
    (:math:`\varepsilon > 0`; at :math:`\varepsilon = 0` there is no bound)."""
    e = exact_fraction(eps, "eps", lo=0, lo_open=True)
    check_int(L_prime, "L_prime", lo=1)
    check_int(bits, "bits", lo=2)
    flint = flint_module()
    if flint is None:
        return _from_mpf(bounds.blowup_bound(e, L_prime))
    with flint.ctx.workprec(bits):
        ball = (1 + _ball(flint, e).rsqrt()) ** L_prime
        return _from_ball(ball, bits, f"(1 + 1/sqrt({eps}))^{L_prime}")


def _packing_inputs(M, C_lip, diam, xi):
    positive = dict(lo=0, lo_open=True)
    return (check_int(M, "M", lo=1), exact_fraction(C_lip, "C_lip", **positive), exact_fraction(diam, "diam", **positive),
            exact_fraction(xi, "xi", **positive))


def _packing_ball(flint, M, c, d, x):
    return M * (1 + _ball(flint, c * d / x)).log() / flint.arb.const_log2()


def packing_log2_bound(M: int, C_lip, diam, xi, *, bits: int = VALUE_BITS) -> CertifiedValue:
    r"""Ball of :math:`M\log_2(1 + C_{\mathrm{Lip}}\operatorname{diam}/\xi)`, the log2 of the
    SG-5 packing bound on the number of functions recognisable with margin :math:`\xi`."""
    M, c, d, x = _packing_inputs(M, C_lip, diam, xi)
    check_int(bits, "bits", lo=2)
    flint = flint_module()
    if flint is None:
        return _from_mpf(bounds.packing_log2_bound(M, c, d, x))
    with flint.ctx.workprec(bits):
        return _from_ball(_packing_ball(flint, M, c, d, x), bits, "packing log2 bound")


def packing_crossover(M: int, C_lip, diam, xi, *, precisions=PRECISIONS) -> CertifiedInteger:
    r"""The smallest :math:`N \ge 0` with :math:`2^N >
    M\log_2(1 + C_{\mathrm{Lip}}\operatorname{diam}/\xi)` (i.e. :math:`2^{2^N}` above the packing
    bound), certified by the comparisons at :math:`N` and :math:`N - 1`.

    When :math:`1 + C_{\mathrm{Lip}}\operatorname{diam}/\xi = 2^k` (the only case in which the
    bound can be a power of two) the bound is the integer :math:`Mk` and the crossover is
    computed in integers.

    Returns:
        :class:`CertifiedInteger`; ``evidence`` has ``log2_bound`` (ball text, or the integer)
        and the two comparisons.

    Raises:
        CertificationRefused: the balls cannot tell the bound from a power of two at the
            highest precision.
    """
    M, c, d, x = _packing_inputs(M, C_lip, diam, xi)
    flint = flint_module()
    if flint is None:
        p = bounds.packing_crossover(M, c, d, x)
        return CertifiedInteger(p["N_star"], FIFTY_DIGIT,
                                {"log2_bound": mpmath.nstr(p["log2_bound"], 50), "checked": p["checked"]})
    ev = {"M": M, "C_lip": float(c), "diam": float(d), "xi": float(x)}
    r = 1 + c * d / x
    if r.denominator == 1 and r.numerator & (r.numerator - 1) == 0:
        lb = M * (r.numerator.bit_length() - 1)
        n = lb.bit_length()  # 2^(n-1) <= lb < 2^n
        ev.update(log2_bound=str(lb), rule=f"exact: 1 + C diam/xi = 2^{lb // M}, log2 bound = {lb}, "
                                            f"2^{n - 1} <= {lb} < 2^{n}")
        return CertifiedInteger(n, CERTIFIED, ev)

    def bound():
        return _packing_ball(flint, M, c, d, x)

    with flint.ctx.workprec(VALUE_BITS):
        lb = bound()
        if not lb.is_finite():
            raise CertificationRefused(f"packing log2 bound: the ball {_text(lb)} is not finite")
        mid = _end(lb.mid())
        log2_bound = _text(lb)
    # candidate from the midpoint's bit lengths (within one of the answer); each step below is a
    # certified comparison, and 2^N increases, so the walk ends at the first N with 2^N above
    # the bound
    n = max(0, mid.numerator.bit_length() - mid.denominator.bit_length() + 1) if mid >= 1 else 0
    while True:
        at = certify_below(bound, Fraction(2) ** n, name="packing log2 bound", threshold_name=f"2^{n}",
                           precisions=precisions)
        if not at.holds:
            n += 1
            continue
        if n == 0:
            before = None
            break
        before = certify_below(bound, Fraction(2) ** (n - 1), name="packing log2 bound",
                               threshold_name=f"2^{n - 1}", precisions=precisions)
        if before.holds:
            n -= 1
            continue
        break
    ev.update(log2_bound=log2_bound, at_N_star=at.as_dict(),
              at_N_star_minus_1=None if before is None else before.as_dict(),
              rule="log2 bound < 2^N* and (N* = 0 or log2 bound >= 2^(N*-1))")
    return CertifiedInteger(n, CERTIFIED, ev)


# ------------------------------------------------------------------ SX-5 erf bound


def erf_attention_loss_bound(d: int) -> CertifiedValue:
    r""":math:`(1 - 2/d^2)^2` as an exact rational: the SX-5 lower bound on the loss of erf
    attention (:func:`verify.reference.linear_bound.erf_attention_loss_bound`, float64 there).
    Needs no flint: an exact rational is certified."""
    d = check_int(d, "d", lo=2)
    return _from_fraction((1 - Fraction(2, d * d)) ** 2)


__all__ = ["PRECISIONS", "VALUE_BITS", "CERTIFIED", "FIFTY_DIGIT", "CertificationRefused", "CertifiedValue",
           "CertifiedInteger", "Comparison", "flint_module", "backend", "certify_below", "crossover", "crossover_root",
           "blowup_bound", "packing_log2_bound", "packing_crossover", "erf_attention_loss_bound"]
