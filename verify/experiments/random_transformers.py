r"""Experiments on randomly initialised Boolean transformers (paper B, as formalised in
boolverify): summaries of many exact profiles, sampling until enough non-constant models are
found, comparison with random functions of the same density, recognition of the functions with
:math:`K_0 = 0`, single-bit influence and margin recognition as N grows, per-model log-log
slopes (the intervals the claim tests decide on, exact binomial and order-statistic median
bounds, are in :mod:`verify.stats.intervals`)."""

from __future__ import annotations

import math

import torch

from numeric.transformer import (
    BooleanTransformer, boolean_table, evaluate_all, initialize_, margin_recognition, random_model,
)
from numeric.transformer import fast_evaluator, strings, table_profile
from numeric.validation import check_int, check_ints, check_real, check_seed, reject
from verify.experiments.transformer_records import (
    DensityRatios, ExactInfluenceMaxima, MarginCounts, ModelsSummary, NonconstantDraws, OptimisedMargin,
    ProfileStatistics, ProfileSummary, SampledModels, ZeroSensitivityDraw, ZeroSensitivityModel,
)
from verify.stats.intervals import clopper_pearson, wilson_interval

#: P(K_0 >= 1) of a uniformly random function as N -> infinity (the Poisson limit 1 - 1/e).
RANDOM_FUNCTION_P_K0 = 1 - math.exp(-1)


# -- exact profiles (SG-6) -------------------------------------------------------------
def summarize_profiles(K, N: int) -> ProfileSummary:
    """Plain-number summary of a ``(models, N+1)`` profile tensor."""
    models = K.shape[0]
    frac = K.double() / 2**N
    has0 = int((K[:, 0] >= 1).sum())
    k = torch.arange(N + 1, dtype=torch.float64)
    return ProfileSummary(
        models=models,
        frac_K0_ge_1=has0 / models,
        frac_K0_ge_1_ci95=tuple(wilson_interval(has0, models)),
        mean_K0_frac=float(frac[:, 0].mean()),
        frac_constant=float((K[:, 0] == 2**N).double().mean()),
        frac_constant_ci95=tuple(wilson_interval(int((K[:, 0] == 2**N).sum()), models)),
        mean_avg_sensitivity=float((frac * k).sum(1).mean()),
        mean_profile_frac=[float(v) for v in frac.mean(0)],
        random_function_P_K0_ge_1=RANDOM_FUNCTION_P_K0,
        random_function_mean_K0_frac=2.0**-N,
    )


def readout_profile(model, N: int, *, chunk: int | None = None):
    r"""``(table, profile)`` of the Boolean function the model computes on :math:`\{0,1\}^N`
    under its config's readout: :func:`~numeric.transformer.boolean_table` and its profile
    (:func:`~numeric.transformer.model_profile`) from one evaluation of all strings."""
    table = boolean_table(model, N, chunk=chunk).cpu()
    return table, table_profile(table)


def _parity_name(S: int, N: int, sign: int) -> str:
    bits = [i for i in range(N) if S >> i & 1]
    if not bits:
        name = "constant 0"
        return name if sign > 0 else "constant 1"
    name = f"DICTATOR x_{bits[0]}" if len(bits) == 1 else "PARITY " + "+".join(f"x_{i}" for i in bits)
    return name if sign > 0 else "NOT " + name


def nearest_parity(table, N: int) -> tuple[str, float]:
    r"""The (negated) parity of a set of bits (a DICTATOR for one bit, a constant for none)
    that agrees with the 0/1 ``table`` on the most strings, and that fraction of strings:
    :math:`(1 + |W(S)|/2^N)/2` for the largest Walsh coefficient :math:`|W(S)|`."""
    from numeric.boolean import walsh_hadamard

    W = walsh_hadamard(torch.as_tensor(table).to(torch.int64))
    S = int(W.abs().argmax())
    return _parity_name(S, N, int(W[S])), (1 + abs(int(W[S])) / 2**N) / 2


