"""End-to-end cross-validation: a correct implementation agrees, a wrong one is caught and shrunk."""

import json
import re

import numpy as np
import pytest

from verify.crossval.claim_files import crossval_file
from verify.crossval.profile_functions import ProfileConventions, crossval_profile_function
from verify.crossval.table_files import read_table
from verify.crossval.target import load_callable
from verify.crossval.xor_functions import XorConventions, crossval_xor
from numeric.validation import InputError
from tests.helpers import PROJECT_ROOT, raises_input_error, run_cli_process

IMPL = PROJECT_ROOT / "docs" / "examples" / "xor_impl.py"


def test_correct_gradient_agrees():
    res = crossval_xor(load_callable(f"{IMPL}:population_grad"), kind="grad", max_examples=40)
    assert res.ok and res.examples == 40 + 1  # the probe instance is compared too


def test_correct_loss_agrees():
    res = crossval_xor(load_callable(f"{IMPL}:population_loss"), kind="loss", max_examples=40)
    assert res.ok


def test_dropped_term_is_caught_and_shrunk():
    res = crossval_xor(load_callable(f"{IMPL}:population_grad_dropped_term"), kind="grad", max_examples=100)
    assert not res.ok
    mm = res.mismatch
    # shrinking reaches the smallest number of positions and a tiny embedding
    assert mm.inputs["d"] == 2 and mm.inputs["m"] <= 2
    assert len(mm.expected) == len(mm.received) == 2 * mm.inputs["m"]
    assert mm.expected != mm.received


def test_half_mse_convention_is_adapted():
    half = lambda *a: tuple(0.5 * np.asarray(g) for g in load_callable(f"{IMPL}:population_grad")(*a))  # noqa: E731
    assert not crossval_xor(half, kind="grad", max_examples=30).ok
    assert crossval_xor(half, kind="grad", conventions=XorConventions(loss_scale=0.5), max_examples=30).ok


def test_cli_wrong_implementation_exit_1_with_counterexample():
    r = run_cli_process("crossval", "xor-grad", f"{IMPL}:population_grad_dropped_term", "--examples", "50")
    assert r.returncode == 1, r.stderr
    assert "MISMATCH" in r.stdout and "smallest counterexample found: d=2," in r.stdout
    assert "expected =" in r.stdout and "received =" in r.stdout


def test_cli_correct_implementation_exit_0():
    r = run_cli_process("crossval", "xor-grad", f"{IMPL}:population_grad", "--examples", "30")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "agrees" in r.stdout


@pytest.mark.parametrize(
    "target, message",
    [
        ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
        (f"{IMPL}:nope", "has no attribute 'nope'"),
        (f"{IMPL}:population_grad_raises", "raised RuntimeError: not implemented"),
        ("missing.py:f", "module file 'missing.py' does not exist"),
        ("justtext", "expected MODULE:FUNCTION"),
    ],
)
def test_cli_bad_targets_one_line_exit_2(target, message):
    r = run_cli_process("crossval", "xor-grad", target, "--examples", "5")
    assert r.returncode == 2
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def _instances(tmp_path, wrong=False):
    from verify import reference

    rng = np.random.default_rng(0)
    inst = []
    for d, m in [(3, 2), (5, 3)]:
        V = rng.normal(size=(d, m))
        V /= np.linalg.norm(V, axis=1, keepdims=True)
        th = rng.normal(size=m)
        g, gt = reference.population_grad(V.tolist(), th.tolist(), (-th).tolist(), (0, 2))
        loss = float(reference.population_loss(V.tolist(), th.tolist(), (-th).tolist(), (0, 2)))
        inst.append({"V": V.tolist(), "theta": th.tolist(), "theta_tilde": (-th).tolist(), "support": [0, 2],
                     "loss": loss + (1e-3 if wrong else 0.0), "grad_theta": [float(x) for x in g],
                     "grad_theta_tilde": [float(x) for x in gt]})
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"instances": inst}))
    return path


def test_file_of_claims(tmp_path):
    assert crossval_file(_instances(tmp_path)).ok
    res = crossval_file(_instances(tmp_path, wrong=True))
    assert not res.ok
    assert [r["ok"] for r in res.rows if r["quantity"] == "loss"] == [False, False]


def test_file_npz_roundtrip(tmp_path):
    data = json.loads(_instances(tmp_path).read_text())["instances"][:1]
    npz = tmp_path / "c.npz"
    np.savez(npz, V=np.array([data[0]["V"]]), theta=np.array([data[0]["theta"]]),
             theta_tilde=np.array([data[0]["theta_tilde"]]), support=np.array([[1, 3]]), index_base=1,
             loss=np.array([data[0]["loss"]]))
    assert crossval_file(npz).ok


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "not valid JSON"),
        ('{"instances": 3}', "expected an object with a list 'instances'"),
        ('{"instances": [{"V": [[1.0]], "theta": [1.0], "theta_tilde": [1.0], "support": [0, 1]}]}', "nothing claimed"),
        ('{"instances": [{"theta": [1.0]}]}', "missing field 'V'"),
    ],
)
def test_malformed_files(tmp_path, content, message):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(InputError, match=message):
        crossval_file(p)
    r = run_cli_process("crossval", "xor-file", str(p))
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def _file(tmp_path, **over):
    """A claims file of one instance (d = 3), with fields of the instance overridden."""
    inst = {"V": [[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], "theta": [1.0, 2.0], "theta_tilde": [-1.0, 0.5],
            "support": [0, 2], "loss": 0.5}
    inst.update(over)
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"instances": [inst]}))
    return path


