"""Conformance of the registries with the vocabularies: every layer implements exactly the
attention maps of ``numeric.vocabulary.ATTENTIONS`` (engine, mpmath references, sympy), the
readouts of ``READOUTS``, the init schemes of ``ALL_INIT_SCHEMES``, the Boolean functions of
``FUNCTIONS`` (with constructions and proofs only of registered functions), the losses of
``LOSSES`` and the optimisers of ``OPTIMIZERS``; a name in a vocabulary that a layer does not
implement is refused at every public entry point, never computed as another map or readout (the
per-registry refusals of init schemes, Boolean functions, losses and optimisers are in
tests/numeric/test_init_registry.py, tests/numeric/test_function_registry.py and
tests/verify/experiments/test_training_registries.py)."""

from __future__ import annotations

import json

import pytest
import sympy as sp
import torch

import numeric.vocabulary as vocabulary
from numeric import xor as nx
from numeric.xor._attention import (ATTENTION_MAPS, attention_jvp, attention_map, attention_vjp,
                               attention_weights, map_jvp, map_vjp)
from numeric.transformer import preset_config, random_model
from numeric.transformer._eval import boolean_table, model_profile, random_profiles
from numeric.transformer._model import READOUT_RULES, TransformerConfig, readout_table
from numeric.transformer._sample import sampled_sensitivities
from numeric.validation import InputError
from numeric.xor._stream import StreamedEmbeddings
from verify.cli import main
from verify.reference import population_grad as ref_grad
from verify.reference import population_loss as ref_loss
from verify.reference.attention_maps import REFERENCE_MAPS
from verify.reference.oracle import (enumerated_grad_converged, enumerated_grad_mp,
                                     enumerated_loss_mp)
from numeric.boolean import BOOLEAN_FUNCTIONS
from numeric.transformer import INIT_SCHEME_REGISTRY
from numeric.transformer._constructions import CONSTRUCTIONS
from verify.experiments.attention_comparison import TRAINING_OPTIMIZERS
from verify.experiments.training import TRAINING_LOSSES
from verify.symbolic.chain_rule import SYMBOLIC_MAPS, check_chain_rule, derive_jacobian
from verify.symbolic.profile_proofs import PROFILE_PROOFS

FAKE_MAP = "relu"
FAKE_READOUT = "argmax"

ATTENTION_REGISTRIES = {"engine": ATTENTION_MAPS, "reference": REFERENCE_MAPS,
                        "symbolic": SYMBOLIC_MAPS}


def registry_mismatches():
    """What disagrees between the registries and the vocabularies (read at call time)."""
    out = []
    for layer, registry in ATTENTION_REGISTRIES.items():
        if set(registry) != set(vocabulary.ATTENTIONS):
            out.append(f"{layer} attention maps {sorted(registry)} != ATTENTIONS "
                       f"{sorted(vocabulary.ATTENTIONS)}")
        out += [f"{layer} entry {k!r} is named {e.name!r}" for k, e in registry.items() if e.name != k]
    if set(READOUT_RULES) != set(vocabulary.READOUTS):
        out.append(f"readouts {sorted(READOUT_RULES)} != READOUTS {sorted(vocabulary.READOUTS)}")
    out += [f"readout {k!r} is named {r.name!r}" for k, r in READOUT_RULES.items() if r.name != k]
    for what, registry, names in (("init schemes", INIT_SCHEME_REGISTRY, vocabulary.ALL_INIT_SCHEMES),
                                  ("Boolean functions", BOOLEAN_FUNCTIONS, vocabulary.FUNCTIONS),
                                  ("losses", TRAINING_LOSSES, vocabulary.LOSSES),
                                  ("optimisers", TRAINING_OPTIMIZERS, vocabulary.OPTIMIZERS)):
        if set(registry) != set(names):
            out.append(f"{what} {sorted(registry)} != vocabulary {sorted(names)}")
        out += [f"{what} entry {k!r} is named {e.name!r}" for k, e in registry.items() if e.name != k]
    if tuple(CONSTRUCTIONS) != vocabulary.CONSTRUCTED_FUNCTIONS:
        out.append(f"constructions {list(CONSTRUCTIONS)} != CONSTRUCTED_FUNCTIONS {vocabulary.CONSTRUCTED_FUNCTIONS}")
    for what, keyed in (("constructions", CONSTRUCTIONS), ("profile proofs", PROFILE_PROOFS)):
        out += [f"{what}: {k!r} is not a Boolean function" for k in keyed if k not in BOOLEAN_FUNCTIONS]
    for name, amap in ATTENTION_MAPS.items():
        if not amap.normalised:
            missing = [f for f in ("pointwise", "slope_scale", "cotangent") if getattr(amap, f) is None]
            out += [f"engine map {name!r} (pointwise) has no {f}" for f in missing]
    return out


