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

from numeric.validation import InputError
from numeric.vocabulary import INIT_SCHEMES as SCHEMES
from verify.experiments.plans import SG4_FULL
from verify.experiments.random_transformers import per_model_slopes
from verify.report.plot_style import (BACKGROUND, REFERENCE, REFERENCE_2, colour, note_below, save, series, styled,
                                      subplots, tex_number)
from verify.stats.intervals import clopper_pearson, mean_interval


def _stem(fig_dir, stem):
    return Path(fig_dir) / f"{stem}.png"


def _counts(fraction, trials):
    """The integer count behind a recorded fraction of ``trials`` (the runs store fractions)."""
    k = round(fraction * trials)
    if abs(k - fraction * trials) > 1e-6 * max(1, trials):
        raise InputError(f"fraction {fraction!r} of {trials} trials is not a whole count")
    return k


def _cp_band(successes, trials, level):
    """Estimates and asymmetric error bars of Clopper-Pearson intervals (NaN where no trials)."""
    est, lo, hi = [], [], []
    for s, n in zip(successes, trials):
        if n == 0:
            est.append(math.nan), lo.append(0.0), hi.append(0.0)
            continue
        a, b = clopper_pearson(s, n, level)
        est.append(s / n)
        lo.append(s / n - a)
        hi.append(b - s / n)
    return np.array(est), [lo, hi]


def _nonconstant_counts(cell):
    """``(non-constant models, those with K_0 >= 1)`` of one cell of ``sg6_random_profiles.json``.
    A constant function has K_0 = 2^N >= 1, so the recorded all-model counts give the
    non-constant ones exactly."""
    m = cell["models"]
    const = _counts(cell["frac_constant"], m)
    ge1 = _counts(cell["frac_K0_ge_1"], m)
    return m - const, ge1 - const


def _nonconstant_mean_profile(cell, N):
    """The mean profile ``K_k / 2^N`` over the non-constant models of a cell (a constant model's
    profile is 1 at k = 0 and 0 elsewhere); None when every model is constant."""
    m = cell["models"]
    const = _counts(cell["frac_constant"], m)
    if const == m:
        return None
    total = np.array(cell["mean_profile_frac"], dtype=np.float64) * m
    total[0] -= const
    return np.maximum(total / (m - const), 0.0)


