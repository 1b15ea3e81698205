"""Chapter 02's two-panel figures (lib.book.plot_smg) on a short run of the deep linear network."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from lib.book import plot_smg, smg_sections  # noqa: E402

TIMES = (100, 200)


@pytest.fixture(scope="module")
def runs():
    return smg_sections.smg_runs(0, 0.2, 300, 10, TIMES)


def titles(fig) -> list[str]:
    return [ax.get_title() for ax in fig.axes]


def test_mode_strength_panels_show_the_twin_left_and_the_random_init_right(runs):
    fig = plot_smg.plot_mode_strength_panels(runs)
    assert titles(fig) == ["aligned twin", "random small init (paper)"]
    assert len(fig.axes[0].get_lines()) == 2 * 3 + 1 + 1  # per mode 4 solid, closed form of 3 dashed, the key
    plt.close(fig)


def test_data_view_panels_name_each_vector_time_and_correlation(runs):
    data = smg_sections.data_view(runs, TIMES)
    fig = plot_smg.plot_data_view_panels(runs, data, TIMES)
    assert titles(fig) == [f"t=100: 1st vector vs mode 1, |r|={data.table.iloc[0, 0]:.3f}",
                           f"t=200: 2nd vector vs mode 2, |r|={data.table.iloc[3, 1]:.3f}"]
    plt.close(fig)


def test_ntk_panels_draw_the_overlaps_and_the_singular_values_on_a_log_axis(runs):
    fig = plot_smg.plot_ntk_panels(runs, smg_sections.ntk_view(runs), TIMES)
    left, right, _, _ = fig.axes  # then each panel's twin axis for the loss
    assert left.get_ylabel() == "|cos| primary NTK vector" and right.get_yscale() == "log"
    assert [line.get_label() for line in right.get_lines()[:3]] == [f"singular value {k}" for k in (1, 2, 3)]
    plt.close(fig)
