"""The book's figure style is applied by every ``lib.book.plot_*`` module and every ``plot_*`` figure obeys it:
no text below the minimum font size, a label on every axis that shows tick labels, no legend over the data."""

import inspect

import matplotlib
import matplotlib.collections

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib.book import plot_style
from lib.book import (plot_attribution, plot_continuum, plot_entk_over_training, plot_explorer,  # noqa: E402
                      plot_horizon, plot_performance, plot_representations, plot_rival_theories, plot_theory)

FIGURE_MODULES = (plot_theory, plot_performance, plot_representations, plot_continuum, plot_entk_over_training,
                  plot_explorer, plot_horizon, plot_rival_theories, plot_attribution)
# figures of those modules that their own tests draw
EXERCISED_ELSEWHERE = {"plot_explorer": "test_explorer.py", "plot_scale_strip": "test_explorer.py",
                       "plot_early_halving": "test_speed_measure.py", "plot_within_grid": "test_within_scale.py",
                       "plot_per_scale_scatter": "test_within_scale.py", "plot_cancellation": "test_attribution.py",
                       "plot_signed_attribution": "test_attribution.py",
                       "plot_crossing_thresholds": "test_attribution.py"}

RNG = np.random.default_rng(0)
T = np.arange(0, 100, 10)


