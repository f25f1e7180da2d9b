"""The paper-B Boolean transformer: model, initialisation and evaluation over all strings.

The package of paper B's model; this module is its public face. The code lives in private
modules: ``_model`` (configuration, its convention options and presets, the model, the
readouts' registry), ``_init`` (the initialisation schemes' registry), ``_eval`` (all-strings evaluation,
profiles, margin recognition, influence), ``_sample`` (sampled sensitivities of long inputs),
``_constructions`` (explicit solutions of FIRST, MAJORITY and PARITY), ``_local_volume`` (the
sampled local volume around a solution), ``_certified_volume`` (the interval-arithmetic
certificate of a parameter box) and ``_sharpness`` (Gaussian-noise sharpness).
"""

from numeric.transformer._eval import (
    ENUM_LIMIT, boolean_table, evaluate_all, evaluate_all_blowup, margin_recognition,
    max_influence, model_profile, random_profiles,
)
from numeric.transformer._model import (
    CONVENTIONS, EOS, PRESET_SPECS, SCHEMES, BooleanTransformer, TransformerConfig, initialize_, preset_config,
    preset_init, random_model, readout_table, sinusoidal_positions,
)
from numeric.transformer._init import INIT_SCHEME_REGISTRY, InitScheme, check_init_scheme, init_options, init_scheme
from numeric.transformer._certified_volume import (
    attention_weights, box_points, certify_box, interval_forward, interval_outputs, parameter_box,
)
from numeric.transformer._constructions import (
    AMPLITUDE, CONSTRUCTED, CONSTRUCTIONS, K_CONST, Construction, attention_sharpness, construct, construction_of,
)
from numeric.transformer._eval import fast_evaluator, fast_path_applies, strings, table_profile
from numeric.transformer._local_volume import (
    batched_outputs, check_batchable, kept_values, load_parameters, parameter_names, perturbation_chunks,
    perturbed_parameters, stacked_parameters, volume_point,
)
from numeric.transformer._sample import neighbour_sensitivities, sample_strings, sampled_sensitivities
from numeric.transformer._sharpness import model_sharpness

__all__ = [
    "EOS", "SCHEMES", "CONVENTIONS", "PRESET_SPECS", "TransformerConfig", "BooleanTransformer", "initialize_",
    "random_model", "preset_config", "preset_init", "readout_table", "check_init_scheme", "sinusoidal_positions",
    "ENUM_LIMIT", "evaluate_all", "evaluate_all_blowup", "boolean_table", "model_profile",
    "margin_recognition", "max_influence", "random_profiles", "fast_evaluator", "fast_path_applies", "strings",
    "table_profile",
    "sampled_sensitivities", "neighbour_sensitivities", "sample_strings",
    "CONSTRUCTED", "CONSTRUCTIONS", "Construction", "construction_of", "AMPLITUDE", "K_CONST", "construct", "attention_sharpness",
    "batched_outputs", "check_batchable", "kept_values", "load_parameters", "parameter_names",
    "perturbation_chunks", "perturbed_parameters", "stacked_parameters", "volume_point",
    "attention_weights", "box_points", "certify_box", "interval_forward", "interval_outputs", "parameter_box",
    "model_sharpness", "INIT_SCHEME_REGISTRY", "InitScheme", "init_options", "init_scheme",
]
