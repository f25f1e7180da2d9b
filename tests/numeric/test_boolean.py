"""Unit tests of numeric.boolean._functions: truth tables, labels and exact facts of one registry, string
index convention, bad input."""

import itertools

import numpy as np
import pytest
import torch

from numeric.boolean._functions import (
    DEFAULT_MAX_N, HARD_MAX_N, all_strings, registry_names, baseline_accuracy, check_N,
    exact_mean_sensitivity, exact_profile_fraction, hamming_weights, labels, smallest_N, truth_table,
)
from numeric.boolean._sensitivity import profile
from numeric.vocabulary import FUNCTIONS
from tests.helpers import raises_input_error
from verify.common.tolerances import NAMED


def _bits(x, N):
    return [(x >> n) & 1 for n in range(N)]


def test_all_strings_index_convention():
    X = all_strings(3)
    assert X.shape == (8, 3) and X.dtype == torch.uint8
    # row x has bit n of x in column n (position 0 least significant)
    assert X.tolist() == [_bits(x, 3) for x in range(8)]
    assert X[6].tolist() == [0, 1, 1]
    assert all_strings(0).shape == (1, 0)


def test_hamming_weights_literal():
    assert hamming_weights(3).tolist() == [0, 1, 1, 2, 1, 2, 2, 3]


# literal truth tables for N = 3 (index x = b0 + 2 b1 + 4 b2)
LITERAL = {
    ("parity", ()): [0, 1, 1, 0, 1, 0, 0, 1],
    ("majority", ()): [0, 0, 0, 1, 0, 1, 1, 1],
    ("first", ()): [0, 1, 0, 1, 0, 1, 0, 1],
    ("dictator", (("i", 2),)): [0, 0, 0, 0, 1, 1, 1, 1],
    ("sparse_parity", (("S", (1, 2)),)): [0, 0, 1, 1, 1, 1, 0, 0],
    ("constant", (("value", 1),)): [1] * 8,
}


@pytest.mark.parametrize("key", list(LITERAL))
def test_literal_tables(key):
    name, params = key
    t = truth_table(name, 3, **dict(params))
    assert t.dtype == torch.uint8 and t.shape == (8,)
    assert t.tolist() == LITERAL[key]


def test_majority_is_strict_for_even_N():
    t = truth_table("majority", 4)
    w = hamming_weights(4)
    assert t.tolist() == [int(v > 2) for v in w.tolist()]
    assert int(t.sum()) == 5  # C(4,3) + C(4,4): ties |x| = 2 map to 0


@pytest.mark.parametrize("N", [1, 2, 5, 8])
def test_tables_match_a_definition_by_enumeration(N):
    S = list(range(0, N, 2))
    for x, bits in enumerate(itertools.product([0, 1], repeat=N)):
        bits = bits[::-1]  # itertools lists position 0 as most significant
        assert x == sum(b << n for n, b in enumerate(bits))
    X = [_bits(x, N) for x in range(1 << N)]
    ref = {
        "parity": [sum(b) % 2 for b in X],
        "majority": [int(2 * sum(b) > N) for b in X],
        "first": [b[0] for b in X],
        "sparse_parity": [sum(b[i] for i in S) % 2 for b in X],
        "sparse_majority": [int(2 * sum(b[i] for i in S) > len(S)) for b in X],
    }
    for name, vals in ref.items():
        params = {"S": S} if name.startswith("sparse") else {}
        assert truth_table(name, N, **params).tolist() == vals, name
    assert truth_table("dictator", N, i=N - 1).tolist() == [b[N - 1] for b in X]


def test_random_is_seeded_and_balanced():
    a = truth_table("random", 12, seed=7)
    b = truth_table("random", 12, seed=7)
    c = truth_table("random", 12, seed=8)
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert set(a.unique().tolist()) == {0, 1}
    # 4096 fair bits: the mean is within 5 standard deviations (0.0078) of 1/2
    assert abs(a.float().mean().item() - 0.5) < 5 * 0.5 / 64


def test_large_N_needs_override():
    assert check_N(DEFAULT_MAX_N) == DEFAULT_MAX_N
    with raises_input_error("N", "memory limit"):
        truth_table("parity", DEFAULT_MAX_N + 1)
    with raises_input_error("N", "memory limit"):
        check_N(DEFAULT_MAX_N + 1)
    assert check_N(DEFAULT_MAX_N + 1, allow_large=True) == DEFAULT_MAX_N + 1
    assert check_N(26, max_N=26) == 26
    with raises_input_error("max_N"):
        check_N(3, max_N=HARD_MAX_N + 1)
    with raises_input_error("N", "memory limit"):
        check_N(HARD_MAX_N + 1, allow_large=True)
    assert truth_table("first", 10, max_N=10).shape == (1024,)


