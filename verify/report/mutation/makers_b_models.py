"""The makers of paper B's mutants of the models (:mod:`verify.report.mutation.catalogue_b`):
sensitivity profiles and Boolean functions, training labels, the transformer, its initialisation
and conventions, the random-transformer statistics, the quick plans and training. Each takes the
original (public) function, method or value and returns the bug: the original called with altered
inputs, or its output perturbed. torch and numpy are imported inside the makers.
"""

from __future__ import annotations

import importlib
import math


def pair_masks_shifted(original):
    import numpy as np

    # bit 0 pairs string 2k+1 with 2k+2 instead of 2k with 2k+1
    return [np.uint64(0xAAAAAAAAAAAAAAAA)] + list(original[1:])


def byte_swaps_shifted(original):
    # bit n uses the partner of bit n+1 (bits 0, 1; bit 2 keeps its own): x ^ 2^(n+1)
    return {0: original[1], 1: original[2], 2: original[2]}


def _named_as(name, wanted):
    return isinstance(name, str) and name.lower() == wanted


def majority_non_strict(original):
    def truth_table(name, N, **kwargs):
        t = original(name, N, **kwargs)
        if _named_as(name, "majority"):
            # 1 - f(complement x) of the strict 1[|x| > N/2] is 1[|x| >= N/2]: ties count as 1
            return 1 - t.flip(0)
        return t
    return truth_table


def parity_skips_last_bit(original):
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
training_majority_non_strict = _labels_changed_for(
    "majority", lambda out, bits: out | (2 * bits.sum(-1) == bits.shape[1]).to(out.dtype))


# the parity of bits 0..9 only: the bits from 10 on left out
training_parity_first_10_bits = _labels_changed_for(
    "parity", lambda out, bits: out ^ (bits[:, 10:].sum(-1) % 2).to(out.dtype))


def training_first_reads_last_bit(original):
    def labels(target, bits):
        if target == "first":
            return original(target, bits.flip(-1))       # FIRST of the MSB-first string
        return original(target, bits)
    return labels


def labels_rolled(original):
    def labels(target, bits):
        return original(target, bits).roll(1, 0)  # row i gets the label of row i - 1
    return labels


def control_labels_three_bits(original):
    def labels(target, bits):
        out = original(target, bits)
        if target == "parity01":
            return out ^ bits[:, 2].to(out.dtype)  # parity of bits 0, 1 and 2
        return out
    return labels


def ignores_input(original):
    def run(self, x, full, record, labels=None):
        import torch

        x = torch.as_tensor(x)
        return original(self, torch.zeros_like(x), full, record, labels)   # every x reads as 0...0
    return run


def fast_eval_ignores_input(original):
    def run(self, idx):
        return original(self, idx.new_zeros(idx.shape))   # every string read as index 0: 0...0
    return run


def no_positional_embedding(original):
    def __init__(self, config=None):
        original(self, config)
        import torch

        pos = torch.zeros_like(self.pos.detach())
        del self.pos
        self.register_buffer("pos", pos)     # never initialised, never trained: all zeros
    return __init__


def config_eps_ignored(original):
    def __init__(self, config=None):
        import dataclasses

        if config is not None and config.eps != 1e-5:
            config = dataclasses.replace(config, eps=1e-5)
        original(self, config)
    return __init__


def layer_norm_under(**convention):
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


def pre_ln_runs_post_ln(original):
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


