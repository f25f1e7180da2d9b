"""The certified-box experiment: the bisection reports only certified boxes, brackets the
boundary it found, says "not certified" when nothing is; the known answers hold; bad input is
refused."""

import json
import math

import pytest

from tests.helpers import raises_input_error
from verify.common.tolerances import tolerance
from verify.experiments.certified_volume import (
    certificate_known_answers, certified_box_check, corner_fraction, first_half_string, largest_certified_half_width,
)


@pytest.mark.parametrize("name", ["first", "majority", "parity"])
def test_bisection_reports_a_certified_box_below_a_refused_one(name):
    r = largest_certified_half_width(name, 4, steps=12)
    assert r.half_width is not None and r.refused_half_width is not None
    assert r.lowest <= r.half_width < r.refused_half_width <= r.highest
    # the bracket after 12 steps: (highest / lowest)^(2^-12), with rounding of exp/log
    ratio = (r.highest / r.lowest) ** (2.0 ** -r.steps)
    assert r.refused_half_width / r.half_width <= ratio * (1 + tolerance().rtol)
    assert r.box["certified"] and r.box["strings_certified"] == r.box["strings_total"] == 16
    assert r.box["half_width"] == r.half_width
    assert r.log_volume == pytest.approx(r.n_params * math.log(2 * r.half_width), rel=tolerance().rtol)
    # the reported box is certified on a fresh check, the refused one is not
    assert certified_box_check(name, 4, r.half_width).certified
    assert not certified_box_check(name, 4, r.refused_half_width).certified


@pytest.mark.parametrize("name", ["first", "majority", "parity"])
def test_every_corner_of_the_certified_box_computes_the_function(name):
    r = largest_certified_half_width(name, 6, steps=10)
    assert corner_fraction(name, 6, r.half_width, models=64, seed=1) == 1.0
    # far outside the certified box the corners fail: the check can fail
    assert corner_fraction(name, 6, 100 * r.half_width, models=16, seed=1) < 1.0


def test_nothing_certified_is_reported_as_not_certified():
    r = largest_certified_half_width("parity", 6, lowest=0.05, highest=1.0, steps=4)
    assert r.half_width is None and r.log_volume is None and r.box is None
    assert r.refused_half_width == 0.05


def test_a_certified_top_of_the_bracket_is_capped():
    r = largest_certified_half_width("first", 4, lowest=1e-9, highest=1e-6, steps=4)
    assert r.half_width == 1e-6 and r.refused_half_width is None and r.box["certified"]


def test_record_round_trips_through_json():
    r = largest_certified_half_width("majority", 3, steps=3)
    d = json.loads(r.to_json())
    assert d["half_width"] == r.half_width and d["box"]["strings_total"] == 8 and d["steps"] == 3


def test_no_ln_perturbs_fewer_parameters():
    a = largest_certified_half_width("majority", 4, steps=6)
    b = largest_certified_half_width("majority", 4, steps=6, include_ln=False)
    assert b.n_params == a.n_params - 4 * 6 and not b.include_ln


@pytest.mark.parametrize("N", [2, 5, 8])
def test_known_answers(N):
    k = certificate_known_answers(N)
    assert k.passed
    assert [b["strings_total"] for b in k.own] == [1 << N] * 3
    assert not k.wrong_model["certified"] and k.wrong_model["strings_total"] == 1 << N
    assert k.last_string_flipped["strings_certified"] == (1 << N) - 1
    assert k.first_half_string_flipped["strings_certified"] == (1 << N) - 1
    assert not k.first_half_string_flipped["certified"] and first_half_string(N) == (1 << (N - 1)) - 1
    assert json.loads(json.dumps(k.as_dict(), default=str))["passed"] is True


def test_wrong_model_is_refused_on_every_box():
    for h in (0.0, 1e-6, 1e-3):
        rec = certified_box_check("first", 6, h, model_function="majority")
        assert not rec.certified and rec.strings_total == 64


def test_bad_input_is_refused():
    with raises_input_error("function"):
        largest_certified_half_width("xor", 4)
    with raises_input_error("lowest"):
        largest_certified_half_width("parity", 4, lowest=0.0)
    with raises_input_error("highest"):
        largest_certified_half_width("parity", 4, lowest=1e-3, highest=1e-4)
    with raises_input_error("steps"):
        largest_certified_half_width("parity", 4, steps=-1)
    with raises_input_error("half_width"):
        certified_box_check("parity", 4, -1e-3)
    with raises_input_error("half_width"):
        certified_box_check("parity", 4, math.nan)
    with raises_input_error("model_function"):
        certified_box_check("parity", 4, 0.0, model_function="and")
    with raises_input_error("N"):
        certificate_known_answers(1)
    with raises_input_error("models"):
        corner_fraction("parity", 4, 1e-3, models=0)
    with raises_input_error("half_width"):
        corner_fraction("parity", 4, math.inf)
