"""Every public entry point against bad arguments: one table, one exception.

Each row calls one function of the public API with one bad argument; it must raise
:class:`numeric.validation.InputError` (never a TypeError, OverflowError, RuntimeError of
torch, or a hang) with a message that starts by naming the argument, ``"NAME = "``. The
command-line table is tests/verify/cli/test_bad_input.py.
"""

from __future__ import annotations

import math

import pytest
import torch

import numeric
from numeric.validation import InputError


def _V(d=6, m=3):
    g = torch.Generator().manual_seed(0)
    return numeric.sample_embeddings(d, m, generator=g)


def _th(m=3):
    return numeric.sample_init(m, generator=torch.Generator().manual_seed(1))


def _xor(fn, **override):
    V = _V()
    th, tt = _th()
    args = dict(V=V, theta=th, theta_tilde=tt, support=(0, 1))
    args.update(override)
    return lambda: fn(args["V"], args["theta"], args["theta_tilde"], args["support"])


def _tiny_model():
    return numeric.random_model(numeric.TransformerConfig(D=4, L=1, H=1, N_max=8), "uniform", 0)


def _bounds():
    from verify.reference import bounds

    return bounds


def _stats():
    from verify import stats

    return stats


def _exp(module):
    import importlib

    return importlib.import_module(f"verify.experiments.{module}")


def _cfg():
    return numeric.TransformerConfig(D=4, L=1, H=1, N_max=8)


#: one seed check everywhere a seed enters: an integer in [0, 2^63 - 1], never a bool, float or
#: string, and never wrapped (seed -1 is not the model of seed 2^64 - 1), refused before any work
BAD_SEEDS = [-1, 2**63, 2**64, True, 1.5, "3", -(2**64)]
SEED_CASES = [
    *[("seed", (lambda s: lambda: numeric.random_model(_cfg(), "uniform", s))(s)) for s in BAD_SEEDS],
    ("seed", lambda: numeric.random_model(_cfg(), "uniform", 2**63 - 1 + 1)),
    ("seed", lambda: numeric.random_profiles(_cfg(), "uniform", 3, 2, seed=-1)),
    ("seed", lambda: numeric.random_profiles(_cfg(), "uniform", 3, 2, seed=2**63 - 1)),   # seed + 1 overflows
    ("seed", lambda: numeric.streamed_instance(10, 2, 2**63)),
    ("seed", lambda: numeric.streamed_instance(10, 2, True)),
    ("seed", lambda: numeric.truth_table("random", 3, seed=-1)),
    ("seed", lambda: _exp("random_transformers").sample_models(_cfg(), "uniform", 3, 2, seed=-1)),
    ("seed", lambda: _exp("random_transformers").influence_maxima(_cfg(), [4], 2, strings=2, positions=1,
                                                                   seed=2**64)),
    ("seed", lambda: _exp("random_transformers").exact_influence_maxima(_cfg(), [4], 2, seed=-1)),
    ("seed", lambda: _exp("random_transformers").margin_table(_cfg(), [4], 2, 0.1, seed=-5)),
    ("seed", lambda: _exp("random_transformers").optimised_margin(_cfg(), 4, steps=1, seed=2**64)),
    ("seed", lambda: _exp("random_transformers").margin_sweep(_cfg(), [4], 2, [0.1], seed=1.0)),
    ("seed", lambda: _exp("sampled_profiles").sampled_profiles(_cfg(), "uniform", 4, 2, 2, seed=2**63 - 1)),
    ("seed", lambda: _exp("sampled_profiles").string_generator(-1)),
    ("seed", lambda: _exp("local_volume").local_volume("first", 4, (0.1,), 2, seed=2**64)),
    ("seed", lambda: _exp("local_volume").trained_solution("first", 4, seed=2**63, tries=1, steps=1)),
    ("seed", lambda: _exp("certified_volume").corner_fraction("first", 4, 0.1, models=2, seed=2**64)),
    ("seed", lambda: _exp("random_function_sampling").monte_carlo_K0(3, 4, seed=2**64)),
    ("seed", lambda: _exp("random_function_sampling").random_function_report(2, 4, seed=-1)),
    ("seed", lambda: _exp("training").validate_options("parity", 4, seed=2**63)),
    ("seed", lambda: _exp("training").validate_options("parity", 4, seed=True)),
    ("seeds", lambda: _exp("training").run_training_grid(["parity"], [4], 2**63 + 1, steps=1)),
    ("seeds", lambda: _exp("training").run_training_grid(["parity"], [4], -1, steps=1)),
    ("seed", lambda: _exp("training").training_data(4, -1, None)),
    ("seed", lambda: _exp("training").evaluate(_tiny_model(), "parity", 4, exact=True, seed=2**64)),
    ("seeds[0]", lambda: _exp("xor_sweeps").make_instances(10, 2, [-1])),
    ("seed_offset", lambda: _exp("xor_sweeps").run_sweep([10], [2], 2, seed_offset=-1)),
    ("seed_offset", lambda: _exp("xor_sweeps").run_sweep([10], [2], 2, seed_offset=2**63 - 1)),
    ("seed_offset", lambda: _exp("xor_sweeps").run_samples([10], {10: [4]}, 2, 2, seed_offset=-1)),
    ("seed_offset", lambda: _exp("finite_samples").run_finite_samples([10], {10: [4]}, 2, 2, seed_offset=2**63)),
    ("seed_offset", lambda: _exp("attention_comparison").compare(10, 2, 2, steps=1, seed_offset=-1)),
    ("seed", lambda: _exp("attention_comparison").representational_bounds(10, 2, seed=-1)),
    ("seed", lambda: _bhattamishra("boolverify_draws", -1)),
    ("seed", lambda: _bhattamishra("public_draws", 2**64)),
    ("seed", lambda: _exp("bhattamishra_init_agreement").run(models=2, seed=2**63 - 2)),
    *[("BOOLVERIFY_SEED", (lambda v: lambda: _with_seed_base(v))(v)) for v in ("0x10", "-1", "1.5", "\u0661\u0662",
                                                                             str(2**63), "True")],
    ("local", lambda: _seeds().seed(True)),
    ("local", lambda: _seeds().seed(10**7)),
    ("seed", lambda: _reference_checks().random_instance(6, 3, -1)),
    ("seed", lambda: _reference_checks().random_instance(6, 3, 2**64)),
]


