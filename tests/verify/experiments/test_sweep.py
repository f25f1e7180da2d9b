"""verify.experiments.xor_sweeps: determinism, batching independence, resumability, progress, bad input."""

import json

import pytest
import torch

from numeric import xor
from verify.experiments.attention_comparison import compare, train
from verify.experiments.records import AttentionComparison
from verify.experiments.xor_sweeps import instance_seed, load_results, make_instances, run_samples, run_sweep
from tests.helpers import raises_input_error


def test_instances_do_not_depend_on_batching():
    V, th, tt = make_instances(50, 4, [3, 4, 5])
    V1, th1, _ = make_instances(50, 4, [4])
    assert torch.equal(V[1], V1[0]) and torch.equal(th[1], th1[0])
    assert torch.equal(tt, -th)
    assert torch.allclose(V.norm(dim=-1), torch.ones(3, 50, dtype=torch.float64))
    assert instance_seed(1, 2, 3) != instance_seed(1, 3, 2)


def test_sweep_chunking_gives_same_cells():
    a = run_sweep([40, 80], [4, 16], 12)
    b = run_sweep([40, 80], [4, 16], 12, max_elems=40 * 16 * 5)  # forces several chunks
    for x, y in zip(a, b):
        assert x.success_bits == y.success_bits
        assert x.successes_limit == y.successes_limit


def test_sweep_is_resumable_and_reports_progress(tmp_path, monkeypatch):
    out = tmp_path / "sweep.json"
    calls = []
    cells = run_sweep([30], [4, 8], 5, out=out, progress=lambda d, t, s: calls.append((d, t)))
    assert calls[-1][0] == calls[-1][1] and len(calls) == 2
    saved = load_results(out)["cells"]
    assert [c["m"] for c in saved] == [4, 8]
    # A rerun must not recompute: make the engine explode if it is called.
    monkeypatch.setattr(xor, "one_step", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("recomputed")))
    again = run_sweep([30], [4, 8], 5, out=out)
    assert [c.success_bits for c in again] == [c.success_bits for c in cells]
    # A new cell is computed and appended; the old ones stay.
    monkeypatch.undo()
    run_sweep([30], [4, 8, 16], 5, out=out)
    assert [c["m"] for c in load_results(out)["cells"]] == [4, 8, 16]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left


def test_interrupted_sweep_keeps_completed_cells(tmp_path, monkeypatch):
    out = tmp_path / "s.json"
    real = xor.one_step
    count = {"n": 0}

    def flaky(*a, **k):
        count["n"] += 1
        if count["n"] == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(xor, "one_step", flaky)
    with pytest.raises(KeyboardInterrupt):
        run_sweep([30], [4, 8], 3, out=out)
    assert [c["m"] for c in json.loads(out.read_text())["cells"]] == [4]


def test_samples_cells():
    s = run_samples([20], {20: [10, 40]}, 8, 4)
    assert [c.n for c in s] == [10, 40] and all(0 <= c.rate <= 1 for c in s)
    assert all(c.both_successes <= min(c.successes, c.population_successes) for c in s)


def test_train_gd_decreases_loss_and_adam_runs():
    V, th, tt = make_instances(30, 8, [0, 1])
    r = train(V, th, tt, (0, 1), attention="softmax", optimizer="gd", steps=5, lr=1e3)
    assert r["loss"].shape == (6, 2)
    assert bool((r["loss"][-1] < r["loss"][0]).all())
    r = train(V, th, tt, (0, 1), attention="erf", optimizer="adam", steps=3, lr=0.1, record_every=2)
    assert r["steps"] == [0, 2, 3]
    r = train(V, th, tt, (0, 1), attention="linear", optimizer="gd", steps=3, lr=1e300)
    assert bool(torch.isinf(r["loss"][-1]).all())  # divergence is reported as inf, not NaN


def test_compare_shapes():
    res = compare(40, 4, 3, steps=4, gd_lrs=(10.0,), adam_lrs=(0.1,), record_every=2)
    for att in ("softmax", "linear", "erf"):
        assert set(res.results[att]) == {"one_step", "gd", "adam"}
        assert len(res.results[att]["gd"]["curve_median"]) == 3
    assert AttentionComparison.from_dict(res.as_dict()) == res


