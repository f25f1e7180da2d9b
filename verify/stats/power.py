r"""Error rates and sample sizes of decision rules.

- :func:`proportion_error_rates`, :func:`sample_size_for_proportion`: exact error rates and
  sample sizes of the decision "pass iff a one-sided Clopper-Pearson bound clears a threshold";
- :func:`window_mean_outcomes`, :func:`paired_share_outcomes`: the probabilities of the three
  outcomes of a three-way window rule (pass, fail, inconclusive) at a stated truth, so that a
  claim can size its sample for a small inconclusive rate; :func:`sequential_proportion_outcomes`
  the same for a proportion decided at planned looks;
- :func:`crossing_comparison_miss`: a bound on how often two :func:`~verify.stats.intervals.crossing_interval`
  intervals fail to separate when their true curves are known;
- :func:`simulate_error_rate` for rules whose error rates need simulation;
- :func:`exponent_rule_error_rates`: how often the exponent rule of a threshold law fails
  correct code and how often it passes the alternative it is meant to reject, by parametric
  simulation from a fitted model. The truth is a :class:`~verify.stats.thresholds.ThresholdFit`
  of a power law fitted to a full sweep; a *design* is the plan of a quick test (per ``d``: the
  ``m`` grid and the seeds per cell). Each simulated run draws binomial counts for the design
  from the truth (with its exponent replaced for the alternative), refits, and applies the
  rule.

numpy and scipy only (no torch): these run on saved results too.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy import stats

from numeric.validation import check_choice, check_int, check_real, reject
from verify.stats.checks import check_callable, check_rng
from verify.stats.intervals import (bonferroni_level, clopper_pearson, clopper_pearson_lower,
                                    clopper_pearson_upper)
from verify.stats.likelihood import quasi_level
from verify.stats.thresholds import fit_threshold_curves


def _pass_boundary(n, threshold, level, side):
    """For each ``n``: ``"lower"``, the fewest successes whose lower Clopper-Pearson bound
    exceeds ``threshold`` (``n + 1`` if none); ``"upper"``, the most successes whose upper
    bound is below it (``-1`` if none). A first guess from the binomial-beta identity is
    corrected with the bounds themselves, so the rule is exactly :func:`clopper_pearson`'s."""
    n = np.asarray(n, dtype=np.int64)
    if side == "lower":
        # lower(s) > t  <=>  P(Bin(n, t) >= s) < 1 - level
        s = np.minimum(stats.binom.ppf(level, n, threshold).astype(np.int64) + 1, n + 1)

        def passes(k):
            lower = clopper_pearson_lower(np.clip(k, 0, n), n, level)
            return (k >= 1) & (k <= n) & (lower > threshold)
        direction = -1  # the passing outcomes are s, s + 1, ..., n
    else:
        # upper(s) < t  <=>  P(Bin(n, t) <= s) < 1 - level
        s = np.maximum(stats.binom.ppf(1 - level, n, threshold).astype(np.int64) - 1, -1)

        def passes(k):
            upper = clopper_pearson_upper(np.clip(k, 0, n), n, level)
            return (k >= 0) & (k <= n) & (upper < threshold)
        direction = +1  # the passing outcomes are 0, 1, ..., s
    for _ in range(50):
        outward = passes(s + direction)  # the boundary lies further out
        inward = ~passes(s) & (s >= 0) & (s <= n)  # s itself does not pass
        if not (outward.any() or inward.any()):
            return s
        s = s + direction * outward - direction * inward
    raise AssertionError("no Clopper-Pearson pass boundary found")


def _error_rates(n, p, threshold, level, side):
    """Probability of the wrong decision for each ``n`` when the true proportion is ``p``."""
    b = _pass_boundary(n, threshold, level, side)
    if side == "lower":
        p_pass = stats.binom.sf(b - 1, n, p)
        should_pass = p > threshold
    else:
        p_pass = stats.binom.cdf(b, n, p)
        should_pass = p < threshold
    return 1.0 - p_pass if should_pass else p_pass


def _check_rule(threshold, level, side):
    threshold = check_real(threshold, "threshold", lo=0, hi=1, lo_open=True, hi_open=True)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    side = check_choice(side, "side", ("lower", "upper"))
    return threshold, level, side


