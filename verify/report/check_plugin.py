"""pytest plugin used by ``boolverify check`` workers: one JSON line per event.

Loaded with ``-p verify.report.check_plugin``; writes to the file named by ``BOOLVERIFY_EVENTS``:

- ``{"event": "collected", "count": n, "claims": {claim: [nodeid, ...]}, "torch_threads": t}``
  once collection is done (the collected tests of each claim, so that a claim's last test can be
  recognised; the worker's torch intra-op threads, so that the report says what ran);
- ``{"event": "test", "nodeid", "claim", "outcome", "duration", "evidence", "message"}`` per
  test (outcome ``passed``, ``failed``, ``skipped`` or ``error``).

Evidence is what the test recorded through the ``evidence`` fixture (``user_properties``).
"""

from __future__ import annotations

import json
import os

_claims: dict[str, str] = {}
_events = None


def _emit(obj):
    _events.write(json.dumps(obj, default=str) + "\n")
    _events.flush()


def pytest_configure(config):
    global _events
    path = os.environ.get("BOOLVERIFY_EVENTS")
    _events = open(path, "a", encoding="utf-8") if path else open(os.devnull, "w")


def pytest_unconfigure(config):
    if _events is not None:
        _events.close()


def pytest_collection_finish(session):
    by_claim: dict[str, list[str]] = {}
    for item in session.items:
        mark = item.get_closest_marker("claim")
        _claims[item.nodeid] = mark.args[0] if mark and mark.args else None
        if _claims[item.nodeid] is not None:
            by_claim.setdefault(_claims[item.nodeid], []).append(item.nodeid)
    import torch

    _emit({"event": "collected", "count": len(session.items), "claims": by_claim,
           "torch_threads": torch.get_num_threads()})


def _message(report) -> str:
    if report.passed:
        return ""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    return str(report.longrepr)[-2000:]


def pytest_runtest_logreport(report):
    # One event per test: the call phase, or setup when setup failed or skipped.
    if report.when == "call" or (report.when == "setup" and not report.passed):
        evidence = {}
        for key, value in report.user_properties:
            if key == "evidence":
                evidence.update(value)
        outcome = report.outcome
        if report.when == "setup" and report.failed:
            outcome = "error"
        _emit({
            "event": "test",
            "nodeid": report.nodeid,
            "claim": _claims.get(report.nodeid),
            "outcome": outcome,
            "duration": report.duration,
            "evidence": evidence,
            "message": _message(report),
        })
    elif report.when == "teardown" and report.failed:
        _emit({"event": "test", "nodeid": report.nodeid, "claim": _claims.get(report.nodeid),
               "outcome": "error", "duration": report.duration, "evidence": {},
               "message": "teardown: " + _message(report)})
