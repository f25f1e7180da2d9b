"""Typed results of the paper-A experiments, passed between sweeps, fits, theorems, the CLI and
the figures; their JSON form (``as_dict``) is the format of the results files in
``docs/data/`` (``xor_sweep.json``, ``xor_samples.json``, ``xor_compare.json``), which
``from_dict`` reads back.

- :class:`SweepCell`: one ``(d, m)`` cell of :func:`verify.experiments.xor_sweeps.run_sweep`;
- :class:`SamplesCell`: one ``(d, n)`` cell of :func:`verify.experiments.xor_sweeps.run_samples`;
- :class:`FiniteSampleCell`: one ``(d, n)`` cell of
  :func:`verify.experiments.finite_samples.run_finite_samples` (one step or training on a
  fixed sample);
- :class:`AttentionComparison`: the result of
  :func:`verify.experiments.attention_comparison.compare`.

Standard library only (no torch): saved results are read without the engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path

from numeric.validation import InputError, reject
from numeric.vocabulary import ATTENTIONS

#: schema tag of a sweep results file ``{"schema": ..., "cells": [...]}``
SWEEP_SCHEMA = "boolverify.xor-sweep/1"


class _Record:
    """``as_dict``/``from_dict`` of a frozen dataclass whose fields are the JSON keys, in order."""

    def as_dict(self) -> dict:
        """The JSON form (the keys of the results files, in the same order)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["key"] = dict(self.key)
        out["support"] = list(self.support)
        return out

    @classmethod
    def from_dict(cls, obj):
        """The record of a saved cell (a dict as written by :meth:`as_dict`)."""
        names = [f.name for f in fields(cls)]
        if not isinstance(obj, dict) or any(n not in obj for n in names):
            missing = [n for n in names if not isinstance(obj, dict) or n not in obj]
            raise InputError(f"cell = {str(obj)[:60]!r}: expected a {cls.__name__} with the keys "
                             f"{', '.join(missing)}")
        kw = {n: obj[n] for n in names}
        for f in fields(cls):
            _check_field(f, kw[f.name], cls.__name__)
        for k in ("d", "m", "n"):           # a cell agrees with its own key
            if k in kw and k in kw["key"] and kw["key"][k] != kw[k]:
                raise ValueError(f"{k} = {kw[k]!r} but its key has {k} = {kw['key'][k]!r}")
        kw["support"] = tuple(kw["support"])
        return cls(**kw)


def _check_field(f, value, what):
    """A saved field of the declared type: ``int`` (not a bool), a finite ``float`` (an int
    reads as one), ``str``, ``dict``, a ``tuple`` (a list of integers); ``... | None`` also
    ``None``. A wrong one is a ``ValueError`` naming the field."""
    import math

    kind = str(f.type).replace(" ", "")
    if value is None and kind.endswith("|None"):
        return
    kind = kind.removesuffix("|None")
    ok = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
          "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
          "str": lambda v: isinstance(v, str), "dict": lambda v: isinstance(v, dict),
          "tuple": lambda v: isinstance(v, (list, tuple)) and all(
              isinstance(x, int) and not isinstance(x, bool) for x in v)}.get(kind, lambda v: True)
    if not ok(value):
        raise ValueError(f"{what} field {f.name} = {str(value)[:40]!r} is not a {kind}")


@dataclass(frozen=True)
class SweepCell(_Record):
    """One ``(d, m)`` cell of the one-step sweep (SX-4, SX-7, SX-8).

    ``key`` holds the settings that identify the cell in a resumable results file;
    ``success_bits`` the per-seed success pattern (``"1"``/``"0"``, seed order).
    """

    key: dict
    d: int
    m: int
    n_seeds: int
    support: tuple
    lr: float
    successes: int
    successes_limit: int
    rate: float
    rate_limit: float
    assignment_matches: int
    median_loss: float
    seconds: float
    success_bits: str


@dataclass(frozen=True)
class SamplesCell(_Record):
    """One ``(d, n)`` cell of the empirical-gradient step (SX-6).

    ``rate_given_population`` = ``both_successes / population_successes``: how often ``n``
    samples reproduce a successful population step on the same instance.
    """

    key: dict
    d: int
    n: int
    m: int
    n_seeds: int
    support: tuple
    lr: float
    successes: int
    rate: float
    population_successes: int
    both_successes: int
    rate_given_population: float
    seconds: float


