"""`boolverify crossval`: a table of bad input, each row an exit code (2, or 1 for a real
mismatch) with at most two lines on stderr, no traceback and no output file left behind; and
targets that try to fool the run (sys.exit, os._exit, hanging, wrong only for large N).

Rows that fail before any target is imported run in-process through :func:`verify.cli.main`
(fast, torch imported once); rows whose target runs in a child process go through
``python3 -m verify.cli`` in a subprocess with a time bound.
"""

from __future__ import annotations

import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from verify.cli import main
from tests.helpers import PROJECT_ROOT, children_of, process_gone, run_cli_process

ROOT = PROJECT_ROOT
IMPL = ROOT / "docs" / "examples" / "xor_impl.py"
INST = {"V": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], "theta": [1.0, 2.0], "theta_tilde": [-1.0, 0.5],
        "support": [0, 2], "loss": 0.5}

#: the targets (MODULE:FUNCTION) the rows name, copied into the test's folder as targets.py
TARGETS = (Path(__file__).with_name("crossval_targets.py")).read_text()


def _npz(path, **arrays):
    base = {"V": np.array([INST["V"]] * 3), "theta": np.ones((3, 2)), "theta_tilde": np.ones((3, 2)),
            "support": np.array([[0, 1]] * 3), "loss": np.ones(3)}
    base.update(arrays)
    np.savez(path, **{k: v for k, v in base.items() if v is not None})


def _crc_corrupt(path):
    _npz(path)
    data = bytearray(path.read_bytes())
    info = zipfile.ZipFile(path).getinfo("V.npy")
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 130] ^= 0xFF
    path.write_bytes(bytes(data))


def _claims(**over):
    return lambda p: p.write_text(json.dumps({"instances": [dict(INST, **over)]}))


def _text(s):
    return lambda p: p.write_text(s)


#: files a row may name as {name}; each is created in tmp_path under that name
FILES = {
    "maj.txt": _text("0 0 0 1 0 1 1 1"),
    "pm.txt": _text("1 1 1 -1 1 -1 -1 -1"),
    "three.txt": _text("0 1 1"),
    "two.txt": _text("0 2 1 0"),
    "bad_profile.json": _text('{"table": [0, 1, 1, 0], "profile": ["a", 1, 2]}'),
    "deep_table.json": _text("[" * 100_000 + "]" * 100_000),
    "obj.npy": lambda p: np.save(p, np.array([0, "a"], dtype=object), allow_pickle=True),
    "garbage.npy": lambda p: p.write_bytes(b"not a numpy file at all"),
    "big.npy": lambda p: np.save(p, np.zeros(1 << 25, dtype=np.uint8)),
    "dir.npy": lambda p: p.mkdir(),
    "afile": _text("x"),
    "targets.py": _text(TARGETS),
    "claims.csv": _text("1,2"),
    "conv_list.json": lambda p: p.write_text(json.dumps({"conventions": [1], "instances": [INST]})),
    "conv_typo.json": lambda p: p.write_text(json.dumps({"conventions": {"index_bse": 1}, "instances": [INST]})),
    "conv_base2.json": lambda p: p.write_text(json.dumps({"conventions": {"index_base": 2}, "instances": [INST]})),
    "conv_scale0.json": lambda p: p.write_text(json.dumps({"conventions": {"loss_scale": 0}, "instances": [INST]})),
    "one_claim.json": _claims(),
    "loss_null.json": _claims(loss=None),
    "loss_nan.json": lambda p: p.write_text(json.dumps({"instances": [dict(INST, loss=float("nan"))]})),
    "loss_bool.json": _claims(loss=True),
    "loss_list.json": _claims(loss=[0.5, 0.5]),
    "grad_short.json": _claims(grad_theta=[0.1]),
    "support_far.json": _claims(support=[0, 3]),
    "unknown_field.json": _claims(grad_thetaa=[0.1, 0.2]),
    "instances_3.json": _text('{"instances": 3}'),
    "no_instances.json": _text('{"instances": []}'),
    "deep.json": _text("[" * 100_000 + "]" * 100_000),
    "invalid.json": _text("{not json"),
    "latin1.json": lambda p: p.write_bytes(b'{"instances": "\xe9"}'),
    "short.npz": lambda p: _npz(p, theta=np.ones((2, 2))),
    "index_base_array.npz": lambda p: _npz(p, index_base=np.array([0, 1])),
    "object.npz": lambda p: _npz(p, V=np.array([[1, "a"]], dtype=object)),
    "crc.npz": _crc_corrupt,
    "no_V.npz": lambda p: _npz(p, V=None),
    "unknown.npz": lambda p: _npz(p, extra=np.ones(3)),
    "single.npz": lambda p: p.write_bytes(b"\x93NUMPY" + b"\x00" * 40),
    "float_support.npz": lambda p: _npz(p, support=np.array([[0.0, 1.0]] * 3)),
    "top_typo.json": lambda p: p.write_text(json.dumps({"convention": {"index_base": 1}, "instances": [INST]})),
    "table_2d.npy": lambda p: np.save(p, np.array([[0, 1], [1, 0]])),
    "table_2d.json": _text('{"table": [[0, 1], [1, 0]]}'),
    "table_typo.json": _text('{"table": [0, 1, 1, 0], "profil": [0, 0, 4]}'),
    "table_scalar.json": _text('{"table": 1}'),
}

