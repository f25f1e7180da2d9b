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
  :func:`numeric.boolean.profile`); for larger :math:`N` estimated as
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

Determinism: a run (initialisation, training, evaluation) runs inside :func:`pinned_threads`,
on ``TRAINING_THREADS`` intra-op threads with torch's deterministic algorithms, and restores the
caller's settings afterwards. A float32 sum split over more threads is added in another order,
and over hundreds of AdamW steps the rounding differences grow until a run that learned under
one thread count does not under another; pinned, a seed gives the same bits whatever the
caller's thread count.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Callable

import torch

from numeric.boolean import (
    baseline_accuracy, exact_mean_sensitivity, labels, smallest_N, truth_table,
)
from numeric.transformer import strings  # bit matrix of string indices
from numeric import vocabulary
from numeric.validation import (
    MAX_SEED, InputError, check_bool, check_choice, check_device, check_dtype, check_entry, check_int, check_real,
    check_seed,
)
from numeric.vocabulary import ALL_TARGETS, INIT_SCHEMES
from verify.stats.intervals import wilson_interval

#: largest N for exact accuracy / profile over all 2^N strings (2^20 ≈ 1e6 forward passes)
EXACT_LIMIT = 20
#: largest N for which the default training set is all 2^N strings
ALL_STRINGS_LIMIT = 14
#: default architecture for training (CPU-sized; see docs/results-paper-b.md)
DEFAULT_D, DEFAULT_L, DEFAULT_H = 16, 2, 2
#: layer-norm epsilon used for training unless a config is given (a positive ε keeps the
#: gradients of LN bounded; SG-6/ε = 0 is about random init, not about training)
DEFAULT_EPS = 1e-5
#: AdamW's learning rate unless one is given
DEFAULT_LR = 3e-3
#: intra-op threads of every training run (see the module docstring: determinism)
TRAINING_THREADS = 1


@contextlib.contextmanager
def pinned_threads(device="cpu"):
    """Run the block on ``TRAINING_THREADS`` intra-op threads with torch's deterministic
    algorithms (on CUDA only warned about, since cuBLAS needs its own workspace setting), then
    restore the caller's thread count and deterministic-algorithm settings."""
    saved = (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(),
             torch.is_deterministic_algorithms_warn_only_enabled())
    torch.set_num_threads(TRAINING_THREADS)
    torch.use_deterministic_algorithms(True, warn_only=torch.device(device).type != "cpu")
    try:
        yield
    finally:
        torch.set_num_threads(saved[0])
        torch.use_deterministic_algorithms(saved[1], warn_only=saved[2])


@dataclass(frozen=True)
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
    #: indices of the fixed training subset (``train_strings``), else None; not in as_dict
    train_index: torch.Tensor | None = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict:
        """JSON-ready dict (the model is left out)."""
        # not dataclasses.asdict: it would deep-copy the model
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("model", "train_index")}


# ----------------------------------------------------------------------------- losses


@dataclass(frozen=True)
class TrainingLoss:
    r"""One training loss: everything :func:`fit` needs to know about it.

    :func:`fit` reads the loss from here (no code branches on its name), so a loss is added by
    adding its name to :data:`numeric.vocabulary.LOSSES` and one entry to :data:`TRAINING_LOSSES`.

    Attributes:
        name: the loss's name in :data:`numeric.vocabulary.LOSSES`.
        description: the loss in words (help texts, reports).
        batch_loss: ``batch_loss(T, y)``: the mean over a mini-batch of :math:`\ell(T_j, y_j)`,
            ``T`` the ``(B,)`` real outputs, ``y`` the ``(B,)`` 0/1 labels in the same dtype.
    """

    name: str
    description: str
    batch_loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def _logistic_loss(T, y):
    return torch.nn.functional.binary_cross_entropy_with_logits(T, y)


def _squared_loss(T, y):
    return ((T - (2 * y - 1)) ** 2).mean()


