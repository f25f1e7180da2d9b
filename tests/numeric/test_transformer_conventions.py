"""The convention options of the Boolean transformer (numeric.transformer._model) and its two
presets, against a plain-Python forward pass written here from the descriptions (no model code
is reused): pre-/post-LN, final LN, biased/unbiased variance, eps inside the square root or
added to the standard deviation, token-embedding scale, zero biases, identity LN, the three
readouts, MLP width, float32, sinusoidal positions; the public initialisations of the
bhattamishra preset, parameter by parameter, against their laws restated from the public code;
and the argument checks. (The public code itself: tests/verify/experiments/test_bhattamishra_public.py.)"""

from __future__ import annotations

import math
import random

import pytest
import torch

from numeric.transformer import (
    BooleanTransformer, TransformerConfig, initialize_, random_model,
)
from numeric.transformer._init import INIT_SCHEME_REGISTRY, check_init_scheme
from numeric.transformer._model import (
    CONVENTIONS, PRESET_SPECS, preset_config, preset_init, readout_table, sinusoidal_positions,
)
from numeric.validation import InputError
from numeric.vocabulary import BHATTAMISHRA_INIT_SCHEMES
from numeric.vocabulary import PRESETS as PRESET_NAMES
from verify.common.tolerances import tolerance
from verify.experiments.claim_rules import SG6
from verify.reference.transformer_loop import loop_output, sinusoid
from tests.helpers import law_holds, public_init_law, raises_input_error

N = 4
STRINGS = [[(x >> n) & 1 for n in range(N)] for x in range(1 << N)]


def _lists(model, seed, scale=0.8):
    """Fixed small parameters (Gaussian, LN gains around 1) as nested lists, loaded into
    ``model``; returned for the reference."""
    rng = random.Random(seed)
    P = {}
    for name, t in model.state_dict().items():
        if t.dim() == 2:
            P[name] = [[rng.gauss(0, scale) for _ in range(t.shape[1])] for _ in range(t.shape[0])]
        else:
            P[name] = [rng.gauss(0, scale) + (1.0 if name.endswith("gain") else 0.0) for _ in range(t.shape[0])]
    model.load_state_dict({k: torch.tensor(v, dtype=model.tok.dtype) for k, v in P.items()})
    # what the model holds (float32 rounds the draws)
    return {k: v.double().tolist() for k, v in model.state_dict().items()}


