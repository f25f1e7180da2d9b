r"""Experiments on randomly initialised Boolean transformers (paper B, as formalised in
boolverify): summaries of many exact profiles, single-bit influence and margin recognition as N
grows, and the log-log slope of a quantity against N."""

from __future__ import annotations

import math

import torch

from numeric.transformer import evaluate_all, margin_recognition, max_influence, random_model
from numeric.validation import check_ints, reject
from verify.experiments.statistics import wilson_interval

#: P(K_0 >= 1) of a uniformly random function as N -> infinity (the Poisson limit 1 - 1/e).
RANDOM_FUNCTION_P_K0 = 1 - math.exp(-1)


def summarize_profiles(K, N: int) -> dict:
    """Plain-number summary of a ``(models, N+1)`` profile tensor."""
    import torch

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


def influence_sweep(config, Ns, models: int, *, samples: int = 2, positions: int | None = 16,
                    seed: int = 0, B: float = 1.0, device=None) -> torch.Tensor:
    r"""Max single-bit influence (:func:`max_influence`) of ``models`` uniform-box models
    (seeds ``seed + j``; one parameter vector per model, whatever :math:`N`) at each
    :math:`N` in ``Ns``.

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


def loglog_slope(Ns, values) -> float:
    r"""Least-squares slope of :math:`\log y` against :math:`\log N`; for a ``(models,
    len(Ns))`` array the mean of :math:`\log y` over models is fitted (a geometric mean,
    robust to one model with a large constant)."""
    y = torch.as_tensor(values, dtype=torch.float64)
    if (y <= 0).any():
        reject("values", "<values with entries <= 0>", "positive values (a log-log fit)")
    y = y.log()
    if y.dim() == 2:
        y = y.mean(0)
    x = torch.tensor([math.log(n) for n in Ns], dtype=torch.float64)
    if x.numel() != y.numel() or x.numel() < 2:
        reject("Ns", Ns, f">= 2 values of N, one per value (column); got {y.numel()} values")
    xc = x - x.mean()
    return float((xc * (y - y.mean())).sum() / (xc * xc).sum())


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


__all__ = ["RANDOM_FUNCTION_P_K0", "summarize_profiles", "influence_sweep", "margin_sweep",
           "loglog_slope"]