def proportion_error_rates(n, p_true, threshold, level=0.95, side="lower") -> float:
    """Exact probability that the rule "pass iff the one-sided Clopper-Pearson bound at
    ``level`` clears ``threshold``" decides wrongly when the true proportion is ``p_true``.

    ``side="lower"``: pass iff the lower bound is above ``threshold``; the error is failing
    when ``p_true > threshold`` and passing otherwise. ``side="upper"``: pass iff the upper
    bound is below ``threshold``; the error is failing when ``p_true < threshold`` and passing
    otherwise. The sum runs over all binomial outcomes of ``n`` trials.
    """
    n = check_int(n, "n", lo=1)
    p_true = check_real(p_true, "p_true", lo=0, hi=1)
    threshold, level, side = _check_rule(threshold, level, side)
    return float(_error_rates(np.array([n]), p_true, threshold, level, side)[0])


def sample_size_for_proportion(p_correct, p_alternative, threshold, level=0.95,
                               max_false_fail=1e-3, max_false_pass=1e-2, side="lower",
                               n_max=100000, *, run=10) -> int:
    """Fewest trials for which the rule of :func:`proportion_error_rates` fails correct code
    (true proportion ``p_correct``) with probability at most ``max_false_fail`` and passes the
    alternative ``p_alternative`` with probability at most ``max_false_pass``.

    The exact error rates saw-tooth in ``n`` (the binomial outcomes are discrete), so a lucky
    ``n`` can meet both limits while ``n + 1`` does not: the answer is the smallest ``n`` such
    that ``n`` and the ``run - 1`` following sizes all meet them.
    ``side="lower"`` needs ``p_correct > threshold >= p_alternative``, ``"upper"`` the reverse.
    """
    threshold, level, side = _check_rule(threshold, level, side)
    p_correct = check_real(p_correct, "p_correct", lo=0, hi=1)
    p_alternative = check_real(p_alternative, "p_alternative", lo=0, hi=1)
    ordered = (p_correct > threshold >= p_alternative) if side == "lower" else \
        (p_correct < threshold <= p_alternative)
    if not ordered:
        reject("p_alternative", p_alternative,
               f"a proportion on the other side of threshold = {threshold} from p_correct = "
               f"{p_correct} (side = {side!r})")
    max_false_fail = check_real(max_false_fail, "max_false_fail", lo=0, hi=1, lo_open=True)
    max_false_pass = check_real(max_false_pass, "max_false_pass", lo=0, hi=1, lo_open=True)
    n_max = check_int(n_max, "n_max", lo=1)
    run = check_int(run, "run", lo=1)
    streak, start, last = 0, 1, n_max + run - 1  # a run starting at n_max ends at last
    while start <= last:
        n = np.arange(start, min(start + 1024, last + 1))
        ok = (_error_rates(n, p_correct, threshold, level, side) <= max_false_fail) & \
             (_error_rates(n, p_alternative, threshold, level, side) <= max_false_pass)
        for i, good in enumerate(ok):
            streak = streak + 1 if good else 0
            if streak == run:
                return int(n[i] - run + 1)
        start += n.size
    reject("n_max", n_max, f"a larger limit: no n <= {n_max} meets both error limits")


def _check_window(low, high, level):
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    low, high = check_real(low, "low"), check_real(high, "high")
    if not low < high:
        reject("high", high, f"a window end above low = {low}")
    return low, high, level


