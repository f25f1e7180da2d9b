"""How a number reads in a table cell (terminal tables and the Markdown report): never a cell a
reader cannot interpret.

- an interval with an infinite end is a one-sided bound and reads as one: ``upper bound 0.51``
  (never ``[0, 0.51]`` or ``[-inf, 0.51]``); a one-sided rule (``pass iff upper bound < 0.8``)
  shows only the end it decides on, whatever the other end holds (a probability's 0, a
  threshold's stand-in);
- a fraction too small to print in the cell's digits reads ``< 1e-6`` (``0`` when it is 0),
  never an underflowed ``1.1e-308``; a power of two too small for a float reads ``2^-1023``;
- a duration is labelled by its column (``time (s)``), the cell holds the number.
"""

from __future__ import annotations

import math

#: fractions below this are shown as ``< TINY`` (a table of 3-4 decimals cannot show them)
TINY = 1e-6


def number(value, digits: int = 3) -> str:
    """``value`` in ``digits`` significant digits; infinities as ``∞``/``-∞``; bools and other
    objects as ``str``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        return f"{value:.{digits}g}"
    return str(value)


def fraction(value: float, decimals: int = 3) -> str:
    """A fraction in ``[0, 1]`` with ``decimals`` decimals; ``0`` when it is 0 and ``< 1e-6``
    when it is positive but below :data:`TINY` (an underflowed probability, a constant
    fraction of ``2^(1 - 2^N)``)."""
    if value == 0:
        return "0"
    if 0 < value < TINY:
        return f"< {TINY:g}"
    return f"{value:.{decimals}f}"


def power_of_two(exponent: int) -> str:
    """``2^e`` exactly where a float would underflow or lose it, else its value in 3 digits."""
    if exponent < -20 or exponent > 60:
        return f"2^{exponent}"
    return number(2.0 ** exponent)


def one_sided(interval, rule: str = "") -> str | None:
    """``"upper"`` or ``"lower"`` when the interval is a one-sided bound (an infinite end, or
    a rule that decides on one end only), else None."""
    lo, hi = interval
    if "upper bound" in rule or (math.isinf(lo) and lo < 0 and not math.isinf(hi)):
        return "upper"
    if "lower bound" in rule or (math.isinf(hi) and hi > 0 and not math.isinf(lo)):
        return "lower"
    return None


def interval_parts(interval, rule: str = "", digits: int = 3) -> tuple[str | None, str]:
    """``(side, text)`` of an interval as every report shows it: for a one-sided bound
    (:func:`one_sided`) its side and the end that decides, ``("upper", "0.51")``, the other end
    being no measured value; else ``(None, "[lo, hi]")``, an unbounded end (infinite or
    missing) open, ``(-∞, 2]``. Ends that are not numbers are shown as given."""
    lo, hi = (list(interval) + [None, None])[:2]
    lo = -math.inf if lo is None else lo
    hi = math.inf if hi is None else hi
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (lo, hi))
    side = one_sided((lo, hi), rule) if numeric else None
    if side is not None:
        return side, number(hi if side == "upper" else lo, digits)

    def is_open(x):
        return isinstance(x, float) and math.isinf(x)
    return None, f"{'(' if is_open(lo) else '['}{number(lo, digits)}, {number(hi, digits)}{')' if is_open(hi) else ']'}"


def interval(interval, rule: str = "", digits: int = 3) -> str:
    """``[lo, hi]`` of a two-sided interval, ``upper bound hi`` / ``lower bound lo`` of a
    one-sided one (:func:`interval_parts`)."""
    side, text = interval_parts(interval, rule, digits)
    return text if side is None else f"{side} bound {text}"


def estimate(decision: dict, digits: int = 3) -> str:
    """A decision's ``estimate [interval] (level)``, e.g. ``0.425, upper bound 0.51 (0.99)``."""
    est = decision.get("estimate")
    text = "-" if est is None else number(est, digits) if isinstance(est, float) else str(est)
    iv = decision.get("interval")
    if iv is not None:
        shown = interval(iv, decision.get("rule") or "", digits)
        text += f", {shown}" if not shown.startswith("[") else f" {shown}"
    if decision.get("level") is not None:
        text += f" ({decision['level']:.3g})"
    return text


def seconds(value: float) -> str:
    """A duration for a ``time (s)`` column: one decimal."""
    return f"{value:.1f}"


__all__ = ["TINY", "number", "fraction", "power_of_two", "one_sided", "interval_parts", "interval", "estimate", "seconds"]
