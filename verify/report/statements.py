"""Sentences that state a measured result, each computed by one function from the fitted
numbers, so that a figure's title and the documents (README.md, docs/results-*.md, through
:mod:`verify.report.documents`) cannot say different things about the same data.

- :func:`law_verdict`: polylog against power for a threshold-law summary
  (:func:`verify.stats.thresholds.law_summary`) by the rule fixed in advance (log-likelihood
  margin), with the difference on the raw and on the quasi-likelihood scale;
- :func:`sx4_fit`: SX-4's one fit, :func:`verify.experiments.fits.sweep_laws` of
  ``xor_sweep.json`` with the margin of :data:`verify.experiments.claim_rules.SX4`;
- :func:`sx4_statement`: the SX-4 sentence of the documents, built on :func:`law_verdict`.
"""

from __future__ import annotations

import math
from pathlib import Path

from numeric.validation import InputError


def _superscript(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))


def decade(x) -> str:
    """``10²`` for 100: a power of ten as the documents write it."""
    e = round(math.log10(float(x)))
    return f"10{_superscript(e)}" if math.isclose(10.0 ** e, float(x)) else f"{float(x):g}"


def dispersion(summary: dict) -> float:
    """The free fit's deviance per degree of freedom (the quasi-likelihood scale)."""
    return summary["deviance"] / summary["dof"] if summary["dof"] > 0 else float("nan")


def law_verdict(summary: dict) -> str:
    """Polylog against power in ``summary`` (a law summary with both laws), as the rule decides
    it: the law ahead by more than the margin, or ``indistinguishable``; with the
    log-likelihood difference, and that difference divided by the dispersion (how far the
    lead carries once the shape's misfit is allowed for)."""
    if "comparison" not in summary:
        raise InputError("law_verdict: the summary has no law comparison (fewer than two groups)")
    diff = summary["loglik"]["polylog"] - summary["loglik"]["power"]
    margin, quasi = summary["margin"], abs(diff) / dispersion(summary)
    quasi_text = (f"{quasi:.1f} on the quasi-likelihood scale, "
                  f"{'inside' if quasi <= margin else 'past'} the margin")
    verdict = summary["comparison"]
    if verdict == "indistinguishable":
        return (f"power and polylog indistinguishable (log-likelihood difference {abs(diff):.1f} "
                f"< margin {margin:g}; {quasi_text})")
    other = "power" if verdict == "polylog" else "polylog"
    return (f"{verdict} ahead of {other} by {abs(diff):.1f} log-likelihood units "
            f"(margin {margin:g}; {quasi_text})")


def sx4_fit(data_dir="docs/data") -> dict:
    """SX-4's fit: the thresholds and laws of ``data_dir/xor_sweep.json`` by binomial
    likelihood over all cells, with the claim's margin; ``cells``: how many cells."""
    from verify.experiments.claim_rules import SX4
    from verify.experiments.fits import sweep_laws
    from verify.experiments.records import load_cells

    cells = load_cells(Path(data_dir) / "xor_sweep.json")
    return sweep_laws(cells, margin=SX4.law_margin) | {"cells": len(cells)}


def sx4_statement(summary: dict) -> str:
    """The SX-4 sentence of the documents (``summary``: :func:`sx4_fit`): range and number of cells, the two laws with their
    95 % intervals, :func:`law_verdict`, and what is decided."""
    from verify.experiments.claim_rules import SX4

    ds = sorted(summary["thresholds"])
    power, polylog = summary["power"], summary["polylog"]
    return (f"over `d` = {decade(ds[0])} … {decade(ds[-1])} ({summary['cells']} `(d, m)` cells, binomial "
            f"likelihood over all of them) `m*(d)` grows like `d^{power['alpha']:.3f} "
            f"[{power['interval'][0]:.3f}, {power['interval'][1]:.3f}]` or `(ln d)^{polylog['k']:.2f} "
            f"[{polylog['interval'][0]:.2f}, {polylog['interval'][1]:.2f}]`; by the rule fixed in "
            f"advance: **{law_verdict(summary)}**. Decided: the 99 % upper bound of α lies below "
            f"{SX4.alpha_ceiling:g}")


__all__ = ["decade", "dispersion", "law_verdict", "sx4_fit", "sx4_statement"]
