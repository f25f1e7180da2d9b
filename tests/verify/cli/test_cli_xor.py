"""`boolverify xor …`: tables, files, figures, bad input (exit 2, one line, no traceback)."""

import json

import pytest

from verify.cli import main


def test_step_prints_table_and_writes_files(tmp_path, capsys):
    out, fig = tmp_path / "step.json", tmp_path / "att.png"
    rc = main(["xor", "step", "--d", "16", "--m", "8", "--seed", "3", "--out", str(out), "--figure", str(fig)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "one population step" in text and "sup_exact" in text
    data = json.loads(out.read_text())
    assert data["d"] == 16 and "success" in data and "eps1" in data
    assert fig.stat().st_size > 1000


def test_sweep_resumes_and_draws(tmp_path, capsys):
    out, fig = tmp_path / "sw.json", tmp_path / "heat.pdf"
    argv = ["xor", "sweep", "--d", "40", "--m", "4,8", "--seeds", "6", "--out", str(out), "--figure", str(fig)]
    assert main(argv) == 0
    first = json.loads(out.read_text())
    assert main(argv) == 0
    assert json.loads(out.read_text()) == first  # nothing recomputed
    text = capsys.readouterr().out
    assert "Wilson" in text and "m*(d=40)" in text
    assert fig.exists()


def test_sweep_fits_with_two_d(tmp_path, capsys):
    fig = tmp_path / "mstar.png"
    assert main(["xor", "sweep", "--d", "30,60", "--m", "16,32", "--seeds", "4", "--figure", str(fig)]) == 0
    text = capsys.readouterr().out
    assert "power law: m*(d) ~ d^alpha" in text


def test_samples_and_compare(tmp_path, capsys):
    assert main(["xor", "samples", "--d", "16", "--n", "64,256", "--m", "8", "--seeds", "4",
                 "--out", str(tmp_path / "s.json")]) == 0
    assert "n*(d=16)" in capsys.readouterr().out
    out = tmp_path / "c.json"
    assert main(["xor", "compare", "--d", "40", "--m", "4", "--seeds", "3", "--steps", "3",
                 "--out", str(out), "--figure", str(tmp_path / "c.png")]) == 0
    res = json.loads(out.read_text())
    assert set(res) >= {"softmax", "linear", "erf", "linear_bound", "erf_bound"}
    assert 0 < res["linear_bound"]["bound"] <= 1


# (command line, the option the one-line message must name); each is wrong in one option
BAD_XOR_OPTIONS = [
    (["xor", "step", "--d", "1", "--m", "4"], "--d"),
    (["xor", "step", "--d", "10", "--m", "0"], "--m"),
    (["xor", "step", "--d", "100000", "--m", "100000"], "--d"),
    (["xor", "step", "--d", "10", "--m", "4", "--support", "3,3"], "--support"),
    (["xor", "step", "--d", "10", "--m", "4", "--support", "x"], "--support"),
    (["xor", "step", "--d", "10", "--m", "4", "--eps", "2"], "--eps"),
    (["xor", "step", "--d", "10", "--m", "4", "--c", "-1"], "--c"),
    (["xor", "step", "--d", "10", "--m", "4", "--figure", "x.txt"], "--figure"),
    (["xor", "sweep", "--d", "ten", "--m", "4"], "--d"),
    (["xor", "sweep", "--d", "1e400", "--m", "8"], "--d"),
    (["xor", "sweep", "--d", "10", "--m", "0"], "--m"),
    (["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "0"], "--seeds"),
    (["xor", "sweep", "--d", "10", "--m", "2", "--seeds-for-d", "10"], "--seeds-for-d"),
    (["xor", "sweep", "--d", "10", "--m", "2", "--seeds-for-d", "10:0"], "--seeds-for-d"),
    (["xor", "sweep", "--d", "10", "--m", "2", "--device", "tpu"], "--device"),
    (["xor", "samples", "--d", "10", "--n", "-3"], "--n"),
    (["xor", "samples", "--d", "10", "--n", "3", "--m", "0"], "--m"),
    (["xor", "compare", "--d", "10", "--m", "10"], "--m"),
    (["xor", "compare", "--d", "10", "--m", "4", "--steps", "-1"], "--steps"),
    (["xor", "compare", "--d", "10", "--m", "4", "--seeds", "2", "--train-seeds", "3"], "--train-seeds"),
]


@pytest.mark.parametrize("argv,name", BAD_XOR_OPTIONS, ids=[" ".join(a[1:]) for a, _ in BAD_XOR_OPTIONS])
def test_bad_input_exits_2_with_one_line(argv, name, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"boolverify: error: {name} = "), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreadable_results_file(tmp_path, capsys):
    p = tmp_path / "bad.json"
    p.write_text("[1, 2")
    assert main(["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "2", "--out", str(p)]) == 2
    assert "a readable JSON file" in capsys.readouterr().err
