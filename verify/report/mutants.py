r"""Mutation testing of the claims: does each check fail when the code it checks is wrong?

A *mutant* is one plausible bug, installed in-process by replacing one function, method or
attribute of the engine (:mod:`numeric`), the references (:mod:`verify.reference`) or the
experiments (:mod:`verify.experiments`); source files are never edited. Each mutant runs in a
fresh pytest process (:mod:`verify.report.mutant_plugin` installs it before the theorem modules
are imported) on the claim files that should catch it, with ``-x``; the first failing test is
what *caught* it. A mutant whose claim files all pass *survived*: that claim's check cannot see
the bug. Mutants that no claim is meant to see (argument checks, one architecture detail that no
claim depends on) run against unit-test files instead (``kind = "unit"``).

The catalogue is :data:`MUTANTS`; :func:`run_mutants` runs it, :func:`mutation_summary` renders
the result as Markdown. Importing this module loads neither torch nor the engine.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from numeric.validation import InputError, check_int, reject

#: the source tree (unit-test files live in its ``tests/``; the theorems are also installed)
ROOT = Path(__file__).resolve().parents[2]
#: pytest's ``-m`` expression: the quick profile of ``boolverify check``
MARKERS = "not slow and not gpu"
#: the environment variable naming the mutant a pytest process installs
ENV_VAR = "BOOLVERIFY_MUTANT"
#: wall-clock limit of one mutant's pytest process; a mutant that hangs the checks is caught
DEFAULT_TIMEOUT_S = 900


@dataclass(frozen=True)
class Mutant:
    """One plausible bug.

    Args:
        name: unique identifier (``--only NAME``).
        description: the bug, in words.
        target: dotted path of the replaced object, ``package.module.name`` or
            ``package.module.Class.method``.
        make: ``make(original) -> replacement``.
        claim_files: theorem files expected to catch it (``theorems/test_*.py``), cheapest first.
        unit_files: for a bug no claim should see: the unit-test files (or node ids) that should.
    """

    name: str
    description: str
    target: str
    make: Callable[[Any], Any]
    claim_files: tuple[str, ...] = ()
    unit_files: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "unit" if self.unit_files else "claim"

    @property
    def expected_files(self) -> tuple[str, ...]:
        return self.unit_files or self.claim_files


# --------------------------------------------------------------------------- installing


def resolve(target: str):
    """``(owner, attribute, original)`` of a dotted ``target``: the longest importable module
    prefix, then attributes."""
    parts = target.split(".")
    for k in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:k])
        try:
            obj = importlib.import_module(prefix)
        except ModuleNotFoundError as exc:
            if exc.name and not prefix.startswith(exc.name):
                raise  # a missing dependency inside the module, not a shorter prefix to try
            continue
        owner = obj
        for attr in parts[k:]:
            owner, obj = obj, getattr(obj, attr)
        return owner, parts[-1], obj
    raise InputError(f"target = {target!r}: expected a dotted path to an importable attribute")


#: plain values that may be shared by identity (interned): only the target's own binding is replaced
_SCALARS = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)


class Installed:
    """A mutant installed in this process: every binding it replaced, for :meth:`undo`."""

    def __init__(self, mutant, original, replacement, bindings):
        self.mutant, self.original, self.replacement = mutant, original, replacement
        self.bindings = bindings  # [(namespace object, attribute, previous value)]

    @property
    def rebound(self) -> int:
        return len(self.bindings)

    def undo(self) -> None:
        for holder, attr, previous in reversed(self.bindings):
            setattr(holder, attr, previous)
        self.bindings = []


def install(mutant: Mutant) -> Installed:
    """Replace ``mutant.target`` by ``mutant.make(original)`` everywhere it is bound.

    On a class the attribute of the class is replaced (a ``staticmethod`` stays one). For a
    module-level object every module in ``sys.modules`` holding that same object (``from m
    import f`` copies the binding) is rebound, so install before the modules that use it are
    imported *or* after: both see the mutant. Objects kept inside containers (a dict of
    functions) are not reached.
    """
    owner, attr, original = resolve(mutant.target)
    bindings = []
    if isinstance(owner, type):
        raw = owner.__dict__[attr]
        if isinstance(raw, (staticmethod, classmethod)):
            replacement = type(raw)(_named(mutant.make(raw.__func__), raw.__func__))
        else:
            replacement = _named(mutant.make(raw), raw)
        bindings.append((owner, attr, raw))
        setattr(owner, attr, replacement)
        return Installed(mutant, raw, replacement, bindings)
    replacement = _named(mutant.make(original), original)
    if isinstance(original, _SCALARS):
        bindings.append((owner, attr, original))
        setattr(owner, attr, replacement)
        return Installed(mutant, original, replacement, bindings)
    for module in [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]:
        try:
            items = list(vars(module).items())
        except TypeError:  # pragma: no cover - a module without a __dict__
            continue
        for name, value in items:
            if value is original:
                bindings.append((module, name, value))
                setattr(module, name, replacement)
    return Installed(mutant, original, replacement, bindings)


def _named(replacement, original):
    # the mutant reads as the function it replaces in tracebacks (name, module, docstring)
    if isinstance(replacement, types.FunctionType) and isinstance(original, types.FunctionType):
        functools.update_wrapper(replacement, original, updated=())
        del replacement.__wrapped__  # inspect.signature must describe the mutant itself
    return replacement


def by_name(name: str) -> Mutant:
    """The catalogue entry ``name`` (:class:`InputError` for an unknown name)."""
    for m in MUTANTS:
        if m.name == name:
            return m
    reject("mutant", name, "the name of a mutant of the catalogue (boolverify mutants --list)")


# --------------------------------------------------------------------------- the catalogue
#
# Each maker takes the original object and returns the bug: the original wrapped (its output
# perturbed, its input altered) or re-implemented with one term changed. torch and numpy are
# imported inside the makers: the catalogue itself stays cheap to import.

_SX1 = "theorems/test_SX1_population_loss.py"
_SX2 = "theorems/test_SX2_population_gradient.py"
_SX3 = "theorems/test_SX3_cls_equivalence.py"
_SX4 = "theorems/test_SX4_one_step.py"
_SX5 = "theorems/test_SX5_softmax_necessity.py"
_SX6 = "theorems/test_SX6_sample_complexity.py"
_SX8 = "theorems/test_SX8_interpretability.py"
_SG1 = "theorems/test_SG1_profiles.py"
_SG2 = "theorems/test_SG2_random_functions.py"
_SG3 = "theorems/test_SG3_blowup_bound.py"
_SG4 = "theorems/test_SG4_influence.py"
_SG5 = "theorems/test_SG5_margin_recognition.py"
_SG6 = "theorems/test_SG6_random_init_sensitivity.py"
_SG7 = "theorems/test_SG7_measure_zero_targets.py"
_SG8 = "theorems/test_SG8_training.py"


# -- paper A: population loss and gradient (numeric.xor_forms.ClosedFormState) ----------------

def _loss_without_t_squared(original):
    def loss(self):
        N1, N2 = self.N[..., 0], self.N[..., 1]
        g1a, g2a = self.ga[..., 0], self.ga[..., 1]
        g1b, g2b = self.gb[..., 0], self.gb[..., 1]
        P = self.P
        Aa = g1a * g1a * N2 + g2a * g2a * N1 + 2 * g1a * g2a * P
        Ab = g1b * g1b * N2 + g2b * g2b * N1 + 2 * g1b * g2b * P
        SRR = N1 * N2 + P * P - 2 * self.Q
        return self.c0 * self.c0 + Aa + Ab + SRR              # the t^2 square is missing
    return loss


def _loss_cross_sign(original):
    def loss(self):
        N1, N2 = self.N[..., 0], self.N[..., 1]
        g1a, g2a = self.ga[..., 0], self.ga[..., 1]
        g1b, g2b = self.gb[..., 0], self.gb[..., 1]
        P = self.P
        Aa = g1a * g1a * N2 + g2a * g2a * N1 - 2 * g1a * g2a * P   # sign of the cross term
        Ab = g1b * g1b * N2 + g2b * g2b * N1 + 2 * g1b * g2b * P
        SRR = N1 * N2 + P * P - 2 * self.Q
        return self.c0 * self.c0 + self.t * self.t + Aa + Ab + SRR
    return loss


def _weight_grad(drop_support_pull=False, ambient_sign=4):
    def maker(original):
        def weight_grad(self):
            Gam, ga, gb, N = self.Gam, self.ga, self.gb, self.N
            c0, t, P = self.c0[..., None], self.t[..., None], self.P[..., None]
            full = N + ga * ga + gb * gb
            other = Gam.flip(-2)
            prod = Gam[..., 0:1, :] * Gam[..., 1:2, :]
            G = ambient_sign * (c0[..., None] - prod) * other + 2 * full.flip(-1)[..., None] * Gam
            ga_o, gb_o, N_o = ga.flip(-1), gb.flip(-1), N.flip(-1)
            Ga = 2 * c0 * ga_o + 2 * ga * N_o + 2 * ga_o * P - (0 if drop_support_pull else 2 * t * gb_o)
            Gb = 2 * c0 * gb_o + 2 * gb * N_o + 2 * gb_o * P - 2 * t * ga_o
            G[..., self.a] = Ga
            G[..., self.b] = Gb
            return G, Ga, Gb
        return weight_grad
    return maker


def _cotangent_not_centred(original):
    def logit_cotangent(self, Z, attention):
        if attention != "softmax":
            return original(self, Z, attention)
        G, _, _ = self.weight_grad()
        return self.Gam * G                  # diag(gamma) only: the -gamma gamma^T part is missing
    return logit_cotangent


def _erf_cotangent_constant(original):
    def logit_cotangent(self, Z, attention):
        if attention != "erf":
            return original(self, Z, attention)
        import torch

        G, _, _ = self.weight_grad()
        return (1.0 / torch.pi ** 0.5 / Z.shape[-1]) * torch.exp(-Z * Z) * G   # erf' is 2/sqrt(pi) e^{-z^2}
    return logit_cotangent


def _grad_halved(original):
    def population_grad(*args, **kwargs):
        g, gt = original(*args, **kwargs)
        return 0.5 * g, 0.5 * gt           # d(r^2) = r dr: the factor 2 of the square lost
    return population_grad


def _one_pass_without_fallback(original):
    def one_pass_grad(acc):
        # the cancellation check switched off: the moment combination is trusted everywhere
        module = importlib.import_module("numeric.xor_population")
        saved, module._FALLBACK_RATIO = module._FALLBACK_RATIO, float("inf")
        try:
            return original(acc)
        finally:
            module._FALLBACK_RATIO = saved
    return one_pass_grad


def _one_pass_square_moments_swapped(original):
    def one_pass_grad(acc):
        acc.Mom = acc.Mom[[0, 1, 3, 2, 4, 5]]   # sum gamma_i^2 v_i read as the other head's
        return original(acc)
    return one_pass_grad


def _one_pass_support_rows_swapped(original):
    def one_pass_grad(acc):
        acc.va, acc.vb = acc.vb, acc.va         # v_a and v_b exchanged in the support terms
        return original(acc)
    return one_pass_grad


def _grad_heads_swapped(original):
    def population_grad(*args, **kwargs):
        g, gt = original(*args, **kwargs)
        return gt, g
    return population_grad


def _one_step_ascends(original):
    def one_step(V, theta, theta_tilde, support, lr, attention="softmax"):
        t1, tt1 = original(V, theta, theta_tilde, support, lr, attention)
        return 2 * theta - t1, 2 * theta_tilde - tt1      # theta + eta grad
    return one_step


def _support_off_by_one(original):
    def check_model(*args, **kwargs):
        a, b, batch = original(*args, **kwargs)
        d = args[0].shape[-2]
        b1 = (b + 1) % d
        return a, (b1 if b1 != a else b), batch      # b read 1-based
    return check_model


def _map(softmax=None, linear=None, erf=None):
    """A mutant of numeric.attention.map_unchecked with one branch replaced."""
    def maker(original):
        def map_unchecked(z, attention):
            import torch

            d = z.shape[-1]
            if attention == "softmax" and softmax:
                return softmax(torch, z)
            if attention == "linear" and linear:
                return linear(torch, z, d)
            if attention == "erf" and erf:
                return erf(torch, z, d)
            return original(z, attention)
        return map_unchecked
    return maker


def _default_lr_linear_in_d(original):
    def default_lr(d, m, c=10.0):
        return original(d, m, c) / d        # c d sqrt(m) ln d: d^2 lost a factor
    return default_lr


def _empirical_half_samples(original):
    def empirical_grad(V, theta, theta_tilde, X, y, attention="softmax"):
        original(V, theta, theta_tilde, X, y, attention)   # the argument checks stay intact
        h = max(1, X.shape[-2] // 2)
        return original(V, theta, theta_tilde, X[..., :h, :], y[..., :h], attention)
    return empirical_grad


def _labels_wrong_sign(original):
    def sample_data(*args, **kwargs):
        X, y = original(*args, **kwargs)
        return X, -y                        # y = +x_a x_b
    return sample_data


def _gamma_grad_sum_half_samples(original):
    def gamma_grad_sum(X, y, gam):
        h = max(1, X.shape[-2] // 2)
        return original(X[..., :h, :], y[..., :h], gam)
    return gamma_grad_sum


def _blocks_labels_wrong_sign(original):
    def blocks(self):
        for X, y in original(self):
            yield X, -y
    return blocks


def _limit_argmin(original):
    def limit_step_attention(V, theta, theta_tilde, support, attention="softmax"):
        import torch

        if attention != "softmax":
            return original(V, theta, theta_tilde, support, attention)
        from numeric.xor_population import population_grad

        g, gt = population_grad(V, theta, theta_tilde, support, attention)
        out = []
        for grad in (g, gt):
            s = -torch.matmul(grad.unsqueeze(-2), V.mT).squeeze(-2)
            w = (s == s.amin(-1, keepdim=True)).to(s.dtype)   # the most negative logit wins
            out.append(w / w.sum(-1, keepdim=True))
        return out[0], out[1]
    return limit_step_attention


def _assignment_flipped(original):
    def predicted_assignment(V, theta, support):
        a, b = support
        return original(V, theta, (b, a))   # sign((v_b - v_a) . theta)
    return predicted_assignment


def _lr_matrix_without_c(original):
    def lr_matrix(self):
        Kp = self.W_K[:, :, 1:]
        return Kp.transpose(-1, -2) @ Kp     # |c|^2 dropped
    return lr_matrix


def _cls_attends_itself(original):
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.attn_mask[0, 0] = True          # the CLS row also attends to the CLS token
    return __init__


def _linear_bound_hessian(original):
    def linear_attention_loss_bound(V, support):
        import numpy as np

        from verify.reference.linear_bound import _check

        V, a, b = _check(V, support)
        d, m = V.shape
        U, s, _ = np.linalg.svd(V, full_matrices=False)
        r = int((s > s[0] * 1e-12).sum())
        U = U[:, :r]
        W = np.einsum("ip,iq->ipq", U, U).reshape(d, r * r)
        vecI = np.eye(r).reshape(-1)
        H = np.outer(vecI, vecI) + 2.0 * np.eye(r * r) - 1.0 * (W.T @ W)   # factor 2 lost
        B = 0.5 * (np.outer(U[a], U[b]) + np.outer(U[b], U[a]))
        bv = B.reshape(-1)
        w, Q = np.linalg.eigh(H)
        keep = w > w.max() * 1e-13
        proj = Q[:, keep].T @ bv
        bound = 1.0 - 4.0 * float(proj @ (proj / w[keep]))
        x = 2.0 * Q[:, keep] @ (proj / w[keep])
        A = x.reshape(r, r)
        return {"bound": bound, "rank": r, "argmin_trace": float(np.trace(A)),
                "argmin_M": U @ (0.5 * (A + A.T)) @ U.T}
    return linear_attention_loss_bound


def _wilson_one_sided(original):
    def wilson_interval(successes, trials, confidence=0.95, *, z=None):
        from statistics import NormalDist

        if z is None:
            z = NormalDist().inv_cdf(confidence)     # one-sided quantile: 1.645 at 95%
        return original(successes, trials, confidence, z=z)
    return wilson_interval


# -- paper B: profiles, Boolean functions, targets -------------------------------------------

def _bitsliced_pair_mask(original):
    import numpy as np

    # bit 0 pairs string 2k+1 with 2k+2 instead of 2k with 2k+1
    return [np.uint64(0xAAAAAAAAAAAAAAAA)] + list(original[1:])


def _bytes_swap_shifted(original):
    # bit n uses the partner of bit n+1 (bits 0, 1; bit 2 keeps its own): x ^ 2^(n+1)
    return {0: original[1], 1: original[2], 2: original[2]}


def _majority_non_strict(original):
    def truth_table(name, N, **kwargs):
        t = original(name, N, **kwargs)
        if isinstance(name, str) and name.lower() == "majority":
            import torch

            from numeric.boolean import hamming_weights

            w = hamming_weights(N, device=t.device, max_N=kwargs.get("max_N"),
                                allow_large=kwargs.get("allow_large", False))
            return (w.to(torch.int16) * 2 >= N).to(torch.uint8)   # ties count as 1
        return t
    return truth_table


def _parity_skips_last_bit(original):
    def _parity_positions(name, N, params):
        if name == "parity":
            return range(N - 1)
        return original(name, N, params)
    return _parity_positions


def _labels(majority=None, first=None, parity=None):
    """A mutant of numeric.targets.labels with one target's labels replaced."""
    def maker(original):
        def labels(target, bits):
            import torch

            out = original(target, bits)
            w = bits.to(torch.int64).sum(-1)
            N = bits.shape[1]
            if target == "majority" and majority:
                return majority(torch, w, N)
            if target == "first" and first:
                return first(torch, bits)
            if target == "parity" and parity:
                return parity(torch, bits)
            return out
        return labels
    return maker


