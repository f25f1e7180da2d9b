"""Every option of every command says what it does and its default in --help, and README.md
lists every command and subcommand."""

import argparse
import re

import pytest

from tests.helpers import PROJECT_ROOT
from verify.cli import build_parser, main

FLAGS = (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._StoreConstAction,
         argparse._CountAction, argparse._HelpAction, argparse._VersionAction)


def _commands(parser=None, path=()):
    """``(path, parser)`` of the program and of every command and subcommand."""
    parser = parser or build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


COMMANDS = list(_commands())


def _options():
    for path, parser in COMMANDS:
        for action in parser._actions:
            if isinstance(action, (argparse._SubParsersAction, argparse._HelpAction)):
                continue
            yield " ".join(path), parser, action


OPTIONS = list(_options())


@pytest.mark.parametrize("command, parser, action", OPTIONS,
                         ids=[f"{c} {a.option_strings[0] if a.option_strings else a.dest}" for c, _, a in OPTIONS])
def test_every_option_has_help_with_its_default(command, parser, action):
    name = action.option_strings[0] if action.option_strings else action.dest
    assert action.help, f"boolverify {command} {name}: no help text"
    required = action.required or any(g.required and action in g._group_actions
                                      for g in parser._mutually_exclusive_groups)
    if isinstance(action, FLAGS) or not action.option_strings or required:
        return  # a flag says what it does; a positional or required option has no default
    shown = parser._get_formatter()._get_help_string(action)
    assert "default" in shown.lower(), f"boolverify {command} {name}: --help does not give its default ({shown!r})"


def test_the_formatter_prints_the_default_itself(capsys):
    assert main(["xor", "compare", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 2000)" in text and "--json FILE, --out FILE" in text and "(default: not written)" in text


@pytest.mark.parametrize("argv", [[], *[list(path) for path, _ in COMMANDS if path]])
def test_help_of_every_command_runs(argv, capsys):
    assert main([*argv, "--help"]) == 0
    assert "usage: boolverify" in capsys.readouterr().out


def test_check_help_makes_no_wall_clock_promise(capsys):
    main(["check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "< 2 min" not in out and "200 s on 2 cores" in out


def _readme_commands() -> str:
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Commands")
    return text[start:text.index("\n## ", start + 1)]


def test_readme_lists_every_command_and_subcommand():
    block = _readme_commands()
    missing = []
    for path, _ in COMMANDS:
        if not path:
            continue
        if len(path) == 1:
            ok = re.search(rf"^boolverify {re.escape(path[0])}\b", block, re.M)
        else:
            # "boolverify xor step|sweep|samples|compare ..." lists the subcommands of a group
            ok = any(path[1] in line.split()[2].split("|")
                     for line in block.splitlines() if line.startswith(f"boolverify {path[0]} "))
        if not ok:
            missing.append(" ".join(path))
    assert missing == [], f"README.md's command list omits: {missing}"


def test_readme_names_every_option_of_check_and_the_figures_run():
    block = _readme_commands()
    check = build_parser()._subparsers._group_actions[0].choices["check"]
    options = [a.option_strings[-1] for a in check._actions if a.option_strings and a.dest != "help"]
    assert [o for o in options if o not in block] == []
    assert "boolverify runs figures" in block


def test_readme_quickstart_is_two_commands():
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Quickstart")
    code = text[text.index("```bash", start) + len("```bash"):]
    code = code[:code.index("```")]
    assert len([line for line in code.splitlines() if line.strip()]) == 2
