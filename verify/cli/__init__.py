"""The ``boolverify`` command.

Each command group lives in ``verify/cli/<group>.py`` and exposes
``register(subparsers)``; its handler is stored as ``func`` on the parsed namespace and
imports the heavy modules (torch, sympy) only when it runs.

Bad input (:class:`numeric.validation.InputError`; option checks use the helpers of
:mod:`numeric.validation` with the option's spelling as the name) prints one line and exits 2,
with no traceback; so do argparse's own usage errors, also when :func:`main` is called in-process.
Ctrl-C exits 130, also during start-up; the writers of :mod:`verify.common.atomic_io` leave no
half-written file behind.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from numeric.validation import InputError

_GROUPS = ("check", "derive", "xor", "sensitivity", "crossval", "mutants")


class _Parser(argparse.ArgumentParser):
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
    for name in _GROUPS:
        importlib.import_module(f"verify.cli.{name}").register(sub)
    return parser


@contextlib.contextmanager
def writing(path, name):
    """Around the write of an output option's file: an :class:`InputError` of the writer
    (a directory, a folder that cannot be created) is re-raised naming the option."""
    try:
        yield path
    except InputError as exc:
        raise InputError(f"{name} = {str(path)!r}: expected a file name that can be written ({exc})") from None


def main(argv=None) -> int:
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # usage errors (already printed) and --help
            return 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 2
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        rc = args.func(args)
    except InputError as exc:
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. an unreadable input that slipped past validation
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("boolverify: interrupted; no partial output was written", file=sys.stderr)
        return 130
    return int(rc or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