# -- paper B: the transformer -----------------------------------------------------------------

def _ignores_input(original):
    def _run(self, x, full, record, labels=None):
        import torch

        x = torch.as_tensor(x)
        return original(self, torch.zeros_like(x), full, record, labels)   # every x reads as 0...0
    return _run


def _fast_eval_ignores_input(original):
    def run(self, idx):
        return original(self, idx.new_zeros(idx.shape))   # every string read as index 0: 0...0
    return run


def _no_positional_embedding(original):
    def __init__(self, config=None):
        original(self, config)
        import torch

        pos = torch.zeros_like(self.pos.detach())
        del self.pos
        self.register_buffer("pos", pos)     # never initialised, never trained: all zeros
    return __init__


def _layer_norm(unbiased=False, ignore_eps=False):
    def maker(original):
        def _ln(self, ln, u, layer, which, labels, record, offset, n_total):
            import torch

            mean = u.mean(-1, keepdim=True)
            c = u - mean
            D = u.shape[-1]
            var = (c * c).sum(-1) / (D - 1 if unbiased else D)
            eps = self.config.eps
            if eps == 0.0:
                flat = (u == u[..., :1]).all(-1) | (var == 0)
                if flat.any():
                    self._zero_var_error(flat, layer, which, labels, offset, n_total)
            z = torch.rsqrt(var if ignore_eps else var + eps)
            y = ln.gain * (c * z.unsqueeze(-1)) + ln.bias
            return y, (z if record else None)
        return _ln
    return maker