@styled
def sg6_figures(d, fig_dir, data=()):
    """SG-6 on its non-constant models (a constant function has K_0 = 2^N and says nothing):
    the mean profile of the non-constant models per init scheme at N = 12 (or the largest N)
    beside a random function's (``sg6_profiles_per_init``), and against N the share of
    non-constant models with K_0 >= 1, with Clopper-Pearson intervals, against the random
    function's 1 - 1/e, beside the share of constant models against the claim's ceiling
    (``sg6_K0_fraction_vs_N``); PNG and PDF."""
    from verify.experiments.claim_rules import SG6

    st = d["settings"]
    res = d["results"]
    setting = rf"$D = {st['D']}$, $L = {st['L']}$, $H = {st['H']}$, $\varepsilon = 0$"
    N = 12 if "12" in res[SCHEMES[0]] else int(max(res[SCHEMES[0]], key=int))
    fig, axes = subplots(1, len(SCHEMES), figsize=(13, 3.9), sharey=True)
    k = np.arange(N + 1)
    rand = [math.comb(N, i) / 2**N for i in k]
    for i, (ax, scheme) in enumerate(zip(axes, SCHEMES)):
        cell = res[scheme][str(N)]
        prof = _nonconstant_mean_profile(cell, N)
        nonconst, _ = _nonconstant_counts(cell)
        if prof is not None:
            ax.bar(k - 0.2, np.maximum(prof, 1e-7), width=0.4, color=colour(0),
                   label="non-constant random transformers")
        ax.bar(k + 0.2, rand, width=0.4, color=colour(4), hatch="//", edgecolor="white",
               label=r"random function, $\binom{N}{k}/2^N$")
        ax.set_yscale("log")
        ax.set_ylim(1e-5, 1.5)
        ax.set_xticks(range(0, N + 1, 2))
        ax.set_title(f"{scheme.replace('_', ' ')}: {nonconst} of {cell['models']} non-constant", fontsize=11)
        ax.set_xlabel("sensitivity $k$")
    axes[0].set_ylabel(r"mean $K_k / 2^N$")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper right", ncols=2)
    fig.suptitle(f"SG-6: mean sensitivity profile of the non-constant random transformers, $N = {N}$ ({setting})")
    note_below(fig, "bars at $10^{-5}$: no string of that sensitivity; constant models (profile $K_0 = 2^N$) "
                    "left out; as formalised in boolverify")
    paths = save(fig, _stem(fig_dir, "sg6_profiles_per_init"), data)

    fig, (ax, ac) = subplots(1, 2, figsize=(12, 4.6))
    level = SG6.report_conf
    for i, scheme in enumerate(SCHEMES):
        Ns = sorted(int(n) for n in res[scheme])
        counts = [_nonconstant_counts(res[scheme][str(n)]) for n in Ns]
        est, err = _cp_band([c[1] for c in counts], [c[0] for c in counts], level)
        shift = (i - 1.5) * 0.12
        ax.errorbar(np.array(Ns) + shift, est, yerr=err, label=scheme.replace("_", " "), **series(i))
        models = [res[scheme][str(n)]["models"] for n in Ns]
        const = [_counts(res[scheme][str(n)]["frac_constant"], m) for n, m in zip(Ns, models)]
        est, err = _cp_band(const, models, level)
        ac.errorbar(np.array(Ns) + shift, est, yerr=err, label=scheme.replace("_", " "), **series(i))
    ax.axhline(SG6.p_random_function, **REFERENCE, label=r"random function, $1 - 1/e$")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("$N$")
    ax.set_ylabel(r"$P(K_0 \geq 1 \mid$ non-constant$)$")
    ax.set_title(r"zero-sensitivity strings of non-constant models")
    ax.legend(loc="lower left", fontsize=9)
    ac.axhline(SG6.constant_max, **REFERENCE, label=f"claim's ceiling {SG6.constant_max:g}")
    ac.set_ylim(0, 1.05)
    ac.set_xlabel("$N$")
    ac.set_ylabel(r"$P($constant function$)$")
    ac.set_title("constant models (left out on the left)")
    ac.legend(loc="lower left", fontsize=9)
    models = ", ".join(f"{n}: {m}" for n, m in st["models"].items())
    fig.suptitle(f"SG-6 against $N$ ({setting}); {level:.0%} Clopper-Pearson intervals")
    note_below(fig, f"models per scheme by N: {models}; SG-6 decides at $D = {SG6.D}$, $N = {SG6.N}$ "
                    f"(level {SG6.level:g}); as formalised in boolverify")
    return paths + save(fig, _stem(fig_dir, "sg6_K0_fraction_vs_N"), data)


