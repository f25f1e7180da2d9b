"""Cross-validation of per-variable influences (BoolForge's "activities"): a function mapping a
truth table to the vector :math:`\\mathrm{Inf}_i(f) = \\Pr_x[f(x) \\ne f(x^{\\oplus i})]`,
:math:`i = 0..N-1`, driven with random tables like a profile (:mod:`verify.crossval.table_runs`)
against boolverify's exact enumeration, with the conventions (:class:`InfluenceConventions`)
under which the received values would agree.

The reference pairs each string with its neighbour across bit ``i`` through the engine's
:func:`numeric.boolean.bit_view`, so each influence is an exact count over :math:`2^N`.
"""

from __future__ import annotations

from dataclasses import dataclass

from numeric.validation import InputError, check_choice, reject
from verify.crossval.profile_functions import TABLE_VALUES, array_text, values_text
from verify.crossval.property_runs import to_floats, values_agree
from verify.crossval.results import QUANTITY, CrossvalResult
from verify.crossval.table_runs import MAX_TABLE_N, TableCheck, hint_tables, run_table_check
from verify.crossval.target import ARRAY_KINDS, TargetFailed

#: The order of the influences returned (:class:`InfluenceConventions`).
BIT_ORDERS = ("lsb", "msb")
#: Largest N an influence function is driven with.
MAX_INFLUENCE_N = MAX_TABLE_N


@dataclass
class InfluenceConventions:
    """Conventions of an influence implementation under test.

    Attributes:
        values: ``"01"`` (tables of 0/1, ours) or ``"pm1"`` (+1/-1, with ``0 -> +1``, ``1 -> -1``).
        order: ``"lsb"`` (ours: entry ``i`` is the influence of bit ``i`` of the index
            :math:`x = \\sum_n \\mathrm{bit}_n 2^n`) or ``"msb"`` (entry ``i`` is that of bit
            ``N-1-i``: variable ``x_i`` of an MSB-first table, as BoolForge lists them).
        array: the table handed over as a ``"numpy"`` int64 array, a ``"torch"`` tensor or a
            plain ``"list"``.
    """

    values: str = "01"
    order: str = "lsb"
    array: str = "numpy"

    def __post_init__(self):
        check_choice(self.values, "values", TABLE_VALUES)
        check_choice(self.order, "order", BIT_ORDERS)
        check_choice(self.array, "array", ARRAY_KINDS)

    def describe(self) -> str:
        order = ("entry i for bit i of x = sum_n bit_n 2^n (LSB first)" if self.order == "lsb" else
                 "entry i for bit N-1-i of x (MSB first)")
        return f"{values_text(self.values)} as {array_text(self.array)}, influences as probabilities, {order}"


def influences(bits) -> list[float]:
    """Our influences of a 0/1 table, bit 0 first: the number of strings whose neighbour across
    bit ``i`` has the other value, over :math:`2^N` (exact in float64)."""
    import numpy as np
    import torch

    from numeric.boolean import bit_view

    t = torch.from_numpy(np.ascontiguousarray(bits, dtype=np.uint8))
    N = t.numel().bit_length() - 1
    out = []
    for i in range(N):
        v = bit_view(t, N, i)
        out.append(2 * int((v[:, 0, :] != v[:, 1, :]).sum()) / 2**N)
    return out


def _encode(bits, values):
    import numpy as np

    t = bits.astype(np.int64)
    return t if values == "01" else 1 - 2 * t


def _ordered(infl, order):
    return list(infl) if order == "lsb" else list(infl)[::-1]


def _influence_hints(target, conv, bits, received):
    """Conventions (table values, bit order) under which the function agrees with us on the shrunk
    table and on :func:`~verify.crossval.table_runs.hint_tables`, or a slip it makes on all of them
    (counts for probabilities, the wrong quantity)."""
    tables = [bits] + hint_tables()
    ours = [influences(t) for t in tables]
    answers = {}
    for values in (conv.values, "pm1" if conv.values == "01" else "01"):
        try:
            answers[values] = [received if (values == conv.values and i == 0) else
                               to_floats(target.call((_encode(t, values),)), "influences")
                               for i, t in enumerate(tables)]
        except (TargetFailed, InputError):
            continue
    for values, got in answers.items():
        for order in BIT_ORDERS:
            if (values, order) == (conv.values, conv.order):
                continue
            if all(values_agree(_ordered(o, order), g, o or [1.0]) for o, g in zip(ours, got)):
                changes = {k: v for k, v in (("values", values), ("order", order)) if getattr(conv, k) != v}
                what = []
                if "order" in changes:
                    what.append("listed " + ("MSB first (entry i is bit N-1-i)" if order == "msb" else
                                             "LSB first (entry i is bit i)"))
                if "values" in changes:
                    what.append(f"when handed {'±1' if values == 'pm1' else '0/1'} tables")
                return [(f"the function computes our influences {' and '.join(what)}", changes)]
    got = answers.get(conv.values)
    N = len(bits).bit_length() - 1
    if got is not None:
        for order in BIT_ORDERS:
            ins = [[x * len(t) for x in _ordered(o, order)] for o, t in zip(ours, tables)]
            if all(values_agree(i, g, i or [1.0]) for i, g in zip(ins, got)):
                return [("the received influences are ours times 2^N (counts of inputs, not probabilities)"
                         + ("; and MSB first: --order msb" if order != conv.order else ""), {})]
    if len(received) != N:
        guess = ("; a profile K_0..K_N? check it with 'crossval profile'" if len(received) == N + 1 else
                 "; the average sensitivity? check it with 'crossval profile --returns average'"
                 if len(received) == 1 else "")
        return [(f"the function returned {len(received)} numbers for a table of N = {N}, where N influences are "
                 f"expected{guess}", {})]
    return []


def crossval_influences(fn, conventions: InfluenceConventions | None = None, max_N=10, max_examples=100,
                        seed=0, *, timeout=None, paths=(), python=None) -> CrossvalResult:
    """Drive an influence implementation ``fn(table) -> [Inf_0, ..., Inf_{N-1}]`` with random tables
    of every ``N`` from 1 to ``max_N`` (at most 20), like
    :func:`~verify.crossval.profile_functions.crossval_profile_function`."""
    conv = conventions or InfluenceConventions()
    if not isinstance(conv, InfluenceConventions):
        reject("conventions", f"<{type(conv).__name__}>", "an InfluenceConventions")
    check = TableCheck(quantity=QUANTITY["influences"], expected=lambda bits: _ordered(influences(bits), conv.order),
                       read=lambda out, N: to_floats(out, "influences"),
                       encode=lambda bits: _encode(bits, conv.values),
                       hints=lambda target, bits, received: _influence_hints(target, conv, bits, received))
    return run_table_check(fn, check, conv, max_N=max_N, max_examples=max_examples, seed=seed, timeout=timeout,
                           paths=paths, python=python)


__all__ = ["BIT_ORDERS", "InfluenceConventions", "MAX_INFLUENCE_N", "crossval_influences", "influences"]
