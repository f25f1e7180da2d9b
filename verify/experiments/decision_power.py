r"""Power calculations of the decision rules: how often a rule fails correct code and how often
it passes the alternative it is meant to reject, by parametric simulation from a fitted model.

The truth is a :class:`~verify.experiments.inference.ThresholdFit` of a power law fitted to a
full sweep; a *design* is the plan of a quick test (per ``d``: the ``m`` grid and the seeds per
cell). Each simulated run draws binomial counts for the design from the truth (with its
exponent replaced for the alternative), refits, and applies the rule.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from numeric.validation import check_int, check_real
from verify.experiments.inference import fit_threshold_curves, quasi_level, simulate_error_rate


def _with_exponent(truth, exponent):
    theta = truth.fit.theta.copy()
    theta[1] = exponent
    return dataclasses.replace(truth, fit=dataclasses.replace(truth.fit, theta=theta))


def _design_probabilities(truth, design):
    cells = [(d, m, seeds) for d, ms, seeds in design for m in ms]
    p = np.array([truth.probability(d, m) for d, m, _ in cells])
    return cells, p


def exponent_rule_error_rates(truth, design, *, ceiling=0.3, level=0.99, alternative=None,
                              n_sim=1000, rng=0) -> dict:
    r"""Error rates of "pass iff the one-sided ``level`` upper bound of the exponent < ``ceiling``"
    (the quasi-likelihood bound, scaled by the dispersion of each simulated fit, as the SX-4 test
    applies it).

    Args:
        truth: a power-law :class:`~verify.experiments.inference.ThresholdFit` whose groups
            include every ``d`` of ``design`` (the lapses are per group).
        design: rows ``(d, m grid, seeds per cell)``.
        alternative: the exponent of the alternative (default ``ceiling``).
    Returns:
        dict with ``false_fail`` (correct code, the truth's exponent) and ``false_pass``
        (the alternative), each ``(rate, (lo, hi))`` with a 95 % Clopper-Pearson interval, and
        the mean and standard deviation of the simulated upper bounds under the truth.
    """
    ceiling = check_real(ceiling, "ceiling")
    n_sim = check_int(n_sim, "n_sim", lo=1)
    alternative = ceiling if alternative is None else check_real(alternative, "alternative")
    gen = np.random.default_rng(rng)
    bounds = []

    def run(model, record):
        cells, p = _design_probabilities(model, design)
        trials = np.array([s for _, _, s in cells])

        def once(g):
            k = g.binomial(trials, p)
            fit = fit_threshold_curves([c[0] for c in cells], [c[1] for c in cells], k, trials, law="power")
            hi = fit.exponent_interval(conf=quasi_level(level, fit.dispersion, "upper"), side="upper")[1]
            if record:
                bounds.append(hi)
            return bool(hi >= ceiling)
        return once

    false_fail = simulate_error_rate(run(truth, True), n_sim, gen)
    passes = simulate_error_rate(run(_with_exponent(truth, alternative), False), n_sim, gen)
    return {"truth_exponent": truth.exponent, "alternative": alternative, "ceiling": ceiling, "level": level,
            "n_sim": n_sim, "false_fail": false_fail,
            "false_pass": (1 - passes[0], (1 - passes[1][1], 1 - passes[1][0])),
            "upper_bound_mean": float(np.mean(bounds)), "upper_bound_sd": float(np.std(bounds))}


__all__ = ["exponent_rule_error_rates"]
