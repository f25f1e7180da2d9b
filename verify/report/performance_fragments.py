"""The fragments of ``docs/performance.md`` rendered from ``docs/data/bench_profile.json``
(``python -m bench.profile``): where the proof-checking time goes, claim by claim in
``boolverify check`` and test by test in ``pytest theorems/``, as medians over the recorded runs."""

from __future__ import annotations

from pathlib import PurePosixPath

from verify.report.fragment_formats import markdown_table

PROFILE = "bench_profile.json"
#: tests listed one by one (the rest are summed per claim file)
SLOWEST_TESTS = 12


def _runs(part) -> str:
    return ", ".join(f"{s:.0f}" for s in part["total"]["seconds"])


def profile_setting(data) -> str:
    p = data.json(PROFILE)
    prov = p.get("provenance") or {}
    return (f"{p['repeats']} runs of each on {p['cpu'] or 'an unnamed CPU'} ({p['cores']} cores), commit "
            f"`{(prov.get('commit') or 'unknown')[:12]}`, {(prov.get('date') or 'unknown date')[:10]}")


def profile_check_table(data) -> str:
    """Per claim, the median seconds in the check report, its share of the claims' sum, and the
    check's own wall time."""
    check = data.json(PROFILE)["check"]
    claims = sorted(check["claims"].items(), key=lambda kv: -kv[1]["median"])
    total = sum(c["median"] for _, c in claims)
    rows = [[cid, f"{c['median']:.1f}", f"{100 * c['median'] / total:.0f} %",
             " / ".join(f"{s:.1f}" for s in c["seconds"])] for cid, c in claims]
    rows.append(["**boolverify check, wall**", f"**{check['total']['median']:.0f}**", "",
                 " / ".join(f"{s:.0f}" for s in check["total"]["seconds"])])
    return markdown_table(["claim", "median (s)", "share of the claims' sum", "each run (s)"], rows)


def profile_theorems_table(data) -> str:
    """Per claim file, the sum of its tests' median seconds, and the slowest tests one by one."""
    theorems = data.json(PROFILE)["theorems"]
    tests = theorems["tests"]
    per_file = {}
    for test, t in tests.items():
        name = PurePosixPath(test.split("::")[0]).name
        per_file[name] = per_file.get(name, 0.0) + t["median"]
    total = sum(per_file.values())
    rows = [[f"`{name}`", f"{s:.1f}", f"{100 * s / total:.0f} %"]
            for name, s in sorted(per_file.items(), key=lambda kv: -kv[1])]
    rows.append(["**pytest theorems/, wall**", f"**{theorems['total']['median']:.0f}**",
                 f"runs: {_runs(theorems)} s"])
    slowest = sorted(tests.items(), key=lambda kv: -kv[1]["median"])[:SLOWEST_TESTS]
    rows_tests = [[f"`{test.split('::', 1)[1]}`", PurePosixPath(test.split("::")[0]).name, f"{t['median']:.1f}"]
                  for test, t in slowest]
    return (markdown_table(["claim file", "sum of test medians (s)", "share"], rows)
            + "\nThe slowest tests:\n"
            + markdown_table(["test", "file", "median (s)"], rows_tests))


__all__ = ["PROFILE", "profile_setting", "profile_check_table", "profile_theorems_table"]
