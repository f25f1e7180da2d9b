"""Every float comparison in tests/ and theorems/ takes its bound from the one tolerance table
(verify.common.tolerances): an ast scan fails on a literal tolerance.

Flagged: a literal as the value of an ``rtol``/``atol``/``abs``/``rel`` keyword (``0``, no
slack, is not a size and passes), or a small one inside such a value; a float literal (or a
negative power of ten) below 1e-3 in an ordering comparison, or one assigned to a name that
says ``tol``. Literals that size data, parameters or steps (``eps=1e-5``, a learning rate, an
input of 1e-12) sit outside comparisons, and an equality states a value, not a bound: neither
is flagged. Bounds of statistical checks (an init's standard deviation to 0.03) are not below
1e-3 and not rounding tolerances. ``ALLOWED`` lists the few literals in comparisons that are
thresholds of a test's design ("the instance is near a solution"), not tolerances.
"""

from __future__ import annotations

import ast

import pytest
import torch

from numeric.validation import InputError
from verify.common.tolerances import (NAMED, TOLERANCES, UNIT_ROUNDOFF, Tolerance, assert_close, decimal_places,
                                      sum_tolerance, tolerance, working_digits)
from tests.helpers import PROJECT_ROOT

ROOT = PROJECT_ROOT
TOLERANCE_KEYWORDS = ("rtol", "atol", "abs", "rel")
SMALL = 1e-3

#: (file, text of the comparison): thresholds that a test's design states, not rounding bounds.
ALLOWED = {
    # "near a solution": the instances the test is about have a tiny loss
    ("tests/numeric/test_xor_engine.py", "ref < 1e-20"),
    ("tests/numeric/test_xor_engine.py", 'float(M["sup_exact"]) < 1e-40'),
    ("tests/numeric/test_xor_properties.py", "1e-200 < ref < 1e-20"),
    ("tests/numeric/test_xor_properties.py", "min(smallest) < 1e-20"),
    ("tests/numeric/test_xor_stream.py", "min(smallest) < 1e-20"),
    ("theorems/test_SX1_population_loss.py", "rep.min_loss < 1e-55"),
    ("theorems/test_SX1_population_loss.py", "max(L for _, L in near) < 1e-20"),
    ("theorems/test_SX2_population_gradient.py", "min(smallest) < 1e-10"),
    ("tests/verify/reference/test_reference.py", 'scale > mpmath.mpf("1e-6")'),
    ("tests/verify/reference/test_reference.py", 'E < mpmath.mpf("1e-18")'),
    ("tests/verify/reference/test_reference.py", 'scale < mpmath.mpf("1e-25")'),
    ("tests/verify/reference/test_reference.py", 'E < mpmath.mpf("1e-20")'),
    # parameters of size 1e-9 bring beta within 1e-6 of its bound (the claim's approach)
    ("theorems/test_SG3_blowup_bound.py", "1 - 1e-6 <= ratio"),
}


def _literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _literal(node.operand)
        return None if v is None else -v
    return None


def _mpf_string(node):
    # mpmath.mpf("1e-45"): a literal written as a string for full precision
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr == "mpf") or (isinstance(f, ast.Name) and f.id == "mpf"):
            try:
                return float(node.args[0].value)
            except ValueError:
                return None
    return None


def _literals(node):
    for sub in ast.walk(node):
        v = _literal(sub)
        if v is None:
            v = _mpf_string(sub)
        if v is not None and not isinstance(sub, ast.UnaryOp):
            yield sub, v


def _negative_powers_of_ten(node):
    # 10 ** -35, mpmath.mpf(10) ** -35: a literal bound written as a power
    for sub in ast.walk(node):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Pow):
            e = _literal(sub.right)
            if e is not None and e < 0:
                yield sub, 10.0 ** e


