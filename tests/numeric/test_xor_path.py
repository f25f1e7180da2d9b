"""The choice between the one-pass and the two-pass gradient (numeric.xor._path): a pure function
of the cache size or a measured ratio; forcing a path by argument or environment; both paths
give the same gradient within the tolerance table."""

import json

import pytest
import torch

from numeric import xor as nx
from numeric.xor._attention import ATTENTIONS
from bench.calibration import write_calibration
from numeric.machine import cache_sizes, cpu_model, machine_key
from numeric.xor._path import (CALIBRATION_VAR, ENV_VAR, MAX_BLOCK_BYTES, MIN_BLOCK_BYTES, choose_path,
                              forget_calibration, machine_choice, pullback_backend, read_calibration,
                              resolve_path)
from tests.helpers import raises_input_error
from verify.common.tolerances import assert_close

MiB = 1 << 20


@pytest.mark.parametrize("llc, path, block", [
    (480 * MiB, "one-pass", MAX_BLOCK_BYTES),     # a large shared L3: 16 MiB blocks
    (64 * MiB, "one-pass", MAX_BLOCK_BYTES),
    (32 * MiB, "one-pass", 8 * MiB),              # a quarter of the cache, a power of two
    (12 * MiB, "one-pass", 2 * MiB),
    (4 * MiB, "one-pass", MIN_BLOCK_BYTES),
    (3 * MiB, "two-pass", MIN_BLOCK_BYTES),       # a 1 MiB block would not stay in cache
    (None, "one-pass", MIN_BLOCK_BYTES),          # unknown: small blocks that fit any L2
])
def test_the_path_follows_the_cache_size(llc, path, block):
    choice = choose_path(llc)
    assert (choice.path, choice.block_bytes) == (path, block) and choice.reason


def test_a_measured_ratio_decides():
    assert choose_path(480 * MiB, measured_ratio=1.3).path == "two-pass"
    assert choose_path(480 * MiB, measured_ratio=0.5).path == "one-pass"
    assert choose_path(None, measured_ratio=0.5).block_bytes == MIN_BLOCK_BYTES
    assert "measured" in choose_path(2 * MiB, measured_ratio=0.9).reason


def test_cache_sizes_from_sysfs(tmp_path):
    for name, level, kind, size in (("index0", 1, "Data", "48K"), ("index1", 1, "Instruction", "64K"),
                                    ("index2", 2, "Unified", "2048K"), ("index3", 3, "Unified", "480M")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "level").write_text(f"{level}\n")
        (tmp_path / name / "type").write_text(f"{kind}\n")
        (tmp_path / name / "size").write_text(f"{size}\n")
    assert cache_sizes(tmp_path) == {1: 48 << 10, 2: 2 * MiB, 3: 480 * MiB}
    sizes = cache_sizes()                        # this machine: sysfs or sysconf, or nothing
    assert all(level >= 1 and size > 0 for level, size in sizes.items())
    assert machine_choice().path in ("one-pass", "two-pass")
    # the calibration's key names the CPU as the provenance of every written file does
    assert machine_key().startswith(cpu_model() or "unknown CPU")


def test_forcing_a_path(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "two-pass")
    assert resolve_path().path == "two-pass" and ENV_VAR in resolve_path().reason
    assert resolve_path("one-pass").path == "one-pass"          # the argument wins
    assert resolve_path("compiled").path == "compiled"
    monkeypatch.setenv(ENV_VAR, "compiled")
    assert resolve_path().path == "compiled"
    monkeypatch.setenv(ENV_VAR, "auto")
    assert resolve_path() == machine_choice()
    assert resolve_path(device_type="cuda").path == "one-pass"          # a GPU sizes its own blocks
    with raises_input_error("path"):
        resolve_path("three-pass")
    monkeypatch.setenv(ENV_VAR, "fast")
    with raises_input_error(ENV_VAR):
        resolve_path()
    V = nx.sample_embeddings(5, 2, generator=torch.Generator().manual_seed(0))
    with raises_input_error("path"):
        nx.population_grad(V, V[0], V[1], (0, 1), path="fast")


