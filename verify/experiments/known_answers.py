r"""Synthetic inputs with a known answer, for the estimators the claim files depend on.

A claim file runs each estimator it decides with on one of these before it looks at its data,
at the sizes it uses, and fails if the estimator misses the known answer: an estimator that is
wrong in a way the claim's own rule would not see (a regression with its axes swapped, pairs
drawn from the first positions only) is caught there.

Each helper returns the synthetic input and the answer; the bound of a random answer (a
Hoeffding bound at a stated false-fail probability) is computed here, its probability is a rule
number of the claim.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import torch

from verify.common.tolerances import UNIT_ROUNDOFF, is_close, tolerance


def power_law_rows(Ns, exponents, scales=None) -> torch.Tensor:
    r"""``(len(exponents), len(Ns))`` float64 rows :math:`c_j N^{\sigma_j}`: the exact
    log-log slope of row ``j`` is ``exponents[j]``."""
    Ns_t = torch.tensor([float(n) for n in Ns], dtype=torch.float64)
    e = torch.tensor([float(v) for v in exponents], dtype=torch.float64)
    c = torch.ones_like(e) if scales is None else torch.tensor([float(v) for v in scales], dtype=torch.float64)
    return c.unsqueeze(1) * Ns_t.unsqueeze(0) ** e.unsqueeze(1)


class LinearProbe:
    r"""A stand-in for a Boolean transformer whose output reveals which bit was flipped:
    :math:`T(x) = \sum_n (n + 1) x_n`, so :math:`|T(x) - T(x \oplus e_n)| = n + 1` exactly
    (integers, exact in float64 for ``N_max`` below :math:`2^{26}`): the largest influence over
    all strings and positions is :math:`N`, at the last position."""

    def __init__(self, N_max: int):
        self.config = SimpleNamespace(N_max=int(N_max))
        self.tok = torch.zeros(1, dtype=torch.float64)
        self._w = torch.arange(1, int(N_max) + 1, dtype=torch.float64)

    def __call__(self, x):
        x = torch.as_tensor(x)
        return x.to(torch.float64) @ self._w[: x.shape[-1]]

    @staticmethod
    def readout(T):
        r"""Bits :math:`1[T > 0]`: 1 except on the all-zero string, so flipping any one bit
        changes the bit on exactly 2 of the :math:`2^N` strings (Boolean influence
        :math:`2^{1-N}` at every position)."""
        return T > 0


def hoeffding_half_width(lo: float, hi: float, n: int, false_fail: float) -> float:
    r"""Half-width :math:`t` with :math:`P(|\bar X - E X| \ge t) \le` ``false_fail`` for the
    mean of ``n`` values in ``[lo, hi]`` drawn independently or without replacement
    (Hoeffding 1963, both tails)."""
    return (hi - lo) * math.sqrt(math.log(2 / false_fail) / (2 * n))


def uniform_positions_check(positions: torch.Tensor, N: int, false_fail: float) -> dict:
    r"""Whether 0-based positions ``(strings, k)`` look like ``k`` distinct uniform positions of
    ``0..N-1`` per string: every row distinct and in range (exact), the mean position and the
    share in the upper half within Hoeffding bounds of :math:`(N-1)/2` and
    :math:`\lfloor N/2 \rfloor / N` (each at ``false_fail / 2``; ``n`` counts strings, whose
    rows are drawn independently). Returns the measured values, the bounds and ``ok``."""
    pos = positions.to(torch.int64)
    rows = pos.shape[0]
    distinct = all(len(set(r)) == len(r) for r in pos.tolist())
    in_range = bool(((pos >= 0) & (pos < N)).all())
    # per string: the mean of its k positions (in [0, N-1]) and its share in the upper half
    row_mean = pos.double().mean(1)
    row_upper = (pos >= N - N // 2).double().mean(1)
    mean, upper = float(row_mean.mean()), float(row_upper.mean())
    t_mean = hoeffding_half_width(0, N - 1, rows, false_fail / 2)
    t_upper = hoeffding_half_width(0, 1, rows, false_fail / 2)
    want_mean, want_upper = (N - 1) / 2, (N // 2) / N
    ok = (distinct and in_range and abs(mean - want_mean) < t_mean and abs(upper - want_upper) < t_upper)
    return {"mean_position": mean, "expected_mean_position": want_mean, "mean_bound": t_mean,
            "upper_half_share": upper, "expected_upper_half_share": want_upper, "upper_bound": t_upper,
            "distinct": distinct, "in_range": in_range, "ok": ok}


def _kind(name: str) -> str:
    # restated from the architecture: embeddings tok/pos, layer-norm gains and biases, biases, weights
    if name in ("tok", "pos"):
        return "embedding"
    if ".ln1." in name or ".ln2." in name or name.startswith("ln_f."):
        return "ln_gain" if name.endswith("gain") else "ln_bias"
    return "bias" if name.endswith("bias") else "weight"


def init_distribution_check(model, scheme: str, false_fail: float, *, B: float = 1.0, sigma: float = 1.0) -> dict:
    r"""Whether the parameters of ``model``, just initialised by ``scheme``, are draws of that
    scheme's law, restated here from its definition:

    - ``uniform``: every parameter :math:`U(-B, B)` (standard deviation :math:`B/\sqrt3`);
    - ``gaussian``: every parameter :math:`\mathcal N(0, \sigma^2)`;
    - ``xavier_uniform`` / ``xavier_normal``: weights :math:`W \in \mathbb R^{o 	imes i}` and
      the embeddings (fans :math:`(D, D)`) with variance :math:`2/(i + o)`, uniform resp.
      normal; biases and layer-norm biases exactly 0, gains exactly 1.

    The drawn values :math:`	heta` are standardised by their law's standard deviation,
    :math:`z = 	heta / \mathrm{sd}`. Decided: the mean of :math:`z^2` lies in the two-sided
    ``1 - false_fail / 2`` interval of :math:`\chi^2_n / n` (exact for normal laws, conservative
    for uniform ones, whose :math:`z^2` has the smaller variance): a wrong variance fails; the
    shape: a uniform law has every :math:`|z| \le \sqrt 3` (its support, exactly), a normal law
    some :math:`|z| > \sqrt 3` (missed with probability :math:`P(|Z| \le \sqrt3)^n`, at most
    ``false_fail / 2`` at the sizes checked, else ``ok`` is False). The fixed values are exact.
    """
    from scipy.stats import chi2, norm

    D = model.config.D
    drawn, fixed_ok = [], True
    for name, p in model.named_parameters():
        v = p.detach().to(torch.float64).reshape(-1).cpu()
        kind = _kind(name)
        if scheme in ("uniform", "gaussian"):
            sd = B / math.sqrt(3) if scheme == "uniform" else sigma
        elif kind in ("bias", "ln_bias"):
            fixed_ok &= bool((v == 0).all())
            continue
        elif kind == "ln_gain":
            fixed_ok &= bool((v == 1).all())
            continue
        else:
            fan_out, fan_in = (D, D) if kind == "embedding" else tuple(p.shape)
            sd = math.sqrt(2.0 / (fan_in + fan_out))
        drawn.append(v / sd)
    z = torch.cat(drawn)
    n = z.numel()
    mean_sq = float((z * z).mean())
    lo, hi = (float(chi2.ppf(q, n)) / n for q in (false_fail / 4, 1 - false_fail / 4))
    uniform = scheme in ("uniform", "xavier_uniform")
    max_abs = float(z.abs().max())
    root3 = math.sqrt(3)
    miss = (2 * norm.cdf(root3) - 1) ** n  # a normal sample with no |z| beyond sqrt 3
    shape_ok = bool(max_abs <= root3 * (1 + tolerance().rtol) if uniform
                    else (max_abs > root3 and miss <= false_fail / 2))
    ok = bool(fixed_ok and lo < mean_sq < hi and shape_ok)
    return {"scheme": scheme, "n": n, "mean_z_squared": mean_sq, "chi2_interval": [lo, hi],
            "max_abs_z": max_abs, "law": "uniform" if uniform else "normal", "shape_ok": shape_ok,
            "fixed_values_ok": fixed_ok, "ok": ok}




def synthetic_threshold_cells(sweep, *, slope: float, m50_ref: float, d_ref: float, alpha: float,
                              lapse: float, generator) -> dict:
    r"""Binomial success counts on the grid ``sweep`` (rows ``(d, m grid, seeds)``) from the
    threshold model with a known answer: :math:`p(d, m) = (1 - \lambda)\,\sigma(s(\ln m -
    \mu_d))`, :math:`\mu_d = \ln m_{50} + \alpha \ln(d / d_\mathrm{ref})` (``slope`` :math:`s`,
    ``lapse`` :math:`\lambda`; ``m50_ref`` the median threshold at ``d_ref``).

    Returns ``{"d", "m", "successes", "trials"}`` lists (one entry per cell) and
    ``"threshold"``: ``threshold(d, q)``, the true :math:`m^*_q(d) = e^{\mu_d}(q/(1-q))^{1/s}`."""
    ds, ms, ks, ns = [], [], [], []
    for d, grid, seeds in sweep:
        mu = math.log(m50_ref) + alpha * math.log(d / d_ref)
        for m in grid:
            p = (1 - lapse) / (1 + math.exp(-slope * (math.log(m) - mu)))
            k = int(torch.binomial(torch.tensor(float(seeds)), torch.tensor(p), generator=generator))
            ds.append(d), ms.append(m), ks.append(k), ns.append(seeds)

    def threshold(d, q=0.5):
        mu = math.log(m50_ref) + alpha * math.log(d / d_ref)
        return math.exp(mu) * (q / (1 - q)) ** (1 / slope)
    return {"d": ds, "m": ms, "successes": ks, "trials": ns, "threshold": threshold}


def specialisation_instances(d: int = 8, m: int = 16, logit: float = 20.0):
    r"""Embeddings and query pairs whose specialisation is known: ``V`` the first ``d`` rows of
    the identity of :math:`\mathbb R^m` (unit, orthogonal), support ``(0, 1)``, and
    ``(theta, theta_tilde, success, assignment)`` per case: head 1 on a and head 2 on b (a
    success, assignment +1), the swap (success, -1), head 2 uniform (no success), both heads on
    a (no success). A head with query ``logit * e_p`` puts :math:`1 - (d-1)e^{-\text{logit}}`
    of its attention on ``p``."""
    V = torch.eye(m, dtype=torch.float64)[:d]
    e = torch.eye(m, dtype=torch.float64)
    a, b = 0, 1
    L = float(logit)
    cases = [(L * e[a], L * e[b], True, 1), (L * e[b], L * e[a], True, -1),
             (L * e[a], torch.zeros(m, dtype=torch.float64), False, None), (L * e[a], L * e[a], False, None)]
    theta = torch.stack([c[0] for c in cases])
    theta_tilde = torch.stack([c[1] for c in cases])
    return (V.expand(len(cases), d, m).clone(), theta, theta_tilde, (a, b),
            [c[2] for c in cases], [c[3] for c in cases])


def threshold_fit_known_answer(sweep, truth: dict, quantiles, level: float, generator) -> dict:
    r"""The threshold fit (:func:`verify.stats.thresholds.fit_threshold_curves`) on
    :func:`synthetic_threshold_cells` at the grid ``sweep`` with the known ``truth`` (keywords of
    that function): pass iff the power-law exponent's two-sided ``level`` interval contains the
    true :math:`\alpha`, and at every d each fitted :math:`m^*_q` (q in ``quantiles``) lies
    inside the measured m grid and its two-sided ``level`` interval contains the true one
    (intervals quasi-likelihood, as the claims use them). Sizes read on the wrong logarithm put
    the thresholds outside the grid."""
    from verify.stats.likelihood import quasi_level
    from verify.stats.thresholds import fit_threshold_curves

    c = synthetic_threshold_cells(sweep, generator=generator, **truth)
    args = (c["d"], c["m"], c["successes"], c["trials"])
    power = fit_threshold_curves(*args, law="power")
    a_lo, a_hi = power.exponent_interval(conf=quasi_level(level, power.dispersion))
    free = fit_threshold_curves(*args, law="free")
    rows, ok = [], a_lo <= truth["alpha"] <= a_hi
    for d, grid, _ in sweep:
        for q in quantiles:
            got, want = free.threshold(d, q), c["threshold"](d, q)
            lo, hi = free.threshold_interval(d, level=q, conf=quasi_level(level, free.dispersion))
            inside = min(grid) <= got <= max(grid)
            ok = ok and inside and lo <= want <= hi
            rows.append({"d": d, "q": q, "fitted": got, "true": want, "interval": [lo, hi], "inside_grid": inside})
    return {"alpha_true": truth["alpha"], "alpha": power.exponent, "alpha_interval": [a_lo, a_hi],
            "thresholds": rows, "ok": bool(ok)}


def thresholds_inside_grid(fit, sweep, quantiles) -> list:
    """``(d, q, m*_q(d))`` of a fitted threshold model at each d of ``sweep`` that lies outside
    that d's measured m grid (a threshold outside the grid is an extrapolation, or a misread size)."""
    return [(d, q, fit.threshold(d, q)) for d, grid, _ in sweep for q in quantiles
            if not min(grid) <= fit.threshold(d, q) <= max(grid)]


