r"""SG-5 (as formalised in boolverify): for :math:`\varepsilon > 0` only the constant
functions stay recognisable with margin :math:`\xi` as :math:`N` grows.

Two checks; the numbers are those of :data:`verify.experiments.claim_rules.SG5` (rendered in
``docs/claims.md#sg-5``), named by their fields.

1. **Random models.** A model recognises a function with margin :math:`\xi` if every string
   has :math:`T \ge \xi` (accept) or :math:`T \le -\xi` (reject); a non-constant such
   function needs a neighbouring pair with :math:`|T(x) - T(x\oplus e_n)| \ge 2\xi`, which the
   :math:`O(1/N)` influence (SG-4) forbids for large :math:`N`.

   *Estimand*: :math:`p_N`, the probability that a uniform-box model (``D``, ``L``, ``H``,
   ``eps`` > 0, box ``box``) recognises a non-constant function with margin :math:`\xi` =
   ``xi`` over all :math:`2^N` strings; the same ``models`` models (one parameter vector each)
   at :math:`N` = ``N_small`` and ``N_large``. *Estimators*: the fractions, with exact
   Clopper-Pearson bounds. *Rules* (fixed in advance, one-sided ``level`` bounds):

   a. :math:`p_{N_\text{large}}`: pass iff the upper bound is below ``p_max`` (the level of
      small N in ``docs/results-paper-b.md``), else fail;
   b. :math:`p_{N_\text{small}}`: pass iff the lower bound is above ``p_small_min`` (the
      check is not vacuous);
   c. paired, three-way: among models that recognise at exactly one of the two lengths,
      :math:`\theta` = the share recognising at the small N only; pass iff the two-sided
      interval (the two one-sided bounds) lies in the window ``falls`` (the fraction falls),
      fail iff it lies below it, inconclusive otherwise.

   *Error rates.* Under the alternative :math:`p_{N_\text{large}} \ge` ``p_max`` rule a passes
   with probability :math:`\le 1\%`; at the rates measured over many seed bases
   (``docs/results-paper-b.md``) correct code fails rule a with probability of order
   :math:`10^{-5}` and rule b far more rarely; rule c fails only if the fraction *rises*.

   *Design.* A pilot before this design (``pilot_pairs``: seed bases 1000-1009, 400 models each)
   gave 197 of 4000 models recognising at exactly one N, 175 of them at the small N only
   (:math:`\hat\theta` = 0.89); at 400 models rule c is inconclusive with probability about 9 %
   (1 of 10 pilot bases). ``models`` is sized so that at the pilot's one-sided 99 % lower bounds
   of both rates rule c is inconclusive with probability at most ``design_inconclusive_max``
   (:func:`verify.stats.power.paired_share_outcomes`, exact; 1200 models: 0.7 %); the file
   decides this, exactly, before the data (planted: the plan back at 400 models fails it).

   *Known answers* (exact, before the rules use the data): the recognition estimator
   (:func:`numeric.transformer.margin_recognition`) on outputs whose answer is known (all
   accepted, all rejected, both with every margin met, one string undecided), and the rows of
   the table of the first ``eps_models`` models and of every model it says recognises, recomputed from their outputs by the plain definition
   (every :math:`|T| \ge \xi`, both signs), the same seeds and parameter vector at both N.
   Planted: a table that draws a new model at each N fails the second.

   Planted bugs: a transformer that ignores its input fails rule b (no model recognises a
   non-constant function); hard-max attention (:math:`O(1)` influence) fails rule a.

   *eps* (decided, exact): SG-5's numbers do not differ between eps = 0 and ``eps``: pass iff
   no model's recognition at the small N changes and the largest :math:`|T_\varepsilon - T_0|`
   over all strings at the large N of ``eps_models`` models is below
   :math:`\xi/`\ ``eps_same_divisor`` and above ``eps_changed_min`` (a difference of exactly 0
   means eps never reached the layer norm; the difference is of order eps over twice the
   layer-norm variance times the output's scale). At random parameters the layer-norm variances are of
   order one, so a small eps changes nothing; the regime where eps bounds the blowup is not
   reached. Control: at ``eps_control`` the same comparison must move T by more than
   :math:`\xi`. Planted: a transformer that runs at a fixed eps whatever its config fails the
   control, one that runs at eps = 0 when eps is small fails the lower bound.

   *Not decided*: the best margin reachable inside the box
   (:func:`verify.experiments.random_transformers.optimised_margin`, FIRST, Adam on the soft
   minimum of the margins, parameters clipped to the box); measured, it does not fall at small
   N (``docs/results-paper-b.md``), so the claim's large-N regime is not reached there.

2. **Packing bound** (:mod:`verify.bounds`, 50 digits): :math:`|F_N| \le (1 +
   C_{\mathrm{Lip}}\operatorname{diam}\Theta/\xi)^M` does not depend on :math:`N`, while there
   are :math:`2^{2^N}` functions; the crossover :math:`N^*` (smallest :math:`N` with
   :math:`2^{2^N}` above the bound) is at most ``packing_N_max`` for every tabulated
   :math:`C_{\mathrm{Lip}}`, :math:`D` in ``packing_Ds`` and :math:`\xi` in ``packing_xis``
   (the constant :math:`C_{\mathrm{Lip}}` is a parameter of our formalisation); the loosest row
   is certified.
"""

