"""Targets run by another interpreter (``--python``, ``python=``): a virtual environment made by
the test, without boolverify or numpy, runs stdlib-only glue; its failures name the module and
the interpreter; the library's seeds and arguments; and BoolForge's activities and sensitivities
where some interpreter here has BoolForge installed (skipped otherwise)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from numeric.validation import InputError
from tests.helpers import PROJECT_ROOT, raises_input_error, run_cli_process
from verify.crossval import (
    InfluenceConventions, ProfileConventions, assert_influences_match, assert_population_grad_matches,
    assert_profile_matches, crossval_profile_function,
)

EXAMPLES = PROJECT_ROOT / "docs" / "examples"

#: stdlib-only glue: what a user's module in another environment looks like to boolverify
GLUE = '''
import sys

def _neighbours(t):
    N = len(t).bit_length() - 1
    return N, [[t[x] != t[x ^ (1 << n)] for n in range(N)] for x in range(len(t))]

def profile(table):
    assert isinstance(table, list), type(table)
    assert "verify" not in sys.modules and "numpy" not in sys.modules
    N, flips = _neighbours(table)
    K = [0] * (N + 1)
    for row in flips:
        K[sum(row)] += 1
    return K

def activities(table):
    N, flips = _neighbours(table)
    return [sum(row[n] for row in flips) / len(table) for n in range(N)][::-1]   # MSB first

def where(table):
    return [float(len(sys.prefix))]

def needs_boolforge(table):
    import boolforge
    return boolforge
'''


def _env_without_boolverify():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture(scope="session")
def bare_venv(tmp_path_factory):
    """A virtual environment without system site packages (so without boolverify and numpy),
    made once per test session."""
    folder = tmp_path_factory.mktemp("bare-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    probe = subprocess.run([str(python), "-c", "import verify"], capture_output=True, text=True,
                           env=_env_without_boolverify(), cwd=folder, timeout=60)
    assert probe.returncode != 0 and "No module named 'verify'" in probe.stderr
    return python


@pytest.fixture
def glue(tmp_path):
    path = tmp_path / "glue.py"
    path.write_text(GLUE)
    return path


def test_profile_checked_under_a_venv_without_boolverify(bare_venv, glue, tmp_path):
    r = run_cli_process("crossval", "profile", f"{glue}:profile", "--python", bare_venv, "--array", "list",
                        "--N", "6", "--examples", "20", "--json", tmp_path / "v.json", cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"run by {bare_venv}" in r.stdout and "0/1 tables as plain lists" in r.stdout
    record = json.loads((tmp_path / "v.json").read_text())
    assert record["ok"] and record["interpreter"].startswith(str(bare_venv))


def test_influences_under_a_venv_without_boolverify(bare_venv, glue):
    res = assert_influences_match(f"{glue}:activities", InfluenceConventions(order="msb", array="list"),
                                  max_N=5, max_examples=15, python=bare_venv)
    assert res.ok and sorted(res.sizes["N"]) == [1, 2, 3, 4, 5]
    with pytest.raises(AssertionError, match=r"InfluenceConventions\(order='msb', array='list'\)"):
        assert_influences_match(f"{glue}:activities", InfluenceConventions(array="list"), max_N=4,
                                max_examples=15, python=bare_venv)


def test_numpy_missing_there_is_named(bare_venv, glue, tmp_path):
    r = run_cli_process("crossval", "profile", f"{glue}:profile", "--python", bare_venv, "--N", "3",
                        cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "cannot import numpy" in r.stderr and str(bare_venv) in r.stderr and "--array list" in r.stderr


def test_a_module_missing_there_is_named_with_the_interpreter(bare_venv, glue, tmp_path):
    (tmp_path / "uses_boolforge.py").write_text("import boolforge\n\ndef f(table):\n    return [0]\n")
    for target in ("uses_boolforge.py:f", f"{glue}:needs_boolforge"):   # at import, and in a call
        r = run_cli_process("crossval", "profile", target, "--python", bare_venv, "--array", "list", "--N", "3",
                            cwd=tmp_path, timeout=120)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stdout + r.stderr
        assert "No module named 'boolforge'" in r.stderr and str(bare_venv) in r.stderr
    r = run_cli_process("crossval", "profile", "no_such_module_xyz:f", "--python", bare_venv, "--array", "list",
                        cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "cannot import module 'no_such_module_xyz' in " + str(bare_venv) in r.stderr


def test_the_other_interpreter_runs_the_target(bare_venv, glue):
    """The target's own ``sys.prefix`` is the venv's (its length is what ``where`` returns)."""
    from verify.crossval.remote import RemoteTarget

    with RemoteTarget(f"{glue}:where", python=bare_venv, array="list") as target:
        assert target.call(([0, 1],)) == [float(len(str(bare_venv.parent.parent)))]


def test_library_xor_gradient_under_another_interpreter():
    res = assert_population_grad_matches(f"{EXAMPLES / 'xor_impl.py'}:population_grad", max_examples=8,
                                         python=sys.executable)
    assert res.ok and res.interpreter.startswith(sys.executable)


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, 1.5, True, "1"])
def test_seeds_are_integers_in_range_none_aliased(seed):
    with raises_input_error("seed"):
        assert_profile_matches(lambda t: [0], seed=seed, max_N=1, max_examples=1)


def test_largest_seed_is_accepted():
    def profile(table):
        return [2, 0] if table[0] == table[1] else [0, 2]

    assert assert_profile_matches(profile, seed=2**63 - 1, max_N=1, max_examples=3).ok


def test_python_needs_the_string_form():
    with raises_input_error("python"):
        crossval_profile_function(lambda t: [0], max_N=1, python=sys.executable)
    with raises_input_error("python"):
        assert_profile_matches("m:f", python="/no/such/python")


def test_in_process_fork_does_not_run_the_callers_code_twice(tmp_path):
    """A forked copy that returns from the target ends at once; the run and its caller go on once."""
    marker = tmp_path / "after.txt"

    def forks(table):
        pid = os.fork()
        if pid:
            os.waitpid(pid, 0)
        K = [0] * (len(table).bit_length())
        for x in range(len(table)):
            K[sum(table[x] != table[x ^ (1 << n)] for n in range(len(K) - 1))] += 1
        return K

    assert assert_profile_matches(forks, max_N=3, max_examples=5).ok
    with open(marker, "a") as fh:
        fh.write(f"{os.getpid()}\n")
    assert marker.read_text().split() == [str(os.getpid())]


# --------------------------------------------------------------------------- BoolForge, where installed


def _boolforge_python():
    """An interpreter that can import BoolForge: $BOOLFORGE_PYTHON, this one, or python3 on PATH."""
    for cand in (os.environ.get("BOOLFORGE_PYTHON"), sys.executable, shutil.which("python3")):
        if cand and subprocess.run([cand, "-c", "import boolforge"], capture_output=True, timeout=60,
                                   env=_env_without_boolverify()).returncode == 0:
            return cand
    return None


@pytest.fixture(scope="session")
def boolforge_python():
    python = _boolforge_python()
    if python is None:
        pytest.skip("BoolForge is not installed in any interpreter found (set BOOLFORGE_PYTHON to one)")
    return python


def test_boolforge_activities_and_sensitivity(boolforge_python):
    glue = f"{EXAMPLES / 'boolforge_glue.py'}"
    assert assert_influences_match(f"{glue}:activities", InfluenceConventions(order="msb"), max_N=8,
                                   max_examples=30, python=boolforge_python).ok
    with pytest.raises(AssertionError, match=r"did you mean InfluenceConventions\(order='msb'\)"):
        assert_influences_match(f"{glue}:activities", max_N=6, max_examples=30, python=boolforge_python)
    assert assert_profile_matches(f"{glue}:average_sensitivity", ProfileConventions(returns="average"), max_N=8,
                                  max_examples=30, python=boolforge_python).ok
    assert assert_profile_matches(f"{glue}:normalised_sensitivity", ProfileConventions(returns="normalised"),
                                  max_N=8, max_examples=30, python=boolforge_python).ok


def test_boolforge_sampling_is_reported_as_random(boolforge_python):
    with pytest.raises(AssertionError, match="the target is random: two calls on the same input"):
        assert_influences_match(f"{EXAMPLES / 'boolforge_glue.py'}:activities_default",
                                InfluenceConventions(order="msb"), max_N=16, max_examples=30,
                                python=boolforge_python)


def test_input_error_is_the_one_exception():
    assert issubclass(InputError, Exception)


def test_a_non_finite_reference_is_bad_input_not_a_verdict():
    from verify.crossval.property_runs import values_agree

    with raises_input_error("reference"):
        values_agree([float("inf")], [float("inf")], [float("inf")])
    with raises_input_error("reference"):
        values_agree([float("nan")], [1.0], [1.0])


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_ctrl_c_during_a_run_under_another_interpreter_leaves_no_process(tmp_path):
    import signal
    import time

    from tests.helpers import children_of, process_gone

    (tmp_path / "slow.py").write_text("import time\n\ndef f(table):\n    time.sleep(600)\n")
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "verify.cli", "crossval", "profile", "slow.py:f", "--python",
                             sys.executable, "--array", "list"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        kids = []
        while time.monotonic() < deadline and not kids:
            kids = [k for k in children_of(proc.pid) if not process_gone(k)]
            time.sleep(0.2)
        assert kids, "the interpreter running the target did not start"
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1, err
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(process_gone(k) for k in kids):
            time.sleep(0.1)
        assert all(process_gone(k) for k in kids)
    finally:
        if proc.poll() is None:
            proc.kill()