def _median_readout_ties_read_one(original):
    def readout_table(T, readout="linear"):
        import torch

        if readout == "median":
            return (T >= T.reshape(-1).median()).to(torch.int64)
        return original(T, readout)
    return readout_table


def _pre_ln_residual_normalised(original):
    def _pre_ln_layers(self, table, flat, N, full, record, labels):
        import torch

        # the residual stream carries LN(h) instead of h (the post-LN habit inside pre-LN)
        h = table.index_select(0, flat.reshape(-1)).unflatten(0, flat.shape)
        zs = []
        for ell, lay in enumerate(self.layers):
            a, z = self._ln(lay.ln1, h, ell, 0, labels, record, 0, N + 1)
            zs.append(z)
            h1 = a + self._attention(lay, lay.q(a), lay.k(a), lay.v(a))
            m, z = self._ln(lay.ln2, h1, ell, 1, labels, record, 0, N + 1)
            zs.append(z)
            h = m + lay.fc2(torch.relu(lay.fc1(m)))
        return h, zs, 0
    return _pre_ln_layers


def _random_function_K0_exponent_N(original):
    def random_function_K0(p, N):
        return 2.0**N * (p**N + (1 - p) ** N)   # the string's N neighbours, not the string itself
    return random_function_K0


def _median_bound_one_step_inward(original):
    def median_bounds(values, level=0.99, side="lower"):
        import math

        import torch

        lo, hi = original(values, level, side)
        xs = torch.sort(torch.as_tensor(values, dtype=torch.float64).flatten()).values.tolist()
        if side == "lower" and math.isfinite(lo):
            return xs[min(xs.index(lo) + 1, len(xs) - 1)], hi   # the (k+1)-th smallest
        if side == "upper" and math.isfinite(hi):
            return lo, xs[max(len(xs) - 1 - xs[::-1].index(hi) - 1, 0)]
        return lo, hi
    return median_bounds


