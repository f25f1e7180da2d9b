"""Cross-validation of other people's implementations against boolverify's references.

Public API: the assertions for another project's test suite (:mod:`verify.crossval.library`),
the conventions objects, the checks behind ``boolverify crossval`` and their result and error
types. A ``"MODULE:FUNCTION"`` target is executed as code (in a child process).
"""

from verify.crossval.implementations import (
    CrossvalResult, Mismatch, ProfileConventions, XorConventions, crossval_file,
    crossval_profile_function, crossval_xor, read_table, seeded_table,
)
from verify.crossval.library import (
    assert_population_grad_matches, assert_population_loss_matches, assert_profile_matches,
)
from verify.crossval.target import (
    TargetDied, TargetExited, TargetFailed, TargetRaised, TargetTimedOut, load_callable,
)

__all__ = [
    "assert_population_grad_matches", "assert_population_loss_matches", "assert_profile_matches",
    "XorConventions", "ProfileConventions",
    "crossval_xor", "crossval_file", "crossval_profile_function", "read_table", "seeded_table",
    "CrossvalResult", "Mismatch",
    "TargetFailed", "TargetRaised", "TargetExited", "TargetDied", "TargetTimedOut", "load_callable",
]
