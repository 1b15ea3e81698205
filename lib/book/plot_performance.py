"""Figures of the performance chapters (00 quickstart, 05 multitask performance), matplotlib only,
the book's style: the paper's loss curves of standard vs large init (Figs 10, 17-19: per pair,
per phase, per run, train against test) and the early-phase curves behind the declared
halving-time measure.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..analyses.stats import halving_iteration, relative_to_start
from .plot_style import INIT_COLORS, legend_above, legend_right, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style


def plot_pair_losses(iterations: np.ndarray, loss_test: np.ndarray, loss_train: np.ndarray | None = None, ax=None):
    """Test loss (solid) and optionally train loss (dotted) of standard vs large init.

    Args:
        iterations: (S,) iteration of each snapshot.
        loss_test, loss_train: (P pairs, 2 inits, S) summed squared error.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    for i, (init, color) in enumerate(INIT_COLORS.items()):
        for j, curve in enumerate(loss_test[:, i]):
            ax.plot(iterations, curve, color=color, lw=1, alpha=0.8, label=f"{init} init (test)" if j == 0 else None)
        if loss_train is not None:
            for j, curve in enumerate(loss_train[:, i]):
                ax.plot(iterations, curve, color=color, lw=1, ls=":", label=f"{init} init (train)" if j == 0 else None)
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("summed squared error")
    legend_right(ax)
    return ax


PHASE_TITLES = {"single": "single-task training", "finetune": "multitask fine-tuning"}


def plot_phase_losses(iterations, losses: dict, title: str = "", axes=None):
    """Fig 10 / 18: top, mean +- sd test loss of standard vs large init per phase; bottom, the
    mean +- sd paired difference large - standard (the paper's sign: above zero, standard init
    better) on a symlog axis, so that the early transient and the final gap are both legible.

    losses: phase -> (P, 2, S) test loss."""
    phases = list(losses)
    if axes is None:
        _, axes = plt.subplots(2, len(phases), figsize=(4.6 * len(phases), 6), sharex=True)
    axes = np.asarray(axes).reshape(2, len(phases))
    for j, phase in enumerate(phases):
        top, bottom = axes[0, j], axes[1, j]
        for i, (init, color) in enumerate(INIT_COLORS.items()):
            mean, sd = losses[phase][:, i].mean(axis=0), losses[phase][:, i].std(axis=0)
            top.plot(iterations, mean, color=color, label=f"{init} init")
            top.fill_between(iterations, mean - sd, mean + sd, color=color, alpha=0.2)
        diff = losses[phase][:, 1] - losses[phase][:, 0]
        mean, sd = diff.mean(axis=0), diff.std(axis=0)
        bottom.plot(iterations, mean, color="k", label="mean over pairs")
        bottom.fill_between(iterations, mean - sd, mean + sd, color="0.5", alpha=0.3, label="± sd")
        bottom.axhline(0, color="0.3", lw=0.8, ls=":")
        final = max(float(np.abs(mean[-1])), 1e-3)
        bottom.set_yscale("symlog", linthresh=final)
        top.set_yscale("log")
        top.set_ylabel("test loss (summed sq. error)")
        bottom.set_ylabel("large − standard\n(> 0: standard better)")
        bottom.set_xlabel("iteration")
        legend_above(top, f"{title}{PHASE_TITLES.get(phase, phase)}", ncol=2)
        legend_above(bottom, ncol=2)
    return axes


def plot_individual_runs(iterations, losses: np.ndarray, ncols: int = 5, axes=None):
    """Fig 17: test loss of standard (blue) and large (orange) init for every pair."""
    n = losses.shape[0]
    nrows = -(-n // ncols)
    if axes is None:
        _, axes = plt.subplots(nrows, ncols, figsize=(2.0 * ncols, 2.0 * nrows), sharex=True, sharey=True,
                               squeeze=False)
    axes = np.asarray(axes).reshape(-1)
    for p, ax in enumerate(axes):
        if p >= n:
            ax.axis("off")
            continue
        for i, color in enumerate(INIT_COLORS.values()):
            ax.plot(iterations, losses[p, i], color=color, lw=1)
        ax.set_yscale("log")
        ax.set_title(f"pair {p + 1}")
        if p % ncols == 0:
            ax.set_ylabel("test loss")
        if p >= (nrows - 1) * ncols:
            ax.set_xlabel("iteration")
    return axes


def plot_train_test(iterations, train: dict, test: dict, axes=None, title: str = ""):
    """Fig 19: mean training (dotted) and test (solid) loss per init and phase."""
    phases = list(test)
    if axes is None:
        _, axes = plt.subplots(1, len(phases), figsize=(4.6 * len(phases), 3.4))
    for ax, phase in zip(np.atleast_1d(axes), phases):
        for i, (init, color) in enumerate(INIT_COLORS.items()):
            ax.plot(iterations, test[phase][:, i].mean(axis=0), color=color, label=f"{init} test")
            ax.plot(iterations, train[phase][:, i].mean(axis=0), color=color, ls=":", label=f"{init} train")
        ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel("summed squared error")
        legend_above(ax, f"{title}{PHASE_TITLES.get(phase, phase)}", ncol=2)
    return axes


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
