"""`boolverify reproduce NAME`: rerun one run of ``boolverify runs`` into a scratch folder and
compare its data files with the committed ones.

The run (its quick plan with ``--quick``) writes under ``--out-dir`` (default
``results/reproduce``; never the committed folder), its previous files there removed first so
that nothing is resumed. Each data file is then compared with the committed one by the rule
its registry entry states (:class:`verify.cli.runs.Run`, :mod:`verify.report.reproduction`):
exactly for the full plan, by a statistical agreement or by structure for the quick one. A
committed file's provenance record, where it has one, must name this run's command. Figures
are redrawn and listed, not compared pixel by pixel.

Exit 0 when every file agrees, 1 when one differs, 2 on bad input (before any work).
Progress on stderr; the comparison on stdout.
"""

from __future__ import annotations

import json
from pathlib import Path

from numeric.validation import InputError, check_choice, check_int
from verify.cli.options import MAX_THREADS, check_output_dir, integer

DEFAULT_OUT_DIR = "results/reproduce"
DEFAULT_COMMITTED = "docs"
#: differences printed per file (the rest counted)
SHOWN = 20


def register(sub):
    from verify.cli.runs import RUNS

    p = sub.add_parser(
        "reproduce",
        help="rerun one of 'boolverify runs' into a scratch folder and compare it with the committed data",
        description="Rerun the named run (its quick plan with --quick) into a scratch folder, then compare "
        "each of its data files with the committed one by the rule of its registry entry (see "
        "'boolverify runs --list'). Exit 0 if they agree, 1 if one differs, 2 on bad input.",
    )
    p.add_argument("name", metavar="NAME", help=f"a run name: {', '.join(RUNS)}")
    p.add_argument("--quick", action="store_true", help="the quick plan (seconds) instead of the full one")
    p.add_argument("--out-dir", default=DEFAULT_OUT_DIR, metavar="DIR",
                   help="scratch folder of the rerun's data/ and figures/ (not the committed folder)")
    p.add_argument("--committed", default=DEFAULT_COMMITTED, metavar="DIR",
                   help="folder of the committed data/ and figures/")
    p.add_argument("--threads", type=integer, default=1, metavar="K", help="torch CPU threads")
    p.set_defaults(func=run)


def _inside(path: Path, folder: Path) -> bool:
    path, folder = path.resolve(), folder.resolve()
    return path == folder or folder in path.parents


def _check(args):
    from verify.cli.runs import RUNS

    name = check_choice(args.name, "NAME", tuple(RUNS))
    threads = check_int(args.threads, "--threads", lo=1, hi=MAX_THREADS)
    committed, out_dir = Path(args.committed), Path(args.out_dir)
    if not (committed / "data").is_dir():
        raise InputError(f"--committed = {args.committed!r}: expected a folder with data/ (the committed files)")
    if not str(args.out_dir).strip():
        raise InputError(f"--out-dir = {args.out_dir!r}: expected a folder name")
    if _inside(out_dir, committed) or _inside(committed, out_dir):
        raise InputError(f"--out-dir = {args.out_dir!r}: expected a scratch folder outside the committed "
                         f"folder {args.committed!r}")
    check_output_dir(out_dir, "--out-dir", ("data", "figures"))
    entry = RUNS[name]
    if not entry.data and not entry.figure_files:
        raise InputError(f"NAME = {name!r}: expected a run that writes files ('{name}' only redraws figures)")
    missing = [f for f in entry.data if not (committed / "data" / f).is_file()]
    if missing:
        raise InputError(f"--committed = {args.committed!r}: expected the committed {', '.join(missing)} under data/")
    return name, threads, committed, out_dir


def command_matches(name: str, entry, command) -> bool | None:
    """Whether a provenance record's ``command`` (an argv list) is this run's: ``boolverify
    runs ... NAME ...``, or one of the command lines the run wraps (the same command words
    before the first option). ``None`` when the run wraps no command line to check against."""
    if not isinstance(command, list) or not command:
        return False
    words = [str(w) for w in command]
    if "runs" in words[:2] and name in words:
        return True
    if not entry.commands:
        return None
    head = [w for w in words[1:] if not w.startswith("-")][:2]
    return any(head == [w for w in argv if not str(w).startswith("-")][:2] for argv in entry.commands)


def compare_file(name: str, entry, fresh_path: Path, committed_path: Path, quick: bool) -> list[str]:
    """The differences of one data file (provenance check included)."""
    committed = json.loads(committed_path.read_text(encoding="utf-8"))
    fresh = json.loads(fresh_path.read_text(encoding="utf-8"))
    out = []
    record = committed.get("provenance") if isinstance(committed, dict) else None
    if isinstance(record, dict) and "command" in record:
        if command_matches(name, entry, record["command"]) is False:
            out.append(f"provenance.command: {record['command']!r} is not run {name!r} of the registry")
    agreement = entry.quick_agreement if quick else entry.agreement
    return out + agreement(fresh, committed)


def run(args) -> int:
    name, threads, committed, out_dir = _check(args)
    from verify.cli.runs import RUNS

    entry = RUNS[name]
    data_dir, fig_dir = out_dir / "data", out_dir / "figures"

    # a fresh rerun: the run's earlier files in the scratch folder would be resumed
    for f in entry.data:
        for stale in (data_dir / f, data_dir / f"{f}.lock"):
            stale.unlink(missing_ok=True)
    for f in entry.figure_files:
        (fig_dir / f).unlink(missing_ok=True)
    data_dir.mkdir(parents=True, exist_ok=True)
    fig_dir.mkdir(parents=True, exist_ok=True)
    import torch

    torch.set_num_threads(threads)
    from verify.cli.progress import progress

    # one unit, the rerun; what it does on the way is noted
    with progress(f"reproduce {name}", 1, unit="runs") as shown:
        shown.note("started" + (" (quick plan)" if args.quick else "") + f" into {out_dir}")
        entry.run(data_dir, args.quick, shown.note)
        entry.draw(data_dir, fig_dir)
        shown.advance(f"rerun done; comparing with {committed}")

    agreement = entry.quick_agreement if args.quick else entry.agreement
    print(f"reproduce {name}{' --quick' if args.quick else ''}: rule: {agreement.text}")
    differs = False
    for f in entry.data:
        fresh = data_dir / f
        if not fresh.exists():
            print(f"data/{f}: not rerun by {'the quick' if args.quick else 'this'} plan (not compared)")
            continue
        diffs = compare_file(name, entry, fresh, committed / "data" / f, args.quick)
        if diffs:
            differs = True
            print(f"data/{f}: DIFFERS ({len(diffs)} differences)")
            for line in diffs[:SHOWN]:
                print(f"  {line}")
            if len(diffs) > SHOWN:
                print(f"  ... and {len(diffs) - SHOWN} more")
        else:
            print(f"data/{f}: agrees")
    for f in entry.figure_files:
        state = "drawn" if (fig_dir / f).exists() else "not drawn by this plan"
        print(f"figures/{f}: {state} (figures are not compared)")
    print(f"reproduce {name}: {'DIFFERS' if differs else 'agrees'}")
    return 1 if differs else 0
