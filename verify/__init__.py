"""The verification side: sympy derivations (:mod:`verify.symbolic`), 50-digit references and
bounds (:mod:`verify.reference`), statistics (:mod:`verify.stats`), experiments and run
plans (:mod:`verify.experiments`), cross-validation of other implementations (:mod:`verify.crossval`),
the claims registry, report and figures (:mod:`verify.report`), and the CLI (:mod:`verify.cli`).
``docs/architecture.md`` draws the layers.

The names below are re-exported lazily: ``import verify`` loads nothing heavy.
"""

import importlib

_EXPORTS = {
    "numeric.validation": ("InputError",),
    "verify.report.claims": ("CLAIMS", "Claim", "get_claim"),
    "verify.common.tolerances": ("TOLERANCES", "Tolerance", "assert_close", "is_close",
                                 "tolerance"),
    "verify.reference.population": ("population_loss", "population_grad"),
    "verify.reference.bounds": ("blowup_bound", "bounds_report", "crossover", "n_params",
                                "packing_crossover", "theorem_exponent"),
    "verify.reference.linear_bound": ("erf_attention_loss_bound", "linear_attention_loss_bound"),
    "verify.experiments.fits": ("sweep_laws", "samples_laws"),
    "verify.stats.thresholds": ("law_summary", "fit_threshold_curves", "compare_laws"),
    "verify.stats.intervals": ("clopper_pearson", "wilson_interval"),
    "verify.symbolic.profile_proofs": ("prove_all", "formula_profile"),
    "verify.reference.random_functions": ("expected_K0", "variance_K0",
                                          "enumerate_random_functions", "poisson_limit"),
    "verify.experiments.random_function_sampling": ("monte_carlo_K0",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name):
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def __dir__():
    return __all__
