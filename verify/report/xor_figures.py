"""Figures of paper A's experiments (SX-4 … SX-8), drawn from saved results (plain dicts/lists).

Every figure is drawn in the style of :mod:`verify.report.plot_style` and written as PNG and PDF
through its ``save`` (nothing half written; a provenance sidecar naming the ``data`` files it was
drawn from). matplotlib with the Agg backend; no torch needed.
"""

from __future__ import annotations

import math
from pathlib import Path

from numeric.validation import InputError
from numeric.vocabulary import ATTENTIONS
from verify.common.atomic_io import FIGURE_SUFFIXES
from verify.report.plot_style import (BACKGROUND, REFERENCE, REFERENCE_2, SEQUENTIAL, colour, note_below, save,
                                      series, styled, subplots, tex_number)
from verify.report.statements import law_verdict
from verify.stats.intervals import clopper_pearson

_NOTE = "as formalised in boolverify"


def _target(stem):
    """A bare stem gets PNG and PDF; a figure suffix (any case: ``a.svg``, ``A.PNG``) names exactly
    that file (the ``--figure`` options write the file they name); a list names its files."""
    if isinstance(stem, (list, tuple)):
        return [Path(p) for p in stem]
    stem = Path(stem)
    if stem.suffix.lower() in FIGURE_SUFFIXES:
        return [stem]
    return stem.with_name(stem.name + ".png")


@styled
def success_heatmap(cells, stem, limit=False, data=()):
    r"""Success rate over ``(d, m)`` (cells from :func:`verify.experiments.xor_sweeps.run_sweep`).

    Args:
        cells: :class:`~verify.experiments.records.SweepCell` records; stem: output path
            without suffix (``.png``/``.pdf`` both written; ``.pdf``/``.svg`` writes only that one).
        limit: draw the :math:`\eta \to \infty` rates instead of the default schedule.
        data: the data files the cells came from (named in the figure's provenance sidecar).
    Returns:
        the written paths.
    """
    if not cells:
        raise InputError("success_heatmap: no cells to draw")
    ds = sorted({c.d for c in cells})
    ms = sorted({c.m for c in cells})
    grid = [[math.nan] * len(ds) for _ in ms]
    seeds = sorted({c.n_seeds for c in cells})
    for c in cells:
        grid[ms.index(c.m)][ds.index(c.d)] = c.rate_limit if limit else c.rate
    fig, ax = subplots(figsize=(1.15 * len(ds) + 3, 0.42 * len(ms) + 2.2))
    im = ax.imshow(grid, origin="lower", aspect="auto", vmin=0, vmax=1, cmap=SEQUENTIAL)
    for i, _ in enumerate(ms):
        for j, _ in enumerate(ds):
            v = grid[i][j]
            if not math.isnan(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8.5,
                        color="white" if v < 0.6 else "black")
    ax.set_xticks(range(len(ds)), [f"$10^{{{math.log10(d):.0f}}}$" if math.log10(d).is_integer() else str(d) for d in ds])
    ax.set_yticks(range(len(ms)), [str(m) for m in ms])
    ax.grid(False)
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel("$m$")
    mode = r"$\eta \to \infty$" if limit else r"$\eta = 10\, d^2 \sqrt{m}\, \ln d$"
    ax.set_title(f"SX-4: one-step success rate, {mode}")
    fig.colorbar(im, ax=ax, label="share of seeds that succeed")
    note_below(fig, f"seeds per cell: {', '.join(map(str, seeds))}; {_NOTE}")
    return save(fig, _target(stem), data)


