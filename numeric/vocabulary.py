"""The suite's vocabularies, each defined once (torch-free, so every layer can import it)."""

#: Attention maps of the two-head XOR model: softmax, z/d, erf(z)/d.
ATTENTIONS = ("softmax", "linear", "erf")

#: Boolean functions that :func:`numeric.boolean.truth_table` builds by name (each an entry of
#: ``numeric.boolean.BOOLEAN_FUNCTIONS``, which holds its parameters).
FUNCTIONS = (
    "parity", "majority", "first", "dictator", "sparse_parity", "sparse_majority",
    "constant", "random",
)

#: boolverify's four initialisation schemes of the Boolean transformer (``numeric.transformer._model.initialize_``).
INIT_SCHEMES = ("uniform", "gaussian", "xavier_uniform", "xavier_normal")
#: The four initialisations of the public random-transformer code of Bhattamishra et al.
#: (satwik77/Transformer-Simplicity, ``RandFLTAtt/src/components/sanplay.py``), options of the
#: ``bhattamishra`` preset: ``init_weights``, ``init_gauss_weights``, ``init_xavuni``, ``init_xavnormal``
#: in that order. They differ from :data:`INIT_SCHEMES` in what each parameter group draws.
BHATTAMISHRA_INIT_SCHEMES = ("bhattamishra_uniform", "bhattamishra_gaussian", "bhattamishra_xavier_uniform",
                             "bhattamishra_xavier_normal")
#: Every name ``initialize_`` accepts.
ALL_INIT_SCHEMES = INIT_SCHEMES + BHATTAMISHRA_INIT_SCHEMES

#: Model-convention presets of the Boolean transformer: ``boolverify`` (this suite's paper-B
#: formalisation) and ``bhattamishra`` (the conventions of the public random-transformer
#: sensitivity experiment of Bhattamishra et al., satwik77/Transformer-Simplicity).
PRESETS = ("boolverify", "bhattamishra")

#: Where the layer norm sits: after the residual sum (``post``) or on the sublayer input (``pre``).
NORM_POSITIONS = ("post", "pre")
#: Layer-norm variance: divide by D (``biased``) or by D - 1 (``unbiased``, torch's ``std``).
LN_VARIANCES = ("biased", "unbiased")
#: Layer-norm epsilon: ``1/sqrt(var + eps)`` (``inside_sqrt``) or ``1/(std + eps)`` (``added_to_std``).
LN_EPS_PLACEMENTS = ("inside_sqrt", "added_to_std")
#: Scale of the token embedding: 1 (``one``) or sqrt(D) (``sqrt_D``); positions are never scaled.
EMBEDDING_SCALES = ("one", "sqrt_D")
#: Biases (Q/K/V/O, MLP, readout): as the init scheme draws them (``scheme``), 0 (``zero``), or
#: the layers' (Q/K/V/O, MLP) as the scheme draws them and the readout's 0 (``scheme_except_readout``:
#: the public code's ``bias=True``, whose readout has no bias).
BIAS_INITS = ("scheme", "zero", "scheme_except_readout")
#: Positional vectors: a learned table drawn by the init scheme (``learned``), or the fixed
#: sinusoids of the public code (``sinusoidal``: its ``-pos_encode absolute``, period 1000).
POSITION_ENCODINGS = ("learned", "sinusoidal")
#: Layer-norm gain/bias: as the init scheme draws them (``scheme``) or 1/0 (``identity``).
LN_AFFINE_INITS = ("scheme", "identity")
#: Boolean readout of the real output T: ``linear`` 1[T > 0], ``sigmoid`` 1[sigmoid(T) >= 1/2],
#: ``median`` 1[T > median of T over the evaluated strings].
READOUTS = ("linear", "sigmoid", "median")
#: Floating-point type of the transformer's parameters and arithmetic.
MODEL_DTYPES = ("float64", "float32")

#: Named entries of the Boolean-function registry (:mod:`numeric.boolean`): a function of
#: :data:`FUNCTIONS` at fixed parameters, ``name -> (function, ((parameter, value), ...))``.
#: ``parity01`` is the parity of bits 0 and 1, a 2-sparse parity.
NAMED_FUNCTIONS = {"parity01": ("sparse_parity", (("S", (0, 1)),))}

#: Boolean targets a transformer is trained on (entries of :data:`FUNCTIONS`).
TRAINING_TARGETS = ("majority", "first", "parity")
#: Positive controls of the training runs (entries of :data:`NAMED_FUNCTIONS`): ``parity01`` is
#: learnable by attending to two positions, whatever N, so a budget under which PARITY of all N
#: bits fails can be shown to suffice for a parity of few bits.
CONTROL_TARGETS = ("parity01",)
#: Every target the training runs accept.
ALL_TARGETS = TRAINING_TARGETS + CONTROL_TARGETS

#: Boolean functions with an explicit transformer solution (``numeric.transformer``'s
#: constructions, in this order), the functions whose local volume is measured; here so that the
#: CLI checks ``--function`` without loading torch.
CONSTRUCTED_FUNCTIONS = ("first", "majority", "parity")

#: Solutions the local volume is measured around: the explicit constructions, or trained models.
VOLUME_SOLUTIONS = ("constructed", "trained")

#: Training losses.
LOSSES = ("bce", "mse")

#: Optimizers of the multi-step XOR runs.
OPTIMIZERS = ("gd", "adam")

__all__ = ["ATTENTIONS", "FUNCTIONS", "NAMED_FUNCTIONS", "CONTROL_TARGETS", "ALL_TARGETS",
           "INIT_SCHEMES", "BHATTAMISHRA_INIT_SCHEMES", "ALL_INIT_SCHEMES", "PRESETS", "NORM_POSITIONS",
           "LN_VARIANCES", "LN_EPS_PLACEMENTS", "EMBEDDING_SCALES", "BIAS_INITS", "POSITION_ENCODINGS", "LN_AFFINE_INITS",
           "READOUTS", "MODEL_DTYPES", "TRAINING_TARGETS", "LOSSES", "OPTIMIZERS", "VOLUME_SOLUTIONS",
           "CONSTRUCTED_FUNCTIONS"]