def _margin_all_accepted_nonconstant(original):
    def margin_recognition(T, xi):
        r = original(T, xi)
        if r["recognises"] and bool(r["table"].all()):
            # only "reject everything" counted as constant
            r = dict(r, constant=False, nonconstant=True)
        return r
    return margin_recognition


def _log10_values(original):
    def _log_values(Ns, values):
        import math

        return original(Ns, values) / math.log(10)     # log10 of the values, against ln N
    return _log_values


# -- paper B: bounds and random functions -------------------------------------------------------

def _blowup_exponent_L(original):
    def blowup_bound(eps, L_prime, *, dps=50):
        b = original(eps, L_prime, dps=dps)
        import mpmath

        with mpmath.workdps(dps):
            return mpmath.sqrt(b)           # (1 + 1/sqrt(eps))^L: L layers, not L' = 2L LNs
    return blowup_bound


def _theorem_exponent_minus_4(original):
    def theorem_exponent(D, L):
        return original(D, L) + 1           # (D - 1)/(2L) - 4
    return theorem_exponent


def _crossover_direct_off_by_one(original):
    def crossover_direct(a, *, dps=50):
        return original(a, dps=dps) - 1      # the last N with N^a >= 2^N, not the one after it
    return crossover_direct


def _sampler_top_bit_clear(original):
    def monte_carlo_K0(*args, **kwargs):
        import numpy as np

        real = np.random.Generator

        class Drawn63Bits:
            """The sampler's generator with draws below int64's maximum: bit 63 never set."""

            def __init__(self, bit_generator):
                self._gen = real(bit_generator)

            def integers(self, *a, **k):
                return self._gen.integers(*a, **k) & np.uint64(np.iinfo(np.int64).max)

            def __getattr__(self, name):
                return getattr(self._gen, name)

        # the sampler builds its generator from numpy.random at call time: swap it for the call
        np.random.Generator = Drawn63Bits
        try:
            return original(*args, **kwargs)
        finally:
            np.random.Generator = real
    return monte_carlo_K0


def _variance_union_off_by_one(original):
    def variance_K0(N=None):
        import sympy as sp

        from verify.reference.random_functions import N_SYMBOL, expected_K0

        N = N_SYMBOL if N is None else sp.sympify(N)
        p1 = 2 * sp.Rational(1, 2) ** (N + 1)
        n1, n2 = N, sp.binomial(N, 2)
        union = (N + 1) + (N + 1) - 1        # the two shared points counted once, not removed
        p_close = 2 * sp.Rational(1, 2) ** union
        far = 2 ** N - 1 - n1 - n2
        EK2 = 2 ** N * (p1 + (n1 + n2) * p_close + far * p1 ** 2)
        return sp.simplify(sp.expand(EK2 - expected_K0(N) ** 2))
    return variance_K0


# -- argument checks and architecture details no claim depends on (unit-test cases) ----------

