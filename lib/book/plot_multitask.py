"""Chapter 04's figures, laid out (the book's style): each draws panels of
:mod:`lib.book.plot_representations` from :mod:`lib.book.representation_blocks`' results into the current
figure, with the other architecture's name above the swapped architecture's, and returns it; the notebook
shows it. :func:`show_swapped_figure` shows a swapped-architecture figure, or says that it was not computed.

Book layer. Checked in ``tests/test_plot_multitask.py``.
"""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt

from ..core.tasks import TaskEnvironment
from . import plot_representations
from .representation_blocks import InitialStructure, Swapped, first_pair_panels, fig8_group_means, titled_curves

SWAPPED_NOT_COMPUTED = "Paper Fig 20 is not computed in this run (`show_swapped_architecture` is False)."


def plot_network(env: TaskEnvironment):
    """Paper Fig 6: the network and its tasks."""
    plot_representations.plot_network_diagram(env.n_in_pools, env.n_out_pools, env.n_features)
    plt.tight_layout()
    return plt.gcf()


def plot_sorted_loadings(env: TaskEnvironment, t0: InitialStructure, title: str | None = None):
    """Paper Fig 15: the first pair's leading loadings sorted by routed input unit and by task
    (:func:`lib.book.representation_blocks.first_pair_panels`), under ``title`` if given."""
    plot_representations.plot_loading_heatmaps(first_pair_panels(env, t0), env.n_features)
    if title:
        plt.suptitle(title, y=1.0)
    plt.tight_layout()
    return plt.gcf()


def plot_oriented_means(env: TaskEnvironment, t0: InitialStructure):
    """Paper Fig 8: the oriented group means over all pairs
    (:func:`lib.book.representation_blocks.fig8_group_means`)."""
    means, names = fig8_group_means(env, t0)
    plot_representations.plot_group_means(means, names, env.n_features)
    plt.tight_layout()
    return plt.gcf()


def plot_unsorted_loadings(env: TaskEnvironment, t0: InitialStructure):
    """Paper Fig 16: standard init's loadings of the first pair in the order the patterns were drawn."""
    plot_representations.plot_loading_heatmaps({"standard init, unsorted": t0.loadings[0, 0]}, env.n_features)
    plt.tight_layout()
    return plt.gcf()


def plot_controls(panels: tuple[dict, dict]):
    """The shares the controls explain and the silhouettes
    (:func:`lib.book.representation_blocks.control_panels`)."""
    plot_representations.plot_control_structure(*panels)
    plt.tight_layout()
    return plt.gcf()


def plot_ari_panels(iterations, ari: dict, title: str | None = None):
    """Paper Fig 9: the ARI curves of :data:`lib.book.representation_blocks.ARI_TITLES` in three columns,
    under ``title`` if given."""
    plot_representations.plot_ari(iterations, titled_curves(ari), ncols=3)
    if title:
        plt.suptitle(title, y=1.0)
    plt.tight_layout()
    return plt.gcf()


def plot_swapped_mphate(swapped: Swapped):
    """Paper Fig 20: M-PHATE of the other architecture's first pair."""
    plot_representations.plot_mphate_grid(swapped.hidden.embeddings, swapped.hidden.final_labels)
    plt.suptitle(f"{swapped.architecture} architecture", y=0.98)
    return plt.gcf()


def plot_swapped_ari(swapped: Swapped):
    """Paper Fig 20, extended: the other architecture's ARI curves."""
    return plot_ari_panels(swapped.hidden.iterations, swapped.ari, f"{swapped.architecture} architecture")


def plot_swapped_loadings(swapped: Swapped):
    """Paper Fig 20, extended: the other architecture's sorted t=0 loadings."""
    return plot_sorted_loadings(swapped.env, swapped.t0, f"{swapped.architecture} architecture")


def show_swapped_figure(draw: Callable[[Swapped], object], swapped: Swapped | None) -> None:
    """Show ``draw(swapped)``, or :data:`SWAPPED_NOT_COMPUTED` when ``swapped`` is None."""
    if swapped is None:
        from IPython.display import Markdown, display

        display(Markdown(SWAPPED_NOT_COMPUTED))
        return
    draw(swapped)
    plt.show()
