"""`boolverify sensitivity ...`: paper B (sensitivity profiles, random transformers, training).

Subcommands are defined in three modules so that each can grow on its own:
``sensitivity_profile`` (``profile``), ``sensitivity_random`` (``random``, ``bounds``),
``sensitivity_train`` (``train``). Each exposes ``register(subparsers)``.
"""

from __future__ import annotations

import importlib

from verify.cli import needs_subcommand


def register(sub):
    p = sub.add_parser("sensitivity", help="paper B: sensitivity profiles, random transformers, training")
    inner = p.add_subparsers(dest="sensitivity_command", metavar="SUBCOMMAND", parser_class=type(p))
    for mod in ("sensitivity_profile", "sensitivity_random", "sensitivity_train", "sensitivity_sample",
                "sensitivity_volume"):
        importlib.import_module(f"verify.cli.{mod}").register(inner)
    p.set_defaults(func=needs_subcommand(p, inner))