OUT = "{tmp}/out.json"

# (argv after "crossval", expected exit code, a fragment the one-line message must contain)
IN_PROCESS = [
    # the command and its subcommands
    ([], 2, ""),
    (["bogus"], 2, "invalid choice"),
    (["xor-grad"], 2, "required"),
    (["xor-grad", f"{IMPL}:population_grad", "extra"], 2, "unrecognized"),
    (["xor-loss"], 2, "required"),
    (["xor-file"], 2, "required"),
    (["xor-file", "{claims.csv}", "extra"], 2, "unrecognized"),
    (["profile"], 2, "required"),
    # options of xor-grad / xor-loss
    (["xor-grad", f"{IMPL}:population_grad", "--examples", "x"], 2, "--examples"),
    (["xor-grad", f"{IMPL}:population_grad", "--examples", "0", "--json", OUT], 2, "--examples"),
    (["xor-loss", f"{IMPL}:population_loss", "--examples", "-5"], 2, "--examples"),
    (["xor-grad", f"{IMPL}:population_grad", "--examples", str(10**12)], 2, "--examples"),
    (["xor-grad", f"{IMPL}:population_grad", "--seed", "-1", "--json", OUT], 2, "--seed"),
    (["xor-grad", f"{IMPL}:population_grad", "--seed", "1.5"], 2, "--seed"),
    (["xor-grad", f"{IMPL}:population_grad", "--timeout", "0"], 2, "--timeout"),
    (["xor-grad", f"{IMPL}:population_grad", "--timeout", "-1"], 2, "--timeout"),
    (["xor-grad", f"{IMPL}:population_grad", "--timeout", "nan", "--json", OUT], 2, "--timeout"),
    (["xor-grad", f"{IMPL}:population_grad", "--timeout", "inf"], 2, "--timeout"),
    (["xor-loss", f"{IMPL}:population_loss", "--timeout", "1e9"], 2, "--timeout"),
    (["xor-grad", f"{IMPL}:population_grad", "--timeout", "soon"], 2, "--timeout"),
    (["xor-grad", f"{IMPL}:population_grad", "--attention", "relu"], 2, "--attention"),
    (["xor-grad", f"{IMPL}:population_grad", "--array", "jax"], 2, "--array"),
    (["xor-grad", f"{IMPL}:population_grad", "--path", "{tmp}/no/such/dir"], 2, "--path"),
    (["xor-loss", f"{IMPL}:population_loss", "--path", "{afile}"], 2, "--path"),
    (["xor-grad", "justtext", "--json", OUT], 2, "MODULE:FUNCTION"),
    (["xor-grad", str(IMPL)], 2, ":FUNCTION"),
    (["xor-grad", "a:b:c"], 2, "MODULE:FUNCTION"),
    (["xor-grad", "pkg.mod:1f"], 2, "MODULE:FUNCTION"),
    (["xor-grad", "{tmp}/missing.py:f", "--json", OUT], 2, "does not exist"),
    (["xor-grad", f"{IMPL}:population_grad", "--json", "{tmp}"], 2, "--json"),
    (["xor-loss", f"{IMPL}:population_loss", "--json", "{afile}/out.json"], 2, "--json"),
    # profile: a function
    (["profile", "{targets.py}:profile", "--N", "0"], 2, "--N"),
    (["profile", "{targets.py}:profile", "--N", "-1"], 2, "--N"),
    (["profile", "{targets.py}:profile", "--N", "21", "--json", OUT], 2, "--N"),
    (["profile", "{targets.py}:profile", "--N", str(10**6)], 2, "--N"),
    (["profile", "{targets.py}:profile", "--N", "nan"], 2, "--N"),
    (["profile", "{targets.py}:profile", "--examples", "0"], 2, "--examples"),
    (["profile", "{targets.py}:profile", "--timeout", "-3"], 2, "--timeout"),
    (["profile", "{targets.py}:profile", "--values", "+-"], 2, "--values"),
    (["profile", "{targets.py}:profile", "--returns", "sum"], 2, "--returns"),
    (["profile", "{targets.py}:profile", "--claimed", "1,2"], 2, "--claimed"),
    (["profile", "{targets.py}:profile", "--allow-large"], 2, "--allow-large"),
    (["profile", "{targets.py}"], 2, ":FUNCTION"),
    (["profile", "nosuchthing"], 2, "no such file"),
    # profile: a table file
    (["profile", "{maj.txt}", "--returns", "average"], 2, "--returns"),
    (["profile", "{maj.txt}", "--examples", "5"], 2, "--examples"),
    (["profile", "{maj.txt}", "--timeout", "5"], 2, "--timeout"),
    (["profile", "{maj.txt}", "--path", "{tmp}"], 2, "--path"),
    (["profile", "{maj.txt}", "--claimed", "", "--json", OUT], 2, "--claimed"),
    (["profile", "{maj.txt}", "--claimed", "1,x"], 2, "--claimed"),
    (["profile", "{maj.txt}", "--claimed", "2,0,6", "--json", OUT], 2, "--claimed"),
    (["profile", "{maj.txt}", "--claimed", "2,0,-6,0"], 2, "--claimed"),
    (["profile", "{maj.txt}", "--claimed", "2,6,0,0"], 1, ""),  # a wrong claim, well formed
    (["profile", "{maj.txt}", "--N", "4"], 2, "N = 4"),
    (["profile", "{maj.txt}", "--N", "-2"], 2, "--N"),
    (["profile", "{maj.txt}", "--values", "pm1"], 2, "only 1 and -1"),
    (["profile", "{pm.txt}"], 2, "--values pm1"),
    (["profile", "{three.txt}"], 2, "not a power of two"),
    (["profile", "{two.txt}"], 2, "only 0 and 1"),
    (["profile", "{bad_profile.json}"], 2, "profile"),
    (["profile", "{deep_table.json}"], 2, "nested too deeply"),
    (["profile", "{obj.npy}"], 2, "cannot read"),
    (["profile", "{garbage.npy}"], 2, "cannot read"),
    (["profile", "{big.npy}", "--json", OUT], 2, "--allow-large"),
    (["profile", "{dir.npy}"], 2, "not a file"),
    (["profile", "{tmp}/nosuch.npy"], 2, "does not exist"),
    (["profile", "{maj.txt}", "--json", "{tmp}"], 2, "--json"),
    # xor-file
    (["xor-file", "{tmp}/nosuch.json"], 2, "does not exist"),
    (["xor-file", "{claims.csv}"], 2, "unsupported file type"),
    (["xor-file", "{conv_list.json}", "--json", OUT], 2, "conventions"),
    (["xor-file", "{conv_typo.json}"], 2, "index_bse"),
    (["xor-file", "{conv_base2.json}"], 2, "index_base"),
    (["xor-file", "{conv_scale0.json}"], 2, "loss_scale"),
    (["xor-file", "{loss_null.json}", "--json", OUT], 2, "loss"),
    (["xor-file", "{loss_nan.json}"], 2, "loss"),
    (["xor-file", "{loss_bool.json}"], 2, "loss"),
    (["xor-file", "{loss_list.json}"], 2, "loss"),
    (["xor-file", "{grad_short.json}"], 2, "grad_theta"),
    (["xor-file", "{support_far.json}"], 2, "support"),
    (["xor-file", "{unknown_field.json}"], 2, "grad_thetaa"),
    (["xor-file", "{instances_3.json}"], 2, "instances"),
    (["xor-file", "{no_instances.json}"], 2, "no instances"),
    (["xor-file", "{deep.json}", "--json", OUT], 2, "nested too deeply"),
    (["xor-file", "{invalid.json}"], 2, "not valid JSON"),
    (["xor-file", "{latin1.json}"], 2, "not valid JSON"),
    (["xor-file", "{short.npz}", "--json", OUT], 2, "theta"),
    (["xor-file", "{index_base_array.npz}"], 2, "index_base"),
    (["xor-file", "{object.npz}"], 2, "cannot be read"),
    (["xor-file", "{crc.npz}", "--json", OUT], 2, "CRC"),
    (["xor-file", "{no_V.npz}"], 2, "missing array 'V'"),
    (["xor-file", "{unknown.npz}"], 2, "extra"),
    (["xor-file", "{single.npz}"], 2, "npz"),
    (["xor-file", "{float_support.npz}"], 2, "support"),
    (["xor-file", "{claims.csv}", "--json", "{tmp}"], 2, "--json"),
    # an output that cannot be written, found only at the end: a verdict, then exit 2
    (["xor-file", "{one_claim.json}", "--json", "/proc/crossval-verdict.json"], 2, "--json"),
    (["profile", "{maj.txt}", "--json", "/proc/crossval-verdict.json"], 2, "--json"),
    # an output naming an input: refused before the run, the input kept
    (["xor-file", "{one_claim.json}", "--json", "{one_claim.json}"], 2, "overwrite the input"),
    (["profile", "{maj.txt}", "--json", "{maj.txt}"], 2, "overwrite the input"),
    (["profile", "{targets.py}:profile", "--json", "{targets.py}"], 2, "overwrite the input"),
    (["xor-grad", f"{IMPL}:population_grad", "--json", str(IMPL)], 2, "overwrite the input"),
    (["xor-grad", "targets:profile", "--path", "{tmp}", "--json", "{targets.py}"], 2, "overwrite the input"),
    (["xor-file", "{one_claim.json}", "--json", "{tmp}/no/such/out.json"], 2, "--json"),
    # misspelt fields and tables of another shape
    (["xor-file", "{top_typo.json}"], 2, "convention"),
    (["profile", "{table_2d.npy}"], 2, "one dimension"),
    (["profile", "{table_2d.json}"], 2, "one dimension"),
    (["profile", "{table_typo.json}"], 2, "profil"),
    (["profile", "{table_scalar.json}"], 2, "one dimension"),
]