def test_every_layer_implements_exactly_the_vocabulary():
    assert registry_mismatches() == []


@pytest.fixture
def fake_map(monkeypatch):
    monkeypatch.setattr(vocabulary, "ATTENTIONS", vocabulary.ATTENTIONS + (FAKE_MAP,))
    return FAKE_MAP


@pytest.fixture
def fake_readout(monkeypatch):
    monkeypatch.setattr(vocabulary, "READOUTS", vocabulary.READOUTS + (FAKE_READOUT,))
    return FAKE_READOUT


def test_an_unimplemented_map_breaks_conformance(fake_map):
    found = registry_mismatches()
    assert len(found) == 3 and all(FAKE_MAP in f for f in found)


def _model_instance(d=5, m=3):
    g = torch.Generator().manual_seed(4)
    V = nx.sample_embeddings(d, m, generator=g)
    th, tt = nx.sample_init(m, generator=g)
    return V, 2 * th, tt, (0, 3)


def _engine_calls(att):
    V, th, tt, sup = _model_instance()
    X, y = nx.sample_data(8, V.shape[0], sup, generator=torch.Generator().manual_seed(1))
    E = StreamedEmbeddings(40, 3, 2, block=16)
    sth, stt = nx.sample_init(3, generator=torch.Generator().manual_seed(2))
    z = V @ th
    return {
        "attention_map": lambda: attention_map(z, att),
        "map_jvp": lambda: map_jvp(z, z, att),
        "map_vjp": lambda: map_vjp(z, z, att),
        "attention_weights": lambda: attention_weights(V, th, att),
        "attention_jvp": lambda: attention_jvp(V, th, tt, att),
        "attention_vjp": lambda: attention_vjp(V, th, z, att),
        "population_loss": lambda: nx.population_loss(V, th, tt, sup, att),
        "population_grad": lambda: nx.population_grad(V, th, tt, sup, att),
        "population_grad batched": lambda: nx.population_grad(V.expand(2, -1, -1), th, tt, sup, att),
        "one_step": lambda: nx.one_step(V, th, tt, sup, 0.1, att),
        "step_metrics": lambda: nx.step_metrics(V, th, tt, sup, attention=att),
        "limit_step_attention": lambda: nx.limit_step_attention(V, th, tt, sup, att),
        "empirical_loss": lambda: nx.empirical_loss(V, th, tt, X, y, att),
        "empirical_grad": lambda: nx.empirical_grad(V, th, tt, X, y, att),
        "stream_loss": lambda: nx.stream_loss(E, sth, stt, (1, 30), att),
        "stream_grad": lambda: nx.stream_grad(E, sth, stt, (1, 30), att),
        "stream_step_metrics": lambda: nx.stream_step_metrics(E, sth, stt, (1, 30), attention=att),
    }


def _reference_calls(att):
    V, th, tt, sup = _model_instance(d=4, m=2)
    return {
        "reference population_loss": lambda: ref_loss(V, th, tt, sup, att),
        "reference population_grad": lambda: ref_grad(V, th, tt, sup, att),
        "enumerated_loss_mp": lambda: enumerated_loss_mp(V, th, tt, sup, att),
        "enumerated_grad_mp": lambda: enumerated_grad_mp(V, th, tt, sup, att),
        "enumerated_grad_converged": lambda: enumerated_grad_converged(V, th, tt, sup, att),
    }


def _symbolic_calls(att):
    return {
        "derive_jacobian": lambda: derive_jacobian(att),
        "check_chain_rule": lambda: check_chain_rule(sp.Integer(0), sp.Integer(0), None, att),
    }


def test_every_entry_point_computes_the_known_maps():
    for att in vocabulary.ATTENTIONS:
        for name, call in {**_engine_calls(att), **_reference_calls(att), **_symbolic_calls(att)}.items():
            if name in ("limit_step_attention", "check_chain_rule") or (
                    name == "stream_step_metrics" and att == "linear"):
                continue
            call()


