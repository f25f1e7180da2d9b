r"""Paper A's mutants: the two-head XOR model (claims SX-1 to SX-8) and the code under it.

:data:`PAPER_A` is the catalogue: each entry names the bug, the public target it wraps, its maker
(:mod:`verify.report.mutation.makers_a`), its probe (:mod:`verify.report.mutation.probes_a`) and
the claim files expected to catch it. torch and numpy are imported inside makers and probes: the
catalogue stays cheap to import.
"""

from __future__ import annotations

from verify.report.mutation.engine import Mutant
from verify.report.mutation.makers_a import init_gradient_sign_flipped
from verify.report.mutation.makers_a import (
    assignment_flipped, assignment_reads_the_step, blocks_labels_wrong_sign, cls_attends_itself,
    cotangent_not_centred, default_lr_linear_in_d, empirical_half_samples, erf_cotangent_halved,
    erf_scale_inside, finite_samples_unconditional, gamma_grad_sum_half_samples, grad_halved,
    grad_heads_swapped, hessian_factor, instances_repeated, labels_wrong_sign, limit_argmin,
    linear_unscaled, loss_cross_sign, loss_without_t_squared, lr_matrix_without_c, never_fall_back,
    one_pass_square_moments_swapped, one_pass_support_rows_swapped, one_step_ascends,
    single_cotangent_not_centred, single_weight_grad_ambient_sign, support_pull_dropped,
    softmax_unnormalised, step_metrics_ten_times_lax, stream_limit_ascends, success_head_one_only,
    support_allows_equal, support_off_by_one, sweep_eps_ten_times, threshold_sizes_log10,
    tolerance_rows_float32, weight_grad_ambient_sign, weight_grad_without_support_pull,
    wilson_one_sided,
)
from verify.report.mutation.probes_a import init_gradient_probe
from verify.report.mutation.probes_a import (
    assignment_probe, assignments_probe, cls_probe, default_lr_probe, empirical_probe,
    finite_sample_gradient_probe, finite_sample_labels_probe, finite_samples_population_probe,
    float64_tolerance_probe, grad_near_cancellation_probe, grad_probe, grad_two_pass_probe, one_pass_grad_probe,
    instances_of_two_seeds_probe, known_specialisations_probe, limit_probe, linear_bound_probe,
    loss_probe, near_miss_success_probe, one_step_probe, sample_labels_probe, stream_limit_probe,
    support_probe, sweep_eps_probe, threshold_fit_probe, weights_probe, wilson_probe,
)


_SX1 = "theorems/test_SX1_population_loss.py"
_SX2 = "theorems/test_SX2_population_gradient.py"
_SX3 = "theorems/test_SX3_cls_equivalence.py"
_SX4 = "theorems/test_SX4_one_step.py"
_SX7 = "theorems/test_SX7_parameter_count.py"
_SX5 = "theorems/test_SX5_softmax_necessity.py"
_SX6 = "theorems/test_SX6_sample_complexity.py"
_SX8 = "theorems/test_SX8_interpretability.py"
#: the tolerance table is shared: paper B's forward-pass check uses its float64 row too
_SG6 = "theorems/test_SG6_random_init_sensitivity.py"

# the targets, one line each (the public seams the mutants wrap)
_STATE = "numeric.xor._forms.ClosedFormState"
_POPULATION = "numeric.xor._population"
_ONE_PASS_GRAD = "numeric.xor._blocks.normalised_one_pass_grad"
_SINGLE = "numeric.xor._single"
_FORMS = "numeric.xor._forms"
_FALLBACK_RATIO = "numeric.xor._blocks.FALLBACK_RATIO"
_MAP = "numeric.xor._attention.map_unchecked"
_METRICS = "numeric.xor._metrics"
_STREAM_STEP_METRICS = "numeric.xor.stream_step_metrics"
_FINITE_SAMPLES = "verify.experiments.finite_samples"
_CLS = "numeric.xor.CLSTransformer"
_RELAXATION_HESSIAN = "verify.reference.linear_bound.relaxation_hessian"
_WILSON = "verify.stats.intervals.wilson_interval"
_CHECK_SUPPORT = "numeric.validation.check_support"


