"""SG-8's decisions at the claim's own settings, as a results file (``docs/data/sg8_decisions.json``).

The runs and rules of ``theorems/test_SG8_training.py``, written here once more for the record and
its figure: per cell of :data:`verify.experiments.plans.SG8_FAST` (MAJORITY and FIRST at
``SG8.fixed_N`` on a fixed training subset, PARITY at ``SG8.parity_short_N`` and
``SG8.parity_long_N`` under one budget, and the two positive controls at the long N), run ``i`` is
:func:`verify.experiments.training.train` with the seed ``seed(first_seed + i)`` in ``SG8.dtype``;
a run counts when its held-out accuracy (MAJORITY, FIRST) or exact accuracy (the others) reaches
the claim's threshold. The proportion of such runs is decided three-way against ``SG8.most_runs``
at the cell's planned looks (one-sided Clopper-Pearson bounds at ``SG8.level`` split over the looks,
Bonferroni; the first look that decides stops), and the profile decision, P(as <= ``low_sensitivity``
N), over the first looks of the MAJORITY, FIRST and long-N PARITY cells at ``SG8.level``. The
claim test stays the decision; this file records what it decides at the seed base of the run.
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


def _three_way(k, n, side, level):
    """The claim's decision on k of n runs: (lower bound, upper bound, outcome)."""
    lo = clopper_pearson(k, n, level, side="lower")[0]
    hi = clopper_pearson(k, n, level, side="upper")[1]
    window = (SG8.most_runs, 1.0) if side == "lower" else (0.0, SG8.most_runs)
    return lo, hi, inside("p", k / n, (lo, hi), 2 * level - 1, *window).outcome


def _run(name, cell, i, dtype, steps):
    from verify.experiments.training import train

    options = {k: v for k, v in cell.items() if k not in ("target", "N", "looks", "first_seed")}
    if steps is not None:
        options["steps"] = steps
    r = train(cell["target"], cell["N"], seed=seed(cell["first_seed"] + i), dtype=dtype, **options)
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
    out, runs = {}, {}
    for name, cell in cells.items():
        looks, side = tuple(cell["looks"]), SG8.design_side[name]
        level = bonferroni_level(SG8.level, len(looks))
        quantity = "held_out_accuracy" if _held_out_cell(cell) else "accuracy"
        threshold = SG8.learned_held_out if _held_out_cell(cell) else SG8.learned_parity
        runs[name], taken = [], []
        for n in looks:
            while len(runs[name]) < n:
                runs[name].append(_run(name, cell, len(runs[name]), dtype, steps))
                r = runs[name][-1]
                if progress is not None:
                    progress(f"{name} N={r['N']} run {len(runs[name])}/{n}: {quantity} {r[quantity]:.4f}")
            k = sum(r[quantity] >= threshold for r in runs[name])
            lo, hi, outcome = _three_way(k, n, side, level)
            taken.append({"runs": n, "hits": k, "interval": [lo, hi], "level": 2 * level - 1, "outcome": outcome})
            if outcome != "inconclusive":
                break
        out[name] = {"target": cell["target"], "N": cell["N"], "steps": steps or cell["steps"],
                     "batch_size": cell.get("batch_size", 128), "train_strings": cell.get("train_strings"),
                     "quantity": quantity, "threshold": threshold, "side": side,
                     "claim": f"P({quantity} >= {threshold:g}) {'>' if side == 'lower' else '<'} {SG8.most_runs:g}",
                     "looks": list(looks), "looks_taken": taken, "outcome": taken[-1]["outcome"],
                     "runs": runs[name]}
    pooled = [r for name in PROFILE_CELLS if name in cells for r in runs[name][:cells[name]["looks"][0]]]
    if pooled:
        k = sum(r["mean_sensitivity"] <= SG8.low_sensitivity * r["N"] for r in pooled)
        lo, hi, outcome = _three_way(k, len(pooled), "lower", SG8.level)
        out["profiles"] = {"cells": [c for c in PROFILE_CELLS if c in cells], "quantity": "mean_sensitivity / N",
                           "threshold": SG8.low_sensitivity, "side": "lower",
                           "claim": f"P(as <= {SG8.low_sensitivity:g} N) > {SG8.most_runs:g}",
                           "looks_taken": [{"runs": len(pooled), "hits": k, "interval": [lo, hi],
                                            "level": 2 * SG8.level - 1, "outcome": outcome}],
                           "outcome": outcome}
    return {"claim": "SG-8", "seed_base": base_seed(), "dtype": dtype,
            "rules": {"level": SG8.level, "most_runs": SG8.most_runs, "learned_held_out": SG8.learned_held_out,
                      "learned_parity": SG8.learned_parity, "low_sensitivity": SG8.low_sensitivity},
            "decisions": out}


__all__ = ["PROFILE_CELLS", "run_sg8_decisions"]
