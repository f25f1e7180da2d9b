"""`boolverify check`: run every claim in theorems/ and report.

The run, the report and its Markdown rendering are :mod:`verify.report.runner`'s; this module
parses the options, shows progress and prints the table.
"""

from __future__ import annotations

import contextlib
import os

from numeric.validation import InputError, check_choice, check_int, reject
from verify.cli.options import MAX_JOBS, integer
from verify.cli import as_options, writing
from verify.cli.options import console
from verify.report.claims import CLAIMS
from verify.report.runner import PROFILES, worker_threads


def register(sub):
    p = sub.add_parser(
        "check",
        help="run every claim in theorems/ and print the report",
        description="Runs the theorem checks (pytest on the installed `theorems` package), prints "
        "a table per claim and optionally writes JSON/Markdown reports. Exit 0 unless a claim fails "
        "(pass and inconclusive exit 0; fail exits 1).",
    )
    p.add_argument("--profile", choices=list(PROFILES), default="quick",
                   help="quick: the fast version of every check (about 200 s on 2 cores); full: adds the slow "
                        "sweeps (default: quick)")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON (atomically)")
    p.add_argument("--markdown", metavar="FILE", help="write the report as Markdown (atomically)")
    p.add_argument("--html", metavar="FILE",
                   help="write the report as one self-contained HTML page, figures of docs/figures embedded "
                        "(atomically; default: none)")
    p.add_argument("--from-report", metavar="FILE",
                   help="render the table, --markdown and --html from this stored 'check --json' report (e.g. "
                        "docs/report.json) instead of running the checks (default: run them)")
    p.add_argument("--claim", action="append", metavar="ID", help="only this claim (repeatable), e.g. SX-1 (default: every claim)")
    p.add_argument("--seed", type=integer, default=None, metavar="K",
                   help="seed base of every stochastic check (sets BOOLVERIFY_SEED; default: the "
                        "environment's, else 0); the claims must hold for any value")
    p.add_argument("--mutants", metavar="FILE",
                   help="include the mutation score of a 'boolverify mutants --json' result in the report "
                        "(default: no mutation score)")
    p.add_argument("--jobs", type=integer, default=None, help="worker processes, 1 .. 64 (default: CPU cores, at most 4)")
    p.add_argument("--threads", type=integer, default=None,
                   help="torch/OpenMP threads per worker (default: OMP_NUM_THREADS if set, else 1); "
                        "the outcomes must not depend on it")
    p.set_defaults(func=run)


def _validate(args) -> None:
    if args.from_report is not None:
        _validate_stored(args)
        return
    for cid in args.claim or ():
        check_choice(cid, "--claim", tuple(CLAIMS))
    if args.jobs is not None:
        check_int(args.jobs, "--jobs", lo=1, hi=MAX_JOBS)
    with as_options({"threads": "--threads"}):
        args.threads = worker_threads(args.threads)
    from verify.common import seeds

    if args.seed is not None:
        check_int(args.seed, "--seed", lo=0, hi=seeds.MAX_BASE)
    from verify.common.provenance import update_run

    # a malformed BOOLVERIFY_SEED is refused before any work
    update_run(seed_base=seeds.base_seed() if args.seed is None else args.seed, threads=args.threads)
    from verify.cli.options import check_distinct_files, check_output

    check_output(args.json, "--json")
    check_output(args.markdown, "--markdown")
    check_output(args.html, "--html")
    check_distinct_files([("--json", args.json), ("--markdown", args.markdown), ("--html", args.html)],
                         [("--mutants", args.mutants)])


def run(args) -> int:
    _validate(args)
    from verify.common.atomic_io import atomic_write_json, atomic_write_text
    from verify.common.provenance import with_provenance
    from verify.report.runner import run_checks, to_markdown

    mutants = _load_mutants(args.mutants) if args.mutants else None
    # the Markdown report renders the record; the JSON writer attaches a fresh one
    if args.from_report:
        report = args.stored
    else:
        with _seed_base_for_workers(args.seed):
            report = with_provenance(_run_with_progress(args, run_checks))
    if mutants is not None:
        report["mutants"] = mutants
    _print_report(report)
    if args.json:
        with writing(args.json, "--json"):
            atomic_write_json(args.json, report)
    if args.markdown:
        with writing(args.markdown, "--markdown"):
            atomic_write_text(args.markdown, to_markdown(report))
    if args.html:
        from verify.report.html_report import write_html

        with writing(args.html, "--html"):
            write_html(args.html, report)
    return 0 if report["passed"] else 1


@contextlib.contextmanager
def _seed_base_for_workers(base):
    """BOOLVERIFY_SEED set to ``base`` (when given) while the checks run, since the pytest
    workers read it from the environment; restored afterwards, so a caller in the same process
    (a test, a notebook) keeps its own."""
    from verify.common.seeds import ENV_VAR

    if base is None:
        yield
        return
    before = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = str(base)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV_VAR, None)
        else:
            os.environ[ENV_VAR] = before


