r"""Mutants: what one is, how it is installed in a process, how one runs in a pytest worker.

A *mutant* is one plausible bug, installed in-process by wrapping one public function, method or
value of the engine (:mod:`numeric`), the references (:mod:`verify.reference`) or the experiments
(:mod:`verify.experiments`): the wrapper perturbs the inputs or the outputs of the original (it
passes ``b + 1``, flips a sign, halves a result, swaps the returned heads); source files are
never edited and no production body is copied. Each mutant carries a *probe*, a small call whose
result the mutant changes, so that a mutant that changes nothing is found without running the
checks (``tests/verify/report/test_mutants.py``).

In a worker (:func:`task`) the mutant is installed by :mod:`verify.report.mutation.plugin`
before the theorem modules are imported, and the claim files that should catch it run with
``-x``; the first failing test is what *caught* it (:func:`outcome`). Importing this module loads
neither torch nor the engine.
"""

from __future__ import annotations

import functools
import importlib
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from numeric.validation import InputError
from verify.report.workers import Finished, Task

#: the source tree (unit-test files live in its ``tests/``; the theorems are also installed)
ROOT = Path(__file__).resolve().parents[3]
#: pytest's ``-m`` expression: the quick profile of ``boolverify check``
MARKERS = "not slow and not gpu"
#: the environment variable naming the mutant a pytest process installs
ENV_VAR = "BOOLVERIFY_MUTANT"
#: wall-clock limit of one mutant's pytest process; a mutant that hangs the checks is caught
DEFAULT_TIMEOUT_S = 900


@dataclass(frozen=True)
class Mutant:
    """One plausible bug.

    Args:
        name: unique identifier (``--only NAME``).
        description: the bug, in words.
        target: dotted path of the replaced object, ``package.module.name`` or
            ``package.module.Class.method`` (public names only).
        make: ``make(original) -> replacement``.
        probe: ``probe() -> value``, a small call whose value differs with the mutant installed
            (it looks the target up through the public modules at call time).
        claim_files: theorem files expected to catch it (``theorems/test_*.py``), cheapest first.
        unit_files: for a bug no claim should see: the unit-test files (or node ids) that should.
    """

    name: str
    description: str
    target: str
    make: Callable[[Any], Any]
    probe: Callable[[], Any]
    claim_files: tuple[str, ...] = ()
    unit_files: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "unit" if self.unit_files else "claim"

    @property
    def expected_files(self) -> tuple[str, ...]:
        return self.unit_files or self.claim_files


# --------------------------------------------------------------------------- installing


def resolve(target: str):
    """``(owner, attribute, original)`` of a dotted ``target``: the longest importable module
    prefix, then attributes."""
    parts = target.split(".")
    for k in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:k])
        try:
            obj = importlib.import_module(prefix)
        except ModuleNotFoundError as exc:
            if exc.name and not prefix.startswith(exc.name):
                raise  # a missing dependency inside the module, not a shorter prefix to try
            continue
        owner = obj
        for attr in parts[k:]:
            owner, obj = obj, getattr(obj, attr)
        return owner, parts[-1], obj
    raise InputError(f"target = {target!r}: expected a dotted path to an importable attribute")


#: plain values that may be shared by identity (interned): only the target's own binding is replaced
_SCALARS = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)


class Installed:
    """A mutant installed in this process: every binding it replaced, for :meth:`undo`."""

    def __init__(self, mutant, original, replacement, bindings):
        self.mutant, self.original, self.replacement = mutant, original, replacement
        self.bindings = bindings  # [(namespace object, attribute, previous value)]

    @property
    def rebound(self) -> int:
        return len(self.bindings)

    def undo(self) -> None:
        for holder, attr, previous in reversed(self.bindings):
            setattr(holder, attr, previous)
        self.bindings = []


