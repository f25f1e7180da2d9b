"""Sampled sensitivity profiles at large N, the table-driven exact pass, and
`boolverify sensitivity sample` (paper B, as formalised in boolverify)."""

from __future__ import annotations

import json

import pytest
import torch

from numeric.transformer import BooleanTransformer, TransformerConfig, evaluate_all, model_profile, random_model
from numeric.transformer._eval import boolean_table, fast_path_applies
from numeric.transformer._sample import neighbour_sensitivities, sample_strings, sampled_sensitivities
from numeric.validation import InputError
from verify.common.tolerances import tolerance
from verify.experiments.sampled_profiles import model_record, sampled_profiles, string_generator
from tests.helpers import raises_input_error


def _exact_sensitivities(model, N):
    tab = boolean_table(model, N)
    idx = torch.arange(2**N)
    return tab, sum((tab[idx ^ (1 << n)] != tab).long() for n in range(N))


def _index(x):
    return (x.long() * (1 << torch.arange(x.shape[1]))).sum(1)


# -- the sampler -----------------------------------------------------------------------
@pytest.mark.parametrize("scheme, seed, tokens", [("xavier_normal", 1, 50), ("gaussian", 4, None),
                                                  ("uniform", 7, 9)])
def test_sampled_sensitivities_equal_the_enumeration(scheme, seed, tokens):
    """Each sampled string's f and s(x, f) are those of the exact table (any pass size)."""
    model = random_model(TransformerConfig(D=8, L=2, H=2, N_max=10), scheme, seed)
    N = 8
    tab, s = _exact_sensitivities(model, N)
    r = sampled_sensitivities(model, N, 120, generator=torch.Generator().manual_seed(seed), tokens=tokens)
    i = _index(r.x)
    assert torch.equal(r.s, s[i]) and torch.equal(r.f, tab[i].bool())
    assert int(r.profile.sum()) == 120 and r.profile.shape == (N + 1,)


def test_constant_on_sample_flag():
    model = BooleanTransformer(TransformerConfig(D=4, L=1, H=1, eps=0.1, N_max=6))
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        model.out.bias.fill_(1.0)  # T = 1 everywhere
    r = sampled_sensitivities(model, 6, 10)
    assert r.constant_on_sample and r.profile.tolist() == [10, 0, 0, 0, 0, 0, 0]
    varied = random_model(TransformerConfig(D=8, L=2, H=2, N_max=10), "xavier_normal", 1)
    assert not sampled_sensitivities(varied, 8, 200).constant_on_sample


@pytest.mark.parametrize("N, seeds", [(10, range(21, 26)), (14, range(21, 26)), (16, range(38, 40))])
def test_clopper_pearson_interval_contains_exact_fraction(N, seeds):
    """Same seeds: the sampled 95 % interval of K_0/2^N contains the enumeration's exact value
    (deterministic: fixed seeds, fixed strings)."""
    cfg = TransformerConfig(D=16, L=2, H=2, N_max=max(64, N))
    res = sampled_profiles(cfg, "gaussian", N, len(seeds), 150, seed=seeds[0])
    nonconstant = 0
    for rec, seed in zip(res.models, seeds):
        K = model_profile(random_model(cfg, "gaussian", seed), N)
        exact = int(K[0]) / 2**N
        lo, hi = rec.k0_ci
        assert rec.seed == seed and lo <= exact <= hi, (seed, exact, rec.k0_ci)
        assert lo <= rec.k0_fraction <= hi and rec.k0_lower <= rec.k0_fraction
        nonconstant += exact < 1
    assert res.summary.models == len(seeds)
    assert nonconstant >= 2  # the seeds are chosen so that the check is not only K_0 = 2^N


def test_long_strings_up_to_1024():
    cfg = TransformerConfig(D=4, L=1, H=1, eps=1e-3, N_max=1024)
    model = random_model(cfg, "gaussian", 0)
    r = sampled_sensitivities(model, 1024, 1, generator=torch.Generator().manual_seed(0))
    assert r.x.shape == (1, 1024) and 0 <= int(r.s[0]) <= 1024
    rec = model_record(r, 0)
    assert rec.strings == 1 and len(rec.profile) == 1025


def test_string_streams_are_reproducible():
    a = sample_strings(30, 5, string_generator(3))
    assert torch.equal(a, sample_strings(30, 5, string_generator(3)))
    assert not torch.equal(a, sample_strings(30, 5, string_generator(4)))