from __future__ import annotations

import math

import pytest

import torch

from numeric.transformer import TransformerConfig, evaluate_all, random_model
from numeric.transformer import margin_recognition
from verify.common.seeds import seed
from verify.common.tolerances import assert_close
from verify.experiments.plans import SG5_FAST, SG5_SLOW
from verify.experiments.claim_rules import SG5
from verify.experiments.random_transformers import margin_table
from verify.reference import certified
from verify.reference.bounds import DEFAULT_C_LIPS, n_params, packing_crossover
from verify.stats.decisions import exact, inside, lower_bound_above, upper_bound_below
from verify.stats.intervals import clopper_pearson
from verify.stats.power import paired_share_outcomes




def _config(plan, eps):
    return TransformerConfig(N_max=plan["N_large"], D=plan["D"], L=plan["L"], H=plan["H"], eps=eps)


def _design(plan, evidence):
    """The plan's size against the pilot, before the data: rule c's inconclusive probability at
    the pilot's conservative rates (the one-sided 99 % lower bounds of the share and of the
    rate of models recognising at exactly one N)."""
    only_small, discordant, models = SG5.pilot_pairs
    share = clopper_pearson(only_small, discordant, SG5.level, side="lower")[0]
    rate = clopper_pearson(discordant, models, SG5.level, side="lower")[0]
    rates = paired_share_outcomes(plan["models"], rate, share, *SG5.falls, level=2 * SG5.level - 1)
    evidence["design"] = {"pilot_pairs": list(SG5.pilot_pairs), "conservative_share": share,
                          "conservative_discordant_rate": rate, "outcome_probabilities": rates}
    evidence.decide(exact(f"designed P(rule c inconclusive) with {plan['models']} models at the pilot's "
                          f"conservative share {share:.4f} and rate {rate:.4f}", rates["inconclusive"],
                          f"pass iff <= {SG5.design_inconclusive_max:g}",
                          rates["inconclusive"] <= SG5.design_inconclusive_max))


def _recognises_nonconstant(T, xi):
    """Margin recognition of a non-constant function, by the plain definition: every output at
    least xi away from 0, and both signs present."""
    values = [float(t) for t in T]
    return all(abs(t) >= xi for t in values) and any(t > 0 for t in values) and any(t < 0 for t in values)


