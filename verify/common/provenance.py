"""Where a written file came from: the ``"provenance"`` record of every JSON data file and of
every figure's sidecar.

The record (all keys always present, ``None`` where unknown)::

    {"boolverify_version", "commit" (40 hex), "dirty" (uncommitted changes in the checkout),
     "command" (argv as typed, program name normalised to "boolverify"), "plan" (the named plan
     of a run, "quick" for a smoke plan), "seed_base", "threads", "cpu", "libraries"
     (python, torch, numpy, scipy, sympy, mpmath, python-flint, matplotlib), "date" (UTC, when
     the file was written), "duration_s" (from the start of the run to the write),
     "reconstructed" (true only for records backfilled from git history)}

The run's context is set once, at the boundary: :func:`begin_run` (the CLI's ``main``, a
script's ``main``) records argv and the start time, commands add their plan, seed base and
threads with :func:`update_run`, and the one JSON writer
(:func:`verify.common.atomic_io.atomic_write_json`) attaches :func:`provenance` to every dict it
writes. A library call made outside any run gets a record whose ``command``, ``plan``,
``seed_base``, ``threads`` and ``duration_s`` are null (the rest is still filled in), never
no record at all.

The context also lists what the run has written so far (:func:`note_written`), so an
interrupted command can say truthfully what was kept (:func:`written_summary`).

Layer 1: no torch, sympy or numpy import; library versions come from ``importlib.metadata``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import platform
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from numeric.machine import cpu_model
from numeric.validation import InputError

PROGRAM = "boolverify"
#: the distributions whose versions a record names (python itself is added first)
LIBRARIES = ("torch", "numpy", "scipy", "sympy", "mpmath", "python-flint", "matplotlib")
FIELDS = ("boolverify_version", "commit", "dirty", "command", "plan", "seed_base", "threads", "cpu",
          "libraries", "date", "duration_s", "reconstructed")
#: the checkout the code runs from (its git commit is the record's ``commit``)
SOURCE_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class RunContext:
    """One command's run: argv, start time, and what the command adds (plan, seed base, threads).

    ``written`` maps each file the run wrote to ``None`` (written whole) or the number of
    records it holds after the run's last merge into it (a resumable file)."""

    command: list | None
    started: float = field(default_factory=time.time)
    plan: str | None = None
    seed_base: int | None = None
    threads: int | None = None
    written: dict = field(default_factory=dict)


_current: RunContext | None = None


def begin_run(argv, program=PROGRAM) -> RunContext:
    """Start the context of a run: ``command`` is ``[*program, *argv]`` (argv without the
    program name, as typed; ``program`` a name or the words that start a script, e.g.
    ``("python", "-m", "bench.xor")``); replaces any earlier context of this process."""
    global _current
    words = [program] if isinstance(program, str) else list(program)
    _current = RunContext(command=[*words, *[str(a) for a in argv]])
    return _current


def begin_script(module: str) -> RunContext:
    """:func:`begin_run` for ``python -m module`` run with this process's arguments."""
    return begin_run(sys.argv[1:], ("python", "-m", module))


def update_run(**fields) -> None:
    """Add ``plan``, ``seed_base`` or ``threads`` to the current run, or restart its clock
    (``started``: one command that does several runs); ignored outside a run."""
    unknown = set(fields) - {"plan", "seed_base", "threads", "started"}
    if unknown:
        raise InputError(f"fields = {sorted(unknown)}: expected plan, seed_base, threads or started")
    if _current is not None:
        for k, v in fields.items():
            setattr(_current, k, v)


def end_run() -> None:
    global _current
    _current = None


@contextmanager
def run_context(argv, program=PROGRAM):
    """:func:`begin_run` for the duration of the block (the previous context is restored)."""
    global _current
    previous = _current
    ctx = begin_run(argv, program)
    try:
        yield ctx
    finally:
        _current = previous


def note_written(path, records=None) -> None:
    """Record that the current run wrote ``path`` (with ``records`` records, for a file that
    later runs resume from; without ``records``, a count noted before is kept)."""
    if _current is not None:
        key = str(path)
        _current.written[key] = records if records is not None else _current.written.get(key)


def written_files() -> list:
    """The files the current run has written, in the order of their first write."""
    return [] if _current is None else list(_current.written)


def written_summary() -> str:
    """What the current run has written, for a message after an interrupt: ``""`` when nothing."""
    if _current is None or not _current.written:
        return ""
    parts = []
    for path, records in _current.written.items():
        if records is None:
            parts.append(f"{path} (written before the interrupt, with what was finished by then)")
        else:
            parts.append(f"{path} ({records} finished record{'s' if records != 1 else ''} kept; "
                         "rerun the same command to resume from them)")
    return "; ".join(parts)


def _version(dist) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def library_versions() -> dict:
    return {"python": platform.python_version(), **{name: _version(name) for name in LIBRARIES}}


