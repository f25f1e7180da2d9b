"""Cross-validation of a sensitivity-profile implementation (mapping a truth table to a profile,
an average sensitivity or a normalised one), driven by Hypothesis with random truth tables
against :mod:`numeric.boolean`; a mismatch is shrunk to the smallest table, with the
conventions (:class:`ProfileConventions`) under which the received values would agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from numeric.validation import InputError, check_choice, reject
from verify.crossval.property_runs import to_floats, values_agree
from verify.crossval.results import QUANTITY, CrossvalResult
from verify.crossval.table_runs import (
    LIST_N, MAX_TABLE_N, TableCheck, hint_tables, run_table_check, seeded_table,
)
from verify.crossval.target import ARRAY_KINDS, TargetFailed

#: Table values and return values of a profile implementation (:class:`ProfileConventions`).
TABLE_VALUES = ("01", "pm1")
PROFILE_RETURNS = ("profile", "average", "normalised")
#: Largest N a profile function is driven with (tables of 2^20 entries).
MAX_PROFILE_N = MAX_TABLE_N


@dataclass
class ProfileConventions:
    """Conventions of a sensitivity implementation under test.

    Attributes:
        values: ``"01"`` (tables of 0/1, ours) or ``"pm1"`` (tables of +1/-1, with
            ``0 -> +1``, ``1 -> -1``).
        returns: ``"profile"`` (counts K_0..K_N), ``"average"`` (:math:`as(f)`),
            ``"normalised"`` (:math:`as(f)/N`).
        array: the table handed over as a ``"numpy"`` int64 array, a ``"torch"`` tensor or a
            plain ``"list"``.
    """

    values: str = "01"
    returns: str = "profile"
    array: str = "numpy"

    def __post_init__(self):
        check_choice(self.values, "values", TABLE_VALUES)
        check_choice(self.returns, "returns", PROFILE_RETURNS)
        check_choice(self.array, "array", ARRAY_KINDS)

    def describe(self) -> str:
        """The conventions compared, in words (for the success line)."""
        return f"{values_text(self.values)} as {array_text(self.array)}, returning the {QUANTITY[self.returns]}"


def values_text(values):
    return "0/1 tables" if values == "01" else "±1 tables (0 -> +1, 1 -> -1)"


def array_text(array):
    return {"numpy": "numpy int64 arrays", "torch": "torch int64 tensors", "list": "plain lists"}[array]


def _profile_forms(bits):
    """Our profile of a 0/1 table in the three forms: ``{"profile": [K_k], "average": [as],
    "normalised": [as/N]}``."""
    import numpy as np
    import torch

    from numeric import boolean as sensitivity

    K = [int(k) for k in sensitivity.profile(torch.from_numpy(np.ascontiguousarray(bits, dtype=np.uint8)))]
    N = len(K) - 1
    avg = float(sum(k * c for k, c in enumerate(K))) / 2**N
    return {"profile": K, "average": [avg], "normalised": [avg / N if N else 0.0]}


def _encode(bits, values):
    import numpy as np

    t = bits.astype(np.int64)
    return t if values == "01" else 1 - 2 * t


def _profile_hints(target, conv, bits, received):
    """Conventions (table values, return value) under which the function agrees with us on the
    shrunk table and on :func:`_hint_tables`, or a slip it makes on all of them (a reversed
    profile, fractions for counts); the function is called again on those tables."""
    tables = [bits] + hint_tables()
    ours = [_profile_forms(t) for t in tables]
    answers = {}
    for values in (conv.values, "pm1" if conv.values == "01" else "01"):
        try:
            answers[values] = [received if (values == conv.values and i == 0) else
                               _read(target.call((_encode(t, values),)), "profile")
                               for i, t in enumerate(tables)]
        except (TargetFailed, InputError):
            continue
    for values, got in answers.items():
        for returns in PROFILE_RETURNS:
            if (values, returns) == (conv.values, conv.returns):
                continue
            if all(values_agree(o[returns], g, o[returns]) for o, g in zip(ours, got)):
                changes = {}
                if values != conv.values:
                    changes["values"] = values
                if returns != conv.returns:
                    changes["returns"] = returns
                handed = f" when handed {'±1' if values == 'pm1' else '0/1'} tables" if "values" in changes else ""
                return [(f"the function computes our {QUANTITY[returns]}{handed}", changes)]
    N = len(bits).bit_length() - 1
    got = answers.get(conv.values)
    if conv.returns != "profile" or got is None:
        return _count_hint(received, N, conv.returns)
    Ks = [o["profile"] for o in ours]
    if all(values_agree(K[::-1], g, K) for K, g in zip(Ks, got)):
        return [("the received profile is ours reversed (K_N..K_0)", {})]
    if all(values_agree([k / sum(K) for k in K], g, [1.0]) for K, g in zip(Ks, got)):
        return [("the received profile is ours divided by 2^N (fractions, not counts)", {})]
    return _count_hint(received, N, conv.returns)


def _read(out, what):
    return to_floats(out, what, keep_ints=True)


def _count_hint(received, N, returns):
    """A hint for an answer of the wrong length, from what its length suggests it is."""
    want = N + 1 if returns == "profile" else 1
    if len(received) == want:
        return []
    guess = ""
    if len(received) == N and N > 1:
        guess = "; per-variable influences? check them with 'crossval influences'"
    elif returns == "profile" and len(received) == 1:
        guess = "; as(f) or as(f)/N? --returns average or normalised"
    elif returns != "profile" and len(received) == N + 1:
        guess = "; a profile K_0..K_N? leave out --returns"
    count = f"{len(received)} number" + "s" * (len(received) != 1)
    return [(f"the function returned {count} for a table of N = {N}, where "
             + ("K_0..K_N, N + 1 numbers, are" if returns == "profile" else "one number is") + f" expected{guess}",
             {})]


def crossval_profile_function(fn, conventions: ProfileConventions | None = None, max_N=10,
                              max_examples=100, seed=0, *, timeout=None, paths=(), python=None) -> CrossvalResult:
    """Drive a profile implementation ``fn(table) -> profile | as(f) | as(f)/N`` with random tables.

    Every ``N`` from 1 to ``max_N`` (at most 20) is tested: tables of up to ``2^8`` entries are
    drawn entry by entry, larger ones from a drawn seed (:func:`seeded_table`); sizes that the
    Hypothesis run did not reach get their own short runs. ``fn``: a callable or a
    ``"MODULE:FUNCTION"`` string (run in a child process, ``timeout`` seconds per call; under the
    interpreter ``python`` when given, :mod:`verify.crossval.remote`).
    """
    conv = conventions or ProfileConventions()
    if not isinstance(conv, ProfileConventions):
        reject("conventions", f"<{type(conv).__name__}>", "a ProfileConventions")
    check = TableCheck(quantity=QUANTITY[conv.returns], expected=lambda bits: _profile_forms(bits)[conv.returns],
                       read=lambda out, N: _read(out, QUANTITY[conv.returns]), encode=lambda bits: _encode(bits, conv.values),
                       hints=lambda target, bits, received: _profile_hints(target, conv, bits, received))
    return run_table_check(fn, check, conv, max_N=max_N, max_examples=max_examples, seed=seed, timeout=timeout,
                           paths=paths, python=python)


__all__ = ["LIST_N", "MAX_PROFILE_N", "PROFILE_RETURNS", "TABLE_VALUES", "ProfileConventions",
           "crossval_profile_function", "seeded_table"]
