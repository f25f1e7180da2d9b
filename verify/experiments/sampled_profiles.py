r"""Sampled sensitivity profiles of random transformers at large N (paper B, as formalised in
boolverify).

Per model, ``S`` i.i.d. uniform strings and their one-bit neighbours are evaluated
(:func:`numeric.transformer.sampled_sensitivities`); the number of sampled strings of
sensitivity :math:`k` is a binomial count of :math:`K_k / 2^N`, so :math:`K_0 / 2^N` gets an
exact Clopper-Pearson interval (``k0_ci``). A model whose :math:`S(N+1)` evaluations all agree
"looks constant on its sample" (``constant_on_sample``).

Per-model records use the field names of ``boolverify sensitivity random`` (``seed``,
``k0_fraction``), plus ``k0_ci`` and the sample's counts.
"""

from __future__ import annotations

import torch

from numeric.transformer import random_model
from numeric.transformer import sampled_sensitivities
from numeric.validation import check_int, check_real, check_seed
from verify.experiments.transformer_records import ModelSample, SampledProfiles, SampleSummary
from verify.stats.intervals import clopper_pearson

#: The strings of model ``seed`` come from ``torch.Generator().manual_seed(STRING_SEED_OFFSET +
#: seed)``: a stream of its own, not the one that drew the parameters, and the same on every
#: device and for every N (so runs at different N of one model are reproducible separately).
STRING_SEED_OFFSET = 1 << 40


def string_generator(seed: int) -> torch.Generator:
    """The CPU generator of the sampled strings of the model with seed ``seed``."""
    seed = check_seed(seed, "seed")
    return torch.Generator().manual_seed(STRING_SEED_OFFSET + seed)


def model_record(sample, seed: int, *, level: float = 0.95) -> ModelSample:
    r"""Plain-number record of one model's :class:`~numeric.transformer._sample.SampledSensitivity`
    (:class:`~verify.experiments.transformer_records.ModelSample`; both intervals at ``level``)."""
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    S = int(sample.s.numel())
    prof = sample.profile
    k0 = int(prof[0])
    lo, hi = clopper_pearson(k0, S, level)
    return ModelSample(
        seed=int(seed),
        strings=S,
        k0_count=k0,
        k0_fraction=k0 / S,
        k0_ci=(lo, hi),
        k0_lower=clopper_pearson(k0, S, level, side="lower")[0],
        constant_on_sample=sample.constant_on_sample,
        f_ones=int(sample.f.sum()),
        profile=[int(v) for v in prof],
        profile_fraction=[int(v) / S for v in prof],
        avg_sensitivity=float(sample.s.double().mean()),
    )


def sample_model(model, N: int, S: int, seed: int, *, level: float = 0.95, tokens=None) -> ModelSample:
    """:func:`model_record` of ``S`` strings of length ``N`` drawn for the model of ``seed``."""
    res = sampled_sensitivities(model, N, S, generator=string_generator(seed), tokens=tokens)
    return model_record(res, seed, level=level)


def sampled_profiles(config, scheme: str, N: int, models: int, S: int, *, seed: int = 0, device=None,
                     level: float = 0.95, progress=None, tokens=None, **init_kw) -> SampledProfiles:
    r"""Sampled profiles of ``models`` random transformers (seeds ``seed, seed + 1, ...``, as
    :func:`numeric.transformer._eval.random_profiles`, so the same seeds give the same models).

    Args:
        config: :class:`~numeric.transformer.TransformerConfig` with ``N_max >= N``.
        scheme: init scheme; ``init_kw`` (``B``, ``sigma``) go to the initialisation.
        S: strings per model. progress: optional callable ``progress(i)`` after model ``i``.

    Returns:
        :class:`~verify.experiments.transformer_records.SampledProfiles`: ``models`` (the
        per-model records of :func:`model_record`) and ``summary`` (:func:`summarize`).
    """
    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed", count=models)
    recs = []
    for i in range(models):
        model = random_model(config, scheme, seed + i, device=device, **init_kw)
        recs.append(sample_model(model, N, S, seed + i, level=level, tokens=tokens))
        if progress is not None:
            progress(i)
    return SampledProfiles(models=recs, summary=summarize(recs, N))


def summarize(recs, N: int) -> SampleSummary:
    """Summary over per-model records: how many looked constant, the mean estimated
    :math:`K_0/2^N` and mean sampled profile (over all models and over the non-constant ones)."""
    n = len(recs)
    nc = [r for r in recs if not r.constant_on_sample]

    def mean(rows, key):
        return sum(getattr(r, key) for r in rows) / len(rows) if rows else None

    def mean_profile(rows):
        if not rows:
            return None
        return [sum(r.profile_fraction[k] for r in rows) / len(rows) for k in range(N + 1)]

    return SampleSummary(
        models=n,
        constant_on_sample=n - len(nc),
        nonconstant_on_sample=len(nc),
        frac_k0_observed=sum(r.k0_count >= 1 for r in recs) / n if n else None,
        mean_k0_fraction=mean(recs, "k0_fraction"),
        mean_k0_fraction_nonconstant=mean(nc, "k0_fraction"),
        mean_avg_sensitivity=mean(recs, "avg_sensitivity"),
        mean_profile_fraction=mean_profile(recs),
        mean_profile_fraction_nonconstant=mean_profile(nc),
    )


__all__ = ["STRING_SEED_OFFSET", "model_record", "sample_model", "sampled_profiles", "string_generator",
           "summarize"]
