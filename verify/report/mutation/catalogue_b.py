r"""Paper B's mutants: sensitivity profiles, random transformers, bounds and training (claims
SG-1 to SG-9) and the code under them.

:data:`PAPER_B` is the catalogue: each entry names the bug, the public target it wraps, its maker
(:mod:`verify.report.mutation.makers_b_models`, :mod:`verify.report.mutation.makers_b_bounds`),
its probe (:mod:`verify.report.mutation.probes_b`) and the claim files expected to catch it.
torch, numpy and sympy are imported inside makers and probes: the catalogue stays cheap to import.
"""

from __future__ import annotations

from verify.report.mutation.engine import Mutant
from verify.report.mutation.makers_b_bounds import majority_K0_binomial_of_N
from verify.report.mutation.makers_b_bounds import (
    attention_from_midpoints, blowup_exponent_L, box_points_at_centre, certificate_first_half,
    crossing_at_quarter, crossover_direct_off_by_one, lower_end_next_point, lower_rounded_up,
    mul_two_products, n_params_without_ln, no_widening, one_side_of_centre, per_point_level,
    refused_end_reported, reseeded_per_chunk, sampler_top_bit_clear, sigma_ignored,
    square_positive_across_zero, strings_msb_first, theorem_exponent_minus_4, two_corners_only,
    variance_union_off_by_one, z_zeroed,
)
from verify.report.mutation.makers_b_models import (
    accuracy_count_off_by_one, as_over_N, average_sensitivity_per_bit, byte_swaps_shifted,
    config_eps_ignored, control_labels_three_bits, exact_influence_mean, fast_eval_ignores_input,
    held_out_includes_training, ignores_input, init_scheme_swapped, labels_rolled, layer_norm_under,
    majority_non_strict, margin_all_accepted_nonconstant, margin_table_new_model_per_N,
    median_bound_one_step_inward, median_readout_ties_read_one, model_blocks_restart_seed,
    no_positional_embedding, outcomes_claim_swapped, pair_masks_shifted, pairs_first_positions,
    parity_skips_last_bit, plan_models, positions_but_last, pre_ln_runs_post_ln,
    preset_final_ln_dropped, public_gaussian_positions_normal, random_function_K0_exponent_N,
    readout_bias_drawn_with_layer_biases, sg8_control_budget_halved, sharpness_minus_one,
    sinusoid_sin_cos_swapped, slopes_axes_swapped, slopes_log10, small_eps_dropped,
    runs_share_first_stream, smallest_group_one, subset_with_replacement, threads_unpinned,
    training_first_reads_last_bit,
    training_majority_non_strict, training_parity_first_10_bits,
)
from verify.report.mutation.probes_b import majority_claim_probe
from verify.report.mutation.probes_b import (
    always_one_accuracy_probe, attention_enclosure_probe, batched_probe,
    bhattamishra_final_ln_probe, blowup_probe, bonferroni_probe, box_corners_probe,
    certified_last_string_flipped_probe, control_labels_probe, crossover_probe,
    directions_of_two_chunks_probe, exact_influence_probe, exp_enclosure_probe, exponent_probe,
    fast_table_probe, first_sharpness_probe, grouped_batches_probe, interval_product_probe, labels_of_probe,
    largest_certified_probe, linear_probe_supremum_probe, lower_end_probe, margin_probe,
    margin_table_probe, median_bound_probe, median_readout_probe, monte_carlo_probe, n_params_probe,
    output_enclosures_probe, pairs_probe, parity_statistics_probe, perturbed_probe, pre_ln_probe,
    profile_probe, public_gaussian_pos_probe, radius_interval_probe, random_blocks_probe,
    random_function_K0_probe, readout_bias_drawn_probe, sequential_outcomes_probe,
    sg8_control_steps_probe, sinusoid_table_probe, slopes_half_probe, slopes_probe, smallest_group_probe,
    square_across_zero_probe, table_probe, threads_inside_training_probe, tiny_run_probe,
    training_subset_probe, transformer_probe, variance_probe,
)


