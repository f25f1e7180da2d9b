"""High-precision references (mpmath, 50 digits): the population loss and gradient, the
brute-force enumeration oracle, the paper-B bounds and the linear/erf loss lower bounds.

``verify.reference.population_loss`` and ``verify.reference.population_grad`` are the public
references that other projects and the suite's own checks call.
"""

from verify.reference.population import ATTENTIONS, population_grad, population_loss

__all__ = ["ATTENTIONS", "population_loss", "population_grad"]
