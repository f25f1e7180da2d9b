r"""SX-4: one population step from the antisymmetric init learns the support with few heads:
the success probability :math:`p(d, m)` rises from 0 to a plateau as :math:`m` grows, at an
:math:`m` far below :math:`d` that grows slower than the power ``SX4.alpha_ceiling`` of
:math:`d` (as formalised in boolverify: :math:`\eta = 10\,d^2\sqrt m\ln d`,
:math:`\varepsilon = 0.01`).

Model and estimator (:func:`verify.stats.thresholds.fit_threshold_curves`): binomial
likelihood over all :math:`(d, m)` cells,
:math:`p(d, m) = (1 - \lambda_d)\,\sigma\bigl(s(\ln m - \mu_d)\bigr)` with a common slope
:math:`s`, a lapse :math:`\lambda_d` per :math:`d` (the near-ties
:math:`(v_a - v_b)\cdot\theta^{(0)} \approx 0`, which keep the plateau below 1 at small
:math:`d`), and the location :math:`\mu_d` free or following a law: power
:math:`\mu_d = c + \alpha\ln d` or polylog :math:`\mu_d = c + k\ln\ln d`.
:math:`m^*_q(d) = e^{\mu_d}\,(q/(1-q))^{1/s}` is the :math:`m` at which the rising part reaches
:math:`q`; with a common slope every level grows with the same exponent :math:`\alpha`.

Decision rules (fixed before the data; the numbers are those of
:data:`verify.experiments.claim_rules.SX4`, rendered in ``docs/claims.md#sx-4``; one-sided
bounds at ``SX4.level``):

1. *The step learns, with few heads*: at each :math:`d` of the plan,
   :math:`P(\text{success} \mid m = m_\text{high})` has a Clopper-Pearson lower bound
   > ``rate_high_floor``, for the default step and for its :math:`\eta\to\infty` limit.
2. *And fails with too few* (the threshold is not an artefact of the grid):
   :math:`P(\text{success} \mid m = m_\text{low})` has an upper bound < ``rate_low_ceiling``.
3. *Sub-polynomial growth*: the profile-likelihood upper bound of :math:`\alpha` is
   < ``alpha_ceiling`` (quasi-likelihood: the chi-square cut scaled by the dispersion
   ``max(1, deviance/df)``; rejects :math:`m^* \propto d^{\text{alpha\_ceiling}}` and everything
   faster, e.g. :math:`\sqrt d`, :math:`d`).
4. Full run only (slow): polylog against power by log-likelihood with margin ``law_margin``:
   ``polylog`` passes; ``power`` or ``indistinguishable`` is ``inconclusive`` (an asymptotic
   law cannot be told from a small power over a few decades; never ``fail``).

Sample size and error rates: fast plan ``SX4.fast_sweep`` (two values of d, the seeds per cell
and 7-8 values of m). Rule 3 was simulated as applied
(:func:`verify.stats.power.exponent_rule_error_rates`, parametric simulations of
the fast plan from the power-law fit to the full sweep, ``docs/data/xor_sweep.json``): correct
code fails with probability far below 0.1 %, and at :math:`\alpha` = ``alpha_ceiling`` the rule
passes with probability at most 1 % (the coverage of the bound). Rules 1-2 fail on correct code
with probability below 1e-4 at the rates of the full sweep. The logistic shape is approximate,
hence the quasi-likelihood bound. Measured values: ``docs/results-paper-a.md``.
"""

import pytest

from verify.common.seeds import seed_offset
from verify.experiments.plans import FAST_SWEEP, FULL_DS, fast_cells, full_cells
from verify.stats.decisions import Decision, lower_bound_above, upper_bound_below
from verify.stats.intervals import clopper_pearson
from verify.stats.likelihood import quasi_level
from verify.stats.thresholds import compare_laws, fit_threshold_curves
from verify.experiments.claim_rules import SX4

