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

import math

import torch

from numeric.transformer._model import BooleanTransformer, check_transformer
from numeric.validation import check_bool, check_int, check_real, check_seed, reject

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


def fast_path_applies(model) -> bool:
    """Whether :func:`evaluate_all` can use the table-driven pass (:class:`FastEvaluator`): the
    default (post-LN, float64, linear readout) conventions and ``L >= 2`` (with ``L = 1`` the
    only layer is also the eos-only last layer, which the model's own pass already shortcuts)."""
    cfg = model.config
    preset = getattr(cfg, "preset", "boolverify")  # configs without conventions are the default
    return preset == "boolverify" and cfg.L >= 2 and model.tok.dtype == torch.float64


def fast_evaluator(model, N, chunk):
    """The table-driven pass for strings of length ``N``, ``chunk`` strings at a time (for
    :mod:`numeric.transformer`); ``None`` where :func:`fast_path_applies` does not."""
    return FastEvaluator(model, N, chunk) if fast_path_applies(model) else None


class FastEvaluator:
    r"""The eos-only forward pass of every string of one length, organised for enumeration.

    The same function as ``model.run(x, full=False)`` (same operations up to the order of
    floating-point sums; the Boolean tables agree, tested), but:

    - layer 1 reads per-head query/key/value rows from a ``(3(N+1), d_h)`` table (a position's
      layer-1 input takes 3 values) straight into preallocated buffers; every temporary of a
      chunk lives in buffers allocated once per call (the allocator used to hand back fresh
      pages for every chunk: ~40 % of the time went to page faults);
    - the last layer needs only the eos query, so its keys and values are never formed:
      :math:`q_h^\top (W_{k,h} h_m + b_{k,h}) = (W_{k,h}^\top q_h)^\top h_m + \text{const}` (the
      constant cancels in the softmax) and :math:`\sum_m a_m (W_{v,h} h_m + b_{v,h}) =
      W_{v,h} \sum_m a_m h_m + b_{v,h}`: two small products per string instead of the
      :math:`2(N+1)D^2` of the key and value projections.

    With ``eps = 0`` a layer-norm input whose computed variance is at rounding level (all a
    mathematically zero variance can give) sends the chunk through ``model.run``, which
    raises the precise :class:`InputError` (or evaluates it, if the variance was not zero).
    """

    def __init__(self, model, N, chunk):
        cfg = model.config
        self.model, self.N, self.chunk = model, N, chunk
        self.D, self.H, self.L, self.F = cfg.D, cfg.H, cfg.L, cfg.F
        self.dh = cfg.D // cfg.H
        self.eps = cfg.eps
        dev = model.tok.device
        n = N + 1
        kw = dict(dtype=torch.float64, device=dev)
        D, H, dh, F, B = self.D, self.H, self.dh, self.F, chunk
        table = (model.tok.unsqueeze(0) + model.pos[:n].unsqueeze(1)).reshape(3 * n, D)
        lay0 = model.layers[0]
        scale = 1.0 / math.sqrt(dh)
        q, k, v = lay0.q(table) * scale, lay0.k(table), lay0.v(table)
        self.tables = [(q[:, h * dh:(h + 1) * dh].contiguous(), k[:, h * dh:(h + 1) * dh].contiguous(),
                        v[:, h * dh:(h + 1) * dh].contiguous()) for h in range(H)]
        self.h0 = (table + lay0.o.bias).contiguous()  # the residual, with the output bias folded in
        self.offsets = 3 * torch.arange(n, device=dev)
        self.shifts = torch.arange(N, device=dev)
        # buffers, reused by every chunk
        self.qh = torch.empty(B, n, dh, **kw)
        self.kh = torch.empty(B, n, dh, **kw)
        self.vh = torch.empty(B, n, dh, **kw)
        self.sc = torch.empty(B, n, n, **kw)
        self.mx = torch.empty(B, n, 1, **kw)
        self.oh = torch.empty(B, n, dh, **kw)
        self.u = torch.empty(B * n, D, **kw)
        self.h = torch.empty(B * n, D, **kw)
        self.tmp = torch.empty(B * n, D, **kw)
        self.a1 = torch.empty(B * n, F, **kw)
        self.flat = torch.empty(B, n, dtype=torch.long, device=dev)
        self.flat[:, N] = 3 * N + 2  # eos

    # -- pieces ------------------------------------------------------------------------
    def _ln_(self, ln, u, rows):
        """LN of ``u`` (rows, D) in place; False if some variance is at rounding level (eps = 0)."""
        mean = u.mean(-1, keepdim=True)
        u.sub_(mean)
        tmp = self.tmp[:rows]
        torch.mul(u, u, out=tmp)
        var = tmp.mean(-1)
        if self.eps == 0.0:
            # a mathematically zero variance leaves a computed one below ~(D 2^-53 |mean|)^2
            if bool((var <= 1e-20 * (mean.squeeze(-1) ** 2)).any()):
                return False
        z = torch.rsqrt(var.add_(self.eps))
        u.mul_(z.unsqueeze(-1)).mul_(ln.gain).add_(ln.bias)
        return True

    def _mlp_(self, lay, h, rows):
        """``h <- h + W2 relu(W1 h + b1) + b2`` (rows, D), in place."""
        a1 = self.a1[:rows]
        torch.addmm(lay.fc1.bias, h, lay.fc1.weight.t(), out=a1)
        a1.clamp_(min=0)
        h.addmm_(a1, lay.fc2.weight.t())
        h.add_(lay.fc2.bias)

    def _attend_(self, qh, kh, vh, b):
        """Per-head softmax attention of (b, n, dh) buffers; result in ``self.oh[:b]``."""
        sc, mx, oh = self.sc[:b], self.mx[:b], self.oh[:b]
        torch.bmm(qh, kh.transpose(1, 2), out=sc)
        torch.amax(sc, -1, keepdim=True, out=mx)
        sc.sub_(mx).exp_()
        sc.div_(sc.sum(-1, keepdim=True))
        torch.bmm(sc, vh, out=oh)
        return oh

    # -- one chunk ---------------------------------------------------------------------
    def run(self, idx):
        """T of the strings ``idx`` (1-d, at most ``chunk``); None where eps = 0 needs the
        model's own pass (see the class docstring)."""
        b = idx.shape[0]
        flat = self.flat[:b]
        torch.bitwise_and(idx.unsqueeze(-1) >> self.shifts, 1, out=flat[:, :self.N])
        return self._run(b)

    def run_bits(self, x):
        """T of the strings ``x`` (0/1, ``(b, N)``, ``b <= chunk``); None as :meth:`run`."""
        b = x.shape[0]
        self.flat[:b, :self.N].copy_(x)
        return self._run(b)

    def _run(self, b):
        N, D, H, dh, n = self.N, self.D, self.H, self.dh, self.N + 1
        rows = b * n
        model = self.model
        flat = self.flat[:b]
        flat[:, :N] += self.offsets[:N]
        fl = flat.reshape(-1)
        u = self.u[:rows]
        torch.index_select(self.h0, 0, fl, out=u)
        lay0 = model.layers[0]
        Wo = lay0.o.weight
        for h in range(H):
            tq, tk, tv = self.tables[h]
            qh, kh, vh = self.qh[:b], self.kh[:b], self.vh[:b]
            torch.index_select(tq, 0, fl, out=qh.view(rows, dh))
            torch.index_select(tk, 0, fl, out=kh.view(rows, dh))
            torch.index_select(tv, 0, fl, out=vh.view(rows, dh))
            oh = self._attend_(qh, kh, vh, b)
            u.addmm_(oh.view(rows, dh), Wo[:, h * dh:(h + 1) * dh].t())
        if not self._ln_(lay0.ln1, u, rows):
            return None
        self._mlp_(lay0, u, rows)
        if not self._ln_(lay0.ln2, u, rows):
            return None
        hcur, spare = u, self.h[:rows]
        for lay in model.layers[1:-1]:
            hn, spare = spare, hcur
            hn.copy_(hcur).add_(lay.o.bias)
            for h in range(H):
                sl = slice(h * dh, (h + 1) * dh)
                qh, kh, vh = self.qh[:b], self.kh[:b], self.vh[:b]
                torch.addmm(lay.q.bias[sl], hcur, lay.q.weight[sl].t(), out=qh.view(rows, dh))
                qh.mul_(1.0 / math.sqrt(dh))
                torch.addmm(lay.k.bias[sl], hcur, lay.k.weight[sl].t(), out=kh.view(rows, dh))
                torch.addmm(lay.v.bias[sl], hcur, lay.v.weight[sl].t(), out=vh.view(rows, dh))
                oh = self._attend_(qh, kh, vh, b)
                hn.addmm_(oh.view(rows, dh), lay.o.weight[:, sl].t())
            if not self._ln_(lay.ln1, hn, rows):
                return None
            self._mlp_(lay, hn, rows)
            if not self._ln_(lay.ln2, hn, rows):
                return None
            hcur = hn
        # last layer, eos query only
        lay = model.layers[-1]
        hs = hcur.view(b, n, D)
        he = hs[:, N, :]
        q = torch.addmm(lay.q.bias, he, lay.q.weight.t())  # (b, D)
        # r_h = W_{k,h}^T q_h / sqrt(dh): scores_m = r_h . h_m (+ a constant that cancels)
        Wk = lay.k.weight.view(H, dh, D)
        r = torch.bmm(q.view(b, H, dh).transpose(0, 1), Wk).transpose(0, 1)  # (b, H, D)
        r.mul_(1.0 / math.sqrt(dh))
        sc = torch.bmm(r, hs.transpose(1, 2))  # (b, H, n)
        sc.sub_(sc.amax(-1, keepdim=True)).exp_()
        sc.div_(sc.sum(-1, keepdim=True))
        g = torch.bmm(sc, hs)  # (b, H, D): attention-weighted inputs per head
        Wv = lay.v.weight.view(H, dh, D)
        o = torch.bmm(g.transpose(0, 1), Wv.transpose(1, 2)).transpose(0, 1).reshape(b, D)
        o.add_(lay.v.bias)
        ue = torch.addmm(lay.o.bias, o, lay.o.weight.t()).add_(he)
        if not self._ln_(lay.ln1, ue, b):
            return None
        a1 = torch.addmm(lay.fc1.bias, ue, lay.fc1.weight.t()).clamp_(min=0)
        ue.addmm_(a1, lay.fc2.weight.t()).add_(lay.fc2.bias)
        if not self._ln_(lay.ln2, ue, b):
            return None
        return model.out(ue).squeeze(-1)