def window_mean_outcomes(mean, sd, n, low, high, level=0.99) -> dict:
    r"""Probabilities of ``pass`` / ``fail`` / ``inconclusive`` of the three-way rule "the
    two-sided ``level`` Student-t interval of the mean of ``n`` values is inside [low, high]
    (pass), disjoint from it (fail), straddles an end (inconclusive)" when the values have mean
    ``mean`` and standard deviation ``sd``.

    The sample mean is taken as normal with standard deviation ``sd / sqrt(n)`` and the interval's
    half-width as its value at the true ``sd`` (the sample sd of ``n`` >= 100 values is within a
    few per cent of it); a design for a small inconclusive rate should feed a conservative
    ``mean`` (the end of a pilot interval nearest a window end) so that this approximation and
    the pilot's own error are covered.
    """
    mean = check_real(mean, "mean")
    sd = check_real(sd, "sd", lo=0, lo_open=True)
    n = check_int(n, "n", lo=2)
    low, high, level = _check_window(low, high, level)
    se = sd / np.sqrt(n)
    half = float(stats.t.ppf((1 + level) / 2, n - 1)) * se
    below = stats.norm.cdf
    inside = max(0.0, float(below((high - half - mean) / se) - below((low + half - mean) / se))) \
        if high - low > 2 * half else 0.0
    disjoint = float(below((low - half - mean) / se) + 1 - below((high + half - mean) / se))
    return {"pass": inside, "fail": disjoint, "inconclusive": max(0.0, 1.0 - inside - disjoint)}


def paired_share_outcomes(n, discordant, share, low, high, level=0.98) -> dict:
    r"""Exact probabilities of ``pass`` / ``fail`` / ``inconclusive`` of the three-way rule on a
    paired share: of ``n`` units, each is discordant (counts toward the share's denominator) with
    probability ``discordant``, and a discordant unit is a success with probability ``share``; the
    two-sided ``level`` Clopper-Pearson interval of successes / discordant units inside
    [low, high] passes, disjoint fails, otherwise (or with no discordant unit) inconclusive."""
    n = check_int(n, "n", lo=1)
    discordant = check_real(discordant, "discordant", lo=0, hi=1)
    share = check_real(share, "share", lo=0, hi=1)
    low, high, level = _check_window(low, high, level)
    m = np.arange(n + 1)
    weight = stats.binom.pmf(m, n, discordant)
    out = {"pass": 0.0, "fail": 0.0, "inconclusive": float(weight[0])}
    for size in m[1:][weight[1:] > 1e-18]:
        k = np.arange(size + 1)
        one_sided = (1 + level) / 2  # the ends of the two-sided interval
        lo, hi = clopper_pearson_lower(k, size, one_sided), clopper_pearson_upper(k, size, one_sided)
        p_k = stats.binom.pmf(k, size, share) * weight[size]
        passes = (lo >= low) & (hi <= high)
        fails = (hi < low) | (lo > high)
        out["pass"] += float(p_k[passes].sum())
        out["fail"] += float(p_k[fails].sum())
        out["inconclusive"] += float(p_k[~passes & ~fails].sum())
    return out


def sequential_proportion_outcomes(p, looks, threshold, level=0.99, side="lower") -> dict:
    r"""Exact probabilities of ``pass`` / ``fail`` / ``inconclusive`` of a three-way proportion
    rule decided at planned looks, when each run succeeds independently with probability ``p``.

    ``looks`` are the cumulative numbers of runs :math:`n_1 < n_2 < \dots < n_J`. At look
    :math:`j`, with :math:`k` successes among the first :math:`n_j` runs, the one-sided
    Clopper-Pearson bounds are taken at ``1 - (1 - level) / J`` (Bonferroni over the looks, so
    that a true ``p`` at ``threshold`` passes at some look with probability at most
    ``1 - level``). ``side="lower"`` decides ":math:`p >` threshold": pass iff the lower bound
    is >= ``threshold``, fail iff the upper bound is below it; ``side="upper"`` decides
    ":math:`p <` threshold": pass iff the upper bound is <= ``threshold``, fail iff the lower
    bound is above it. A look that decides stops; the last look's undecided outcomes are
    inconclusive.

    Returns:
        dict with ``pass``, ``fail``, ``inconclusive``, ``expected_runs`` (the mean number of
        runs trained), ``look_level`` and ``boundaries``: per look the successes ``(pass iff
        k >= a, fail iff k <= b)`` for ``"lower"``, ``(pass iff k <= a, fail iff k >= b)`` for
        ``"upper"`` (``a``, ``b`` out of ``[0, n_j]`` when no count decides that way).
    """
    p = check_real(p, "p", lo=0, hi=1)
    threshold, level, side = _check_rule(threshold, level, side)
    looks = [check_int(n, "looks", lo=1) for n in looks]
    if not looks or any(b <= a for a, b in zip(looks, looks[1:])):
        reject("looks", looks, "a non-empty increasing list of cumulative numbers of runs")
    per_look = bonferroni_level(level, len(looks))
    alive = np.array([1.0])  # P(k successes so far and no decision yet), k = 0 .. runs so far
    out = {"pass": 0.0, "fail": 0.0, "expected_runs": 0.0, "look_level": per_look, "boundaries": []}
    done = 0
    for n in looks:
        out["expected_runs"] += float(alive.sum()) * (n - done)
        alive = np.convolve(alive, stats.binom.pmf(np.arange(n - done + 1), n - done, p))
        done = n
        k = np.arange(n + 1)
        lower, upper = clopper_pearson_lower(k, n, per_look), clopper_pearson_upper(k, n, per_look)
        if side == "lower":
            passes, fails = lower >= threshold, upper < threshold
            bounds = (int(k[passes].min()) if passes.any() else n + 1, int(k[fails].max()) if fails.any() else -1)
        else:
            passes, fails = upper <= threshold, lower > threshold
            bounds = (int(k[passes].max()) if passes.any() else -1, int(k[fails].min()) if fails.any() else n + 1)
        out["boundaries"].append(bounds)
        out["pass"] += float(alive[passes].sum())
        out["fail"] += float(alive[fails].sum())
        alive = np.where(passes | fails, 0.0, alive)
    out["inconclusive"] = max(0.0, 1.0 - out["pass"] - out["fail"])
    return out


