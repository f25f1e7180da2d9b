r"""Experiments on randomly initialised Boolean transformers (paper B, as formalised in
boolverify): summaries of many exact profiles, sampling until enough non-constant models are
found, single-bit influence and margin recognition as N grows, per-model log-log slopes, and
the Student-t interval of a mean that the claim tests decide on (exact binomial bounds are
:func:`verify.experiments.inference.clopper_pearson`)."""

from __future__ import annotations

import math

import torch

from numeric.transformer import (
    BooleanTransformer, evaluate_all, initialize_, margin_recognition, max_influence, model_profile,
    random_model,
)
from numeric.validation import check_int, check_ints, reject
from verify.experiments.statistics import wilson_interval

#: P(K_0 >= 1) of a uniformly random function as N -> infinity (the Poisson limit 1 - 1/e).
RANDOM_FUNCTION_P_K0 = 1 - math.exp(-1)


# -- exact profiles (SG-6) -------------------------------------------------------------
def summarize_profiles(K, N: int) -> dict:
    """Plain-number summary of a ``(models, N+1)`` profile tensor."""
    models = K.shape[0]
    frac = K.double() / 2**N
    has0 = int((K[:, 0] >= 1).sum())
    k = torch.arange(N + 1, dtype=torch.float64)
    return {
        "models": models,
        "frac_K0_ge_1": has0 / models,
        "frac_K0_ge_1_ci95": list(wilson_interval(has0, models)),
        "mean_K0_frac": float(frac[:, 0].mean()),
        "frac_constant": float((K[:, 0] == 2**N).double().mean()),
        "mean_avg_sensitivity": float((frac * k).sum(1).mean()),
        "mean_profile_frac": [float(v) for v in frac.mean(0)],
        "random_function_P_K0_ge_1": RANDOM_FUNCTION_P_K0,
        "random_function_mean_K0_frac": 2.0**-N,
    }


def sample_nonconstant_profiles(config, scheme: str, N: int, target: int, max_draws: int, *,
                                seed: int = 0, chunk: int | None = None, **init_kw) -> dict:
    r"""Draw random models (seeds ``seed, seed + 1, ...``) until ``target`` of them compute a
    non-constant function on :math:`\{0,1\}^N` or ``max_draws`` models were drawn.

    Every draw is classified exactly (all :math:`2^N` strings). ``init_kw`` (``B``,
    ``sigma``) go to :func:`~numeric.transformer.initialize_`.

    Returns:
        dict with ``draws``, ``constant`` (how many computed a constant function),
        ``profiles`` (int64 ``(k, N+1)``, the non-constant models' profiles in draw order) and
        ``seeds`` (their seeds).
    """
    target = check_int(target, "target", lo=1)
    max_draws = check_int(max_draws, "max_draws", lo=1)
    model = BooleanTransformer(config)
    profiles, seeds, draws = [], [], 0
    while len(profiles) < target and draws < max_draws:
        s = seed + draws
        initialize_(model, scheme, generator=torch.Generator().manual_seed(s), **init_kw)
        K = model_profile(model, N, chunk=chunk)
        draws += 1
        if int(K[0]) != 1 << N:
            profiles.append(K)
            seeds.append(s)
    stacked = torch.stack(profiles) if profiles else torch.zeros(0, N + 1, dtype=torch.int64)
    return {"draws": draws, "constant": draws - len(profiles), "profiles": stacked, "seeds": seeds}


def profile_statistics(K, N: int) -> dict:
    r"""Per-model statistics of a ``(models, N+1)`` profile tensor: ``has_K0`` (bool,
    :math:`K_0 \ge 1`), ``K0_frac`` (:math:`K_0/2^N`), ``avg_sensitivity``
    (:math:`\sum_k k K_k / 2^N`), as float64 / bool tensors."""
    frac = K.double() / 2**N
    k = torch.arange(N + 1, dtype=torch.float64)
    return {"has_K0": K[:, 0] >= 1, "K0_frac": frac[:, 0], "avg_sensitivity": (frac * k).sum(1)}