def identify_function(table, N: int) -> str | None:
    r"""The name of a 0/1 ``table`` of length :math:`2^N` if it is a (negated) parity of a
    set of bits, the functions whose every string is sensitive to the bits of the set:
    ``"DICTATOR x_i"``, ``"NOT DICTATOR x_i"``, ``"PARITY x_i+x_j+..."``, ``"NOT PARITY ..."``
    (bit :math:`i` of string index :math:`\sum_i b_i 2^i`), or ``"constant 0"``/``"constant 1"``;
    else ``None`` (:func:`nearest_parity` then says which it is closest to). A function is
    :math:`\pm` a parity iff one Walsh coefficient is :math:`\pm 2^N`."""
    name, agreement = nearest_parity(table, N)
    return name if agreement == 1.0 else None


def random_function_K0(p, N: int):
    r""":math:`E[K_0] = 2^N (p^{N+1} + (1-p)^{N+1})` of a random function whose values are i.i.d.
    Bernoulli(:math:`p`) (a string has sensitivity 0 iff it and its :math:`N` neighbours
    agree). ``p`` a float or a float64 tensor."""
    N = check_int(N, "N", lo=1)
    return 2.0**N * (p ** (N + 1) + (1 - p) ** (N + 1))


def random_function_avg_sensitivity(p, N: int):
    r""":math:`E[\mathrm{as}] = 2Np(1-p)` of a random function with i.i.d. Bernoulli(:math:`p`)
    values (each of the :math:`N` edges at a string disagrees with probability :math:`2p(1-p)`)."""
    N = check_int(N, "N", lo=1)
    return 2.0 * N * p * (1 - p)


def sample_nonconstant_profiles(config, scheme: str, N: int, target: int, max_draws: int, *,
                                seed: int = 0, chunk: int | None = None, **init_kw) -> NonconstantDraws:
    r"""Draw random models (seeds ``seed, seed + 1, ...``) until ``target`` of them compute a
    non-constant function on :math:`\{0,1\}^N` or ``max_draws`` models were drawn.

    Every draw is classified exactly (all :math:`2^N` strings, the config's readout).
    ``init_kw`` (``B``, ``sigma``) go to :func:`~numeric.transformer.initialize_`.

    Returns:
        :class:`~verify.experiments.transformer_records.NonconstantDraws` (profiles in draw
        order; ``zero_K0`` the non-constant models with :math:`K_0 = 0`, the function named by
        :func:`identify_function` or ``None``, and :func:`nearest_parity`).
    """
    target = check_int(target, "target", lo=1)
    max_draws = check_int(max_draws, "max_draws", lo=1)
    seed = check_seed(seed, "seed", count=max_draws)
    model = BooleanTransformer(config)
    profiles, seeds, ones, zero_K0, draws = [], [], [], [], 0
    while len(profiles) < target and draws < max_draws:
        s = seed + draws
        initialize_(model, scheme, generator=torch.Generator().manual_seed(s), **init_kw)
        table, K = readout_profile(model, N, chunk=chunk)
        draws += 1
        if int(K[0]) != 1 << N:
            profiles.append(K)
            seeds.append(s)
            ones.append(int(table.sum()))
            if int(K[0]) == 0:
                nearest, agreement = nearest_parity(table, N)
                zero_K0.append(ZeroSensitivityDraw(seed=s, function=identify_function(table, N),
                                                   nearest=nearest, agreement=agreement))
    stacked = torch.stack(profiles) if profiles else torch.zeros(0, N + 1, dtype=torch.int64)
    return NonconstantDraws(draws=draws, constant=draws - len(profiles), profiles=stacked, seeds=seeds,
                            ones=torch.tensor(ones, dtype=torch.int64), zero_K0=zero_K0)


def density_matched_ratios(K, ones, N: int) -> DensityRatios:
    r"""Per non-constant model, its profile against a random function of the same density
    :math:`p = \text{ones}/2^N`: ``K0_ratio`` :math:`= K_0 / E_p[K_0]` (:func:`random_function_K0`)
    and ``as_ratio`` :math:`= \mathrm{as}(f) / (2Np(1-p))`; float64 tensors. A ratio above 1 means
    more zero-sensitivity strings (resp. more sensitivity) than such a random function has."""
    if K.shape[0] == 0:
        empty = torch.zeros(0, dtype=torch.float64)
        return DensityRatios(p=empty, K0_ratio=empty, as_ratio=empty)
    p = torch.as_tensor(ones, dtype=torch.float64) / 2**N
    if bool(((p <= 0) | (p >= 1)).any()):
        reject("ones", "<a constant function>", "non-constant functions only (0 < ones < 2^N)")
    stats = profile_statistics(K, N)
    return DensityRatios(p=p, K0_ratio=K[:, 0].double() / random_function_K0(p, N),
                         as_ratio=stats.avg_sensitivity / random_function_avg_sensitivity(p, N))


