"""CLI tests of `boolverify sensitivity random` (with its presets) and `boolverify sensitivity
bounds`; the recognition of the functions with K_0 = 0 that `random` lists."""

from __future__ import annotations

import json

import pytest

from verify.common.tolerances import NAMED


def test_random_small_run_with_json_and_figure(tmp_path, cli):
    js, fig = tmp_path / "r.json", tmp_path / "r.png"
    rc, out, err = cli("sensitivity", "random", "--N", "6", "--D", "8", "--L", "1", "--models", "5",
                        "--init", "gaussian", "--json", str(js), "--figure", str(fig))
    assert rc == 0, err
    assert "K_0 >= 1, all models" in out and "mean profile" in out and "0.632" in out
    d = json.loads(js.read_text())
    assert d["params"]["init"] == "gaussian" and d["summary"]["models"] == 5
    assert len(d["profiles"]) == 5 and all(sum(row) == 64 for row in d["profiles"])
    assert abs(sum(d["summary"]["mean_profile_frac"]) - 1) < NAMED["float64_short_sum"].atol
    assert fig.stat().st_size > 1000
    assert d["params"]["preset"] == "boolverify" and d["params"]["conventions"]["readout"] == "linear"
    m = d["models"]
    assert m["constant"] + m["nonconstant"] == 5 and len(d["ones"]) == 5
    assert m["frac_constant_ci"][0] <= m["frac_constant"] <= m["frac_constant_ci"][1]
    # reproducible: the same seed gives the same profiles
    js2 = tmp_path / "r2.json"
    cli("sensitivity", "random", "--N", "6", "--D", "8", "--L", "1", "--models", "5", "--init", "gaussian",
         "--json", str(js2))
    assert json.loads(js2.read_text())["profiles"] == d["profiles"]


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--eps", "-0.1"], "--eps"),
        (["--D", "10", "--H", "3"], "--H"),
        (["--N", "25"], "--N"),
        (["--N", "0"], "--N"),
        (["--init", "kaiming"], "--init"),
        (["--models", "0"], "--models"),
        (["--B", "0", "--init", "uniform"], "--B"),
        (["--sigma", "-1", "--init", "gaussian"], "--sigma"),
        (["--D", "1", "--H", "1"], "--D"),
        (["--F", "0"], "--F"),
        (["--models", "1", "--figure", "out.xyz"], "--figure"),
        (["--models", "1", "--device", "tpu"], "--device"),
        (["--models", "1", "--json", "/"], "--json"),
        (["--preset", "vaswani"], "--preset"),
        (["--readout", "argmax"], "--readout"),
        (["--dtype", "float16"], "--dtype"),
        (["--preset", "bhattamishra", "--D", "10", "--H", "3"], "--H"),
        (["--preset", "bhattamishra", "--B", "-1"], "--B"),
        (["--positions", "rotary"], "--positions"),
        (["--init", "bhattamishra_gaussian"], "--init"),
        (["--bias"], "--bias"),
        (["--preset", "bhattamishra", "--init", "bhattamishra_xavier_uniform", "--bias"], "--bias"),
        (["--preset", "bhattamishra", "--init", "xavier_normal", "--bias"], "--bias"),
        (["--preset", "bhattamishra", "--init", "bhattamishra_gaussian", "--input-scale", "0"], "--input-scale"),
        (["--preset", "bhattamishra", "--init", "bhattamishra_gaussian", "--input-scale", "nan"], "--input-scale"),
    ],
)
def test_random_bad_input(cli, argv, name):
    rc, out, err = cli("sensitivity", "random", "--N", "4", "--D", "8", "--models", "2", *argv)
    assert rc == 2
    assert err.startswith("boolverify: error: ") and name in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_random_zero_variance_reported(cli, monkeypatch):
    """eps = 0 with a zero-variance LN input: the CLI prints the layer and position."""
    import torch

    import verify.experiments.random_transformers as rt  # sample_models looks initialize_ up here

    orig = rt.initialize_

    def zero_init(model, scheme, **kw):
        orig(model, scheme, **kw)
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
        return model

    monkeypatch.setattr(rt, "initialize_", zero_init)
    rc, out, err = cli("sensitivity", "random", "--N", "3", "--D", "4", "--models", "1")
    assert rc == 2
    assert "zero variance in layer 1, attention layer norm, position 0" in err


def test_random_bhattamishra_preset(tmp_path, cli):
    js = tmp_path / "b.json"
    rc, out, err = cli("sensitivity", "random", "--preset", "bhattamishra", "--N", "5", "--D", "8", "--L", "2",
                        "--models", "6", "--json", str(js))
    assert rc == 0, err
    assert "bhattamishra conventions" in out and "H=1" in out and "F=16" in out and "B=10" in out
    assert "fraction constant [95% CP]" in out and "non-constant models" in out
    d = json.loads(js.read_text())
    p = d["params"]
    assert p["preset"] == "bhattamishra" and p["B"] == 10.0 and p["eps"] == 1e-6 and p["F"] == 16
    assert p["conventions"]["norm"] == "pre" and p["conventions"]["dtype"] == "float32"
    # an explicit option overrides the preset's
    rc, out, err = cli("sensitivity", "random", "--preset", "bhattamishra", "--N", "4", "--D", "8", "--L", "1",
                        "--models", "2", "--readout", "median", "--B", "1", "--json", str(js))
    assert rc == 0, err
    d = json.loads(js.read_text())
    assert d["params"]["conventions"]["readout"] == "median" and d["params"]["B"] == 1.0
    # a median readout reads half of the 16 strings as 1 when the outputs are distinct
    assert all(o in (0, 8) for o in d["ones"])