_SG1 = "theorems/test_SG1_profiles.py"
_SG2 = "theorems/test_SG2_random_functions.py"
_SG3 = "theorems/test_SG3_blowup_bound.py"
_SG4 = "theorems/test_SG4_influence.py"
_SG5 = "theorems/test_SG5_margin_recognition.py"
_SG6 = "theorems/test_SG6_random_init_sensitivity.py"
_SG7 = "theorems/test_SG7_measure_zero_targets.py"
_SG8 = "theorems/test_SG8_training.py"
_SG9 = "theorems/test_SG9_local_volume.py"

# the targets, one line each (the public seams the mutants wrap)
_NEIGHBOUR_MASKS = "numeric.boolean._bitsliced.NEIGHBOUR_MASKS"
_NEIGHBOUR_SWAPS = "numeric.boolean._sensitivity.NEIGHBOUR_SWAPS"
_TRUTH_TABLE = "numeric.boolean.truth_table"
_LABELS = "numeric.boolean.labels"
_MODEL = "numeric.transformer.BooleanTransformer"
_RUN = "numeric.transformer.BooleanTransformer.run"
_LAYER_NORM = "numeric.transformer.BooleanTransformer.layer_norm"
_FAST_RUN = "numeric.transformer._eval.FastEvaluator.run"
_READOUT_TABLE = "numeric.transformer.readout_table"
_MARGIN = "numeric.transformer.margin_recognition"
_RANDOM = "verify.experiments.random_transformers"
_BOUNDS = "verify.reference.bounds"
_MONTE_CARLO = "verify.experiments.random_function_sampling.monte_carlo_K0"
_VARIANCE_K0 = "verify.reference.random_functions.variance_K0"
_TRAINING_LABELS = "numeric.boolean.labels"
_PERTURBED = "numeric.transformer.perturbed_parameters"
_BATCHED = "numeric.transformer.batched_outputs"
_CROSSING_INTERVAL = "verify.stats.intervals.crossing_interval"
_CERTIFIED_STRINGS = "numeric.transformer._certified_volume.certified_strings"
_ATTENTION_ENCLOSURE = "numeric.transformer.attention_weights"
_ENCLOSURES = "numeric.transformer.interval_outputs"
_BOX_POINTS = "numeric.transformer.box_points"
_INTERVALS = "numeric.intervals"
_LARGEST_CERTIFIED = "verify.experiments.certified_volume.largest_certified_half_width"
_BONFERRONI = "verify.stats.intervals.bonferroni_level"
_SHARPNESS = "numeric.transformer.attention_sharpness"


