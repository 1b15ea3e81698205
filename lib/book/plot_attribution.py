"""Figures of the chapter "The eNTK over training" on what its attribution and crossing times
support (matplotlib only, the book's style): signed and ``|contribution|`` shares with their
intervals, the cancellation factor of every network over training, and the crossing times of
every pair at several thresholds.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .plot_style import INIT_COLORS, figure_legend_above, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style


def _grid(n_rows: int, n_cols: int, width: float, height: float, axes, **kw):
    if axes is None:
        _, axes = plt.subplots(n_rows, n_cols, figsize=(width * n_cols, height * n_rows), squeeze=False, **kw)
    axes = np.asarray(axes).reshape(n_rows, n_cols)
    return axes


def plot_signed_attribution(shares: dict, categories, axes=None):
    """Per schedule (columns): the signed share of the learned change (top) and the share of
    ``sum |C|`` (bottom) of each category of training patterns, mean over pairs with its interval,
    per init (colour); dotted in the bottom row: the categories' share of the patterns.

    shares: schedule -> {"signed": (2 inits, C, 3), "abs": (2, C, 3), "fraction": (C,)} with
    (mean, low, high) in the last axis; categories: C labels.

    The figure is laid out tight before the axes are returned.
    """
    if not isinstance(shares, dict) or not shares:
        raise ValueError(f"shares must be a non-empty dict schedule -> arrays, got {type(shares).__name__}")
    axes = _grid(2, len(shares), 5.2, 3.0, axes, sharex=True)
    x = np.arange(len(categories))
    for c, (schedule, parts) in enumerate(shares.items()):
        rows = (("signed", "signed share of the change"), ("abs", "share of |contribution|"))
        for r, (key, label) in enumerate(rows):
            ax = axes[r, c]
            for i, (init, color) in enumerate(INIT_COLORS.items()):
                mean, low, high = np.moveaxis(np.asarray(parts[key][i], dtype=float), -1, 0)
                offset = (i - 0.5) * 0.22
                ax.errorbar(x + offset, mean, yerr=[mean - low, high - mean], fmt="o", color=color, capsize=3,
                            label=f"{init} init")
            if key == "signed":
                ax.axhline(0, color="0.5", lw=0.8)
            else:
                ax.plot(x, parts["fraction"], ls="none", marker="_", ms=18, color="0.3",
                        label="share of the patterns")
            ax.set_ylabel(label)
            if r == 0:
                ax.set_title(schedule)
            ax.set_xticks(x, categories, rotation=20, ha="right")
        axes[1, c].set_xlabel("training patterns")
    figure_legend_above(axes[1, 0])  # the top row's entries and the patterns' share
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes


def plot_cancellation(iterations: dict, factors: dict, axes=None):
    """The cancellation factor ``sum |C| / |dy|`` of every network over training (one thin line
    per network, colour = init; log scale), by category (top) and by single training pattern
    (bottom); a grey line at 1 (no cancellation).

    iterations: schedule -> (S,); factors: schedule -> {"by category": (P, 2, S), "by training
    pattern": (P, 2, S)} (nan at iteration 0, where nothing has been learned).

    The figure is laid out tight before the axes are returned.
    """
    if not isinstance(factors, dict) or not factors:
        raise ValueError(f"factors must be a non-empty dict schedule -> arrays, got {type(factors).__name__}")
    rows = list(next(iter(factors.values())))
    axes = _grid(len(rows), len(factors), 5.2, 2.8, axes, sharex="col", sharey="row")
    for c, (schedule, by_kind) in enumerate(factors.items()):
        x = np.asarray(iterations[schedule])[1:]
        for r, kind in enumerate(rows):
            ax = axes[r, c]
            values = np.asarray(by_kind[kind], dtype=float)
            for i, (init, color) in enumerate(INIT_COLORS.items()):
                for p in range(values.shape[0]):
                    ax.plot(x, values[p, i, 1:], color=color, lw=1, alpha=0.8,
                            label=f"{init} init (each network)" if p == 0 else None)
            ax.axhline(1, color="0.5", lw=0.8, ls=":")
            ax.set_yscale("log")
            ax.set_title(f"{schedule}, {kind}")
            ax.set_ylabel(r"$\sum |C| \,/\, \sum |\Delta y|$")
            if r == len(rows) - 1:
                ax.set_xlabel("iteration")
    figure_legend_above(axes[0, 0])
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes


def plot_crossing_thresholds(thresholds, crossings: dict, n_iterations: dict, ncols: int = 2, axes=None):
    """Crossing iteration of every pair (one line per pair, colour = init) against the threshold;
    a pair that never crosses within the run sits on the 'never' line at the top.

    thresholds: (T,); crossings: panel title -> (schedule, (T, P, 2 inits) iterations, nan =
    never); n_iterations: schedule -> the run's length.

    The figure is laid out tight before the axes are returned.
    """
    if not isinstance(crossings, dict) or not crossings:
        raise ValueError(f"crossings must be a non-empty dict title -> (schedule, times), got "
                         f"{type(crossings).__name__}")
    thresholds = np.asarray(thresholds, dtype=float)
    nrows = -(-len(crossings) // ncols)
    axes = _grid(nrows, ncols, 5.2, 2.8, axes)
    flat = axes.reshape(-1)
    for ax, (title, (schedule, times)) in zip(flat, crossings.items()):
        times = np.asarray(times, dtype=float)
        never = 1.25 * n_iterations[schedule]
        for i, (init, color) in enumerate(INIT_COLORS.items()):
            for p in range(times.shape[1]):
                jitter = (p - (times.shape[1] - 1) / 2) * 0.004 + (i - 0.5) * 0.012
                y = np.where(np.isnan(times[:, p, i]), never, times[:, p, i])
                ax.plot(thresholds + jitter, y, "o-", color=color, ms=4, lw=1, alpha=0.8,
                        label=f"{init} init (each pair)" if p == 0 else None)
        ax.axhline(never, color="0.5", lw=0.8, ls=":")
        ax.set_yscale("log")
        low = np.nanmin(times) if np.isfinite(times).any() else never / 2
        ax.set_ylim(low / 1.4, never * 1.4)
        ticks = [t for t in (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
                 if low / 1.4 <= t <= never / 1.6]
        ax.set_yticks([*ticks, never], [*(f"{t:g}" for t in ticks), "never"])
        ax.yaxis.set_minor_locator(plt.NullLocator())
        ax.set_title(title)
        ax.set_xlabel("threshold")
        ax.set_ylabel("first iteration below")
    handles, labels = flat[0].get_legend_handles_labels()
    flat[0].figure.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(labels),
                          frameon=False)
    for ax in flat[len(crossings):]:
        ax.axis("off")
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes
