"""Unit tests of verify.experiments.training and the training targets of numeric.boolean._functions (the SG-8 training loop) and `boolverify sensitivity train`.

The loop is first checked with a tiny stand-in model (a linear threshold unit, which can
represent MAJORITY and FIRST exactly and PARITY not at all), so that these tests say
something about the loop independently of the transformer; then against the transformer.
"""

from __future__ import annotations

import json
import math

import pytest
import torch

from numeric.boolean._functions import (
    all_strings, baseline_accuracy, exact_mean_sensitivity, exact_profile_fraction, labels,
    truth_table,
)
from numeric.boolean._sensitivity import average_sensitivity, profile
from verify.cli import main
from verify.experiments.training import EXACT_LIMIT, TRAINING_THREADS, pinned_threads, train
from verify.stats.intervals import wilson_interval
from verify.common.tolerances import NAMED, decimal_places
from tests.helpers import raises_input_error


class _Linear(torch.nn.Module):
    """T(x) = w·x + b: a stand-in model for the loop (no transformer involved)."""

    def __init__(self, N, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.w = torch.nn.Parameter(torch.randn(N, generator=g, dtype=torch.float64) * 0.1)
        self.b = torch.nn.Parameter(torch.zeros((), dtype=torch.float64))

    def forward(self, x):
        return x.to(self.w.dtype) @ self.w + self.b


# ----------------------------------------------------------------------------- exact helpers


@pytest.mark.parametrize("target", ["majority", "first", "parity"])
@pytest.mark.parametrize("N", [1, 2, 5, 8, 11])
def test_labels_agree_with_truth_table(target, N):
    bits = all_strings(N).to(torch.int64)
    assert torch.equal(labels(target, bits), truth_table(target, N).to(torch.int64))


@pytest.mark.parametrize("target", ["majority", "first", "parity"])
@pytest.mark.parametrize("N", [1, 2, 3, 6, 9, 12])
def test_exact_target_statistics_agree_with_enumeration(target, N):
    tab = truth_table(target, N)
    K = profile(tab)
    assert exact_profile_fraction(target, N) == [int(k) / 2**N for k in K]
    short = NAMED["float64_short_sum"].rtol
    assert exact_mean_sensitivity(target, N) == pytest.approx(average_sensitivity(tab), rel=short)
    p = float(tab.double().mean())
    assert baseline_accuracy(target, N) == pytest.approx(max(p, 1 - p), rel=short)


def test_wilson_interval_known_value_and_shape():
    lo, hi = wilson_interval(5, 10, 0.95)
    # textbook value for 5/10 at 95%
    quoted = decimal_places(4).atol
    assert lo == pytest.approx(0.2366, abs=quoted) and hi == pytest.approx(0.7634, abs=quoted)
    lo0, hi0 = wilson_interval(0, 100)
    assert lo0 == 0.0 and 0 < hi0 < 0.05
    lo9, hi9 = wilson_interval(990, 1000, 0.99)
    assert lo9 < 0.99 < hi9 <= 1.0
    assert wilson_interval(5000, 10000)[1] - wilson_interval(5000, 10000)[0] < hi - lo


@pytest.mark.parametrize("N", [2, 3, 7, 12])
def test_control_target_labels_table_and_statistics(N):
    bits = all_strings(N).to(torch.int64)
    y = labels("parity01", bits)
    assert y.tolist() == [(row[0] + row[1]) % 2 for row in bits.tolist()]  # written out
    tab = truth_table("parity01", N)
    assert tab.tolist() == [(i & 1) ^ ((i >> 1) & 1) for i in range(2**N)]  # bits 0, 1 of the index
    # bits 0 and 1, every string
    assert average_sensitivity(tab) == pytest.approx(2.0, rel=NAMED["float64_short_sum"].rtol)
    # the named entry is the sparse parity of bits 0 and 1
    assert torch.equal(tab, truth_table("sparse_parity", N, S=[0, 1]))
    assert exact_profile_fraction("parity01", N)[2] == 1.0 and baseline_accuracy("parity01", N) == 0.5


def test_control_target_trains_and_reports_exact_statistics():
    N = 6
    r = train("parity01", N, steps=5, batch_size=16)
    assert r.target == "parity01" and r.baseline == 0.5 and r.target_mean_sensitivity == 2.0
    assert sum(r.profile) == 2**N and r.examples_seen == 5 * 16


# ----------------------------------------------------------------------------- the loop, stand-in


@pytest.mark.parametrize("target", ["majority", "first"])
def test_loop_fits_a_linear_threshold_target(target):
    N = 8
    r = train(target, N, model=_Linear(N), steps=300, lr=0.05, weight_decay=0.0, batch_size=64)
    assert r.regime == "all strings" and r.accuracy_exact and r.accuracy_n == 2**N
    assert r.accuracy == 1.0
    assert r.profile == [int(round(f * 2**N)) for f in exact_profile_fraction(target, N)]
    assert r.final_loss < 0.5 * math.log(2)  # well below the loss of T = 0
    assert r.loss_curve[-1][0] == 300


def test_loop_cannot_fit_parity_with_a_linear_model():
    N = 8
    r = train("parity", N, model=_Linear(N), steps=300, lr=0.05, weight_decay=0.0, batch_size=64)
    # the best linear threshold for 8-bit parity is far from 1; measured 0.5-0.55
    assert r.accuracy <= 0.65


def test_mse_loss_also_trains():
    N = 6
    r = train("first", N, model=_Linear(N), loss="mse", steps=200, lr=0.05, weight_decay=0.0)
    assert r.accuracy == 1.0 and r.loss == "mse"


def test_held_out_accuracy_is_exact_on_the_complement():
    N = 10
    r = train("first", N, model=_Linear(N), steps=200, lr=0.05, train_strings=200, weight_decay=0.0)
    assert r.regime == "fixed subset" and r.held_out_n == 2**N - 200
    assert r.train_index.numel() == 200 and r.train_index.unique().numel() == 200
    # recompute both accuracies independently from the model and the training indices
    with torch.no_grad():
        ok = (r.model(all_strings(N).double()) > 0).to(torch.int64) == truth_table("first", N).to(torch.int64)
    mask = torch.ones(2**N, dtype=torch.bool)
    mask[r.train_index] = False
    assert r.accuracy == float(ok.double().mean())
    assert r.held_out_accuracy == float(ok[mask].double().mean())
    assert r.held_out_accuracy >= 0.99  # FIRST is one weight: learned from 200 strings


def test_sampled_estimates_cover_the_exact_values():
    """exact=False at N = 10 uses the estimators of N > 20; their intervals must cover the exact
    values of the same trained model (fixed seeds, so the test is deterministic)."""
    N = 10
    kw = dict(steps=60, lr=0.02, weight_decay=0.0, seed=3)
    ex = train("majority", N, model=_Linear(N, seed=1), **kw)
    sa = train("majority", N, model=_Linear(N, seed=1), exact=False, test_samples=3000,
               profile_samples=800, **kw)
    assert not sa.profile_exact and sa.profile is None and sa.profile_n == 800
    assert ex.accuracy_ci == (ex.accuracy, ex.accuracy)
    lo, hi = sa.accuracy_ci
    assert lo <= ex.accuracy <= hi
    for k, (f, (plo, phi)) in enumerate(zip(ex.profile_fraction, sa.profile_ci)):
        assert plo <= f <= phi, (k, f, plo, phi)
    mlo, mhi = sa.mean_sensitivity_ci
    assert mlo <= ex.mean_sensitivity <= mhi
    assert abs(sum(sa.profile_fraction) - 1) < NAMED["float64_short_sum"].atol


def test_online_regime_above_the_all_strings_limit():
    N = 15
    r = train("first", N, model=_Linear(N), steps=30, lr=0.05, batch_size=16)
    assert r.regime == "online i.i.d." and r.examples_seen == 30 * 16


def test_progress_callback_and_determinism():
    calls = []
    N = 6
    r1 = train("majority", N, model=_Linear(N), steps=50, progress=lambda *a: calls.append(a))
    r2 = train("majority", N, model=_Linear(N), steps=50)
    assert calls[-1][0] == 50 and calls[-1][1] == 50 and len(calls) == 50
    assert r1.loss_curve == r2.loss_curve and r1.profile == r2.profile
    json.dumps(r1.as_dict())  # plain data only
    assert "model" not in r1.as_dict()


def test_on_batch_sees_every_batch_as_trained_on():
    N, seen = 6, []
    train("parity", N, model=_Linear(N), steps=7, batch_size=16,
          on_batch=lambda step, x, y: seen.append((step, x.clone(), y.clone())))
    assert [step for step, _, _ in seen] == list(range(1, 8))
    for _, x, y in seen:
        assert x.shape == (16, N) and y.dtype == torch.float64  # the loss's dtype
        parity = [sum(row) % 2 for row in x.tolist()]  # the target written out
        assert y.tolist() == parity
    # all strings regime: 64 strings in shuffled epochs of 4 batches, each string once per epoch
    first_epoch = torch.cat([x for _, x, _ in seen[:4]])
    assert first_epoch.unique(dim=0).shape[0] == 2**N


def _run_under(threads, deterministic):
    """One float32 transformer run with the caller at ``threads`` intra-op threads and
    deterministic algorithms ``deterministic``; what the run saw inside, and the settings after."""
    saved = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(deterministic)
    inside = set()
    try:
        r = train("parity01", 10, seed=3, steps=60, batch_size=64, dtype="float32",
                  on_batch=lambda *_: inside.add((torch.get_num_threads(),
                                                  torch.are_deterministic_algorithms_enabled())))
        after = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    finally:
        torch.set_num_threads(saved[0])
        torch.use_deterministic_algorithms(saved[1])
    return r, inside, after


def test_a_seed_trains_to_the_same_bits_under_one_and_two_threads():
    one, inside_one, after_one = _run_under(1, False)
    two, inside_two, after_two = _run_under(2, True)
    assert inside_one == inside_two == {(TRAINING_THREADS, True)}  # pinned inside the run
    assert after_one == (1, False) and after_two == (2, True)  # the caller's settings restored
    assert one.accuracy == two.accuracy and one.profile == two.profile
    assert one.mean_sensitivity == two.mean_sensitivity and one.loss_curve == two.loss_curve
    for a, b in zip(one.model.state_dict().values(), two.model.state_dict().values()):
        assert torch.equal(a, b)  # every parameter bit for bit


def test_pinned_threads_restores_the_settings_after_an_error():
    saved = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    with pytest.raises(FloatingPointError):
        with pinned_threads():
            assert torch.get_num_threads() == TRAINING_THREADS
            raise FloatingPointError("inside the block")
    assert (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()) == saved


def test_seeds_under_the_largest_seed_base():
    from verify.common.seeds import MAX_BASE, SEED_STRIDE

    big = MAX_BASE * SEED_STRIDE + SEED_STRIDE - 1  # the largest seed a claim test can draw
    r = train("first", 8, model=_Linear(8), steps=3, seed=big, exact=False, test_samples=64,
              profile_samples=16)
    assert r.seed == big and r.accuracy_n == 64
    r = train("first", 8, model=_Linear(8), steps=3, seed=big, train_strings=100)
    assert r.train_index.numel() == 100
    assert train("first", 4, steps=2, seed=big).seed == big  # the transformer's init too


# ----------------------------------------------------------------------------- the transformer


def test_transformer_run_and_agreement_with_evaluate_all():
    from numeric.transformer import boolean_table

    r = train("majority", 6, steps=20, seed=1)
    assert r.config["D"] == 16 and r.init == "xavier_uniform"
    tab = boolean_table(r.model, 6).to(torch.int64).cpu()
    assert r.profile == [int(k) for k in profile(tab)]
    acc = float((tab == truth_table("majority", 6).to(torch.int64)).double().mean())
    assert r.accuracy == acc


def test_float32_option():
    r = train("first", 5, steps=10, dtype="float32")
    assert r.dtype == "float32" and next(r.model.parameters()).dtype == torch.float32


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(target="xor"), "target"),
        (dict(N=0), "N"),
        (dict(N=-3), "N"),
        (dict(N=2.5), "N"),
        (dict(steps=0), "steps"),
        (dict(steps=True), "steps"),
        (dict(lr=0.0), "lr"),
        (dict(lr=float("nan")), "lr"),
        (dict(lr=-1e-3), "lr"),
        (dict(weight_decay=-1.0), "weight_decay"),
        (dict(weight_decay=float("inf")), "weight_decay"),
        (dict(loss="hinge"), "loss"),
        (dict(batch_size=0), "batch_size"),
        (dict(N=EXACT_LIMIT + 1, exact=True), "N"),
        (dict(N=EXACT_LIMIT + 1, train_strings=10), "N"),
        (dict(N=4, train_strings=16), "train_strings"),
        (dict(dtype="float16"), "dtype"),
        (dict(confidence=1.0), "confidence"),
        (dict(init="he"), "init"),
        (dict(seed=-1), "seed"),
        (dict(N=10, config="small"), "N"),
        (dict(model="not a module"), "model"),
        (dict(device="tpu"), "device"),
        (dict(exact="yes"), "exact"),
        (dict(target="parity01", N=1), "N"),
        (dict(target="parity02"), "target"),
    ],
)
def test_bad_input(kw, name):
    args = dict(target="majority", N=4, steps=2)
    args.update(kw)
    target, N = args.pop("target"), args.pop("N")
    if args.get("config") == "small":
        from numeric.transformer import TransformerConfig

        args["config"] = TransformerConfig(D=4, L=1, H=1, N_max=8)
    with raises_input_error(name):
        train(target, N, **args)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: labels("majority", torch.zeros(3, dtype=torch.int64)), "bits.ndim"),
        (lambda: labels("xor", torch.zeros(3, 2, dtype=torch.int64)), "name"),
        (lambda: wilson_interval(5, 4), "successes"),
        (lambda: exact_mean_sensitivity("first", 0), "N"),
        (lambda: baseline_accuracy("xor", 3), "name"),
        (lambda: exact_profile_fraction("parity", 0), "N"),
    ],
)
def test_bad_input_helpers(call, name):
    with raises_input_error(name):
        call()


