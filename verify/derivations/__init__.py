"""The derivation document of ``boolverify derive``: every displayed identity printed from the
sympy object or exact fact that its check verifies, the prose around them, and the LaTeX/PDF."""

from verify.derivations.identity import TEST, Identity
from verify.derivations.latex import LatexError, compile_pdf, derivation_tex, write_tex
from verify.derivations.registry import all_identities, identity

__all__ = ["Identity", "TEST", "all_identities", "identity", "derivation_tex", "write_tex", "compile_pdf",
           "LatexError"]