@pytest.mark.parametrize("call, name", [
    (lambda m: sampled_sensitivities(m, 11, 5), "N"),
    (lambda m: sampled_sensitivities(m, 0, 5), "N"),
    (lambda m: sampled_sensitivities(m, 4, 0), "S"),
    (lambda m: sampled_sensitivities(m, 4, 5, tokens=0), "tokens"),
    (lambda m: sampled_sensitivities("model", 4, 5), "model"),
    (lambda m: neighbour_sensitivities(m, torch.full((2, 3), 2)), "x"),
    (lambda m: neighbour_sensitivities(m, torch.zeros(3)), "x"),
    (lambda m: sample_strings(4, 2, generator=0), "generator"),
    (lambda m: string_generator(-1), "seed"),
])
def test_sampler_rejects_bad_input(call, name):
    model = random_model(TransformerConfig(D=4, L=1, H=1, N_max=10), "uniform", 0)
    with raises_input_error(name):
        call(model)


def test_median_readout_is_rejected_when_available():
    try:
        cfg = TransformerConfig(D=4, L=1, H=1, N_max=8, readout="median")
    except TypeError:
        pytest.skip("TransformerConfig has no readout option")
    with raises_input_error("model", "median"):
        sampled_sensitivities(random_model(cfg, "uniform", 0), 4, 3)


# -- the table-driven exact pass ---------------------------------------------------------
@pytest.mark.parametrize("D, L, H, eps, scheme, seed, N", [
    (32, 2, 2, 0.0, "uniform", 0, 12), (16, 3, 4, 1e-3, "gaussian", 1, 10), (8, 2, 2, 0.0, "xavier_normal", 2, 9),
    (32, 2, 1, 0.0, "xavier_uniform", 3, 11), (12, 4, 3, 0.0, "uniform", 4, 8), (8, 2, 2, 0.5, "uniform", 5, 10),
])
def test_fast_pass_gives_identical_boolean_tables(D, L, H, eps, scheme, seed, N):
    model = random_model(TransformerConfig(D=D, L=L, H=H, eps=eps, N_max=16), scheme, seed)
    assert fast_path_applies(model)
    plain = evaluate_all(model, N, fast=False)
    fast = evaluate_all(model, N)
    odd = evaluate_all(model, N, chunk=37, fast=True)
    # Boolean results exactly; real ones to the float64 bound (a chunk size changes the BLAS
    # blocking, so the sums of the two passes are rounded in different orders).
    assert torch.equal(plain > 0, fast > 0) and torch.equal(plain > 0, odd > 0)
    tol, scale = tolerance("float64"), float(plain.abs().max())
    for other in (plain, odd):
        assert torch.allclose(fast, other, rtol=tol.rtol, atol=tol.atol * scale)
    assert torch.equal(boolean_table(model, N), boolean_table(model, N, fast=False))


def test_fast_pass_zero_variance_reports_like_the_model():
    model = BooleanTransformer(TransformerConfig(D=4, L=2, H=2, eps=0.0))
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    with pytest.raises(InputError, match=r"layer 1, attention layer norm, position 0 \(bit\), string index 0"):
        evaluate_all(model, 3, fast=True)


def test_fast_pass_only_where_it_applies():
    one_layer = random_model(TransformerConfig(D=8, L=1, H=2, N_max=8), "uniform", 0)
    assert not fast_path_applies(one_layer)
    with raises_input_error("fast"):
        evaluate_all(one_layer, 4, fast=True)
    with raises_input_error("fast"):
        evaluate_all(random_model(TransformerConfig(D=8, L=2, H=2, N_max=8), "uniform", 0), 4, fast=1)
    try:
        from numeric.transformer._model import preset_config
    except ImportError:
        return
    other = random_model(preset_config("bhattamishra", D=8, L=2, N_max=8), "uniform", 0)
    assert not fast_path_applies(other)


# -- the CLI ---------------------------------------------------------------------------
def test_cli_sample_interval_contains_random_exact_fraction(tmp_path, cli):
    js, jr = tmp_path / "s.json", tmp_path / "r.json"
    common = ["--N", "12", "--D", "8", "--L", "2", "--init", "gaussian", "--models", "4", "--seed", "9"]
    rc, out, err = cli("sensitivity", "sample", *common, "--strings", "300", "--json", str(js))
    assert rc == 0, err
    assert "k0_ci" in out
    rc, out, err = cli("sensitivity", "random", *common, "--json", str(jr))
    assert rc == 0, err
    s, r = json.loads(js.read_text()), json.loads(jr.read_text())
    if "models" in r and isinstance(r["models"], list):  # per-model records
        exact = [m["k0_fraction"] for m in r["models"]]
    else:
        exact = [row[0] / 2**12 for row in r["profiles"]]
    assert len(s["models"]) == len(exact) == 4
    assert sum(e < 1 for e in exact) >= 2  # seeds 9-12 include non-constant functions
    for m, e in zip(s["models"], exact):
        lo, hi = m["k0_ci"]
        assert lo <= e <= hi, (m["seed"], e, m["k0_ci"])
        assert set(m) >= {"seed", "k0_fraction", "k0_ci", "constant_on_sample", "profile"}
    assert s["params"]["strings"] == 300 and s["summary"]["models"] == 4


