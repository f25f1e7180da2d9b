"""The paper-B Boolean transformer: model, initialisation and evaluation over all strings.

Public entry point; the code lives in :mod:`numeric.transformer_model` (configuration and its
convention options and presets, model, initialisation schemes, readouts) and
:mod:`numeric.transformer_eval` (all-strings evaluation, profiles, margin recognition, influence).
"""

from numeric.transformer_eval import (
    ENUM_LIMIT, boolean_table, evaluate_all, evaluate_all_blowup, margin_recognition,
    max_influence, model_profile, random_profiles,
)
from numeric.transformer_model import (
    CONVENTIONS, EOS, PRESET_SPECS, SCHEMES, BooleanTransformer, TransformerConfig, initialize_, preset_config,
    preset_init, random_model, readout_table, check_init_scheme, sinusoidal_positions,
)

__all__ = [
    "EOS", "SCHEMES", "CONVENTIONS", "PRESET_SPECS", "TransformerConfig", "BooleanTransformer", "initialize_",
    "random_model", "preset_config", "preset_init", "readout_table", "check_init_scheme", "sinusoidal_positions",
    "ENUM_LIMIT", "evaluate_all", "evaluate_all_blowup", "boolean_table", "model_profile",
    "margin_recognition", "max_influence", "random_profiles",
]
