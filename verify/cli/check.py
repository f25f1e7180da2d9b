"""`boolverify check`: run every claim in theorems/ and report."""

from __future__ import annotations


def register(sub):
    p = sub.add_parser(
        "check",
        help="run every claim in theorems/ and print the report",
        description="Runs the theorem checks (pytest on the installed `theorems` package), prints "
        "a table per claim and optionally writes JSON/Markdown reports. Exit 0 iff every claim passes.",
    )
    p.add_argument("--profile", choices=["quick", "full"], default="quick",
                   help="quick: the fast versions (default, < 2 min on 2 cores); full: adds the slow sweeps")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON (atomically)")
    p.add_argument("--markdown", metavar="FILE", help="write the report as Markdown (atomically)")
    p.add_argument("--claim", action="append", metavar="ID", help="only this claim (repeatable), e.g. SX-1")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPU cores, at most 4)")
    p.set_defaults(func=run)


def run(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from verify.common.atomic_io import atomic_write_json, atomic_write_text
    from verify.report.runner import format_evidence, run_checks, to_markdown

    console = Console()
    with Progress(TextColumn("[bold]checking claims"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                  transient=True) as progress:
        task = progress.add_task("", total=None)
        collected = [0]

        def on_event(ev):
            if ev["event"] == "collected":
                collected[0] += ev["count"]
                progress.update(task, total=collected[0])
            elif ev["event"] == "test":
                progress.update(task, advance=1, description=f"{ev['claim'] or ''} {ev['outcome']}")

        report = run_checks(profile=args.profile, jobs=args.jobs, claims=args.claim, on_event=on_event)

    table = Table(title=f"boolverify check ({report['profile']}): claims as formalised in boolverify",
                  show_lines=False)
    for col in ("claim", "statement", "evidence", "result", "time"):
        table.add_column(col, overflow="fold")
    colour = {"pass": "green", "fail": "bold red", "no test": "yellow"}
    for c in report["claims"]:
        table.add_row(c["id"], c["statement"], format_evidence(c["evidence"]),
                      f"[{colour[c['status']]}]{c['status']}[/]", f"{c['duration_s']:.1f}s")
    console.print(table)
    for c in report["claims"]:
        for t in c["tests"]:
            if t["outcome"] in ("failed", "error"):
                first = t["message"].splitlines()[0] if t["message"] else ""
                console.print(f"[red]FAIL[/] {c['id']} {t['nodeid']}: {first}", markup=True, highlight=False)
    for err in report["worker_errors"]:
        console.print(f"[red]worker error[/]:\n{err}", highlight=False)
    n_pass = sum(c["status"] == "pass" for c in report["claims"])
    console.print(f"{n_pass}/{len(report['claims'])} claims pass in {report['duration_s']:.1f} s; "
                  f"overall {'[green]PASS[/]' if report['passed'] else '[bold red]FAIL[/]'}")
    if args.json:
        atomic_write_json(args.json, report)
    if args.markdown:
        atomic_write_text(args.markdown, to_markdown(report))
    return 0 if report["passed"] else 1