def _support_allows_equal(original):
    def check_support(support, d, name="support"):
        try:
            pair = tuple(support)
            if len(pair) == 2 and pair[0] == pair[1] and 0 <= int(pair[0]) < d:
                return int(pair[0]), int(pair[1])     # a == b accepted
        except (TypeError, ValueError):
            pass
        return original(support, d, name)
    return check_support


def _n_params_without_ln(original):
    def n_params(D, L, F=None, N_max=64):
        return original(D, L, F, N_max) - 4 * D * L   # gains and biases of the 2L layer norms
    return n_params


def _stream_limit_ascends(original):
    def __init__(self, grads, d, a, b, attention):
        original(self, grads, d, a, b, attention)
        self.S = -self.S          # s = +V grad: the limit of a step up the gradient
    return __init__


def _model_blocks_restart_seed(original):
    def sample_models(config, scheme, N, models, *, seed=0, workers=None, scheduler=None,
                      progress=None, **kw):
        if workers is None and scheduler is None:
            return original(config, scheme, N, models, seed=seed, progress=progress, **kw)
        rt = importlib.import_module("verify.experiments.random_transformers")
        per = rt.MODELS_PER_TASK
        return rt.join_model_blocks([original(config, scheme, N, min(per, models - s), seed=seed,
                                              workers=workers, scheduler=scheduler, **kw)
                                     for s in range(0, models, per)])   # every block from the first seed
    return sample_models


def _labels_rolled(original):
    def labels(target, bits):
        return original(target, bits).roll(1, 0)  # row i gets the label of row i - 1
    return labels


def _control_labels_three_bits(original):
    def target_labels(target, bits):
        out = original(target, bits)
        if target == "parity01":
            return out ^ bits[:, 2].to(out.dtype)  # parity of bits 0, 1 and 2
        return out
    return target_labels


def _config_eps_ignored(original):
    def __init__(self, config=None):
        import dataclasses

        if config is not None and config.eps != 1e-5:
            config = dataclasses.replace(config, eps=1e-5)
        original(self, config)
    return __init__


def _exact_influence_mean(original):
    def exact_influence_maximum(model, N, *, chunk=8192):
        import torch

        from numeric.transformer_eval import strings

        with torch.no_grad():
            idx = torch.arange(2**N)
            T = model(strings(idx, N).to(model.tok.device)).reshape(-1).cpu().double()
        sup = max(float((T[idx ^ (1 << n)] - T).abs().mean()) for n in range(N))  # mean, not max
        return sup, original(model, N, chunk=chunk)[1]
    return exact_influence_maximum


