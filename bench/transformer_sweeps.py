"""Full runs for paper B's random-transformer claims (SG-4, SG-5, SG-6), as formalised in boolverify.

    nice -n 10 python -m bench.transformer_sweeps [sg6] [sg4] [sg5] [figures] [--quick]

Writes ``docs/data/sg{4,5,6}_*.json`` (atomically, after each part) and the figures
``docs/figures/sg{4,5,6}_*.{png,pdf}``; ``figures`` redraws them from the saved data.
One CPU thread. The settings are the full-run plans of :mod:`verify.experiments.plans`.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import torch

from numeric.transformer import SCHEMES, TransformerConfig, random_profiles
from verify.common.atomic_io import atomic_savefig, atomic_write_json, pyplot
from verify.experiments.plans import SG4_FULL as SG4
from verify.experiments.plans import SG5_FULL as SG5
from verify.experiments.plans import SG6_D32_FULL as SG6_D32
from verify.experiments.plans import SG6_FULL as SG6
from verify.experiments.random_transformers import (
    influence_sweep, loglog_slope, margin_sweep, summarize_profiles,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data"
FIG = ROOT / "docs" / "figures"


def _log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run_sg6(quick=False):
    out = {"settings": {k: (v if not isinstance(v, dict) else {str(a): b for a, b in v.items()})
                        for k, v in SG6.items()}, "results": {}, "note": "as formalised in boolverify"}
    cfg = TransformerConfig(D=SG6["D"], L=SG6["L"], H=SG6["H"], eps=SG6["eps"])
    for scheme in SCHEMES:
        out["results"][scheme] = {}
        for N in SG6["Ns"]:
            m = SG6["models"][N] if not quick else 4
            t = time.perf_counter()
            K = random_profiles(cfg, scheme, N, m, seed=SG6["seed"])
            s = summarize_profiles(K, N)
            s["seconds"] = time.perf_counter() - t
            s["min_K0"] = int(K[:, 0].min())
            out["results"][scheme][str(N)] = s
            _log(f"sg6 {scheme} N={N} models={m}: frac K0>=1 {s['frac_K0_ge_1']:.3f}, "
                 f"mean K0/2^N {s['mean_K0_frac']:.3f} ({s['seconds']:.0f}s)")
            atomic_write_json(DATA / "sg6_random_profiles.json", out)
    cfg32 = TransformerConfig(D=32, L=2, H=2, eps=0.0)
    out["D32"] = {"settings": SG6_D32, "results": {}}
    for scheme in SCHEMES:
        m = SG6_D32["models"] if not quick else 4
        K = random_profiles(cfg32, scheme, SG6_D32["N"], m, seed=SG6_D32["seed"])
        s = summarize_profiles(K, SG6_D32["N"])
        s["min_K0"] = int(K[:, 0].min())
        out["D32"]["results"][scheme] = s
        _log(f"sg6 D=32 {scheme}: frac K0>=1 {s['frac_K0_ge_1']:.3f}, mean K0/2^N {s['mean_K0_frac']:.3f}")
        atomic_write_json(DATA / "sg6_random_profiles.json", out)
    return out


def run_sg4(quick=False):
    s = dict(SG4)
    Ns = s["Ns"] if not quick else (8, 16, 32, 64)
    t = time.perf_counter()
    cfg = TransformerConfig(D=s["D"], L=s["L"], H=s["H"], eps=s["eps"], N_max=max(Ns))
    vals = influence_sweep(cfg, Ns, s["models"] if not quick else 3, samples=s["samples"],
                           positions=s["positions"], seed=s["seed"], B=s["B"]).numpy()
    per_model = [float(np.polyfit(np.log(Ns), np.log(vals[j]), 1)[0]) for j in range(vals.shape[0])]
    out = {"settings": s, "Ns": list(Ns), "influence": vals.tolist(),
           "slope_mean_log": loglog_slope(Ns, vals),
           "slope_per_model": per_model,
           "slope_of_max": float(np.polyfit(np.log(Ns), np.log(vals.max(0)), 1)[0]),
           "seconds": time.perf_counter() - t, "note": "as formalised in boolverify"}
    _log(f"sg4 slope of mean log-influence {out['slope_mean_log']:.3f}; per model "
         f"{min(per_model):.2f}..{max(per_model):.2f} ({out['seconds']:.0f}s)")
    atomic_write_json(DATA / "sg4_influence.json", out)
    return out


def run_sg5(quick=False):
    s = dict(SG5)
    Ns = s["Ns"] if not quick else (1, 2, 4)
    t = time.perf_counter()
    cfg = TransformerConfig(D=s["D"], L=s["L"], H=s["H"], eps=s["eps"], N_max=max(64, max(Ns)))
    res = margin_sweep(cfg, Ns, s["models"] if not quick else 10, s["xis"], seed=s["seed"], B=s["B"])
    out = {"settings": s, "Ns": list(Ns), "counts": res, "seconds": time.perf_counter() - t,
           "note": "as formalised in boolverify"}
    _log(f"sg5 {res} ({out['seconds']:.0f}s)")
    atomic_write_json(DATA / "sg5_margin.json", out)
    return out


def _save(fig, stem):
    for ext in ("png", "pdf"):
        atomic_savefig(fig, FIG / f"{stem}.{ext}", dpi=150)
    pyplot().close(fig)


def _sg6_figures(plt, d):
    st = d["settings"]
    N = 12 if "12" in d["results"][SCHEMES[0]] else int(max(d["results"][SCHEMES[0]], key=int))
    fig, axes = plt.subplots(1, 5, figsize=(15, 3.2), sharey=True)
    k = np.arange(N + 1)
    for ax, scheme in zip(axes, SCHEMES):
        s = d["results"][scheme][str(N)]
        ax.bar(k, np.maximum(s["mean_profile_frac"], 1e-7), color="C0")
        ax.set_title(f"{scheme}\nP(K0>=1)={s['frac_K0_ge_1']:.2f}", fontsize=9)
        ax.set_yscale("log")
        ax.set_xlabel("k")
    axes[-1].bar(k, [math.comb(N, i) / 2**N for i in k], color="C1")
    axes[-1].set_title("random function\nP(K0>=1)~0.63", fontsize=9)
    axes[-1].set_xlabel("k")
    axes[0].set_ylabel("mean K_k / 2^N")
    fig.suptitle(f"Profiles at N={N}, eps=0, D={st['D']}, L={st['L']}, H={st['H']} "
                 "(as formalised in boolverify)", fontsize=10)
    fig.tight_layout()
    _save(fig, "sg6_profiles_per_init")

    fig, ax = plt.subplots(figsize=(6, 4))
    for scheme in SCHEMES:
        Ns = sorted(int(n) for n in d["results"][scheme])
        ax.plot(Ns, [d["results"][scheme][str(n)]["mean_K0_frac"] for n in Ns], "o-", label=scheme)
    Ns = sorted(int(n) for n in d["results"][SCHEMES[0]])
    ax.plot(Ns, [2.0**-n for n in Ns], "k--", label="random function (2^-N)")
    ax.set_yscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("mean K_0 / 2^N")
    ax.set_title(f"Zero-sensitivity strings, eps = 0, D={st['D']}, L={st['L']}, H={st['H']} "
                 "(as formalised in boolverify)", fontsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, "sg6_K0_fraction_vs_N")


def _sg4_figure(plt, d):
    Ns = np.array(d["Ns"])
    v = np.array(d["influence"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for row in v:
        ax.plot(Ns, row, color="0.75", lw=0.8)
    gm = np.exp(np.log(v).mean(0))
    ax.plot(Ns, gm, "o-", color="C0", label=f"geometric mean over {v.shape[0]} models")
    ax.plot(Ns, gm[0] * (Ns / Ns[0]) ** -1.0, "k--", label="slope -1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N")
    ax.set_ylabel("max single-bit influence at eos")
    ax.set_title(f"eps={d['settings']['eps']:g}, uniform box B={d['settings']['B']:g}: "
                 f"slope {d['slope_mean_log']:.2f} (as formalised in boolverify)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    _save(fig, "sg4_influence_vs_N")


def _sg5_figure(plt, d):
    m = d["settings"]["models"]
    fig, ax = plt.subplots(figsize=(6, 4))
    for xi, c in d["counts"].items():
        ax.plot(d["Ns"], np.array(c["nonconstant"]) / m, "o-", label=f"non-constant, xi={xi}")
        ax.plot(d["Ns"], np.array(c["recognises"]) / m, "s:", alpha=0.6, label=f"any function, xi={xi}")
    ax.set_xlabel("N")
    ax.set_ylabel(f"fraction of {m} random models")
    st5 = d["settings"]
    ax.set_title(f"Margin-xi recognition, eps={st5['eps']:g}, D={st5['D']}, L={st5['L']}, box B={st5['B']:g} "
                 "(as formalised in boolverify)", fontsize=7)
    ax.legend(fontsize=7)
    fig.tight_layout()
    _save(fig, "sg5_margin_vs_N")


def figures():
    """Redraw the SG-4/5/6 figures from the saved data files (those present)."""
    import json

    plt = pyplot()
    for name, draw in (("sg6_random_profiles.json", _sg6_figures), ("sg4_influence.json", _sg4_figure),
                       ("sg5_margin.json", _sg5_figure)):
        path = DATA / name
        if path.exists():
            draw(plt, json.loads(path.read_text()))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    quick = "--quick" in argv
    parts = [a for a in argv if not a.startswith("--")] or ["sg6", "sg4", "sg5", "figures"]
    torch.set_num_threads(1)
    for part in parts:
        if part == "figures":
            figures()
        else:
            {"sg6": run_sg6, "sg4": run_sg4, "sg5": run_sg5}[part](quick=quick)
    _log("done")


if __name__ == "__main__":
    main()
