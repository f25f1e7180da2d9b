"""Benchmark: where the proof-checking time goes. ``python -m bench.profile``.

1. ``boolverify check`` (its defaults: every claim, the quick profile, two workers), run
   ``--repeats`` times, each as its own process: its wall time and every claim's time as the
   report records it.
2. ``python -m pytest theorems/`` (the fast set, over the cores as the ini file's addopts say:
   pytest-xdist, one worker per core), run ``--repeats`` times, each as its own process: its
   wall time and every test's time (call plus setup and teardown, from a JUnit XML report).

Medians over the repeats are what the tables give (a shared machine moves single times by tens
of percent); every single time is recorded too. The machine should run nothing else: the
record names its CPU and core count, and ``--only check`` or ``--only theorems`` runs one part.
``--previous`` keeps the measurement already in the ``--json`` file (with its provenance) under
``"previous"``: the before of a change, beside the after; ``--keep-previous`` keeps the file's
``"previous"`` as it is (the same before, measured after more work).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(argv, what) -> float:
    """Wall seconds of one process run from the project root; its failure is this run's."""
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"bench.profile: {what} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return seconds


def medians(samples: dict[str, list[float]]) -> dict[str, dict]:
    """``{key: {"seconds": every time, "median": their median}}``."""
    return {k: {"seconds": v, "median": statistics.median(v)} for k, v in samples.items()}


def profile_check(repeats: int, extra=()) -> dict:
    """``boolverify check`` ``repeats`` times: total wall time and per-claim times."""
    totals, claims = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            out = Path(tmp) / f"report{i}.json"
            # exit 1 (a claim failed) would still be a time, but a profile of a failing run is no baseline
            totals.append(_run([sys.executable, "-m", "verify.cli", "check", "--json", str(out), *extra],
                               "boolverify check"))
            report = json.loads(out.read_text())
            for c in report["claims"]:
                claims.setdefault(c["id"], []).append(float(c["duration_s"]))
            print(f"bench.profile: check {i + 1}/{repeats}: {totals[-1]:.1f} s", file=sys.stderr, flush=True)
    return {"command": ["boolverify", "check", *extra], "total": {"seconds": totals, "median": statistics.median(totals)},
            "claims": medians(claims)}


def junit_times(path) -> dict[str, float]:
    """``{test id: seconds}`` of a JUnit XML report (pytest's: classname ``theorems.test_X``)."""
    times = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        times[f"{module}.py::{case.get('name')}"] = float(case.get("time", 0.0))
    return times


def profile_theorems(repeats: int) -> dict:
    """``python -m pytest theorems/`` ``repeats`` times: total wall time and per-test times."""
    totals, tests = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            xml = Path(tmp) / f"junit{i}.xml"
            totals.append(_run([sys.executable, "-m", "pytest", "theorems/", "-q", "--junitxml", str(xml)],
                               "pytest theorems/"))
            for test, seconds in junit_times(xml).items():
                tests.setdefault(test, []).append(seconds)
            print(f"bench.profile: pytest theorems/ {i + 1}/{repeats}: {totals[-1]:.1f} s", file=sys.stderr,
                  flush=True)
    return {"command": ["python", "-m", "pytest", "theorems/"],
            "total": {"seconds": totals, "median": statistics.median(totals)}, "tests": medians(tests)}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs of each part, >= 1 (default 3; medians reported)")
    ap.add_argument("--only", choices=("check", "theorems"), default=None,
                    help="profile one part only (default: both)")
    ap.add_argument("--claim", action="append", default=None, metavar="ID",
                    help="profile check on this claim only (repeatable; default: every claim)")
    ap.add_argument("--json", metavar="FILE", default=None, help="write the numbers as JSON (atomic)")
    ap.add_argument("--previous", action="store_true",
                    help="keep the measurement already in the --json file, with its provenance, as the "
                         "previous one (the 'before' of a change; its own previous one is dropped)")
    ap.add_argument("--keep-previous", action="store_true",
                    help="keep the previous measurement already in the --json file as it is (the 'before' "
                         "of a change measured again after more work)")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error(f"--repeats = {args.repeats}: expected an integer >= 1")
    if (args.previous or args.keep_previous) and not args.json:
        ap.error("--previous and --keep-previous need --json FILE (the file that holds the previous one)")
    if args.previous and args.keep_previous:
        ap.error("--previous and --keep-previous exclude each other")
    from verify.common.provenance import cpu_model

    res = {"cpu": cpu_model(), "cores": os.cpu_count(), "repeats": args.repeats}
    if args.previous and Path(args.json).is_file():
        # read before the runs: the file is replaced at the end
        res["previous"] = {k: v for k, v in json.loads(Path(args.json).read_text()).items() if k != "previous"}
    if args.keep_previous and Path(args.json).is_file():
        kept = json.loads(Path(args.json).read_text()).get("previous")
        if kept is not None:
            res["previous"] = kept
    if args.only in (None, "check"):
        extra = [a for cid in args.claim or () for a in ("--claim", cid)]
        res["check"] = profile_check(args.repeats, extra)
    if args.only in (None, "theorems"):
        res["theorems"] = profile_theorems(args.repeats)
    for part in ("check", "theorems"):
        if part in res:
            t = res[part]["total"]
            print(f"{part}: median {t['median']:.1f} s of {', '.join(f'{s:.1f}' for s in t['seconds'])}")
    if args.json:
        from verify.common.atomic_io import atomic_write_json

        atomic_write_json(args.json, res)
    return res


if __name__ == "__main__":
    from verify.common.provenance import begin_script

    begin_script("bench.profile")  # the provenance of what it writes
    main()
