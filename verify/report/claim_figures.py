"""Figures drawn from a check report (``boolverify check --json``): the data a claim decided
on, recorded as its evidence, so the figure shows exactly the decided estimates, intervals and
thresholds of that run (its provenance is the report's).

``sg6_decisions``: SG-6 at its own sizes, per init scheme and preset, the four decided
quantities: the constant share against its ceiling, the share of non-constant models with a
zero-sensitivity string against a random function's 1 - 1/e, and the per-model density-matched
ratios with the decided median bounds against 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.ticker
import numpy as np

from numeric.validation import reject
from verify.report.plot_style import BACKGROUND, REFERENCE, colour, note_below, save, styled, subplots

#: the SG-6 estimands drawn, as the claim words them after "<scheme>: "
SG6_ESTIMANDS = {
    "constant": "P(constant function)",
    "K0_ge_1": "P(K_0 >= 1 | non-constant)",
    "K0_ratio": "median K_0 / E_p[K_0] | non-constant",
    "as_ratio": "median as / (2Np(1-p)) | non-constant",
}


def sg6_cells(report) -> list[dict]:
    """Per cell (init scheme, or the bhattamishra preset) of SG-6 in a check report: its label,
    models drawn, the per-model ratios of its non-constant models and its four decisions
    (estimate, interval, level, outcome) by the keys of :data:`SG6_ESTIMANDS`."""
    claims = [c for c in report.get("claims", ()) if c.get("id") == "SG-6"]
    if not claims:
        reject("report", "<a check report without SG-6>", "a check report with SG-6's evidence (boolverify check, "
               "all claims or --claim SG-6)")
    cells = []
    for test, evidence in claims[0].get("evidence", {}).items():
        plan = evidence.get("plan") if isinstance(evidence, dict) else None
        if not plan or "preset" not in plan:
            continue
        (scheme,) = [k for k, v in evidence.items() if isinstance(v, dict) and "nonconstant_K0_ratio" in v]
        found = {}
        for d in evidence["decisions"]:
            name, _, what = d["estimand"].partition(": ")
            for key, wording in SG6_ESTIMANDS.items():
                if name == scheme and what == wording:
                    found[key] = d
        if set(found) != set(SG6_ESTIMANDS):
            missing = [SG6_ESTIMANDS[k] for k in SG6_ESTIMANDS if k not in found]
            reject("report", f"<SG-6 evidence of {test}>", f"its decisions {', '.join(missing)}")
        data = evidence[scheme]
        label = scheme.replace("_", " ") if plan["preset"] == "boolverify" else f"{plan['preset']}\n({scheme}, B = {plan['B']:g})"
        cells.append({"label": label, "plan": plan, "draws": data["draws"], "nonconstant": data["nonconstant"],
                      "K0_ratio": data["nonconstant_K0_ratio"], "as_ratio": data["nonconstant_as_ratio"],
                      "decisions": found})
    if not cells:
        reject("report", "<SG-6 evidence without per-scheme cells>", "SG-6's per-scheme evidence")
    return cells


def _decided(ax, x, decision, colour_index, label=None):
    """The decided estimate with its interval; an infinite end (a one-sided bound) is left
    undrawn, so only the bound that decides shows."""
    lo, hi = decision["interval"]
    est = decision["estimate"]
    below = 0.0 if lo is None or lo == -np.inf else est - lo
    above = 0.0 if hi is None or hi == np.inf else hi - est
    ax.errorbar([x], [est], yerr=[[below], [above]], color=colour(colour_index), marker="D", ms=7, capsize=5,
                lw=2, zorder=3, label=label)


@styled
def sg6_decisions_figure(report, fig_dir, data=()):
    """SG-6's decisions in a check report, per cell (``sg6_decisions``); PNG and PDF."""
    from verify.experiments.claim_rules import SG6

    cells = sg6_cells(report)
    x = np.arange(len(cells))
    labels = [c["label"] for c in cells]
    fig, axes = subplots(1, 4, figsize=(16, 4.8))
    ap, ak, ar, aa = axes
    for ax, key, threshold, ylim, ylabel, title in (
            (ap, "constant", SG6.constant_max, (0, 1.05), r"$P($constant function$)$", "constant models"),
            (ak, "K0_ge_1", SG6.p_random_function, (0, 1.05), r"$P(K_0 \geq 1 \mid$ non-constant$)$",
             "zero-sensitivity strings")):
        ax.set_ylim(*ylim)
        for i, c in enumerate(cells):
            _decided(ax, i, c["decisions"][key], 0 if c["decisions"][key]["outcome"] == "pass" else 1)
        ax.axhline(threshold, **REFERENCE)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
    ap.text(0.98, SG6.constant_max + 0.01, f"ceiling {SG6.constant_max:g}: upper bound below", va="bottom",
            ha="right", transform=ap.get_yaxis_transform(), fontsize=9)
    ap.set_ylim(0, 1.1)
    ak.text(0.02, SG6.p_random_function - 0.02, r"random function $1 - 1/e$: lower bound above", va="top",
            transform=ak.get_yaxis_transform(), fontsize=9)
    rng = np.random.default_rng(0)
    for ax, key, bound_side, ylabel, title in (
            (ar, "K0_ratio", "lower", r"$K_0 / E_p[K_0]$", "more zero-sensitivity strings"),
            (aa, "as_ratio", "upper", r"as$\,/\,2Np(1-p)$", "less average sensitivity")):
        ax.set_yscale("log")
        values = [np.asarray(c[key], dtype=np.float64) for c in cells]
        positive = np.concatenate([v[v > 0] for v in values])
        floor = positive.min() / 1.5
        ax.set_ylim(floor / 1.5, max(positive.max(), 1.0) * 1.6)
        zeros = sum(int((v == 0).sum()) for v in values)
        for i, v in enumerate(values):
            jitter = i + rng.uniform(-0.25, 0.25, len(v))
            ax.plot(jitter[v > 0], v[v > 0], linestyle="none", marker="o", ms=3, color=BACKGROUND, mec="0.6",
                    alpha=0.8, zorder=1, label="per non-constant model" if i == 0 else None)
            if (v == 0).any():
                ax.plot(jitter[v == 0], np.full(int((v == 0).sum()), floor), linestyle="none", marker="x", ms=5,
                        color="0.3", zorder=2, label=f"ratio 0 ({zeros} models, drawn at the bottom)"
                        if i == next(j for j, w in enumerate(values) if (w == 0).any()) else None)
        for i, c in enumerate(cells):
            d = c["decisions"][key]
            _decided(ax, i, d, 0 if d["outcome"] == "pass" else 1,
                     label=f"median, {d['level']:.0%} {bound_side} bound" if i == 0 else None)
        ax.axhline(1.0, **REFERENCE, label="random function of the same density")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(loc="lower left" if key == "as_ratio" else "upper left", fontsize=8)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    for ax in axes:
        ax.set_xticks(x, labels, fontsize=8.5, rotation=30, ha="right")
        ax.set_xlim(-0.6, len(cells) - 0.4)
    plan = cells[0]["plan"]
    fig.suptitle(rf"SG-6 at its own sizes: $N = {plan['N']}$, $D = {plan['D']}$, $L = {plan['L']}$; "
                 f"decided estimates with their intervals (blue: pass, orange: not pass)")
    counts = "; ".join(f"{c['label'].splitlines()[0]}: {c['nonconstant']} of {c['draws']}" for c in cells)
    note_below(fig, f"non-constant of drawn models, {counts}. Proportions: one-sided Clopper-Pearson bounds at "
                    f"{SG6.level:g} (two-sided interval drawn); medians: order-statistic bounds. "
                    "From the check report; as formalised in boolverify")
    return save(fig, Path(fig_dir) / "sg6_decisions.png", data)


#: claim id -> figure drawn from that claim's evidence in a check report (``draw(report, fig_dir)``)
REPORT_FIGURES = {"SG-6": sg6_decisions_figure}


def render_from_report(report_path, fig_dir) -> dict:
    """The figures drawn from the check report at ``report_path`` when it exists; returns
    ``{report file name: [written paths]}``."""
    report_path = Path(report_path)
    if not report_path.exists():
        return {}
    report = json.loads(report_path.read_text())
    return {report_path.name: sg6_decisions_figure(report, fig_dir, data=[report_path])}


__all__ = ["REPORT_FIGURES", "SG6_ESTIMANDS", "sg6_cells", "sg6_decisions_figure", "render_from_report"]
