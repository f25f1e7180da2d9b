"""Every displayed identity of the derivation document, in the order displayed."""

from __future__ import annotations

from verify.derivations.identity import Identity
from verify.derivations.paper_a import paper_a
from verify.derivations.paper_b import paper_b


def all_identities() -> list[Identity]:
    """Every identity of the document, paper A then paper B, in the order displayed."""
    return paper_a() + paper_b()


def identity(label) -> Identity:
    """The identity labelled ``label``."""
    for ident in all_identities():
        if ident.label == label:
            return ident
    raise KeyError(label)


__all__ = ["all_identities", "identity"]
