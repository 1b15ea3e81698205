"""The book's figure style: readable fonts at the book's column width, a colour-blind-safe
palette, and images with at least as many pixels as the column is wide.

:func:`use_book_style` is applied when any ``lib.book.plot_*`` figure module is imported, so every
figure of the book (drawn by those modules or directly in a chapter) gets it.

Sizes, for the book's theme at a normal 1280 px wide window, where the book's stylesheet
(``book/_static/book.css``) narrows the sidebars so that a figure is shown up to ``COLUMN_PX`` =
790 CSS px wide (body text 16 px): figures are shown at ``FIGURE_DPI`` CSS px per inch, so a
figure up to 790 / 110 ~ 7 inches wide keeps its size, where ``MIN_FONT_PT`` text is
10 * 110 / 72 ~ 15 px high. A wider figure is scaled down to the column, and its text with it:
up to ``MAX_FIGURE_WIDTH_IN`` ~ 12.2 inches the smallest text stays at least ``MIN_TEXT_PX`` = 9 px
(the browser check, ``tests/book_check.py``, measures it on every page).
Notebook figures are sent as 2x ("retina") PNGs with ``2 * FIGURE_DPI`` pixels per inch, so
every figure 3.6 inches or wider has at least as many pixels as the column is wide.

A legend never covers data: :func:`legend_right` and :func:`legend_above` place an axes' legend
outside it, :func:`figure_legend_above` gives a figure one legend above all of its panels.
"""

from __future__ import annotations

import matplotlib as mpl
from cycler import cycler

# Okabe & Ito (2008), "Color universal design": distinguishable with any colour-vision deficiency.
PALETTE = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "bluish green": "#009E73",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "sky blue": "#56B4E9",
    "yellow": "#F0E442",
    "black": "#000000",
}
CYCLE = tuple(PALETTE.values())
INIT_COLORS = {"standard": PALETTE["blue"], "large": PALETTE["orange"]}  # every figure comparing the inits

FIGURE_DPI = 110  # CSS px per figure inch in the book (images carry twice as many pixels)
MIN_FONT_PT = 10  # the smallest text on any figure: tick labels, legends, annotations
BASE_FONT_PT = 11  # axis labels and titles
COLUMN_PX = 790  # the width of a full-column figure at a 1280 px wide window (CSS px; book.css)
MIN_TEXT_PX = 9  # the smallest text as shown in the book, CSS px
# a wider figure is scaled down so far that MIN_FONT_PT text is shown below MIN_TEXT_PX
MAX_FIGURE_WIDTH_IN = MIN_FONT_PT / 72 * COLUMN_PX / MIN_TEXT_PX

BOOK_STYLE = {
    "axes.prop_cycle": cycler(color=CYCLE),
    "image.cmap": "viridis",
    "font.size": BASE_FONT_PT,
    "axes.labelsize": BASE_FONT_PT,
    "axes.titlesize": BASE_FONT_PT,
    "figure.titlesize": BASE_FONT_PT + 1,
    "xtick.labelsize": MIN_FONT_PT,
    "ytick.labelsize": MIN_FONT_PT,
    "legend.fontsize": MIN_FONT_PT,
    "legend.title_fontsize": MIN_FONT_PT,
    "lines.linewidth": 1.5,
    "lines.markersize": 6,
    "figure.dpi": FIGURE_DPI,
    "savefig.dpi": 2 * FIGURE_DPI,
    "savefig.bbox": "tight",
}


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` to matplotlib and, inside a Jupyter kernel, send figures as
    2x PNGs (shown at ``FIGURE_DPI`` px per inch, sharp at the full column width)."""
    mpl.rcParams.update(BOOK_STYLE)
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: rcParams only
        return
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return
    from matplotlib_inline.config import InlineBackend

    # applied now if the inline backend is active, else when it activates
    InlineBackend.instance(parent=shell).figure_formats = {"retina"}


def legend_right(ax, **kwargs):
    """``ax``'s legend to the right of its axes, top-aligned: over none of its data (the figure is
    saved to its tight bounding box, so the legend is shown)."""
    return ax.legend(**({"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0,
                         "frameon": False} | kwargs))


def legend_above(ax, title: str = "", **kwargs):
    """``ax``'s legend above its axes, over none of its data, and its ``title`` (if any) above the
    legend, lifted by the legend's height (set the title here: a later ``set_title`` lowers it onto the legend)."""
    legend = ax.legend(**({"loc": "lower center", "bbox_to_anchor": (0.5, 1.0), "frameon": False} | kwargs))
    if title:
        height = legend.get_window_extent(ax.figure.canvas.get_renderer()).height * 72 / ax.figure.dpi
        gap = legend.borderaxespad * legend.prop.get_size_in_points()  # between the axes and the legend
        ax.set_title(title, pad=mpl.rcParams["axes.titlepad"] + gap + height)
    return legend


def figure_legend_above(ax, **kwargs):
    """One legend for the whole figure of ``ax``, of ``ax``'s labelled artists (the same in every panel),
    above the figure: over no panel's data."""
    handles, labels = ax.get_legend_handles_labels()
    return ax.figure.legend(handles, labels, **({"loc": "lower center", "bbox_to_anchor": (0.5, 1.0),
                                                 "ncols": len(labels), "frameon": False} | kwargs))
