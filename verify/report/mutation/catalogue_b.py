r"""Paper B's mutants: sensitivity profiles, random transformers, bounds and training (claims
SG-1 to SG-9) and the code under them.

Each maker takes the original (public) function, method or value and returns the bug: the
original called with altered inputs, or its output perturbed. Each probe is a tiny call whose
result the bug changes. torch, numpy and sympy are imported inside makers and probes: the
catalogue stays cheap to import.
"""

from __future__ import annotations

import importlib
import math

from verify.report.mutation.engine import Mutant

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


# --------------------------------------------------------------------------- probes
# A probe looks its functions up through the public modules at call time, so the same probe
# sees the original before install and the mutant after.

def _profile(name, N):
    def probe():
        from numeric.boolean import truth_table
        from numeric.boolean import profile

        return profile(truth_table(name, N))
    return probe


def _table(name, N):
    def probe():
        from numeric.boolean import truth_table

        return truth_table(name, N)
    return probe


def _labels_of(target):
    def probe():
        import torch

        from numeric.boolean import labels
        from numeric.transformer import strings

        return labels(target, strings(torch.arange(1 << 12), 12))
    return probe


def _transformer(eps=1e-5, scheme="gaussian"):
    def probe():
        import torch

        from numeric.transformer import TransformerConfig, random_model

        model = random_model(TransformerConfig(D=4, L=1, H=2, eps=eps, N_max=6), scheme, 0)
        with torch.no_grad():
            return model(torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]]))
    return probe


def _fast_table():
    from numeric.transformer import TransformerConfig, random_model
    from numeric.transformer import evaluate_all, fast_path_applies

    model = random_model(TransformerConfig(D=4, L=2, H=2, eps=1e-5, N_max=6), "gaussian", 0)
    assert fast_path_applies(model)
    return evaluate_all(model, 5)


def _pre_ln():
    import torch

    from numeric.transformer import preset_config, random_model

    model = random_model(preset_config("boolverify", D=4, L=2, N_max=6, norm="pre"), "gaussian", 0)
    with torch.no_grad():
        return model(torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]]))


def _margin():
    import torch

    from numeric.transformer import margin_recognition

    return margin_recognition(torch.ones(4, dtype=torch.float64), 0.5)["constant"]


def _slopes():
    from verify.experiments.random_transformers import per_model_slopes

    return per_model_slopes([1, 2, 4], [[1.0, 0.5, 0.25], [1.0, 2.0, 4.0]])


def _blowup():
    from verify.reference.bounds import blowup_bound

    return float(blowup_bound(1e-2, 4))


def _exponent():
    from verify.reference.bounds import theorem_exponent

    return theorem_exponent(8, 2)


def _crossover():
    from verify.reference.bounds import crossover_direct

    return crossover_direct(10)


def _monte_carlo():
    from verify.experiments.random_function_sampling import monte_carlo_K0

    return monte_carlo_K0(6, 128, seed=0).mean_K0


def _variance():
    from verify.reference.random_functions import variance_K0

    return variance_K0(5)


def _n_params():
    from verify.reference.bounds import n_params

    return n_params(16, 2)


def _random_function_K0():
    from verify.experiments.random_transformers import random_function_K0

    return random_function_K0(0.3, 4)


def _median_bound():
    from verify.stats.intervals import median_bounds

    return median_bounds(list(range(60)), 0.99, "lower")


def _median_readout():
    import torch

    from numeric.transformer import readout_table

    return readout_table(torch.tensor([1.0, 1.0, 2.0, 0.0], dtype=torch.float64), "median")


def _sinusoid_table():
    from numeric.transformer import preset_config, random_model

    return random_model(preset_config("bhattamishra", D=6, L=1, N_max=4, positions="sinusoidal"), "uniform", 0).pos


def _public_gaussian_pos():
    from numeric.transformer import preset_config, random_model

    return random_model(preset_config("bhattamishra", D=8, L=1, N_max=4), "bhattamishra_gaussian", 0,
                        input_scale=0.5).pos.detach()


def _readout_bias_drawn():
    from numeric.transformer import preset_config, random_model

    return random_model(preset_config("bhattamishra", D=8, L=1, N_max=4, biases="scheme_except_readout"),
                        "uniform", 0, B=10.0).out.bias.detach()


def _certified_last_string_flipped():
    from verify.experiments.certified_volume import certificate_known_answers

    return certificate_known_answers(4).last_string_flipped["strings_certified"]


def _attention_enclosure():
    import torch

    from numeric.intervals import Interval
    from numeric.transformer import attention_weights

    s = torch.tensor([[0.0, 1.0, -1.0]], dtype=torch.float64)
    return attention_weights(Interval(s - 0.5, s + 0.5)).width


def _output_enclosures():
    from numeric.transformer import interval_outputs, parameter_box
    from numeric.transformer import construct

    model = construct("parity", 3)
    return interval_outputs(model, parameter_box(model, 1e-4), 3).width


def _box_corners():
    import torch

    from numeric.transformer import box_points
    from numeric.transformer import construct

    return box_points(construct("first", 2), 1e-3, 2, torch.Generator().manual_seed(0), corners=True)["tok"]


def _interval_product():
    import torch

    from numeric.intervals import Interval, mul

    return mul(Interval(torch.tensor([-1.0]), torch.tensor([2.0])),
               Interval(torch.tensor([-3.0]), torch.tensor([4.0]))).lo.to(torch.float64)


def _lower_end():
    import torch

    from numeric.intervals import add, Interval

    one = Interval.point(torch.tensor([1.0], dtype=torch.float64))
    return add(one, one).lo


def _square_across_zero():
    import torch

    from numeric.intervals import Interval, square

    return square(Interval(torch.tensor([-1.0], dtype=torch.float64), torch.tensor([2.0], dtype=torch.float64))).lo


def _exp_enclosure():
    import torch

    import numeric.intervals

    x = torch.tensor([0.5], dtype=torch.float64)
    return numeric.intervals.exp(numeric.intervals.Interval.point(x)).width