@torch.no_grad()
def _evaluate(model, N, chunk, blowup, fast=None):
    dev = model.tok.device
    if chunk is None:
        chunk = DEFAULT_CHUNK if dev.type == "cpu" else DEFAULT_CHUNK_CUDA
    total = 1 << N
    chunk = min(chunk, total)
    T = torch.empty(total, dtype=torch.float64, device=dev)
    beta = torch.empty(total, dtype=torch.float64, device=dev) if blowup else None
    if fast is None:
        fast = fast_path_applies(model)
    fe = FastEvaluator(model, N, chunk) if fast and not blowup else None
    for start in range(0, total, chunk):
        idx = torch.arange(start, min(start + chunk, total), device=dev)
        if fe is not None:
            Tc = fe.run(idx)
            if Tc is not None:
                T[start : start + len(idx)] = Tc
                continue
        x = strings(idx, N)
        Tc, zs = model.run(x, full=blowup, record=blowup, labels=idx)
        T[start : start + len(idx)] = Tc
        if blowup:
            beta[start : start + len(idx)] = torch.stack([(1 + z).amax(-1) for z in zs], -1).prod(-1)
    return T, beta


def evaluate_all(model: BooleanTransformer, N: int, *, chunk: int | None = None,
                 fast: bool | None = None) -> torch.Tensor:
    r""":math:`T(x)` for all :math:`x \in \{0,1\}^N` in string-index order, by batched
    forward passes of ``chunk`` strings (``None``: ``DEFAULT_CHUNK`` on CPU,
    ``DEFAULT_CHUNK_CUDA`` on CUDA). ``fast``: the table-driven pass of :class:`FastEvaluator`
    (``None``: wherever :func:`fast_path_applies`; ``False``: the model's own forward pass).

    Returns:
        float64 tensor of shape ``(2**N,)`` on the model's device.
    """
    check_transformer(model)
    N = check_length(model, N)
    chunk = None if chunk is None else check_int(chunk, "chunk", lo=1)
    if fast is not None:
        check_bool(fast, "fast")
        if fast and not fast_path_applies(model):
            reject("fast", fast, "False or None for this model (the fast pass needs the default "
                   "conventions, float64 and L >= 2)")
    return _evaluate(model, N, chunk, blowup=False, fast=fast)[0]


