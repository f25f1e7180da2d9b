"""The decision of a claim test: what was estimated, with which interval, by which rule fixed
before the data, and the outcome.

Three outcomes: ``pass``, ``fail`` and ``inconclusive`` (the data cannot decide; never shown
as ``pass``, and only ``fail`` fails a run). A test records its decisions through the
``evidence`` fixture (``evidence.decide(decision)``), which raises on ``fail``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from numeric.validation import check_choice, reject

OUTCOMES = ("pass", "fail", "inconclusive")


@dataclass(frozen=True)
class Decision:
    """One decided statement.

    ``interval`` is ``None`` for exact quantities (a count, a rational, a symbolic identity);
    ``level`` is the confidence of the interval (one- or two-sided as the rule says).
    """

    estimand: str
    estimate: float | str | None
    interval: tuple[float, float] | None
    level: float | None
    rule: str
    outcome: str

    def __post_init__(self):
        check_choice(self.outcome, "outcome", OUTCOMES)
        if self.interval is not None:
            lo, hi = self.interval
            if not (lo <= hi) or math.isnan(lo) or math.isnan(hi):
                reject("interval", self.interval, "(low, high) with low <= high")

    def as_dict(self) -> dict:
        d = asdict(self)
        d["interval"] = None if self.interval is None else [float(v) for v in self.interval]
        return d

    def describe(self) -> str:
        """``estimand = estimate [lo, hi] (level): rule -> outcome``"""
        est = _fmt(self.estimate)
        ci = "" if self.interval is None else f" [{_fmt(self.interval[0])}, {_fmt(self.interval[1])}]"
        lvl = "" if self.level is None else f" ({self.level:.3g})"
        return f"{self.estimand} = {est}{ci}{lvl}: {self.rule} -> {self.outcome}"


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def upper_bound_below(estimand, estimate, interval, level, threshold, *, strict=True) -> Decision:
    """Pass iff the upper end of ``interval`` is below ``threshold`` (the alternative
    "estimand >= threshold" is rejected at ``level``); fail otherwise."""
    hi = interval[1]
    ok = hi < threshold if strict else hi <= threshold
    return Decision(estimand, estimate, tuple(interval), level,
                    f"pass iff upper bound {'<' if strict else '<='} {threshold:g}", "pass" if ok else "fail")


def lower_bound_above(estimand, estimate, interval, level, threshold, *, strict=True) -> Decision:
    """Pass iff the lower end of ``interval`` is above ``threshold``; fail otherwise."""
    lo = interval[0]
    ok = lo > threshold if strict else lo >= threshold
    return Decision(estimand, estimate, tuple(interval), level,
                    f"pass iff lower bound {'>' if strict else '>='} {threshold:g}", "pass" if ok else "fail")


def inside(estimand, estimate, interval, level, lo, hi) -> Decision:
    """Three-way: pass iff ``interval`` lies inside ``[lo, hi]``; fail iff it lies wholly
    outside; inconclusive when it straddles an end."""
    a, b = interval
    if lo <= a and b <= hi:
        outcome = "pass"
    elif b < lo or a > hi:
        outcome = "fail"
    else:
        outcome = "inconclusive"
    return Decision(estimand, estimate, tuple(interval), level,
                    f"pass iff interval inside [{lo:g}, {hi:g}], fail iff disjoint", outcome)


def contains(estimand, estimate, interval, level, value, what) -> Decision:
    """Pass iff ``interval`` contains ``value`` (``what`` names it in the rule); fail otherwise."""
    ok = interval[0] <= value <= interval[1]
    return Decision(estimand, estimate, tuple(interval), level,
                    f"pass iff the interval contains {what} = {value:.6g}", "pass" if ok else "fail")


def meets(estimand, estimate, interval, level, lo, hi, what) -> Decision:
    """Pass iff ``interval`` meets the band ``[lo, hi]`` (``what`` names it in the rule); fail
    iff they are disjoint."""
    a, b = interval
    ok = not (b < lo or a > hi)
    return Decision(estimand, estimate, tuple(interval), level,
                    f"pass iff the interval meets {what} [{lo:.6g}, {hi:.6g}], fail iff disjoint",
                    "pass" if ok else "fail")


def exact(estimand, value, rule, ok: bool) -> Decision:
    """A statement about an exact (or reference-checked) quantity: pass iff ``ok``."""
    return Decision(estimand, value, None, None, rule, "pass" if ok else "fail")


__all__ = ["OUTCOMES", "Decision", "upper_bound_below", "lower_bound_above", "inside", "contains",
           "meets", "exact"]