def _bad_file(**over):
    return lambda tmp_path: crossval_file(_file(tmp_path, **over))


def _one_based(tmp_path, support):
    path = _file(tmp_path, support=support)
    data = json.loads(path.read_text())
    path.write_text(json.dumps(dict(data, conventions={"index_base": 1})))
    return crossval_file(path)


def _never_called(*args):
    raise AssertionError("the arguments are checked before the function is called")


# (call on a temporary folder, the bad argument's name)
BAD = [
    (lambda _: XorConventions(array="jax"), "array"),
    (lambda _: XorConventions(index_base=2), "index_base"),
    (lambda _: XorConventions(index_base=1.0), "index_base"),
    (lambda _: XorConventions(loss_scale=0.0), "loss_scale"),
    (lambda _: XorConventions(loss_scale=float("inf")), "loss_scale"),
    (lambda _: XorConventions(attention="relu"), "attention"),
    (lambda _: ProfileConventions(values="+-"), "values"),
    (lambda _: ProfileConventions(returns="sum"), "returns"),
    (lambda _: crossval_xor(_never_called, kind="hessian"), "kind"),
    (lambda _: crossval_xor(_never_called, max_examples=0), "max_examples"),
    (lambda _: crossval_xor(_never_called, seed=1.5), "seed"),
    (lambda _: crossval_profile_function(_never_called, max_N=21), "max_N"),
    (lambda _: crossval_profile_function(_never_called, max_N=0), "max_N"),
    (lambda _: crossval_profile_function(_never_called, max_examples=0), "max_examples"),
    (lambda _: load_callable("justtext"), "target"),
    (lambda _: load_callable(3), "target"),
    (_bad_file(support=[0, 0]), "support"),
    (_bad_file(support=[0, 3]), "support"),
    (_bad_file(support=[0, 1, 2]), "support"),
    (_bad_file(support=[0.0, 1]), "support[0]"),
    (_bad_file(support=[0, True]), "support[1]"),
    (_bad_file(support=5), "support"),
    (lambda tmp_path: _one_based(tmp_path, [0, 2]), "support - 1"),
    (_bad_file(attention="relu"), "attention"),
    (_bad_file(theta=[1.0]), "theta"),
]


@pytest.mark.parametrize("call, name", BAD, ids=[f"{n}-{i}" for i, (_, n) in enumerate(BAD)])
def test_bad_arguments_raise_input_error(tmp_path, call, name):
    with raises_input_error(name):
        call(tmp_path)


def test_one_based_file_support(tmp_path):
    assert _one_based(tmp_path, [1, 3]).examples == 1


def test_profile_implementations():
    norm = load_callable(f"{IMPL}:profile_as_normalised")
    assert crossval_profile_function(norm, ProfileConventions(returns="normalised"), max_N=6, max_examples=40).ok
    # the same function read with the wrong convention (as(f), not as(f)/N) is caught
    assert not crossval_profile_function(norm, ProfileConventions(returns="average"), max_N=6, max_examples=40).ok
    bad = crossval_profile_function(load_callable(f"{IMPL}:profile_off_by_one"), max_N=6, max_examples=60)
    assert not bad.ok and len(bad.mismatch.inputs["table"]) == 2  # shrunk to N = 1


def test_profile_table_file(tmp_path):
    p = tmp_path / "maj3.txt"
    p.write_text("0 0 0 1 0 1 1 1")  # strict MAJORITY, N = 3
    table, claimed = read_table(p)
    assert table.tolist() == [0, 0, 0, 1, 0, 1, 1, 1] and claimed is None
    r = run_cli_process("crossval", "profile", str(p), "--claimed", "2,0,6,0")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_cli_process("crossval", "profile", str(p), "--claimed", "2,6,0,0")
    assert r.returncode == 1 and "MISMATCH" in r.stdout
    p.write_text("0 1 1")
    r = run_cli_process("crossval", "profile", str(p))
    assert r.returncode == 2 and "not a power of two" in r.stderr


# --------------------------------------------------------------------------- large N, hints, the child process

