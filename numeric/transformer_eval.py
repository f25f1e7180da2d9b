r"""Evaluation of a :class:`~numeric.transformer.BooleanTransformer` over all :math:`2^N`
strings (as formalised in boolverify): real outputs, Boolean table, margin-:math:`\xi`
recognition, sensitivity profile, blowup, single-bit influence.

Cost model. The profile needs :math:`f(x)` and :math:`f(x \oplus e_n)` for every :math:`x`
and :math:`n`. Every flip :math:`x \oplus e_n` is itself one of the :math:`2^N` strings, so
one batched forward pass per string (:math:`2^N` model evaluations) and then table lookups
give the whole profile, against :math:`(N+1)\,2^N` evaluations when each flip is evaluated
separately: a factor :math:`N+1` fewer (measured in ``bench/``).
"""

from __future__ import annotations

import torch

from numeric.transformer_model import BooleanTransformer, check_transformer
from numeric.validation import check_int, check_real, reject

#: Largest N whose 2^N strings are enumerated (2^24 ~ 1.7e7 forward passes).
ENUM_LIMIT = 24
#: Strings per batched forward pass. Cache-sized: on CPU (D = 32, N = 14) 256 strings per
#: pass run about 2x faster than 4096 (large temporaries fall out of cache and are
#: re-mapped by the allocator on every pass).
DEFAULT_CHUNK = 256
#: On CUDA the passes are launch-bound instead: many more strings per pass.
DEFAULT_CHUNK_CUDA = 1 << 16


def check_length(model, N, limit=ENUM_LIMIT) -> int:
    """A string length ``1 <= N`` within the enumeration limit and the model's ``N_max``."""
    N = check_int(N, "N", lo=1)
    if N > limit:
        reject("N", N, f"an integer <= {limit}, the enumeration limit (2^N strings are evaluated)")
    if N > model.config.N_max:
        reject("N", N, f"an integer <= N_max = {model.config.N_max} of the model")
    return N


def strings(idx: torch.Tensor, N: int) -> torch.Tensor:
    r"""Bit matrix of the string indices ``idx``: bit :math:`n` of :math:`x = \sum_n b_n 2^n`."""
    return (idx.unsqueeze(-1) >> torch.arange(N, device=idx.device)) & 1


@torch.no_grad()
def _evaluate(model, N, chunk, blowup):
    dev = model.tok.device
    if chunk is None:
        chunk = DEFAULT_CHUNK if dev.type == "cpu" else DEFAULT_CHUNK_CUDA
    total = 1 << N
    T = torch.empty(total, dtype=torch.float64, device=dev)
    beta = torch.empty(total, dtype=torch.float64, device=dev) if blowup else None
    for start in range(0, total, chunk):
        idx = torch.arange(start, min(start + chunk, total), device=dev)
        x = strings(idx, N)
        Tc, zs = model._run(x, full=blowup, record=blowup, labels=idx)
        T[start : start + len(idx)] = Tc
        if blowup:
            beta[start : start + len(idx)] = torch.stack([(1 + z).amax(-1) for z in zs], -1).prod(-1)
    return T, beta


def evaluate_all(model: BooleanTransformer, N: int, *, chunk: int | None = None) -> torch.Tensor:
    r""":math:`T(x)` for all :math:`x \in \{0,1\}^N` in string-index order, by batched
    forward passes of ``chunk`` strings (``None``: ``DEFAULT_CHUNK`` on CPU,
    ``DEFAULT_CHUNK_CUDA`` on CUDA).

    Returns:
        float64 tensor of shape ``(2**N,)`` on the model's device.
    """
    check_transformer(model)
    N = check_length(model, N)
    chunk = None if chunk is None else check_int(chunk, "chunk", lo=1)
    return _evaluate(model, N, chunk, blowup=False)[0]


def evaluate_all_blowup(model: BooleanTransformer, N: int, *, chunk: int | None = None):
    r"""``(T, beta)`` for all :math:`2^N` strings: outputs and blowup :math:`\beta^L(x)`."""
    check_transformer(model)
    N = check_length(model, N)
    chunk = None if chunk is None else check_int(chunk, "chunk", lo=1)
    return _evaluate(model, N, chunk, blowup=True)


def boolean_table(model: BooleanTransformer, N: int, *, chunk: int | None = None) -> torch.Tensor:
    r"""Truth table :math:`f(x) = 1[T(x) > 0]`, int64 0/1 of shape ``(2**N,)``."""
    return (evaluate_all(model, N, chunk=chunk) > 0).to(torch.int64)


def table_profile(table: torch.Tensor) -> torch.Tensor:
    r"""Profile :math:`K_k = \#\{x : s(x, f) = k\}` of a 0/1 table, via
    :func:`numeric.sensitivity.profile` (flips are table lookups, no model evaluation)."""
    from numeric.sensitivity import profile

    return profile(table)


