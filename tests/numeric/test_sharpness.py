"""numeric.transformer._sharpness: sigma = 0 gives exactly 0, the known answer of a quadratic loss (exact with
a symmetric design of draws, within a stated Monte Carlo bound with Gaussian draws), the
vectorised and the looped evaluation agree, explicit draws are used as given, and bad input."""

from __future__ import annotations

import math

import pytest
import torch

from numeric.boolean._functions import all_strings, labels
from numeric.transformer._constructions import construct
from numeric.transformer._sharpness import (gaussian_draws, model_sharpness, mse_loss_of, perturbation_sharpness,
                               sigma_from_rho)
from numeric.transformer._model import TransformerConfig, random_model
from numeric.validation import InputError
from verify.common.tolerances import assert_close, sum_tolerance

# Monte Carlo rule, fixed before looking at the data: the estimate lies within Z_BOUND exact
# standard errors of its expectation (two-sided normal tail 5.7e-7 per check; K = 4000 draws of a
# sum of a Gaussian and a chi-square-like term are close to normal).
Z_BOUND = 5.0
MC_DRAWS = 4000


def _linear_problem(n=12, m=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, m, generator=g, dtype=torch.float64)
    y = torch.randn(n, generator=g, dtype=torch.float64)
    w = torch.randn(m, generator=g, dtype=torch.float64)

    def loss(p):
        return ((X @ p["w"] - y) ** 2).mean()

    A = X.T @ X / n  # Hessian / 2
    b = X.T @ (X @ w - y) / n  # gradient / 2
    return loss, {"w": w}, A, b


def _model_and_batch(eps=1e-5, N=4):
    model = random_model(TransformerConfig(D=8, L=2, H=2, eps=eps, N_max=N), "xavier_uniform", 3)
    x = all_strings(N).to(torch.long)
    return model, x, labels("parity", x).to(torch.float64)


def test_sigma_zero_gives_exactly_zero():
    model, x, y = _model_and_batch()
    est = model_sharpness(model, x, y, 0.0, draws=7, generator=torch.Generator().manual_seed(0))
    assert est.value == 0.0 and bool((est.increases == 0).all()) and est.draws == 7
    loss, params, _, _ = _linear_problem()
    z = {"w": torch.randn(5, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))}
    assert perturbation_sharpness(loss, params, 0.0, z).value == 0.0


def test_quadratic_loss_exact_with_a_symmetric_design():
    """E[L(w + s z)] - L(w) = s^2 tr(A) (= s^2 tr(H)/2) for L = mean((Xw - y)^2); the 2m draws
    +-sqrt(m) e_i have mean 0 and second moment I, so their average is exactly that."""
    loss, params, A, _ = _linear_problem()
    m = A.shape[0]
    eye = torch.eye(m, dtype=torch.float64) * math.sqrt(m)
    z = {"w": torch.cat([eye, -eye])}
    for sigma in (1e-3, 0.1, 2.0):
        est = perturbation_sharpness(loss, params, sigma, z)
        assert_close(est.value, sigma ** 2 * torch.trace(A), scale=est.base_loss, tol=sum_tolerance("float64", 2 * m),
                     what=f"symmetric-design sharpness at sigma={sigma}")


@pytest.mark.parametrize("sigma", [0.05, 0.5])
def test_quadratic_loss_monte_carlo_within_the_stated_bound(sigma):
    """Each increase is 2 s b.z + s^2 z'Az: mean s^2 tr A, variance 4 s^2 |b|^2 + 2 s^4 tr(A^2)."""
    loss, params, A, b = _linear_problem(seed=2)
    g = torch.Generator().manual_seed(5)
    est = perturbation_sharpness(loss, params, sigma, gaussian_draws(params, MC_DRAWS, g, exclude=()))
    mean = sigma ** 2 * float(torch.trace(A))
    sd = math.sqrt(4 * sigma ** 2 * float(b @ b) + 2 * sigma ** 4 * float(torch.trace(A @ A)))
    assert abs(est.value - mean) <= Z_BOUND * sd / math.sqrt(MC_DRAWS)
    # the reported standard error estimates the exact one
    assert 0.8 * sd / math.sqrt(MC_DRAWS) <= est.std_error <= 1.25 * sd / math.sqrt(MC_DRAWS)


def test_the_monte_carlo_rule_can_fail():
    """The rule rejects the sigma^2-scaled noise (a planted bug: noise scaled by sigma^2)."""
    loss, params, A, b = _linear_problem(seed=2)
    sigma = 0.5
    z = gaussian_draws(params, MC_DRAWS, torch.Generator().manual_seed(5), exclude=())
    wrong = perturbation_sharpness(loss, params, sigma ** 2, z)
    sd = math.sqrt(4 * sigma ** 2 * float(b @ b) + 2 * sigma ** 4 * float(torch.trace(A @ A)))
    assert abs(wrong.value - sigma ** 2 * float(torch.trace(A))) > Z_BOUND * sd / math.sqrt(MC_DRAWS)


