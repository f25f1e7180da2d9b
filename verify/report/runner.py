"""The verification report: run every theorem check, aggregate per claim, render.

One source of truth: the report is produced by running pytest on the installed
:mod:`theorems` package (with :mod:`verify.report.check_plugin`), never from a second copy of the
checks. Theorem files are split over ``jobs`` worker processes (:mod:`verify.report.workers`;
2 cores: 2 workers, one torch thread each); events stream back so progress can be shown.
"""

from __future__ import annotations

import importlib.resources
import os
import platform
import time
from dataclasses import dataclass, field

from numeric.validation import check_choice, check_int
from verify.report.claims import CLAIMS
from verify.report.instrument_table import instruments_markdown, report_instruments
from verify.report.workers import Task, run_folder, run_workers

PROFILES = {
    # pytest -m expression per profile
    "quick": "not slow and not gpu",
    "full": "not gpu",
}


@dataclass
class ClaimResult:
    id: str
    statement: str
    theorem_file: str
    tests: list = field(default_factory=list)

    @property
    def status(self) -> str:
        outcomes = [t["outcome"] for t in self.tests]
        if not outcomes or all(o == "skipped" for o in outcomes):
            return "no test"
        if any(o in ("failed", "error") for o in outcomes):
            return "fail"
        if any(d["outcome"] == "inconclusive" for d in self.decisions):
            return "inconclusive"
        return "pass"

    @property
    def decisions(self) -> list[dict]:
        """Every decision the claim's tests recorded (``verify.stats.decisions``), in order."""
        return [d for t in self.tests for d in t["evidence"].get("decisions", [])]

    @property
    def duration(self) -> float:
        return sum(t["duration"] for t in self.tests)

    @property
    def evidence(self) -> dict:
        """Each test's evidence under that test's id (:func:`test_id`), never merged across tests:
        two tests may record the same key with different values."""
        return {test_id(t["nodeid"]): t["evidence"] for t in self.tests}

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "statement": self.statement,
            "theorem_file": self.theorem_file,
            "status": self.status,
            "decisions": self.decisions,
            "duration_s": round(self.duration, 3),
            "evidence": self.evidence,
            "tests": self.tests,
        }


def test_id(nodeid: str) -> str:
    """A test's id within its claim: its pytest node id without the file (a claim is one file)."""
    return nodeid.split("::", 1)[-1]