def _expand(argv, tmp_path):
    out = []
    for a in argv:
        for name, make in FILES.items():
            token = "{" + name + "}"
            if token in a:
                path = tmp_path / name
                if not path.exists():
                    make(path)
                a = a.replace(token, str(path))
        out.append(a.replace("{tmp}", str(tmp_path)))
    return out


def _check_streams(rc, expected_rc, err, fragment, tmp_path):
    assert rc == expected_rc, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2, err
    if expected_rc == 2 and fragment:
        assert fragment in err, err
    assert not (tmp_path / "out.json").exists()
    assert not list(tmp_path.glob(".out.json*"))  # no half-written temporary either


@pytest.mark.parametrize("argv, expected_rc, fragment", IN_PROCESS,
                         ids=[f"{i}-{' '.join(a[:1] + a[2:])[:40]}" for i, (a, _, _) in enumerate(IN_PROCESS)])
def test_bad_input_in_process(tmp_path, capsys, argv, expected_rc, fragment):
    rc = main(["crossval", *_expand(argv, tmp_path)])
    err = capsys.readouterr().err
    _check_streams(rc, expected_rc, err, fragment, tmp_path)


def _cli(argv, tmp_path, limit=60, env=None):
    start = time.monotonic()
    import os

    env = dict(os.environ, BOOLVERIFY_ROOT=str(ROOT), **(env or {}))
    r = run_cli_process("crossval", *_expand(argv, tmp_path), cwd=tmp_path, timeout=limit, env=env)
    return r, time.monotonic() - start


