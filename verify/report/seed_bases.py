"""How every decision of ``boolverify check`` comes out over many seed bases: the measured
outcome counts per decision, beside the inconclusive probability a claim computes for its own
design, rendered into ``docs/claims.md`` between ``<!-- seed-bases:start -->`` and
``<!-- seed-bases:end -->``.

Run a claim set at several bases (one ``check --json`` report per base), then summarise::

    for B in $(seq 1 20); do boolverify check --seed $B --json runs/base$B.json; done
    python -m verify.report.seed_bases runs/base*.json --json docs/data/seed_bases.json
    python -m verify.report.seed_bases --from docs/data/seed_bases.json   # re-render the table only
    # one claim swept on its own, merged into an existing summary (its rows replaced)
    python -m verify.report.seed_bases runs/sg8/base*.json --merge docs/data/seed_bases.json \
        --json docs/data/seed_bases.json

A decision is keyed by its claim and estimand text (the texts name the plan, not the data, so
they are the same at every base). A claim run at only some bases (a claim added later, swept
on its own) is counted over the bases that ran it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from numeric.validation import InputError
from verify.stats.intervals import clopper_pearson

START = "<!-- seed-bases:start -->"
END = "<!-- seed-bases:end -->"
DEFAULT_DOC = "docs/claims.md"
OUTCOMES = ("pass", "inconclusive", "fail")


def _seed_base(report, name):
    try:
        return int(report["environment"]["seed_base"])
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{name}: expected a 'boolverify check --json' report with environment.seed_base") from None


def _source(report) -> str:
    """The commit a report's code ran from, as its provenance records it (12 hex digits, marked
    ``dirty`` where the checkout had uncommitted changes), or ``unknown``."""
    prov = report.get("provenance")
    commit = prov.get("commit") if isinstance(prov, dict) else None
    if not isinstance(commit, str) or not commit:
        return "unknown"
    return commit[:12] + (" (dirty)" if prov.get("dirty") else "")


def summarise(reports: dict) -> dict:
    """``reports``: ``{name: parsed check report}``. Returns the JSON-ready summary: the bases,
    and per decision its claim, estimand, kind (``stochastic`` when it has an interval), the
    bases it ran at and its outcome counts; per claim its status counts, the designed
    inconclusive probabilities its tests reported (``evidence.design``) and the commits its
    reports ran from; per report (``checks``) its base, commit, profile, number of claims and
    duration."""
    decisions, claims = {}, {}
    bases = set()
    checks = []
    for name, report in reports.items():
        base = _seed_base(report, name)
        bases.add(base)
        source = _source(report)
        duration = report.get("duration_s")
        checks.append({"base": base, "commit": source, "profile": report.get("profile"),
                       "claims": len(report.get("claims", [])),
                       "duration_s": duration if isinstance(duration, (int, float)) else None})
        for claim in report.get("claims", []):
            cid = claim["id"]
            row = claims.setdefault(cid, {"claim": cid, "bases": [], "status": dict.fromkeys(OUTCOMES, 0),
                                          "designed_inconclusive": [], "commits": []})
            row["bases"].append(base)
            if source not in row["commits"]:
                row["commits"].append(source)
            row["status"][claim["status"]] = row["status"].get(claim["status"], 0) + 1
            # each test's own evidence (the claim-level evidence of older reports merged them)
            for test in claim.get("tests", []):
                design = (test.get("evidence") or {}).get("design")
                if isinstance(design, dict) and "outcome_probabilities" in design:
                    row["designed_inconclusive"].append(design["outcome_probabilities"]["inconclusive"])
            for d in claim.get("decisions", []):
                key = (cid, d["estimand"])
                entry = decisions.setdefault(key, {
                    "claim": cid, "estimand": d["estimand"], "rule": d["rule"],
                    "kind": "stochastic" if d.get("interval") is not None else "exact",
                    "bases": [], "counts": dict.fromkeys(OUTCOMES, 0)})
                entry["bases"].append(base)
                entry["counts"][d["outcome"]] = entry["counts"].get(d["outcome"], 0) + 1
    for row in claims.values():
        designed = row.pop("designed_inconclusive")
        row["designed_inconclusive_max"] = max(designed) if designed else None
        row["commits"].sort()
    return {"bases": sorted(bases), "claims": sorted(claims.values(), key=lambda r: r["claim"]),
            "decisions": list(decisions.values()),
            "checks": sorted(checks, key=lambda c: (c["base"], c["commit"]))}


def merge(summary: dict, update: dict) -> dict:
    """``summary`` with every claim of ``update`` (a :func:`summarise` of newer reports) replaced
    by ``update``'s rows, claim rows and decisions alike; the other claims keep theirs. The bases
    are the union (each row keeps the bases it ran at); the reports of both are listed."""
    for name, data in (("summary", summary), ("update", update)):
        if not isinstance(data, dict) or not {"bases", "claims", "decisions"} <= set(data):
            raise InputError(f"{name}: expected a seed-bases summary with bases, claims and decisions")
    replaced = {row["claim"] for row in update["claims"]}
    claims = [row for row in summary["claims"] if row["claim"] not in replaced] + list(update["claims"])
    decisions = [d for d in summary["decisions"] if d["claim"] not in replaced] + list(update["decisions"])
    order = {row["claim"]: i for i, row in enumerate(sorted(claims, key=lambda r: r["claim"]))}
    return {"bases": sorted(set(summary["bases"]) | set(update["bases"])),
            "claims": sorted(claims, key=lambda r: r["claim"]),
            "decisions": sorted(decisions, key=lambda d: order[d["claim"]]),
            "checks": list(summary.get("checks", [])) + list(update.get("checks", []))}


def _rate_bound(k, n):
    """The one-sided 95 % Clopper-Pearson upper bound of a rate seen k times in n bases."""
    return clopper_pearson(k, n, 0.95, side="upper")[1]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def bases_text(bases, dash="-"):
    """``1-20`` for a run of consecutive bases (``dash`` between the ends), else the list."""
    bases = sorted(bases)
    if bases and bases == list(range(bases[0], bases[-1] + 1)):
        return f"{bases[0]}{dash}{bases[-1]}" if len(bases) > 1 else str(bases[0])
    return ", ".join(map(str, bases))


def render(summary: dict) -> str:
    """The Markdown of the region: per claim its status counts, then every stochastic decision
    with its counts (exact decisions summed per claim)."""
    lines = [f"Seed bases {bases_text(summary['bases'])}, one `boolverify check --json` report per base "
             "(`python -m verify.report.seed_bases`; data `docs/data/seed_bases.json`). *Designed* is the largest "
             "inconclusive probability a claim file computes for its own plan before the data; *95 % bound* is the "
             "one-sided Clopper-Pearson upper bound of the inconclusive rate from the counts alone; *reports' commit* "
             "the commit the claim's reports ran from (— where the summary predates its recording).", "",
             "| claim | bases | pass | inconclusive | fail | designed P(inconclusive) | reports' commit |",
             "|---|---|---|---|---|---|---|"]
    for row in summary["claims"]:
        s, designed = row["status"], row["designed_inconclusive_max"]
        # summaries written before the commits were kept have none
        commits = ", ".join(f"`{c}`" for c in row.get("commits", ())) or "—"
        lines.append(f"| {row['claim']} | {len(row['bases'])} | {s['pass']} | {s['inconclusive']} | {s['fail']} | "
                     f"{'—' if designed is None else f'{designed:.2g}'} | {commits} |")
    lines += ["", "| claim | decision | kind | pass | inconclusive | fail | 95 % bound on P(inconclusive) |",
              "|---|---|---|---|---|---|---|"]
    exact = {}
    for d in summary["decisions"]:
        c, n = d["counts"], len(d["bases"])
        if d["kind"] == "exact":
            e = exact.setdefault(d["claim"], {"decisions": 0, **dict.fromkeys(OUTCOMES, 0)})
            e["decisions"] += 1
            for o in OUTCOMES:
                e[o] += c.get(o, 0)
            continue
        lines.append(f"| {d['claim']} | {_cell(d['estimand'])} | stochastic | {c['pass']} | {c['inconclusive']} | "
                     f"{c['fail']} | {_rate_bound(c['inconclusive'], n):.2g} |")
    for cid in sorted(exact):
        e = exact[cid]
        lines.append(f"| {cid} | {e['decisions']} exact decisions (premises, known answers, exact comparisons), "
                     f"summed over bases | exact | {e['pass']} | {e['inconclusive']} | {e['fail']} | — |")
    return "\n".join(lines) + "\n"


def update_doc(summary: dict, doc=DEFAULT_DOC, *, write=True) -> bool:
    """Render ``summary`` into ``doc``'s marked region; ``True`` when it differed."""
    from verify.common.atomic_io import atomic_write_text
    from verify.report.readme import replace_region

    path = Path(doc)
    text = path.read_text(encoding="utf-8")
    new = replace_region(text, render(summary), name=f"doc = {str(doc)!r}", markers=(START, END))
    if new == text:
        return False
    if write:
        atomic_write_text(path, new)
    return True