@pytest.mark.parametrize("calls_of", [_engine_calls, _reference_calls, _symbolic_calls],
                         ids=["engine", "reference", "symbolic"])
def test_every_entry_point_refuses_an_unimplemented_map(fake_map, calls_of):
    calls = calls_of(fake_map)
    for name, call in calls.items():
        with pytest.raises(InputError, match="implement") as info:
            call()
        assert FAKE_MAP in str(info.value), name


# --------------------------------------------------------------------------- readouts


def test_an_unimplemented_readout_breaks_conformance(fake_readout):
    found = registry_mismatches()
    assert len(found) == 1 and FAKE_READOUT in found[0]


def _model_with_readout(readout, D=4, L=1, seed=3):
    model = random_model(TransformerConfig(D=D, L=L, N_max=8), "gaussian", seed)
    object.__setattr__(model.config, "readout", readout)     # bypass the config's own check
    return model


def test_every_table_profile_and_sample_refuses_an_unimplemented_readout(fake_readout):
    T = torch.linspace(-1, 1, 16, dtype=torch.float64)
    model = _model_with_readout(fake_readout)
    cfg = model.config
    calls = {
        "readout_table": lambda: readout_table(T, fake_readout),
        "model.readout": lambda: model.readout(T),
        "boolean_table": lambda: boolean_table(model, 4),
        "model_profile": lambda: model_profile(model, 4),
        "random_profiles": lambda: random_profiles(cfg, "gaussian", 4, 2),
        "sampled_sensitivities": lambda: sampled_sensitivities(model, 4, 8),
    }
    for name, call in calls.items():
        with pytest.raises(InputError, match="readouts with a rule") as info:
            call()
        assert FAKE_READOUT in str(info.value), name


@pytest.mark.parametrize("readout", ["linear", "sigmoid", "median"])
def test_tables_and_profiles_read_the_models_readout(readout):
    model = _model_with_readout(readout, seed=5)
    N = 5
    from numeric.transformer._eval import evaluate_all, table_profile

    expected = readout_table(evaluate_all(model, N), readout)
    assert torch.equal(boolean_table(model, N), expected)
    assert torch.equal(model_profile(model, N), table_profile(expected))
    if readout == "median":         # distinct outputs: exactly half of the strings read 1
        assert int(expected.sum()) == 1 << (N - 1)


def test_median_readout_library_equals_cli(tmp_path, capsys):
    """``boolverify sensitivity random --readout median`` reports the library's profiles and
    tables (boolean_table, model_profile, random_profiles) of the same models."""
    js = tmp_path / "median.json"
    N, models, seed = 5, 3, 11
    rc = main(["sensitivity", "random", "--N", str(N), "--D", "4", "--L", "1", "--models", str(models),
               "--init", "gaussian", "--readout", "median", "--seed", str(seed), "--json", str(js)])
    assert rc == 0, capsys.readouterr().err
    d = json.loads(js.read_text())
    p = d["params"]
    assert p["conventions"]["readout"] == "median"
    cfg = preset_config(p["preset"], D=p["D"], L=p["L"], H=p["H"], F=p["F"], eps=p["eps"],
                        N_max=max(64, N), readout="median")
    K = random_profiles(cfg, p["init"], N, models, seed=seed, sigma=p["sigma"])
    assert K.tolist() == d["profiles"]
    for i in range(models):
        model = random_model(cfg, p["init"], seed + i, sigma=p["sigma"])
        table = boolean_table(model, N)
        assert int(table.sum()) == d["ones"][i] == 1 << (N - 1)
        assert model_profile(model, N).tolist() == d["profiles"][i]
    linear = random_profiles(preset_config(p["preset"], D=p["D"], L=p["L"], N_max=max(64, N)),
                             p["init"], N, models, seed=seed, sigma=p["sigma"])
    assert linear.tolist() != d["profiles"]      # the readout is in effect


@pytest.mark.parametrize("vocabulary_name", ["ALL_INIT_SCHEMES", "FUNCTIONS", "LOSSES", "OPTIMIZERS",
                                             "CONSTRUCTED_FUNCTIONS"])
def test_a_vocabulary_name_without_its_entry_is_a_mismatch(monkeypatch, vocabulary_name):
    monkeypatch.setattr(vocabulary, vocabulary_name, getattr(vocabulary, vocabulary_name) + ("kaiming",))
    assert any("kaiming" in m for m in registry_mismatches())
