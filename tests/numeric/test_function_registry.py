"""The Boolean-function registry (:mod:`numeric.boolean`): its outputs pinned, bit for bit, to
what the functions computed before the registry existed; its keys against the vocabulary; a name
or a parameter it does not know refused at every public entry point, never computed as another
function."""

from __future__ import annotations

import hashlib

import pytest
import torch

import numeric.vocabulary as vocabulary
from numeric.boolean import (BOOLEAN_FUNCTIONS, all_strings, baseline_accuracy, exact_mean_sensitivity,
                             exact_profile_fraction, function_entry, labels, registry_names, smallest_N,
                             truth_table)
from numeric.transformer import CONSTRUCTIONS
from numeric.validation import InputError
from tests.helpers import raises_input_error
from verify.cli import main
from verify.symbolic.profile_proofs import PROFILE_PROOFS

FAKE_FUNCTION = "tribes"

LARGEST_PINNED_N = 8


def _digest(parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode())
        h.update(b"|")
    return h.hexdigest()[:16]


def _tensor_bytes(t) -> bytes:
    return repr((str(t.dtype), tuple(t.shape))).encode() + t.contiguous().cpu().numpy().tobytes()


def _facts(name, N, params):
    try:
        return (exact_mean_sensitivity(name, N, **params), exact_profile_fraction(name, N, **params),
                baseline_accuracy(name, N, **params))
    except InputError as e:  # random: no exact facts
        return ("InputError", e.name)


def _behaviour(name, params) -> dict:
    """Digests of every view of one function at every N from its smallest to LARGEST_PINNED_N."""
    lo = smallest_N(name, **params)
    Ns = range(lo, LARGEST_PINNED_N + 1)
    wide_bits = torch.randint(0, 2, (64, 40), generator=torch.Generator().manual_seed(123))
    return {
        "smallest_N": lo,
        "tables": _digest(_tensor_bytes(truth_table(name, N, **params)) for N in Ns),
        "labels": _digest(_tensor_bytes(labels(name, all_strings(N), **params)) for N in Ns if N >= 1),
        "facts": _digest(_facts(name, N, params) for N in Ns),
        "wide_labels": None if name == "random" else _digest([_tensor_bytes(labels(name, wide_bits, **params))]),
    }


def _construction_digest(name) -> str:
    from numeric.transformer import construct
    return _digest(_tensor_bytes(t) for N in range(1, 7) for _, t in sorted(construct(name, N).state_dict().items()))


def _formula_profiles(name) -> dict:
    from verify.symbolic.profile_proofs import formula_profile
    lo = 2 if name == "majority" else 1
    kw = lambda N: {"k": min(3, N)} if name == "sparse_parity" else {}
    return {N: formula_profile(name, N, **kw(N)) for N in range(lo, 7)}


# ----------------------------------------------------------------------------- pinned outputs

