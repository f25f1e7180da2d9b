"""The claims table of README.md, generated from the claims registry
(:mod:`verify.report.claims`) and the latest report (``docs/report.json``), never kept by hand.

The table lies between two marker comments of README.md::

    <!-- claims-table:start -->
    | id | claim (as formalised in boolverify) | theorem file | status (...) |
    ...
    <!-- claims-table:end -->

and only that region is rewritten. Regenerate it after ``boolverify check --json
docs/report.json`` (or after a change to the registry) with::

    python -m verify.report.readme                 # rewrite README.md's table in place
    python -m verify.report.readme --check         # exit 1 if README.md's table is stale

(``--readme FILE`` and ``--report FILE`` choose other files.) ``tests/test_readme_table.py``
fails when README.md's table differs from what the registry and the report render.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from numeric.validation import InputError
from verify.report.claims import CLAIMS

START = "<!-- claims-table:start -->"
END = "<!-- claims-table:end -->"

RULES_START = "<!-- decision-rules:start -->"
RULES_END = "<!-- decision-rules:end -->"

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


def update_rules(claims_doc=DEFAULT_CLAIMS_DOC, *, write=True, name="claims") -> bool:
    """Render the decision rules of the registry into ``claims_doc``'s marked region; ``True``
    when it differed (and, with ``write``, was rewritten atomically)."""
    from verify.common.atomic_io import atomic_write_text

    path = Path(claims_doc)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{name} = {str(claims_doc)!r}: expected a readable text file ({exc})") from None
    new = replace_region(text, render_rules(), name=f"{name} = {str(claims_doc)!r}",
                         markers=(RULES_START, RULES_END))
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
                        help=f"the file with the marked decision-rules table (default {DEFAULT_CLAIMS_DOC})")
    parser.add_argument("--check", action="store_true",
                        help="only compare: exit 1 if the table is stale, write nothing")
    args = parser.parse_args(argv)
    try:
        changed = update_readme(args.readme, args.report, write=not args.check,
                                names=("--readme", "--report"))
        rules_changed = update_rules(args.claims_doc, write=not args.check, name="--claims-doc")
    except InputError as exc:
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        print(f"{args.readme}: claims table {'is stale' if changed else 'is up to date'}")
        print(f"{args.claims_doc}: decision rules {'are stale' if rules_changed else 'are up to date'}")
        return 1 if changed or rules_changed else 0
    print(f"{args.readme}: claims table {'rewritten' if changed else 'already up to date'}")
    print(f"{args.claims_doc}: decision rules {'rewritten' if rules_changed else 'already up to date'}")
    return 0


__all__ = ["START", "END", "RULES_START", "RULES_END", "load_report", "render_table", "render_rules",
           "replace_region", "table_region", "update_readme", "update_rules", "main"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