@styled
def sg4_figure(d, fig_dir, data=()):
    """SG-4: the largest single-bit influence at eos against N over the claim's N (per model and
    the geometric mean with a t interval per N), with the decided bound's slope
    :math:`N^{-1/2}` and :math:`N^{-1}` drawn in; beside it the per-model log-log slopes, their
    mean with its t interval at the claim's level, the bound and the window of rule 2
    (``sg4_influence_vs_N``)."""
    from verify.experiments.claim_rules import SG4

    all_Ns = np.array(d["Ns"], dtype=np.float64)
    keep = np.isin(all_Ns, SG4.Ns)
    if keep.sum() < 2:
        raise InputError(f"sg4_figure: expected at least two of the claim's N = {SG4.Ns} in the data")
    Ns = all_Ns[keep]
    v = np.array(d["influence"], dtype=np.float64)[:, keep]
    logs = np.log(v)
    fig, (ax, ar) = subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [1.6, 1]})
    for row in v:
        ax.plot(Ns, row, color=BACKGROUND, lw=0.6, alpha=0.35, linestyle="-", marker="none", zorder=1)
    centre, lo, hi = [], [], []
    for j in range(len(Ns)):
        m, (a, b), _ = mean_interval(logs[:, j], level=0.95)
        centre.append(math.exp(m)), lo.append(math.exp(m) - math.exp(a)), hi.append(math.exp(b) - math.exp(m))
    ax.errorbar(Ns, centre, yerr=[lo, hi], zorder=3, **series(0),
                label=f"geometric mean of {v.shape[0]} models (95 % $t$ interval)")
    ax.plot(Ns, centre[0] * (Ns / Ns[0]) ** SG4.slope_max, **REFERENCE,
            label=r"$\propto N^{-1/2}$ (the decided bound)")
    ax.plot(Ns, centre[0] * (Ns / Ns[0]) ** -1.0, **REFERENCE_2, label=r"$\propto N^{-1}$")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("$N$")
    ax.set_ylabel(r"$\max_i$ influence of bit $i$ at eos")
    ax.legend(loc="lower left", fontsize=9)
    slopes = per_model_slopes(Ns, v).numpy()
    m, (a, b), _ = mean_interval(slopes, 2 * SG4.level - 1, "two-sided")
    _, (a2, b2), _ = mean_interval(slopes, SG4.level, "two-sided")
    ar.axvspan(*SG4.consistent, color=colour(2), alpha=0.15, label=f"window of rule 2 {SG4.consistent}")
    ar.axvline(SG4.slope_max, **REFERENCE, label=f"rule 1: upper bound below {SG4.slope_max:g}")
    jitter = np.random.default_rng(0).uniform(-0.35, 0.35, len(slopes))
    ar.plot(slopes, jitter, linestyle="none", marker="o", ms=3.5, color=BACKGROUND, mec="0.6", alpha=0.7,
            label=f"per model ({len(slopes)})")
    ar.errorbar([m], [0.55], xerr=[[m - a], [b - m]], color=colour(1), marker="D", ms=8, capsize=6, lw=2.5,
                label=f"mean {m:.3f}; rule 1: one-sided {SG4.level:.0%} bound {b:.3f}")
    ar.errorbar([m], [0.8], xerr=[[m - a2], [b2 - m]], color=colour(0), marker="D", ms=8, capsize=6, lw=2.5,
                label=f"rule 2: two-sided {SG4.level:.0%} $t$ interval")
    ar.set_ylim(-1, 2.2)
    ar.set_yticks([])
    ar.set_xlabel(r"log-log slope over $N = %d \ldots %d$" % (Ns[0], Ns[-1]))
    ar.set_title("per-model slopes")
    ar.legend(loc="upper left", fontsize=8.5)
    st = d["settings"]
    fig.suptitle(rf"SG-4: largest single-bit influence, $\varepsilon = {tex_number(st['eps'])}$, uniform box "
                 rf"$B = {st['B']:g}$, $D = {st['D']}$, $L = {st['L']}$, $H = {st['H']}$")
    dropped = [int(n) for n in all_Ns[~keep]]
    note_below(fig, f"{v.shape[0]} models, per model and N the max over {st['strings']} strings x "
                    f"{st['positions']} positions; "
                    + ("the claim's data at seed base 0; " if _is_plan(st, SG4_FULL) else "")
                    + (f"claim's N only (N = {', '.join(map(str, dropped))} of the run not drawn); " if dropped
                       else "") + "as formalised in boolverify")
    return save(fig, _stem(fig_dir, "sg4_influence_vs_N"), data)


def _is_plan(settings, plan):
    """Whether saved settings (lists where the plan has tuples) are exactly ``plan``'s."""
    return json.loads(json.dumps(dict(plan))) == json.loads(json.dumps(settings))


@styled
def sg5_figure(d, fig_dir, data=()):
    """SG-5: per margin xi, the share of the models that recognise a non-constant function with
    margin xi, against N, with Clopper-Pearson intervals at the claim's level, the ceiling
    ``p_max`` it is decided against at ``N_large`` and the sizes it decides at
    (``sg5_margin_vs_N``)."""
    from verify.experiments.claim_rules import SG5

    m = d["settings"]["models"]
    Ns = np.array(d["Ns"], dtype=np.float64)
    fig, ax = subplots(figsize=(8.5, 5))
    for i, (xi, c) in enumerate(sorted(d["counts"].items(), key=lambda kv: float(kv[0]))):
        est, err = _cp_band(c["nonconstant"], [m] * len(Ns), SG5.level)
        ax.errorbar(Ns + (i - 1) * 0.08, est, yerr=err, label=rf"$\xi = {float(xi):g}$", **series(i))
    ax.axhline(SG5.p_max, **REFERENCE, label=rf"$p_{{\max}} = {SG5.p_max:g}$ (ceiling at $N = {SG5.N_large}$)")
    for n, what in ((SG5.N_small, "small"), (SG5.N_large, "large")):
        ax.axvline(n, **REFERENCE_2)
        ax.text(n, 0.98, f" $N_{{\\mathrm{{{what}}}}} = {n}$", transform=ax.get_xaxis_transform(), va="top",
                ha="left", fontsize=10, backgroundcolor="white")
    ax.set_xlabel("$N$")
    ax.set_ylabel(f"share of the {m} models that recognise\n" r"a non-constant function with margin $\xi$")
    ax.set_ylim(0, None)
    ax.legend(loc="center right")
    st = d["settings"]
    ax.set_title(rf"SG-5: margin-$\xi$ recognition, $\varepsilon = {tex_number(st['eps'])}$, box $B = {st['B']:g}$, "
                 rf"$D = {st['D']}$, $L = {st['L']}$, $H = {st['H']}$")
    note_below(fig, f"{SG5.level:.0%} Clopper-Pearson intervals; SG-5 decides at $\\xi = {SG5.xi:g}$ with "
                    f"{SG5.models} models; as formalised in boolverify")
    return save(fig, _stem(fig_dir, "sg5_margin_vs_N"), data)


