r"""SG-6 (as formalised in boolverify): randomly initialised transformers that compute a
non-constant Boolean function have far more zero-sensitivity strings than a random function of
the same density; Theorem 4.5 states :math:`K_0 \ge N^{a}` for all large :math:`N` at
:math:`\varepsilon = 0`, :math:`a(D,L) = \frac{D-1}{2L} - 5`.

Finite-:math:`N` evidence (exact profiles over all :math:`2^N` strings), at ``SG6.N``, in two
settings (:data:`verify.experiments.plans.SG6_FAST`, :data:`~verify.experiments.plans.SG6_BHATTAMISHRA`;
the numbers are those of :data:`verify.experiments.claim_rules.SG6`, rendered in
``docs/claims.md#sg-6``, named by their fields):

- the ``boolverify`` conventions (post-LN, biased variance, eps inside the square root, linear
  readout at 0) at ``D``, ``L``, ``H``, F = 4D, **eps = 0**, each of boolverify's four init
  schemes (uniform box B = 1 and Gaussian sigma = 1 on every parameter, biases and LN included;
  Xavier; ours, not the public code's four, which are options of the preset);
- the ``bhattamishra`` preset (the public random-transformer experiment: pre-LN + final LN,
  unbiased std + ``bhattamishra_eps``, sqrt(D) token scale, zero biases, LN gain 1, sigmoid at
  1/2, F = 2D, float32) at ``D``, ``L``, ``bhattamishra_H`` heads with every weight
  U(-``bhattamishra_B``, ``bhattamishra_B``): **eps > 0**.

Most random models compute a *constant* function (``docs/results-paper-b.md``), which has
:math:`K_0 = 2^N` trivially and says nothing about sensitivity; a transformer that ignores its
input computes only constants. So the constant fraction is estimated and reported on its own,
and the claim is about the **non-constant** models: drawn (seeds from the seed base) until
``target`` per scheme (``bhattamishra_target`` for the preset) compute a non-constant
function, at most ``max_draws`` (``bhattamishra_max_draws``) draws.

The comparison is density-matched: a model whose function reads 1 on a fraction :math:`p` of
the strings is compared with a random function with i.i.d. Bernoulli(:math:`p`) values, which
has :math:`E_p[K_0] = 2^N(p^{N+1} + (1-p)^{N+1})` and average sensitivity :math:`2Np(1-p)` (both
checked here by exact enumeration). A nearly constant function has
:math:`K_0 \approx E_p[K_0] \approx 2^N`, so the uniform-random-function value :math:`2^{-N}`
of :math:`K_0/2^N` would be no test at all.

*Known answer* (exact, before the data): one model per scheme, drawn as the sampled models are,
has its scheme's law (:func:`verify.experiments.known_answers.init_distribution_check`): the
mean squared standardised parameter inside the chi-square interval and the shape (uniform or
normal) right, each at false-fail probability ``known_answer_false_fail``, and the fixed biases
and gains exact, so boolverify's four schemes are four distinct distributions. Planted: Xavier-normal
drawing Xavier-uniform values and the Gaussian scheme drawing the box fail here.

*Estimands and rules* (fixed in advance; one-sided ``level`` bounds; Clopper-Pearson for
proportions, exact also under this draw-until-n rule; for medians the distribution-free
order-statistic bound, :func:`~verify.stats.intervals.median_bounds`):

1. pass iff the target number of non-constant models turns up within the draw cap (exact);
2. :math:`P(\text{constant})`: pass iff the upper bound is below ``constant_max`` (its
   two-sided ``report_conf`` interval is recorded);
3. :math:`P(K_0 \ge 1 \mid \text{non-constant})`: pass iff the lower bound is above
   ``p_random_function`` = :math:`1 - 1/e`, the value of uniformly random functions; the models
   with :math:`K_0 = 0` are recorded with their seed, the function if it is a (negated) parity
   or DICTATOR, else the nearest such and how often it agrees, not hidden;
4. median of :math:`K_0/E_p[K_0]` over non-constant models: pass iff the lower bound is above
   ``ratio_floor``;
5. median of :math:`\mathrm{as}(f)/(2Np(1-p))`: pass iff the upper bound is below
   ``as_ratio_ceiling``.

So the claim is **not** "almost surely :math:`K_0 \ge 1`": at these sizes models with
:math:`K_0 = 0` occur at a small positive rate, mostly (negated) DICTATORs (measured counts:
``docs/results-paper-b.md``).

*Error rates of correct code*, from pilots of 300 non-constant models per setting at seeds
800000+ (not a test seed range): rule 4 fails only if at least the order statistic's share of
models has a ratio at or below 1 (mostly functions with one or two strings read differently),
with probability below :math:`10^{-4}` per scheme at the 95 % upper bounds of the pilot shares;
rule 5 is the mirror image, with no larger error; rule 1 fails with probability below
:math:`10^{-13}`; rule 3's threshold lies far below the pilot rates. A transformer that ignores
its input fails rules 1 and 2.

*eps*: the same boolverify non-constant models at eps = 1e-5 are recorded beside eps = 0
(fraction with :math:`K_0 \ge 1`, how many profiles change): at random parameters the
layer-norm variances are of order one, so the difference between eps = 0 (Theorem 4.5) and
eps > 0 (SG-4, SG-5) does not show at these N; the bhattamishra setting has eps > 0 throughout.

*The forward pass itself* is checked against a plain-Python loop written here from the
architecture in ``docs/results-paper-b.md`` (post-LN, biased variance, eps inside the square
root, affine Q/K/V/O, ReLU MLP, readout at ``eos``), for fixed small weights, at eps = 0,
1e-5 and 0.5, to 1e-10: a layer norm with the unbiased variance, a misplaced eps or an input
that is ignored fail there (the other conventions: ``tests/numeric/test_transformer_conventions.py``).

At D = 8, :math:`a(8, 2) < 0`, so the theorem's bound is only :math:`K_0 \ge 1`. The slow
variants apply the same rules at D = 16, N = 14 and at D = 32, N = 12, where
:math:`a(32, 2) = 2.75` (:data:`~verify.experiments.plans.SG6_SLOW`; minutes per scheme, not
re-run for every change).

Bound side (mpmath, 50 digits): :math:`a(D, L)` exactly, and the crossover
:math:`N^*` where :math:`N^a < 2^N` starts to hold for good, from the Lambert-W closed form
:math:`N = -(a/\ln 2)\,W_{-1}(-\ln 2/a)` and by direct evaluation; they must agree.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest
import torch
from scipy import stats

from numeric.transformer import SCHEMES, BooleanTransformer, TransformerConfig, initialize_, preset_config
from verify.common.tolerances import NAMED, tolerance
from verify.common.seeds import seed
from verify.experiments.plans import SG6_BHATTAMISHRA, SG6_FAST, SG6_SLOW
from verify.experiments.claim_rules import SG6
from verify.experiments.known_answers import (
    init_distribution_check, tolerance_negative_control, tolerance_negative_control_decision,
)
from verify.experiments.random_transformers import (
    density_matched_ratios, profile_statistics, random_function_avg_sensitivity,
    random_function_K0, readout_profile, sample_nonconstant_profiles,
)
from verify.reference import certified
from verify.reference.bounds import crossover, theorem_exponent
from verify.stats.decisions import exact, lower_bound_above, upper_bound_below
from verify.stats.intervals import clopper_pearson, median_bounds
from verify.reference.transformer_loop import loop_output

#: the conventions of the public random-transformer code (satwik77/Transformer-Simplicity,
#: RandFLTAtt: pre-LN layers and a final LN, std with eps added, sqrt(D) token scale, no biases,
#: LN gain 1 and bias 0, sigmoid read at 1/2, learned positions, float32), as read from its source
PUBLIC_RANDOM_TRANSFORMER = dict(norm="pre", final_ln=True, ln_variance="unbiased", ln_eps="added_to_std",
                                 embedding_scale="sqrt_D", biases="zero", ln_affine="identity",
                                 readout="sigmoid", dtype="float32", positions="learned")


def decide_preset_conventions(plan, evidence):
    """Construction constants: the preset's model is the public code's (every convention, one
    head, MLP width 2D), a model without its final layer norm fails here."""
    cfg = _config(plan, plan["eps"])
    got = {k: getattr(cfg, k) for k in PUBLIC_RANDOM_TRANSFORMER}
    wrong = sorted(k for k, v in PUBLIC_RANDOM_TRANSFORMER.items() if got[k] != v)
    shape_ok = cfg.H == SG6.bhattamishra_H and cfg.F == 2 * cfg.D and cfg.eps == SG6.bhattamishra_eps
    evidence["preset_conventions"] = {**got, "H": cfg.H, "F": cfg.F, "eps": cfg.eps}
    evidence.decide(exact(f"{plan['preset']} preset: conventions differing from the public code's, and its "
                          "H, F, eps", f"{wrong}; H = {cfg.H}, F = {cfg.F}, eps = {cfg.eps:g}",
                          f"pass iff none, H = {SG6.bhattamishra_H}, F = 2D, eps = {SG6.bhattamishra_eps:g}",
                          not wrong and shape_ok))


def _config(plan, eps):
    return preset_config(plan["preset"], N_max=plan["N"], D=plan["D"], L=plan["L"], H=plan["H"], eps=eps)


def _check_init_law(scheme, plan, evidence):
    """Known answer: the scheme draws its own law (variance and shape), not another scheme's."""
    init_kw = {"B": plan["B"]} if "B" in plan else {}
    model = initialize_(BooleanTransformer(_config(plan, plan["eps"])), scheme,
                        generator=torch.Generator().manual_seed(seed(plan["seed"])), **init_kw)
    check = init_distribution_check(model, scheme, SG6.known_answer_false_fail, **init_kw)
    evidence[f"{scheme}_init_law"] = {k: v for k, v in check.items() if k != "ok"}
    evidence.decide(exact(f"{scheme}: mean of (parameter / its law's sd)^2 over {check['n']} drawn parameters, "
                          f"largest |z| ({check['law']} law)", f"{check['mean_z_squared']:.4g}, "
                          f"{check['max_abs_z']:.4g}", "pass iff in the chi^2 interval "
                          f"[{check['chi2_interval'][0]:.3g}, {check['chi2_interval'][1]:.3g}], the shape "
                          "matches (uniform: |z| <= sqrt 3; normal: some |z| > sqrt 3) and the fixed values "
                          "are exact", check["ok"]))


