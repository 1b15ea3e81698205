"""Chapter 05's figures, each a whole laid-out figure: the paper's Figs 10 and 18 per schedule, Fig 17
(every pair), the early-halving panels and Fig 19 (training against test loss).

Book layer; the panels are drawn by :mod:`lib.book.plot_performance` (shared with the quickstart),
this module lays them out as the chapter shows them. Losses are summed squared errors, (P, 2, T):
P pairs, standard (0) and large (1) init, T snapshots.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import plot_performance


def schedule_figure(iterations: np.ndarray, test_loss: dict, schedule: str):
    """Fig 10 (ET) or 18 (LR): :func:`lib.book.plot_performance.plot_phase_losses` of one schedule's
    test loss (phase -> (P, 2, T) at ``iterations`` (T,)), its panels titled by ``schedule``."""
    axes = plot_performance.plot_phase_losses(iterations, test_loss, title=f"{schedule}: ")
    fig = np.asarray(axes).flat[0].figure
    fig.tight_layout()
    return fig


def runs_figure(iterations: np.ndarray, losses: np.ndarray):
    """Fig 17: every pair's test loss ((P, 2, T) at ``iterations`` (T,)), one panel per pair."""
    axes = plot_performance.plot_individual_runs(iterations, losses)
    fig = np.asarray(axes).flat[0].figure
    fig.tight_layout()
    return fig


def halving_figure(curves: dict):
    """The early-halving panels (:func:`lib.book.plot_performance.plot_early_halving` of ``curves``,
    panel title -> (iterations (T,), test loss (P, 2, T))), two panels per row."""
    if not isinstance(curves, dict) or not curves:
        raise ValueError(f"curves must be a non-empty dict title -> (iterations, losses), got {type(curves).__name__}")
    fig, axes = plt.subplots(-(-len(curves) // 2), 2, figsize=(8.4, 3.2 * -(-len(curves) // 2)), squeeze=False)
    plot_performance.plot_early_halving(curves, axes=axes)
    fig.tight_layout()
    return fig


def train_test_figure(runs: dict, train_loss: dict, test_loss: dict):
    """Fig 19: one row per schedule of ``runs`` (schedule -> run with ``iterations`` (T,)), mean training
    and test loss per init and phase (``train_loss``, ``test_loss``: schedule -> phase -> (P, 2, T))."""
    if not runs:
        raise ValueError("runs must name at least one schedule, got none")
    fig, axes = plt.subplots(len(runs), 2, figsize=(11, 3.4 * len(runs)), squeeze=False)
    for row_axes, (name, run) in zip(axes, runs.items()):
        plot_performance.plot_train_test(run["iterations"], train_loss[name], test_loss[name], axes=row_axes,
                                         title=f"{name}: ")
    fig.tight_layout()
    return fig
