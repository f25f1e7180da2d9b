"""Streamed embeddings (numeric.xor._stream) and the one-pass gradient: streamed == materialised
V for loss, gradient, step and metrics; both == the 50-digit reference at small d (also near
a solution and where the one-pass moments cancel); reproducibility; bad input."""

import json

import mpmath
import pytest
import torch

from numeric import xor as nx
from numeric.xor._attention import ATTENTIONS
from numeric.xor._metrics import predicted_assignment, step_metrics
from numeric.xor._attention import ATTENTION_MAPS
from numeric.xor._forms import ClosedFormState
from numeric.xor._blocks import one_pass_grad, slices, sums_pass, weight_pullback
from numeric.xor._population import head_logits
from numeric.xor._stream import (StreamedEmbeddings, stream_grad, stream_loss,
                                stream_loss_and_grad, stream_one_step,
                                stream_predicted_assignment, stream_step_metrics,
                                streamed_instance)
from verify.common.tolerances import NAMED, assert_close, sum_tolerance, tolerance
from verify.reference.population import population_grad as ref_grad
from verify.reference.population import population_loss as ref_loss
from tests.helpers import raises_input_error

F64 = torch.float64


def _close_vec(x, y, what, dtype=F64, scale=None, tol=None):
    x, y = torch.as_tensor(x).flatten(), torch.as_tensor(y).flatten()
    s = float(y.abs().max()) if scale is None else scale
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        assert_close(a, b, dtype=dtype, scale=s, what=f"{what}[{i}]", tol=tol)


def _two_pass(V, th, tt, sup, att="softmax"):
    """The full-vector two-pass gradient (logits, then W V)."""
    Z = head_logits(V, th, tt, ())
    W = ClosedFormState(Z, *sup, ATTENTION_MAPS[att]).logit_cotangent(Z, att)
    g = weight_pullback(V, W)
    return g[0], g[1]


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_streamed_equals_materialised_at_1e5(attention):
    d, m = 10 ** 5, 8
    E = StreamedEmbeddings(d, m, 11, block=30011)          # blocks do not divide d
    V = E.materialize()
    assert V.shape == (d, m) and float((V.norm(dim=1) - 1).abs().max()) < NAMED["float64_few_roundings"].atol
    th, tt = nx.sample_init(m, generator=torch.Generator().manual_seed(2))
    th = th * 4
    sup = (17, d - 3)                                        # first and last generated block
    _close_vec(stream_loss(E, th, tt, sup, attention), nx.population_loss(V, th, tt, sup, attention),
               "loss")
    L, g, gt = stream_loss_and_grad(E, th, tt, sup, attention)
    _close_vec(L, nx.population_loss(V, th, tt, sup, attention), "loss (with grad)")
    for mine, ref in zip((g, gt), nx.population_grad(V, th, tt, sup, attention)):
        _close_vec(mine, ref, "grad")
    # numeric.xor dispatches a streamed V
    for mine, ref in zip(nx.population_grad(E, th, tt, sup, attention), (g, gt)):
        assert torch.equal(mine, ref)
    lr = nx.default_lr(d, m, 1e-3 if attention == "softmax" else 1e-9)
    s1 = stream_one_step(E, th, tt, sup, lr, attention)
    s0 = nx.one_step(V, th, tt, sup, lr, attention)
    for mine, ref in zip(s1, s0):
        _close_vec(mine, ref, "step")
    assert all(torch.equal(x, y) for x, y in zip(nx.one_step(E, th, tt, sup, lr, attention), s1))
    M1 = stream_step_metrics(E, *s1, sup, attention=attention)
    M0 = step_metrics(V, *s0, sup, attention=attention, exact_sup=False)
    assert set(M1) == set(M0)
    for k in M0:
        if k in ("success", "assignment"):
            assert torch.equal(M1[k], M0[k]), k
        else:
            _close_vec(M1[k], M0[k], k, scale=max(float(M0[k].abs()), 1e-300))
    assert torch.equal(stream_predicted_assignment(E, th, sup), predicted_assignment(V, th, sup))


def test_generation_is_reproducible_block_by_block():
    E1 = StreamedEmbeddings(5000, 6, 3, block=700, workers=1)
    E3 = StreamedEmbeddings(5000, 6, 3, block=700, workers=3)
    V = E1.materialize()
    assert torch.equal(V, E3.materialize())
    assert torch.equal(E3.block_at(4), V[2800:3500])             # any block, any order
    assert torch.equal(E1.rows([4999, 0, 2801]), V[[4999, 0, 2801]])
    assert not torch.equal(StreamedEmbeddings(5000, 6, 4, block=700).block_at(0), V[:700])
    E32 = StreamedEmbeddings(5000, 6, 3, block=700, dtype=torch.float32)
    assert torch.equal(E32.materialize(), V.float())             # same draws, cast
    starts = [s for s, _ in E1.blocks(rows=300)]
    assert starts[0] == 0 and starts[-1] < 5000 and sum(b.shape[0] for _, b in E1.blocks()) == 5000


