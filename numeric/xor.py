"""The two-head softmax-attention model of the sparse XOR ``y = -x_a x_b`` on ``{±1}^d``.

Public entry point; the code lives in :mod:`numeric.xor_population` (population loss, gradient,
one step, sampling, empirical loss) and :mod:`numeric.xor_metrics` (what one step achieved).
"""

from numeric.attention import attention_weights
from numeric.validation import check_support
from numeric.xor_metrics import limit_step_attention, predicted_assignment, step_metrics
from numeric.xor_population import (
    check_embeddings, default_lr, empirical_grad, empirical_loss, one_step, population_grad,
    population_loss, sample_data, sample_embeddings, sample_init,
)

__all__ = [
    "attention_weights", "step_metrics", "limit_step_attention", "predicted_assignment",
    "check_support", "check_embeddings", "sample_embeddings", "sample_init", "default_lr",
    "population_loss", "population_grad", "one_step",
    "sample_data", "empirical_loss", "empirical_grad",
]
