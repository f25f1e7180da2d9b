r"""Local volume around a solution (paper B, as formalised in boolverify; the first
measurement towards the geometry claim): for a solution :math:`\theta^*` of FIRST, MAJORITY or
PARITY — the explicit construction (:mod:`numeric.transformer`), or a given model such as a
trained one (:func:`trained_solution`), checked to compute the function exactly on all
:math:`2^N` strings before it is perturbed — the fraction :math:`v(\sigma)` of Gaussian
perturbations :math:`\theta^* + \sigma z` (:math:`z` standard normal over every parameter,
layer-norm gains and biases included unless ``include_ln=False``) that still compute the
function exactly on all :math:`2^N` strings, over a grid of :math:`\sigma`, and

- per point an exact Clopper-Pearson interval for :math:`v(\sigma)`
  (:func:`verify.stats.intervals.clopper_pearson`) and the mean fraction of strings that keep
  their value;
- the radius :math:`r_f(N)`: where :math:`v` crosses 1/2, linearly interpolated in
  :math:`\log\sigma` between the last grid point with :math:`v \ge 1/2` and the next; the
  same crossing of the intervals' upper and lower ends gives ``radius_range`` (pointwise
  intervals, so a rough bracket, not a simultaneous confidence interval). ``None`` when the
  curve does not cross 1/2 on the grid (``crossing`` says ``"above grid"`` or
  ``"below grid"``).

The same directions at every :math:`\sigma`: the generator is re-seeded with ``seed`` for each
grid point, so model ``k`` is :math:`\theta^* + \sigma z_k` with one :math:`z_k` (common random
numbers: the curve is a function of the same sample of directions).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field, fields

from numeric.validation import InputError, check_bool, check_choice, check_int, check_real, check_seed, reject
from numeric.vocabulary import ALL_TARGETS
from verify.stats.intervals import clopper_pearson

#: The radius is where the exact fraction crosses this level.
CROSSING_LEVEL = 0.5
#: The default grid: 25 values log-spaced over [1e-4, 1].
DEFAULT_SIGMAS = tuple(10.0 ** (-4 + k / 6) for k in range(25))


@dataclass(frozen=True)
class VolumePoint:
    """One grid point: ``exact`` of ``models`` perturbations at ``sigma`` compute the function."""

    sigma: float
    models: int
    exact: int
    fraction: float
    ci: tuple
    kept_fraction: float
    kept_min: float


@dataclass(frozen=True)
class VolumeCurve:
    """The local-volume curve of one construction at one ``N`` (module docstring)."""

    function: str
    N: int
    D: int
    L: int
    H: int
    F: int
    eps: float
    n_params: int
    include_ln: bool
    seed: int
    level: float
    points: tuple
    radius: float | None
    radius_range: tuple | None
    crossing: str
    seconds: float
    #: what was perturbed: "constructed" (numeric.transformer) or "given" (a model passed in)
    solution: str = "constructed"

    def as_dict(self) -> dict:
        out = asdict(self)
        out["points"] = [asdict(p) for p in self.points]
        return out

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=1)


def log_crossing(sigmas, values, level: float = CROSSING_LEVEL):
    r"""Where ``values`` (over increasing ``sigmas``) first drops below ``level``, linearly
    interpolated in :math:`\log\sigma`: ``(sigma, "crossed")``, or ``(None, "above grid")``
    (never below), ``(None, "below grid")`` (already below at the first point)."""
    if values[0] < level:
        return None, "below grid"
    for i in range(len(values) - 1):
        a, b = values[i], values[i + 1]
        if a >= level > b:
            s0, s1 = sigmas[i], sigmas[i + 1]
            if s0 <= 0:
                return s1, "crossed"
            t = (a - level) / (a - b)
            return math.exp(math.log(s0) + t * (math.log(s1) - math.log(s0))), "crossed"
    return None, "above grid"


def check_sigmas(sigmas, name: str = "sigmas") -> tuple:
    """A non-empty strictly increasing sequence of reals ``sigma > 0``."""
    if isinstance(sigmas, (str, bytes)) or not hasattr(sigmas, "__len__") or len(sigmas) == 0:
        reject(name, sigmas, "a non-empty list of reals > 0")
    out = tuple(check_real(s, f"{name}[{i}]", lo=0, lo_open=True) for i, s in enumerate(sigmas))
    if any(b <= a for a, b in zip(out, out[1:])):
        reject(name, list(out), "strictly increasing values")
    return out


def check_solution(function: str, N: int, model, name: str = "solution"):
    r"""``model`` must be batchable (:func:`numeric.transformer.check_batchable`), accept length
    ``N``, and compute ``function`` on all :math:`2^N` strings at :math:`\sigma = 0` through the
    batched pass that the measurement uses (a run that did not learn is not a solution)."""
    from numeric.boolean import truth_table
    from numeric.transformer import batched_outputs, check_batchable, kept_values, stacked_parameters

    try:
        check_batchable(model)
    except InputError as err:
        reject(name, f"<{type(model).__name__}>", f"a model the batched pass evaluates ({err})")
    if N > model.config.N_max:
        reject(name, f"<N_max = {model.config.N_max}>", f"a model that reads strings of length N = {N}")
    kept = kept_values(batched_outputs(model, stacked_parameters(model, 1), N), truth_table(function, N))[0]
    wrong = (~kept).nonzero().reshape(-1)
    if wrong.numel():
        reject(name, f"<model wrong on {wrong.numel()} of {1 << N} strings, first at string index "
               f"{int(wrong[0])}>", f"a model that computes {function} exactly on all 2^{N} strings at sigma = 0")
    return model


def local_volume(function: str, N: int, sigmas=DEFAULT_SIGMAS, models: int = 200, *, seed: int = 0,
                 level: float = 0.95, include_ln: bool = True, F: int | None = None, solution=None,
                 progress=None) -> VolumeCurve:
    """The :class:`VolumeCurve` of a solution of ``function`` at length ``N``: ``models``
    perturbations per ``sigma``. The solution is ``solution`` (any model that
    :func:`check_solution` accepts: trained ones, :func:`trained_solution`) or, by default, the
    construction of :mod:`numeric.transformer` (of MLP width ``F``). ``progress(i)`` is
    called after grid point ``i``."""
    import torch

    from numeric.boolean import truth_table
    from numeric.transformer import CONSTRUCTED, construct
    from numeric.transformer import volume_point

    check_choice(function, "function", CONSTRUCTED if solution is None else ALL_TARGETS)
    N = check_int(N, "N", lo=1, hi=20)
    sigmas = check_sigmas(sigmas)
    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed")
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    check_bool(include_ln, "include_ln")
    if solution is not None and F is not None:
        reject("F", F, "None with a given solution (F is the construction's MLP width)")
    t0 = time.perf_counter()
    model = check_solution(function, N, construct(function, N, F=F) if solution is None else solution)
    table = truth_table(function, N)
    points = []
    for i, sigma in enumerate(sigmas):
        r = volume_point(model, table, N, sigma, models, torch.Generator().manual_seed(seed), include_ln=include_ln)
        points.append(VolumePoint(sigma=sigma, models=models, exact=r["exact"], fraction=r["exact"] / models,
                                  ci=clopper_pearson(r["exact"], models, level), kept_fraction=r["kept_fraction"],
                                  kept_min=r["kept_min"]))
        if progress is not None:
            progress(i)
    radius, crossing = log_crossing(sigmas, [p.fraction for p in points])
    lo, _ = log_crossing(sigmas, [p.ci[0] for p in points])
    hi, _ = log_crossing(sigmas, [p.ci[1] for p in points])
    cfg = model.config
    return VolumeCurve(function=function, N=N, D=cfg.D, L=cfg.L, H=cfg.H, F=cfg.F, eps=cfg.eps,
                       n_params=cfg.n_params, include_ln=include_ln, seed=seed, level=level, points=tuple(points),
                       radius=radius, radius_range=None if radius is None else (lo, hi), crossing=crossing,
                       seconds=time.perf_counter() - t0, solution="constructed" if solution is None else "given")


@dataclass(frozen=True)
class TrainedSolution:
    """The outcome of :func:`trained_solution`: the seeds tried in order, each run's exact
    accuracy over all :math:`2^N` strings, and the first run that computes the function exactly
    (``model``; ``None`` when no run of the budget did)."""

    function: str
    N: int
    D: int
    L: int
    H: int
    eps: float
    steps: int
    batch_size: int
    lr: float
    seeds: tuple
    accuracies: tuple
    seed: int | None
    tries: int
    train_seconds: float
    model: object = field(default=None, repr=False, compare=False)

    @property
    def learned(self) -> bool:
        return self.seed is not None

    def as_dict(self) -> dict:
        """JSON-ready (the model is left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "model"}


