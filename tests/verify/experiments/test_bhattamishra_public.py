"""boolverify's bhattamishra preset against the public code of Bhattamishra et al.
(satwik77/Transformer-Simplicity, RandFLTAtt), run from a fetched copy: with copied weights the
forward passes agree in float64 under each option (learned / sinusoidal positions, zero / drawn
layer biases, several heads, odd width); the sinusoid tables agree in float32, bit for bit; the
public init methods' draws, copied into boolverify, have the laws boolverify's counterparts
draw from (tests.helpers.public_init_law); the agreement experiment's pieces on a few models.

The public code is found through ``BOOLVERIFY_TRANSFORMER_SIMPLICITY`` (a checkout or bare git
directory) or the fetched mirror below; without either the tests skip, saying so. The
independent plain-Python check of the same options always runs
(tests/numeric/test_transformer_conventions.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from numeric.transformer._init import INIT_SCHEME_REGISTRY
from numeric.transformer._model import BooleanTransformer, preset_config, random_model, sinusoidal_positions
from numeric.vocabulary import BHATTAMISHRA_INIT_SCHEMES
from verify.common.tolerances import tolerance
from verify.experiments import bhattamishra_public as bp
from verify.experiments.claim_rules import SG6
from tests.helpers import law_holds, public_init_law, raises_input_error

#: Where this project's tooling leaves a fetched copy of the public repository.
MIRROR = Path("/work/.mirror/satwik77+Transformer-Simplicity/repo")


def _source():
    if bp.public_source():
        return bp.public_source()
    return str(MIRROR) if (MIRROR / "HEAD").is_file() else None


SOURCE = _source()
needs_public = pytest.mark.skipif(
    SOURCE is None, reason=f"the public code is not here: set {bp.SOURCE_VARIABLE} to a checkout of "
                           "satwik77/Transformer-Simplicity (the plain-Python check still runs)")

OPTIONS = [
    ("learned, zero biases", dict(positions="learned", biases="zero"), 8, 2),
    ("learned, drawn layer biases", dict(positions="learned", biases="scheme_except_readout"), 8, 2),
    ("sinusoidal, zero biases", dict(positions="sinusoidal", biases="zero"), 8, 4),
    ("sinusoidal, drawn layer biases, odd D", dict(positions="sinusoidal", biases="scheme_except_readout"), 7, 1),
]


def _used(scheme, **options):
    """The options of ``options`` that ``scheme`` uses (it refuses the others)."""
    return {name: value for name, value in options.items() if name in INIT_SCHEME_REGISTRY[scheme].options}


@needs_public
@pytest.mark.parametrize("label, conventions, D, H", OPTIONS, ids=[o[0] for o in OPTIONS])
def test_forward_equals_public_model_with_copied_weights(label, conventions, D, H):
    N = 6
    cfg = preset_config("bhattamishra", D=D, L=2, H=H, N_max=N, dtype="float64", **conventions)
    scheme = "bhattamishra_gaussian" if conventions["biases"] != "zero" else "bhattamishra_xavier_normal"
    model = random_model(cfg, scheme, 5, **_used(scheme, sigma=0.6))
    clf = bp.copy_to_public(model, bp.public_model(cfg, SOURCE))
    if conventions["positions"] == "sinusoidal":
        # the public table is computed in float32 whatever the model's dtype; the float64 formula
        # is checked against plain math elsewhere and the float32 tables below, bit for bit
        with torch.no_grad():
            clf.pos_encoder.pe[: N + 1, 0] = model.pos
    X = bp.all_strings(N)
    with torch.no_grad():
        ours, theirs = model(X), bp.public_outputs(clf, X)
    scale = max(1.0, float(theirs.abs().max()))
    assert float((ours - theirs).abs().max()) <= tolerance(torch.float64).rtol * scale, label
    assert float(theirs.max() - theirs.min()) > 0  # the strings are told apart: a real check
    # the bits, read as the public script reads them
    assert torch.equal(model.readout(ours), (torch.sigmoid(theirs) >= 0.5).to(torch.int64))


@needs_public
@pytest.mark.parametrize("D", [8, 7, 64])
def test_sinusoid_table_is_the_public_one(D):
    cfg = preset_config("bhattamishra", D=D, L=1, H=1, N_max=30, positions="sinusoidal")
    clf = bp.public_model(cfg, SOURCE)
    assert torch.equal(clf.pos_encoder.pe[:31, 0], sinusoidal_positions(31, D, torch.float32))
    assert torch.equal(BooleanTransformer(cfg).pos, clf.pos_encoder.pe[:31, 0])


@needs_public
@pytest.mark.parametrize("scheme", BHATTAMISHRA_INIT_SCHEMES)
def test_public_init_draws_the_laws_of_boolverifys_counterpart(scheme):
    """The public method's draws (copied into boolverify) and boolverify's draws of the same
    scheme both have, parameter by parameter, the law restated from the public code; and with
    the public weights copied in, the two forward passes agree (in float64)."""
    kw = dict(B=7.0, sigma=3.0, input_scale=0.5)
    for bias in ((False,) if "xavier" in scheme else (False, True)):
        cfg = preset_config("bhattamishra", D=32, L=2, H=4, N_max=12,
                            biases="scheme_except_readout" if bias else "zero")
        clf = bp.public_model(cfg, SOURCE)
        torch.manual_seed(3)
        bp.public_initialize_(clf, scheme, bias=bias, **kw)
        theirs = bp.copy_from_public(clf, BooleanTransformer(cfg))
        ours = random_model(cfg, scheme, 3, **_used(scheme, **kw))
        for (name, p), (_, q) in zip(theirs.named_parameters(), ours.named_parameters()):
            law = public_init_law(name, scheme, cfg.D, tuple(p.shape), B=7.0, sigma=3.0, s=0.5, drawn_biases=bias)
            assert law_holds(p, law, SG6.known_answer_false_fail), ("public", scheme, bias, name, law)
            assert law_holds(q, law, SG6.known_answer_false_fail), ("boolverify", scheme, bias, name, law)
        # the public draws, held in float64 on both sides, give the same outputs
        cfg64 = preset_config("bhattamishra", D=32, L=2, H=4, N_max=12, dtype="float64", biases=cfg.biases)
        clf = clf.double()
        theirs64 = bp.copy_from_public(clf, BooleanTransformer(cfg64))
        X = bp.all_strings(8)
        with torch.no_grad():
            a, b = theirs64(X), bp.public_outputs(clf, X)
        assert float((a - b).abs().max()) <= tolerance(torch.float64).rtol * max(1.0, float(b.abs().max()))


@needs_public
def test_agreement_pieces_on_a_few_models():
    from verify.experiments import bhattamishra_init_agreement as agree

    setting = dict(agree.SETTINGS["bhattamishra_uniform"], N=5, D=8, L=1)
    const, avg = agree.public_draws("bhattamishra_uniform", setting, 3, 10, SOURCE)
    assert const.shape == avg.shape == (3,) and ((avg == 0) | ~const).all()
    const2, avg2 = agree.boolverify_draws("bhattamishra_uniform", setting, 3, 0)
    assert const2.shape == (3,) and (avg2 >= 0).all() and (avg2 <= 1).all()
    # as of known tables: parity has as = N, a dictator 1, a constant 0
    N = 4
    x = torch.arange(1 << N)
    parity = torch.tensor([bin(int(v)).count("1") % 2 for v in x])
    assert agree.average_sensitivity(parity, N) == N
    assert agree.average_sensitivity(x & 1, N) == 1
    assert agree.average_sensitivity(torch.zeros(1 << N), N) == 0


def test_public_code_errors_are_input_errors(tmp_path, monkeypatch):
    monkeypatch.delenv(bp.SOURCE_VARIABLE, raising=False)
    with raises_input_error(bp.SOURCE_VARIABLE):
        bp.load_public_code()
    with raises_input_error("source"):
        bp.load_public_code(str(tmp_path))
    with raises_input_error("scheme"):
        bp.public_initialize_(None, "uniform")
    with raises_input_error("input_scale"):
        bp.public_initialize_(None, "bhattamishra_gaussian", input_scale=-1.0)


@needs_public
def test_public_code_refuses_what_it_cannot_hold():
    cfg = preset_config("bhattamishra", D=8, L=1, H=1, N_max=4, biases="scheme_except_readout")
    model = random_model(cfg, "uniform", 0, B=1.0)
    with torch.no_grad():
        model.out.bias.fill_(0.5)
    with raises_input_error("out.bias"):
        bp.copy_to_public(model, bp.public_model(cfg, SOURCE))
    with raises_input_error("bias"):
        bp.public_initialize_(bp.public_model(cfg, SOURCE), "bhattamishra_xavier_uniform", bias=True)
    post = BooleanTransformer(preset_config("boolverify", D=8, L=1, N_max=4))
    with raises_input_error("config"):
        bp.copy_to_public(post, bp.public_model(cfg, SOURCE))