@dataclass(frozen=True)
class FiniteSampleCell(_Record):
    """One ``(d, n)`` cell of the finite-sample experiment (SX-6), in one ``regime``
    (``"one_step"`` or ``"gradient_flow"``).

    ``lr``: the step size of the one step and of the population step on the same instances;
    ``steps``, ``step_length``: the normalised steps of ``"gradient_flow"`` (1 and ``None`` for
    ``"one_step"``); ``both_successes`` / ``population_successes`` = ``rate_given_population``;
    ``both_successes_half``: the same count after ``max(1, steps // 2)`` steps (``None`` for
    one step), a check that the training had settled; ``success_bits``, ``population_bits``:
    the per-seed outcomes (``"1"``/``"0"``, seed order).
    """

    key: dict
    regime: str
    d: int
    n: int
    m: int
    n_seeds: int
    support: tuple
    lr: float
    steps: int
    step_length: float | None
    successes: int
    rate: float
    population_successes: int
    both_successes: int
    rate_given_population: float
    both_successes_half: int | None
    success_bits: str
    population_bits: str
    seconds: float


_CELL_KINDS = {"samples": SamplesCell, "finite_samples": FiniteSampleCell}


def cell_from_dict(obj):
    """A :class:`SweepCell`, :class:`SamplesCell` or :class:`FiniteSampleCell`, by the ``kind``
    of the cell's key."""
    kind = obj.get("key", {}).get("kind") if isinstance(obj, dict) else None
    return _CELL_KINDS.get(kind, SweepCell).from_dict(obj)


def load_results(path):
    """Read a results file written by a sweep (``{"schema", "cells": [...]}``; cells as dicts)."""
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        reject("results file", str(path), "an existing file")
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).splitlines()[0][:200]
        reject("results file", str(path), f"a readable JSON file ({detail})")
    if not isinstance(obj, dict) or obj.get("schema") != SWEEP_SCHEMA \
            or not isinstance(obj.get("cells"), list):
        reject("results file", str(path), f"a boolverify sweep file (schema {SWEEP_SCHEMA})")
    seen = {}
    for i, cell in enumerate(obj["cells"]):
        # every cell must rebuild into its record, so a damaged file is refused when read,
        # not half-way through a resumed sweep
        try:
            if not isinstance(cell, dict) or not isinstance(cell.get("key"), dict):
                raise TypeError("not an object with a 'key'")
            cell_from_dict(cell)
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            reject("results file", str(path), f"a boolverify sweep file whose cells are complete "
                   f"(cell {i} is not: {type(exc).__name__}: {str(exc)[:120]})")
        key = json.dumps(cell["key"], sort_keys=True)
        if key in seen and obj["cells"][seen[key]] != cell:
            reject("results file", str(path), f"one copy of each cell (cells {seen[key]} and {i} have the "
                   "same key and different results)")
        seen.setdefault(key, i)
    return obj


def load_cells(path):
    """The cells of a sweep results file as records (:func:`cell_from_dict`)."""
    return [cell_from_dict(c) for c in load_results(path)["cells"]]


@dataclass(frozen=True)
class AttentionComparison:
    """Softmax against linear and erf attention on the same instances (SX-5).

    ``config``: the settings (``d, m, n_seeds, train_seeds, steps, eta, eps, support, gd_lrs,
    adam_lrs``); ``results``: ``attention -> {"one_step": {...}, "gd": {...}, "adam": {...}}``
    (the best run of each optimiser's learning-rate grid, see
    :func:`verify.experiments.attention_comparison.train_entry`).
    """

    config: dict
    results: dict

    def as_dict(self) -> dict:
        """The JSON form: ``{"config": ..., "softmax": ..., "linear": ..., "erf": ...}``."""
        return {"config": self.config, **self.results}

    @classmethod
    def from_dict(cls, obj):
        """The record of a saved comparison (other top-level keys, e.g. bounds, are ignored)."""
        if not isinstance(obj, dict) or "config" not in obj:
            raise InputError(f"comparison = {str(obj)[:60]!r}: expected a dict with 'config' "
                             "and one entry per attention map")
        return cls(config=obj["config"], results={a: obj[a] for a in ATTENTIONS if a in obj})


__all__ = ["SWEEP_SCHEMA", "SweepCell", "SamplesCell", "FiniteSampleCell", "AttentionComparison",
           "cell_from_dict", "load_results", "load_cells"]
