"""Figures of the kernel chapters (01 one step, 02 SMG, 03 ePNTK, 09 your own network): loss and
mode-strength curves, vectors against projections, error scaling, convergence and parity plots
(matplotlib only, the book's style).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .plot_style import PALETTE, legend_above, legend_right, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style


MODE_COLORS = (PALETTE["blue"], PALETTE["orange"], PALETTE["bluish green"], PALETTE["vermillion"])


def _mark_times(ax, marks):
    for t in marks:
        ax.axvline(t, color="0.4", ls=":", lw=1)


def plot_smg_loss(times: np.ndarray, loss: np.ndarray, marks=(), ax=None):
    """Fig 2: mean squared error over training (the test set is the training set)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(times, loss, color="k", label="train (= test)")
    _mark_times(ax, marks)
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("mean squared error")
    ax.legend(frameon=False)
    return ax


def plot_mode_strengths(times, simulated, closed_form, singular_values, ax=None, title=None):
    """Simulated mode strengths (solid) against SMG's closed form (dashed), one colour per mode."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    for a, s in enumerate(singular_values):
        color = MODE_COLORS[a % len(MODE_COLORS)]
        ax.plot(times, simulated[:, a], color=color, label=f"mode {a + 1} (s={s:g})")
        if closed_form is not None and a < closed_form.shape[1]:
            ax.plot(times, closed_form[:, a], color=color, ls="--", lw=1)
    if closed_form is not None:
        ax.plot([], [], color="0.3", ls="--", lw=1, label="closed form (dashed)")
    ax.set_xlabel("iteration")
    ax.set_ylabel("mode strength $u_a^T W v_a$")
    legend_right(ax)
    if title:
        ax.set_title(title)
    return ax


def plot_vector_vs_projection(vector, projection, title, ax=None):
    """Fig 3 / 12: a kernel singular vector over the training inputs against the inputs'
    projection on a target singular vector (scaled to the same norm, sign-aligned)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    scale = np.linalg.norm(vector) / np.linalg.norm(projection)
    sign = np.sign(vector @ projection) or 1.0
    ax.plot(sign * vector, color=PALETTE["blue"], lw=1, label="kernel singular vector")
    ax.plot(projection * scale, color=PALETTE["orange"], lw=1, alpha=0.8, label="input projection (scaled)")
    ax.set_xlabel("training input")
    ax.set_ylabel("entry (unit-norm vector)")
    legend_above(ax, title, ncol=2)
    return ax


def plot_mode_overlaps(times, overlaps, labels, marks=(), axes=None):
    """Fig 4: ``|cos|`` between kernel singular vectors (one panel each) and the target's modes."""
    if axes is None:
        _, axes = plt.subplots(len(labels), 1, figsize=(6, 2.4 * len(labels)), sharex=True)
    for k, (ax, label) in enumerate(zip(np.atleast_1d(axes), labels)):
        for a in range(overlaps.shape[2]):
            ax.plot(times, overlaps[:, k, a], color=MODE_COLORS[a % 4], label=f"mode {a + 1}")
        _mark_times(ax, marks)
        ax.set_ylabel(f"|cos|, {label}")
        ax.set_ylim(-0.02, 1.02)
    legend_above(np.atleast_1d(axes)[0], ncol=4)
    np.atleast_1d(axes)[-1].set_xlabel("iteration")
    return axes