# Targets that run in a child process: (argv after "crossval", exit code, fragment)
IN_CHILD = [
    (["xor-grad", "no_such_module_xyz:f", "--json", OUT], 2, "cannot import module"),
    (["xor-grad", "{targets.py}:nope"], 2, "has no attribute 'nope'"),
    (["xor-grad", "{targets.py}:not_callable"], 2, "not callable"),
    (["xor-grad", "{targets.py}:exits", "--json", OUT], 2, "called sys.exit(0)"),
    (["xor-grad", "{targets.py}:exits_after_first"], 2, "called sys.exit(0)"),
    (["profile", "{targets.py}:exits_after_first", "--N", "3"], 2, "called sys.exit(0)"),
    (["xor-grad", "{targets.py}:dies", "--json", OUT], 2, "process ended with exit code 0"),
    (["xor-loss", "{targets.py}:returns_text"], 2, "not numbers"),
    (["xor-grad", f"{IMPL}:population_grad_raises", "--json", OUT], 2, "raised RuntimeError"),
    # results that are not finite real numbers are refused, never compared
    (["xor-grad", "{targets.py}:complex_grad", "--examples", "3", "--json", OUT], 2, "complex"),
    (["xor-grad", "{targets.py}:nan_grad", "--examples", "3"], 2, "NaN or inf"),
    (["xor-grad", "{targets.py}:text_grad", "--examples", "3"], 2, "real numbers"),
    (["profile", "{targets.py}:complex_profile", "--N", "3", "--examples", "3"], 2, "complex"),
    (["profile", "{targets.py}:text_profile", "--N", "3", "--examples", "3"], 2, "real numbers"),
    (["profile", "{targets.py}:inf_average", "--N", "3", "--returns", "average", "--examples", "3"], 2,
     "NaN or inf"),
]