def near_miss_heads(d: int, misses, m: int | None = None):
    r"""Heads whose shares off the support are known: ``V`` the first ``d`` rows of the identity
    of :math:`\mathbb R^m` (``m = d`` by default), support ``(0, 1)``, and per ``e`` in
    ``misses`` the queries :math:`\theta = \ell e_a`, :math:`\tilde\theta = \ell e_b` with
    :math:`\ell = \ln((d-1)(1-e)/e)`, so that :math:`1 - \gamma_a = 1 - \tilde\gamma_b = e`
    (to rounding). Returns ``(V, theta, theta_tilde, support)`` batched over ``misses``."""
    m = d if m is None else m
    V = torch.eye(m, dtype=torch.float64)[:d]
    e = torch.eye(m, dtype=torch.float64)
    logits = [math.log((d - 1) * (1 - float(x)) / float(x)) for x in misses]
    theta = torch.stack([ell * e[0] for ell in logits])
    theta_tilde = torch.stack([ell * e[1] for ell in logits])
    return V.expand(len(logits), d, m).clone(), theta, theta_tilde, (0, 1)


def success_threshold_check(cells, eps: float) -> dict:
    r"""Whether the one-step cells were judged with the success threshold ``eps`` of the claim:
    every cell's recorded ``eps`` equals it, and at that threshold the success metric
    (:func:`numeric.xor.step_metrics`) and its :math:`\eta\to\infty` version
    (:func:`verify.experiments.xor_sweeps.limit_success`) accept heads missing ``eps / 2`` of
    their attention and refuse heads missing ``1.5 eps`` and ``3 eps`` (:func:`near_miss_heads`):
    a criterion two or ten times too lax accepts them."""
    from numeric.xor import step_metrics
    from verify.experiments.xor_sweeps import limit_success

    recorded = sorted({float(c.key["eps"]) for c in cells})
    used = recorded[0] if len(recorded) == 1 else float(eps)
    misses = (0.5 * eps, 1.5 * eps, 3.0 * eps)
    want = [True, False, False]
    V, th, tt, (a, b) = near_miss_heads(8, misses)
    got = [bool(v) for v in step_metrics(V, th, tt, (a, b), eps=used, exact_sup=False)["success"]]
    g = torch.softmax(torch.einsum("sdm,sm->sd", V, th), -1)
    gt = torch.softmax(torch.einsum("sdm,sm->sd", V, tt), -1)
    lim = [bool(v) for v in limit_success(g[:, a], g[:, b], gt[:, a], gt[:, b], used)]
    ok = recorded == [float(eps)] and got == want and lim == want
    return {"eps": float(eps), "recorded_eps": recorded, "misses": list(misses), "expected": want,
            "step_metrics": got, "limit_success": lim, "ok": bool(ok)}