pytestmark = pytest.mark.claim("SX-4")


def _arrays(cells):
    return ([c.d for c in cells], [c.m for c in cells], [c.successes for c in cells],
            [c.n_seeds for c in cells])


def _thresholds(fit, ds):
    out = {}
    for d in ds:
        lo, hi = fit.threshold_interval(d, level=SX4.report_quantile,
                                        conf=quasi_level(SX4.report_conf, fit.dispersion))
        out[str(d)] = {"m50": fit.threshold(d, SX4.report_quantile), "m50_ci95": [lo, hi],
                       "m90": fit.threshold(d, 0.9)}
    return out


def _decide_alpha(cells, evidence):
    fit = fit_threshold_curves(*_arrays(cells), law="power")
    # quasi-likelihood: the interval widens by the cells' scatter beyond binomial noise
    lo, hi = fit.exponent_interval(conf=quasi_level(SX4.level, fit.dispersion, side="upper"), side="upper")
    evidence["alpha"] = fit.exponent
    evidence["dispersion"] = fit.dispersion
    return fit, evidence.decide(upper_bound_below("alpha, m*(d) ~ d^alpha", fit.exponent, (lo, hi), SX4.level,
                                                  SX4.alpha_ceiling))


def _decide_cell_rates(cells, evidence):
    for d in sorted({c.d for c in cells}):
        top = next(c for c in cells if c.d == d and c.m == SX4.m_high)
        low = next(c for c in cells if c.d == d and c.m == SX4.m_low)
        evidence.decide(lower_bound_above(f"P(success | d={d}, m={SX4.m_high})", top.rate,
                                          clopper_pearson(top.successes, top.n_seeds, SX4.level, side="lower"),
                                          SX4.level, SX4.rate_high_floor))
        # the eta -> infinity limit of the step (the proof's regime) learns as well
        evidence.decide(lower_bound_above(f"P(success of the eta -> inf limit | d={d}, m={SX4.m_high})",
                                          top.rate_limit,
                                          clopper_pearson(top.successes_limit, top.n_seeds, SX4.level, side="lower"),
                                          SX4.level, SX4.rate_high_floor))
        evidence.decide(upper_bound_below(f"P(success | d={d}, m={SX4.m_low})", low.rate,
                                          clopper_pearson(low.successes, low.n_seeds, SX4.level, side="upper"),
                                          SX4.level, SX4.rate_low_ceiling))


def test_one_step_fast(evidence):
    cells = list(fast_cells(seed_offset()))
    evidence["plan"] = [list(map(str, row)) for row in FAST_SWEEP]
    evidence["rates"] = {f"{c.d},{c.m}": c.rate for c in cells}
    _decide_cell_rates(cells, evidence)
    free = fit_threshold_curves(*_arrays(cells), law="free")
    evidence["thresholds"] = _thresholds(free, sorted({c.d for c in cells}))
    _decide_alpha(cells, evidence)


@pytest.mark.slow
def test_one_step_full(evidence, tmp_path):
    cells = full_cells(tmp_path, seed_offset=seed_offset())
    free = fit_threshold_curves(*_arrays(cells), law="free")
    evidence["thresholds"] = _thresholds(free, FULL_DS)
    power, _ = _decide_alpha(cells, evidence)
    polylog = fit_threshold_curves(*_arrays(cells), law="polylog")
    evidence["loglik"] = {"free": free.fit.loglik, "power": power.fit.loglik, "polylog": polylog.fit.loglik}
    evidence["k_polylog"] = polylog.exponent
    verdict = compare_laws(polylog, power, margin=SX4.law_margin)
    evidence.decide(Decision("law of m*(d): polylog vs power", verdict, None, None,
                             f"log-likelihood margin {SX4.law_margin}: polylog -> pass, power or "
                             "indistinguishable -> inconclusive",
                             "pass" if verdict == "polylog" else "inconclusive"))