def _check_init(scheme, plan, evidence):
    N, target, cap = plan["N"], plan["target"], plan["max_draws"]
    init_kw = {"B": plan["B"]} if "B" in plan else {}
    s0 = seed(plan["seed"])
    got = sample_nonconstant_profiles(_config(plan, plan["eps"]), scheme, N, target, cap, seed=s0,
                                      chunk=plan["chunk"], **init_kw)
    K, draws, n = got.profiles, got.draws, len(got.seeds)
    stats_ = profile_statistics(K, N)
    ratios = density_matched_ratios(K, got.ones, N)
    evidence[scheme] = {
        "preset": plan["preset"], "N": N, "draws": draws, "constant": got.constant, "nonconstant": n,
        "first_seed": s0,
        "constant_fraction_ci95": list(clopper_pearson(got.constant, draws, SG6.report_conf)),
        "nonconstant_K0_ge_1": int(stats_.has_K0.sum()),
        "nonconstant_K0_zero": [z.as_dict() for z in got.zero_K0],
        "nonconstant_density": [float(v) for v in ratios.p],
        "nonconstant_K0_ratio": [float(v) for v in ratios.K0_ratio],
        "nonconstant_as_ratio": [float(v) for v in ratios.as_ratio],
        "nonconstant_K0_frac": [float(v) for v in stats_.K0_frac],
        "nonconstant_avg_sensitivity": [float(v) for v in stats_.avg_sensitivity],
        "random_function": {"P_K0_ge_1": SG6.p_random_function, "K0_ratio": 1.0, "as_ratio": 1.0},
    }
    if plan["eps_check"] is not None:
        # the eps mechanism: the same non-constant models at eps > 0
        model = BooleanTransformer(_config(plan, plan["eps_check"]))
        K_eps = []
        for s in got.seeds:
            initialize_(model, scheme, generator=torch.Generator().manual_seed(s), **init_kw)
            K_eps.append(readout_profile(model, N, chunk=plan["chunk"])[1])
        evidence[scheme][f"eps_{plan['eps_check']:g}"] = {
            "nonconstant_K0_ge_1": sum(int(k[0] >= 1) for k in K_eps),
            "profiles_changed": sum(int((a != b).any()) for a, b in zip(K, K_eps))}
    lvl = 2 * SG6.level - 1  # two-sided 98 % intervals: their ends are the one-sided 99 % bounds
    evidence.decide(exact(f"{scheme}: non-constant models within {cap} draws", n,
                          f"pass iff >= {target}", n >= target))
    evidence.decide(upper_bound_below(f"{scheme}: P(constant function)", got.constant / draws,
                                      clopper_pearson(got.constant, draws, lvl), lvl, SG6.constant_max))
    if n < 2:  # nothing to estimate from (rule 1 has already failed): say so
        evidence.decide(exact(f"{scheme}: non-constant models to decide on", n, "pass iff >= 2", False))
    has = int(stats_.has_K0.sum())
    evidence.decide(lower_bound_above(f"{scheme}: P(K_0 >= 1 | non-constant)", has / n,
                                      clopper_pearson(has, n, lvl), lvl, SG6.p_random_function))
    r = ratios.K0_ratio
    evidence.decide(lower_bound_above(f"{scheme}: median K_0 / E_p[K_0] | non-constant", float(r.median()),
                                      median_bounds(r, SG6.level, "lower"), SG6.level, SG6.ratio_floor))
    r = ratios.as_ratio
    evidence.decide(upper_bound_below(f"{scheme}: median as / (2Np(1-p)) | non-constant", float(r.median()),
                                      median_bounds(r, SG6.level, "upper"), SG6.level, SG6.as_ratio_ceiling))


