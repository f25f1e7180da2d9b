"""One progress style for every long command (verify/cli/progress.py): a bar with the count
k/n, the rate and the time left on a terminal, one line per finished unit on a pipe, and a
closing ``wrote PATH`` line per file written."""

import ast
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from tests.helpers import PROJECT_ROOT
from verify.cli import main
from verify.cli.progress import MODE_ENV, Progress, clock, rate_text, style

#: the commands whose work takes more than a moment: each must report through the one module
LONG_COMMAND_MODULES = ("check", "xor", "xor_stream", "sensitivity_random", "sensitivity_sample",
                        "sensitivity_train", "sensitivity_volume", "crossval_sharpness", "mutants", "runs",
                        "reproduce")
LINE = re.compile(r"^(?P<label>[^\[]+?): \[(?P<k>\d+)/(?P<n>\d+|\?)\] .*\(\d+\.\d s(, about [\d:]+ left)?\)$")


def _units(err: str, label: str) -> list:
    """The (k, n) of the unit lines of ``label`` in ``err``."""
    out = []
    for line in err.splitlines():
        m = LINE.match(line)
        if m and m["label"] == label:
            out.append((int(m["k"]), m["n"]))
    return out


# -- the module --------------------------------------------------------------------------------

def test_lines_on_a_pipe_one_per_unit_with_k_of_n(monkeypatch):
    monkeypatch.delenv(MODE_ENV, raising=False)
    pipe = io.StringIO()
    with Progress("volume", 3, unit="sigmas", stream=pipe) as p:
        for i in range(3):
            p.advance(f"parity N=4 sigma={i}", seconds=0.25)
        p.note("a message, not a unit")
    lines = pipe.getvalue().splitlines()
    assert lines[0] == "volume: [1/3] parity N=4 sigma=0 (0.2 s, about 0:00 left)" or lines[0].startswith(
        "volume: [1/3] parity N=4 sigma=0 (0.2 s")
    assert [ln.split("]")[0] for ln in lines[:3]] == ["volume: [1/3", "volume: [2/3", "volume: [3/3"]
    assert lines[3] == "volume: a message, not a unit" and len(lines) == 4


def test_unknown_total_reads_question_mark_and_weighted_work_counts_units():
    pipe = io.StringIO()
    with Progress("sweep", 2, unit="cells", stream=pipe) as p:
        p.work(10, 30, "d=10 m=2 (saved)")
        p.work(10, 30, "resumed from f.json: 1 of 2 cells kept")   # a message: no unit, rate restarts
        p.work(30, 30, "d=10 m=4")
    lines = pipe.getvalue().splitlines()
    assert lines[0].startswith("sweep: [1/2] d=10 m=2 (saved)")
    assert lines[1] == "sweep: resumed from f.json: 1 of 2 cells kept"
    assert lines[2].startswith("sweep: [2/2] d=10 m=4")
    pipe = io.StringIO()
    with Progress("compare", stream=pipe) as p:
        p.position(2, None, "softmax: one step")
    assert pipe.getvalue().startswith("compare: [2/?] softmax: one step")


def test_every_throttles_lines_but_keeps_the_last():
    pipe = io.StringIO()
    with Progress("step --stream", 100, unit="rows", every=3600, stream=pipe) as p:
        for k in range(10, 101, 10):
            p.position(k, 100, "pass 1")
    lines = pipe.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("step --stream: [100/100] pass 1")


def test_bar_on_a_terminal_shows_count_rate_and_time_left():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=160, color_system=None)
    with Progress("sample N=6", 4, unit="models", console=console) as p:
        for i in range(3):
            p.advance(f"model {i}", seconds=0.1)
            import time
            time.sleep(0.02)
    text = out.getvalue()
    assert "3/4 models" in text and "models/s" in text and "left" in text
    assert "[3/4]" not in text  # a bar, not lines


def test_the_environment_forces_the_style(monkeypatch):
    tty = type("Tty", (io.StringIO,), {"isatty": lambda self: True})()
    monkeypatch.delenv(MODE_ENV, raising=False)
    assert style(io.StringIO()) == "lines" and style(tty) == "bar"
    monkeypatch.setenv(MODE_ENV, "lines")
    assert style(tty) == "lines"
    monkeypatch.setenv(MODE_ENV, "bar")
    assert style(io.StringIO()) == "bar"


