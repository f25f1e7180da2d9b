r"""Certified boxes around the explicit solutions (paper B, as formalised in boolverify; beside the
sampled local volume of :mod:`verify.experiments.local_volume`): for the construction
:math:`\theta^*` of FIRST, MAJORITY or PARITY (:mod:`numeric.transformer`), the largest
half-width :math:`h` found by bisection for which **every** parameter vector of the box
:math:`\theta^* \pm h` (every parameter, layer-norm gains and biases included unless
``include_ln=False``) is proved by outward-rounded interval arithmetic
(:mod:`numeric.transformer`) to compute the function on **every** one of the :math:`2^N`
strings, and its log-volume :math:`M \log(2h)`.

**Bisection** (:func:`largest_certified_half_width`): on :math:`\log h` over ``[lo, hi]`` with a
fixed number of steps; the box at ``lo`` is checked first (not certified there: the result says
so, with no half-width), then the box at ``hi`` (certified: ``hi`` is reported, capped). Only a
box that was checked and certified is ever reported, so the result is a certificate whatever the
shape of the certified set; ``refused_half_width`` is the smallest refused ``h`` of the bracket.
Interval arithmetic loses the correlations between quantities, so the certified half-width is a
lower bound on the largest box around :math:`\theta^*` computing the function.

**Corners** (:func:`corner_fraction`): the fraction of random corners
:math:`\theta^* + h s` (:math:`s` uniform signs over the perturbed parameters) that compute the
function on every string in float64. Every corner of a certified box must; a corner that fails at
some :math:`h` shows that no box of that half-width is correct, so it bounds the gap between the
certified half-width and the largest correct box from above.

**Known answers** (:func:`certificate_known_answers`): each construction certifies at
:math:`h = 0` on all strings; the construction of MAJORITY checked against FIRST is refused; a
table that differs from the construction's function at one string only, the last string or the
last of the first half (:func:`first_half_string`), is refused with exactly that string
uncertified (a certifier that skips strings passes the first check but not the others: one that
skips the second half misses the last string, one that skips the first half the other); every
verdict counts :math:`2^N` strings.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass

from numeric.validation import check_bool, check_choice, check_int, check_real, check_seed, reject

#: Bisection bracket of the half-width and its number of steps (the bracket's ratio after the
#: steps is ``(hi/lo)^(2^-steps)``: 1.0001 for the defaults).
DEFAULT_LOWEST = 1e-12
DEFAULT_HIGHEST = 1.0
DEFAULT_STEPS = 18
#: Longest N of the experiment (the engine's limit).
MAX_N = 16


def first_half_string(N: int) -> int:
    """The index of the last string of the first half, :math:`2^{N-1} - 1` (the string flipped
    by the known answer that a certifier skipping the first half of the strings misses)."""
    return (1 << (N - 1)) - 1


@dataclass(frozen=True)
class CertifiedVolume:
    """The largest certified box found for one construction (module docstring).

    ``half_width``/``log_volume``: of the largest certified box (``None``: not even the box at
    ``lowest`` was certified); ``refused_half_width``: the smallest refused half-width of the
    final bracket (``None`` when the box at ``highest`` was certified); ``box``: that certified
    box's record (:class:`numeric.transformer._certified_volume.CertifiedBox`, as a dict)."""

    function: str
    N: int
    n_params: int
    include_ln: bool
    lowest: float
    highest: float
    steps: int
    half_width: float | None
    log_volume: float | None
    refused_half_width: float | None
    box: dict | None
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=1)


def certified_box_check(function: str, N: int, half_width: float, *, model_function: str | None = None,
                        include_ln: bool = True):
    r"""The :class:`~numeric.transformer._certified_volume.CertifiedBox` of :math:`\theta^* \pm h`: the
    construction of ``model_function`` (default ``function``) checked against the truth table
    of ``function`` on all :math:`2^N` strings."""
    from numeric.boolean import truth_table
    from numeric.transformer import certify_box
    from numeric.transformer import CONSTRUCTED, construct

    check_choice(function, "function", CONSTRUCTED)
    model_function = function if model_function is None else check_choice(model_function, "model_function",
                                                                           CONSTRUCTED)
    N = check_int(N, "N", lo=1, hi=MAX_N)
    h = check_real(half_width, "half_width", lo=0)
    check_bool(include_ln, "include_ln")
    return certify_box(construct(model_function, N), truth_table(function, N), N, h, function=function,
                       include_ln=include_ln)


@dataclass(frozen=True)
class KnownAnswers:
    """The certifier's known answers at one ``N`` (module docstring) and whether each holds."""

    N: int
    own: tuple
    wrong_model: dict
    last_string_flipped: dict
    first_half_string_flipped: dict

    @property
    def passed(self) -> bool:
        total = 1 << self.N
        flipped = [self.last_string_flipped, self.first_half_string_flipped]
        boxes = [*self.own, self.wrong_model, *flipped]
        return (all(b["strings_total"] == total for b in boxes)
                and all(b["certified"] and b["strings_certified"] == total for b in self.own)
                and not self.wrong_model["certified"]
                and all(not b["certified"] and b["strings_certified"] == total - 1 for b in flipped))

    def as_dict(self) -> dict:
        return {**asdict(self), "passed": self.passed}


