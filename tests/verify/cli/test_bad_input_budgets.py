"""Budgets on every path: sizes that need years or terabytes, time budgets that are no budget,
inputs that make a comparison vacuous or undefined, schedulers that are not one, each refused
with one line on stderr, exit 2, before any long work (each row must return within
``FAST_S`` seconds), nothing written and no traceback. The general table is
tests/verify/cli/test_bad_input.py; this one shares its format, ``(argv, files)`` with ``{in}``
a folder holding ``files`` and ``{out}`` an empty folder."""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest

from tests.helpers import PROJECT_ROOT
from tests.verify.cli.test_bad_input import HANG_LIMIT_S

PUBLIC = str(PROJECT_ROOT / "tests" / "fixtures" / "sensitivity_hardness")
FAST_S = 30          # a refusal comes before any long work; a started run takes hours

STREAM = [["xor", "step", "--stream", *a] for a in (
    ["--d", "1e15", "--m", "4"],                          # about a year of drawing V
    ["--d", "1e18", "--m", "64"],
    ["--d", "1e7", "--m", "4", "--max-days", "1e-9"],     # the budget applies to the streamed path
    ["--d", "1e400", "--m", "4"],
    ["--d", "1e9", "--m", "4", "--max-days", "0"],
    ["--d", "1e9", "--m", "4", "--max-days", "-1"],
    ["--d", "1e9", "--m", "4", "--max-days", "nan"],
    ["--d", "1e9", "--m", "4", "--max-days", "inf"],
    ["--d", "1e9", "--m", "4", "--max-days", "1e400"],
    ["--d", "1e8", "--m", "1e6"],                          # blocks beyond memory
    ["--d", "100", "--m", "2e20"],
)]

XOR = [["xor", *a] for a in (
    ["step", "--d", "1e15", "--m", "4"],
    ["step", "--d", "1e6", "--m", "1e6"],
    ["step", "--d", "1000", "--m", "4", "--max-days", "1e-15"],
    ["compare", "--steps", "1e12"],
    ["compare", "--steps", "1e400"],
    ["compare", "--seeds", "1e12"],
    ["compare", "--seeds", "1e400"],
    ["compare", "--d", "1e12", "--m", "4", "--seeds", "1", "--steps", "0"],
    ["sweep", "--d", "1e15", "--m", "4", "--seeds", "1", "--stream"],
    ["sweep", "--d", "100", "--m", "4", "--seeds", "1e15"],
    ["sweep", "--d", "100", "--m", "4", "--seeds", "1e400"],
    ["sweep", "--d", "100", "--m", "4", "--seeds", "1", "--seeds-for-d", "100:1e400"],
    ["samples", "--d", "100", "--n", "1e15", "--m", "4", "--seeds", "1"],
    ["samples", "--d", "1e12", "--n", "10", "--m", "4", "--seeds", "1"],
    ["samples", "--d", "100", "--n", "10", "--m", "4", "--seeds", "1e400"],
)]

SENSITIVITY = [["sensitivity", *a] for a in (
    ["train", "--steps", "1e11"],
    ["train", "--steps", "1e400"],
    ["train", "--seeds", "1e9"],
    ["train", "--batch-size", "1e12"],
    ["train", "--D", "1e6", "--L", "1000"],
    ["train", "--D", "1e30"],
    ["train", "--N", "1e6"],
    ["train", "--N", "1e400"],
    ["train", "--N", "4", "--steps", "5", "--weight-decay", "1e300"],
    ["train", "--N", "4", "--steps", "5", "--lr", "1", "--weight-decay", "1"],
    ["train", "--max-days", "0"],
    ["sample", "--models", "1e12"],
    ["sample", "--models", "1e400"],
    ["sample", "--strings", "1e12"],
    ["sample", "--strings", "1e400"],
    ["sample", "--D", "1e6", "--L", "1000"],
    ["sample", "--max-days", "nan"],
    ["volume", "--models", "1e7", "--N", "16"],
    ["volume", "--N", "16", "--max-days", "1e-9"],
)]

SHARPNESS = [["crossval", "sharpness", "--public", PUBLIC, "--quick", *a] for a in (
    ["--sigma", "0"],                   # 0 against 0: vacuous
    ["--sigma", "1e300"],               # NaN on both sides: undefined, not a mismatch
    ["--sigma", "nan"],
    ["--sigma", "-1"],
    ["--sigma", "1e400"],
    ["--seed", "18446744073709551616"],
    ["--seed", "-1"],
    ["--draws", "0"],
    ["--draws", "1e12"],
    ["--draws", "10000", "--max-days", "1e-6"],
    ["--max-days", "0"],
    ["--json", PUBLIC + "/src/measurements.py"],    # the public code's own source file
    ["--json", PUBLIC + "/src/model.py"],
)]

CASES = STREAM + XOR + SENSITIVITY + SHARPNESS


