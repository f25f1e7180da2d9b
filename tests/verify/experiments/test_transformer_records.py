"""The paper-B records keep the JSON form of the results files: keys in order, tuples as lists,
keys that only some runs have left out while they are ``None``."""

import json
from dataclasses import FrozenInstanceError, replace

import pytest
import torch

from verify.experiments.random_transformers import summarize_models, summarize_profiles
from verify.experiments.random_function_sampling import monte_carlo_K0
from verify.experiments.transformer_records import ModelSample, Theorem45Model


def test_all_constant_models_have_no_nonconstant_keys():
    K = torch.tensor([[8, 0, 0, 0], [8, 0, 0, 0]])        # N = 3, both constant
    got = summarize_models(K, torch.tensor([0, 8]), 3).as_dict()
    assert list(got) == ["models", "constant", "frac_constant", "frac_constant_ci", "level",
                         "nonconstant", "zero_K0", "mean_avg_sensitivity_all"]
    assert got["constant"] == 2 and isinstance(got["frac_constant_ci"], list)


def test_profile_summary_gains_the_run_fields_at_the_end():
    s = summarize_profiles(torch.tensor([[2, 4, 2, 0]]), 3)
    assert "seconds" not in s.as_dict() and "min_K0" not in s.as_dict()
    keys = list(replace(s, seconds=1.5, min_K0=2).as_dict())
    assert keys[-2:] == ["seconds", "min_K0"]
    with pytest.raises(FrozenInstanceError):
        s.models = 3


def test_monte_carlo_keys_with_and_without_a_level():
    assert list(monte_carlo_K0(4, 64, seed=1).as_dict()) == ["N", "samples", "seed", "hits", "p_hat",
                                                             "wilson", "z", "mean_K0"]
    with_level = monte_carlo_K0(4, 64, seed=1, level=0.9).as_dict()
    assert list(with_level)[-2:] == ["clopper_pearson", "level"]
    json.dumps(with_level)


def test_theorem45_model_drops_the_fractions_and_appends_the_bound():
    sample = ModelSample(seed=3, strings=4, k0_count=1, k0_fraction=0.25, k0_ci=(0.01, 0.8),
                         k0_lower=0.02, constant_on_sample=False, f_ones=2, profile=[1, 3],
                         profile_fraction=[0.25, 0.75], avg_sensitivity=0.75)
    got = Theorem45Model(sample=sample, log2_K0_lower=0.5, holds=True).as_dict()
    assert "profile_fraction" not in got and list(got)[-2:] == ["log2_K0_lower", "holds"]
    assert got["k0_ci"] == [0.01, 0.8]
