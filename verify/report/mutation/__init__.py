"""Mutation testing of the claims: does each check fail when the code it checks is wrong?

:mod:`~verify.report.mutation.engine` (what a mutant is, installing one, running one in a
pytest worker), :mod:`~verify.report.mutation.catalogue_a` and
:mod:`~verify.report.mutation.catalogue_b` (the plausible bugs of paper A's and paper B's code; their
wrappers in ``makers_a``, ``makers_b_models`` and ``makers_b_bounds``, their probes in ``probes_a``
and ``probes_b``), :mod:`~verify.report.mutation.catalogue_registries` (a registry entry gone
wrong),
:mod:`~verify.report.mutation.runner` (the whole catalogue, the score),
:mod:`~verify.report.mutation.plugin` (the pytest plugin that installs a mutant in a worker).
"""
