"""Provenance reconstructed from git history, for committed results written before files
carried their own (:mod:`verify.common.provenance`).

For a JSON data file the record goes in as its top-level ``"provenance"``; for a figure (any of
its image files) into its sidecar ``<stem>.provenance.json``, with ``"files"`` (the image files
of the stem present) and ``"data"`` (``--data``). The record says what git knows and nothing
more: ``commit`` and ``date`` are those of the last commit that changed the file (the image
files: the latest of them), ``boolverify_version`` the version in that commit's
``pyproject.toml``, ``command`` (and ``plan``) what the caller names (from ``runs --list``, the
results docs or the commit message; null when none is known), every other field null and
``"reconstructed": true``.
A file that already has a record is left alone unless ``--force``::

    python -m verify.report.provenance_backfill docs/data/sg2_random_functions.json \\
        --command "boolverify runs sg2" --plan SG2_REPORT
    python -m verify.report.provenance_backfill docs/figures/local_volume.png \\
        --command "boolverify sensitivity volume ... --figure docs/figures/local_volume.png" \\
        --data docs/data/local_volume.json
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from numeric.validation import InputError
from verify.common.atomic_io import FIGURE_SUFFIXES, atomic_write_json, atomic_write_text
from verify.common.provenance import FIELDS, check_record, sidecar_path, utc_iso, with_provenance


def _git(root, *args) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise InputError(f"git {' '.join(args)}: {out.stderr.strip() or 'failed'}")
    return out.stdout


def last_change(path) -> tuple:
    """``(commit, commit time in seconds)`` of the last commit that changed ``path``."""
    path = Path(path).resolve()
    root = Path(_git(path.parent, "rev-parse", "--show-toplevel").strip())
    line = _git(root, "log", "-1", "--format=%H %ct", "--", str(path.relative_to(root))).strip()
    if not line:
        raise InputError(f"path = {str(path)!r}: expected a file with a commit in git history")
    commit, seconds = line.split()
    return commit, int(seconds)


def version_at(path, commit) -> str | None:
    """The ``version`` of ``pyproject.toml`` in ``commit`` (None where it cannot be read)."""
    root = Path(_git(Path(path).resolve().parent, "rev-parse", "--show-toplevel").strip())
    try:
        text = _git(root, "show", f"{commit}:pyproject.toml")
    except InputError:
        return None
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
    return found.group(1) if found else None


def reconstructed_record(paths, command, plan=None) -> dict:
    """The record of files last changed in git (the latest commit of ``paths``)."""
    commit, seconds = max((last_change(p) for p in paths), key=lambda c: c[1])
    record = dict.fromkeys(FIELDS)
    record.update(boolverify_version=version_at(paths[0], commit), commit=commit, command=command, plan=plan,
                  date=utc_iso(seconds), reconstructed=True)
    return check_record(record)


def figure_files(path) -> list:
    """The image files of ``path``'s stem that exist (e.g. ``x.png`` and ``x.pdf``)."""
    path = Path(path)
    return [path.with_suffix(s) for s in FIGURE_SUFFIXES if path.with_suffix(s).exists()]


def backfill(path, command, plan=None, data=(), force=False) -> Path | None:
    """Write the reconstructed record of ``path`` (a JSON data file or an image file); returns
    the file written, or None when ``path`` already had a record (and not ``force``)."""
    path = Path(path)
    if path.suffix.lower() in FIGURE_SUFFIXES:
        target, files = sidecar_path(path), figure_files(path)
        if not files:
            raise InputError(f"path = {str(path)!r}: expected an existing image file")
        if target.exists() and not force:
            return None
        atomic_write_json(target, {"files": [f.name for f in files], "data": [str(d) for d in data]},
                          provenance=reconstructed_record(files, command, plan))
        return target
    try:
        text = path.read_text(encoding="utf-8")
        obj = json.loads(text)
    except (OSError, ValueError) as exc:
        raise InputError(f"path = {str(path)!r}: expected a readable JSON file ({exc})") from None
    if not isinstance(obj, dict):
        raise InputError(f"path = {str(path)!r}: expected a JSON object (a list cannot carry provenance)")
    if "provenance" in obj and not force:
        return None
    record = reconstructed_record([path], command, plan)
    # the file keeps its layout (indent), so that the change is the record alone
    lines = text.splitlines()
    indent = len(lines[1]) - len(lines[1].lstrip(" ")) if len(lines) > 1 else None
    atomic_write_text(path, json.dumps(with_provenance(obj, record), indent=indent) + "\n")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verify.report.provenance_backfill",
                                     description="Provenance of committed files reconstructed from git history.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="JSON data files or image files")
    parser.add_argument("--command", default=None,
                        help="the command that made them, as one string (left out: null, e.g. for a library call)")
    parser.add_argument("--plan", default=None, help="the named plan of the run, when it has one")
    parser.add_argument("--data", action="append", default=[], metavar="FILE",
                        help="(figures) a data file the figure was drawn from (repeatable)")
    parser.add_argument("--force", action="store_true", help="replace a record already there")
    args = parser.parse_args(argv)
    try:
        command = None if args.command is None else shlex.split(args.command)
        if command == []:
            raise InputError(f"--command = {args.command!r}: expected a command")
        for p in args.paths:
            written = backfill(p, command, args.plan, args.data, args.force)
            print(f"{p}: " + (f"wrote {written}" if written else "has a record already (--force to replace)"))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["last_change", "version_at", "reconstructed_record", "figure_files", "backfill", "main"]
