"""The live explorer's figure (notebook 11): one network's t=0 eNTK structure, its controls and a
short training curve, from a :func:`lib.analyses.explorer.explore` result (matplotlib, the book's style).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..analyses.explorer import CONTROLS, explore
from ..core.entk_variants import ENTK_VARIANTS
from .plot_representations import plot_entk_loadings
from .plot_style import PALETTE, legend_right, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style

VARIANT_COLORS = {"principled": PALETTE["bluish green"], "authors": PALETTE["reddish purple"]}
CONTROL_LABELS = {"epsilon": "ε", "output_error": "ε·σ'", "targets": "targets"}


def plot_explorer(result: dict, fig=None):
    """2 x 2 figure of an :func:`~lib.analyses.explorer.explore` result.

    Top: the leading eNTK vector of each output (columns) over the training patterns sorted by
    the input unit their task routes (rows), principled and authors' variant, silhouettes in the
    titles. Bottom left: share of each variant's loadings explained by each control (R², mean over
    outputs), the control's own silhouette (sil.) under its name. Bottom right: summed squared error on
    the training (dotted) and test (solid) sets over the run. Returns the figure."""
    fig = fig or plt.figure(figsize=(9.5, 7.4))
    axes = fig.subplots(2, 2, gridspec_kw={"height_ratios": [1.25, 1]})
    for ax, variant in zip(axes[0], ENTK_VARIANTS):
        name = f"entk_{variant}"
        plot_entk_loadings(result["loadings"][name], result["row_order"],
                           f"eNTK, {variant} (silhouette {result['silhouette'][name]:.2f})", ax)
    ax = axes[1, 0]
    x = np.arange(len(CONTROLS))
    for i, variant in enumerate(ENTK_VARIANTS):
        values = [result["share"][variant][c] for c in CONTROLS]
        ax.bar(x + (i - 0.5) * 0.38, values, width=0.36, color=VARIANT_COLORS[variant], label=f"eNTK, {variant}")
    ax.set_xticks(x, [f"{CONTROL_LABELS[c]}\nsil. {result['silhouette'][c]:.2f}" for c in CONTROLS])
    ax.set_ylim(0, 1.3)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_xlabel("control")
    ax.set_ylabel("share of eNTK loadings (R²)")
    ax.set_title("explained by each control")
    ax.legend(frameon=False, loc="upper center", ncols=2)
    ax = axes[1, 1]
    ax.plot(result["iterations"], result["loss_test"], color=PALETTE["black"], label="test")
    ax.plot(result["iterations"], result["loss_train"], color=PALETTE["black"], ls=":", label="training")
    ax.set_xlabel("iteration")
    ax.set_ylabel("summed squared error")
    ax.set_title(f"training, learning rate {result['learning_rate']:g}")
    ax.legend(frameon=False)
    fig.suptitle(f"g = {result['g']:g}, seed {result['seed']}, schedule {result['schedule']}, "
                 f"architecture {result['architecture']}")
    fig.tight_layout()
    return fig


def plot_scale_strip(results: dict[float, dict], fig=None):
    """What the explorer's scale slider changes, for the static page: one column per init scale g of
    ``results`` (g -> :func:`~lib.analyses.explorer.explore` result, one network): top, the
    principled variant's leading eNTK vectors (as the explorer's top-left panel, silhouette in the
    title); bottom (one panel across), each variant's silhouette and the share of its loadings
    explained by the loss sensitivities ε, against g. Returns the figure."""
    scales = sorted(results)
    fig = fig or plt.figure(figsize=(11.5, 6.2))
    grid = fig.add_gridspec(2, len(scales), height_ratios=[1.2, 1])
    for i, g in enumerate(scales):
        ax = fig.add_subplot(grid[0, i])
        result = results[g]
        plot_entk_loadings(result["loadings"]["entk_principled"], result["row_order"],
                           f"g = {g:g}\nsil. {result['silhouette']['entk_principled']:.2f}", ax)
        if i:
            ax.set_ylabel("")
            ax.set_yticklabels([])
    ax = fig.add_subplot(grid[1, :])
    for variant in ENTK_VARIANTS:
        color = VARIANT_COLORS[variant]
        ax.plot(scales, [results[g]["silhouette"][f"entk_{variant}"] for g in scales], "o-", color=color,
                label=f"silhouette, {variant}")
        ax.plot(scales, [results[g]["share"][variant]["epsilon"] for g in scales], "s--", color=color,
                label=f"share explained by ε, {variant}")
    ax.set_xscale("log")
    ax.set_xlabel("init scale g (both layers)")
    ax.set_ylabel("silhouette / share (R²)")
    legend_right(ax)
    fig.tight_layout()
    return fig


def show_explorer(g: float, seed: int, schedule: str, architecture: str, n_iterations: int = 300,
                  n_train: int = 200) -> None:
    """The widget callback of notebook 11: :func:`~lib.analyses.explorer.explore` at these
    arguments, drawn with :func:`plot_explorer` and shown. Returns None (``ipywidgets.interact``
    displays whatever its function returns)."""
    plot_explorer(explore(g, seed, schedule, architecture, n_iterations, n_train=n_train))
    plt.show()
