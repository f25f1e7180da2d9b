"""Mutants of the registries (initialisation schemes, Boolean functions, optimisers, losses): a
missing or miswired entry must be caught by the claims that read the registry."""

from __future__ import annotations

from verify.report.mutation.engine import Mutant

REGISTRIES: tuple[Mutant, ...] = ()