def literal_tolerances(source: str):
    """``(line, literal, why, text)`` for each literal tolerance in ``source`` (``text``: the
    source of the comparison, keyword or assignment that holds it)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg in TOLERANCE_KEYWORDS:
            # a bare literal, or a small one inside an expression (a bound derived from a
            # sample size, 3 * sqrt(p q / n), is not a literal tolerance)
            bare = _literal(node.value)
            lits = [(node.value, bare)] if bare is not None else [
                (lit, v) for lit, v in _literals(node.value) if isinstance(v, float) and 0 < abs(v) < SMALL]
            found += [(lit.lineno, v, f"{node.arg}= literal", ast.get_source_segment(source, node))
                      for lit, v in lits if v != 0]
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            # an equality states a value (a table entry, a parameter), not a bound
            if all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
                continue
            for side in sides:
                found += [(lit.lineno, v, "small literal in a comparison", ast.get_source_segment(source, node))
                          for lit, v in (*_literals(side), *_negative_powers_of_ten(side))
                          if isinstance(v, float) and 0 < abs(v) < SMALL]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and "tol" in t.id.lower() for t in targets) and node.value is not None:
                found += [(lit.lineno, v, "literal assigned to a tolerance", ast.get_source_segment(source, node))
                          for lit, v in _literals(node.value) if isinstance(v, float) and 0 < abs(v)]
    return sorted(set(found))


def _scanned_files():
    for top in ("tests", "theorems"):
        yield from sorted((ROOT / top).rglob("*.py"))


def test_no_literal_tolerance_in_tests_or_theorems():
    bad = []
    for path in _scanned_files():
        rel = path.relative_to(ROOT).as_posix()
        for line, value, why, text in literal_tolerances(path.read_text()):
            if not any(rel == f and allowed in text for f, allowed in ALLOWED):
                bad.append(f"{rel}:{line}: {value!r} ({why})")
    assert not bad, "literal tolerances; use verify.common.tolerances:\n" + "\n".join(bad)


def test_allow_list_entries_are_still_needed():
    found = [(path.relative_to(ROOT).as_posix(), text) for path in _scanned_files()
             for *_, text in literal_tolerances(path.read_text())]
    unused = {(f, a) for f, a in ALLOWED if not any(f == g and a in text for g, text in found)}
    assert not unused, unused


@pytest.mark.parametrize("planted", [
    "assert torch.allclose(a, b, rtol=1e-9)",
    "assert x == pytest.approx(y, abs=1e-4)",
    "assert abs(x - y) < 1e-12 * abs(y)",
    "assert abs(lo - 0.83887) < 0.0001",
    "assert err <= 2e-10",
    "tol = 1e-10 if f64 else 1e-4",
    "torch.testing.assert_close(a, b, rtol=tol.rtol, atol=1e-15)",
    "assert x == pytest.approx(y, rel=0.15)",
    "assert abs(v - w) < mpmath.mpf(10) ** -35 * v",
    'assert abs(L - E) < mpmath.mpf("1e-45") * E',
])
def test_scan_catches_a_planted_literal(planted):
    assert literal_tolerances(planted)


@pytest.mark.parametrize("clean", [
    "assert torch.allclose(a, b, rtol=tol.rtol, atol=0)",
    "cfg = TransformerConfig(D=4, L=1, H=1, eps=1e-5)",
    "th[2] = 1e-12",
    "assert abs(x - y) <= tol.rtol * abs(y)",
    "assert 0 < hi0 < 0.05",
    "assert x == pytest.approx(0.3, abs=3 * math.sqrt(0.21 / n / 2000))",
    'assert p["eps"] == 1e-6',
])
def test_scan_passes_parameters_and_table_bounds(clean):
    assert not literal_tolerances(clean)


# -- the table's API ---------------------------------------------------------------------
def test_tolerance_override_in_the_manner_of_jax():
    assert tolerance("float64") is TOLERANCES["float64"]
    custom = Tolerance(2.0, 3.0)
    assert tolerance("float64", custom) is custom
    assert tolerance(torch.float32, {"float32": custom}) is custom
    assert tolerance("float64", {"float32": custom}) is TOLERANCES["float64"]
    assert tolerance("float64", {torch.float64: custom}) is custom
    assert tolerance("float64", device="cuda") is TOLERANCES["cuda"]
    assert tolerance("float64", "reference_50_digit") is NAMED["reference_50_digit"]
    with pytest.raises(InputError) as e:
        tolerance("float64", 1e-3)
    assert e.value.name == "override"
    with pytest.raises(InputError) as e:
        tolerance("float64", "cuda")
    assert e.value.name == "override"


def test_sum_tolerance_grows_with_the_length_and_never_undercuts_the_table():
    assert sum_tolerance("float64", 10) == TOLERANCES["float64"]
    f32 = sum_tolerance(torch.float32, 20_000)
    assert f32.rtol == f32.atol == 20_000 * UNIT_ROUNDOFF["float32"] > TOLERANCES["float32"].rtol
    assert sum_tolerance("float64", 10 ** 8).rtol == 10 ** 8 * UNIT_ROUNDOFF["float64"]
    for n in (0, 2.5, True):
        with pytest.raises(InputError) as e:
            sum_tolerance("float64", n)
        assert e.value.name == "n"


def test_decimal_places_is_half_a_unit_in_the_last_place():
    assert decimal_places(4) == Tolerance(0.0, 0.5e-4)
    with pytest.raises(InputError) as e:
        decimal_places(-1)
    assert e.value.name == "places"


def test_working_digits_is_the_digits_kept():
    assert working_digits(50, 10) == NAMED["reference_50_digit"]
    assert working_digits(30).rtol == 10.0 ** -30
    for dps, lost in ((30, 30), (-1, 0), (50, 2.5)):
        with pytest.raises(InputError):
            working_digits(dps, lost)


def test_assert_close_takes_an_override():
    assert_close(1.0 + 1e-6, 1.0, tol=sum_tolerance("float32", 100))
    with pytest.raises(AssertionError):
        assert_close(1.0 + 1e-6, 1.0)


def test_named_entries_are_tolerances():
    assert all(isinstance(t, Tolerance) and t.rtol >= 0 and t.atol >= 0 for t in NAMED.values())
