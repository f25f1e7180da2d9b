r"""Local volume around an explicit solution (paper B, as formalised in boolverify; the first
measurement towards the geometry claim): for the construction :math:`\theta^*` of FIRST,
MAJORITY or PARITY (:mod:`numeric.constructions`), the fraction :math:`v(\sigma)` of Gaussian
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
from dataclasses import asdict, dataclass

from numeric.validation import check_bool, check_choice, check_int, check_real, reject
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


def local_volume(function: str, N: int, sigmas=DEFAULT_SIGMAS, models: int = 200, *, seed: int = 0,
                 level: float = 0.95, include_ln: bool = True, F: int | None = None,
                 progress=None) -> VolumeCurve:
    """The :class:`VolumeCurve` of the construction of ``function`` at length ``N``:
    ``models`` perturbations per ``sigma``. ``progress(i)`` is called after grid point ``i``."""
    import torch

    from numeric.boolean import truth_table
    from numeric.constructions import CONSTRUCTED, construct
    from numeric.local_volume import volume_point

    check_choice(function, "function", CONSTRUCTED)
    N = check_int(N, "N", lo=1, hi=20)
    sigmas = check_sigmas(sigmas)
    models = check_int(models, "models", lo=1)
    seed = check_int(seed, "seed", lo=0)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    check_bool(include_ln, "include_ln")
    t0 = time.perf_counter()
    model = construct(function, N, F=F)
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
                       seconds=time.perf_counter() - t0)


__all__ = ["CROSSING_LEVEL", "DEFAULT_SIGMAS", "VolumePoint", "VolumeCurve", "log_crossing", "check_sigmas",
           "local_volume"]
