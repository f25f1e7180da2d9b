"""SG-8's decision rules, shared by the claim (``theorems/test_SG8_training.py``) and its results file
(``docs/data/sg8_decisions.json``), and the runs at the claim's own settings for that file.

A proportion of runs is decided three-way against ``SG8.most_runs`` (:func:`three_way`) at a cell's
planned looks (:func:`decide_at_looks`: one-sided Clopper-Pearson bounds at ``SG8.level`` split
over the looks, Bonferroni; the first look that decides stops). :func:`run_sg8_decisions` trains
the cells of :data:`verify.experiments.plans.SG8_FAST` look by look (run ``i`` of a cell with the
seed ``seed(first_seed + i)`` in ``SG8.dtype``, each look's new runs trained together by
:func:`verify.experiments.grouped_training.train_runs`, as the claim trains them); a run counts when its
held-out accuracy (MAJORITY, FIRST) or exact accuracy (the others) reaches the claim's threshold;
the profile decision, P(as <= ``low_sensitivity`` N), pools the first looks of the MAJORITY, FIRST
and long-N PARITY cells at ``SG8.level``. The claim test stays the decision; the file records
what it decides at the seed base of the run.
"""

from __future__ import annotations

from typing import Callable

from verify.common.seeds import base_seed, seed
from verify.experiments.claim_rules import SG8
from verify.stats.decisions import inside
from verify.stats.intervals import bonferroni_level, clopper_pearson

#: the cells whose first looks the profile decision pools (as in the claim test)
PROFILE_CELLS = ("majority", "first", "parity_long")


def _held_out_cell(cell) -> bool:
    return cell.get("train_strings") is not None


def three_way(estimand, k, n, side, level=SG8.level):
    """Three-way decision on ``k`` of ``n`` runs against ``most_runs``: ``side="lower"`` decides
    "p > 1/2" (pass iff the one-sided ``level`` Clopper-Pearson lower bound is >= 1/2, fail iff
    the upper one is below it), ``side="upper"`` decides "p < 1/2" the other way round;
    inconclusive otherwise (the two bounds together form a 2 ``level`` - 1 interval)."""
    lo = clopper_pearson(k, n, level, side="lower")[0]
    hi = clopper_pearson(k, n, level, side="upper")[1]
    window = (SG8.most_runs, 1.0) if side == "lower" else (0.0, SG8.most_runs)
    return inside(estimand, k / n, (lo, hi), 2 * level - 1, *window)


def decide_at_looks(estimand, looks, runs_up_to, hit, side, taken, stop=None):
    """A proportion decided at planned looks: ``runs_up_to(n)`` gives the first ``n`` runs (trained
    when first asked for), ``hit(run)`` whether a run counts. Each look decides :func:`three_way`
    at ``SG8.level`` split over the looks (Bonferroni); the first look that passes or fails stops,
    and so does a look where ``stop(runs)`` holds; the last look's undecided outcome is
    inconclusive. Each look taken is appended to the list ``taken`` as
    ``{"runs", "hits", "interval", "level", "outcome"}``.

    Returns:
        the last look's :class:`~verify.stats.decisions.Decision`.
    """
    level = bonferroni_level(SG8.level, len(looks))
    for n in looks:
        runs = runs_up_to(n)
        k = sum(1 for r in runs if hit(r))
        decision = three_way(estimand, k, n, side, level)
        taken.append({"runs": n, "hits": k, "interval": list(decision.interval), "level": decision.level,
                      "outcome": decision.outcome})
        if decision.outcome != "inconclusive" or (stop is not None and stop(runs)):
            break
    return decision


def _record(name, r):
    return {"cell": name, "target": r.target, "N": r.N, "seed": r.seed, "steps": r.steps,
            "batch_size": r.batch_size, "dtype": r.dtype, "accuracy": r.accuracy,
            "held_out_accuracy": r.held_out_accuracy, "held_out_n": r.held_out_n,
            "mean_sensitivity": r.mean_sensitivity, "K0_fraction": r.profile_fraction[0],
            "final_loss": r.final_loss, "train_time_s": r.train_time_s}


def run_sg8_decisions(cells, *, dtype=SG8.dtype, steps=None,
                      progress: Callable[[str], None] | None = None) -> dict:
    """Train the cells of ``cells`` (a plan shaped like :data:`~verify.experiments.plans.SG8_FAST`)
    look by look and decide each as the claim does; ``steps`` overrides every cell's steps (the
    smoke plan only). Returns the results file's content (without provenance)."""
    from verify.experiments.grouped_training import train_runs

    out, runs = {}, {}
    for name, cell in cells.items():
        looks, side = tuple(cell["looks"]), SG8.design_side[name]
        quantity = "held_out_accuracy" if _held_out_cell(cell) else "accuracy"
        threshold = SG8.learned_held_out if _held_out_cell(cell) else SG8.learned_parity
        options = {k: v for k, v in cell.items() if k not in ("target", "N", "looks", "first_seed")}
        if steps is not None:
            options["steps"] = steps
        trained = runs[name] = []

        def runs_up_to(n, name=name, cell=cell, options=options, trained=trained):
            if len(trained) < n:
                new = train_runs(cell["target"], cell["N"], [seed(cell["first_seed"] + i) for i in range(len(trained), n)],
                                 dtype=dtype, **options)
                trained += [_record(name, r) for r in new]
                if progress is not None:
                    best = max(r[quantity] for r in trained[-len(new):])
                    progress(f"{name} N={cell['N']} runs {len(trained) - len(new) + 1}-{n}: best {quantity} {best:.4f}")
            return trained[:n]

        taken = []
        decision = decide_at_looks("p", looks, runs_up_to, lambda r: r[quantity] >= threshold, side, taken)
        out[name] = {"target": cell["target"], "N": cell["N"], "steps": steps or cell["steps"],
                     "batch_size": cell.get("batch_size", 128), "train_strings": cell.get("train_strings"),
                     "quantity": quantity, "threshold": threshold, "side": side,
                     "claim": f"P({quantity} >= {threshold:g}) {'>' if side == 'lower' else '<'} {SG8.most_runs:g}",
                     "looks": list(looks), "looks_taken": taken, "outcome": decision.outcome,
                     "runs": trained}
    pooled = [r for name in PROFILE_CELLS if name in cells for r in runs[name][:cells[name]["looks"][0]]]
    if pooled:
        k = sum(r["mean_sensitivity"] <= SG8.low_sensitivity * r["N"] for r in pooled)
        d = three_way("p", k, len(pooled), "lower")
        out["profiles"] = {"cells": [c for c in PROFILE_CELLS if c in cells], "quantity": "mean_sensitivity / N",
                           "threshold": SG8.low_sensitivity, "side": "lower",
                           "claim": f"P(as <= {SG8.low_sensitivity:g} N) > {SG8.most_runs:g}",
                           "looks_taken": [{"runs": len(pooled), "hits": k, "interval": list(d.interval),
                                            "level": d.level, "outcome": d.outcome}],
                           "outcome": d.outcome}
    return {"claim": "SG-8", "seed_base": base_seed(), "dtype": dtype,
            "rules": {"level": SG8.level, "most_runs": SG8.most_runs, "learned_held_out": SG8.learned_held_out,
                      "learned_parity": SG8.learned_parity, "low_sensitivity": SG8.low_sensitivity},
            "decisions": out}


__all__ = ["PROFILE_CELLS", "three_way", "decide_at_looks", "run_sg8_decisions"]
