"""Table cells a reader can interpret: one-sided intervals as bounds (never a 0 or -inf end
standing in for "unbounded"), tiny fractions as "< 1e-6", underflowing powers of two exactly."""

import math

import pytest

from verify.report import cells

INF = math.inf


@pytest.mark.parametrize("interval, rule, text", [
    ((0.943, 1.0), "pass iff interval inside [0.9, 1]", "[0.943, 1]"),
    ((0.0, 0.5097), "pass iff upper bound < 0.8", "upper bound 0.51"),        # the 0 is no end
    ((-INF, 0.188), "pass iff upper bound < 0.3", "upper bound 0.188"),
    ((-INF, 0.188), "", "upper bound 0.188"),
    ((1.12, INF), "pass iff lower bound > 1", "lower bound 1.12"),
    ((1.12, INF), "", "lower bound 1.12"),
    ((0.93, 1.0), "pass iff lower bound > 0.85", "lower bound 0.93"),       # the 1 is no end
    ((-INF, INF), "", "(-∞, ∞)"),
    ((0.0, 0.0), "pass iff the interval contains 0", "[0, 0]"),
    ((None, 2.0), "", "upper bound 2"),                                       # a missing end is unbounded
    ((-INF, INF), "pass iff upper bound < 3", "upper bound ∞"),
    (("a", 2.0), "", "[a, 2]"),                                               # non-numbers as given
])
def test_interval(interval, rule, text):
    assert cells.interval(interval, rule) == text


@pytest.mark.parametrize("decision, text", [
    ({"estimate": 0.425, "interval": [0.0, 0.5097], "level": 0.99, "rule": "pass iff upper bound < 0.8"},
     "0.425, upper bound 0.51 (0.99)"),
    ({"estimate": 0.98, "interval": [0.943, 1.0], "level": 0.99, "rule": "pass iff interval inside [0, 1]"},
     "0.98 [0.943, 1] (0.99)"),
    ({"estimate": None, "interval": None, "level": None, "rule": "pass iff exact"}, "-"),
    ({"estimate": "[True, False]", "interval": None, "level": None, "rule": "pass iff equal"}, "[True, False]"),
    ({"estimate": INF, "interval": [2.0, INF], "level": 0.9, "rule": ""}, "∞, lower bound 2 (0.9)"),
])
def test_estimate(decision, text):
    assert cells.estimate(decision) == text


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (2.0 ** (1 - 2 ** 10), "< 1e-06"), (5e-7, "< 1e-06"), (1e-6, "0.000"), (0.84, "0.840"), (1.0, "1.000"),
])
def test_fraction(value, text):
    assert cells.fraction(value) == text
    assert "e-308" not in cells.fraction(value)


@pytest.mark.parametrize("exponent, text", [(1 - 2 ** 10, "2^-1023"), (-10, "0.000977"), (0, "1"), (-21, "2^-21")])
def test_power_of_two(exponent, text):
    assert cells.power_of_two(exponent) == text


@pytest.mark.parametrize("value, text", [(1.0, "1"), (-INF, "-∞"), (INF, "∞"), (math.nan, "nan"), (True, "True"),
                                         (3, "3"), (0.000123456, "0.000123")])
def test_number(value, text):
    assert cells.number(value) == text


def test_check_table_labels_its_time_column_and_never_shows_an_unbounded_end_as_0():
    from verify.cli.check import decision_line
    from verify.report.runner import to_markdown

    d = {"estimand": "P(success)", "estimate": 0.425, "interval": [0.0, 0.51], "level": 0.99,
         "rule": "pass iff upper bound < 0.8", "outcome": "pass"}
    assert decision_line(d) == "P(success) = 0.425, upper bound 0.51: pass iff upper bound < 0.8 -> pass"
    report = {"profile": "quick", "started": "now", "duration_s": 1.0, "passed": True, "worker_errors": [],
              "environment": {}, "claims": [{"id": "SX-1", "statement": "s", "decisions": [d], "tests": [],
                                             "evidence": {}, "status": "pass", "duration_s": 1.25}]}
    md = to_markdown(report)
    assert "| time (s) |" in md and "[0, " not in md and "upper bound 0.51 (0.99)" in md
