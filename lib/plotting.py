"""Figures, each drawn by one ``plot_*`` function from saved results (matplotlib only)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

INIT_COLORS = {"standard": "tab:blue", "large": "tab:orange"}


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
