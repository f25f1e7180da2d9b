"""The probes of paper B's mutants (:mod:`verify.report.mutation.catalogue_b`): each is a tiny call
whose result the bug changes. A probe looks its functions up through the public modules at call
time, so the same probe sees the original before install and the mutant after. torch is imported
inside the probes: the catalogue stays cheap to import.
"""

from __future__ import annotations

import importlib


def profile_probe(name, N):
    def probe():
        from numeric.boolean import truth_table
        from numeric.boolean import profile

        return profile(truth_table(name, N))
    return probe


def table_probe(name, N):
    def probe():
        from numeric.boolean import truth_table

        return truth_table(name, N)
    return probe


def labels_of_probe(target):
    def probe():
        import torch

        from numeric.boolean import labels
        from numeric.transformer import strings

        return labels(target, strings(torch.arange(1 << 12), 12))
    return probe


def transformer_probe(eps=1e-5, scheme="gaussian"):
    def probe():
        import torch

        from numeric.transformer import TransformerConfig, random_model

        model = random_model(TransformerConfig(D=4, L=1, H=2, eps=eps, N_max=6), scheme, 0)
        with torch.no_grad():
            return model(torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]]))
    return probe


def fast_table_probe():
    from numeric.transformer import TransformerConfig, random_model
    from numeric.transformer import evaluate_all, fast_path_applies

    model = random_model(TransformerConfig(D=4, L=2, H=2, eps=1e-5, N_max=6), "gaussian", 0)
    assert fast_path_applies(model)
    return evaluate_all(model, 5)


def pre_ln_probe():
    import torch

    from numeric.transformer import preset_config, random_model

    model = random_model(preset_config("boolverify", D=4, L=2, N_max=6, norm="pre"), "gaussian", 0)
    with torch.no_grad():
        return model(torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]]))


def margin_probe():
    import torch

    from numeric.transformer import margin_recognition

    return margin_recognition(torch.ones(4, dtype=torch.float64), 0.5)["constant"]


def slopes_probe():
    from verify.experiments.random_transformers import per_model_slopes

    return per_model_slopes([1, 2, 4], [[1.0, 0.5, 0.25], [1.0, 2.0, 4.0]])


def blowup_probe():
    from verify.reference.bounds import blowup_bound

    return float(blowup_bound(1e-2, 4))


def exponent_probe():
    from verify.reference.bounds import theorem_exponent

    return theorem_exponent(8, 2)


def crossover_probe():
    from verify.reference.bounds import crossover_direct

    return crossover_direct(10)


def monte_carlo_probe():
    from verify.experiments.random_function_sampling import monte_carlo_K0

    return monte_carlo_K0(6, 128, seed=0).mean_K0


def variance_probe():
    from verify.reference.random_functions import variance_K0

    return variance_K0(5)


def n_params_probe():
    from verify.reference.bounds import n_params

    return n_params(16, 2)


def random_function_K0_probe():
    from verify.experiments.random_transformers import random_function_K0

    return random_function_K0(0.3, 4)


def median_bound_probe():
    from verify.stats.intervals import median_bounds

    return median_bounds(list(range(60)), 0.99, "lower")


def median_readout_probe():
    import torch

    from numeric.transformer import readout_table

    return readout_table(torch.tensor([1.0, 1.0, 2.0, 0.0], dtype=torch.float64), "median")


def sinusoid_table_probe():
    from numeric.transformer import preset_config, random_model

    return random_model(preset_config("bhattamishra", D=6, L=1, N_max=4, positions="sinusoidal"), "uniform", 0).pos


def public_gaussian_pos_probe():
    from numeric.transformer import preset_config, random_model

    return random_model(preset_config("bhattamishra", D=8, L=1, N_max=4), "bhattamishra_gaussian", 0,
                        input_scale=0.5).pos.detach()


def readout_bias_drawn_probe():
    from numeric.transformer import preset_config, random_model

    return random_model(preset_config("bhattamishra", D=8, L=1, N_max=4, biases="scheme_except_readout"),
                        "uniform", 0, B=10.0).out.bias.detach()


def certified_last_string_flipped_probe():
    from verify.experiments.certified_volume import certificate_known_answers

    return certificate_known_answers(4).last_string_flipped["strings_certified"]


def attention_enclosure_probe():
    import torch

    from numeric.intervals import Interval
    from numeric.transformer import attention_weights

    s = torch.tensor([[0.0, 1.0, -1.0]], dtype=torch.float64)
    return attention_weights(Interval(s - 0.5, s + 0.5)).width


def output_enclosures_probe():
    from numeric.transformer import interval_outputs, parameter_box
    from numeric.transformer import construct

    model = construct("parity", 3)
    return interval_outputs(model, parameter_box(model, 1e-4), 3).width


def box_corners_probe():
    import torch

    from numeric.transformer import box_points
    from numeric.transformer import construct

    return box_points(construct("first", 2), 1e-3, 2, torch.Generator().manual_seed(0), corners=True)["tok"]


def interval_product_probe():
    import torch

    from numeric.intervals import Interval, mul

    return mul(Interval(torch.tensor([-1.0]), torch.tensor([2.0])),
               Interval(torch.tensor([-3.0]), torch.tensor([4.0]))).lo.to(torch.float64)


def lower_end_probe():
    import torch

    from numeric.intervals import add, Interval

    one = Interval.point(torch.tensor([1.0], dtype=torch.float64))
    return add(one, one).lo


def square_across_zero_probe():
    import torch

    from numeric.intervals import Interval, square

    return square(Interval(torch.tensor([-1.0], dtype=torch.float64), torch.tensor([2.0], dtype=torch.float64))).lo


