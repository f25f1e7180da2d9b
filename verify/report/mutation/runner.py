"""The mutation catalogue as a whole: select mutants, run them, render the score.

:data:`MUTANTS` is paper A's catalogue (:mod:`verify.report.mutation.catalogue_a`) then paper
B's (:mod:`verify.report.mutation.catalogue_b`). :func:`run_mutants` runs each selected mutant
in its own pytest worker (:mod:`verify.report.workers`, shared with ``boolverify check``: the
workers die with the run, even when it is killed); :func:`mutation_summary` renders the result
as Markdown. Importing this module loads neither torch nor the engine.
"""

from __future__ import annotations

import time
from pathlib import Path

from numeric.validation import check_int, reject
from verify.report.mutation import engine
from verify.report.mutation.catalogue_a import PAPER_A
from verify.report.mutation.catalogue_b import PAPER_B
from verify.report.mutation.catalogue_registries import REGISTRIES
from verify.report.mutation.engine import DEFAULT_TIMEOUT_S, Mutant
from verify.report.workers import run_folder, run_workers

#: the whole catalogue: paper A, paper B, then the registries
MUTANTS: tuple[Mutant, ...] = PAPER_A + PAPER_B + REGISTRIES
#: the name of a mutation run's temporary folder starts with this, then the process id
TMP_PREFIX = "boolverify-mutants-"

_UNKNOWN = "the name of a mutant of the catalogue (boolverify mutants --list)"


def by_name(name: str) -> Mutant:
    """The catalogue entry ``name`` (:class:`InputError` for an unknown name)."""
    for m in MUTANTS:
        if m.name == name:
            return m
    reject("mutant", name, _UNKNOWN)


def select(only=None) -> list[Mutant]:
    """The mutants named in ``only`` (catalogue order), or all; an unknown name is an
    :class:`InputError` naming ``--only``."""
    if not only:
        return list(MUTANTS)
    names = {m.name for m in MUTANTS}
    for name in only:
        if name not in names:
            reject("--only", name, _UNKNOWN)
    return [m for m in MUTANTS if m.name in set(only)]


def run_mutants(only=None, jobs=2, on_result=None, timeout_s=DEFAULT_TIMEOUT_S) -> dict:
    """Run each selected mutant in its own pytest worker, ``jobs`` at a time.

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
    mutant_of = {m.name: m for m in chosen}
    results: dict[str, dict] = {}

    def finished(run):
        rec = engine.outcome(mutant_of[run.task.name], run, timeout_s)
        results[rec["name"]] = rec
        if on_result:
            on_result(rec)

    with run_folder(TMP_PREFIX) as tmp:
        run_workers([engine.task(m) for m in chosen], tmp, jobs, on_finished=finished,
                    timeout_s=timeout_s)
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
        "break fails (`boolverify mutants`, verify/report/mutation/).",
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


__all__ = ["MUTANTS", "TMP_PREFIX", "by_name", "select", "run_mutants", "mutation_summary"]