#: The training losses, keyed by the names of :data:`numeric.vocabulary.LOSSES`.
TRAINING_LOSSES = {
    "bce": TrainingLoss("bce", "logistic loss BCE(sigmoid(T), y) on the logit T", _logistic_loss),
    "mse": TrainingLoss("mse", "squared error (T - (2y - 1))^2, targets +-1", _squared_loss),
}


def training_loss(loss) -> TrainingLoss:
    """The :class:`TrainingLoss` named ``loss``; :class:`InputError` for a name outside
    :data:`numeric.vocabulary.LOSSES` or one without an entry (never another loss instead)."""
    return check_entry(loss, "loss", TRAINING_LOSSES, vocabulary.LOSSES, "the losses training implements")


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
        tabs.append((_outputs(model, strings(idx, N), dtype, device, chunk) > 0).to(torch.int64))
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


def build_model(N, config, init, seed, dtype, device, init_kw):
    """A :class:`~numeric.transformer.BooleanTransformer` (``config``, default the training
    architecture) initialised by ``init`` from the seed ``seed``: ``(model, config as a dict)``."""
    from numeric import transformer as tf

    if config is None:
        config = tf.TransformerConfig(D=DEFAULT_D, L=DEFAULT_L, H=DEFAULT_H, eps=DEFAULT_EPS,
                                      N_max=max(64, N))
    check_int(N, "N", lo=1, hi=config.N_max)  # the model's N_max bounds the input length
    model = tf.BooleanTransformer(config)
    gen = torch.Generator().manual_seed(seed)
    tf.initialize_(model, init, generator=gen, **init_kw)
    return model.to(device=device, dtype=dtype), asdict(config)


def validate_options(target, N, *, init="xavier_uniform", seed=0, steps=400, lr=DEFAULT_LR,
                     weight_decay=0.01, loss="bce", batch_size=128, train_strings=None,
                     test_samples=2**14, profile_samples=2048, exact=None, confidence=0.95,
                     dtype="float64", device="cpu", chunk=8192, model=None) -> dict:
    """Check the arguments of :func:`train`; returns them in canonical form (``lr`` a float,
    ``dtype`` a torch dtype, ``device`` a torch device, ``exact`` resolved to a bool)."""
    check_choice(target, "target", ALL_TARGETS)
    check_int(N, "N", lo=max(1, smallest_N(target)))
    check_seed(seed, "seed")
    check_int(steps, "steps", lo=1)
    lr = check_real(lr, "lr", lo=0, lo_open=True)
    weight_decay = check_real(weight_decay, "weight_decay", lo=0)
    if not lr * weight_decay < 1:
        # AdamW scales the weights by 1 - lr * weight_decay each step: zero or a sign flip here
        raise InputError(f"weight_decay = {weight_decay!r}: expected lr x weight_decay < 1 (lr = {lr:g}; AdamW "
                         "scales the weights by 1 - lr x weight_decay each step)")
    training_loss(loss)
    for name, value in (("batch_size", batch_size), ("test_samples", test_samples),
                        ("profile_samples", profile_samples), ("chunk", chunk)):
        check_int(value, name, lo=1)
    if exact is not None:
        check_bool(exact, "exact")
    if exact or train_strings is not None:
        # exact evaluation, and the complement of a fixed training subset, enumerate 2^N strings
        check_int(N, "N", lo=1, hi=EXACT_LIMIT)
    if train_strings is not None:
        check_int(train_strings, "train_strings", lo=1, hi=2**N - 1)
    conf = check_real(confidence, "confidence", lo=0, hi=1, lo_open=True, hi_open=True)
    if model is None:
        check_choice(init, "init", INIT_SCHEMES)
    elif not isinstance(model, torch.nn.Module):
        raise InputError(f"model = <{type(model).__name__}>: expected a torch.nn.Module")
    return dict(target=target, N=N, init=init, seed=seed, steps=steps, lr=lr,
                weight_decay=weight_decay, loss=loss, batch_size=batch_size,
                train_strings=train_strings, test_samples=test_samples,
                profile_samples=profile_samples, exact=(N <= EXACT_LIMIT) if exact is None else exact,
                confidence=conf, dtype=check_dtype(dtype), device=check_device(device), chunk=chunk)


