"""Figures of the local volume around explicit solutions (paper B, as formalised in boolverify;
:mod:`verify.experiments.local_volume`): the exact-fraction curves over sigma, and the radius
r_f(N) per function, with the certified half-widths of :mod:`verify.experiments.certified_volume`
beside them when given. Drawn in the style of :mod:`verify.report.plot_style`; written atomically,
the format taken from the file's suffix (a list of paths: one file per format).
"""

from __future__ import annotations

from pathlib import Path

from verify.common.atomic_io import check_figure_path
from verify.report.plot_style import REFERENCE, note_below, save, series, styled, subplots, tex_number

#: one series style per function (colour, marker, line style), the same in every volume figure
FUNCTIONS = ("first", "majority", "parity")


def _style(fn) -> dict:
    return series(FUNCTIONS.index(fn) if fn in FUNCTIONS else len(FUNCTIONS))


def volume_figure(curves, path, certified=None, compare=None, data=()):
    """Left: the fraction of perturbations computing the function exactly against sigma (log),
    with the Clopper-Pearson intervals, one line per (function, N); right: the radius r_f(N)
    (log) against N per function, with the bracket where the intervals cross 1/2. ``curves``:
    dicts of :meth:`verify.experiments.local_volume.VolumeCurve.as_dict`. ``certified``: dicts of
    :meth:`verify.experiments.certified_volume.CertifiedVolume.as_dict`, drawn on the right as
    open squares (the largest certified half-width h against N; a box not certified at any h is
    not drawn). ``compare``: curve dicts of other solutions (the constructions, beside trained
    ones), whose radii are drawn on the right as dotted lines with open circles. ``data``: the
    data files of the curves, named in the figure's provenance sidecar. ``path``: one file, or a
    list of files of one stem (e.g. its PNG and PDF)."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    for p in paths:
        check_figure_path(p)
    _draw(curves, paths, certified, compare, data)
    return path


@styled
def _draw(curves, paths, certified, compare, data):
    fig, (ax, ar) = subplots(1, 2, figsize=(15 if compare else 13, 5.2))
    Ns = sorted({c["N"] for c in curves})
    for c in curves:
        s = [p["sigma"] for p in c["points"]]
        f = [p["fraction"] for p in c["points"]]
        alpha = 0.35 + 0.65 * (Ns.index(c["N"]) + 1) / len(Ns)
        sty = _style(c["function"])
        ax.plot(s, f, ms=3, alpha=alpha, label=f"{c['function']} $N = {c['N']}$", **sty)
        ax.fill_between(s, [p["ci"][0] for p in c["points"]], [p["ci"][1] for p in c["points"]],
                        color=sty["color"], alpha=0.08 * alpha)
    ax.axhline(0.5, **REFERENCE, label="1/2: the radius")
    ax.set_xscale("log")
    ax.set_xlabel(r"perturbation scale $\sigma$")
    ax.set_ylabel("share of perturbations computing $f$ exactly")
    ax.legend(fontsize=7, ncol=3, loc="lower left")
    for fn in sorted({c["function"] for c in curves}):
        rows = sorted((c for c in curves if c["function"] == fn and c["radius"] is not None), key=lambda c: c["N"])
        if not rows:
            continue
        N = [c["N"] for c in rows]
        r = [c["radius"] for c in rows]
        lo = [c["radius"] - (c["radius_range"][0] or c["radius"]) for c in rows]
        hi = [(c["radius_range"][1] or c["radius"]) - c["radius"] for c in rows]
        ar.errorbar(N, r, yerr=[lo, hi], ms=5, label=f"{fn} trained" if compare else fn, **_style(fn))
    for fn in sorted({b["function"] for b in certified or ()}):
        rows = sorted((b for b in certified if b["function"] == fn and b["half_width"] is not None),
                      key=lambda b: b["N"])
        if rows:
            ar.plot([b["N"] for b in rows], [b["half_width"] for b in rows], ms=6, mfc="none",
                    label=f"{fn} certified box $h$", **{**_style(fn), "marker": "s", "linestyle": ":"})
    for fn in sorted({c["function"] for c in compare or ()}):
        rows = sorted((c for c in compare if c["function"] == fn and c["radius"] is not None), key=lambda c: c["N"])
        if rows:
            ar.plot([c["N"] for c in rows], [c["radius"] for c in rows], ms=5, mfc="none",
                    label=f"{fn} constructed ($D = 6$, $L = 1$, $H = 1$, $\\varepsilon = 0$)",
                    **{**_style(fn), "linestyle": ":"})
    ar.set_yscale("log")
    ar.set_xlabel("$N$")
    ar.set_ylabel(r"radius $r_f(N)$ (fraction = 1/2)" if not certified
                  else r"radius $r_f(N)$; certified half-width $h$ (open)")
    if compare:
        ar.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))  # the lines fill the panel
    else:
        ar.legend(fontsize=9)
    c0 = curves[0]
    # a curve without the field predates given solutions: it is a construction's
    if c0.get("solution", "constructed") == "constructed":
        shape = (f"explicit solutions ($D = {c0['D']}$, $L = {c0['L']}$, $H = {c0['H']}$, $F = \\max(N, 2)$, "
                 f"$\\varepsilon = {tex_number(c0['eps'])}$)")
    else:
        shape = (f"given (trained) solutions ($D = {c0['D']}$, $L = {c0['L']}$, $H = {c0['H']}$, $F = {c0['F']}$, "
                 f"$\\varepsilon = {tex_number(c0['eps'])}$)")
    fig.suptitle(f"SG-9: local volume around {shape}")
    note_below(fig, "left: Clopper-Pearson bands of each share; right: the radius where the share crosses 1/2, "
                    "with the bracket of the intervals; as formalised in boolverify")
    save(fig, paths, data)


def render_from_data(data_dir="docs/data", fig_dir="docs/figures", files=None) -> dict:
    """Redraw the volume figures of docs/figures from the data files present (with ``files``, a
    collection of file names, only from those), PNG and PDF: ``local_volume`` from
    ``certified_volume.json`` (its curves and certified boxes, as ``sensitivity volume
    --certify --figure`` draws them) and ``local_volume_trained`` from the trained curves
    (``local_volume_trained.json`` and ``local_volume_trained_N12.json``) beside the constructed
    radii of ``local_volume.json``. Returns ``{data file: [written paths]}``."""
    import json

    data_dir, fig_dir = Path(data_dir), Path(fig_dir)
    drawn = {}

    def present(name):
        return (files is None or name in files) and (data_dir / name).exists()

    if present("certified_volume.json"):
        path = data_dir / "certified_volume.json"
        d = json.loads(path.read_text())
        fig_dir.mkdir(parents=True, exist_ok=True)
        stems = [fig_dir / f"local_volume.{ext}" for ext in ("png", "pdf")]
        volume_figure(d["curves"], stems, certified=d.get("certified"), data=[path])
        drawn[path.name] = stems
    trained = [data_dir / n for n in ("local_volume_trained.json", "local_volume_trained_N12.json") if present(n)]
    if trained:
        curves = [c for p in trained for c in json.loads(p.read_text())["curves"]]
        constructed = data_dir / "local_volume.json"
        compare = None
        if constructed.exists():
            Ns = {c["N"] for c in curves}
            compare = [c for c in json.loads(constructed.read_text())["curves"] if c["N"] in Ns]
        fig_dir.mkdir(parents=True, exist_ok=True)
        stems = [fig_dir / f"local_volume_trained.{ext}" for ext in ("png", "pdf")]
        volume_figure(curves, stems, compare=compare,
                      data=trained + ([constructed] if compare is not None else []))
        drawn[trained[0].name] = stems
    return drawn


__all__ = ["volume_figure", "render_from_data", "FUNCTIONS"]
