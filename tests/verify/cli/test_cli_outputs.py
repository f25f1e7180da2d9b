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


# --------------------------------------------------------------------------- the output gate

#: every option of every command that names a file or folder: what it is. An output goes
#: through verify.cli.options.check_output (a folder through check_output_dir); a new option
#: that names a path must be added here, and is then tried against the gate below.
OUTPUT_OPTIONS = {
    ("check", "--json"): "file", ("check", "--markdown"): "file", ("check", "--html"): "file",
    ("derive", "--out"): "file",
    ("mutants", "--json"): "file",
    **{(f"xor {c}", o): k for c in ("step", "sweep", "samples", "compare")
       for o, k in (("--json", "file"), ("--figure", "figure"))},
    ("sensitivity profile", "--json"): "file", ("sensitivity profile", "--figure"): "figure",
    ("sensitivity random", "--json"): "file", ("sensitivity random", "--figure"): "figure",
    ("sensitivity bounds", "--json"): "file",
    ("sensitivity train", "--json"): "file", ("sensitivity train", "--figure"): "figure",
    ("sensitivity sample", "--json"): "file",
    ("sensitivity volume", "--json"): "file", ("sensitivity volume", "--figure"): "figure",
    **{(f"crossval {c}", "--json"): "file"
       for c in ("xor-grad", "xor-loss", "xor-file", "profile", "influences", "sharpness")},
    ("runs", "--out-dir"): "dir",
    ("reproduce", "--out-dir"): "dir",
}
INPUT_OPTIONS = {("check", "--mutants"), ("check", "--from-report"), ("sensitivity profile", "--table"), ("reproduce", "--committed"),
                 ("crossval sharpness", "--public"), ("crossval xor-file", "file"),
                 *{(f"crossval {c}", o) for c in ("xor-grad", "xor-loss", "profile", "influences")
                   for o in ("--path", "--python", "target")}}
PATHLIKE = ("FILE", "DIR", "PATH")

