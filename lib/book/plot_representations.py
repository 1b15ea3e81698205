"""Figures of the representation chapters (04 multitask representations, 06 correlations): the
network diagram, eNTK loadings and their group means, M-PHATE embeddings, ARI curves, the
controls' structure and silhouette scatter plots (matplotlib only, the book's style).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .plot_style import INIT_COLORS, PALETTE, figure_legend_above, legend_above, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style


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
    for g in np.unique(shapes) if marker_labels else ():
        ax.scatter([], [], facecolor="none", edgecolor="0.3", marker=symbols[int(g) % 4], s=22, label=marker_labels[g])
    legend_above(ax, f"r = {r:.3f}", ncol=2)
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
    figure_legend_above(axes[0])
    return axes