def _git(*args) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(SOURCE_ROOT), *args], capture_output=True, text=True,
                             timeout=20, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


@functools.lru_cache(maxsize=1)
def source_state() -> tuple:
    """``(commit, dirty)`` of the checkout the code runs from; ``(None, None)`` outside one
    (also for an installed copy that happens to sit inside some other repository)."""
    top, head = _git("rev-parse", "--show-toplevel"), _git("rev-parse", "HEAD")
    if top is None or head is None or Path(top.strip()).resolve() != SOURCE_ROOT:
        return None, None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return head.strip(), (None if status is None else bool(status.strip()))


def utc_iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def provenance(**overrides) -> dict:
    """The provenance record of a file written now by the current run (see the module text);
    ``overrides`` replace fields (e.g. ``plan``)."""
    ctx = _current
    now = time.time()
    commit, dirty = source_state()
    record = {
        "boolverify_version": _version("boolverify"),
        "commit": commit, "dirty": dirty,
        "command": list(ctx.command) if ctx is not None and ctx.command is not None else None,
        "plan": ctx.plan if ctx is not None else None,
        "seed_base": ctx.seed_base if ctx is not None else None,
        "threads": ctx.threads if ctx is not None else None,
        "cpu": cpu_model(),
        "libraries": dict(library_versions()),
        "date": utc_iso(now),
        "duration_s": round(now - ctx.started, 3) if ctx is not None else None,
        "reconstructed": False,
    }
    unknown = set(overrides) - set(FIELDS)
    if unknown:
        raise InputError(f"overrides = {sorted(unknown)}: expected fields of a provenance record")
    record.update(overrides)
    return record


def with_provenance(obj, record=None):
    """``obj`` (a dict) with ``"provenance"`` first, replacing any record it had (a file read
    back and written again gets the record of this write); other objects are returned as they are."""
    if not isinstance(obj, dict):
        return obj
    return {"provenance": record if record is not None else provenance(),
            **{k: v for k, v in obj.items() if k != "provenance"}}


def without_provenance(obj):
    """``obj`` without its ``"provenance"`` key (for readers that compare or merge contents)."""
    if not isinstance(obj, dict):
        return obj
    return {k: v for k, v in obj.items() if k != "provenance"}


def check_record(record, where="provenance") -> dict:
    """Validate a provenance record (every field present, each of its type); returns it.
    Raises :class:`InputError` naming the first bad field."""
    def bad(name, expected):
        raise InputError(f"{where}.{name} = {record.get(name)!r}: expected {expected}")

    if not isinstance(record, dict):
        raise InputError(f"{where} = {str(record)[:60]!r}: expected a provenance record (a JSON object)")
    missing = [k for k in FIELDS if k not in record]
    if missing:
        raise InputError(f"{where} = {str(record)[:60]!r}: expected the fields {', '.join(missing)}")
    commit = record["commit"]
    if commit is not None and not (isinstance(commit, str) and len(commit) == 40
                                   and all(c in "0123456789abcdef" for c in commit)):
        bad("commit", "40 hexadecimal digits or null")
    if record["dirty"] not in (True, False, None):
        bad("dirty", "true, false or null")
    cmd = record["command"]
    if cmd is not None and not (isinstance(cmd, list) and cmd and all(isinstance(a, str) for a in cmd)):
        bad("command", "a non-empty list of strings or null")
    for name in ("boolverify_version", "plan", "cpu"):
        if record[name] is not None and not isinstance(record[name], str):
            bad(name, "a string or null")
    for name in ("seed_base", "threads"):
        v = record[name]
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            bad(name, "a non-negative integer or null")
    libs = record["libraries"]
    if libs is not None and not (isinstance(libs, dict) and all(isinstance(v, (str, type(None)))
                                                                 for v in libs.values())):
        bad("libraries", "an object of version strings or null")
    date = record["date"]
    try:
        time.strptime(date, "%Y-%m-%dT%H:%M:%SZ")
    except (TypeError, ValueError):
        bad("date", "a UTC time YYYY-MM-DDTHH:MM:SSZ")
    d = record["duration_s"]
    if d is not None and (isinstance(d, bool) or not isinstance(d, (int, float)) or d < 0):
        bad("duration_s", "a non-negative number or null")
    if record["reconstructed"] not in (True, False):
        bad("reconstructed", "true or false")
    return record


def sidecar_path(figure) -> Path:
    """The provenance sidecar of a figure: ``<stem>.provenance.json`` beside it (one per stem,
    for all its formats)."""
    figure = Path(figure)
    return figure.with_name(figure.stem + ".provenance.json")


__all__ = ["PROGRAM", "LIBRARIES", "FIELDS", "SOURCE_ROOT", "RunContext", "begin_run", "begin_script", "update_run",
           "end_run", "run_context", "note_written", "written_files", "written_summary", "cpu_model", "library_versions",
           "source_state", "utc_iso", "provenance", "with_provenance", "without_provenance", "check_record",
           "sidecar_path"]
