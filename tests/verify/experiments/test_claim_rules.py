"""Every number of a claim's decision rules comes from :mod:`verify.experiments.claim_rules`.

Checked on the source (ast) of the theorem files: each file imports its claim's rules object,
reads every number of it (itself or through :mod:`verify.experiments.plans`), binds no rule
constant of its own at module level, and passes no numeric literal to a decision helper (the
bounds 0 and 1 of a probability excepted). The checker is tried on planted violations too.
"""

from __future__ import annotations

import ast

import pytest

from verify.experiments import claim_rules
from verify.experiments.claim_rules import RULES, Rules
from verify.report.claims import CLAIMS
from tests.helpers import PROJECT_ROOT

ROOT = PROJECT_ROOT
RULES_MODULE = "verify.experiments.claim_rules"
PLANS = ROOT / "verify" / "experiments" / "plans.py"

#: calls whose arguments are levels, thresholds or windows of a decision
DECISION_HELPERS = frozenset({
    "lower_bound_above", "upper_bound_below", "inside", "Decision", "clopper_pearson",
    "mean_interval", "median_bounds", "quasi_level", "compare_laws", "exponent_interval",
    "threshold_interval",
})
#: module-level upper-case constants of theorem files that are not rule numbers, with the reason
NOT_RULES = {
    ("test_SX1_population_loss.py", "_UNDERFLOW"): "float64's smallest normal range, not a rule",
}


def _name(claim_id: str) -> str:
    return claim_id.replace("-", "")


def _is_number(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool))


def _holds_numbers(node) -> bool:
    """A numeric literal, or a tuple/list/set/dict made only of them."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_holds_numbers(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.values) and all(_holds_numbers(v) for v in node.values)
    return _is_number(node)


def literal_rule_arguments(tree: ast.AST) -> list[str]:
    """Numeric literals (other than 0 and 1) passed straight to a decision helper."""
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in DECISION_HELPERS:
            continue
        for arg in list(node.args) + [k.value for k in node.keywords]:
            if _is_number(arg) and ast.literal_eval(arg) not in (0, 1):
                bad.append(f"line {node.lineno}: {name}(..., {ast.unparse(arg)}, ...)")
    return bad


def module_rule_constants(tree: ast.Module, fname: str) -> list[str]:
    """Upper-case module-level names bound to numeric literals (or containers of them)."""
    bad = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else [])
        for target in targets:
            for name in ast.walk(target):
                if (isinstance(name, ast.Name) and name.id.strip("_").isupper()
                        and (fname, name.id) not in NOT_RULES and _holds_numbers(node.value)):
                    bad.append(f"line {node.lineno}: {name.id} = {ast.unparse(node.value)}")
    return bad


def imported_rules(tree: ast.AST) -> set[str]:
    return {alias.asname or alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == RULES_MODULE
            for alias in node.names}


def rule_numbers_read(tree: ast.AST, name: str) -> set[str]:
    """The attributes read from the name ``name`` (``SX5.softmax_floor`` -> ``softmax_floor``)."""
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == name}


def violations(source: str, fname: str, claim_id: str) -> list[str]:
    """What is wrong with the theorem file ``fname`` of ``claim_id`` (empty when nothing)."""
    tree = ast.parse(source, fname)
    bad = literal_rule_arguments(tree) + module_rule_constants(tree, fname)
    rules = RULES.get(claim_id)
    if rules is not None:
        name = _name(claim_id)
        if name not in imported_rules(tree):
            bad.append(f"does not import {name} from {RULES_MODULE}")
        read = rule_numbers_read(tree, name) | rule_numbers_read(ast.parse(PLANS.read_text()), name)
        bad += [f"{name}.{field} is read neither here nor in plans.py" for field in rules.names()
                if field not in read]
        bad += [f"{name}.{field} is not a rule number of {claim_id}"
                for field in rule_numbers_read(tree, name) if field not in rules.names()]
    return bad


@pytest.mark.parametrize("claim_id", list(CLAIMS))
def test_theorem_takes_every_rule_number_from_the_rules_data(claim_id):
    path = ROOT / CLAIMS[claim_id].theorem_file
    assert violations(path.read_text(encoding="utf-8"), path.name, claim_id) == []


def test_rules_cover_the_stochastic_claims_and_name_their_claim():
    stochastic = {cid for cid, c in CLAIMS.items() if c.kind == "stochastic"}
    assert stochastic <= set(RULES)
    for cid, rules in RULES.items():
        assert cid in CLAIMS and rules.claim == cid
        assert getattr(claim_rules, _name(cid)) is rules


def test_rules_are_read_only():
    with pytest.raises(AttributeError, match="fixed"):
        claim_rules.SX5.softmax_floor = 0.5
    with pytest.raises(AttributeError, match="no rule number"):
        claim_rules.SX5.softmax_floor_typo  # noqa: B018
    assert Rules("X-1", a=1).names() == ("a",)


def _planted(claim_id, old, new):
    path = ROOT / CLAIMS[claim_id].theorem_file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    return violations(text.replace(old, new, 1), path.name, claim_id)


def test_checker_catches_planted_rule_literals():
    # a threshold written into the decision instead of read from the data
    bad = _planted("SX-5", "SX5.level, SX5.softmax_floor))", "SX5.level, 0.8))")
    assert any("0.8" in b for b in bad) and any("softmax_floor is read neither" in b for b in bad)
    # a module constant of the theorem file
    bad = _planted("SG-4", "def _maxima(", "SLOPE_MAX = -0.6\n\n\ndef _maxima(")
    assert any(b.endswith("SLOPE_MAX = -0.6") for b in bad)
    # the rules object not imported, and a number that is not in the data
    bad = _planted("SX-8", "from verify.experiments.claim_rules import SX8\n", "")
    assert any("does not import SX8" in b for b in bad)
    bad = _planted("SG-8", "SG8.learned_parity)", "SG8.learned_parity_typo)")
    assert any("learned_parity_typo is not a rule number" in b for b in bad)
