"""Figures, each drawn by one ``plot_*`` function from saved results (matplotlib only).

Importing this module applies the book's figure style (:func:`lib.book.plot_style.use_book_style`):
font sizes, the colour-blind-safe palette and the image resolution come from there.
"""

from __future__ import annotations

import warnings

import matplotlib.pyplot as plt
import numpy as np

from ..analyses.stats import relative_to_start
from .plot_style import PALETTE, use_book_style

use_book_style()

INIT_COLORS = {"standard": PALETTE["blue"], "large": PALETTE["orange"]}


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
    ax.legend(frameon=False)
    return ax


def plot_entk_loadings(loadings: np.ndarray, order: np.ndarray, title: str, ax=None):
    """Heat map of (N, K) leading-vector loadings, rows reordered by ``order``."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    lim = np.abs(loadings).max()
    image = ax.imshow(loadings[order], aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    ax.set_xlabel("output unit")
    ax.set_ylabel("training pattern (sorted)")
    ax.set_title(title)
    plt.colorbar(image, ax=ax, fraction=0.05)
    return ax


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
    ax.legend(frameon=False)
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
    ax.set_title(title)
    ax.legend(frameon=False)
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
    np.atleast_1d(axes)[0].legend(frameon=False, ncol=4)
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
    ax.legend(frameon=False, loc="center right")
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
    a.set_title("(a) model predictions")
    a.legend(frameon=False)
    for m, color in enumerate(colors):
        b.plot(grid, influence[:, m], color=color)
        c.plot(grid, contributions[:, m], color=color)
        b.axvline(x_train[m], color=color, lw=0.5, ls=":")
    b.set_title(r"(b) influence $K(x, x_n)$ at t = 0")
    c.set_title(r"(c) contributions $-\eta\,\epsilon_n K(x, x_n)$")
    predicted = y_start + contributions.sum(axis=1)
    d.plot(grid, y_next, color=PALETTE["blue"], lw=3, alpha=0.5, label="true t = 1")
    d.plot(grid, predicted, color="k", ls="--", lw=1, label="eNTK prediction")
    d.set_title("(d) one-step eNTK prediction")
    d.legend(frameon=False)
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
        top.set_title(f"{title}{PHASE_TITLES.get(phase, phase)}")
        top.set_ylabel("test loss (summed sq. error)")
        bottom.set_ylabel("large − standard\n(> 0: standard better)")
        bottom.set_xlabel("iteration")
        top.legend(frameon=False)
        bottom.legend(frameon=False)
    return axes


def plot_relative_to_start(curves: dict, axes=None):
    """Fine-tuning progress relative to its own start: mean +- sd of loss(t) / loss(0) per init.

    curves: panel title -> (iterations (S,), losses (P, 2, S))."""
    if axes is None:
        _, axes = plt.subplots(1, len(curves), figsize=(3.6 * len(curves), 3.4))
    for ax, (title, (iterations, losses)) in zip(np.atleast_1d(axes), curves.items()):
        relative = relative_to_start(losses)
        for i, (init, color) in enumerate(INIT_COLORS.items()):
            mean, sd = relative[:, i].mean(axis=0), relative[:, i].std(axis=0)
            ax.plot(iterations, mean, color=color, label=f"{init} init")
            ax.fill_between(iterations, mean - sd, mean + sd, color=color, alpha=0.2)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.set_ylabel("test loss / its value at iteration 0")
        ax.legend(frameon=False)
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
        ax.set_title(f"{title}{PHASE_TITLES.get(phase, phase)}")
        ax.set_xlabel("iteration")
        ax.set_ylabel("summed squared error")
        ax.legend(frameon=False)
    return axes


def plot_silhouette_scatter(silhouette: np.ndarray, outcome: np.ndarray, r: float, xlabel: str, ylabel: str,
                            ax=None, markers=None, marker_labels=None):
    """Silhouette (x) against an outcome (y) per network, coloured by init; ``markers`` (P,)
    optional per-pair marker group (e.g. schedule), named in the legend by ``marker_labels``
    (group -> name)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4.2, 3.6))
    shapes = np.asarray(markers) if markers is not None else np.zeros(len(silhouette), dtype=int)
    symbols = "os^D"
    for i, (init, color) in enumerate(INIT_COLORS.items()):
        for g in np.unique(shapes):
            rows = shapes == g
            ax.scatter(silhouette[rows, i], outcome[rows, i], color=color, marker=symbols[int(g) % 4], s=22,
                       label=f"{init} init" if g == np.unique(shapes)[0] else None)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(f"r = {r:.3f}")
    for g in np.unique(shapes) if marker_labels else ():
        ax.scatter([], [], facecolor="none", edgecolor="0.3", marker=symbols[int(g) % 4], s=22, label=marker_labels[g])
    ax.legend(frameon=False)
    return ax


