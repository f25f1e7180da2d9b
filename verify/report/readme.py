"""The claims table of README.md and the generated tables of ``docs/claims.md`` (the decision
rules and the per-paper tables of the claims as formalised), rendered from the claims registry
(:mod:`verify.report.claims`, whose rule numbers come from
:mod:`verify.experiments.claim_rules`) and the latest report (``docs/report.json``), never kept
by hand.

The table lies between two marker comments of README.md::

    <!-- claims-table:start -->
    | id | claim (as formalised in boolverify) | theorem file | status (...) |
    ...
    <!-- claims-table:end -->

and only that region is rewritten; likewise the regions of ``docs/claims.md`` between
``<!-- decision-rules:start -->``, ``<!-- claims-paper-a:start -->``,
``<!-- claims-paper-b:start -->`` and ``<!-- instruments:start -->`` (the instruments of
:mod:`verify.experiments.instruments`) and their end markers. Regenerate them after ``boolverify
check --json docs/report.json`` (or after a change to the registry or the rules) with::

    python -m verify.report.readme                 # rewrite the tables in place
    python -m verify.report.readme --check         # exit 1 if a table is stale

(``--readme FILE``, ``--report FILE`` and ``--claims-doc FILE`` choose other files.)
``tests/verify/report/test_readme_table.py`` fails when a table differs from what the registry and the
report render.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from numeric.validation import InputError
from verify.report.claims import CLAIMS
from verify.report.instrument_table import MARKERS as INSTRUMENTS_MARKERS, render_instruments

START = "<!-- claims-table:start -->"
END = "<!-- claims-table:end -->"

RULES_START = "<!-- decision-rules:start -->"
RULES_END = "<!-- decision-rules:end -->"
#: the markers of docs/claims.md's table of the claims of each paper
PAPER_MARKERS = {paper: (f"<!-- claims-paper-{paper.lower()}:start -->",
                         f"<!-- claims-paper-{paper.lower()}:end -->") for paper in ("A", "B")}

DEFAULT_README = "README.md"
DEFAULT_CLAIMS_DOC = "docs/claims.md"
DEFAULT_REPORT = "docs/report.json"


def load_report(path=DEFAULT_REPORT, name="report") -> dict:
    """The report of ``boolverify check --json`` at ``path``."""
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{name} = {str(path)!r}: expected a readable JSON report of "
                         f"'boolverify check --json' ({exc})") from None
    if not isinstance(report, dict) or not isinstance(report.get("claims"), list):
        raise InputError(f"{name} = {str(path)!r}: expected a report of 'boolverify check --json' "
                         "(no list of claims)")
    return report


def _cell(text) -> str:
    return str(text).replace("|", "\\|")


def render_table(report: dict, claims=None) -> str:
    """The Markdown table: one row per registered claim (id, statement as formalised, a link to
    its theorem file, its status in ``report``, or ``not run`` where the report lacks it);
    the header names the report's profile and date."""
    claims = CLAIMS if claims is None else claims
    status = {c["id"]: c["status"] for c in report["claims"]}
    date = str(report.get("started", ""))[:10]
    lines = [
        "| id | claim (as formalised in boolverify) | theorem file | status (`boolverify check`, "
        f"{report.get('profile', '?')}, {date}) |",
        "|---|---|---|---|",
    ]
    for cid, claim in claims.items():
        fname = claim.theorem_file.split("/")[-1]
        lines.append(f"| {cid} | {_cell(claim.statement)} | [{fname}]({claim.theorem_file}) | "
                     f"{status.get(cid, 'not run')} |")
    return "\n".join(lines) + "\n"


def render_rules(claims=None) -> str:
    """The decision-rules table of docs/claims.md: per claim its kind (exact or stochastic)
    and the rule fixed before the data (estimand, interval, rule, error rates, sample size)."""
    claims = CLAIMS if claims is None else claims
    lines = ["| id | kind | decision rule (fixed before the data) |", "|---|---|---|"]
    for cid, claim in claims.items():
        lines.append(f"| {cid} | {claim.kind} | {_cell(claim.rule)} |")
    return "\n".join(lines) + "\n"


def render_paper_table(paper: str, claims=None) -> str:
    """docs/claims.md's table of the claims of ``paper`` (``"A"`` or ``"B"``): per claim its
    anchor, the claim as formalised, how it is checked and a link to its theorem file."""
    claims = CLAIMS if claims is None else claims
    lines = ["| id | claim as formalised | how it is checked | theorem file |", "|---|---|---|---|"]
    for cid, claim in claims.items():
        if claim.paper != paper:
            continue
        fname = claim.theorem_file.split("/")[-1]
        lines.append(f"| <a id=\"{cid.lower()}\"></a>{cid} | {_cell(claim.formalised)} | "
                     f"{_cell(claim.checked)} | [{fname}](../{claim.theorem_file}) |")
    return "\n".join(lines) + "\n"


