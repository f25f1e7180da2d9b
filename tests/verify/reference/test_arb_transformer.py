"""The Arb references of SG-9 (verify.reference.arb_transformer): the forward pass agrees with
the engine's batched pass (constructions and a random two-head model at eps > 0), its output
lies in the interval pass's enclosure, the exact ranges of the interval operations are the
textbook ones, and a layer norm without variance is reported undefined."""

import pytest
import torch

from numeric.transformer._certified_volume import interval_forward, parameter_box
from numeric.transformer._constructions import CONSTRUCTED, construct
from numeric.transformer._local_volume import batched_outputs, perturbed_parameters, stacked_parameters
from numeric.transformer import TransformerConfig, random_model
from verify.common.tolerances import assert_close
from verify.reference.arb_transformer import arb_forward, arb_parameters, exact_range, flint_arb, ulps_between


def _outputs(model, theta, N, k=0):
    return [float(r["output"].mid()) for r in arb_forward(model.config, arb_parameters(theta, k), N)]


def _agree(exact_values, T, what):
    scale = float(T.abs().max())
    for i, (a, b) in enumerate(zip(exact_values, T.tolist())):
        assert_close(b, a, scale=scale, what=f"{what}, string {i}")


@pytest.mark.parametrize("name", CONSTRUCTED)
def test_forward_pass_agrees_with_the_batched_pass(name):
    model, N = construct(name, 4), 4
    theta = perturbed_parameters(model, 0.01, 2, torch.Generator().manual_seed(1))
    T = batched_outputs(model, theta, N)
    for k in range(2):
        _agree(_outputs(model, theta, N, k), T[k], f"{name}: Arb output against the batched pass")


def test_two_heads_and_eps_agree_with_the_batched_pass():
    model = random_model(TransformerConfig(D=4, L=1, H=2, F=5, eps=1e-5, N_max=3), "uniform", 3).double()
    theta = stacked_parameters(model, 1)
    T = batched_outputs(model, theta, 3)[0]
    _agree(_outputs(model, theta, 3), T, "two heads, eps > 0")


def test_exact_output_lies_in_the_degenerate_enclosure():
    arb, _ = flint_arb()
    model, N = construct("first", 3), 3
    passes = interval_forward(model, parameter_box(model, 0.0), N)
    ref = arb_forward(model.config, arb_parameters(dict(model.named_parameters())), N)
    for i, r in enumerate(ref):
        assert arb(float(passes["output"].lo[i])) <= r["output"] <= arb(float(passes["output"].hi[i]))


def test_exact_ranges_of_textbook_cases():
    arb, _ = flint_arb()
    lo, hi = exact_range("mul", (-1.0, 2.0), (-3.0, 4.0))
    assert lo == arb(-6) and hi == arb(8)
    assert exact_range("square", (-1.0, 2.0))[0] == arb(0)
    lo, hi = exact_range("add", (1e300, 1e300), (5e-324, 5e-324))
    assert lo > arb(1e300)  # exact: the tiny term is not rounded away
    assert ulps_between(1.0, arb(1)) == 0.0


def test_zero_variance_is_undefined():
    model = construct("majority", 2)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    assert all(r is None for r in arb_forward(model.config, arb_parameters(dict(model.named_parameters())), 2))