def install(mutant: Mutant) -> Installed:
    """Replace ``mutant.target`` by ``mutant.make(original)`` everywhere it is bound.

    On a class the attribute of the class is replaced (a ``staticmethod`` stays one). For a
    module-level object every module in ``sys.modules`` holding that same object (``from m
    import f`` copies the binding) is rebound, so install before the modules that use it are
    imported *or* after: both see the mutant. Objects kept inside containers (a dict of
    functions) are not reached.
    """
    owner, attr, original = resolve(mutant.target)
    bindings = []
    if isinstance(owner, type):
        raw = owner.__dict__[attr]
        if isinstance(raw, (staticmethod, classmethod)):
            replacement = type(raw)(_named(mutant.make(raw.__func__), raw.__func__))
        else:
            replacement = _named(mutant.make(raw), raw)
        bindings.append((owner, attr, raw))
        setattr(owner, attr, replacement)
        return Installed(mutant, raw, replacement, bindings)
    replacement = _named(mutant.make(original), original)
    if isinstance(original, _SCALARS):
        bindings.append((owner, attr, original))
        setattr(owner, attr, replacement)
        return Installed(mutant, original, replacement, bindings)
    for module in [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]:
        try:
            items = list(vars(module).items())
        except TypeError:  # pragma: no cover - a module without a __dict__
            continue
        for name, value in items:
            if value is original:
                bindings.append((module, name, value))
                setattr(module, name, replacement)
    return Installed(mutant, original, replacement, bindings)


def _named(replacement, original):
    # the mutant reads as the function it replaces in tracebacks (name, module, docstring)
    if isinstance(replacement, types.FunctionType) and isinstance(original, types.FunctionType):
        functools.update_wrapper(replacement, original, updated=())
        del replacement.__wrapped__  # inspect.signature must describe the mutant itself
    return replacement


# --------------------------------------------------------------------------- one run


def task(mutant: Mutant) -> Task:
    """The pytest worker that runs ``mutant``'s expected files with it installed."""
    args = ["-p", "verify.report.mutation.plugin", "-p", "verify.report.check_plugin", "-p",
            "no:cacheprovider", "--capture=sys", "-q", "-x", "-m", MARKERS]
    if mutant.kind == "claim":
        # the installed theorem modules, as `boolverify check` runs them
        args += ["--pyargs"] + [f.removesuffix(".py").replace("/", ".") for f in mutant.claim_files]
    else:
        args += list(mutant.unit_files)
    return Task(mutant.name, tuple(args), env={ENV_VAR: mutant.name}, cwd=str(ROOT))


def outcome(mutant: Mutant, run: Finished, timeout_s: float = DEFAULT_TIMEOUT_S) -> dict:
    """The result record of one finished (or timed-out) mutant worker."""
    evs = run.events
    installed = next((e for e in evs if e.get("event") == "mutant"), None)
    first = next((e for e in evs if e.get("event") == "test" and e["outcome"] in ("failed", "error")), None)
    ran = sum(e.get("event") == "test" and e["outcome"] != "skipped" for e in evs)
    rc = run.returncode
    rec = {"name": mutant.name, "description": mutant.description, "target": mutant.target,
           "expected_files": list(mutant.expected_files), "kind": mutant.kind,
           "caught": False, "caught_by": None, "message": "", "status": "survived",
           "tests_run": ran, "rebound": installed["rebound"] if installed else None,
           "seconds": round(run.seconds, 2)}
    if run.timed_out:
        rec.update(caught=True, status="timeout",
                   message=f"no result within {timeout_s:g} s (killed): the checks hang or crawl")
    elif first is not None:
        msg = first.get("message") or ""
        rec.update(caught=True, status="caught", caught_by=first["nodeid"],
                   message=msg.strip().splitlines()[0] if msg.strip() else first["outcome"])
    elif rc not in (0, 5):
        # no failing test, yet pytest did not pass: a collection or import error under the mutant
        tail = [line for line in run.log.strip().splitlines() if line.strip()]
        rec.update(caught=True, status="crashed",
                   message=f"pytest exit {rc} before any test failed: " + (tail[-1] if tail else ""))
    elif rc == 5 or ran == 0:
        rec["message"] = "no test ran (nothing selected)"
    if installed is None and rec["status"] in ("caught", "survived"):
        rec["message"] = (rec["message"] + "; " if rec["message"] else "") + "the mutant was not reported installed"
    return rec


__all__ = ["Mutant", "ENV_VAR", "MARKERS", "ROOT", "DEFAULT_TIMEOUT_S", "Installed", "resolve",
           "install", "task", "outcome"]