def _derived_seed(seed, factor):
    """The seed of a stream derived from the run's ``seed`` (``factor * (seed + 1)``), reduced
    modulo 2^64 because torch generators take at most 64 bits and seeds under a large
    ``BOOLVERIFY_SEED`` base reach ~10^19."""
    return (factor * (seed + 1)) % 2**64


def training_data(N, seed, train_strings):
    """The data stream of a run: ``(gen, pool, regime)``.

    ``gen`` is the data generator (its own seed, so that the init and the data are independent
    streams); ``pool`` the string indices trained on (``None``: fresh uniform strings every
    step); ``regime`` one of ``"fixed subset"``, ``"all strings"``, ``"online i.i.d."``.
    """
    seed = check_seed(seed, "seed")
    gen = torch.Generator().manual_seed(_derived_seed(seed, 1_000_003))
    if train_strings is not None:
        return gen, torch.randperm(2**N, generator=gen)[:train_strings], "fixed subset"
    if N <= ALL_STRINGS_LIMIT:
        return gen, torch.arange(2**N), "all strings"
    return gen, None, "online i.i.d."


class Batches:
    """Mini-batches of bit strings: fresh uniform strings, or shuffled epochs over a pool (a
    batch never repeats a string within an epoch)."""

    def __init__(self, N, pool, batch_size, gen):
        self.N, self.pool, self.batch_size, self.gen = N, pool, batch_size, gen
        self.order, self.pos = None, 0

    def next(self):
        if self.pool is None:
            return torch.randint(0, 2, (self.batch_size, self.N), generator=self.gen,
                                 dtype=torch.int64)
        take = []
        need = min(self.batch_size, self.pool.numel())
        while need > 0:
            if self.order is None or self.pos >= self.order.numel():
                perm = torch.randperm(self.pool.numel(), generator=self.gen)
                self.order, self.pos = self.pool[perm], 0
            got = self.order[self.pos:self.pos + need]
            self.pos += got.numel()
            need -= got.numel()
            take.append(got)
        return strings(torch.cat(take), self.N)


