"""How a rerun's data file is compared with the committed one (``boolverify reproduce``): each
run of the registry (:mod:`verify.cli.runs`) states one :class:`Agreement` for its full plan and
one for its quick plan, chosen before any data is looked at.

- :func:`exact`: the same plan, deterministic: Booleans, integers and strings equal, reals
  within the float64 entry of the tolerance table (:mod:`verify.common.tolerances`);
- :func:`proportions`: a plan that differs from the committed one (the quick plan), or a
  random run: records present in both (matched on named fields) whose success counts agree by
  Fisher's exact two-sided test, Bonferroni over the records compared at a family level; the
  matched fields must be equal; nothing else is compared;
- :func:`structure`: machine-dependent results (timings) or quick plans that no record of the
  committed file matches: the same keys with the same kinds of values, no number compared.

Every rule ignores the keys in :data:`IGNORED` (the provenance record, wall times and dates)
at any depth. A comparison returns the list of differences, each ``path: what``; empty means
agreement.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

from verify.common.tolerances import tolerance

#: keys never compared (at any depth): the provenance record, wall times, dates
IGNORED = ("provenance", "date", "started", "finished")
#: key suffixes never compared: wall and CPU times
IGNORED_SUFFIXES = ("seconds", "_time_s", "duration_s", "_s_per_model")

#: the family level of :func:`proportions`
PROPORTIONS_LEVEL = 0.01


def ignored(key) -> bool:
    """Whether ``key`` names a field that no rule compares (provenance, times, dates)."""
    key = str(key)
    return key in IGNORED or key.endswith(IGNORED_SUFFIXES)


@dataclass(frozen=True)
class Agreement:
    """A comparison rule: ``text`` states it, ``compare(fresh, committed) -> [differences]``."""

    text: str
    compare: Callable

    def __call__(self, fresh, committed) -> list[str]:
        return self.compare(fresh, committed)


def _kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__


def _real_close(a, b, tol) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol.rtol * abs(b) + tol.atol


def exact_differences(fresh, committed, path="", *, subset=False) -> list[str]:
    """Differences of two JSON values: Booleans, integers, strings and nulls exactly, reals
    (a float on either side) within the float64 tolerance; with ``subset``, keys and list
    entries only the committed value has are allowed (a plan that computes fewer)."""
    tol = tolerance("float64")
    out = []
    if isinstance(fresh, dict) and isinstance(committed, dict):
        for key in committed.keys() | fresh.keys():
            if ignored(key):
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in fresh:
                if not subset:
                    out.append(f"{where}: missing in the rerun")
            elif key not in committed:
                out.append(f"{where}: not in the committed file")
            else:
                out += exact_differences(fresh[key], committed[key], where, subset=subset)
        return out
    if isinstance(fresh, list) and isinstance(committed, list):
        if len(fresh) != len(committed) and not (subset and len(fresh) < len(committed)):
            out.append(f"{path}: {len(fresh)} entries, committed {len(committed)}")
        for k, (a, b) in enumerate(zip(fresh, committed)):
            out += exact_differences(a, b, f"{path}[{k}]", subset=subset)
        return out
    if _kind(fresh) != _kind(committed):
        return [f"{path}: {fresh!r} (a {_kind(fresh)}), committed {committed!r} (a {_kind(committed)})"]
    if isinstance(fresh, float) or isinstance(committed, float):
        if not _real_close(float(fresh), float(committed), tol):
            return [f"{path}: {fresh!r}, committed {committed!r} (beyond the float64 tolerance)"]
        return []
    if fresh != committed:
        return [f"{path}: {fresh!r}, committed {committed!r}"]
    return []


def exact(subset=False) -> Agreement:
    """The same plan, deterministic: :func:`exact_differences` (``subset``: the rerun computes
    a part of the committed file, e.g. fewer ``N``)."""
    scope = "on the entries the rerun computes" if subset else "every field"
    return Agreement(f"exact ({scope}): Booleans, integers and strings equal, reals within the "
                     "float64 tolerance of verify.common.tolerances", lambda a, b: exact_differences(a, b, subset=subset))


def structure_differences(fresh, committed, path="") -> list[str]:
    """Keys of the rerun missing from the committed file, or values of another kind (numbers,
    Booleans, strings, lists, objects); list entries by the committed file's first entry."""
    if isinstance(fresh, dict) and isinstance(committed, dict):
        out = []
        for key in fresh:
            if ignored(key):
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in committed:
                # a mapping keyed by values (N, d, ...) may hold other keys in a quick plan
                if not (committed and all(_is_value_key(k) for k in committed) and _is_value_key(key)):
                    out.append(f"{where}: not in the committed file")
                elif committed:
                    out += structure_differences(fresh[key], next(iter(committed.values())), where)
            else:
                out += structure_differences(fresh[key], committed[key], where)
        return out
    if isinstance(fresh, list) and isinstance(committed, list):
        if fresh and committed:
            return structure_differences(fresh[0], committed[0], f"{path}[0]")
        return []
    if _kind(fresh) != _kind(committed) and "null" not in (_kind(fresh), _kind(committed)):
        return [f"{path}: a {_kind(fresh)}, committed a {_kind(committed)}"]
    return []