# ----------------------------------------------------------------------------- CLI


# (options, the option the one-line message must name); each run is wrong in one option
BAD_TRAIN_OPTIONS = [
    (["--target", "xor"], "--target"),
    (["--target", ","], "--target"),
    (["--N", "0"], "--N"),
    (["--N", "abc"], "--N"),
    (["--N", "21", "--exact"], "--N"),
    (["--N", "24", "--train-strings", "100"], "--N"),
    (["--N", "8", "--train-strings", "0"], "--train-strings"),
    (["--steps", "0"], "--steps"),
    (["--batch-size", "0"], "--batch-size"),
    (["--threads", "0"], "--threads"),
    (["--lr", "0"], "--lr"),
    (["--lr", "nan"], "--lr"),
    (["--weight-decay", "-1"], "--weight-decay"),
    (["--seeds", "0"], "--seeds"),
    (["--init", "he"], "--init"),
    (["--loss", "l1"], "--loss"),
    (["--dtype", "float16"], "--dtype"),
    (["--figure", "out.xyz"], "--figure"),
    (["--D", "15"], "--H"),
]


@pytest.mark.parametrize("argv, name", BAD_TRAIN_OPTIONS, ids=[" ".join(a) for a, _ in BAD_TRAIN_OPTIONS])
def test_cli_bad_input(argv, name, capsys):
    rc = main(["sensitivity", "train", "--N", "4", *argv])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith(f"boolverify: error: {name} = "), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_run_writes_json_and_figures(tmp_path, capsys):
    js, png, pdf = tmp_path / "r.json", tmp_path / "p.png", tmp_path / "p.pdf"
    rc = main(["sensitivity", "train", "--target", "majority,parity", "--N", "4,21",
               "--D", "4", "--L", "1",
               "--steps", "5", "--test-samples", "256", "--profile-samples", "64",
               "--json", str(js), "--figure", str(png), "--figure", str(pdf)])
    out = capsys.readouterr().out
    assert rc == 0 and "SG-8" in out
    data = json.loads(js.read_text())
    assert [(d["target"], d["N"]) for d in data["runs"]] == [
        ("majority", 4), ("majority", 21), ("parity", 4), ("parity", 21)]
    assert data["runs"][1]["profile_exact"] is False and data["runs"][0]["profile_exact"] is True
    assert set(data["summary"]) == {"majority/N=4", "majority/N=21", "parity/N=4", "parity/N=21"}
    assert png.read_bytes()[:4] == b"\x89PNG" and pdf.read_bytes()[:4] == b"%PDF"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left
    assert math.isfinite(data["runs"][0]["final_loss"])


@pytest.mark.gpu
def test_cuda_run_matches_the_contract():
    r = train("majority", 8, steps=100, device="cuda")
    assert r.device.startswith("cuda") and r.accuracy == 1.0
    assert sum(r.profile) == 2**8
    s = train("majority", 22, steps=30, device="cuda", test_samples=512, profile_samples=64)
    assert not s.accuracy_exact and 0 <= s.accuracy_ci[0] <= s.accuracy <= s.accuracy_ci[1] <= 1


def test_bit_matrix_helper_is_shared_with_transformer_eval():
    import numeric.transformer._eval as te
    import verify.experiments.training as tr

    assert tr.strings is te.strings