def claims_doc_regions(claims=None) -> list[tuple[tuple[str, str], str]]:
    """The generated regions of docs/claims.md: (markers, rendered table) each."""
    return [((RULES_START, RULES_END), render_rules(claims))] + [
        (markers, render_paper_table(paper, claims)) for paper, markers in PAPER_MARKERS.items()] + [
        (INSTRUMENTS_MARKERS, render_instruments(claims))]


def _region(text: str, name, markers=(START, END)) -> tuple[int, int]:
    """Where the table lies: from the end of the start marker to the end marker."""
    first, last = markers
    start, end = text.find(first), text.find(last)
    if start < 0 or end < 0 or end < start:
        raise InputError(f"{name}: expected the markers {first} and {last}, in this order")
    return start + len(first), end


def replace_region(text: str, table: str, name="readme", markers=(START, END)) -> str:
    """``text`` with the region between the markers replaced by ``table``."""
    start, end = _region(text, name, markers)
    return f"{text[:start]}\n{table}{text[end:]}"


def table_region(text: str, name="readme", markers=(START, END)) -> str:
    """The text between the markers (the table as it stands)."""
    start, end = _region(text, name, markers)
    return text[start:end].lstrip("\n")


def update_claims_doc(claims_doc=DEFAULT_CLAIMS_DOC, *, write=True, name="claims") -> bool:
    """Render the decision rules and the per-paper tables of the registry into ``claims_doc``'s
    marked regions; ``True`` when one differed (and, with ``write``, the file was rewritten
    atomically)."""
    from verify.common.atomic_io import atomic_write_text

    path = Path(claims_doc)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{name} = {str(claims_doc)!r}: expected a readable text file ({exc})") from None
    new = text
    for markers, table in claims_doc_regions():
        new = replace_region(new, table, name=f"{name} = {str(claims_doc)!r}", markers=markers)
    if new == text:
        return False
    if write:
        atomic_write_text(path, new)
    return True


def update_readme(readme=DEFAULT_README, report=DEFAULT_REPORT, *, write=True,
                  names=("readme", "report")) -> bool:
    """Render the table from the registry and ``report`` into ``readme``'s marked region.

    Returns ``True`` when the file's table differed (and, with ``write``, was rewritten
    atomically); ``False`` when it was already up to date. ``names`` name the two files in
    error messages (the command line passes its option names).
    """
    from verify.common.atomic_io import atomic_write_text

    path = Path(readme)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{names[0]} = {str(readme)!r}: expected a readable text file ({exc})") from None
    table = render_table(load_report(report, name=names[1]))
    new = replace_region(text, table, name=f"{names[0]} = {str(readme)!r}")
    if new == text:
        return False
    if write:
        atomic_write_text(path, new)
    return True


def main(argv=None) -> int:
    """``python -m verify.report.readme [--readme FILE] [--report FILE] [--check]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m verify.report.readme",
                                     description="Regenerate README.md's claims table from the "
                                     "claims registry and the latest report.")
    parser.add_argument("--readme", default=DEFAULT_README, metavar="FILE",
                        help=f"the file with the marked table (default {DEFAULT_README})")
    parser.add_argument("--report", default=DEFAULT_REPORT, metavar="FILE",
                        help=f"report of 'boolverify check --json' (default {DEFAULT_REPORT})")
    parser.add_argument("--claims-doc", default=DEFAULT_CLAIMS_DOC, metavar="FILE",
                        help=f"the file with the marked decision-rules and claims tables (default "
                        f"{DEFAULT_CLAIMS_DOC})")
    parser.add_argument("--check", action="store_true",
                        help="only compare: exit 1 if the table is stale, write nothing")
    args = parser.parse_args(argv)
    try:
        changed = update_readme(args.readme, args.report, write=not args.check,
                                names=("--readme", "--report"))
        rules_changed = update_claims_doc(args.claims_doc, write=not args.check, name="--claims-doc")
    except InputError as exc:
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        print(f"{args.readme}: claims table {'is stale' if changed else 'is up to date'}")
        print(f"{args.claims_doc}: claims tables {'are stale' if rules_changed else 'are up to date'}")
        return 1 if changed or rules_changed else 0
    print(f"{args.readme}: claims table {'rewritten' if changed else 'already up to date'}")
    print(f"{args.claims_doc}: claims tables {'rewritten' if rules_changed else 'already up to date'}")
    return 0


__all__ = ["START", "END", "RULES_START", "RULES_END", "PAPER_MARKERS", "INSTRUMENTS_MARKERS", "load_report", "render_table",
           "render_rules", "render_paper_table", "claims_doc_regions", "replace_region", "table_region",
           "update_readme", "update_claims_doc", "main"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
