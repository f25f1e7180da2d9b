"""Sweeps on dask.distributed: the same cells as in-process, each saved once by the client, also
when a worker is killed mid-sweep or two sweeps share an output; option checks before any work."""

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading

import pytest
import torch

from tests.helpers import PROJECT_ROOT, raises_input_error
from verify.cli import main
from verify.experiments import distributed
from verify.experiments.xor_sweeps import load_results, run_samples, run_sweep

pytest.importorskip("distributed")

ROOT = PROJECT_ROOT


def _cells(path):
    """The saved cells by key, without the timing field."""
    return {json.dumps(c["key"], sort_keys=True): {k: v for k, v in c.items() if k != "seconds"}
            for c in load_results(path)["cells"]}


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_kwargs=distributed.FREE_HTTP_PORT, silence_logs=logging.ERROR) as c:
        yield c


def test_cli_workers_gives_the_in_process_cells(tmp_path, capsys):
    argv = ["xor", "sweep", "--d", "1000,10000", "--m", "8,32", "--seeds", "20"]
    assert main(argv + ["--out", str(tmp_path / "A.json"), "--workers", "2"]) == 0
    assert main(argv + ["--out", str(tmp_path / "B.json")]) == 0
    a, b = _cells(tmp_path / "A.json"), _cells(tmp_path / "B.json")
    assert len(a) == 4 and a == b
    err = capsys.readouterr().err  # not a terminal: one plain progress line per cell
    assert err.count("(4/4 cells)") == 2 and err.count("sweep: [4/4] d=") == 2


def test_killed_worker_still_gives_every_cell_once(cluster, tmp_path):
    from distributed import Client

    out = tmp_path / "k.json"
    killed = []
    with Client(cluster) as client:
        def kill_a_busy_worker(done, total, text):
            if killed:
                return
            busy = [w for w, keys in client.processing().items() if keys]
            if busy:
                pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                os.kill(pid, signal.SIGKILL)  # the nanny starts a new worker; its tasks run again
                killed.append(busy[0])

        ds, ms = [10000], [8, 16, 24, 32]
        run_sweep(ds, ms, 6, out=out, progress=kill_a_busy_worker, scheduler=cluster.scheduler_address)
        assert killed and killed[0] not in client.scheduler_info()["workers"]
    got = load_results(out)["cells"]
    assert sorted(c["m"] for c in got) == ms  # every cell, once
    ref = tmp_path / "ref.json"
    run_sweep(ds, ms, 6, out=ref)
    assert _cells(out) == _cells(ref)


def test_samples_on_a_cluster_match_in_process(cluster, tmp_path):
    a = run_samples([16, 24], {16: [64, 256], 24: [64, 256]}, 8, 6, out=tmp_path / "a.json",
                    scheduler=cluster.scheduler_address)
    b = run_samples([16, 24], {16: [64, 256], 24: [64, 256]}, 8, 6, out=tmp_path / "b.json")
    assert [c.successes for c in a] == [c.successes for c in b]
    assert _cells(tmp_path / "a.json") == _cells(tmp_path / "b.json")


def test_concurrent_sweeps_on_a_cluster_and_a_rerun(cluster, tmp_path):
    out = tmp_path / "s.json"
    grids = [([300], [4, 8, 12]), ([300, 400], [8])]  # share the cell (300, 8)
    errors = []

    def sweep(ds, ms):
        try:
            run_sweep(ds, ms, 5, out=out, scheduler=cluster.scheduler_address)
        except Exception as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=sweep, args=g) for g in grids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert sorted((c["d"], c["m"]) for c in load_results(out)["cells"]) == [(300, 4), (300, 8), (300, 12), (400, 8)]
    # a rerun with a larger grid computes only the new cells
    texts = []
    run_sweep([300, 400], [4, 8, 12], 5, out=out, scheduler=cluster.scheduler_address,
              progress=lambda d, t, s: texts.append(s))
    assert sum("saved" in s for s in texts) == 4 and len(texts) == 7
    assert sum("4 of 6 cells kept from the file" in s for s in texts) == 1
    assert len(load_results(out)["cells"]) == 6


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BAD_BACKEND_OPTIONS = [
    (["--workers", "0"], "--workers"),
    (["--workers", "65"], "--workers"),
    (["--scheduler", "nohost"], "--scheduler"),
    (["--scheduler", "http://h:8786"], "--scheduler"),
    (["--scheduler", "tcp://h:99999"], "--scheduler"),
    (["--scheduler", "h:"], "--scheduler"),
    (["--scheduler", f"127.0.0.1:{_free_port()}"], "--scheduler"),  # nobody listens there
]
# the ids name the free port as such: every pytest-xdist worker must collect the same test ids
BAD_BACKEND_IDS = [" ".join(e).replace(e[-1], "127.0.0.1:free-port") if e[-1].startswith("127.0.0.1:")
                   else " ".join(e) for e, _ in BAD_BACKEND_OPTIONS]