def evaluate_all_blowup(model: BooleanTransformer, N: int, *, chunk: int | None = None):
    r"""``(T, beta)`` for all :math:`2^N` strings: outputs and blowup :math:`\beta^L(x)`."""
    check_transformer(model)
    N = check_length(model, N)
    chunk = None if chunk is None else check_int(chunk, "chunk", lo=1)
    return _evaluate(model, N, chunk, blowup=True)


def boolean_table(model: BooleanTransformer, N: int, *, chunk: int | None = None,
                  fast: bool | None = None) -> torch.Tensor:
    r"""Truth table :math:`f(x)` of the model's readout (``model.config.readout``, e.g.
    :math:`1[T(x) > 0]` for ``linear``) of the outputs of all :math:`2^N` strings at once (so a
    ``median`` readout sees every string), int64 0/1 of shape ``(2**N,)``."""
    return model.readout(evaluate_all(model, N, chunk=chunk, fast=fast))


def table_profile(table: torch.Tensor) -> torch.Tensor:
    r"""Profile :math:`K_k = \#\{x : s(x, f) = k\}` of a 0/1 table, via
    :func:`numeric.boolean.profile` (flips are table lookups, no model evaluation)."""
    from numeric.boolean import profile

    return profile(table)


def model_profile(model: BooleanTransformer, N: int, *, chunk: int | None = None) -> torch.Tensor:
    r"""Sensitivity profile :math:`(K_0, \dots, K_N)` of the model's Boolean function
    (:func:`boolean_table`, under its readout) from one forward pass per string (:math:`2^N`
    evaluations, not :math:`(N+1)2^N`)."""
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
    from numeric.transformer._model import random_model

    models = check_int(models, "models", lo=1)
    seed = check_seed(seed, "seed", count=models)
    out = torch.empty(models, N + 1, dtype=torch.int64) if isinstance(N, int) and N >= 0 else None
    for i in range(models):
        model = random_model(config, scheme, seed + i, device=device, **init_kw)
        out[i] = model_profile(model, N, chunk=chunk)
        if progress is not None:
            progress(i)
    return out
