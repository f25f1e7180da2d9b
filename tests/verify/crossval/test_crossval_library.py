"""The library API of :mod:`verify.crossval`, as another project's test suite uses it: agreement
returns the result, a mismatch or a misbehaving target fails with one precise AssertionError,
bad arguments raise InputError (a table); and the documented example test file passes."""

from __future__ import annotations

import importlib.util
import re
import sys

import numpy as np
import pytest

import verify.crossval as crossval
from verify.crossval import (
    ProfileConventions, XorConventions, assert_population_grad_matches, assert_population_loss_matches,
    assert_profile_matches,
)
from tests.helpers import PROJECT_ROOT

EXAMPLES = PROJECT_ROOT / "docs" / "examples"
sys.path.insert(0, str(EXAMPLES))

from my_sensitivity import profile_01, profile_pm1  # noqa: E402
from xor_impl import population_grad, population_grad_dropped_term, population_loss  # noqa: E402
from tests.helpers import raises_input_error  # noqa: E402


def test_public_api_is_explicit():
    assert {"assert_population_grad_matches", "assert_population_loss_matches", "assert_profile_matches",
            "XorConventions", "ProfileConventions"} <= set(crossval.__all__)
    assert all(hasattr(crossval, name) for name in crossval.__all__)


def test_agreement_returns_what_was_tested():
    res = assert_population_grad_matches(population_grad, max_examples=30)
    assert res.ok and res.examples >= 30 and set(res.sizes) == {"d", "m"}
    assert assert_population_loss_matches(population_loss, max_examples=20).ok
    res = assert_profile_matches(profile_01, max_N=11, max_examples=20)
    assert sorted(res.sizes["N"]) == list(range(1, 12))


def test_mismatch_is_one_assertion_with_the_counterexample():
    with pytest.raises(AssertionError) as info:
        assert_population_grad_matches(population_grad_dropped_term, max_examples=60)
    text = str(info.value)
    assert text.startswith("population_grad_dropped_term disagrees with boolverify's population gradient")
    assert "smallest counterexample found: d=2," in text and "expected =" in text and "received =" in text


def test_hint_names_the_conventions_object():
    def half(V, theta, theta_tilde, support):
        return tuple(0.5 * np.asarray(g) for g in population_grad(V, theta, theta_tilde, support))

    with pytest.raises(AssertionError, match=re.escape("did you mean XorConventions(loss_scale=0.5)?")):
        assert_population_grad_matches(half, max_examples=40)
    assert assert_population_grad_matches(half, XorConventions(loss_scale=0.5), max_examples=20).ok


def test_profile_values_hint():
    with pytest.raises(AssertionError, match=re.escape("did you mean ProfileConventions(values='pm1')?")):
        assert_profile_matches(profile_pm1, max_N=5, max_examples=30)


def test_profile_returns_hint():
    def average(table):
        K = profile_01(table)
        return float(np.dot(np.arange(len(K)), K)) / len(table)

    with pytest.raises(AssertionError, match=re.escape("ProfileConventions(returns='average')")):
        assert_profile_matches(average, max_N=5, max_examples=30)
    res = assert_profile_matches(average, ProfileConventions(returns="average"), max_N=5, max_examples=10)
    assert res.compared == "average sensitivity as(f)"


def test_sys_exit_in_process_fails_the_assertion_not_the_session():
    def quits(*args):
        raise SystemExit(0)

    with pytest.raises(AssertionError, match=re.escape("called sys.exit(0)")):
        assert_population_loss_matches(quits, max_examples=5)


def test_raising_function_fails_with_its_error():
    def broken(table):
        raise ValueError("no tables today")

    with pytest.raises(AssertionError, match="raised ValueError: no tables today"):
        assert_profile_matches(broken, max_N=3, max_examples=5)


def test_string_target_runs_in_a_child_with_a_time_limit(tmp_path):
    (tmp_path / "slow_impl.py").write_text("import time\ndef grad(*a):\n    time.sleep(10**6)\n")
    with pytest.raises(AssertionError, match="did not return within 1 s"):
        assert_population_grad_matches(f"{tmp_path / 'slow_impl.py'}:grad", timeout=1, max_examples=5)


def test_string_target_with_an_import_folder(tmp_path):
    lib, pkg = tmp_path / "lib", tmp_path / "proj"
    lib.mkdir()
    pkg.mkdir()
    (lib / "helpers.py").write_text((EXAMPLES / "my_sensitivity.py").read_text())
    (pkg / "impl.py").write_text("def profile(table):\n    from helpers import profile_01\n"
                                 "    return profile_01(table)\n")
    res = assert_profile_matches(f"{pkg / 'impl.py'}:profile", max_N=4, max_examples=10, paths=[str(lib)])
    assert res.ok


# (call, the bad argument's name)
BAD = [
    (lambda: assert_population_grad_matches(population_grad, conventions=ProfileConventions()), "conventions"),
    (lambda: assert_population_grad_matches(population_grad, max_examples=0), "max_examples"),
    (lambda: assert_population_grad_matches(population_grad, max_examples=True), "max_examples"),
    (lambda: assert_population_grad_matches(population_grad, seed=1.5), "seed"),
    (lambda: assert_population_grad_matches(population_grad, timeout=5), "timeout"),
    (lambda: assert_population_grad_matches(population_grad, paths=["/"]), "paths"),
    (lambda: assert_population_grad_matches(3), "fn"),
    (lambda: assert_population_grad_matches("not a target"), "target"),
    (lambda: assert_population_grad_matches("impl.py"), "target"),
    (lambda: assert_population_grad_matches("json:loads", timeout=0), "timeout"),
    (lambda: assert_population_grad_matches("json:loads", timeout=float("nan")), "timeout"),
    (lambda: assert_population_grad_matches("json:loads", paths=["/no/such/folder"]), "paths"),
    (lambda: assert_population_loss_matches(population_loss, XorConventions(array="jax")), "array"),
    (lambda: assert_population_loss_matches(population_loss, XorConventions(index_base=-1)), "index_base"),
    (lambda: assert_population_loss_matches(population_loss, XorConventions(loss_scale=-0.5)), "loss_scale"),
    (lambda: assert_profile_matches(profile_01, max_N=0), "max_N"),
    (lambda: assert_profile_matches(profile_01, max_N=21), "max_N"),
    (lambda: assert_profile_matches(profile_01, max_N=4.0), "max_N"),
    (lambda: assert_profile_matches(profile_01, max_examples=-1), "max_examples"),
    (lambda: assert_profile_matches(profile_01, XorConventions()), "conventions"),
    (lambda: assert_profile_matches(profile_01, ProfileConventions(values="+-")), "values"),
    (lambda: assert_profile_matches(profile_01, ProfileConventions(returns="sum")), "returns"),
]


@pytest.mark.parametrize("call, name", BAD, ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD)])
def test_bad_arguments_raise_input_error(call, name):
    with raises_input_error(name):
        call()


def test_documented_example_file_passes():
    """docs/examples/test_my_implementation.py, the file docs/crossval.md shows, run in-process."""
    spec = importlib.util.spec_from_file_location("test_my_implementation", EXAMPLES / "test_my_implementation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [getattr(module, name) for name in dir(module) if name.startswith("test_")]
    assert len(tests) == 5
    for test in tests:
        test()
