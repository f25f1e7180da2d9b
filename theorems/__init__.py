"""Proof-checking CI: one pytest file per claim of docs/claims.md (``pytest theorems/``).

Installed with the distribution, so ``pytest --pyargs theorems`` checks an installed copy.
"""