def certificate_known_answers(N: int) -> KnownAnswers:
    r"""The known answers of the certifier at length ``N`` (at :math:`h = 0`; module docstring):
    every construction certified on its own function, MAJORITY's construction refused against
    FIRST, MAJORITY's construction refused against MAJORITY's table with one string flipped,
    the last or :func:`first_half_string` (exactly :math:`2^N - 1` strings certified each)."""
    from numeric.boolean import truth_table
    from numeric.transformer import certify_box
    from numeric.transformer import CONSTRUCTED, construct

    N = check_int(N, "N", lo=2, hi=MAX_N)
    own = tuple(certified_box_check(fn, N, 0.0).as_dict() for fn in CONSTRUCTED)
    wrong = certified_box_check("first", N, 0.0, model_function="majority").as_dict()
    model = construct("majority", N)

    def one_string_flipped(index, what):
        table = truth_table("majority", N).clone()
        table[index] = 1 - table[index]
        return certify_box(model, table, N, 0.0, function=f"majority, {what} flipped").as_dict()

    return KnownAnswers(N=N, own=own, wrong_model=wrong,
                        last_string_flipped=one_string_flipped((1 << N) - 1, "last string"),
                        first_half_string_flipped=one_string_flipped(
                            first_half_string(N), f"string {first_half_string(N)} (last of the first half)"))


def corner_fraction(function: str, N: int, half_width: float, *, models: int = 200, seed: int = 0,
                    include_ln: bool = True) -> float:
    r"""The fraction of ``models`` random corners :math:`\theta^* + h s` of the box (``s``: signs
    drawn from a CPU generator seeded ``seed``, one per perturbed parameter;
    :func:`numeric.transformer.box_points`) whose float64 forward pass
    (:func:`numeric.transformer.batched_outputs`) computes ``function`` on all strings."""
    import torch

    from numeric.boolean import truth_table
    from numeric.transformer import box_points
    from numeric.transformer import CONSTRUCTED, construct
    from numeric.transformer import batched_outputs, kept_values

    check_choice(function, "function", CONSTRUCTED)
    N = check_int(N, "N", lo=1, hi=MAX_N)
    h = check_real(half_width, "half_width", lo=0)
    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed")
    check_bool(include_ln, "include_ln")
    model = construct(function, N)
    theta = box_points(model, h, models, torch.Generator().manual_seed(seed), corners=True, include_ln=include_ln)
    kept = kept_values(batched_outputs(model, theta, N), truth_table(function, N))
    return float(kept.all(-1).to(torch.float64).mean())


def largest_certified_half_width(function: str, N: int, *, lowest: float = DEFAULT_LOWEST,
                                 highest: float = DEFAULT_HIGHEST, steps: int = DEFAULT_STEPS,
                                 include_ln: bool = True, progress=None) -> CertifiedVolume:
    """The :class:`CertifiedVolume` of the construction of ``function`` at length ``N`` by
    bisection on log h over ``[lowest, highest]`` (module docstring); ``progress(i, total)`` is
    called after each certification."""
    from numeric.transformer import certify_box
    from numeric.boolean import truth_table
    from numeric.transformer import CONSTRUCTED, construct

    check_choice(function, "function", CONSTRUCTED)
    N = check_int(N, "N", lo=1, hi=MAX_N)
    lowest = check_real(lowest, "lowest", lo=0, lo_open=True)
    highest = check_real(highest, "highest", lo=0, lo_open=True)
    if highest <= lowest:
        reject("highest", highest, f"a half-width > lowest = {lowest}")
    steps = check_int(steps, "steps", lo=0, hi=200)
    check_bool(include_ln, "include_ln")
    t0 = time.perf_counter()
    model = construct(function, N)
    table = truth_table(function, N)
    done = [0]
    total = steps + 2

    def check(h):
        box = certify_box(model, table, N, h, function=function, include_ln=include_ln)
        done[0] += 1
        if progress is not None:
            progress(done[0], total)
        return box

    best, refused = None, None
    at_low = check(lowest)
    if at_low.certified:
        best = at_low
        at_high = check(highest)
        if at_high.certified:
            best = at_high
        else:
            refused = highest
            lo, hi = math.log(lowest), math.log(highest)
            for _ in range(steps):
                mid = 0.5 * (lo + hi)
                box = check(math.exp(mid))
                if box.certified:
                    lo, best = mid, box
                else:
                    hi, refused = mid, box.half_width
    else:
        refused = lowest
    n_params = at_low.n_params
    return CertifiedVolume(function=function, N=N, n_params=n_params, include_ln=include_ln, lowest=lowest,
                           highest=highest, steps=steps, half_width=None if best is None else best.half_width,
                           log_volume=None if best is None else best.log_volume, refused_half_width=refused,
                           box=None if best is None else best.as_dict(), seconds=time.perf_counter() - t0)


__all__ = ["DEFAULT_LOWEST", "DEFAULT_HIGHEST", "DEFAULT_STEPS", "MAX_N", "first_half_string", "CertifiedVolume",
           "certified_box_check", "KnownAnswers", "certificate_known_answers", "corner_fraction", "largest_certified_half_width"]
