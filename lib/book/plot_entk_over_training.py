"""Figures of the chapter "The eNTK over training" (08): reconstruction errors and convergence of
the ePNTK, kernel similarity, sharing and RSA over training, and task-similarity matrices
(matplotlib only, the book's style). Its attribution figures are in :mod:`lib.book.plot_attribution`.
"""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import numpy as np

from .plot_style import INIT_COLORS, figure_legend_above, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style


def _init_band(ax, x, values, color, label, ls="-"):
    """Mean +- sd over the first axis (pairs) of (P, S) values (nan where undefined, e.g. at t=0)."""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-nan columns: nothing to average
        mean, sd = np.nanmean(values, axis=0), np.nanstd(values, axis=0)
    ax.plot(x, mean, color=color, ls=ls, label=label)
    ax.fill_between(x, mean - sd, mean + sd, color=color, alpha=0.15, lw=0)


def plot_reconstruction_errors(panels: dict, axes=None):
    """Relative error of the ePNTK reconstruction of y(t) - y(0) over training (log scale).

    panels: title -> (iterations (S,), {label: (2 inits, S)}); colour = init, line style = label.

    The figure is laid out tight before the axes are returned.
    """
    if axes is None:
        _, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.4), squeeze=False)
    styles = ("-", "--", ":", "-.")
    for ax, (title, (iterations, curves)) in zip(np.ravel(axes), panels.items()):
        for style, (label, values) in zip(styles, curves.items()):
            for i, (init, color) in enumerate(INIT_COLORS.items()):
                ax.plot(iterations[1:], np.asarray(values)[i, 1:], color=color, ls=style, label=f"{init} init, {label}")
        ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel(r"$|\sum_m P - (y(t) - y(0))| \,/\, |y(t) - y(0)|$")
        ax.set_title(title)
    figure_legend_above(np.ravel(axes)[0], ncols=2)
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes


def plot_epntk_convergence(panels: dict, axes=None):
    """Reconstruction error against the learning rate at fixed lr x steps (log-log), lr^1 guides.

    panels: title -> {label: (learning rates (H,), errors (H,))}.

    The figure is laid out tight before the axes are returned.
    """
    if axes is None:
        _, axes = plt.subplots(1, len(panels), figsize=(4.8 * len(panels), 3.5), squeeze=False)
    for ax, (title, lines) in zip(np.ravel(axes), panels.items()):
        for label, (rates, errors) in lines.items():
            color = INIT_COLORS["large" if "large" in label else "standard"]
            style = "--" if "test" in label else "-"
            ax.loglog(rates, errors, "o", color=color, ls=style, label=label)
            ax.loglog(rates, errors[-1] * np.asarray(rates) / rates[-1], color="0.6", ls=":", lw=1)
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel(r"learning rate $\eta$ ($\eta \times$ steps fixed)")
        ax.set_title(title)
    np.ravel(axes)[0].set_ylabel("relative error of y(t) - y(0)")
    np.ravel(axes)[0].legend(frameon=False, title=r"grey: $\propto \eta$")
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes


def plot_kernel_similarity_over_training(iterations: dict, measures: dict, threshold: float | None = None,
                                         axes=None):
    """Similarity measures of kernels over training, mean +- sd over pairs per init.

    iterations: schedule -> (S,); measures: row title -> {schedule: (P, 2, S)} (one row of
    panels per measure, one column per schedule).

    The figure is laid out tight before the axes are returned.
    """
    schedules = list(iterations)
    if axes is None:
        _, axes = plt.subplots(len(measures), len(schedules), figsize=(5.2 * len(schedules), 2.5 * len(measures)),
                               squeeze=False, sharex="col", sharey="row")
    for r, (title, by_schedule) in enumerate(measures.items()):
        for c, schedule in enumerate(schedules):
            ax = axes[r, c]
            for i, (init, color) in enumerate(INIT_COLORS.items()):
                _init_band(ax, iterations[schedule], by_schedule[schedule][:, i], color, f"{init} init")
            if threshold is not None:
                ax.axhline(threshold, color="0.5", ls=":", lw=1)
            ax.set_title(schedule)
            if c == 0:
                ax.set_ylabel(title)
            if r == len(measures) - 1:
                ax.set_xlabel("iteration")
    figure_legend_above(axes[0, 0])
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes


