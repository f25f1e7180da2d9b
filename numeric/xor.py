"""The two-head softmax-attention model of the sparse XOR ``y = -x_a x_b`` on ``{±1}^d``.

Public entry point; the code lives in :mod:`numeric.xor_population` (population loss, gradient,
one step, sampling, empirical loss), :mod:`numeric.xor_metrics` (what one step achieved) and
:mod:`numeric.xor_stream` (embeddings generated block by block, never materialised).
"""

from numeric import xor_metrics, xor_population
from numeric.attention import attention_weights
from numeric.validation import check_support
from numeric.xor_metrics import limit_step_attention, predicted_assignment
from numeric.xor_population import (
    check_embeddings, default_lr, empirical_grad, empirical_loss, sample_data, sample_embeddings,
    sample_init,
)
from numeric.xor_stream import (
    StreamedEmbeddings, stream_grad, stream_loss, stream_loss_and_grad, stream_one_step,
    stream_predicted_assignment, stream_step_metrics, streamed_instance,
)

# The four functions below take a tensor V (the engine modules' functions) or streamed
# embeddings (numeric.xor_stream's); the engine modules stay independent of each other.


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


_STREAMED = ("\n\n    Here ``V`` may also be a :class:`numeric.xor_stream.StreamedEmbeddings` "
             "(generated block by\n    block, never materialised).\n")
for _public, _materialised in ((population_loss, xor_population.population_loss),
                               (population_grad, xor_population.population_grad),
                               (one_step, xor_population.one_step),
                               (step_metrics, xor_metrics.step_metrics)):
    _public.__doc__ = (_materialised.__doc__ or "") + _STREAMED
del _public, _materialised

__all__ = [
    "attention_weights", "step_metrics", "limit_step_attention", "predicted_assignment",
    "check_support", "check_embeddings", "sample_embeddings", "sample_init", "default_lr",
    "population_loss", "population_grad", "one_step",
    "sample_data", "empirical_loss", "empirical_grad",
    "StreamedEmbeddings", "stream_loss", "stream_grad", "stream_loss_and_grad", "stream_one_step",
    "stream_step_metrics", "stream_predicted_assignment", "streamed_instance",
]
