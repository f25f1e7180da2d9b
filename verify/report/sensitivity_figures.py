"""Figures of sensitivity profiles (paper B, as formalised in boolverify; ``docs/claims.md#sg-1``
and ``docs/claims.md#sg-6``): the histograms of ``boolverify sensitivity profile``, the mean
profile of random transformers beside a random function (``boolverify sensitivity random``),
and the profile figure of ``docs/results-boolean.md`` (:func:`docs_figure`).

Every figure is written atomically, its format taken from the file's suffix, with its provenance
sidecar (:func:`verify.common.atomic_io.save_figure`).
"""

from __future__ import annotations

import math
from pathlib import Path

from verify.common.atomic_io import check_figure_path, pyplot, save_figure


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
    plt = pyplot()
    n = len(results)
    ncols = ncols or min(n, 2)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6 * ncols, 3.2 * nrows), squeeze=False)
    for ax, result in zip(axes.flat, results):
        N = result["N"]
        ax.bar(list(range(N + 1)), result["fractions"], color="tab:blue")
        ax.set_xlabel("sensitivity k")
        ax.set_ylabel(r"$K_k / 2^N$")
        ax.set_title(f"{result['label']}, N = {N}: as(f) = {result['average_sensitivity']:.4g}, "
                     f"K_0 = {result['K0']}", fontsize=9)
        ax.set_xlim(-0.6, N + 0.6)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    try:
        save_figure(fig, paths, data=data)
    finally:
        plt.close(fig)
    return path


def random_profile_figure(path, summary, N, label, data=()):
    """The mean profile ``K_k / 2^N`` of random transformers (``summary``: the
    :class:`~verify.experiments.transformer_records.ProfileSummary` of
    :func:`verify.experiments.random_transformers.summarize_profiles`) beside the expected
    profile ``C(N, k) / 2^N`` of a uniformly random function, log scale."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    k = list(range(N + 1))
    ax.bar([i - 0.2 for i in k], summary.mean_profile_frac, width=0.4,
           label=f"random transformers ({label})")
    ax.bar([i + 0.2 for i in k], [math.comb(N, i) / 2**N for i in k], width=0.4, label="random function")
    ax.set_xlabel("sensitivity k")
    ax.set_ylabel("mean K_k / 2^N")
    ax.set_yscale("log")
    ax.set_title(f"N = {N}, {summary.models} models (as formalised in boolverify)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    try:
        save_figure(fig, [path], data=data)
    finally:
        plt.close(fig)


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


def training_profiles(dicts, path, data=()):
    """Profiles of trained functions (``boolverify sensitivity train``; dicts of
    :meth:`verify.experiments.training.TrainResult.as_dict`): rows = targets, columns = N; one bar
    group per seed, the target's profile in black. ``path``: one image file or a list of them
    (one stem); ``data``: the data files of ``dicts``. Returns the written paths."""
    from numeric.boolean import exact_profile_fraction

    plt = pyplot()
    targets = list(dict.fromkeys(d["target"] for d in dicts))
    Ns = sorted({d["N"] for d in dicts})
    fig, axes = plt.subplots(len(targets), len(Ns), figsize=(3.4 * len(Ns), 2.5 * len(targets)),
                             squeeze=False)
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
                ax.bar(xs, frac, width=width, yerr=yerr, capsize=1.5, error_kw={"lw": 0.6},
                       label=f"seed {d['seed']} (acc {d['accuracy']:.3f})")
            tk = [(k, f) for k, f in zip(ks, exact_profile_fraction(t, N)) if f > 0]
            ax.plot([k for k, _ in tk], [f for _, f in tk], "k_", ms=10, mew=1.8, label="target")
            ax.set_ylim(0, 1.05)
            ax.set_xlim(-0.6, N + 0.6)
            exact = runs and runs[0]["profile_exact"]
            ax.set_title(f"{t}, N={N} ({'exact' if exact else 'sampled'})", fontsize=9)
            ax.axvline(runs[0]["target_mean_sensitivity"] if runs else 0, color="k", ls="--", lw=0.8)
            if j == 0:
                ax.set_ylabel("fraction of strings")
            if i == len(targets) - 1:
                ax.set_xlabel("sensitivity k")
            ax.legend(fontsize=6, loc="best")
    fig.suptitle("Sensitivity profiles after training (black: target's profile, dashed: as(target)); "
                 "as formalised in boolverify",
                 fontsize=10)
    fig.tight_layout()
    try:
        return save_figure(fig, path, data=data, dpi=150)
    finally:
        plt.close(fig)


__all__ = ["draw_histogram", "draw_profiles", "random_profile_figure", "docs_figure",
           "training_profiles"]


if __name__ == "__main__":  # python -m verify.report.sensitivity_figures: the figure of docs/results-boolean.md
    from verify.common.provenance import begin_script

    begin_script("verify.report.sensitivity_figures")  # the provenance of what it writes
    docs_figure()