def plot_sharing_over_training(iterations: dict, shares: dict, categories, pattern_fractions: dict, axes=None):
    """Stacked share of each category of training patterns in the magnitude of the learned
    change, over training (mean over pairs); dotted: the categories' share of the patterns.

    iterations: schedule -> (S,); shares: schedule -> (P, 2, S, C); pattern_fractions:
    schedule -> (C,).

    The figure is laid out tight before the axes are returned.
    """
    schedules = list(iterations)
    if axes is None:
        _, axes = plt.subplots(2, len(schedules), figsize=(5.2 * len(schedules), 5.6), squeeze=False,
                               sharex="col", sharey=True)
    colors = plt.cm.Set2(np.arange(len(categories)))
    for c, schedule in enumerate(schedules):
        x = iterations[schedule][1:]
        for i, init in enumerate(INIT_COLORS):
            ax = axes[i, c]
            mean = np.nanmean(shares[schedule][:, i, 1:], axis=0)  # (S-1, C)
            ax.stackplot(x, mean.T, colors=colors, labels=categories, alpha=0.9)
            for level in np.cumsum(pattern_fractions[schedule])[:-1]:
                ax.axhline(level, color="k", ls=":", lw=0.8)
            ax.set_ylim(0, 1)
            ax.set_xlim(x[0], x[-1])
            ax.set_title(f"{schedule}, {init} init")
            if i == 1:
                ax.set_xlabel("iteration")
        axes[0, 0].set_ylabel("share of |learned change|")
        axes[1, 0].set_ylabel("share of |learned change|")
    axes[0, -1].legend(frameon=False, loc="upper right")
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes


def plot_rsa_over_training(iterations: dict, curves: dict, axes=None):
    """RSA between kernel-implied and hidden-layer task similarity over training, mean +- sd
    over pairs per init (colour) and kernel (line style).

    iterations: schedule -> (S,); curves: schedule -> {label: (P, 2, S)}.

    The figure is laid out tight before the axes are returned.
    """
    schedules = list(iterations)
    if axes is None:
        _, axes = plt.subplots(1, len(schedules), figsize=(5.2 * len(schedules), 3.2), squeeze=False, sharey=True)
    styles = ("-", "--", ":")
    for ax, schedule in zip(np.ravel(axes), schedules):
        for style, (label, values) in zip(styles, curves[schedule].items()):
            for i, (init, color) in enumerate(INIT_COLORS.items()):
                _init_band(ax, iterations[schedule][1:], values[:, i, 1:], color, f"{init} init, {label}", style)
        ax.axhline(0, color="0.6", lw=0.8)
        ax.set_title(schedule)
        ax.set_xlabel("iteration")
    np.ravel(axes)[0].set_ylabel("RSA (Spearman) with the hidden layer")
    figure_legend_above(np.ravel(axes)[0], ncols=2)
    np.asarray(axes).flat[0].figure.tight_layout()
    return axes


def plot_task_similarity_matrices(panels: dict, task_labels, ncols: int = 3, axes=None):
    """Task x task similarity matrices (centered cosine), one panel each: title -> (G, G)."""
    nrows = -(-len(panels) // ncols)
    if axes is None:
        _, axes = plt.subplots(nrows, ncols, figsize=(3.5 * ncols, 3.4 * nrows), squeeze=False, layout="constrained")
    for ax, (title, matrix) in zip(np.ravel(axes), panels.items()):
        image = ax.imshow(matrix, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
        ax.set_xticks(range(len(task_labels)), task_labels, rotation=90)
        ax.set_yticks(range(len(task_labels)), task_labels)
        ax.set_xlabel("task")
        ax.set_ylabel("task")
        ax.set_title(title)
    for ax in np.ravel(axes)[len(panels):]:
        ax.axis("off")
    plt.colorbar(image, ax=axes, fraction=0.02)
    return axes
