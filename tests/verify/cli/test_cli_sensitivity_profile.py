"""`boolverify sensitivity profile`: output, files, and one-line errors with exit code 2."""

import json

import numpy as np
import pytest

from tests.helpers import run_cli_process


def test_majority_table_and_json(tmp_path, cli):
    js = tmp_path / "out" / "maj.json"
    js.parent.mkdir()
    rc, out, err = cli("sensitivity", "profile", "--function", "majority", "--N", "10", "--json", str(js))
    assert rc == 0 and err == f"wrote {js}\n"   # the closing account only: no progress for one profile
    assert "562" in out and "252" in out and "210" in out and "agree" in out
    data = json.loads(js.read_text())
    assert data["profile"] == [562, 0, 0, 0, 0, 252, 210, 0, 0, 0, 0]
    assert data["formula"] == {"0": 562, "5": 252, "6": 210} and data["formula_agrees"] is True
    assert data["average_sensitivity_exact"] == "315/128"
    assert data["min_sensitivity"] == 0 and data["max_sensitivity"] == 6


def test_params_and_figure(tmp_path, cli):
    fig = tmp_path / "h.png"
    pdf = tmp_path / "h.pdf"
    rc, out, _ = cli("sensitivity", "profile", "--function", "sparse_parity", "--N", "8", "--S", "0,2,5", "--figure", str(fig))
    assert rc == 0 and fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "no zero-sensitivity string" in out
    rc, _, _ = cli("sensitivity", "profile", "--function", "dictator", "--N", "5", "--i", "3", "--figure", str(pdf))
    assert rc == 0 and pdf.read_bytes()[:4] == b"%PDF"
    rc, out, _ = cli("sensitivity", "profile", "--function", "random", "--N", "6", "--seed", "3")
    assert rc == 0 and "K_0 =" in out
    # no temporary files left beside the figures and their provenance sidecar (one per stem)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.pdf", "h.png", "h.provenance.json"]


def test_table_files(tmp_path, cli):
    and2 = tmp_path / "and.txt"
    and2.write_text("0 0\n0 1\n")
    js = tmp_path / "and.json"
    rc, _, _ = cli("sensitivity", "profile", "--table", str(and2), "--json", str(js))
    assert rc == 0 and json.loads(js.read_text())["profile"] == [1, 2, 1]
    npy = tmp_path / "maj.npy"
    from numeric.boolean._functions import truth_table

    np.save(npy, truth_table("majority", 7).numpy())
    rc, out, _ = cli("sensitivity", "profile", "--table", str(npy), "--json", str(js))
    assert rc == 0 and json.loads(js.read_text())["profile"][0] == 2**7 - 70  # C(8, 4)
    # MSB-first listing of x_0 (itertools order): the first half 0, the second half 1
    msb = tmp_path / "first_msb.txt"
    msb.write_text("0000" "1111")
    rc, _, _ = cli("sensitivity", "profile", "--table", str(msb), "--msb-first", "--json", str(js))
    data = json.loads(js.read_text())
    assert rc == 0 and data["profile"] == [0, 8, 0, 0]


@pytest.mark.parametrize(
    "argv, name",
    [
        (["--function", "xor", "--N", "4"], "--function"),
        (["--function", "parity"], "--N"),
        (["--function", "parity", "--N", "25"], "--N"),
        (["--function", "parity", "--N", "-1"], "--N"),
        (["--function", "dictator", "--N", "4", "--i", "7"], "--i"),
        (["--function", "sparse_parity", "--N", "4", "--S", "0,x"], "--S"),
        (["--function", "sparse_parity", "--N", "4", "--S", "0,9"], "--S"),
        (["--function", "constant", "--N", "4", "--value", "2"], "--value"),
        (["--function", "parity", "--N", "4", "--msb-first"], "--msb-first"),
        (["--function", "parity", "--N", "4", "--figure", "/tmp/x.jpg"], "--figure"),
        (["--function", "parity", "--N", "4", "--device", "tpu"], "--device"),
        (["--function", "majority", "--N", "4", "--json", "/proc/nope/x.json"], "--json"),
        (["--function", "majority", "--N", "4", "--json", "/"], "--json"),
    ],
)
def test_bad_function_input(argv, name, cli):
    rc, out, err = cli("sensitivity", "profile", *argv)
    assert rc == 2
    assert err.startswith("boolverify: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert name in err


@pytest.mark.parametrize(
    "content, match",
    [
        ("0 1 1", "not a power of two"),
        ("0 1 2 0", "'2'"),
        ("", "length 0"),
    ],
)
def test_bad_table_files(tmp_path, content, match, cli):
    f = tmp_path / "t.txt"
    f.write_text(content)
    rc, _, err = cli("sensitivity", "profile", "--table", str(f))
    assert rc == 2 and "--table" in err and match in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "make, extra, name",
    [
        (lambda d: d / "none.npy", [], "--table"),
        (lambda d: (d / "bad.npy").write_bytes(b"not numpy") and d / "bad.npy", [], "--table"),
        (lambda d: np.save(d / "2d.npy", np.zeros((2, 2), dtype=np.uint8)) or d / "2d.npy", [], "--table"),
        (lambda d: np.save(d / "vals.npy", np.array([0.0, 0.5])) or d / "vals.npy", [], "--table"),
        (lambda d: np.save(d / "vals.npy", np.array([0.0, 0.5])) or d / "vals.npy", ["--N", "1"], "--N"),
    ],
)
def test_missing_and_malformed_files(tmp_path, cli, make, extra, name):
    rc, _, err = cli("sensitivity", "profile", "--table", str(make(tmp_path)), *extra)
    assert rc == 2 and name in err and err.count("\n") == 1 and "Traceback" not in err


def test_subprocess_one_line_error():
    r = run_cli_process("sensitivity", "profile", "--function", "parity", "--N", "40", timeout=120)
    assert r.returncode == 2
    assert r.stderr.startswith("boolverify: error: --N = 40") and r.stderr.count("\n") == 1
