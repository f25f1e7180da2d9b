"""The numbers of every claim's decision rules, fixed before the data, each written once.

One :class:`Rules` object per claim (``SX4`` ... ``SG9``): levels, thresholds, sample sizes
and grids. The theorem files decide with these numbers, :mod:`verify.experiments.plans`
builds its quick plans from them, and :mod:`verify.report.claims` renders the rule text of the
report, of README.md and of ``docs/claims.md`` from them; changing a number here changes the
test, the plan and every document (after ``python -m verify.report.readme``).

Only rule numbers live here: measured values never do (they live in the generated documents
and in ``docs/results-*.md``). Pure data: no import of torch or of the rest of the suite, so
the command line and the report can read it cheaply.
"""

from __future__ import annotations

import math
from fractions import Fraction


class Rules:
    """The named, read-only numbers of one claim's decision rules (``SX5.softmax_floor``)."""

    __slots__ = ("claim", "_values")

    def __init__(self, claim: str, **values):
        object.__setattr__(self, "claim", claim)
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"{self.claim} has no rule number {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"the rules of {self.claim} are fixed: {name!r} cannot be set")

    def names(self) -> tuple[str, ...]:
        """The names of the rule numbers, in the order they were given."""
        return tuple(self._values)

    def __repr__(self):
        body = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"Rules({self.claim!r}, {body})"


# -- paper A --------------------------------------------------------------------------------
SX1 = Rules("SX-1", symbolic_d_max=6, rational_d_max=12)

SX4 = Rules(
    "SX-4",
    level=0.99,
    #: the success of a step: both heads put at least 1 - success_eps of their attention on
    #: their support position (the estimand of rules 1-2 and of every fitted m*)
    success_eps=0.01,
    #: rule 3: the one-sided upper bound of alpha (m*(d) ~ d^alpha) must lie below this
    alpha_ceiling=0.3,
    #: rules 1-2: the step learns at m_high and fails at m_low, at every d of the plan
    m_high=64, rate_high_floor=0.85,
    m_low=8, rate_low_ceiling=0.8,
    #: rule 4 (full sweep): polylog against power by log-likelihood with this margin
    law_margin=3.0,
    #: the reported m*_q intervals at q = report_quantile (not a decision)
    report_conf=0.95, report_quantile=0.5,
    #: quick plan: per d, the m grid around the transition and the seeds per cell
    fast_sweep=(
        (1000, (6, 8, 12, 16, 24, 32, 48, 64), 200),
        (10000, (8, 12, 16, 24, 32, 48, 64), 200),
    ),
    #: known answer, before the data: the threshold fit on synthetic cells at the quick plan's
    #: grid from this threshold model (slope, median threshold at d_ref, alpha, lapse: a
    #: transition like the one the grid was laid around), intervals at known_answer_level
    known_answer=dict(slope=4.0, m50_ref=14.0, d_ref=1000, alpha=0.1, lapse=0.02),
    known_answer_level=0.9999,
    #: known answer of the instance sampler: seeds drawn, false-fail probability of its moment bound
    sampler_seeds=4, sampler_false_fail=1e-6,
    #: the full sweep: (d, m grid, seeds) per row; >= 200 seeds at small d, fewer at large d
    full_sweep=(
        (100, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128), 1000),
        (1000, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128), 400),
        (10000, (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128), 200),
        (100000, (8, 12, 16, 24, 32, 48, 64, 96), 60),
        (1000000, (12, 16, 24, 32, 48, 64), 20),
    ),
)

SX5 = Rules(
    "SX-5",
    d=1000, m=32, seeds=400, level=0.99,
    #: a step "reaches" a solution when its population loss is below this
    one_step_loss_threshold=1e-6,
    #: softmax: P(one step reaches L < one_step_loss_threshold) has a lower bound above this
    softmax_floor=0.85,
    #: linear and erf: P(one step succeeds) and P(one step reaches L <= loss_floor) stay below this
    failure_ceiling=0.05,
    #: every trained linear/erf run must end with a finite loss above this
    loss_floor=0.9,
    #: the representational bound of linear attention that makes loss_floor a certainty
    linear_bound_floor=0.99,
    train_seeds=6, train_steps=200,
    full_train_seeds=30, full_train_steps=2000,
)