#: models per task when the models are spread over a Dask cluster
MODELS_PER_TASK = 10


def sample_models(config, scheme: str, N: int, models: int, *, seed: int = 0, chunk: int | None = None,
                  device=None, progress=None, workers=None, scheduler=None, **init_kw) -> SampledModels:
    r"""Exact tables of ``models`` random transformers (seeds ``seed, seed + 1, ...``), read by
    the config's readout, on ``device``.

    ``workers`` (an embedded Dask cluster of that many processes) or ``scheduler`` (the address
    of a running one) spread the models over processes in blocks of :data:`MODELS_PER_TASK`
    (:func:`verify.experiments.distributed.run_tasks`); model ``i`` depends on ``seed + i``
    only, so the result is the same as in this process. ``progress(i)`` is called once per
    model done (in the order they come back).

    Returns:
        :class:`~verify.experiments.transformer_records.SampledModels`: ``profiles`` (int64
        ``(models, N+1)``), ``ones`` (int64 ``(models,)``) and ``functions`` (per model: the name (:func:`identify_function`) of a constant model or
        of one with :math:`K_0 = 0`, the latter else ``"not recognised (nearest ...)"``
        (:func:`nearest_parity`); ``None`` for the other models).
    """
    from verify.experiments import distributed

    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed", count=models)
    workers, scheduler = distributed.check_backend(workers, scheduler)
    if workers is None and scheduler is None:
        return _sample_block(config, scheme, N, seed, models, chunk, device, init_kw, progress)
    starts = list(range(0, models, MODELS_PER_TASK))
    tasks = []
    for start in starts:
        count = min(MODELS_PER_TASK, models - start)
        key = {"config": repr(config), "scheme": scheme, "N": N, "seed": seed + start, "count": count,
               "device": str(device), "init": sorted((k, repr(v)) for k, v in init_kw.items())}
        tasks.append((key, (config, scheme, N, seed + start, count, chunk, device, init_kw, None)))
    parts = [None] * len(tasks)
    for i, part in distributed.run_tasks(_sample_block, tasks, workers=workers, scheduler=scheduler,
                                         label="models"):
        parts[i] = part
        if progress is not None:
            for j in range(part.ones.shape[0]):
                progress(starts[i] + j)
    return join_model_blocks(parts)


def join_model_blocks(parts) -> SampledModels:
    """The results of consecutive blocks of models (:func:`sample_models`) as one."""
    return SampledModels(profiles=torch.cat([p.profiles for p in parts]),
                         ones=torch.cat([p.ones for p in parts]),
                         functions=[f for p in parts for f in p.functions])


def _sample_block(config, scheme, N, seed, models, chunk, device, init_kw, progress):
    """Models ``seed .. seed + models - 1`` (:func:`sample_models` in one process)."""
    model = BooleanTransformer(config)
    if device is not None:
        model = model.to(device)
    K = torch.empty(models, N + 1, dtype=torch.int64)
    ones = torch.empty(models, dtype=torch.int64)
    functions = []
    for i in range(models):
        initialize_(model, scheme, generator=torch.Generator().manual_seed(seed + i), **init_kw)
        table, K[i] = readout_profile(model, N, chunk=chunk)
        ones[i] = int(table.sum())
        if int(K[i, 0]) == 0:
            name, agreement = nearest_parity(table, N)
            functions.append(name if agreement == 1.0 else f"not recognised (nearest {name}, agrees on "
                                                           f"{100 * agreement:.1f} % of the strings)")
        else:
            functions.append(identify_function(table, N) if int(K[i, 0]) == 1 << N else None)
        if progress is not None:
            progress(i)
    return SampledModels(profiles=K, ones=ones, functions=functions)


