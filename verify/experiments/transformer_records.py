"""Typed results of the paper-B experiments (random and trained transformers), passed between
the experiments, the theorem checks, the CLI and the figures. ``as_dict`` gives the JSON form
written to the results files (``docs/data/sg*.json``, ``theorem45*.json``) and by the CLI's
``--json``: the fields in declaration order, nested records and tuples as plain dicts and lists.

- random models' exact profiles (SG-6): :class:`ProfileSummary`, :class:`ModelsSummary`,
  :class:`SampledModels`, :class:`NonconstantDraws`, :class:`ProfileStatistics`,
  :class:`DensityRatios`;
- sampled profiles at large N: :class:`ModelSample`, :class:`SampleSummary`,
  :class:`SampledProfiles`;
- influence (SG-4): :class:`ExactInfluenceMaxima`; margins (SG-5): :class:`MarginCounts`,
  :class:`OptimisedMargin`;
- random functions (SG-2): :class:`MonteCarloK0`;
- Theorem 4.5: :class:`Theorem45Model`, :class:`Theorem45Cell`.

Training runs (SG-8) are :class:`verify.experiments.training.TrainResult`.

Standard library only (no torch): a record may hold tensors, but this module never makes one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields


def optional(**kw):
    """A field that is left out of the JSON form while it is ``None`` (a key the dict form only
    had in some runs, e.g. the non-constant models' statistics when there are some)."""
    return field(default=None, metadata={"omit_if_none": True}, **kw)


def plain(value):
    """The JSON form of a field value: records by ``as_dict``, tuples as lists, recursively."""
    if isinstance(value, JsonRecord):
        return value.as_dict()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


class JsonRecord:
    """``as_dict`` of a frozen dataclass whose fields are the JSON keys, in order."""

    def as_dict(self) -> dict:
        """The JSON form (the keys of the results files, in the same order)."""
        return {f.name: plain(getattr(self, f.name)) for f in fields(self)
                if not (f.metadata.get("omit_if_none") and getattr(self, f.name) is None)}


# -- exact profiles of random models (SG-6) ---------------------------------------------
@dataclass(frozen=True)
class ProfileSummary(JsonRecord):
    """Summary of a ``(models, N+1)`` profile tensor, next to a uniformly random function.

    ``seconds`` and ``min_K0`` are set by the full runs (``dataclasses.replace``)."""

    models: int
    frac_K0_ge_1: float
    frac_K0_ge_1_ci95: tuple
    mean_K0_frac: float
    frac_constant: float
    frac_constant_ci95: tuple
    mean_avg_sensitivity: float
    mean_profile_frac: list
    random_function_P_K0_ge_1: float
    random_function_mean_K0_frac: float
    seconds: float | None = optional()
    min_K0: int | None = optional()


@dataclass(frozen=True)
class ZeroSensitivityModel(JsonRecord):
    """A model with :math:`K_0 = 0`: its seed and the function's name (``None`` if unnamed)."""

    seed: int
    function: str | None


@dataclass(frozen=True)
class ZeroSensitivityDraw(JsonRecord):
    """A drawn non-constant model with :math:`K_0 = 0`: the function if it is a (negated)
    parity, else ``None``, and the nearest parity with the fraction of strings it agrees on."""

    seed: int
    function: str | None
    nearest: str
    agreement: float


@dataclass(frozen=True)
class ModelsSummary(JsonRecord):
    """Summary of sampled models: the constant fraction (Clopper-Pearson at ``level``) kept apart
    from the non-constant models' statistics (``None``, and not in the JSON, without any)."""

    models: int
    constant: int
    frac_constant: float
    frac_constant_ci: tuple
    level: float
    nonconstant: int
    nonconstant_K0: list | None = optional()
    nonconstant_mean_K0_frac: float | None = optional()
    nonconstant_frac_K0_ge_1: float | None = optional()
    nonconstant_mean_avg_sensitivity: float | None = optional()
    nonconstant_median_K0_ratio: float | None = optional()
    nonconstant_median_as_ratio: float | None = optional()
    nonconstant_mean_profile_frac: list | None = optional()
    zero_K0: list = field(default_factory=list)
    mean_avg_sensitivity_all: float = 0.0


@dataclass(frozen=True)
class SampledModels(JsonRecord):
    """Exact tables of random models: ``profiles`` int64 ``(models, N+1)``, ``ones`` int64
    ``(models,)`` and per model the name of its function where it is constant or has
    :math:`K_0 = 0`, else ``None``."""

    profiles: object
    ones: object
    functions: list


@dataclass(frozen=True)
class NonconstantDraws(JsonRecord):
    """Models drawn until enough were non-constant: ``draws``, ``constant`` (how many of them
    computed a constant), the non-constant ones' ``profiles`` (int64 ``(k, N+1)``), ``seeds``,
    ``ones`` (int64 ``(k,)``) and ``zero_K0`` (:class:`ZeroSensitivityDraw`)."""

    draws: int
    constant: int
    profiles: object
    seeds: list
    ones: object
    zero_K0: list


@dataclass(frozen=True)
class ProfileStatistics(JsonRecord):
    r"""Per-model tensors: ``has_K0`` (:math:`K_0 \ge 1`), ``K0_frac`` (:math:`K_0/2^N`),
    ``avg_sensitivity`` (:math:`\sum_k k K_k / 2^N`)."""

    has_K0: object
    K0_frac: object
    avg_sensitivity: object


@dataclass(frozen=True)
class DensityRatios(JsonRecord):
    """Per non-constant model against a random function of its density ``p``: ``K0_ratio`` and
    ``as_ratio`` (float64 tensors)."""

    p: object
    K0_ratio: object
    as_ratio: object


# -- sampled profiles at large N ---------------------------------------------------------
@dataclass(frozen=True)
class ModelSample(JsonRecord):
    r"""One model's sampled profile: ``strings`` (S) sampled strings, ``k0_count`` of them of
    sensitivity 0, ``k0_fraction`` (the estimate of :math:`K_0/2^N`), ``k0_ci`` (two-sided exact
    interval), ``k0_lower`` (one-sided lower bound), ``constant_on_sample``, ``f_ones`` (sampled
    strings with :math:`f = 1`), ``profile`` (counts, :math:`k = 0..N`), ``profile_fraction``
    and ``avg_sensitivity`` (the sample mean of :math:`s(x, f)`)."""

    seed: int
    strings: int
    k0_count: int
    k0_fraction: float
    k0_ci: tuple
    k0_lower: float
    constant_on_sample: bool
    f_ones: int
    profile: list
    profile_fraction: list
    avg_sensitivity: float


@dataclass(frozen=True)
class SampleSummary(JsonRecord):
    """Over sampled models: how many looked constant, the mean estimated :math:`K_0/2^N` and
    the mean sampled profile (over all models and over the non-constant ones)."""

    models: int
    constant_on_sample: int
    nonconstant_on_sample: int
    frac_k0_observed: float | None
    mean_k0_fraction: float | None
    mean_k0_fraction_nonconstant: float | None
    mean_avg_sensitivity: float | None
    mean_profile_fraction: list | None
    mean_profile_fraction_nonconstant: list | None


@dataclass(frozen=True)
class SampledProfiles(JsonRecord):
    """The per-model :class:`ModelSample` records and their :class:`SampleSummary`."""

    models: list
    summary: SampleSummary


# -- influence (SG-4) and margins (SG-5) -------------------------------------------------
@dataclass(frozen=True)
class ExactInfluenceMaxima(JsonRecord):
    """Over all strings, per model and N (float64 ``(models, len(Ns))``): the largest change of
    T under one bit flip (``sup``) and the largest Boolean influence (``boolean``)."""

    sup: object
    boolean: object


@dataclass(frozen=True)
class MarginCounts(JsonRecord):
    """For one margin, per N: how many models recognise a non-constant function, and how many
    recognise any function."""

    nonconstant: list
    recognises: list


@dataclass(frozen=True)
class OptimisedMargin(JsonRecord):
    """The largest exact minimum margin over the optimiser's iterates, and the initial one."""

    margin: float
    initial: float


# -- random functions (SG-2) -------------------------------------------------------------
@dataclass(frozen=True)
class MonteCarloK0(JsonRecord):
    r"""Monte Carlo over ``samples`` random functions: ``hits`` with :math:`K_0 \ge 1`, their
    fraction ``p_hat`` with a Wilson interval (normal quantile ``z``), the mean of :math:`K_0`;
    with a ``level`` also the exact Clopper-Pearson interval."""

    N: int
    samples: int
    seed: int
    hits: int
    p_hat: float
    wilson: tuple
    z: float
    mean_K0: float
    clopper_pearson: tuple | None = optional()
    level: float | None = optional()


# -- Theorem 4.5 ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Theorem45Model(JsonRecord):
    r"""A non-constant model of a Theorem 4.5 cell: its :class:`ModelSample`, the lower bound
    :math:`N + \log_2 lo` of :math:`\log_2 K_0` (``None`` when no zero-sensitivity string was
    seen) and whether it reaches :math:`a \log_2 N`."""

    sample: ModelSample
    log2_K0_lower: float | None
    holds: bool

    def as_dict(self) -> dict:
        """The sample's keys (less ``profile_fraction``: it follows from the counts), then the
        bound and the decision."""
        out = self.sample.as_dict()
        del out["profile_fraction"]
        out["log2_K0_lower"] = self.log2_K0_lower
        out["holds"] = self.holds
        return out


@dataclass(frozen=True)
class Theorem45Cell(JsonRecord):
    """One (scheme, N) cell of the Theorem 4.5 run: the draws, how many looked constant (on the
    pilot, on the sample), the non-constant models (:class:`Theorem45Model`) and how many of
    them meet the bound."""

    scheme: str
    N: int
    S: int
    log2_Na: float
    log2_2N: int
    draws: int
    looked_constant_pilot: int
    looked_constant_sample: int
    nonconstant: int
    reached_target: bool
    bound_holds: int
    bound_holds_fraction: float | None
    k0_observed: int
    median_log2_K0_lower: float | None
    seconds: float
    models: list


__all__ = ["JsonRecord", "optional", "plain", "ProfileSummary", "ZeroSensitivityModel",
           "ZeroSensitivityDraw", "ModelsSummary", "SampledModels", "NonconstantDraws",
           "ProfileStatistics", "DensityRatios", "ModelSample", "SampleSummary", "SampledProfiles",
           "ExactInfluenceMaxima", "MarginCounts", "OptimisedMargin", "MonteCarloK0",
           "Theorem45Model", "Theorem45Cell"]