#: The trained solutions' shape: the SG-8 training defaults (``DEFAULT_D``, ``DEFAULT_L``,
#: ``DEFAULT_H``, ``DEFAULT_EPS`` of :mod:`verify.experiments.training`, checked equal by the
#: tests), written here so that the CLI sizes a run without loading torch.
TRAINED_SHAPE = {"D": 16, "L": 2, "H": 2, "eps": 1e-5}
#: Training of a solution: AdamW steps per run (all 2^N strings, shuffled epochs), the batch,
#: and how many seeds are tried before giving up.
DEFAULT_TRAIN_STEPS = 1000
DEFAULT_TRAIN_BATCH = 128
DEFAULT_TRIES = 5


def trained_solution(function: str, N: int, *, seed: int = 0, tries: int = DEFAULT_TRIES,
                     steps: int = DEFAULT_TRAIN_STEPS, batch_size: int = DEFAULT_TRAIN_BATCH, lr: float = 3e-3,
                     D: int = TRAINED_SHAPE["D"], L: int = TRAINED_SHAPE["L"], H: int = TRAINED_SHAPE["H"],
                     eps: float = TRAINED_SHAPE["eps"], progress=None) -> TrainedSolution:
    """Train ``function`` at length ``N`` (:func:`verify.experiments.training.train`, float64, a
    ``D, L, H`` transformer at layer-norm ``eps`` with ``N_max = N``, so that every parameter the
    measurement perturbs is read) from seeds ``seed, seed + 1, ...``, at most ``tries`` runs,
    until one computes ``function`` exactly on all :math:`2^N` strings. ``progress(try, seed,
    accuracy)`` is called after each run."""
    from numeric.transformer import TransformerConfig
    from verify.experiments.training import EXACT_LIMIT, train

    check_choice(function, "function", ALL_TARGETS)
    N = check_int(N, "N", lo=1, hi=EXACT_LIMIT)
    tries = check_int(tries, "tries", lo=1)
    seed = check_seed(seed, "seed", count=tries)
    config = TransformerConfig(D=D, L=L, H=H, eps=eps, N_max=N)
    seeds, accuracies, found, model = [], [], None, None
    t0 = time.perf_counter()
    for i in range(tries):
        run = train(function, N, config=config, seed=seed + i, steps=steps, batch_size=batch_size, lr=lr,
                    dtype="float64", exact=True)
        seeds.append(seed + i)
        accuracies.append(run.accuracy)
        if progress is not None:
            progress(i, seed + i, run.accuracy)
        if run.accuracy == 1.0:
            found, model = seed + i, run.model
            break
    return TrainedSolution(function=function, N=N, D=D, L=L, H=H, eps=eps, steps=steps, batch_size=batch_size,
                           lr=lr, seeds=tuple(seeds), accuracies=tuple(accuracies), seed=found, tries=len(seeds),
                           train_seconds=time.perf_counter() - t0, model=model)


def merge_volume_files(parts, out, note) -> dict:
    """One volume file at ``out`` (written atomically) from the JSON files of several
    ``boolverify sensitivity volume`` commands of trained solutions: their curves and training
    records in order, the functions they name, ``note``."""
    from pathlib import Path

    from verify.common.atomic_io import atomic_write_json

    merged = {"functions": [], "solution": "trained", "curves": [], "training": [], "note": note}
    for part in parts:
        data = json.loads(Path(part).read_text())
        merged["functions"] += [f for f in data["functions"] if f not in merged["functions"]]
        merged["curves"] += data["curves"]
        merged["training"] += data.get("training", [])
    merged["functions"] = sorted(merged["functions"])
    atomic_write_json(out, merged)
    return merged


__all__ = ["CROSSING_LEVEL", "DEFAULT_SIGMAS", "VolumePoint", "VolumeCurve", "log_crossing", "check_sigmas",
           "check_solution", "local_volume", "TrainedSolution", "trained_solution", "TRAINED_SHAPE", "DEFAULT_TRAIN_STEPS",
           "DEFAULT_TRAIN_BATCH", "DEFAULT_TRIES", "merge_volume_files"]
