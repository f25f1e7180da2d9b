"""The ``boolverify`` command.

Each command group lives in ``verify/cli/<group>.py`` and exposes
``register(subparsers)``; its handler is stored as ``func`` on the parsed namespace and
imports the heavy modules (torch, sympy) only when it runs.

Bad input (:class:`verify.errors.InputError`) prints one line and exits 2, with no traceback.
Ctrl-C exits 130; writers in :mod:`verify.io` leave no half-written file behind.
"""

from __future__ import annotations

import argparse
import sys

from numeric.validation import InputError

_GROUPS = ("check", "derive", "xor", "sensitivity", "crossval")


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


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
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