def model_profile(model: BooleanTransformer, N: int, *, chunk: int | None = None) -> torch.Tensor:
    r"""Sensitivity profile :math:`(K_0, \dots, K_N)` of :math:`f = 1[T > 0]` from one
    forward pass per string (:math:`2^N` evaluations, not :math:`(N+1)2^N`)."""
    return table_profile(boolean_table(model, N, chunk=chunk).cpu())


def margin_recognition(T: torch.Tensor, xi: float) -> dict:
    r"""Margin-:math:`\xi` reading of outputs ``T`` over all strings.

    A string is accepted if :math:`T \ge \xi`, rejected if :math:`T \le -\xi`. The model
    recognises a function with margin :math:`\xi` iff every string is accepted or
    rejected; that function is ``accepted``.

    Returns:
        dict with ``recognises`` (bool), ``table`` (0/1 accepted, or ``None``),
        ``constant`` (bool: recognises a constant function), ``nonconstant`` (bool:
        recognises a non-constant one), ``undecided`` (number of strings with
        :math:`|T| < \xi`).
    """
    xi = check_real(xi, "xi", lo=0, lo_open=True)
    if not isinstance(T, torch.Tensor) or T.dim() != 1 or T.numel() == 0:
        reject("T", f"<{type(T).__name__}>", "a non-empty 1-d tensor of outputs")
    if not torch.isfinite(T).all():
        reject("T", "<tensor with NaN or inf>", "finite outputs")
    acc = T >= xi
    rej = T <= -xi
    undecided = int((~(acc | rej)).sum())
    rec = undecided == 0
    n_acc = int(acc.sum())
    constant = rec and (n_acc == 0 or n_acc == T.numel())
    return {
        "recognises": rec,
        "table": acc.to(torch.int64) if rec else None,
        "constant": constant,
        "nonconstant": rec and not constant,
        "undecided": undecided,
    }


@torch.no_grad()
def max_influence(model: BooleanTransformer, N: int, *, samples: int = 4, positions: int | None = None,
                  generator=None, chunk: int = 64) -> float:
    r"""Largest single-bit influence :math:`\max_{x, n} |T(x) - T(x \oplus e_n)|` over
    ``samples`` uniformly random strings :math:`x` and, per string, all :math:`N` positions
    (``positions=None``) or ``positions`` distinct uniformly random ones.

    Used for SG-4 where :math:`2^N` strings are out of reach: a lower estimate of the
    maximum over all :math:`x, n`. Each sample costs :math:`k+1` forward passes of length
    :math:`N+1` (:math:`k` the number of positions), evaluated ``chunk`` at a time.

    Returns:
        float, the maximum over the sampled strings and positions.
    """
    check_transformer(model)
    N = check_int(N, "N", lo=1, hi=model.config.N_max)
    samples = check_int(samples, "samples", lo=1)
    if positions is not None:
        positions = check_int(positions, "positions", lo=1)
    chunk = 64 if chunk is None else check_int(chunk, "chunk", lo=1)
    dev = model.tok.device
    gen = generator if generator is not None else torch.Generator()
    best = 0.0
    for _ in range(samples):
        x = torch.randint(0, 2, (N,), generator=gen)
        if positions is None or positions >= N:
            pos = torch.arange(N)
        else:
            pos = torch.randperm(N, generator=gen)[:positions]
        flips = x.unsqueeze(0).repeat(len(pos), 1)
        flips[torch.arange(len(pos)), pos] ^= 1
        batch = torch.cat([x.unsqueeze(0), flips], 0).to(dev)  # x, then x ⊕ e_n
        T = torch.cat([model(batch[s : s + chunk]) for s in range(0, len(batch), chunk)])
        best = max(best, float((T[1:] - T[0]).abs().max()))
    return best


def random_profiles(config, scheme: str, N: int, models: int, *, seed: int = 0, chunk: int | None = None,
                    device=None, progress=None, **init_kw) -> torch.Tensor:
    r"""Exact profiles of ``models`` random transformers (seeds ``seed, seed+1, ...``).

    Args:
        config: :class:`~numeric.transformer.TransformerConfig` (``N <= N_max``).
        scheme: init scheme; ``init_kw`` (``B``, ``sigma``) go to
            :func:`~numeric.transformer.initialize_`.
        progress: optional callable ``progress(i)`` after model ``i``.

    Returns:
        int64 tensor ``(models, N+1)``; row ``i`` is :math:`(K_0, \dots, K_N)` of model ``i``.
    """
    from numeric.transformer_model import random_model

    models = check_int(models, "models", lo=1)
    out = torch.empty(models, N + 1, dtype=torch.int64) if isinstance(N, int) and N >= 0 else None
    for i in range(models):
        model = random_model(config, scheme, seed + i, device=device, **init_kw)
        out[i] = model_profile(model, N, chunk=chunk)
        if progress is not None:
            progress(i)
    return out


__all__ = [
    "check_length", "random_profiles", "ENUM_LIMIT", "strings", "evaluate_all", "evaluate_all_blowup", "boolean_table",
    "table_profile", "model_profile", "margin_recognition", "max_influence",
]