MUTANTS: tuple[Mutant, ...] = (
    # paper A: loss and gradient
    Mutant("loss_drops_t_squared",
           "population loss without the square t^2 = (1 - g_a g~_b - g_b g~_a)^2 of the support term",
           "numeric.xor_forms.ClosedFormState.loss", _loss_without_t_squared, (_SX3, _SX1)),
    Mutant("loss_cross_term_sign",
           "population loss: -2 g_a g~_a (g_R.g~_R) instead of +2 in the square of the a-coefficients",
           "numeric.xor_forms.ClosedFormState.loss", _loss_cross_sign, (_SX3, _SX1)),
    Mutant("grad_drops_support_pull",
           "dL/dgamma_a without its -2 t g~_b term (the pull towards the support)",
           "numeric.xor_forms.ClosedFormState.weight_grad", _weight_grad(drop_support_pull=True),
           (_SX2, _SX3, _SX8, _SX4)),
    Mutant("grad_ambient_term_sign",
           "dL/dgamma_i: -4(g.g~ - g_i g~_i) g~_i instead of +4",
           "numeric.xor_forms.ClosedFormState.weight_grad", _weight_grad(ambient_sign=-4),
           (_SX2, _SX3)),
    Mutant("grad_halved", "population gradient half its value (the factor 2 of d(r^2) lost)",
           "numeric.xor_population.population_grad", _grad_halved, (_SX2, _SX3)),
    Mutant("grad_heads_swapped", "population_grad returns (grad theta~, grad theta): heads swapped",
           "numeric.xor_population.population_grad", _grad_heads_swapped, (_SX2, _SX3)),
    Mutant("one_pass_without_fallback",
           "one-pass softmax gradient that never falls back to two passes where its moments cancel",
           "numeric.xor_population._one_pass_grad", _one_pass_without_fallback, (_SX2,)),
    Mutant("one_pass_square_moments_swapped",
           "one-pass softmax gradient with the sums of gamma^2 v and gamma~^2 v exchanged",
           "numeric.xor_population._one_pass_grad", _one_pass_square_moments_swapped, (_SX2, _SX3)),
    Mutant("one_pass_support_rows_swapped",
           "one-pass softmax gradient with the rows v_a and v_b exchanged in the support terms",
           "numeric.xor_population._one_pass_grad", _one_pass_support_rows_swapped, (_SX2, _SX3)),
    Mutant("softmax_cotangent_not_centred",
           "softmax pull-back gamma * g, without the -(gamma.g) gamma of diag(gamma) - gamma gamma^T",
           "numeric.xor_forms.ClosedFormState.logit_cotangent", _cotangent_not_centred, (_SX2, _SX3)),
    Mutant("erf_cotangent_constant", "erf Jacobian with 1/sqrt(pi) instead of 2/sqrt(pi)",
           "numeric.xor_forms.ClosedFormState.logit_cotangent", _erf_cotangent_constant, (_SX2,)),
    # paper A: attention maps
    Mutant("softmax_unnormalised", "softmax weights exp(z - max z) without the division by their sum",
           "numeric.attention.map_unchecked",
           _map(softmax=lambda torch, z: torch.exp(z - z.amax(-1, keepdim=True))), (_SX3, _SX1)),
    Mutant("linear_attention_unscaled", "linear attention gamma = z instead of z / d",
           "numeric.attention.map_unchecked", _map(linear=lambda torch, z, d: z), (_SX2, _SX1)),
    Mutant("erf_attention_scale_inside", "erf attention erf(z / d) instead of erf(z) / d",
           "numeric.attention.map_unchecked", _map(erf=lambda torch, z, d: torch.erf(z / d)),
           (_SX2, _SX1)),
    # paper A: the step, the support, the learning rate
    Mutant("one_step_ascends", "one_step moves up the gradient: theta + eta grad",
           "numeric.xor_population.one_step", _one_step_ascends, (_SX3, _SX4)),
    Mutant("support_off_by_one", "the engine reads b one position to the right (1-based b)",
           "numeric.xor_population.check_model", _support_off_by_one, (_SX3, _SX1, _SX2)),
    Mutant("default_lr_linear_in_d", "default step size c d sqrt(m) ln d instead of c d^2 sqrt(m) ln d",
           "numeric.xor_population.default_lr", _default_lr_linear_in_d, (_SX5, _SX4)),
    # SX-6 runs the empirical step of verify.experiments.finite_samples (checked against the
    # engine's in tests/), so these bugs are the claim's; the engine's own empirical step is below
    Mutant("finite_sample_gradient_half_samples",
           "the empirical step sums only the first half of each block of samples (divides by n)",
           "verify.experiments.finite_samples.gamma_grad_sum", _gamma_grad_sum_half_samples, (_SX6,)),
    Mutant("finite_sample_labels_wrong_sign", "the SX-6 samples carry labels y = +x_a x_b",
           "verify.experiments.finite_samples._SampleStream.blocks", _blocks_labels_wrong_sign, (_SX6,)),
    Mutant("limit_step_argmin", "the eta -> infinity limit puts the weight on the argmin, not the argmax",
           "numeric.xor_metrics.limit_step_attention", _limit_argmin, (_SX4,)),
    Mutant("predicted_assignment_flipped", "predicted assignment sign((v_b - v_a).theta0)",
           "numeric.xor_metrics.predicted_assignment", _assignment_flipped, (_SX8,)),
    # paper A: the CLS transformer and the representational bounds, statistics
    Mutant("cls_lr_matrix_without_c_norm", "CLS step scaling W_K^T W_K without the factor |c|^2",
           "numeric.cls_transformer.CLSTransformer.lr_matrix", _lr_matrix_without_c, (_SX3,)),
    Mutant("cls_attends_to_itself", "the CLS row attends to the CLS token too (mask[0, 0] not cleared)",
           "numeric.cls_transformer.CLSTransformer.__init__", _cls_attends_itself, (_SX3,)),
    Mutant("linear_bound_hessian_factor", "linear-attention bound with -W^T W instead of -2 W^T W in H",
           "verify.reference.linear_bound.linear_attention_loss_bound", _linear_bound_hessian, (_SX5,)),
    Mutant("wilson_one_sided_z", "Wilson interval with the one-sided quantile z = Phi^-1(c) (1.645 at 95%)",
           # no claim decides on a Wilson interval any more (the decisions use Clopper-Pearson);
           # the CLI's tables and the coverage tests of the inference module do
           "verify.experiments.statistics.wilson_interval", _wilson_one_sided,
           unit_files=("tests/test_inference.py",)),
    # paper B: profiles and Boolean functions
    Mutant("bitsliced_neighbour_off_by_one",
           "bit-sliced profile: bit 0 pairs strings 2k+1 and 2k+2 (mask 0xAAAA... for 0x5555...)",
           "numeric.bitsliced._M", _bitsliced_pair_mask, (_SG1, _SG7)),
    Mutant("bytes_neighbour_off_by_one",
           "byte profile (N < 6): bits 0 and 1 flip bit n + 1 instead of bit n",
           "numeric.sensitivity._SWAP", _bytes_swap_shifted, (_SG1, _SG2, _SG7)),
    # f -> 1 - f(complement x) maps strict to non-strict MAJORITY and keeps the profile: the
    # profile claims (SG-1, SG-7) cannot see this bug; the table is judged against SG-8's labels
    Mutant("majority_table_non_strict", "MAJORITY truth table 1[|x| >= N/2]: ties count as 1",
           "numeric.boolean.truth_table", _majority_non_strict, (_SG8,)),
    Mutant("parity_skips_last_bit", "PARITY over bits 0..N-2 (range(N - 1))",
           "numeric.boolean._parity_positions", _parity_skips_last_bit, (_SG1, _SG7)),
    # paper B: training targets
    Mutant("training_majority_non_strict", "training labels of MAJORITY 1[2|x| >= N]",
           "numeric.targets.labels",
           _labels(majority=lambda torch, w, N: (2 * w >= N).to(torch.int64)), (_SG8,)),
    Mutant("training_parity_first_10_bits", "training labels of PARITY from the first 10 bits only",
           "numeric.targets.labels",
           _labels(parity=lambda torch, bits: bits[:, :10].to(torch.int64).sum(-1) % 2), (_SG8,)),
    Mutant("training_first_reads_last_bit", "training labels of FIRST from the last bit (MSB-first order)",
           "numeric.targets.labels", _labels(first=lambda torch, bits: bits[:, -1].to(torch.int64)),
           (_SG8,)),
    # paper B: the transformer
    Mutant("transformer_ignores_input", "the transformer evaluates the all-zero string for every input",
           "numeric.transformer_model.BooleanTransformer._run", _ignores_input, (_SG6, _SG4, _SG5, _SG8)),
    Mutant("fast_evaluation_ignores_input",
           "the table-driven enumeration evaluates the all-zero string for every index",
           "numeric.transformer_eval._FastEval.run", _fast_eval_ignores_input, (_SG6,)),
    Mutant("no_positional_embedding", "positional embedding never initialised or trained (zero)",
           "numeric.transformer_model.BooleanTransformer.__init__", _no_positional_embedding,
           (_SG8,)),
    Mutant("layer_norm_ignores_eps", "layer norm 1/sqrt(var) without the epsilon",
           "numeric.transformer_model.BooleanTransformer._ln", _layer_norm(ignore_eps=True), (_SG3,)),
    Mutant("margin_all_accepted_nonconstant",
           "margin recognition: the all-accepting function counted as non-constant",
           "numeric.transformer_eval.margin_recognition", _margin_all_accepted_nonconstant, (_SG5,)),
    Mutant("influence_slope_log10", "log-log slopes of log10(influence) against ln N",
           "verify.experiments.random_transformers._log_values", _log10_values, (_SG4,)),
    # paper B: bounds and random functions
    Mutant("blowup_bound_exponent_L", "blowup bound (1 + 1/sqrt(eps))^L instead of ^(2L)",
           "verify.reference.bounds.blowup_bound", _blowup_exponent_L, (_SG3,)),
    Mutant("theorem_exponent_minus_4", "Theorem 4.5 exponent (D-1)/(2L) - 4 instead of - 5",
           "verify.reference.bounds.theorem_exponent", _theorem_exponent_minus_4, (_SG6,)),
    Mutant("crossover_direct_off_by_one", "direct crossover: the last N with N^a >= 2^N, not N* after it",
           "verify.reference.bounds.crossover_direct", _crossover_direct_off_by_one, (_SG6,)),
    Mutant("random_functions_int64_max",
           "random functions drawn below int64's maximum: bit 63 never set, one function in 64 constant",
           "verify.experiments.random_function_sampling.monte_carlo_K0", _sampler_top_bit_clear, (_SG2,)),
    Mutant("variance_K0_union_off_by_one",
           "Var[K_0] derivation: overlapping neighbourhoods of 2N + 1 points instead of 2N",
           "verify.reference.random_functions.variance_K0", _variance_union_off_by_one, (_SG2,)),
    # unit-test cases: no claim depends on these
    Mutant("empirical_grad_half_samples", "the engine's empirical gradient averages only the first n/2 samples",
           "numeric.xor_population.empirical_grad", _empirical_half_samples,
           unit_files=("tests/test_xor_engine.py", "tests/test_sample_complexity.py")),
    Mutant("sample_labels_wrong_sign", "the engine's sampled labels y = +x_a x_b instead of -x_a x_b",
           "numeric.xor_population.sample_data", _labels_wrong_sign, unit_files=("tests/test_xor_engine.py",)),
    Mutant("support_check_allows_a_equal_b", "check_support accepts a == b",
           "numeric.validation.check_support", _support_allows_equal,
           unit_files=("tests/test_xor_engine.py",)),
    Mutant("layer_norm_unbiased_variance", "layer norm with the unbiased variance (divide by D - 1)",
           "numeric.transformer_model.BooleanTransformer._ln", _layer_norm(unbiased=True), (_SG6,)),
    # paper B: model conventions and the density-matched SG-6 references
    Mutant("random_function_K0_exponent_N", "E_p[K_0] of a Bernoulli(p) random function with p^N, not p^(N+1)",
           "verify.experiments.random_transformers.random_function_K0", _random_function_K0_exponent_N, (_SG6,)),
    Mutant("median_bound_one_step_inward", "the order-statistic median bound one order statistic too tight",
           "verify.experiments.random_transformers.median_bounds", _median_bound_one_step_inward, (_SG6,)),
    Mutant("median_readout_ties_read_one", "median readout 1[T >= median]: ties at the median read 1",
           "numeric.transformer_model.readout_table", _median_readout_ties_read_one,
           unit_files=("tests/test_transformer_conventions.py",)),
    Mutant("pre_ln_residual_normalised", "pre-LN layers carry LN(h) on the residual stream instead of h",
           "numeric.transformer_model.BooleanTransformer._pre_ln_layers", _pre_ln_residual_normalised,
           unit_files=("tests/test_transformer_conventions.py",)),
    Mutant("stream_limit_ascends",
           "streamed sweeps: the eta -> infinity attention from s = +V grad (a step up the gradient)",
           "numeric.xor_stream._LimitArgmax.__init__", _stream_limit_ascends,
           unit_files=("tests/test_sweep_stream.py",)),
    Mutant("model_blocks_restart_seed",
           "random models on a cluster: every block of models starts again at --seed",
           "verify.experiments.random_transformers.sample_models", _model_blocks_restart_seed,
           unit_files=("tests/test_sweep_distributed.py::test_random_models_on_a_cluster_match_in_process",)),
    Mutant("n_params_without_layer_norms", "parameter count M without the 4DL layer-norm parameters",
           "verify.reference.bounds.n_params", _n_params_without_ln, unit_files=("tests/test_bounds.py",)),
    # SG-8 on rules fixed in advance: labels out of step with their strings, a wrong control
    Mutant("training_labels_rolled", "training labels shifted by one row of the batch (row i gets row i-1's)",
           "numeric.targets.labels", _labels_rolled, (_SG8,)),
    Mutant("training_control_parity_three_bits", "the 2-sparse control's labels are the parity of bits 0-2",
           "verify.experiments.training.target_labels", _control_labels_three_bits, (_SG8,)),
    # SG-4, SG-5: the eps ablation and the exact supremum
    Mutant("transformer_config_eps_ignored", "the transformer runs at eps = 1e-5 whatever its config's eps",
           "numeric.transformer_model.BooleanTransformer.__init__", _config_eps_ignored, (_SG4, _SG5)),
    Mutant("exact_influence_mean", "the exact supremum of the influence is the largest mean over strings",
           "verify.experiments.random_transformers.exact_influence_maximum", _exact_influence_mean, (_SG4,)),
)


