"""The torch engine (CPU and CUDA, float64 by default). It stands alone: nothing here imports
the rest of the suite, and ``import numeric.xor`` loads neither sympy nor mpmath.

One package per model, each with private modules behind its public face: :mod:`numeric.xor`
(paper A: the two-head XOR model, its attention maps, the CLS transformer),
:mod:`numeric.boolean` (Boolean functions and their sensitivity profiles) and
:mod:`numeric.transformer` (paper B: the Boolean transformer, its volumes and certificates).
Shared by all: :mod:`numeric.validation` (argument checks and :class:`InputError`),
:mod:`numeric.vocabulary` (the names), :mod:`numeric.intervals` (outward-rounded interval
arithmetic) and :mod:`numeric.machine` (the CPU's model and caches, as the OS reports them).
The names below are re-exported lazily, so importing one package does not load the others.
"""

import importlib

_EXPORTS = {
    "numeric.validation": ("InputError",),
    "numeric.vocabulary": ("ATTENTIONS", "FUNCTIONS", "INIT_SCHEMES", "BHATTAMISHRA_INIT_SCHEMES", "PRESETS"),
    "numeric.boolean": ("all_strings", "hamming_weights", "truth_table", "average_sensitivity",
                        "fourier_average_sensitivity", "min_sensitivity", "profile", "walsh_hadamard"),
    "numeric.transformer": ("BooleanTransformer", "TransformerConfig", "boolean_table",
                            "evaluate_all", "initialize_", "margin_recognition", "max_influence",
                            "model_profile", "preset_config", "preset_init", "random_model",
                            "random_profiles", "readout_table", "sinusoidal_positions", "check_init_scheme",
                            "sampled_sensitivities", "neighbour_sensitivities"),
    "numeric.xor": ("check_embeddings", "default_lr", "empirical_grad", "empirical_loss",
                    "one_step", "population_grad", "population_loss", "sample_data",
                    "sample_embeddings", "sample_init", "limit_step_attention", "step_metrics",
                    "StreamedEmbeddings", "stream_grad", "stream_loss", "stream_loss_and_grad",
                    "stream_one_step", "stream_step_metrics", "streamed_instance",
                    "attention_jvp", "attention_map", "attention_vjp", "attention_weights",
                    "CLSTransformer", "cls_population_loss", "cls_step"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name):
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'numeric' has no attribute {name!r}")


def __dir__():
    return __all__