SX6 = Rules(
    "SX-6",
    level=0.99,
    #: rule 1: the one-sided upper bound of alpha (n*(d) ~ d^alpha, one step) lies below this
    proof_exponent=4.0,
    #: rule 2 (reported): the two-sided interval of alpha against the seed's "about linear"
    seed_exponent=1.0,
    law_margin=3.0,
    #: the reported n*_q intervals (not a decision)
    report_conf=0.95,
    #: quick plan: d values and seeds per cell by regime
    fast_ds=(8, 16, 32),
    fast_seeds={"one_step": 120, "gradient_flow": 100},
    #: the one step's grid n = d 2^(j/2) from j = one_step_j_lo to max(d^3, one_step_min_top)
    one_step_j_lo=-2, one_step_min_top=2**14,
    #: the premise: the empirical gradient over all of {+-1}^premise_d
    premise_d=8,
    #: known answer, before the data: the threshold fit on synthetic cells at each regime's quick
    #: grid from this threshold model (slope, median n* at d_ref, alpha, lapse: a transition like
    #: the measured one-step curves), intervals at known_answer_level
    known_answer=dict(slope=1.8, m50_ref=20.0, d_ref=16, alpha=1.7, lapse=0.02),
    known_answer_level=0.9999,
)

SX7 = Rules(
    "SX-7",
    level=0.99,
    #: the estimand is 2 m*_q(d): the m where the rising part of the success curve reaches q
    quantile=0.9,
    #: decided at every d >= decide_from: the upper bound of 2 m*_q(d) is below d / param_divisor
    decide_from=1000, param_divisor=10,
    #: known answer, before the data: the threshold fit on SX-4's synthetic cells, intervals at this level
    known_answer_level=0.9999,
)

SX8 = Rules(
    "SX-8",
    d=1000, m=32, seeds=400, level=0.99,
    dominance_floor=0.9, order_floor=0.9,
    #: P(alignment ratio > ratio_cut) has a lower bound above ratio_floor (median > ratio_cut)
    ratio_cut=1.2, ratio_floor=0.5,
    full_d=10000, full_seeds=1000,
)

# -- paper B --------------------------------------------------------------------------------
SG1 = Rules("SG-1", enumeration_N_max=20)

SG2 = Rules(
    "SG-2",
    #: total probability that correct code fails one Monte Carlo test (Bonferroni over decisions)
    false_fail=1e-3,
    Ns=(2, 4, 8, 12, 16), samples=8192, seed=1000,
    slow_Ns=tuple(range(1, 17)), slow_samples=1 << 16,
    #: exact enumeration of all functions for N <= exact_N_max (and the exact P checked there)
    exact_N_max=4,
    #: the interval of P(K_0 >= 1) must meet the Chen-Stein band for N >= band_N_min
    band_N_min=12,
    #: exact: the Chen-Stein bound at N is at most the given value
    chen_stein_checks=((16, Fraction(1, 100)), (40, Fraction(1, 10**8))),
)

