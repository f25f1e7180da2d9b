"""Cross-validation of a sensitivity-profile implementation (mapping a truth table to a profile,
an average sensitivity or a normalised one), driven by Hypothesis with random truth tables
against :mod:`numeric.boolean`; a mismatch is shrunk to the smallest table, with the
conventions (:class:`ProfileConventions`) under which the received values would agree.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from numeric.validation import InputError, check_choice, check_int, reject
from verify.crossval.property_runs import (
    MAX_EXAMPLES, AbortRun, hypothesis_settings, run_property, to_floats, values_agree,
)
from verify.crossval.results import QUANTITY, CrossvalResult, Mismatch
from verify.crossval.target import TargetFailed, TargetRaised, open_target

#: Table values and return values of a profile implementation (:class:`ProfileConventions`).
TABLE_VALUES = ("01", "pm1")
PROFILE_RETURNS = ("profile", "average", "normalised")
#: Largest N a profile function is driven with (tables of 2^20 entries).
MAX_PROFILE_N = 20
#: Tables up to 2^LIST_N entries are drawn bit by bit (shrinking to the smallest table); larger
#: ones from a drawn seed, since Hypothesis cannot draw lists of thousands of entries.
LIST_N = 8


@dataclass
class ProfileConventions:
    """Conventions of a sensitivity implementation under test.

    Attributes:
        values: ``"01"`` (tables of 0/1, ours) or ``"pm1"`` (tables of +1/-1, with
            ``0 -> +1``, ``1 -> -1``).
        returns: ``"profile"`` (counts K_0..K_N), ``"average"`` (:math:`as(f)`),
            ``"normalised"`` (:math:`as(f)/N`).
    """

    values: str = "01"
    returns: str = "profile"

    def __post_init__(self):
        check_choice(self.values, "values", TABLE_VALUES)
        check_choice(self.returns, "returns", PROFILE_RETURNS)


def _profile_forms(bits):
    """Our profile of a 0/1 table in the three forms: ``{"profile": [K_k], "average": [as],
    "normalised": [as/N]}``."""
    import numpy as np
    import torch

    from numeric import boolean as sensitivity

    K = [int(k) for k in sensitivity.profile(torch.from_numpy(np.ascontiguousarray(bits, dtype=np.uint8)))]
    N = len(K) - 1
    avg = float(sum(k * c for k, c in enumerate(K))) / 2**N
    return {"profile": [float(k) for k in K], "average": [avg], "normalised": [avg / N if N else 0.0]}


def seeded_table(N, seed, density, junta=0, noise=0):
    """The truth table drawn for ``N > LIST_N``: a random function of ``junta`` variables (all
    ``N`` when ``junta`` is 0) that is 1 with probability ``density/16``, with a fraction
    ``noise/256`` of its entries flipped; ``numpy.random.default_rng(seed)`` makes every choice,
    so a mismatch is reproduced from these five numbers."""
    import numpy as np

    N = check_int(N, "N", lo=0, hi=32)
    rng = np.random.default_rng(check_int(seed, "seed", lo=0))
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


def _tables(Ns):
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


def _encode(bits, values):
    import numpy as np

    t = bits.astype(np.int64)
    return t if values == "01" else 1 - 2 * t


def _hint_tables():
    """Tables the profile hints are confirmed on (a degenerate shrunk table, such as all zeros,
    agrees with several conventions): strict MAJORITY of 3, a dictator of 4 and a fixed random
    table of 5."""
    import numpy as np

    maj = np.array([int(bin(x).count("1") >= 2) for x in range(8)], dtype=np.uint8)
    dictator = np.array([x & 1 for x in range(16)], dtype=np.uint8)
    return [maj, dictator, seeded_table(5, seed=1, density=8)]


def _profile_hints(target, conv, bits, received):
    """Conventions (table values, return value) under which the function agrees with us on the
    shrunk table and on :func:`_hint_tables`, or a slip it makes on all of them (a reversed
    profile, fractions for counts); the function is called again on those tables."""
    tables = [bits] + _hint_tables()
    ours = [_profile_forms(t) for t in tables]
    answers = {}
    for values in (conv.values, "pm1" if conv.values == "01" else "01"):
        try:
            answers[values] = [received if (values == conv.values and i == 0) else
                               to_floats(target.call((_encode(t, values),)), "profile")
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
    got = answers.get(conv.values)
    if conv.returns != "profile" or got is None:
        return []
    Ks = [o["profile"] for o in ours]
    if all(values_agree(K[::-1], g, K) for K, g in zip(Ks, got)):
        return [("the received profile is ours reversed (K_N..K_0)", {})]
    if all(values_agree([k / sum(K) for k in K], g, [1.0]) for K, g in zip(Ks, got)):
        return [("the received profile is ours divided by 2^N (fractions, not counts)", {})]
    return []


def crossval_profile_function(fn, conventions: ProfileConventions | None = None, max_N=10,
                              max_examples=100, seed=0, *, timeout=None, paths=()) -> CrossvalResult:
    """Drive a profile implementation ``fn(table) -> profile | as(f) | as(f)/N`` with random tables.

    Every ``N`` from 1 to ``max_N`` (at most 20) is tested: tables of up to ``2^8`` entries are
    drawn entry by entry, larger ones from a drawn seed (:func:`seeded_table`); sizes that the
    Hypothesis run did not reach get their own short runs. ``fn``: a callable or a
    ``"MODULE:FUNCTION"`` string (run in a child process, ``timeout`` seconds per call).
    """
    from hypothesis import given, seed as hseed

    conv = conventions or ProfileConventions()
    if not isinstance(conv, ProfileConventions):
        reject("conventions", f"<{type(conv).__name__}>", "a ProfileConventions")
    max_N = check_int(max_N, "max_N", lo=1, hi=MAX_PROFILE_N)
    max_examples = check_int(max_examples, "max_examples", lo=1, hi=MAX_EXAMPLES)
    seed = check_int(seed, "seed")
    last: list[Mismatch] = []
    sizes = Counter()

    with open_target(fn, array="numpy", timeout=timeout, paths=paths) as target:

        def run(Ns, examples):
            @hseed(seed)
            @hypothesis_settings(examples)
            @given(_tables(Ns))
            def _prop(t):
                sizes[t["N"]] += 1
                forms = _profile_forms(t["table"])
                expected = forms[conv.returns]
                inputs = {"N": t["N"], "table": t["table"], "recipe": t["recipe"]}  # a list once shrunk
                try:
                    out = target.call((_encode(t["table"], conv.values),))
                except TargetRaised as exc:
                    last.append(Mismatch(inputs, expected, [], error=exc.description))
                    raise
                except TargetFailed as exc:
                    raise AbortRun(exc) from None
                received = to_floats(out, "profile")
                if not values_agree(expected, received, expected):
                    last.append(Mismatch(inputs, expected, received))
                    raise AssertionError("mismatch")

            return run_property(_prop, last)

        mismatch = run(list(range(1, max_N + 1)), max_examples)
        for N in range(1, max_N + 1):
            if mismatch is not None:
                break
            if not sizes[N]:
                mismatch = run([N], 2)
        if mismatch is not None:
            bits = mismatch.inputs["table"]
            mismatch.inputs["table"] = bits.tolist()
            mismatch.conventions = conv
            if not mismatch.error:
                mismatch.hints = _profile_hints(target, conv, bits, mismatch.received)
    return CrossvalResult(ok=mismatch is None, examples=sum(sizes.values()), mismatch=mismatch,
                          compared=QUANTITY[conv.returns], sizes={"N": dict(sizes)})