# -- single-bit influence (SG-4) -------------------------------------------------------
@torch.no_grad()
def sampled_influences(model, N: int, strings: int, positions: int, generator) -> torch.Tensor:
    r""":math:`|T(x) - T(x \oplus e_n)|` for ``strings`` uniformly random strings :math:`x` and,
    per string, ``positions`` distinct uniformly random positions :math:`n` (``positions <=
    N``), in two batched forward passes. Returns float64 ``(strings, positions)``."""
    N = check_int(N, "N", lo=1, hi=model.config.N_max)
    strings = check_int(strings, "strings", lo=1)
    positions = check_int(positions, "positions", lo=1, hi=N)
    x = torch.randint(0, 2, (strings, N), generator=generator)
    pos = torch.stack([torch.randperm(N, generator=generator)[:positions] for _ in range(strings)])
    flipped = x.unsqueeze(1).repeat(1, positions, 1)
    idx = pos.unsqueeze(-1)
    flipped.scatter_(2, idx, 1 - flipped.gather(2, idx))
    dev = model.tok.device
    T0 = model(x.to(dev))
    T1 = model(flipped.to(dev))
    return (T1 - T0.unsqueeze(1)).abs().cpu()


def influence_sweep(config, Ns, models: int, *, samples: int = 2, positions: int | None = 16,
                    seed: int = 0, B: float = 1.0, device=None) -> torch.Tensor:
    r"""Max single-bit influence (:func:`max_influence`) of ``models`` uniform-box models
    (seeds ``seed + j``; one parameter vector per model, whatever :math:`N`) at each
    :math:`N` in ``Ns`` (the estimator of the documented full run, ``docs/data/``).

    Args:
        config: :class:`~numeric.transformer.TransformerConfig` with ``N_max >= max(Ns)``.

    Returns:
        float64 tensor ``(models, len(Ns))``.
    """
    Ns = check_ints(Ns, "Ns", lo=1, hi=config.N_max)
    vals = torch.zeros(models, len(Ns), dtype=torch.float64)
    for j in range(models):
        model = random_model(config, "uniform", seed + j, B=B, device=device)
        for i, N in enumerate(Ns):
            gen = torch.Generator().manual_seed(seed + 7919 * j + N)
            vals[j, i] = max_influence(model, N, samples=samples, positions=positions, generator=gen)
    return vals


def influence_maxima(config, Ns, models: int, *, strings: int, positions: int, seed: int = 0,
                     B: float = 1.0, device=None) -> torch.Tensor:
    r"""The largest :math:`|T(x) - T(x \oplus e_n)|` over ``strings`` random strings times
    ``positions`` distinct random positions per string (:func:`sampled_influences`), for
    ``models`` uniform-box models (seeds ``seed + j``; one parameter vector per model, used at
    every :math:`N` in ``Ns``; the pairs of model ``j`` at ``N`` from seed
    ``seed + 7919 j + N``).

    ``positions <= min(Ns)``: every :math:`N` gets the same number of random pairs, so the
    maximum estimates the same upper quantile of the influence distribution at every :math:`N`.

    Returns:
        float64 tensor ``(models, len(Ns))``.
    """
    Ns = check_ints(Ns, "Ns", lo=1, hi=config.N_max)
    models = check_int(models, "models", lo=1)
    positions = check_int(positions, "positions", lo=1, hi=min(Ns))
    vals = torch.zeros(models, len(Ns), dtype=torch.float64)
    model = BooleanTransformer(config)
    if device is not None:
        model = model.to(device)
    for j in range(models):
        initialize_(model, "uniform", generator=torch.Generator().manual_seed(seed + j), B=B)
        for i, N in enumerate(Ns):
            gen = torch.Generator().manual_seed(seed + 7919 * j + N)
            vals[j, i] = float(sampled_influences(model, N, strings, positions, gen).max())
    return vals