def test_auto_reads_a_V_within_one_block_twice(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    small = resolve_path(V_bytes=MIN_BLOCK_BYTES)
    assert small.path == "two-pass" and "within one" in small.reason
    assert resolve_path(V_bytes=MIN_BLOCK_BYTES + 1) == machine_choice()
    assert resolve_path("one-pass", V_bytes=8).path == "one-pass"      # a forced path wins
    assert resolve_path(device_type="cuda", V_bytes=8).path == "one-pass"


@pytest.mark.parametrize("blas", ["torch", "numpy"])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_both_paths_give_the_same_gradient(attention, blas, calibration):
    """On either BLAS for the products with V (the calibration's measured choice)."""
    write_calibration(1.2, pullback_numpy_over_torch=0.5 if blas == "numpy" else 2.0)
    assert pullback_backend() == blas
    g = torch.Generator().manual_seed(7)
    for d, m, scale in ((3, 2, 1.0), (200, 4, 3.0), (40000, 16, 1.0), (40000, 16, 6.0)):
        V = nx.sample_embeddings(d, m, generator=g)
        th, tt = nx.sample_init(m, generator=g)
        th, tt = th * scale, torch.randn(m, generator=g, dtype=torch.float64) * scale
        one = nx.population_grad(V, th, tt, (1, d - 1), attention, path="one-pass")
        two = nx.population_grad(V, th, tt, (1, d - 1), attention, path="two-pass")
        for head, (x, y) in enumerate(zip(one, two)):
            s = float(y.abs().max())
            for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
                assert_close(a, b, dtype="float64", scale=s, what=f"{attention} d={d} head {head}[{i}]")


def test_the_compiled_path_gives_the_two_pass_gradient():
    """The two-pass closed form through torch.compile (one support, so one compiled graph for the
    unbatched calls and one for the batched): the same gradient within the tolerance table, near a
    solution too, and the eager path's error for a NaN in V."""
    g = torch.Generator().manual_seed(11)
    support = (1, 2)
    cases = []
    for d, m, scale in ((50, 4, 1.0), (300, 8, 4.0), (5000, 8, 1.0)):
        V = nx.sample_embeddings(d, m, generator=g)
        th, tt = nx.sample_init(m, generator=g)
        cases.append((V, th * scale, torch.randn(m, generator=g, dtype=torch.float64) * scale))
    V, th, tt = cases[1]
    cases.append((V, *nx.one_step(V, th, tt, support, nx.default_lr(*V.shape))))   # near a solution
    Vb = nx.sample_embeddings(40, 4, batch_shape=(3,), generator=g)
    cases.append((Vb, *nx.sample_init(4, batch_shape=(3,), generator=g)))
    for k, (V, th, tt) in enumerate(cases):
        two = nx.population_grad(V, th, tt, support, path="two-pass")
        compiled = nx.population_grad(V, th, tt, support, path="compiled")
        for head, (x, y) in enumerate(zip(compiled, two)):
            assert x.shape == y.shape
            s = float(y.abs().max())
            for i, (a, b) in enumerate(zip(x.flatten().tolist(), y.flatten().tolist())):
                assert_close(a, b, dtype="float64", scale=s, what=f"case {k} head {head}[{i}]")
    V, th, tt = cases[0]
    V = V.clone()
    V[3, 1] = float("nan")
    with raises_input_error("V"):
        nx.population_grad(V, th, tt, support, path="compiled")


@pytest.fixture
def calibration(tmp_path, monkeypatch):
    """A calibration file of its own (the machine's choice read again around the test)."""
    path = tmp_path / "grad_path.json"
    monkeypatch.setenv(CALIBRATION_VAR, str(path))
    forget_calibration()
    yield path
    forget_calibration()


@pytest.mark.parametrize("ratio, path", [(1.33, "two-pass"), (0.7, "one-pass")])
def test_a_calibration_of_this_machine_decides(calibration, monkeypatch, ratio, path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert write_calibration(ratio, d=10**6) == calibration
    written = json.loads(calibration.read_text())
    assert written["machine"] == machine_key() and "provenance" in written
    assert read_calibration() == ratio
    choice = machine_choice()
    assert choice.path == path and "measured" in choice.reason
    assert resolve_path(V_bytes=1 << 30) == choice


def test_a_calibration_of_another_machine_or_unreadable_is_ignored(calibration):
    sizes = cache_sizes()
    assumed = choose_path(sizes[max(sizes)] if sizes else None)
    for text in ('{"machine": "another CPU", "one_over_two_pass": 5.0}', "not json", "[1, 2]",
                 json.dumps({"machine": machine_key(), "one_over_two_pass": -1}),
                 json.dumps({"machine": machine_key(), "one_over_two_pass": True})):
        calibration.write_text(text)
        forget_calibration()
        assert read_calibration() is None and machine_choice() == assumed, text
    for bad in (0.0, -1.0, float("nan"), float("inf"), True, "1.2"):
        with raises_input_error("one_over_two_pass"):
            write_calibration(bad)
        with raises_input_error("pullback_numpy_over_torch"):
            write_calibration(1.0, pullback_numpy_over_torch=bad)
    assert json.loads(calibration.read_text())["machine"] == machine_key()     # nothing written


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_the_pullback_backends_agree(calibration, dtype):
    """W V block by block on numpy's BLAS and on torch's: the same product within the tolerance
    table; the calibration's measured ratio picks the backend."""
    from numeric.xor._blocks import weight_pullback

    g = torch.Generator().manual_seed(5)
    V = torch.randn(70000, 4, generator=g, dtype=dtype)
    W = torch.randn(2, 70000, generator=g, dtype=dtype)
    a, b = weight_pullback(V, W, "torch"), weight_pullback(V, W, "numpy")
    assert a.shape == b.shape == (2, 4) and a.dtype == b.dtype == dtype
    name = "float64" if dtype == torch.float64 else "float32"
    s = float((W.abs() @ V.abs()).max())          # the scale of a sum's rounding: its terms' sizes
    for x, y in zip(b.flatten().tolist(), a.flatten().tolist()):
        assert_close(x, y, dtype=name, scale=s, what="pull-back")
    assert pullback_backend() == "torch"
    write_calibration(1.2, pullback_numpy_over_torch=0.5)
    assert pullback_backend() == "numpy"
    write_calibration(1.2, pullback_numpy_over_torch=1.5)
    assert pullback_backend() == "torch"


def _models(g, d, m, dtype):
    """A single model per regime: moderate logits, a head saturated off the support (its argmax in
    R, where the softmax cotangent takes the argmax form), and one step of the default size
    (both heads saturated on the support, L far below 1e-20 in float64)."""
    V = nx.sample_embeddings(d, m, generator=g, dtype=dtype)
    th, tt = nx.sample_init(m, generator=g, dtype=dtype)
    tt = torch.randn(m, generator=g, dtype=dtype)
    yield "moderate", V, th * 2, tt * 2
    yield "saturated off the support", V, V[d - 1] * 60, -V[d // 2] * 40
    th0, tt0 = nx.sample_init(m, generator=g, dtype=dtype)
    yield "one step", V, *nx.one_step(V, th0, tt0, (0, 1), nx.default_lr(d, m))


@pytest.mark.parametrize("blas", ["torch", "numpy"])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_a_single_model_gives_the_gradient_of_a_batch_of_one(attention, blas, calibration):
    """The numpy evaluator of a single CPU model against the tensor path (the same model as a batch
    of one), on either BLAS for the products with V, in every regime of the softmax cotangent; in
    float32 against the float64 gradient of the same inputs (the two float32 paths round
    differently: the single model's algebra between the sums runs in double)."""
    write_calibration(1.2, pullback_numpy_over_torch=0.5 if blas == "numpy" else 2.0)
    assert pullback_backend() == blas
    g = torch.Generator().manual_seed(23)
    for dtype in (torch.float64, torch.float32):
        name = "float64" if dtype == torch.float64 else "float32"
        for d, m in ((2, 3), (3, 2), (57, 5), (3000, 8)):
            for regime, V, th, tt in _models(g, d, m, dtype):
                single = nx.population_grad(V, th, tt, (0, 1), attention)
                if dtype == torch.float64:
                    expected = [y[0] for y in nx.population_grad(V[None], th[None], tt[None], (0, 1), attention)]
                elif regime == "one step":
                    continue              # float32 weights carry 1e-7: a solution's gradient has no digit left
                else:
                    expected = nx.population_grad(V.double(), th.double(), tt.double(), (0, 1), attention)
                for head, (x, y) in enumerate(zip(single, expected)):
                    assert x.shape == y.shape and x.dtype == dtype
                    s = float(y.abs().max())
                    tiny = torch.finfo(dtype).tiny
                    if s < tiny:                                  # below the dtype's normal range
                        assert float(x.abs().max()) < tiny
                        continue
                    for i, (u, v) in enumerate(zip(x.tolist(), y.tolist())):
                        assert_close(u, v, dtype=name, scale=s, what=f"{name}, {regime}, d={d}, head {head}[{i}]")


@pytest.mark.parametrize("blas", ["torch", "numpy"])
def test_a_single_model_with_non_finite_logits_names_the_cause(blas, calibration, recwarn):
    """A single model tests its logits instead of its queries: a NaN or inf in a query or in V, or
    logits that overflow, still get the error that names it, and numpy warns of nothing."""
    write_calibration(1.2, pullback_numpy_over_torch=0.5 if blas == "numpy" else 2.0)
    g = torch.Generator().manual_seed(3)
    V = nx.sample_embeddings(40, 4, generator=g)
    th, tt = nx.sample_init(4, generator=g)
    for attention in ATTENTIONS:
        for bad, name in ((float("nan"), "theta"), (float("inf"), "theta"), (-float("inf"), "theta")):
            q = th.clone()
            q[2] = bad
            with raises_input_error(name):
                nx.population_grad(V, q, tt, (0, 1), attention)
            with raises_input_error("theta_tilde"):
                nx.population_grad(V, th, q, (0, 1), attention)
        W = V.clone()
        W[5, 0] = -float("inf") if float(th[0]) > 0 else float("inf")   # logit -inf: weight 0, not NaN
        with raises_input_error("V"):
            nx.population_grad(W, th, tt, (0, 1), attention)
        huge = 1.7e308 * torch.sign(V[7])                              # finite, but v_7 . theta overflows
        assert torch.isinf(V @ huge).any()
        with raises_input_error("theta"):
            nx.population_grad(V, huge, tt, (0, 1), attention)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_a_single_model_under_no_grad_may_require_grad():
    """Under torch.no_grad() tensors that require grad are accepted, and give the same gradient."""
    g = torch.Generator().manual_seed(4)
    V = nx.sample_embeddings(30, 4, generator=g)
    th, tt = nx.sample_init(4, generator=g)
    plain = nx.population_grad(V, th, tt, (0, 1))
    with torch.no_grad():
        leaf = nx.population_grad(V.clone().requires_grad_(), th.clone().requires_grad_(), tt, (0, 1))
    for x, y in zip(leaf, plain):
        s = float(y.abs().max())
        for u, v in zip(x.tolist(), y.tolist()):
            assert_close(u, v, scale=s, what="no_grad")


def _variants():
    """Single models and near misses: (what, V, theta, theta_tilde)."""
    g = torch.Generator().manual_seed(5)
    V = nx.sample_embeddings(12, 3, generator=g)
    th, tt = nx.sample_init(3, generator=g)
    yield "plain", V, th, tt
    yield "float32", V.float(), th.float(), tt.float()
    yield "V a transposed view", V.T.contiguous().T, th, tt
    yield "theta float32", V, th.float(), tt
    yield "theta_tilde float32", V, th, tt.float()
    yield "float16", V.half(), th.half(), tt.half()
    yield "integer V", V.long(), th, tt
    yield "V batched", V[None], th, tt
    yield "theta batched", V, th[None], tt
    yield "theta_tilde batched", V, th, tt[None]
    yield "theta too long", V, torch.cat((th, th)), tt
    yield "theta_tilde too short", V, th, tt[:2]
    yield "one position", V[:1], th, tt
    yield "no embedding dimension", V[:, :0], th[:0], tt[:0]
    yield "theta requires grad", V, th.clone().requires_grad_(), tt
    yield "V requires grad", V.clone().requires_grad_(), th, tt
    yield "theta a Parameter", V, torch.nn.Parameter(th.clone()), tt
    yield "theta sparse", V, th.to_sparse(), tt
    yield "V sparse", V.to_sparse(), th, tt
    yield "V on meta", V.to("meta"), th, tt
    yield "theta a list", V, th.tolist(), tt
    yield "V a numpy array", V.numpy(), th, tt


def test_the_plain_single_model_test_accepts_only_what_the_checks_accept():
    """The few attribute reads that send a single CPU model to the numpy evaluator before the full
    checks: whatever they accept, check_model accepts as one model (no batch dimensions); the plain
    cases are accepted (else every gradient at small d pays for the full checks)."""
    from numeric.xor._population import check_model, plain_single_model

    accepted = set()
    for what, V, th, tt in _variants():
        if plain_single_model(V, th, tt):
            accepted.add(what)
            assert check_model(V, th, tt, (0, 1), finite=False, grad=False)[2] == (), what
    assert accepted == {"plain", "float32", "V a transposed view"}


def test_a_plain_single_model_takes_the_numpy_evaluator(monkeypatch):
    """The default path of one small model on the CPU is the numpy evaluator (a forced one-pass
    path is not)."""
    import numeric.xor._population as population

    calls = []
    real = population.single_model_grad
    monkeypatch.setattr(population, "single_model_grad", lambda *args: calls.append(1) or real(*args))
    monkeypatch.delenv(ENV_VAR, raising=False)
    g = torch.Generator().manual_seed(6)
    V = nx.sample_embeddings(30, 4, generator=g)
    th, tt = nx.sample_init(4, generator=g)
    nx.population_grad(V, th, tt, (0, 1))
    assert calls == [1]
    nx.population_grad(V, th, tt, (0, 1), path="one-pass")
    assert calls == [1]
