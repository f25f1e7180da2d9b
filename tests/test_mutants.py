"""Tests of the mutation catalogue (verify.report.mutants): every mutant resolves, installs
everywhere its target is bound, really changes behaviour, and undoes; the CLI refuses bad input
before running anything. The full run (every mutant caught) is ``slow``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from numeric.validation import InputError
from verify.report.mutants import (
    MUTANTS, ROOT, Installed, by_name, install, mutation_summary, resolve, run_mutants, select,
)


def test_catalogue_has_at_least_25_uniquely_named_mutants():
    names = [m.name for m in MUTANTS]
    assert len(names) >= 25
    assert len(set(names)) == len(names)
    assert all(m.description and m.target for m in MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_target_resolves_and_expected_files_exist(mutant):
    owner, attr, original = resolve(mutant.target)
    assert getattr(owner, attr) is original
    if mutant.kind == "claim":
        assert mutant.claim_files and not mutant.unit_files
        for f in mutant.claim_files:
            assert f.startswith("theorems/test_") and (ROOT / f).is_file(), f
    else:
        for f in mutant.unit_files:
            assert f.startswith("tests/") and (ROOT / f.split("::")[0]).is_file(), f


# -- probes: a tiny call whose result the mutant changes (looked up through the public modules at
#    call time, so the same probe sees the original before install and the mutant after) --------

def _xor_instance(d=6, m=3, seed=0):
    from numeric import xor

    g = torch.Generator().manual_seed(seed)
    V = xor.sample_embeddings(d, m, generator=g)
    th = torch.randn(m, generator=g, dtype=torch.float64) * 2
    tt = torch.randn(m, generator=g, dtype=torch.float64) * 2
    return V, th, tt, (1, 4)


def _loss():
    from numeric import xor

    V, th, tt, s = _xor_instance()
    return xor.population_loss(V, th, tt, s)


def _grad(attention="softmax"):
    def probe():
        from numeric import xor

        V, th, tt, s = _xor_instance()
        return torch.cat(xor.population_grad(V, th, tt, s, attention))
    return probe


def _grad_two_pass(attention="softmax"):
    """A batch of one instance: the two-pass path (cotangent of the closed form, then V^T)."""
    def probe():
        from numeric import xor

        V, th, tt, s = _xor_instance()
        return torch.cat(xor.population_grad(V[None], th[None], tt[None], s, attention), -1)
    return probe


def _grad_near_cancellation():
    """Large logits off the support: the one-pass moments cancel and the exact path is needed."""
    from numeric import xor

    V, th, tt, s = _xor_instance(d=8, m=3, seed=3)
    return torch.cat(xor.population_grad(V, 40 * th, 40 * tt, s))


def _weights(attention):
    def probe():
        from numeric import xor

        V, th, _, _ = _xor_instance()
        return xor.attention_weights(V, th, attention)
    return probe


def _one_step():
    from numeric import xor

    V, th, tt, s = _xor_instance()
    return torch.cat(xor.one_step(V, th, tt, s, 1.0))


def _empirical():
    from numeric import xor

    V, th, tt, s = _xor_instance()
    X, y = xor.sample_data(16, 6, s, generator=torch.Generator().manual_seed(1))
    return torch.cat(xor.empirical_grad(V, th, tt, X, y))


def _finite_samples(what):
    def probe():
        from verify.experiments import finite_samples as fs

        g = torch.Generator().manual_seed(2)
        if what == "labels":
            stream = fs._SampleStream([g], 6, 5, (1, 4), torch.float64)
            return torch.cat([y.flatten() for _, y in stream.blocks()])
        X = fs.draw_signs(g, 8, 6, fs._byte_signs(torch.float64))[None, :, :6]
        gam = torch.softmax(torch.randn(1, 2, 6, generator=g, dtype=torch.float64), -1)
        return fs.gamma_grad_sum(X, -X[..., 1] * X[..., 4], gam)
    return probe


def _sample_labels():
    from numeric import xor

    return xor.sample_data(8, 6, (1, 4), generator=torch.Generator().manual_seed(1))[1]


def _limit():
    from numeric import xor

    V, th, tt, s = _xor_instance()
    return torch.cat(xor.limit_step_attention(V, th, tt, s))


def _stream_limit():
    from numeric.xor_stream import stream_step_metrics, streamed_instance

    E, sup, th, tt = streamed_instance(300, 4, 0, block=64)
    va = E.rows([sup[0]])[0]
    # s = -V grad = V v_a: largest at a (unit rows), so the limit puts head 1 on a
    met = stream_step_metrics(E, th, tt, sup, limit_from=(-va, va))
    return torch.stack([met[k] for k in sorted(met) if k.startswith("limit")])


def _random_blocks():
    from numeric.transformer import preset_config
    from verify.experiments.random_transformers import MODELS_PER_TASK, sample_models

    cfg = preset_config("bhattamishra", D=8, L=2, N_max=64)
    return sample_models(cfg, "uniform", 6, MODELS_PER_TASK + 3, seed=40, B=10.0, workers=1)["profiles"]


def _assignment():
    from numeric import xor

    V, th, _, s = _xor_instance()
    return xor.predicted_assignment(V, th, s)


def _cls(what):
    def probe():
        from numeric.cls_transformer import CLSTransformer, all_inputs

        g = torch.Generator().manual_seed(3)
        V, _, _, _ = _xor_instance(d=4, m=2)
        model = CLSTransformer(V, torch.randn(2, 2, 3, generator=g, dtype=torch.float64),
                               torch.randn(2, 2, 3, generator=g, dtype=torch.float64),
                               torch.randn(3, generator=g, dtype=torch.float64))
        if what == "lr":
            return model.lr_matrix()
        with torch.no_grad():
            return model(all_inputs(4))
    return probe


def _linear_bound():
    from verify.reference.linear_bound import linear_attention_loss_bound

    V, _, _, s = _xor_instance(d=6, m=3)
    return linear_attention_loss_bound(V.numpy(), s)["bound"]


def _profile(name, N):
    def probe():
        from numeric.boolean import truth_table
        from numeric.sensitivity import profile

        return profile(truth_table(name, N))
    return probe


def _table(name, N):
    def probe():
        from numeric.boolean import truth_table

        return truth_table(name, N)
    return probe


def _labels(target):
    def probe():
        from numeric.targets import labels
        from numeric.transformer_eval import strings

        return labels(target, strings(torch.arange(1 << 12), 12))
    return probe


def _transformer(eps=1e-5, scheme="gaussian"):
    def probe():
        from numeric.transformer import TransformerConfig, random_model

        model = random_model(TransformerConfig(D=4, L=1, H=2, eps=eps, N_max=6), scheme, 0)
        with torch.no_grad():
            return model(torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]]))
    return probe


def _fast_table():
    from numeric.transformer import TransformerConfig, random_model
    from numeric.transformer_eval import evaluate_all, fast_path_applies

    model = random_model(TransformerConfig(D=4, L=2, H=2, eps=1e-5, N_max=6), "gaussian", 0)
    assert fast_path_applies(model)
    return evaluate_all(model, 5)


def _margin():
    from numeric.transformer import margin_recognition

    return margin_recognition(torch.ones(4, dtype=torch.float64), 0.5)["constant"]


def _slope():
    from verify.experiments.random_transformers import loglog_slope

    return loglog_slope([1, 2, 4], [1.0, 0.5, 0.25])


def _blowup():
    from verify.reference.bounds import blowup_bound

    return float(blowup_bound(1e-2, 4))


def _exponent():
    from verify.reference.bounds import theorem_exponent

    return theorem_exponent(8, 2)


def _crossover():
    from verify.reference.bounds import crossover_direct

    return crossover_direct(10)


def _monte_carlo():
    from verify.experiments.random_function_sampling import monte_carlo_K0

    return monte_carlo_K0(6, 128, seed=0)["mean_K0"]


def _variance():
    from verify.reference.random_functions import variance_K0

    return variance_K0(5)


def _wilson():
    from verify.experiments.statistics import wilson_interval

    return wilson_interval(50, 100)


def _support():
    from numeric.validation import check_support

    try:
        return check_support((1, 1), 4)
    except InputError as exc:
        return str(exc)


def _n_params():
    from verify.reference.bounds import n_params

    return n_params(16, 2)


def _random_function_K0():
    from verify.experiments.random_transformers import random_function_K0

    return random_function_K0(0.3, 4)


def _median_bound():
    from verify.experiments.random_transformers import median_bounds

    return median_bounds(list(range(60)), 0.99, "lower")


def _median_readout():
    from numeric.transformer import readout_table

    return readout_table(torch.tensor([1.0, 1.0, 2.0, 0.0], dtype=torch.float64), "median")


def _pre_ln():
    from numeric.transformer import preset_config, random_model

    model = random_model(preset_config("boolverify", D=4, L=2, N_max=6, norm="pre"), "gaussian", 0)
    with torch.no_grad():
        return model(torch.tensor([[0, 1, 1, 0], [1, 1, 0, 0]]))


def _control_labels():
    from numeric.transformer_eval import strings
    from verify.experiments.training import target_labels

    return target_labels("parity01", strings(torch.arange(16), 4))


def _exact_influence():
    from numeric.transformer import TransformerConfig, random_model
    from verify.experiments.random_transformers import exact_influence_maximum

    return exact_influence_maximum(random_model(TransformerConfig(D=4, L=1, H=2, N_max=6), "uniform", 0), 5)


PROBES = {
    "loss_drops_t_squared": _loss,
    "loss_cross_term_sign": _loss,
    "grad_drops_support_pull": _grad_two_pass(),
    "grad_ambient_term_sign": _grad_two_pass(),
    "one_pass_without_fallback": _grad_near_cancellation,
    "one_pass_square_moments_swapped": _grad(),
    "one_pass_support_rows_swapped": _grad(),
    "grad_halved": _grad(),
    "grad_heads_swapped": _grad(),
    "softmax_cotangent_not_centred": _grad_two_pass(),
    "erf_cotangent_constant": _grad_two_pass("erf"),
    "softmax_unnormalised": _weights("softmax"),
    "linear_attention_unscaled": _weights("linear"),
    "erf_attention_scale_inside": _weights("erf"),
    "one_step_ascends": _one_step,
    "support_off_by_one": _loss,
    "default_lr_linear_in_d": lambda: __import__("numeric.xor", fromlist=["x"]).default_lr(10, 4),
    "empirical_grad_half_samples": _empirical,
    "finite_sample_gradient_half_samples": _finite_samples("gradient"),
    "finite_sample_labels_wrong_sign": _finite_samples("labels"),
    "sample_labels_wrong_sign": _sample_labels,
    "limit_step_argmin": _limit,
    "stream_limit_ascends": _stream_limit,
    "model_blocks_restart_seed": _random_blocks,
    "predicted_assignment_flipped": _assignment,
    "cls_lr_matrix_without_c_norm": _cls("lr"),
    "cls_attends_to_itself": _cls("forward"),
    "linear_bound_hessian_factor": _linear_bound,
    "wilson_one_sided_z": _wilson,
    "bitsliced_neighbour_off_by_one": _profile("first", 8),
    "bytes_neighbour_off_by_one": _profile("first", 4),
    "majority_table_non_strict": _table("majority", 4),
    "parity_skips_last_bit": _table("parity", 4),
    "training_majority_non_strict": _labels("majority"),
    "training_parity_first_10_bits": _labels("parity"),
    "training_first_reads_last_bit": _labels("first"),
    "transformer_ignores_input": _transformer(),
    "fast_evaluation_ignores_input": _fast_table,
    "no_positional_embedding": _transformer(),
    "layer_norm_ignores_eps": _transformer(eps=0.5, scheme="uniform"),
    "layer_norm_unbiased_variance": _transformer(),
    "margin_all_accepted_nonconstant": _margin,
    "influence_slope_log10": _slope,
    "blowup_bound_exponent_L": _blowup,
    "theorem_exponent_minus_4": _exponent,
    "crossover_direct_off_by_one": _crossover,
    "random_functions_int64_max": _monte_carlo,
    "variance_K0_union_off_by_one": _variance,
    "support_check_allows_a_equal_b": _support,
    "n_params_without_layer_norms": _n_params,
    "random_function_K0_exponent_N": _random_function_K0,
    "median_bound_one_step_inward": _median_bound,
    "median_readout_ties_read_one": _median_readout,
    "pre_ln_residual_normalised": _pre_ln,
    "training_labels_rolled": _labels("majority"),
    "training_control_parity_three_bits": _control_labels,
    "transformer_config_eps_ignored": _transformer(eps=0.5, scheme="uniform"),
    "exact_influence_mean": _exact_influence,
}


def _same(x, y) -> bool:
    if isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
        return (isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and x.shape == y.shape
                and x.dtype == y.dtype and bool(torch.equal(x, y)))
    return type(x) is type(y) and x == y


def test_every_mutant_has_a_probe():
    assert set(PROBES) == {m.name for m in MUTANTS}


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_mutant_changes_behaviour_and_undoes(mutant):
    probe = PROBES[mutant.name]
    before = probe()
    installed = install(mutant)
    try:
        assert installed.rebound >= 1
        during = probe()
    finally:
        installed.undo()
    assert not _same(before, during), f"{mutant.name} does not change {probe.__name__}"
    assert _same(probe(), before), f"{mutant.name} was not undone"
    owner, attr, _ = resolve(mutant.target)
    assert (owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)) is installed.original


def test_install_rebinds_every_module_and_later_imports():
    import numeric.xor
    import numeric.xor_metrics
    import numeric.xor_population

    original = numeric.xor_population.population_grad
    V, th, tt, sup = _xor_instance()
    before = torch.cat(numeric.xor.population_grad(V, th, tt, sup))
    installed = install(by_name("grad_halved"))
    try:
        mutant = installed.replacement
        # bound before install: the defining module and a user module
        assert numeric.xor_population.population_grad is mutant
        assert numeric.xor_metrics.population_grad is mutant
        # the public function (it also takes streamed embeddings) calls the engine's at each call
        assert torch.equal(torch.cat(numeric.xor.population_grad(V, th, tt, sup)), 0.5 * before)
        # what a theorem module does at import, after install
        namespace = {}
        exec("from numeric.xor import population_grad", namespace)
        assert torch.equal(torch.cat(namespace["population_grad"](V, th, tt, sup)), 0.5 * before)
        assert mutant.__name__ == "population_grad" and mutant is not original
    finally:
        installed.undo()
    assert numeric.xor_population.population_grad is original
    assert numeric.xor_metrics.population_grad is original
    assert torch.equal(torch.cat(numeric.xor.population_grad(V, th, tt, sup)), before)


def test_install_on_a_class_replaces_the_class_attribute():
    from numeric.xor_forms import ClosedFormState

    original = ClosedFormState.__dict__["loss"]
    installed = install(by_name("loss_drops_t_squared"))
    try:
        assert isinstance(installed, Installed)
        assert ClosedFormState.__dict__["loss"] is installed.replacement
    finally:
        installed.undo()
    assert ClosedFormState.__dict__["loss"] is original


def test_select_and_by_name_refuse_unknown_names():
    assert [m.name for m in select(["grad_halved"])] == ["grad_halved"]
    assert len(select(None)) == len(MUTANTS)
    with pytest.raises(InputError, match="^--only = 'nosuch'"):
        select(["grad_halved", "nosuch"])
    with pytest.raises(InputError, match="^mutant = "):
        by_name("nosuch")


def test_mutation_summary_renders_the_table():
    result = {
        "mutants": [
            {"name": "a", "description": "bug a", "target": "numeric.x.f", "expected_files": [
                "theorems/test_SX1_population_loss.py"], "kind": "claim", "caught": True,
             "caught_by": "theorems/test_SX1_population_loss.py::test_x", "message": "assert 1 == 2",
             "status": "caught", "seconds": 3.2},
            {"name": "b", "description": "bug | b", "target": "numeric.y.g",
             "expected_files": ["tests/test_bounds.py"], "kind": "unit", "caught": False,
             "caught_by": None, "message": "", "status": "survived", "seconds": 1.0},
        ],
        "score": 0.5, "caught": 1, "total": 2, "survivors": ["b"],
    }
    md = mutation_summary(result)
    assert md.startswith("## Mutation score\n")
    assert "1/2 mutants caught (score 0.50)" in md
    assert "`theorems/test_SX1_population_loss.py::test_x`" in md
    assert "bug \\| b" in md and "(unit tests)" in md and "**survived**" in md
    assert "Survivors" in md and "`b`" in md


# -- the command line -------------------------------------------------------------------------

def _cli(*args):
    return subprocess.run([sys.executable, "-m", "verify.cli", "mutants", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(
    "args, name",
    [
        (["--only", "nosuch"], "--only"),
        (["--only", "grad_halved", "--only", "nosuch"], "--only"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "two"], "--jobs"),
        (["--json", "/"], "--json"),
    ],
)
def test_cli_bad_input_one_line_exit_2(args, name):
    r = _cli(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith("boolverify: error: ") and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr and name in r.stderr
    assert "running" not in r.stdout  # refused before any mutant ran


def test_cli_unwritable_json_refused_before_running(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = _cli("--json", str(blocker / "out.json"), "--only", "grad_halved")
    assert r.returncode == 2 and "--json" in r.stderr and "running" not in r.stdout


def test_cli_list():
    r = _cli("--list")
    assert r.returncode == 0, r.stderr
    for m in MUTANTS:
        assert m.name in r.stdout
    assert f"{len(MUTANTS)} of {len(MUTANTS)} mutants" in r.stdout


def test_one_mutant_end_to_end(tmp_path):
    """The cheapest claim mutant through the CLI: caught, by which test, written as JSON."""
    out = tmp_path / "m.json"
    r = _cli("--only", "blowup_bound_exponent_L", "--json", str(out), "--jobs", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "blowup_bound_exponent_L" in r.stdout and "caught" in r.stdout
    data = json.loads(out.read_text())
    (rec,) = data["mutants"]
    assert data["score"] == 1.0 and data["survivors"] == [] and (data["caught"], data["total"]) == (1, 1)
    assert rec["caught"] and rec["status"] == "caught" and rec["kind"] == "claim"
    assert rec["caught_by"].startswith("theorems/test_SG3_blowup_bound.py::")
    assert rec["rebound"] >= 1 and rec["message"]
    assert set(rec) >= {"name", "description", "target", "expected_files", "kind", "caught",
                        "caught_by", "message", "seconds"}


@pytest.mark.slow
def test_every_mutant_is_caught():
    result = run_mutants(jobs=2)
    assert result["total"] == len(MUTANTS)
    assert not any(r["status"] == "crashed" for r in result["mutants"]), [
        (r["name"], r["message"]) for r in result["mutants"] if r["status"] == "crashed"]
    assert result["survivors"] == [], mutation_summary(result)
