r"""Binomial confidence intervals (leaf module: standard library only, usable from numeric/)."""

from __future__ import annotations

import math
from statistics import NormalDist

from numeric.validation import check_int, check_real


def wilson_interval(successes, trials, confidence=0.95, *, z=None) -> tuple[float, float]:
    r"""Wilson score interval for a binomial proportion :math:`\hat p = s/n`.

    .. math:: \frac{\hat p + \frac{z^2}{2n} \pm z\sqrt{\frac{\hat p(1-\hat p)}{n} + \frac{z^2}{4n^2}}}{1 + z^2/n},
              \qquad z = \Phi^{-1}\bigl(1 - \tfrac{1-c}{2}\bigr)

    Args:
        successes: integer ``0 <= s <= n``.
        trials: integer ``n >= 1``.
        confidence: two-sided level ``c`` in (0, 1) (default 0.95); ignored when ``z`` is given.
        z: the normal quantile itself (keyword only).
    Returns:
        ``(low, high)`` as floats in ``[0, 1]``; exactly 0 (1) at ``s = 0`` (``s = n``).
    """
    for name, value in (("successes", successes), ("trials", trials)):
        # counts summed in floating point (e.g. 12.0) are accepted
        if isinstance(value, float) and value.is_integer():
            continue
        check_int(value, name)
    n = check_int(int(trials), "trials", lo=1)
    s = check_int(int(successes), "successes", lo=0, hi=n)
    if z is None:
        confidence = check_real(confidence, "confidence", lo=0, hi=1, lo_open=True, hi_open=True)
        z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    else:
        z = check_real(z, "z", lo=0, lo_open=True)
    p = s / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # At s = 0 or s = n one end is exactly 0 or 1; say so rather than trust rounding.
    lo = 0.0 if s == 0 else max(0.0, centre - half)
    hi = 1.0 if s == n else min(1.0, centre + half)
    return lo, hi


__all__ = ["wilson_interval"]