@styled
def theorem45_figure(data, path, sources=()):
    """Theorem 4.5 past its crossover, per init scheme: top, log2 of each non-constant model's
    95 % lower bound of K_0 against N beside the theorem's a log2 N and N (models whose sample
    shows no zero-sensitivity string on a row of their own); bottom, the share of non-constant
    models whose bound clears a log2 N, with Clopper-Pearson intervals. ``path``: the PNG (its PDF
    is written beside it); ``sources``: the data files of ``data``. Returns the PNG path."""
    schemes = data["params"]["schemes"]
    p = data["params"]
    a = p["a"]
    cells = data["cells"]
    Ns = sorted({c["N"] for c in cells.values()})
    fig, axes = subplots(2, len(schemes), figsize=(3.4 * len(schemes) + 1, 6.6), squeeze=False,
                         sharex=True, sharey="row", gridspec_kw={"height_ratios": [2, 1]})
    floor = -15
    n = np.linspace(min(Ns) * 0.95, max(Ns) * 1.03, 100)
    for j, scheme in enumerate(schemes):
        ax, af = axes[0][j], axes[1][j]
        rows = sorted((c for c in cells.values() if c["scheme"] == scheme), key=lambda c: c["N"])
        for c in rows:
            got = [r["log2_K0_lower"] for r in c["models"] if r["log2_K0_lower"] is not None]
            none = sum(r["log2_K0_lower"] is None for r in c["models"])
            xs = c["N"] + np.linspace(-4, 4, len(got)) if got else []
            ax.scatter(xs, got, s=12, alpha=0.6, color=colour(0), marker="o", zorder=3)
            if none:
                ax.scatter([c["N"]], [floor], s=40, marker="x", color=colour(1), zorder=3)
                ax.annotate(str(none), (c["N"], floor), xytext=(6, 0), textcoords="offset points", va="center",
                            fontsize=9, color=colour(1))
        ax.plot(n, a * np.log2(n), **REFERENCE, label=rf"$a \, \log_2 N$ ($a = {a:g}$)")
        # the models sit on this line (K_0 near 2^N): drawn under them
        ax.plot(n, n, **{**REFERENCE_2, "zorder": 1, "linewidth": 1.2}, label=r"$N$, i.e. $K_0 = 2^N$")
        ax.set_title(scheme.replace("_", " "))
        est, err = _cp_band([c["bound_holds"] for c in rows], [c["nonconstant"] for c in rows], 0.95)
        af.errorbar([c["N"] for c in rows], est, yerr=err, **series(1))
        af.set_ylim(-0.05, 1.05)
        af.set_xlabel("$N$")
    axes[0][0].set_ylabel(r"$\log_2$ of the 95 % lower" "\n" r"bound of $K_0$")
    axes[1][0].set_ylabel(r"share with" "\n" r"$K_0 \geq N^{a}$")
    axes[0][0].set_yticks([floor, 0, 50, 100, 150, 200, 250], ["none\nseen", "0", "50", "100", "150", "200", "250"])
    axes[0][0].legend(loc="upper left", fontsize=9)
    fig.suptitle(rf"Theorem 4.5 past its crossover $N^* = {p['N_star']}$: non-constant models, "
                 rf"$D = {p['D']}$, $L = {p['L']}$, $H = {p['H']}$, $\varepsilon = {p['eps']:g}$")
    note_below(fig, "x: models with no zero-sensitivity string among their sampled ones (count beside); "
                    "bottom: 95 % Clopper-Pearson intervals; as formalised in boolverify")
    return save(fig, path, sources)[0]


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
        png = Path(fig_dir) / "theorem45.png"
        theorem45_figure(json.loads(path.read_text()), png, sources=[path])
        drawn["theorem45.json"] = [png, png.with_suffix(".pdf")]
    return drawn


__all__ = ["sg4_figure", "sg5_figure", "sg6_figures", "theorem45_figure", "render_from_data", "SWEEP_FIGURES"]
