"""Chapter 04's laid-out figures (lib.book.plot_multitask) on a small t=0 structure and hand-built curves."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib.analyses import controls  # noqa: E402
from lib.book import plot_multitask, representation_blocks as blocks  # noqa: E402
from lib.core.tasks import TaskEnvironment  # noqa: E402

ENV = TaskEnvironment()


@pytest.fixture(scope="module")
def t0():
    structure = controls.run_initial_structure(ENV, [0, 1], n_hidden=20, n_train=120, n_test=120,
                                               predictors=("entk_authors", "epsilon", "output_error"))
    return blocks.InitialStructure([0, 1], structure, structure["loadings/entk_authors"])


def panel_titles(fig) -> list[str]:
    return [ax.get_title() for ax in fig.axes if ax.get_title()]


def test_loadings_figures_title_their_panels_and_the_swapped_architecture(t0):
    fig = plot_multitask.plot_sorted_loadings(ENV, t0, "3x4 architecture")
    assert fig._suptitle.get_text() == "3x4 architecture"
    assert "standard init, sorted by input unit" in panel_titles(fig)
    plt.close("all")
    fig = plot_multitask.plot_unsorted_loadings(ENV, t0)
    assert panel_titles(fig) == ["standard init, unsorted"] and fig._suptitle is None
    plt.close("all")
    fig = plot_multitask.plot_oriented_means(ENV, t0)
    assert panel_titles(fig)[:2] == ["standard init, by input unit", "standard init, by task"]
    plt.close("all")


def test_ari_panels_follow_the_titles_in_three_columns():
    curve = np.random.default_rng(0).uniform(-0.1, 1, (2, 2, 5))
    fig = plot_multitask.plot_ari_panels(np.arange(5) * 10, dict.fromkeys(blocks.ARI_TITLES, curve))
    assert panel_titles(fig) == list(blocks.ARI_TITLES.values())
    plt.close("all")


def test_a_swapped_figure_is_drawn_or_said_not_computed(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj.data))
    plot_multitask.show_swapped_figure(lambda s: shown.append(("drawn", s)), None)
    plot_multitask.show_swapped_figure(lambda s: shown.append(("drawn", s)), "swapped")
    assert shown == [plot_multitask.SWAPPED_NOT_COMPUTED, ("drawn", "swapped")]