def _ref_dps(V, th, tt):
    """50 digits plus what a saturated head needs (as the SX-2 theorem test)."""
    gaps = []
    for t in (th, tt):
        z = (V @ t).sort(descending=True).values
        gaps.append(float(z[0] - z[1]))
    return 50 + int(max(gaps) / 2.302585) + 1


def _against_reference(E, th, tt, sup, att):
    V = E.materialize()
    dps = _ref_dps(V, th, tt) if att == "softmax" else 50
    with mpmath.workdps(dps):
        refs = ref_grad(V, th, tt, sup, att, dps=dps)
        L = ref_loss(V, th, tt, sup, att, dps=dps)
        for head, (g, r) in enumerate(zip(stream_grad(E, th, tt, sup, att), refs)):
            big = max(abs(x) for x in r)
            for k in range(len(r)):
                assert_close(float(g[k]), float(r[k]), scale=float(big), what=f"{att} head {head}[{k}]")
        assert_close(float(stream_loss(E, th, tt, sup, att)), float(L), what=f"{att} loss")


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_small_d_against_the_50_digit_reference(attention):
    for k, (d, m) in enumerate(((2, 2), (5, 3), (12, 8))):
        E = StreamedEmbeddings(d, m, 40 + k, block=4)
        g = torch.Generator().manual_seed(k)
        th = torch.randn(m, generator=g, dtype=F64) * 2
        tt = torch.randn(m, generator=g, dtype=F64) * 2
        _against_reference(E, th, tt, (d - 1, 0), attention)


def test_near_a_solution_against_the_reference():
    """Post-step models (loss down to < 1e-20) and a head saturated on a position outside the
    support, where the moments cancel: the one pass hands over to the exact two passes."""
    smallest = []
    for seed in (0, 1, 4, 7):
        E = StreamedEmbeddings(12, 8, seed, block=5)
        V = E.materialize()
        th, tt = nx.sample_init(8, generator=torch.Generator().manual_seed(100 + seed))
        th, tt = nx.one_step(V, th, tt, (3, 9), nx.default_lr(12, 8))
        smallest.append(float(nx.population_loss(V, th, tt, (3, 9))))
        _against_reference(E, th, tt, (3, 9), "softmax")
    assert min(smallest) < 1e-20
    E = StreamedEmbeddings(12, 8, 5, block=5)
    V = E.materialize()
    th = V[6] * 40.0                              # head 1 on position 6, outside (3, 9)
    tt = -V[2] * 3.0
    acc = sums_pass(slices(V, 5), torch.stack((th, tt)), 12, 3, 9, ATTENTION_MAPS["softmax"], True)
    assert one_pass_grad(acc) is None            # cancellation detected
    _against_reference(E, th, tt, (3, 9), "softmax")
    for mine, ref in zip(nx.population_grad(V, th, tt, (3, 9), path="one-pass"), _two_pass(V, th, tt, (3, 9))):
        assert torch.equal(mine, ref)             # the materialised path falls back, too


def test_one_pass_equals_two_pass_on_random_models():
    g = torch.Generator().manual_seed(5)
    for d, m, scale in ((3, 2, 1.0), (50, 4, 3.0), (3000, 16, 1.0), (3000, 16, 8.0)):
        V = nx.sample_embeddings(d, m, generator=g)
        th, tt = nx.sample_init(m, generator=g)
        th, tt = th * scale, torch.randn(m, generator=g, dtype=F64) * scale
        for mine, ref in zip(nx.population_grad(V, th, tt, (1, d - 1), path="one-pass"), _two_pass(V, th, tt, (1, d - 1))):
            _close_vec(mine, ref, f"one pass d={d}")


def test_streamed_instance_conventions():
    E, sup, th, tt = streamed_instance(1000, 8, 3)
    E2, sup2, th2, _ = streamed_instance(1000, 8, 3)
    assert sup == sup2 and torch.equal(th, th2) and torch.equal(tt, -th)
    assert sup[0] != sup[1] and all(0 <= p < 1000 for p in sup)
    assert abs(float(th.norm()) - 1) < NAMED["float64_few_roundings"].atol and E.seed == E2.seed
    assert streamed_instance(1000, 8, 4)[0].seed != E.seed


