r"""Sharpness of a loss at parameters :math:`\theta`: the mean loss increase under Gaussian
parameter noise,

.. math:: S_\sigma(\theta) = \frac1K \sum_{k=1}^K \bigl(L(\theta + \sigma z_k) - L(\theta)\bigr),
   \qquad z_k \sim \mathcal N(0, I) \text{ i.i.d.},

an unbiased Monte Carlo estimate of :math:`\mathbb E_z[L(\theta + \sigma z)] - L(\theta)`
(:math:`\approx \tfrac{\sigma^2}{2}\operatorname{tr} \nabla^2 L(\theta)` for small
:math:`\sigma`; exactly that for a quadratic loss). This is the sharpness of Hahn & Rofin's
public code (lacoco-lab/sensitivity-hardness, ``src/measurements.py::hessian_norm_proxy``): an
absolute noise scale :math:`\sigma` (their ``epsilon``; or :math:`\sigma = \rho/\sqrt{M}` with
:math:`M` the number of noised parameters, their ``rho``), the same noise on every parameter
except the positional embedding, the mean-squared error of the real output against the 0/1
labels on one batch, :math:`K` draws (``n_repeats``). :mod:`verify.crossval.sharpness` compares
this module with their function on the same models and the same draws.

Each draw's difference is formed before the mean, and the unperturbed loss is evaluated as one
more (zero) draw of the same batch, so :math:`\sigma = 0` gives exactly 0 (their
``-L + \sum_k L_k / K`` leaves a rounding residue there). The noise is given (a stack of draws
per parameter, so that another implementation's draws can be replayed) or drawn from an
explicit ``torch.Generator``, float64 by default. The draws are evaluated in one vectorised
call (``torch.func.vmap``) when the loss allows it and one by one otherwise: a loss with
data-dependent control flow (the transformer's zero-variance check at layer-norm
:math:`\varepsilon = 0`) cannot be vectorised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch.func import functional_call, vmap

from numeric.validation import check_bool, check_int, check_real, reject

#: Parameters of a :class:`~numeric.transformer.BooleanTransformer` left without noise by
#: default: the positional table, as the public code leaves its ``positional_encoding``.
DEFAULT_EXCLUDED = ("pos",)


@dataclass(frozen=True)
class SharpnessEstimate:
    """One sharpness estimate.

    Attributes:
        value: :math:`S_\\sigma = \\frac1K\\sum_k (L_k - L_0)`.
        base_loss: :math:`L_0 = L(\\theta)`.
        increases: the :math:`K` differences :math:`L_k - L_0` (float64 tensor).
        sigma: the noise scale used.
        n_noised: number of real parameters that received noise.
    """

    value: float
    base_loss: float
    increases: torch.Tensor
    sigma: float
    n_noised: int

    @property
    def draws(self) -> int:
        return int(self.increases.numel())

    @property
    def std_error(self) -> float:
        """Standard error of :attr:`value` over the draws (``nan`` for one draw)."""
        K = self.draws
        return float(self.increases.std(unbiased=True) / math.sqrt(K)) if K > 1 else float("nan")

    def as_dict(self) -> dict:
        return {"sharpness": self.value, "base_loss": self.base_loss, "sigma": self.sigma,
                "draws": self.draws, "std_error": self.std_error, "n_noised": self.n_noised}


def _check_params(params, name="params"):
    if not isinstance(params, dict) or not params:
        reject(name, f"<{type(params).__name__}>", "a non-empty dict of parameter name -> tensor")
    for key, t in params.items():
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            reject(f"{name}[{key!r}]", f"<{type(t).__name__}>", "a floating-point tensor")
        if not torch.isfinite(t).all():
            reject(f"{name}[{key!r}]", "<tensor with NaN or inf>", "finite parameters")
    return params


def _check_noise(noise, params):
    if not isinstance(noise, dict) or not noise:
        reject("noise", f"<{type(noise).__name__}>", "a non-empty dict of parameter name -> (K, *shape) draws")
    K = None
    for key, z in noise.items():
        if key not in params:
            reject("noise", key, f"names of parameters ({', '.join(params)})")
        if not isinstance(z, torch.Tensor) or not z.is_floating_point():
            reject(f"noise[{key!r}]", f"<{type(z).__name__}>", "a floating-point tensor of draws")
        if tuple(z.shape[1:]) != tuple(params[key].shape) or z.dim() != params[key].dim() + 1:
            reject(f"noise[{key!r}]", f"<tensor of shape {tuple(z.shape)}>",
                   f"shape (K, {', '.join(map(str, params[key].shape))}), K draws of the parameter's shape")
        if not torch.isfinite(z).all():
            reject(f"noise[{key!r}]", "<tensor with NaN or inf>", "finite draws")
        if K is None:
            K = z.shape[0]
        elif z.shape[0] != K:
            reject(f"noise[{key!r}]", f"<{z.shape[0]} draws>", f"the same number of draws as the others ({K})")
    if K < 1:
        reject("noise", "<0 draws>", "at least one draw")
    return K


def gaussian_draws(params: dict, draws: int, generator: torch.Generator, *,
                   exclude=DEFAULT_EXCLUDED, dtype=torch.float64) -> dict:
    """Standard-normal draws for every parameter of ``params`` not in ``exclude``:
    ``{name: (draws, *shape)}``, drawn from ``generator`` parameter by parameter in the order of
    ``params``, in ``dtype``."""
    _check_params(params)
    draws = check_int(draws, "draws", lo=1)
    if not isinstance(generator, torch.Generator):
        reject("generator", f"<{type(generator).__name__}>", "a torch.Generator (explicit, so draws can be replayed)")
    excluded = _check_exclude(exclude, params)
    return {name: torch.randn((draws,) + tuple(t.shape), generator=generator, dtype=dtype)
            for name, t in params.items() if name not in excluded}


def _check_exclude(exclude, params):
    if isinstance(exclude, str) or not all(isinstance(e, str) for e in exclude):
        reject("exclude", exclude, "a tuple of parameter names")
    unknown = [e for e in exclude if e not in params]
    if unknown:
        reject("exclude", unknown[0], f"names of parameters ({', '.join(params)})")
    if len(set(exclude)) == len(params):
        reject("exclude", tuple(exclude), "at least one parameter left to noise")
    return set(exclude)


def sigma_from_rho(rho: float, n_noised: int) -> float:
    r"""The public code's relative scale: :math:`\sigma = \rho / \sqrt{M}` for :math:`M` noised
    parameters (the norm of the noise vector is then about :math:`\rho` whatever :math:`M`)."""
    rho = check_real(rho, "rho", lo=0)
    n_noised = check_int(n_noised, "n_noised", lo=1)
    return rho / math.sqrt(n_noised)


def perturbation_sharpness(loss: Callable, params: dict, sigma: float, noise: dict, *,
                           vectorize: bool = True) -> SharpnessEstimate:
    r""":math:`\frac1K\sum_k (L(\theta + \sigma z_k) - L(\theta))` for a loss of named parameters.

    Args:
        loss: ``loss(params) -> scalar tensor``, called with a dict of the same names (noised
            entries replaced, the others as given).
        params: ``{name: tensor}``, :math:`\theta`.
        sigma: noise scale :math:`\sigma \ge 0` (absolute).
        noise: ``{name: (K, *shape)}`` standard-normal draws for the noised parameters (a subset
            of ``params``); float32 draws are widened to the parameter's dtype exactly.
        vectorize: evaluate the draws with ``torch.func.vmap`` (falls back to a loop when the
            loss has data-dependent control flow); ``False``: a loop.
    """
    if not callable(loss):
        reject("loss", f"<{type(loss).__name__}>", "a callable loss(params) -> scalar tensor")
    _check_params(params)
    sigma = check_real(sigma, "sigma", lo=0)
    K = _check_noise(noise, params)
    vectorize = check_bool(vectorize, "vectorize")
    noise = {k: z.to(dtype=params[k].dtype, device=params[k].device) for k, z in noise.items()}
    n_noised = sum(params[k].numel() for k in noise)

    def perturbed(z):
        return loss({**params, **{k: params[k] + sigma * z[k] for k in z}})

    # the unperturbed loss is evaluated as row 0 of the same batch (a zero draw), so that it is
    # rounded as the perturbed ones are and sigma = 0 gives every increase exactly 0
    zero = {k: torch.zeros_like(z[:1]) for k, z in noise.items()}
    with torch.no_grad():
        _scalar(loss(dict(params)), "loss(params)")
        losses = None
        if vectorize:
            try:
                losses = vmap(perturbed)({k: torch.cat([zero[k], z]) for k, z in noise.items()})
            except RuntimeError as exc:
                if "data-dependent control flow" not in str(exc):
                    raise
        if losses is None:
            losses = torch.stack([_scalar(perturbed({k: z[i] for k, z in noise.items()}), "loss")
                                  for i in range(K)])
            losses = torch.cat([_scalar(perturbed({k: z[0] for k, z in zero.items()}), "loss").reshape(1), losses])
        losses = losses.reshape(K + 1).to(torch.float64)
    base = losses[0]
    increases = losses[1:] - base
    return SharpnessEstimate(value=float(increases.mean()), base_loss=float(base), increases=increases,
                             sigma=sigma, n_noised=n_noised)


def _scalar(t, what):
    if not isinstance(t, torch.Tensor) or t.numel() != 1:
        reject(what, f"<{type(t).__name__}>", "a scalar tensor")
    return t.reshape(())


def mse_loss_of(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> Callable:
    """``loss(params)``: the mean squared error of ``model``'s real output on ``x`` against
    the labels ``y`` (the public code's ``MSELoss`` on 0/1 labels), with the parameters
    given by name (``torch.func.functional_call``)."""
    def loss(params):
        return ((functional_call(model, params, (x,)) - y) ** 2).mean()
    return loss


def model_sharpness(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, sigma: float | None = None, *,
                    rho: float | None = None, draws: int = 10, generator: torch.Generator | None = None,
                    noise: dict | None = None, exclude=DEFAULT_EXCLUDED, vectorize: bool = True) -> SharpnessEstimate:
    r"""Sharpness of the mean squared error of ``model`` (its real output, e.g. :math:`T(x)` of a
    :class:`~numeric.transformer.BooleanTransformer`) on the batch ``(x, y)``.

    Exactly one of ``sigma`` (absolute noise scale) and ``rho`` (:func:`sigma_from_rho`, over the
    noised parameters) is given; exactly one of ``generator`` (``draws`` float64 draws of every
    parameter not in ``exclude``, :func:`gaussian_draws`) and ``noise`` (explicit draws,
    :func:`perturbation_sharpness`; ``exclude`` and ``draws`` then do not apply).
    """
    if not isinstance(model, torch.nn.Module):
        reject("model", f"<{type(model).__name__}>", "a torch.nn.Module")
    if (sigma is None) == (rho is None):
        reject("sigma", sigma, "exactly one of sigma (absolute) and rho (relative) given")
    if (generator is None) == (noise is None):
        reject("noise", "<given>" if noise is not None else None,
               "exactly one of generator (fresh draws) and noise (given draws)")
    if not isinstance(y, torch.Tensor) or not y.is_floating_point():
        reject("y", f"<{type(y).__name__}>", "a floating-point tensor of labels")
    params = {name: p.detach() for name, p in model.named_parameters()}
    with torch.no_grad():
        out = model(x)
    if not isinstance(out, torch.Tensor) or out.shape != y.shape:
        reject("y", f"<tensor of shape {tuple(y.shape)}>",
               f"one label per output (the model's output on x has shape {tuple(getattr(out, 'shape', ()))})")
    if noise is None:
        noise = gaussian_draws(params, draws, generator, exclude=exclude)
    else:
        _check_noise(noise, params)
    if rho is not None:
        sigma = sigma_from_rho(rho, sum(params[k].numel() for k in noise))
    return perturbation_sharpness(mse_loss_of(model, x, y), params, sigma, noise, vectorize=vectorize)
