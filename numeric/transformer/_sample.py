r"""Sampled sensitivities of a :class:`~numeric.transformer.BooleanTransformer` at lengths where
the :math:`2^N` strings of :mod:`numeric.transformer` are out of reach (up to ``N_max``,
e.g. 1024).

For each of ``S`` uniformly random strings :math:`x` the model is evaluated at :math:`x` and at
its :math:`N` one-bit neighbours :math:`x \oplus e_n` (:math:`N + 1` forward passes per string,
batched across strings), and :math:`s(x, f) = \#\{n : f(x \oplus e_n) \ne f(x)\}` is counted,
with :math:`f = 1[T > 0]`. The strings are i.i.d., so :math:`\#\{i : s(x_i) = k\}` is a
binomial count of :math:`K_k / 2^N`; the intervals are drawn by :mod:`verify`.

Models of the default conventions go through the table-driven pass of
:mod:`numeric.transformer` (layer-1 tables, no keys or values in the last layer, buffers
reused); any other configuration or preset through the model's own forward pass.
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from numeric.transformer._eval import fast_evaluator
from numeric.transformer._model import READOUT_RULES, check_transformer, readout_rule, readout_table
from numeric.validation import check_int, reject

#: Token positions per forward pass on CPU. At N = 256 one string with its neighbours is
#: 257 x 257 positions; passes of ~2k positions keep the layer temporaries in cache (measured
#: in bench/transformer.py: larger passes are slower on CPU).
DEFAULT_TOKENS = 1 << 11
#: On CUDA the passes are launch-bound: many more positions per pass.
DEFAULT_TOKENS_CUDA = 1 << 21


class SampledSensitivity(NamedTuple):
    """Result of :func:`sampled_sensitivities`.

    Attributes:
        x: the sampled strings, uint8 ``(S, N)`` (CPU).
        f: :math:`f(x_i)`, bool ``(S,)`` (CPU).
        s: the sensitivities :math:`s(x_i, f)`, int64 ``(S,)`` (CPU).
    """

    x: torch.Tensor
    f: torch.Tensor
    s: torch.Tensor

    @property
    def profile(self) -> torch.Tensor:
        r"""Sampled profile: int64 ``(N+1,)``, entry :math:`k` = number of sampled strings with
        sensitivity :math:`k` (a binomial count of :math:`K_k / 2^N` out of ``S``)."""
        return torch.bincount(self.s, minlength=self.x.shape[1] + 1)

    @property
    def constant_on_sample(self) -> bool:
        """Every one of the :math:`S(N+1)` evaluations gave the same value."""
        return bool((self.s == 0).all()) and bool((self.f == self.f[0]).all())


def check_sample_length(model, N) -> int:
    """``1 <= N <= N_max`` of the model (the positional table bounds the length)."""
    N = check_int(N, "N", lo=1)
    if N > model.config.N_max:
        reject("N", N, f"an integer <= N_max = {model.config.N_max} of the model (build the "
               "TransformerConfig with N_max >= N)")
    return N


def sample_strings(N: int, S: int, generator: torch.Generator) -> torch.Tensor:
    """``S`` i.i.d. uniform strings of length ``N`` from a CPU ``generator``: uint8 ``(S, N)``."""
    N = check_int(N, "N", lo=1)
    S = check_int(S, "S", lo=1)
    if not isinstance(generator, torch.Generator):
        reject("generator", f"<{type(generator).__name__}>", "a torch.Generator")
    return torch.randint(0, 2, (S, N), generator=generator, dtype=torch.uint8)


def _readout(model):
    """The model's readout name; a string-by-string one is needed (``median`` compares with all
    :math:`2^N` outputs, which a sample does not have)."""
    readout = model.config.readout
    if not readout_rule(readout).stringwise:
        stringwise = " or ".join(n for n, r in READOUT_RULES.items() if r.stringwise)
        reject("model", f"<readout {readout!r}>", "a model whose readout is decided string by "
               f"string ({stringwise}): the {readout} readout needs all 2^N outputs")
    return readout


@torch.no_grad()
def _signs(model, x, rows, readout, fast=None):
    """Bits f of the strings ``x`` (``(n, N)``, on the model's device), ``rows`` at a time, by
    the (string-by-string) ``readout`` of the outputs in the model's dtype.
    ``fast``: the table-driven pass of :func:`numeric.transformer._eval.fast_evaluator` (same
    Boolean values; a pass it declines goes through the model's own forward)."""
    out = torch.empty(x.shape[0], dtype=torch.bool, device=x.device)
    for a in range(0, x.shape[0], rows):
        T = fast.run_bits(x[a : a + rows]) if fast is not None else None
        if T is None:
            T = model(x[a : a + rows])
        out[a : a + rows] = readout_table(T, readout)
    return out


@torch.no_grad()
def neighbour_sensitivities(model, x: torch.Tensor, *, tokens: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    r"""``(f, s)`` for given strings ``x`` (0/1, shape ``(S, N)``): :math:`f(x_i)` (bool) and
    :math:`s(x_i, f)` (int64), from :math:`S(N+1)` forward passes of ``tokens`` positions at a
    time (``None``: :data:`DEFAULT_TOKENS` on CPU, :data:`DEFAULT_TOKENS_CUDA` on CUDA). Both
    on the model's device."""
    check_transformer(model)
    readout = _readout(model)
    if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.shape[0] < 1:
        reject("x", f"<{type(x).__name__}>", "a (S, N) tensor of bits with S >= 1")
    N = check_sample_length(model, x.shape[1])
    if ((x != 0) & (x != 1)).any():
        reject("x", "<tensor with entries other than 0, 1>", "only the bits 0 and 1")
    dev = model.tok.device
    if tokens is None:
        tokens = DEFAULT_TOKENS if dev.type == "cpu" else DEFAULT_TOKENS_CUDA
    tokens = check_int(tokens, "tokens", lo=1)
    rows = max(1, tokens // (N + 1))  # sequences per forward pass
    x = x.to(device=dev, dtype=torch.uint8)
    S = x.shape[0]
    fast = fast_evaluator(model, N, rows)
    f = _signs(model, x, rows, readout, fast)
    s = torch.empty(S, dtype=torch.int64, device=dev)
    # strings per block: the N neighbours of a block are evaluated in passes of `rows`
    block = max(1, rows // N)
    diag = torch.arange(N, device=dev)
    for a in range(0, S, block):
        xb = x[a : a + block]
        b = xb.shape[0]
        nb = xb.unsqueeze(1).repeat(1, N, 1)  # (b, N, N): row n is x with bit n flipped
        nb[:, diag, diag] ^= 1
        fn = _signs(model, nb.reshape(b * N, N), rows, readout, fast).reshape(b, N)
        s[a : a + b] = (fn != f[a : a + b].unsqueeze(1)).sum(1)
    return f, s


def sampled_sensitivities(model, N: int, S: int, *, generator: torch.Generator | None = None,
                          tokens: int | None = None) -> SampledSensitivity:
    r"""Sensitivities of ``S`` i.i.d. uniform strings of length ``N`` (``N <= N_max``).

    Args:
        model: a :class:`~numeric.transformer.BooleanTransformer` (any device).
        N: string length; S: number of strings.
        generator: CPU ``torch.Generator`` for the strings (``None``: a fresh seed-0 one), so a
            run is reproducible on every device.
        tokens: positions per forward pass (see :func:`neighbour_sensitivities`).

    Returns:
        :class:`SampledSensitivity` (on the CPU).
    """
    check_transformer(model)
    N = check_sample_length(model, N)
    S = check_int(S, "S", lo=1)
    if generator is None:
        generator = torch.Generator().manual_seed(0)
    x = sample_strings(N, S, generator)
    f, s = neighbour_sensitivities(model, x, tokens=tokens)
    return SampledSensitivity(x, f.cpu(), s.cpu())
