r"""Thresholds of the paper-A sweeps (SX-4, SX-6, SX-7) and their laws, by binomial likelihood
over all cells (:mod:`verify.experiments.inference`).

- :func:`law_summary`: per group (``d``) the sizes at which the success curve reaches given
  levels, with profile-likelihood intervals, and over several groups the power and polylog
  laws of the threshold with their exponents, intervals and comparison;
- :func:`sweep_laws` / :func:`samples_laws`: the same for one-step sweeps (``m``) and for
  finite-sample sweeps (``n``, conditional on the population step).

The earlier method (the first grid value whose isotonic success rate reaches a level, then
least squares of those few quantised points) is retired: it could not tell the laws apart and
gave no intervals.

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

from verify.experiments.statistics import wilson_interval  # noqa: F401  (re-exported: the sweeps' intervals)


def law_summary(group, size, successes, trials, *, levels=(0.5, 0.9), conf=0.95, margin=3.0) -> dict:
    r"""Thresholds and their law from binomial likelihood over all cells
    (:func:`verify.experiments.inference.fit_threshold_curves`): the success curve of each
    group (``d``) rises in ``ln size`` (``m`` or ``n``) with a common slope and a lapse per group.

    Returns:
        dict with ``thresholds`` (``group -> {level: (estimate, lo, hi)}``, profile-likelihood
        intervals at ``conf``, quasi-likelihood: widened by the fit's dispersion), and where two or more groups were measured ``power``
        (``alpha`` with its interval and ``curve``, the fitted 0.5-level threshold on a grid of
        groups), ``polylog`` (``k``, its interval and ``curve``; groups > 1),
        ``loglik`` per law and ``comparison`` (``"power"``, ``"polylog"`` or
        ``"indistinguishable"`` with log-likelihood margin ``margin``), plus ``deviance`` and
        ``dof`` of the free fit (a deviance far above its degrees of freedom says the logistic
        shape is approximate and the intervals optimistic).
    """
    from verify.experiments.inference import compare_laws, fit_threshold_curves, quasi_level

    free = fit_threshold_curves(group, size, successes, trials, law="free")
    free_conf = quasi_level(conf, free.dispersion)
    out = {"thresholds": {}, "slope": free.slope, "lapses": free.lapses,
           "deviance": free.fit.deviance, "dof": free.fit.n_cells - free.fit.n_params,
           "loglik": {"free": free.loglik}}
    for g in free.groups:
        g = int(g) if float(g).is_integer() else float(g)
        out["thresholds"][g] = {q: (free.threshold(g, q), *free.threshold_interval(g, q, free_conf)) for q in levels}
    if free.groups.size >= 2:
        lo, hi = float(free.groups.min()), float(free.groups.max())
        grid = [lo * (hi / lo) ** (t / 48) for t in range(49)]
        power = fit_threshold_curves(group, size, successes, trials, law="power")
        out["power"] = {"alpha": power.exponent, "interval": power.exponent_interval(quasi_level(conf, power.dispersion)),
                        "curve": [(g, power.threshold(g, 0.5)) for g in grid]}
        out["loglik"]["power"] = power.loglik
        if lo > 1:
            polylog = fit_threshold_curves(group, size, successes, trials, law="polylog")
            out["polylog"] = {"k": polylog.exponent, "interval": polylog.exponent_interval(quasi_level(conf, polylog.dispersion)),
                              "curve": [(g, polylog.threshold(g, 0.5)) for g in grid]}
            out["loglik"]["polylog"] = polylog.loglik
            out["comparison"] = compare_laws(polylog, power, margin=margin)
            out["margin"] = margin
    return out


def sweep_laws(cells, **kw) -> dict:
    """:func:`law_summary` of a one-step sweep (``m`` per ``d``; success of the default step)."""
    return law_summary([c.d for c in cells], [c.m for c in cells], [c.successes for c in cells],
                       [c.n_seeds for c in cells], **kw)


def samples_laws(cells, **kw) -> dict:
    """:func:`law_summary` of an empirical-step sweep (``n`` per ``d``): success of the
    ``n``-sample step among the instances whose population step succeeds (cells without any
    are left out)."""
    kept = [c for c in cells if c.population_successes > 0]
    return law_summary([c.d for c in kept], [c.n for c in kept], [c.both_successes for c in kept],
                       [c.population_successes for c in kept], **kw)


__all__ = ["law_summary", "sweep_laws", "samples_laws", "wilson_interval"]