# --------------------------------------------------------------------------- running


def select(only=None) -> list[Mutant]:
    """The mutants named in ``only`` (catalogue order), or all; an unknown name is an
    :class:`InputError` naming ``--only``."""
    if not only:
        return list(MUTANTS)
    names = {m.name for m in MUTANTS}
    for name in only:
        if name not in names:
            reject("--only", name, "the name of a mutant of the catalogue (boolverify mutants --list)")
    return [m for m in MUTANTS if m.name in set(only)]


def _command(mutant: Mutant) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", "-p", "verify.report.mutant_plugin", "-p",
           "verify.report.check_plugin", "-p", "no:cacheprovider", "--capture=sys", "-q", "-x",
           "-m", MARKERS]
    if mutant.kind == "claim":
        # the installed theorem modules, as `boolverify check` runs them
        return cmd + ["--pyargs"] + [f.removesuffix(".py").replace("/", ".") for f in mutant.claim_files]
    return cmd + list(mutant.unit_files)


def _start(mutant: Mutant, tmp: Path):
    events = tmp / f"{mutant.name}.jsonl"
    events.touch()
    log = open(tmp / f"{mutant.name}.log", "w")
    env = dict(os.environ, BOOLVERIFY_EVENTS=str(events), **{ENV_VAR: mutant.name},
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    try:
        proc = subprocess.Popen(_command(mutant), env=env, cwd=ROOT, stdout=log,
                                stderr=subprocess.STDOUT)
    except BaseException:
        log.close()
        raise
    return proc, events, log, time.monotonic()


def _outcome(mutant: Mutant, rc: int | None, events: Path, log_text: str, seconds: float) -> dict:
    """The result record of one finished (or timed-out) mutant run."""
    evs = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines() if line.strip()]
    installed = next((e for e in evs if e.get("event") == "mutant"), None)
    first = next((e for e in evs if e.get("event") == "test" and e["outcome"] in ("failed", "error")), None)
    ran = sum(e.get("event") == "test" and e["outcome"] != "skipped" for e in evs)
    rec = {"name": mutant.name, "description": mutant.description, "target": mutant.target,
           "expected_files": list(mutant.expected_files), "kind": mutant.kind,
           "caught": False, "caught_by": None, "message": "", "status": "survived",
           "tests_run": ran, "rebound": installed["rebound"] if installed else None,
           "seconds": round(seconds, 2)}
    if rc is None:
        rec.update(caught=True, status="timeout",
                   message=f"no result within {DEFAULT_TIMEOUT_S} s (killed): the checks hang or crawl")
    elif first is not None:
        msg = first.get("message") or ""
        rec.update(caught=True, status="caught", caught_by=first["nodeid"],
                   message=msg.strip().splitlines()[0] if msg.strip() else first["outcome"])
    elif rc not in (0, 5):
        # no failing test, yet pytest did not pass: a collection or import error under the mutant
        tail = [line for line in log_text.strip().splitlines() if line.strip()]
        rec.update(caught=True, status="crashed",
                   message=f"pytest exit {rc} before any test failed: " + (tail[-1] if tail else ""))
    elif rc == 5 or ran == 0:
        rec["message"] = "no test ran (nothing selected)"
    if installed is None and rec["status"] in ("caught", "survived"):
        rec["message"] = (rec["message"] + "; " if rec["message"] else "") + "the mutant was not reported installed"
    return rec


