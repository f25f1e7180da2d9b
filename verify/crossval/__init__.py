"""Cross-validation of other people's implementations against boolverify's references.

Public API: the assertions for another project's test suite (:mod:`verify.crossval.library`),
the conventions objects, the checks behind ``boolverify crossval`` and their result and error
types. A ``"MODULE:FUNCTION"`` target is executed as code (in a child process; with
``python=``, one of another interpreter, :mod:`verify.crossval.remote`).
"""

from verify.crossval.claim_files import crossval_file
from verify.crossval.influence_functions import InfluenceConventions, crossval_influences
from verify.crossval.library import (
    assert_influences_match, assert_population_grad_matches, assert_population_loss_matches, assert_profile_matches,
)
from verify.crossval.profile_functions import ProfileConventions, crossval_profile_function, seeded_table
from verify.crossval.results import CrossvalResult, Mismatch
from verify.crossval.table_files import read_table
from verify.crossval.target import (
    TargetDied, TargetExited, TargetFailed, TargetInterrupted, TargetRaised, TargetTimedOut, load_callable,
)
from verify.crossval.xor_functions import XorConventions, crossval_xor

__all__ = [
    "assert_population_grad_matches", "assert_population_loss_matches", "assert_profile_matches",
    "assert_influences_match",
    "XorConventions", "ProfileConventions", "InfluenceConventions",
    "crossval_xor", "crossval_file", "crossval_profile_function", "crossval_influences", "read_table", "seeded_table",
    "CrossvalResult", "Mismatch",
    "TargetFailed", "TargetRaised", "TargetExited", "TargetDied", "TargetTimedOut", "TargetInterrupted",
    "load_callable",
]