def _largest_certified():
    from verify.experiments.certified_volume import largest_certified_half_width

    return largest_certified_half_width("majority", 2, steps=3).half_width


def _directions_of_two_chunks():
    import torch

    from numeric.transformer import construct
    from numeric.transformer import perturbation_chunks

    chunks = perturbation_chunks(construct("majority", 2), 1.0, 4, torch.Generator().manual_seed(3), chunk=2)
    return torch.cat([t["tok"] for t in chunks])


def _bonferroni():
    from verify.stats.intervals import bonferroni_level

    return bonferroni_level(0.995, 25)


def _first_sharpness():
    from numeric.transformer import attention_sharpness

    return attention_sharpness(4)


def _random_blocks():
    from numeric.transformer import preset_config
    from verify.experiments.random_transformers import MODELS_PER_TASK, sample_models

    cfg = preset_config("bhattamishra", D=8, L=2, N_max=64)
    return sample_models(cfg, "uniform", 6, MODELS_PER_TASK + 3, seed=40, B=10.0, workers=1).profiles


def _control_labels():
    import torch

    from numeric.transformer import strings
    from numeric.boolean import labels

    return labels("parity01", strings(torch.arange(16), 4))


def _exact_influence():
    from numeric.transformer import TransformerConfig, random_model
    from verify.experiments.random_transformers import exact_influence_maximum

    return exact_influence_maximum(random_model(TransformerConfig(D=4, L=1, H=2, N_max=6), "uniform", 0), 5)


def _perturbed():
    import torch

    from numeric.transformer import construct
    from numeric.transformer import perturbed_parameters

    return perturbed_parameters(construct("majority", 3), 0.01, 2, torch.Generator().manual_seed(0))["tok"]


def _batched():
    from numeric.transformer import construct
    from numeric.transformer import batched_outputs, stacked_parameters

    model = construct("first", 3)
    return batched_outputs(model, stacked_parameters(model, 1), 3)


def _radius_interval():
    from verify.stats.intervals import crossing_interval

    return crossing_interval([1.0, 2.0, 3.0, 4.0, 5.0], [1000, 900, 400, 200, 0], 1000)


# --------------------------------------------------------------------------- makers

def _pair_masks_shifted(original):
    import numpy as np

    # bit 0 pairs string 2k+1 with 2k+2 instead of 2k with 2k+1
    return [np.uint64(0xAAAAAAAAAAAAAAAA)] + list(original[1:])


def _byte_swaps_shifted(original):
    # bit n uses the partner of bit n+1 (bits 0, 1; bit 2 keeps its own): x ^ 2^(n+1)
    return {0: original[1], 1: original[2], 2: original[2]}


def _named_as(name, wanted):
    return isinstance(name, str) and name.lower() == wanted


def _majority_non_strict(original):
    def truth_table(name, N, **kwargs):
        t = original(name, N, **kwargs)
        if _named_as(name, "majority"):
            # 1 - f(complement x) of the strict 1[|x| > N/2] is 1[|x| >= N/2]: ties count as 1
            return 1 - t.flip(0)
        return t
    return truth_table


def _parity_skips_last_bit(original):
    def truth_table(name, N, **kwargs):
        t = original(name, N, **kwargs)
        if _named_as(name, "parity"):
            # the XOR of bits 0..N-2: the parity of all N bits XOR bit N-1
            options = {k: v for k, v in kwargs.items() if k in ("device", "max_N", "allow_large")}
            return t ^ original("dictator", N, i=N - 1, **options)
        return t
    return truth_table


def _labels_changed_for(name, change):
    """A factory of mutants of the training labels: ``change(labels, bits)`` for target ``name``,
    the original labels for every other target."""
    def factory(original):
        def labels(target, bits):
            out = original(target, bits)
            return change(out, bits) if target == name else out
        return labels
    return factory


# 1[2|x| >= N]: ties read 1
_training_majority_non_strict = _labels_changed_for(
    "majority", lambda out, bits: out | (2 * bits.sum(-1) == bits.shape[1]).to(out.dtype))
# the parity of bits 0..9 only: the bits from 10 on left out
_training_parity_first_10_bits = _labels_changed_for(
    "parity", lambda out, bits: out ^ (bits[:, 10:].sum(-1) % 2).to(out.dtype))


def _training_first_reads_last_bit(original):
    def labels(target, bits):
        if target == "first":
            return original(target, bits.flip(-1))       # FIRST of the MSB-first string
        return original(target, bits)
    return labels


def _labels_rolled(original):
    def labels(target, bits):
        return original(target, bits).roll(1, 0)  # row i gets the label of row i - 1
    return labels


def _control_labels_three_bits(original):
    def labels(target, bits):
        out = original(target, bits)
        if target == "parity01":
            return out ^ bits[:, 2].to(out.dtype)  # parity of bits 0, 1 and 2
        return out
    return labels


def _ignores_input(original):
    def run(self, x, full, record, labels=None):
        import torch

        x = torch.as_tensor(x)
        return original(self, torch.zeros_like(x), full, record, labels)   # every x reads as 0...0
    return run


def _fast_eval_ignores_input(original):
    def run(self, idx):
        return original(self, idx.new_zeros(idx.shape))   # every string read as index 0: 0...0
    return run


def _no_positional_embedding(original):
    def __init__(self, config=None):
        original(self, config)
        import torch

        pos = torch.zeros_like(self.pos.detach())
        del self.pos
        self.register_buffer("pos", pos)     # never initialised, never trained: all zeros
    return __init__


def _config_eps_ignored(original):
    def __init__(self, config=None):
        import dataclasses

        if config is not None and config.eps != 1e-5:
            config = dataclasses.replace(config, eps=1e-5)
        original(self, config)
    return __init__


def _layer_norm_under(**convention):
    """A mutant of the layer norm that runs under ``convention`` (fields of the model's
    :class:`TransformerConfig`) instead of the model's own, everything else unchanged."""
    def maker(original):
        def layer_norm(self, *args):
            import dataclasses

            config = self.config
            self.config = dataclasses.replace(config, **convention)
            try:
                return original(self, *args)
            finally:
                self.config = config
        return layer_norm
    return maker


