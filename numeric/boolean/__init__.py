"""Boolean functions on {0,1}^N and their sensitivity profiles.

The package of the Boolean functions both papers' claims are stated on; this module is its public
face. The code lives in private modules: ``_functions`` (the registry of Boolean functions by
name: truth tables, labels, exact facts), ``_sensitivity`` (exact sensitivity profiles, Fourier
and average sensitivities) and ``_bitsliced`` (the bit-sliced CPU fast path of the profile).
"""

from numeric.boolean._bitsliced import popcount_sum
from numeric.boolean._functions import (
    BOOLEAN_FUNCTIONS, BooleanFunction, function_entry, registry_names, all_strings, baseline_accuracy, bit_counts, bit_view, check_N, exact_mean_sensitivity,
    exact_profile_fraction, hamming_weights, labels, memory_limit, smallest_N, truth_table,
)
from numeric.boolean._sensitivity import (
    as_table, average_sensitivity, character_matrix_average_sensitivity, fourier_average_sensitivity,
    from_msb_first, min_sensitivity, profile, walsh_hadamard,
)

__all__ = [
    "BooleanFunction", "BOOLEAN_FUNCTIONS", "function_entry", "registry_names", "truth_table", "labels", "all_strings", "hamming_weights", "smallest_N", "check_N", "baseline_accuracy",
    "exact_mean_sensitivity", "exact_profile_fraction", "memory_limit", "bit_counts", "bit_view",
    "profile", "min_sensitivity", "average_sensitivity", "fourier_average_sensitivity",
    "character_matrix_average_sensitivity", "walsh_hadamard", "as_table", "from_msb_first", "popcount_sum",
]