SG4 = Rules(
    "SG-4",
    level=0.99,
    #: rule 1: the one-sided upper bound of the mean slope lies below this
    slope_max=-0.5,
    #: rule 2, three-way: the two-sided interval against this window (consistent with 1/N)
    consistent=(-1.3, -0.7),
    D=16, L=2, H=2, eps=1e-5, box=1.0,
    Ns=(8, 16, 32, 64, 128, 256), slow_Ns=(8, 16, 32, 64, 128, 256, 512, 1024),
    #: models per plan: sized so that rule 2 is inconclusive with probability <= design_inconclusive_max
    #: at the pilot's conservative slope (its one-sided 99 % bound nearest the window's upper end)
    models=180, strings=4, positions=8,
    #: pilot, measured before this design at seed bases 1000-1009 (30 models each): mean and sd
    #: of the per-model slopes and their number
    pilot_slopes=(-0.8087, 0.2112, 300),
    design_inconclusive_max=0.01,
    #: eps ablation: no difference iff every relative change eps = 0 vs eps is below eps_same ...
    eps_models=4, eps_same=1e-3,
    #: ... and the ablation sees eps iff at eps_control some relative change exceeds eps_seen
    eps_control=1.0, eps_seen=1e-2,
    #: ... and eps is not ignored: some relative change eps = 0 vs eps exceeds eps_changed_min (the
    #: change is of order eps / (2 var) ~ 1e-6 at layer-norm variances of order one, rounding ~1e-13)
    eps_changed_min=1e-9,
    #: known answers, before the data: per-model slopes of exact power laws (rounding only) and
    #: the positions of known_answer_draws draws of pairs, uniform within Hoeffding bounds at
    #: false-fail probability known_answer_false_fail
    known_answer_draws=200, known_answer_false_fail=1e-6,
    #: exact supremum (recorded, not decided): the first exact_models models at exact_Ns
    exact_Ns=(4, 6, 8, 10), exact_models=10,
    #: ... where every sampled maximum of the quantile test at exact_check_N is at most the supremum
    exact_check_N=8,
    slow_exact_Ns=(4, 6, 8, 10, 12, 14), slow_exact_models=30,
)

SG5 = Rules(
    "SG-5",
    level=0.99,
    D=16, L=2, H=2, eps=1e-5, box=1.0,
    #: models: sized so that rule c is inconclusive with probability <= design_inconclusive_max at the
    #: pilot's conservative rates (the one-sided 99 % lower bounds of both)
    N_small=4, N_large=10, slow_N_large=12, models=1200, xi=0.01,
    #: pilot, measured before this design at seed bases 1000-1009 (400 models each): models
    #: recognising at the small N only, models recognising at exactly one N, models
    pilot_pairs=(175, 197, 4000),
    design_inconclusive_max=0.01,
    #: rule a: the upper bound of p_{N_large} lies below p_max
    p_max=0.05,
    #: rule b: the lower bound of p_{N_small} lies above p_small_min (not vacuous)
    p_small_min=0.0,
    #: rule c, three-way: the share recognising at N_small only lies in this window
    falls=(0.5, 1.0),
    #: eps ablation: |T_eps - T_0| at N_large stays below xi / eps_same_divisor (eps_models models);
    #: control: at eps_control it exceeds xi
    eps_models=8, eps_same_divisor=100, eps_control=1.0,
    #: ... and eps is not ignored: the largest |T_eps - T_0| exceeds eps_changed_min (of order
    #: eps / (2 var) times |T| ~ 1e-6 at layer-norm variances and outputs of order one; rounding ~1e-15)
    eps_changed_min=1e-10,
    #: packing bound: the crossover N* is at most packing_N_max for every tabulated row
    packing_N_max=25, packing_Ds=(16, 32, 64), packing_xis=(0.01, 0.1),
)

SG6 = Rules(
    "SG-6",
    level=0.99,
    #: uniformly random functions: P(K_0 >= 1) -> 1 - 1/e
    p_random_function=1 - math.exp(-1),
    #: rule 2: the upper bound of P(constant) lies below this
    constant_max=0.99,
    #: rule 4: the lower bound of median K_0 / E_p[K_0] lies above this; rule 5: the upper bound
    #: of median as / (2Np(1-p)) below this
    ratio_floor=1.0, as_ratio_ceiling=1.0,
    #: the reported two-sided interval of the constant fraction (not a decision)
    report_conf=0.95,
    D=8, L=2, H=2, N=10,
    #: draw until `target` models compute a non-constant function, at most `max_draws`
    target=60, max_draws=2500,
    bhattamishra_H=1, bhattamishra_B=10.0, bhattamishra_eps=1e-6,
    bhattamishra_target=100, bhattamishra_max_draws=1000,
    #: known answer, before the data: one model per scheme has its scheme's law (variance and
    #: shape), each at false-fail probability known_answer_false_fail
    known_answer_false_fail=1e-6,
)

