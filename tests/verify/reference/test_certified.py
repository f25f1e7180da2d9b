"""Tests of verify.reference.certified: Arb-ball certificates of the paper-B bounds and the
SX-5 erf bound, checked against the 50-digit mpmath references of verify.reference.bounds."""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import mpmath
import pytest

from verify.reference import bounds, certified
from verify.reference.certified import CertificationRefused, certify_below
from verify.reference.linear_bound import erf_attention_loss_bound
from verify.common.tolerances import NAMED, decimal_places
from tests.helpers import raises_input_error


@pytest.fixture
def flint():
    return pytest.importorskip("flint")


def _agrees(value, ref, digits=48) -> bool:
    """An enclosure ``value`` and a 50-digit reference agree to ``digits`` digits (the ball is
    tighter than the reference's own rounding, so it need not contain it)."""
    x = certified.exact_fraction(ref, "ref")
    return value.exact_lo - abs(x) / 10**digits <= x <= value.exact_hi + abs(x) / 10**digits


@pytest.fixture
def without_flint(monkeypatch):
    """``import flint`` fails, as on a platform without a python-flint wheel."""
    monkeypatch.setitem(sys.modules, "flint", None)
    assert certified.flint_module() is None


# (D, L) -> N*: the headline rows checked by hand in the SG-6 theorem test, and rows across the
# regimes (a <= 0, 0 < a < e ln 2, two crossings), up to a = 1013/2
CROSSOVERS = {
    (64, 2): 65, (32, 2): 9, (48, 2): 35, (128, 4): 66, (64, 4): 10, (16, 1): 8, (22, 1): 26,
    (1024, 1): 6405, (1024, 2): 2882, (8, 2): 1, (22, 2): 1, (48, 4): 1,
}


@pytest.mark.parametrize("D,L", sorted(CROSSOVERS))
def test_certified_crossover_table_equals_50_digit(flint, D, L):
    a = bounds.theorem_exponent(D, L)
    c = certified.crossover(a)
    ref = bounds.crossover(a)
    assert c.precision == "certified"
    assert c.value == CROSSOVERS[(D, L)] == ref["N_star"]
    assert c.evidence["regime"] == ref["regime"]
    root = certified.crossover_root(a)
    if ref["N_upper"] is None:
        assert root is None
        return
    # the Lambert-W ball (192 bits, 57 digits) holds the root at 80 digits, agrees with the
    # 50-digit one, lies between N* - 1 and N*, and is tight
    assert root.precision == "certified" and root.encloses(bounds.crossover(a, dps=80)["N_upper"])
    assert _agrees(root, ref["N_upper"])
    assert c.value - 1 < root.exact_lo <= root.exact_hi < c.value
    assert root.lo <= root.value <= root.hi and root.rel_radius < NAMED["certified_enclosure"].rtol
    # the two comparisons that decide N*: N*-1 is not a crossover, N* is
    assert c.evidence["at_N_star_minus_1"]["holds"] is False
    assert c.evidence["at_N_star"]["holds"] is True


def test_crossover_64_2_balls(flint):
    c = certified.crossover(Fraction(43, 4))
    assert c.value == 65
    # 64^a = 2^64.5 > 2^64: f(64) = a ln 64 - 64 ln 2 = (ln 2) / 2 > 0; f(65) < 0
    at64, at65 = c.evidence["at_N_star_minus_1"], c.evidence["at_N_star"]
    assert at64["bits"] == 53 and at65["bits"] == 53  # decided at the first precision
    assert "0.3465735902" in at64["ball"]  # ln(2)/2 = 0.34657359028...


@pytest.mark.parametrize("a,regime", [(-3, "a<=0"), (0, "a<=0"), (Fraction(1, 4), "no-crossing"),
                                      (1.88, "no-crossing"), (1.9, "two-crossings"), (500, "two-crossings")])
def test_crossover_regimes(flint, a, regime):
    # e ln 2 = 1.8841...: 1.88 and 1.9 sit on either side of the tangency
    c = certified.crossover(a)
    ref = bounds.crossover(a)
    assert ref["agree"]
    assert (c.value, c.evidence["regime"]) == (ref["N_star"], regime)


def test_crossover_when_the_roots_lie_between_two_integers(flint):
    """Just above e ln 2, N^a >= 2^N only on [N_0, N_-1], which can fall strictly between two
    integers: a = 1.89 gives (2.518, 2.947), so N^a < 2^N at every integer and N* = 1 (the
    direct scan agrees; floor(N_-1) + 1 = 3 would not be the smallest)."""
    c = certified.crossover(1.89)
    assert c.value == 1 == bounds.crossover_direct(1.89)
    assert c.evidence["regime"] == "two-crossings"
    assert c.evidence["at_N_star_minus_1"]["holds"] and c.evidence["at_N_star"]["holds"]  # f(2), f(3) < 0
    assert c.evidence["N_upper_below_N_star"]["holds"] and not c.evidence["N_lower_below_N_star_minus_1"]["holds"]


