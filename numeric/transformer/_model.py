r"""The paper-B transformer, as formalised in boolverify (docs/claims.md), boolverify's four
initialisation schemes and the four of the public code of Bhattamishra et al. (options of the
``bhattamishra`` preset), and the layer-norm blowup.

Architecture (each choice is ours, made after Hahn & Rofin 2024 and Chiang & Cholak 2022;
the paper's exact architecture is not known):

- **Input.** A bit string :math:`x \in \{0,1\}^N` followed by one ``eos`` token, so the
  sequence has length :math:`N+1`; token ids are 0, 1 and ``EOS = 2``. (Hahn & Rofin read
  the output at one designated position; Chiang & Cholak use an end/CLS token. We read it
  at ``eos``.)
- **Embedding.** :math:`h^0_n = E_{t_n} + P_n` with a token embedding
  :math:`E \in \mathbb{R}^{3\times D}` and a learned absolute positional embedding
  :math:`P \in \mathbb{R}^{(N_{\max}+1)\times D}`; ``eos`` sits at position :math:`N`.
- **Layers.** :math:`L` post-LN layers (the original transformer and both references):
  :math:`h \leftarrow \mathrm{LN}(h + \mathrm{MHA}(h))`, then
  :math:`h \leftarrow \mathrm{LN}(h + \mathrm{MLP}(h))`; so :math:`L' = 2L` layer-norm
  applications.
- **Attention.** :math:`H` heads of width :math:`d_h = D/H`, bidirectional (no causal
  mask: every position, ``eos`` included, attends to all :math:`N+1` positions), softmax
  of :math:`QK^\top/\sqrt{d_h}` in log-sum-exp form; :math:`Q, K, V` and the output
  projection are affine (weights and biases).
- **MLP.** :math:`W_2\,\mathrm{ReLU}(W_1 h + b_1) + b_2` of width :math:`F` (default
  :math:`4D`).
- **Layer norm** with :math:`\varepsilon \ge 0`, **including** :math:`\varepsilon = 0`
  (the regime of Chiang & Cholak and of Theorem 4.5 as formalised here):

  .. math:: \mathrm{LN}(u) = g \odot \frac{u - \bar u}{\sqrt{\operatorname{var} u + \varepsilon}} + b,
     \qquad \operatorname{var} u = \frac1D \sum_i (u_i - \bar u)^2 .

  At :math:`\varepsilon = 0` a mathematically zero variance (all components equal) makes
  LN undefined: :class:`~numeric.validation.InputError` names the layer, which LN and the
  position.
- **Output.** :math:`T(x) = w^\top h^L_{\mathrm{eos}} + \omega`; Boolean output
  :math:`f(x) = 1[T(x) > 0]`.

**Conventions** (options of :class:`TransformerConfig`; the defaults are the architecture
above, the ``boolverify`` preset). ``norm="pre"``: :math:`h \leftarrow h + \mathrm{MHA}(\mathrm{LN}(h))`,
then :math:`h \leftarrow h + \mathrm{MLP}(\mathrm{LN}(h))`; ``final_ln``: one more LN on the last
layer's output; ``ln_variance="unbiased"``: divide by :math:`D-1`; ``ln_eps="added_to_std"``:
:math:`(u - \bar u)/(\sqrt{\operatorname{var} u} + \varepsilon)`; ``embedding_scale="sqrt_D"``:
:math:`h^0_n = \sqrt D\,E_{t_n} + P_n`; ``biases="zero"`` and ``ln_affine="identity"``: those
parameters are set to 0 (gain 1) under every init scheme (``biases="scheme_except_readout"``: the
readout bias only); ``positions="sinusoidal"``: :math:`P` is the public code's fixed sinusoid table
(:func:`sinusoidal_positions`), not a parameter; ``readout``: how :math:`T` becomes a bit
(:func:`readout_table`); ``F``: MLP width; ``dtype``. The preset ``bhattamishra`` (:data:`PRESET_SPECS`)
is the public random-transformer sensitivity experiment of Bhattamishra et al.
(satwik77/Transformer-Simplicity, ``RandFLTAtt``): pre-LN with a final LN, unbiased std with
:math:`\varepsilon = 10^{-6}` added to it, token embedding times :math:`\sqrt D`, learned
positions, no biases, LN gain 1 / bias 0, sigmoid output read at :math:`\ge 1/2` at the end
token, MLP width :math:`2D`, one head, every weight (embeddings, positions, attention, MLP,
readout) :math:`U(-10, 10)`, float32. Its options, each a public command-line choice: sinusoidal
positions (``-pos_encode absolute``), layer biases drawn like the weights (``bias=True`` of the
init methods), and the four public init methods (:data:`numeric.vocabulary.BHATTAMISHRA_INIT_SCHEMES`,
table in :mod:`numeric.transformer._init`); under the preset's conventions boolverify's ``uniform`` draws what
``bhattamishra_uniform`` draws.

**Blowup** (claim SG-3). For each LN application and position :math:`n`,
:math:`z_n = 1/\sqrt{\operatorname{var}(u_n) + \varepsilon}`; per application
:math:`\tau = \max_n (1 + z_n)`; :math:`\beta^L = \prod \tau` over all :math:`L' = 2L`
applications, per input. For :math:`\varepsilon > 0`, :math:`z \le 1/\sqrt\varepsilon`
and :math:`\beta^L \le (1 + 1/\sqrt\varepsilon)^{2L}` (claim SG-3).

Shortcut: without ``return_blowup`` the last layer computes only what ``T`` reads (the
``eos`` query and the ``eos`` MLP row); the keys and values still use every position. The
result is identical; the blowup needs every position and so runs the full last layer.
A zero variance at a position that cannot influence ``T`` is then not detected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch import nn

from numeric import vocabulary
from numeric.validation import InputError, check_bool, check_choice, check_entry, check_int, check_real, check_seed, reject
from numeric.transformer._init import draw_parameters_, init_scheme
from numeric.vocabulary import (
    BIAS_INITS, EMBEDDING_SCALES, LN_AFFINE_INITS, LN_EPS_PLACEMENTS,
    LN_VARIANCES, MODEL_DTYPES, NORM_POSITIONS, POSITION_ENCODINGS, PRESETS as PRESET_NAMES, READOUTS,
)
from numeric.vocabulary import INIT_SCHEMES as SCHEMES

EOS = 2
_LN_NAMES = ("attention", "MLP", "final")
_DTYPES = {"float64": torch.float64, "float32": torch.float32}

#: The convention options of :class:`TransformerConfig` and their allowed values.
CONVENTIONS = {
    "norm": NORM_POSITIONS, "final_ln": (False, True), "ln_variance": LN_VARIANCES,
    "ln_eps": LN_EPS_PLACEMENTS, "embedding_scale": EMBEDDING_SCALES, "biases": BIAS_INITS,
    "ln_affine": LN_AFFINE_INITS, "readout": READOUTS, "dtype": MODEL_DTYPES, "positions": POSITION_ENCODINGS,
}

#: Period of the sinusoidal positions: the public code builds ``PositionalEncoding(d_model,
#: dropout, 1000.0)`` (its class default, 10000, is not what runs).
SINUSOID_PERIOD = 1000.0

#: Each preset: its conventions, and the defaults it gives the shape (``H``, MLP width ``F`` as a
#: multiple of ``D``, ``eps``) and the initialisation (``init`` scheme, box half-width ``B``).
PRESET_SPECS = {
    "boolverify": {
        "conventions": dict(norm="post", final_ln=False, ln_variance="biased", ln_eps="inside_sqrt",
                            embedding_scale="one", biases="scheme", ln_affine="scheme", readout="linear",
                            dtype="float64", positions="learned"),
        "H": 2, "F_per_D": 4, "eps": 0.0, "init": "uniform", "B": 1.0,
    },
    # RandFLTAtt/rand_sensi.py and src/components/sanplay.py of satwik77/Transformer-Simplicity:
    # init_weights(weight_init=10) draws the token embedding, the learned positions, the readout
    # weight and every transformer weight from U(-10, 10) and zeroes the transformer biases; the
    # layer norms' parameters are named a_2/b_2, so they keep gain 1 and bias 0; the readout
    # Linear has no bias; d_ffn = 2 d_model; one head by default; torch's float32 default.
    "bhattamishra": {
        "conventions": dict(norm="pre", final_ln=True, ln_variance="unbiased", ln_eps="added_to_std",
                            embedding_scale="sqrt_D", biases="zero", ln_affine="identity",
                            readout="sigmoid", dtype="float32", positions="learned"),
        "H": 1, "F_per_D": 2, "eps": 1e-6, "init": "uniform", "B": 10.0,
    },
}


@dataclass(frozen=True)
class TransformerConfig:
    """Shape of the transformer (as formalised in boolverify).

    Args:
        D: model width (``D % H == 0``).
        L: number of post-LN layers (``L >= 1``); the number of LN applications is ``2L``.
        H: number of attention heads.
        F: MLP width (``None``: ``4 * D``).
        eps: layer-norm :math:`\\varepsilon \\ge 0`; ``0`` is allowed.
        N_max: longest input (the positional table has ``N_max + 1`` rows, for ``eos``).
        norm, final_ln, ln_variance, ln_eps, embedding_scale, biases, ln_affine, readout, dtype, positions:
            the conventions (module docstring; allowed values in :data:`CONVENTIONS`); the
            defaults are the ``boolverify`` preset. :func:`preset_config` builds a preset.
    """

    D: int = 32
    L: int = 2
    H: int = 2
    F: int | None = None
    eps: float = 0.0
    N_max: int = 64
    norm: str = "post"
    final_ln: bool = False
    ln_variance: str = "biased"
    ln_eps: str = "inside_sqrt"
    embedding_scale: str = "one"
    biases: str = "scheme"
    ln_affine: str = "scheme"
    readout: str = "linear"
    dtype: str = "float64"
    positions: str = "learned"

    def __post_init__(self):
        check_bool(self.final_ln, "final_ln")
        for name, allowed in CONVENTIONS.items():
            if name != "final_ln":
                check_choice(getattr(self, name), name, allowed)
        for name in ("D", "L", "H", "N_max"):
            object.__setattr__(self, name, check_int(getattr(self, name), name, lo=1))
        if self.D < 2:
            reject("D", self.D, "an integer >= 2 (layer norm of a 1-d vector has zero variance)")
        if self.F is None:
            object.__setattr__(self, "F", 4 * self.D)
        object.__setattr__(self, "F", check_int(self.F, "F", lo=1))
        if self.D % self.H:
            reject("H", self.H, f"a divisor of D (D = {self.D} is not divisible by H = "
                   f"{self.H}; the head width D/H must be an integer)")
        object.__setattr__(self, "eps", check_real(self.eps, "eps", lo=0))

    @property
    def n_ln(self) -> int:
        """Number of layer-norm applications :math:`L' = 2L` (plus one with ``final_ln``)."""
        return 2 * self.L + int(self.final_ln)

    @property
    def n_params(self) -> int:
        """Number of real parameters :math:`M` (embeddings, layers, final LN, readout); biases
        and LN parameters that a convention fixes are still counted; sinusoidal positions are not
        parameters."""
        D, F = self.D, self.F
        layer = 4 * (D * D + D) + (D * F + F) + (F * D + D) + 4 * D
        positions = (self.N_max + 1) * D if self.positions == "learned" else 0
        return 3 * D + positions + self.L * layer + 2 * D * int(self.final_ln) + D + 1

    @property
    def conventions(self) -> dict:
        """The convention options, ``{name: value}`` (keys of :data:`CONVENTIONS`)."""
        return {name: getattr(self, name) for name in CONVENTIONS}

    @property
    def preset(self) -> str | None:
        """The name of the preset whose conventions these are, or ``None``."""
        conv = self.conventions
        return next((name for name, p in PRESET_SPECS.items() if p["conventions"] == conv), None)

    @property
    def torch_dtype(self) -> torch.dtype:
        return _DTYPES[self.dtype]


def preset_config(name: str, *, D: int = 32, L: int = 2, H: int | None = None, F: int | None = None,
                  eps: float | None = None, N_max: int = 64, **conventions) -> TransformerConfig:
    """The :class:`TransformerConfig` of preset ``name`` (one of :data:`PRESET_SPECS`) at width ``D``
    and depth ``L``; ``H``, ``F``, ``eps`` default to the preset's (``F = F_per_D * D``) and any
    convention can be overridden by keyword."""
    check_choice(name, "preset", PRESET_NAMES)
    p = PRESET_SPECS[name]
    D = check_int(D, "D", lo=2)
    for key in conventions:
        check_choice(key, "convention", tuple(CONVENTIONS))
    return TransformerConfig(D=D, L=L, H=p["H"] if H is None else H, F=p["F_per_D"] * D if F is None else F,
                             eps=p["eps"] if eps is None else eps, N_max=N_max,
                             **{**p["conventions"], **conventions})


def preset_init(name: str) -> dict:
    """The initialisation of preset ``name``: ``{"scheme": ..., "B": ...}`` (for :func:`initialize_`)."""
    check_choice(name, "preset", PRESET_NAMES)
    return {"scheme": PRESET_SPECS[name]["init"], "B": PRESET_SPECS[name]["B"]}


@dataclass(frozen=True)
class ReadoutRule:
    """How one readout of :data:`numeric.vocabulary.READOUTS` turns real outputs into bits.

    Attributes:
        name: the readout's name.
        bits: ``bits(T)``: a bool tensor of ``T``'s shape.
        stringwise: whether each string's bit depends on its own output alone (then a sample of
            strings can be read); ``False`` for a rule that compares with all outputs given.
    """

    name: str
    bits: Callable
    stringwise: bool


#: The readouts, keyed by the names of :data:`numeric.vocabulary.READOUTS`.
READOUT_RULES = {
    "linear": ReadoutRule("linear", lambda T: T > 0, True),
    "sigmoid": ReadoutRule("sigmoid", lambda T: torch.sigmoid(T) >= 0.5, True),
    "median": ReadoutRule("median", lambda T: T > T.reshape(-1).median(), False),
}


def readout_rule(readout) -> ReadoutRule:
    """The :class:`ReadoutRule` named ``readout``; :class:`InputError` for a name outside
    :data:`numeric.vocabulary.READOUTS` or one without a rule (never a fallback to another)."""
    return check_entry(readout, "readout", READOUT_RULES, vocabulary.READOUTS, "the readouts with a rule")


def readout_table(T: torch.Tensor, readout: str = "linear") -> torch.Tensor:
    r"""The Boolean outputs (int64 0/1) of real outputs ``T`` (any shape) under ``readout``:

    - ``linear``: :math:`1[T > 0]`;
    - ``sigmoid``: :math:`1[\sigma(T) \ge 1/2]`, computed in ``T``'s dtype as the public
      experiment does (the same as ``linear`` except where :math:`\sigma` rounds to exactly
      1/2, i.e. :math:`T = 0` or :math:`|T|` below the dtype's resolution there);
    - ``median``: :math:`1[T > m]`, :math:`m` the (lower) median of ``T`` over **all** entries
      given, i.e. over the evaluated strings: pass every string of :math:`\{0,1\}^N` at once,
      as the all-strings evaluation does. With distinct outputs exactly half of the
      :math:`2^N` strings read 1; ties at :math:`m` read 0.
    """
    rule = readout_rule(readout)
    if not isinstance(T, torch.Tensor) or T.numel() == 0:
        reject("T", f"<{type(T).__name__}>", "a non-empty tensor of outputs")
    return rule.bits(T).to(torch.int64)


class _LayerNorm(nn.Module):
    def __init__(self, D, dtype=torch.float64):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(D, dtype=dtype))
        self.bias = nn.Parameter(torch.zeros(D, dtype=dtype))


class _Layer(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        D, F = cfg.D, cfg.F
        kw = dict(dtype=cfg.torch_dtype)
        self.q = nn.Linear(D, D, **kw)
        self.k = nn.Linear(D, D, **kw)
        self.v = nn.Linear(D, D, **kw)
        self.o = nn.Linear(D, D, **kw)
        self.ln1 = _LayerNorm(D, cfg.torch_dtype)
        self.fc1 = nn.Linear(D, F, **kw)
        self.fc2 = nn.Linear(F, D, **kw)
        self.ln2 = _LayerNorm(D, cfg.torch_dtype)


class BooleanTransformer(nn.Module):
    """The paper-B transformer (see the module docstring), float64 unless the config says
    ``dtype="float32"``.

    Call ``model(x)`` with ``x`` a ``(..., N)`` tensor of 0/1 (``1 <= N <= N_max``) to get
    ``T(x)`` of shape ``(...)``; ``model(x, return_blowup=True)`` gives ``(T, beta)``.
    ``model.readout(T)`` turns outputs into bits by the config's readout (:func:`readout_table`).
    Parameters start at the Xavier-uniform scheme; use :func:`initialize_` to choose.
    """

    def __init__(self, config: TransformerConfig | None = None):
        super().__init__()
        if config is None:
            config = TransformerConfig()
        if not isinstance(config, TransformerConfig):
            reject("config", f"<{type(config).__name__}>", "a TransformerConfig")
        self.config = config
        D = config.D
        dt = config.torch_dtype
        from numeric.validation import check_allocation

        # the parameters (and a fixed positional table) are allocated below: refused first if
        # they cannot fit, rather than failing inside torch or swapping
        check_allocation((config.n_params + (config.N_max + 1) * D) * torch.empty((), dtype=dt).element_size(),
                         "config", f"<TransformerConfig with D = {D}, L = {config.L}, F = {config.F}, N_max = "
                         f"{config.N_max}>", f"{config.n_params} parameters")
        self.tok = nn.Parameter(torch.zeros(3, D, dtype=dt))
        if config.positions == "learned":
            self.pos = nn.Parameter(torch.zeros(config.N_max + 1, D, dtype=dt))
        else:
            # fixed, so no init scheme draws it; outside the state dict, so a loaded state dict
            # cannot replace the formula
            self.register_buffer("pos", sinusoidal_positions(config.N_max + 1, D, dt), persistent=False)
        self.layers = nn.ModuleList(_Layer(config) for _ in range(config.L))
        # registered only when used, so that the default model's parameters (and the order in
        # which an init scheme draws them) are unchanged
        if config.final_ln:
            self.ln_f = _LayerNorm(D, dt)
        self.out = nn.Linear(D, 1, dtype=dt)
        initialize_(self, "xavier_uniform", generator=torch.Generator().manual_seed(0))

    def readout(self, T: torch.Tensor) -> torch.Tensor:
        """Bits (int64 0/1) of outputs ``T`` by this model's readout; for ``median`` pass the
        outputs of every evaluated string at once (:func:`readout_table`)."""
        # The all-strings evaluation stores T in float64; a float32 model's outputs convert back
        # exactly, so the sigmoid rounds (to exactly 1/2 near T = 0) as in the model's own dtype.
        return readout_table(T.to(self.config.torch_dtype), self.config.readout)

    # -- input -------------------------------------------------------------------------
    def _check_input(self, x):
        if not isinstance(x, torch.Tensor):
            x = torch.as_tensor(x)
        if x.dim() < 1:
            reject("x", f"<{x.dim()}-d tensor>", "shape (..., N) with N >= 1")
        N = x.shape[-1]
        if N < 1 or N > self.config.N_max:
            reject("x", f"<tensor of shape {tuple(x.shape)}>",
                   f"length 1 <= N <= N_max = {self.config.N_max}")
        if x.is_floating_point() and not torch.isfinite(x).all():
            reject("x", "<tensor with NaN or inf>", "bits 0/1")
        if ((x != 0) & (x != 1)).any():
            reject("x", "<tensor with entries other than 0, 1>", "only the bits 0 and 1")
        return x.to(device=self.tok.device, dtype=torch.long)

    # -- pieces ------------------------------------------------------------------------
    def layer_norm(self, ln, u, layer, which, labels, record, offset, n_total):
        r"""Layer norm of ``u`` (..., n, D) holding positions ``offset, offset+1, ...`` of
        ``n_total``; returns (LN(u), z) with :math:`z = 1/\sqrt{\operatorname{var} u + \varepsilon}`
        (``ln_eps="added_to_std"``: :math:`z = 1/(\sqrt{\operatorname{var} u} + \varepsilon)`)."""
        cfg = self.config
        mean = u.mean(-1, keepdim=True)
        c = u - mean
        if cfg.ln_variance == "biased":
            var = (c * c).mean(-1)
        else:
            var = (c * c).sum(-1) / (u.shape[-1] - 1)
        eps = cfg.eps
        if eps == 0.0:
            # zero variance = all components equal (the mean's rounding can leave var > 0)
            flat = (u == u[..., :1]).all(-1) | (var == 0)
            if flat.any():
                self._zero_var_error(flat, layer, which, labels, offset, n_total)
        if cfg.ln_eps == "inside_sqrt":
            z = torch.rsqrt(var + eps)
        else:
            z = 1.0 / (var.sqrt() + eps)
        y = ln.gain * (c * z.unsqueeze(-1)) + ln.bias
        return y, (z if record else None)

    @staticmethod
    def _zero_var_error(flat, layer, which, labels, offset, n_total):
        b, pos = flat.reshape(-1, flat.shape[-1]).nonzero()[0].tolist()
        pos += offset
        where = "eos" if pos == n_total - 1 else "bit"
        if labels is not None:
            inp = f"string index {int(labels.reshape(-1)[b])}"
        else:
            inp = f"batch element {b}"
        where_ln = ("the final layer norm" if which == 2
                    else f"layer {layer + 1}, {_LN_NAMES[which]} layer norm")
        raise InputError(
            f"zero variance in {where_ln}, position {pos} "
            f"({where}), {inp}, with eps = 0: LN is undefined there; use eps > 0 or other parameters"
        )

    def _attention(self, lay, q, k, v):
        """MHA from projected queries ``q`` (..., m, D) and keys/values ``k, v`` (..., n, D)."""
        H = self.config.H
        dh = self.config.D // H

        def split(t):
            return t.unflatten(-1, (H, dh)).transpose(-3, -2)  # (..., H, len, dh)

        scores = (split(q) @ split(k).transpose(-1, -2)) * (1.0 / math.sqrt(dh))
        a = _softmax(scores)
        o = (a @ split(v)).transpose(-3, -2).flatten(-2)
        return lay.o(o)

    # -- forward -----------------------------------------------------------------------
    def run(self, x, full: bool, record: bool, labels=None):
        r"""The forward pass behind :meth:`forward` and the all-strings evaluation:
        ``(T, zs)`` for ``x`` ``(..., N)``. ``full``: the last layer at every position (else at
        eos only); ``record``: ``zs`` holds the :math:`z` of each layer norm (else Nones);
        ``labels``: the string index of each row of ``x``, named in a zero-variance error.
        :meth:`run_bits` skips the checks of ``x``: for bits made by the caller (int64 0/1 on the
        model's device), and under ``torch.func.vmap``, which cannot run them."""
        return self.run_bits(self._check_input(x), full, record, labels)

    def run_bits(self, x, full: bool, record: bool, labels=None):
        cfg = self.config
        N = x.shape[-1]
        eos = torch.full(x.shape[:-1] + (1,), EOS, dtype=torch.long, device=x.device)
        t = torch.cat([x, eos], dim=-1)
        flat = t + 3 * torch.arange(N + 1, device=x.device)
        tok = self.tok if cfg.embedding_scale == "one" else self.tok * math.sqrt(cfg.D)
        table = (tok.unsqueeze(0) + self.pos[: N + 1].unsqueeze(1)).reshape(3 * (N + 1), -1)
        if cfg.norm == "post":
            h, zs, off = self._post_ln_layers(table, flat, N, full, record, labels)
        else:
            h, zs, off = self._pre_ln_layers(table, flat, N, full, record, labels)
        if cfg.final_ln:
            h, z = self.layer_norm(self.ln_f, h, cfg.L - 1, 2, labels, record, off, N + 1)
            zs.append(z)
        T = self.out(h[..., -1, :]).squeeze(-1)
        return T, zs

    def _post_ln_layers(self, table, flat, N, full, record, labels):
        # Layer-1 inputs take only 3 values per position (token 0, 1, eos): embed and project the
        # (N+1) x 3 table once, then gather (saves layer 1's three D x D products per string).
        lay0 = self.layers[0]
        qkv_table = torch.cat([lay0.q(table), lay0.k(table), lay0.v(table)], dim=-1)
        # index_select on the flattened index is ~8x faster than advanced indexing on CPU
        h = table.index_select(0, flat.reshape(-1)).unflatten(0, flat.shape)
        zs = []
        L = self.config.L
        D = self.config.D
        off = 0
        for ell, lay in enumerate(self.layers):
            last_short = (ell == L - 1) and not full
            hq = h[..., -1:, :] if last_short else h
            if ell == 0:
                qkv = qkv_table.index_select(0, flat.reshape(-1)).unflatten(0, flat.shape)
                q, k, v = qkv[..., :D], qkv[..., D : 2 * D], qkv[..., 2 * D :]
                if last_short:
                    q = q[..., -1:, :]
            else:
                q, k, v = lay.q(hq), lay.k(h), lay.v(h)
            u = hq + self._attention(lay, q, k, v)
            off = N if last_short else 0
            h1, z = self.layer_norm(lay.ln1, u, ell, 0, labels, record, off, N + 1)
            zs.append(z)
            u = h1 + lay.fc2(torch.relu(lay.fc1(h1)))
            h, z = self.layer_norm(lay.ln2, u, ell, 1, labels, record, off, N + 1)
            zs.append(z)
        return h, zs, off

    def _pre_ln_layers(self, table, flat, N, full, record, labels):
        # h <- h + MHA(LN(h)), h <- h + MLP(LN(h)). The keys and values of the last layer need
        # the normalised input at every position; its query, residual and MLP only at eos.
        h = table.index_select(0, flat.reshape(-1)).unflatten(0, flat.shape)
        zs = []
        L = self.config.L
        off = 0
        for ell, lay in enumerate(self.layers):
            last_short = (ell == L - 1) and not full
            a, z = self.layer_norm(lay.ln1, h, ell, 0, labels, record, 0, N + 1)
            zs.append(z)
            aq, hq = (a[..., -1:, :], h[..., -1:, :]) if last_short else (a, h)
            h1 = hq + self._attention(lay, lay.q(aq), lay.k(a), lay.v(a))
            off = N if last_short else 0
            m, z = self.layer_norm(lay.ln2, h1, ell, 1, labels, record, off, N + 1)
            zs.append(z)
            h = h1 + lay.fc2(torch.relu(lay.fc1(m)))
        return h, zs, off

    def forward(self, x, return_blowup: bool = False):
        r"""``T(x)`` for ``x`` of shape ``(..., N)``; with ``return_blowup`` also
        :math:`\beta^L(x) = \prod_{\text{LN}} \max_n (1 + z_n)`, shape ``(...)``."""
        if not return_blowup:
            return self.run(x, full=False, record=False)[0]
        T, zs = self.run(x, full=True, record=True)
        beta = torch.stack([(1 + z).amax(-1) for z in zs], dim=-1).prod(-1)
        return T, beta

    def blowup(self, x):
        r"""Per-input blowup detail for ``x`` of shape ``(..., N)``.

        Returns:
            dict with ``T`` (...), ``z`` (..., L', N+1) (LN applications in order attention-LN,
            MLP-LN of layer 1, then layer 2, ..., then the final LN if any; :math:`z = 1/(\sqrt{
            \operatorname{var}} + \varepsilon)` under ``ln_eps="added_to_std"``), ``tau`` (..., L')
            :math:`\tau = \max_n (1 + z_n)` and ``beta`` (...) :math:`= \prod \tau`."""
        T, zs = self.run(x, full=True, record=True)
        z = torch.stack(zs, dim=-2)
        tau = (1 + z).amax(-1)
        return {"T": T, "z": z, "tau": tau, "beta": tau.prod(-1)}


def sinusoidal_positions(rows: int, D: int, dtype=torch.float64) -> torch.Tensor:
    r"""The public code's sinusoidal positions (``PositionalEncoding`` with period
    :data:`SINUSOID_PERIOD` = 1000), rows ``0 .. rows - 1``: for position :math:`p` and column
    :math:`j`, with :math:`\omega_i = \exp(-2i \ln(1000) / D)`,

    .. math:: P_{p, 2i} = \sin(p\,\omega_i), \qquad P_{p, 2i+1} = \cos(p\,\omega_i),

    i.e. :math:`\sin(p / 1000^{2i/D})`; an odd ``D`` has one sine more than cosines. Computed in
    ``dtype`` by the public code's sequence of operations, so float32 gives its table."""
    rows = check_int(rows, "rows", lo=1)
    D = check_int(D, "D", lo=1)
    position = torch.arange(0, rows, dtype=dtype).unsqueeze(1)
    omega = torch.exp(torch.arange(0, D, 2, dtype=dtype) * (-math.log(SINUSOID_PERIOD) / D))
    table = torch.zeros(rows, D, dtype=dtype)
    table[:, 0::2] = torch.sin(position * omega)
    table[:, 1::2] = torch.cos(position * omega[: D // 2])
    return table


def _softmax(s):
    r"""Softmax over the last axis in max-subtracted (log-sum-exp) form, :math:`e^{s_j - \max s} /
    \sum_k e^{s_k - \max s}`: finite for any finite logits (twice as fast as ``torch.softmax`` in
    float64 for short rows on CPU); out of place whenever autograd may record (torch.func's wrapped
    tensors read ``requires_grad`` False)."""
    e = s - s.amax(-1, keepdim=True)
    if torch.is_grad_enabled():
        e = e.exp()
        return e / e.sum(-1, keepdim=True)
    e.exp_()
    return e.div_(e.sum(-1, keepdim=True))


def check_transformer(model):
    """``model`` must be a :class:`BooleanTransformer`."""
    if not isinstance(model, BooleanTransformer):
        reject("model", f"<{type(model).__name__}>", "a BooleanTransformer")
    return model


@torch.no_grad()
def initialize_(model: BooleanTransformer, scheme: str, *, generator=None, B: float | None = None,
                sigma: float | None = None, input_scale: float | None = None):
    r"""Re-initialise ``model`` in place by the init scheme ``scheme``: one of boolverify's four
    (:data:`numeric.vocabulary.INIT_SCHEMES`) or one of the four public initialisations of
    Bhattamishra et al. (:data:`numeric.vocabulary.BHATTAMISHRA_INIT_SCHEMES`); what each draws,
    per parameter group, is in :mod:`numeric.transformer._init` (its registry
    ``INIT_SCHEME_REGISTRY``).

    The config's ``biases="zero"`` sets every bias (readout included) to 0,
    ``biases="scheme_except_readout"`` the readout bias only, and ``ln_affine="identity"`` every
    LN gain to 1 and bias to 0, under any scheme (those are then not drawn, so the other
    parameters' draws shift). The public initialisations require LN gain 1 and bias 0 and no
    readout bias (:func:`check_init_scheme`).

    Args:
        model: a :class:`BooleanTransformer`.
        scheme: one of :data:`numeric.vocabulary.ALL_INIT_SCHEMES`.
        generator: a CPU ``torch.Generator`` (reproducible draws on every device).
        B, sigma, input_scale: the scheme's options, ``None`` for the scheme's default (1); an
            option the scheme does not use is refused. B: half-width of the box (``uniform``,
            ``bhattamishra_uniform``). sigma: standard deviation (``gaussian``; the layer weights
            of ``bhattamishra_gaussian``). input_scale: token-embedding std and position
            half-width of ``bhattamishra_gaussian``.

    Returns:
        ``model``.
    """
    check_transformer(model)
    entry = init_scheme(scheme)  # the one lookup of the name; the entry travels down
    entry.check_config(model.config)
    options = entry.draw_options({"B": B, "sigma": sigma, "input_scale": input_scale})
    if generator is None:
        generator = torch.Generator()
    return draw_parameters_(model, entry, generator, options)


def random_model(config: TransformerConfig | None, scheme: str, seed: int, *, device=None, **kw) -> BooleanTransformer:
    """A :class:`BooleanTransformer` initialised by ``scheme`` from ``torch.Generator`` seed
    ``seed`` (keywords ``B``, ``sigma``, ``input_scale`` go to :func:`initialize_`), on ``device``."""
    seed = check_seed(seed, "seed")
    model = BooleanTransformer(config)
    initialize_(model, scheme, generator=torch.Generator().manual_seed(seed), **kw)
    if device is not None:
        model = model.to(device)
    return model