SG7 = Rules("SG-7", enumeration_N_max=20)

SG8 = Rules(
    "SG-8",
    level=0.99,
    #: the quick runs train in this dtype (an experiment, not a reference comparison)
    dtype="float32",
    #: a MAJORITY / FIRST run has learned when its held-out accuracy is at least this ...
    learned_held_out=0.95,
    #: ... a PARITY (or control) run when its exact accuracy is at least this
    learned_parity=0.9,
    #: the proportions must clear this ("in most runs")
    most_runs=0.5,
    #: "skewed to low sensitivity": average sensitivity at most this share of N
    low_sensitivity=0.25,
    #: MAJORITY and FIRST: N, steps on a fixed subset of train_strings strings
    fixed_N=12, fixed_steps=80, train_strings=1024,
    #: PARITY under one budget at a short and a long N, and the positive controls under the
    #: same budget at the long N: FIRST and the parity of bits 0, 1
    parity_short_N=6, parity_long_N=14, parity_steps=500, batch_size=64,
    #: every proportion decision at planned looks (cumulative runs; the level split over the
    #: looks, Bonferroni), sized so that at the pilot's conservative rates (one-sided ``level``
    #: bounds on the side nearer 1/2) it is inconclusive with probability <= design_inconclusive_max
    fixed_looks=(9, 17, 33), parity_short_looks=(9, 17, 33), parity_long_looks=(9, 17, 33),
    first_long_looks=(9, 17, 33), parity01_long_looks=(12, 24, 60),
    design_inconclusive_max=0.01,
    #: the pilot, measured before this design at seed base 1000 (local seeds from 100000, one
    #: block of 100000 per cell; docs/results-paper-b.md): runs that learned, runs, per decision
    #: (for PARITY at the long N the runs that reached the accuracy threshold; for the profile
    #: decision the models with as <= low_sensitivity N among the MAJORITY, FIRST and long-N
    #: PARITY runs)
    pilot={"majority": (40, 40), "first": (40, 40), "parity_short": (40, 40), "parity_long": (0, 40),
           "first_long": (40, 40), "parity01_long": (38, 40), "profiles": (117, 120)},
    #: the side of each decision: "lower" decides p > 1/2, "upper" p < 1/2
    design_side={"majority": "lower", "first": "lower", "parity_short": "lower", "parity_long": "upper",
                 "first_long": "lower", "parity01_long": "lower", "profiles": "lower"},
    #: slow: PARITY at the long N over larger budgets, with the 2-sparse control
    budget_steps=(1000, 4000), budget_runs=7,
)

