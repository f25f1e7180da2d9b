"""Mutants of the registries (initialisation schemes, Boolean functions, optimisers, losses): a
missing or miswired entry must be caught by the claims that read the registry."""

from __future__ import annotations

import dataclasses

from verify.report.mutation.engine import Mutant

_SG8 = "theorems/test_SG8_training.py"
_SX5 = "theorems/test_SX5_softmax_necessity.py"


def _bce_ascends(original):
    def training_loss(loss):
        entry = original(loss)
        if entry.name != "bce":
            return entry
        # the logistic loss with its sign flipped: every AdamW step climbs it
        return dataclasses.replace(entry, batch_loss=lambda T, y: -entry.batch_loss(T, y))
    return training_loss


def _bce_probe():
    import torch

    from verify.experiments import training

    T, y = torch.tensor([0.5, -1.0], dtype=torch.float64), torch.tensor([1.0, 0.0], dtype=torch.float64)
    return float(training.training_loss("bce").batch_loss(T, y))


def _adam_ascends(original):
    def optimizer_of(optimizer):
        entry = original(optimizer)
        if entry.name != "adam":
            return entry

        def step(state, params, grads, t, lr):
            new = entry.step(state, params, grads, t, lr)
            return tuple(2 * p - q for p, q in zip(params, new))     # theta + lr * update
        return dataclasses.replace(entry, step=step)
    return optimizer_of


def _adam_probe():
    import torch

    from verify.experiments import attention_comparison

    adam = attention_comparison.optimizer_of("adam")
    th = torch.tensor([0.3, -0.2], dtype=torch.float64)
    g = torch.tensor([1.0, 2.0], dtype=torch.float64)
    new, _ = adam.step(adam.start(th, th), (th, th), (g, g), 1, 0.1)
    return new.tolist()


def _init_entry_option_ignored(scheme, option):
    """The init-scheme registry's entry ``scheme`` draws at its default ``option`` whatever the
    caller gives (an option accepted and silently not used)."""
    def maker(original):
        def init_scheme(name, **kw):
            entry = original(name, **kw)
            if entry.name != scheme:
                return entry
            default = entry.options[option]
            return dataclasses.replace(entry, draw=lambda slot, generator, options:
                                       entry.draw(slot, generator, {**options, option: default}))
        return init_scheme
    return maker


def _uniform_B_probe():
    from numeric.transformer import TransformerConfig, random_model

    return float(random_model(TransformerConfig(D=4, L=1, H=2, N_max=4), "uniform", 0, B=1e-3).tok.detach().abs().max())


def _public_gaussian_input_scale_probe():
    from numeric.transformer import preset_config, random_model

    model = random_model(preset_config("bhattamishra", D=4, L=1, N_max=4), "bhattamishra_gaussian", 0, input_scale=0.5)
    return float(model.pos.detach().abs().max())


def _majority_proof_K0_off_by_one(original):
    # the proved majority profile moves one string from its largest sensitivity to K_0
    entry = original["majority"]

    def evaluate(N, k=None):
        profile = dict(entry.evaluate(N, k))
        top = max(profile)
        profile[0] = profile.get(0, 0) + 1
        profile[top] -= 1
        return {s: K for s, K in profile.items() if K}

    return {**original, "majority": dataclasses.replace(entry, evaluate=evaluate)}


def _majority_proof_probe():
    from verify.symbolic.profile_proofs import formula_profile

    return formula_profile("majority", 10)


def _majority_form_threshold_off_by_one(original):
    # the exact facts of majority from a threshold one weight too high, 1[2(|x_S| - 1) > |S|];
    # its table and labels are untouched, so only the facts computed from the form change
    entry = original["majority"]

    def form(N, params):
        S, _ = entry.form(N, params)
        return S, lambda w: int(2 * (w - 1) > len(S))

    return {**original, "majority": dataclasses.replace(entry, form=form)}


def _majority_facts_probe():
    from numeric.boolean import exact_profile_fraction

    return exact_profile_fraction("majority", 6)


REGISTRIES: tuple[Mutant, ...] = (
    Mutant("init_entry_uniform_ignores_B",
           "the init-scheme registry's uniform entry draws U(-1, 1) whatever B is given",
           "numeric.transformer.init_scheme", _init_entry_option_ignored("uniform", "B"), _uniform_B_probe,
           ("theorems/test_SG3_blowup_bound.py",)),
    Mutant("init_entry_public_gaussian_ignores_input_scale",
           "the registry's bhattamishra_gaussian entry draws the embeddings at input_scale 1 whatever is given",
           "numeric.transformer.init_scheme", _init_entry_option_ignored("bhattamishra_gaussian", "input_scale"),
           _public_gaussian_input_scale_probe,
           unit_files=("tests/numeric/test_transformer_conventions.py::test_public_init_draws_each_parameter_from_its_law",)),
    Mutant("loss_entry_bce_sign_flipped",
           "the training-loss registry's bce entry returns -BCE: training maximises the logistic loss",
           "verify.experiments.training.training_loss", _bce_ascends, _bce_probe, (_SG8,)),
    Mutant("optimizer_entry_adam_ascends",
           "the optimiser registry's adam entry steps along +update: Adam climbs the population loss",
           "verify.experiments.attention_comparison.optimizer_of", _adam_ascends, _adam_probe, (_SX5,)),
    Mutant("proof_entry_majority_K0_off_by_one",
           "the profile-proof registry's majority entry evaluates to K_0 one too large (and its top entry "
           "one too small)", "verify.symbolic.profile_proofs.PROFILE_PROOFS", _majority_proof_K0_off_by_one,
           _majority_proof_probe, ("theorems/test_SG1_profiles.py",)),
    Mutant("function_entry_majority_facts_threshold_off_by_one",
           "the Boolean-function registry's majority entry puts the threshold of its exact facts (profile, "
           "average sensitivity, baseline) one weight too high while its table stays right",
           "numeric.boolean.BOOLEAN_FUNCTIONS", _majority_form_threshold_off_by_one, _majority_facts_probe,
           unit_files=("tests/numeric/test_boolean.py",)),
)
