"""What the commands write: figures in the format their suffix names, one JSON option name,
defaults in --help, and tables that keep their numbers whole when output is not a terminal."""

from __future__ import annotations

import argparse
import json

import pytest

from verify.cli import build_parser, main
from verify.common.provenance import without_provenance
from tests.helpers import run_cli_process

MAGIC = {".png": b"\x89PNG", ".pdf": b"%PDF", ".svg": b"<?xml"}


@pytest.mark.parametrize("name", ["a.svg", "A.PNG", "b.pdf", "c.Svg"])
def test_xor_step_figure_has_the_format_of_its_suffix(tmp_path, name, capsys):
    assert main(["xor", "step", "--d", "12", "--m", "3", "--figure", str(tmp_path / name)]) == 0
    # that file only, no png+pdf pair (beside it, its provenance sidecar)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, f"{name.rsplit('.', 1)[0]}.provenance.json"])
    head = (tmp_path / name).read_bytes()[:5]
    assert head.startswith(MAGIC[(tmp_path / name).suffix.lower()])


def test_profile_figure_svg(tmp_path, capsys):
    out = tmp_path / "h.svg"
    assert main(["sensitivity", "profile", "--function", "majority", "--N", "5", "--figure", str(out)]) == 0
    assert out.read_bytes().startswith(b"<?xml")


def test_json_and_out_are_one_option(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["xor", "step", "--d", "12", "--m", "3", "--json", str(a)]) == 0
    assert main(["xor", "step", "--d", "12", "--m", "3", "--out", str(b)]) == 0
    assert without_provenance(json.loads(a.read_text())) == without_provenance(json.loads(b.read_text()))


def _options(parser, path=()):
    """Every (command path, option action) of the parser tree."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, (*path, name))
        elif action.option_strings and not isinstance(action, argparse._HelpAction):
            yield path, action


def test_help_shows_every_default():
    parser = build_parser()
    missing = []
    for path, action in _options(parser):
        if action.default in (None, argparse.SUPPRESS) or isinstance(action.default, bool):
            continue
        fmt = parser.formatter_class(prog="x")
        if "default" not in fmt._get_help_string(action).lower():
            missing.append(f"{' '.join(path)} {action.option_strings[0]}")
    assert not missing, missing


def test_piped_output_keeps_numbers_whole():
    """Through a pipe a table is not squeezed to the terminal's width (here 60 columns): each
    row, with its interval, stays on one line."""
    import os

    r = run_cli_process("xor", "sweep", "--d", "20", "--m", "2,3", "--seeds", "4",
                        env=dict(os.environ, COLUMNS="60"))
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if "[" in line and "│" in line]
    assert len(rows) == 2 and all("]" in row for row in rows), r.stdout


def test_crossval_leaves_no_hypothesis_folder_in_the_working_folder(tmp_path):
    import os
    from pathlib import Path

    import verify

    example = Path(verify.__file__).parent.parent / "docs" / "examples" / "my_sensitivity.py"
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    r = run_cli_process("crossval", "profile", f"{example}:profile_pm1", "--N", "4", "--values", "pm1",
                        "--examples", "20", cwd=work, env=dict(os.environ, XDG_CACHE_HOME=str(cache)))
    assert r.returncode == 0, r.stdout + r.stderr
    assert list(work.iterdir()) == []
    assert (cache / "boolverify" / "hypothesis").is_dir()