PAPER_A: tuple[Mutant, ...] = (
    # loss and gradient
    Mutant("loss_drops_t_squared",
           "population loss without the square t^2 = (1 - g_a g~_b - g_b g~_a)^2 of the support term",
           f"{_STATE}.loss", loss_without_t_squared, loss_probe, (_SX3, _SX1)),
    Mutant("loss_cross_term_sign",
           "population loss: -2 g_a g~_a (g_R.g~_R) instead of +2 in the square of the a-coefficients",
           f"{_STATE}.loss", loss_cross_sign, loss_probe, (_SX3, _SX1)),
    Mutant("grad_drops_support_pull",
           "dL/dgamma_a without its -2 t g~_b term (the pull towards the support)",
           f"{_STATE}.weight_grad", weight_grad_without_support_pull, grad_two_pass_probe(),
           (_SX2, _SX3, _SX8, _SX4)),
    Mutant("grad_ambient_term_sign",
           "dL/dgamma_i: -4(g.g~ - g_i g~_i) g~_i instead of +4",
           f"{_STATE}.weight_grad", weight_grad_ambient_sign, grad_two_pass_probe(), (_SX2, _SX3)),
    Mutant("grad_halved", "population gradient half its value (the factor 2 of d(r^2) lost)",
           f"{_POPULATION}.population_grad", grad_halved, grad_probe(), (_SX2, _SX3)),
    Mutant("grad_heads_swapped", "population_grad returns (grad theta~, grad theta): heads swapped",
           f"{_POPULATION}.population_grad", grad_heads_swapped, grad_probe(), (_SX2, _SX3)),
    Mutant("one_pass_without_fallback",
           "one-pass softmax gradient that never falls back to two passes where its moments cancel",
           _FALLBACK_RATIO, never_fall_back, grad_near_cancellation_probe, (_SX2,)),
    Mutant("one_pass_square_moments_swapped",
           "one-pass softmax gradient with the sums of gamma^2 v and gamma~^2 v exchanged",
           _ONE_PASS_GRAD, one_pass_square_moments_swapped, one_pass_grad_probe, (_SX2, _SX3)),
    Mutant("one_pass_support_rows_swapped",
           "one-pass softmax gradient with the rows v_a and v_b exchanged in the support terms",
           _ONE_PASS_GRAD, one_pass_support_rows_swapped, one_pass_grad_probe, (_SX2, _SX3)),
    Mutant("softmax_cotangent_not_centred",
           "softmax pull-back gamma * g, without the -(gamma.g) gamma of diag(gamma) - gamma gamma^T",
           f"{_STATE}.logit_cotangent", cotangent_not_centred, grad_two_pass_probe(), (_SX2, _SX3)),
    Mutant("erf_cotangent_constant", "erf Jacobian with 1/sqrt(pi) instead of 2/sqrt(pi)",
           f"{_STATE}.logit_cotangent", erf_cotangent_halved, grad_two_pass_probe("erf"), (_SX2,)),
    Mutant("single_cotangent_not_centred",
           "a single model's softmax pull-back gamma * g, without the -(gamma.g) gamma part",
           f"{_SINGLE}.softmax_cotangent", single_cotangent_not_centred, grad_probe(), (_SX2, _SX3)),
    Mutant("single_grad_ambient_term_sign",
           "a single model's dL/dgamma_i: -4(g.g~ - g_i g~_i) g~_i instead of +4",
           f"{_SINGLE}.weight_grad", single_weight_grad_ambient_sign, grad_probe(), (_SX2, _SX3)),
    Mutant("support_grad_drops_pull",
           "dL/dgamma_a without its -2 t g~_b term, in the support algebra both paths share",
           f"{_FORMS}.support_weight_grads", support_pull_dropped, grad_probe(), (_SX2, _SX3)),
    # attention maps
    Mutant("softmax_unnormalised", "softmax weights exp(z - max z) without the division by their sum",
           _MAP, softmax_unnormalised, weights_probe("softmax"), (_SX3, _SX1)),
    Mutant("linear_attention_unscaled", "linear attention gamma = z instead of z / d",
           _MAP, linear_unscaled, weights_probe("linear"), (_SX2, _SX1)),
    Mutant("erf_attention_scale_inside", "erf attention erf(z / d) instead of erf(z) / d",
           _MAP, erf_scale_inside, weights_probe("erf"), (_SX2, _SX1)),
    # the step, the support, the learning rate
    Mutant("one_step_ascends", "one_step moves up the gradient: theta + eta grad",
           f"{_POPULATION}.one_step", one_step_ascends, one_step_probe, (_SX3, _SX4)),
    Mutant("support_off_by_one", "the engine reads b one position to the right (1-based b)",
           f"{_POPULATION}.check_model", support_off_by_one, loss_probe, (_SX3, _SX1, _SX2)),
    Mutant("default_lr_linear_in_d", "default step size c d sqrt(m) ln d instead of c d^2 sqrt(m) ln d",
           f"{_POPULATION}.default_lr", default_lr_linear_in_d, default_lr_probe, (_SX5, _SX4)),
    # SX-6 runs the empirical step of verify.experiments.finite_samples (checked against the
    # engine's in tests/), so these bugs are the claim's; the engine's own empirical step is below
    Mutant("finite_sample_gradient_half_samples",
           "the empirical step sums only the first half of each block of samples (divides by n)",
           f"{_FINITE_SAMPLES}.gamma_grad_sum", gamma_grad_sum_half_samples,
           finite_sample_gradient_probe, (_SX6,)),
    Mutant("finite_sample_labels_wrong_sign", "the SX-6 samples carry labels y = +x_a x_b",
           f"{_FINITE_SAMPLES}.SampleStream.blocks", blocks_labels_wrong_sign,
           finite_sample_labels_probe, (_SX6,)),
    Mutant("limit_step_argmin", "the eta -> infinity limit puts the weight on the argmin, not the argmax",
           f"{_METRICS}.limit_step_attention", limit_argmin, limit_probe, (_SX4,)),
    Mutant("predicted_assignment_flipped", "predicted assignment sign((v_b - v_a).theta0)",
           f"{_METRICS}.predicted_assignment", assignment_flipped, assignment_probe, (_SX8,)),
    Mutant("threshold_fit_sizes_log10", "the threshold fit reads the sizes m on log10 instead of ln",
           "verify.stats.thresholds.fit_threshold_curves", threshold_sizes_log10, threshold_fit_probe, (_SX4, _SX7)),
    Mutant("comparison_instances_repeated", "the attention comparison gives every seed the first seed's instance",
           "verify.experiments.attention_comparison.make_instances", instances_repeated, instances_of_two_seeds_probe,
           (_SX5,)),
    Mutant("threshold_fit_sizes_log10_finite_samples",
           "the threshold fit reads the sizes on log10 instead of ln, seen by the finite-sample claim alone",
           "verify.stats.thresholds.fit_threshold_curves", threshold_sizes_log10, threshold_fit_probe, (_SX6,)),
    Mutant("success_head_one_only", "a step counts as a success when head 1 alone specialises",
           f"{_METRICS}.step_metrics", success_head_one_only, known_specialisations_probe, (_SX4,)),
    Mutant("predicted_assignment_reads_the_step",
           "the predicted assignment read from the realised step instead of sign((v_a - v_b).theta0)",
           f"{_METRICS}.predicted_assignment", assignment_reads_the_step, assignments_probe, (_SX8,)),
    # the CLS transformer, the representational bounds, statistics
    Mutant("cls_lr_matrix_without_c_norm", "CLS step scaling W_K^T W_K without the factor |c|^2",
           f"{_CLS}.lr_matrix", lr_matrix_without_c, cls_probe("lr"), (_SX3,)),
    Mutant("cls_attends_to_itself", "the CLS row attends to the CLS token too (mask[0, 0] not cleared)",
           f"{_CLS}.__init__", cls_attends_itself, cls_probe("forward"), (_SX3,)),
    Mutant("linear_bound_hessian_factor", "linear-attention bound with -W^T W instead of -2 W^T W in H",
           _RELAXATION_HESSIAN, hessian_factor, linear_bound_probe, (_SX5,)),
    Mutant("wilson_one_sided_z", "Wilson interval with the one-sided quantile z = Phi^-1(c) (1.645 at 95%)",
           # no claim decides on a Wilson interval any more (the decisions use Clopper-Pearson);
           # the CLI's tables and the coverage tests of the inference module do
           _WILSON, wilson_one_sided, wilson_probe, unit_files=("tests/verify/stats/test_inference.py",)),
    # the instruments' known answers: what each claim prints is checked in its own file
    Mutant("success_criterion_ten_times_lax",
           "the one-step sweep judges success with 1 - gamma <= 0.1 (ten times the claim's eps)",
           "verify.experiments.xor_sweeps.run_sweep", sweep_eps_ten_times, sweep_eps_probe, (_SX4, _SX7)),
    Mutant("step_metrics_success_ten_times_lax",
           "the success metric accepts heads missing up to ten times eps of their attention",
           f"{_METRICS}.step_metrics", step_metrics_ten_times_lax, near_miss_success_probe, (_SX4, _SX7)),
    Mutant("sweep_instances_repeated", "the one-step sweeps give every seed the first seed's instance",
           "verify.experiments.xor_sweeps.make_instances", instances_repeated, instances_of_two_seeds_probe,
           (_SX4, _SX8)),
    Mutant("nstar_unconditional",
           "SX-6's n* from the unconditional success rate (every seed counted as a population success)",
           f"{_FINITE_SAMPLES}.run_finite_samples", finite_samples_unconditional, finite_samples_population_probe,
           (_SX6,)),
    Mutant("tolerance_row_float32", "the float64 row of the tolerance table replaced by float32's (rtol 1e-5)",
           "verify.common.tolerances.TOLERANCES", tolerance_rows_float32, float64_tolerance_probe,
           (_SX1, _SX2, _SX6, _SG6)),
    # unit-test cases: no claim depends on these
    Mutant("empirical_grad_half_samples", "the engine's empirical gradient averages only the first n/2 samples",
           f"{_POPULATION}.empirical_grad", empirical_half_samples, empirical_probe,
           unit_files=("tests/numeric/test_xor_engine.py", "tests/verify/experiments/test_sample_complexity.py")),
    Mutant("sample_labels_wrong_sign", "the engine's sampled labels y = +x_a x_b instead of -x_a x_b",
           f"{_POPULATION}.sample_data", labels_wrong_sign, sample_labels_probe,
           unit_files=("tests/numeric/test_xor_engine.py",)),
    Mutant("support_check_allows_a_equal_b", "check_support accepts a == b",
           _CHECK_SUPPORT, support_allows_equal, support_probe, unit_files=("tests/numeric/test_xor_engine.py",)),
    Mutant("stream_limit_ascends",
           "streamed sweeps: the eta -> infinity attention from s = +V grad (a step up the gradient)",
           _STREAM_STEP_METRICS, stream_limit_ascends, stream_limit_probe,
           unit_files=("tests/verify/experiments/test_sweep_stream.py",)),
    Mutant("derivation_init_gradient_sign",
           "the derivation's gradient at the antisymmetric initialisation: order-1 part with the wrong sign",
           "verify.symbolic.one_step.init_gradient", init_gradient_sign_flipped, init_gradient_probe,
           unit_files=("tests/verify/derivations/test_derivation_document.py",)),
)

__all__ = ["PAPER_A"]