def _run_with_progress(args, run_checks) -> dict:
    """Runs the checks under the progress display (:mod:`verify.cli.progress`), one unit per
    finished claim: the number of claims is known before the run, and the estimate weighs each
    by its time in the committed report."""
    from verify.cli.progress import progress
    from verify.report.runner import ClaimProgress, stored_durations

    claims = ClaimProgress(args.claim, weights=stored_durations())
    with progress("check", claims.total, unit="claims") as shown:
        def on_event(ev):
            finished = claims.feed(ev)
            if finished is not None:
                shown.work(claims.weight_done, claims.weight_total, f"{finished.id} {finished.status}",
                           seconds=finished.duration)

        return run_checks(profile=args.profile, jobs=args.jobs, claims=args.claim, on_event=on_event,
                          threads=args.threads)


def _print_report(report) -> None:
    from rich.table import Table

    from verify.report.runner import format_test_evidence

    out = console()
    table = Table(title=f"boolverify check ({report['profile']}): claims as formalised in boolverify",
                  show_lines=False)
    for col in ("claim", "statement", "decisions (estimate [interval]: rule -> outcome)", "result", "time (s)"):
        table.add_column(col, overflow="fold")
    colour = {"pass": "green", "fail": "bold red", "inconclusive": "yellow", "no test": "yellow"}
    for c in report["claims"]:
        shown = "\n".join(decision_line(d) for d in c.get("decisions") or []) or format_test_evidence(c["evidence"])
        table.add_row(c["id"], c["statement"], shown,
                      f"[{colour[c['status']]}]{c['status']}[/]", f"{c['duration_s']:.1f}")
    out.print(table)
    for c in report["claims"]:
        for t in c["tests"]:
            if t["outcome"] in ("failed", "error"):
                first = t["message"].splitlines()[0] if t["message"] else ""
                out.print(f"[red]FAIL[/] {c['id']} {t['nodeid']}: {first}", markup=True, highlight=False)
    bounds = report["environment"].get("bounds")
    if bounds and bounds["precision"] != "certified":
        out.print(f"[yellow]note[/]: {bounds['note']}", highlight=False)
    for err in report["worker_errors"]:
        out.print(f"[red]worker error[/]:\n{err}", highlight=False)
    n_pass = sum(c["status"] == "pass" for c in report["claims"])
    n_inc = sum(c["status"] == "inconclusive" for c in report["claims"])
    out.print(f"{n_pass}/{len(report['claims'])} claims pass"
                  f"{f', {n_inc} inconclusive' if n_inc else ''} in {report['duration_s']:.1f} s; "
                  f"overall {'[green]PASS[/]' if report['passed'] else '[bold red]FAIL[/]'}")


def decision_line(d: dict) -> str:
    from verify.report.cells import estimate

    # the level is part of the rule's reading here; the Markdown report has its own column
    return f"{d['estimand']} = {estimate({**d, 'level': None}, digits=4)}: {d['rule']} -> {d['outcome']}"


def _load_mutants(path) -> dict:
    """A result of ``boolverify mutants --json``, read before any check runs."""
    from verify.cli.options import read_json

    result = read_json(path, "--mutants", "a readable JSON result of 'boolverify mutants --json'")
    keys = ("mutants", "caught", "total", "score", "survivors")
    if not isinstance(result, dict) or any(k not in result for k in keys):
        reject("--mutants", str(path), f"a result of 'boolverify mutants --json' (with {', '.join(keys)})")
    counts = [result[k] for k in ("caught", "total")]
    score = result["score"]
    if (not isinstance(result["mutants"], list) or not isinstance(result["survivors"], list)
            or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts)
            or counts[0] > counts[1] or isinstance(score, bool) or not isinstance(score, (int, float))
            or not 0 <= score <= 1 or not all(isinstance(s, str) for s in result["survivors"])):
        reject("--mutants", str(path), "a result of 'boolverify mutants --json': lists 'mutants' and "
               "'survivors' (names), counts 0 <= 'caught' <= 'total' and a 'score' in [0, 1]")
    return result


def _validate_stored(args) -> None:
    """``--from-report``: a stored report is rendered, not rerun, so the options of a run are
    refused with it (a ``--json`` would rewrite the record under a new provenance); the report
    is read and checked before anything is written."""
    from verify.cli.options import check_distinct_files, check_output, read_json
    from verify.report.html_report import check_report

    run_options = [name for name, value in (("--json", args.json), ("--claim", args.claim), ("--seed", args.seed),
                                            ("--mutants", args.mutants), ("--jobs", args.jobs),
                                            ("--threads", args.threads)) if value is not None]
    if run_options:
        reject("--from-report", str(args.from_report),
               f"a stored report to render, without the run options {', '.join(run_options)}")
    check_output(args.markdown, "--markdown")
    check_output(args.html, "--html")
    check_distinct_files([("--markdown", args.markdown), ("--html", args.html)],
                         [("--from-report", args.from_report)])
    expected = "a report written by 'boolverify check --json'"
    stored = read_json(args.from_report, "--from-report", expected)
    try:
        args.stored = check_report(stored)
    except InputError as exc:
        reject("--from-report", str(args.from_report), f"{expected} ({exc.expected})")