@pytest.mark.parametrize("argv, expected_rc, fragment", IN_CHILD, ids=[a[1].split(":")[-1] for a, _, _ in IN_CHILD])
def test_bad_targets_in_subprocess(tmp_path, argv, expected_rc, fragment):
    r, _ = _cli(argv, tmp_path)
    _check_streams(r.returncode, expected_rc, r.stderr, fragment, tmp_path)


@pytest.mark.parametrize("argv", [["xor-grad"], ["profile", "{maj.txt}", "--claimed", "2,0,6"],
                                  ["xor-file", "{loss_null.json}"]])
def test_same_verdicts_through_the_real_command(tmp_path, argv):
    """A few in-process rows again through `python3 -m verify.cli`: one line, exit 2."""
    r, _ = _cli(argv, tmp_path)
    _check_streams(r.returncode, 2, r.stderr, "", tmp_path)


def test_exit_at_import_is_an_error_not_agreement(tmp_path):
    (tmp_path / "quits.py").write_text("import sys\nsys.exit(0)\ndef f(*a):\n    return 0.0\n")
    r, _ = _cli(["xor-loss", "quits.py:f"], tmp_path)  # a path relative to the working folder
    _check_streams(r.returncode, 2, r.stderr, "sys.exit(0) while its module was imported", tmp_path)
    assert "agrees" not in r.stdout


def test_a_target_that_never_returns_is_stopped(tmp_path):
    r, elapsed = _cli(["xor-grad", "{targets.py}:sleeps", "--timeout", "2", "--json", OUT], tmp_path)
    _check_streams(r.returncode, 2, r.stderr, "did not return within 2 s", tmp_path)
    assert elapsed < 30


