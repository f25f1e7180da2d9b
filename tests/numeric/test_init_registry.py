"""The initialisation-scheme registry of the paper-B transformer (numeric.transformer._init):
its names are the vocabulary's, a name without an entry is refused (never drawn as another
scheme), every scheme refuses an option it does not use (library and CLI), and every scheme
draws, bit for bit, what it drew before the registry existed."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from numeric import vocabulary
from numeric.transformer._init import INIT_OPTIONS, INIT_SCHEME_REGISTRY, init_options, init_scheme
from numeric.transformer._model import BooleanTransformer, TransformerConfig, initialize_, preset_config, random_model
from numeric.validation import InputError
from tests.helpers import raises_input_error, run_cli_process
from verify.cli.options import INIT_OPTION_FLAGS

ROOT = Path(__file__).resolve().parents[2]

# -- the registry against the vocabulary ------------------------------------------------------


def test_registry_keys_are_the_vocabulary():
    assert tuple(INIT_SCHEME_REGISTRY) == vocabulary.ALL_INIT_SCHEMES
    for name, entry in INIT_SCHEME_REGISTRY.items():
        assert entry.name == name
        assert set(entry.options) <= set(INIT_OPTIONS), name
        assert all(default > 0 for default in entry.options.values()), name


def test_cli_spells_every_option():
    assert tuple(INIT_OPTION_FLAGS) == INIT_OPTIONS


@pytest.fixture
def kaiming_in_vocabulary(monkeypatch):
    """A fifth boolverify scheme named in the vocabulary, with no registry entry."""
    monkeypatch.setattr(vocabulary, "INIT_SCHEMES", vocabulary.INIT_SCHEMES + ("kaiming",))
    monkeypatch.setattr(vocabulary, "ALL_INIT_SCHEMES", vocabulary.ALL_INIT_SCHEMES + ("kaiming",))


def test_a_vocabulary_name_without_an_entry_is_refused(kaiming_in_vocabulary):
    model = BooleanTransformer(TransformerConfig(D=4, L=1, H=2, N_max=4))
    before = [p.detach().clone() for p in model.parameters()]
    for call in (lambda: initialize_(model, "kaiming", generator=torch.Generator().manual_seed(0)),
                 lambda: random_model(TransformerConfig(D=4, L=1, H=2, N_max=4), "kaiming", 0),
                 lambda: init_scheme("kaiming"), lambda: init_options("kaiming")):
        with raises_input_error("scheme", "the schemes with an entry"):
            call()
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))  # nothing drawn


def test_cli_refuses_a_vocabulary_name_without_an_entry():
    """The CLI's --init choices follow the vocabulary; a name there without an entry exits 2
    with one line, before any work."""
    patch = ("import sys; from numeric import vocabulary as v; "
             "v.INIT_SCHEMES += ('kaiming',); v.ALL_INIT_SCHEMES += ('kaiming',); "
             "from verify.cli import main; sys.exit(main(sys.argv[1:]))")
    for argv in (["sensitivity", "random", "--N", "3", "--D", "4", "--models", "1", "--init", "kaiming"],
                 ["sensitivity", "sample", "--N", "3", "--D", "4", "--models", "1", "--init", "kaiming"]):
        r = subprocess.run([sys.executable, "-c", patch, *argv], capture_output=True, text=True, cwd=ROOT,
                           timeout=300)
        assert r.returncode == 2, (argv, r.stderr)
        assert r.stderr.startswith("boolverify: error: --init = 'kaiming'") and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


# -- options a scheme does not use ------------------------------------------------------------

#: Every (scheme, option) pair where the scheme does not use the option.
UNUSED = [(scheme, option) for scheme, entry in INIT_SCHEME_REGISTRY.items() for option in INIT_OPTIONS
          if option not in entry.options]


def _config_for(scheme):
    return (preset_config("bhattamishra", D=4, L=1, N_max=4) if scheme in vocabulary.BHATTAMISHRA_INIT_SCHEMES
            else TransformerConfig(D=4, L=1, H=2, N_max=4))


def test_the_unused_table_covers_every_option():
    assert {option for _, option in UNUSED} == set(INIT_OPTIONS)
    assert {scheme for scheme, _ in UNUSED} == set(vocabulary.ALL_INIT_SCHEMES)


@pytest.mark.parametrize("scheme, option", UNUSED)
def test_an_unused_option_is_refused(scheme, option):
    model = BooleanTransformer(_config_for(scheme))
    with raises_input_error(option, scheme):
        initialize_(model, scheme, **{option: 2.0})
    with raises_input_error(option, scheme):
        random_model(_config_for(scheme), scheme, 0, **{option: 2.0})


@pytest.mark.parametrize("scheme", vocabulary.ALL_INIT_SCHEMES)
def test_used_options_are_checked_and_defaulted(scheme):
    entry = INIT_SCHEME_REGISTRY[scheme]
    assert init_options(scheme) == dict(entry.options)
    for option in entry.options:
        assert init_options(scheme, **{option: 2.5})[option] == 2.5
        for bad in (0.0, -1.0, float("nan"), float("inf"), "1"):
            with raises_input_error(option):
                init_options(scheme, **{option: bad})


@pytest.mark.parametrize("scheme", vocabulary.ALL_INIT_SCHEMES)
def test_a_default_option_draws_what_the_explicit_default_draws(scheme):
    entry = INIT_SCHEME_REGISTRY[scheme]
    implicit = random_model(_config_for(scheme), scheme, 3)
    explicit = random_model(_config_for(scheme), scheme, 3, **entry.options)
    assert all(torch.equal(a, b) for a, b in zip(implicit.parameters(), explicit.parameters()))


#: argv, the option named: each must exit 2 with one line before any work.
CLI_REFUSALS = [
    (["sensitivity", "random", "--init", "gaussian", "--B", "7"], "--B"),
    (["sensitivity", "random", "--init", "uniform", "--sigma", "9"], "--sigma"),
    (["sensitivity", "random", "--input-scale", "5"], "--input-scale"),
    (["sensitivity", "random", "--preset", "bhattamishra", "--init", "bhattamishra_xavier_normal", "--B", "3"], "--B"),
    (["sensitivity", "random", "--preset", "bhattamishra", "--init", "bhattamishra_uniform", "--input-scale", "2"],
     "--input-scale"),
    (["sensitivity", "random", "--init", "xavier_uniform", "--sigma", "1"], "--sigma"),
    (["sensitivity", "sample", "--init", "xavier_normal", "--B", "2"], "--B"),
    (["sensitivity", "sample", "--init", "uniform", "--sigma", "2"], "--sigma"),
    (["sensitivity", "sample", "--init", "gaussian", "--B", "1"], "--B"),
]


@pytest.mark.parametrize("argv, option", CLI_REFUSALS, ids=[" ".join(a[1:]) for a, _ in CLI_REFUSALS])
def test_cli_refuses_an_unused_option(tmp_path, argv, option):
    out = tmp_path / "r.json"
    r = run_cli_process(*argv, "--N", "3", "--D", "4", "--models", "1", "--json", out, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"boolverify: error: {option} = ") and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists()


def test_cli_records_only_the_options_the_scheme_used(tmp_path):
    out = tmp_path / "r.json"
    r = run_cli_process("sensitivity", "random", "--N", "3", "--D", "4", "--L", "1", "--models", "1",
                        "--init", "gaussian", "--sigma", "0.5", "--json", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    params = json.loads(out.read_text())["params"]
    assert params["sigma"] == 0.5 and "B" not in params and "input_scale" not in params
    assert "sigma=0.5" in r.stdout and "B=" not in r.stdout


# -- the draws are those of the code before the registry --------------------------------------

#: Per (scheme, config, options): the first 16 hex digits of the sha256 of every parameter's
#: float64 bytes in order, and the sum of |parameter|, drawn at seed 11 by initialize_ as it was
#: before the registry (string dispatch in numeric/transformer/_model.py). "given" passes the
#: scheme's options (B = 2.5, sigma = 0.7, input_scale = 3.0, those it uses), "defaults" none.
PRE_REGISTRY_DRAWS = {
    ("uniform", "default", "given"): ('6c55e48b5bb19815', 370.65185493181343),
    ("uniform", "default", "defaults"): ('85c7438439fa13f5', 148.26074197272533),
    ("uniform", "zero_identity", "given"): ('1c31bf314141db2e', 554.3287278985594),
    ("uniform", "zero_identity", "defaults"): ('59a24a9461a8114c', 231.33149115942373),
    ("uniform", "except_readout", "given"): ('d909e35d0d9f69c1', 370.0427501216781),
    ("uniform", "except_readout", "defaults"): ('7e0f4916b12a7a0b', 148.0171000486712),
    ("uniform", "bhattamishra", "given"): ('1b0ddaef55ad1990', 229.09064489696175),
    ("uniform", "bhattamishra", "defaults"): ('a85ca9f39faced0f', 98.83625784749165),
    ("uniform", "bh_bias", "given"): ('3bade54d28c2dbc5', 265.0387559691444),
    ("uniform", "bh_bias", "defaults"): ('0766d9249c3f9f75', 113.21550223836675),
    ("uniform", "bh_sinus", "given"): ('06d8bad5b99e7d1b', 373.48126723757014),
    ("uniform", "bh_sinus", "defaults"): ('2066e475debe5eaf', 161.39250657428056),
    ("gaussian", "default", "given"): ('19a282f275e0cdad', 157.31455115851406),
    ("gaussian", "default", "defaults"): ('3a46954f5497cfd5', 224.73507308359146),
    ("gaussian", "zero_identity", "given"): ('bba9948e2dbfb9dc', 252.3947352043618),
    ("gaussian", "zero_identity", "defaults"): ('8a45cbcb68662d1a', 353.70676457765967),
    ("gaussian", "except_readout", "given"): ('d79f67a8ef7d9c49', 156.88073281902678),
    ("gaussian", "except_readout", "defaults"): ('2f1637eb5c72c4bf', 224.11533259860963),
    ("gaussian", "bhattamishra", "given"): ('ed5fb273c4a1c404', 111.55571509408765),
    ("gaussian", "bhattamishra", "defaults"): ('9bc6cd73a09434ec', 154.22245043166913),
    ("gaussian", "bh_bias", "given"): ('a4d74b14a4f6b2b2', 125.39681658474728),
    ("gaussian", "bh_bias", "defaults"): ('d62bd39a05a88b9a', 173.99545276374556),
    ("gaussian", "bh_sinus", "given"): ('64e03df5f0290c98', 165.09883981733583),
    ("gaussian", "bh_sinus", "defaults"): ('6e88579406ad9ec4', 227.28405703417957),
    ("xavier_uniform", "default", "given"): ('42ac3d7e218f9067', 90.68673020069554),
    ("xavier_uniform", "default", "defaults"): ('42ac3d7e218f9067', 90.68673020069554),
    ("xavier_uniform", "zero_identity", "given"): ('0335eb76179dc39b', 162.52033114727647),
    ("xavier_uniform", "zero_identity", "defaults"): ('0335eb76179dc39b', 162.52033114727647),
    ("xavier_uniform", "except_readout", "given"): ('42ac3d7e218f9067', 90.68673020069554),
    ("xavier_uniform", "except_readout", "defaults"): ('42ac3d7e218f9067', 90.68673020069554),
    ("xavier_uniform", "bhattamishra", "given"): ('02c00099a220bcd4', 82.46822994109243),
    ("xavier_uniform", "bhattamishra", "defaults"): ('02c00099a220bcd4', 82.46822994109243),
    ("xavier_uniform", "bh_sinus", "given"): ('091c4bacc0f036fc', 132.29327182017732),
    ("xavier_uniform", "bh_sinus", "defaults"): ('091c4bacc0f036fc', 132.29327182017732),
    ("xavier_normal", "default", "given"): ('bf855b7ebccc4fbd', 86.60333079077773),
    ("xavier_normal", "default", "defaults"): ('bf855b7ebccc4fbd', 86.60333079077773),
    ("xavier_normal", "zero_identity", "given"): ('a1ed61148da8b6ec', 148.18620496540933),
    ("xavier_normal", "zero_identity", "defaults"): ('a1ed61148da8b6ec', 148.18620496540933),
    ("xavier_normal", "except_readout", "given"): ('bf855b7ebccc4fbd', 86.60333079077773),
    ("xavier_normal", "except_readout", "defaults"): ('bf855b7ebccc4fbd', 86.60333079077773),
    ("xavier_normal", "bhattamishra", "given"): ('90dfe70de65930ef', 78.2094186792383),
    ("xavier_normal", "bhattamishra", "defaults"): ('90dfe70de65930ef', 78.2094186792383),
    ("xavier_normal", "bh_sinus", "given"): ('d3f9d6b62c31c153', 114.63279127841815),
    ("xavier_normal", "bh_sinus", "defaults"): ('d3f9d6b62c31c153', 114.63279127841815),
    ("bhattamishra_uniform", "bhattamishra", "given"): ('1b0ddaef55ad1990', 229.09064489696175),
    ("bhattamishra_uniform", "bhattamishra", "defaults"): ('a85ca9f39faced0f', 98.83625784749165),
    ("bhattamishra_uniform", "bh_bias", "given"): ('3bade54d28c2dbc5', 265.0387559691444),
    ("bhattamishra_uniform", "bh_bias", "defaults"): ('0766d9249c3f9f75', 113.21550223836675),
    ("bhattamishra_uniform", "bh_sinus", "given"): ('06d8bad5b99e7d1b', 373.48126723757014),
    ("bhattamishra_uniform", "bh_sinus", "defaults"): ('2066e475debe5eaf', 161.39250657428056),
    ("bhattamishra_gaussian", "bhattamishra", "given"): ('3c9cac048bdb6e9d', 161.09929074975662),
    ("bhattamishra_gaussian", "bhattamishra", "defaults"): ('1c5608be26c760b6', 147.10885325470008),
    ("bhattamishra_gaussian", "bh_bias", "given"): ('4ea59f1bbb5d8658', 176.6248492251616),
    ("bhattamishra_gaussian", "bh_bias", "defaults"): ('f9294110d8dded42', 168.33328070677817),
    ("bhattamishra_gaussian", "bh_sinus", "given"): ('e324c6a4a2df57eb', 187.62974952696823),
    ("bhattamishra_gaussian", "bh_sinus", "defaults"): ('6e88579406ad9ec4', 227.28405703417957),
    ("bhattamishra_xavier_uniform", "bhattamishra", "given"): ('b919e66e5e98f141', 90.4137804126367),
    ("bhattamishra_xavier_uniform", "bhattamishra", "defaults"): ('b919e66e5e98f141', 90.4137804126367),
    ("bhattamishra_xavier_uniform", "bh_sinus", "given"): ('34663e7709f1615f', 136.18894688331056),
    ("bhattamishra_xavier_uniform", "bh_sinus", "defaults"): ('34663e7709f1615f', 136.18894688331056),
    ("bhattamishra_xavier_normal", "bhattamishra", "given"): ('1013f6082dd17e03', 91.75213289505336),
    ("bhattamishra_xavier_normal", "bhattamishra", "defaults"): ('1013f6082dd17e03', 91.75213289505336),
    ("bhattamishra_xavier_normal", "bh_sinus", "given"): ('d53eb164e2fff164', 120.40150206303224),
    ("bhattamishra_xavier_normal", "bh_sinus", "defaults"): ('d53eb164e2fff164', 120.40150206303224),
}

#: the options "given" passes, each scheme those it uses
GIVEN = {"B": 2.5, "sigma": 0.7, "input_scale": 3.0}


def _checksum_configs(scheme):
    if scheme in vocabulary.INIT_SCHEMES:
        yield "default", TransformerConfig(D=4, L=1, H=2, N_max=5)
        yield "zero_identity", TransformerConfig(D=4, L=2, H=2, N_max=5, biases="zero", ln_affine="identity")
        yield "except_readout", TransformerConfig(D=4, L=1, H=1, N_max=5, biases="scheme_except_readout")
    yield "bhattamishra", preset_config("bhattamishra", D=4, L=1, N_max=5)
    if INIT_SCHEME_REGISTRY[scheme].draws_biases:
        yield "bh_bias", preset_config("bhattamishra", D=4, L=1, N_max=5, biases="scheme_except_readout")
    yield "bh_sinus", preset_config("bhattamishra", D=4, L=2, N_max=5, positions="sinusoidal")


def _draw_cases():
    for scheme in vocabulary.ALL_INIT_SCHEMES:
        for label, cfg in _checksum_configs(scheme):
            for given in ("given", "defaults"):
                yield scheme, label, given, cfg


def test_the_pinned_table_covers_every_scheme():
    assert {tuple(case[:3]) for case in _draw_cases()} == set(PRE_REGISTRY_DRAWS)


@pytest.mark.parametrize("scheme, label, given, cfg", list(_draw_cases()),
                         ids=["-".join(c[:3]) for c in _draw_cases()])
def test_every_scheme_draws_what_it_drew_before_the_registry(scheme, label, given, cfg):
    options = {k: v for k, v in GIVEN.items() if k in INIT_SCHEME_REGISTRY[scheme].options} if given == "given" else {}
    model = initialize_(BooleanTransformer(cfg), scheme, generator=torch.Generator().manual_seed(11), **options)
    digest = hashlib.sha256(b"".join(p.detach().double().contiguous().numpy().tobytes()
                                     for p in model.parameters())).hexdigest()[:16]
    abs_sum = sum(float(p.detach().double().abs().sum()) for p in model.parameters())
    assert (digest, abs_sum) == PRE_REGISTRY_DRAWS[(scheme, label, given)]


def test_the_constructor_still_starts_at_xavier_uniform_seed_0():
    model = BooleanTransformer(TransformerConfig(D=4, L=1, H=2, N_max=5))
    assert sum(float(p.detach().double().sum()) for p in model.parameters()) == 4.647513386385109