def _figures():
    """Every plot_* function of the FIGURE_MODULES but those EXERCISED_ELSEWHERE, on small synthetic inputs."""
    r = RNG.random
    return {
        "plot_pair_losses": lambda: plot_performance.plot_pair_losses(T, r((2, 2, 10)) + 0.1, r((2, 2, 10)) + 0.1),
        "plot_entk_loadings": lambda: plot_representations.plot_entk_loadings(r((12, 3)) - 0.5, np.arange(12), "t"),
        "plot_smg_loss": lambda: plot_theory.plot_smg_loss(T, r(10) + 0.1, marks=(20,)),
        "plot_mode_strengths": lambda: plot_theory.plot_mode_strengths(T, r((10, 3)), r((10, 3)), [3.0, 2.0, 1.0]),
        "plot_vector_vs_projection": lambda: plot_theory.plot_vector_vs_projection(r(8), r(8), "t"),
        "plot_mode_overlaps": lambda: plot_theory.plot_mode_overlaps(T, r((10, 2, 3)), ["a", "b"], marks=(20,)),
        "plot_curves_vs_loss": lambda: plot_theory.plot_curves_vs_loss(T, r((10, 2)), ["a", "b"], r(10) + 0.1, "y"),
        "plot_one_step_explainer": lambda: plot_theory.plot_one_step_explainer(
            np.linspace(0, 1, 20), r(4), r(4), r(20), r(20), r(20), r((20, 4)), r((20, 4))),
        "plot_error_scaling": lambda: plot_theory.plot_error_scaling([0.1, 0.2, 0.4], [1e-3, 4e-3, 1.6e-2], 2.0),
        "plot_singular_vector_differences": lambda: plot_theory.plot_singular_vector_differences(
            {f"p{i}": r((4, 3)) for i in range(4)}),
        "plot_convergence": lambda: plot_theory.plot_convergence([0.1, 0.2], {"a": [0.01, 0.02]}),
        "plot_phase_losses": lambda: plot_performance.plot_phase_losses(T, {"single": r((3, 2, 10)) + 0.1,
                                                                           "finetune": r((3, 2, 10)) + 0.1}),
        "plot_individual_runs": lambda: plot_performance.plot_individual_runs(T, r((7, 2, 10)) + 0.1),
        "plot_train_test": lambda: plot_performance.plot_train_test(T, {"single": r((3, 2, 10)) + 0.1},
                                                                    {"single": r((3, 2, 10)) + 0.1}),
        "plot_silhouette_scatter": lambda: plot_representations.plot_silhouette_scatter(
            r((6, 2)), r((6, 2)), 0.5, "x", "y", markers=np.arange(6) % 2, marker_labels={0: "ET", 1: "LR"}),
        "plot_network_diagram": lambda: plot_representations.plot_network_diagram(4, 3, 3),
        "plot_mphate_grid": lambda: plot_representations.plot_mphate_grid(
            {f"{i}/{g}": r((5, 6, 2)) for i in ("standard", "large") for g in plot_representations.MPHATE_TITLES},
            {g: np.arange(6) % 3 for g in plot_representations.MPHATE_TITLES},
            inset=("large", "task", 2, np.arange(6) % 2)),
        "plot_loading_heatmaps": lambda: plot_representations.plot_loading_heatmaps(
            {"a": r((12, 9)), "b": r((12, 9))}, 3),
        "plot_group_means": lambda: plot_representations.plot_group_means(
            {f"p{i}": r((9, 4)) for i in range(4)}, {f"p{i}": list("abcd") for i in range(4)}, 3),
        "plot_parity": lambda: plot_theory.plot_parity({"a": (r(20), r(20)), "b": (r((3, 4)), r((3, 4)))}, "x", "y"),
        "plot_ari": lambda: plot_representations.plot_ari(T, {"a": r((3, 2, 10)), "b": r((3, 2, 10))}),
        "plot_reconstruction_errors": lambda: plot_entk_over_training.plot_reconstruction_errors(
            {"ET": (T, {"train": r((2, 10)) + 0.01, "test": r((2, 10)) + 0.01}),
             "LR": (T, {"train": r((2, 10)) + 0.01})}),
        "plot_epntk_convergence": lambda: plot_entk_over_training.plot_epntk_convergence(
            {"ET": {"standard, train": (np.array([0.1, 0.2, 0.4]), np.array([1e-3, 2e-3, 4e-3])),
                    "large, test": (np.array([0.1, 0.2, 0.4]), np.array([2e-3, 4e-3, 8e-3]))}}),
        "plot_kernel_similarity_over_training": lambda: plot_entk_over_training.plot_kernel_similarity_over_training(
            {"ET": T, "LR": T}, {"alignment\neNTK(t), eNTK(0)": {"ET": r((3, 2, 10)), "LR": r((3, 2, 10))},
                                 "vector overlap\neNTK(t), final ePNTK": {"ET": r((3, 2, 10)), "LR": r((3, 2, 10))}},
            0.5),
        "plot_sharing_over_training": lambda: plot_entk_over_training.plot_sharing_over_training(
            {"ET": T, "LR": T}, {s: r((3, 2, 10, 4)) / 2 for s in ("ET", "LR")}, ["same task", "input", "output", "neither"],
            {s: np.full(4, 0.25) for s in ("ET", "LR")}),
        "plot_rsa_over_training": lambda: plot_entk_over_training.plot_rsa_over_training(
            {"ET": T, "LR": T}, {s: {"final ePNTK": r((3, 2, 10)), "t=0 eNTK": r((3, 2, 10))} for s in ("ET", "LR")}),
        "plot_task_similarity_matrices": lambda: plot_entk_over_training.plot_task_similarity_matrices(
            {f"p{i}": r((12, 12)) * 2 - 1 for i in range(6)}, [f"{k} ({k % 3}->{k // 3 % 3})" for k in range(12)]),
        "plot_control_structure": lambda: plot_representations.plot_control_structure(
            {"eps": r((3, 2)), "targets": r((3, 2))}, {"eNTK": r((3, 2)), "eps": r((3, 2))}),
        "plot_versus_scale": lambda: plot_continuum.plot_versus_scale(_continuum_networks(), {"loss": "final loss"}),
        "plot_outcomes": lambda: plot_continuum.plot_outcomes(_continuum_networks(), {"loss": "final loss"}, ("loss",)),
        "plot_winner_scatter": lambda: plot_continuum.plot_winner_scatter(_continuum_networks(), []),
        "plot_win_counts": lambda: plot_continuum.plot_win_counts(
            {s: {"n_pairs": 5, **{f"{ph}/{w}": 2 for ph in ("single", "finetune")
                                  for w in ("standard_wins", "large_wins", "not_converged_standard",
                                            "not_converged_large")}} for s in ("ET", "LR")}),
        "plot_horizon": lambda: plot_horizon.plot_horizon(
            {o: _horizon_curves(4, 3) for o in ("sharing_final", "loss_single_test")},
            ["kta_ntk_single", "sharing", "loss_test", "loss_slope"], ["kta_ntk_single"], [0.0, 0.1, 1.0], 0.5),
        "plot_two_point_validation": lambda: plot_rival_theories.plot_two_point_validation(*_two_point()),
        "plot_race_validation": lambda: plot_rival_theories.plot_race_validation(
            {"time": T * 1.0, "direct": np.exp(-np.outer(T, r(4) + 0.5) / 30),
             "reduced": np.exp(-np.outer(T, r(4) + 0.5) / 30)}),
        "plot_two_point_multitask": lambda: plot_rival_theories.plot_two_point_multitask(
            {g: {"predicted": r((2, 6)) + 0.5, "observed": r((2, 6)) + 0.5, "pair_r": r(2)} for g in (0.5, 2.0)},
            np.arange(6) % 3),
        "plot_race_multitask": lambda: plot_rival_theories.plot_race_multitask(
            {"rho_race": r(3) * 2 - 1, "rho_size": r(3) * 2 - 1, "ari_out": np.sort(r((3, 10))),
             "ari_in": np.sort(r((3, 10))), "observed_curve": np.exp(-T / 30) + 0.01 * r((3, 10)),
             "race_curve": 1 / (1 + np.exp((np.arange(12.0)[None] - 6) * r((3, 1)))), "race_clock": np.arange(12.0)},
            T, 0.5),
        "plot_side_by_side": lambda: plot_rival_theories.plot_side_by_side(
            {g: {k: {n: r(5) for n in ("race", "t=0 eNTK", "route size")} for k in "abc"} for g in (0.5, 1.0, 2.0)},
            {k: ("race", "t=0 eNTK", "route size") for k in "abc"}),
    }