#: a command line of each command that passes every other check ({in}: the input file of the
#: command, or None where it reads none; {pub}: a stand-in public checkout)
BASE = {
    "check": (["check", "--claim", "SX-1", "--mutants", "{in}"], "mutants"),
    "derive": (["derive", "--no-checks"], None),
    "mutants": (["mutants", "--list"], None),
    "xor step": (["xor", "step", "--d", "10", "--m", "2"], None),
    "xor sweep": (["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "1"], None),
    "xor samples": (["xor", "samples", "--d", "10", "--n", "4", "--seeds", "1"], None),
    "xor compare": (["xor", "compare", "--d", "10", "--m", "2", "--seeds", "1", "--steps", "1"], None),
    "sensitivity profile": (["sensitivity", "profile", "--table", "{in}"], "table"),
    "sensitivity random": (["sensitivity", "random", "--N", "3", "--models", "1"], None),
    "sensitivity bounds": (["sensitivity", "bounds"], None),
    "sensitivity train": (["sensitivity", "train", "--N", "4", "--steps", "1"], None),
    "sensitivity sample": (["sensitivity", "sample", "--N", "4", "--models", "1", "--strings", "2"], None),
    "sensitivity volume": (["sensitivity", "volume", "--function", "first", "--N", "4", "--models", "2"], None),
    "crossval xor-grad": (["crossval", "xor-grad", "math:sqrt"], None),
    "crossval xor-loss": (["crossval", "xor-loss", "math:sqrt"], None),
    "crossval influences": (["crossval", "influences", "math:sqrt"], None),
    "crossval profile": (["crossval", "profile", "{in}:f"], "py"),
    "crossval xor-file": (["crossval", "xor-file", "{in}"], "xor-file"),
    "crossval sharpness": (["crossval", "sharpness", "--public", "{pub}"], "public"),
    "runs": (["runs", "sg5", "--quick"], None),
    "reproduce": (["reproduce", "sg5", "--quick", "--committed", "{committed}"], None),
}
INPUT_CONTENT = {"mutants": json.dumps({"mutants": [], "caught": 0, "total": 0, "score": 1.0, "survivors": []}),
                 "table": "0110", "py": "def f(x):\n    return x\n", "xor-file": "{}",
                 "public": "# stand-in\n"}


def _path_options():
    out = {}
    for path, action in _options(build_parser()):
        out[(" ".join(path), action.option_strings[0])] = action
    for path, action in _positionals(build_parser()):
        out[(" ".join(path), action.dest)] = action
    return out


def _positionals(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _positionals(sub, (*path, name))
        elif not action.option_strings and action.metavar and any(m in str(action.metavar) for m in PATHLIKE):
            yield path, action


OUTPUT_WORDS = ("json", "out", "figure", "markdown", "csv", "html", "pdf", "png", "svg", "report", "save", "dir")


def test_every_option_naming_a_path_is_classified():
    """An option that names a file or folder, or whose name says it writes one, is either an
    output (tried against the gate below) or a known input: a new command cannot add an
    output that skips the gate without this test failing."""
    unknown = []
    for key, action in _path_options().items():
        names = " ".join(action.option_strings) or action.dest
        words = set(names.lower().replace("--", " ").replace("-", " ").replace("_", " ").split())
        named_like_output = action.nargs != 0 and bool(words & set(OUTPUT_WORDS))
        if (any(m in str(action.metavar) for m in PATHLIKE) or named_like_output) \
                and key not in OUTPUT_OPTIONS and key not in INPUT_OPTIONS:
            unknown.append(key)
    assert not unknown, f"classify these in OUTPUT_OPTIONS or INPUT_OPTIONS: {unknown}"
    commands = {cmd for cmd, _ in OUTPUT_OPTIONS}
    assert commands <= set(BASE), sorted(commands - set(BASE))


def _hostile_targets(kind, tmp_path, input_file):
    """(label, path) of each path the gate must refuse for an output of ``kind``."""
    import os

    ext = ".svg" if kind == "figure" else ".json"
    fifo = tmp_path / f"fifo{ext}"
    os.mkfifo(fifo)
    folder = tmp_path / f"folder{ext}"
    folder.mkdir()
    link = tmp_path / f"link{ext}"
    link.symlink_to(fifo)
    if kind == "dir":
        plain = tmp_path / "plain"
        plain.write_text("a file, not a folder")
        return [("a FIFO", fifo), ("a file", plain), ("a path through a file", plain / "sub"),
                ("a symlink to a FIFO", link), ("an unwritable place", "/proc/boolverify-out")]
    targets = [("a FIFO", fifo), ("a folder", folder), ("a name in a missing folder", tmp_path / "missing" / f"x{ext}"),
               ("a symlink to a FIFO", link), ("a dangling symlink into a missing folder", _dangling(tmp_path, ext))]
    if input_file is not None and kind != "figure":
        targets.append(("an input file", input_file))
    return targets


def _dangling(tmp_path, ext):
    link = tmp_path / f"dangling{ext}"
    link.symlink_to(tmp_path / "missing" / f"target{ext}")
    return link


def _snapshot(folder):
    import os
    import stat

    out = []
    for p in sorted(folder.rglob("*")):
        st = os.lstat(p)
        content = p.read_bytes() if stat.S_ISREG(st.st_mode) else os.readlink(p) if stat.S_ISLNK(st.st_mode) else None
        out.append((str(p.relative_to(folder)), stat.S_IFMT(st.st_mode), content))
    return out


CASES = sorted(OUTPUT_OPTIONS.items())


@pytest.mark.parametrize("key, kind", CASES, ids=[f"{c} {o}" for (c, o), _ in CASES])
def test_every_output_option_goes_through_the_gate(key, kind, tmp_path, monkeypatch, capsys):
    command, option = key
    argv, input_kind = BASE[command]
    work, cwd = tmp_path / "work", tmp_path / "cwd"
    work.mkdir()
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    pub = work / "public"
    (pub / "src").mkdir(parents=True)
    (pub / "src" / "measurements.py").write_text(INPUT_CONTENT["public"])
    committed = work / "committed"
    (committed / "data").mkdir(parents=True)
    (committed / "data" / "sg5_margin.json").write_text("{}")
    input_file = None
    if input_kind == "public":
        input_file = pub / "src" / "measurements.py"
    elif input_kind is not None:
        input_file = work / ("input.py" if input_kind == "py" else "input.txt")
        input_file.write_text(INPUT_CONTENT[input_kind])
    fill = {"{in}": str(input_file), "{pub}": str(pub), "{committed}": str(committed)}
    failures = []
    for label, target in _hostile_targets(kind, work, input_file):
        before = _snapshot(work)
        args = [a for a in argv]
        for k, v in fill.items():
            args = [a.replace(k, v) for a in args]
        code = main([*args, option, str(target)])
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        ok = (code == 2 and len(lines) == 1 and lines[0].startswith("boolverify: error: ")
              and "Traceback" not in err and _snapshot(work) == before and list(cwd.iterdir()) == [])
        if ok and label == "an input file":
            ok = "input" in err
        if not ok:
            failures.append(f"{label}: exit {code}, {err.strip()[:300]!r}")
    assert not failures, "\n".join(failures)


def test_the_gate_refuses_a_device_without_writing_it():
    """/dev/null is only ever handed to the check (as root, a write would replace the device)."""
    from numeric.validation import InputError
    from verify.cli.options import check_output

    with pytest.raises(InputError, match="--json = '/dev/null': expected a regular file"):
        check_output("/dev/null", "--json")


def test_a_symlink_is_followed_and_kept(tmp_path, capsys):
    """A link to a regular file is written through: the target gets the new contents, the link
    stays a link (never replaced by a copy, never left pointing at stale contents)."""
    import os

    target = tmp_path / "target.json"
    target.write_text("stale")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert main(["xor", "step", "--d", "10", "--m", "2", "--json", str(link)]) == 0
    assert os.path.islink(link) and json.loads(target.read_text())["d"] == 10


def test_a_long_name_within_the_limit_is_written(tmp_path, capsys):
    """A 255-byte name is legal: the probe, the temporary file and the lock stay within the limit."""
    out = tmp_path / ("s" * 250 + ".json")
    assert main(["xor", "sweep", "--d", "10", "--m", "2", "--seeds", "1", "--out", str(out)]) == 0
    assert out.is_file() and sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_the_write_refuses_a_fifo_made_after_the_check(tmp_path):
    """The write itself refuses a target that is not a regular file (a FIFO created between
    the check and the write is not replaced)."""
    import os

    from numeric.validation import InputError
    from verify.common.atomic_io import atomic_write_json

    fifo = tmp_path / "late.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        atomic_write_json(fifo, {"a": 1})
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["late.json"]


def test_the_gate_takes_inputs_as_paths_or_pairs(tmp_path):
    """check_output(path, name, inputs=[...]): bare paths (e.g. a public source file) or
    (option, path) pairs; a different spelling or a link of an input is the input."""
    from numeric.validation import InputError
    from verify.cli.options import check_output

    source = tmp_path / "src" / "measurements.py"
    source.parent.mkdir()
    source.write_text("x = 1\n")
    with pytest.raises(InputError, match="the input '.*measurements.py'"):
        check_output(str(tmp_path / "src" / ".." / "src" / "measurements.py"), "--json", inputs=[source])
    with pytest.raises(InputError, match="the input --public = "):
        check_output(source, "--json", inputs=[("--public", source)])
    assert check_output(tmp_path / "out.json", "--json", inputs=[source]) == tmp_path / "out.json"