def simulate_error_rate(simulate_once, n_sim, rng=None, level=0.95):
    """Monte Carlo error rate of a decision rule.

    Args:
        simulate_once: ``rng -> bool``, one simulated run, True when the rule decided wrongly.
        n_sim: runs (>= 1); rng: numpy Generator, seed or None; level: of the interval.
    Returns:
        ``(rate, (lo, hi))``: the fraction of wrong decisions and its two-sided
        :func:`clopper_pearson` interval.
    """
    simulate_once = check_callable(simulate_once, "simulate_once")
    n_sim = check_int(n_sim, "n_sim", lo=1)
    gen = check_rng(rng)
    level = check_real(level, "level", lo=0, hi=1, lo_open=True, hi_open=True)
    errors = 0
    for _ in range(n_sim):
        outcome = simulate_once(gen)
        if not isinstance(outcome, (bool, np.bool_)):
            reject("simulate_once", "<callable>", "a function returning True (an error) or False")
        errors += bool(outcome)
    return errors / n_sim, clopper_pearson(errors, n_sim, level)


def _with_exponent(truth, exponent):
    theta = truth.fit.theta.copy()
    theta[1] = exponent
    return dataclasses.replace(truth, fit=dataclasses.replace(truth.fit, theta=theta))


def _design_probabilities(truth, design):
    cells = [(d, m, seeds) for d, ms, seeds in design for m in ms]
    p = np.array([truth.probability(d, m) for d, m, _ in cells])
    return cells, p


def exponent_rule_error_rates(truth, design, *, ceiling=0.3, level=0.99, alternative=None,
                              n_sim=1000, rng=0) -> dict:
    r"""Error rates of "pass iff the one-sided ``level`` upper bound of the exponent < ``ceiling``"
    (the quasi-likelihood bound, scaled by the dispersion of each simulated fit, as the SX-4 test
    applies it).

    Args:
        truth: a power-law :class:`~verify.stats.thresholds.ThresholdFit` whose groups
            include every ``d`` of ``design`` (the lapses are per group).
        design: rows ``(d, m grid, seeds per cell)``.
        alternative: the exponent of the alternative (default ``ceiling``).
    Returns:
        dict with ``false_fail`` (correct code, the truth's exponent) and ``false_pass``
        (the alternative), each ``(rate, (lo, hi))`` with a 95 % Clopper-Pearson interval, and
        the mean and standard deviation of the simulated upper bounds under the truth.
    """
    ceiling = check_real(ceiling, "ceiling")
    n_sim = check_int(n_sim, "n_sim", lo=1)
    alternative = ceiling if alternative is None else check_real(alternative, "alternative")
    gen = np.random.default_rng(rng)
    bounds = []

    def run(model, record):
        cells, p = _design_probabilities(model, design)
        trials = np.array([s for _, _, s in cells])

        def once(g):
            k = g.binomial(trials, p)
            fit = fit_threshold_curves([c[0] for c in cells], [c[1] for c in cells], k, trials, law="power")
            hi = fit.exponent_interval(conf=quasi_level(level, fit.dispersion, "upper"), side="upper")[1]
            if record:
                bounds.append(hi)
            return bool(hi >= ceiling)
        return once

    false_fail = simulate_error_rate(run(truth, True), n_sim, gen)
    passes = simulate_error_rate(run(_with_exponent(truth, alternative), False), n_sim, gen)
    return {"truth_exponent": truth.exponent, "alternative": alternative, "ceiling": ceiling, "level": level,
            "n_sim": n_sim, "false_fail": false_fail,
            "false_pass": (1 - passes[0], (1 - passes[1][1], 1 - passes[1][0])),
            "upper_bound_mean": float(np.mean(bounds)), "upper_bound_sd": float(np.std(bounds))}