def _horizon_curves(n_predictors: int, n_fractions: int) -> dict:
    """The keys of :func:`lib.analyses.horizon.accuracy_curves` that the horizon figure draws: r rising with
    the fraction."""
    rows = {}
    for kind in ("within", "across"):
        r = np.clip(np.linspace(0.1, 0.8, n_fractions)[None] * RNG.uniform(0.5, 1.0, (n_predictors, 1)), -1, 1)
        rows |= {kind: r, f"{kind}_lo": r - 0.15, f"{kind}_hi": np.minimum(r + 0.15, 1)}
    return rows | {"null_half": 0.3}


def _two_point() -> tuple[dict, dict]:
    """A tiny :func:`lib.experiments.two_point.scale_summary` and
    :func:`lib.analyses.rival_theories.two_point_examples`: three gains, two held-out seeds, a(t) growing
    from a plateau."""
    gains, t = np.array([0.5, 1.0, 2.0]), np.geomspace(0.1, 100, 20)
    a = np.stack([1 - 0.9 * np.exp(-t / (5 / g)) for g in gains])  # (G, T)
    sim = np.stack([a, a, a], axis=-1)
    final = np.array([[0.5, 0.6], [0.8, 0.9], [1.0, 1.1]])
    summary = {"gain": gains, "final_sim": final, "final_theory": final * 1.05,
               "plateau_sim": 10 / gains[:, None] + final, "plateau_theory": 9 / gains[:, None] + final}
    return summary, {"times": np.tile(t, (3, 1)), "sim": sim, "theory": sim * 1.02}


