"""Figures of the local volume around explicit solutions (paper B, as formalised in boolverify;
:mod:`verify.experiments.local_volume`): the exact-fraction curves over sigma, and the radius
r_f(N) per function, with the certified half-widths of :mod:`verify.experiments.certified_volume`
beside them when given. Written atomically, the format taken from the file's suffix.
"""

from __future__ import annotations

from verify.common.atomic_io import check_figure_path, pyplot, save_figure

COLOURS = {"first": "tab:blue", "majority": "tab:green", "parity": "tab:red"}


def volume_figure(curves, path, certified=None, compare=None, data=()):
    """Left: the fraction of perturbations computing the function exactly against sigma (log),
    with the Clopper-Pearson intervals, one line per (function, N); right: the radius r_f(N)
    (log) against N per function, with the bracket where the intervals cross 1/2. ``curves``:
    dicts of :meth:`verify.experiments.local_volume.VolumeCurve.as_dict`. ``certified``: dicts of
    :meth:`verify.experiments.certified_volume.CertifiedVolume.as_dict`, drawn on the right as
    open squares (the largest certified half-width h against N; a box not certified at any h is
    not drawn). ``compare``: curve dicts of other solutions (the constructions, beside trained
    ones), whose radii are drawn on the right as dotted lines with open circles. ``data``: the
    data files of the curves, named in the figure's provenance sidecar."""
    check_figure_path(path)
    plt = pyplot()
    fig, (ax, ar) = plt.subplots(1, 2, figsize=(14 if compare else 11, 4))
    Ns = sorted({c["N"] for c in curves})
    for c in curves:
        s = [p["sigma"] for p in c["points"]]
        f = [p["fraction"] for p in c["points"]]
        alpha = 0.35 + 0.65 * (Ns.index(c["N"]) + 1) / len(Ns)
        colour = COLOURS.get(c["function"], "tab:gray")
        ax.plot(s, f, "-o", ms=2.5, color=colour, alpha=alpha, label=f"{c['function']} N={c['N']}")
        ax.fill_between(s, [p["ci"][0] for p in c["points"]], [p["ci"][1] for p in c["points"]], color=colour,
                        alpha=0.08 * alpha)
    ax.axhline(0.5, color="k", lw=0.6, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel(r"perturbation scale $\sigma$")
    ax.set_ylabel("fraction computing f exactly")
    ax.legend(fontsize=6, ncol=2)
    for fn in sorted({c["function"] for c in curves}):
        rows = sorted((c for c in curves if c["function"] == fn and c["radius"] is not None), key=lambda c: c["N"])
        if not rows:
            continue
        N = [c["N"] for c in rows]
        r = [c["radius"] for c in rows]
        lo = [c["radius"] - (c["radius_range"][0] or c["radius"]) for c in rows]
        hi = [(c["radius_range"][1] or c["radius"]) - c["radius"] for c in rows]
        ar.errorbar(N, r, yerr=[lo, hi], fmt="-o", ms=4, capsize=3, color=COLOURS.get(fn, "tab:gray"),
                    label=f"{fn} trained" if compare else fn)
    for fn in sorted({b["function"] for b in certified or ()}):
        rows = sorted((b for b in certified if b["function"] == fn and b["half_width"] is not None),
                      key=lambda b: b["N"])
        if rows:
            ar.plot([b["N"] for b in rows], [b["half_width"] for b in rows], "--s", ms=5, mfc="none",
                    color=COLOURS.get(fn, "tab:gray"), label=f"{fn} certified box h")
    for fn in sorted({c["function"] for c in compare or ()}):
        rows = sorted((c for c in compare if c["function"] == fn and c["radius"] is not None), key=lambda c: c["N"])
        if rows:
            ar.plot([c["N"] for c in rows], [c["radius"] for c in rows], ":o", ms=4, mfc="none",
                    color=COLOURS.get(fn, "tab:gray"), label=f"{fn} constructed (D=6, L=1, H=1, eps=0)")
    ar.set_yscale("log")
    ar.set_xlabel("N")
    ar.set_ylabel(r"radius $r_f(N)$ (fraction = 1/2)" if not certified
                  else r"radius $r_f(N)$; certified half-width $h$ (open)")
    if compare:
        ar.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))  # the lines fill the panel
    else:
        ar.legend(fontsize=8)
    c0 = curves[0]
    # a curve without the field predates given solutions: it is a construction's
    if c0.get("solution", "constructed") == "constructed":
        shape = f"explicit solutions (D={c0['D']}, L={c0['L']}, H={c0['H']}, F = max(N, 2), eps={c0['eps']:g})"
    else:
        shape = f"given (trained) solutions (D={c0['D']}, L={c0['L']}, H={c0['H']}, F={c0['F']}, eps={c0['eps']:g})"
    fig.suptitle(f"local volume around {shape}, as formalised in boolverify", fontsize=9)
    fig.tight_layout()
    try:
        save_figure(fig, [path], data=data)
    finally:
        plt.close(fig)
    return path


__all__ = ["volume_figure"]
