"""The symbolic and high-precision side: sympy derivations, mpmath references and bounds,
LaTeX, cross-validation, the CLI and reports.

Modules here never import :mod:`numeric` at import time, except the CLI commands, which
import it lazily when they run.
"""

from .claims import CLAIMS, Claim, get_claim
from .errors import InputError
from .reference import population_grad, population_loss  # mpmath only; sympy loads lazily
from .tolerances import TOLERANCES, Tolerance, assert_close, is_close, tolerance

__all__ = [
    "CLAIMS", "Claim", "get_claim", "InputError",
    "TOLERANCES", "Tolerance", "assert_close", "is_close", "tolerance",
    "population_loss", "population_grad",
]