def test_wrong_only_from_N_12_is_caught(tmp_path):
    r, _ = _cli(["profile", "{targets.py}:wrong_from_12", "--N", "12", "--examples", "20", "--json", "res.json"],
                tmp_path, limit=120)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "MISMATCH" in r.stdout and "N=12" in r.stdout and "seeded_table(12" in r.stdout
    record = json.loads((tmp_path / "res.json").read_text())
    assert record["ok"] is False and record["mismatch"]["inputs"]["N"] == 12


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_sigkill_of_crossval_leaves_no_process_of_its_target(tmp_path):
    import os
    import signal
    import subprocess

    (tmp_path / "targets.py").write_text(TARGETS)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "verify.cli", "crossval", "xor-grad",
                             f"{tmp_path / 'targets.py'}:sleeps", "--timeout", "600"],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        kids = []
        while time.monotonic() < deadline and not kids:
            # the target's process is up once it has imported targets.py (its cmdline is python's)
            kids = [k for k in children_of(proc.pid) if not process_gone(k)]
            time.sleep(0.2)
        assert kids, "the target's process did not start"
        time.sleep(3)                     # let it reach the call
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not all(process_gone(k) for k in kids):
            time.sleep(0.2)
        left = [k for k in kids if not process_gone(k)]
        for k in left:
            os.kill(k, signal.SIGKILL)
        assert not left, f"processes of the target outlived crossval: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()


# --------------------------------------------------------------------------- hostile targets and interpreters

def _pyenv(version, exe):
    import glob

    found = sorted(glob.glob(f"/root/.pyenv/versions/{version}*/bin/{exe}")) + sorted(
        glob.glob(f"{__import__('os').path.expanduser('~')}/.pyenv/versions/{version}*/bin/{exe}"))
    return found[0] if found else None


PY = sys.executable
PY2 = _pyenv("2.7", "python2.7")
PY_OLD = _pyenv("3.7", "python3.7")
P3 = ["profile", "{targets.py}:_FN_", "--N", "3", "--examples", "15"]


def _p3(fn, *more):
    return [a.replace("_FN_", fn) for a in P3] + list(more)