def test_cli_step_stream(tmp_path, capsys):
    from verify.cli import main

    out = tmp_path / "s.json"
    assert main(["xor", "step", "--d", "5000", "--m", "8", "--seed", "2", "--stream",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "streamed" in text and "eps1" in text
    data = json.loads(out.read_text())
    assert data["d"] == 5000 and data["streamed"] is True and "success" in data
    E, sup, th, tt = streamed_instance(5000, 8, 2)
    assert data["support"] == f"({sup[0]}, {sup[1]})"
    assert data["loss before"] == pytest.approx(float(stream_loss(E, th, tt, sup)), rel=tolerance().rtol)


@pytest.mark.parametrize("argv, name", [
    (["--d", "1", "--m", "4"], "--d"),
    (["--d", "10", "--m", "0"], "--m"),
    (["--d", "10", "--m", "4", "--seed", "-1"], "--seed"),
    (["--d", "10", "--m", "4", "--support", "3,3"], "--support"),
    (["--d", "10", "--m", "4", "--eps", "0.7"], "--eps"),
    (["--d", "10", "--m", "4", "--figure", "x.png"], "--figure"),
    (["--d", "10", "--m", "3000000"], "--m"),
])
def test_cli_stream_bad_options(argv, name, capsys):
    from verify.cli import main

    assert main(["xor", "step", "--stream", *argv]) == 2
    err = capsys.readouterr().err
    assert name in err and "Traceback" not in err


def _model():
    E = StreamedEmbeddings(10, 3, 0)
    th = torch.ones(3, dtype=F64)
    return E, th, -th


@pytest.mark.parametrize("make, name", [
    (lambda: StreamedEmbeddings(1, 3, 0), "d"),
    (lambda: StreamedEmbeddings(10, 0, 0), "m"),
    (lambda: StreamedEmbeddings(10, 3, -1), "seed"),
    (lambda: StreamedEmbeddings(10, 3, 1.5), "seed"),
    (lambda: StreamedEmbeddings(10, 3, 0, block=0), "block"),
    (lambda: StreamedEmbeddings(10, 3, 0, dtype=torch.int64), "dtype"),
    (lambda: StreamedEmbeddings(10, 3, 0, device="tpu"), "device"),
    (lambda: StreamedEmbeddings(10, 3, 0, workers=0), "workers"),
    (lambda: StreamedEmbeddings(2 ** 20, 2 ** 8, 0).materialize(), "d * m"),
    (lambda: _model()[0].block_at(1), "k"),
    (lambda: _model()[0].rows([10]), "index[0]"),
    (lambda: stream_loss(torch.zeros(10, 3, dtype=F64), *_model()[1:], (0, 1)), "V"),
    (lambda: stream_loss(_model()[0], torch.ones(2, dtype=F64), _model()[2], (0, 1)), "theta"),
    (lambda: stream_loss(_model()[0], torch.ones(1, 3, dtype=F64), _model()[2], (0, 1)), "theta"),
    (lambda: stream_loss(_model()[0], torch.ones(3), _model()[2], (0, 1)), "theta"),
    (lambda: stream_loss(_model()[0], _model()[1], torch.full((3,), float("nan"), dtype=F64), (0, 1)),
     "theta_tilde"),
    (lambda: stream_loss(*_model(), (0, 10)), "support"),
    (lambda: stream_loss(*_model(), (4, 4)), "support"),
    (lambda: stream_loss(*_model(), (0, 1), "relu"), "attention"),
    (lambda: stream_one_step(*_model(), (0, 1), -1.0), "lr"),
    (lambda: stream_step_metrics(*_model(), (0, 1), eps=0.5), "eps"),
    (lambda: stream_step_metrics(*_model(), (0, 1), exact_sup=True), "exact_sup"),
    (lambda: streamed_instance(1, 3, 0), "d"),
])
def test_bad_input(make, name):
    with raises_input_error(name):
        make()


def test_device_code_path_and_float32_on_cpu(monkeypatch):
    """The branch-free running maximum (what a GPU runs) and float32 give the same results."""
    import numeric.xor._blocks as xb

    E = StreamedEmbeddings(20_000, 8, 6, block=3000)
    V = E.materialize()
    th, tt = nx.sample_init(8, generator=torch.Generator().manual_seed(9))
    th, tt = th * 5, tt * 2
    ref = stream_loss_and_grad(E, th, tt, (4, 19_000))
    monkeypatch.setattr(xb, "HOST_BRANCH", False)
    for x, y in zip(stream_loss_and_grad(E, th, tt, (4, 19_000)), ref):
        _close_vec(x, y, "branch-free")
    for x, y in zip(nx.population_grad(V, th, tt, (4, 19_000)), ref[1:]):
        _close_vec(x, y, "branch-free materialised")
    monkeypatch.setattr(xb, "HOST_BRANCH", True)
    E32 = StreamedEmbeddings(20_000, 8, 6, block=3000, dtype=torch.float32)
    got = stream_loss_and_grad(E32, th.float(), tt.float(), (4, 19_000))
    assert all(x.dtype == torch.float32 for x in got)
    # loss and gradient are means over the 20 000 embeddings, summed in float32
    f32 = sum_tolerance(torch.float32, 20_000)
    for x, y in zip(got, ref):
        _close_vec(x, y, "float32", dtype=torch.float32, tol=f32)
    for x, y in zip(nx.population_grad(V.float(), th.float(), tt.float(), (4, 19_000)), ref[1:]):
        _close_vec(x, y, "float32 materialised", dtype=torch.float32, tol=f32)
