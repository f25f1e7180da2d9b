r"""The public random-transformer code of Bhattamishra et al. (satwik77/Transformer-Simplicity,
``RandFLTAtt``) run beside boolverify's ``bhattamishra`` preset: loading it, copying a
boolverify model's parameters into it, its four initialisations, and its Boolean table.

The public code is not a dependency: :func:`load_public_code` imports it from a checkout (or a
bare git directory of the repository) named by the caller or by the environment variable
``BOOLVERIFY_TRANSFORMER_SIMPLICITY``; its ``TransformerCLF`` (``src/components/sanplay.py``)
needs only torch once the debugger ``ipdb`` it imports is stubbed. Its scripts
(``rand_sensi.py``, ``rand_gauss_sensi.py``) also need pandas, wandb and attrdict and are not
run; their model construction and init calls are restated in :func:`public_model` and
:func:`public_initialize_` from the scripts' text.

The public model's correspondence with :class:`numeric.transformer.BooleanTransformer`
(preset ``bhattamishra``): token ids ``'0' -> 0``, ``'1' -> 1``, end token ``'s' -> 2`` at
position N (its fourth, pad, row is never read); ``encoder.weight`` is ``tok`` times
:math:`\sqrt D` in the forward pass; ``pos_encoder.pe[p, 0]`` is ``pos[p]``; per layer
``self_attn.linears.0..3`` are ``q, k, v, o``, ``feed_forward.0`` / ``.2`` are ``fc1`` /
``fc2``, ``sublayer.0.norm`` / ``.1.norm`` (``a_2``, ``b_2``) are ``ln1`` / ``ln2``; the
encoder's ``norm`` is ``ln_f``; ``decoder.weight`` is ``out.weight`` (the decoder has no bias).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import torch

from numeric.validation import check_choice, check_int, check_real, reject
from numeric.vocabulary import BHATTAMISHRA_INIT_SCHEMES

#: The environment variable naming a checkout (or bare git directory) of
#: satwik77/Transformer-Simplicity.
SOURCE_VARIABLE = "BOOLVERIFY_TRANSFORMER_SIMPLICITY"

#: Each public initialisation: the ``TransformerCLF`` method that draws it.
PUBLIC_INIT_METHODS = dict(zip(BHATTAMISHRA_INIT_SCHEMES,
                               ("init_weights", "init_gauss_weights", "init_xavuni", "init_xavnormal")))

_loaded: dict = {}


def _random_fltatt_dir(source: Path) -> Path:
    """The ``RandFLTAtt`` folder of a checkout, or of a bare git directory extracted once."""
    if (source / "RandFLTAtt" / "src" / "components" / "sanplay.py").is_file():
        return source / "RandFLTAtt"
    if (source / "src" / "components" / "sanplay.py").is_file():
        return source
    if (source / "HEAD").is_file() and (source / "objects").is_dir():
        out = Path(tempfile.mkdtemp(prefix="transformer_simplicity_"))
        archive = subprocess.run(["git", "--git-dir", str(source), "archive", "HEAD", "RandFLTAtt"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
        return out / "RandFLTAtt"
    reject("source", str(source), "a checkout of satwik77/Transformer-Simplicity (holding "
           "RandFLTAtt/src/components/sanplay.py) or a bare git directory of it")


def public_source() -> str | None:
    """The source named by :data:`SOURCE_VARIABLE`, or ``None`` when it is unset."""
    value = os.environ.get(SOURCE_VARIABLE)
    return value or None


def load_public_code(source=None):
    """The public ``TransformerCLF`` class, imported from ``source`` (a path; default
    :func:`public_source`). :class:`~numeric.validation.InputError` when there is none.

    Its modules import as the top-level package ``src`` (their own absolute imports), so the
    ``RandFLTAtt`` folder goes first on ``sys.path``; ``ipdb`` is stubbed where it is missing."""
    source = public_source() if source is None else source
    if source is None:
        reject(SOURCE_VARIABLE, "<unset>", "a checkout of satwik77/Transformer-Simplicity or a bare git "
               "directory of it")
    key = str(Path(source).resolve())
    if key not in _loaded:
        root = _random_fltatt_dir(Path(source))
        if "src" in sys.modules and not str(getattr(sys.modules["src"], "__file__", "")).startswith(str(root)):
            reject("src", sys.modules["src"].__file__, "no other top-level package 'src' imported")
        sys.modules.setdefault("ipdb", types.ModuleType("ipdb"))
        sys.path.insert(0, str(root))
        _loaded[key] = importlib.import_module("src.components.sanplay").TransformerCLF
    return _loaded[key]


def public_model(config, source=None):
    """The public model of the shape of ``config`` (a preset ``TransformerConfig``): as
    ``rand_sensi.py`` builds it, ``TransformerCLF(ntoken=4, noutputs=1, d_model=D, nhead=H,
    d_ffn=F, nlayers=L, dropout=0.0, pos_encode_type=...)`` with ``absolute`` for sinusoidal
    positions, in eval mode and the config's dtype."""
    cls = load_public_code(source)
    kind = "absolute" if config.positions == "sinusoidal" else "learnable"
    clf = cls(ntoken=4, noutputs=1, d_model=config.D, nhead=config.H, d_ffn=config.F, nlayers=config.L,
              dropout=0.0, pos_encode_type=kind)
    return clf.to(config.torch_dtype).eval()


