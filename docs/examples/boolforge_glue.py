"""Glue between ``boolverify crossval`` and BoolForge (https://pypi.org/project/boolforge/), run in
BoolForge's own environment with ``--python VENV/bin/python``: boolverify need not be installed
there, and this file imports nothing of it.

boolverify hands each function a truth table ``t`` (a numpy int64 array of 0/1, ``t[x] = f(x)``
with ``x = sum_n bit_n 2^n``). BoolForge reads the same list as its table ``f`` and names its
variables MSB first (variable ``x_i`` is bit ``N-1-i`` of the index), so the function is the
same and only the order of per-variable results differs: its activities are checked with
``--order msb``. Its sensitivities are summed over the variables and need no reordering.
"""

import boolforge


def activities(table):
    """Per-variable influences (BoolForge's activities), exactly enumerated, MSB first."""
    return boolforge.BooleanFunction(table).get_activities(exact=True)


def activities_default(table):
    """BoolForge's default: exact up to 15 variables, estimated by sampling (unseeded) above."""
    return boolforge.BooleanFunction(table).get_activities()


def average_sensitivity(table):
    """as(f), the sum of the activities (``--returns average``)."""
    return boolforge.BooleanFunction(table).get_average_sensitivity(exact=True, normalized=False)


def normalised_sensitivity(table):
    """as(f)/N, BoolForge's default normalisation (``--returns normalised``)."""
    return boolforge.BooleanFunction(table).get_average_sensitivity(exact=True)
