"""The torch engine (CPU and CUDA, float64 by default).

Depends on nothing in the suite but the leaf modules :mod:`verify.errors` (the shared exception
type), :mod:`verify.checks`, :mod:`verify.tolerances`, :mod:`verify.io` (atomic writes) and
:mod:`verify.stats`; none of them imports
anything else of the suite.
"""

# Boolean functions and exact sensitivity profiles (issue 5)
from .boolean import FUNCTIONS, all_strings, hamming_weights, truth_table  # noqa: E402
# (the per-string `sensitivity` function is not re-exported: it would shadow the module
# `numeric.sensitivity`, whose `profile` is the SPEC entry point)
from .sensitivity import (  # noqa: E402
    average_sensitivity, fourier_average_sensitivity, min_sensitivity, profile, walsh_hadamard,
)

# paper-B transformer (issue 6)
from .transformer import (  # noqa: E402
    SCHEMES, BooleanTransformer, TransformerConfig, boolean_table, evaluate_all,
    initialize_, margin_recognition, max_influence, model_profile, random_model, random_profiles,
)

# training on Boolean targets (SG-8); the entry point is numeric.train.train (the module
# name is kept free so that `import numeric.train` keeps meaning the module)
from .train import TrainResult, baseline_accuracy, target_mean_sensitivity  # noqa: E402

# two-head model for the sparse XOR (issue 3)
from .attention import ATTENTIONS, attention_jvp, attention_map, attention_vjp, attention_weights  # noqa: E402
from .xor import (  # noqa: E402
    check_embeddings, default_lr, empirical_grad, empirical_loss, one_step, population_grad,
    population_loss, sample_data, sample_embeddings, sample_init,
)
from .xor_metrics import limit_step_attention, step_metrics  # noqa: E402

# paper-A experiments: CLS-token transformer, sweeps, attention baselines (issue 4)
from .cls_transformer import CLSTransformer, cls_population_loss, cls_step  # noqa: E402
from .sweep import load_results, make_instances, run_samples, run_sweep  # noqa: E402
from .baselines import compare, train_entry  # noqa: E402
