"""The two-head softmax-attention model of the sparse XOR ``y = -x_a x_b`` on ``{±1}^d``.

Public entry point; the code lives in :mod:`numeric.xor_population` (population loss, gradient,
one step, sampling, empirical loss), :mod:`numeric.xor_metrics` (what one step achieved) and
:mod:`numeric.xor_stream` (embeddings generated block by block, never materialised).
"""

from numeric import xor_metrics as _metrics
from numeric import xor_population as _population
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

_STREAMED = "\n\n    Here ``V`` may also be a :class:`numeric.xor_stream.StreamedEmbeddings` (generated block by\n    block, never materialised).\n"


def _accepts_streamed(module, name, streamed):
    """The public ``name``: ``module.name`` for a tensor ``V``, ``streamed`` for
    :class:`StreamedEmbeddings` (the engine modules stay independent of each other). The engine
    function is looked up at each call, so a replacement installed later (a mutant) is used."""
    materialised = getattr(module, name)

    def public(V, *args, **kwargs):
        fn = streamed if isinstance(V, StreamedEmbeddings) else getattr(module, name)
        return fn(V, *args, **kwargs)

    public.__name__ = public.__qualname__ = name
    public.__doc__ = (materialised.__doc__ or "") + _STREAMED
    public.__module__ = __name__
    return public


population_loss = _accepts_streamed(_population, "population_loss", stream_loss)
population_grad = _accepts_streamed(_population, "population_grad", stream_grad)
one_step = _accepts_streamed(_population, "one_step", stream_one_step)
step_metrics = _accepts_streamed(_metrics, "step_metrics", stream_step_metrics)

__all__ = [
    "attention_weights", "step_metrics", "limit_step_attention", "predicted_assignment",
    "check_support", "check_embeddings", "sample_embeddings", "sample_init", "default_lr",
    "population_loss", "population_grad", "one_step",
    "sample_data", "empirical_loss", "empirical_grad",
    "StreamedEmbeddings", "stream_loss", "stream_grad", "stream_loss_and_grad", "stream_one_step",
    "stream_step_metrics", "stream_predicted_assignment", "streamed_instance",
]