def loglog_slope(Ns, values) -> float:
    r"""Least-squares slope of :math:`\log y` against :math:`\log N`; for a ``(models,
    len(Ns))`` array the mean of :math:`\log y` over models is fitted (a geometric mean,
    robust to one model with a large constant)."""
    y = _log_values(Ns, values)
    if y.dim() == 2:
        y = y.mean(0)
    return float(_slopes(Ns, y.unsqueeze(0))[0])


def per_model_slopes(Ns, values) -> torch.Tensor:
    r"""Least-squares slope of :math:`\log y` against :math:`\log N` for each row of a
    ``(models, len(Ns))`` array of positive values; float64 ``(models,)``."""
    y = _log_values(Ns, values)
    if y.dim() != 2:
        reject("values", f"<{y.dim()}-d array>", "a (models, len(Ns)) array")
    return _slopes(Ns, y)


def _log_values(Ns, values):
    y = torch.as_tensor(values, dtype=torch.float64)
    if (y <= 0).any():
        reject("values", "<values with entries <= 0>", "positive values (a log-log fit)")
    if y.shape[-1] != len(Ns) or len(Ns) < 2:
        reject("Ns", Ns, f">= 2 values of N, one per value (column); got {y.shape[-1]} values")
    return y.log()


def _slopes(Ns, logy):
    x = torch.tensor([math.log(n) for n in Ns], dtype=torch.float64)
    xc = x - x.mean()
    return (logy - logy.mean(-1, keepdim=True)) @ xc / (xc * xc).sum()


# -- margin recognition (SG-5) ---------------------------------------------------------
def margin_table(config, Ns, models: int, xi: float, *, seed: int = 0, B: float = 1.0,
                 device=None) -> torch.Tensor:
    r"""Whether each of ``models`` uniform-box models (seeds ``seed + j``; the same parameter
    vector at every :math:`N`) recognises a non-constant function with margin :math:`\xi` at
    each :math:`N` in ``Ns`` (:func:`margin_recognition` over all :math:`2^N` strings).

    Returns:
        bool tensor ``(models, len(Ns))``.
    """
    Ns = check_ints(Ns, "Ns", lo=1, hi=config.N_max)
    models = check_int(models, "models", lo=1)
    out = torch.zeros(models, len(Ns), dtype=torch.bool)
    model = BooleanTransformer(config)
    if device is not None:
        model = model.to(device)
    for j in range(models):
        initialize_(model, "uniform", generator=torch.Generator().manual_seed(seed + j), B=B)
        for i, N in enumerate(Ns):
            out[j, i] = margin_recognition(evaluate_all(model, N), xi)["nonconstant"]
    return out


def margin_sweep(config, Ns, models: int, xis, *, seed: int = 0, B: float = 1.0, device=None) -> dict:
    r"""For each :math:`\xi` in ``xis`` and :math:`N` in ``Ns``: how many of ``models``
    uniform-box models (seeds ``seed + j``) recognise a non-constant function with margin
    :math:`\xi` (:func:`margin_recognition`), and how many recognise any function.

    Returns:
        ``{str(xi): {"nonconstant": [count per N], "recognises": [count per N]}}``.
    """
    res = {str(xi): {"nonconstant": [], "recognises": []} for xi in xis}
    for N in Ns:
        cnt = {xi: [0, 0] for xi in xis}
        for j in range(models):
            T = evaluate_all(random_model(config, "uniform", seed + j, B=B, device=device), N)
            for xi in xis:
                r = margin_recognition(T, xi)
                cnt[xi][0] += r["nonconstant"]
                cnt[xi][1] += r["recognises"]
        for xi in xis:
            res[str(xi)]["nonconstant"].append(cnt[xi][0])
            res[str(xi)]["recognises"].append(cnt[xi][1])
    return res


__all__ = ["RANDOM_FUNCTION_P_K0", "summarize_profiles",
           "sample_nonconstant_profiles", "profile_statistics", "sampled_influences",
           "influence_sweep", "influence_maxima", "margin_table", "margin_sweep", "loglog_slope", "per_model_slopes"]
