r"""Training the paper-B transformer on Boolean targets (claim SG-8, as formalised in boolverify).

One run: a :class:`numeric.transformer.BooleanTransformer` (or any module mapping a
``(B, N)`` 0/1 tensor to real outputs ``(B,)``) is trained with AdamW on a target
:math:`f \in \{\mathrm{MAJORITY}, \mathrm{FIRST}, \mathrm{PARITY}\}`, then judged by

* **accuracy** of the Boolean output :math:`\hat f(x) = 1[T(x) > 0]`:
  exact over all :math:`2^N` strings when :math:`N \le 20` (``EXACT_LIMIT``); otherwise on
  ``test_samples`` fresh uniform strings, with a Wilson interval at level ``confidence``;
  when the model was trained on a fixed subset (``train_strings=m``) also the exact accuracy
  on the :math:`2^N - m` held-out strings;
* the **sensitivity profile** of :math:`\hat f`: :math:`K_k = \#\{x : s(x,\hat f) = k\}`,
  exact for :math:`N \le 20` (one batched pass over all strings, then
  :func:`numeric.sensitivity.profile`); for larger :math:`N` estimated as
  :math:`\hat p_k = \#\{j : s(x_j) = k\}/n` from ``profile_samples`` uniform strings
  :math:`x_j` (each evaluated with its :math:`N` one-bit flips), with Wilson intervals that
  hold *simultaneously* for all :math:`k` at level ``confidence`` (Bonferroni over the
  :math:`N+1` values of :math:`k`), and a Hoeffding interval for the mean sensitivity.

Training data: all :math:`2^N` strings (shuffled epochs) when :math:`N \le 14`
(``ALL_STRINGS_LIMIT``); fresh i.i.d. uniform strings every step for larger :math:`N`; or a
fixed uniform subset of ``train_strings`` distinct strings (then held-out accuracy is exact).

Loss: ``"bce"`` is :math:`\mathrm{BCE}(\sigma(T), y)` (logistic loss on the logit :math:`T`);
``"mse"`` is :math:`(T - (2y - 1))^2` (targets :math:`\pm 1`).

Precision: training is an experiment, not a verification, so ``dtype="float32"`` is allowed
for speed; the default stays float64. Accuracies and profiles are computed from the sign of
:math:`T`, which is insensitive to the dtype except for strings with :math:`|T|` near 0.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Callable

import torch

from numeric.validation import InputError
from verify.experiments.statistics import wilson_interval  # noqa: F401  (re-exported)

from numeric.transformer_eval import strings as _bits  # bit matrix of string indices (SPEC §1)

TARGETS = ("majority", "first", "parity")
LOSSES = ("bce", "mse")
#: largest N for exact accuracy / profile over all 2^N strings (2^20 ≈ 1e6 forward passes)
EXACT_LIMIT = 20
#: largest N for which the default training set is all 2^N strings
ALL_STRINGS_LIMIT = 14
#: default architecture for training (CPU-sized; see docs/results-paper-b.md)
DEFAULT_D, DEFAULT_L, DEFAULT_H = 16, 2, 2
#: layer-norm epsilon used for training unless a config is given (a positive ε keeps the
#: gradients of LN bounded; SG-6/ε = 0 is about random init, not about training)
DEFAULT_EPS = 1e-5


@dataclass
class TrainResult:
    """Outcome of one training run (all plain Python numbers; ``model`` is the trained module)."""

    target: str
    N: int
    seed: int
    init: str
    loss: str
    steps: int
    lr: float
    weight_decay: float
    batch_size: int
    dtype: str
    device: str
    config: dict | None
    regime: str  # "all strings", "fixed subset", "online i.i.d."
    examples_seen: int
    final_loss: float
    loss_curve: list  # [(step, loss)] at most ~100 points
    # accuracy of 1[T > 0] against the target
    accuracy: float
    accuracy_exact: bool
    accuracy_n: int
    accuracy_ci: tuple  # (lo, hi); (acc, acc) when exact
    held_out_accuracy: float | None
    held_out_n: int
    baseline: float  # accuracy of the best constant function (exact)
    # sensitivity profile of the trained Boolean function
    profile_exact: bool
    profile_n: int  # 2^N when exact, else the number of sampled strings
    profile: list | None  # exact counts K_0..K_N (None when sampled)
    profile_fraction: list  # K_k / 2^N, or the estimate of P(s(x) = k)
    profile_ci: list | None  # [[lo, hi]] per k, simultaneous at `confidence` (sampled only)
    mean_sensitivity: float
    mean_sensitivity_ci: tuple | None
    target_mean_sensitivity: float  # exact, for comparison
    confidence: float
    train_time_s: float
    eval_time_s: float
    model: torch.nn.Module | None = field(default=None, repr=False, compare=False)
    #: indices of the fixed training subset (``train_strings``), else None; not in to_dict
    train_index: torch.Tensor | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        """JSON-ready dict (the model is left out)."""
        # not dataclasses.asdict: it would deep-copy the model
        return {f.name: getattr(self, f.name) for f in fields(self) 
                if f.name not in ("model", "train_index")}


# ----------------------------------------------------------------------------- validation


def _check_int(name, value, lo, hi=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} = {value!r}: expected an integer")
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise InputError(f"{name} = {value}: expected an integer {rng}")
    return value


def _check_pos_float(name, value, allow_zero=False):
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} = {value!r}: expected a number") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        what = "finite and >= 0" if allow_zero else "finite and > 0"
        raise InputError(f"{name} = {value!r}: expected a number {what}")
    return v


def _check_target(target):
    if target not in TARGETS:
        raise InputError(f"target {target!r}: expected one of {', '.join(TARGETS)}")
    return target


def _dtype(dtype):
    table = {"float64": torch.float64, "float32": torch.float32,
             torch.float64: torch.float64, torch.float32: torch.float32}
    if dtype not in table:
        raise InputError(f"dtype {dtype!r}: expected 'float64' or 'float32'")
    return table[dtype]


# ----------------------------------------------------------------------------- strings, labels


def labels(target: str, bits: torch.Tensor) -> torch.Tensor:
    r"""Target values on a bit matrix, computed from the bits (any N).

    MAJORITY (strict): :math:`1[|x| > N/2]`; FIRST: :math:`x_0`; PARITY: :math:`|x| \bmod 2`.

    Args: ``target`` one of ``TARGETS``; ``bits`` a ``(B, N)`` integer 0/1 tensor.
    Returns: ``(B,)`` int64 tensor of 0/1.
    """
    _check_target(target)
    if bits.ndim != 2 or bits.shape[1] < 1:
        raise InputError(f"bits shape {tuple(bits.shape)}: expected (B, N) with N >= 1")
    N = bits.shape[1]
    w = bits.to(torch.int64).sum(-1)
    if target == "majority":
        return (2 * w > N).to(torch.int64)
    if target == "first":
        return bits[:, 0].to(torch.int64)
    return (w % 2).to(torch.int64)


def _weight_function(target, N):
    """f as a function of the Hamming weight (MAJORITY, PARITY), or None (FIRST)."""
    if target == "majority":
        return lambda w: int(2 * w > N)
    if target == "parity":
        return lambda w: w % 2
    return None


def baseline_accuracy(target: str, N: int) -> float:
    r"""Accuracy of the best constant function, :math:`\max(p, 1-p)` with :math:`p = P(f = 1)`.

    Exact: :math:`p = 2^{-N}\sum_{w: f(w)=1}\binom{N}{w}` for symmetric targets, ``1/2`` for FIRST.
    """
    _check_target(target)
    _check_int("N", N, 1)
    g = _weight_function(target, N)
    if g is None:
        return 0.5
    ones = sum(math.comb(N, w) for w in range(N + 1) if g(w))
    p = ones / 2**N
    return max(p, 1.0 - p)


def target_mean_sensitivity(target: str, N: int) -> float:
    r"""Exact average sensitivity :math:`\mathrm{as}(f) = 2^{-N}\sum_x s(x, f)` of a target.

    For a symmetric :math:`f` a string of weight :math:`w` has
    :math:`s = (N - w)\,1[f(w+1) \ne f(w)] + w\,1[f(w-1) \ne f(w)]`; FIRST has :math:`s \equiv 1`.
    """
    _check_target(target)
    _check_int("N", N, 1)
    g = _weight_function(target, N)
    if g is None:
        return 1.0
    total = 0
    for w in range(N + 1):
        s = (N - w) * (w < N and g(w + 1) != g(w)) + w * (w > 0 and g(w - 1) != g(w))
        total += math.comb(N, w) * s
    return total / 2**N


def target_profile_fraction(target: str, N: int) -> list[float]:
    r"""Exact profile of a target as fractions :math:`K_k / 2^N`, :math:`k = 0..N`, any N.

    Symmetric targets: every string of weight :math:`w` has the sensitivity :math:`s(w)` of
    :func:`target_mean_sensitivity`, so :math:`K_k = \sum_{w : s(w) = k} \binom{N}{w}`;
    FIRST: :math:`K_1 = 2^N`.
    """
    _check_target(target)
    _check_int("N", N, 1)
    g = _weight_function(target, N)
    K = [0] * (N + 1)
    if g is None:
        K[1] = 2**N
    else:
        for w in range(N + 1):
            s = (N - w) * (w < N and g(w + 1) != g(w)) + w * (w > 0 and g(w - 1) != g(w))
            K[s] += math.comb(N, w)
    return [k / 2**N for k in K]


# ----------------------------------------------------------------------------- statistics



# ----------------------------------------------------------------------------- evaluation


@torch.no_grad()
def _outputs(model, bits, dtype, device, chunk):
    out = []
    for i in range(0, bits.shape[0], chunk):
        out.append(model(bits[i:i + chunk].to(device=device, dtype=dtype)).reshape(-1).cpu())
    return torch.cat(out) if out else torch.empty(0)


@torch.no_grad()
def _table_all(model, N, dtype, device, chunk):
    """Boolean table ``1[T(x) > 0]`` over all 2^N strings in string-index order (int64, CPU)."""
    tabs = []
    for start in range(0, 2**N, chunk):
        idx = torch.arange(start, min(start + chunk, 2**N), dtype=torch.int64)
        tabs.append((_outputs(model, _bits(idx, N), dtype, device, chunk) > 0).to(torch.int64))
    return torch.cat(tabs)


@torch.no_grad()
def _sampled_sensitivity(model, N, n, gen, dtype, device, chunk):
    """s(x, 1[T>0]) at ``n`` uniform strings: each string with its N one-bit flips."""
    x = torch.randint(0, 2, (n, N), generator=gen, dtype=torch.int64)
    flips = torch.eye(N, dtype=torch.int64)
    s = torch.empty(n, dtype=torch.int64)
    per = max(1, chunk // (N + 1))
    for i in range(0, n, per):
        xb = x[i:i + per]
        nb = xb.shape[0]
        allb = torch.cat([xb.unsqueeze(1), xb.unsqueeze(1) ^ flips.unsqueeze(0)], dim=1)  # (nb, N+1, N)
        f = _outputs(model, allb.reshape(-1, N), dtype, device, chunk).reshape(nb, N + 1) > 0
        s[i:i + nb] = (f[:, 1:] != f[:, :1]).sum(-1)
    return s


# ----------------------------------------------------------------------------- training


def _build_model(N, config, init, seed, dtype, device, init_kw):
    from numeric import transformer as tf

    if config is None:
        config = tf.TransformerConfig(D=DEFAULT_D, L=DEFAULT_L, H=DEFAULT_H, eps=DEFAULT_EPS,
                                      N_max=max(64, N))
    if N > config.N_max:
        raise InputError(f"N = {N}: exceeds the model's N_max = {config.N_max}")
    model = tf.BooleanTransformer(config)
    gen = torch.Generator().manual_seed(seed)
    tf.initialize_(model, init, generator=gen, **init_kw)
    return model.to(device=device, dtype=dtype), asdict(config)


def train(
    target: str,
    N: int,
    *,
    config=None,
    init: str = "xavier_uniform",
    seed: int = 0,
    steps: int = 400,
    lr: float = 3e-3,
    weight_decay: float = 0.01,
    loss: str = "bce",
    batch_size: int = 128,
    train_strings: int | None = None,
    test_samples: int = 2**14,
    profile_samples: int = 2048,
    exact: bool | None = None,
    confidence: float = 0.95,
    dtype="float64",
    device="cpu",
    chunk: int = 8192,
    model: torch.nn.Module | None = None,
    init_kw: dict | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> TrainResult:
    r"""Train a transformer on a Boolean target with AdamW and measure accuracy and profile.

    Minimises :math:`\frac1B\sum_{j} \ell(T(x_j), f(x_j))` over mini-batches of ``batch_size``
    strings for ``steps`` AdamW steps (constant ``lr``, decoupled ``weight_decay``), where
    :math:`\ell` is the logistic loss (``"bce"``) or :math:`(T - (2f - 1))^2` (``"mse"``).

    Args:
        target: ``"majority"`` (strict), ``"first"`` or ``"parity"``.
        N: input length, ``>= 1``.
        config: a :class:`numeric.transformer.TransformerConfig`; default ``D=16, L=2, H=2,
            eps=1e-5, N_max=max(64, N)``.
        init: initialisation scheme of :func:`numeric.transformer.initialize_` (seeded by ``seed``),
            with extra keywords ``init_kw`` (e.g. ``{"B": 0.5}``).
        seed: seeds the initialisation and, independently, the data stream and test samples.
        train_strings: ``None`` (all strings for ``N <= 14``, fresh uniform strings otherwise) or
            the size ``m`` of a fixed uniform training subset (needs ``N <= 20``, ``m < 2^N``).
        test_samples, profile_samples: sample sizes used when ``N > 20`` (or ``exact=False``).
        exact: ``None`` = exact iff ``N <= 20``; ``True`` demands exactness (``InputError`` above 20);
            ``False`` forces the sampled estimators (useful to check them against exact values).
        confidence: level of every reported interval.
        dtype: ``"float64"`` (default) or ``"float32"`` (faster; training only).
        device: ``"cpu"`` or ``"cuda"``.
        model: train this module instead of building a transformer (``config``/``init`` ignored);
            it must map a ``(B, N)`` tensor of 0/1 (in ``dtype``) to ``(B,)`` real outputs.
        progress: optional callback ``progress(step, steps, loss)`` (called every few steps and
            at the end) so that a CLI can draw a bar without :mod:`numeric` importing one.

    Returns:
        a :class:`TrainResult`; ``result.model`` is the trained module (eval mode).
    """
    _check_target(target)
    _check_int("N", N, 1)
    _check_int("seed", seed, 0)
    _check_int("steps", steps, 1)
    lr = _check_pos_float("lr", lr)
    weight_decay = _check_pos_float("weight_decay", weight_decay, allow_zero=True)
    if loss not in LOSSES:
        raise InputError(f"loss {loss!r}: expected one of {', '.join(LOSSES)}")
    _check_int("batch_size", batch_size, 1)
    _check_int("test_samples", test_samples, 1)
    _check_int("profile_samples", profile_samples, 1)
    _check_int("chunk", chunk, 1)
    if exact not in (None, True, False):
        raise InputError(f"exact = {exact!r}: expected None, True or False")
    if exact and N > EXACT_LIMIT:
        raise InputError(f"N = {N}: exact accuracy and profile need N <= {EXACT_LIMIT} "
                         f"(2^N forward passes); use exact=None/False for sampled estimates")
    if train_strings is not None:
        if N > EXACT_LIMIT:
            raise InputError(f"N = {N}: a fixed training subset (train_strings) needs "
                             f"N <= {EXACT_LIMIT} so that its complement can be enumerated")
        _check_int("train_strings", train_strings, 1, 2**N - 1)
    try:
        conf = float(confidence)
    except (TypeError, ValueError):
        raise InputError(f"confidence = {confidence!r}: expected a number in (0, 1)") from None
    if not 0 < conf < 1:
        raise InputError(f"confidence = {confidence!r}: expected a number in (0, 1)")
    tdtype = _dtype(dtype)
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise InputError(f"device {device!r}: expected 'cpu' or 'cuda'") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r}: CUDA is not available on this machine")
    do_exact = (N <= EXACT_LIMIT) if exact is None else exact

    if model is None:
        model, cfg = _build_model(N, config, init, seed, tdtype, dev, dict(init_kw or {}))
    else:
        if not isinstance(model, torch.nn.Module):
            raise InputError(f"model {type(model).__name__}: expected a torch.nn.Module")
        model = model.to(device=dev, dtype=tdtype)
        cfg = None
        init = "given"

    # Data stream: its own generator so that the init and the data are independent streams.
    gen = torch.Generator().manual_seed(1_000_003 * (seed + 1))
    pool = None
    if train_strings is not None:
        pool = torch.randperm(2**N, generator=gen)[:train_strings]
        regime = "fixed subset"
    elif N <= ALL_STRINGS_LIMIT:
        pool = torch.arange(2**N)
        regime = "all strings"
    else:
        regime = "online i.i.d."

    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    model.train()
    curve = []
    every = max(1, steps // 100)
    order, pos = None, 0
    t0 = time.perf_counter()
    last = float("nan")
    for step in range(1, steps + 1):
        if pool is None:
            xb = torch.randint(0, 2, (batch_size, N), generator=gen, dtype=torch.int64)
        else:
            # shuffled epochs over the pool; a batch never repeats a string within an epoch
            take = []
            need = min(batch_size, pool.numel())
            while need > 0:
                if order is None or pos >= order.numel():
                    order, pos = pool[torch.randperm(pool.numel(), generator=gen)], 0
                got = order[pos:pos + need]
                pos += got.numel()
                need -= got.numel()
                take.append(got)
            xb = _bits(torch.cat(take), N)
        yb = labels(target, xb).to(device=dev, dtype=tdtype)
        T = model(xb.to(device=dev, dtype=tdtype)).reshape(-1)
        if loss == "bce":
            ell = torch.nn.functional.binary_cross_entropy_with_logits(T, yb)
        else:
            ell = ((T - (2 * yb - 1)) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        ell.backward()
        opt.step()
        last = float(ell.detach())
        if not math.isfinite(last):
            raise FloatingPointError(f"training loss became {last} at step {step} "
                                     f"(target {target}, N = {N}, seed {seed}); lower lr")
        if step % every == 0 or step == steps:
            curve.append((step, last))
            if progress is not None:
                progress(step, steps, last)
    train_time = time.perf_counter() - t0
    examples = steps * batch_size if pool is None else steps * min(batch_size, pool.numel())

    # ---- evaluation
    model.eval()
    t0 = time.perf_counter()
    held, held_n = None, 0
    if do_exact:
        table = _table_all(model, N, tdtype, dev, chunk)
        truth = _target_table(target, N)
        correct = table == truth
        acc = float(correct.double().mean())
        acc_n, acc_ci = 2**N, (acc, acc)
        if regime == "fixed subset":
            mask = torch.ones(2**N, dtype=torch.bool)
            mask[pool] = False
            held_n = int(mask.sum())
            held = float(correct[mask].double().mean())
        from numeric.sensitivity import profile as _profile

        K = [int(k) for k in _profile(table)]
        frac = [k / 2**N for k in K]
        prof_ci, prof_n = None, 2**N
        mean_s = sum(k * c for k, c in enumerate(K)) / 2**N
        mean_ci = None
    else:
        egen = torch.Generator().manual_seed(7_000_003 * (seed + 1))
        xt = torch.randint(0, 2, (test_samples, N), generator=egen, dtype=torch.int64)
        pred = (_outputs(model, xt, tdtype, dev, chunk) > 0).to(torch.int64)
        k_ok = int((pred == labels(target, xt)).sum())
        acc, acc_n = k_ok / test_samples, test_samples
        acc_ci = wilson_interval(k_ok, test_samples, conf)
        s = _sampled_sensitivity(model, N, profile_samples, egen, tdtype, dev, chunk)
        counts = torch.bincount(s, minlength=N + 1).tolist()
        K, prof_n = None, profile_samples
        frac = [c / profile_samples for c in counts]
        # Bonferroni: each of the N+1 intervals at 1 - (1-c)/(N+1) -> all hold jointly w.p. >= c
        per = 1 - (1 - conf) / (N + 1)
        prof_ci = [list(wilson_interval(c, profile_samples, per)) for c in counts]
        mean_s = float(s.double().mean())
        # Hoeffding for a mean of variables in [0, N]
        half = N * math.sqrt(math.log(2 / (1 - conf)) / (2 * profile_samples))
        mean_ci = (max(0.0, mean_s - half), min(float(N), mean_s + half))
    eval_time = time.perf_counter() - t0

    return TrainResult(
        target=target, N=N, seed=seed, init=init, loss=loss, steps=steps, lr=lr,
        weight_decay=weight_decay, batch_size=batch_size, dtype=str(tdtype).removeprefix("torch."),
        device=str(dev), config=cfg, regime=regime, examples_seen=examples, final_loss=last,
        loss_curve=curve, accuracy=acc, accuracy_exact=do_exact, accuracy_n=acc_n,
        accuracy_ci=tuple(acc_ci), held_out_accuracy=held, held_out_n=held_n,
        baseline=baseline_accuracy(target, N), profile_exact=do_exact, profile_n=prof_n,
        profile=K, profile_fraction=frac, profile_ci=prof_ci, mean_sensitivity=mean_s,
        mean_sensitivity_ci=mean_ci, target_mean_sensitivity=target_mean_sensitivity(target, N),
        confidence=conf, train_time_s=train_time, eval_time_s=eval_time, model=model,
        train_index=pool if regime == "fixed subset" else None,
    )


def _target_table(target, N):
    """Truth table over all strings via :func:`numeric.boolean.truth_table` (N <= EXACT_LIMIT)."""
    from numeric.boolean import truth_table

    return truth_table(target, N).to(torch.int64).reshape(-1)


__all__ = [
    "TrainResult", "train", "labels", "baseline_accuracy", "target_mean_sensitivity",
    "target_profile_fraction", "wilson_interval", "TARGETS", "EXACT_LIMIT", "ALL_STRINGS_LIMIT",
]