def _load(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"report = {str(path)!r}: expected a readable JSON file ({exc})") from None


def main(argv=None) -> int:
    """``python -m verify.report.seed_bases REPORT... [--json FILE] [--doc FILE]`` or
    ``--from SUMMARY`` (re-render only); ``--check``: exit 1 if the region is stale."""
    import argparse

    from verify.common.atomic_io import atomic_write_json

    parser = argparse.ArgumentParser(prog="python -m verify.report.seed_bases",
                                     description="Outcome counts of every decision over seed bases.")
    parser.add_argument("reports", nargs="*", metavar="REPORT", help="check --json reports, one per base")
    parser.add_argument("--from", dest="summary", metavar="FILE", help="an existing summary to render")
    parser.add_argument("--merge", metavar="FILE", help="an existing summary: the reports' claims replace theirs in it")
    parser.add_argument("--json", metavar="FILE", help="write the summary here")
    parser.add_argument("--doc", default=DEFAULT_DOC, metavar="FILE", help=f"default {DEFAULT_DOC}")
    parser.add_argument("--check", action="store_true", help="exit 1 if the region is stale; write nothing")
    args = parser.parse_args(argv)
    try:
        if bool(args.reports) == bool(args.summary):
            raise InputError("reports: expected either REPORT files or --from SUMMARY")
        if args.merge and not args.reports:
            raise InputError("merge: expected REPORT files to merge into the summary")
        summary = _load(args.summary) if args.summary else summarise({p: _load(p) for p in args.reports})
        if args.merge:
            summary = merge(_load(args.merge), summary)
        if args.json:
            atomic_write_json(Path(args.json), summary)
        changed = update_doc(summary, args.doc, write=not args.check)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check and changed:
        print(f"{args.doc}: the seed-bases table is stale", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    from verify.common.provenance import begin_script

    begin_script("verify.report.seed_bases")  # the provenance of what it writes
    sys.exit(main())

__all__ = ["summarise", "merge", "render", "update_doc", "bases_text", "START", "END"]