def _known_answers(plan, table, evidence):
    """The recognition estimator on outputs with a known answer, and the first models' rows of
    the table recomputed from their outputs by the plain definition (same seeds, the same
    parameter vector at both N)."""
    xi = plan["xi"]
    cases = {"all accepted": ([2 * xi, xi, 3 * xi], False), "all rejected": ([-xi, -2 * xi], False),
             "both, every margin met": ([xi, -xi, 2 * xi], True), "one string undecided": ([xi, -xi, xi / 2], False)}
    got = {name: margin_recognition(torch.tensor(T, dtype=torch.float64), xi)["nonconstant"]
           for name, (T, _) in cases.items()}
    want = {name: answer for name, (_, answer) in cases.items()}
    evidence.decide(exact("margin recognition of a non-constant function on outputs with a known answer",
                          str(got), f"pass iff {want}", got == want))
    Ns, s0, k = (plan["N_small"], plan["N_large"]), seed(plan["seed"]), plan["eps_models"]
    cfg = _config(plan, plan["eps"])
    # the first models, and every model the table says recognises at some N (few: recognition is rare)
    checked = sorted(set(range(k)) | {j for j in range(len(table)) if bool(table[j].any())})
    bad = 0
    for j in checked:
        model = random_model(cfg, "uniform", s0 + j, B=plan["B"])
        bad += [_recognises_nonconstant(evaluate_all(model, N), xi) for N in Ns] != [bool(v) for v in table[j]]
    evidence.decide(exact(f"rows of the recognition table (the first {k} models and every recognising one) "
                          "against the plain definition on their outputs", f"{bad} of {len(checked)} differ",
                          "pass iff 0", bad == 0))


def _check_models(plan, evidence):
    _design(plan, evidence)
    n, xi, s0 = plan["models"], plan["xi"], seed(plan["seed"])
    Ns = (plan["N_small"], plan["N_large"])
    table = margin_table(_config(plan, plan["eps"]), Ns, n, xi, seed=s0, B=plan["B"])
    _known_answers(plan, table, evidence)
    small, large = (int(v) for v in table.sum(0))
    only_small = int((table[:, 0] & ~table[:, 1]).sum())
    only_large = int((table[:, 1] & ~table[:, 0]).sum())
    # the eps mechanism: the same models at eps = 0 (recognition at the small N, model by model;
    # outputs at the large N for the first models), and at eps_control, an eps as large as the
    # layer-norm variances, where the comparison must see a difference
    table_eps0 = margin_table(_config(plan, 0.0), Ns[:1], n, xi, seed=s0, B=plan["B"])
    small_eps0 = int(table_eps0.sum())
    changed_small = int((table_eps0[:, 0] != table[:, 0]).sum())
    diff = diff_control = 0.0
    for j in range(plan["eps_models"]):
        T = [evaluate_all(random_model(_config(plan, e), "uniform", s0 + j, B=plan["B"]), Ns[1])
             for e in (plan["eps"], 0.0, plan["eps_control"])]
        diff = max(diff, float((T[0] - T[1]).abs().max()))
        diff_control = max(diff_control, float((T[2] - T[1]).abs().max()))
    evidence.update({
        "plan": dict(plan), "seed": s0, "recognising_nonconstant": {str(Ns[0]): small, str(Ns[1]): large},
        "only_small_N": only_small, "only_large_N": only_large,
        "eps_0_recognising_nonconstant_small_N": small_eps0,
        "eps_0_vs_eps_max_abs_T_difference_large_N": diff,
        "eps_0_vs_eps_control_max_abs_T_difference_large_N": diff_control,
        "models_whose_recognition_changes_eps_0_vs_eps_small_N": changed_small,
    })
    evidence.decide(exact(f"models whose recognition at N = {Ns[0]} differs between eps = 0 and eps = "
                          f"{plan['eps']:g}", f"{changed_small} of {n}",
                          "pass iff 0: SG-5's counts do not differ between eps = 0 and this eps",
                          changed_small == 0))
    evidence.decide(exact(f"largest |T(eps = {plan['eps']:g}) - T(eps = 0)| at N = {Ns[1]} over all strings "
                          f"({plan['eps_models']} models)", diff,
                          f"pass iff < xi/{SG5.eps_same_divisor} = {xi / SG5.eps_same_divisor:g}: eps moves no "
                          "output by a visible share of the margin", diff < xi / SG5.eps_same_divisor))
    evidence.decide(exact(f"largest |T(eps = {plan['eps']:g}) - T(eps = 0)| at N = {Ns[1]} over all strings "
                          "(eps not ignored)", diff, f"pass iff > {SG5.eps_changed_min:g}: of order eps / (2 var), "
                          "so exactly 0 means eps never reached the layer norm", diff > SG5.eps_changed_min))
    evidence.decide(exact(f"largest |T(eps = {plan['eps_control']:g}) - T(eps = 0)| at N = {Ns[1]} (control)",
                          diff_control, f"pass iff > xi = {xi:g}: the ablation sees eps once it is comparable "
                          "to the layer-norm variances", diff_control > xi))

    def ci(k, m):  # two-sided 98 %: its ends are the one-sided 99 % bounds
        return clopper_pearson(k, m, 2 * SG5.level - 1)

    what = f"P(recognises a non-constant function with margin {xi:g}"
    evidence.decide(upper_bound_below(f"{what} | N={Ns[1]})", large / n, ci(large, n), 2 * SG5.level - 1,
                                      plan["p_max"]))
    evidence.decide(lower_bound_above(f"{what} | N={Ns[0]})", small / n, ci(small, n), 2 * SG5.level - 1,
                                      SG5.p_small_min))
    m = only_small + only_large
    theta = (only_small / m, ci(only_small, m)) if m else (None, (0.0, 1.0))
    evidence.decide(inside(f"share recognising at N={Ns[0]} only, among models recognising at exactly one "
                           f"of N={Ns[0]}, {Ns[1]}", theta[0], theta[1], 2 * SG5.level - 1, *SG5.falls))