def _is_value_key(key) -> bool:
    # a map keyed by measured values: "0.01", "12", "parity/N=12", "gaussian/N=6"
    return re.search(r"(^|[/=])-?\d+(\.\d+)?(e-?\d+)?$", str(key)) is not None


def structure(reason: str) -> Agreement:
    """Keys and kinds of values only (:func:`structure_differences`), for ``reason``."""
    return Agreement(f"structure only (same keys, same kinds of values; no number compared): {reason}",
                     structure_differences)


def _records(value, counts, match, path="", context=()):
    """Every dict under ``value`` that holds one of the ``counts`` pairs, with its path and the
    values of the ``match`` fields it and the dicts around it hold."""
    if isinstance(value, dict):
        context = context + tuple((f, repr(value[f])) for f in match
                                  if f in value and not isinstance(value[f], (dict, list)))
        if any(s in value and n in value for s, n in counts):
            yield path, value, context
        for key, v in value.items():
            if not ignored(key):
                yield from _records(v, counts, match, f"{path}.{key}" if path else str(key), context)
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from _records(v, counts, match, f"{path}[{k}]", context)


def _index_free(path: str) -> str:
    return re.sub(r"\[\d+\]", "[]", path)


def proportions_differences(fresh, committed, *, counts, match, level=PROPORTIONS_LEVEL) -> list[str]:
    """Records (dicts holding a ``counts`` pair ``(successes, trials)``) of the rerun matched to
    the committed file's by their place (list indices dropped) and the values of the ``match``
    fields they and the dicts around them hold; each matched pair's proportions must agree by Fisher's exact two-sided
    test at ``level`` / (records compared). No matched record at all is a difference."""
    from scipy.stats import fisher_exact

    committed_records = {}
    for path, record, context in _records(committed, counts, match):
        committed_records.setdefault((_index_free(path), context), record)
    pairs = []
    for path, record, context in _records(fresh, counts, match):
        other = committed_records.get((_index_free(path), context))
        if other is not None:
            pairs.append((path, record, other))
    if not pairs:
        return ["no record of the rerun matches one of the committed file (nothing compared)"]
    out = []
    for path, a, b in pairs:
        s, n = next((s, n) for s, n in counts if s in a and n in a and s in b and n in b)
        table = [[a[s], a[n] - a[s]], [b[s], b[n] - b[s]]]
        p = fisher_exact(table)[1]
        if p < level / len(pairs):
            out.append(f"{path}: {a[s]}/{a[n]}, committed {b[s]}/{b[n]} (Fisher exact p = {p:.2g} < "
                       f"{level:g}/{len(pairs)})")
    return out


def proportions(counts, match, level=PROPORTIONS_LEVEL) -> Agreement:
    """A plan other than the committed one: :func:`proportions_differences`."""
    names = ", ".join(f"{s}/{n}" for s, n in counts)
    return Agreement(f"for each record present in both (matched on {', '.join(match)}), the proportions "
                     f"{names} agree by Fisher's exact two-sided test at family level {level:g} "
                     "(Bonferroni over the records compared); other fields not compared",
                     lambda a, b: proportions_differences(a, b, counts=counts, match=match, level=level))


def without_ignored(value):
    """``value`` with the ignored keys (:func:`ignored`) removed at every depth."""
    if isinstance(value, dict):
        return {k: without_ignored(v) for k, v in value.items() if not ignored(k)}
    if isinstance(value, list):
        return [without_ignored(v) for v in value]
    return value


__all__ = ["IGNORED", "IGNORED_SUFFIXES", "PROPORTIONS_LEVEL", "ignored", "Agreement", "exact_differences",
           "exact", "structure_differences", "structure", "proportions_differences", "proportions",
           "without_ignored"]
