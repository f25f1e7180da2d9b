"""The one plotting style of every figure boolverify draws (docs/figures and the ``--figure``
options): font sizes readable on a slide, mathtext for symbols, constrained layout (nothing
clipped), the Okabe-Ito colour-blind-safe palette with a marker and a line style per series (no
pair of series told apart by red against green alone), and :func:`save`, which writes a PNG with
its vector PDF beside it, atomically, with the provenance sidecar.

A figure function is wrapped in :func:`styled`, so every text and line it creates takes these
settings; it draws through :func:`series` (the i-th series' colour, marker and line style) and
:data:`REFERENCE` (the thresholds and reference laws a claim is decided against), and ends with
:func:`save`. ``tests/verify/report/test_plot_style.py`` fails a figure module that saves or
styles otherwise.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from pathlib import Path

from numeric.validation import InputError
from verify.common.atomic_io import FIGURE_SUFFIXES, pyplot, save_figure

#: Okabe & Ito (2008): distinguishable under the common colour-vision deficiencies
OKABE_ITO = {"blue": "#0072B2", "vermillion": "#D55E00", "bluish green": "#009E73", "reddish purple": "#CC79A7",
             "orange": "#E69F00", "sky blue": "#56B4E9", "yellow": "#F0E442", "black": "#000000"}
#: the series order: neighbours differ in lightness as well as hue (yellow, faint on white, last)
COLOURS = tuple(OKABE_ITO[k] for k in ("blue", "vermillion", "bluish green", "reddish purple", "orange",
                                       "sky blue", "black", "yellow"))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)), (0, (3, 1, 1, 1)))
#: thresholds, bounds and reference laws: black, dashed, drawn over the data
REFERENCE = {"color": "black", "linestyle": "--", "linewidth": 1.4, "marker": "none", "zorder": 5}
#: the second reference of a panel (e.g. a second law), dotted so it reads apart from the first
REFERENCE_2 = {"color": "0.35", "linestyle": ":", "linewidth": 1.8, "marker": "none", "zorder": 5}
#: individual models or other background lines under a summary
BACKGROUND = "0.78"
#: the sequential map of heat maps (perceptually uniform, readable in grey)
SEQUENTIAL = "viridis"
#: the raster resolution of the PNG: sharp on a projector at slide width
DPI = 200

RC = {
    "font.size": 12,
    "axes.titlesize": 12,
    "axes.labelsize": 13,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 10,
    "legend.framealpha": 0.9,
    "figure.titlesize": 13,
    "lines.linewidth": 1.8,
    "lines.markersize": 6,
    "errorbar.capsize": 3,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.prop_cycle": None,  # set below: colour, marker and line style cycle together
    "mathtext.fontset": "dejavusans",
    "figure.constrained_layout.use": True,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.05,
    "pdf.fonttype": 42,  # TrueType in the PDF: its text stays text
}


def _cycler():
    from cycler import cycler

    return cycler(color=list(COLOURS)) + cycler(marker=list(MARKERS)) + cycler(linestyle=list(LINESTYLES))


def series(i: int) -> dict:
    """Keyword arguments of the ``i``-th series of a panel: colour, marker and line style, so a
    series is told apart by its shape as well as its colour."""
    i = int(i) % len(COLOURS)
    return {"color": COLOURS[i], "marker": MARKERS[i], "linestyle": LINESTYLES[i]}


def colour(i: int) -> str:
    """The ``i``-th palette colour (bars and bands, where a marker has no meaning)."""
    return COLOURS[int(i) % len(COLOURS)]


@contextmanager
def style():
    """The style as a matplotlib rc context; artists take the settings when they are created,
    so the whole figure is drawn inside it (see :func:`styled`)."""
    import matplotlib

    pyplot()  # the Agg backend before anything else touches matplotlib
    with matplotlib.rc_context({**RC, "axes.prop_cycle": _cycler()}):
        yield


def styled(draw):
    """Decorator: ``draw`` runs inside :func:`style`."""
    @functools.wraps(draw)
    def wrapper(*args, **kwargs):
        with style():
            return draw(*args, **kwargs)
    return wrapper


def subplots(*args, **kwargs):
    """``pyplot.subplots`` (inside :func:`style`)."""
    return pyplot().subplots(*args, **kwargs)


def image_paths(target) -> list:
    """The files one figure is written to: a ``.png`` path gets its vector ``.pdf`` beside it; a
    bare stem gets both; another figure suffix (``.pdf``, ``.svg``) names exactly that file; a
    list names exactly its files (one stem)."""
    if isinstance(target, (list, tuple)):
        if not target:
            raise InputError("save: expected at least one image path")
        return [Path(p) for p in target]
    path = Path(target)
    suffix = path.suffix.lower()
    if suffix == ".png":
        return [path, path.with_suffix(".pdf")]
    if suffix in FIGURE_SUFFIXES:
        return [path]
    return [path.with_name(path.name + ".png"), path.with_name(path.name + ".pdf")]


def save(fig, target, data=()) -> list:
    """Write ``fig`` to :func:`image_paths` of ``target`` atomically, with the stem's provenance
    sidecar naming the ``data`` files it was drawn from, and close it. Returns the paths."""
    paths = image_paths(target)
    try:
        return save_figure(fig, paths, data=data, dpi=DPI)
    finally:
        pyplot().close(fig)


def tex_number(x, digits: int = 3) -> str:
    """``x`` as mathtext (inside ``$...$``): ``1e-05`` becomes ``10^{-5}``, ``2.5e-06``
    ``2.5 \\times 10^{-6}``, plain numbers stay as ``%g`` gives them."""
    text = f"{float(x):.{digits}g}"
    if "e" not in text:
        return text
    mant, exp = text.split("e")
    exp = int(exp)
    return f"10^{{{exp}}}" if float(mant) == 1 else f"{mant} \\times 10^{{{exp}}}"


def note_below(fig, text: str) -> None:
    """A settings note under the panels (sizes, seeds, the formalisation's name), wrapped to the
    figure's width so that it never widens the figure."""
    import textwrap

    width = max(40, int(fig.get_figwidth() * 14))
    fig.supxlabel("\n".join(textwrap.wrap(text, width)), fontsize=9, color="0.3")


__all__ = ["OKABE_ITO", "COLOURS", "MARKERS", "LINESTYLES", "REFERENCE", "REFERENCE_2", "BACKGROUND",
           "SEQUENTIAL", "DPI", "RC", "series", "tex_number", "colour", "style", "styled", "subplots", "image_paths", "save",
           "note_below"]