# (args, kwargs, name of the argument the message must start with)
BAD_TRUTH_TABLE_CALLS = [
    (("xor", 4), {}, "name"),
    ((3, 4), {}, "name"),
    (("parity", -1), {}, "N"),
    (("parity", 2.5), {}, "N"),
    (("parity", True), {}, "N"),
    (("parity", 0), {}, "N"),
    (("parity", 4), {"i": 1}, "i"),
    (("dictator", 4), {}, "i"),
    (("dictator", 4), {"i": 4}, "i"),
    (("dictator", 4), {"i": -1}, "i"),
    (("sparse_parity", 4), {}, "S"),
    (("sparse_parity", 4), {"S": [0, 0]}, "S"),
    (("sparse_parity", 4), {"S": []}, "S"),
    (("sparse_parity", 4), {"S": "01"}, "S"),
    (("sparse_majority", 4), {"S": [0, 9]}, "S[1]"),
    (("constant", 4), {"value": 2}, "value"),
    (("random", 4), {}, "seed"),
    (("random", 4), {"seed": -3}, "seed"),
    (("random", 4), {"seed": 1.5}, "seed"),
    (("parity", 3), {"device": "nonsense"}, "device"),
]


@pytest.mark.parametrize("args, kwargs, name", BAD_TRUTH_TABLE_CALLS,
                         ids=[f"{a[0]}-{n}-{i}" for i, (a, _, n) in enumerate(BAD_TRUTH_TABLE_CALLS)])
def test_bad_input(args, kwargs, name):
    with raises_input_error(name):
        truth_table(*args, **kwargs)


def test_names_case_insensitive_and_numpy_ints():
    assert FUNCTIONS[0] == "parity"
    assert torch.equal(truth_table("PARITY", 3), truth_table("parity", 3))
    assert torch.equal(truth_table("dictator", 3, i=np.int64(1)), truth_table("dictator", 3, i=1))
    assert truth_table("parity", np.int32(3)).shape == (8,)


@pytest.mark.gpu
def test_cuda_tables_equal_cpu():
    for name, params in [("majority", {}), ("sparse_parity", {"S": [1, 3]}), ("random", {"seed": 3})]:
        a = truth_table(name, 10, **params)
        b = truth_table(name, 10, device="cuda", **params)
        assert b.device.type == "cuda" and torch.equal(a, b.cpu())


def _entries(N):
    """Every registry entry with parameters that fit N (random: two seeds)."""
    out = [(name, {}) for name in ("parity", "majority", "first", "constant", "parity01")]
    out += [("constant", {"value": 1}), ("random", {"seed": 0}), ("random", {"seed": 5})]
    out += [("dictator", {"i": i}) for i in range(N)]
    for k in (1, 2, 3):
        for S in itertools.combinations(range(N), k):
            out += [("sparse_parity", {"S": list(S)}), ("sparse_majority", {"S": list(S)})]
    return [(name, p) for name, p in out if smallest_N(name, **p) <= N]


@pytest.mark.parametrize("N", [1, 2, 3, 5, 8])
def test_registry_labels_and_exact_facts_agree_with_the_table(N):
    bits = all_strings(N).to(torch.int64)
    for name, params in _entries(N):
        table = truth_table(name, N, **params)
        assert torch.equal(labels(name, bits, **params), table.to(torch.int64)), (name, params)
        if name == "random":
            continue  # no form g(weight on S): no exact facts
        K = profile(table)
        assert exact_profile_fraction(name, N, **params) == [int(k) / 2**N for k in K], (name, params)
        short = NAMED["float64_short_sum"].rtol
        assert exact_mean_sensitivity(name, N, **params) == pytest.approx(
            sum(k * int(c) for k, c in enumerate(K)) / 2**N, rel=short)
        p = float(table.double().mean())
        assert baseline_accuracy(name, N, **params) == pytest.approx(max(p, 1 - p), rel=short)


def test_named_entry_is_the_sparse_parity_of_bits_0_and_1():
    assert "parity01" in registry_names() and smallest_N("parity01") == 2
    assert torch.equal(truth_table("parity01", 6), truth_table("sparse_parity", 6, S=[0, 1]))
    # exact facts for any N: every string has exactly bits 0 and 1 sensitive
    assert exact_profile_fraction("parity01", 100)[2] == 1.0
    assert exact_mean_sensitivity("parity01", 100) == 2.0 and baseline_accuracy("parity01", 100) == 0.5


@pytest.mark.parametrize("call, name", [
    (lambda: truth_table("parity01", 4, S=[0, 2]), "S"),
    (lambda: truth_table("parity01", 1), "S[1]"),
    (lambda: labels("majority", torch.zeros(3, dtype=torch.int64)), "bits.ndim"),
    (lambda: labels("xor", torch.zeros(3, 2, dtype=torch.int64)), "name"),
    (lambda: exact_mean_sensitivity("random", 4, seed=0), "name"),
    (lambda: exact_profile_fraction("parity", 0), "N"),
    (lambda: baseline_accuracy("sparse_parity", 4, S=[5]), "S[0]"),
])
def test_registry_bad_input(call, name):
    with raises_input_error(name):
        call()