def plot_curves_vs_loss(times, curves, curve_labels, loss, ylabel, marks=(), ax=None, log_curves=False):
    """Fig 5 / 13 / 14: kernel quantities over time (left axis) with the loss (right axis, grey)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    for a, label in enumerate(curve_labels):
        ax.plot(times, curves[:, a], color=MODE_COLORS[a % 4], label=label)
    if log_curves:
        ax.set_yscale("log")
    _mark_times(ax, marks)
    ax.set_xlabel("iteration")
    ax.set_ylabel(ylabel)
    twin = ax.twinx()
    twin.plot(times, loss, color="0.5", lw=2, alpha=0.6, label="loss")
    twin.set_yscale("log")
    twin.set_ylabel("loss (grey)")
    legend_above(ax, ncol=2)
    return ax


def plot_one_step_explainer(grid, x_train, y_train, y_start, y_next, y_final, influence, contributions, axes=None):
    """Fig 1: (a) predictions at t=0, t=1, final; (b) NTK influence functions K(x, x_n) at t=0;
    (c) their loss-weighted contributions -lr eps_n K(x, x_n); (d) y(t=1) vs the eNTK prediction.

    grid (G,), x_train/y_train (M,), y_* (G,), influence/contributions (G, M)."""
    if axes is None:
        _, axes = plt.subplots(2, 2, figsize=(10, 6.5))
    (a, b), (c, d) = axes
    colors = plt.cm.viridis(np.linspace(0, 0.95, len(x_train)))
    a.plot(grid, y_start, color="0.6", label="t = 0")
    a.plot(grid, y_next, color=PALETTE["blue"], label="t = 1")
    a.plot(grid, y_final, color="k", ls="--", label="final")
    a.scatter(x_train, y_train, c=colors, zorder=3, label="training data")
    legend_above(a, "(a) model predictions", ncol=4)
    for m, color in enumerate(colors):
        b.plot(grid, influence[:, m], color=color)
        c.plot(grid, contributions[:, m], color=color)
        b.axvline(x_train[m], color=color, lw=0.5, ls=":")
    b.set_title(r"(b) influence $K(x, x_n)$ at t = 0")
    c.set_title(r"(c) contributions $-\eta\,\epsilon_n K(x, x_n)$")
    predicted = y_start + contributions.sum(axis=1)
    d.plot(grid, y_next, color=PALETTE["blue"], lw=3, alpha=0.5, label="true t = 1")
    d.plot(grid, predicted, color="k", ls="--", lw=1, label="eNTK prediction")
    legend_above(d, "(d) one-step eNTK prediction", ncol=2)
    for ax, ylabel in zip((a, b, c, d), ("output y(x)", "K(x, x_n)", "contribution to y(x)", "output y(x)")):
        ax.set_xlabel("x")
        ax.set_ylabel(ylabel)
    return axes


def plot_error_scaling(learning_rates, errors, slope, ax=None):
    """Max one-step prediction error against the learning rate (log-log) with an lr^2 guide."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 3.5))
    lrs, errors = np.asarray(learning_rates), np.asarray(errors)
    ax.loglog(lrs, errors, "o-", label=f"eNTK one-step error (slope {slope:.2f})")
    ax.loglog(lrs, errors[0] * (lrs / lrs[0]) ** 2, "k:", label=r"$\propto \eta^2$")
    ax.set_xlabel(r"learning rate $\eta$")
    ax.set_ylabel("max |true - predicted| change")
    ax.legend(frameon=False)
    return ax


def plot_singular_vector_differences(panels: dict, axes=None, column_labels: dict | None = None):
    """Fig 11: heat maps of ``| |V_target| - |V_kernel| |`` (rows: entry, columns: kernel singular
    vector); ``column_labels[title]`` names the columns (e.g. the target mode each vector is matched to)."""
    if axes is None:
        _, axes = plt.subplots(2, 2, figsize=(8, 7), constrained_layout=True)
    vmax = max(float(np.max(v)) for v in panels.values())
    for ax, (title, diff) in zip(np.ravel(axes), panels.items()):
        image = ax.imshow(diff, cmap="magma_r", vmin=0, vmax=vmax)
        ax.set_title(title)
        names = (column_labels or {}).get(title, [str(k + 1) for k in range(diff.shape[1])])
        ax.set_xticks(range(diff.shape[1]), names)
        ax.set_yticks(range(diff.shape[0]), [str(k + 1) for k in range(diff.shape[0])])
        ax.set_xlabel("kernel vector → matched mode")
        ax.set_ylabel("entry")
        for (i, j), value in np.ndenumerate(diff):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center",
                    color="white" if value > 0.6 * vmax else "black")
    plt.colorbar(image, ax=axes, fraction=0.03)
    return axes


def plot_convergence(learning_rates, errors: dict, ax=None):
    """Relative errors against the learning rate (log-log) with an lr^1 guide."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4.8, 3.5))
    lrs = np.asarray(learning_rates)
    for label, values in errors.items():
        ax.loglog(lrs, values, "o-", label=label)
    first = np.asarray(next(iter(errors.values())))
    ax.loglog(lrs, first[0] * lrs / lrs[0], "k:", label=r"$\propto \eta$")
    ax.set_xlabel(r"learning rate $\eta$ ($\eta \times$ steps fixed)")
    ax.set_ylabel("relative error")
    ax.legend(frameon=False)
    return ax


def plot_parity(panels: dict, xlabel: str, ylabel: str, axes=None):
    """One scatter per panel title of ``(reference, ours)`` arrays (any equal shapes, flattened)
    against the identity line, with the largest difference relative to the largest reference
    entry in the legend."""
    if axes is None:
        _, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    for ax, (title, (reference, ours)) in zip(np.ravel(axes), panels.items()):
        reference, ours = np.ravel(reference), np.ravel(ours)
        lim = np.array([min(reference.min(), ours.min()), max(reference.max(), ours.max())])
        ax.plot(lim, lim, color="0.5", lw=1, ls="--", label="identity", zorder=1)
        relative = np.abs(ours - reference).max() / np.abs(reference).max()
        ax.scatter(reference, ours, s=10, color=PALETTE["blue"], label=f"entries (max rel. diff. {relative:.1e})",
                   zorder=2)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        legend_above(ax, title)
    return axes
