"""Number and table formats that the fragments of both papers share
(:mod:`verify.report.paper_a_fragments`, :mod:`verify.report.paper_b_fragments`).
"""

from __future__ import annotations


def signed_number(x, digits=2) -> str:
    """``x`` to ``digits`` decimals, negative with the typographic minus sign (−)."""
    return f"{x:.{digits}f}".replace("-", "−")


def markdown_table(header, rows) -> str:
    """A Markdown table on lines of its own (the markers stay outside it)."""
    lines = ["| " + " | ".join(map(str, header)) + " |", "|---" * len(header) + "|"]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return "\n" + "\n".join(lines) + "\n"
