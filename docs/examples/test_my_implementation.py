"""Checking your own implementations from your own pytest suite with boolverify's library API.

Run: python3 -m pytest -q docs/examples/test_my_implementation.py
"""

from verify.crossval import (
    ProfileConventions, XorConventions, assert_population_grad_matches, assert_profile_matches,
)

from my_sensitivity import normalised_average_sensitivity, profile_01, profile_pm1
from two_head_public import half_mse_grads
from xor_impl import population_grad


def test_profile_of_01_tables():
    # our conventions: a numpy 0/1 table, x = sum_n bit_n 2^n, the profile K_0..K_N returned
    assert_profile_matches(profile_01, max_N=12)


def test_profile_of_pm1_tables():
    assert_profile_matches(profile_pm1, ProfileConventions(values="pm1"), max_N=12)


def test_public_average_sensitivity_over_N():
    def wrapper(table):  # our table -> a function of MSB-first strings ("0110" is x = 6)
        return normalised_average_sensitivity(lambda s: table[int(s, 2)], len(table).bit_length() - 1)

    assert_profile_matches(wrapper, ProfileConventions(returns="normalised"), max_N=7, max_examples=30)


def test_two_head_gradient_numpy():
    assert_population_grad_matches(population_grad, max_examples=50)


def test_public_two_head_gradient():
    def wrapper(V, theta, theta_tilde, support):  # one support argument, a pair returned
        grads = half_mse_grads(V, theta, theta_tilde, *support)
        return grads["theta"], grads["theta_tilde"]

    # torch tensors in, the support 1-based, the ½-MSE loss
    conventions = XorConventions(array="torch", index_base=1, loss_scale=0.5)
    assert_population_grad_matches(wrapper, conventions, max_examples=50)