@pytest.mark.claim("SG-6")
@pytest.mark.parametrize("scheme", SCHEMES)
def test_random_transformers_have_zero_sensitivity_strings(scheme, evidence):
    evidence["plan"] = dict(SG6_FAST)
    _check_init_law(scheme, SG6_FAST, evidence)
    _check_init(scheme, SG6_FAST, evidence)


@pytest.mark.claim("SG-6")
def test_bhattamishra_conventions(evidence):
    evidence["plan"] = dict(SG6_BHATTAMISHRA)
    decide_preset_conventions(SG6_BHATTAMISHRA, evidence)
    _check_init("uniform", SG6_BHATTAMISHRA, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-6")
@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("plan", SG6_SLOW, ids=[f"D{p['D']}-N{p['N']}" for p in SG6_SLOW])
def test_random_transformers_full(scheme, plan, evidence):
    evidence["plan"] = dict(plan)
    _check_init(scheme, plan, evidence)


# -- the random-function references and the median bound -----------------------------------
@pytest.mark.claim("SG-6")
def test_density_matched_references_by_enumeration(evidence):
    """E_p[K_0] and E_p[as] of a Bernoulli(p) random function against exact sums over all
    2^(2^N) functions (weight p^ones (1-p)^zeros), with rational p; and the order statistic
    the median bound uses, against the binomial law it rests on."""
    from numeric.boolean import profile

    rows = []
    for N in (1, 2, 3):
        p = Fraction(3, 10)
        EK0 = Eas = Fraction(0)
        for bits in itertools.product((0, 1), repeat=1 << N):
            ones = sum(bits)
            w = p**ones * (1 - p) ** ((1 << N) - ones)
            K = profile(torch.tensor(bits, dtype=torch.int64)).tolist()
            EK0 += w * K[0]
            Eas += w * Fraction(sum(k * Kk for k, Kk in enumerate(K)), 1 << N)
        got_K0, got_as = random_function_K0(float(p), N), random_function_avg_sensitivity(float(p), N)
        rows.append({"N": N, "E_K0": str(EK0), "formula": got_K0, "E_as": str(Eas), "formula_as": got_as})
        ok = (abs(got_K0 - float(EK0)) <= NAMED["float64_short_sum"].rtol * float(EK0)
              and abs(got_as - float(Eas)) <= NAMED["float64_short_sum"].rtol * float(Eas))
        evidence.decide(exact(f"E_p[K_0], E_p[as] at N = {N}, p = 3/10: formula = enumeration", f"{got_K0:.6g}",
                              "pass iff equal to 1e-12", ok))
    evidence["enumeration"] = rows
    decide_profile_statistics_known_answer(SG6.N, evidence)
    for n, k in ((SG6.target, 21), (SG6.bhattamishra_target, 38)):
        lo, _ = median_bounds(list(range(n)), SG6.level, "lower")
        _, hi = median_bounds(list(range(n)), SG6.level, "upper")
        # the k-th smallest: P(Bin(n, 1/2) <= k - 1) <= 1 - level < P(Bin(n, 1/2) <= k)
        ok = (lo == k - 1 and hi == n - k and stats.binom.cdf(k - 1, n, 0.5) <= 1 - SG6.level
              < stats.binom.cdf(k, n, 0.5))
        evidence.decide(exact(f"99 % median bound of {n} values: order statistic", lo + 1,
                              f"pass iff the {k}th smallest (and largest)", ok))


def decide_profile_statistics_known_answer(N, evidence):
    """The per-model statistics and density-matched ratios on profiles with a closed form: PARITY
    (K_N = 2^N, as = N, p = 1/2: E_p[K_0] = 1, ratios 0 and 2), FIRST (K_1 = 2^N, as = 1, ratios 0
    and 2/N) and AND (K_0 = 2^N - N - 1, K_1 = N, K_N = 1, as = 2N/2^N)."""
    K = torch.zeros(3, N + 1, dtype=torch.int64)
    K[0, N] = K[1, 1] = 2**N
    K[2, 0], K[2, 1], K[2, N] = 2**N - N - 1, N, 1
    ones = [2 ** (N - 1), 2 ** (N - 1), 1]
    st = profile_statistics(K, N)
    ratios = density_matched_ratios(K[:2], ones[:2], N)
    got = {"has_K0": st.has_K0.tolist(), "K0_frac": st.K0_frac.tolist(), "as": st.avg_sensitivity.tolist(),
           "K0_ratio": ratios.K0_ratio.tolist(), "as_ratio": ratios.as_ratio.tolist()}
    want = {"has_K0": [False, False, True], "K0_frac": [0.0, 0.0, (2**N - N - 1) / 2**N],
            "as": [float(N), 1.0, 2 * N / 2**N], "K0_ratio": [0.0, 0.0], "as_ratio": [2.0, 2 / N]}
    evidence["known_answer_profile_statistics"] = {"N": N, "got": got, "expected": want}
    evidence.decide(exact(f"K_0 >= 1, K_0 / 2^N, as and the density-matched ratios of PARITY, FIRST, AND at N = {N}",
                          got, f"pass iff exactly {want}", got == want))


# -- the forward pass against an independent loop --------------------------------------------
@pytest.mark.claim("SG-6")
def test_forward_pass_matches_independent_loop(evidence):
    """Deterministic (fixed weights, not from the seed base): an identity check, not a statistic."""
    import random

    import torch

    D, H, L, F, N = 4, 2, 2, 6, 5
    worst = {}
    for eps in (0.0, 1e-5, 0.5):
        cfg = TransformerConfig(D=D, H=H, L=L, F=F, N_max=N, eps=eps)
        model = BooleanTransformer(cfg)
        rng = random.Random(20240611)
        P = {name: [[rng.gauss(0, 0.8) for _ in range(t.shape[1])] for _ in range(t.shape[0])] if t.dim() == 2
             else [rng.gauss(0, 0.8) + (1.0 if name.endswith("gain") else 0.0) for _ in range(t.shape[0])]
             for name, t in model.state_dict().items()}
        model.load_state_dict({k: torch.tensor(v, dtype=torch.float64) for k, v in P.items()})
        strings = [[(x >> n) & 1 for n in range(N)] for x in range(1 << N)]
        with torch.no_grad():
            T_model = model(torch.tensor(strings))
            T_full, _ = model(torch.tensor(strings), return_blowup=True)
        T_ref = torch.tensor([loop_output(P, b, dict(D=D, H=H, L=L, eps=eps)) for b in strings], dtype=torch.float64)
        worst[str(eps)] = max(float((T_model - T_ref).abs().max()), float((T_full - T_ref).abs().max()))
        evidence.decide(exact(f"max |T_model - T_loop| over all 2^{N} strings, eps = {eps:g}", worst[str(eps)],
                              "pass iff <= 1e-10", worst[str(eps)] <= tolerance().rtol))
    evidence["spread_of_T"] = float(T_ref.max() - T_ref.min())
    evidence["max_abs_difference"] = worst
    control = tolerance_negative_control(float(T_ref.abs().max()))
    evidence["negative_control_tolerance"] = control
    evidence.decide(tolerance_negative_control_decision("|T_model - T_loop|", control))


@pytest.mark.claim("SG-6")
def test_theorem_exponent_and_lambert_w_crossover(evidence):
    rows = []
    for L in (1, 2, 4):
        for D in (8, 16, 22, 32, 64, 128, 256, 1024):
            a = theorem_exponent(D, L)
            assert a == Fraction(D - 1, 2 * L) - 5
            c = crossover(a)
            assert c["agree"], (D, L, c)
            N = c["N_star"]
            with mpmath.workdps(50):
                af = mpmath.mpf(a.numerator) / a.denominator
                assert N**af < mpmath.mpf(2) ** N  # holds at N* ...
                if c["regime"] == "two-crossings":
                    # ... and fails just below it; N* - 1 < root < N*
                    assert (N - 1) ** af >= mpmath.mpf(2) ** (N - 1)
                    assert N - 1 < c["N_upper"] < N
                    # the root solves a ln N = N ln 2 to 40 digits
                    r = c["N_upper"]
                    assert abs(af * mpmath.log(r) - r * mpmath.log(2)) < NAMED["reference_50_digit"].rtol * r
                else:
                    assert N == 1
            # the same integer from balls (Arb): N* - 1 fails and N* holds, certainly
            cc = certified.crossover(a)
            assert cc.value == N, (D, L, cc)
            rows.append({"D": D, "L": L, "a": str(a), "regime": c["regime"], "N_star": N,
                         "N_upper": None if c["N_upper"] is None else float(c["N_upper"]),
                         "N_star_certified": cc.value, "precision": cc.precision})
    evidence["table"] = rows
    key = {(r["D"], r["L"]): r for r in rows}
    # the headline configuration, checked by hand: a(64, 2) = 43/4; 64^a = 2^(6 a) = 2^64.5
    # > 2^64 but 65^a = 2^(10.75 log2 65) = 2^64.74 < 2^65, so N* = 65. a(32, 2) = 11/4:
    # 8^a = 2^8.25 > 2^8, 9^a = 2^8.72 < 2^9, so N* = 9.
    assert key[(64, 2)]["a"] == "43/4" and key[(64, 2)]["N_star"] == 65
    assert key[(32, 2)]["a"] == "11/4" and key[(32, 2)]["N_star"] == 9
    evidence["a_64_2"] = "43/4"
    evidence["N_star_64_2"] = 65
    evidence["N_star_32_2"] = key[(32, 2)]["N_star"]
    # "certified" with python-flint (Arb balls), "50-digit" (mpmath) without it
    headline = certified.crossover(theorem_exponent(64, 2))
    evidence["precision"] = headline.precision
    evidence["certificate_64_2"] = headline.evidence
    evidence.decide(exact(f"crossover N* of (64, 2) [{headline.precision}]", headline.value,
                          "pass iff N* = 65: 64^(43/4) >= 2^64 and N^(43/4) < 2^N for every N >= 65",
                          headline.value == 65))
