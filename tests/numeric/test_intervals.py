"""Interval arithmetic (numeric.intervals): each operation encloses the exact range of textbook
cases, with its ends one float outside the round-to-nearest result; exp is widened by
TRANSCENDENTAL_STEPS floats; the certifier uses these very functions (re-exported). SG-9 checks
them against Arb on adversarial operands (theorems/test_SG9_local_volume.py)."""

import torch

import numeric.transformer._certified_volume as certified_volume
from numeric import intervals
from numeric.intervals import TRANSCENDENTAL_STEPS, Interval, exp, mul, round_down, round_up, square


def _iv(lo, hi):
    return Interval(torch.tensor([lo], dtype=torch.float64), torch.tensor([hi], dtype=torch.float64))


def test_product_across_zero_uses_all_four_end_products():
    p = mul(_iv(-1.0, 2.0), _iv(-3.0, 4.0))
    assert float(p.lo) == float(round_down(torch.tensor(-6.0, dtype=torch.float64)))
    assert float(p.hi) == float(round_up(torch.tensor(8.0, dtype=torch.float64)))


def test_ends_move_one_float_outwards():
    x = torch.tensor([1.0], dtype=torch.float64)
    assert float(round_down(x)) == float(torch.nextafter(x, torch.tensor(-1.0, dtype=torch.float64)))
    assert float(round_up(x)) == float(torch.nextafter(x, torch.tensor(2.0, dtype=torch.float64)))
    assert float(round_down(x, 0)) == 1.0


def test_square_across_zero_starts_at_zero():
    assert float(square(_iv(-1.0, 2.0)).lo) == 0.0
    assert float(square(_iv(1.0, 2.0)).lo) < 1.0


def test_exp_is_widened_past_libms_error():
    x = torch.tensor([0.5], dtype=torch.float64)
    e = exp(Interval.point(x))
    y = torch.exp(x)
    # more than one float outside libm's value on each side (its documented error is one ulp)
    assert float(e.lo) < float(round_down(y)) and float(e.hi) > float(round_up(y))
    assert TRANSCENDENTAL_STEPS >= 2


def test_the_certifier_uses_these_operations():
    for name in intervals.__all__:
        assert getattr(certified_volume, name) is getattr(intervals, name), name
