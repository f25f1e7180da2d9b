"""The ``boolverify`` command.

Each command group lives in ``verify/cli/<group>.py`` and exposes
``register(subparsers)``; its handler is stored as ``func`` on the parsed namespace and
imports the heavy modules (torch, sympy) only when it runs.

Bad input (:class:`numeric.validation.InputError`; option checks use the helpers of
:mod:`numeric.validation` with the option's spelling as the name) prints one line and exits 2,
with no traceback; so do argparse's own usage errors, also when :func:`main` is called in-process.
Ctrl-C exits 130 and SIGTERM 143, also during start-up; both unwind normally (workers are
stopped, temporary folders removed), and the writers of :mod:`verify.common.atomic_io` leave no
half-written file behind; the message says which files the run did write before it was stopped
(finished cells of a resumable results file are kept, and the same command resumes from them).
``--help`` of every option shows its default. Long commands show their progress through
:mod:`verify.cli.progress`, and every command that finishes says on stderr, one ``wrote PATH``
line each, which files it wrote.

:func:`main` starts the run's provenance context (:mod:`verify.common.provenance`: argv as
typed, the start time), so every JSON file and figure the command writes records it.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import signal
import sys
import threading

from numeric.validation import InputError
from verify.common.provenance import run_context, written_files, written_summary

COMMAND_GROUPS = ("check", "derive", "xor", "sensitivity", "crossval", "mutants", "runs", "reproduce")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that ``finally`` blocks and atomic writers run."""


def _on_sigterm(signum, frame):
    raise Terminated()


#: options that name a file or folder the command writes: without them nothing is written there
OUTPUT_OPTIONS = frozenset({"json", "out", "markdown", "figure", "html", "out_dir"})


class _HelpFormatter(argparse.HelpFormatter):
    # the default of every option in --help, unless its text already gives it; an output
    # option left out writes nothing, which is its default
    def _get_help_string(self, action):
        text = action.help or ""
        if (not action.option_strings or "default" in text.lower() or action.default is argparse.SUPPRESS
                or isinstance(action.default, bool) or action.required):
            return text
        if action.default is None:
            if action.dest not in OUTPUT_OPTIONS:
                return text
            return f"{text} (default: not written)" if text else "default: not written"
        return f"{text} (default: %(default)s)" if text else "default: %(default)s"


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)
        # "-1,2" or "-1e3" is a (bad) value, not an unknown option: let the option's check
        # name it (no option of boolverify looks like a negative number)
        self._negative_number_matcher = re.compile(r"^-\.?\d[\d.,eE+-]*$")

    def _get_value(self, action, arg_string):
        # a type that checks its value itself (``options.integer``) raises InputError naming
        # the option, instead of argparse's "invalid int value"
        if getattr(action.type, "names_option", False):
            return action.type(arg_string, action.option_strings[0] if action.option_strings else action.metavar
                               or action.dest)
        return super()._get_value(action, arg_string)

    # argparse's own usage errors already exit 2; keep them to one line as well.
    def error(self, message):
        self.exit(2, f"boolverify: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = _Parser(
        prog="boolverify",
        description="Check the two-head sparse-XOR and the transformer-sensitivity claims "
        "(as formalised in boolverify).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_GROUPS:
        importlib.import_module(f"verify.cli.{name}").register(sub)
    return parser


def needs_subcommand(parser, subparsers):
    """The handler of a command group run without a subcommand: one line naming the choices."""
    def handler(args):
        raise InputError(f"{parser.prog}: expected a subcommand, one of {', '.join(subparsers.choices)} "
                         f"(see '{parser.prog} --help')")
    return handler


@contextlib.contextmanager
def writing(path, name):
    """Around the write of an output option's file: an :class:`InputError` of the writer
    (a directory, a folder that cannot be created) is re-raised naming the option."""
    try:
        yield path
    except InputError as exc:
        raise InputError(f"{name} = {str(path)!r}: expected a file name that can be written ({exc})") from None


@contextlib.contextmanager
def as_options(mapping):
    """Around a library call made for a command: an :class:`InputError` about one of the
    call's arguments (``mapping``: argument -> option, e.g. ``{"train_strings":
    "--train-strings"}``) is re-raised naming the option the user wrote."""
    try:
        yield
    except InputError as exc:
        option = mapping.get(exc.name)
        text = str(exc)
        if option is None or not text.startswith(f"{exc.name} "):
            raise
        raise InputError(option + text[len(exc.name):], name=option, value=exc.value,
                         expected=exc.expected) from None


def main(argv=None) -> int:
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _main(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _stopped(what: str) -> str:
    kept = written_summary()
    return f"boolverify: {what}; " + (f"kept: {kept}" if kept else "no output was written")


def _main(argv) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # a command run by another one (runs, reproduce) gets its own record, and the outer
    # command's record (what it has written so far) is back when it returns
    with run_context(argv):
        return _run(argv)


def _run(argv) -> int:
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # usage errors (already printed) and --help
            return 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 2
        if not getattr(args, "func", None):
            raise InputError(f"expected a command, one of {', '.join(COMMAND_GROUPS)} (see 'boolverify --help')")
        from verify.cli.options import DEFAULT_MAX_DAYS, set_time_budget

        set_time_budget(getattr(args, "max_days", DEFAULT_MAX_DAYS))
        rc = args.func(args)
        from verify.cli.progress import report_written

        report_written(written_files())
    except InputError as exc:
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. an unreadable input that slipped past validation
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("boolverify: error: out of memory; choose smaller sizes", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        # an allocation the size checks did not foresee (e.g. memory taken by other programs)
        if "allocate" not in str(exc) and "out of memory" not in str(exc):
            raise
        print(f"boolverify: error: out of memory ({str(exc).splitlines()[0][:200]}); choose smaller sizes",
              file=sys.stderr)
        return 2
    except Terminated:
        print(_stopped("terminated"), file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(_stopped("interrupted"), file=sys.stderr)
        return 130
    return int(rc or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