def test_crossover_equals_the_direct_scan_across_the_small_exponents(flint):
    # a = k/200 from below the tangency (1.84) to 4, through the gap case (a < 3 ln 2 / ln 3 =
    # 1.8928) and the tie a = 2; the 50-digit scan is independent of the Lambert W
    for k in range(368, 801):
        a = Fraction(k, 200)
        assert certified.crossover(a).value == bounds.crossover_direct(a), a


def test_exact_ties_are_decided_in_integers(flint):
    # a = 2: N^2 = 2^N at N = 2 and N = 4; a(95, 3) = 32/3: 64^(32/3) = 2^64. The balls of
    # a ln N - N ln 2 contain 0 at every precision; the crossover decides N^p vs 2^(Nq)
    for a, n_star in ((2, 5), (bounds.theorem_exponent(95, 3), 65)):
        c = certified.crossover(a)
        assert c.value == n_star == bounds.crossover(a)["N_star"]
        tie = c.evidence["at_N_star_minus_1"]
        assert tie["bits"] is None and tie["holds"] is False and "=" in tie["ball"]


def test_straddling_ball_is_refused_not_guessed(flint):
    """4^2 = 2^4 exactly: the ball of 2 ln 4 - 4 ln 2 contains 0 at every precision, so
    neither "below" nor "not below" may be certified."""
    a = flint.arb

    def f_at_4():
        return 2 * a(4).log() - 4 * a.const_log2()

    with pytest.raises(CertificationRefused) as err:
        certify_below(f_at_4, 0, name="2 ln 4 - 4 ln 2")
    msg = str(err.value)
    assert "2 ln 4 - 4 ln 2" in msg and "against 0" in msg and "1024 bits" in msg and "does not exclude 0" in msg
    assert isinstance(err.value, ArithmeticError)
    # the same comparison at N = 2 (2^2 = 2^2) and against a threshold: ln 4 vs 2 ln 2
    with pytest.raises(CertificationRefused):
        certify_below(lambda: 2 * a(2).log(), lambda: a(4).log(), name="2 ln 2", threshold_name="ln 4")


def test_crossover_refuses_without_the_integer_tie_break(flint, monkeypatch):
    monkeypatch.setattr(certified, "EXACT_BITS", 0)
    with pytest.raises(CertificationRefused, match=r"at N = 4 \(a = 2\)"):
        certified.crossover(2)
    assert certified.crossover(Fraction(43, 4)).value == 65  # no tie: balls suffice


def test_certify_below_raises_precision_until_decided(flint):
    a = flint.arb

    def one_plus_tiny():  # 1 + 2^-100: at 53 bits the rounded sum's ball contains 1
        return 1 + a(2) ** -100

    c = certify_below(one_plus_tiny, 1, name="1 + 2^-100")
    assert c.holds is False and c.bits == 128
    c = certify_below(lambda: 1 - a(2) ** -100, 1, name="1 - 2^-100")
    assert c.holds is True and c.bits == 128
    with pytest.raises(CertificationRefused):
        certify_below(one_plus_tiny, 1, name="1 + 2^-100", precisions=(53,))
    with raises_input_error("precisions"):
        certify_below(one_plus_tiny, 1, name="x", precisions=())


@pytest.mark.parametrize("eps,L_prime", [(1e-5, 4), (1e-4, 4), (Fraction(1, 3), 2), (1.0, 6), (1e-12, 6)])
def test_blowup_ball_encloses_the_50_digit_value(flint, eps, L_prime):
    b = certified.blowup_bound(eps, L_prime)
    ref = bounds.blowup_bound(eps, L_prime)
    assert b.precision == "certified" and b.bits == certified.VALUE_BITS
    assert b.encloses(bounds.blowup_bound(eps, L_prime, dps=80)) and _agrees(b, ref)
    assert b.rel_radius < NAMED["certified_enclosure"].rtol
    assert b.lo <= float(ref) <= b.hi and b.lo <= b.exact_lo and b.hi >= b.exact_hi
    with mpmath.workdps(60):  # an independent form: (1 + eps^(-1/2))^L' = ((sqrt(eps) + 1)/sqrt(eps))^L'
        e = mpmath.mpf(eps) if not isinstance(eps, Fraction) else mpmath.mpf(eps.numerator) / eps.denominator
        alt = ((mpmath.sqrt(e) + 1) / mpmath.sqrt(e)) ** L_prime
        assert abs(alt - ref) < NAMED["reference_50_digit"].rtol * ref


def test_blowup_beyond_float_range_rounds_outward(flint):
    b = certified.blowup_bound(1e-300, 8)  # about 1e1200
    assert b.hi == math.inf and b.lo == sys.float_info.max and b.value == math.inf
    assert b.rel_radius < NAMED["certified_enclosure"].rtol