def stored_durations(path=None) -> dict[str, float]:
    """Each claim's time in a stored check report (default: the committed ``docs/report.json``),
    the weights of a run's time estimate; empty when there is none to read."""
    import json

    from verify.common.provenance import SOURCE_ROOT

    path = SOURCE_ROOT / "docs" / "report.json" if path is None else path
    try:
        return {str(c["id"]): float(c["duration_s"]) for c in json.loads(path.read_text())["claims"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


class ClaimProgress:
    """Follows the worker events of a run and says when a claim has finished: when the last of
    the tests collected for it has reported. :meth:`feed` returns that claim's
    :class:`ClaimResult` (its status final) once, and None for every other event.

    ``weights``: each claim's expected time (:func:`stored_durations`; 1 where unknown), so
    ``weight_done`` of ``weight_total`` says how much of the run's work is done: the claims
    differ a hundredfold, and an estimate from the claim count alone is far off."""

    def __init__(self, claims=None, weights=None):
        ids = list(claims) if claims else list(CLAIMS)
        self.total = len(ids)
        self.done = 0
        weights = weights or {}
        self._weights = {cid: max(float(weights.get(cid, 1.0)), 1e-3) for cid in ids}
        self.weight_total = sum(self._weights.values())
        self.weight_done = 0.0
        self._pending: dict[str, set] = {}
        self._results: dict[str, ClaimResult] = {}

    def feed(self, ev: dict) -> ClaimResult | None:
        if ev["event"] == "collected":
            for cid, nodeids in (ev.get("claims") or {}).items():
                self._pending.setdefault(cid, set()).update(nodeids)
                if cid not in self._results:
                    c = CLAIMS.get(cid)
                    self._results[cid] = ClaimResult(cid, c.statement if c else "", c.theorem_file if c else "")
            return None
        if ev["event"] != "test" or ev.get("claim") not in self._pending:
            return None
        pending = self._pending[ev["claim"]]
        self._results[ev["claim"]].tests.append(ev)
        if ev["nodeid"] not in pending:
            return None  # a second event of a test (a teardown error) after the claim finished
        pending.discard(ev["nodeid"])
        if pending:
            return None
        self.done += 1
        self.weight_done += self._weights.get(ev["claim"], 1.0)
        return self._results[ev["claim"]]


def theorem_modules() -> list[str]:
    """Dotted names of the installed theorem files, ``theorems.test_*``."""
    root = importlib.resources.files("theorems")
    names = sorted(p.name[:-3] for p in root.iterdir() if p.name.startswith("test_") and p.name.endswith(".py"))
    return [f"theorems.{n}" for n in names]


#: theorem files that share a process-wide cache (SX-4 and SX-7 decide on the same one-step cells,
#: :func:`verify.experiments.plans.fast_cells`): one worker runs them, so the cells are computed once
SHARED_CACHE_MODULES = (("theorems.test_SX4_one_step", "theorems.test_SX7_parameter_count"),)


def claim_module(claim_id) -> str:
    """The dotted name of a claim's theorem file, ``theorems.test_...``."""
    return f"theorems.{CLAIMS[claim_id].theorem_file.split('/')[-1].removesuffix('.py')}"


def split_modules(modules, jobs, weights=None) -> list[list[str]]:
    """The theorem files of a run in at most ``jobs`` groups, one per worker, of about equal
    expected time: longest first, each onto the group with the least time so far (``weights``:
    each claim's expected seconds, :func:`stored_durations`; a claim without one counts 1 s). The
    files of :data:`SHARED_CACHE_MODULES` stay in one group. Each group keeps the files' order."""
    claim_of = {claim_module(cid): cid for cid in CLAIMS}
    weights = weights or {}
    units, placed = [], set()
    for shared in SHARED_CACHE_MODULES:
        unit = [m for m in modules if m in shared]
        if unit:
            units.append(unit)
            placed.update(unit)
    units += [[m] for m in modules if m not in placed]
    cost = {tuple(u): sum(weights.get(claim_of.get(m), 1.0) for m in u) for u in units}
    groups, loads = [[] for _ in range(jobs)], [0.0] * jobs
    for unit in sorted(units, key=lambda u: -cost[tuple(u)]):
        k = loads.index(min(loads))
        groups[k] += unit
        loads[k] += cost[tuple(unit)]
    return [sorted(g, key=modules.index) for g in groups if g]


def worker_threads(threads=None) -> int:
    """Threads per check worker: ``threads`` if given, else the caller's ``OMP_NUM_THREADS``
    when it is a positive integer, else 1 (the checks run many tiny kernels, for which one
    thread is fastest). The decisions must not depend on it."""
    if threads is None:
        value = os.environ.get("OMP_NUM_THREADS", "").strip()
        if not (value.isdigit() and int(value) >= 1):
            return 1
        return check_int(int(value), "OMP_NUM_THREADS", lo=1, hi=MAX_WORKER_THREADS)
    return check_int(threads, "threads", lo=1, hi=MAX_WORKER_THREADS)


#: the most threads a check worker may be given
MAX_WORKER_THREADS = 256


def run_checks(profile="quick", jobs=None, claims=None, on_event=None, threads=None) -> dict:
    """Run the theorem checks and return the report as a dict.

    Args:
        profile: ``"quick"`` (fast versions, the CI set) or ``"full"`` (adds ``slow`` sweeps).
        jobs: worker processes (default: number of CPU cores, at most 4).
        claims: optional list of claim ids to restrict to.
        on_event: callback receiving each worker event (for progress display).
        threads: torch, OpenMP and MKL threads per worker (:func:`worker_threads`).
    """
    check_choice(profile, "profile", tuple(PROFILES))
    for i, cid in enumerate(claims or ()):
        check_choice(cid, f"claims[{i}]", tuple(CLAIMS))
    if jobs is None:
        jobs = max(1, min(4, os.cpu_count() or 1))
    jobs = check_int(jobs, "jobs", lo=1)
    threads = worker_threads(threads)
    thread_env = {name: str(threads) for name in
                  ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BOOLVERIFY_TEST_THREADS")}
    modules = theorem_modules()
    if claims:
        wanted = {claim_module(c) for c in claims}
        modules = [m for m in modules if m in wanted]

    started = time.time()
    groups = split_modules(modules, jobs, stored_durations())
    tasks = [Task(str(k), ("-p", "verify.report.check_plugin", "-p", "no:cacheprovider", "--capture=sys",
                           "-q", "-m", PROFILES[profile], "--pyargs", *group), env=thread_env)
             for k, group in enumerate(groups)]
    with run_folder(TMP_PREFIX) as tmp:
        events = []

        def collect(task, ev):
            events.append(ev)
            if on_event:
                on_event(ev)

        finished = run_workers(tasks, tmp, len(tasks), on_event=collect)
    logs = [(f.returncode, f.log) for f in finished]
    report = _build_report(profile, claims, started, events, logs)
    report["environment"]["threads_per_worker"] = threads
    report["environment"]["worker_torch_threads"] = sorted({ev["torch_threads"] for ev in events
                                                            if ev["event"] == "collected" and "torch_threads" in ev})
    report["environment"]["jobs"] = len(tasks)
    return report


#: the name of a check run's temporary folder starts with this, then the process id
TMP_PREFIX = "boolverify-check-"


def _build_report(profile, claims, started, events, logs) -> dict:
    """The report dict: tests grouped by claim, worker crashes, the overall verdict."""
    results = {cid: ClaimResult(cid, c.statement, c.theorem_file) for cid, c in CLAIMS.items()
               if not claims or cid in claims}
    other = []
    for ev in events:
        if ev["event"] != "test":
            continue
        test = {k: ev[k] for k in ("nodeid", "outcome", "duration", "evidence", "message")}
        if ev["claim"] in results:
            results[ev["claim"]].tests.append(test)
        else:
            other.append(test)
    # A worker that crashed (import or collection error, a signal) is a failure with its log;
    # exit code 1 alone is explained by the failing tests, when there are any.
    any_failed = any(t["outcome"] in ("failed", "error") for r in results.values() for t in r.tests)
    worker_errors = [tail[-3000:] for rc, tail in logs
                     if rc not in (0, 1, 5) or (rc == 1 and not any_failed)]
    claim_dicts = [r.to_dict() for r in results.values()]
    # only "fail" fails a run: "inconclusive" is reported as such, never as "pass"
    passed = all(c["status"] in ("pass", "inconclusive") for c in claim_dicts) and not worker_errors and not any(
        t["outcome"] in ("failed", "error") for t in other)
    return {
        "tool": "boolverify",
        "formalisation": "claims as formalised in boolverify (see docs/claims.md), not quotations of the papers",
        "profile": profile,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "duration_s": round(time.time() - started, 2),
        "environment": _environment(),
        "passed": passed,
        "claims": claim_dicts,
        "instruments": report_instruments(results),
        "unclaimed_tests": other,
        "worker_errors": worker_errors,
    }


def _environment() -> dict:
    from verify.reference.certified import backend

    from verify.common.provenance import cpu_model
    from verify.common.seeds import base_seed

    # decisions must not depend on the machine; the report says where it ran
    env = {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
           "cpu_model": cpu_model(), "seed_base": base_seed(), "bounds": backend()}
    try:
        import torch

        env["torch"] = torch.__version__
        env["cuda"] = torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        pass
    return env


def format_evidence(evidence: dict, limit: int = 4) -> str:
    """A compact ``key=value`` rendering of at most ``limit`` evidence entries.

    Numbers and booleans come first (they are what the claims assert on), then short strings;
    nested lists and dicts are left to the JSON report.
    """
    def rank(item):
        value = item[1]
        if isinstance(value, (bool, int, float)):
            return 0
        if isinstance(value, str) and 0 < len(value) <= 40:
            return 1
        return 2

    shown = [kv for kv in sorted(evidence.items(), key=rank) if rank(kv) < 2][:limit]
    parts = [f"{key}={_fmt(value)}" for key, value in shown]
    if len(evidence) > len(shown):
        parts.append(f"(+{len(evidence) - len(shown)} more in the JSON report)")
    return ", ".join(parts)


def format_test_evidence(evidence_by_test: dict, limit: int = 4) -> str:
    """A claim's evidence (:attr:`ClaimResult.evidence`), test by test:
    ``test_a: key=value, ...; test_b: ...`` (at most ``limit`` entries per test)."""
    return "; ".join(f"{name}: {format_evidence(ev, limit) or '-'}" for name, ev in evidence_by_test.items())


def _fmt(value) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_fmt(v) for v in value[:4])
        return f"[{inner}{', ...' if len(value) > 4 else ''}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in list(value.items())[:3]) + (", ...}" if len(value) > 3 else "}")
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _estimate(decision: dict) -> str:
    from verify.report.cells import estimate

    # long estimates (lists, records) are shortened for the cell; the JSON report has them whole
    shown = decision["estimate"]
    return estimate({**decision, "estimate": None if shown is None else shown if isinstance(shown, float)
                     else _fmt(shown)})