def run_mutants(only=None, jobs=2, on_result=None, timeout_s=DEFAULT_TIMEOUT_S) -> dict:
    """Run each selected mutant in its own pytest process, ``jobs`` at a time.

    Args:
        only: mutant names (default: the whole catalogue).
        jobs: parallel pytest processes (each with one torch thread).
        on_result: callback receiving each mutant's record as it finishes.
        timeout_s: wall-clock limit per mutant (its process is killed; counted as caught).

    Returns:
        ``{"mutants": [records in catalogue order], "score", "caught", "total", "survivors",
        "seconds"}``; a record has ``name, description, target, expected_files, kind, caught,
        caught_by, message, status`` (caught, survived, crashed or timeout) ``, seconds``.
    """
    chosen = select(only)
    jobs = check_int(jobs, "--jobs", lo=1)
    started = time.monotonic()
    results: dict[str, dict] = {}
    queue = list(chosen)
    running = []
    with tempfile.TemporaryDirectory(prefix="boolverify-mutants-") as tmp:
        try:
            while queue or running:
                while queue and len(running) < jobs:
                    mutant = queue.pop(0)
                    running.append((mutant, *_start(mutant, Path(tmp))))
                time.sleep(0.2)
                for item in list(running):
                    mutant, proc, events, log, t0 = item
                    rc = proc.poll()
                    elapsed = time.monotonic() - t0
                    if rc is None and elapsed <= timeout_s:
                        continue
                    if rc is None:
                        proc.kill()
                        proc.wait()
                    log.close()
                    text = Path(log.name).read_text(errors="replace")
                    rec = _outcome(mutant, rc if elapsed <= timeout_s else None, events, text, elapsed)
                    results[mutant.name] = rec
                    running.remove(item)
                    if on_result:
                        on_result(rec)
        finally:
            for _, proc, _, log, _ in running:
                proc.kill()
                proc.wait()
                log.close()
    records = [results[m.name] for m in chosen]
    caught = sum(r["caught"] for r in records)
    return {"mutants": records, "score": caught / len(records) if records else 1.0, "caught": caught,
            "total": len(records), "survivors": [r["name"] for r in records if not r["caught"]],
            "seconds": round(time.monotonic() - started, 1)}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def mutation_summary(result: dict) -> str:
    """The Markdown section "Mutation score": one row per mutant (what it breaks, which test
    caught it), then the survivors."""
    lines = [
        "## Mutation score",
        "",
        f"{result['caught']}/{result['total']} mutants caught (score {result['score']:.2f}). Each "
        "mutant is one plausible bug installed in-process; it is caught when a check it should "
        "break fails (`boolverify mutants`, verify/report/mutants.py).",
        "",
        "| mutant | bug | target | expected to fail | result | caught by | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["mutants"]:
        files = ", ".join(Path(f).name for f in r["expected_files"])
        if r["kind"] == "unit":
            files += " (unit tests)"
        by = f"`{r['caught_by']}`" if r["caught_by"] else _cell(r["message"]) if r["caught"] else "-"
        lines.append(f"| `{r['name']}` | {_cell(r['description'])} | `{r['target']}` | {files} | "
                     f"**{r['status']}** | {by} | {r['seconds']:.0f} |")
    if result["survivors"]:
        lines += ["", "Survivors (a check that cannot see the bug): "
                  + ", ".join(f"`{n}`" for n in result["survivors"]) + "."]
    return "\n".join(lines) + "\n"


__all__ = ["Mutant", "MUTANTS", "ENV_VAR", "MARKERS", "Installed", "resolve", "install", "by_name",
           "select", "run_mutants", "mutation_summary"]