@pytest.mark.claim("SG-5")
def test_nonconstant_margin_recognition_vanishes(evidence):
    _check_models(SG5_FAST, evidence)


@pytest.mark.slow
@pytest.mark.claim("SG-5")
def test_nonconstant_margin_recognition_vanishes_full(evidence):
    _check_models(SG5_SLOW, evidence)


@pytest.mark.claim("SG-5")
def test_packing_bound_crossover_table(evidence):
    rows = []
    for D in SG5.packing_Ds:
        M = n_params(D, 2, None, 64)
        for xi in SG5.packing_xis:
            for C in DEFAULT_C_LIPS:
                p = packing_crossover(M, C, 2.0, xi)
                assert p["checked"]
                # independent float evaluation of log2 of (1 + C diam / xi)^M
                assert_close(p["log2_bound"], M * math.log2(1 + C * 2.0 / xi), what="log2 bound")
                N = p["N_star"]
                # 2^(2^N) > bound at N*, not at N* - 1 (in logs: 2^N vs log2 bound)
                assert 2.0**N > p["log2_bound"] >= 2.0 ** (N - 1)
                rows.append({"D": D, "M": M, "xi": xi, "C_lip": C, "log2_bound": float(p["log2_bound"]),
                             "N_star": N})
    worst = max(r["N_star"] for r in rows)
    evidence["table"] = rows
    evidence["max_crossover_N"] = worst
    # the loosest row again, from balls (python-flint) or at 50 digits (without it)
    loose = max(rows, key=lambda r: (r["N_star"], r["log2_bound"]))
    cert = certified.packing_crossover(loose["M"], loose["C_lip"], 2.0, loose["xi"])
    evidence["certificate_loosest_row"] = cert.evidence
    evidence.decide(exact(f"packing crossover N* for D = {loose['D']}, C_lip = {loose['C_lip']:g}, "
                          f"xi = {loose['xi']:g} [{cert.precision}]", cert.value,
                          f"pass iff N* equals the 50-digit value and N* <= {SG5.packing_N_max}",
                          cert.value == loose["N_star"] and cert.value <= SG5.packing_N_max))
    # even the loosest row (D = 64, M = 104385, C_lip = 1e24, xi = 0.01: log2 bound ~ 9.1e6 < 2^24)
    # is overtaken by 2^(2^N) at N <= packing_N_max: the count of recognisable functions is
    # bounded independently of N while 2^(2^N) is not
    assert worst <= SG5.packing_N_max