def test_vectorised_and_looped_draws_agree_and_eps_zero_loops():
    model, x, y = _model_and_batch()
    kw = dict(draws=6)
    a = model_sharpness(model, x, y, 0.1, generator=torch.Generator().manual_seed(4), **kw)
    b = model_sharpness(model, x, y, 0.1, generator=torch.Generator().manual_seed(4), vectorize=False, **kw)
    for u, v in zip(a.increases.tolist(), b.increases.tolist()):
        assert_close(u, v, scale=a.base_loss, what="one draw's loss increase")
    # the construction at eps = 0 has data-dependent control flow: evaluated draw by draw
    c = construct("majority", 4)
    xc = all_strings(4).to(torch.long)
    yc = labels("majority", xc).to(torch.float64)
    est = model_sharpness(c, xc, yc, 0.01, draws=3, generator=torch.Generator().manual_seed(0))
    loop = model_sharpness(c, xc, yc, 0.01, draws=3, generator=torch.Generator().manual_seed(0), vectorize=False)
    assert est.value == loop.value and est.n_noised == sum(p.numel() for n, p in c.named_parameters() if n != "pos")


def test_given_draws_are_used_as_given_and_rho_scales_by_the_noised_count():
    model, x, y = _model_and_batch()
    params = {n: p.detach() for n, p in model.named_parameters()}
    z = gaussian_draws(params, 3, torch.Generator().manual_seed(8))
    assert "pos" not in z and all(v.shape[0] == 3 for v in z.values())
    est = model_sharpness(model, x, y, 0.05, noise=z)
    first = mse_loss_of(model, x, y)({**params, **{k: params[k] + 0.05 * v[0] for k, v in z.items()}})
    assert_close(est.increases[0], first - est.base_loss, scale=est.base_loss, what="first draw's increase")
    M = sum(params[k].numel() for k in z)
    by_rho = model_sharpness(model, x, y, rho=0.05 * math.sqrt(M), noise=z)
    assert_close(by_rho.value, est.value, scale=est.base_loss, what="rho = sigma sqrt(M)")
    assert sigma_from_rho(2.0, 4) == 1.0


def _bad_rows():
    model, x, y = _model_and_batch()
    params = {n: p.detach() for n, p in model.named_parameters()}
    g = torch.Generator().manual_seed(0)
    loss = mse_loss_of(model, x, y)
    z = {"tok": torch.zeros(2, 3, 8, dtype=torch.float64)}
    return [
        (lambda: model_sharpness(model, x, y, -0.1, generator=g), "sigma"),
        (lambda: model_sharpness(model, x, y, float("nan"), generator=g), "sigma"),
        (lambda: model_sharpness(model, x, y, 0.1, rho=1.0, generator=g), "sigma"),
        (lambda: model_sharpness(model, x, y, generator=g), "sigma"),
        (lambda: model_sharpness(model, x, y, 0.1), "noise"),
        (lambda: model_sharpness(model, x, y, 0.1, generator=g, noise=z), "noise"),
        (lambda: model_sharpness(model, x, y, 0.1, draws=0, generator=g), "draws"),
        (lambda: model_sharpness(model, x, y, 0.1, draws=True, generator=g), "draws"),
        (lambda: model_sharpness(model, x, y[:-1], 0.1, generator=g), "y"),
        (lambda: model_sharpness(model, x, y.long(), 0.1, generator=g), "y"),
        (lambda: model_sharpness("model", x, y, 0.1, generator=g), "model"),
        (lambda: model_sharpness(model, x, y, 0.1, generator=g, exclude=("nope",)), "exclude"),
        (lambda: model_sharpness(model, x, y, 0.1, generator=g, exclude="pos"), "exclude"),
        (lambda: model_sharpness(model, x, y, 0.1, generator=g, exclude=tuple(params)), "exclude"),
        (lambda: model_sharpness(model, x, y, 0.1, generator=0), "generator"),
        (lambda: perturbation_sharpness(loss, params, 0.1, {"nope": z["tok"]}), "noise"),
        (lambda: perturbation_sharpness(loss, params, 0.1, {"tok": torch.zeros(2, 3, 7)}), "noise['tok']"),
        (lambda: perturbation_sharpness(loss, params, 0.1, {"tok": torch.zeros(0, 3, 8)}), "noise"),
        (lambda: perturbation_sharpness(loss, params, 0.1, {"tok": z["tok"] * float("inf")}), "noise['tok']"),
        (lambda: perturbation_sharpness(loss, params, 0.1,
                                        {"tok": z["tok"], "out.bias": torch.zeros(3, 1)}), "noise['out.bias']"),
        (lambda: perturbation_sharpness(loss, {}, 0.1, z), "params"),
        (lambda: perturbation_sharpness(loss, {**params, "tok": params["tok"] * float("nan")}, 0.1, z),
         "params['tok']"),
        (lambda: perturbation_sharpness("loss", params, 0.1, z), "loss"),
        (lambda: perturbation_sharpness(lambda p: torch.zeros(2), params, 0.1, z), "loss(params)"),
        (lambda: perturbation_sharpness(loss, params, 0.1, z, vectorize=1), "vectorize"),
        (lambda: sigma_from_rho(-1.0, 3), "rho"),
        (lambda: sigma_from_rho(1.0, 0), "n_noised"),
    ]


@pytest.mark.parametrize("row", range(len(_bad_rows())))
def test_bad_input_is_refused_with_the_argument_named(row):
    call, name = _bad_rows()[row]
    with pytest.raises(InputError) as info:
        call()
    assert info.value.name == name, str(info.value)