def plot_network_diagram(n_in_pools: int, n_out_pools: int, n_features: int, axes=None):
    """Fig 6: (A) the network: stimulus pools and task units feed the hidden layer; hidden and
    task units feed the output pools. (B) the task routes: task k maps input pool
    k // n_out_pools to output pool k % n_out_pools."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10.5, 4.2), gridspec_kw={"width_ratios": [1.4, 1]})
    a, b = axes
    n_tasks = n_in_pools * n_out_pools

    def units(ax, xs, y, color, size=60):
        ax.scatter(xs, np.full(len(xs), y), s=size, color=color, edgecolor="k", zorder=3)

    stim_x = np.concatenate([p * (n_features + 1) + np.arange(n_features) for p in range(n_in_pools)])
    task_x = stim_x.max() + 2 + np.arange(n_tasks) * 0.6
    hidden_x = np.linspace(stim_x.min() + 1, task_x.max() - 1, 14)
    out_x = np.concatenate([p * (n_features + 1) + np.arange(n_features) for p in range(n_out_pools)])
    out_x = out_x + (hidden_x.mean() - out_x.mean())
    for x0 in np.concatenate([stim_x, task_x]):
        for x1 in hidden_x[::3]:
            a.plot([x0, x1], [0, 1], color="0.85", lw=0.5, zorder=1)
    for x0 in np.concatenate([hidden_x[::3], task_x]):
        for x1 in out_x:
            a.plot([x0, x1], [1 if x0 in hidden_x else 0, 2], color="0.85", lw=0.5, zorder=1)
    units(a, stim_x, 0, "tab:green")
    units(a, task_x, 0, "tab:purple", 40)
    units(a, hidden_x, 1, "0.7")
    units(a, out_x, 2, "tab:red")
    a.text(stim_x.mean(), -0.35, f"stimulus: {n_in_pools} pools x {n_features} features", ha="center")
    a.text(task_x.mean(), -0.35, f"task: {n_tasks} units", ha="center")
    a.text(hidden_x.max() + 1, 1, "hidden (200 sigmoid units)", va="center")
    a.text(out_x.mean(), 2.3, f"output: {n_out_pools} pools x {n_features} units", ha="center")
    a.set_title("(A) network: biases fixed at -2; task units also feed the output")
    a.axis("off")
    a.set_ylim(-0.6, 2.6)
    in_pos = np.arange(n_in_pools) * 1.0
    out_pos = np.arange(n_out_pools) * (n_in_pools - 1) / max(n_out_pools - 1, 1)
    for k in range(n_tasks):
        i, o = k // n_out_pools, k % n_out_pools
        b.plot([in_pos[i], out_pos[o]], [0, 1], color=plt.cm.tab20(k % 20), lw=2)
        b.text(0.7 * in_pos[i] + 0.3 * out_pos[o], 0.3, str(k), ha="center",
               bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"))
    b.scatter(in_pos, np.zeros(n_in_pools), s=300, color="tab:green", edgecolor="k", zorder=3)
    b.scatter(out_pos, np.ones(n_out_pools), s=300, color="tab:red", edgecolor="k", zorder=3)
    b.text(in_pos.mean(), -0.2, "input pools", ha="center")
    b.text(out_pos.mean(), 1.15, "output pools", ha="center")
    b.set_title(f"(B) the {n_tasks} tasks: input pool -> output pool")
    b.axis("off")
    b.set_ylim(-0.35, 1.3)
    return axes


MPHATE_TITLES = {"task": "task", "input": "input unit", "task_by_input": "task x input", "output": "output unit"}


def plot_mphate_grid(embeddings: dict, final_labels: dict, inset: tuple | None = None, axes=None):
    """Fig 7 / 20: M-PHATE embeddings (S, G, 2) per "<init>/<grouping>", coloured by training
    progress (dark early, light late), each group's trajectory joined by a thin line; the final
    positions are outlined with a marker per ``final_labels[grouping]`` (G,) class.
    ``inset``: (init, grouping, snapshot index, labels) drawn as a zoom of one slice."""
    inits = ["standard", "large"]
    groupings = list(MPHATE_TITLES)
    if axes is None:
        _, axes = plt.subplots(2, 4, figsize=(10.5, 5.5))
    markers = "osD^v<>p"
    for r, init in enumerate(inits):
        for c, grouping in enumerate(groupings):
            ax = axes[r, c]
            emb = embeddings[f"{init}/{grouping}"]
            n_slices = emb.shape[0]
            for g in range(emb.shape[1]):
                ax.plot(emb[:, g, 0], emb[:, g, 1], color=PALETTE["blue"], lw=0.3, alpha=0.5)
            progress = np.repeat(np.linspace(0, 100, n_slices), emb.shape[1])
            image = ax.scatter(emb[:, :, 0].ravel(), emb[:, :, 1].ravel(), c=progress, cmap="viridis", s=6)
            for cls in np.unique(final_labels[grouping]):
                rows = final_labels[grouping] == cls
                ax.scatter(emb[-1, rows, 0], emb[-1, rows, 1], marker=markers[int(cls) % len(markers)],
                           facecolor="none", edgecolor="k", s=45, lw=0.8)
            ax.set_xticks([])
            ax.set_yticks([])
            if r == 0:
                ax.set_title(MPHATE_TITLES[grouping])
            if c == 0:
                ax.set_ylabel(f"{init} init\nM-PHATE 2")
            if r == 1:
                ax.set_xlabel("M-PHATE 1")
    plt.colorbar(image, ax=axes, fraction=0.02, label="training %")
    if inset is not None:
        init, grouping, index, labels = inset
        host = axes[inits.index(init), groupings.index(grouping)]
        zoom = host.inset_axes([0.62, 0.62, 0.36, 0.36])
        points = embeddings[f"{init}/{grouping}"][index]
        for cls in np.unique(labels):
            rows = labels == cls
            zoom.scatter(points[rows, 0], points[rows, 1], marker=markers[int(cls) % len(markers)], s=14)
        zoom.set_xticks([])
        zoom.set_yticks([])
        zoom.set_title(f"slice {index}")
    return axes


def plot_loading_heatmaps(panels: dict, n_features: int, axes=None):
    """Fig 15 / 16: loadings (N patterns, K outputs) per panel title, patterns already sorted
    (x axis), output units grouped by pool (y axis)."""
    if axes is None:
        _, axes = plt.subplots(len(panels), 1, figsize=(9, 1.9 * len(panels)), squeeze=False, sharex=True)
    for ax, (title, loadings) in zip(np.ravel(axes), panels.items()):
        lim = np.abs(loadings).max()
        ax.imshow(loadings.T, aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
        for y in range(n_features, loadings.shape[1], n_features):
            ax.axhline(y - 0.5, color="k", lw=0.6)
        ax.set_title(title)
        ax.set_ylabel("output unit")
        pools = range(loadings.shape[1] // n_features)
        ax.set_yticks([p * n_features + (n_features - 1) / 2 for p in pools], [f"pool {p}" for p in pools])
    np.ravel(axes)[-1].set_xlabel("training pattern (sorted)")
    return axes


def plot_group_means(panels: dict, group_labels: dict, n_features: int, axes=None):
    """Fig 8: mean loading of each output unit (rows, grouped by pool) per group of patterns
    (columns), one panel per title; ``group_labels[title]`` names the columns."""
    if axes is None:
        _, axes = plt.subplots(2, 2, figsize=(9.5, 7.5))
    for ax, (title, means) in zip(np.ravel(axes), panels.items()):
        lim = np.abs(means).max()
        image = ax.imshow(means, aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim)
        for y in range(n_features, means.shape[0], n_features):
            ax.axhline(y - 0.5, color="k", lw=0.6)
        ax.set_xticks(range(means.shape[1]), group_labels[title], rotation=90)
        ax.set_yticks(range(means.shape[0]), [f"pool {k // n_features}, m={k % n_features}"
                                              for k in range(means.shape[0])])
        ax.set_title(title)
        ax.set_xlabel("pattern group")
        ax.set_ylabel("output unit")
        plt.colorbar(image, ax=ax, fraction=0.04)
    return axes


def plot_ari(iterations, curves: dict, ncols: int | None = None, axes=None):
    """Fig 9: mean +- sd ARI over training per comparison (panel), standard vs large init, on a
    symlog iteration axis (linear up to the first snapshot, then logarithmic) so that the early
    transient is visible; y limits from the data (ARI can be negative: below chance).

    curves: title -> (P, 2, S)."""
    ncols = ncols or len(curves)
    nrows = -(-len(curves) // ncols)
    if axes is None:
        _, axes = plt.subplots(nrows, ncols, figsize=(3.5 * ncols, 3.3 * nrows), sharey=True, squeeze=False)
    flat = np.ravel(axes)
    low = min(float((v.mean(axis=0) - v.std(axis=0)).min()) for v in curves.values())
    for ax, (title, values) in zip(flat, curves.items()):
        for i, (init, color) in enumerate(INIT_COLORS.items()):
            mean, sd = values[:, i].mean(axis=0), values[:, i].std(axis=0)
            ax.plot(iterations, mean, color=color, label=f"{init} init")
            ax.fill_between(iterations, mean - sd, mean + sd, color=color, alpha=0.2)
        ax.axhline(0, color="0.3", lw=0.8, ls=":")
        ax.set_xscale("symlog", linthresh=max(float(iterations[1]), 1.0))
        ax.set_title(title)
        ax.set_xlabel("iteration (symlog)")
        ax.set_ylim(min(low, 0.0) - 0.05, 1.05)
    for ax in flat[len(curves):]:
        ax.axis("off")
    for row in np.asarray(axes).reshape(nrows, ncols):
        row[0].set_ylabel("adjusted Rand index")
    flat[0].legend(frameon=False)
    return axes


def plot_control_structure(shares: dict, silhouettes: dict, axes=None):
    """What the t=0 eNTK's leading vectors share with kernel-free controls, per init.

    Left: share of the variance of the eNTK loadings explained by each control (mean over
    outputs; one dot per network, bar = mean over pairs). Right: silhouette of each
    predictor's own loadings (one dot per network).

    shares: control name -> (P, 2); silhouettes: predictor name -> (P, 2)."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10.5, 3.8), gridspec_kw={"width_ratios": [1, 1.4]})
    for ax, data, ylabel, xlabel in ((axes[0], shares, "share of eNTK loading variance (R²)", "control"),
                                     (axes[1], silhouettes, "silhouette (12 clusters)", "predictor")):
        names = list(data)
        for i, (init, color) in enumerate(INIT_COLORS.items()):
            x = np.arange(len(names)) + (i - 0.5) * 0.36
            means = [np.nanmean(data[n][:, i]) for n in names]
            ax.bar(x, means, width=0.34, color=color, alpha=0.35, label=f"{init} init")
            for j, n in enumerate(names):
                ax.scatter(np.full(len(data[n]), x[j]), data[n][:, i], color=color, s=9, zorder=3)
        ax.set_xticks(np.arange(len(names)), names, rotation=20, ha="right")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_ylim(min(0.0, min(float(np.nanmin(v)) for v in data.values())) - 0.02, 1.05)
    axes[0].legend(frameon=False)
    return axes


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
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.legend(frameon=False, loc="upper left")
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
            q = np.array([np.nanpercentile(v, [25, 50, 75]) for v in values])
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
    axes[0].legend(frameon=False)
    return axes