BAD_SWEEP_ARGS = [
    # (override, name of the argument the message must start with)
    (dict(ds=[1]), "ds"), (dict(ds=[10, 10]), "ds"), (dict(ms=[0]), "ms"),
    (dict(n_seeds=0), "n_seeds"), (dict(eps=1.5), "eps"), (dict(eps=0.5), "eps"),
    (dict(eps=0.7), "eps"), (dict(eps=True), "eps"), (dict(eps="0.1"), "eps"),
    (dict(c=-1.0), "c"), (dict(c=float("inf")), "c"), (dict(seeds_for_d={10: 0}), "seeds_for_d[10]"),
    (dict(device="tpu"), "device"),
]


@pytest.mark.parametrize("over,name", BAD_SWEEP_ARGS, ids=[f"{n}-{v!r}" for o, n in BAD_SWEEP_ARGS for v in o.values()])
def test_sweep_bad_input(over, name):
    args = {**dict(ds=[10], ms=[2], n_seeds=2), **over}
    with raises_input_error(name):
        run_sweep(args.pop("ds"), args.pop("ms"), args.pop("n_seeds"), **args)


def test_bad_results_file(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with raises_input_error("results file", "a readable JSON file"):
        run_sweep([10], [2], 2, out=p)
    p.write_text('{"schema": "other"}')
    with raises_input_error("results file", "sweep file"):
        load_results(p)
    with raises_input_error("results file", "an existing file"):
        load_results(tmp_path / "missing.json")


_V, _TH, _TT = make_instances(10, 2, [0])

# (call, name of the argument the message must start with); each call is wrong in one argument
BAD_COMPARISON_CALLS = [
    (lambda: train(_V, _TH, _TT, (0, 1), attention="relu"), "attention"),
    (lambda: train(_V, _TH, _TT, (0, 1), optimizer="sgd"), "optimizer"),
    (lambda: train(_V, _TH, _TT, (0, 1), steps=-1), "steps"),
    (lambda: train(_V, _TH, _TT, (0, 1), lr=0.0), "lr"),
    (lambda: train(_V, _TH, _TT, (0, 1), record_every=0), "record_every"),
    (lambda: compare(40, 4, 0), "n_seeds"),
    (lambda: compare(1, 4, 3), "d"),
    (lambda: compare(40, 0, 3), "m"),
    (lambda: compare(40, 4, 3, train_seeds=4), "train_seeds"),
]


@pytest.mark.parametrize("call,name", BAD_COMPARISON_CALLS,
                         ids=[f"{i}-{n}" for i, (_, n) in enumerate(BAD_COMPARISON_CALLS)])
def test_comparison_bad_input_names_the_argument(call, name):
    with raises_input_error(name):
        call()


def test_sample_blocks_average_to_the_full_gradient():
    # blocks of samples (max_elems small) must give the same cells as one block
    a = run_samples([12], {12: [3000]}, 8, 6)
    b = run_samples([12], {12: [3000]}, 8, 6, max_elems=12 * 700)
    assert a[0].successes >= 2  # not vacuous
    assert a[0].successes == b[0].successes and a[0].both_successes == b[0].both_successes


def test_sweep_device_argument_gives_the_same_cells_on_cpu():
    a = run_sweep([64], [8], 12)
    b = run_sweep([64], [8], 12, device="cpu")
    assert a[0].success_bits == b[0].success_bits and a[0].median_loss == b[0].median_loss


@pytest.mark.gpu
def test_sweep_and_samples_on_cuda_match_cpu():
    # instances are drawn on the CPU, so the same seeds give the same success pattern
    a, b = run_sweep([256], [16], 32), run_sweep([256], [16], 32, device="cuda")
    assert a[0].success_bits == b[0].success_bits
    c = run_samples([16], {16: [1024]}, 8, 8)
    d = run_samples([16], {16: [1024]}, 8, 8, device="cuda")
    assert c[0].successes == d[0].successes


def test_samples_rerun_adds_nothing_and_other_settings_are_refused(tmp_path):
    out = tmp_path / "n.json"
    run_samples([12], {12: [16, 32]}, 4, 3, out=out)
    before = out.read_text()
    run_samples([12], {12: [16, 32]}, 4, 3, out=out)  # everything saved: nothing added
    assert out.read_text() == before
    with raises_input_error("results file", "(d=12, kind=samples, m=4, n=16, n_seeds=3, seed_offset=0) has "
                                            "eps = 0.01 on file, 0.02 here"):
        run_samples([12], {12: [16]}, 4, 3, eps=0.02, out=out)
    # the same grid point with another seed block is another cell
    run_samples([12], {12: [16]}, 4, 3, seed_offset=3, out=out)
    assert len(load_results(out)["cells"]) == 3
