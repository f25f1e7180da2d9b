"""pytest plugin of ``boolverify mutants``: install the mutant named by ``BOOLVERIFY_MUTANT``.

Loaded with ``-p verify.report.mutation.plugin``. ``pytest_configure`` runs (first) before any
test module is collected, so the theorem modules' ``from numeric.xor import population_loss``
already binds the mutant; bindings made earlier (by a conftest) are rebound through
``sys.modules`` (:func:`verify.report.mutation.engine.install`). When ``BOOLVERIFY_EVENTS`` names
a file, one line ``{"event": "mutant", "name", "target", "rebound"}`` says the mutant is in place.
"""

from __future__ import annotations

import json
import os

import pytest

_installed = None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    global _installed
    from numeric.validation import InputError
    from verify.report.mutation.engine import ENV_VAR, install
    from verify.report.mutation.runner import by_name

    name = os.environ.get(ENV_VAR)
    if not name:
        return
    try:
        mutant = by_name(name)
    except InputError as exc:
        raise pytest.UsageError(f"{ENV_VAR}: {exc}") from None
    _installed = install(mutant)
    path = os.environ.get("BOOLVERIFY_EVENTS")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": "mutant", "name": name, "target": mutant.target,
                                 "rebound": _installed.rebound}) + "\n")


def pytest_report_header(config):
    if _installed is not None:
        m = _installed.mutant
        return f"mutant {m.name}: {m.target} replaced ({_installed.rebound} bindings)"
    return None