@pytest.mark.parametrize("per_second, text", [(None, "- runs/s"), (0.0, "- runs/s"), (2.5, "2.5 runs/s"),
                                              (0.5, "30 runs/min"), (1e-4, "0.36 runs/h")])
def test_rate_text(per_second, text):
    assert rate_text(per_second, "runs") == text


@pytest.mark.parametrize("seconds, text", [(0, "0:00"), (59.6, "1:00"), (61, "1:01"), (3725, "1:02:05")])
def test_clock(seconds, text):
    assert clock(seconds) == text


# -- the commands ----------------------------------------------------------------------------

def test_xor_sweep_on_a_pipe_one_line_per_cell_then_wrote(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(MODE_ENV, raising=False)
    out = tmp_path / "s.json"
    assert main(["xor", "sweep", "--d", "20", "--m", "2,3", "--seeds", "2", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert _units(err, "sweep") == [(1, "2"), (2, "2")]
    assert err.splitlines()[-1] == f"wrote {out}"


def test_sensitivity_volume_on_a_pipe_counts_all_sigmas(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(MODE_ENV, raising=False)
    out = tmp_path / "v.json"
    assert main(["sensitivity", "volume", "--function", "first,parity", "--N", "3", "--sigmas", "0.01,1",
                 "--models", "2", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert _units(err, "volume") == [(1, "4"), (2, "4"), (3, "4"), (4, "4")]
    assert err.splitlines()[-1] == f"wrote {out}"


def test_sensitivity_random_and_xor_compare_on_a_pipe(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(MODE_ENV, raising=False)
    out = tmp_path / "r.json"
    assert main(["sensitivity", "random", "--N", "4", "--D", "8", "--L", "1", "--models", "3",
                 "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert [k for k, n in _units(err, "random N=4")] == [1, 2, 3] and err.splitlines()[-1] == f"wrote {out}"
    fig = tmp_path / "c.png"
    assert main(["xor", "compare", "--d", "20", "--m", "4", "--seeds", "2", "--steps", "2",
                 "--figure", str(fig)]) == 0
    err = capsys.readouterr().err
    units = _units(err, "compare")
    assert units and units[-1][0] == len(units) and f"wrote {fig}" in err.splitlines()


def test_check_knows_its_total_before_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(MODE_ENV, raising=False)
    out = tmp_path / "c.json"
    assert main(["check", "--claim", "SX-1", "--jobs", "1", "--json", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert LINE.match(err[0]) and err[0].startswith("check: [1/1] SX-1 pass (")
    assert err[-1] == f"wrote {out}"


def test_a_forced_bar_shows_k_of_n_and_rate(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(MODE_ENV, "bar")
    assert main(["sensitivity", "volume", "--function", "first", "--N", "3", "--sigmas", "0.01,0.1,1",
                 "--models", "2"]) == 0
    err = capsys.readouterr().err
    assert "3/3 sigmas" in err and "sigmas/s" in err and "volume: [" not in err


# -- every long command goes through the one module ----------------------------------------------

def _rich_progress_imports(path: Path) -> list:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "rich.progress":
            found.append(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name == "rich.progress" for a in node.names):
            found.append(node.lineno)
    return found


def test_no_progress_display_outside_the_progress_module():
    own = PROJECT_ROOT / "verify" / "cli" / "progress.py"
    offenders = [f"{p.relative_to(PROJECT_ROOT)}:{line}"
                 for top in ("verify", "numeric") for p in sorted((PROJECT_ROOT / top).rglob("*.py"))
                 if p != own for line in _rich_progress_imports(p)]
    assert offenders == [], f"rich.progress imported outside verify/cli/progress.py: {offenders}"


@pytest.mark.parametrize("name", LONG_COMMAND_MODULES)
def test_long_commands_report_through_the_progress_module(name):
    text = (PROJECT_ROOT / "verify" / "cli" / f"{name}.py").read_text()
    assert "verify.cli.progress" in text, f"verify/cli/{name}.py shows no progress through verify.cli.progress"
    # ad-hoc progress lines straight to stderr would bypass the one style
    assert not re.search(r"print\(f?\"[^\"]*(\{[^}]*\}/\{[^}]*\})[^\"]*\", file=sys\.stderr", text)
