"""`boolverify mutants`: install plausible bugs one at a time and see which check catches each.

The catalogue, the runs and the Markdown summary are :mod:`verify.report.mutation`'s; this module
parses the options, checks them before anything runs, prints one line per mutant and the score.
"""

from __future__ import annotations

from numeric.validation import check_int
from verify.cli.options import MAX_JOBS, integer
from verify.cli import writing
from verify.cli.options import check_output


def register(sub):
    p = sub.add_parser(
        "mutants",
        help="mutation testing: does each claim's check fail on a plausible bug?",
        description="Installs each mutant of the catalogue (verify/report/mutation/) in a fresh "
        "pytest process and runs the claim files (quick profile, -x) that should catch it. Exit 0 "
        "if every mutant is caught, 1 if any survived, 2 on bad input.",
    )
    p.add_argument("--json", metavar="FILE", help="write the result as JSON (atomically)")
    p.add_argument("--only", action="extend", nargs="+", metavar="NAME",
                   help="only these mutants (repeatable; see --list; default: all)")
    p.add_argument("--list", action="store_true", help="print the catalogue and exit")
    p.add_argument("--jobs", type=integer, default=2, metavar="K", help="parallel pytest processes (default 2)")
    p.set_defaults(func=run)


def run(args) -> int:
    from verify.report.mutation.runner import MUTANTS, select

    mutants = select(args.only)               # an unknown name: InputError naming --only
    jobs = check_int(args.jobs, "--jobs", lo=1, hi=MAX_JOBS)
    check_output(args.json, "--json")
    if args.list:
        for m in mutants:
            files = ", ".join(m.expected_files)
            print(f"{m.name:36s} {m.kind:5s} {m.target}\n{'':42s}{m.description}\n{'':42s}-> {files}")
        print(f"{len(mutants)} of {len(MUTANTS)} mutants")
        return 0

    from verify.common.provenance import update_run
    from verify.common.seeds import base_seed
    from verify.report.mutation.runner import run_mutants

    update_run(seed_base=base_seed())  # the mutants' pytest processes inherit the base
    from verify.cli.progress import progress

    print(f"running {len(mutants)} mutants, {jobs} at a time", flush=True)
    with progress("mutants", len(mutants), unit="mutants") as shown:
        def on_result(r):
            shown.advance(f"{r['name']} {r['status']}", seconds=r["seconds"])

        result = run_mutants([m.name for m in mutants], jobs=jobs, on_result=on_result)
    # the outcomes, once, on stdout (the display above is progress on stderr)
    width = max(len(m.name) for m in mutants)
    for r in result["mutants"]:
        by = r["caught_by"] or r["message"]
        print(f"{r['name']:{width}s}  {r['status']:8s}  {r['seconds']:6.1f} s  {by}", flush=True)
    survivors = ", ".join(result["survivors"]) or "none"
    print(f"{result['caught']}/{result['total']} mutants caught (score {result['score']:.2f}) in "
          f"{result['seconds']:.0f} s; survivors: {survivors}")
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        with writing(args.json, "--json"):
            atomic_write_json(args.json, result)
    return 0 if not result["survivors"] else 1
