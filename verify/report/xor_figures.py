"""Figures of paper A's experiments (SX-4 … SX-8), drawn from saved results (plain dicts/lists).

Every figure is written as PNG and PDF through :func:`verify.common.atomic_io.save_figure` (nothing half
written; a provenance sidecar naming the ``data`` files it was drawn from). matplotlib with the Agg backend; no torch needed.
"""

from __future__ import annotations

import math
from pathlib import Path

from numeric.validation import InputError
from numeric.vocabulary import ATTENTIONS
from verify.common.atomic_io import FIGURE_SUFFIXES, pyplot, save_figure
from verify.report.statements import law_verdict

_NOTE = "as formalised in boolverify"


def _save(fig, stem, data, formats=("png", "pdf")):
    """A name with a figure suffix (any case: ``a.svg``, ``A.PNG``) is written as exactly that
    file in that format; a bare stem gets one file per format in ``formats``."""
    stem = Path(stem)
    paths = [stem] if stem.suffix.lower() in FIGURE_SUFFIXES else [stem.with_suffix(f".{f}") for f in formats]
    try:
        return save_figure(fig, paths, data=data, dpi=150, bbox_inches="tight")
    finally:
        pyplot().close(fig)


def success_heatmap(cells, stem, limit=False, data=()):
    """Success rate over ``(d, m)`` (cells from :func:`verify.experiments.xor_sweeps.run_sweep`).

    Args:
        cells: :class:`~verify.experiments.records.SweepCell` records; stem: output path
            without suffix (``.png``/``.pdf`` both written; a suffix writes only that one).
        limit: draw the eta -> infinity rates instead of the default schedule.
        data: the data files the cells came from (named in the figure's provenance sidecar).
    Returns:
        the written paths.
    """
    if not cells:
        raise InputError("success_heatmap: no cells to draw")
    plt = pyplot()
    ds = sorted({c.d for c in cells})
    ms = sorted({c.m for c in cells})
    grid = [[math.nan] * len(ds) for _ in ms]
    for c in cells:
        grid[ms.index(c.m)][ds.index(c.d)] = c.rate_limit if limit else c.rate
    fig, ax = plt.subplots(figsize=(1.2 * len(ds) + 2.5, 0.45 * len(ms) + 1.8))
    im = ax.imshow(grid, origin="lower", aspect="auto", vmin=0, vmax=1, cmap="viridis")
    for i, _ in enumerate(ms):
        for j, _ in enumerate(ds):
            v = grid[i][j]
            if not math.isnan(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if v < 0.6 else "black")
    ax.set_xticks(range(len(ds)), [f"$10^{{{math.log10(d):.0f}}}$" if math.log10(d).is_integer() else str(d) for d in ds])
    ax.set_yticks(range(len(ms)), [str(m) for m in ms])
    ax.set_xlabel("d")
    ax.set_ylabel("m")
    mode = "eta -> infinity" if limit else "eta = 10 d^2 sqrt(m) ln d"
    ax.set_title(f"one-step success rate ({mode})\n{_NOTE}", fontsize=9)
    fig.colorbar(im, ax=ax, label="P(success)")
    return _save(fig, stem, data)


def threshold_law_plot(summary, stem, size="m", data=()):
    """Thresholds per ``d`` with their 95 % profile-likelihood intervals (levels 0.5 and 0.9 of
    the rising part of the success curve) and the fitted power and polylog laws, log-log.

    Args:
        summary: :func:`verify.stats.thresholds.law_summary`; size: ``"m"`` or ``"n"`` (labels).
    """
    th = summary["thresholds"]
    if not th:
        raise InputError("threshold_law_plot: the summary has no thresholds")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.4, 3.9))
    ds = sorted(th)
    for q, colour, marker in ((0.5, "C0", "o"), (0.9, "C3", "s")):
        est = [th[d][q][0] for d in ds]
        err = [[th[d][q][0] - th[d][q][1] for d in ds], [th[d][q][2] - th[d][q][0] for d in ds]]
        ax.errorbar(ds, est, yerr=err, fmt=marker, color=colour, capsize=3, ms=4,
                    label=f"{size}* at level {q} (95 % profile interval)")
    for law, style, colour in (("power", "--", "C2"), ("polylog", "-", "C1")):
        if law in summary:
            fit = summary[law]
            name = "alpha" if law == "power" else "k"
            lo, hi = fit["interval"]
            form = f"d^{name}" if law == "power" else f"(ln d)^{name}"
            xs, ys = zip(*fit["curve"])
            ax.plot(xs, ys, style, color=colour,
                    label=f"{law}: {size}* ~ {form}, {name} = {fit[name]:.3f} [{lo:.3f}, {hi:.3f}]")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("d")
    ax.set_ylabel(f"{size}*(d)")
    # the verdict is the documents' sentence (verify.report.statements), never a second wording
    verdict = law_verdict(summary).replace(" (", "\n(", 1) if "comparison" in summary else "one group: no law"
    ax.set_title(f"thresholds by binomial likelihood over all cells; {verdict}\n{_NOTE}", fontsize=7)
    ax.legend(fontsize=6.5)
    return _save(fig, stem, data)


