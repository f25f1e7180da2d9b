"""pytest plugin (entry point ``boolverify``): claim markers, recorded evidence, Hypothesis profiles.

- ``@pytest.mark.claim("SX-1")`` ties a test to a registered claim (unknown ids fail collection).
- The ``evidence`` fixture records the numbers a test asserted on:
  ``evidence["max_rel_err"] = 3e-17``. They land in ``item.user_properties`` as
  ``("evidence", {...})`` so that ``boolverify check`` can report them.
- Hypothesis profiles: ``dev`` (default), ``ci`` (active under ``CI=true``), ``thorough``
  (``HYPOTHESIS_PROFILE=thorough``); all with ``deadline=None`` since torch kernels have
  variable first-call latency, and ``print_blob=True``: a failure prints its
  ``@reproduce_failure`` blob, to be replayed or turned into a committed ``@example``.
  ``dev`` and ``ci`` keep no example database (``database=None``): the default test command
  never replays, and never writes, a stored failure, so a run's outcome depends only on the
  code and the seed; Hypothesis' other caches go to a temporary folder, so that such a run
  creates no ``.hypothesis/`` in the clone. ``thorough`` keeps Hypothesis' default database in
  ``.hypothesis/``, so that a long hunt replays the failures it found first while they are
  being fixed (select it with ``HYPOTHESIS_PROFILE``, not ``--hypothesis-profile``, which
  comes too late to move the folder back).
"""

from __future__ import annotations

import json
import os
import tempfile

import pytest

# The temporary Hypothesis home of this process under the dev and ci profiles (None: not moved).
_scratch_hypothesis_home = None


def _register_hypothesis_profiles():
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:  # pragma: no cover - hypothesis is a core dependency
        return
    common = dict(deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("dev", max_examples=60, database=None, **common)
    settings.register_profile("ci", max_examples=60, derandomize=True, database=None, **common)
    settings.register_profile("thorough", max_examples=1000, **common)
    chosen = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    settings.load_profile(chosen)
    if chosen in ("dev", "ci"):
        _move_hypothesis_home_out_of_the_clone()


def _move_hypothesis_home_out_of_the_clone():
    """Hypothesis writes under ``./.hypothesis`` even without a database (recent versions cache
    the literals of local modules there); this points its home at a temporary folder, removed
    at exit, so that nothing is left for a later run to read. ``HYPOTHESIS_STORAGE_DIRECTORY``,
    when set, is left in charge."""
    global _scratch_hypothesis_home
    if _scratch_hypothesis_home is not None or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    from hypothesis.configuration import set_hypothesis_home_dir

    _scratch_hypothesis_home = tempfile.TemporaryDirectory(prefix="boolverify-hypothesis-")
    set_hypothesis_home_dir(_scratch_hypothesis_home.name)


def pytest_configure(config):
    config.addinivalue_line("markers", "claim(id): the claim id (docs/claims.md) a theorem test checks")
    config.addinivalue_line("markers", "slow: long sweeps, run with -m slow")
    config.addinivalue_line("markers", "gpu: needs CUDA, skipped without it")
    _register_hypothesis_profiles()
    # One intra-op thread: the checks run many tiny kernels, for which a second thread costs far
    # more in synchronisation than it gains (measured 52 ms vs 1.4 ms per small forward pass when
    # the other core is busy). Override with BOOLVERIFY_TEST_THREADS.
    import torch

    torch.set_num_threads(int(os.environ.get("BOOLVERIFY_TEST_THREADS", "1")))


def pytest_collection_modifyitems(config, items):
    from verify.report.claims import CLAIMS

    skip_gpu = None
    for item in items:
        for mark in item.iter_markers("claim"):
            if not mark.args or mark.args[0] not in CLAIMS:
                raise pytest.UsageError(
                    f"{item.nodeid}: claim marker {mark.args!r} is not a registered claim id"
                )
        if item.get_closest_marker("gpu") is not None:
            if skip_gpu is None:
                import torch

                skip_gpu = not torch.cuda.is_available()
            if skip_gpu:
                item.add_marker(pytest.mark.skip(reason="needs CUDA"))


class Evidence(dict):
    """A dict of the numbers a test asserted on; JSON-serialisable values please.

    ``decide(decision)`` records a :class:`verify.stats.decisions.Decision` under
    ``"decisions"`` and raises ``AssertionError`` when its outcome is ``fail``; an
    ``inconclusive`` decision is recorded and the test passes (only ``fail`` fails a run).
    """

    def decide(self, decision):
        self.setdefault("decisions", []).append(decision.as_dict())
        if decision.outcome == "fail":
            raise AssertionError(decision.describe())
        return decision


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # The evidence travels in the report as plain JSON values (as the check report stores it):
    # pytest-xdist sends each report from its worker process and serialises only plain types.
    outcome = yield
    report = outcome.get_result()
    report.user_properties = [(key, json.loads(json.dumps(dict(value), default=str)) if key == "evidence" else value)
                              for key, value in report.user_properties]


@pytest.fixture
def evidence(request):
    ev = Evidence()
    request.node.user_properties.append(("evidence", ev))
    return ev