def fit(model, target, N, pool, gen, *, steps, batch_size, loss, lr, weight_decay, dtype, device,
        seed, progress=None, on_batch=None) -> dict:
    r"""``steps`` AdamW steps on mini-batches labelled by :func:`numeric.boolean.labels`; the loss is
    :math:`\mathrm{BCE}(\sigma(T), y)` (``"bce"``) or :math:`(T - (2y - 1))^2` (``"mse"``).

    ``on_batch(step, bits, labels)``, when given, sees every mini-batch exactly as the loss
    does (``bits`` the ``(B, N)`` 0/1 strings, ``labels`` the ``(B,)`` targets in ``dtype``),
    so that a caller can audit the labels against its own definition of the target.

    Returns:
        dict with ``loss_curve`` (at most ~100 ``(step, loss)`` points), ``final_loss``,
        ``examples_seen`` and ``train_time_s``.
    """
    batch_loss = training_loss(loss).batch_loss
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    model.train()
    batches = Batches(N, pool, batch_size, gen)
    curve, every, last = [], max(1, steps // 100), float("nan")
    t0 = time.perf_counter()
    for step in range(1, steps + 1):
        xb = batches.next()
        yb = labels(target, xb).to(device=device, dtype=dtype)
        if on_batch is not None:
            on_batch(step, xb, yb)
        T = model(xb.to(device=device, dtype=dtype)).reshape(-1)
        ell = batch_loss(T, yb)
        opt.zero_grad(set_to_none=True)
        ell.backward()
        opt.step()
        last = float(ell.detach())
        check_finite_loss(last, step, target, N, seed)
        if step % every == 0 or step == steps:
            curve.append((step, last))
            if progress is not None:
                progress(step, steps, last)
    return dict(loss_curve=curve, final_loss=last, examples_seen=examples_seen(steps, batch_size, pool),
                train_time_s=time.perf_counter() - t0)


def check_finite_loss(value, step, target, N, seed) -> None:
    """A training loss that became NaN or infinite stops the run, naming where."""
    if not math.isfinite(value):
        raise FloatingPointError(f"training loss became {value} at step {step} "
                                 f"(target {target}, N = {N}, seed {seed}); lower lr")


def examples_seen(steps, batch_size, pool) -> int:
    """Strings trained on in ``steps`` batches (a batch never exceeds the pool it draws from)."""
    return steps * batch_size if pool is None else steps * min(batch_size, pool.numel())


def _evaluate_exact(model, target, N, held_out_mask, dtype, device, chunk):
    from numeric.boolean import profile

    table = _table_all(model, N, dtype, device, chunk)
    correct = table == truth_table(target, N).to(torch.int64)
    acc = float(correct.double().mean())
    held, held_n = None, 0
    if held_out_mask is not None:
        held_n = int(held_out_mask.sum())
        held = float(correct[held_out_mask].double().mean())
    K = [int(k) for k in profile(table)]
    return dict(accuracy=acc, accuracy_n=2**N, accuracy_ci=(acc, acc), held_out_accuracy=held,
                held_out_n=held_n, profile_n=2**N, profile=K,
                profile_fraction=[k / 2**N for k in K], profile_ci=None,
                mean_sensitivity=sum(k * c for k, c in enumerate(K)) / 2**N,
                mean_sensitivity_ci=None)


def _evaluate_sampled(model, target, N, seed, test_samples, profile_samples, conf, dtype, device,
                      chunk):
    egen = torch.Generator().manual_seed(_derived_seed(seed, 7_000_003))
    xt = torch.randint(0, 2, (test_samples, N), generator=egen, dtype=torch.int64)
    pred = (_outputs(model, xt, dtype, device, chunk) > 0).to(torch.int64)
    k_ok = int((pred == labels(target, xt)).sum())
    s = _sampled_sensitivity(model, N, profile_samples, egen, dtype, device, chunk)
    counts = torch.bincount(s, minlength=N + 1).tolist()
    # Bonferroni: each of the N+1 intervals at 1 - (1-c)/(N+1) -> all hold jointly w.p. >= c
    per = 1 - (1 - conf) / (N + 1)
    mean_s = float(s.double().mean())
    # Hoeffding for a mean of variables in [0, N]
    half = N * math.sqrt(math.log(2 / (1 - conf)) / (2 * profile_samples))
    return dict(accuracy=k_ok / test_samples, accuracy_n=test_samples,
                accuracy_ci=tuple(wilson_interval(k_ok, test_samples, conf)),
                held_out_accuracy=None, held_out_n=0, profile_n=profile_samples, profile=None,
                profile_fraction=[c / profile_samples for c in counts],
                profile_ci=[list(wilson_interval(c, profile_samples, per)) for c in counts],
                mean_sensitivity=mean_s,
                mean_sensitivity_ci=(max(0.0, mean_s - half), min(float(N), mean_s + half)))


def evaluate(model, target, N, *, exact, seed, held_out_pool=None, test_samples=2**14,
             profile_samples=2048, confidence=0.95, dtype=torch.float64, device="cpu",
             chunk=8192) -> dict:
    """Accuracy and sensitivity profile of ``1[T(x) > 0]``: exact over all ``2^N`` strings
    (with the held-out accuracy on the complement of ``held_out_pool`` when given), or sampled
    with intervals at level ``confidence`` (see the module docstring).

    Returns:
        dict with the evaluation fields of :class:`TrainResult` and ``eval_time_s``.
    """
    seed = check_seed(seed, "seed")
    model.eval()
    t0 = time.perf_counter()
    if exact:
        mask = None
        if held_out_pool is not None:
            mask = torch.ones(2**N, dtype=torch.bool)
            mask[held_out_pool] = False
        out = _evaluate_exact(model, target, N, mask, dtype, device, chunk)
    else:
        out = _evaluate_sampled(model, target, N, seed, test_samples, profile_samples, confidence,
                                dtype, device, chunk)
    out["eval_time_s"] = time.perf_counter() - t0
    return out


def train(
    target: str,
    N: int,
    *,
    config=None,
    init: str = "xavier_uniform",
    seed: int = 0,
    steps: int = 400,
    lr: float = DEFAULT_LR,
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
    on_batch: Callable[[int, torch.Tensor, torch.Tensor], None] | None = None,
) -> TrainResult:
    r"""Train a transformer on a Boolean target with AdamW and measure accuracy and profile.

    Minimises :math:`\frac1B\sum_{j} \ell(T(x_j), f(x_j))` over mini-batches of ``batch_size``
    strings for ``steps`` AdamW steps (constant ``lr``, decoupled ``weight_decay``), where
    :math:`\ell` is the logistic loss (``"bce"``) or :math:`(T - (2f - 1))^2` (``"mse"``).
    The stages: :func:`validate_options`, :func:`training_data`, :func:`fit`, :func:`evaluate`.

    Args:
        target: ``"majority"`` (strict), ``"first"``, ``"parity"`` or a control of
            :data:`numeric.vocabulary.CONTROL_TARGETS` (``"parity01"``: parity of bits 0 and 1),
            each an entry of the registry :mod:`numeric.boolean`.
        N: input length, ``>= 1``.
        config: a :class:`numeric.transformer.TransformerConfig`; default ``D=16, L=2, H=2,
            eps=1e-5, N_max=max(64, N)``.
        init: initialisation scheme of :func:`numeric.transformer.initialize_` (seeded by ``seed``),
            with extra keywords ``init_kw`` (e.g. ``{"B": 0.5}``).
        seed: seeds the initialisation and, independently, the data stream and test samples.
        train_strings: ``None`` (all strings for ``N <= 14``, fresh uniform strings otherwise) or
            the size ``m`` of a fixed uniform training subset (needs ``N <= 20``, ``m < 2^N``).
        test_samples, profile_samples: sample sizes used when ``N > 20`` (or ``exact=False``).
        exact: ``None`` = exact iff ``N <= 20``; ``True`` demands it; ``False`` forces the sampled
            estimators (to check them against exact values).
        confidence: level of every reported interval.
        dtype: ``"float64"`` (default) or ``"float32"`` (faster; training only).
        device: ``"cpu"`` or ``"cuda"``.
        model: train this module instead of building a transformer (``config``/``init`` ignored);
            it must map a ``(B, N)`` tensor of 0/1 (in ``dtype``) to ``(B,)`` real outputs.
        progress: optional callback ``progress(step, steps, loss)``, every few steps and at the end.
        on_batch: optional callback ``on_batch(step, bits, labels)`` with every mini-batch as
            trained on (see :func:`fit`).

    Returns:
        a :class:`TrainResult`; ``result.model`` is the trained module (eval mode).
    """
    o = validate_options(target, N, init=init, seed=seed, steps=steps, lr=lr,
                         weight_decay=weight_decay, loss=loss, batch_size=batch_size,
                         train_strings=train_strings, test_samples=test_samples,
                         profile_samples=profile_samples, exact=exact, confidence=confidence,
                         dtype=dtype, device=device, chunk=chunk, model=model)
    tdtype, dev = o["dtype"], o["device"]
    with pinned_threads(dev):
        if model is None:
            model, cfg = build_model(N, config, init, seed, tdtype, dev, dict(init_kw or {}))
        else:
            model, cfg, init = model.to(device=dev, dtype=tdtype), None, "given"
        gen, pool, regime = training_data(N, seed, train_strings)
        fitted = fit(model, target, N, pool, gen, steps=steps, batch_size=batch_size, loss=loss,
                     lr=o["lr"], weight_decay=o["weight_decay"], dtype=tdtype, device=dev, seed=seed,
                     progress=progress, on_batch=on_batch)
        fixed = pool if regime == "fixed subset" else None
        ev = evaluate(model, target, N, exact=o["exact"], seed=seed, held_out_pool=fixed,
                      test_samples=test_samples, profile_samples=profile_samples,
                      confidence=o["confidence"], dtype=tdtype, device=dev, chunk=chunk)
    return train_result(o, init, cfg, regime, model, fixed, fitted, ev)


def train_result(o, init, cfg, regime, model, fixed, fitted, ev) -> TrainResult:
    """The :class:`TrainResult` of one run from its checked options ``o``, training and evaluation."""
    target, N = o["target"], o["N"]
    return TrainResult(
        target=target, N=N, seed=o["seed"], init=init, loss=o["loss"], steps=o["steps"], lr=o["lr"],
        weight_decay=o["weight_decay"], batch_size=o["batch_size"],
        dtype=str(o["dtype"]).removeprefix("torch."), device=str(o["device"]), config=cfg, regime=regime,
        accuracy_exact=o["exact"], baseline=baseline_accuracy(target, N),
        profile_exact=o["exact"], target_mean_sensitivity=exact_mean_sensitivity(target, N),
        confidence=o["confidence"], model=model, train_index=fixed, **fitted, **ev,
    )


def run_training_grid(targets, Ns, seeds, *, D=DEFAULT_D, L=DEFAULT_L, H=DEFAULT_H, eps=DEFAULT_EPS,
                      on_start=None, **train_kw):
    """:func:`train` for every target, N and seed ``0..seeds-1`` (in that order), on a
    ``D, L, H, eps`` transformer with ``N_max = max(64, N)``; yields each :class:`TrainResult`
    when its run ends. ``on_start(target, N, seed)``, when given, is called before each run and
    returns that run's ``progress`` callback (or ``None``); ``train_kw`` go to :func:`train`.
    The configs are built at the call (bad sizes fail before any run); the runs when iterated."""
    from numeric.transformer import TransformerConfig

    # every config and the loss now, so that a bad D/H/eps or loss fails at the call, before any run
    training_loss(train_kw.get("loss", train.__kwdefaults__["loss"]))
    # the runs are seeded 0 .. seeds - 1
    seeds = check_int(seeds, "seeds", lo=1, hi=MAX_SEED + 1)
    configs = {N: TransformerConfig(D=D, L=L, H=H, eps=eps, N_max=max(64, N)) for N in Ns}

    def runs():
        for target in targets:
            for N in Ns:
                for seed in range(seeds):
                    progress = on_start(target, N, seed) if on_start is not None else None
                    yield train(target, N, config=configs[N], seed=seed, progress=progress, **train_kw)
    return runs()


def training_report(dicts) -> dict:
    """The results file of a grid of runs (``docs/data/sg8_training.json``): the runs'
    :meth:`TrainResult.as_dict` and their :func:`summarize_runs`."""
    return {"claim": "SG-8", "runs": dicts, "summary": summarize_runs(dicts)}


def summarize_runs(dicts):
    """Per (target, N) of a list of :meth:`TrainResult.as_dict` dicts: accuracies over seeds,
    min/mean, K_0 fraction and mean sensitivity."""
    out = {}
    for d in dicts:
        key = f"{d['target']}/N={d['N']}"
        e = out.setdefault(key, {"target": d["target"], "N": d["N"], "accuracy": [],
                                 "K0_fraction": [], "mean_sensitivity": [],
                                 "target_mean_sensitivity": d["target_mean_sensitivity"],
                                 "baseline": d["baseline"], "exact": d["accuracy_exact"]})
        e["accuracy"].append(d["accuracy"])
        e["K0_fraction"].append(d["profile_fraction"][0])
        e["mean_sensitivity"].append(d["mean_sensitivity"])
    for e in out.values():
        e["accuracy_min"] = min(e["accuracy"])
        e["accuracy_mean"] = sum(e["accuracy"]) / len(e["accuracy"])
    return out

__all__ = [
    "TrainResult", "TrainingLoss", "TRAINING_LOSSES", "training_loss", "train", "summarize_runs", "run_training_grid", "training_report", "validate_options", "training_data", "fit", "evaluate",
    "EXACT_LIMIT", "ALL_STRINGS_LIMIT", "TRAINING_THREADS", "pinned_threads",
]
