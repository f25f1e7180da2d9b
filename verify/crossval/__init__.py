"""Cross-validation of other people's implementations against the references and the engine."""

from verify.crossval.implementations import (
    CrossvalResult, Mismatch, ProfileConventions, TargetRaised, XorConventions, crossval_file,
    crossval_profile_function, crossval_xor, load_callable, read_table,
)

__all__ = [
    "CrossvalResult", "Mismatch", "ProfileConventions", "TargetRaised", "XorConventions",
    "crossval_file", "crossval_profile_function", "crossval_xor", "load_callable", "read_table",
]