def _bhattamishra(function, seed):
    module = _exp("bhattamishra_init_agreement")
    scheme, setting = next(iter(module.SETTINGS.items()))
    return getattr(module, function)(scheme, setting, 2, seed)


def _seeds():
    from verify.common import seeds

    return seeds


def _with_seed_base(value):
    import os

    old = os.environ.get("BOOLVERIFY_SEED")
    os.environ["BOOLVERIFY_SEED"] = value
    try:
        return _seeds().base_seed()
    finally:
        if old is None:
            del os.environ["BOOLVERIFY_SEED"]
        else:
            os.environ["BOOLVERIFY_SEED"] = old


def _reference_checks():
    from verify.reference import checks

    return checks


CASES = [
    # the two-head XOR engine
    ("d", lambda: numeric.sample_embeddings(1, 3)),
    ("d", lambda: numeric.sample_embeddings(2.5, 3)),
    ("d", lambda: numeric.sample_embeddings("10", 3)),
    ("m", lambda: numeric.sample_embeddings(10, 0)),
    ("m", lambda: numeric.sample_embeddings(10, True)),
    ("batch_shape", lambda: numeric.sample_embeddings(10, 3, batch_shape=5)),
    ("batch_shape[0]", lambda: numeric.sample_embeddings(10, 3, batch_shape=(-1,))),
    ("dtype", lambda: numeric.sample_embeddings(10, 3, dtype=torch.int64)),
    ("device", lambda: numeric.sample_embeddings(10, 3, device="meta")),
    ("device", lambda: numeric.sample_embeddings(10, 3, device="tpu")),
    ("device", lambda: numeric.sample_init(3, device="meta")),
    ("m", lambda: numeric.sample_init(0)),
    ("d", lambda: numeric.default_lr(10**400, 3)),
    ("d", lambda: numeric.default_lr(1, 3)),
    ("m", lambda: numeric.default_lr(10, 0)),
    ("c", lambda: numeric.default_lr(10, 3, c=0)),
    ("c", lambda: numeric.default_lr(10, 3, c=math.nan)),
    ("c", lambda: numeric.default_lr(10, 3, c=1e308)),
    ("support", _xor(numeric.population_loss, support=(0, 0))),
    ("support", _xor(numeric.population_loss, support=(0, 6))),
    ("support", _xor(numeric.population_loss, support=(-1, 2))),
    ("support", _xor(numeric.population_loss, support=(0.0, 1))),
    ("support", _xor(numeric.population_loss, support="01")),
    ("V", _xor(numeric.population_loss, V=torch.ones(1, 3, dtype=torch.float64))),
    ("V", _xor(numeric.population_loss, V=[[1.0, 0.0, 0.0]] * 6)),
    ("V", _xor(numeric.population_grad, V=torch.full((6, 3), math.nan, dtype=torch.float64))),
    ("theta", _xor(numeric.population_grad, theta=torch.ones(4, dtype=torch.float64))),
    ("theta", _xor(numeric.population_grad, theta=torch.ones(3, dtype=torch.float32))),
    ("theta_tilde", _xor(numeric.population_grad, theta_tilde=torch.tensor([math.inf, 0.0, 0.0],
                                                                            dtype=torch.float64))),
    ("attention", lambda: numeric.population_loss(_V(), *_th(), (0, 1), attention="tanh")),
    ("lr", lambda: numeric.one_step(_V(), *_th(), (0, 1), lr=-1.0)),
    ("lr", lambda: numeric.one_step(_V(), *_th(), (0, 1), lr=math.inf)),
    ("n", lambda: numeric.sample_data(0, 6, (0, 1))),
    ("support", lambda: numeric.sample_data(4, 6, (0, 9))),
    ("X", lambda: numeric.empirical_loss(_V(), *_th(), torch.zeros(4, 6, dtype=torch.float64),
                                         torch.zeros(4, dtype=torch.float64))),
    ("eps", lambda: numeric.step_metrics(_V(), *_th(), (0, 1), eps=0.7)),
    ("V", lambda: numeric.check_embeddings(2 * _V())),
    # Boolean functions and profiles
    ("name", lambda: numeric.truth_table("nosuch", 4)),
    ("N", lambda: numeric.truth_table("majority", 0)),
    ("N", lambda: numeric.truth_table("majority", 40)),
    ("N", lambda: numeric.all_strings(-1)),
    ("table", lambda: numeric.profile(torch.tensor([0, 1, 1]))),
    ("table", lambda: numeric.profile(torch.tensor([0, 2, 1, 0]))),
    ("table", lambda: numeric.profile("0110")),
    ("table", lambda: numeric.average_sensitivity(torch.tensor([0.5, 1.0]))),
    ("table", lambda: numeric.walsh_hadamard(torch.zeros(0))),
    # the paper-B transformer
    ("D", lambda: numeric.TransformerConfig(D=1)),
    ("L", lambda: numeric.TransformerConfig(L=0)),
    ("H", lambda: numeric.TransformerConfig(D=6, H=4)),
    ("eps", lambda: numeric.TransformerConfig(eps=-1.0)),
    ("eps", lambda: numeric.TransformerConfig(eps=math.nan)),
    ("N_max", lambda: numeric.TransformerConfig(N_max=0)),
    ("scheme", lambda: numeric.random_model(numeric.TransformerConfig(D=4, L=1, H=1), "nosuch", 0)),
    ("positions", lambda: numeric.TransformerConfig(D=4, H=1, positions="rotary")),
    ("biases", lambda: numeric.TransformerConfig(D=4, H=1, biases="readout_only")),
    # the public inits never draw LN parameters nor a readout bias; their Xavier ones no bias at all
    ("ln_affine", lambda: numeric.random_model(numeric.TransformerConfig(D=4, L=1, H=1), "bhattamishra_uniform", 0)),
    ("biases", lambda: numeric.random_model(numeric.preset_config("bhattamishra", D=4, L=1, biases="scheme"),
                                            "bhattamishra_gaussian", 0)),
    ("biases", lambda: numeric.random_model(numeric.preset_config("bhattamishra", D=4, L=1,
                                                                  biases="scheme_except_readout"),
                                            "bhattamishra_xavier_normal", 0)),
    ("input_scale", lambda: numeric.random_model(numeric.preset_config("bhattamishra", D=4, L=1),
                                                 "bhattamishra_gaussian", 0, input_scale=0.0)),
    ("input_scale", lambda: numeric.random_model(numeric.preset_config("bhattamishra", D=4, L=1),
                                                 "bhattamishra_gaussian", 0, input_scale=math.inf)),
    ("rows", lambda: numeric.sinusoidal_positions(0, 4)),
    ("D", lambda: numeric.sinusoidal_positions(4, 2.5)),
    ("N", lambda: numeric.boolean_table(_tiny_model(), 9)),
    ("N", lambda: numeric.model_profile(_tiny_model(), 0)),
    ("xi", lambda: numeric.margin_recognition(torch.ones(4, dtype=torch.float64), -1.0)),
    # bounds and inference
    ("D", lambda: _bounds().theorem_exponent(1, 2)),
    ("L", lambda: _bounds().theorem_exponent(64, 0)),
    ("eps", lambda: _bounds().blowup_bound(-1.0, 4)),
    ("xi", lambda: _bounds().bounds_report(64, 2, xi=0)),
    ("trials", lambda: _stats().clopper_pearson(3, 0)),
    ("successes", lambda: _stats().clopper_pearson(5, 4)),
    ("successes", lambda: _stats().clopper_pearson(-1, 4)),
    ("level", lambda: _stats().clopper_pearson(1, 4, level=1.5)),
    ("side", lambda: _stats().clopper_pearson(1, 4, side="both")),
    ("values", lambda: _stats().mean_interval([1.0])),
    ("fit_a", lambda: _stats().compare_laws(None, None)),
    # tensors torch itself would fail on: tracked by autograd, without data, sparse; huge seeds
    ("theta", lambda: numeric.one_step(_V(), _th()[0].requires_grad_(), _th()[1], (0, 1), 1.0)),
    ("theta", lambda: numeric.population_grad(_V(), torch.nn.Parameter(_th()[0]), _th()[1], (0, 1))),
    ("V", lambda: numeric.population_loss(_V().to("meta"), *_th(), (0, 1))),
    ("theta", lambda: numeric.population_loss(_V(), _th()[0].to_sparse(), _th()[1], (0, 1))),
    ("theta", lambda: _reference().population_loss(_V(), _th()[0].to("meta"), _th()[1], (0, 1))),
    ("table", lambda: numeric.profile(torch.tensor([0, 1, 1, 0]).to_sparse())),
    ("table", lambda: numeric.profile(torch.tensor([0, 1, 1, 0], device="meta"))),
    ("seed", lambda: numeric.truth_table("random", 3, seed=2**64)),
    *SEED_CASES,
]


def _reference():
    from verify import reference

    return reference


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}:{c[0]}" for i, c in enumerate(CASES)])
def test_bad_argument_raises_input_error_naming_it(name, call):
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value).startswith(f"{name} = "), str(info.value)


def test_the_table_covers_each_layer():
    assert len(CASES) >= 100
