"""Unit and Hypothesis tests of numeric.boolean._sensitivity against a brute-force definition."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from numeric.boolean._functions import DEFAULT_MAX_N, all_strings, truth_table
from numeric.boolean._sensitivity import (
    as_table, average_sensitivity, character_matrix_average_sensitivity, fourier_average_sensitivity,
    fourier_coefficients, from_msb_first, from_normalized, from_pm1, max_sensitivity,
    min_sensitivity, profile, sensitivity, to_msb_first, to_normalized, to_pm1, walsh_hadamard,
)
from tests.helpers import raises_input_error
from verify.common.tolerances import assert_close


def brute_sensitivity(table):
    """s(x, f) straight from the definition, in Python integers."""
    t = [int(v) for v in table]
    N = len(t).bit_length() - 1
    return [sum(t[x] != t[x ^ (1 << n)] for n in range(N)) for x in range(len(t))]


def brute_profile(table):
    s = brute_sensitivity(table)
    N = len(s).bit_length() - 1
    return [s.count(k) for k in range(N + 1)]


def permute_positions(table, perm):
    """g(x) = f(y) with bit n of y = bit perm[n] of x (a relabelling of positions)."""
    N = len(perm)
    X = all_strings(N).to(torch.int64)
    y = (X[:, perm] << torch.arange(N)).sum(1)
    return torch.as_tensor(table)[y]


tables = st.integers(1, 8).flatmap(
    lambda N: st.lists(st.integers(0, 1), min_size=1 << N, max_size=1 << N)
).map(lambda bits: torch.tensor(bits, dtype=torch.uint8))


# ---- literal values ------------------------------------------------------------------

def test_majority_N10_literal():
    K = profile(truth_table("majority", 10))
    assert K.dtype == torch.int64
    assert K.tolist() == [562, 0, 0, 0, 0, 252, 210, 0, 0, 0, 0]


def test_small_literals():
    assert profile(truth_table("majority", 3)).tolist() == [2, 0, 6, 0]
    assert profile(truth_table("parity", 5)).tolist() == [0, 0, 0, 0, 0, 32]
    assert profile(truth_table("first", 4)).tolist() == [0, 16, 0, 0, 0]
    assert profile(truth_table("constant", 4, value=1)).tolist() == [16, 0, 0, 0, 0]
    assert profile([0, 1]).tolist() == [0, 2]
    assert profile([1]).tolist() == [1]  # N = 0
    # AND of two bits: s(00)=0, s(01)=1, s(10)=1, s(11)=2
    assert sensitivity([0, 0, 0, 1]).tolist() == [0, 1, 1, 2]
    assert average_sensitivity([0, 0, 0, 1]) == 1.0
    assert min_sensitivity([0, 0, 0, 1]) == 0 and max_sensitivity([0, 0, 0, 1]) == 2
    assert min_sensitivity(truth_table("parity", 6)) == 6


# ---- against the definition ----------------------------------------------------------

@given(tables)
def test_profile_and_sensitivity_match_definition(t):
    assert sensitivity(t).tolist() == brute_sensitivity(t)
    assert profile(t).tolist() == brute_profile(t)


@given(st.integers(6, 13), st.integers(0, 2**31), st.integers(6, 14))
def test_bitsliced_equals_bytes_path(N, seed, chunk_log):
    t = truth_table("random", N, seed=seed)
    a = profile(t, method="bitsliced", chunk_log=chunk_log)
    b = profile(t, method="bytes", chunk_log=max(1, chunk_log - 3))
    assert a.tolist() == b.tolist()


@pytest.mark.parametrize("name", ["majority", "parity", "first", "constant"])
def test_bitsliced_structured_tables(name):
    for N in (6, 7, 11, 16):
        t = truth_table(name, N)
        assert profile(t, method="bitsliced", chunk_log=8).tolist() == profile(t, method="bytes").tolist()


# ---- Hypothesis properties -----------------------------------------------------------

@given(tables)
def test_profile_sums_to_2N(t):
    K = profile(t)
    N = K.numel() - 1
    assert int(K.sum()) == 1 << N


@given(tables)
def test_flip_count_profile_equals_fourier_identity(t):
    # sum_k k K_k = 2^N as(f), and as(f) = sum_S |S| F^(S)^2 exactly (Fractions)
    K = profile(t)
    N = K.numel() - 1
    total = sum(k * int(K[k]) for k in range(N + 1))
    assert Fraction(total, 1 << N) == fourier_average_sensitivity(t, exact=True)
    assert average_sensitivity(t) == float(Fraction(total, 1 << N))


@given(tables)
def test_parseval(t):
    W = walsh_hadamard(t)
    assert int((W * W).sum()) == 1 << (2 * (W.numel().bit_length() - 1))


@given(tables, st.randoms())
def test_profile_invariant_under_permuting_positions(t, rnd):
    N = t.numel().bit_length() - 1
    perm = list(range(N))
    rnd.shuffle(perm)
    g = permute_positions(t, perm)
    # the relabelled table is a different table in general, with the same profile
    x = rnd.randrange(1 << N)
    y = sum(((x >> perm[n]) & 1) << n for n in range(N))
    assert int(g[x]) == int(t[y])
    assert profile(g).tolist() == profile(t).tolist()


@given(tables)
def test_complement_has_same_profile(t):
    assert profile(1 - t).tolist() == profile(t).tolist()
    assert sensitivity(1 - t).tolist() == sensitivity(t).tolist()


@given(st.integers(1, 8), st.integers(0, 2**31))
def test_fast_wht_matches_character_matrix(N, seed):
    t = truth_table("random", N, seed=seed)
    fast = fourier_average_sensitivity(t)
    slow = character_matrix_average_sensitivity(t)
    assert_close(slow, fast, scale=N, what="as(f), character matrix vs fast WHT")
    # coefficients themselves: F^(S) = 2^-N sum_x (-1)^(f(x) + S.x)
    F = [1 - 2 * int(v) for v in t]
    fh = fourier_coefficients(t)
    for S in range(0, 1 << N, max(1, (1 << N) // 7)):
        ref = Fraction(sum(F[x] * (-1) ** bin(S & x).count("1") for x in range(1 << N)), 1 << N)
        assert float(ref) == float(fh[S])


def test_fourier_known_spectra():
    # parity on S: the only coefficient of (-1)^f is at S, value 1
    t = truth_table("sparse_parity", 5, S=[0, 3])
    W = walsh_hadamard(t)
    assert W.nonzero().flatten().tolist() == [0b01001] and int(W[0b01001]) == 32
    assert fourier_average_sensitivity(truth_table("parity", 7), exact=True) == 7
    assert fourier_average_sensitivity(truth_table("first", 7), exact=True) == 1


# ---- adapters ------------------------------------------------------------------------

def test_msb_first_adapter_matches_itertools_order():
    N = 4
    f = lambda b: int(b[0] and not b[3]) ^ b[1]  # noqa: E731  (positions b[0..3])
    msb_table = [f(bits) for bits in itertools.product([0, 1], repeat=N)]  # b[0] is the MSB
    ours = from_msb_first(msb_table)
    for x in range(1 << N):
        b = [(x >> n) & 1 for n in range(N)]
        assert int(ours[x]) == f(b)
    assert to_msb_first(ours).tolist() == msb_table


def test_pm1_and_normalisation_adapters():
    t = truth_table("majority", 5)
    F = to_pm1(t)
    assert F.tolist() == [1 - 2 * int(v) for v in t]
    assert torch.equal(from_pm1(F), t)
    assert torch.equal(from_pm1(F.double()), t)
    assert torch.equal(from_pm1((-F).numpy()), 1 - t)  # the 2f-1 convention is the complement
    a = average_sensitivity(t)
    assert to_normalized(a, 5) == a / 5 and from_normalized(a / 5, 5) == a


# ---- bad input -----------------------------------------------------------------------

# (call, name of the argument the message must start with, words the message must contain)
BAD_PROFILE_CALLS = [
    (lambda: profile([0, 1, 1]), "table", "length 3 is not a power of two"),
    (lambda: profile([]), "table", "length 0 is not a power of two"),
    (lambda: profile([[0, 1], [1, 0]]), "table", "1-D"),
    (lambda: profile([0, 2, 1, 0]), "table", "entry 1 is 2"),
    (lambda: profile([0, -1]), "table", "entry 1 is -1"),
    (lambda: profile([0.0, 0.5]), "table", "entry 1 is 0.5"),
    (lambda: profile([0.0, float("nan")]), "table", "entry 1 is nan"),
    (lambda: profile(["a", "b"]), "table", "0/1"),
    (lambda: profile([0j, 1j]), "table", "0/1"),
    (lambda: profile(torch.zeros(1 << (DEFAULT_MAX_N + 1), dtype=torch.uint8)), "table", "memory limit"),
    (lambda: sensitivity(torch.zeros(1 << 11, dtype=torch.uint8), max_N=10), "table", "memory limit"),
    (lambda: profile([0, 1], method="fast"), "method", ""),
    (lambda: profile([0, 1], method="bitsliced"), "method", "N >= 6"),
    (lambda: profile([0, 1] * 64, chunk_log=-1), "chunk_log", ""),
    (lambda: sensitivity([0, 1], chunk_log=2.5), "chunk_log", ""),
    (lambda: from_pm1([1, 0, -1, 1]), "values", "only +1 and -1"),
    (lambda: to_normalized(1.0, 0), "N", ""),
]


@pytest.mark.parametrize("call, name, words", BAD_PROFILE_CALLS,
                         ids=[f"{i}-{n}" for i, (_, n, _) in enumerate(BAD_PROFILE_CALLS)])
def test_bad_input_names_the_argument(call, name, words):
    with raises_input_error(name) as info:
        call()
    # the words describe the bad value or the requirement
    assert words in f"{info.value.value} {info.value.expected}"


def test_accepts_bool_float_numpy():
    assert profile(np.array([False, True, True, False])).tolist() == [0, 0, 4]
    assert profile(torch.tensor([0.0, 1.0, 1.0, 0.0])).tolist() == [0, 0, 4]
    t, N = as_table(np.array([0, 1], dtype=np.int64))
    assert t.dtype == torch.uint8 and N == 1


def test_memory_limit_can_be_raised():
    big = torch.zeros(1 << (DEFAULT_MAX_N + 1), dtype=torch.uint8)
    assert profile(big, allow_large=True).tolist()[0] == 1 << (DEFAULT_MAX_N + 1)


@pytest.mark.slow
def test_N28_fits_and_matches_the_parity_formula():
    # 256 MB table: the chunked profile needs only O(chunk) on top of it
    t = truth_table("sparse_parity", 28, S=[0, 27], allow_large=True)
    K = profile(t, allow_large=True)
    assert K.tolist() == [0, 0, 1 << 28] + [0] * 26


@pytest.mark.gpu
def test_cuda_profile_equals_cpu():
    for seed in range(3):
        t = truth_table("random", 16, seed=seed)
        Kc = profile(t.cuda())
        assert Kc.device.type == "cuda" and Kc.cpu().tolist() == profile(t).tolist()
        assert sensitivity(t.cuda()).cpu().tolist() == sensitivity(t).tolist()
    assert fourier_average_sensitivity(t.cuda(), exact=True) == fourier_average_sensitivity(t, exact=True)


def test_profile_without_numpy_bitwise_count(monkeypatch):
    # numpy < 2.0 has no np.bitwise_count: the byte-table popcount must give the same profile
    import numeric.boolean._bitsliced as bs

    a = np.random.default_rng(0).integers(0, 2**63, size=1000, dtype=np.uint64)
    assert bs.popcount_sum_lut(a) == sum(bin(int(v)).count("1") for v in a)
    t = truth_table("random", 12, seed=4)
    want = profile(t, method="bytes").tolist()
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert bs.popcount_sum(a) == bs.popcount_sum_lut(a)
    assert profile(t, method="bitsliced", chunk_log=8).tolist() == want