def attention_before_after(before, after, support, stem, data=()):
    """Attention of both heads over the ``d`` positions before and after the step.

    Args:
        before, after: ``[gamma, gamma_tilde]`` each a list of ``d`` floats; support ``(a, b)``.
    """
    if len(before) != 2 or len(after) != 2:
        raise InputError("attention_before_after: expected [gamma, gamma_tilde] before and after")
    plt = pyplot()
    d = len(before[0])
    a, b = support
    fig, axes = plt.subplots(2, 2, figsize=(9, 4.6), sharex=True)
    for col, (title, pair) in enumerate((("before the step", before), ("after the step", after))):
        for row, name in enumerate(("head 1 (theta)", "head 2 (theta~)")):
            ax = axes[row][col]
            w = pair[row]
            colors = ["C3" if i == a else "C2" if i == b else "C0" for i in range(d)]
            ax.bar(range(d), w, color=colors, width=0.9)
            ax.set_ylabel(name, fontsize=8)
            if row == 0:
                ax.set_title(title, fontsize=9)
            ax.set_ylim(0, max(max(w) * 1.1, 1e-3))
    axes[1][0].set_xlabel(f"position i (red: a={a}, green: b={b})")
    axes[1][1].set_xlabel(f"position i (red: a={a}, green: b={b})")
    fig.suptitle(f"attention of both heads, d = {d} ({_NOTE})", fontsize=9)
    return _save(fig, stem, data)


def loss_curves(compare_result, stem, data=()):
    """Median loss (10-90% band) over GD/Adam steps for softmax, linear and erf attention
    (the dict of :func:`verify.experiments.attention_comparison.compare`)."""
    plt = pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(9.5, 6.4), sharex=True)
    for col, opt in enumerate(("gd", "adam")):
        for row in range(2):
            ax = axes[row][col]
            # row 0: all three maps, log scale (losses of 0 drawn at 1e-30);
            # row 1: linear and erf only, linear scale near 1, where they stay
            for k, att in enumerate(ATTENTIONS):
                r = compare_result.get(att, {}).get(opt)
                if r is None or (row == 1 and att == "softmax"):
                    continue
                st = [max(s, 0.5) for s in r["curve_steps"]]  # step 0 drawn at 0.5 (log axis)
                clip = (lambda v: max(v, 1e-30)) if row == 0 else (lambda v: v)
                ax.plot(st, [clip(v) for v in r["curve_median"]], color=f"C{k}",
                        label=f"{att} (lr {r['lr']:.2g})")
                ax.fill_between(st, [clip(v) for v in r["curve_q10"]], [clip(v) for v in r["curve_q90"]],
                                color=f"C{k}", alpha=0.2)
            ax.set_xscale("log")
            if row == 0:
                ax.set_yscale("log")
                ax.set_title(opt.upper(), fontsize=9)
            else:
                ax.set_xlabel("step (step 0 at 0.5)")
            ax.axhline(0.9, color="gray", ls=":", lw=0.8)
            ax.legend(fontsize=7)
        axes[0][col].set_ylabel("population loss (log)")
        axes[1][col].set_ylabel("population loss, linear & erf")
    cfg = compare_result.get("config", {})
    fig.suptitle(f"d = {cfg.get('d')}, m = {cfg.get('m')}, {cfg.get('train_seeds', cfg.get('n_seeds'))} "
                 f"seeds, median and 10-90% band ({_NOTE})", fontsize=9)
    return _save(fig, stem, data)


__all__ = ["success_heatmap", "threshold_law_plot", "attention_before_after", "loss_curves",
           "render_from_data"]


def render_from_data(data_dir="docs/data", fig_dir="docs/figures", level_samples=0.9, files=None):
    """Draw every data-driven figure of paper A from the saved results files (those present;
    with ``files``, a collection of file names, only from those).

    Reads ``xor_sweep.json`` (heat maps, ``m*(d)`` with its laws), ``xor_samples_grid.json`` and
    ``xor_fixed_sample_training.json`` (``n*(d)`` of the two regimes), ``xor_compare.json`` (loss
    curves). Returns ``{name: [paths]}`` and the numbers drawn.
    """
    import json

    from verify.experiments.fits import samples_laws, sweep_laws
    from verify.experiments.records import load_cells

    data_dir, fig_dir = Path(data_dir), Path(fig_dir)
    drawn, numbers = {}, {}

    def present(name):
        return (files is None or name in files) and (data_dir / name).exists()

    p = data_dir / "xor_sweep.json"
    if present(p.name):
        cells = load_cells(p)
        drawn["heatmap"] = success_heatmap(cells, fig_dir / "xor_success_heatmap", data=[p])
        drawn["heatmap_limit"] = success_heatmap(cells, fig_dir / "xor_success_heatmap_limit", limit=True,
                                                 data=[p])
        laws = sweep_laws(cells)
        numbers["m_star_laws"] = {k: v for k, v in laws.items() if k not in ("power", "polylog")} | {
            law: {k: v for k, v in laws[law].items() if k != "curve"} for law in ("power", "polylog") if law in laws}
        drawn["mstar"] = threshold_law_plot(laws, fig_dir / "xor_mstar", size="m", data=[p])
    for name, stem in (("xor_samples_grid.json", "xor_nstar"), ("xor_fixed_sample_training.json", "xor_nstar_training")):
        p = data_dir / name
        if present(name):
            laws = samples_laws(load_cells(p))
            numbers[stem] = {k: v for k, v in laws.items() if k not in ("power", "polylog")} | {
                law: {k: v for k, v in laws[law].items() if k != "curve"} for law in ("power", "polylog") if law in laws}
            drawn[stem] = threshold_law_plot(laws, fig_dir / stem, size="n", data=[p])
    p = data_dir / "xor_compare.json"
    if present(p.name):
        drawn["loss_curves"] = loss_curves(json.loads(p.read_text()), fig_dir / "xor_loss_curves", data=[p])
    return drawn, numbers


if __name__ == "__main__":  # python -m verify.report.xor_figures [data_dir fig_dir]
    import json
    import sys

    from verify.common.provenance import begin_script

    begin_script("verify.report.xor_figures")  # the provenance of what it writes
    drawn, numbers = render_from_data(*sys.argv[1:3])
    print(json.dumps({"figures": {k: [str(p) for p in v] for k, v in drawn.items()}, "numbers": numbers},
                     indent=1, default=str))