def instance_sampler_check(d: int, m: int, seeds, false_fail: float) -> dict:
    r"""Whether :func:`verify.experiments.xor_sweeps.make_instances` draws what the model says,
    fresh for every seed: unit embeddings :math:`v_i` and a unit query :math:`\theta^{(0)}`,
    :math:`\tilde\theta^{(0)} = -\theta^{(0)}` exactly, no two seeds with the same embeddings or
    query, each seed's instance the same when drawn alone (it does not depend on the batch), and
    the mean of :math:`v_{i1}^2` over all rows within a Hoeffding bound (at ``false_fail``) of
    :math:`1/m`, its value for a uniform direction (rows of one instance are independent, so the
    bound counts them all)."""
    from verify.experiments.xor_sweeps import make_instances

    seeds = list(seeds)
    V, th, tt = make_instances(d, m, seeds)
    tol = tolerance()
    unit = bool(((V.norm(dim=-1) - 1).abs() <= tol.rtol).all() and ((th.norm(dim=-1) - 1).abs() <= tol.rtol).all())
    antisymmetric = bool(torch.equal(tt, -th))
    n = len(seeds)
    distinct = all(not torch.equal(V[i], V[j]) and not torch.equal(th[i], th[j])
                   for i in range(n) for j in range(i + 1, n))
    alone = all(torch.equal(make_instances(d, m, [s])[0][0], V[k]) for k, s in enumerate(seeds))
    second_moment = float((V[..., 0] ** 2).mean())
    bound = hoeffding_half_width(0, 1, V.shape[0] * V.shape[1], false_fail)
    ok = unit and antisymmetric and distinct and alone and abs(second_moment - 1 / m) < bound
    return {"d": d, "m": m, "seeds": seeds, "unit_norms": unit, "antisymmetric": antisymmetric,
            "distinct": distinct, "same_when_drawn_alone": alone, "mean_v1_squared": second_moment,
            "expected": 1 / m, "bound": bound, "ok": bool(ok)}