def exp_enclosure_probe():
    import torch

    import numeric.intervals

    x = torch.tensor([0.5], dtype=torch.float64)
    return numeric.intervals.exp(numeric.intervals.Interval.point(x)).width


def largest_certified_probe():
    from verify.experiments.certified_volume import largest_certified_half_width

    return largest_certified_half_width("majority", 2, steps=3).half_width


def directions_of_two_chunks_probe():
    import torch

    from numeric.transformer import construct
    from numeric.transformer import perturbation_chunks

    chunks = perturbation_chunks(construct("majority", 2), 1.0, 4, torch.Generator().manual_seed(3), chunk=2)
    return torch.cat([t["tok"] for t in chunks])


def bonferroni_probe():
    from verify.stats.intervals import bonferroni_level

    return bonferroni_level(0.995, 25)


def first_sharpness_probe():
    from numeric.transformer import attention_sharpness

    return attention_sharpness(4)


def random_blocks_probe():
    from numeric.transformer import preset_config
    from verify.experiments.random_transformers import MODELS_PER_TASK, sample_models

    cfg = preset_config("bhattamishra", D=8, L=2, N_max=64)
    return sample_models(cfg, "uniform", 6, MODELS_PER_TASK + 3, seed=40, B=10.0, workers=1).profiles


def control_labels_probe():
    import torch

    from numeric.transformer import strings
    from numeric.boolean import labels

    return labels("parity01", strings(torch.arange(16), 4))


def exact_influence_probe():
    from numeric.transformer import TransformerConfig, random_model
    from verify.experiments.random_transformers import exact_influence_maximum

    return exact_influence_maximum(random_model(TransformerConfig(D=4, L=1, H=2, N_max=6), "uniform", 0), 5)


def perturbed_probe():
    import torch

    from numeric.transformer import construct
    from numeric.transformer import perturbed_parameters

    return perturbed_parameters(construct("majority", 3), 0.01, 2, torch.Generator().manual_seed(0))["tok"]


def batched_probe():
    from numeric.transformer import construct
    from numeric.transformer import batched_outputs, stacked_parameters

    model = construct("first", 3)
    return batched_outputs(model, stacked_parameters(model, 1), 3)


def radius_interval_probe():
    from verify.stats.intervals import crossing_interval

    return crossing_interval([1.0, 2.0, 3.0, 4.0, 5.0], [1000, 900, 400, 200, 0], 1000)


def margin_table_probe():
    from numeric.transformer import TransformerConfig
    from verify.experiments.random_transformers import margin_table

    return margin_table(TransformerConfig(N_max=4, D=4, L=1, H=1, eps=1e-5), [3, 4], 40, 0.01, seed=3).tolist()


def slopes_half_probe():
    from verify.experiments.random_transformers import per_model_slopes

    return per_model_slopes([1, 2, 4], [[1.0, 2 ** -0.5, 0.5]])


def pairs_probe():
    import torch

    from verify.experiments.random_transformers import influence_pairs

    return influence_pairs(64, 3, 4, torch.Generator().manual_seed(0))[1]


def always_one_accuracy_probe():
    """Accuracy of a model that reads 1 on every string against strict MAJORITY at N = 4 (5/16)."""
    import torch

    from numeric.transformer import BooleanTransformer, TransformerConfig, initialize_
    from verify.experiments.training import evaluate

    model = initialize_(BooleanTransformer(TransformerConfig(N_max=4, D=4, H=1, L=1)), "uniform",
                        generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        model.out.weight.zero_()
        model.out.bias.fill_(1.0)
    return evaluate(model, "majority", 4, exact=True, seed=0)["accuracy"]


def tiny_run_probe(field):
    def probe():
        from verify.experiments.training import train

        r = train("majority", 4, seed=0, steps=2, batch_size=4, train_strings=8)
        return (r.held_out_n, r.held_out_accuracy, r.mean_sensitivity)
    probe.__name__ = f"tiny_run_{field}"
    return probe


def sg8_control_steps_probe():
    return importlib.import_module("verify.experiments.plans").SG8_FAST["first_long"]["steps"]


def threads_inside_training_probe():
    import torch

    from verify.experiments.training import pinned_threads

    saved = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with pinned_threads():
            return torch.get_num_threads()
    finally:
        torch.set_num_threads(saved)


def sequential_outcomes_probe():
    from verify.stats.power import sequential_proportion_outcomes

    return sequential_proportion_outcomes(0.9, (8, 24), 0.5, 0.99, "lower")["pass"]


def bhattamishra_final_ln_probe():
    from numeric.transformer import preset_config

    return preset_config("bhattamishra", D=8).final_ln


def linear_probe_supremum_probe():
    from verify.experiments.known_answers import LinearProbe
    from verify.experiments.random_transformers import exact_influence_maximum

    return exact_influence_maximum(LinearProbe(4), 4)


def parity_statistics_probe():
    import torch

    from verify.experiments.random_transformers import profile_statistics

    return float(profile_statistics(torch.tensor([[0, 0, 0, 8]]), 3).avg_sensitivity[0])


def training_subset_probe():
    from verify.experiments.training import training_data

    return training_data(4, 0, 12)[1].tolist()


def majority_claim_probe():
    import sympy as sp

    from verify.symbolic import profile_proofs

    return str(profile_proofs.majority_claim(sp.Integer(10)))


def grouped_batches_probe():
    from verify.experiments.grouped_training import train_runs

    seen = [[], []]
    train_runs("parity", 3, [0, 1], steps=1, batch_size=4, dtype="float32",
               on_batch=[lambda step, bits, y, k=k: seen[k].append(bits.tolist()) for k in range(2)])
    return seen


def smallest_group_probe():
    from verify.experiments import grouped_training

    return grouped_training.SMALLEST_GROUP