def _continuum_networks() -> dict:
    """Per-network rows of a tiny continuum: every (scaling, lr kind) style at two scales."""
    styles = list(plot_continuum.CONTINUUM_STYLES)
    scaling = np.array([s for s, _ in styles for _ in range(4)])
    kind = np.array([k for _, k in styles for _ in range(4)])
    g = np.tile([0.1, 0.1, 1.0, 1.0], len(styles))
    return {"scaling": scaling, "lr_kind": kind, "g": g, "loss": np.linspace(0.1, 1.0, len(g))}


def test_every_plot_function_is_exercised():
    names = {n for module in FIGURE_MODULES for n, f in inspect.getmembers(module, inspect.isfunction)
             if n.startswith("plot_") and f.__module__ == module.__name__}
    expected = set(_figures()) | set(EXERCISED_ELSEWHERE)
    assert names == expected, names ^ expected


def test_importing_a_plot_module_applies_the_book_style():
    import matplotlib as mpl

    plot_style.use_book_style()
    assert [c.lower() for c in mpl.rcParams["axes.prop_cycle"].by_key()["color"]] == [c.lower() for c in plot_style.CYCLE]
    for key in ("font.size", "xtick.labelsize", "ytick.labelsize", "legend.fontsize"):
        assert mpl.font_manager.FontProperties(size=mpl.rcParams[key]).get_size_in_points() >= plot_style.MIN_FONT_PT
    assert plot_style.FIGURE_DPI * 2 * 3.6 >= 784  # a 3.6 inch figure covers the column in pixels


def legibility_problems(fig) -> list[str]:
    """Text smaller than MIN_FONT_PT, a figure so wide that the book shows that text below
    MIN_TEXT_PX, axes showing tick labels without an axis label, and a legend over its axes' data."""
    fig.canvas.draw()
    problems = []
    width = fig.get_size_inches()[0]
    if width > plot_style.MAX_FIGURE_WIDTH_IN:
        problems.append(f"figure {width:.1f} in wide: its smallest text would be shown at "
                        f"{plot_style.MIN_FONT_PT / 72 * plot_style.COLUMN_PX / width:.1f} px")
    for text in fig.findobj(matplotlib.text.Text):
        if text.get_visible() and text.get_text().strip() and text.get_fontsize() < plot_style.MIN_FONT_PT - 1e-9:
            problems.append(f"text {text.get_text()!r} at {text.get_fontsize():.1f} pt")
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison or ax.get_label() == "<colorbar>":
            continue
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            shows_ticks = axis.get_visible() and any(t.get_visible() and t.get_text() for t in axis.get_ticklabels())
            if shows_ticks and not axis.get_label_text().strip():
                problems.append(f"panel {ax.get_title()!r}: {name} axis has tick labels but no label")
        covered = _points_under_legend(ax)
        if covered:
            problems.append(f"panel {ax.get_title()!r}: its legend covers {covered} data point(s)")
    return problems


def _points_under_legend(ax) -> int:
    """How many shown data points (vertices of visible lines, offsets of visible scatters, each inside its
    own axes) of any axes of ``ax``'s figure (``ax``'s twin, a neighbouring panel) lie inside the box of the
    legend drawn in ``ax`` (display coordinates, after a draw). 0 for no legend; a legend outside every
    axes covers none; a figure legend is not an axes' legend."""
    legend = ax.get_legend()
    if legend is None or not legend.get_visible():
        return 0
    box = legend.get_window_extent()
    covered = 0
    for other in ax.figure.axes:
        if not other.get_visible():
            continue
        points = [line.get_transform().transform(line.get_xydata()) for line in other.get_lines()
                  if line.get_visible()]
        points += [c.get_offset_transform().transform(c.get_offsets()) for c in other.collections
                   if isinstance(c, matplotlib.collections.PathCollection) and c.get_visible() and len(c.get_offsets())]
        if not points:
            continue
        x, y = np.concatenate([np.reshape(p, (-1, 2)) for p in points]).T
        frame = other.get_window_extent()
        with np.errstate(invalid="ignore"):  # nan: a point not drawn (nan data, log of a non-positive value)
            shown = (x >= frame.x0) & (x <= frame.x1) & (y >= frame.y0) & (y <= frame.y1)
            covered += int(np.sum(shown & (x > box.x0) & (x < box.x1) & (y > box.y0) & (y < box.y1)))
    return covered