def summarize_models(K, ones, N: int, *, seed: int = 0, functions=None, level: float = 0.95) -> ModelsSummary:
    r"""Plain-number summary of :func:`sample_models`: the constant fraction with its
    Clopper-Pearson interval, kept apart from the non-constant models' :math:`K_0`, average
    sensitivity and density-matched ratios (:func:`density_matched_ratios`), and the models
    with :math:`K_0 = 0` (seed ``seed + i`` and the function, if recognised)."""
    models = K.shape[0]
    constant = K[:, 0] == 2**N
    n_const = int(constant.sum())
    keep = ~constant
    zero = (K[:, 0] == 0).nonzero().flatten().tolist()
    return ModelsSummary(
        models=models, constant=n_const, frac_constant=n_const / models,
        frac_constant_ci=tuple(clopper_pearson(n_const, models, level)), level=level,
        nonconstant=int(keep.sum()),
        **nonconstant_statistics(K[keep], torch.as_tensor(ones)[keep], N),
        zero_K0=[ZeroSensitivityModel(seed=seed + i, function=None if functions is None else functions[i])
                 for i in zero],
        mean_avg_sensitivity_all=float(profile_statistics(K, N).avg_sensitivity.mean()),
    )


def nonconstant_statistics(Kn, ones, N: int) -> dict:
    """The ``nonconstant_*`` fields of :class:`ModelsSummary` for the non-constant models'
    profiles ``Kn`` and numbers of ones (none when there are no such models)."""
    if not Kn.shape[0]:
        return {}
    st = profile_statistics(Kn, N)
    r = density_matched_ratios(Kn, ones, N)
    return {
        "nonconstant_K0": [int(v) for v in Kn[:, 0]],
        "nonconstant_mean_K0_frac": float(st.K0_frac.mean()),
        "nonconstant_frac_K0_ge_1": float(st.has_K0.double().mean()),
        "nonconstant_mean_avg_sensitivity": float(st.avg_sensitivity.mean()),
        "nonconstant_median_K0_ratio": float(r.K0_ratio.median()),
        "nonconstant_median_as_ratio": float(r.as_ratio.median()),
        "nonconstant_mean_profile_frac": [float(v) for v in (Kn.double() / 2**N).mean(0)],
    }


def profile_statistics(K, N: int) -> ProfileStatistics:
    r"""Per-model statistics of a ``(models, N+1)`` profile tensor: ``has_K0`` (bool,
    :math:`K_0 \ge 1`), ``K0_frac`` (:math:`K_0/2^N`), ``avg_sensitivity``
    (:math:`\sum_k k K_k / 2^N`), as float64 / bool tensors."""
    frac = K.double() / 2**N
    k = torch.arange(N + 1, dtype=torch.float64)
    return ProfileStatistics(has_K0=K[:, 0] >= 1, K0_frac=frac[:, 0], avg_sensitivity=(frac * k).sum(1))


# -- single-bit influence (SG-4) -------------------------------------------------------
def influence_pairs(N: int, strings: int, positions: int, generator):
    r"""The pairs :math:`(x, n)` of :func:`sampled_influences`: ``strings`` uniformly random
    strings ``(strings, N)`` of 0/1 and, per string, ``positions`` distinct uniformly random
    positions ``(strings, positions)`` (``positions <= N``)."""
    N = check_int(N, "N", lo=1)
    strings = check_int(strings, "strings", lo=1)
    positions = check_int(positions, "positions", lo=1, hi=N)
    x = torch.randint(0, 2, (strings, N), generator=generator)
    pos = torch.stack([torch.randperm(N, generator=generator)[:positions] for _ in range(strings)])
    return x, pos


