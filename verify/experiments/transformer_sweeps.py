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
from verify.experiments.claim_rules import SG4
from verify.experiments.random_transformers import (
    influence_maxima, margin_sweep, per_model_slopes, summarize_profiles,
)
from verify.stats.intervals import mean_interval


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
    """SG-4 at eps > 0: per model, the largest single-bit influence at eos over ``strings`` x
    ``positions`` random pairs against N (the estimator the claim decides on), its per-model
    log-log slopes, their mean and the claim's intervals of that mean (two-sided at
    ``2 level - 1``, whose upper end is the one-sided bound of rule 1, and at ``level``, rule 2's)."""
    s = dict(plan)
    Ns = s["Ns"]
    t = time.perf_counter()
    cfg = TransformerConfig(D=s["D"], L=s["L"], H=s["H"], eps=s["eps"], N_max=max(Ns))
    vals = influence_maxima(cfg, Ns, s["models"], strings=s["strings"], positions=s["positions"],
                            seed=s["seed"], B=s["B"])
    per_model = per_model_slopes(Ns, vals)
    mean, rule1, _ = mean_interval(per_model, 2 * SG4.level - 1, "two-sided")
    _, rule2, _ = mean_interval(per_model, SG4.level, "two-sided")
    out = {"settings": s, "Ns": list(Ns), "influence": vals.tolist(),
           "slope_mean_log": float(mean), "slope_per_model": per_model.tolist(),
           "slope_interval_rule1": [float(v) for v in rule1], "slope_interval_rule2": [float(v) for v in rule2],
           "level": SG4.level,
           "slope_of_max": float(np.polyfit(np.log(Ns), np.log(vals.numpy().max(0)), 1)[0]),
           "seconds": time.perf_counter() - t, "note": "as formalised in boolverify"}
    _say(progress, f"sg4 mean per-model slope {mean:.3f}, rule-1 interval [{rule1[0]:.3f}, {rule1[1]:.3f}] "
                   f"({out['seconds']:.0f}s)")
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
