"""Proof-checking CI: one pytest file per claim of SPEC §2-§3 (``pytest theorems/``).

Installed with the distribution, so ``pytest --pyargs theorems`` checks an installed copy.
"""