SG9 = Rules(
    "SG-9",
    #: the radius r_f(N) is where the fraction of perturbations computing f exactly crosses this
    crossing=0.5,
    #: every radius interval holds at this level (Bonferroni over its grid), so a comparison of
    #: two radii errs with probability <= 2 (1 - radius_level) = 1 %
    radius_level=0.995,
    #: the sigma grid of each function: 10^(k / per_decade) for k / per_decade in [lo, hi]
    per_decade=12,
    grids={"first": (-1.5, 0.0), "majority": (-2.5, -0.5), "parity": (-3.5, -1.5)},
    #: quick plan: lengths and perturbation directions per sigma; PARITY's radius at 2N is
    #: compared with its radius at N for every N with 2N in the plan
    Ns=(4, 8), models=300,
    slow_Ns=(4, 6, 8, 12, 16), slow_models=400,
    #: exact premise: each construction computes f on all 2^N strings, N = 1 .. exact_N_max
    exact_N_max=12,
    #: sampler known answers: at sigma = 0 every perturbation computes f; at huge_sigma the
    #: one-sided `level` Clopper-Pearson upper bound of the fraction is below huge_fraction_max
    level=0.99,
    huge_sigma=100.0, huge_fraction_max=0.1,
    #: (theta - theta*) / sampler_sigma of sampler_models draws: every parameter moves, and the
    #: two-sided variance_level chi-square interval of the entries' variance contains 1
    sampler_sigma=0.01, sampler_models=64, variance_level=0.999,
    #: radius known answers, before the data: simulated curves whose directions leave the
    #: solution set at log-normal radii (median known_answer_radius, log-sd known_answer_log_sd)
    #: on PARITY's grid; the lower `level` bound of the rate at which the interval misses the
    #: median must not exceed 1 - radius_level
    known_answer_radius=0.005, known_answer_log_sd=0.4, known_answer_curves=2000,
    #: certified boxes theta* +- h over every parameter: bisection on log h over
    #: [certified_lowest, certified_highest] in certified_steps steps, at every N of the plan up to
    #: certified_N_max (the slow plan's N = 16 takes minutes per function: reported, not decided)
    certified_lowest=1e-12, certified_highest=1.0, certified_steps=18, certified_N_max=12,
    #: soundness of a certified box: soundness_points corners and as many points inside it, each
    #: computing f on every string in the float64 forward pass; at control_factor * h some
    #: corner must fail (the check sees a wrong box)
    soundness_points=100, control_factor=100,
    #: enclosures: each parameter tensor alone widened by the certified h; enclosure_points
    #: points of that box (half of them corners) must have outputs inside the enclosures
    enclosure_points=8,
    #: the certifier's instruments against Arb, before SG-9 decides: every interval operation of
    #: numeric.intervals on adversarial operands encloses the exact range, its ends within
    #: interval_ulps ulps of the exact ends (one rounding to nearest, half an ulp, and one float
    #: outwards: at most 2.5 ulps of the exact value when the result crosses a power of two),
    #: rsqrt_ulps for 1/sqrt (two such roundings, each at most 1.5 ulps of its own result) and
    #: exp_enclosure_ulps for exp (torch.exp's ulp and its 3 steps, each at most 2 ulps of the
    #: exact value); and torch.exp within exp_error_ulps ulp of exp (the assumption behind
    #: exp's widening) on those operands and on every score difference the certifier meets
    interval_ulps=3, rsqrt_ulps=6, exp_enclosure_ulps=8, exp_error_ulps=1,
    #: the exact (Arb) forward pass at theta* (the box h = 0) and at arb_points points of the
    #: certified box (half corners) lies in every enclosure the certificate relies on
    arb_points=6,
    #: simultaneous radius intervals: simultaneous_curves synthetic curves of independent counts
    #: (models directions per grid point), 1/2 + plateau_offset up to the known radius and
    #: 1/2 - plateau_offset beyond it, on PARITY's grid; pass iff the one-sided `level` lower
    #: bound of the miss rate <= 1 - radius_level (an interval at radius_level per grid point,
    #: without the Bonferroni correction, misses at 0.032, the simultaneous one at 0.001)
    simultaneous_curves=1000, plateau_offset=0.005,
)

#: every claim's rules by claim id (claims without rule numbers of their own have none)
RULES: dict[str, Rules] = {r.claim: r for r in (SX1, SX4, SX5, SX6, SX7, SX8, SG1, SG2, SG4, SG5,
                                                 SG6, SG7, SG8, SG9)}

__all__ = ["Rules", "RULES", "SX1", "SX4", "SX5", "SX6", "SX7", "SX8", "SG1", "SG2", "SG4", "SG5",
           "SG6", "SG7", "SG8", "SG9"]