#: Per function and parameters, digests of every view from its smallest N to LARGEST_PINNED_N,
#: computed by the if-chains on names that the registry replaced.
PINNED = (
    ('parity', {}, {'smallest_N': 1, 'tables': '5432d1a0c93b945e', 'labels': '6e65e0a74b78b609', 'facts': 'c2a0aa40de4f7e5f', 'wide_labels': 'eab077d651d4f31c'}),
    ('majority', {}, {'smallest_N': 1, 'tables': '6b9fdd8db9fb50d1', 'labels': '2df66fd41af87dcc', 'facts': 'df6278395ff35774', 'wide_labels': '71fe397af36cd9d6'}),
    ('first', {}, {'smallest_N': 1, 'tables': '175d28462c359b33', 'labels': '94c6b30882e3940f', 'facts': 'cfc253e7f0cdd56b', 'wide_labels': '93ed47660b65ae5a'}),
    ('parity01', {}, {'smallest_N': 2, 'tables': '2e20b723f5c8210d', 'labels': '60983dcf126a7e9a', 'facts': '8610e40d1af69694', 'wide_labels': '0cc830621e35d142'}),
    ('PARITY', {}, {'smallest_N': 1, 'tables': '5432d1a0c93b945e', 'labels': '6e65e0a74b78b609', 'facts': 'c2a0aa40de4f7e5f', 'wide_labels': 'eab077d651d4f31c'}),
    ('dictator', {'i': 0}, {'smallest_N': 1, 'tables': '175d28462c359b33', 'labels': '94c6b30882e3940f', 'facts': 'cfc253e7f0cdd56b', 'wide_labels': '93ed47660b65ae5a'}),
    ('dictator', {'i': 2}, {'smallest_N': 3, 'tables': '31145762cc38fd88', 'labels': '4edaafa9cf6724c9', 'facts': 'ccc26d479613705d', 'wide_labels': 'bd9bf70863c2554d'}),
    ('sparse_parity', {'S': (0,)}, {'smallest_N': 1, 'tables': '175d28462c359b33', 'labels': '94c6b30882e3940f', 'facts': 'cfc253e7f0cdd56b', 'wide_labels': '93ed47660b65ae5a'}),
    ('sparse_parity', {'S': (0, 2)}, {'smallest_N': 3, 'tables': '264a7a8143abc0f7', 'labels': '8d1b6624679160ce', 'facts': '53b511ab5a6c7d08', 'wide_labels': 'a0215cf4190cfd09'}),
    ('sparse_parity', {'S': [4, 1, 3]}, {'smallest_N': 5, 'tables': 'b9d6fd07e4ff0253', 'labels': '11696b427572dd2e', 'facts': '1606fc77fb3f9349', 'wide_labels': '3f62c4ac20fb87b4'}),
    ('sparse_majority', {'S': (0, 1, 2)}, {'smallest_N': 3, 'tables': '49572a04be628531', 'labels': '2f356b7e96577e50', 'facts': 'ea3b6b3158a2d2ea', 'wide_labels': 'cd413de392ec99bb'}),
    ('sparse_majority', {'S': (1, 3)}, {'smallest_N': 4, 'tables': '0badaeb4373b92ec', 'labels': '8f3750139aa1db82', 'facts': '8fef28bbb315ca4a', 'wide_labels': '28c650556ee0b501'}),
    ('sparse_majority', {'S': [5, 0, 2, 3]}, {'smallest_N': 6, 'tables': '5aabb16e11638cd7', 'labels': '7abbdbbd743e6c4e', 'facts': 'e0ffddc609fb6a3a', 'wide_labels': '424927f9c4b791bf'}),
    ('constant', {}, {'smallest_N': 0, 'tables': 'b1a99273e8dd419b', 'labels': '106a18dbc4f27cda', 'facts': 'a6e5580022d8a6ad', 'wide_labels': '6c2707171f1a64f8'}),
    ('constant', {'value': 0}, {'smallest_N': 0, 'tables': 'b1a99273e8dd419b', 'labels': '106a18dbc4f27cda', 'facts': 'a6e5580022d8a6ad', 'wide_labels': '6c2707171f1a64f8'}),
    ('constant', {'value': 1}, {'smallest_N': 0, 'tables': '0b151abef2d63b69', 'labels': 'a2d7e98f0301ba63', 'facts': 'a6e5580022d8a6ad', 'wide_labels': 'b027b1d1efdf3f98'}),
    ('constant', {'value': True}, {'smallest_N': 0, 'tables': '0b151abef2d63b69', 'labels': 'a2d7e98f0301ba63', 'facts': 'a6e5580022d8a6ad', 'wide_labels': 'b027b1d1efdf3f98'}),
    ('random', {'seed': 0}, {'smallest_N': 0, 'tables': 'a7840528edc75605', 'labels': '1c76253c5d95a423', 'facts': 'cca5d206ef4bc69d', 'wide_labels': None}),
    ('random', {'seed': 7}, {'smallest_N': 0, 'tables': '8b0f90daeb45fbf4', 'labels': '044ad9aff5f5016b', 'facts': 'cca5d206ef4bc69d', 'wide_labels': None}),
)

