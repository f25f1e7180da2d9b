r"""Theorem 4.5 past its crossover (paper B, as formalised in boolverify): is the number of
zero-sensitivity strings :math:`K_0` of a random transformer at least :math:`N^a`,
:math:`a = (D-1)/(2L) - 5`, at lengths :math:`N^* \le N \le 4N^*` beyond the crossover
:math:`N^*` (the smallest :math:`N` from which :math:`N^a < 2^N`)?

Per init scheme and :math:`N`, models (seeds ``0, 1, ...``; the same models at every N) are
drawn until ``target`` of them are non-constant or ``max_draws`` were drawn:

1. screen: ``pilot`` uniform strings are evaluated (one forward pass each); a model whose
   pilot values all agree is counted as looking constant and not sampled further (the screen
   is what makes the run affordable: most random models look constant, and the full sample of
   one model at N = 260 costs seconds);
2. sample: ``S`` strings and their N neighbours
   (:func:`verify.experiments.sampled_profiles.sample_model`); a model whose sample is all
   one value also counts as looking constant.

For each non-constant model the one-sided lower Clopper-Pearson bound ``lo`` of
:math:`K_0/2^N` (level 0.95) gives :math:`\log_2 K_0 \ge N + \log_2 lo` (with that
confidence, per model), compared with :math:`a \log_2 N` in log2 space (``-inf`` when no
zero-sensitivity string was seen).

Run: ``boolverify runs theorem45`` (the plans of :mod:`verify.experiments.plans`; the figure is
:func:`verify.report.transformer_figures.theorem45_figure`). The JSON is rewritten atomically
after every (scheme, N) cell and a rerun with the same parameters resumes from it.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import torch

from numeric.transformer import readout_table
from numeric.validation import check_choice, check_int, check_ints, check_real, reject
from numeric.vocabulary import INIT_SCHEMES, PRESETS
from verify.experiments.transformer_records import Theorem45Cell, Theorem45Model

LEVEL = 0.95


def crossover_of(D: int, L: int) -> tuple[float, int]:
    """``(a, N*)`` for width ``D`` and ``L`` layers (Lambert W, checked directly)."""
    from verify.reference.bounds import crossover, theorem_exponent

    a = theorem_exponent(D, L)
    return float(a), int(crossover(a)["N_star"])


def default_lengths(N_star: int) -> list[int]:
    """``N*, 1.5 N*, 2 N*, 3 N*, 4 N*`` (rounded)."""
    return sorted({round(N_star * r) for r in (1, 1.5, 2, 3, 4)})


def _pilot_constant(model, N, pilot, seed):
    from verify.experiments.sampled_profiles import STRING_SEED_OFFSET

    # a stream of its own (not the sample's), so the sample is the same with or without the screen
    g = torch.Generator().manual_seed(2 * STRING_SEED_OFFSET + seed)
    x = torch.randint(0, 2, (pilot, N), generator=g, dtype=torch.uint8)
    with torch.no_grad():
        T = model(x)
    f = readout_table(T, model.config.readout)
    return bool((f == f[0]).all())


def run_cell(config, scheme, N, *, a, S, target, max_draws, pilot, tokens=None, progress=None,
             **init_kw) -> Theorem45Cell:
    """One (scheme, N) cell: draw models until ``target`` non-constant ones (or ``max_draws``)."""
    from numeric.transformer import random_model
    from verify.experiments.sampled_profiles import sample_model

    t0 = time.perf_counter()
    log2_Na = a * math.log2(N)
    recs, draws, pilot_constant, sample_constant = [], 0, 0, 0
    while len(recs) < target and draws < max_draws:
        seed = draws
        draws += 1
        model = random_model(config, scheme, seed, **init_kw)
        if pilot and _pilot_constant(model, N, pilot, seed):
            pilot_constant += 1
        else:
            r = sample_model(model, N, S, seed, level=LEVEL, tokens=tokens)
            if r.constant_on_sample:
                sample_constant += 1
            else:
                recs.append(bound_of(r, N, log2_Na))
        if progress is not None:
            progress(draws, len(recs))
    holds = sum(r.holds for r in recs)
    finite = sorted(r.log2_K0_lower for r in recs if r.log2_K0_lower is not None)
    return Theorem45Cell(
        scheme=scheme, N=N, S=S, log2_Na=log2_Na, log2_2N=N,
        draws=draws, looked_constant_pilot=pilot_constant, looked_constant_sample=sample_constant,
        nonconstant=len(recs), reached_target=len(recs) >= target,
        bound_holds=holds, bound_holds_fraction=holds / len(recs) if recs else None,
        k0_observed=sum(r.sample.k0_count >= 1 for r in recs),
        median_log2_K0_lower=finite[len(finite) // 2] if len(finite) * 2 > len(recs) else None,
        seconds=time.perf_counter() - t0,
        models=recs,
    )


def bound_of(sample, N, log2_Na) -> Theorem45Model:
    r"""A non-constant model's sample against the bound: :math:`\log_2 K_0 \ge N + \log_2 lo`
    from its one-sided lower bound ``lo`` of :math:`K_0/2^N`, compared with ``log2_Na``."""
    lo = sample.k0_lower
    return Theorem45Model(sample=sample, log2_K0_lower=N + math.log2(lo) if lo > 0 else None,
                          holds=lo > 0 and N + math.log2(lo) >= log2_Na)


def strings_for(N, S, S_large, large_from):
    """``S`` strings per model below ``large_from``, ``S_large`` from there on.

    Why fewer at large N: from N of about 1.1 N* on, N^a / 2^N is so small (2^-25 at N = 98,
    D = 64, L = 2) that a single observed zero-sensitivity string already puts the lower bound
    of K_0 above N^a (k0 = 1 of S = 4 gives 2^N * 0.0127), so S decides little there, while one
    string costs N + 1 passes of length N + 1. At N* itself N^a / 2^N is close to 1 (0.8355 for
    D = 64, L = 2): only S >= 17 strings all of sensitivity 0 can certify that (the largest
    lower bound of S strings is 0.05^(1/S), 0.829 at S = 16), so with the default S = 16 the
    cell at N* reports estimates, not certificates."""
    return S if N < large_from else S_large


def check_plan(*, D, L, H, eps, preset, schemes, Ns, strings, strings_large, large_from, target,
               max_draws, pilot) -> dict:
    """The settings of :func:`run_theorem45` checked before any work, with ``a``, ``N_star`` and
    the defaults resolved (lengths ``N*, 1.5N*, 2N*, 3N*, 4N*``, ``large_from = 2 N*``)."""
    D = check_int(D, "D", lo=2)
    L = check_int(L, "L", lo=1)
    H = check_int(H, "H", lo=1)
    eps = check_real(eps, "eps", lo=0)
    schemes = [check_choice(s, "schemes", INIT_SCHEMES) for s in schemes or ()]
    if preset is not None:
        check_choice(preset, "preset", PRESETS)
    a, N_star = crossover_of(D, L)
    return dict(D=D, L=L, H=H, eps=eps, preset=preset, schemes=schemes,
                Ns=check_ints(Ns, "Ns", lo=1) if Ns else default_lengths(N_star),
                strings=check_int(strings, "strings", lo=1),
                strings_large=check_int(strings_large, "strings_large", lo=1),
                large_from=2 * N_star if large_from is None else check_int(large_from, "large_from", lo=1),
                target=check_int(target, "target", lo=1), max_draws=check_int(max_draws, "max_draws", lo=1),
                pilot=check_int(pilot, "pilot", lo=0), a=a, N_star=N_star)


def read_resume_file(path: Path, key=None) -> dict:
    """The results file a run resumes from (``{}`` when there is none), checked whole before any
    cell is run: a damaged file is refused, naming it, rather than replaced by the new cells
    (which would lose every cell it holds) or failing half-way through the run."""
    if not path.exists():
        return {}
    expected = "a theorem45 results file to resume from (a JSON object whose cells have a scheme, N and S)"
    try:
        whole = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        detail = "nested too deeply" if isinstance(exc, RecursionError) else (
            getattr(exc, "strerror", None) or str(exc).splitlines()[0][:120])
        reject("results file", str(path), f"{expected}; it is not readable JSON ({detail})")
    entry = whole.get(key, {}) if isinstance(whole, dict) and key is not None else whole
    if not isinstance(whole, dict) or not isinstance(entry, dict) \
            or not isinstance(entry.get("params", {}), dict) or not isinstance(entry.get("cells", {}), dict):
        reject("results file", str(path), expected)
    for name, cell in entry.get("cells", {}).items():
        if not (isinstance(cell, dict) and isinstance(cell.get("scheme"), str)
                and all(isinstance(cell.get(k), int) and not isinstance(cell.get(k), bool) for k in ("N", "S"))):
            reject("results file", str(path), f"{expected}; its cell {name!r} is not complete")
    return whole


def run_theorem45(path, plan, *, key=None, progress=None) -> dict:
    """Every (scheme, N) cell of ``plan`` (the keywords of :func:`check_plan`, e.g.
    :data:`verify.experiments.plans.THEOREM45_FULL`) into the JSON file ``path``.

    The file is rewritten atomically after every cell; a rerun with the same model and draw rule
    resumes from it (a cell is kept when its scheme, N and S are in the plan), and entries of the
    file other than ``params`` and ``cells`` are kept. With ``key`` the run lives under that entry
    of the file (e.g. ``"preset_bhattamishra"``) and the rest of the file is left as it is.
    ``progress(text)``, when given, gets one line per finished cell.

    Returns:
        the run's data: ``params``, ``cells`` (``"scheme/N=..."`` -> :func:`run_cell`), ``note``.
    """
    from verify.common.atomic_io import atomic_write_json
    from numeric.transformer import INIT_SCHEME_REGISTRY, TransformerConfig

    p = check_plan(**plan)
    Ns, S, S_large, large_from, target = p["Ns"], p["strings"], p["strings_large"], p["large_from"], p["target"]
    # the options of the schemes that use them (each scheme is given only its own)
    init_kw = {"B": 1.0, "sigma": 1.0}
    if p["preset"] is None:
        config = TransformerConfig(D=p["D"], L=p["L"], H=p["H"], eps=p["eps"], N_max=max(Ns))
        schemes = p["schemes"] or list(INIT_SCHEMES)
    else:
        from numeric.transformer import preset_config, preset_init

        config = preset_config(p["preset"], D=p["D"], L=p["L"], N_max=max(Ns))
        init = preset_init(p["preset"])
        schemes = p["schemes"] or [init["scheme"]]
        init_kw["B"] = init["B"]
    params = {"D": p["D"], "L": p["L"], "H": config.H, "F": config.F, "eps": config.eps,
              "N_max": config.N_max, "a": p["a"], "N_star": p["N_star"], "preset": p["preset"],
              "conventions": getattr(config, "conventions", None),
              "schemes": list(schemes), "N": Ns, "strings": S, "strings_large": S_large,
              "large_from": large_from, "target": target,
              "max_draws": p["max_draws"], "pilot": p["pilot"], "level": LEVEL, "B": init_kw["B"],
              "sigma": init_kw["sigma"], "ci": "one-sided Clopper-Pearson lower bound of K_0/2^N per model"}
    path = Path(path)
    whole = read_resume_file(path, key)
    old = whole.get(key, {}) if key is not None else whole
    data = {"params": params, "cells": {}, "note": "as formalised in boolverify"}
    # resume cell by cell: a cell is kept when the model, the draw rule and its own S agree
    loose = ("schemes", "N", "strings", "strings_large", "large_from")
    if isinstance(old, dict) and {k: v for k, v in old.get("params", {}).items() if k not in loose} == \
            {k: v for k, v in params.items() if k not in loose}:
        # other entries (e.g. a rerun of the N* cells with more strings) are kept
        data.update({k: v for k, v in old.items() if k not in data and k != "provenance"})
        data["cells"] = {name: c for name, c in old.get("cells", {}).items()
                         if c["scheme"] in schemes and c["N"] in Ns
                         and c["S"] == strings_for(c["N"], S, S_large, large_from)}
    if key is None:
        whole = data
    else:
        if not isinstance(whole, dict):
            whole = {}
        whole[key] = data
    todo = [(s, N) for s in schemes for N in Ns if f"{s}/N={N}" not in data["cells"]]
    if data["cells"] and progress is not None:
        progress(f"resumed from {path}: {len(data['cells'])} cells kept from the file, {len(todo)} to run")
    for scheme, N in todo:
        used = {name: value for name, value in init_kw.items() if name in INIT_SCHEME_REGISTRY[scheme].options}
        cell = run_cell(config, scheme, N, a=p["a"], S=strings_for(N, S, S_large, large_from),
                        target=target, max_draws=p["max_draws"], pilot=p["pilot"], **used)
        # the file's form: resumed cells are read back from it as such
        data["cells"][f"{scheme}/N={N}"] = cell.as_dict()
        atomic_write_json(path, whole, records=len(data["cells"]))
        if progress is not None:
            progress(f"{scheme:15s} N={N:4d}: {cell.bound_holds}/{cell.nonconstant} non-constant "
                     f"models meet N^a ({cell.draws} drawn, {cell.looked_constant_pilot} + "
                     f"{cell.looked_constant_sample} looked constant; {cell.seconds:.0f} s)")
    if not path.exists():
        atomic_write_json(path, whole)
    return data


__all__ = ["LEVEL", "crossover_of", "default_lengths", "run_cell", "bound_of", "strings_for", "check_plan",
           "run_theorem45", "read_resume_file"]
