"""Chapter 05's laid-out figures (lib.book.plot_performance_chapter): the panels each figure holds,
their titles, and that each obeys the book's figure style."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib.book import plot_performance_chapter as figures  # noqa: E402
from tests.test_plot_style import legibility_problems  # noqa: E402

T = np.arange(0, 100, 10)
RNG = np.random.default_rng(0)


def losses(pairs: int = 3) -> np.ndarray:
    return RNG.random((pairs, 2, T.size)) + 0.1


def decaying(pairs: int = 3) -> np.ndarray:
    """(pairs, 2, T) losses halving every 20 iterations from about 10, as a run's early phase."""
    return 10 * (1 + 0.1 * RNG.random((pairs, 2, 1))) * 0.5 ** (T / 20)


def titles(fig) -> list[str]:
    return [ax.get_title() for ax in fig.axes if ax.axison]


@pytest.fixture(autouse=True)
def closed():
    yield
    plt.close("all")


def test_schedule_figure_is_one_figure_of_two_rows_per_phase_titled_by_the_schedule():
    fig = figures.schedule_figure(T, {"single": losses(), "finetune": losses()}, "LR")
    assert len(fig.axes) == 4 and plt.get_fignums() == [fig.number]
    assert [ax.get_title() for ax in fig.axes[:2]] == ["LR: single-task training", "LR: multitask fine-tuning"]
    assert not legibility_problems(fig)


def test_runs_figure_has_a_panel_per_pair():
    fig = figures.runs_figure(T, losses(7))
    assert titles(fig) == [f"pair {p}" for p in range(1, 8)] and not legibility_problems(fig)


def test_halving_figure_puts_two_panels_per_row_and_refuses_no_panels():
    curves = {f"{s}: {p}": (T, decaying()) for s in ("ET", "LR") for p in ("single-task", "fine-tuning")}
    fig = figures.halving_figure(curves)
    assert titles(fig) == list(curves) and tuple(fig.get_size_inches()) == (8.4, 6.4)
    assert not legibility_problems(fig)
    with pytest.raises(ValueError, match="curves must be a non-empty dict"):
        figures.halving_figure({})


def test_train_test_figure_has_one_row_per_schedule():
    runs = {name: {"iterations": T} for name in ("ET", "LR")}
    loss = {name: {"single": losses(), "finetune": losses()} for name in runs}
    fig = figures.train_test_figure(runs, loss, loss)
    assert len(fig.axes) == 4 and tuple(fig.get_size_inches()) == (11, 6.8)
    assert titles(fig) == ["ET: single-task training", "ET: multitask fine-tuning", "LR: single-task training",
                       "LR: multitask fine-tuning"]
    with pytest.raises(ValueError, match="runs must name at least one schedule"):
        figures.train_test_figure({}, {}, {})
