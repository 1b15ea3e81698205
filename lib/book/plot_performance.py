"""Figures of the performance chapter's learning-speed measure (matplotlib only, the book's style).

The paper's own performance figures (Figs 10, 17-19) are in :mod:`lib.book.plotting`; this module
draws the early-phase curves behind the declared halving-time measure.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..analyses.stats import halving_iteration, relative_to_start
from .plotting import INIT_COLORS  # importing plotting applies the book's style


def plot_early_halving(curves: dict, fraction: float = 0.5, axes=None):
    """Early-phase test loss relative to each network's own start, per init: median over pairs
    (line) and interquartile range (band), the ``fraction`` line, and each init's median halving
    iteration (dotted vertical line) over the pairs that halve within the window.

    curves: panel title -> (iterations (S,), test losses (P, 2, S), column 0 standard, 1 large).
    axes: as many matplotlib axes as panels (default: a grid of two columns)."""
    if not isinstance(curves, dict) or not curves:
        raise ValueError(f"curves must be a non-empty dict title -> (iterations, losses), got {type(curves).__name__}")
    if axes is None:
        ncols = min(2, len(curves))
        nrows = -(-len(curves) // ncols)
        _, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 3.0 * nrows), squeeze=False)
    axes = np.asarray(axes).reshape(-1)
    if len(axes) < len(curves):
        raise ValueError(f"axes must hold at least {len(curves)} panels, got {len(axes)}")
    for ax, (title, (iterations, losses)) in zip(axes, curves.items()):
        relative = relative_to_start(losses)
        times = halving_iteration(iterations, losses, fraction)
        for i, (init, color) in enumerate(INIT_COLORS.items()):
            low, mid, high = np.quantile(relative[:, i], [0.25, 0.5, 0.75], axis=0)
            halved = times[:, i][np.isfinite(times[:, i])]
            ax.plot(iterations, mid, color=color, label=f"{init} ({len(halved)}/{len(times)} halve)")
            ax.fill_between(iterations, low, high, color=color, alpha=0.2)
            if len(halved):
                ax.axvline(np.median(halved), color=color, ls=":", lw=1)
        ax.axhline(fraction, color="0.4", lw=0.8, ls="--")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.set_ylabel("test loss / its start")
        ax.legend(frameon=False)
    for ax in axes[len(curves):]:
        ax.axis("off")
    return axes