def test_random_lists_models_with_K0_zero(tmp_path, cli, monkeypatch):
    """Every model made to compute x_2 (outputs x_2 - 1/2): all have K_0 = 0, each is listed
    with its seed as DICTATOR x_2."""
    import torch

    import numeric.transformer._eval as te

    # the tables are read by numeric.transformer._eval.boolean_table from these outputs
    monkeypatch.setattr(te, "evaluate_all",
                        lambda model, N, chunk=None, fast=None: ((torch.arange(1 << N) >> 2) & 1).double() - 0.5)
    rc, out, err = cli("sensitivity", "random", "--N", "4", "--D", "4", "--L", "1", "--models", "3", "--seed", "40")
    assert rc == 0, err
    assert "models with K_0 = 0" in out and out.count("DICTATOR x_2") == 3
    assert all(str(s) in out for s in (40, 41, 42))

    def near_parity(model, N, chunk=None, fast=None):
        # x_1 + x_4 mod 2 with string 0 read as 1: still every string sensitive, no longer a parity
        x = torch.arange(1 << N)
        t = ((x >> 1) ^ (x >> 4)) & 1
        t[0] = 1
        return t.double() - 0.5

    monkeypatch.setattr(te, "evaluate_all", near_parity)
    js = tmp_path / "k0.json"
    rc, out, err = cli("sensitivity", "random", "--N", "5", "--D", "4", "--L", "1", "--models", "1", "--json", str(js))
    assert rc == 0, err
    assert "not recognised" in out
    d = json.loads(js.read_text())
    assert d["functions"] == ["not recognised (nearest PARITY x_1+x_4, agrees on 96.9 % of the strings)"]
    assert d["models"]["zero_K0"] == [{"seed": 0, "function": d["functions"][0]}]


def test_identify_function():
    import torch

    from numeric.boolean._functions import truth_table
    from verify.experiments.random_transformers import identify_function, nearest_parity

    N = 5
    x = torch.arange(1 << N)
    assert identify_function((x >> 3) & 1, N) == "DICTATOR x_3"
    assert identify_function(1 - ((x >> 0) & 1), N) == "NOT DICTATOR x_0"
    par = ((x >> 1) ^ (x >> 4)) & 1
    assert identify_function(par, N) == "PARITY x_1+x_4"
    assert identify_function(1 - par, N) == "NOT PARITY x_1+x_4"
    assert identify_function(truth_table("parity", N), N) == "PARITY x_0+x_1+x_2+x_3+x_4"
    assert identify_function(torch.ones(1 << N, dtype=torch.int64), N) == "constant 1"
    assert identify_function(truth_table("majority", N), N) is None
    # a two-bit parity with one string changed: not one, but nearest to it
    near = par.clone()
    near[0] ^= 1
    assert identify_function(near, N) is None
    assert nearest_parity(near, N) == ("PARITY x_1+x_4", 31 / 32)


def test_bounds_table_and_json(tmp_path, cli):
    js = tmp_path / "b.json"
    rc, out, err = cli("sensitivity", "bounds", "--D", "64", "--L", "2", "--json", str(js))
    assert rc == 0, err
    assert "43/4" in out and "65 (agree)" in out and "packing bound" in out
    d = json.loads(js.read_text())
    assert d["N_star"] == 65 and d["a"] == "43/4" and len(d["packing"]) == 5
    rc, out, err = cli("sensitivity", "bounds", "--D", "16", "--L", "2", "--C-lip", "10", "--eps", "0")
    assert rc == 0 and "a<=0" in out and "unbounded" in out


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--D", "1"], "--D"),
        (["--L", "0"], "--L"),
        (["--xi", "0"], "--xi"),
        (["--eps", "-1"], "--eps"),
        (["--C-lip", "-3"], "--C-lip"),
        (["--N-max", "0"], "--N-max"),
        (["--B", "0"], "--B"),
        (["--json", "/"], "--json"),
    ],
)
def test_bounds_bad_input(cli, argv, name):
    rc, out, err = cli("sensitivity", "bounds", *argv)
    assert rc == 2 and "Traceback" not in err and err.startswith("boolverify: error:")
    assert name in err and len(err.strip().splitlines()) == 1


def test_random_bhattamishra_public_options(tmp_path, cli):
    """--positions sinusoidal, --bias and a public init method reach the model: the JSON names
    them, and the profiles are those of the library call with the same options."""
    import torch

    from numeric.transformer import preset_config
    from verify.experiments.random_transformers import sample_models

    js = tmp_path / "p.json"
    rc, out, err = cli("sensitivity", "random", "--preset", "bhattamishra", "--N", "4", "--D", "8", "--L", "1",
                       "--models", "3", "--init", "bhattamishra_gaussian", "--sigma", "2", "--input-scale", "0.5",
                       "--bias", "--positions", "sinusoidal", "--json", str(js))
    assert rc == 0, err
    assert "positions=sinusoidal" in out and "biases=scheme_except_readout" in out and "input-scale=0.5" in out
    d = json.loads(js.read_text())
    p = d["params"]
    assert p["init"] == "bhattamishra_gaussian" and p["input_scale"] == 0.5 and p["sigma"] == 2.0
    assert p["conventions"]["positions"] == "sinusoidal" and p["conventions"]["biases"] == "scheme_except_readout"
    cfg = preset_config("bhattamishra", D=8, L=1, N_max=64, positions="sinusoidal", biases="scheme_except_readout")
    got = sample_models(cfg, "bhattamishra_gaussian", 4, 3, seed=0, sigma=2.0, input_scale=0.5)
    assert torch.equal(torch.tensor(d["profiles"]), got.profiles)