def sinusoid_sin_cos_swapped(original):
    def sinusoidal_positions(rows, D, dtype=None):
        import torch

        t = original(rows, D, torch.float64 if dtype is None else dtype)
        cols = torch.arange(D)
        cols[: 2 * (D // 2)] = cols[: 2 * (D // 2)].view(-1, 2).flip(1).reshape(-1)
        return t[:, cols].contiguous()                 # cos at the even columns, sin at the odd
    return sinusoidal_positions


def public_gaussian_positions_normal(original):
    def initialize_(model, scheme, **kw):
        import torch

        out = original(model, scheme, **kw)
        if scheme == "bhattamishra_gaussian" and model.config.positions == "learned":
            with torch.no_grad():                      # N(0, s^2) positions, not U(-s, s)
                model.pos.copy_(torch.randn(model.pos.shape, dtype=model.pos.dtype) * kw.get("input_scale", 1.0))
        return out
    return initialize_


def readout_bias_drawn_with_layer_biases(original):
    def initialize_(model, scheme, **kw):
        import torch

        out = original(model, scheme, **kw)
        if model.config.biases == "scheme_except_readout":
            with torch.no_grad():                      # the readout bias drawn like the layers'
                model.out.bias.uniform_(-kw.get("B", 1.0), kw.get("B", 1.0))
        return out
    return initialize_


def median_readout_ties_read_one(original):
    def readout_table(T, readout="linear"):
        bits = original(T, readout)
        if readout == "median":
            return bits | (T == T.reshape(-1).median()).to(bits.dtype)   # ties at the median read 1
        return bits
    return readout_table


def margin_all_accepted_nonconstant(original):
    def margin_recognition(T, xi):
        r = original(T, xi)
        if r["recognises"] and bool(r["table"].all()):
            # only "reject everything" counted as constant
            r = dict(r, constant=False, nonconstant=True)
        return r
    return margin_recognition


def slopes_log10(original):
    def per_model_slopes(Ns, values):
        return original(Ns, values) / math.log(10)     # log10 of the values, against ln N
    return per_model_slopes


def slopes_axes_swapped(original):
    def per_model_slopes(Ns, values):
        import torch

        # the regression of log N on log y: the slope times var(log N) / var(log y), per row
        s = original(Ns, values)
        x = torch.tensor([math.log(n) for n in Ns], dtype=torch.float64)
        y = torch.as_tensor(values, dtype=torch.float64).log()
        return s * x.var() / y.var(-1)
    return per_model_slopes


def pairs_first_positions(original):
    def influence_pairs(N, strings, positions, generator):
        x, pos = original(N, strings, positions, generator)
        return x, _first_positions(pos)
    return influence_pairs


def _first_positions(pos):
    """Positions 0..k-1 in every row, of ``pos``'s shape (the bug: the first positions only)."""
    import torch

    return torch.arange(pos.shape[-1]).expand_as(pos).clone()


def margin_table_new_model_per_N(original):
    def margin_table(config, Ns, models, xi, *, seed=0, **kw):
        # each N gets its own block of seeds: the same model is no longer read at every N
        cols = [original(config, [N], models, xi, seed=seed + 7919 * i, **kw) for i, N in enumerate(Ns)]
        import torch

        return torch.cat(cols, dim=1)
    return margin_table


def plan_models(plan, models):
    """A quick plan quietly back at ``models`` models (its size no longer the design's)."""
    def make(original):
        return dict(original, models=models)

    def probe():
        return getattr(importlib.import_module("verify.experiments.plans"), plan)["models"]
    return make, probe


def small_eps_dropped(original):
    def __init__(self, config=None):
        import dataclasses

        if config is not None and 0 < config.eps < 1e-3:  # "negligible": treated as eps = 0
            config = dataclasses.replace(config, eps=0.0)
        original(self, config)
    return __init__


def held_out_includes_training(original):
    def evaluate(model, target, N, *, held_out_pool=None, **kw):
        if held_out_pool is not None:  # half of the training strings counted as held out
            held_out_pool = held_out_pool[: len(held_out_pool) // 2]
        return original(model, target, N, held_out_pool=held_out_pool, **kw)
    return evaluate


def as_over_N(original):
    def evaluate(model, target, N, **kw):
        out = original(model, target, N, **kw)
        return dict(out, mean_sensitivity=out["mean_sensitivity"] / N)  # as/N reported as as
    return evaluate


def accuracy_count_off_by_one(original):
    def evaluate(model, target, N, **kw):
        out = original(model, target, N, **kw)
        return dict(out, accuracy=out["accuracy"] + 2.0**-N)   # one string too many counted correct
    return evaluate


def sg8_control_budget_halved(original):
    # the controls quietly trained on half PARITY's steps: no longer "the same budget"
    return {name: dict(plan, steps=plan["steps"] // 2) if name in ("first_long", "parity01_long") else plan
            for name, plan in original.items()}


def threads_unpinned(original):
    def pinned_threads(device="cpu"):
        import contextlib

        return contextlib.nullcontext()  # the caller's thread count and algorithms
    return pinned_threads


def outcomes_claim_swapped(original):
    def sequential_proportion_outcomes(p, looks, threshold, level=0.99, side="lower"):
        # "p > threshold" computed as "p < threshold" and the other way round
        return original(p, looks, threshold, level, {"lower": "upper", "upper": "lower"}.get(side, side))
    return sequential_proportion_outcomes


def init_scheme_swapped(wrong, right):
    def maker(original):
        def initialize_(model, scheme, **kw):
            return original(model, right if scheme == wrong else scheme, **kw)
        return initialize_
    return maker


def random_function_K0_exponent_N(original):
    def random_function_K0(p, N):
        # 2^N (p^N + (1-p)^N): the string's N neighbours, not the string itself
        return 2 * original(p, N - 1)
    return random_function_K0


def median_bound_one_step_inward(original):
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


def model_blocks_restart_seed(original):
    def sample_models(config, scheme, N, models, *, seed=0, workers=None, scheduler=None,
                      progress=None, **kw):
        if workers is None and scheduler is None:
            return original(config, scheme, N, models, seed=seed, progress=progress, **kw)
        rt = importlib.import_module("verify.experiments.random_transformers")
        per = rt.MODELS_PER_TASK
        return rt.join_model_blocks([original(config, scheme, N, min(per, models - s), seed=seed,
                                              workers=workers, scheduler=scheduler, **kw)
                                     for s in range(0, models, per)])   # every block from the first seed
    return sample_models


def exact_influence_mean(original):
    def exact_influence_maximum(model, N, *, chunk=8192):
        import torch

        from numeric.transformer import strings

        with torch.no_grad():
            idx = torch.arange(2**N)
            T = model(strings(idx, N).to(model.tok.device)).reshape(-1).cpu().double()
        sup = max(float((T[idx ^ (1 << n)] - T).abs().mean()) for n in range(N))  # mean, not max
        return sup, original(model, N, chunk=chunk)[1]
    return exact_influence_maximum


def sharpness_minus_one(original):
    def attention_sharpness(N):
        return original(N) - 1.0      # e^beta = e N, not e^2 N
    return attention_sharpness


def preset_final_ln_dropped(original):
    specs = {name: dict(spec, conventions=dict(spec["conventions"])) for name, spec in original.items()}
    specs["bhattamishra"]["conventions"]["final_ln"] = False
    return specs


def positions_but_last(original):
    def influence_positions(N):
        return original(N)[:-1]          # range(N - 1): the last position never flipped
    return influence_positions


def average_sensitivity_per_bit(original):
    def profile_statistics(K, N):
        st = original(K, N)
        return type(st)(has_K0=st.has_K0, K0_frac=st.K0_frac, avg_sensitivity=st.avg_sensitivity / N)
    return profile_statistics


def subset_with_replacement(original):
    def training_data(N, seed, train_strings):
        import torch

        gen, pool, regime = original(N, seed, train_strings)
        if regime == "fixed subset":
            pool = torch.randint(0, 2**N, (train_strings,), generator=gen)   # repeats allowed
        return gen, pool, regime
    return training_data


def runs_share_first_stream(original):
    def fit_runs(models, targets, N, pools, gens, **kw):
        # every run of the group drawn from run 0's data stream: a run's batches depend on its group
        return original(models, targets, N, [pools[0]] * len(pools), [gens[0]] * len(gens), **kw)
    return fit_runs


def smallest_group_one(original):
    return 1  # a run trained alone through vmap over one run, whose kernels differ from a group's