def _inconclusive_note(report) -> str:
    n = sum(c["status"] == "inconclusive" for c in report["claims"])
    return f" ({n} inconclusive)" if n else ""


def _provenance_line(prov: dict, env: dict) -> str:
    commit = prov.get("commit")
    dirty = prov.get("dirty")
    state = "" if commit is None or dirty is None else (" (with uncommitted changes)" if dirty else " (clean)")
    command = " ".join(prov["command"]) if prov.get("command") else "unknown"
    threads = prov.get("threads")
    return (f"Provenance: boolverify {prov.get('boolverify_version') or 'unknown'}, commit "
            f"`{commit or 'unknown'}`{state}, seed base {prov.get('seed_base', env.get('seed_base'))}, "
            f"{'' if threads is None else f'{threads} thread(s) per worker, '}command `{command}`, "
            f"written {prov.get('date') or 'unknown'}.")


def to_markdown(report: dict) -> str:
    lines = [
        "# boolverify verification report",
        "",
        f"Profile `{report['profile']}`, started {report['started']}, {report['duration_s']} s; "
        f"overall: **{'PASS' if report['passed'] else 'FAIL'}**"
        f"{_inconclusive_note(report)}. Claims as formalised in boolverify; each row gives what was "
        "estimated, the interval and the decision rule fixed before the data (docs/claims.md).",
        "",
        "| claim | statement (as formalised) | estimand | estimate [interval] (level) | decision rule -> outcome | status | time (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in report["claims"]:
        statement = _cell(c["statement"])
        decisions = c.get("decisions") or []
        if not decisions:
            ev = _cell(format_test_evidence(c["evidence"], limit=4))
            lines.append(f"| {c['id']} | {statement} | (no decision recorded) | {ev} | - | {c['status']} | "
                         f"{c['duration_s']:.1f} |")
            continue
        est = "<br>".join(_cell(d["estimand"]) for d in decisions)
        val = "<br>".join(_cell(_estimate(d)) for d in decisions)
        rule = "<br>".join(_cell(f"{d['rule']} -> **{d['outcome']}**") for d in decisions)
        lines.append(f"| {c['id']} | {statement} | {est} | {val} | {rule} | {c['status']} | {c['duration_s']:.1f} |")
    failures = [(c["id"], t) for c in report["claims"] for t in c["tests"] if t["outcome"] in ("failed", "error")]
    if failures:
        lines += ["", "## Failures", ""]
        for cid, t in failures:
            lines.append(f"- {cid} `{t['nodeid']}`: {t['message'].splitlines()[0] if t['message'] else ''}")
    if report["worker_errors"]:
        lines += ["", "## Worker errors", "", "```", *report["worker_errors"], "```"]
    if report.get("instruments"):
        lines += ["", instruments_markdown(report).rstrip("\n")]
    if report.get("mutants"):
        from verify.report.mutation.runner import mutation_summary

        lines += ["", mutation_summary(report["mutants"])]
    env = report["environment"]
    lines += ["", _provenance_line(report.get("provenance") or {}, env),
              f"Environment: Python {env.get('python')}, torch {env.get('torch')}, "
              f"CUDA {env.get('cuda')}, {env.get('cpus')} CPUs."]
    if env.get("bounds"):
        lines.append(f"Bounds: {env['bounds']['note']}.")
    lines.append("")
    return "\n".join(lines)


__all__ = ["PROFILES", "ClaimResult", "ClaimProgress", "stored_durations", "claim_module", "split_modules", "SHARED_CACHE_MODULES", "run_checks", "worker_threads", "MAX_WORKER_THREADS", "theorem_modules", "format_evidence", "format_test_evidence", "test_id",
           "to_markdown"]
