"""The paper-B Boolean transformer: model, initialisation and evaluation over all strings.

Public entry point; the code lives in :mod:`numeric.transformer_model` (configuration, model,
initialisation schemes) and :mod:`numeric.transformer_eval` (all-strings evaluation, profiles,
margin recognition, influence).
"""

from numeric.transformer_eval import (
    ENUM_LIMIT, boolean_table, evaluate_all, evaluate_all_blowup, margin_recognition,
    max_influence, model_profile, random_profiles,
)
from numeric.transformer_model import (
    EOS, SCHEMES, BooleanTransformer, TransformerConfig, initialize_, random_model,
)

__all__ = [
    "EOS", "SCHEMES", "TransformerConfig", "BooleanTransformer", "initialize_", "random_model",
    "ENUM_LIMIT", "evaluate_all", "evaluate_all_blowup", "boolean_table", "model_profile",
    "margin_recognition", "max_influence", "random_profiles",
]
