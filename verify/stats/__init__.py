"""Statistics of the verification side, numpy and scipy only (no torch), so that they run on
saved results too:

- :mod:`~verify.stats.intervals`: confidence intervals, each defined once (Clopper-Pearson,
  Wilson, Student-t mean, order-statistic median bounds, a normal variance, the crossing of a
  non-increasing proportion curve);
- :mod:`~verify.stats.likelihood`: binomial likelihood fits with profile-likelihood intervals,
  and the quasi-likelihood level;
- :mod:`~verify.stats.thresholds`: threshold curves, their power and polylog laws, and the
  comparison of laws;
- :mod:`~verify.stats.bootstrap`: the parametric bootstrap of a fit;
- :mod:`~verify.stats.power`: error rates and sample sizes of decision rules;
- :mod:`~verify.stats.decisions`: a claim test's :class:`Decision` and the rules that make one;
- :mod:`~verify.stats.checks`: the argument checks these share.

The public names of those modules are re-exported here.
"""

from verify.stats.bootstrap import BootstrapResult, parametric_bootstrap
from verify.stats.decisions import (
    OUTCOMES, Decision, contains, exact, inside, lower_bound_above, meets, upper_bound_below,
)
from verify.stats.intervals import (
    SIDES, bonferroni_level, clopper_pearson, crossing_interval, mean_interval, median_bounds,
    variance_interval, wilson_interval,
)
from verify.stats.likelihood import BinomialFit, FitFailure, fit_binomial, quasi_level
from verify.stats.power import (
    crossing_comparison_miss, exponent_rule_error_rates, paired_share_outcomes,
    proportion_error_rates, sample_size_for_proportion, simulate_error_rate, window_mean_outcomes,
)
from verify.stats.thresholds import (
    LAWS, LINKS, ThresholdFit, compare_laws, fit_threshold_curves, law_summary,
)

__all__ = [
    "SIDES", "wilson_interval", "clopper_pearson", "mean_interval", "median_bounds",
    "variance_interval", "bonferroni_level", "crossing_interval",
    "FitFailure", "BinomialFit", "fit_binomial", "quasi_level",
    "LAWS", "LINKS", "ThresholdFit", "fit_threshold_curves", "compare_laws", "law_summary",
    "BootstrapResult", "parametric_bootstrap",
    "proportion_error_rates", "sample_size_for_proportion", "crossing_comparison_miss", "simulate_error_rate",
    "exponent_rule_error_rates", "window_mean_outcomes", "paired_share_outcomes",
    "OUTCOMES", "Decision", "upper_bound_below", "lower_bound_above", "inside", "contains",
    "meets", "exact",
]