@pytest.mark.parametrize("command", ["sweep", "samples"])
@pytest.mark.parametrize("extra,name", BAD_BACKEND_OPTIONS, ids=BAD_BACKEND_IDS)
def test_bad_backend_options_exit_2_with_one_line(command, extra, name, capsys):
    grid = ["--m", "2"] if command == "sweep" else ["--n", "4"]
    assert main(["xor", command, "--d", "10", *grid, "--seeds", "2", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"boolverify: error: {name} = "), err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("extra,name", BAD_BACKEND_OPTIONS, ids=BAD_BACKEND_IDS)
def test_bad_backend_options_of_sensitivity_random(extra, name, capsys):
    assert main(["sensitivity", "random", "--N", "4", "--D", "4", "--L", "1", "--models", "2", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"boolverify: error: {name} = "), err
    assert len(err.strip().splitlines()) == 1


def test_random_models_on_a_cluster_match_in_process(cluster):
    from numeric.transformer import preset_config
    from verify.experiments.random_transformers import MODELS_PER_TASK, sample_models

    cfg = preset_config("bhattamishra", D=8, L=2, N_max=64)
    n = 2 * MODELS_PER_TASK + 3                      # a short last block
    here = sample_models(cfg, "uniform", 6, n, seed=40, B=10.0)
    done = []
    there = sample_models(cfg, "uniform", 6, n, seed=40, B=10.0, scheduler=cluster.scheduler_address,
                          progress=done.append)
    assert torch.equal(here.profiles, there.profiles) and torch.equal(here.ones, there.ones)
    assert here.functions == there.functions and sorted(done) == list(range(n))
    # the models differ (a block run with the wrong seeds would not match)
    assert len({tuple(k) for k in here.profiles.tolist()}) > 2


def test_cli_random_workers_gives_the_in_process_json(tmp_path, capsys):
    argv = ["sensitivity", "random", "--preset", "bhattamishra", "--N", "5", "--D", "8", "--L", "1",
            "--models", "14"]
    assert main(argv + ["--json", str(tmp_path / "A.json"), "--workers", "2"]) == 0
    assert main(argv + ["--json", str(tmp_path / "B.json")]) == 0
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("A.json", "B.json"))
    # the provenance records differ by design (command line, duration); the results may not
    assert a.pop("provenance")["command"] != b.pop("provenance")["command"]
    assert a == b and len(a["profiles"]) == 14


def test_workers_and_scheduler_are_exclusive(capsys):
    assert main(["xor", "sweep", "--d", "10", "--m", "2", "--workers", "2", "--scheduler", "h:8786"]) == 2
    assert "not allowed with" in capsys.readouterr().err
    with raises_input_error("scheduler", "no scheduler together"):
        run_sweep([10], [2], 2, workers=2, scheduler="h:8786")
    with raises_input_error("workers", "an integer in [1, 64]"):
        run_samples([10], {10: [4]}, 2, 2, workers=0)


def test_scheduler_addresses_are_normalised():
    assert distributed.check_scheduler("10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    assert distributed.check_scheduler("tcp://node-1.cluster:8786") == "tcp://node-1.cluster:8786"
    assert distributed.check_scheduler("[::1]:8786") == "tcp://[::1]:8786"
    assert distributed.task_key("step", {"d": 1}) == distributed.task_key("step", {"d": 1})


def test_default_run_does_not_import_dask():
    code = ("import sys; from verify.experiments.xor_sweeps import run_sweep; run_sweep([20], [2], 2); "
            "assert 'distributed' not in sys.modules and 'dask' not in sys.modules")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_an_embedded_cluster_warns_of_no_port_in_use(recwarn):
    """With dask's default HTTP port taken (another cluster, a concurrent sweep), an embedded
    cluster's scheduler takes a free port, so no 'Port 8787 is already in use' warning reaches the
    user."""
    holder = socket.socket()
    try:
        holder.bind(("", 8787))                   # taken here, unless something else holds it
        holder.listen()
    except OSError:
        pass
    try:
        got = dict(distributed.run_tasks(abs, [(k, (-k,)) for k in range(3)], workers=1))
    finally:
        holder.close()
    assert got == {0: 0, 1: 1, 2: 2}
    assert not [w for w in recwarn if "already in use" in str(w.message)], [str(w.message) for w in recwarn]
