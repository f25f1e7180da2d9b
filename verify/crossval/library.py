"""Assertions for another project's test suite: its implementation against boolverify's.

::

    from verify.crossval import XorConventions, assert_population_grad_matches

    def test_my_gradient():
        assert_population_grad_matches(my_grad, XorConventions(loss_scale=0.5))

Each assertion drives the function with Hypothesis (the same strategies, conventions and
shrinking as ``boolverify crossval``) and raises :class:`AssertionError` with the shrunk
counterexample, the expected and received values and any convention hint. A function that
raises, calls ``sys.exit``, dies or times out fails the assertion too. ``fn`` is a callable
(called in this process; it cannot be stopped if it never returns) or a ``"MODULE:FUNCTION"``
string, imported and called in a child process with ``timeout`` seconds per call; with
``python=PATH`` that process is another interpreter (a virtual environment that has the
target's dependencies and not boolverify), exchanging plain data with boolverify.
Bad arguments to the assertion itself raise :class:`numeric.validation.InputError`.
"""

from __future__ import annotations

from verify.crossval.influence_functions import crossval_influences
from verify.crossval.profile_functions import crossval_profile_function
from verify.crossval.results import CrossvalResult
from verify.crossval.xor_functions import crossval_xor
from verify.crossval.target import TargetFailed


def _name(fn):
    return fn if isinstance(fn, str) else getattr(fn, "__qualname__", repr(fn))


def _check(run, fn, what) -> CrossvalResult:
    __tracebackhide__ = True  # pytest shows the caller's line, not this module's
    try:
        res = run()
    except TargetFailed as exc:
        raise AssertionError(f"{_name(fn)}: {exc}") from None
    if res.ok:
        return res
    mm = res.mismatch
    head = (f"{_name(fn)} raised {mm.error}" if mm.error
            else f"{_name(fn)} disagrees with boolverify's {what} after {res.examples} examples")
    raise AssertionError(f"{head}\n{mm.describe(style='api')}")


def assert_population_grad_matches(fn, conventions=None, *, max_examples=200, seed=0, timeout=None,
                                   paths=(), python=None) -> CrossvalResult:
    """``fn(V, theta, theta_tilde, support[, attention=]) -> (grad_theta, grad_theta_tilde)``
    agrees with the 50-digit reference population gradient (conventions: an
    :class:`~verify.crossval.XorConventions`). Returns the result (examples, sizes tested)."""
    __tracebackhide__ = True
    return _check(lambda: crossval_xor(fn, "grad", conventions, max_examples, seed, timeout=timeout, paths=paths,
                                       python=python),
                  fn, "population gradient")


def assert_population_loss_matches(fn, conventions=None, *, max_examples=200, seed=0, timeout=None,
                                   paths=(), python=None) -> CrossvalResult:
    """``fn(V, theta, theta_tilde, support[, attention=]) -> loss`` agrees with the 50-digit
    reference population loss."""
    __tracebackhide__ = True
    return _check(lambda: crossval_xor(fn, "loss", conventions, max_examples, seed, timeout=timeout, paths=paths,
                                       python=python),
                  fn, "population loss")


def assert_profile_matches(fn, conventions=None, *, max_N=10, max_examples=100, seed=0, timeout=None,
                           paths=(), python=None) -> CrossvalResult:
    """``fn(table) -> profile K_0..K_N | as(f) | as(f)/N`` agrees with boolverify's exact profile
    on tables of every ``N`` from 1 to ``max_N`` (conventions: a
    :class:`~verify.crossval.ProfileConventions`)."""
    __tracebackhide__ = True
    from verify.crossval.profile_functions import ProfileConventions
    from verify.crossval.results import QUANTITY

    conv = conventions or ProfileConventions()
    return _check(lambda: crossval_profile_function(fn, conventions, max_N, max_examples, seed, timeout=timeout,
                                                    paths=paths, python=python),
                  fn, QUANTITY.get(getattr(conv, "returns", "profile"), "profile"))


def assert_influences_match(fn, conventions=None, *, max_N=10, max_examples=100, seed=0, timeout=None,
                            paths=(), python=None) -> CrossvalResult:
    """``fn(table) -> [Inf_0, ..., Inf_{N-1}]`` agrees with boolverify's exact per-variable
    influences on tables of every ``N`` from 1 to ``max_N`` (conventions: an
    :class:`~verify.crossval.InfluenceConventions`)."""
    __tracebackhide__ = True
    return _check(lambda: crossval_influences(fn, conventions, max_N, max_examples, seed, timeout=timeout,
                                              paths=paths, python=python),
                  fn, "per-variable influences")


__all__ = ["assert_influences_match", "assert_population_grad_matches", "assert_population_loss_matches",
           "assert_profile_matches"]
