"""The run shared by the checks of functions of a truth table (a sensitivity profile,
:mod:`verify.crossval.profile_functions`; per-variable influences,
:mod:`verify.crossval.influence_functions`): a probe table called twice, then tables of every
``N`` drawn by Hypothesis, shrunk on a mismatch.

The probe's first answer is compared like any other (a function wrong on it is caught even if
Hypothesis never draws it), and its second answer on the same table tells a random target (one
that samples) from a wrong one: such a target is reported with the two answers, not as a plain
mismatch. The shrunk counterexample is called again for the same reason, since a target may
sample only on large tables.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from numeric.validation import InputError, check_int, check_seed
from verify.crossval.property_runs import (
    MAX_EXAMPLES, AbortRun, hypothesis_settings, random_hint, run_property, same_answers, values_agree,
)
from verify.crossval.results import CrossvalResult, Mismatch
from verify.crossval.opening import open_target
from verify.crossval.target import TargetFailed, TargetRaised

#: Largest N a table function is driven with (tables of 2^20 entries).
MAX_TABLE_N = 20
#: Tables up to 2^LIST_N entries are drawn bit by bit (shrinking to the smallest table); larger
#: ones from a drawn seed, since Hypothesis cannot draw lists of thousands of entries.
LIST_N = 8


@dataclass
class TableCheck:
    """What one kind of table function is checked for.

    ``expected(bits)`` our values on a 0/1 table; ``read(out, N)`` the target's answer as numbers
    (bad input when it cannot be, e.g. of the wrong length); ``encode(bits)`` the table as the
    target is handed it; ``hints(target, bits, received)`` the hints for a mismatch."""

    quantity: str
    expected: Callable
    read: Callable
    encode: Callable
    hints: Callable


def seeded_table(N, seed, density, junta=0, noise=0):
    """The truth table drawn for ``N > LIST_N``: a random function of ``junta`` variables (all
    ``N`` when ``junta`` is 0) that is 1 with probability ``density/16``, with a fraction
    ``noise/256`` of its entries flipped; ``numpy.random.default_rng(seed)`` makes every choice,
    so a mismatch is reproduced from these five numbers."""
    import numpy as np

    N = check_int(N, "N", lo=0, hi=32)
    rng = np.random.default_rng(check_seed(seed, "seed"))
    p = check_int(density, "density", lo=0, hi=16) / 16
    junta = check_int(junta, "junta", lo=0, hi=N)
    q = check_int(noise, "noise", lo=0, hi=256) / 256
    if junta == 0:
        bits = rng.random(1 << N) < p
    else:
        pos = rng.choice(N, size=junta, replace=False)
        g = rng.random(1 << junta) < p
        x = np.arange(1 << N, dtype=np.int64)
        idx = np.zeros(1 << N, dtype=np.int64)
        for j, n in enumerate(pos):
            idx |= ((x >> int(n)) & 1) << j
        bits = g[idx]
    if q:
        bits = bits ^ (rng.random(1 << N) < q)
    return bits.astype(np.uint8)


def tables(Ns):
    """Hypothesis strategy of truth tables ``{"N", "table", "recipe"}`` with ``N`` in ``Ns``."""
    import numpy as np
    from hypothesis import strategies as st

    @st.composite
    def table(draw):
        N = draw(st.sampled_from(Ns)) if len(Ns) > 1 else Ns[0]
        if N <= LIST_N:
            bits = draw(st.lists(st.integers(0, 1), min_size=2**N, max_size=2**N))
            return {"N": N, "table": np.array(bits, dtype=np.uint8), "recipe": None}
        # Shrinks towards seed 0, an all-zero table, no junta, no noise.
        recipe = {"seed": draw(st.integers(0, 2**32 - 1)), "density": draw(st.integers(0, 16)),
                  "junta": draw(st.integers(0, min(N, 8))), "noise": draw(st.sampled_from([0, 1, 16]))}
        return {"N": N, "table": seeded_table(N, **recipe), "recipe": recipe}

    return table()


def hint_tables():
    """Tables the hints are confirmed on (a degenerate shrunk table, such as all zeros, agrees
    with several conventions): strict MAJORITY of 3, a dictator of 4 and a fixed random table of 5."""
    import numpy as np

    maj = np.array([int(bin(x).count("1") >= 2) for x in range(8)], dtype=np.uint8)
    dictator = np.array([x & 1 for x in range(16)], dtype=np.uint8)
    return [maj, dictator, seeded_table(5, seed=1, density=8)]


def _probe_table(max_N):
    """The first table the target is handed: an asymmetric function of 3 variables (x0 AND NOT
    x1, OR x2), whose influences differ by variable and whose profile is not symmetric; the
    dictator [0, 1] when only N = 1 is tested."""
    import numpy as np

    if max_N < 3:
        return np.array([0, 1], dtype=np.uint8)
    return np.array([int(bool(x & 1 and not x & 2) or bool(x & 4)) for x in range(8)], dtype=np.uint8)


def run_table_check(fn, check: TableCheck, conventions, *, max_N, max_examples, seed, timeout=None, paths=(),
                    python=None) -> CrossvalResult:
    """Drive ``fn(table)`` with a probe table and with Hypothesis' tables of every ``N`` from 1 to
    ``max_N``; sizes that the Hypothesis run did not reach get their own short runs."""
    from hypothesis import given, seed as hseed

    max_N = check_int(max_N, "max_N", lo=1, hi=MAX_TABLE_N)
    max_examples = check_int(max_examples, "max_examples", lo=1, hi=MAX_EXAMPLES)
    seed = check_seed(seed, "seed")
    last: list[Mismatch] = []
    sizes = Counter()

    with open_target(fn, array=conventions.array, timeout=timeout, paths=paths, python=python) as target:

        def call(bits, inputs, expected):
            try:
                out = target.call((check.encode(bits),))
            except TargetRaised as exc:
                last.append(Mismatch(inputs, expected, [], error=exc.description))
                raise
            except TargetFailed as exc:
                raise AbortRun(exc) from None
            return check.read(out, inputs["N"])

        def run(Ns, examples):
            @hseed(seed)
            @hypothesis_settings(examples)
            @given(tables(Ns))
            def _prop(t):
                sizes[t["N"]] += 1
                expected = check.expected(t["table"])
                inputs = {"N": t["N"], "table": t["table"], "recipe": t["recipe"]}  # a list once shrunk
                received = call(t["table"], inputs, expected)
                if not values_agree(expected, received, expected):
                    last.append(Mismatch(inputs, expected, received))
                    raise AssertionError("mismatch")

            return run_property(_prop, last)

        mismatch = _probe(_probe_table(max_N), check, call, last, sizes)
        if mismatch is None or not (mismatch.error or mismatch.hints):
            # a wrong probe answer still lets Hypothesis look for a smaller counterexample
            mismatch = run(list(range(1, max_N + 1)), max_examples) or mismatch
        for N in range(1, max_N + 1):
            if mismatch is not None:
                break
            if not sizes[N]:
                mismatch = run([N], 2)
        if mismatch is not None:
            bits = mismatch.inputs["table"]
            mismatch.inputs["table"] = bits.tolist()
            mismatch.conventions = conventions
            if not mismatch.error and not mismatch.hints:
                again = _again(call, bits, mismatch)
                mismatch.hints = ([random_hint(mismatch.received, again)] if again is not None
                                  else check.hints(target, bits, mismatch.received))
    return CrossvalResult(ok=mismatch is None, examples=sum(sizes.values()), mismatch=mismatch,
                          compared=check.quantity, sizes={"N": dict(sizes)},
                          conventions=conventions.describe(), interpreter=getattr(target, "described", ""))


def _probe(bits, check, call, last, sizes):
    """The probe table, called twice: a mismatch when the first answer is wrong or the second
    differs from it (with the hint that the target is random); ``None`` otherwise."""
    import numpy as np

    N = int(np.log2(len(bits)))
    expected = check.expected(bits)
    inputs = {"N": N, "table": bits, "recipe": None}
    sizes[N] += 1
    try:
        first = call(bits, inputs, expected)
        second = call(bits, inputs, expected)
    except TargetRaised:
        return last[-1]
    except AbortRun as abort:
        raise abort.error from None
    if not same_answers(first, second):
        return Mismatch(inputs, expected, first, hints=[random_hint(first, second)])
    if not values_agree(expected, first, expected):
        return Mismatch(inputs, expected, first)
    return None


#: further calls on the shrunk table that look for a random target (a random target's answer on a
#: small table repeats by chance: 1 in 4 for two entries that vary by 0 or 1, once; 1 in 64 thrice)
AGAIN_CALLS = 3


def _again(call, bits, mismatch):
    """The first of up to :data:`AGAIN_CALLS` further answers on the shrunk table that differs from
    the first, else None."""
    for _ in range(AGAIN_CALLS):
        try:
            second = call(bits, dict(mismatch.inputs), mismatch.expected)
        except (TargetRaised, AbortRun, InputError):
            return None
        if not same_answers(mismatch.received, second):
            return second
    return None


__all__ = ["LIST_N", "MAX_TABLE_N", "TableCheck", "hint_tables", "run_table_check", "seeded_table", "tables"]
