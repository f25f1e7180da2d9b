"""Every claim's instruments, declared once: what each claim measures with, and where its own
theorem file checks that instrument against a known answer.

An *instrument* is a piece of code a claim's numbers come from: an estimator, a sampler, a
certifier, a reported quantity, a row of the tolerance table or a construction constant. Each
is declared here with the public seam it lives at (a dotted path: what a mutant of
:mod:`verify.report.mutation` would wrap), the functions of the claim's theorem file that check
it against a known answer, the known answer in words, and the numbers it accounts for: patterns
(``*`` the only wildcard) of the evidence keys and decision estimands the claim prints, read
from the theorem file's source with every formatted value as ``*``.

``tests/verify/experiments/test_instruments.py`` fails when a declared known-answer function is
not in the claim's file (or never runs there), when a claim prints a number that no instrument
accounts for, when a pattern matches nothing, when a seam does not resolve, when a mutant of the
catalogue wraps a declared seam without being aimed at that claim's file (unless a reason is
listed there), and when a claim has no instrument. ``python -m verify.report.readme`` renders
the table of ``docs/claims.md`` from here and ``boolverify check`` lists each claim's
instruments in its report.

Pure data: no import of torch or of the rest of the suite. Adding an instrument is one
``Instrument(...)`` entry in its claim's tuple.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the kinds of instrument
KINDS = ("estimator", "sampler", "certifier", "reported quantity", "tolerance row", "construction constant",
         "reference")


@dataclass(frozen=True)
class Instrument:
    """One instrument of one claim.

    Attributes:
        name: what it is, in a few words.
        kind: one of :data:`KINDS`.
        seam: public dotted path of the code it is (``package.module.name[.attr]``).
        known_answer: names of the module-level functions of the claim's theorem file that check
            it against a known answer (test functions, or helpers the tests call).
        description: the known answer, in words.
        prints: patterns of the evidence keys and decision estimands it accounts for (``*``
            matches any text; formatted values read ``*``; a pattern of ``*`` alone stands for a
            key that is all formatted value, ``evidence[scheme]``, and matches only that).
    """

    name: str
    kind: str
    seam: str
    known_answer: tuple[str, ...]
    description: str
    prints: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "seam": self.seam,
                "known_answer": list(self.known_answer), "description": self.description}


_I = Instrument

# -- paper A --------------------------------------------------------------------------------
INSTRUMENTS: dict[str, tuple[Instrument, ...]] = {
    "SX-1": (
        _I("closed-form derivation", "reference", "verify.symbolic.derivation.derive",
           ("test_derived_closed_form_equals_symbolic_enumeration",
            "test_derived_closed_form_equals_rational_enumeration_up_to_d12",
            "test_residual_form_equals_enumeration_and_has_no_constant_term", "test_closed_form_full_sweep"),
           "the sympy loss equals exhaustive enumeration (exact for d <= 6, rational for d <= 12); the residual "
           "form has no constant term",
           ("closed_form", "derivation_seconds", "symbolic_*", "**rep.as_evidence()", "residual_*",
            "rational_cases", "reference_max_*")),
        _I("50-digit reference loss", "reference", "verify.reference.population.population_loss",
           ("test_reference_equals_enumeration_at_50_digits", "test_perturbed_reference_is_rejected",
            "test_wrong_closed_forms_are_rejected"),
           "equals enumeration at 50 digits down to L < 1e-55; a perturbed reference and wrong closed forms are "
           "refused", ("max_abs_diff", "max_rel_diff_near_solution", "smallest_loss_checked", "cases", "mismatch",
                       "rejected")),
        _I("float64 engine loss", "reported quantity", "numeric.xor._forms.ClosedFormState.loss",
           ("test_torch_population_loss_equals_50_digit_reference",),
           "equals the 50-digit reference to rtol 1e-10 (Hypothesis) and near solutions (L < 1e-20), where the "
           "expanded form has no digits left",
           ("hypothesis_examples", "max_rel_err", "near_solution_*", "expanded_form_rel_err_near_solution",
            "max relative error, torch float64 vs 50-digit reference*")),
        _I("float64 tolerance row", "tolerance row", "verify.common.tolerances.TOLERANCES",
           ("test_float64_tolerance_rejects_a_float32_accurate_loss",),
           "negative control: a loss off by two float32 roundings is refused by the comparisons the file uses",
           ("negative_control_tolerance", "a loss off by two float32 roundings*")),
    ),
    "SX-2": (
        _I("closed-form gradient", "reference", "verify.symbolic.chain_rule.check_chain_rule",
           ("test_derived_gradient_equals_derivative_of_enumeration", "test_chain_rule_through_attention_is_exact",
            "test_gradient_full_sweep"),
           "the sympy gradient equals the derivative of the enumeration; the chain rule through each attention map "
           "is exact", ("dL/d*", "*_cases", "jacobian", "weighted_gradient", "**rep.as_evidence()",
                        "symbolic_cases", "reference_max_rel_diff")),
        _I("50-digit reference gradient", "reference", "verify.reference.population.population_grad",
           ("test_reference_gradient_equals_enumeration_at_50_digits", "test_wrong_gradients_are_rejected"),
           "equals the enumeration's gradient at 50 digits; wrong gradients (one off by 1e-35) are refused",
           ("max_rel_diff", "cases", "rejected")),
        _I("float64 tolerance row", "tolerance row", "verify.common.tolerances.TOLERANCES", ("test_torch_population_grad_equals_reference_autograd_and_gradcheck",),
           "negative control: a value off by two float32 roundings is refused by the row's bound and by is_close",
           ("negative_control_tolerance", "relative error of the gradient")),
        _I("float64 engine gradient", "reported quantity", "numeric.xor._population.population_grad",
           ("test_torch_population_grad_equals_reference_autograd_and_gradcheck",),
           "on each of its paths (one pass and two passes, forced), equals the 50-digit reference and autograd, "
           "and passes gradcheck",
           ("instances", "paths", "max_rel_err_vs_*", "smallest_gradient_checked", "gradcheck_passed",
            "max relative error of the torch gradient*")),
    ),
    "SX-3": (
        _I("CLS identity", "reference", "verify.symbolic.cls_identity.prove_cls_identity", ("test_sympy_identity",),
           "the sympy residual of the CLS transformer against the two-head model is zero",
           ("nonzero_residuals_k*_m*_p*", "forward_residual")),
        _I("CLS transformer", "reference", "numeric.xor.CLSTransformer",
           ("test_forward_equals_two_head_model", "test_one_step_equals_scaled_theta_step"),
           "forward pass equals the two-head model on all 2^8 inputs; a step on W_Q equals a theta step with the "
           "scaled rate", ("max_abs_err_*", "loss_tf", "loss_model", "max_theta_move",
                           "max |CLS transformer - two-head model|*")),
    ),
    "SX-4": (
        _I("success metric and its eta -> inf limit", "estimator", "numeric.xor._metrics.step_metrics",
           ("_known_answers",),
           "constructed specialisations on orthogonal embeddings: both heads right and the swap succeed, head 2 "
           "uniform and both heads on a do not",
           ("known_answer_success", "success of known specialisations*", "rates",
            "P(success | d=*", "P(success of the eta -> inf limit | d=*")),
        _I("success threshold eps", "construction constant", "verify.experiments.xor_sweeps.run_sweep",
           ("decide_success_threshold",),
           "every cell judged at eps = 0.01; at it, heads missing eps/2 of their attention succeed, heads missing "
           "1.5 eps and 3 eps do not (a criterion ten times too lax accepts them)",
           ("known_answer_success_threshold", "success threshold of the cells*")),
        _I("instance sampler", "sampler", "verify.experiments.xor_sweeps.make_instances", ("decide_instance_sampler",),
           "unit embeddings and query, theta~ = -theta exactly, a fresh draw per seed that does not depend on the "
           "batch, mean v_1^2 within a Hoeffding bound of 1/m",
           ("known_answer_instance_sampler", "instances of * seeds at d = *")),
        _I("threshold fit (m*(d) ~ d^alpha)", "estimator", "verify.stats.thresholds.fit_threshold_curves",
           ("_known_answers", "test_one_step_fast"),
           "synthetic binomial cells at the fast grid from a known threshold model: the intervals of alpha and of "
           "every m*_q contain the truth, every fitted m*_q inside the grid; on the data every fitted m*_0.5 "
           "inside its grid",
           ("known_answer_threshold_fit", "threshold fit on synthetic cells*", "thresholds", "alpha", "dispersion",
            "alpha, m*(d) ~ d^alpha", "fitted m*_*(d) outside the measured m grid", "loglik", "k_polylog",
            "law of m*(d)*")),
        _I("the plan", "construction constant", "verify.experiments.plans.FAST_SWEEP", ("test_one_step_fast",),
           "the fast grid's cells are the ones decided on (each d has its m_low and m_high)", ("plan",)),
    ),
    "SX-5": (
        _I("Clopper-Pearson bounds", "estimator", "verify.stats.intervals.clopper_pearson", ("_known_answers",),
           "at its n and level against the closed forms 1 - (1 - level)^(1/n) and (1 - level)^(1/n)",
           ("one-sided Clopper-Pearson bounds*",)),
        _I("instance sampler", "sampler", "verify.experiments.attention_comparison.make_instances",
           ("_known_answers",), "the n one-step losses of linear attention pairwise distinct (independent instances)",
           ("distinct one-step losses*",)),
        _I("reported one-step fractions", "reported quantity", "verify.experiments.attention_comparison.compare",
           ("_known_answers",), "the softmax fraction below 1e-6 recomputed from the per-seed losses, one per seed",
           ("softmax seeds with L < *", "softmax_one_step_success", "*_one_step_median_loss",
            "P(one softmax step reaches L < *)", "P(one * step succeeds)", "P(one * step brings L to <= *)",
            "*_*_min_final_loss", "*_*_lr", "min final loss of * attention*")),
        _I("representational bounds", "reference", "verify.reference.linear_bound.linear_attention_loss_bound",
           ("test_representational_bounds_fast",),
           "the erf bound exact, (1 - 2/d^2)^2; the linear bound certified; every trained run above them",
           ("erf_bound*", "erf_trained_min", "linear_bounds*", "linear_trained", "min trained erf-attention loss*")),
    ),
    "SX-6": (
        _I("threshold fit (n*(d) ~ d^alpha)", "estimator", "verify.stats.thresholds.fit_threshold_curves",
           ("_known_answer",),
           "synthetic cells at each regime's quick grid: intervals of alpha, n*_0.5, n*_0.9 contain the truth, "
           "every fit inside the grid",
           ("known_answer_threshold_fit", "threshold fit on synthetic cells*", "n_star", "slope", "dispersion",
            "alpha", "alpha_ci99", "alpha_upper99", "proof_exponent", "growth_vs_linear", "alpha of n*(d)*",
            "local_exponents", "alpha_d_ge_*", "loglik", "k_of_d_polylog", "law_*")),
        _I("conditional success (n-sample | population step)", "estimator",
           "verify.experiments.finite_samples.run_finite_samples", ("decide_conditioning",),
           "counts recounted from the per-seed outcomes; at the smallest d the population outcomes recomputed from "
           "the public instance draws (an unconditional rate fails)",
           ("known_answer_conditioning", "*: cells whose conditional counts*", "cells")),
        _I("float64 tolerance row", "tolerance row", "verify.common.tolerances.TOLERANCES", ("test_empirical_gradient_on_every_input_is_the_population_gradient",),
           "negative control: a value off by two float32 roundings is refused by the row's bound and by is_close",
           ("negative_control_tolerance", "relative error of the empirical gradient")),
        _I("empirical gradient", "estimator", "verify.experiments.finite_samples.gamma_grad_sum",
           ("test_empirical_gradient_on_every_input_is_the_population_gradient",),
           "over all of {+-1}^8 equal to the closed-form population gradient",
           ("max relative error, empirical gradient*",)),
    ),
    "SX-7": (
        _I("m*_0.9 of the threshold fit", "estimator", "verify.stats.thresholds.fit_threshold_curves",
           ("test_parameter_count_fast",),
           "synthetic cells at the fast grid: the interval contains the true m*_0.9; on the data every fitted "
           "m*_0.9 inside its grid",
           ("known_answer_threshold_fit", "m*_* of the threshold fit*", "fitted m*_*(d) outside*", "table",
            "2 m*_*(d=*) (two-head parameters)")),
        _I("success threshold eps", "construction constant", "verify.experiments.xor_sweeps.run_sweep",
           ("test_parameter_count_fast",),
           "the cells behind m* judged at eps = 0.01; near-miss heads (1.5 eps, 3 eps) refused",
           ("known_answer_success_threshold", "success threshold of the cells behind m*")),
    ),
    "SX-8": (
        _I("predicted and realised assignments", "estimator", "numeric.xor.predicted_assignment",
           ("_measure", "_decide"),
           "recomputed in the file from plain definitions (sign((v_a - v_b) . theta0), the stepped attention), "
           "never asked of the function under test",
           ("counts", "instances where numeric's predicted or realised assignment*",
            "successful steps with the wrong assignment or order", "P(targets dominate every ambient position)",
            "P(each head prefers its predicted target)", "P(alignment ratio > *)", "median_alignment_ratio")),
        _I("instance sampler", "sampler", "verify.experiments.xor_sweeps.make_instances", ("decide_instance_sampler",),
           "unit embeddings and query, theta~ = -theta exactly, a fresh draw per seed that does not depend on the "
           "batch, mean v_1^2 within a Hoeffding bound of 1/m",
           ("known_answer_instance_sampler", "instances of * seeds at d = *")),
        _I("the plan", "construction constant", "verify.experiments.claim_rules.SX8", ("test_interpretability_fast",),
           "d, m and the seeds are the rule's", ("d", "m", "seeds", "seed_offset")),
    ),
    # -- paper B ----------------------------------------------------------------------------
    "SG-1": (
        _I("symbolic profile proofs", "reference", "verify.symbolic.profile_proofs.prove_all",
           ("test_symbolic_profiles_for_all_N", "test_majority_literal_and_K0_fraction"),
           "sympy proofs over Hamming weights for symbolic N; MAJORITY's literal K_0 and its Stirling ratio",
           ("proofs", "checks_*", "failed symbolic profile checks*", "majority_K0_fraction", "stirling_ratio_*")),
        _I("exact profiles by enumeration", "reference", "numeric.boolean.profile",
           ("test_enumeration_matches_proof_N_le_20", "test_enumeration_matches_proof_all_dictators_and_sparse_sets"),
           "enumeration equals the proofs for N <= 20, every dictator and sparse set",
           ("N_range", "profiles_compared")),
    ),
    "SG-2": (
        _I("exact moments of K_0", "reference", "verify.reference.random_functions.variance_K0",
           ("test_expected_K0_is_one_exactly", "test_P_K0_exact_for_N_le_4"),
           "E[K_0] = 1 and Var[K_0] symbolically and by enumerating every function (N <= 4)",
           ("E_K0_symbolic", "Var_K0_*", "P_K0_ge_1_*", "functions_enumerated")),
        _I("Chen-Stein bound", "reference", "verify.experiments.random_function_sampling.chen_stein_bound",
           ("test_chen_stein_bound_tends_to_zero",), "exact rationals, <= 0.01 at N = 16 and <= 1e-8 at N = 40",
           ("Chen-Stein bound*", "delta_N")),
        _I("random-function sampler and Monte Carlo of K_0", "sampler",
           "verify.experiments.random_function_sampling.monte_carlo_K0", ("_monte_carlo",),
           "exact P(K_0 >= 1) at N = 2, 4 and E[K_0] = 1 at every N inside the Monte Carlo intervals",
           ("P(K_0>=1) at N=*", "E[K_0] at N=*", "monte_carlo", "level_two_sided", "limit_1_minus_1_over_e")),
    ),
    "SG-3": (
        _I("blowup of the layer norms", "estimator", "numeric.transformer.BooleanTransformer.layer_norm",
           ("test_z_and_beta_bounded_for_eps_positive", "test_bound_is_attained_at_zero_variance",
            "test_no_bound_at_eps_zero"),
           "bounded for all parameters (Hypothesis); the bound attained at zero variance; no bound at eps = 0",
           ("**worst", "rtol", "beta_*", "bound_eps_*", "max beta / (1 + 1/sqrt(eps))^L'*")),
    ),
    "SG-4": (
        _I("per-model log-log slope", "estimator", "verify.experiments.random_transformers.per_model_slopes",
           ("_known_answers",), "exact power laws c N^s, s in {-1/2, -1, 0}, at the plan's N",
           ("known_answer_slopes", "largest error of the per-model log-log slope*", "per_model_slopes", "slope_sd",
            "mean per-model slope of log(max influence*", "eps_0_per_model_slopes")),
        _I("string/position pair sampler", "sampler", "verify.experiments.random_transformers.influence_pairs",
           ("_known_answers",),
           "a linear stand-in whose influences read back the positions: distinct, in range, uniform within "
           "Hoeffding bounds", ("known_answer_positions", "positions of * draws*", "geometric_mean_influence",
                               "N_times_geometric_mean", "(model, N) cells with a positive sampled max influence")),
        _I("eps ablation", "estimator", "numeric.transformer.BooleanTransformer.__init__", ("_check",),
           "two-sided: no visible change at eps = 1e-5, some change above rounding, a visible one at eps = 1",
           ("eps_0_vs_eps_*", "largest relative change of a sampled max influence*")),
        _I("the plan's size", "construction constant", "verify.experiments.plans.SG4_FAST", ("_design",),
           "the designed inconclusive probability at the pilot's conservative rates <= 1 %",
           ("design", "designed P(rule 2 inconclusive)*", "plan", "seed")),
        _I("exact supremum over all strings", "reference", "verify.experiments.random_transformers.influence_positions",
           ("decide_exact_supremum_known_answer", "_check_exact"),
           "T(x) = sum (n+1) x_n: supremum N and Boolean influence 2^(1-N) (over N - 1 positions it is N - 1); every "
           "sampled max at N = 8 at most the supremum",
           ("known_answer_exact_supremum", "exact supremum and Boolean influence of T(x)*", "exact_sup_*",
            "exact_max_boolean_influence", "models whose sampled max influence*", "(model, N) cells with a positive "
            "exact supremum")),
    ),
    "SG-5": (
        _I("margin recognition", "estimator", "numeric.transformer.margin_recognition", ("_known_answers",),
           "outputs with a known answer (all accepted, all rejected, both signs with every margin, one string "
           "undecided); the table's rows of the first models and of every recognising model recomputed",
           ("margin recognition of a non-constant function*", "rows of the recognition table*",
            "recognising_nonconstant", "only_small_N", "only_large_N", "* | N=*)", "share recognising at N=*")),
        _I("eps ablation", "estimator", "numeric.transformer.BooleanTransformer.__init__", ("_check_models",),
           "no recognition changes at eps = 1e-5, max |dT| < xi/100, and at eps = 1 a change > xi",
           ("eps_0_*", "models_whose_recognition_changes_*", "largest |T(eps = *) - T(eps = 0)|*",
            "models whose recognition at N = * differs*")),
        _I("the plan's size", "construction constant", "verify.experiments.plans.SG5_FAST", ("_design",),
           "the designed inconclusive probability at the pilot's conservative rates <= 1 %",
           ("design", "designed P(rule c inconclusive)*", "plan", "seed")),
        _I("packing crossover", "certifier", "verify.reference.bounds.packing_crossover",
           ("test_packing_bound_crossover_table",), "the loosest row certified with Arb balls",
           ("table", "max_crossover_N", "certificate_loosest_row", "packing crossover N* for D = *")),
    ),
    "SG-6": (
        _I("each init scheme's law", "sampler", "numeric.transformer.initialize_", ("_check_init_law",),
           "one model per scheme: variance and shape of its parameters against the scheme's law",
           ("*_init_law", "*: mean of (parameter / its law's sd)^2*")),
        _I("bhattamishra preset", "construction constant", "numeric.transformer._model.PRESET_SPECS",
           ("decide_preset_conventions",),
           "every convention of the public code (pre-LN and a final LN, unbiased std + eps, sqrt(D) scale, ...), "
           "one head, MLP width 2D", ("preset_conventions", "* preset: conventions differing*", "plan")),
        _I("non-constant profiles and their statistics", "estimator",
           "verify.experiments.random_transformers.sample_nonconstant_profiles", ("_check_init",),
           "profiles by exact enumeration; the draws counted until the target; the plan's constant fraction",
           ("*", "uniform", "*: non-constant models*", "*: P(constant function)", "*: P(K_0 >= 1 | non-constant)")),
        _I("profile statistics and density-matched ratios", "estimator",
           "verify.experiments.random_transformers.profile_statistics", ("decide_profile_statistics_known_answer",),
           "closed-form profiles (PARITY, FIRST, AND at the plan's N): K_0 >= 1, K_0 / 2^N, the average "
           "sensitivity and both ratios exactly",
           ("known_answer_profile_statistics", "K_0 >= 1, K_0 / 2^N, as and the density-matched ratios*")),
        _I("density-matched reference E_p[K_0] and the median bound", "reference",
           "verify.experiments.random_transformers.random_function_K0",
           ("test_density_matched_references_by_enumeration",),
           "formula against enumeration at p = 3/10; the order statistic of the 99 % median bound",
           ("enumeration", "E_p[K_0], E_p[as] at N = *", "99 % median bound of * values*",
            "*: median K_0 / E_p[K_0] | non-constant", "*: median as / (2Np(1-p)) | non-constant")),
        _I("float64 tolerance row", "tolerance row", "verify.common.tolerances.TOLERANCES", ("test_forward_pass_matches_independent_loop",),
           "negative control: a value off by two float32 roundings is refused by the row's bound and by is_close",
           ("negative_control_tolerance", "|T_model - T_loop|")),
        _I("forward pass", "reference", "numeric.transformer.BooleanTransformer.run",
           ("test_forward_pass_matches_independent_loop",), "every output against an independent loop",
           ("max_abs_difference", "spread_of_T", "max |T_model - T_loop|*")),
        _I("Theorem 4.5 exponent and crossover", "certifier", "verify.reference.bounds.theorem_exponent",
           ("test_theorem_exponent_and_lambert_w_crossover",),
           "a(64, 2) = 43/4 and N* = 65 exactly; the crossover certified with Arb balls",
           ("table", "a_64_2", "N_star_*", "precision", "certificate_64_2", "crossover N* of (64, 2)*")),
    ),
    "SG-7": (
        _I("K_0 of the targets", "reference", "verify.symbolic.profile_proofs.formula_profile",
           ("test_K0_is_zero_for_all_N_symbolically", "test_K0_is_zero_by_enumeration"),
           "symbolic K_0 = 0 for all N and enumeration for N <= 20; MAJORITY's K_0 > 0 as a control",
           ("symbolic", "implication", "K_0 of PARITY, sparse parity, DICTATOR*", "functions_checked", "N_range",
            "majority_K0_N*")),
    ),
    "SG-8": (
        _I("training labels and truth tables", "reference", "numeric.boolean.labels", ("_decide_labels",),
           "every label of every batch and every table against plain-Python definitions",
           ("training labels of *", "strings where the evaluation's * table*")),
        _I("training subset", "sampler", "verify.experiments.training.training_data", ("_decide_reported",),
           "the fixed subset is train_strings distinct strings (drawn without replacement), the one the batches "
           "used", ("*: runs whose training subset*",)),
        _I("reported accuracies and profiles", "reported quantity", "verify.experiments.training.evaluate",
           ("_decide_reported", "_decide_accuracy", "_recomputed"),
           "held-out set = complement of the strings trained on; accuracy, held-out accuracy, profile and "
           "average sensitivity recomputed from the model's predictions",
           ("*: runs whose profile differs*", "*: runs whose accuracy differs*", "*", "parity", "profiles",
            "*_accuracy", "max_accuracy_N*", "runs",
            "parity_as_N*", "parity_trained_as_at_most_N/4_N*")),
        _I("sequential proportion rule and the plan's looks", "estimator",
           "verify.stats.power.sequential_proportion_outcomes", ("_design", "_design_looks"),
           "exact outcome probabilities on a known answer (one look: 0.9^7; looks 8, 30: pass from 8 and 23); "
           "designed P(inconclusive) and P(fail) <= 1 %, at p = 1/2 P(pass) <= 1 %",
           ("design", "*_looks", "sequential proportion outcomes on a known answer*", "largest designed P(*",
            "largest P(pass) over the proportion decisions*", "P(a * run at N = * reaches held-out accuracy >= *)",
            "P(a parity run at N = * reaches accuracy >= *)", "P(a * run at N = * under PARITY's budget*",
            "P(a trained model at N >= * has as <= N/4)", "P(a * run reaches accuracy >= *)",
            "P(a *-trained model at N >= 16 has as <= N/4)", "P(a parity run at N >= 16*",
            "P(a * run at N = *, * steps of batch *")),
        _I("the controls' budget", "construction constant", "verify.experiments.plans.SG8_FAST",
           ("test_design_and_pinned_training",), "the controls' N, steps and batch equal PARITY's",
           ("the controls' (N, steps, batch)*", "budget")),
        _I("the training worker's determinism", "construction constant", "verify.experiments.training.pinned_threads",
           ("test_design_and_pinned_training",),
           "two seeds trained with the caller at (1 thread, deterministic) and (2 threads, not): bit-identical "
           "parameters, the caller's settings restored",
           ("(threads, deterministic algorithms) seen*", "the caller's (threads*", "trained parameters of two seeds*")),
        _I("runs trained together", "construction constant", "verify.experiments.grouped_training.fit_runs",
           ("test_design_and_pinned_training",),
           "a run trained alone (beside a copy) and third in a group, and one first in a group and second in "
           "another: bit-identical parameters",
           ("trained parameters of a run alone*",)),
    ),
    "SG-9": (
        _I("constructions and the batched pass", "construction constant", "numeric.transformer.batched_outputs",
           ("test_constructions_compute_their_functions_exactly",),
           "each construction computes f on all 2^N strings (N = 1 ... 12); the batched pass agrees at theta*",
           ("strings where a construction*", "strings_checked", "wrong", "exact_known_answer")),
        _I("perturbation sampler", "sampler", "numeric.transformer.perturbed_parameters",
           ("test_perturbation_sampler_known_answers",),
           "at sigma = 0 every perturbation computes f; at sigma = 100 the fraction's 99 % upper bound < 0.1; every "
           "parameter moves and (theta - theta*)/sigma has variance 1 (99.9 % chi^2 interval)",
           ("sampler", "*, N = *: perturbations at sigma = 0*", "*, N = *: P(theta* + sigma z computes f)*",
            "*, N = *: parameters not perturbed*", "*, N = *: variance of (theta - theta*) / sigma*")),
        _I("radius interval", "estimator", "verify.stats.intervals.crossing_interval",
           ("test_radius_estimator_known_answers", "_check_radii"),
           "a synthetic curve's interval is its bracketing grid pair; over 2000 simulated log-normal curves the "
           "miss rate is not significantly above 1 - 0.995",
           ("known_answers", "coverage", "radius interval of*", "rate at which the radius interval misses*", "radii",
            "r_parity(*) < r_*", "reported_not_decided", "plan")),
        _I("certifier (interval arithmetic over all 2^N strings)", "certifier",
           "numeric.transformer._certified_volume.certified_strings", ("test_certifier_known_answers", "_check_certified"),
           "each construction certified at h = 0 on all strings; a table wrong at one string only refused with "
           "exactly 2^N - 1 certified; MAJORITY's construction refused against FIRST's table",
           ("*'s construction at h = 0, N = *: strings certified", "MAJORITY's construction at h = 0*",
            "*, N = *: theta* +- h certified*", "* (certified half-widths)", "certified_reported_not_decided",
            "*, N = *: certified half-width over the sampled radius*")),
        _I("output enclosures", "certifier", "numeric.transformer.interval_outputs",
           ("test_certified_enclosures_contain_the_forward_pass",),
           "each parameter tensor alone widened by the certified h, then the whole box: the float64 outputs at 8 "
           "points of each box inside their enclosures",
           ("enclosures", "*, N = *: outputs outside their enclosures*")),
        _I("points tried in a certified box", "sampler", "numeric.transformer.box_points", ("_check_certified",),
           "corners exactly on the box's corners, inner points moved and inside it, both sides of theta* for every "
           "entry; at 100h some corner does not compute f", ("*, N = *: points tried in the certified box*", "*, N = *: points of the certified box*",
            "*, N = *: parameter entries whose * corners*")),
        _I("construction constants", "construction constant", "numeric.transformer.construct",
           ("test_construction_constants_follow_their_derivation",),
           "recomputed in Arb from each construction's derivation: FIRST's position-0 weight e^2 / (e^2 + 1) and its "
           "threshold separation, the MLP thresholds phi(s*), PARITY's kinks",
           ("constants", "construction constants against their derivation*")),
        _I("interval operations", "certifier", "numeric.intervals",
           ("test_interval_operations_against_arb",),
           "on adversarial operand sets (both signs, across 0, degenerate, subnormal, huge) every float64 enclosure "
           "holds the exact Arb range and its ends lie within the stated ulps of it",
           ("interval_operations", "interval operations (*", "the same: ends farther from the exact ends*")),
        _I("torch.exp where the certifier exponentiates", "certifier", "numeric.intervals.exp",
           ("test_interval_operations_against_arb", "test_certified_enclosures_hold_the_exact_forward_pass"),
           "torch.exp against Arb at adversarial inputs and at every score difference the certifier exponentiates: "
           "error within the ulp the exp enclosure's widening assumes",
           ("exp_error_ulps", "exp_at_score_differences", "torch.exp against Arb at *")),
        _I("exact forward pass inside the enclosures", "certifier", "numeric.transformer.interval_forward",
           ("test_certified_enclosures_hold_the_exact_forward_pass",),
           "an independent Arb forward pass at theta* (h = 0) and at points of each certified box: every "
           "intermediate and output inside its float64 enclosure, every string",
           ("exact_forward_pass", "*, N = *: exact (Arb) intermediates outside*")),
        _I("reported certified half-width", "certifier",
           "verify.experiments.certified_volume.largest_certified_half_width", ("_check_certified",),
           "the reported h certified again as reported, and the refused end of the bisection's bracket refused",
           ("*, N = *: the reported h = * certified again*",)),
        _I("directions of the volume points", "sampler", "numeric.transformer.perturbation_chunks",
           ("test_perturbation_sampler_known_answers",),
           "every direction one volume point draws, chunk by chunk, is distinct from every other",
           ("*, N = *: distinct directions among*",)),
        _I("simultaneous radius intervals", "estimator", "verify.stats.intervals.crossing_interval",
           ("test_radius_estimator_known_answers",),
           "synthetic curves with a known radius: misses at most the simultaneous level allows; a per-sigma interval "
           "misses too often and fails",
           ("simultaneous_coverage",)),
    ),
}


def instruments_of(claim_id: str) -> tuple[Instrument, ...]:
    """The instruments declared for ``claim_id`` (empty when none)."""
    return INSTRUMENTS.get(claim_id, ())


__all__ = ["KINDS", "Instrument", "INSTRUMENTS", "instruments_of"]
