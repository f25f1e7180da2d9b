"""The explicit constructions compute their functions on every string, by the model's own
evaluation; the batched evaluation of perturbed one-layer models agrees with it."""

import pytest
import torch

from numeric.boolean._functions import truth_table
from numeric.transformer._constructions import CONSTRUCTED, construct, construction_config, phi
from numeric.transformer._local_volume import (
    batched_outputs, kept_values, load_parameters, parameter_names, perturbed_parameters, volume_point,
)
from numeric.transformer import BooleanTransformer, TransformerConfig, boolean_table, evaluate_all, random_model
from tests.helpers import raises_input_error
from verify.common.tolerances import assert_close, sum_tolerance


@pytest.mark.parametrize("name", CONSTRUCTED)
@pytest.mark.parametrize("N", range(1, 13))
def test_construction_computes_the_function(name, N):
    model = construct(name, N)
    assert torch.equal(boolean_table(model, N), truth_table(name, N).to(torch.int64))


@pytest.mark.parametrize("name", CONSTRUCTED)
def test_constructions_share_one_shape(name):
    cfg = construct(name, 9).config
    assert cfg == construction_config(9)
    assert (cfg.D, cfg.L, cfg.H, cfg.F, cfg.eps, cfg.N_max) == (6, 1, 1, 9, 0.0, 9)


def test_phi_is_increasing():
    s = torch.linspace(0, 1, 101, dtype=torch.float64)
    assert bool((phi(s)[1:] > phi(s)[:-1]).all())


def test_construction_bad_input():
    with raises_input_error("function"):
        construct("random", 4)
    with raises_input_error("F"):
        construct("parity", 8, F=4)
    with raises_input_error("eps"):
        construct("first", 4, eps=1e-3)


def _agree(model, theta, N):
    T = batched_outputs(model, theta, N)
    for k in range(T.shape[0]):
        ref = evaluate_all(load_parameters(BooleanTransformer(model.config), theta, k), N)
        assert torch.equal(T[k] > 0, ref > 0)
        scale = float(ref.abs().max())
        assert_close(float((T[k] - ref).abs().max()), 0.0, scale=scale, tol=sum_tolerance("float64", 64 * (N + 1)),
                     what=f"T of model {k}")


@pytest.mark.parametrize("name", CONSTRUCTED)
def test_batched_matches_model_on_perturbed_constructions(name):
    N = 7
    model = construct(name, N)
    theta = perturbed_parameters(model, 0.05, 4, torch.Generator().manual_seed(1))
    _agree(model, theta, N)


def test_batched_matches_model_on_random_two_head_models():
    cfg = TransformerConfig(D=8, L=1, H=2, F=12, N_max=6)
    model = random_model(cfg, "gaussian", 5)
    theta = perturbed_parameters(model, 1.0, 4, torch.Generator().manual_seed(2))
    _agree(model, theta, 6)


def test_zero_perturbation_keeps_everything():
    N = 6
    model = construct("parity", N)
    table = truth_table("parity", N)
    r = volume_point(model, table, N, 0.0, 3, torch.Generator().manual_seed(0))
    assert r == {"exact": 3, "models": 3, "kept_fraction": 1.0, "kept_min": 1.0}


def test_include_ln_leaves_layer_norm_fixed():
    model = construct("majority", 5)
    names = set(parameter_names(model)) - set(parameter_names(model, include_ln=False))
    assert names == {"layers.0.ln1.gain", "layers.0.ln1.bias", "layers.0.ln2.gain", "layers.0.ln2.bias"}
    theta = perturbed_parameters(model, 1.0, 2, torch.Generator().manual_seed(0), include_ln=False)
    assert torch.equal(theta["layers.0.ln1.gain"][1], model.layers[0].ln1.gain.detach())


def test_non_finite_outputs_keep_nothing():
    T = torch.tensor([[1.0, float("nan"), -1.0]], dtype=torch.float64)
    assert kept_values(T, torch.tensor([1, 0, 0])).tolist() == [[True, False, True]]


@pytest.mark.parametrize("L, eps", [(2, 1e-5), (3, 0.0)])
def test_batched_matches_model_on_deeper_models(L, eps):
    # the trained solutions' shape (and a third layer): every position through the first L - 1 layers
    N = 5
    model = random_model(TransformerConfig(D=8, L=L, H=2, eps=eps, N_max=N), "xavier_uniform", 0)
    _agree(model, perturbed_parameters(model, 0.1, 3, torch.Generator().manual_seed(2)), N)


def test_batched_rejects_other_conventions():
    from numeric.transformer import preset_config

    with raises_input_error("model", "boolverify conventions"):
        batched_outputs(random_model(preset_config("bhattamishra", D=4, L=1, N_max=4), "gaussian", 0), {}, 4)


def test_certifier_rejects_deeper_models():
    from numeric.transformer._certified_volume import parameter_box

    with raises_input_error("model", "one-layer"):
        parameter_box(random_model(TransformerConfig(D=4, L=2, H=1, N_max=4), "gaussian", 0), 0.1)


def test_zero_variance_at_eps_zero_keeps_nothing():
    # every perturbation identical and the first LN's input constant: LN is undefined there
    N = 4
    model = construct("majority", N)
    theta = perturbed_parameters(model, 0.0, 2, torch.Generator())
    theta["tok"][:, 2] = 0.0  # no constant pair at eos: u = (s, -s, 0, ...) is flat at |x| = 0
    T = batched_outputs(model, theta, N)
    assert bool(torch.isnan(T[:, 0]).all()) and bool(torch.isfinite(T[:, 1:]).all())


def test_volume_point_bad_input():
    model = construct("majority", 4)
    table = truth_table("majority", 4)
    with raises_input_error("sigma"):
        volume_point(model, table, 4, -1.0, 3, torch.Generator())
    with raises_input_error("table"):
        volume_point(model, table[:8], 4, 0.1, 3, torch.Generator())
    with raises_input_error("generator"):
        volume_point(model, table, 4, 0.1, 3, "seed")
    with raises_input_error("N"):
        volume_point(model, table, 5, 0.1, 3, torch.Generator())
