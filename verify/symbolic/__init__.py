"""Symbolic layer (sympy): the population loss and gradient derived in closed form, the chain
rule through the attention maps, exact enumeration of polynomials over {±1}^d, the CLS-token
identity, the sensitivity-profile proofs, and the LaTeX document."""