@torch.no_grad()
def sampled_influences(model, N: int, strings: int, positions: int, generator) -> torch.Tensor:
    r""":math:`|T(x) - T(x \oplus e_n)|` for ``strings`` uniformly random strings :math:`x` and,
    per string, ``positions`` distinct uniformly random positions :math:`n` (``positions <=
    N``), in two batched forward passes. Returns float64 ``(strings, positions)``."""
    N = check_int(N, "N", lo=1, hi=model.config.N_max)
    x, pos = influence_pairs(N, strings, positions, generator)
    flipped = x.unsqueeze(1).repeat(1, positions, 1)
    idx = pos.unsqueeze(-1)
    flipped.scatter_(2, idx, 1 - flipped.gather(2, idx))
    dev = model.tok.device
    flipped = flipped.reshape(-1, N)
    T0, T1 = (_outputs(model, N, s.to(dev)) for s in (x, flipped))
    return (T1.reshape(strings, positions) - T0.unsqueeze(1)).abs().cpu()


def _outputs(model, N, x):
    """``T(x)`` of the strings ``x``: the table-driven pass where it applies to ``model`` (about
    three times faster at N = 256: no (N+1)^2 score tensors allocated per call), else, or where
    it declines the strings, the model's own forward pass."""
    fast = fast_evaluator(model, N, x.shape[0]) if isinstance(model, BooleanTransformer) else None
    T = fast.run_bits(x) if fast is not None else None
    return model(x) if T is None else T


def _uniform_box_models(config, models, seed, B, device):
    """``(j, model)`` for ``j < models``: one model re-initialised in place from the uniform box
    with seed ``seed + j`` (each parameter vector is then used at every N)."""
    model = BooleanTransformer(config)
    if device is not None:
        model = model.to(device)
    for j in range(models):
        initialize_(model, "uniform", generator=torch.Generator().manual_seed(seed + j), B=B)
        yield j, model


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
    seed = check_seed(seed, "seed", count=7919 * models + max(Ns))
    vals = torch.zeros(models, len(Ns), dtype=torch.float64)
    for j, model in _uniform_box_models(config, models, seed, B, device):
        for i, N in enumerate(Ns):
            gen = torch.Generator().manual_seed(seed + 7919 * j + N)
            vals[j, i] = float(sampled_influences(model, N, strings, positions, gen).max())
    return vals


@torch.no_grad()
def influence_positions(N: int) -> range:
    """The positions a single-bit influence flips at length ``N``: every one, ``0 .. N-1``."""
    return range(N)


def exact_influence_maximum(model, N: int, *, chunk: int = 8192) -> tuple[float, float]:
    r"""Over all :math:`2^N` strings: the largest :math:`|T(x) - T(x \oplus e_n)|` over every
    string :math:`x` and position :math:`n`, and the largest Boolean influence
    :math:`\max_n P_x[\hat f(x) \ne \hat f(x \oplus e_n)]` of the model's Boolean function
    :math:`\hat f` (its readout of all strings, e.g. :math:`1[T > 0]`)
    (one batched pass over all strings; position :math:`n` is bit :math:`n` of the index)."""
    N = check_int(N, "N", lo=1, hi=min(model.config.N_max, 20))
    chunk = check_int(chunk, "chunk", lo=1)
    dev = model.tok.device
    idx = torch.arange(2**N)
    with torch.no_grad():       # values only: no autograd graph over the 2^N forward passes
        T = torch.cat([model(strings(idx[i:i + chunk], N).to(dev)).reshape(-1).cpu()
                       for i in range(0, 2**N, chunk)]).to(torch.float64)
    f = model.readout(T)
    sup, boolean = 0.0, 0.0
    for n in influence_positions(N):
        other = idx ^ (1 << n)
        sup = max(sup, float((T[other] - T).abs().max()))
        boolean = max(boolean, float((f[other] != f).double().mean()))
    return sup, boolean