@pytest.mark.parametrize("D", [16, 32, 64])
@pytest.mark.parametrize("xi", [0.01, 0.1])
def test_packing_balls_and_crossover_equal_50_digit(flint, D, xi):
    M = bounds.n_params(D, 2, None, 64)
    for C in bounds.DEFAULT_C_LIPS:
        lb = certified.packing_log2_bound(M, C, 2.0, xi)
        ref = bounds.packing_crossover(M, C, 2.0, xi)
        assert lb.precision == "certified" and lb.rel_radius < NAMED["certified_enclosure"].rtol
        assert _agrees(lb, ref["log2_bound"])
        assert lb.encloses(bounds.packing_log2_bound(M, C, 2.0, xi, dps=80))
        n = certified.packing_crossover(M, C, 2.0, xi)
        assert n.precision == "certified" and n.value == ref["N_star"]
        assert 2 ** (n.value - 1) <= lb.exact_lo and lb.exact_hi < 2**n.value


def test_packing_crossover_at_an_exact_power_of_two(flint):
    # 1 + C diam / xi = 2 and M = 4: the bound is log2 2^4 = 4 = 2^2 exactly, so N* = 3
    # (2^3 > 4 but 2^2 is not); no ball could tell 4 from 2^2, the integers do
    n = certified.packing_crossover(4, 1, 1.0, 1.0)
    assert n.value == 3 == bounds.packing_crossover(4, 1, 1.0, 1.0)["N_star"]
    assert n.precision == "certified" and n.evidence["log2_bound"] == "4"
    # and the ball comparison on its own refuses there
    with pytest.raises(CertificationRefused, match="2\\^2"):
        certify_below(lambda: 4 * (1 + flint.arb(1)).log() / flint.arb.const_log2(), 4,
                      name="packing log2 bound", threshold_name="2^2")


def test_erf_bound_is_an_exact_rational():
    e = certified.erf_attention_loss_bound(1000)
    assert e.exact_lo == e.exact_hi == (1 - Fraction(2, 1000**2)) ** 2 == Fraction(249999000001, 250000000000)
    assert e.precision == "certified" and e.bits is None and e.rel_radius == 0
    assert e.lo <= e.exact_lo <= e.hi and e.hi - e.lo <= 2 * math.ulp(1.0)
    assert e.value == pytest.approx(erf_attention_loss_bound(1000), rel=NAMED["float64_few_roundings"].rtol)


def test_without_flint_the_values_are_50_digit(without_flint):
    c = certified.crossover(Fraction(43, 4))
    assert (c.value, c.precision) == (65, "50-digit")
    assert certified.crossover(Fraction(32, 3)).precision == "50-digit"
    b = certified.blowup_bound(1e-5, 4)
    assert b.precision == "50-digit" and b.lo == b.value == b.hi
    assert b.value == float(bounds.blowup_bound(1e-5, 4))
    root = certified.crossover_root(Fraction(43, 4))
    assert root.precision == "50-digit" and root.value == pytest.approx(64.6588386738327, abs=decimal_places(13).atol)
    p = certified.packing_crossover(104385, 1e24, 2.0, 0.01)
    assert (p.value, p.precision) == (24, "50-digit")
    assert certified.packing_log2_bound(104385, 1e24, 2.0, 0.01).precision == "50-digit"
    # the exact rational needs no flint
    assert certified.erf_attention_loss_bound(1000).precision == "certified"
    with pytest.raises(ModuleNotFoundError, match="python-flint"):
        certify_below(lambda: None, 0, name="x")


@pytest.mark.parametrize("call,name", [
    (lambda: certified.crossover("x"), "a"),
    (lambda: certified.crossover(math.inf), "a"),
    (lambda: certified.blowup_bound(0, 2), "eps"),
    (lambda: certified.blowup_bound(1e-5, 0), "L_prime"),
    (lambda: certified.packing_crossover(0, 1.0, 2.0, 0.1), "M"),
    (lambda: certified.packing_log2_bound(10, 1.0, 2.0, -0.1), "xi"),
    (lambda: certified.erf_attention_loss_bound(1), "d"),
    (lambda: certified.crossover_root(mpmath.inf), "a"),
])
def test_input_errors_name_the_argument(call, name):
    with raises_input_error(name):
        call()


def test_the_report_says_which_arithmetic_the_bounds_used(flint, monkeypatch):
    from verify.report.runner import to_markdown

    assert certified.backend()["precision"] == "certified"
    assert "Arb balls" in certified.backend()["note"]
    monkeypatch.setitem(sys.modules, "flint", None)
    fallback = certified.backend()
    assert fallback["precision"] == "50-digit" and "not certified" in fallback["note"]
    report = {"profile": "quick", "started": "T", "duration_s": 1.0, "passed": True, "worker_errors": [],
              "environment": {"bounds": fallback}, "claims": []}
    assert f"Bounds: {fallback['note']}." in to_markdown(report)