PAPER_B: tuple[Mutant, ...] = (
    # profiles and Boolean functions
    Mutant("bitsliced_neighbour_off_by_one",
           "bit-sliced profile: bit 0 pairs strings 2k+1 and 2k+2 (mask 0xAAAA... for 0x5555...)",
           _NEIGHBOUR_MASKS, pair_masks_shifted, profile_probe("first", 8), (_SG1, _SG7)),
    Mutant("bytes_neighbour_off_by_one",
           "byte profile (N < 6): bits 0 and 1 flip bit n + 1 instead of bit n",
           _NEIGHBOUR_SWAPS, byte_swaps_shifted, profile_probe("first", 4), (_SG1, _SG2, _SG7)),
    # f -> 1 - f(complement x) maps strict to non-strict MAJORITY and keeps the profile: the
    # profile claims (SG-1, SG-7) cannot see this bug; the table is judged against SG-8's labels
    Mutant("majority_table_non_strict", "MAJORITY truth table 1[|x| >= N/2]: ties count as 1",
           _TRUTH_TABLE, majority_non_strict, table_probe("majority", 4), (_SG8,)),
    Mutant("parity_skips_last_bit", "PARITY over bits 0..N-2 (range(N - 1))",
           _TRUTH_TABLE, parity_skips_last_bit, table_probe("parity", 4), (_SG1, _SG7)),
    # training targets
    Mutant("training_majority_non_strict", "training labels of MAJORITY 1[2|x| >= N]",
           _LABELS, training_majority_non_strict, labels_of_probe("majority"), (_SG8,)),
    Mutant("training_parity_first_10_bits", "training labels of PARITY from the first 10 bits only",
           _LABELS, training_parity_first_10_bits, labels_of_probe("parity"), (_SG8,)),
    Mutant("training_first_reads_last_bit", "training labels of FIRST from the last bit (MSB-first order)",
           _LABELS, training_first_reads_last_bit, labels_of_probe("first"), (_SG8,)),
    # the transformer
    Mutant("transformer_ignores_input", "the transformer evaluates the all-zero string for every input",
           _RUN, ignores_input, transformer_probe(), (_SG6, _SG4, _SG5, _SG8)),
    Mutant("fast_evaluation_ignores_input",
           "the table-driven enumeration evaluates the all-zero string for every index",
           _FAST_RUN, fast_eval_ignores_input, fast_table_probe, (_SG6,)),
    Mutant("no_positional_embedding", "positional embedding never initialised or trained (zero)",
           f"{_MODEL}.__init__", no_positional_embedding, transformer_probe(), (_SG8,)),
    Mutant("layer_norm_ignores_eps", "layer norm 1/sqrt(var) without the epsilon",
           _LAYER_NORM, layer_norm_under(eps=0.0), transformer_probe(eps=0.5, scheme="uniform"), (_SG3,)),
    Mutant("margin_all_accepted_nonconstant",
           "margin recognition: the all-accepting function counted as non-constant",
           _MARGIN, margin_all_accepted_nonconstant, margin_probe, (_SG5,)),
    Mutant("influence_slope_log10", "log-log slopes of log10(influence) against ln N",
           f"{_RANDOM}.per_model_slopes", slopes_log10, slopes_probe, (_SG4,)),
    # bounds and random functions
    Mutant("blowup_bound_exponent_L", "blowup bound (1 + 1/sqrt(eps))^L instead of ^(2L)",
           f"{_BOUNDS}.blowup_bound", blowup_exponent_L, blowup_probe, (_SG3,)),
    Mutant("theorem_exponent_minus_4", "Theorem 4.5 exponent (D-1)/(2L) - 4 instead of - 5",
           f"{_BOUNDS}.theorem_exponent", theorem_exponent_minus_4, exponent_probe, (_SG6,)),
    Mutant("crossover_direct_off_by_one", "direct crossover: the last N with N^a >= 2^N, not N* after it",
           f"{_BOUNDS}.crossover_direct", crossover_direct_off_by_one, crossover_probe, (_SG6,)),
    Mutant("random_functions_int64_max",
           "random functions drawn below int64's maximum: bit 63 never set, one function in 64 constant",
           _MONTE_CARLO, sampler_top_bit_clear, monte_carlo_probe, (_SG2,)),
    Mutant("variance_K0_union_off_by_one",
           "Var[K_0] derivation: overlapping neighbourhoods of 2N + 1 points instead of 2N",
           _VARIANCE_K0, variance_union_off_by_one, variance_probe, (_SG2,)),
    # model conventions and the density-matched SG-6 references
    Mutant("layer_norm_unbiased_variance", "layer norm with the unbiased variance (divide by D - 1)",
           _LAYER_NORM, layer_norm_under(ln_variance="unbiased"), transformer_probe(), (_SG6,)),
    Mutant("random_function_K0_exponent_N", "E_p[K_0] of a Bernoulli(p) random function with p^N, not p^(N+1)",
           f"{_RANDOM}.random_function_K0", random_function_K0_exponent_N, random_function_K0_probe, (_SG6,)),
    Mutant("median_bound_one_step_inward", "the order-statistic median bound one order statistic too tight",
           "verify.stats.intervals.median_bounds", median_bound_one_step_inward, median_bound_probe, (_SG6,)),
    # SG-8 on rules fixed in advance: labels out of step with their strings, a wrong control
    Mutant("training_labels_rolled", "training labels shifted by one row of the batch (row i gets row i-1's)",
           _LABELS, labels_rolled, labels_of_probe("majority"), (_SG8,)),
    Mutant("training_control_parity_three_bits", "the 2-sparse control's labels are the parity of bits 0-2",
           _TRAINING_LABELS, control_labels_three_bits, control_labels_probe, (_SG8,)),
    # SG-4, SG-5: the eps ablation and the exact supremum
    Mutant("transformer_config_eps_ignored", "the transformer runs at eps = 1e-5 whatever its config's eps",
           f"{_MODEL}.__init__", config_eps_ignored, transformer_probe(eps=0.5, scheme="uniform"), (_SG4, _SG5)),
    Mutant("influence_slope_axes_swapped", "log-log slopes of log N against log(influence) (axes swapped)",
           f"{_RANDOM}.per_model_slopes", slopes_axes_swapped, slopes_half_probe, (_SG4,)),
    Mutant("influence_pairs_first_positions", "influence pairs flip the first positions 0..k-1 of every string",
           f"{_RANDOM}.influence_pairs", pairs_first_positions, pairs_probe, (_SG4,)),
    Mutant("transformer_small_eps_dropped", "the transformer runs at eps = 0 when its config's eps is below 1e-3",
           f"{_MODEL}.__init__", small_eps_dropped, transformer_probe(eps=1e-5, scheme="uniform"), (_SG4, _SG5)),
    Mutant("held_out_includes_training_strings",
           "held-out accuracy over the complement of half the training subset (training strings counted)",
           "verify.experiments.training.evaluate", held_out_includes_training, tiny_run_probe("held_out"), (_SG8,)),
    Mutant("accuracy_count_off_by_one", "a trained model's accuracy counts one string too many as correct",
           "verify.experiments.training.evaluate", accuracy_count_off_by_one, always_one_accuracy_probe, (_SG8,)),
    Mutant("training_as_over_N", "trained models' average sensitivity reported as as/N",
           "verify.experiments.training.evaluate", as_over_N, tiny_run_probe("as"), (_SG8,)),
    Mutant("xavier_normal_draws_uniform", "the Xavier-normal scheme draws Xavier-uniform values",
           "numeric.transformer.initialize_", init_scheme_swapped("xavier_normal", "xavier_uniform"),
           transformer_probe(scheme="xavier_normal"), (_SG6,)),
    Mutant("gaussian_init_draws_box", "the Gaussian scheme draws from the uniform box U(-B, B)",
           "numeric.transformer.initialize_", init_scheme_swapped("gaussian", "uniform"),
           transformer_probe(scheme="gaussian"), (_SG6,)),
    Mutant("margin_table_new_model_per_N", "the recognition table draws a new model at each N (not one vector at both)",
           f"{_RANDOM}.margin_table", margin_table_new_model_per_N, margin_table_probe, (_SG5,)),
    Mutant("sg4_plan_models_30", "SG-4's quick plan with 30 models, the size before its power design",
           "verify.experiments.plans.SG4_FAST", *plan_models("SG4_FAST", 30), (_SG4,)),
    Mutant("sg5_plan_models_400", "SG-5's quick plan with 400 models, the size before its power design",
           "verify.experiments.plans.SG5_FAST", *plan_models("SG5_FAST", 400), (_SG5,)),
    Mutant("exact_influence_mean", "the exact supremum of the influence is the largest mean over strings",
           f"{_RANDOM}.exact_influence_maximum", exact_influence_mean, exact_influence_probe, (_SG4,)),
    # SG-8: the controls' budget, the training worker's threads, the design's outcome computation
    Mutant("sg8_control_budget_halved", "SG-8's positive controls trained on half PARITY's steps",
           "verify.experiments.plans.SG8_FAST", sg8_control_budget_halved, sg8_control_steps_probe, (_SG8,)),
    Mutant("training_threads_unpinned", "training runs on the caller's thread count and algorithms (not pinned)",
           "verify.experiments.training.pinned_threads", threads_unpinned, threads_inside_training_probe, (_SG8,)),
    Mutant("grouped_runs_share_first_stream", "runs trained together all draw batches from the first run's stream",
           "verify.experiments.grouped_training.fit_runs", runs_share_first_stream, grouped_batches_probe, (_SG8,)),
    Mutant("smallest_group_one", "a run trained alone through vmap over one run (no copy beside it)",
           "verify.experiments.grouped_training.SMALLEST_GROUP", smallest_group_one, smallest_group_probe, (_SG8,)),
    Mutant("three_way_outcome_claim_swapped",
           "the outcome probabilities of a sequential proportion rule computed for the opposite claim",
           "verify.stats.power.sequential_proportion_outcomes", outcomes_claim_swapped, sequential_outcomes_probe,
           (_SG8,)),
    # the instruments' known answers: what each claim prints is checked in its own file
    Mutant("preset_final_layer_norm_dropped", "the bhattamishra preset built without its final layer norm",
           "numeric.transformer._model.PRESET_SPECS", preset_final_ln_dropped, bhattamishra_final_ln_probe, (_SG6,)),
    Mutant("sg4_supremum_n_minus_one_positions",
           "SG-4's exact supremum flips positions 0 .. N-2 only (off by one)",
           f"{_RANDOM}.influence_positions", positions_but_last, linear_probe_supremum_probe, (_SG4,)),
    Mutant("average_sensitivity_per_bit", "SG-6's average sensitivity divided by N (a per-bit rate)",
           f"{_RANDOM}.profile_statistics", average_sensitivity_per_bit, parity_statistics_probe, (_SG6,)),
    Mutant("training_subset_with_replacement", "SG-8's fixed training subset drawn with replacement",
           "verify.experiments.training.training_data", subset_with_replacement, training_subset_probe, (_SG8,)),
    # SG-9: the perturbation sampler, the radius interval, the batched pass, the certified box
    Mutant("perturbation_z_zeroed", "local volume: the perturbation draws z but returns theta* (never moves)",
           _PERTURBED, z_zeroed, perturbed_probe, (_SG9,)),
    Mutant("perturbation_sigma_ignored", "local volume: the perturbation is theta* + z whatever sigma",
           _PERTURBED, sigma_ignored, perturbed_probe, (_SG9,)),
    Mutant("radius_interval_quarter_level", "radius interval read at the crossing of 1/4 instead of 1/2",
           _CROSSING_INTERVAL, crossing_at_quarter, radius_interval_probe, (_SG9,)),
    Mutant("radius_interval_lower_end_next_index",
           "radius interval's lower end one grid point to the right of the last lower bound above 1/2",
           _CROSSING_INTERVAL, lower_end_next_point, radius_interval_probe, (_SG9,)),
    Mutant("batched_strings_msb_first", "batched volume pass reads string index bits in reverse order (MSB first)",
           _BATCHED, strings_msb_first, batched_probe, (_SG9,)),
    Mutant("certificate_skips_second_half",
           "the certified box checks only the first half of the strings (the rest count as certified)",
           _CERTIFIED_STRINGS, certificate_first_half, certified_last_string_flipped_probe, (_SG9,)),
    Mutant("certified_attention_from_midpoints",
           "the certified softmax enclosure evaluated at the scores' midpoints (their widths dropped)",
           _ATTENTION_ENCLOSURE, attention_from_midpoints, attention_enclosure_probe, (_SG9,)),
    Mutant("certificate_two_corners_only",
           "the certified box's output enclosures taken from its two extreme corners (every parameter at its "
           "lower end, every one at its upper end) in float64, not propagated intervals",
           _ENCLOSURES, two_corners_only, output_enclosures_probe, (_SG9,)),
    Mutant("certified_box_points_at_centre",
           "the points tried in a certified box are all theta* (the soundness check sees no box)",
           _BOX_POINTS, box_points_at_centre, box_corners_probe, (_SG9,)),
    Mutant("interval_mul_two_products",
           "interval product from two of the four end products (lo*lo, hi*hi): [-1, 2] * [-3, 4] = [3, 8]",
           f"{_INTERVALS}.mul", mul_two_products, interval_product_probe, (_SG9,)),
    Mutant("interval_lower_rounded_up", "interval lower ends rounded towards +inf instead of -inf",
           f"{_INTERVALS}.round_down", lower_rounded_up, lower_end_probe, (_SG9,)),
    Mutant("interval_square_across_zero",
           "the square of an interval across 0 given a positive lower end (the smaller end's square)",
           f"{_INTERVALS}.square", square_positive_across_zero, square_across_zero_probe, (_SG9,)),
    Mutant("interval_exp_not_widened", "exp enclosures not widened for libm's error (0 steps, not 3)",
           f"{_INTERVALS}.TRANSCENDENTAL_STEPS", no_widening, exp_enclosure_probe, (_SG9,)),
    Mutant("certified_h_refused_end",
           "the certified half-width reported is the refused end of the bisection bracket",
           _LARGEST_CERTIFIED, refused_end_reported, largest_certified_probe, (_SG9,)),
    Mutant("directions_reseeded_per_chunk",
           "perturbation directions re-seeded per chunk of models (300 directions, 32 distinct)",
           _PERTURBED, reseeded_per_chunk, directions_of_two_chunks_probe, (_SG9,)),
    Mutant("radius_interval_not_simultaneous",
           "radius interval from per-grid-point intervals at the joint level (no Bonferroni correction)",
           _BONFERRONI, per_point_level, bonferroni_probe, (_SG9,)),
    Mutant("box_points_one_side", "points of a certified box drawn on one side of theta* only (theta* + h |u|)",
           _BOX_POINTS, one_side_of_centre, box_corners_probe, (_SG9,)),
    Mutant("first_attention_constant", "FIRST's attention constant beta = ln N + 1 (derivation: ln N + 2)",
           _SHARPNESS, sharpness_minus_one, first_sharpness_probe, (_SG9,)),
    # unit-test cases: no claim depends on these
    Mutant("median_readout_ties_read_one", "median readout 1[T >= median]: ties at the median read 1",
           _READOUT_TABLE, median_readout_ties_read_one, median_readout_probe,
           unit_files=("tests/numeric/test_transformer_conventions.py",)),
    Mutant("pre_ln_runs_post_ln", "a pre-LN model runs its layers post-LN (the norm convention ignored)",
           _RUN, pre_ln_runs_post_ln, pre_ln_probe,
           unit_files=("tests/numeric/test_transformer_conventions.py",)),
    Mutant("sinusoid_sin_cos_swapped", "sinusoidal positions with cos at the even columns and sin at the odd",
           "numeric.transformer.sinusoidal_positions", sinusoid_sin_cos_swapped, sinusoid_table_probe,
           unit_files=("tests/numeric/test_transformer_conventions.py::test_sinusoidal_positions_are_the_public_formula",
                       "tests/verify/experiments/test_bhattamishra_public.py")),
    Mutant("public_gaussian_positions_normal", "bhattamishra_gaussian draws the learned positions N(0, s^2), not U(-s, s)",
           "numeric.transformer.initialize_", public_gaussian_positions_normal, public_gaussian_pos_probe,
           unit_files=("tests/numeric/test_transformer_conventions.py::test_public_init_draws_each_parameter_from_its_law",)),
    Mutant("readout_bias_drawn_with_layer_biases",
           "biases = scheme_except_readout draws the readout bias too (the public readout has none)",
           "numeric.transformer.initialize_", readout_bias_drawn_with_layer_biases, readout_bias_drawn_probe,
           unit_files=("tests/numeric/test_transformer_conventions.py::test_public_uniform_is_boolverify_uniform_under_the_preset",)),
    Mutant("model_blocks_restart_seed",
           "random models on a cluster: every block of models starts again at --seed",
           f"{_RANDOM}.sample_models", model_blocks_restart_seed, random_blocks_probe,
           unit_files=("tests/verify/experiments/test_sweep_distributed.py::test_random_models_on_a_cluster_match_in_process",)),
    Mutant("n_params_without_layer_norms", "parameter count M without the 4DL layer-norm parameters",
           f"{_BOUNDS}.n_params", n_params_without_ln, n_params_probe,
           unit_files=("tests/verify/reference/test_bounds.py",)),
    Mutant("derivation_majority_K0_wrong",
           "MAJORITY's stated K_0 = 2^N - C(N, floor(N/2) + 1) (N for N + 1) in the derivation document",
           "verify.symbolic.profile_proofs.majority_claim", majority_K0_binomial_of_N, majority_claim_probe,
           unit_files=("tests/verify/derivations/test_derivation_document.py",)),
)

__all__ = ["PAPER_B"]
