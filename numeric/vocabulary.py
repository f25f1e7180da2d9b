"""The suite's vocabularies, each defined once (torch-free, so every layer can import it)."""

#: Attention maps of the two-head XOR model: softmax, z/d, erf(z)/d.
ATTENTIONS = ("softmax", "linear", "erf")

#: Boolean functions that :func:`numeric.boolean.truth_table` builds by name.
FUNCTIONS = (
    "parity", "majority", "first", "dictator", "sparse_parity", "sparse_majority",
    "constant", "random",
)

#: Parameters each function accepts (anything else is an error, not silently ignored).
FUNCTION_PARAMS = {
    "parity": (), "majority": (), "first": (), "dictator": ("i",),
    "sparse_parity": ("S",), "sparse_majority": ("S",), "constant": ("value",),
    "random": ("seed",),
}

#: Initialisation schemes of the Boolean transformer.
INIT_SCHEMES = ("uniform", "gaussian", "xavier_uniform", "xavier_normal")

#: Boolean targets a transformer is trained on.
TRAINING_TARGETS = ("majority", "first", "parity")

#: Training losses.
LOSSES = ("bce", "mse")

#: Optimizers of the multi-step XOR runs.
OPTIMIZERS = ("gd", "adam")

__all__ = ["ATTENTIONS", "FUNCTIONS", "FUNCTION_PARAMS", "INIT_SCHEMES", "TRAINING_TARGETS",
           "LOSSES", "OPTIMIZERS"]
