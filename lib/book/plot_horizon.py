"""The prediction horizon's figure (chapter 12): accuracy against the fraction of training.

:func:`plot_horizon`: one column per outcome, within init scales (top row) and across them
(bottom row); in each panel two series in colour, the strongest kernel quantity (solid) and the
strongest rival (dashed; largest mean ``|r|`` over the fractions, :func:`featured`), with their
Fisher 95% intervals as bands, and the other predictors as thin grey lines for context; the
declared accuracy as a horizontal line and the chance band (``|r|``
inside the 95% null interval) shaded. f = 0 (t = 0) is drawn at the left
edge of the logarithmic axis.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter

from .names import reader_name
from .plot_style import CYCLE, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style

T0_POSITION = 0.001  # where f = 0 sits on the log axis (left of the first fraction, 0.25%)
OTHERS_GREY = "0.72"  # the predictors a panel does not feature


def _positions(fractions: np.ndarray) -> np.ndarray:
    return np.where(fractions > 0, fractions, T0_POSITION)


def _size_band(r: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``|r|`` and its interval: [lo, hi] for r >= 0, [-hi, -lo] for r < 0, clipped at 0."""
    negative = r < 0
    return (np.abs(r), np.clip(np.where(negative, -hi, lo), 0, 1), np.clip(np.where(negative, -lo, hi), 0, 1))


def featured(sizes: np.ndarray, is_kernel: np.ndarray) -> list[int]:
    """Indices of the predictors drawn bold in a panel: the kernel quantity and the rival with the
    largest mean ``|r|`` (``sizes`` (P, F), NaN ignored) over the fractions, each where its family
    has a finite value."""
    means = np.array([np.nanmean(row) if np.isfinite(row).any() else -np.inf for row in sizes])
    out = []
    for family in (is_kernel, ~is_kernel):
        candidates = np.flatnonzero(family & np.isfinite(means))
        if candidates.size:
            out.append(int(candidates[np.argmax(means[candidates])]))
    return out


def plot_horizon(curves: dict[str, dict[str, np.ndarray]], predictors: list[str], kernels: list[str],
                 fractions, threshold: float, groups: str = "scales", phase: str = "single-task training"):
    """``curves``: outcome -> :func:`lib.analyses.horizon.accuracy_curves` for ``predictors`` (in that
    order); ``kernels``: which of them are kernel quantities (solid lines); ``fractions`` (F,);
    ``groups``: what the within-group correlations are within (the row labels: "within <groups>");
    ``phase``: the phase whose fractions the x axis shows.
    Returns the figure."""
    fractions = np.asarray(fractions, float)
    missing = [p for p in kernels if p not in predictors]
    if missing:
        raise ValueError(f"kernels must be among predictors {predictors}, got {missing}")
    outcomes = list(curves)
    fig, axes = plt.subplots(2, len(outcomes), figsize=(2.6 * len(outcomes) + 0.6, 6.0), sharex=True, sharey=True,
                             squeeze=False)
    x = _positions(fractions)
    colors = {p: CYCLE[i % len(CYCLE)] for i, p in enumerate(predictors)}
    shown: set[str] = set()  # the predictors featured in some panel: the legend's coloured entries
    for col, outcome in enumerate(outcomes):
        c = curves[outcome]
        for row, (kind, title) in enumerate((("within", f"within {groups}"), ("across", f"across {groups}"))):
            ax = axes[row, col]
            ax.axhspan(0, c["null_half"] if kind == "within" else 0, color="0.9", lw=0)
            ax.axhline(threshold, color="0.3", lw=0.8, ls=":")
            bands = [_size_band(c[kind][i], c[f"{kind}_lo"][i], c[f"{kind}_hi"][i]) for i in range(len(predictors))]
            bold = featured(np.array([b[0] for b in bands]), np.array([p in kernels for p in predictors]))
            for i, p in enumerate(predictors):
                size, lo, hi = bands[i]
                style = "-" if p in kernels else "--"
                if i in bold:
                    ax.plot(x, size, style, color=colors[p], lw=2.0, marker="o", ms=3, zorder=3)
                    ax.fill_between(x, lo, hi, color=colors[p], alpha=0.18, lw=0)
                    shown.add(p)
                else:
                    ax.plot(x, size, style, color=OTHERS_GREY, lw=0.7, zorder=2)
            ax.set_xscale("log")
            ax.set_ylim(0, 1)
            if row == 0:
                ax.set_title("\n".join(textwrap.wrap(reader_name(outcome), 22)))
            if col == 0:
                ax.set_ylabel(f"|r|, {title}")
            if row == 1:
                ax.set_xlabel(f"fraction of {phase}")
    axes[0, 0].xaxis.set_major_locator(FixedLocator(list(x)))
    axes[0, 0].xaxis.set_major_formatter(FuncFormatter(
        lambda v, _: "0" if np.isclose(v, T0_POSITION) else f"{100 * v:g}%"))
    for ax in axes[-1]:
        plt.setp(ax.get_xticklabels(), rotation=90)
    featured_anywhere = [p for p in predictors if p in shown]
    handles = [Line2D([], [], ls="-" if p in kernels else "--", color=colors[p], lw=2.0, marker="o", ms=3)
               for p in featured_anywhere] + [Line2D([], [], color=OTHERS_GREY, lw=0.7)]
    labels = [reader_name(p) for p in featured_anywhere] + ["the other quantities (grey)"]
    fig.legend(handles, labels, loc="upper center", ncol=min(3, len(labels)), frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout()
    return fig