PINNED_CONSTRUCTIONS = {"first": "dcffb52f21b46db0", "majority": "10cf494f315e875c", "parity": "4d798a60aa57c1a1"}

PINNED_FORMULA_PROFILES = {
    "parity": {1: {1: 2}, 2: {2: 4}, 3: {3: 8}, 4: {4: 16}, 5: {5: 32}, 6: {6: 64}},
    "first": {1: {1: 2}, 2: {1: 4}, 3: {1: 8}, 4: {1: 16}, 5: {1: 32}, 6: {1: 64}},
    "dictator": {1: {1: 2}, 2: {1: 4}, 3: {1: 8}, 4: {1: 16}, 5: {1: 32}, 6: {1: 64}},
    "sparse_parity": {1: {1: 2}, 2: {2: 4}, 3: {3: 8}, 4: {3: 16}, 5: {3: 32}, 6: {3: 64}},
    "majority": {2: {1: 2, 2: 1, 0: 1}, 3: {2: 6, 0: 2}, 4: {2: 6, 3: 4, 0: 6}, 5: {3: 20, 0: 12},
                 6: {3: 20, 4: 15, 0: 29}},
}


@pytest.mark.parametrize("name, params, pinned", PINNED, ids=[f"{n}{p}" for n, p, _ in PINNED])
def test_every_view_is_bit_identical_to_the_pinned_one(name, params, pinned):
    assert _behaviour(name, params) == pinned


def test_exact_facts_at_a_few_lengths_are_the_pinned_values():
    assert exact_profile_fraction("majority", 8) == [0.5078125, 0, 0, 0, 0.2734375, 0.21875, 0, 0, 0]
    assert exact_mean_sensitivity("majority", 8) == 2.1875 and baseline_accuracy("majority", 8) == 0.63671875
    assert exact_profile_fraction("majority", 7) == [0.453125, 0, 0, 0, 0.546875, 0, 0, 0]
    assert exact_mean_sensitivity("majority", 40) == 5.01482750478317
    assert exact_profile_fraction("majority", 40)[0] == 0.755228657504631
    assert baseline_accuracy("majority", 40) == 0.5626853438097896
    assert exact_profile_fraction("sparse_majority", 5, S=(1, 3)) == [0.25, 0.5, 0.25, 0, 0, 0]
    assert exact_mean_sensitivity("parity01", 100) == 2.0


@pytest.mark.parametrize("name", sorted(PINNED_CONSTRUCTIONS))
def test_constructions_are_the_pinned_parameters(name):
    assert _construction_digest(name) == PINNED_CONSTRUCTIONS[name]


@pytest.mark.parametrize("name", sorted(PINNED_FORMULA_PROFILES))
def test_proved_profiles_are_the_pinned_ones(name):
    assert _formula_profiles(name) == PINNED_FORMULA_PROFILES[name]


# ----------------------------------------------------------------------------- conformance


def test_registry_holds_exactly_the_vocabulary():
    assert tuple(BOOLEAN_FUNCTIONS) == vocabulary.FUNCTIONS
    assert all(entry.name == name for name, entry in BOOLEAN_FUNCTIONS.items())
    assert set(registry_names()) == set(vocabulary.FUNCTIONS) | set(vocabulary.NAMED_FUNCTIONS)
    for named, (function, fixed) in vocabulary.NAMED_FUNCTIONS.items():
        assert function in BOOLEAN_FUNCTIONS and {k for k, _ in fixed} <= set(BOOLEAN_FUNCTIONS[function].params)
    assert set(vocabulary.ALL_TARGETS) <= set(registry_names())


@pytest.mark.parametrize("registry", [CONSTRUCTIONS, PROFILE_PROOFS], ids=["constructions", "profile proofs"])
def test_keyed_registries_name_registry_functions(registry):
    assert set(registry) <= set(BOOLEAN_FUNCTIONS)
    assert all(entry.name == name for name, entry in registry.items())