def _listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def _run(argv, tmp_path, monkeypatch, capsys):
    """``main(argv)`` in a fresh working folder: its exit code, stderr lines and seconds."""
    import signal

    from verify.cli import main

    out, cwd = tmp_path / "out", tmp_path / "cwd"
    for folder in (out, cwd):
        folder.mkdir()
    monkeypatch.chdir(cwd)
    args = [a.replace("{out}", str(out)) for a in argv]
    public_before = _listing(PROJECT_ROOT / "tests" / "fixtures" / "sensitivity_hardness")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_LIMIT_S)
    t0 = time.monotonic()
    try:
        code = main(args)
    except _Hang:
        pytest.fail(f"no answer within {HANG_LIMIT_S} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    seconds = time.monotonic() - t0
    err = capsys.readouterr().err
    assert _listing(out) == [] and _listing(cwd) == [], "output left behind"
    assert _listing(PROJECT_ROOT / "tests" / "fixtures" / "sensitivity_hardness") == public_before
    return code, err, seconds


def _assert_refused(code, err, seconds):
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("boolverify: error: "), err
    assert "Traceback" not in err
    assert seconds < FAST_S, f"refused only after {seconds:.0f} s"


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(a).replace(PUBLIC, "PUBLIC") for a in CASES])
def test_refused_in_one_line_before_any_long_work(argv, tmp_path, monkeypatch, capsys):
    _assert_refused(*_run(argv, tmp_path, monkeypatch, capsys))


def test_the_table_is_large():
    assert len(CASES) >= 40


def test_the_public_source_is_unchanged_after_a_refused_json(tmp_path, monkeypatch, capsys):
    source = PROJECT_ROOT / "tests" / "fixtures" / "sensitivity_hardness" / "src" / "measurements.py"
    before = source.read_bytes()
    _run(["crossval", "sharpness", "--public", PUBLIC, "--quick", "--json", str(source)], tmp_path, monkeypatch,
         capsys)
    assert source.read_bytes() == before


# messages that name the cause, not another option or "out of memory"
NAMED = [
    (["sensitivity", "train", "--N", "4", "--steps", "5", "--weight-decay", "1e300"], "--weight-decay", "weight decay"),
    (["xor", "step", "--stream", "--d", "1e15", "--m", "4"], "--d", "time budget"),
    (["crossval", "sharpness", "--public", PUBLIC, "--quick", "--sigma", "0"], "--sigma", "> 0"),
    (["crossval", "sharpness", "--public", PUBLIC, "--quick", "--sigma", "1e300"], "--sigma", "finite"),
    (["crossval", "sharpness", "--public", PUBLIC, "--quick", "--seed", str(2**64)], "--seed", "integer"),
    (["crossval", "sharpness", "--public", PUBLIC, "--quick", "--json", PUBLIC + "/src/measurements.py"],
     "--json", "input"),
]


@pytest.mark.parametrize("argv, option, words", NAMED, ids=[" ".join(a[:3] + a[-2:]) for a, _, _ in NAMED])
def test_the_message_names_the_cause(argv, option, words, tmp_path, monkeypatch, capsys):
    code, err, _ = _run(argv, tmp_path, monkeypatch, capsys)
    assert code == 2 and err.startswith(f"boolverify: error: {option} ") and words in err, err


# --------------------------------------------------------------------------- schedulers


@pytest.fixture
def plain_listener():
    """A TCP listener that accepts and never speaks (``silent``) or answers like a web server."""
    servers = []

    def start(reply=b""):
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        srv.settimeout(0.2)
        stop = threading.Event()

        def serve():
            held = []
            while not stop.is_set():
                try:
                    conn, _ = srv.accept()
                except OSError:
                    continue
                held.append(conn)
                if reply:
                    conn.sendall(reply)
            for c in held:
                c.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        servers.append((srv, stop, thread))
        return f"tcp://127.0.0.1:{srv.getsockname()[1]}"

    yield start
    for srv, stop, thread in servers:
        stop.set()
        thread.join(5)
        srv.close()


@pytest.mark.parametrize("reply", [b"", b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 50],
                         ids=["silent", "http"])
def test_a_listener_that_is_not_dask_is_reported_as_such(reply, plain_listener, tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    from verify.experiments import distributed

    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT", 2)
    address = plain_listener(reply)
    code, err, seconds = _run(["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "1", "--scheduler", address],
                              tmp_path, monkeypatch, capsys)
    _assert_refused(code, err, seconds)
    assert "is not a Dask scheduler" in err and "memory" not in err, err


def test_a_scheduler_without_workers_is_refused_within_the_limit(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    from verify.experiments import distributed

    monkeypatch.setattr(distributed, "WORKERS_TIMEOUT", 2)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None, silence_logs=logging.ERROR,
                      scheduler_kwargs={"protocol": "tcp"}) as cluster:
        code, err, seconds = _run(["xor", "sweep", "--d", "100", "--m", "4", "--seeds", "1", "--scheduler",
                                   cluster.scheduler_address], tmp_path, monkeypatch, capsys)
    _assert_refused(code, err, seconds)
    assert "no workers joined within 2 s" in err and err.startswith("boolverify: error: --scheduler "), err


# --------------------------------------------------------------------------- no run learns


def test_volume_figure_when_no_run_learns_is_refused_and_nothing_written(tmp_path, monkeypatch, capsys):
    """The figure needs a curve: when no training run learns, one line names --figure, no
    IndexError, and neither the figure nor the JSON is written."""
    code, err, _ = _run(["sensitivity", "volume", "--solution", "trained", "--function", "parity", "--N", "4",
                         "--steps", "1", "--tries", "1", "--models", "2", "--sigmas", "0.1",
                         "--figure", "{out}/f.png", "--json", "{out}/v.json"], tmp_path, monkeypatch, capsys)
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("volume: ")]   # progress lines
    assert code == 2 and len(lines) == 1 and lines[0].startswith("boolverify: error: --figure "), err
    assert "Traceback" not in err and "IndexError" not in err
