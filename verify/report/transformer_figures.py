"""Figures of paper B's full runs (SG-4, SG-5, SG-6, Theorem 4.5 past its crossover), drawn
from their saved data (plain dicts: the JSON files of :mod:`verify.experiments.transformer_sweeps`
and :func:`verify.experiments.theorem45.run_theorem45`). matplotlib with the Agg backend; every
file written atomically.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from numeric.vocabulary import INIT_SCHEMES as SCHEMES
from verify.common.atomic_io import pyplot, save_figure


def _save(fig, fig_dir, stem, data):
    try:
        return save_figure(fig, [Path(fig_dir) / f"{stem}.{ext}" for ext in ("png", "pdf")], data=data, dpi=150)
    finally:
        pyplot().close(fig)


def sg6_figures(d, fig_dir, data=()):
    """SG-6: the mean profile per init scheme at N = 12 (or the largest N) beside a random
    function's, and the mean K_0 / 2^N against N (``sg6_profiles_per_init``,
    ``sg6_K0_fraction_vs_N``, PNG and PDF)."""
    plt = pyplot()
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
    paths = _save(fig, fig_dir, "sg6_profiles_per_init", data)

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
    return paths + _save(fig, fig_dir, "sg6_K0_fraction_vs_N", data)


def sg4_figure(d, fig_dir, data=()):
    """SG-4: the largest single-bit influence against N, per model and their geometric mean
    (``sg4_influence_vs_N``)."""
    plt = pyplot()
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
    return _save(fig, fig_dir, "sg4_influence_vs_N", data)


def sg5_figure(d, fig_dir, data=()):
    """SG-5: the fraction of models that recognise a non-constant function (and any function)
    with margin xi, against N (``sg5_margin_vs_N``)."""
    plt = pyplot()
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
    return _save(fig, fig_dir, "sg5_margin_vs_N", data)


def theorem45_figure(data, path, sources=()):
    """log2 of the per-model lower bound of K_0 against N, per scheme, beside a log2 N and N
    (``sources``: the data files of ``data``, named in the figure's provenance sidecar)."""
    plt = pyplot()
    schemes = data["params"]["schemes"]
    a = data["params"]["a"]
    fig, axes = plt.subplots(1, len(schemes), figsize=(4.2 * len(schemes), 3.8), squeeze=False, sharey=True)
    cells = data["cells"]
    Ns = sorted({c["N"] for c in cells.values()})
    floor = -10
    for ax, scheme in zip(axes.flat, schemes):
        for key, c in cells.items():
            if c["scheme"] != scheme:
                continue
            ys = [r["log2_K0_lower"] if r["log2_K0_lower"] is not None else floor for r in c["models"]]
            xs = [c["N"] + (i % 9 - 4) * 0.6 for i in range(len(ys))]
            ax.scatter(xs, ys, s=8, alpha=0.6, color="tab:blue")
            ax.annotate(f"{c['bound_holds']}/{c['nonconstant']}\n({c['draws']} drawn)", (c["N"], floor + 3),
                        fontsize=6, ha="center")
        n = [min(Ns) * 0.95 + i * (max(Ns) * 1.05 - min(Ns) * 0.95) / 100 for i in range(101)]
        ax.plot(n, [a * math.log2(v) for v in n], color="tab:red", label=r"$a\log_2 N$ (Thm 4.5)")
        ax.plot(n, n, color="gray", ls="--", label=r"$N$ ($K_0 = 2^N$)")
        ax.axhline(floor, color="k", lw=0.5)
        ax.set_title(scheme, fontsize=9)
        ax.set_xlabel("N")
    axes.flat[0].set_ylabel(r"$\log_2$ (95% lower bound of $K_0$); none seen: bottom")
    axes.flat[0].legend(fontsize=7, loc="upper left")
    p = data["params"]
    fig.suptitle(f"Theorem 4.5 past its crossover N* = {p['N_star']} (D = {p['D']}, L = {p['L']}, "
                 f"a = {a:g}); non-constant models, as formalised in boolverify", fontsize=9)
    fig.tight_layout()
    try:
        return save_figure(fig, [path], data=sources, dpi=130)[0]
    finally:
        plt.close(fig)



#: data file -> figure function (``draw(data, fig_dir, data=[file])``) of the SG-4/5/6 runs
SWEEP_FIGURES = {"sg6_random_profiles.json": sg6_figures, "sg4_influence.json": sg4_figure,
                 "sg5_margin.json": sg5_figure}


def render_from_data(data_dir="docs/data", fig_dir="docs/figures", files=None) -> dict:
    """Redraw the SG-4/5/6 and Theorem 4.5 figures from the data files present in ``data_dir``
    (with ``files``, a collection of file names, only from those); returns
    ``{data file: [written paths]}``."""
    data_dir, drawn = Path(data_dir), {}

    def present(name):
        return (files is None or name in files) and (data_dir / name).exists()

    for name, draw in SWEEP_FIGURES.items():
        if present(name):
            drawn[name] = draw(json.loads((data_dir / name).read_text()), fig_dir, data=[data_dir / name])
    path = data_dir / "theorem45.json"
    if present(path.name):
        drawn["theorem45.json"] = [theorem45_figure(json.loads(path.read_text()), Path(fig_dir) / "theorem45.png",
                                                       sources=[path])]
    return drawn


__all__ = ["sg4_figure", "sg5_figure", "sg6_figures", "theorem45_figure", "render_from_data", "SWEEP_FIGURES"]