@pytest.mark.parametrize("name", sorted(_figures()))
def test_figure_is_legible(name):
    plot_style.use_book_style()
    _figures()[name]()
    problems = [p for num in plt.get_fignums() for p in legibility_problems(plt.figure(num))]
    plt.close("all")
    assert not problems, problems


def test_the_race_validation_ends_where_every_route_has_settled():
    """The time axis stops at twice the settling time (the routes are flat after), and runs to the end
    when a route never settles."""
    time = np.linspace(0.0, 2000.0, 201)
    fast = np.where(time[:, None] < 100, 0.5, 1e-4) * np.ones((1, 3))  # every route settles at t = 100
    assert plot_rival_theories.settled_time(time, fast) == 100.0
    fig = plot_rival_theories.plot_race_validation({"time": time, "direct": fast, "reduced": fast})
    assert fig.axes[0].get_xlim()[1] == pytest.approx(200.0)
    slow = fast.copy()
    slow[:, 0] = 0.5  # one route never learns
    assert plot_rival_theories.settled_time(time, slow) == 2000.0
    fig = plot_rival_theories.plot_race_validation({"time": time, "direct": slow, "reduced": fast})
    assert fig.axes[0].get_xlim()[1] >= 2000.0
    plt.close("all")


def test_the_horizon_figure_features_the_strongest_kernel_quantity_and_rival():
    sizes = np.array([[0.1, 0.2], [0.5, 0.6], [0.3, np.nan], [0.9, 0.8], [np.nan, np.nan]])
    is_kernel = np.array([True, True, False, False, False])
    assert plot_horizon.featured(sizes, is_kernel) == [1, 3]
    assert plot_horizon.featured(sizes[:2], is_kernel[:2]) == [1]  # no rival: only the kernel quantity
    assert plot_horizon.featured(sizes[4:], is_kernel[4:]) == []  # nothing defined: nothing bold


def test_each_horizon_panel_shows_two_series_in_colour_and_the_others_in_grey():
    """Five predictors: per panel, the featured kernel quantity and rival in colour with bands (two
    marked lines), the other three as thin grey lines; the legend lists the featured ones and the grey."""
    rng = np.random.default_rng(0)
    fractions = np.array([0.0, 0.1, 0.5])
    n = 5
    curves = {o: {"within": rng.uniform(-0.9, 0.9, (n, 3)), "across": rng.uniform(-0.9, 0.9, (n, 3)),
                  "within_lo": np.full((n, 3), -1.0), "within_hi": np.full((n, 3), 1.0),
                  "across_lo": np.full((n, 3), -1.0), "across_hi": np.full((n, 3), 1.0), "null_half": 0.2}
              for o in ("sharing_final", "loss_single_test")}
    predictors = ["sharing", "kta_ntk_single", "loss_test", "weight_change", "loss_train"]
    fig = plot_horizon.plot_horizon(curves, predictors, ["sharing", "kta_ntk_single"], fractions, 0.5)
    for ax in fig.axes:
        marked = [line for line in ax.get_lines() if line.get_marker() == "o"]
        grey = [line for line in ax.get_lines() if line.get_color() == plot_horizon.OTHERS_GREY]
        assert [line.get_linestyle() for line in marked] == ["-", "--"]  # one kernel quantity, one rival
        assert len(grey) == 3 and len(ax.collections) >= 2  # the others; the two bands (and the chance band)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend[-1] == "the other quantities (grey)" and 2 <= len(legend) - 1 <= len(predictors)
    plt.close(fig)
