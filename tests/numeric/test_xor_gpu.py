"""CUDA against CPU for the two-head engine, the one-pass gradient and streamed embeddings
(marker ``gpu``: skipped without CUDA).

Tolerance: the table's ``cuda`` row (GPU reductions reorder sums), atol scaled by the largest
entry of the CPU result.
"""

import pytest
import torch

from numeric.xor._attention import ATTENTIONS
from numeric.xor import (default_lr, empirical_grad, empirical_loss, one_step, population_grad,
                         population_loss, sample_data, sample_embeddings, sample_init)
from numeric.xor._metrics import limit_step_attention, step_metrics
from verify.common.tolerances import assert_close

pytestmark = pytest.mark.gpu


def _same(cuda, cpu, what, dtype):
    cuda, cpu = cuda.detach().cpu().flatten(), cpu.flatten()
    s = float(cpu.abs().max())
    for i, (a, b) in enumerate(zip(cuda.tolist(), cpu.tolist())):
        assert_close(a, b, dtype=dtype, device="cuda", scale=s, what=f"{what}[{i}]")


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_population_loss_grad_step_cuda_equals_cpu(attention, dtype):
    g = torch.Generator().manual_seed(0)
    d, m, B = 300, 16, 8
    V = sample_embeddings(d, m, batch_shape=(B,), generator=g, dtype=dtype)
    th, tt = sample_init(m, batch_shape=(B,), generator=g, dtype=dtype)
    th = th * 3
    Vc, thc, ttc = V.cuda(), th.cuda(), tt.cuda()
    _same(population_loss(Vc, thc, ttc, (5, 77), attention),
          population_loss(V, th, tt, (5, 77), attention), "loss", dtype)
    for a, b in zip(population_grad(Vc, thc, ttc, (5, 77), attention),
                    population_grad(V, th, tt, (5, 77), attention)):
        _same(a, b, "grad", dtype)
    lr = default_lr(d, m, 1e-4)
    for a, b in zip(one_step(Vc, thc, ttc, (5, 77), lr, attention),
                    one_step(V, th, tt, (5, 77), lr, attention)):
        _same(a, b, "one step", dtype)


def test_metrics_limit_and_empirical_on_cuda():
    g = torch.Generator().manual_seed(1)
    d, m, B = 16, 8, 4
    V = sample_embeddings(d, m, batch_shape=(B,), generator=g)
    th, tt = sample_init(m, batch_shape=(B,), generator=g)
    Vc, thc, ttc = V.cuda(), th.cuda(), tt.cuda()
    t1, tt1 = one_step(V, th, tt, (2, 9), default_lr(d, m))
    Mc = step_metrics(Vc, t1.cuda(), tt1.cuda(), (2, 9))
    M = step_metrics(V, t1, tt1, (2, 9))
    for k in ("eps1", "eps2", "loss", "sup_bound", "sup_exact"):
        _same(Mc[k], M[k], k, torch.float64)
    assert torch.equal(Mc["success"].cpu(), M["success"])
    for a, b in zip(limit_step_attention(Vc, thc, ttc, (2, 9)), limit_step_attention(V, th, tt, (2, 9))):
        _same(a, b, "limit", torch.float64)
    X, y = sample_data(200, d, (2, 9), generator=g, batch_shape=(B,))
    _same(empirical_loss(Vc, thc, ttc, X.cuda(), y.cuda()), empirical_loss(V, th, tt, X, y),
          "empirical loss", torch.float64)
    for a, b in zip(empirical_grad(Vc, thc, ttc, X.cuda(), y.cuda()), empirical_grad(V, th, tt, X, y)):
        _same(a, b, "empirical grad", torch.float64)
    # sampling on the device with a CPU generator is reproducible
    V1 = sample_embeddings(5, 3, generator=torch.Generator().manual_seed(7), device="cuda")
    V2 = sample_embeddings(5, 3, generator=torch.Generator().manual_seed(7))
    assert V1.device.type == "cuda" and torch.equal(V1.cpu(), V2)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_one_pass_gradient_on_cuda_equals_cpu(dtype, monkeypatch):
    import numeric.xor._blocks as xb

    # small GPU blocks: several blocks, the running maximum rescaled on the device
    monkeypatch.setattr(xb, "GPU_BLOCK_BYTES", 1 << 16)
    g = torch.Generator().manual_seed(3)
    d, m = 50_000, 16
    V = sample_embeddings(d, m, generator=g, dtype=dtype)
    th, tt = sample_init(m, generator=g, dtype=dtype)
    for scale in (1.0, 6.0):
        a, b = th * scale, torch.randn(m, generator=g, dtype=dtype) * scale
        for x, y in zip(population_grad(V.cuda(), a.cuda(), b.cuda(), (7, d - 2)),
                        population_grad(V, a, b, (7, d - 2))):
            _same(x, y, "one-pass grad", dtype)
    # a head saturated off the support: the fallback runs on the device too
    a, b = V[100] * 60, -V[5] * 2
    for x, y in zip(population_grad(V.cuda(), a.cuda(), b.cuda(), (7, 9)),
                    population_grad(V, a, b, (7, 9))):
        _same(x, y, "fallback grad", dtype)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("attention", ATTENTIONS)
def test_streamed_embeddings_on_cuda_equal_cpu(attention, dtype):
    from numeric.xor._stream import (StreamedEmbeddings, stream_loss_and_grad, stream_one_step,
                                    stream_step_metrics)

    d, m = 40_000, 8
    Ec = StreamedEmbeddings(d, m, 9, block=7_000, dtype=dtype, device="cuda")
    E = StreamedEmbeddings(d, m, 9, block=7_000, dtype=dtype)
    assert torch.equal(Ec.block_at(2).cpu(), E.block_at(2))     # same V block by block
    th, tt = sample_init(m, generator=torch.Generator().manual_seed(4), dtype=dtype)
    th = th * 3
    sup = (11, d - 5)
    for x, y in zip(stream_loss_and_grad(Ec, th.cuda(), tt.cuda(), sup, attention),
                    stream_loss_and_grad(E, th, tt, sup, attention)):
        _same(x, y, "streamed loss/grad", dtype)
    lr = default_lr(d, m, 1e-3 if attention == "softmax" else 1e-9)
    s1c = stream_one_step(Ec, th.cuda(), tt.cuda(), sup, lr, attention)
    s1 = stream_one_step(E, th, tt, sup, lr, attention)
    for x, y in zip(s1c, s1):
        _same(x, y, "streamed step", dtype)
    Mc = stream_step_metrics(Ec, s1[0].cuda(), s1[1].cuda(), sup, attention=attention)
    M = stream_step_metrics(E, *s1, sup, attention=attention)
    for k in ("eps1", "eps2", "loss", "sup_bound"):
        _same(Mc[k].reshape(1), M[k].reshape(1), k, dtype)