def test_cli_sample_scheme_alias(tmp_path, cli):
    js = tmp_path / "s.json"
    rc, out, err = cli("sensitivity", "sample", "--N", "40", "--D", "8", "--scheme", "xavier_normal", "--models", "2",
                        "--strings", "5", "--json", str(js))
    assert rc == 0, err
    d = json.loads(js.read_text())
    assert d["params"]["init"] == "xavier_normal" and len(d["models"][0]["profile"]) == 41


@pytest.mark.parametrize("argv, name", [
    (["--N", "0"], "--N"), (["--N", "5000"], "--N"), (["--D", "10", "--H", "3"], "--H"),
    (["--eps", "-1"], "--eps"), (["--models", "0"], "--models"), (["--strings", "0"], "--strings"),
    (["--seed", "-1"], "--seed"), (["--level", "1"], "--level"), (["--B", "0"], "--B"),
    (["--sigma", "-2"], "--sigma"), (["--device", "tpu"], "--device"), (["--json", "/"], "--json"),
    (["--init", "kaiming"], "--init"), (["--F", "0"], "--F"),
])
def test_cli_sample_bad_input(cli, argv, name):
    rc, out, err = cli("sensitivity", "sample", "--N", "8", "--D", "8", "--models", "1", "--strings", "2", *argv)
    assert rc == 2
    assert err.startswith("boolverify: error: ") and name in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# -- CUDA ------------------------------------------------------------------------------
@pytest.mark.gpu
def test_cuda_fast_pass_and_sampler_match_cpu():
    cfg = TransformerConfig(D=16, L=2, H=2, eps=0.0, N_max=64)
    cpu = random_model(cfg, "gaussian", 2)
    gpu = random_model(cfg, "gaussian", 2, device="cuda")
    assert torch.equal(boolean_table(gpu, 12).cpu(), boolean_table(cpu, 12))
    assert torch.equal(boolean_table(gpu, 12, fast=False).cpu(), boolean_table(cpu, 12))
    a = sampled_sensitivities(cpu, 60, 20, generator=torch.Generator().manual_seed(1))
    b = sampled_sensitivities(gpu, 60, 20, generator=torch.Generator().manual_seed(1))
    assert torch.equal(a.x, b.x) and torch.equal(a.s, b.s) and torch.equal(a.f, b.f)


# -- the Theorem 4.5 experiment ------------------------------------------------------------
def test_theorem45_small_run_resumes(tmp_path):
    from verify.experiments.plans import THEOREM45_FULL
    from verify.experiments.theorem45 import run_theorem45
    from verify.common.provenance import without_provenance
    from verify.report.transformer_figures import theorem45_figure

    js, fig = tmp_path / "t.json", tmp_path / "t.png"
    plan = dict(THEOREM45_FULL, D=8, L=2, Ns=(6, 9), schemes=("gaussian",), target=2, max_draws=6,
                strings=6, strings_large=3, large_from=9)
    lines = []
    d = run_theorem45(js, plan, progress=lines.append)
    theorem45_figure(d, fig)
    assert d == without_provenance(json.loads(js.read_text())) and len(lines) == 2
    assert set(d["cells"]) == {"gaussian/N=6", "gaussian/N=9"} and fig.stat().st_size > 1000
    c = d["cells"]["gaussian/N=9"]
    assert c["S"] == 3 and c["draws"] <= 6 and c["nonconstant"] == len(c["models"])
    assert c["draws"] == c["nonconstant"] + c["looked_constant_pilot"] + c["looked_constant_sample"]
    for r in c["models"]:
        assert r["holds"] == (r["log2_K0_lower"] is not None and r["log2_K0_lower"] >= c["log2_Na"])
    before = js.read_text()
    assert run_theorem45(js, plan) == d and js.read_text() == before  # resumed: nothing recomputed
    # a run under a key of the same file leaves the rest of the file as it is
    other = run_theorem45(js, dict(plan, Ns=(6,)), key="again")
    whole = json.loads(js.read_text())
    assert whole["again"] == other and whole["cells"] == d["cells"]


def test_theorem45_bad_plan_is_refused_before_work(tmp_path):
    from verify.experiments.plans import THEOREM45_FULL
    from verify.experiments.theorem45 import run_theorem45

    with raises_input_error("D"):
        run_theorem45(tmp_path / "t.json", dict(THEOREM45_FULL, D=1))
    assert not (tmp_path / "t.json").exists()