def test_every_construction_computes_its_registry_function():
    from numeric.transformer import boolean_table, construct

    for name in CONSTRUCTIONS:
        for N in (1, 2, 5):
            model = construct(name, N)
            assert torch.equal(boolean_table(model, N).to(torch.uint8), truth_table(name, N)), (name, N)


def test_every_proof_agrees_with_the_registry_facts():
    for name, proof in PROFILE_PROOFS.items():
        params = {"S": [0, 2]} if name == "sparse_parity" else {"i": 1} if name == "dictator" else {}
        for N in range(max(proof.smallest_N, smallest_N(name, **params)), 9):
            fractions = exact_profile_fraction(name, N, **params)
            want = {k: round(f * 2**N) for k, f in enumerate(fractions) if f}
            assert PROFILE_PROOFS[name].evaluate(N, proof.set_size(params)) == want, (name, N)


@pytest.fixture
def fake_function(monkeypatch):
    monkeypatch.setattr(vocabulary, "FUNCTIONS", vocabulary.FUNCTIONS + (FAKE_FUNCTION,))
    return FAKE_FUNCTION


def test_an_unimplemented_function_breaks_conformance(fake_function):
    assert tuple(BOOLEAN_FUNCTIONS) != vocabulary.FUNCTIONS


@pytest.mark.parametrize("call", [
    lambda f: truth_table(f, 4),
    lambda f: labels(f, all_strings(4)),
    lambda f: smallest_N(f),
    lambda f: exact_mean_sensitivity(f, 4),
    lambda f: exact_profile_fraction(f, 4),
    lambda f: baseline_accuracy(f, 4),
    lambda f: function_entry(f),
], ids=["truth_table", "labels", "smallest_N", "exact_mean_sensitivity", "exact_profile_fraction",
        "baseline_accuracy", "function_entry"])
def test_a_name_without_an_entry_is_refused_not_computed_as_another(fake_function, call):
    with raises_input_error("name") as info:
        call(fake_function)
    assert all(repr(name) in str(info.value) for name in BOOLEAN_FUNCTIONS)  # the known names


@pytest.mark.parametrize("argv", [
    ["sensitivity", "profile", "--function", FAKE_FUNCTION, "--N", "3"],
    ["sensitivity", "volume", "--function", FAKE_FUNCTION, "--N", "3"],
])
def test_the_cli_refuses_a_name_without_an_entry_on_one_line(fake_function, argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("boolverify: error: --function"), err


@pytest.mark.parametrize("call, name", [
    (lambda: truth_table("xor", 3), "name"),
    (lambda: truth_table(3, 3), "name"),
    (lambda: labels("xor", all_strings(3)), "name"),
    (lambda: smallest_N("xor"), "name"),
    (lambda: truth_table("parity", 3, S=[0]), "S"),
    (lambda: truth_table("constant", 3, seed=0), "seed"),
    (lambda: labels("majority", all_strings(3), i=0), "i"),
    (lambda: smallest_N("parity01", S=[0, 1]), "S"),
    (lambda: truth_table("dictator", 3), "i"),
    (lambda: labels("sparse_parity", all_strings(3)), "S"),
    (lambda: smallest_N("sparse_majority"), "S"),
    (lambda: truth_table("random", 3), "seed"),
    (lambda: exact_mean_sensitivity("dictator", 3), "i"),
    (lambda: truth_table("dictator", 3, i=3), "i"),
    (lambda: smallest_N("dictator", i=-1), "i"),
    (lambda: truth_table("sparse_majority", 3, S=[0, 3]), "S[1]"),
    (lambda: labels("sparse_parity", all_strings(3), S=[0, 0]), "S"),
    (lambda: truth_table("constant", 3, value=2), "value"),
    (lambda: truth_table("random", 3, seed=-1), "seed"),
    (lambda: truth_table("parity", 0), "N"),
    (lambda: exact_profile_fraction("majority", 0), "N"),
    (lambda: exact_profile_fraction("random", 3, seed=0), "name"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_invalid_arguments_are_refused_by_name(call, name):
    with raises_input_error(name):
        call()
