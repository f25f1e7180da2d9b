"""One displayed identity of the derivation document and the test that runs its check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: the test that runs every identity's check, one test id per label
TEST = "test_derivation_document.py::test_identity"


@dataclass(frozen=True)
class Identity:
    """One displayed identity.

    Args:
        label: short unique name: the equation's tag, its LaTeX label and its test id.
        section: the document section it belongs to.
        body: ``body() -> str``: the LaTeX of the equation (``&`` and ``\\\\`` allowed: it is set
            in an ``aligned`` block); printed from the objects the check uses.
        check: ``check() -> (ok, detail)``.
        how: how it is checked, in words (the table at the end of the document).
        on_what: on what it is checked.
    """

    label: str
    section: str
    body: Callable[[], str]
    check: Callable[[], tuple]
    how: str
    on_what: str


__all__ = ["Identity", "TEST"]
