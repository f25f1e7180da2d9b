"""Figures of sensitivity profiles (paper B, as formalised in boolverify; ``docs/claims.md#sg-1``
and ``docs/claims.md#sg-6``): the histograms of ``boolverify sensitivity profile``, the mean
profile of random transformers beside a random function (``boolverify sensitivity random``),
and the profile figure of ``docs/results-boolean.md`` (:func:`docs_figure`).

Every figure is drawn in the style of :mod:`verify.report.plot_style` and written atomically through
its ``save``, with its provenance sidecar; a path names exactly the file written (its format from
the suffix), a list of paths one file per format.
"""

from __future__ import annotations

import math
from pathlib import Path

from verify.common.atomic_io import check_figure_path
from verify.report.plot_style import REFERENCE, colour, note_below, save, styled, subplots, tex_number


def draw_histogram(result, path, data=()):
    """Bar chart of ``K_k / 2^N`` against ``k`` of one result of
    :func:`verify.report.sensitivity_profiles.summarise_profile`."""
    return draw_profiles([result], path, data=data)


def draw_profiles(results, path, ncols=None, data=()):
    """One bar chart of ``K_k / 2^N`` per result (a dict of
    :func:`verify.report.sensitivity_profiles.summarise_profile`), written to ``path`` (or to
    each of a list of paths of one stem); ``data``: the data files of the results, named in the
    figure's provenance sidecar. Returns ``path``."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    for p in paths:
        check_figure_path(p)
    _draw_profiles(results, paths, ncols, data)
    return path


@styled
def _draw_profiles(results, paths, ncols, data):
    n = len(results)
    ncols = ncols or min(n, 2)
    nrows = -(-n // ncols)
    fig, axes = subplots(nrows, ncols, figsize=(6.5 * ncols, 3.6 * nrows), squeeze=False)
    for ax, result in zip(axes.flat, results):
        N = result["N"]
        ax.bar(list(range(N + 1)), result["fractions"], color=colour(0))
        ax.set_xlabel("sensitivity $k$")
        ax.set_ylabel(r"$K_k / 2^N$")
        ax.set_title(f"{result['label'].replace('_', ' ')}: $\\mathrm{{as}}(f) = {result['average_sensitivity']:.4g}$, "
                     f"$K_0 = {result['K0']}$", fontsize=11)
        ax.axvline(result["average_sensitivity"], **REFERENCE, label=r"$\mathrm{as}(f)$")
        ax.set_xlim(-0.6, N + 0.6)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    axes.flat[0].legend(loc="upper right")
    Ns = sorted({r["N"] for r in results})
    fig.suptitle(f"exact sensitivity profiles, $N = {', '.join(map(str, Ns))}$ (all $2^N$ strings)")
    note_below(fig, "dashed: the average sensitivity; as formalised in boolverify")
    save(fig, paths, data)


@styled
def random_profile_figure(path, summary, N, label, data=(), models=None):
    """The mean profile ``K_k / 2^N`` of the non-constant random transformers beside the
    expected profile ``C(N, k) / 2^N`` of a uniformly random function, log scale: a constant
    function has ``K_0 = 2^N`` and says nothing about sensitivity, and most random models are
    constant. ``summary``: the :class:`~verify.experiments.transformer_records.ProfileSummary`
    of :func:`verify.experiments.random_transformers.summarize_profiles`; ``models``: the
    :class:`~verify.experiments.transformer_records.ModelsSummary` with the non-constant mean
    profile (without it, or with no non-constant model, the all-model mean is drawn and the
    title says so). ``path``: the file written."""
    from verify.stats.intervals import clopper_pearson

    fig, ax = subplots(figsize=(8.5, 5))
    k = list(range(N + 1))
    nonconst = None if models is None else models.nonconstant_mean_profile_frac
    if nonconst is not None and models.nonconstant:
        ax.bar([i - 0.2 for i in k], [max(v, 0.0) for v in nonconst], width=0.4, color=colour(0),
               label=f"non-constant random transformers ({models.nonconstant} of {models.models})")
        lo, hi = clopper_pearson(models.models - models.nonconstant, models.models, 0.95)
        const = (f"constant: {models.models - models.nonconstant} of {models.models} models "
                 f"(95 % Clopper-Pearson [{lo:.3f}, {hi:.3f}]), left out")
    else:
        ax.bar([i - 0.2 for i in k], summary.mean_profile_frac, width=0.4, color=colour(0),
               label=f"all {summary.models} random transformers, constant ones included")
        const = "constant models included (no non-constant profile given)"
    ax.bar([i + 0.2 for i in k], [math.comb(N, i) / 2**N for i in k], width=0.4, color=colour(4), hatch="//",
           edgecolor="white", label=r"random function, $\binom{N}{k}/2^N$")
    ax.set_xlabel("sensitivity $k$")
    ax.set_ylabel(r"mean $K_k / 2^N$")
    ax.set_yscale("log")
    ax.set_title(f"mean sensitivity profile, $N = {N}$: {label}", fontsize=11)
    ax.legend(loc="lower center")
    note_below(fig, f"{const}; as formalised in boolverify")
    save(fig, [path], data)


def docs_figure(stem="docs/figures/sg1_profiles", N=16):
    """The profile figure of docs/results-boolean.md (PNG and PDF): MAJORITY, PARITY,
    3-sparse parity, FIRST, a random function and a 5-sparse MAJORITY at ``N``; also returns
    the summaries."""
    from numeric.boolean import truth_table
    from numeric.boolean import profile
    from verify.report.sensitivity_profiles import summarise_profile

    specs = [("majority", {}), ("parity", {}), ("sparse_parity", {"S": [0, 5, 11]}),
             ("first", {}), ("random", {"seed": 0}), ("sparse_majority", {"S": [0, 1, 2, 3, 4]})]
    results = []
    for name, params in specs:
        label = name + "".join(f" {k}={v}" for k, v in params.items())
        results.append(summarise_profile(profile(truth_table(name, N, **params)), label))
    draw_profiles(results, [f"{stem}{ext}" for ext in (".png", ".pdf")])
    return results


@styled
def training_profiles(dicts, path, data=()):
    """Profiles of trained functions (``boolverify sensitivity train``; dicts of
    :meth:`verify.experiments.training.TrainResult.as_dict`): rows = targets, columns = N; one bar
    group per seed, the target's profile in black. ``path``: one image file or a list of them
    (one stem); ``data``: the data files of ``dicts``. Returns the written paths."""
    from numeric.boolean import exact_profile_fraction

    targets = list(dict.fromkeys(d["target"] for d in dicts))
    Ns = sorted({d["N"] for d in dicts})
    fig, axes = subplots(len(targets), len(Ns), figsize=(4.3 * len(Ns), 3.2 * len(targets)), squeeze=False)
    for i, t in enumerate(targets):
        for j, N in enumerate(Ns):
            ax = axes[i][j]
            runs = [d for d in dicts if d["target"] == t and d["N"] == N]
            ks = list(range(N + 1))
            width = 0.8 / max(1, len(runs))
            for m, d in enumerate(runs):
                xs = [k - 0.4 + width * (m + 0.5) for k in ks]
                frac = d["profile_fraction"]
                yerr = None
                if d["profile_ci"] is not None:
                    yerr = [[f - ci[0] for f, ci in zip(frac, d["profile_ci"])],
                            [ci[1] - f for f, ci in zip(frac, d["profile_ci"])]]
                ax.bar(xs, frac, width=width, yerr=yerr, capsize=1.5, error_kw={"lw": 0.6}, color=colour(m),
                       label=f"seed {d['seed']} (acc. {d['accuracy']:.3f})")
            tk = [(k, f) for k, f in zip(ks, exact_profile_fraction(t, N)) if f > 0]
            ax.plot([k for k, _ in tk], [f for _, f in tk], linestyle="none", marker="_", color="black", ms=12,
                    mew=2.2, label="target")
            ax.set_ylim(0, 1.05)
            ax.set_xlim(-0.6, N + 0.6)
            exact = runs and runs[0]["profile_exact"]
            ax.set_title(f"{t}, $N = {N}$ ({'exact' if exact else 'sampled'})", fontsize=11)
            ax.axvline(runs[0]["target_mean_sensitivity"] if runs else 0, **REFERENCE)
            if j == 0:
                ax.set_ylabel("fraction of strings")
            if i == len(targets) - 1:
                ax.set_xlabel("sensitivity $k$")
            ax.legend(fontsize=7.5, loc="best")
    steps = sorted({d.get("steps") for d in dicts if d.get("steps") is not None})
    fig.suptitle("SG-8: sensitivity profiles after training" + (f", {', '.join(map(str, steps))} steps"
                                                                  if steps else ""))
    from verify.experiments.claim_rules import SG8

    # the figure draws the runs it is given; say where the claim itself decides when they differ
    note_below(fig, "black ticks: the target's profile; dashed: $\\mathrm{as}$(target); error bars: the sampled "
                    f"profiles' intervals. SG-8 itself decides at MAJORITY and FIRST $N = {SG8.fixed_N}$ "
                    f"({SG8.fixed_steps} steps), PARITY $N = {SG8.parity_short_N}$ and ${SG8.parity_long_N}$ "
                    f"({SG8.parity_steps} steps, {SG8.dtype}); as formalised in boolverify")
    return save(fig, path if isinstance(path, (list, tuple)) else [path], data)


_CELL_NAMES = {"majority": "MAJORITY", "first": "FIRST", "parity": "PARITY", "parity01": "$x_0 \\oplus x_1$"}


def _decision_label(name, d):
    if name == "profiles":
        return "profiles\n(pooled)"
    return f"{_CELL_NAMES.get(d['target'], d['target'])}\n$N = {d['N']}$" + ("\n(control)" if "_long" in name
                                                                          and d["target"] != "parity" else "")


@styled
def training_decisions(report, path, data=()):
    """SG-8's decisions (a results file of :func:`verify.experiments.sg8_decisions.run_sg8_decisions`):
    left, each decision's proportion of runs with its interval at the deciding look and the
    threshold 1/2; right, every run's own quantity (held-out or exact accuracy, and as/N for the
    profile decision) against the run's threshold. Returns the written paths."""
    decisions = report["decisions"]
    rules = report["rules"]
    names = list(decisions)
    fig, (left, right) = subplots(1, 2, figsize=(13.5, 5.4), width_ratios=(1.0, 1.25))
    for x, name in enumerate(names):
        d = decisions[name]
        look = d["looks_taken"][-1]
        k, n = look["hits"], look["runs"]
        lo, hi = look["interval"]
        c = colour(0 if d["side"] == "lower" else 1)
        left.errorbar([x], [k / n], yerr=[[k / n - lo], [hi - k / n]], color=c, marker="o" if d["side"] == "lower"
                      else "s", ms=8, capsize=5, linestyle="none")
        at = f"\nlook {len(d['looks_taken'])}" if len(d["looks_taken"]) > 1 else ""
        left.annotate(f"${k}/{n}$\n{d['outcome']}{at}", (x, k / n), textcoords="offset points", xytext=(9, 0),
                      ha="left", va="center", fontsize=9.5)
    left.axhline(rules["most_runs"], **REFERENCE, label=f"threshold ${tex_number(rules['most_runs'])}$")
    left.errorbar([], [], color=colour(0), marker="o", linestyle="none", label="claim $p > 1/2$")
    left.errorbar([], [], color=colour(1), marker="s", linestyle="none", label="claim $p < 1/2$")
    left.set_xticks(range(len(names)), [_decision_label(name, decisions[name]) for name in names], fontsize=9.5)
    left.set_ylim(-0.12, 1.12)
    left.set_ylabel("share of runs that count, $p$")
    left.set_title("decided: $\\hat p$ and its interval at the deciding look", fontsize=11)
    left.legend(loc="lower left", fontsize=9)
    cells = [name for name in names if name != "profiles"]
    for x, name in enumerate(cells):
        d = decisions[name]
        ys = [r[d["quantity"]] for r in d["runs"]]
        xs = [x + 0.28 * ((i % 9) / 8 - 0.5) for i in range(len(ys))]
        right.plot(xs, ys, linestyle="none", marker="o", ms=4.5, color=colour(0), alpha=0.75,
                   label="accuracy of a run (held-out where trained on a fixed subset)" if x == 0 else None)
        right.plot([x - 0.4, x + 0.4], [d["threshold"]] * 2, **REFERENCE,
                   label="per-run threshold" if x == 0 else None)
    if "profiles" in decisions:
        x = len(cells)
        pooled = [r for c in decisions["profiles"]["cells"] for r in decisions[c]["runs"][:decisions[c]["looks"][0]]]
        ys = [r["mean_sensitivity"] / r["N"] for r in pooled]
        right.plot([x + 0.28 * ((i % 9) / 8 - 0.5) for i in range(len(ys))], ys, linestyle="none", marker="s",
                   ms=4.5, color=colour(2), alpha=0.75, label="$\\mathrm{as}(\\hat f)/N$ of a pooled run")
        right.plot([x - 0.4, x + 0.4], [rules["low_sensitivity"]] * 2, **REFERENCE)
    right.set_xticks(range(len(names)), [_decision_label(name, decisions[name]) for name in names], fontsize=9.5)
    right.set_ylim(-0.05, 1.05)
    right.set_ylabel("per-run quantity")
    right.set_title("every run trained, against its per-run threshold", fontsize=11)
    right.legend(loc="lower left", fontsize=9)
    groups = {}
    for c in cells:
        d = decisions[c]
        key = (d["steps"], d["batch_size"], d["train_strings"])
        groups.setdefault(key, []).append(f"{_CELL_NAMES.get(d['target'], d['target'])} $N = {d['N']}$")
    fig.suptitle(f"SG-8 at the claim's settings ({report['dtype']}, seed base {report['seed_base']})")
    note_below(fig, "; ".join(", ".join(who) + f": {s} steps of batch {b}" + (
                   f" on {m} fixed strings" if m else "") for (s, b, m), who in groups.items())
               + f". Per run: held-out accuracy $\\geq {tex_number(rules['learned_held_out'])}$ (MAJORITY, FIRST), "
               f"exact accuracy $\\geq {tex_number(rules['learned_parity'])}$ (PARITY, controls), "
               f"$\\mathrm{{as}} \\leq {tex_number(rules['low_sensitivity'])}\\,N$ (profiles). Intervals: one-sided "
               f"Clopper-Pearson bounds at {tex_number(100 * rules['level'])} %, split over a cell's looks "
               f"(Bonferroni); pass iff the interval lies on the claimed side of ${tex_number(rules['most_runs'])}$. "
               "As formalised in boolverify.")
    return save(fig, path if isinstance(path, (list, tuple)) else [path], data)


__all__ = ["draw_histogram", "draw_profiles", "random_profile_figure", "docs_figure",
           "training_profiles", "training_decisions"]


if __name__ == "__main__":  # python -m verify.report.sensitivity_figures: the figure of docs/results-boolean.md
    from verify.common.provenance import begin_script

    begin_script("verify.report.sensitivity_figures")  # the provenance of what it writes
    docs_figure()