@styled
def threshold_law_plot(summary, stem, size="m", data=(), title=None, references=()):
    """Thresholds per ``d`` with their 95 % profile-likelihood intervals (levels 0.5 and 0.9 of
    the rising part of the success curve) and the fitted power and polylog laws, log-log.

    Args:
        summary: :func:`verify.stats.thresholds.law_summary`; size: ``"m"`` or ``"n"`` (labels).
        title: the figure's title (what the thresholds are of).
        references: ``(exponent, factor, label, from_d)`` per reference law ``factor * d^exponent``
            drawn over the data from ``d = from_d`` on (the decision's bound); ``factor`` None
            anchors the law at the first level-0.5 threshold.
    """
    th = summary["thresholds"]
    if not th:
        raise InputError("threshold_law_plot: the summary has no thresholds")
    fig, ax = subplots(figsize=(8.5, 6))
    ds = sorted(th)
    for i, q in enumerate((0.5, 0.9)):
        est = [th[d][q][0] for d in ds]
        err = [[th[d][q][0] - th[d][q][1] for d in ds], [th[d][q][2] - th[d][q][0] for d in ds]]
        ax.errorbar(ds, est, yerr=err, **{**series(i), "linestyle": "none"}, ms=7,
                    label=f"${size}^*$ at level {q} (95 % profile interval)")
    for i, law in enumerate(("power", "polylog")):
        if law in summary:
            fit = summary[law]
            name = "alpha" if law == "power" else "k"
            sym = r"\alpha" if law == "power" else "k"
            lo, hi = fit["interval"]
            form = rf"d^{{{sym}}}" if law == "power" else rf"(\ln d)^{{{sym}}}"
            xs, ys = zip(*fit["curve"])
            ax.plot(xs, ys, color=colour(2 + i), linestyle=("-", "-.")[i], marker="none",
                    label=rf"{law} fit: ${size}^* \propto {form}$, ${sym} = {fit[name]:.2f}$ [{lo:.2f}, {hi:.2f}]")
    lo_d, hi_d = min(ds) / 1.3, max(ds) * 1.3
    xs = [lo_d * (hi_d / lo_d) ** (t / 50) for t in range(51)]
    ymin = min(v for d in ds for v in th[d][0.5][:2] if v > 0) / 3
    ymax = max(v for d in ds for v in (th[d][0.9][0], th[d][0.9][2]) if math.isfinite(v)) * 3
    for i, (exponent, factor, label, from_d) in enumerate(references):
        if factor is None:
            factor = th[ds[0]][0.5][0] / ds[0] ** exponent
        part = [x for x in xs if x >= from_d]
        ax.plot(part, [factor * x**exponent for x in part], **(REFERENCE if i == 0 else REFERENCE_2), label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(ymin, ymax)
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel(f"threshold ${size}^*(d)$")
    ax.set_title(title or f"${size}^*(d)$")
    ax.legend(loc="upper left", fontsize=9)
    # the verdict is the documents' sentence (verify.report.statements), never a second wording
    verdict = law_verdict(summary) if "comparison" in summary else "one group: no law"
    note_below(fig, f"thresholds by binomial likelihood over all cells; {verdict}; {_NOTE}")
    return save(fig, _target(stem), data)


@styled
def attention_before_after(before, after, support, stem, data=()):
    """Attention of both heads over the ``d`` positions before and after the step.

    Args:
        before, after: ``[gamma, gamma_tilde]`` each a list of ``d`` floats; support ``(a, b)``.
    """
    if len(before) != 2 or len(after) != 2:
        raise InputError("attention_before_after: expected [gamma, gamma_tilde] before and after")
    d = len(before[0])
    a, b = support
    fig, axes = subplots(2, 2, figsize=(12, 6.4), sharex=True)
    # the support positions by colour and hatching, so no pair is told apart by hue alone
    styles = {a: (colour(1), "//"), b: (colour(0), "xx")}
    for col, (title, pair) in enumerate((("before the step", before), ("after the step", after))):
        for row, name in enumerate((r"head 1, $\gamma(\theta)$", r"head 2, $\tilde\gamma(\tilde\theta)$")):
            ax = axes[row][col]
            w = pair[row]
            ax.bar(range(d), w, color=[styles.get(i, (BACKGROUND, ""))[0] for i in range(d)], width=0.9)
            for i in (a, b):
                ax.bar([i], [w[i]], color=styles[i][0], hatch=styles[i][1], edgecolor="black", width=0.9,
                       label=f"$i = {'a' if i == a else 'b'} = {i}$")
            ax.set_ylabel(name)
            if row == 0:
                ax.set_title(title)
            ax.set_ylim(0, max(max(w) * 1.15, 1e-3))
    axes[0][1].legend(loc="upper left")
    axes[1][0].set_xlabel("position $i$")
    axes[1][1].set_xlabel("position $i$")
    fig.suptitle(f"SX-8: attention of both heads on the support $\\{{a, b\\}}$, $d = {d}$")
    note_below(fig, _NOTE)
    return save(fig, _target(stem), data)


def _one_step_panel(ax, compare_result):
    """SX-5's decided quantity: per attention map, the share of seeds whose one population step
    reaches a loss below the threshold, with Clopper-Pearson intervals at the claim's level,
    against the softmax floor and the linear/erf ceiling."""
    from verify.experiments.claim_rules import SX5

    n = compare_result.get("config", {}).get("n_seeds")
    # the runs name the share by the threshold as written in the rules, e.g. frac_below_1e-6
    key = "frac_below_" + f"{SX5.one_step_loss_threshold:g}".replace("e-0", "e-")
    for k, att in enumerate(ATTENTIONS):
        r = compare_result.get(att, {}).get("one_step")
        if r is None or key not in r or not n:
            continue
        s = round(r[key] * n)
        lo, hi = clopper_pearson(s, n, SX5.level)
        ax.errorbar([k], [s / n], yerr=[[s / n - lo], [hi - s / n]], ms=10, capsize=8, lw=2.5,
                    **{**series(k), "linestyle": "none"})
        ax.annotate(f"{s}/{n}", (k, s / n), xytext=(12, 0), textcoords="offset points", va="center")
    ax.axhline(SX5.softmax_floor, **REFERENCE, label=f"softmax: lower bound above {SX5.softmax_floor:g}")
    ax.axhline(SX5.failure_ceiling, **REFERENCE_2, label=f"linear, erf: upper bound below {SX5.failure_ceiling:g}")
    ax.set_xticks(range(len(ATTENTIONS)), list(ATTENTIONS))
    ax.set_xlim(-0.5, len(ATTENTIONS) - 0.3)
    ax.set_ylim(-0.05, 1.1)
    ax.set_ylabel(rf"$P(L < {tex_number(SX5.one_step_loss_threshold)}$ after one step$)$")
    ax.set_title(f"one population step ({n} seeds, {SX5.level:.0%} Clopper-Pearson)", fontsize=11)
    ax.legend(loc="center right", fontsize=9)


@styled
def loss_curves(compare_result, stem, data=()):
    """SX-5: the one-step decision (:func:`_one_step_panel`), then the median population loss
    (10-90 % band over training seeds) over GD/Adam steps: softmax on a log axis (a median of
    exactly 0 marked at the axis floor, not drawn at a fake value), linear and erf on an axis
    zoomed near 1 with the linear map's representational bound and the erf bound
    (the dict of :func:`verify.experiments.attention_comparison.compare`)."""
    from verify.experiments.claim_rules import SX5

    fig, axes = subplots(2, 2, figsize=(13, 9))
    _one_step_panel(axes[0][0], compare_result)
    ax = axes[0][1]
    for k, opt in enumerate(("gd", "adam")):
        r = compare_result.get("softmax", {}).get(opt)
        if r is None:
            continue
        st = r["curve_steps"]
        med = [v if v > 0 else math.nan for v in r["curve_median"]]
        sty = {**series(k), "markevery": [0]}
        ax.plot(st, med, **sty, label=rf"{opt.upper()} (lr ${tex_number(r['lr'], 2)}$)")
        ax.fill_between(st, [v if v > 0 else math.nan for v in r["curve_q10"]],
                        [v if v > 0 else math.nan for v in r["curve_q90"]], color=sty["color"], alpha=0.2)
        zero = next((t for t, v in zip(st, r["curve_median"]) if v == 0), None)
        if zero is not None:
            ax.plot([zero], [0], marker="v", ms=11, color=sty["color"], linestyle="none", clip_on=False,
                    transform=ax.get_xaxis_transform(),
                    label=f"{opt.upper()}: median exactly 0 from step {zero} on")
    ax.set_xscale("symlog", linthresh=10, linscale=0.6)
    ax.set_xlim(0, None)
    ax.set_yscale("log")
    ax.set_xlabel("step (loss recorded every 10 steps)")
    ax.set_ylabel("population loss $L$")
    ax.set_title("softmax attention, trained", fontsize=11)
    ax.legend(loc="upper right", fontsize=9)
    bound = compare_result.get("linear_bound_per_seed") or []
    for col, opt in enumerate(("gd", "adam")):
        ax = axes[1][col]
        for k, att in enumerate(ATTENTIONS):
            r = compare_result.get(att, {}).get(opt)
            if r is None or att == "softmax":
                continue
            sty = {**series(k), "marker": "none"}
            ax.plot(r["curve_steps"], r["curve_median"], **sty, label=rf"{att} (lr ${tex_number(r['lr'], 2)}$)")
            ax.fill_between(r["curve_steps"], r["curve_q10"], r["curve_q90"], color=sty["color"], alpha=0.2)
        if bound:
            ax.axhspan(min(bound), max(bound), color="0.6", alpha=0.3, zorder=0,
                       label=f"linear: representational bound ({len(bound)} seeds)")
        if "erf_bound" in compare_result:
            ax.axhline(compare_result["erf_bound"], **REFERENCE_2, label="erf bound")
        ax.set_ylim(min(bound or [0.998]) - 4e-4, 1.0002)
        ax.set_xscale("symlog", linthresh=10, linscale=0.6)
        ax.set_xlim(0, None)
        ax.set_xlabel("step (loss recorded every 10 steps)")
        ax.set_ylabel("population loss $L$")
        ax.set_title(f"linear and erf attention, {opt.upper()}", fontsize=11)
        ax.ticklabel_format(axis="y", useOffset=False)
        ax.legend(loc="lower left", fontsize=9)
    cfg = compare_result.get("config", {})
    fig.suptitle(f"SX-5: softmax against linear and erf attention, $d = {cfg.get('d')}$, $m = {cfg.get('m')}$")
    note_below(fig, f"training: {cfg.get('train_seeds', cfg.get('n_seeds'))} seeds, median and 10-90 % band; "
                    f"every linear/erf run ends above $L = {SX5.loss_floor:g}$; {_NOTE}")
    return save(fig, _target(stem), data)


__all__ = ["success_heatmap", "threshold_law_plot", "attention_before_after", "loss_curves",
           "render_from_data"]


def render_from_data(data_dir="docs/data", fig_dir="docs/figures", level_samples=0.9, files=None):
    """Draw every data-driven figure of paper A from the saved results files (those present;
    with ``files``, a collection of file names, only from those).

    Reads ``xor_sweep.json`` (heat maps, ``m*(d)`` with its laws), ``xor_samples_grid.json`` and
    ``xor_fixed_sample_training.json`` (``n*(d)`` of the two regimes), ``xor_compare.json`` (loss
    curves), ``xor_step_d64.json`` (both heads' attention before and after the step). Returns ``{name: [paths]}`` and the numbers drawn.
    """
    import json

    from verify.experiments.claim_rules import SX6, SX7
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
        drawn["mstar"] = threshold_law_plot(
            laws, fig_dir / "xor_mstar", size="m", data=[p],
            title=r"SX-4, SX-7: $m^*(d)$, the $m$ where one step starts to succeed",
            references=[(1.0, 1 / (2 * SX7.param_divisor),
                         rf"SX-7: $2 m^*_{{{SX7.quantile:g}}} < d/{SX7.param_divisor}$ at $d \geq {SX7.decide_from}$",
                         SX7.decide_from)])
    refs = [(SX6.proof_exponent, None, rf"$\propto d^{{{SX6.proof_exponent:g}}}$: the proof's exponent (decided: $\alpha$ below it)", 0),
            (SX6.seed_exponent, None, rf"$\propto d^{{{SX6.seed_exponent:g}}}$: the seed's 'about linear'", 0)]
    for name, stem, what in (("xor_samples_grid.json", "xor_nstar", "one empirical gradient step"),
                             ("xor_fixed_sample_training.json", "xor_nstar_training", "training on a fixed sample")):
        p = data_dir / name
        if present(name):
            laws = samples_laws(load_cells(p))
            numbers[stem] = {k: v for k, v in laws.items() if k not in ("power", "polylog")} | {
                law: {k: v for k, v in laws[law].items() if k != "curve"} for law in ("power", "polylog") if law in laws}
            drawn[stem] = threshold_law_plot(laws, fig_dir / stem, size="n", data=[p], references=refs,
                                             title=f"SX-6: sample threshold $n^*(d)$, {what}")
    p = data_dir / "xor_step_d64.json"
    if present(p.name):
        step = json.loads(p.read_text())
        if "attention_before" in step:
            support = tuple(int(t) for t in step["support"].strip("()").split(","))
            drawn["attention_d64"] = attention_before_after(step["attention_before"], step["attention_after"], support,
                                                            fig_dir / "xor_attention_d64", data=[p])
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
