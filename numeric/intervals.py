r"""Outward-rounded interval arithmetic in float64 torch: the operations through which
:mod:`numeric.transformer` encloses the forward pass of a transformer over a box of
parameters. Each operation takes :class:`Interval` enclosures ``[lo, hi]`` (elementwise, two
float64 tensors of one shape) of its operands and returns an enclosure of the exact
(real-number) result for every point of them.

**Rounding.** IEEE addition, subtraction, multiplication, division and square root are correctly
rounded (round to nearest), so the exact result lies within half a unit in the last place of the
computed one; each lower end is moved one float towards :math:`-\infty` and each upper end one
towards :math:`+\infty` (``torch.nextafter``), which encloses it. A sum of many terms is taken
term by term, rounding after each addition, so no summation order of a library enters.

**exp** (SLEEF or glibc ``exp``) carries no rounding promise in IEEE 754; both are documented
and measured within one ulp of the exact value. Its ends are moved :data:`TRANSCENDENTAL_STEPS`
floats outwards, one for the documented error and two as margin. The assumption is not taken on
trust: SG-9 (``theorems/test_SG9_local_volume.py``) measures ``torch.exp``'s error against Arb
balls before it decides, on adversarial inputs (subnormal results, near overflow, ties) and on
every score difference that the certifier meets in its boxes, and fails when any is more than
one ulp off.

Tightness (what the SG-9 checks hold each operation to, against Arb): the ends of ``add``,
``sub``, ``mul``, ``scale``, ``divide``, ``square`` are within 2.5 ulps of the exact range's
ends (half an ulp of rounding plus the one-float step, which is two ulps of the exact value
where the rounded result is a power of two just above it), ``exp``'s within
``2 (TRANSCENDENTAL_STEPS + 1)``, ``reciprocal_sqrt``'s (two roundings) within 6; an overflow
to infinity is sound, not tight.
Assumed: torch keeps subnormal numbers (``torch.set_flush_denormal(False)``, the default).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

#: ``nextafter`` steps applied to each end of an ``exp`` (SLEEF's and glibc's double ``exp`` are
#: within one ulp; two more steps are the margin).
TRANSCENDENTAL_STEPS = 3
_DT = torch.float64
_NEG_INF = torch.tensor(-math.inf, dtype=_DT)
_POS_INF = torch.tensor(math.inf, dtype=_DT)


def round_down(x: torch.Tensor, steps: int = 1) -> torch.Tensor:
    """``x`` moved ``steps`` floats towards :math:`-\\infty` (a lower end after rounding)."""
    for _ in range(steps):
        x = torch.nextafter(x, _NEG_INF.to(x.device))
    return x


def round_up(x: torch.Tensor, steps: int = 1) -> torch.Tensor:
    """``x`` moved ``steps`` floats towards :math:`+\\infty` (an upper end after rounding)."""
    for _ in range(steps):
        x = torch.nextafter(x, _POS_INF.to(x.device))
    return x


@dataclass(frozen=True)
class Interval:
    """Elementwise enclosures ``[lo, hi]`` (two float64 tensors of one shape)."""

    lo: torch.Tensor
    hi: torch.Tensor

    @classmethod
    def point(cls, x: torch.Tensor) -> "Interval":
        return cls(x, x)

    @property
    def width(self) -> torch.Tensor:
        return self.hi - self.lo

    def contains(self, x: torch.Tensor) -> torch.Tensor:
        """Bool tensor: ``lo <= x <= hi`` elementwise."""
        return (self.lo <= x) & (x <= self.hi)

    def __getitem__(self, index) -> "Interval":
        return Interval(self.lo[index], self.hi[index])

    def map(self, fn) -> "Interval":
        """``fn`` (a shape operation: reshape, index, unsqueeze) applied to both ends."""
        return Interval(fn(self.lo), fn(self.hi))


def add(a: Interval, b: Interval) -> Interval:
    return Interval(round_down(a.lo + b.lo), round_up(a.hi + b.hi))


def sub(a: Interval, b: Interval) -> Interval:
    return Interval(round_down(a.lo - b.hi), round_up(a.hi - b.lo))


def mul(a: Interval, b: Interval) -> Interval:
    """The product's enclosure: the extreme products of the ends, rounded outwards."""
    p = torch.stack(torch.broadcast_tensors(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi))
    return Interval(round_down(p.amin(0)), round_up(p.amax(0)))


def scale(a: Interval, c: float) -> Interval:
    """``c * a`` for a float ``c`` (exact as given)."""
    lo, hi = (a.lo * c, a.hi * c) if c >= 0 else (a.hi * c, a.lo * c)
    return Interval(round_down(lo), round_up(hi))


def divide(a: Interval, d: float) -> Interval:
    """``a / d`` for a float ``d > 0``."""
    return Interval(round_down(a.lo / d), round_up(a.hi / d))


def total(a: Interval, dim: int) -> Interval:
    """Sum over ``dim``, term by term, rounding outwards after each addition."""
    n = a.lo.shape[dim]
    lo, hi = a.lo.select(dim, 0), a.hi.select(dim, 0)
    for k in range(1, n):
        lo = round_down(lo + a.lo.select(dim, k))
        hi = round_up(hi + a.hi.select(dim, k))
    return Interval(lo, hi)


def square(a: Interval) -> Interval:
    lo2, hi2 = a.lo * a.lo, a.hi * a.hi
    top = round_up(torch.maximum(lo2, hi2))
    bottom = torch.where((a.lo <= 0) & (a.hi >= 0), torch.zeros_like(lo2), round_down(torch.minimum(lo2, hi2)))
    return Interval(bottom.clamp_min(0.0), top)


def relu(a: Interval) -> Interval:
    return Interval(a.lo.clamp_min(0.0), a.hi.clamp_min(0.0))


def exp(a: Interval) -> Interval:
    return Interval(round_down(torch.exp(a.lo), TRANSCENDENTAL_STEPS).clamp_min(0.0),
                    round_up(torch.exp(a.hi), TRANSCENDENTAL_STEPS))


def reciprocal_sqrt(a: Interval) -> Interval:
    r""":math:`1/\sqrt a` of an enclosure with ``a.lo > 0`` (ends where ``a.lo <= 0`` are
    ``[0, inf]``: undefined there)."""
    positive = a.lo > 0
    root_hi = round_up(torch.sqrt(a.hi))
    root_lo = round_down(torch.sqrt(a.lo.clamp_min(0.0)))
    lo = round_down(1.0 / root_hi)
    hi = torch.where(positive & (root_lo > 0), round_up(1.0 / root_lo), _POS_INF.to(a.lo.device))
    return Interval(lo.clamp_min(0.0), hi)


__all__ = ["TRANSCENDENTAL_STEPS", "round_down", "round_up", "Interval", "add", "sub", "mul", "scale", "divide",
           "total", "square", "relu", "exp", "reciprocal_sqrt"]
