"""Figures of the continuum chapter (10), matplotlib only, the book's style.

:func:`plot_versus_scale`: per-network columns against the init scale (median and interquartile
range per scaling and learning-rate kind); :func:`plot_win_counts`: the binary comparison's
wins per schedule and phase; :func:`plot_within_grid`: heat map of the pooled within-scale r
of every predictor x outcome cell of one setting, cells significant after Benjamini-Hochberg
framed;
:func:`plot_per_scale_scatter`: a winner's predictor against its outcome, one panel per init
scale, with the per-scale r.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ..analyses.continuum_sweeps import nan_quartiles
from ..analyses.within_scale import per_scale_r
from .names import rename
from .plot_style import INIT_COLORS, PALETTE, figure_legend_above, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style


def plot_within_grid(rows: list[dict], predictors: list[str], outcomes: list[str], title: str = "",
                     fdr: float = 0.05, ax=None):
    """Heat map of ``r`` (pooled within-scale r, rows from :func:`lib.analyses.within_scale.cell_table`
    with ``q`` from ``add_bh``) for predictors (rows) x outcomes (columns); each cell shows r (its
    interval is in the chapter's table), framed when q <= ``fdr``; a cell without a finite r is
    left blank."""
    if ax is None:
        _, ax = plt.subplots(figsize=(0.88 * len(outcomes) + 2.6, 0.45 * len(predictors) + 1.9))
    lookup = {(r["predictor"], r["outcome"]): r for r in rows}
    missing = [(p, o) for p in predictors for o in outcomes if (p, o) not in lookup]
    if missing:
        raise ValueError(f"rows must hold every predictor x outcome cell, missing {missing[:3]}")
    values = np.array([[lookup[(p, o)]["r"] for o in outcomes] for p in predictors], float)
    ax.imshow(np.ma.masked_invalid(values), cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
    for i, p in enumerate(predictors):
        for j, o in enumerate(outcomes):
            r = lookup[(p, o)]
            if not np.isfinite(r["r"]):
                continue
            ax.text(j, i, f"{r['r']:+.2f}", ha="center", va="center")
            if np.isfinite(r["q"]) and r["q"] <= fdr:
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=1.8, color="k"))
    ax.set_xticks(range(len(outcomes)), [textwrap.fill(n, 24) for n in rename(outcomes)], rotation=35, ha="right")
    ax.set_yticks(range(len(predictors)), rename(predictors))
    ax.set_xlabel("outcome")
    ax.set_ylabel("t=0 predictor")
    ax.set_title(title)
    return ax


def plot_per_scale_scatter(networks: dict, pairs: list[tuple[str, str, str]], log_outcome: tuple[str, ...] = ()):
    """One row of panels per (predictor, outcome, label) in ``pairs``, one panel per init scale
    ``g`` of ``networks`` (column -> (N,) arrays with ``g``): each network a point, the panel
    titled with the scale's Pearson r and its Fisher-z 95% interval. Outcomes named in
    ``log_outcome`` get a log y axis. Returns the (rows, scales) axes."""
    if not pairs:
        raise ValueError("pairs must name at least one (predictor, outcome, label)")
    scales = np.unique(networks["g"])
    fig, axes = plt.subplots(len(pairs), len(scales), figsize=(2.3 * len(scales), 2.3 * len(pairs)),
                             squeeze=False)
    for row, (predictor, outcome, label) in enumerate(pairs):
        stats = {s["g"]: s for s in per_scale_r(networks[predictor], networks[outcome], networks["g"])}
        for col, g in enumerate(scales):
            ax = axes[row, col]
            member = networks["g"] == g
            ax.scatter(networks[predictor][member], networks[outcome][member], s=9, color="C0", alpha=0.8)
            s = stats.get(float(g))
            ax.set_title(f"g = {g:g}: r = {s['r']:+.2f}\n[{s['lo']:+.2f}, {s['hi']:+.2f}]" if s and np.isfinite(s["r"])
                         else f"g = {g:g}: r undefined")
            if outcome in log_outcome:
                ax.set_yscale("log")
            ax.xaxis.set_major_locator(MaxNLocator(3))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.2g}"))  # no offset text
            if col == 0:
                ax.set_ylabel(textwrap.fill(label, 20))
            ax.set_xlabel(textwrap.fill(rename([predictor])[0], 22))
    return axes


CONTINUUM_STYLES = {("both", "paper"): (PALETTE["blue"], "-"), ("both", "tuned"): (PALETTE["blue"], "--"),
                    ("hidden", "paper"): (PALETTE["vermillion"], "-"),
                    ("hidden", "tuned"): (PALETTE["vermillion"], "--")}


def plot_versus_scale(networks: dict, columns: dict, ncols: int = 3, axes=None):
    """Median (line) and interquartile range (band) of per-network values against init scale g,
    one panel per column, one line per (scaling, learning-rate kind).

    Args:
        networks: column -> (rows,) arrays with ``scaling``, ``lr_kind``, ``g`` and the columns.
        columns: column name -> panel title.
    """
    n = len(columns)
    if axes is None:
        nrows = -(-n // ncols)
        _, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 2.8 * nrows), squeeze=False)
    axes = np.ravel(axes)
    for ax, (column, title) in zip(axes, columns.items()):
        for (scaling, kind), (color, ls) in CONTINUUM_STYLES.items():
            rows = (networks["scaling"] == scaling) & (networks["lr_kind"] == kind)
            if not rows.any():
                continue
            gs = np.unique(networks["g"][rows])
            values = [np.asarray(networks[column][rows & (networks["g"] == g)], float) for g in gs]
            q = np.array([nan_quartiles(v) for v in values])  # an all-NaN scale: no point
            ax.plot(gs, q[:, 1], color=color, ls=ls, marker="o", ms=3,
                    label=f"{'both layers' if scaling == 'both' else 'hidden layer only'}, {kind} lr")
            ax.fill_between(gs, q[:, 0], q[:, 2], color=color, alpha=0.12)
        ax.set_xscale("log")
        ax.axvline(1.0, color="0.6", lw=0.8, ls=":")
        ax.axvline(10.0, color="0.6", lw=0.8, ls=":")
        ax.set_title(title)
        ax.set_xlabel("init scale g (x standard draw)")
        ax.set_ylabel("median and IQR")
    for ax in axes[n:]:
        ax.set_visible(False)
    figure_legend_above(axes[0], ncols=2)
    return axes


def plot_win_counts(comparisons: dict, ax=None):
    """Stacked bars: pairs won by standard and by large init in each phase, per schedule.

    Args:
        comparisons: schedule -> :func:`lib.analyses.robustness.binary_comparison` dict.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    labels, std, large = [], [], []
    for schedule, c in comparisons.items():
        for phase in ("single", "finetune"):
            labels.append(f"{schedule}\n{phase}")
            std.append(c[f"{phase}/standard_wins"])
            large.append(c[f"{phase}/large_wins"])
    x = np.arange(len(labels))
    ax.bar(x, std, color=INIT_COLORS["standard"], label="standard init lower test loss")
    ax.bar(x, large, bottom=std, color=INIT_COLORS["large"], label="large init lower test loss")
    ax.set_xticks(x, labels)
    ax.set_xlabel("schedule, phase")
    ax.set_ylabel("pairs")
    ax.legend(frameon=False, loc="lower right")
    return ax


def plot_outcomes(networks: dict, titles: dict, log_outcomes: tuple[str, ...] = (), ncols: int = 3):
    """:func:`plot_versus_scale` of the outcomes ``titles`` (column -> panel title), the columns in
    ``log_outcomes`` on a log y axis, laid out. Returns the axes."""
    axes = plot_versus_scale(networks, titles, ncols)  # an all-NaN scale has no point
    for name in log_outcomes:
        axes[list(titles).index(name)].set_yscale("log")
    plt.tight_layout()
    return axes


def plot_winner_scatter(networks: dict, pairs: list[tuple[str, str, str]], log_outcome: tuple[str, ...] = ()):
    """:func:`plot_per_scale_scatter` of ``pairs``, laid out; where ``pairs`` is empty, a panel that
    says no cell is significant after the correction. Returns the axes."""
    if not pairs:
        _, ax = plt.subplots(figsize=(6, 1.5))
        ax.text(0.5, 0.5, "no cell of the converged continuum is significant after the correction", ha="center")
        ax.set_axis_off()
        plt.tight_layout()
        return np.array([[ax]])
    axes = plot_per_scale_scatter(networks, pairs, log_outcome)
    plt.tight_layout()
    return axes
