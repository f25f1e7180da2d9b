"""Numbers of README.md and ``docs/results-*.md`` rendered from the data files of ``docs/data``,
never typed.

A document marks each rendered fragment with a pair of comments (invisible in Markdown)::

    the transition grows like <!-- data:sx4-statement -->...<!-- /data:sx4-statement --> ...

and only the text between a pair is rewritten, by the fragment of that name in
:data:`verify.report.fragments.FRAGMENTS` (the data files it reads and the function that renders
it; the SX-4 sentence is :func:`verify.report.statements.sx4_statement`, the one the
``xor_mstar`` figure's title shares). A marker whose name has no fragment is refused. Regenerate after a run with::

    python -m verify.report.documents            # rewrite the marked fragments in place
    python -m verify.report.documents --check    # exit 1 if a document is stale

(``--root DIR`` chooses the folder holding README.md and docs/, ``--data-dir DIR`` the data).
``tests/verify/report/test_documents.py`` fails when a document differs from what the data
render, and when a changed number in a copy of the data leaves a document unchanged.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from numeric.validation import InputError, reject
from verify.report.fragments import FRAGMENTS, DataCache

#: the documents with rendered fragments, relative to the project root
DOCUMENTS = ("README.md", "docs/results-paper-a.md", "docs/results-paper-b.md", "docs/results-boolean.md",
             "docs/performance.md")

MARKER = re.compile(r"<!-- data:(?P<name>[a-z0-9-]+) -->(?P<body>.*?)<!-- /data:(?P=name) -->", re.S)


def render_text(text: str, data, name="document") -> str:
    """``text`` with every marked fragment rendered from ``data`` (a :class:`DataCache`)."""
    def sub(match):
        fragment = FRAGMENTS.get(match["name"])
        if fragment is None:
            reject("marker", f"data:{match['name']} in {name}", f"a fragment name: {', '.join(FRAGMENTS)}")
        return f"<!-- data:{match['name']} -->{fragment.render(data)}<!-- /data:{match['name']} -->"
    return MARKER.sub(sub, text)


def fragment_names(text: str) -> list[str]:
    """The names of the fragments marked in ``text``, in order."""
    return [m["name"] for m in MARKER.finditer(text)]


def update_documents(root=".", data_dir=None, *, write=True, documents=DOCUMENTS) -> list[str]:
    """Render the marked fragments of ``documents`` (paths under ``root``) from ``data_dir``
    (default ``root/docs/data``); returns the documents that differed (rewritten with
    ``write``, atomically)."""
    from verify.common.atomic_io import atomic_write_text

    root = Path(root)
    data = DataCache(root / "docs" / "data" if data_dir is None else data_dir)
    stale = []
    for doc in documents:
        path = root / doc
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"document = {str(path)!r}: expected a readable text file ({exc})") from None
        new = render_text(text, data, name=str(path))
        if new != text:
            stale.append(doc)
            if write:
                atomic_write_text(path, new)
    return stale


def main(argv=None) -> int:
    """``python -m verify.report.documents [--root DIR] [--data-dir DIR] [--check]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m verify.report.documents",
                                     description="Render the marked numbers of README.md and "
                                     "docs/results-*.md from docs/data.")
    parser.add_argument("--root", default=".", metavar="DIR", help="folder of README.md and docs/")
    parser.add_argument("--data-dir", default=None, metavar="DIR", help="data folder (default ROOT/docs/data)")
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 if a document is stale")
    args = parser.parse_args(argv)
    try:
        stale = update_documents(args.root, args.data_dir, write=not args.check)
    except InputError as exc:
        print(f"boolverify: error: {exc}", file=sys.stderr)
        return 2
    for doc in DOCUMENTS:
        state = ("is stale" if args.check else "rewritten") if doc in stale else "is up to date"
        print(f"{doc}: rendered numbers {state}")
    return 1 if args.check and stale else 0


__all__ = ["DOCUMENTS", "MARKER", "render_text", "fragment_names", "update_documents", "main"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
