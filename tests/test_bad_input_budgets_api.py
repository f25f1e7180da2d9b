"""Library calls whose sizes cannot fit, refused with :class:`numeric.validation.InputError`
naming the argument before anything is allocated (never torch's RuntimeError, an overflow or
swapping); tensors on a device this build lacks; settings that make a run diverge whatever the
data. The command-line table is tests/verify/cli/test_bad_input_budgets.py."""

from __future__ import annotations

import time

import pytest
import torch

import numeric
from numeric.transformer import BooleanTransformer, TransformerConfig, random_model
from numeric.validation import InputError, available_memory, check_allocation, check_tensor_storage

HUGE = TransformerConfig(D=10**6, L=1000, H=1)


def _cuda_tensor():
    """A tensor that claims a CUDA device without allocating there (torch's fake tensors), as a
    tensor saved on a GPU machine reaches a CPU build."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        return torch.empty(6, 3, dtype=torch.float64, device="cuda")


def _training(**kw):
    from verify.experiments.training import validate_options

    return validate_options("majority", 4, **kw)


CASES = [
    ("d", lambda: numeric.sample_embeddings(10**12, 2)),
    ("d", lambda: numeric.sample_embeddings(10**6, 10**6)),
    ("d", lambda: numeric.sample_embeddings(10**12, 3, batch_shape=(2,))),
    ("batch_shape", lambda: numeric.sample_embeddings(10, 3, batch_shape=(10**9,))),
    ("m", lambda: numeric.sample_init(10**12)),
    ("batch_shape", lambda: numeric.sample_init(3, batch_shape=(10**12,))),
    ("n", lambda: numeric.sample_data(10**12, 10, (0, 1))),
    ("config", lambda: BooleanTransformer(HUGE)),
    ("config", lambda: random_model(HUGE, "uniform", 0)),
    ("config", lambda: BooleanTransformer(TransformerConfig(D=4, L=1, H=1, N_max=10**12))),
    ("weight_decay", lambda: _training(weight_decay=1e300)),
    ("weight_decay", lambda: _training(lr=1.0, weight_decay=1.0)),
    ("sizes", lambda: check_allocation(float("inf"), "sizes", 1, "the test")),
    ("sizes", lambda: check_allocation(float("nan"), "sizes", 1, "the test")),
    ("sizes", lambda: check_allocation(available_memory() + 2**30, "sizes", 1, "the test")),
]

if not torch.cuda.is_available():
    CASES += [
        ("V", lambda: check_tensor_storage(_cuda_tensor(), "V")),
        ("V", lambda: numeric.population_loss(_cuda_tensor(), *numeric.sample_init(3), (0, 1))),
        ("device", lambda: numeric.sample_embeddings(10, 3, device="cuda")),
    ]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}:{c[0]}" for i, c in enumerate(CASES)])
def test_refused_before_allocating(name, call):
    t0 = time.monotonic()
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value).startswith(f"{name} = "), str(info.value)
    assert time.monotonic() - t0 < 10


def test_the_cuda_message_says_why():
    if torch.cuda.is_available():
        pytest.skip("this build has CUDA")
    with pytest.raises(InputError, match="CUDA is not available in this torch build"):
        check_tensor_storage(_cuda_tensor(), "V")


def test_a_size_that_fits_is_allowed():
    assert check_allocation(1024, "d", 1, "the test") == 1024
    assert numeric.sample_embeddings(6, 3).shape == (6, 3)
    assert sum(p.numel() for p in BooleanTransformer(TransformerConfig(D=4, L=1, H=1)).parameters()) > 0


def test_sharpness_refuses_a_vacuous_scale_and_a_seed_beyond_64_bits():
    from verify.crossval import sharpness

    model = random_model(TransformerConfig(D=8, L=1, H=2, N_max=4), "uniform", 0)
    for kw, name in ((dict(sigma=0.0), "sigma"), (dict(seed=2**64), "seed")):
        with pytest.raises(InputError) as info:
            sharpness.compare_boolverify_model(None, model, "m", "parity", 4, **kw)
        assert info.value.name == name


def test_the_table_is_large():
    assert len(CASES) >= 15