def _reference_bits(Ts, readout):
    if readout == "linear":
        return [int(t > 0) for t in Ts]
    if readout == "sigmoid":
        return [int(1 / (1 + math.exp(-t)) >= 0.5) for t in Ts]
    m = sorted(Ts)[(len(Ts) - 1) // 2]  # the lower median
    return [int(t > m) for t in Ts]


BASE = dict(D=4, L=2, H=2, F=6, N_max=N, eps=1e-3)
SINGLE = [("norm", "pre"), ("final_ln", True), ("ln_variance", "unbiased"), ("ln_eps", "added_to_std"),
          ("embedding_scale", "sqrt_D"), ("readout", "sigmoid"), ("readout", "median"), ("F", 9),
          ("dtype", "float32"), ("positions", "sinusoidal"), ("biases", "scheme_except_readout")]
CASES = ([("boolverify", {})] + [(f"{k}={v}", {k: v}) for k, v in SINGLE]
         + [("bhattamishra", "preset"), ("bhattamishra, sinusoidal, odd D", "preset_sinusoidal")]
         + [("pre+final+unbiased, eps=0", dict(norm="pre", final_ln=True, ln_variance="unbiased", eps=0.0))])


def _config(kw):
    if kw == "preset":
        return preset_config("bhattamishra", D=4, L=2, H=2, N_max=N)
    if kw == "preset_sinusoidal":
        return preset_config("bhattamishra", D=5, L=2, H=1, N_max=N, positions="sinusoidal")
    return TransformerConfig(**{**BASE, **kw})


@pytest.mark.parametrize("label, kw", CASES, ids=[c[0] for c in CASES])
def test_each_convention_matches_plain_loop(label, kw):
    cfg = _config(kw)
    model = BooleanTransformer(cfg)
    P = _lists(model, 20240611)
    c = {f: getattr(cfg, f) for f in ("D", "L", "H", "eps", *CONVENTIONS)}
    with torch.no_grad():
        T = model(torch.tensor(STRINGS)).double()
        T_full, _ = model(torch.tensor(STRINGS), return_blowup=True)
    T_ref = [loop_output(P, b, c) for b in STRINGS]
    tol = tolerance(cfg.dtype).rtol
    scale = max(1.0, max(abs(t) for t in T_ref))
    assert float((T - torch.tensor(T_ref, dtype=torch.float64)).abs().max()) <= tol * scale, label
    assert float((T_full.double() - torch.tensor(T_ref, dtype=torch.float64)).abs().max()) <= tol * scale, label
    assert T.dtype == torch.float64 and model(torch.tensor(STRINGS[:1])).dtype == cfg.torch_dtype
    assert max(T_ref) - min(T_ref) > 1e-3  # the strings are told apart: a real check
    bits = model.readout(torch.tensor(T_ref, dtype=torch.float64))
    assert bits.tolist() == _reference_bits(T_ref, cfg.readout)


def test_sinusoidal_positions_are_the_public_formula():
    """sin(p / 1000^(2i/D)) at column 2i, cos at 2i + 1 (plain math, float64), even and odd D;
    float32 computes the same table to float32 resolution; the table is a buffer, not a
    parameter: no scheme draws it, no state dict carries it, n_params leaves it out."""
    for D in (6, 7):
        t = sinusoidal_positions(9, D)
        ref = torch.tensor([[sinusoid(p, j, D) for j in range(D)] for p in range(9)], dtype=torch.float64)
        assert float((t - ref).abs().max()) <= tolerance(torch.float64).rtol
        t32 = sinusoidal_positions(9, D, torch.float32)
        assert t32.dtype == torch.float32 and float((t32.double() - ref).abs().max()) <= tolerance(torch.float32).rtol
    cfg = preset_config("bhattamishra", D=6, L=1, N_max=8, positions="sinusoidal")
    model = random_model(cfg, "uniform", 0, B=10.0)
    assert "pos" not in dict(model.named_parameters()) and "pos" not in model.state_dict()
    assert torch.equal(model.pos, sinusoidal_positions(9, 6, torch.float32))
    assert cfg.n_params == preset_config("bhattamishra", D=6, L=1, N_max=8).n_params - 9 * 6
    assert cfg.preset is None and cfg.conventions["positions"] == "sinusoidal"


@pytest.mark.parametrize("scheme", BHATTAMISHRA_INIT_SCHEMES)
@pytest.mark.parametrize("positions", ["learned", "sinusoidal"])
def test_public_init_draws_each_parameter_from_its_law(scheme, positions):
    """Each parameter of a bhattamishra_* scheme has the law the public init method gives it
    (tests.helpers.public_init_law, restated from sanplay.py), with and without drawn biases."""
    bias_options = ("zero",) if "xavier" in scheme else ("zero", "scheme_except_readout")
    for biases in bias_options:
        cfg = preset_config("bhattamishra", D=32, L=2, H=4, N_max=20, positions=positions, biases=biases)
        kw = dict(B=7.0, sigma=3.0, input_scale=0.5)
        model = random_model(cfg, scheme, 17, **{k: v for k, v in kw.items() if k in INIT_SCHEME_REGISTRY[scheme].options})
        for name, p in model.named_parameters():
            law = public_init_law(name, scheme, cfg.D, tuple(p.shape), B=7.0, sigma=3.0, s=0.5,
                                  drawn_biases=biases != "zero")
            assert law_holds(p, law, SG6.known_answer_false_fail), (scheme, biases, name, law)
        # a wrong law is told apart: the uniform scheme's box at another width, the Gaussian's std
        p = model.layers[0].q.weight
        wrong = public_init_law("layers.0.q.weight", scheme, cfg.D, tuple(p.shape), B=14.0, sigma=6.0, s=0.5)
        wrong = (wrong[0], wrong[1] * 2) if "xavier" in scheme else wrong
        assert not law_holds(p, wrong, SG6.known_answer_false_fail), (scheme, wrong)


@pytest.mark.parametrize("biases", ["zero", "scheme_except_readout"])
def test_public_uniform_is_boolverify_uniform_under_the_preset(biases):
    """Under the preset's conventions (LN identity, no readout bias) init_weights draws what
    boolverify's uniform draws, number for number; the other public schemes do not."""
    cfg = preset_config("bhattamishra", D=8, L=2, N_max=6, biases=biases)
    a, b = random_model(cfg, "uniform", 4, B=10.0), random_model(cfg, "bhattamishra_uniform", 4, B=10.0)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    with torch.no_grad():
        assert (float(a.layers[0].q.bias.abs().max()) == 0.0) == (biases == "zero")
        assert float(a.out.bias.abs().max()) == 0.0
    c = random_model(cfg, "gaussian", 4, sigma=10.0)
    d = random_model(cfg, "bhattamishra_gaussian", 4, sigma=10.0)
    assert not torch.equal(c.tok, d.tok) and not torch.equal(c.out.weight, d.out.weight)


@pytest.mark.parametrize(
    "config, scheme, name, expected",
    [
        (dict(), "bhattamishra_uniform", "ln_affine", "identity"),
        (dict(ln_affine="scheme"), "bhattamishra_gaussian", "ln_affine", "identity"),
        (dict(biases="scheme"), "bhattamishra_uniform", "biases", "readout has no bias"),
        (dict(biases="scheme_except_readout"), "bhattamishra_xavier_uniform", "biases", "zero every bias"),
        (dict(biases="scheme_except_readout"), "bhattamishra_xavier_normal", "biases", "zero every bias"),
        (dict(), "kaiming", "scheme", None),
    ],
)
def test_public_init_refuses_a_config_it_cannot_draw(config, scheme, name, expected):
    base = TransformerConfig(D=4, L=1, H=1) if not config else preset_config("bhattamishra", D=4, L=1, **config)
    with raises_input_error(name, expected):
        check_init_scheme(base, scheme)
    with raises_input_error(name):
        initialize_(BooleanTransformer(base), scheme)


def test_blowup_counts_the_final_layer_norm():
    cfg = TransformerConfig(**{**BASE, "norm": "pre", "final_ln": True})
    model = random_model(cfg, "gaussian", 3)
    d = model.blowup(torch.tensor(STRINGS))
    assert cfg.n_ln == 2 * cfg.L + 1 and d["z"].shape == (1 << N, cfg.n_ln, N + 1)
    assert cfg.n_params == TransformerConfig(**BASE).n_params + 2 * cfg.D


def test_default_conventions_are_the_boolverify_preset_and_unchanged():
    """The defaults reproduce the model as it was before the options existed: the same
    parameter names in the same order (so init schemes draw the same numbers)."""
    default = TransformerConfig(D=8, L=2, H=2, N_max=6)
    explicit = preset_config("boolverify", D=8, L=2, N_max=6)
    assert default == explicit and default.preset == "boolverify" and default.F == 32
    names = [n for n, _ in BooleanTransformer(default).named_parameters()]
    assert names[:2] == ["tok", "pos"] and names[-2:] == ["out.weight", "out.bias"]
    assert not any(n.startswith("ln_f") for n in names)
    for scheme in ("uniform", "xavier_normal"):
        a, b = random_model(default, scheme, 5), random_model(explicit, scheme, 5)
        x = torch.tensor([[0, 1, 1, 0, 1, 0]])
        assert torch.equal(a(x), b(x))


def test_bhattamishra_preset_and_its_init():
    cfg = preset_config("bhattamishra", D=8, L=3, N_max=6)
    assert cfg.preset == "bhattamishra" and cfg.F == 16 and cfg.H == 1 and cfg.eps == 1e-6
    assert cfg.dtype == "float32" and cfg.readout == "sigmoid" and cfg.norm == "pre" and cfg.final_ln
    init = preset_init("bhattamishra")
    assert init == {"scheme": "uniform", "B": 10.0}
    model = random_model(cfg, init["scheme"], 0, B=init["B"])
    seen_weight = 0.0
    for name, p in model.named_parameters():
        p = p.detach()
        assert p.dtype == torch.float32
        if ".ln" in name or name.startswith("ln_f"):
            assert torch.all(p == (1.0 if name.endswith("gain") else 0.0)), name
        elif name.endswith("bias"):
            assert torch.all(p == 0), name  # readout bias included
        else:
            assert float(p.abs().max()) <= 10.0
            seen_weight = max(seen_weight, float(p.abs().max()))
    assert seen_weight > 5.0  # the box is U(-10, 10), not U(-1, 1)
    # overrides
    assert preset_config("bhattamishra", D=8, L=1, readout="median").readout == "median"
    assert preset_config("bhattamishra", D=8, L=1).preset == "bhattamishra"
    assert preset_config("bhattamishra", D=8, L=1, dtype="float64").preset is None


@pytest.mark.parametrize("scheme", ["uniform", "gaussian", "xavier_uniform"])
def test_zero_biases_and_identity_ln_under_each_scheme(scheme):
    cfg = TransformerConfig(**{**BASE, "biases": "zero", "ln_affine": "identity"})
    model = random_model(cfg, scheme, 11)
    for name, p in model.named_parameters():
        p = p.detach()
        if ".ln" in name:
            assert torch.all(p == (1.0 if name.endswith("gain") else 0.0))
        elif name.endswith("bias"):
            assert torch.all(p == 0)
        else:
            assert float(p.abs().max()) > 0
    # only biases: LN parameters are still drawn by uniform/gaussian
    cfg = TransformerConfig(**{**BASE, "biases": "zero"})
    model = random_model(cfg, "uniform", 11)
    with torch.no_grad():
        assert float(model.layers[0].ln1.bias.abs().max()) > 0 and float(model.out.bias.abs().max()) == 0


def test_readout_table_edge_cases():
    T = torch.tensor([0.0, -1e-10, 2.0, -3.0], dtype=torch.float64)
    assert readout_table(T, "linear").tolist() == [0, 0, 1, 0]
    assert readout_table(T, "sigmoid").tolist() == [1, 0, 1, 0]  # sigma(0) = 1/2 is read as 1
    assert readout_table(T.float(), "sigmoid").tolist() == [1, 1, 1, 0]  # float32: sigma(-1e-10) = 1/2
    assert readout_table(T, "median").tolist() == [1, 0, 1, 0]  # lower median -1e-10
    assert readout_table(torch.ones(8), "median").tolist() == [0] * 8  # ties read 0: constant
    # a float32 model reads its (float64-stored) outputs in float32, as the public experiment does
    f32 = BooleanTransformer(preset_config("bhattamishra", D=4, L=1, N_max=2))
    assert f32.readout(torch.tensor([-1e-10, -1e-3], dtype=torch.float64)).tolist() == [1, 0]


def test_zero_variance_in_final_layer_norm_is_named():
    cfg = TransformerConfig(D=4, L=1, H=1, F=4, N_max=3, eps=0.0, norm="pre", final_ln=True)
    model = random_model(cfg, "gaussian", 0)
    lay = model.layers[0]
    with torch.no_grad():
        # attention adds 0, so the MLP input at eos is tok[eos] + pos[3] (not flat); the MLP
        # then adds exactly minus that: the final layer norm sees the zero vector at eos
        for p in (lay.o.weight, lay.o.bias, lay.fc2.weight):
            p.zero_()
        lay.fc2.bias.copy_(-(model.tok[2] + model.pos[3]))
    with pytest.raises(InputError, match="final layer norm, position 3"):
        model(torch.tensor([[0, 1, 0]]))


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(norm="middle"), "norm"),
        (dict(final_ln=1), "final_ln"),
        (dict(final_ln="yes"), "final_ln"),
        (dict(ln_variance="sample"), "ln_variance"),
        (dict(ln_eps="outside"), "ln_eps"),
        (dict(embedding_scale=8.0), "embedding_scale"),
        (dict(biases="random"), "biases"),
        (dict(ln_affine=None), "ln_affine"),
        (dict(readout="argmax"), "readout"),
        (dict(dtype="float16"), "dtype"),
        (dict(positions="absolute"), "positions"),
        (dict(biases="layers"), "biases"),
        (dict(F=0), "F"),
    ],
)
def test_bad_convention_values_raise_input_error(kw, name):
    with raises_input_error(name):
        TransformerConfig(D=4, H=2, **kw)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: preset_config("vaswani", D=8), "preset"),
        (lambda: preset_config("bhattamishra", D=8, L=1, colour="red"), "convention"),
        (lambda: preset_config("bhattamishra", D=1), "D"),
        (lambda: preset_init("bert"), "preset"),
        (lambda: readout_table(torch.zeros(3), "softmax"), "readout"),
        (lambda: readout_table([0.1, 0.2], "linear"), "T"),
    ],
)
def test_bad_preset_and_readout_arguments(call, name):
    with raises_input_error(name):
        call()


def test_preset_names_in_vocabulary():
    assert tuple(PRESET_SPECS) == PRESET_NAMES == ("boolverify", "bhattamishra")
    for p in PRESET_SPECS.values():
        assert set(p["conventions"]) == set(CONVENTIONS)
        TransformerConfig(D=4, H=1, **p["conventions"])
    initialize_(BooleanTransformer(preset_config("bhattamishra", D=4, L=1, N_max=2)), "uniform", B=10.0)
