"""Certified boxes (numeric.transformer._certified_volume): the enclosures contain every float64 forward pass
of a parameter vector in the box, are tight at h = 0, a certified box computes the function at
every point tried, a large box and a wrong table are refused, every string is seen, bad input is
refused."""

import math

import pytest
import torch

from numeric.boolean._functions import truth_table
from numeric.transformer._certified_volume import (
    Interval, attention_weights, box_points, certified_strings, certify_box, exp, interval_outputs, layer_norm, mul,
    parameter_box, reciprocal_sqrt, square, total,
)
from numeric.transformer._constructions import CONSTRUCTED, construct
from numeric.transformer._local_volume import batched_outputs, kept_values, parameter_names, stacked_parameters
from numeric.transformer import TransformerConfig, evaluate_all, random_model
from tests.helpers import raises_input_error
from verify.common.tolerances import sum_tolerance, tolerance

#: half-widths tried, largest first, for a box that certifies
LADDER = (3e-3, 1e-3, 3e-4, 1e-4)


def _inside(T: Interval, values: torch.Tensor) -> bool:
    return bool(T.contains(values).all())


def _points_in_box(model, h, K, seed, include_ln=True):
    """K parameter vectors of the box theta* +- h: half uniform inside, half corners."""
    g = torch.Generator().manual_seed(seed)
    theta = stacked_parameters(model, K)
    for name in parameter_names(model, include_ln):
        u = torch.rand(theta[name].shape, generator=g, dtype=torch.float64) * 2 - 1
        u[K // 2:] = u[K // 2:].sign()  # corners: every coordinate at +-h
        theta[name] += h * u
    return theta


def _first_certified(model, table, N):
    for h in LADDER:
        box = certify_box(model, table, N, h, function="f")
        if box.certified:
            return box
    raise AssertionError(f"no half-width of {LADDER} certified")


@pytest.mark.parametrize("name", CONSTRUCTED)
@pytest.mark.parametrize("N", [3, 5])
def test_every_point_of_a_certified_box_computes_the_function_inside_the_enclosures(name, N):
    model, table = construct(name, N), truth_table(name, N)
    box = _first_certified(model, table, N)
    assert box.certified and box.strings_certified == box.strings_total == 1 << N
    T = interval_outputs(model, parameter_box(model, box.half_width), N)
    theta = _points_in_box(model, box.half_width, 64, seed=N)
    out = batched_outputs(model, theta, N)
    assert bool(kept_values(out, table).all())
    for k in range(out.shape[0]):
        assert _inside(T, out[k]), f"point {k} outside the enclosures"


def test_enclosures_contain_the_models_own_forward_pass_at_sampled_points():
    model, N = construct("parity", 4), 4
    h = 2e-4
    T = interval_outputs(model, parameter_box(model, h), N)
    theta = _points_in_box(model, h, 4, seed=1)
    for k in range(4):
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(theta[name][k])
        assert _inside(T, evaluate_all(model, N, fast=False))


@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_enclosures_of_a_random_two_head_model_contain_its_perturbations(eps):
    # no certificate needed: soundness of the enclosures alone, on general weights and H = 2
    cfg = TransformerConfig(D=4, L=1, H=2, F=8, eps=eps, N_max=5)
    model = random_model(cfg, "uniform", 3)
    h = 1e-3
    T = interval_outputs(model, parameter_box(model, h), 5)
    assert bool(torch.isfinite(T.lo).all())
    out = batched_outputs(model, _points_in_box(model, h, 32, seed=2), 5)
    assert _inside(T, out)


def test_no_ln_box_keeps_layer_norm_parameters_at_theta_star():
    model = construct("majority", 4)
    box = parameter_box(model, 1e-3, include_ln=False)
    gain = box["layers.0.ln1.gain"]
    assert torch.equal(gain.lo, gain.hi)
    assert bool((box["tok"].width > 0).all())
    rec = certify_box(model, truth_table("majority", 4), 4, 1e-3, function="majority", include_ln=False)
    assert rec.n_params == model.config.n_params - 4 * model.config.D


@pytest.mark.parametrize("name", CONSTRUCTED)
@pytest.mark.parametrize("N", [2, 6, 9])
def test_degenerate_box_encloses_the_forward_pass_tightly(name, N):
    model = construct(name, N)
    T = interval_outputs(model, parameter_box(model, 0.0), N)
    ref = evaluate_all(model, N)
    tol = tolerance("float64")
    scale = float(ref.abs().max())
    assert _inside(T, ref)
    assert bool((T.width <= tol.rtol * ref.abs() + tol.atol * scale).all()), float(T.width.max())


@pytest.mark.parametrize("name", CONSTRUCTED)
@pytest.mark.parametrize("N", [1, 4, 7, 12])
def test_every_string_certifies_at_h_zero(name, N):
    rec = certify_box(construct(name, N), truth_table(name, N), N, 0.0, function=name)
    assert rec.certified and rec.strings_certified == rec.strings_total == 1 << N
    assert rec.log_volume == -math.inf and rec.margin > 0
    assert rec.n_params == construct(name, N).config.n_params


@pytest.mark.parametrize("name", CONSTRUCTED)
def test_a_too_large_box_is_refused(name):
    rec = certify_box(construct(name, 6), truth_table(name, 6), 6, 0.1, function=name)
    assert not rec.certified and rec.strings_certified < rec.strings_total == 64 and rec.margin < 0


def test_log_volume_counts_every_perturbed_parameter():
    model = construct("first", 5)
    rec = certify_box(model, truth_table("first", 5), 5, 1e-3, function="first")
    assert rec.n_params == model.config.n_params
    assert rec.log_volume == pytest.approx(model.config.n_params * math.log(2e-3), rel=tolerance().rtol)


def test_wrong_model_is_refused():
    # the MAJORITY construction does not compute FIRST: refused even at h = 0
    rec = certify_box(construct("majority", 6), truth_table("first", 6), 6, 0.0, function="first")
    assert not rec.certified and rec.strings_total == 64 and 0 < rec.strings_certified < 64


@pytest.mark.parametrize("index", [0, 31, 32, 63])
def test_every_string_is_checked(index):
    # a table wrong at one string only is refused, with exactly that string uncertified
    table = truth_table("parity", 6).clone()
    table[index] = 1 - table[index]
    rec = certify_box(construct("parity", 6), table, 6, 0.0, function="parity")
    assert not rec.certified and rec.strings_total == 64 and rec.strings_certified == 63
    T = interval_outputs(construct("parity", 6), parameter_box(construct("parity", 6), 0.0), 6)
    ok = certified_strings(T, table)
    assert ok.shape == (64,) and not bool(ok[index]) and int(ok.sum()) == 63


def test_interval_operations_contain_pointwise_results():
    g = torch.Generator().manual_seed(5)
    n = 2000

    def random_interval(spread=3.0):
        a = (torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1) * spread
        b = (torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1) * spread
        return Interval(torch.minimum(a, b), torch.maximum(a, b))

    def inside(a):
        return a.lo + torch.rand(n, generator=g, dtype=torch.float64) * a.width

    a, b = random_interval(), random_interval()
    x, y = inside(a), inside(b)
    assert _inside(mul(a, b), x * y)
    assert _inside(square(a), x * x)
    assert _inside(exp(a), torch.exp(x))
    pos = Interval(a.lo.abs() + 0.1, a.lo.abs() + 0.1 + a.width)
    assert _inside(reciprocal_sqrt(pos), torch.rsqrt(inside(pos)))
    assert _inside(total(Interval(a.lo.reshape(100, 20), a.hi.reshape(100, 20)), -1), x.reshape(100, 20).sum(-1))
    s = Interval(a.lo.reshape(200, 10) * 10, a.hi.reshape(200, 10) * 10)
    pts = s.lo + torch.rand(s.lo.shape, generator=g, dtype=torch.float64) * s.width
    assert _inside(attention_weights(s), torch.softmax(pts, -1))
    # the extreme weights (own score at its upper end, the others at their lower ends) are
    # reached: the float softmax there agrees with the enclosure's ends up to its own rounding
    tol = sum_tolerance("float64", 10)
    a = attention_weights(s)
    for j in range(10):
        corner = torch.softmax(torch.where(torch.arange(10) == j, s.hi, s.lo), -1)[:, j]
        assert bool((corner <= a.hi[:, j] + tol.atol).all() and (a.hi[:, j] - corner <= tol.rtol + tol.atol).all())
    u = Interval(s.lo[:, :6], s.hi[:, :6])
    up = pts[:, :6]
    one, zero = Interval.point(torch.ones(6, dtype=torch.float64)), Interval.point(torch.zeros(6, dtype=torch.float64))
    y_ln, defined = layer_norm(u, one, zero, 0.0)
    c = up - up.mean(-1, keepdim=True)
    ref = c * torch.rsqrt((c * c).mean(-1, keepdim=True))
    assert int(defined.sum()) > 10  # the check below sees rows with a positive variance bound
    rows = defined.unsqueeze(-1).expand_as(ref)
    assert bool(y_ln.contains(ref)[rows].all())


def test_undefined_layer_norm_is_not_certifiable():
    # all components equal in some point of the box: the variance's lower end is 0
    u = Interval(torch.full((1, 4), -1.0, dtype=torch.float64), torch.full((1, 4), 1.0, dtype=torch.float64))
    one, zero = Interval.point(torch.ones(4, dtype=torch.float64)), Interval.point(torch.zeros(4, dtype=torch.float64))
    _, defined = layer_norm(u, one, zero, 0.0)
    assert not bool(defined.any())


def test_a_box_over_named_parameters_widens_only_those():
    model = construct("first", 4)
    box = parameter_box(model, 1e-3, names=["layers.0.q.weight"])
    for name, iv in box.items():
        assert bool((iv.width > 0).all()) if name == "layers.0.q.weight" else torch.equal(iv.lo, iv.hi), name
    with raises_input_error("names"):
        parameter_box(model, 1e-3, names=["no.such.parameter"])
    with raises_input_error("names"):
        parameter_box(model, 1e-3, names="tok")


@pytest.mark.parametrize("corners", [True, False])
@pytest.mark.parametrize("names", [None, ["layers.0.fc1.bias", "tok"]])
def test_box_points_lie_in_the_box_and_move_only_its_parameters(corners, names):
    model, h, K = construct("parity", 4), 1e-3, 16
    theta = box_points(model, h, K, torch.Generator().manual_seed(0), corners=corners, names=names)
    box = parameter_box(model, h, names=names)
    star = stacked_parameters(model, K)
    widened = parameter_names(model) if names is None else names
    for name, t in theta.items():
        assert t.shape == star[name].shape
        if name not in widened:
            assert torch.equal(t, star[name]), name
            continue
        assert bool(box[name].contains(t).all()) and bool((t != star[name]).all()), name
        if corners:
            assert bool(((t == star[name] + h) | (t == star[name] - h)).all()), name
    with raises_input_error("K"):
        box_points(model, h, 0, torch.Generator(), corners=True)


@pytest.mark.parametrize("h", [-1e-3, math.nan, math.inf])
def test_bad_half_width_is_refused(h):
    model = construct("majority", 4)
    with raises_input_error("half_width"):
        certify_box(model, truth_table("majority", 4), 4, h, function="majority")
    with raises_input_error("half_width"):
        parameter_box(model, h)


def test_bad_table_box_and_model_are_refused():
    model = construct("majority", 4)
    with raises_input_error("table"):
        certify_box(model, truth_table("majority", 5), 4, 0.0, function="majority")
    with raises_input_error("table"):
        certify_box(model, truth_table("majority", 4) * 2, 4, 0.0, function="majority")
    with raises_input_error("N"):
        certify_box(model, truth_table("majority", 5), 5, 0.0, function="majority")
    box = parameter_box(model, 0.0)
    box["tok"] = Interval(box["tok"].hi + 1, box["tok"].lo)
    with raises_input_error("box['tok']", "lo <= hi"):
        interval_outputs(model, box, 4)
    box["tok"] = Interval(box["tok"].lo * math.nan, box["tok"].lo)
    with raises_input_error("box['tok']", "finite"):
        interval_outputs(model, box, 4)
    with raises_input_error("box"):
        interval_outputs(model, {}, 4)
    with raises_input_error("model"):
        certify_box(random_model(TransformerConfig(D=4, L=2, H=2, N_max=4), "uniform", 0),
                    truth_table("majority", 4), 4, 0.0, function="majority")


def test_flushed_subnormals_are_refused():
    model = construct("first", 3)
    if not torch.set_flush_denormal(True):
        pytest.skip("this CPU cannot flush subnormals")
    try:
        with raises_input_error("flush_denormal", "subnormals kept"):
            interval_outputs(model, parameter_box(model, 0.0), 3)
    finally:
        torch.set_flush_denormal(False)
    assert bool(interval_outputs(model, parameter_box(model, 0.0), 3).contains(evaluate_all(model, 3)).all())
