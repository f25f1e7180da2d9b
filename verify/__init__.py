"""The symbolic and high-precision side: sympy derivations, mpmath references and bounds,
LaTeX, cross-validation, the CLI and reports.

Modules here never import :mod:`numeric` at import time, except the CLI commands, which
import it lazily when they run.
"""

from .claims import CLAIMS, Claim, get_claim
from .errors import InputError
from .reference import population_grad, population_loss  # mpmath only; sympy loads lazily
from .tolerances import TOLERANCES, Tolerance, assert_close, is_close, tolerance
from .bounds import (  # paper-B bounds, mpmath only (issue 6)
    blowup_bound, bounds_report, crossover, n_params, packing_crossover, theorem_exponent,
)

from .fits import (  # paper-A sweep statistics, numpy only (issue 4)
    compare_fits, fit_polylog, fit_power, isotonic, m_star_from_cells, parameter_table, threshold,
    wilson_interval,
)
from .linear_bound import erf_attention_loss_bound, linear_attention_loss_bound  # (issue 4)

__all__ = [
    "CLAIMS", "Claim", "get_claim", "InputError",
    "TOLERANCES", "Tolerance", "assert_close", "is_close", "tolerance",
    "population_loss", "population_grad",
    "blowup_bound", "bounds_report", "crossover", "n_params", "packing_crossover", "theorem_exponent",
    "compare_fits", "fit_polylog", "fit_power", "isotonic", "m_star_from_cells", "parameter_table",
    "threshold", "wilson_interval", "erf_attention_loss_bound", "linear_attention_loss_bound",
]

# Sensitivity-profile proofs (issue 5): sympy-heavy, so resolved on first access only.
_LAZY_SENSITIVITY = (
    "prove_all", "formula_profile", "expected_K0", "variance_K0", "enumerate_random_functions",
    "monte_carlo_K0", "poisson_limit",
)
__all__ += list(_LAZY_SENSITIVITY)


def __getattr__(name):
    if name in _LAZY_SENSITIVITY:
        from . import sensitivity_proofs

        return getattr(sensitivity_proofs, name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")