# (argv after "crossval", exit code, fragment of stderr (2, 130) or stdout (0, 1)); every row is one
# line at most on stderr, no traceback, no process of the target left behind
HOSTILE = [
    # --python: interpreters that cannot run the target
    (_p3("profile", "--python", "{tmp}/no/such/python"), 2, "--python"),
    (_p3("profile", "--python", "{tmp}"), 2, "--python"),
    (_p3("profile", "--python", "{afile}"), 2, "--python"),
    (_p3("profile", "--python", "/bin/false"), 2, "not a Python interpreter"),
    (_p3("profile", "--python", "/bin/echo"), 2, "not a Python interpreter"),
    (_p3("profile", "--python", "no-such-python-xyz"), 2, "--python"),
    (_p3("profile", "--python", ""), 2, "--python"),
    (_p3("profile", "--python", PY2 or "<python2.7>"), 2, "too old"),
    (_p3("profile", "--python", PY_OLD or "<python3.7>"), 2, "too old"),
    (["xor-grad", "no_such_module_xyz:f", "--python", PY], 2, "no_such_module_xyz"),
    (["profile", "{maj.txt}", "--python", PY], 2, "--python"),
    (["xor-file", "{one_claim.json}", "--python", PY], 2, "unrecognized"),
    # --python: targets that misbehave in the other interpreter
    (_p3("profile", "--python", PY), 0, "agrees"),
    (_p3("noisy", "--python", PY), 0, "agrees"),
    (_p3("reads_stdin", "--python", PY), 0, "agrees"),
    (_p3("forks", "--python", PY), 0, "agrees"),
    (_p3("leaves_sleeper", "--python", PY), 0, "agrees"),
    (_p3("sleeps", "--python", PY, "--timeout", "2"), 2, "did not return within 2 s"),
    (_p3("dies", "--python", PY), 2, "process ended with exit code 0"),
    (_p3("exits_3", "--python", PY), 2, "sys.exit(3)"),
    (_p3("raises", "--python", PY), 2, "ValueError: bad value"),
    (_p3("interrupts", "--python", PY), 130, "KeyboardInterrupt"),
    (_p3("random_profile", "--python", PY), 1, "the target is random"),
    (_p3("nan_profile", "--python", PY), 2, "NaN or inf"),
    (_p3("complex_profile", "--python", PY), 2, "complex"),
    (_p3("returns_dict", "--python", PY), 2, "not numbers"),
    (["influences", "{targets.py}:influences_list", "--N", "3", "--examples", "15", "--python", PY, "--array",
      "list"], 0, "agrees"),
    # the same misbehaviour in boolverify's own interpreter
    (_p3("noisy"), 0, "agrees"),
    (_p3("forks"), 0, "agrees"),
    (_p3("pool"), 0, "agrees"),
    (_p3("leaves_sleeper"), 0, "agrees"),
    (_p3("interrupts"), 130, "KeyboardInterrupt"),
    (_p3("random_profile"), 1, "the target is random"),
    (_p3("random_from_3"), 1, "the target is random"),
    (_p3("returns_none"), 2, "real numbers"),
    (_p3("short_profile"), 1, "where K_0..K_N, N + 1 numbers, are expected"),
    (_p3("exits_3"), 2, "sys.exit(3)"),
    (_p3("wrong_on_probe_table"), 1, "MISMATCH"),
    (["xor-grad", "{targets.py}:wrong_on_probe", "--examples", "5"], 1, "MISMATCH"),
    # per-variable influences
    (["influences", "{targets.py}:influences", "--N", "4", "--examples", "20"], 0, "agrees"),
    (["influences", "{targets.py}:influences_msb", "--N", "4", "--examples", "20"], 1, "--order msb"),
    (["influences", "{targets.py}:influences_counts", "--N", "4", "--examples", "20"], 1, "2^N"),
    (["influences", "{targets.py}:profile", "--N", "4", "--examples", "20"], 1, "check it with 'crossval profile'"),
    (["influences", "{targets.py}:average", "--N", "4", "--examples", "20"], 1, "--returns average"),
    # seeds: integers in [0, 2^63 - 1], none aliased
    (_p3("profile", "--seed", "-1"), 2, "--seed"),
    (_p3("profile", "--seed", str(2**64)), 2, "--seed"),
    (_p3("profile", "--seed", str(2**63)), 2, "--seed"),
    (_p3("profile", "--seed", "1.5"), 2, "--seed"),
    (["influences", "{targets.py}:influences", "--seed", "-1"], 2, "--seed"),
    (["influences", "{targets.py}:influences", "--order", "middle"], 2, "--order"),
    (["influences", "{targets.py}:influences", "--N", "0"], 2, "--N"),
]


def _hostile_id(argv):
    target = next((a for a in argv if ":" in a), argv[1] if len(argv) > 1 else "")
    opts = [a for a in argv if a.startswith("--") and a not in ("--N", "--examples")]
    extra = []
    if "--python" in argv:
        py = argv[argv.index("--python") + 1]
        extra.append(Path(py).name if py else "empty")
    if "--seed" in argv:
        extra.append(argv[argv.index("--seed") + 1])
    return "-".join([argv[0], target.split(":")[-1] or target.split("/")[-1], *opts, *extra])[:70]


@pytest.mark.parametrize("argv, expected_rc, fragment", HOSTILE, ids=[_hostile_id(a) for a, _, _ in HOSTILE])
def test_hostile_targets_and_interpreters(tmp_path, argv, expected_rc, fragment):
    import os
    import signal

    if any(a.startswith("<python") for a in argv):
        pytest.skip("no such interpreter on this machine")
    pids = tmp_path / "sleepers.txt"
    before = set(children_of(os.getpid()))
    r, _ = _cli(argv, tmp_path, limit=120, env={"SLEEPER_PIDS": str(pids)})
    assert r.returncode == expected_rc, r.stdout + r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    assert len(r.stderr.strip().splitlines()) <= 1, r.stderr
    assert fragment in (r.stderr if expected_rc in (2, 130) else r.stdout), r.stdout + r.stderr
    left = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    time.sleep(0.2)
    alive = [p for p in left if not process_gone(p)]
    for p in alive:
        os.kill(p, signal.SIGKILL)
    assert not alive, f"processes the target started outlived crossval: {alive}"
    assert set(children_of(os.getpid())) <= before