def plot_win_counts(comparisons: dict, ax=None):
    """Stacked bars: pairs won by standard and by large init in each phase, per schedule.

    Args:
        comparisons: schedule -> :func:`lib.analyses.predictors.binary_comparison` dict.
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


# --- the eNTK over training (chapter 08) ---------------------------------------------------------
def _init_band(ax, x, values, color, label, ls="-"):
    """Mean +- sd over the first axis (pairs) of (P, S) values (nan where undefined, e.g. at t=0)."""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-nan columns: nothing to average
        mean, sd = np.nanmean(values, axis=0), np.nanstd(values, axis=0)
    ax.plot(x, mean, color=color, ls=ls, label=label)
    ax.fill_between(x, mean - sd, mean + sd, color=color, alpha=0.15, lw=0)


def plot_reconstruction_errors(panels: dict, axes=None):
    """Relative error of the ePNTK reconstruction of y(t) - y(0) over training (log scale).

    panels: title -> (iterations (S,), {label: (2 inits, S)}); colour = init, line style = label."""
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
    np.ravel(axes)[0].legend(frameon=False)
    return axes


def plot_epntk_convergence(panels: dict, axes=None):
    """Reconstruction error against the learning rate at fixed lr x steps (log-log), lr^1 guides.

    panels: title -> {label: (learning rates (H,), errors (H,))}."""
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
    return axes


def plot_kernel_similarity_over_training(iterations: dict, measures: dict, threshold: float | None = None,
                                         axes=None):
    """Similarity measures of kernels over training, mean +- sd over pairs per init.

    iterations: schedule -> (S,); measures: row title -> {schedule: (P, 2, S)} (one row of
    panels per measure, one column per schedule)."""
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
    axes[0, 0].legend(frameon=False)
    return axes


def plot_sharing_over_training(iterations: dict, shares: dict, categories, pattern_fractions: dict, axes=None):
    """Stacked share of each category of training patterns in the magnitude of the learned
    change, over training (mean over pairs); dotted: the categories' share of the patterns.

    iterations: schedule -> (S,); shares: schedule -> (P, 2, S, C); pattern_fractions:
    schedule -> (C,)."""
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
    return axes


def plot_rsa_over_training(iterations: dict, curves: dict, axes=None):
    """RSA between kernel-implied and hidden-layer task similarity over training, mean +- sd
    over pairs per init (colour) and kernel (line style).

    iterations: schedule -> (S,); curves: schedule -> {label: (P, 2, S)}."""
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
    np.ravel(axes)[0].legend(frameon=False)
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