def instance_sampler_decision(estimand: str, check: dict):
    """The exact decision on an :func:`instance_sampler_check` result."""
    from verify.stats.decisions import exact

    return exact(f"{estimand}: unit norms, theta~ = -theta, distinct per seed, the same drawn alone, mean v_1^2",
                 f"{check['mean_v1_squared']:.4g} (1/m = {check['expected']:.4g} +- {check['bound']:.3g})",
                 "pass iff every property holds and the moment is within its Hoeffding bound", check["ok"])


def tolerance_negative_control(reference: float, dtype="float64") -> dict:
    r"""A known-wrong value against the ``dtype`` row of the tolerance table: ``reference`` off by
    two float32 roundings (relative :math:`2^{-23}`, about 1.2e-7) must be refused both by the
    row's relative bound (``err <= rtol``) and by :func:`verify.common.tolerances.is_close` (no
    absolute slack), the two comparisons the claims make; a float64 row replaced by float32's
    accepts it."""
    off = 2 * UNIT_ROUNDOFF["float32"]
    row = tolerance(dtype)
    wrong = float(reference) * (1 + off)
    by_rtol, by_is_close = not off <= row.rtol, not is_close(wrong, reference, dtype, scale=0.0)
    return {"dtype": str(dtype), "reference": float(reference), "relative_offset": off,
            "row": [row.rtol, row.atol], "refused_by_rtol": by_rtol, "refused_by_is_close": by_is_close,
            "reference_accepted": is_close(reference, reference, dtype, scale=0.0),
            "ok": bool(by_rtol and by_is_close)}


def tolerance_negative_control_decision(estimand: str, check: dict):
    """The exact decision on a :func:`tolerance_negative_control` result."""
    from verify.stats.decisions import exact

    return exact(f"{estimand}: a value off by two float32 roundings under the {check['dtype']} row of the tolerance "
                 "table", f"refused by err <= rtol: {check['refused_by_rtol']}, by is_close: "
                 f"{check['refused_by_is_close']}", "pass iff both refuse it", check["ok"])


__all__ = ["power_law_rows", "LinearProbe", "hoeffding_half_width", "uniform_positions_check",
           "init_distribution_check", "synthetic_threshold_cells", "specialisation_instances",
           "threshold_fit_known_answer", "thresholds_inside_grid", "near_miss_heads", "success_threshold_check",
           "instance_sampler_check", "instance_sampler_decision", "tolerance_negative_control",
           "tolerance_negative_control_decision"]
