"""CLI tests of `boolverify sensitivity random` and `boolverify sensitivity bounds`."""

from __future__ import annotations

import json

import pytest

from verify.cli import main


def _run(capsys, *argv):
    rc = main(["sensitivity", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_random_small_run_with_json_and_figure(tmp_path, capsys):
    js, fig = tmp_path / "r.json", tmp_path / "r.png"
    rc, out, err = _run(capsys, "random", "--N", "6", "--D", "8", "--L", "1", "--models", "5",
                        "--init", "gaussian", "--json", str(js), "--figure", str(fig))
    assert rc == 0, err
    assert "fraction with K_0 >= 1" in out and "mean profile" in out and "0.632" in out
    d = json.loads(js.read_text())
    assert d["params"]["init"] == "gaussian" and d["summary"]["models"] == 5
    assert len(d["profiles"]) == 5 and all(sum(row) == 64 for row in d["profiles"])
    assert abs(sum(d["summary"]["mean_profile_frac"]) - 1) < 1e-12
    assert fig.stat().st_size > 1000
    # reproducible: the same seed gives the same profiles
    js2 = tmp_path / "r2.json"
    _run(capsys, "random", "--N", "6", "--D", "8", "--L", "1", "--models", "5", "--init", "gaussian",
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
    ],
)
def test_random_bad_input(capsys, argv, name):
    rc, out, err = _run(capsys, "random", "--N", "4", "--D", "8", "--models", "2", *argv)
    assert rc == 2
    assert err.startswith("boolverify: error: ") and name in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_random_zero_variance_reported(capsys, monkeypatch):
    """eps = 0 with a zero-variance LN input: the CLI prints the layer and position."""
    import torch

    import numeric.transformer_model as tf  # random_model looks initialize_ up here

    orig = tf.initialize_

    def zero_init(model, scheme, **kw):
        orig(model, scheme, **kw)
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()
        return model

    monkeypatch.setattr(tf, "initialize_", zero_init)
    rc, out, err = _run(capsys, "random", "--N", "3", "--D", "4", "--models", "1")
    assert rc == 2
    assert "zero variance in layer 1, attention layer norm, position 0" in err


def test_bounds_table_and_json(tmp_path, capsys):
    js = tmp_path / "b.json"
    rc, out, err = _run(capsys, "bounds", "--D", "64", "--L", "2", "--json", str(js))
    assert rc == 0, err
    assert "43/4" in out and "65 (agree)" in out and "packing bound" in out
    d = json.loads(js.read_text())
    assert d["N_star"] == 65 and d["a"] == "43/4" and len(d["packing"]) == 5
    rc, out, err = _run(capsys, "bounds", "--D", "16", "--L", "2", "--C-lip", "10", "--eps", "0")
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
def test_bounds_bad_input(capsys, argv, name):
    rc, out, err = _run(capsys, "bounds", *argv)
    assert rc == 2 and "Traceback" not in err and err.startswith("boolverify: error:")
    assert name in err and len(err.strip().splitlines()) == 1
