"""Full runs for paper B's random-transformer claims (SG-4, SG-5, SG-6), as formalised in
boolverify: the data of ``docs/data/sg{4,5,6}_*.json`` (``boolverify runs sg4 / sg5 / sg6``;
the figures are :mod:`verify.report.transformer_figures`).

Each run takes its plan from :mod:`verify.experiments.plans` (``*_FULL``, or the smoke plans
``*_QUICK``), writes its JSON file atomically (SG-6 after every (scheme, N) cell) and reports
one line per finished part to ``progress(text)`` when given.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from numeric.transformer import SCHEMES, TransformerConfig, random_profiles
from verify.common.atomic_io import atomic_write_json
from verify.experiments.plans import SG4_FULL, SG5_FULL, SG6_D32_FULL, SG6_FULL
from verify.experiments.random_transformers import (
    influence_sweep, loglog_slope, margin_sweep, summarize_profiles,
)


def _say(progress, text):
    if progress is not None:
        progress(text)


def run_sg6(path, plan=SG6_FULL, plan_d32=SG6_D32_FULL, progress=None) -> dict:
    """SG-6 at eps = 0: exact profiles of ``plan["models"][N]`` random models per init scheme
    and N (``plan``), and of ``plan_d32["models"]`` models at D = 32 (``plan_d32``)."""
    out = {"settings": {k: (v if not isinstance(v, dict) else {str(a): b for a, b in v.items()})
                        for k, v in plan.items()}, "results": {}, "note": "as formalised in boolverify"}
    cfg = TransformerConfig(D=plan["D"], L=plan["L"], H=plan["H"], eps=plan["eps"])
    for scheme in SCHEMES:
        out["results"][scheme] = {}
        for N in plan["Ns"]:
            m = plan["models"][N]
            t = time.perf_counter()
            K = random_profiles(cfg, scheme, N, m, seed=plan["seed"])
            s = replace(summarize_profiles(K, N), seconds=time.perf_counter() - t, min_K0=int(K[:, 0].min()))
            out["results"][scheme][str(N)] = s.as_dict()
            _say(progress, f"sg6 {scheme} N={N} models={m}: frac K0>=1 {s.frac_K0_ge_1:.3f}, "
                           f"mean K0/2^N {s.mean_K0_frac:.3f} ({s.seconds:.0f}s)")
            atomic_write_json(path, out)
    cfg32 = TransformerConfig(D=plan_d32["D"], L=plan_d32["L"], H=plan_d32["H"], eps=plan_d32["eps"])
    out["D32"] = {"settings": plan_d32, "results": {}}
    for scheme in SCHEMES:
        K = random_profiles(cfg32, scheme, plan_d32["N"], plan_d32["models"], seed=plan_d32["seed"])
        s = replace(summarize_profiles(K, plan_d32["N"]), min_K0=int(K[:, 0].min()))
        out["D32"]["results"][scheme] = s.as_dict()
        _say(progress, f"sg6 D={plan_d32['D']} {scheme}: frac K0>=1 {s.frac_K0_ge_1:.3f}, "
                       f"mean K0/2^N {s.mean_K0_frac:.3f}")
        atomic_write_json(path, out)
    return out


def run_sg4(path, plan=SG4_FULL, progress=None) -> dict:
    """SG-4 at eps > 0: the largest single-bit influence at eos of ``plan["models"]`` random
    models against N, with log-log slopes (of the mean log, per model, of the maximum)."""
    s = dict(plan)
    Ns = s["Ns"]
    t = time.perf_counter()
    cfg = TransformerConfig(D=s["D"], L=s["L"], H=s["H"], eps=s["eps"], N_max=max(Ns))
    vals = influence_sweep(cfg, Ns, s["models"], samples=s["samples"],
                           positions=s["positions"], seed=s["seed"], B=s["B"]).numpy()
    per_model = [float(np.polyfit(np.log(Ns), np.log(vals[j]), 1)[0]) for j in range(vals.shape[0])]
    out = {"settings": s, "Ns": list(Ns), "influence": vals.tolist(),
           "slope_mean_log": loglog_slope(Ns, vals),
           "slope_per_model": per_model,
           "slope_of_max": float(np.polyfit(np.log(Ns), np.log(vals.max(0)), 1)[0]),
           "seconds": time.perf_counter() - t, "note": "as formalised in boolverify"}
    _say(progress, f"sg4 slope of mean log-influence {out['slope_mean_log']:.3f}; per model "
                   f"{min(per_model):.2f}..{max(per_model):.2f} ({out['seconds']:.0f}s)")
    atomic_write_json(path, out)
    return out


def run_sg5(path, plan=SG5_FULL, progress=None) -> dict:
    """SG-5 at eps > 0: margin-xi recognition of ``plan["models"]`` random models over all 2^N
    strings, per xi and N."""
    s = dict(plan)
    Ns = s["Ns"]
    t = time.perf_counter()
    cfg = TransformerConfig(D=s["D"], L=s["L"], H=s["H"], eps=s["eps"], N_max=max(64, max(Ns)))
    res = {xi: c.as_dict() for xi, c in margin_sweep(cfg, Ns, s["models"], s["xis"], seed=s["seed"],
                                                     B=s["B"]).items()}
    out = {"settings": s, "Ns": list(Ns), "counts": res, "seconds": time.perf_counter() - t,
           "note": "as formalised in boolverify"}
    _say(progress, f"sg5 {res} ({out['seconds']:.0f}s)")
    atomic_write_json(path, out)
    return out


__all__ = ["run_sg4", "run_sg5", "run_sg6"]