def crossing_comparison_miss(grid_left, p_left, grid_right, p_right, trials, level=0.99,
                             crossing=0.5) -> dict:
    r"""Upper bound on the probability that the rule "pass iff the upper end of curve A's
    :func:`~verify.stats.intervals.crossing_interval` is below the lower end of curve B's" does
    **not** pass, when the true proportions of A (``p_left`` on ``grid_left``: the curve that
    crosses further left) and of B (``p_right`` on ``grid_right``) are known and each interval
    is at ``level`` from ``trials`` draws per grid point.

    For grid points :math:`s^A_b < s^B_a`: the rule passes if A's upper bound at :math:`s^A_b`
    and B's lower bound at :math:`s^B_a` both clear ``crossing``, so the miss probability is at
    most :math:`P(U^A_b \ge c) + P(L^B_a \le c)`, each an exact binomial sum
    (:func:`proportion_error_rates` at the one-sided level of one end of a Bonferroni
    interval). Returns ``{"miss": the smallest such bound, "left": s^A_b, "right": s^B_a}``
    (``miss`` 1 and ``None`` points when no pair has ``p_left < c < p_right``).
    """
    curves = []
    for gname, g, pname, p in (("grid_left", grid_left, "p_left", p_left),
                               ("grid_right", grid_right, "p_right", p_right)):
        g = np.asarray(g, dtype=np.float64).ravel()
        p = np.asarray(p, dtype=np.float64).ravel()
        if g.size < 1 or bool((np.diff(g) <= 0).any()):
            reject(gname, f"<{g.size} values>", "a non-empty strictly increasing grid")
        if p.shape != g.shape or not bool(((p >= 0) & (p <= 1)).all()):
            reject(pname, f"<{p.size} values>", f"{g.size} proportions in [0, 1], one per point of {gname}")
        curves.append((g, p))
    n = check_int(trials, "trials", lo=1)
    crossing = check_real(crossing, "crossing", lo=0, hi=1, lo_open=True, hi_open=True)
    (ga, pa), (gb, pb) = curves
    tail_a = 1 - (1 - bonferroni_level(level, ga.size)) / 2
    tail_b = 1 - (1 - bonferroni_level(level, gb.size)) / 2
    miss_a = [proportion_error_rates(n, float(p), crossing, tail_a, "upper") if p < crossing else 1.0 for p in pa]
    miss_b = [proportion_error_rates(n, float(p), crossing, tail_b, "lower") if p > crossing else 1.0 for p in pb]
    best = {"miss": 1.0, "left": None, "right": None}
    for i, sa in enumerate(ga):
        for j, sb in enumerate(gb):
            if sa < sb and miss_a[i] + miss_b[j] < best["miss"]:
                best = {"miss": float(miss_a[i] + miss_b[j]), "left": float(sa), "right": float(sb)}
    return best


__all__ = ["proportion_error_rates", "sample_size_for_proportion", "crossing_comparison_miss",
           "simulate_error_rate", "exponent_rule_error_rates", "window_mean_outcomes",
           "paired_share_outcomes", "sequential_proportion_outcomes"]