def _pairs(model, clf):
    """(public tensor, boolverify tensor) for every parameter boolverify holds."""
    pairs = [(clf.encoder.weight[:3], model.tok)]
    if model.config.positions == "learned":
        pairs.append((clf.pos_encoder.pe[: model.pos.shape[0], 0], model.pos))
    for lay, pub in zip(model.layers, clf.transformer.layers):
        for ours, theirs in zip((lay.q, lay.k, lay.v, lay.o), pub.self_attn.linears):
            pairs += [(theirs.weight, ours.weight), (theirs.bias, ours.bias)]
        for ours, theirs in ((lay.fc1, pub.feed_forward[0]), (lay.fc2, pub.feed_forward[2])):
            pairs += [(theirs.weight, ours.weight), (theirs.bias, ours.bias)]
        for ours, theirs in ((lay.ln1, pub.sublayer[0].norm), (lay.ln2, pub.sublayer[1].norm)):
            pairs += [(theirs.a_2, ours.gain), (theirs.b_2, ours.bias)]
    pairs += [(clf.transformer.norm.a_2, model.ln_f.gain), (clf.transformer.norm.b_2, model.ln_f.bias),
              (clf.decoder.weight, model.out.weight)]
    return pairs


def _check_pair(model, clf):
    cfg = model.config
    if not (cfg.norm == "pre" and cfg.final_ln):
        reject("config", repr(cfg), "pre-LN with a final layer norm (the public model's layout)")
    if len(clf.transformer.layers) != cfg.L or clf.d_model != cfg.D:
        reject("clf", f"<{len(clf.transformer.layers)} layers, d_model {clf.d_model}>",
               f"L = {cfg.L} layers of width D = {cfg.D}")


@torch.no_grad()
def copy_to_public(model, clf):
    """Copy ``model``'s parameters into the public ``clf`` (its pad-token row is left as it is);
    the readout bias must be 0, since the public decoder has none. Returns ``clf``."""
    _check_pair(model, clf)
    if bool((model.out.bias != 0).any()):
        reject("out.bias", float(model.out.bias), "0 (the public model's readout has no bias)")
    for theirs, ours in _pairs(model, clf):
        theirs.copy_(ours.to(theirs.dtype))
    return clf


@torch.no_grad()
def copy_from_public(clf, model):
    """Copy the public ``clf``'s parameters into ``model`` (readout bias 0). Returns ``model``."""
    _check_pair(model, clf)
    for theirs, ours in _pairs(model, clf):
        ours.copy_(theirs.to(ours.dtype))
    model.out.bias.zero_()
    return model


@torch.no_grad()
def public_outputs(clf, X) -> torch.Tensor:
    """The real outputs T (before the sigmoid) of the public model for bit strings ``X``
    (``(batch, N)`` of 0/1), each followed by the end token, read at it as ``rand_sensi.py``
    does (``lengths`` = N + 1; one batch, all of one length, so no padding enters)."""
    X = torch.as_tensor(X, dtype=torch.long)
    ids = torch.cat([X, torch.full((X.shape[0], 1), 2, dtype=torch.long)], dim=1).t().contiguous()
    lengths = torch.full((X.shape[0],), X.shape[1] + 1, dtype=torch.long)
    got = {}
    hook = clf.decoder.register_forward_hook(lambda mod, inp, out: got.setdefault("T", out))
    try:
        clf(ids, lengths)
    finally:
        hook.remove()
    return got["T"].reshape(-1)


def all_strings(N: int) -> torch.Tensor:
    """All :math:`2^N` strings, row ``x`` holding bit ``n`` of ``x`` at position ``n``."""
    N = check_int(N, "N", lo=1)
    x = torch.arange(1 << N)
    return (x.unsqueeze(1) >> torch.arange(N)) & 1


def public_table(clf, N: int, *, chunk: int = 4096) -> torch.Tensor:
    """The public model's Boolean table over :func:`all_strings` (int64 0/1), read as its
    script reads it: ``sigmoid(T) >= 0.5`` in the model's dtype."""
    X = all_strings(N)
    parts = [torch.sigmoid(public_outputs(clf, X[i:i + chunk])) >= 0.5 for i in range(0, X.shape[0], chunk)]
    return torch.cat(parts).to(torch.int64)


@torch.no_grad()
def public_initialize_(clf, scheme: str, *, B: float = 10.0, sigma: float = 10.0, input_scale: float = 1.0,
                       bias: bool = False):
    """Draw ``clf``'s parameters by the public initialisation ``scheme`` (from torch's global
    generator, as the public scripts do): ``init_weights(weight_init=B, bias=bias)``
    (``rand_sensi.py`` passes ``-w_init``), ``init_gauss_weights(std_init=sigma,
    inp_init=input_scale, dec_init=1.0, bias=bias)`` (``rand_gauss_sensi.py``), ``init_xavuni()``,
    ``init_xavnormal()``. Returns ``clf``."""
    check_choice(scheme, "scheme", BHATTAMISHRA_INIT_SCHEMES)
    B = check_real(B, "B", lo=0, lo_open=True)
    sigma = check_real(sigma, "sigma", lo=0, lo_open=True)
    input_scale = check_real(input_scale, "input_scale", lo=0, lo_open=True)
    if scheme == "bhattamishra_uniform":
        clf.init_weights(weight_init=B, inp_init=input_scale, dec_init=1.0, bias=bias)
    elif scheme == "bhattamishra_gaussian":
        clf.init_gauss_weights(std_init=sigma, inp_init=input_scale, dec_init=1.0, bias=bias)
    elif bias:
        reject("bias", bias, f"False under {scheme} ({PUBLIC_INIT_METHODS[scheme]} takes no bias option)")
    else:
        getattr(clf, PUBLIC_INIT_METHODS[scheme])()
    return clf


__all__ = ["SOURCE_VARIABLE", "PUBLIC_INIT_METHODS", "public_source", "load_public_code", "public_model",
           "copy_to_public", "copy_from_public", "public_outputs", "public_table", "all_strings",
           "public_initialize_"]