def exact_influence_maxima(config, Ns, models: int, *, seed: int = 0, B: float = 1.0,
                           device=None) -> ExactInfluenceMaxima:
    r""":func:`exact_influence_maximum` of ``models`` uniform-box models (seeds ``seed + j``, the
    models of :func:`influence_maxima` with the same ``seed``; one parameter vector per model,
    used at every :math:`N` in ``Ns``).

    Returns:
        :class:`~verify.experiments.transformer_records.ExactInfluenceMaxima` (``sup``,
        ``boolean``: float64 ``(models, len(Ns))``).
    """
    Ns = check_ints(Ns, "Ns", lo=1, hi=min(config.N_max, 20))
    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed", count=models)
    sup = torch.zeros(models, len(Ns), dtype=torch.float64)
    boolean = torch.zeros_like(sup)
    for j, model in _uniform_box_models(config, models, seed, B, device):
        for i, N in enumerate(Ns):
            sup[j, i], boolean[j, i] = exact_influence_maximum(model, N)
    return ExactInfluenceMaxima(sup=sup, boolean=boolean)


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
    seed = check_seed(seed, "seed", count=models)
    out = torch.zeros(models, len(Ns), dtype=torch.bool)
    for j, model in _uniform_box_models(config, models, seed, B, device):
        for i, N in enumerate(Ns):
            out[j, i] = margin_recognition(evaluate_all(model, N), xi)["nonconstant"]
    return out


def optimised_margin(config, N: int, *, steps: int, lr: float = 0.02, seed: int = 0, B: float = 1.0,
                     temperature: float = 0.01) -> OptimisedMargin:
    r"""The best margin on FIRST found by optimising inside the box: starting from a uniform-box
    model (seed ``seed``), ``steps`` Adam steps on the soft minimum
    :math:`-\tau \log \sum_x e^{-m(x)/\tau}` of the margins :math:`m(x) = (2 x_0 - 1) T(x)` over
    all :math:`2^N` strings, every parameter clipped back to :math:`[-B, B]` after each step (the
    claim's box). FIRST is non-constant, so a margin :math:`\xi` on it needs one bit flip to
    move :math:`T` by :math:`2\xi`.

    Returns:
        :class:`~verify.experiments.transformer_records.OptimisedMargin` (``margin``: the largest
        exact minimum margin over the iterates, ``initial``: the initial one).
    """
    N = check_int(N, "N", lo=1, hi=min(config.N_max, 16))
    steps = check_int(steps, "steps", lo=1)
    lr = check_real(lr, "lr", lo=0, lo_open=True)
    tau = check_real(temperature, "temperature", lo=0, lo_open=True)
    B = check_real(B, "B", lo=0, lo_open=True)
    seed = check_seed(seed, "seed")
    model = BooleanTransformer(config)
    initialize_(model, "uniform", generator=torch.Generator().manual_seed(seed), B=B)
    x = strings(torch.arange(2**N), N)
    y = (2 * x[:, 0] - 1).to(torch.float64)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    best = initial = None
    for _ in range(steps):
        m = y * model(x).reshape(-1)
        current = float(m.detach().min())
        initial = current if initial is None else initial
        best = current if best is None else max(best, current)
        loss = tau * torch.logsumexp(-m / tau, 0)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        with torch.no_grad():
            for p in model.parameters():
                p.clamp_(-B, B)
    with torch.no_grad():
        best = max(best, float((y * model(x).reshape(-1)).min()))
    return OptimisedMargin(margin=best, initial=initial)


def margin_sweep(config, Ns, models: int, xis, *, seed: int = 0, B: float = 1.0,
                 device=None) -> dict[str, MarginCounts]:
    r"""For each :math:`\xi` in ``xis`` and :math:`N` in ``Ns``: how many of ``models``
    uniform-box models (seeds ``seed + j``) recognise a non-constant function with margin
    :math:`\xi` (:func:`margin_recognition`), and how many recognise any function.

    Returns:
        ``{str(xi): MarginCounts}`` (a count per N of each).
    """
    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed", count=models)
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
    return {xi: MarginCounts(nonconstant=c["nonconstant"], recognises=c["recognises"]) for xi, c in res.items()}


__all__ = ["influence_positions", "RANDOM_FUNCTION_P_K0", "summarize_profiles", "readout_profile", "identify_function", "nearest_parity",
           "random_function_K0", "random_function_avg_sensitivity",
           "sample_nonconstant_profiles", "density_matched_ratios", "sample_models", "join_model_blocks",
           "summarize_models", "nonconstant_statistics",
           "profile_statistics", "influence_pairs", "sampled_influences",
           "influence_maxima", "exact_influence_maximum", "exact_influence_maxima", "margin_table", "margin_sweep", "optimised_margin", "per_model_slopes"]