def _pre_ln_runs_post_ln(original):
    def run(self, x, full, record, labels=None):
        import dataclasses

        config = self.config
        if config.norm != "pre":
            return original(self, x, full, record, labels)
        self.config = dataclasses.replace(config, norm="post")  # the convention read from the wrong field
        try:
            return original(self, x, full, record, labels)
        finally:
            self.config = config
    return run


def _sinusoid_sin_cos_swapped(original):
    def sinusoidal_positions(rows, D, dtype=None):
        import torch

        t = original(rows, D, torch.float64 if dtype is None else dtype)
        cols = torch.arange(D)
        cols[: 2 * (D // 2)] = cols[: 2 * (D // 2)].view(-1, 2).flip(1).reshape(-1)
        return t[:, cols].contiguous()                 # cos at the even columns, sin at the odd
    return sinusoidal_positions


def _public_gaussian_positions_normal(original):
    def initialize_(model, scheme, **kw):
        import torch

        out = original(model, scheme, **kw)
        if scheme == "bhattamishra_gaussian" and model.config.positions == "learned":
            with torch.no_grad():                      # N(0, s^2) positions, not U(-s, s)
                model.pos.copy_(torch.randn(model.pos.shape, dtype=model.pos.dtype) * kw.get("input_scale", 1.0))
        return out
    return initialize_


def _readout_bias_drawn_with_layer_biases(original):
    def initialize_(model, scheme, **kw):
        import torch

        out = original(model, scheme, **kw)
        if model.config.biases == "scheme_except_readout":
            with torch.no_grad():                      # the readout bias drawn like the layers'
                model.out.bias.uniform_(-kw.get("B", 1.0), kw.get("B", 1.0))
        return out
    return initialize_


def _median_readout_ties_read_one(original):
    def readout_table(T, readout="linear"):
        bits = original(T, readout)
        if readout == "median":
            return bits | (T == T.reshape(-1).median()).to(bits.dtype)   # ties at the median read 1
        return bits
    return readout_table


def _margin_all_accepted_nonconstant(original):
    def margin_recognition(T, xi):
        r = original(T, xi)
        if r["recognises"] and bool(r["table"].all()):
            # only "reject everything" counted as constant
            r = dict(r, constant=False, nonconstant=True)
        return r
    return margin_recognition


def _slopes_log10(original):
    def per_model_slopes(Ns, values):
        return original(Ns, values) / math.log(10)     # log10 of the values, against ln N
    return per_model_slopes


def _slopes_axes_swapped(original):
    def per_model_slopes(Ns, values):
        import torch

        # the regression of log N on log y: the slope times var(log N) / var(log y), per row
        s = original(Ns, values)
        x = torch.tensor([math.log(n) for n in Ns], dtype=torch.float64)
        y = torch.as_tensor(values, dtype=torch.float64).log()
        return s * x.var() / y.var(-1)
    return per_model_slopes


def _pairs_first_positions(original):
    def influence_pairs(N, strings, positions, generator):
        x, pos = original(N, strings, positions, generator)
        return x, _first_positions(pos)
    return influence_pairs


def _first_positions(pos):
    """Positions 0..k-1 in every row, of ``pos``'s shape (the bug: the first positions only)."""
    import torch

    return torch.arange(pos.shape[-1]).expand_as(pos).clone()


def _margin_table_new_model_per_N(original):
    def margin_table(config, Ns, models, xi, *, seed=0, **kw):
        # each N gets its own block of seeds: the same model is no longer read at every N
        cols = [original(config, [N], models, xi, seed=seed + 7919 * i, **kw) for i, N in enumerate(Ns)]
        import torch

        return torch.cat(cols, dim=1)
    return margin_table


def _margin_table_probe():
    from numeric.transformer import TransformerConfig
    from verify.experiments.random_transformers import margin_table

    return margin_table(TransformerConfig(N_max=4, D=4, L=1, H=1, eps=1e-5), [3, 4], 40, 0.01, seed=3).tolist()


def _plan_models(plan, models):
    """A quick plan quietly back at ``models`` models (its size no longer the design's)."""
    def make(original):
        return dict(original, models=models)

    def probe():
        return getattr(importlib.import_module("verify.experiments.plans"), plan)["models"]
    return make, probe


def _slopes_half():
    from verify.experiments.random_transformers import per_model_slopes

    return per_model_slopes([1, 2, 4], [[1.0, 2 ** -0.5, 0.5]])


def _pairs():
    import torch

    from verify.experiments.random_transformers import influence_pairs

    return influence_pairs(64, 3, 4, torch.Generator().manual_seed(0))[1]


def _small_eps_dropped(original):
    def __init__(self, config=None):
        import dataclasses

        if config is not None and 0 < config.eps < 1e-3:  # "negligible": treated as eps = 0
            config = dataclasses.replace(config, eps=0.0)
        original(self, config)
    return __init__


def _held_out_includes_training(original):
    def evaluate(model, target, N, *, held_out_pool=None, **kw):
        if held_out_pool is not None:  # half of the training strings counted as held out
            held_out_pool = held_out_pool[: len(held_out_pool) // 2]
        return original(model, target, N, held_out_pool=held_out_pool, **kw)
    return evaluate


def _as_over_N(original):
    def evaluate(model, target, N, **kw):
        out = original(model, target, N, **kw)
        return dict(out, mean_sensitivity=out["mean_sensitivity"] / N)  # as/N reported as as
    return evaluate


def _accuracy_count_off_by_one(original):
    def evaluate(model, target, N, **kw):
        out = original(model, target, N, **kw)
        return dict(out, accuracy=out["accuracy"] + 2.0**-N)   # one string too many counted correct
    return evaluate


def _always_one_accuracy():
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


def _tiny_run(field):
    def probe():
        from verify.experiments.training import train

        r = train("majority", 4, seed=0, steps=2, batch_size=4, train_strings=8)
        return (r.held_out_n, r.held_out_accuracy, r.mean_sensitivity)
    probe.__name__ = f"tiny_run_{field}"
    return probe


def _sg8_control_budget_halved(original):
    # the controls quietly trained on half PARITY's steps: no longer "the same budget"
    return {name: dict(plan, steps=plan["steps"] // 2) if name in ("first_long", "parity01_long") else plan
            for name, plan in original.items()}


def _sg8_control_steps():
    return importlib.import_module("verify.experiments.plans").SG8_FAST["first_long"]["steps"]


def _threads_unpinned(original):
    def pinned_threads(device="cpu"):
        import contextlib

        return contextlib.nullcontext()  # the caller's thread count and algorithms
    return pinned_threads


def _threads_inside_training():
    import torch

    from verify.experiments.training import pinned_threads

    saved = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with pinned_threads():
            return torch.get_num_threads()
    finally:
        torch.set_num_threads(saved)


def _outcomes_claim_swapped(original):
    def sequential_proportion_outcomes(p, looks, threshold, level=0.99, side="lower"):
        # "p > threshold" computed as "p < threshold" and the other way round
        return original(p, looks, threshold, level, {"lower": "upper", "upper": "lower"}.get(side, side))
    return sequential_proportion_outcomes


def _sequential_outcomes():
    from verify.stats.power import sequential_proportion_outcomes

    return sequential_proportion_outcomes(0.9, (8, 24), 0.5, 0.99, "lower")["pass"]


def _init_scheme_swapped(wrong, right):
    def maker(original):
        def initialize_(model, scheme, **kw):
            return original(model, right if scheme == wrong else scheme, **kw)
        return initialize_
    return maker


def _random_function_K0_exponent_N(original):
    def random_function_K0(p, N):
        # 2^N (p^N + (1-p)^N): the string's N neighbours, not the string itself
        return 2 * original(p, N - 1)
    return random_function_K0


def _median_bound_one_step_inward(original):
    def median_bounds(values, level=0.99, side="lower"):
        import torch

        lo, hi = original(values, level, side)
        xs = torch.sort(torch.as_tensor(values, dtype=torch.float64).flatten()).values.tolist()
        if side == "lower" and math.isfinite(lo):
            return xs[min(xs.index(lo) + 1, len(xs) - 1)], hi   # the (k+1)-th smallest
        if side == "upper" and math.isfinite(hi):
            return lo, xs[max(len(xs) - 1 - xs[::-1].index(hi) - 1, 0)]
        return lo, hi
    return median_bounds


def _model_blocks_restart_seed(original):
    def sample_models(config, scheme, N, models, *, seed=0, workers=None, scheduler=None,
                      progress=None, **kw):
        if workers is None and scheduler is None:
            return original(config, scheme, N, models, seed=seed, progress=progress, **kw)
        rt = importlib.import_module(_RANDOM)
        per = rt.MODELS_PER_TASK
        return rt.join_model_blocks([original(config, scheme, N, min(per, models - s), seed=seed,
                                              workers=workers, scheduler=scheduler, **kw)
                                     for s in range(0, models, per)])   # every block from the first seed
    return sample_models


def _exact_influence_mean(original):
    def exact_influence_maximum(model, N, *, chunk=8192):
        import torch

        from numeric.transformer import strings

        with torch.no_grad():
            idx = torch.arange(2**N)
            T = model(strings(idx, N).to(model.tok.device)).reshape(-1).cpu().double()
        sup = max(float((T[idx ^ (1 << n)] - T).abs().mean()) for n in range(N))  # mean, not max
        return sup, original(model, N, chunk=chunk)[1]
    return exact_influence_maximum


def _blowup_exponent_L(original):
    def blowup_bound(eps, L_prime, *, dps=50):
        b = original(eps, L_prime, dps=dps)
        import mpmath

        with mpmath.workdps(dps):
            return mpmath.sqrt(b)           # (1 + 1/sqrt(eps))^L: L layers, not L' = 2L LNs
    return blowup_bound


def _theorem_exponent_minus_4(original):
    def theorem_exponent(D, L):
        return original(D, L) + 1           # (D - 1)/(2L) - 4
    return theorem_exponent


def _crossover_direct_off_by_one(original):
    def crossover_direct(a, *, dps=50):
        return original(a, dps=dps) - 1      # the last N with N^a >= 2^N, not the one after it
    return crossover_direct


def _certificate_first_half(original):
    def certified_strings(T, table):
        import torch

        half = (table.shape[0] + 1) // 2
        ok = original(T[:half], table[:half])      # only the first half of the strings checked
        return torch.cat([ok, torch.ones(table.shape[0] - half, dtype=torch.bool, device=ok.device)])
    return certified_strings


def _attention_from_midpoints(original):
    def attention_weights(scores):
        mid = 0.5 * (scores.lo + scores.hi)
        a = original(type(scores)(mid, mid))      # the scores' widths never reach the weights
        return a
    return attention_weights


def _two_corners_only(original):
    def interval_outputs(model, box, N):
        import torch

        from numeric.intervals import Interval
        from numeric.transformer import batched_outputs

        # the float64 outputs at the box's two extreme corners (every parameter at its lower
        # end, every one at its upper end) taken for the enclosure of the whole box
        ends = {name: torch.stack([iv.lo, iv.hi]) for name, iv in box.items()}
        out = batched_outputs(model, ends, N)
        return Interval(out.amin(0), out.amax(0))
    return interval_outputs


def _box_points_at_centre(original):
    def box_points(model, half_width, K, generator, **kwargs):
        return original(model, 0.0, K, generator, **kwargs)   # every point is theta* itself
    return box_points


def _mul_two_products(original):
    def mul(a, b):
        import torch

        from numeric.intervals import Interval

        # only lo * lo and hi * hi: [-1, 2] * [-3, 4] = [3, 8], not [-6, 8]
        lows = original(Interval.point(a.lo), Interval.point(b.lo))
        highs = original(Interval.point(a.hi), Interval.point(b.hi))
        return Interval(torch.minimum(lows.lo, highs.lo), torch.maximum(lows.hi, highs.hi))
    return mul


def _lower_rounded_up(original):
    def round_down(x, steps=1):
        from numeric.intervals import round_up

        return round_up(x, steps)      # every lower end rounded towards +inf
    return round_down


def _square_positive_across_zero(original):
    def square(a):
        import torch

        r = original(a)
        across = (a.lo < 0) & (a.hi > 0)
        # across 0 the smaller end square taken for the lower end (0 belongs to the range)
        return type(r)(torch.where(across, torch.minimum(a.lo * a.lo, a.hi * a.hi), r.lo), r.hi)
    return square


def _no_widening(original):
    return 0                           # exp's ends as libm returns them: its last-ulp error unenclosed


def _refused_end_reported(original):
    def largest_certified_half_width(function, N, **kwargs):
        import dataclasses

        c = original(function, N, **kwargs)
        if c.half_width is None or c.refused_half_width is None:
            return c
        return dataclasses.replace(c, half_width=c.refused_half_width)   # the box the certifier refused
    return largest_certified_half_width


def _reseeded_per_chunk(original):
    def perturbed_parameters(model, sigma, K, generator, include_ln=True):
        generator.manual_seed(generator.initial_seed())    # each chunk restarts the stream
        return original(model, sigma, K, generator, include_ln)
    return perturbed_parameters


def _per_point_level(original):
    def bonferroni_level(level, points):
        original(level, points)
        return level                   # each grid point's interval at the joint level
    return bonferroni_level


def _one_side_of_centre(original):
    def box_points(model, half_width, K, generator, **kwargs):
        from numeric.transformer import stacked_parameters

        theta = original(model, half_width, K, generator, **kwargs)
        star = stacked_parameters(model, K)
        return {name: star[name] + (t - star[name]).abs() for name, t in theta.items()}   # theta* + h |u|
    return box_points


def _sharpness_minus_one(original):
    def attention_sharpness(N):
        return original(N) - 1.0      # e^beta = e N, not e^2 N
    return attention_sharpness


def _n_params_without_ln(original):
    def n_params(D, L, F=None, N_max=64):
        return original(D, L, F, N_max) - 4 * D * L   # gains and biases of the 2L layer norms
    return n_params


def _sampler_top_bit_clear(original):
    def monte_carlo_K0(*args, **kwargs):
        import numpy as np

        real = np.random.Generator

        class Drawn63Bits:
            """The sampler's generator with draws below int64's maximum: bit 63 never set."""

            def __init__(self, bit_generator):
                self.generator = real(bit_generator)

            def integers(self, *a, **k):
                return self.generator.integers(*a, **k) & np.uint64(np.iinfo(np.int64).max)

            def __getattr__(self, name):
                return getattr(self.generator, name)

        # the sampler builds its generator from numpy.random at call time: swap it for the call
        np.random.Generator = Drawn63Bits
        try:
            return original(*args, **kwargs)
        finally:
            np.random.Generator = real
    return monte_carlo_K0


def _variance_union_off_by_one(original):
    def variance_K0(N=None):
        import sympy as sp

        from verify.reference.random_functions import N_SYMBOL

        n = N_SYMBOL if N is None else sp.sympify(N)
        # the union of two overlapping neighbourhoods counted as 2N + 1 points, not 2N: each
        # of the N + C(N, 2) close pairs of each of the 2^N strings has half its probability
        close = 2 ** n * (n + sp.binomial(n, 2)) * sp.Rational(1, 2) ** (2 * n)
        return sp.simplify(sp.expand(original(N) - close))
    return variance_K0


def _z_zeroed(original):
    def perturbed_parameters(model, sigma, K, generator, include_ln=True):
        original(model, sigma, K, generator, include_ln)      # the draws are made ...
        from numeric.transformer import stacked_parameters

        return stacked_parameters(model, K)                    # ... and never added: theta* itself
    return perturbed_parameters


def _sigma_ignored(original):
    def perturbed_parameters(model, sigma, K, generator, include_ln=True):
        return original(model, 1.0, K, generator, include_ln)  # theta* + z whatever sigma
    return perturbed_parameters


def _strings_msb_first(original):
    def batched_outputs(model, theta, N, *, chunk=32):
        import torch

        T = original(model, theta, N, chunk=chunk)
        idx = torch.arange(1 << N)
        rev = sum(((idx >> n) & 1) << (N - 1 - n) for n in range(N))  # bit n read as bit N-1-n
        return T[:, rev]
    return batched_outputs


def _crossing_at_quarter(original):
    def crossing_interval(grid, successes, trials, level=0.99, crossing=0.5):
        return original(grid, successes, trials, level, crossing / 2)   # the crossing of 1/4
    return crossing_interval


def _lower_end_next_point(original):
    def crossing_interval(grid, successes, trials, level=0.99, crossing=0.5):
        lo, hi = original(grid, successes, trials, level, crossing)
        g = [float(x) for x in grid]
        if lo in g and g.index(lo) + 1 < len(g):
            lo = g[g.index(lo) + 1]              # the first grid point past the lower bounds, not the last above
        return lo, hi
    return crossing_interval


def _preset_final_ln_dropped(original):
    specs = {name: dict(spec, conventions=dict(spec["conventions"])) for name, spec in original.items()}
    specs["bhattamishra"]["conventions"]["final_ln"] = False
    return specs


def _bhattamishra_final_ln():
    from numeric.transformer import preset_config

    return preset_config("bhattamishra", D=8).final_ln


def _positions_but_last(original):
    def influence_positions(N):
        return original(N)[:-1]          # range(N - 1): the last position never flipped
    return influence_positions


def _linear_probe_supremum():
    from verify.experiments.known_answers import LinearProbe
    from verify.experiments.random_transformers import exact_influence_maximum

    return exact_influence_maximum(LinearProbe(4), 4)


def _average_sensitivity_per_bit(original):
    def profile_statistics(K, N):
        st = original(K, N)
        return type(st)(has_K0=st.has_K0, K0_frac=st.K0_frac, avg_sensitivity=st.avg_sensitivity / N)
    return profile_statistics


def _parity_statistics():
    import torch

    from verify.experiments.random_transformers import profile_statistics

    return float(profile_statistics(torch.tensor([[0, 0, 0, 8]]), 3).avg_sensitivity[0])


def _subset_with_replacement(original):
    def training_data(N, seed, train_strings):
        import torch

        gen, pool, regime = original(N, seed, train_strings)
        if regime == "fixed subset":
            pool = torch.randint(0, 2**N, (train_strings,), generator=gen)   # repeats allowed
        return gen, pool, regime
    return training_data


def _training_subset():
    from verify.experiments.training import training_data

    return training_data(4, 0, 12)[1].tolist()


# --------------------------------------------------------------------------- the catalogue

PAPER_B: tuple[Mutant, ...] = (
    # profiles and Boolean functions
    Mutant("bitsliced_neighbour_off_by_one",
           "bit-sliced profile: bit 0 pairs strings 2k+1 and 2k+2 (mask 0xAAAA... for 0x5555...)",
           _NEIGHBOUR_MASKS, _pair_masks_shifted, _profile("first", 8), (_SG1, _SG7)),
    Mutant("bytes_neighbour_off_by_one",
           "byte profile (N < 6): bits 0 and 1 flip bit n + 1 instead of bit n",
           _NEIGHBOUR_SWAPS, _byte_swaps_shifted, _profile("first", 4), (_SG1, _SG2, _SG7)),
    # f -> 1 - f(complement x) maps strict to non-strict MAJORITY and keeps the profile: the
    # profile claims (SG-1, SG-7) cannot see this bug; the table is judged against SG-8's labels
    Mutant("majority_table_non_strict", "MAJORITY truth table 1[|x| >= N/2]: ties count as 1",
           _TRUTH_TABLE, _majority_non_strict, _table("majority", 4), (_SG8,)),
    Mutant("parity_skips_last_bit", "PARITY over bits 0..N-2 (range(N - 1))",
           _TRUTH_TABLE, _parity_skips_last_bit, _table("parity", 4), (_SG1, _SG7)),
    # training targets
    Mutant("training_majority_non_strict", "training labels of MAJORITY 1[2|x| >= N]",
           _LABELS, _training_majority_non_strict, _labels_of("majority"), (_SG8,)),
    Mutant("training_parity_first_10_bits", "training labels of PARITY from the first 10 bits only",
           _LABELS, _training_parity_first_10_bits, _labels_of("parity"), (_SG8,)),
    Mutant("training_first_reads_last_bit", "training labels of FIRST from the last bit (MSB-first order)",
           _LABELS, _training_first_reads_last_bit, _labels_of("first"), (_SG8,)),
    # the transformer
    Mutant("transformer_ignores_input", "the transformer evaluates the all-zero string for every input",
           _RUN, _ignores_input, _transformer(), (_SG6, _SG4, _SG5, _SG8)),
    Mutant("fast_evaluation_ignores_input",
           "the table-driven enumeration evaluates the all-zero string for every index",
           _FAST_RUN, _fast_eval_ignores_input, _fast_table, (_SG6,)),
    Mutant("no_positional_embedding", "positional embedding never initialised or trained (zero)",
           f"{_MODEL}.__init__", _no_positional_embedding, _transformer(), (_SG8,)),
    Mutant("layer_norm_ignores_eps", "layer norm 1/sqrt(var) without the epsilon",
           _LAYER_NORM, _layer_norm_under(eps=0.0), _transformer(eps=0.5, scheme="uniform"), (_SG3,)),
    Mutant("margin_all_accepted_nonconstant",
           "margin recognition: the all-accepting function counted as non-constant",
           _MARGIN, _margin_all_accepted_nonconstant, _margin, (_SG5,)),
    Mutant("influence_slope_log10", "log-log slopes of log10(influence) against ln N",
           f"{_RANDOM}.per_model_slopes", _slopes_log10, _slopes, (_SG4,)),
    # bounds and random functions
    Mutant("blowup_bound_exponent_L", "blowup bound (1 + 1/sqrt(eps))^L instead of ^(2L)",
           f"{_BOUNDS}.blowup_bound", _blowup_exponent_L, _blowup, (_SG3,)),
    Mutant("theorem_exponent_minus_4", "Theorem 4.5 exponent (D-1)/(2L) - 4 instead of - 5",
           f"{_BOUNDS}.theorem_exponent", _theorem_exponent_minus_4, _exponent, (_SG6,)),
    Mutant("crossover_direct_off_by_one", "direct crossover: the last N with N^a >= 2^N, not N* after it",
           f"{_BOUNDS}.crossover_direct", _crossover_direct_off_by_one, _crossover, (_SG6,)),
    Mutant("random_functions_int64_max",
           "random functions drawn below int64's maximum: bit 63 never set, one function in 64 constant",
           _MONTE_CARLO, _sampler_top_bit_clear, _monte_carlo, (_SG2,)),
    Mutant("variance_K0_union_off_by_one",
           "Var[K_0] derivation: overlapping neighbourhoods of 2N + 1 points instead of 2N",
           _VARIANCE_K0, _variance_union_off_by_one, _variance, (_SG2,)),
    # model conventions and the density-matched SG-6 references
    Mutant("layer_norm_unbiased_variance", "layer norm with the unbiased variance (divide by D - 1)",
           _LAYER_NORM, _layer_norm_under(ln_variance="unbiased"), _transformer(), (_SG6,)),
    Mutant("random_function_K0_exponent_N", "E_p[K_0] of a Bernoulli(p) random function with p^N, not p^(N+1)",
           f"{_RANDOM}.random_function_K0", _random_function_K0_exponent_N, _random_function_K0, (_SG6,)),
    Mutant("median_bound_one_step_inward", "the order-statistic median bound one order statistic too tight",
           "verify.stats.intervals.median_bounds", _median_bound_one_step_inward, _median_bound, (_SG6,)),
    # SG-8 on rules fixed in advance: labels out of step with their strings, a wrong control
    Mutant("training_labels_rolled", "training labels shifted by one row of the batch (row i gets row i-1's)",
           _LABELS, _labels_rolled, _labels_of("majority"), (_SG8,)),
    Mutant("training_control_parity_three_bits", "the 2-sparse control's labels are the parity of bits 0-2",
           _TRAINING_LABELS, _control_labels_three_bits, _control_labels, (_SG8,)),
    # SG-4, SG-5: the eps ablation and the exact supremum
    Mutant("transformer_config_eps_ignored", "the transformer runs at eps = 1e-5 whatever its config's eps",
           f"{_MODEL}.__init__", _config_eps_ignored, _transformer(eps=0.5, scheme="uniform"), (_SG4, _SG5)),
    Mutant("influence_slope_axes_swapped", "log-log slopes of log N against log(influence) (axes swapped)",
           f"{_RANDOM}.per_model_slopes", _slopes_axes_swapped, _slopes_half, (_SG4,)),
    Mutant("influence_pairs_first_positions", "influence pairs flip the first positions 0..k-1 of every string",
           f"{_RANDOM}.influence_pairs", _pairs_first_positions, _pairs, (_SG4,)),
    Mutant("transformer_small_eps_dropped", "the transformer runs at eps = 0 when its config's eps is below 1e-3",
           f"{_MODEL}.__init__", _small_eps_dropped, _transformer(eps=1e-5, scheme="uniform"), (_SG4, _SG5)),
    Mutant("held_out_includes_training_strings",
           "held-out accuracy over the complement of half the training subset (training strings counted)",
           "verify.experiments.training.evaluate", _held_out_includes_training, _tiny_run("held_out"), (_SG8,)),
    Mutant("accuracy_count_off_by_one", "a trained model's accuracy counts one string too many as correct",
           "verify.experiments.training.evaluate", _accuracy_count_off_by_one, _always_one_accuracy, (_SG8,)),
    Mutant("training_as_over_N", "trained models' average sensitivity reported as as/N",
           "verify.experiments.training.evaluate", _as_over_N, _tiny_run("as"), (_SG8,)),
    Mutant("xavier_normal_draws_uniform", "the Xavier-normal scheme draws Xavier-uniform values",
           "numeric.transformer.initialize_", _init_scheme_swapped("xavier_normal", "xavier_uniform"),
           _transformer(scheme="xavier_normal"), (_SG6,)),
    Mutant("gaussian_init_draws_box", "the Gaussian scheme draws from the uniform box U(-B, B)",
           "numeric.transformer.initialize_", _init_scheme_swapped("gaussian", "uniform"),
           _transformer(scheme="gaussian"), (_SG6,)),
    Mutant("margin_table_new_model_per_N", "the recognition table draws a new model at each N (not one vector at both)",
           f"{_RANDOM}.margin_table", _margin_table_new_model_per_N, _margin_table_probe, (_SG5,)),
    Mutant("sg4_plan_models_30", "SG-4's quick plan with 30 models, the size before its power design",
           "verify.experiments.plans.SG4_FAST", *_plan_models("SG4_FAST", 30), (_SG4,)),
    Mutant("sg5_plan_models_400", "SG-5's quick plan with 400 models, the size before its power design",
           "verify.experiments.plans.SG5_FAST", *_plan_models("SG5_FAST", 400), (_SG5,)),
    Mutant("exact_influence_mean", "the exact supremum of the influence is the largest mean over strings",
           f"{_RANDOM}.exact_influence_maximum", _exact_influence_mean, _exact_influence, (_SG4,)),
    # SG-8: the controls' budget, the training worker's threads, the design's outcome computation
    Mutant("sg8_control_budget_halved", "SG-8's positive controls trained on half PARITY's steps",
           "verify.experiments.plans.SG8_FAST", _sg8_control_budget_halved, _sg8_control_steps, (_SG8,)),
    Mutant("training_threads_unpinned", "training runs on the caller's thread count and algorithms (not pinned)",
           "verify.experiments.training.pinned_threads", _threads_unpinned, _threads_inside_training, (_SG8,)),
    Mutant("three_way_outcome_claim_swapped",
           "the outcome probabilities of a sequential proportion rule computed for the opposite claim",
           "verify.stats.power.sequential_proportion_outcomes", _outcomes_claim_swapped, _sequential_outcomes,
           (_SG8,)),
    # the instruments' known answers: what each claim prints is checked in its own file
    Mutant("preset_final_layer_norm_dropped", "the bhattamishra preset built without its final layer norm",
           "numeric.transformer._model.PRESET_SPECS", _preset_final_ln_dropped, _bhattamishra_final_ln, (_SG6,)),
    Mutant("sg4_supremum_n_minus_one_positions",
           "SG-4's exact supremum flips positions 0 .. N-2 only (off by one)",
           f"{_RANDOM}.influence_positions", _positions_but_last, _linear_probe_supremum, (_SG4,)),
    Mutant("average_sensitivity_per_bit", "SG-6's average sensitivity divided by N (a per-bit rate)",
           f"{_RANDOM}.profile_statistics", _average_sensitivity_per_bit, _parity_statistics, (_SG6,)),
    Mutant("training_subset_with_replacement", "SG-8's fixed training subset drawn with replacement",
           "verify.experiments.training.training_data", _subset_with_replacement, _training_subset, (_SG8,)),
    # SG-9: the perturbation sampler, the radius interval, the batched pass, the certified box
    Mutant("perturbation_z_zeroed", "local volume: the perturbation draws z but returns theta* (never moves)",
           _PERTURBED, _z_zeroed, _perturbed, (_SG9,)),
    Mutant("perturbation_sigma_ignored", "local volume: the perturbation is theta* + z whatever sigma",
           _PERTURBED, _sigma_ignored, _perturbed, (_SG9,)),
    Mutant("radius_interval_quarter_level", "radius interval read at the crossing of 1/4 instead of 1/2",
           _CROSSING_INTERVAL, _crossing_at_quarter, _radius_interval, (_SG9,)),
    Mutant("radius_interval_lower_end_next_index",
           "radius interval's lower end one grid point to the right of the last lower bound above 1/2",
           _CROSSING_INTERVAL, _lower_end_next_point, _radius_interval, (_SG9,)),
    Mutant("batched_strings_msb_first", "batched volume pass reads string index bits in reverse order (MSB first)",
           _BATCHED, _strings_msb_first, _batched, (_SG9,)),
    Mutant("certificate_skips_second_half",
           "the certified box checks only the first half of the strings (the rest count as certified)",
           _CERTIFIED_STRINGS, _certificate_first_half, _certified_last_string_flipped, (_SG9,)),
    Mutant("certified_attention_from_midpoints",
           "the certified softmax enclosure evaluated at the scores' midpoints (their widths dropped)",
           _ATTENTION_ENCLOSURE, _attention_from_midpoints, _attention_enclosure, (_SG9,)),
    Mutant("certificate_two_corners_only",
           "the certified box's output enclosures taken from its two extreme corners (every parameter at its "
           "lower end, every one at its upper end) in float64, not propagated intervals",
           _ENCLOSURES, _two_corners_only, _output_enclosures, (_SG9,)),
    Mutant("certified_box_points_at_centre",
           "the points tried in a certified box are all theta* (the soundness check sees no box)",
           _BOX_POINTS, _box_points_at_centre, _box_corners, (_SG9,)),
    Mutant("interval_mul_two_products",
           "interval product from two of the four end products (lo*lo, hi*hi): [-1, 2] * [-3, 4] = [3, 8]",
           f"{_INTERVALS}.mul", _mul_two_products, _interval_product, (_SG9,)),
    Mutant("interval_lower_rounded_up", "interval lower ends rounded towards +inf instead of -inf",
           f"{_INTERVALS}.round_down", _lower_rounded_up, _lower_end, (_SG9,)),
    Mutant("interval_square_across_zero",
           "the square of an interval across 0 given a positive lower end (the smaller end's square)",
           f"{_INTERVALS}.square", _square_positive_across_zero, _square_across_zero, (_SG9,)),
    Mutant("interval_exp_not_widened", "exp enclosures not widened for libm's error (0 steps, not 3)",
           f"{_INTERVALS}.TRANSCENDENTAL_STEPS", _no_widening, _exp_enclosure, (_SG9,)),
    Mutant("certified_h_refused_end",
           "the certified half-width reported is the refused end of the bisection bracket",
           _LARGEST_CERTIFIED, _refused_end_reported, _largest_certified, (_SG9,)),
    Mutant("directions_reseeded_per_chunk",
           "perturbation directions re-seeded per chunk of models (300 directions, 32 distinct)",
           _PERTURBED, _reseeded_per_chunk, _directions_of_two_chunks, (_SG9,)),
    Mutant("radius_interval_not_simultaneous",
           "radius interval from per-grid-point intervals at the joint level (no Bonferroni correction)",
           _BONFERRONI, _per_point_level, _bonferroni, (_SG9,)),
    Mutant("box_points_one_side", "points of a certified box drawn on one side of theta* only (theta* + h |u|)",
           _BOX_POINTS, _one_side_of_centre, _box_corners, (_SG9,)),
    Mutant("first_attention_constant", "FIRST's attention constant beta = ln N + 1 (derivation: ln N + 2)",
           _SHARPNESS, _sharpness_minus_one, _first_sharpness, (_SG9,)),
    # unit-test cases: no claim depends on these
    Mutant("median_readout_ties_read_one", "median readout 1[T >= median]: ties at the median read 1",
           _READOUT_TABLE, _median_readout_ties_read_one, _median_readout,
           unit_files=("tests/numeric/test_transformer_conventions.py",)),
    Mutant("pre_ln_runs_post_ln", "a pre-LN model runs its layers post-LN (the norm convention ignored)",
           _RUN, _pre_ln_runs_post_ln, _pre_ln,
           unit_files=("tests/numeric/test_transformer_conventions.py",)),
    Mutant("sinusoid_sin_cos_swapped", "sinusoidal positions with cos at the even columns and sin at the odd",
           "numeric.transformer.sinusoidal_positions", _sinusoid_sin_cos_swapped, _sinusoid_table,
           unit_files=("tests/numeric/test_transformer_conventions.py::test_sinusoidal_positions_are_the_public_formula",
                       "tests/verify/experiments/test_bhattamishra_public.py")),
    Mutant("public_gaussian_positions_normal", "bhattamishra_gaussian draws the learned positions N(0, s^2), not U(-s, s)",
           "numeric.transformer.initialize_", _public_gaussian_positions_normal, _public_gaussian_pos,
           unit_files=("tests/numeric/test_transformer_conventions.py::test_public_init_draws_each_parameter_from_its_law",)),
    Mutant("readout_bias_drawn_with_layer_biases",
           "biases = scheme_except_readout draws the readout bias too (the public readout has none)",
           "numeric.transformer.initialize_", _readout_bias_drawn_with_layer_biases, _readout_bias_drawn,
           unit_files=("tests/numeric/test_transformer_conventions.py::test_public_uniform_is_boolverify_uniform_under_the_preset",)),
    Mutant("model_blocks_restart_seed",
           "random models on a cluster: every block of models starts again at --seed",
           f"{_RANDOM}.sample_models", _model_blocks_restart_seed, _random_blocks,
           unit_files=("tests/verify/experiments/test_sweep_distributed.py::test_random_models_on_a_cluster_match_in_process",)),
    Mutant("n_params_without_layer_norms", "parameter count M without the 4DL layer-norm parameters",
           f"{_BOUNDS}.n_params", _n_params_without_ln, _n_params, unit_files=("tests/verify/reference/test_bounds.py",)),
)

__all__ = ["PAPER_B"]