PROFILE_SRC = '''
import numpy as np

def profile(table):
    t = np.asarray(table)
    N = len(t).bit_length() - 1
    x = np.arange(len(t))
    s = sum((t != t[x ^ (1 << n)]).astype(int) for n in range(N))
    return np.bincount(np.atleast_1d(s), minlength=N + 1)

def average(table):
    K = profile(table)
    return float(np.dot(np.arange(len(K)), K)) / len(table)
'''


def test_every_N_up_to_the_limit_is_tested():
    prof = load_callable(f"{IMPL}:profile_as_normalised")
    res = crossval_profile_function(prof, ProfileConventions(returns="normalised"), max_N=14, max_examples=10)
    assert res.ok and sorted(res.sizes["N"]) == list(range(1, 15))
    assert res.examples == sum(res.sizes["N"].values()) >= 14
    assert "N = 1..14" in res.sizes_text()


def test_a_profile_wrong_only_for_large_N_is_caught_and_reproducible():
    def wrong_from_12(table):
        t = np.asarray(table)
        N = len(t).bit_length() - 1
        x = np.arange(len(t))
        s = sum((t != t[x ^ (1 << n)]).astype(int) for n in range(N))
        K = np.bincount(np.atleast_1d(s), minlength=N + 1)
        return K + (N >= 12)

    res = crossval_profile_function(wrong_from_12, max_N=12, max_examples=20)
    assert not res.ok
    inputs = res.mismatch.inputs
    assert inputs["N"] == 12 and inputs["recipe"] is not None
    from verify.crossval import seeded_table

    assert seeded_table(12, **inputs["recipe"]).tolist() == inputs["table"]


def test_seeded_tables_cover_low_and_high_sensitivity():
    from verify.crossval import seeded_table
    from verify.report.sensitivity_profiles import profile_counts

    assert seeded_table(10, seed=0, density=0).sum() == 0
    junta = profile_counts(seeded_table(12, seed=3, density=8, junta=2))
    assert sum(junta[3:]) == 0  # a function of two variables is at most 2-sensitive
    noisy = profile_counts(seeded_table(12, seed=3, density=8))
    assert max(k for k, c in enumerate(noisy) if c) > 6


def test_cli_success_line_says_what_and_which_sizes(tmp_path):
    (tmp_path / "impl.py").write_text(PROFILE_SRC)
    r = run_cli_process("crossval", "profile", "impl.py:average", "--returns", "average", "--N", "9", "--examples", "15",
            "--json", "v.json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "matches boolverify's average sensitivity as(f) on" in r.stdout and "N = 1..9" in r.stdout
    record = json.loads((tmp_path / "v.json").read_text())
    assert record["ok"] and record["compared"] == "average sensitivity as(f)"
    assert sorted(map(int, record["sizes"]["N"])) == list(range(1, 10))


def test_cli_hint_for_a_forgotten_option():
    half = f"{IMPL.parent / 'xor_impl.py'}:population_grad"
    r = run_cli_process("crossval", "xor-grad", half, "--half-mse", "--examples", "20")
    assert r.returncode == 1 and "did you mean no --half-mse?" in r.stdout, r.stdout + r.stderr


def test_cli_imports_from_the_working_folder_and_path(tmp_path):
    (tmp_path / "mymod.py").write_text(PROFILE_SRC)
    r = run_cli_process("crossval", "profile", "mymod:profile", "--N", "4", "--examples", "5", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helper.py").write_text(PROFILE_SRC)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "impl.py").write_text("from helper import profile\n")
    r = run_cli_process("crossval", "profile", str(tmp_path / "src" / "impl.py") + ":profile", "--N", "4", "--examples", "5")
    assert r.returncode == 2 and "No module named 'helper'" in r.stderr
    r = run_cli_process("crossval", "profile", str(tmp_path / "src" / "impl.py") + ":profile", "--N", "4", "--examples", "5",
            "--path", str(tmp_path / "lib"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_table_file_in_pm1_values(tmp_path):
    p = tmp_path / "maj.txt"
    p.write_text("1 1 1 -1 1 -1 -1 -1")
    table, _ = read_table(p, values="pm1")
    assert table.tolist() == [0, 0, 0, 1, 0, 1, 1, 1]
    r = run_cli_process("crossval", "profile", str(p), "--values", "pm1", "--claimed", "2,0,6,0")
    assert r.returncode == 0, r.stdout + r.stderr


def test_one_child_serves_many_calls_and_is_replaced_after_an_exit(tmp_path):
    from verify.crossval.target import ChildTarget, TargetExited

    (tmp_path / "t.py").write_text("import sys\ndef f(x):\n    if x == 'quit':\n        sys.exit(3)\n"
                                   "    return x * 2\n")
    with ChildTarget(f"{tmp_path / 't.py'}:f", timeout=20) as target:
        assert [target.call((k,)) for k in range(5)] == [0, 2, 4, 6, 8]
        assert target.starts == 1
        with pytest.raises(TargetExited, match=re.escape("sys.exit(3)")):
            target.call(("quit",))
        assert target.call((21,)) == 42 and target.starts == 2
