r"""The initialisation schemes of the paper-B transformer: one registry entry per name of
:data:`numeric.vocabulary.ALL_INIT_SCHEMES`.

Each :class:`InitScheme` says how it draws one parameter, which options (``B``, ``sigma``,
``input_scale``) it uses with their defaults, and what it requires of the config. A scheme is
added by adding its name to the vocabulary and its entry to :data:`INIT_SCHEME_REGISTRY`; nothing
dispatches on a scheme's name, and a name without an entry is refused, never drawn as another.

boolverify's schemes (ours; they are not the public code's):

- ``"uniform"``: every parameter (embeddings, weights, biases, LN gains and biases, readout)
  i.i.d. :math:`U(-B, B)`, i.e. :math:`\theta \sim \mathrm{Unif}([-B,B]^M)`, the box of the theory.
- ``"gaussian"``: every parameter i.i.d. :math:`\mathcal N(0, \sigma^2)` (our choice: the
  absolutely continuous analogue of the box, on all parameters).
- ``"xavier_uniform"`` / ``"xavier_normal"``: each weight matrix
  :math:`W \in \mathbb{R}^{\text{out}\times\text{in}}` from :math:`U(-a, a)`,
  :math:`a = \sqrt{6/(\text{in}+\text{out})}`, resp. :math:`\mathcal N(0, 2/(\text{in}+\text{out}))`;
  the embeddings :math:`E, P` with fans :math:`(D, D)` (so their scale does not depend on
  :math:`N_{\max}`); biases 0; LN gain 1 and bias 0 (the usual practice).

The config's ``biases="zero"`` sets every bias (readout included) to 0,
``biases="scheme_except_readout"`` the readout bias only, and ``ln_affine="identity"`` every LN
gain to 1 and bias to 0, under any scheme (those are then not drawn, so the other parameters'
draws shift).

The public initialisations (RandFLTAtt/src/components/sanplay.py of
satwik77/Transformer-Simplicity), per parameter group; LN gain 1 and bias 0 and no readout bias
under all four (their :attr:`InitScheme.requires`); "layer" weights and biases are the attention
and MLP ones; the positions are drawn only when ``positions="learned"``:

==============================  ================  ================  ===================  ======================  ==========================
scheme (public method)          token embedding   learned positions  layer weights        layer biases            readout weight
==============================  ================  ================  ===================  ======================  ==========================
``bhattamishra_uniform``        U(-B, B)          U(-B, B)           U(-B, B)             0, or U(-B, B) [1]      U(-B, B)
(``init_weights``)
``bhattamishra_gaussian``       N(0, s^2)         U(-s, s)           N(0, sigma^2)        0, or N(0, sigma^2) [1] N(0, 1)
(``init_gauss_weights``)
``bhattamishra_xavier_uniform`` N(0, 1)           N(0, 1)            Xavier-uniform       0                       Xavier-uniform (fans D, 1)
(``init_xavuni``)
``bhattamishra_xavier_normal``  N(0, 1)           N(0, 1)            Xavier-normal        0                       N(0, 1)
(``init_xavnormal``)
==============================  ================  ================  ===================  ======================  ==========================

[1] with ``biases="scheme_except_readout"`` (the public ``bias=True``); ``s`` is ``input_scale``
(the public ``-i_init``). Xavier fans are a weight's (in, out).

Every draw is float64 from the caller's CPU generator, parameter by parameter in the model's
order, so a scheme's draws do not depend on the device or the model's dtype.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import torch

from numeric import vocabulary
from numeric.validation import check_entry, check_real, reject

#: Every option an init scheme may use, in the order the messages and records list them.
INIT_OPTIONS = ("B", "sigma", "input_scale")


@dataclass(frozen=True)
class ParameterSlot:
    """One parameter of the model as a draw sees it.

    Attributes:
        name: its name in ``model.named_parameters()`` (``"tok"``, ``"out.weight"``, ...).
        kind: ``"embedding"``, ``"weight"``, ``"bias"``, ``"ln_gain"`` or ``"ln_bias"``.
        shape: its shape.
        D: the model width (the embeddings' Xavier fans).
    """

    name: str
    kind: str
    shape: torch.Size
    D: int

    @property
    def fans(self) -> tuple[int, int]:
        """Xavier's ``(fan_in, fan_out)``: a weight's (in, out); ``(D, D)`` for an embedding."""
        if self.kind == "embedding":
            return self.D, self.D
        return self.shape[1], self.shape[0]


@dataclass(frozen=True)
class ConfigRequirement:
    """A value a scheme requires of one convention of the config.

    Attributes:
        convention: a key of ``TransformerConfig.conventions`` (``"biases"``, ``"ln_affine"``).
        allowed: the values the scheme accepts.
        why: the reason, given in the refusal.
    """

    convention: str
    allowed: tuple
    why: str


@dataclass(frozen=True)
class InitScheme:
    """One initialisation scheme of :data:`numeric.vocabulary.ALL_INIT_SCHEMES`.

    Attributes:
        name: the scheme's name.
        draw: ``draw(slot, generator, options)``: the float64 values of the
            :class:`ParameterSlot` ``slot`` (one the config does not fix), drawn from the CPU
            ``generator``; ``options`` maps each name of :attr:`options` to its value.
        options: the options it uses (names of :data:`INIT_OPTIONS`) with their defaults; any
            other option given is refused.
        draws_biases: whether it draws the layer biases (else it sets them to 0), so whether
            ``biases="scheme_except_readout"`` changes what it draws.
        requires: what it requires of the config (:class:`ConfigRequirement`), checked in order.
    """

    name: str
    draw: Callable
    options: Mapping[str, float]
    draws_biases: bool
    requires: tuple = ()

    def check_config(self, config, *, scheme_name: str = "scheme", names: Mapping[str, str] | None = None):
        """``config`` must meet :attr:`requires`; ``names`` maps a convention to the name the
        messages give (a CLI passes its option spellings)."""
        names = dict(names or {})
        for need in self.requires:
            value = getattr(config, need.convention)
            if value not in need.allowed:
                reject(names.get(need.convention, need.convention), value,
                       f"{' or '.join(repr(v) for v in need.allowed)} under {scheme_name} = {self.name} ({need.why})")

    def draw_options(self, given: Mapping[str, float | None], *, scheme_name: str = "scheme",
                     option_names: Mapping[str, str] | None = None) -> dict:
        """The options the scheme draws with, ``{name: value}`` in the order of :attr:`options`:
        each one given (not ``None``) checked to be a real > 0, the others its defaults; an
        option given that the scheme does not use is refused, never ignored."""
        names = {name: name for name in INIT_OPTIONS} | dict(option_names or {})
        for name in INIT_OPTIONS:
            if given.get(name) is not None and name not in self.options:
                uses = ", ".join(names[o] for o in self.options) or "no options"
                reject(names[name], given[name], f"no {names[name]} under {scheme_name} = {self.name} (it uses {uses})")
        return {name: (default if given.get(name) is None else check_real(given[name], names[name], lo=0, lo_open=True))
                for name, default in self.options.items()}


def _uniform(slot, generator, half_width):
    return (torch.rand(slot.shape, generator=generator, dtype=torch.float64) * 2 - 1) * half_width


def _normal(slot, generator, std):
    return torch.randn(slot.shape, generator=generator, dtype=torch.float64) * std


def _xavier_uniform_value(slot, generator):
    fan_in, fan_out = slot.fans
    return _uniform(slot, generator, math.sqrt(6.0 / (fan_in + fan_out)))


def _xavier_normal_value(slot, generator):
    fan_in, fan_out = slot.fans
    return _normal(slot, generator, math.sqrt(2.0 / (fan_in + fan_out)))


def _constant(slot, value):
    return torch.full(slot.shape, value, dtype=torch.float64)


def _draw_uniform(slot, generator, options):
    return _uniform(slot, generator, options["B"])


def _draw_gaussian(slot, generator, options):
    return _normal(slot, generator, options["sigma"])


def _xavier_draw(weight_value):
    """boolverify's Xavier schemes: weights and embeddings by ``weight_value``, biases 0,
    LN gain 1 and bias 0."""

    def draw(slot, generator, options):
        if slot.kind in ("bias", "ln_bias"):
            return _constant(slot, 0.0)
        if slot.kind == "ln_gain":
            return _constant(slot, 1.0)
        return weight_value(slot, generator)

    return draw


def _draw_public_gaussian(slot, generator, options):
    # init_gauss_weights(std_init=sigma, inp_init=input_scale, dec_init=1.0)
    if slot.name == "tok":
        return _normal(slot, generator, options["input_scale"])
    if slot.name == "pos":
        return _uniform(slot, generator, options["input_scale"])
    if slot.name == "out.weight":
        return _normal(slot, generator, 1.0)  # dec_init = 1.0, as both public scripts pass it
    return _normal(slot, generator, options["sigma"])


def _public_xavier_draw(layer_value, readout_value):
    """init_xavuni / init_xavnormal: embeddings N(0, 1), biases 0, the layer weights by
    ``layer_value`` (the scheme's Xavier law), the readout weight by ``readout_value``."""

    def draw(slot, generator, options):
        if slot.kind == "bias":
            return _constant(slot, 0.0)
        if slot.name in ("tok", "pos"):
            return _normal(slot, generator, 1.0)
        if slot.name == "out.weight":
            return readout_value(slot, generator)
        return layer_value(slot, generator)

    return draw


def _standard_normal_value(slot, generator):
    return _normal(slot, generator, 1.0)


_PUBLIC_LN = ConfigRequirement("ln_affine", ("identity",), "the public code's layer norms keep gain 1 and bias 0")
_PUBLIC_READOUT = ConfigRequirement("biases", ("zero", "scheme_except_readout"),
                                    "the public model's readout has no bias")
_PUBLIC_XAVIER_BIASES = ConfigRequirement("biases", ("zero",),
                                          "the public init_xavuni and init_xavnormal zero every bias")

#: The initialisation schemes, keyed by the names of :data:`numeric.vocabulary.ALL_INIT_SCHEMES`.
INIT_SCHEME_REGISTRY = {
    "uniform": InitScheme("uniform", _draw_uniform, {"B": 1.0}, draws_biases=True),
    "gaussian": InitScheme("gaussian", _draw_gaussian, {"sigma": 1.0}, draws_biases=True),
    "xavier_uniform": InitScheme("xavier_uniform", _xavier_draw(_xavier_uniform_value), {}, draws_biases=False),
    "xavier_normal": InitScheme("xavier_normal", _xavier_draw(_xavier_normal_value), {}, draws_biases=False),
    # init_weights draws every weight it draws from U(-B, B): under the preset's conventions
    # the same values as boolverify's uniform
    "bhattamishra_uniform": InitScheme("bhattamishra_uniform", _draw_uniform, {"B": 1.0}, draws_biases=True,
                                       requires=(_PUBLIC_LN, _PUBLIC_READOUT)),
    "bhattamishra_gaussian": InitScheme("bhattamishra_gaussian", _draw_public_gaussian,
                                        {"sigma": 1.0, "input_scale": 1.0}, draws_biases=True,
                                        requires=(_PUBLIC_LN, _PUBLIC_READOUT)),
    "bhattamishra_xavier_uniform": InitScheme(
        "bhattamishra_xavier_uniform", _public_xavier_draw(_xavier_uniform_value, _xavier_uniform_value), {},
        draws_biases=False, requires=(_PUBLIC_LN, _PUBLIC_XAVIER_BIASES)),
    "bhattamishra_xavier_normal": InitScheme(
        "bhattamishra_xavier_normal", _public_xavier_draw(_xavier_normal_value, _standard_normal_value), {},
        draws_biases=False, requires=(_PUBLIC_LN, _PUBLIC_XAVIER_BIASES)),
}


def init_scheme(scheme, *, scheme_name: str = "scheme") -> InitScheme:
    """The :class:`InitScheme` named ``scheme``; :class:`InputError` for a name outside
    :data:`numeric.vocabulary.ALL_INIT_SCHEMES` or one without an entry (never a fallback to
    another scheme). ``scheme_name`` is the name the message gives."""
    return check_entry(scheme, scheme_name, INIT_SCHEME_REGISTRY, vocabulary.ALL_INIT_SCHEMES,
                       "the schemes with an entry")


def check_init_scheme(config, scheme: str, *, scheme_name: str = "scheme", biases_name: str = "biases",
                      ln_affine_name: str = "ln_affine") -> str:
    """``scheme`` must be a scheme of the registry (:func:`init_scheme`) and ``config`` (a
    ``TransformerConfig``) must meet its requirements (:attr:`InitScheme.requires`: the public
    initialisations never draw the layer norms' parameters nor a readout bias, and their Xavier
    variants zero every bias). The ``*_name`` arguments are the names the messages give (a CLI
    passes its option spellings). Returns ``scheme``."""
    init_scheme(scheme, scheme_name=scheme_name).check_config(
        config, scheme_name=scheme_name, names={"biases": biases_name, "ln_affine": ln_affine_name})
    return scheme


def init_options(scheme, *, B=None, sigma=None, input_scale=None, scheme_name: str = "scheme",
                 option_names: Mapping[str, str] | None = None) -> dict:
    """The options ``scheme`` draws with, ``{name: value}`` in the order of its entry: each one
    given (not ``None``) checked to be a real > 0, the others its defaults. An option given to
    a scheme that does not use it is refused (:class:`InputError` naming the option), never
    ignored. ``option_names`` maps an option to the name the messages give (a CLI passes its
    option spellings)."""
    return init_scheme(scheme, scheme_name=scheme_name).draw_options(
        {"B": B, "sigma": sigma, "input_scale": input_scale}, scheme_name=scheme_name, option_names=option_names)


def _param_kind(name: str) -> str:
    if name in ("tok", "pos"):
        return "embedding"
    if ".ln1." in name or ".ln2." in name or name.startswith("ln_f."):
        return "ln_gain" if name.endswith("gain") else "ln_bias"
    if name.endswith("bias"):
        return "bias"
    return "weight"


def _fixed_by_config(config, slot):
    """The value the config's ``biases`` / ``ln_affine`` fix ``slot`` to, or ``None`` when
    the scheme draws it."""
    if slot.kind == "bias" and (config.biases == "zero"
                                or (config.biases == "scheme_except_readout" and slot.name == "out.bias")):
        return 0.0
    if config.ln_affine == "identity" and slot.kind in ("ln_gain", "ln_bias"):
        return 1.0 if slot.kind == "ln_gain" else 0.0
    return None


@torch.no_grad()
def draw_parameters_(model, entry: InitScheme, generator: torch.Generator, options: Mapping[str, float]):
    """Set every parameter of ``model`` (a checked ``BooleanTransformer`` whose config meets
    the requirements of the scheme ``entry``) as the scheme draws it with ``options``
    (:meth:`InitScheme.draw_options`), in the model's parameter order; the parameters the config
    fixes draw nothing."""
    config = model.config
    for name, p in model.named_parameters():
        slot = ParameterSlot(name, _param_kind(name), p.shape, config.D)
        fixed = _fixed_by_config(config, slot)
        val = entry.draw(slot, generator, options) if fixed is None else _constant(slot, fixed)
        p.copy_(val.to(p.device))
    return model
