"""The two-head softmax-attention model of the sparse XOR ``y = -x_a x_b`` on ``{±1}^d``.

The package of paper A's engine; this module is its public face. The code lives in private
modules: ``_attention`` (the attention maps' registry, their weights and VJPs), ``_population``
(population loss, gradient, one step, sampling, empirical loss), ``_metrics`` (what one step
achieved), ``_stream`` (embeddings generated block by block, never materialised), ``_blocks`` and
``_forms`` (the block passes and closed forms both paths share), ``_single`` (a single model's
gradient on the CPU, its O(d) steps in numpy), ``_path`` (the one-pass/two-pass
choice, measured or from the cache size, and the reader of the machine's calibration) and ``_cls`` (the CLS-token transformer of SX-3).
"""

from numeric.xor import _metrics as xor_metrics, _population as xor_population
from numeric.xor._attention import (
    ATTENTION_MAPS, AttentionMap, attention_jvp, attention_map, attention_vjp, attention_weights,
    map_entry,
)
from numeric.xor._cls import CLSTransformer, all_inputs, cls_population_loss, cls_step
from numeric.xor._forms import closed_form_loss
from numeric.xor._blocks import weight_pullback
from numeric.xor._path import (
    PATHS as GRAD_PATHS, PULLBACK_BACKENDS, calibration, calibration_file, choose_path, forget_calibration,
    pullback_backend, read_calibration, resolve_path,
)
from numeric.validation import check_support
from numeric.xor._metrics import limit_step_attention, predicted_assignment
from numeric.xor._population import (
    check_embeddings, default_lr, empirical_grad, empirical_loss, sample_data, sample_embeddings,
    sample_init,
)
from numeric.xor._stream import (
    StreamedEmbeddings, instance_seed, stream_grad, stream_loss, stream_loss_and_grad, stream_one_step,
    stream_predicted_assignment, stream_step_metrics, streamed_instance,
)

# The four functions below take a tensor V (the engine modules' functions) or streamed
# embeddings (numeric.xor's); the engine modules stay independent of each other.


def population_loss(V, *args, **kwargs):
    if isinstance(V, StreamedEmbeddings):
        return stream_loss(V, *args, **kwargs)
    return xor_population.population_loss(V, *args, **kwargs)


def population_grad(V, *args, **kwargs):
    if isinstance(V, StreamedEmbeddings):
        return stream_grad(V, *args, **kwargs)
    return xor_population.population_grad(V, *args, **kwargs)


def one_step(V, *args, **kwargs):
    if isinstance(V, StreamedEmbeddings):
        return stream_one_step(V, *args, **kwargs)
    return xor_population.one_step(V, *args, **kwargs)


def step_metrics(V, *args, **kwargs):
    if isinstance(V, StreamedEmbeddings):
        return stream_step_metrics(V, *args, **kwargs)
    return xor_metrics.step_metrics(V, *args, **kwargs)


_STREAMED = ("\n\n    Here ``V`` may also be a :class:`numeric.xor._stream.StreamedEmbeddings` "
             "(generated block by\n    block, never materialised).\n")
for _public, _materialised in ((population_loss, xor_population.population_loss),
                               (population_grad, xor_population.population_grad),
                               (one_step, xor_population.one_step),
                               (step_metrics, xor_metrics.step_metrics)):
    _public.__doc__ = (_materialised.__doc__ or "") + _STREAMED
del _public, _materialised

__all__ = [
    "attention_weights", "attention_map", "attention_jvp", "attention_vjp", "ATTENTION_MAPS", "AttentionMap",
    "map_entry", "step_metrics", "limit_step_attention", "predicted_assignment",
    "check_support", "check_embeddings", "sample_embeddings", "sample_init", "default_lr",
    "population_loss", "population_grad", "one_step", "closed_form_loss",
    "sample_data", "empirical_loss", "empirical_grad",
    "StreamedEmbeddings", "stream_loss", "stream_grad", "stream_loss_and_grad", "stream_one_step",
    "stream_step_metrics", "stream_predicted_assignment", "streamed_instance", "instance_seed",
    "GRAD_PATHS", "choose_path", "resolve_path", "calibration", "calibration_file", "read_calibration",
    "forget_calibration",
    "PULLBACK_BACKENDS", "pullback_backend", "weight_pullback",
    "CLSTransformer", "all_inputs", "cls_population_loss", "cls_step",
]
