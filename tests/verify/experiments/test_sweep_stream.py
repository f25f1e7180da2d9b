"""Streamed sweep cells (``run_sweep(stream=True)``): each seed's outcome, recomputed on the
materialised streamed ``V`` with the materialised engine (one step, metrics, the eta -> infinity
limit, the predicted assignment), and the limit attention of the streamed metrics pass against
:func:`numeric.xor._metrics.limit_step_attention`."""

from __future__ import annotations

import pytest
import torch

from numeric import xor
from numeric.xor._metrics import limit_step_attention, predicted_assignment, step_metrics
from numeric.xor._stream import stream_grad, stream_step_metrics, streamed_instance
from verify.experiments.xor_sweeps import limit_success, run_sweep
from verify.common.tolerances import tolerance
from tests.helpers import raises_input_error


def _materialised_seed(d, m, seed, c, eps):
    E, sup, th0, tt0 = streamed_instance(d, m, seed, tag=1)
    V = E.materialize()
    lr = xor.default_lr(d, m, c)
    th1, tt1 = xor.one_step(V, th0, tt0, sup, lr)
    met = step_metrics(V, th1, tt1, sup, eps=eps, exact_sup=False)
    g1, gt1 = limit_step_attention(V, th0, tt0, sup)
    ok = bool(met["success"])
    a, b = sup
    return (ok, bool(limit_success(g1[a], g1[b], gt1[a], gt1[b], eps)),
            ok and int(met["assignment"]) == int(predicted_assignment(V, th0, sup)),
            float(met["loss"]), sup)


@pytest.mark.parametrize("d,m", [(3000, 8), (20_000, 16)])
def test_streamed_cell_equals_materialised_engine(d, m):
    seeds, c, eps = 8, 10.0, 0.01
    (cell,) = run_sweep([d], [m], seeds, c=c, eps=eps, stream=True)
    ref = [_materialised_seed(d, m, s, c, eps) for s in range(seeds)]
    assert cell.key["stream"] is True
    assert cell.success_bits == "".join("1" if r[0] else "0" for r in ref)
    assert cell.successes_limit == sum(r[1] for r in ref)
    assert cell.assignment_matches == sum(r[2] for r in ref)
    losses = sorted(r[3] for r in ref)
    assert cell.median_loss == pytest.approx(losses[len(losses) // 2], rel=tolerance().rtol, abs=0)
    assert tuple(cell.support) == ref[0][4]
    # both outcomes occur, so a cell that ignored the data could not match
    assert 0 < cell.successes < seeds and 0 < cell.successes_limit < seeds


def test_streamed_and_materialised_cells_are_other_cells(tmp_path):
    out = tmp_path / "sweep.json"
    a = run_sweep([500], [4], 3, out=out)
    b = run_sweep([500], [4], 3, out=out, stream=True)
    assert "stream" not in a[0].key and b[0].key["stream"] is True
    import json
    assert len(json.loads(out.read_text())["cells"]) == 2


@pytest.mark.parametrize("attention", ["softmax", "erf"])
@pytest.mark.parametrize("block", [64, 5000])
def test_limit_attention_of_the_metrics_pass(attention, block):
    d, m = 5000, 6
    E, sup, th, tt = streamed_instance(d, m, 11, block=block)
    th, tt = 3 * th, -2 * tt
    g, gt = stream_grad(E, th, tt, sup, attention)
    met = stream_step_metrics(E, th, tt, sup, attention=attention, limit_from=(g, gt))
    g1, gt1 = limit_step_attention(E.materialize(), th, tt, sup, attention)
    a, b = sup
    for h, ref in ((1, g1), (2, gt1)):
        # the limit weights are discrete (1/#argmax or sign/d): equal exactly
        assert float(met[f"limit_attn_a_head{h}"]) == float(ref[a])
        assert float(met[f"limit_attn_b_head{h}"]) == float(ref[b])


def test_limit_attention_splits_exact_ties():
    # theta = 0 and a gradient direction of zeros: every row ties, weight 1/d each
    E, sup, th, tt = streamed_instance(1000, 3, 0, block=128)
    z = torch.zeros(3, dtype=torch.float64)
    met = stream_step_metrics(E, th, tt, sup, limit_from=(z, z))
    assert float(met["limit_attn_a_head1"]) == pytest.approx(1 / 1000)


@pytest.mark.parametrize("kw,name", [
    (dict(attention="linear"), "attention"),
    (dict(limit_from=torch.zeros(3, dtype=torch.float64)), "limit_from"),
    (dict(limit_from=(torch.zeros(4, dtype=torch.float64),) * 2), "theta"),
])
def test_limit_from_bad_input(kw, name):
    E, sup, th, tt = streamed_instance(100, 3, 0)
    kw.setdefault("limit_from", (th, tt))
    with raises_input_error(name):
        stream_step_metrics(E, th, tt, sup, **kw)


def test_run_sweep_stream_must_be_bool():
    with raises_input_error("stream"):
        run_sweep([100], [4], 2, stream="yes")
