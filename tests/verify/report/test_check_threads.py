"""`boolverify check --threads`: the workers run with the threads asked for (torch, OpenMP,
MKL), the report says so, and the default is the caller's OMP_NUM_THREADS, else 1."""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers import raises_input_error, run_cli_process
from verify.report.runner import MAX_WORKER_THREADS, worker_threads


@pytest.mark.parametrize("threads", [1, 2])
def test_workers_run_with_the_threads_asked_for(tmp_path, threads):
    out = tmp_path / "r.json"
    proc = run_cli_process("check", "--claim", "SG-7", "--jobs", "1", "--threads", str(threads),
                           "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    env = json.loads(out.read_text())["environment"]
    assert env["threads_per_worker"] == threads and env["worker_torch_threads"] == [threads]


def test_the_default_follows_omp_num_threads(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert worker_threads() == 2
    monkeypatch.setenv("OMP_NUM_THREADS", "")
    assert worker_threads() == 1
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert worker_threads() == 1
    assert worker_threads(3) == 3


@pytest.mark.parametrize("threads, env, name", [
    (0, None, "threads"), (MAX_WORKER_THREADS + 1, None, "threads"), (1.5, None, "threads"),
    (None, str(MAX_WORKER_THREADS + 1), "OMP_NUM_THREADS"),
])
def test_bad_thread_counts_are_refused(monkeypatch, threads, env, name):
    if env is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", env)
    with raises_input_error(name):
        worker_threads(threads)

