r"""Softmax against linear and erf attention on the same instances (claim SX-5).

Training uses the closed-form population gradient (:func:`numeric.xor.population_grad`), batched
over seeds, either plain gradient descent
:math:`\theta_{t+1} = \theta_t - \eta\nabla L` or Adam (the standard update with bias correction,
:math:`\beta_1 = 0.9, \beta_2 = 0.999, \epsilon = 10^{-8}`), on both heads jointly. A seed whose loss
becomes NaN or infinite is reported with loss :math:`+\infty` (it diverged).

To be generous to the maps expected to fail, each optimiser is run on a small grid of learning
rates and the best final median loss is kept (:func:`compare`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import torch

from numeric import vocabulary, xor
from numeric.validation import check_choice, check_entry, check_int, check_real, check_seed
from numeric.vocabulary import ATTENTIONS
from numeric.xor import step_metrics
from verify.experiments.claim_rules import SX5
from verify.experiments.records import AttentionComparison
from verify.experiments.xor_sweeps import cell_support, make_instances


@dataclass(frozen=True)
class Optimizer:
    r"""One optimiser of the multi-step runs: everything :func:`train` needs to know about it.

    :func:`train` reads the optimiser from here (no code branches on its name), so an optimiser
    is added by adding its name to :data:`numeric.vocabulary.OPTIMIZERS` and one entry to
    :data:`TRAINING_OPTIMIZERS`.

    Attributes:
        name: the optimiser's name in :data:`numeric.vocabulary.OPTIMIZERS`.
        description: the update in words.
        start: ``start(theta, theta_tilde)``: the optimiser's state before the first step.
        step: ``step(state, (theta, theta_tilde), (grad, grad_tilde), t, lr)``: the parameters
            after step ``t`` (1-based); ``state`` is updated in place.
    """

    name: str
    description: str
    start: Callable[[torch.Tensor, torch.Tensor], Any]
    step: Callable


#: Adam's constants: the standard ones (beta_1, beta_2, epsilon)
ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.9, 0.999, 1e-8


def _no_state(th, tt):
    return None


def _gd_step(state, params, grads, t, lr):
    (th, tt), (g, gt) = params, grads
    return th - lr * g, tt - lr * gt


def _adam_start(th, tt):
    return {"m1": [torch.zeros_like(th), torch.zeros_like(tt)],
            "m2": [torch.zeros_like(th), torch.zeros_like(tt)]}


def _adam_step(state, params, grads, t, lr):
    b1, b2, ae = ADAM_BETA1, ADAM_BETA2, ADAM_EPS
    m1, m2 = state["m1"], state["m2"]
    new = []
    for i, (p, gr) in enumerate(zip(params, grads)):
        m1[i] = b1 * m1[i] + (1 - b1) * gr
        m2[i] = b2 * m2[i] + (1 - b2) * gr * gr
        mh = m1[i] / (1 - b1**t)
        vh = m2[i] / (1 - b2**t)
        new.append(p - lr * mh / (vh.sqrt() + ae))
    return new[0], new[1]


#: The optimisers of the multi-step runs, keyed by the names of
#: :data:`numeric.vocabulary.OPTIMIZERS`.
TRAINING_OPTIMIZERS = {
    "gd": Optimizer("gd", "gradient descent theta - lr grad", _no_state, _gd_step),
    "adam": Optimizer("adam", f"Adam with bias correction (beta_1 = {ADAM_BETA1}, beta_2 = "
                      f"{ADAM_BETA2}, epsilon = {ADAM_EPS:g})", _adam_start, _adam_step),
}


def optimizer_of(optimizer) -> Optimizer:
    """The :class:`Optimizer` named ``optimizer``; :class:`InputError` for a name outside
    :data:`numeric.vocabulary.OPTIMIZERS` or one without an entry (never another optimiser)."""
    return check_entry(optimizer, "optimizer", TRAINING_OPTIMIZERS, vocabulary.OPTIMIZERS,
                       "the optimisers the runs implement")


def train(V, theta0, theta_tilde0, support, *, attention="softmax", optimizer="gd", steps=2000,
          lr=1.0, record_every=1):
    r"""``steps`` optimiser steps on the population loss, batched over the leading dimension.

    Args:
        V ``(S, d, m)``, theta0/theta_tilde0 ``(S, m)``, support ``(a, b)``;
        attention: ``"softmax" | "linear" | "erf"``; optimizer: ``"gd" | "adam"``;
        steps >= 0; lr > 0; record_every: record the loss every this many steps.
    Returns:
        dict with ``steps`` (recorded step indices), ``loss`` ``(len(steps), S)`` (inf where a
        seed diverged), ``theta``, ``theta_tilde`` (final, NaN where diverged).
    """
    check_choice(attention, "attention", ATTENTIONS)
    opt = optimizer_of(optimizer)
    check_int(steps, "steps", lo=0)
    check_real(lr, "lr", lo=0, lo_open=True)
    check_int(record_every, "record_every", lo=1)
    th, tt = theta0.clone(), theta_tilde0.clone()
    state = opt.start(th, tt)
    rec_steps, rec_loss = [], []
    alive = torch.ones(th.shape[:-1], dtype=torch.bool, device=th.device)

    def record(t):
        with torch.no_grad():
            L = xor.population_loss(V, th, tt, support, attention=attention)
        L = torch.where(alive & torch.isfinite(L), L, torch.full_like(L, math.inf))
        rec_steps.append(t)
        rec_loss.append(L)

    record(0)
    for t in range(1, steps + 1):
        g, gt = xor.population_grad(V, th, tt, support, attention=attention)
        th, tt = opt.step(state, (th, tt), (g, gt), t, lr)
        bad = ~(torch.isfinite(th).all(-1) & torch.isfinite(tt).all(-1))
        if bad.any():
            alive = alive & ~bad
            # Park diverged seeds at a finite point so the batch keeps running; their loss is inf.
            th = torch.where(bad.unsqueeze(-1), torch.zeros_like(th), th)
            tt = torch.where(bad.unsqueeze(-1), torch.zeros_like(tt), tt)
        if t % record_every == 0 or t == steps:
            record(t)
    nan = torch.full_like(th, math.nan)
    th = torch.where(alive.unsqueeze(-1), th, nan)
    tt = torch.where(alive.unsqueeze(-1), tt, nan)
    return {"steps": rec_steps, "loss": torch.stack(rec_loss), "theta": th, "theta_tilde": tt}


def threshold_text(threshold) -> str:
    """A loss threshold as the rules and the summary keys write it: 1e-06 -> ``"1e-6"``."""
    return f"{threshold:g}".replace("e-0", "e-").replace("e+0", "e")


def below_key(threshold) -> str:
    """The summary key of the fraction of seeds whose one-step loss is below ``threshold``
    (``"frac_below_1e-6"``)."""
    return "frac_below_" + threshold_text(threshold)


#: the key of the one-step summary that SX-5's rule reads
ONE_STEP_BELOW_KEY = below_key(SX5.one_step_loss_threshold)


def _median(t):
    return float(t.median())


def train_entry(V, theta0, theta_tilde0, support, attention, optimizer, lr, steps, eps=0.01,
                record_every=10):
    """One :func:`train` run summarised as in :func:`compare` (final-loss statistics, success of
    the final parameters, median and 10/90% loss curves)."""
    res = train(V, theta0, theta_tilde0, support, attention=attention, optimizer=optimizer,
                steps=steps, lr=lr, record_every=record_every)
    final = res["loss"][-1]
    th, tt = res["theta"], res["theta_tilde"]
    ok = torch.isfinite(th).all(-1)
    th = torch.where(ok.unsqueeze(-1), th, theta0)
    tt = torch.where(ok.unsqueeze(-1), tt, theta_tilde0)
    met = step_metrics(V, th, tt, support, eps=eps, attention=attention, exact_sup=False)
    succ = met["success"] & ok
    return {
        "lr": lr, "median_final_loss": _median(final), "min_final_loss": float(final.min()),
        "frac_final_above_0.9": float((final > 0.9).double().mean()),
        "frac_final_below_1e-6": float((final < 1e-6).double().mean()),
        "frac_diverged": float((~ok).double().mean()),
        "success_rate": float(succ.double().mean()),
        "curve_steps": res["steps"],
        "curve_median": res["loss"].median(dim=1).values.tolist(),
        "curve_q10": res["loss"].quantile(0.1, dim=1).tolist(),
        "curve_q90": res["loss"].quantile(0.9, dim=1).tolist(),
    }


def compare(d=1000, m=32, n_seeds=50, *, train_seeds=None, steps=2000, gd_lrs=None,
            adam_lrs=(1e-3, 1e-2, 1e-1),
            eps=0.01, c=10.0, seed_offset=0, record_every=10, progress=None):
    r"""Side-by-side one-step and ``steps``-step results of the three attention maps on the same
    instances (the SX-4 instances of cell ``(d, m)``).

    For each map: the one step at :math:`\eta = c\,d^2\sqrt m\ln d` (loss, success rate, attention
    on the support :math:`\max(\gamma_a\tilde\gamma_b, \gamma_b\tilde\gamma_a)`-style via
    :func:`numeric.xor.step_metrics`); then GD and Adam for ``steps`` steps at every learning rate
    of their grids, keeping the grid value with the smallest final median loss. ``gd_lrs``
    defaults to :math:`\eta\cdot 10^{-k}`, ``k = 0, 2, 4, 6``. The one step uses ``n_seeds``
    seeds, the training runs the first ``train_seeds`` of them (default all).

    Returns:
        an :class:`~verify.experiments.records.AttentionComparison`: ``config`` and ``results``
        (``attention -> {"one_step": {...}, "gd": {...}, "adam": {...}}``).
    """
    check_int(n_seeds, "n_seeds", lo=1)
    check_seed(seed_offset, "seed_offset", count=n_seeds)
    check_int(d, "d", lo=2)
    check_int(m, "m", lo=1)
    train_seeds = n_seeds if train_seeds is None else check_int(train_seeds, "train_seeds", lo=1,
                                                               hi=n_seeds)
    eta = xor.default_lr(d, m, c)
    gd_lrs = tuple(gd_lrs) if gd_lrs is not None else tuple(eta * 10.0**-k for k in (0, 2, 4, 6))
    adam_lrs = tuple(adam_lrs)
    grids = {"gd": gd_lrs, "adam": adam_lrs}
    for name in grids:          # each grid names an optimiser with an entry
        optimizer_of(name)
    support = cell_support(d, 1, m)
    V, th0, tt0 = make_instances(d, m, list(range(seed_offset, seed_offset + n_seeds)))
    runs = [(att, opt, lr) for att in ATTENTIONS for opt, lrs in grids.items() for lr in lrs]
    total, done = len(runs) + len(ATTENTIONS), 0
    config = {"d": d, "m": m, "n_seeds": n_seeds, "train_seeds": train_seeds, "steps": steps,
              "eta": eta, "eps": eps, "support": list(support), "gd_lrs": list(gd_lrs),
              "adam_lrs": list(adam_lrs)}
    out = {}
    for att in ATTENTIONS:
        th1, tt1 = xor.one_step(V, th0, tt0, support, eta, attention=att)
        met = step_metrics(V, th1, tt1, support, eps=eps, attention=att, exact_sup=False)
        L = met["loss"]
        L = torch.where(torch.isfinite(L), L, torch.full_like(L, math.inf))
        on_support = torch.minimum(1 - met["eps1"], 1 - met["eps2"])
        out[att] = {"one_step": {
            "loss": L.tolist(), "median_loss": _median(L),
            ONE_STEP_BELOW_KEY: float((L < SX5.one_step_loss_threshold).double().mean()),
            "success_rate": float(met["success"].double().mean()),
            "median_attention_on_support": _median(on_support),
        }}
        done += 1
        if progress is not None:
            progress(done, total, f"{att}: one step")
    V, th0, tt0 = V[:train_seeds], th0[:train_seeds], tt0[:train_seeds]
    for att, opt, lr in runs:
        entry = train_entry(V, th0, tt0, support, att, opt, lr, steps, eps, record_every)
        best = out[att].get(opt)
        if best is None or entry["median_final_loss"] < best["median_final_loss"] \
                or not math.isfinite(best["median_final_loss"]):
            out[att][opt] = entry
        done += 1
        if progress is not None:
            progress(done, total, f"{att}: {opt} lr={lr:.3g}")
    return AttentionComparison(config=config, results=out)


def representational_bounds(d, m, seed=0):
    """Lower bounds on the best population loss over all parameters, on the instance of seed
    ``seed`` of cell ``(d, m)``: ``{"linear_bound": ..., "erf_bound": ...}`` (see
    :mod:`verify.reference.linear_bound`)."""
    from verify.reference.linear_bound import erf_attention_loss_bound, linear_attention_loss_bound

    seed = check_seed(seed, "seed")
    V, _, _ = make_instances(d, m, [seed])
    return {"linear_bound": linear_attention_loss_bound(V[0].numpy(), cell_support(d, 1, m)),
            "erf_bound": erf_attention_loss_bound(d)}

__all__ = ["Optimizer", "TRAINING_OPTIMIZERS", "ADAM_BETA1", "ADAM_BETA2", "ADAM_EPS", "optimizer_of", "threshold_text", "below_key", "ONE_STEP_BELOW_KEY", "train", "train_entry", "compare", "representational_bounds"]
