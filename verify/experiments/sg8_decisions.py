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


def training_options(cell, steps=None):
    """The options of :func:`~verify.experiments.grouped_training.train_runs` of a cell (all but its
    target, N, looks and first seed); ``steps`` overrides the cell's (the smoke plan only)."""
    options = {k: v for k, v in cell.items() if k not in ("target", "N", "looks", "first_seed")}
    if steps is not None:
        options["steps"] = steps
    return options


def training_shape(cell, steps=None) -> str:
    """What runs must share to train as one group: N and the training options (as text)."""
    return repr((cell["N"], training_options(cell, steps)))


def runs_to_train(cells, counts, name, n):
    """Which runs to train when cell ``name`` needs its first ``n``: ``{cell: (start, stop)}``, its own
    missing runs and the first looks of the cells of ``cells`` not started yet (``counts[cell]`` = 0)
    that share its N and training options. Those are trained anyway, and one group of all of them
    costs less than a group per cell; a run's bits do not depend on its group."""
    wanted = {name: (counts.get(name, 0), n)} if counts.get(name, 0) < n else {}
    if not wanted:
        return wanted
    shape = training_shape(cells[name])
    for other, cell in cells.items():
        if other != name and not counts.get(other, 0) and training_shape(cell) == shape:
            wanted[other] = (0, cell["looks"][0])
    return wanted


def train_cell_runs(cells, wanted, *, dtype, steps=None, on_batch=None) -> dict:
    """Runs ``start .. stop - 1`` of each cell of ``wanted`` (``{cell: (start, stop)}``; run ``i`` of a
    cell has the seed ``seed(first_seed + i)``), the cells that share N and training options trained
    as one group (:func:`~verify.experiments.grouped_training.train_runs`). ``on_batch``: ``None`` or
    ``on_batch(cell, i)`` giving run ``i``'s callback. Returns ``{cell: [TrainResult, ...]}``."""
    from verify.experiments.grouped_training import train_runs

    groups: dict = {}
    for name in wanted:
        groups.setdefault(training_shape(cells[name], steps), []).append(name)
    out = {name: [] for name in wanted}
    for names in groups.values():
        owners = [(name, i) for name in names for i in range(*wanted[name])]
        callbacks = None if on_batch is None else [on_batch(name, i) for name, i in owners]
        first = cells[names[0]]
        results = train_runs([cells[name]["target"] for name, _ in owners], first["N"],
                             [seed(cells[name]["first_seed"] + i) for name, i in owners], dtype=dtype,
                             on_batch=callbacks, **training_options(first, steps))
        for (name, _), r in zip(owners, results):
            out[name].append(r)
    return out


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
    out, runs = {}, {name: [] for name in cells}

    def quantity_of(cell):
        return "held_out_accuracy" if _held_out_cell(cell) else "accuracy"

    for name, cell in cells.items():
        looks, side = tuple(cell["looks"]), SG8.design_side[name]
        quantity = quantity_of(cell)
        threshold = SG8.learned_held_out if _held_out_cell(cell) else SG8.learned_parity
        trained = runs[name]

        def runs_up_to(n, name=name, trained=trained):
            wanted = runs_to_train(cells, {c: len(r) for c, r in runs.items()}, name, n)
            for other, new in train_cell_runs(cells, wanted, dtype=dtype, steps=steps).items():
                runs[other] += [_record(other, r) for r in new]
                if progress is not None:
                    q, stop = quantity_of(cells[other]), wanted[other][1]
                    best = max(getattr(r, q) for r in new)
                    progress(f"{other} N={cells[other]['N']} runs {wanted[other][0] + 1}-{stop}: best {q} {best:.4f}")
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


__all__ = ["PROFILE_CELLS", "three_way", "decide_at_looks", "training_options", "runs_to_train", "train_cell_runs",
           "run_sg8_decisions"]
