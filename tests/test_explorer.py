"""The live explorer (notebook 11): one network's t=0 eNTK structure, controls and training curve, on
known cases; bad input names the parameter; the widget callback redraws for parameter changes."""

import jax
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lib.analyses import controls  # noqa: E402
from lib.analyses.explorer import CONTROLS, check_explorer, explore, explorer_learning_rate, scale_strip  # noqa: E402
from lib.book import chapter_parameters, plot_explorer  # noqa: E402
from lib.core.models import MultitaskNet  # noqa: E402
from lib.core.tasks import TaskEnvironment  # noqa: E402
from lib.experiments.schedules import initial_pairs, params_of  # noqa: E402

SMALL = dict(n_iterations=20, n_train=48)


@pytest.fixture(scope="module")
def at_one():
    return explore(1.0, seed=3, schedule="LR", architecture="4x3", **SMALL)


def test_shapes_at_g_1(at_one):
    n, k, t = SMALL["n_train"], 9, SMALL["n_iterations"] // 10 + 1
    names = {"entk_principled", "entk_authors", *CONTROLS}
    assert set(at_one["loadings"]) == set(at_one["silhouette"]) == names
    assert all(v.shape == (n, k) and np.isfinite(v).all() for v in at_one["loadings"].values())
    assert all(-1 <= s <= 1 for s in at_one["silhouette"].values())
    assert set(at_one["share"]) == {"principled", "authors"}
    assert all(set(d) == set(CONTROLS) and all(0 <= x <= 1 for x in d.values()) for d in at_one["share"].values())
    assert sorted(at_one["row_order"]) == list(range(n))
    np.testing.assert_array_equal(at_one["iterations"], np.arange(0, SMALL["n_iterations"] + 1, 10))
    assert at_one["loss_train"].shape == at_one["loss_test"].shape == (t,)
    assert at_one["loss_train"][-1] < at_one["loss_train"][0]  # gradient descent lowers the training loss
    assert at_one["learning_rate"] == 0.03 and at_one["limit_error"] > 0


def test_g_1_is_the_standard_network_of_the_pair_with_that_seed(at_one):
    """g = 1 draws the standard-init network of chapter 00/04's pair of the same seed, on its data."""
    env = TaskEnvironment()
    pairs = initial_pairs(env, [3], n_hidden=200, n_train=SMALL["n_train"], n_test=SMALL["n_train"])
    params = {k: jax.numpy.asarray(v[0, 0]) for k, v in params_of(pairs, "params_initial").items()}
    net = MultitaskNet.for_environment(env, 200)
    structure = controls.network_structure(net, params, pairs["x_train"][0], pairs["y_train"][0], pairs["x_test"][0],
                                           ("entk_principled", "epsilon"))
    np.testing.assert_allclose(at_one["loadings"]["epsilon"], structure["epsilon"], rtol=1e-6)
    reference = controls.align_signs(structure["entk_principled"], structure["epsilon"])
    np.testing.assert_allclose(at_one["loadings"]["entk_principled"], reference, rtol=1e-4, atol=1e-6)
    assert at_one["limit_error"] == pytest.approx(structure["limit_error"], rel=1e-6)


def test_g_10_draws_the_large_network_of_the_pair():
    """The page's claim: g = 1 and g = 10 are the standard and large networks of chapter 00/04's pair."""
    from lib.experiments.continuum import scaled_initial_params

    env = TaskEnvironment()
    pair = params_of(initial_pairs(env, [3], n_train=24, n_test=24), "params_initial")
    for i, g in enumerate((1.0, 10.0)):
        scaled = scaled_initial_params(MultitaskNet.for_environment(env, 200), [3], g, "both")
        for k in ("w_hidden", "w_output"):
            np.testing.assert_array_equal(np.asarray(scaled[k][0]), pair[k][0, i])


def test_at_a_very_small_scale_the_entk_structure_is_the_targets():
    """The small-weight limit (lib.analyses.controls): the kernel is rank one, its leading vector the loss
    sensitivity, a two-valued function of the target; the targets explain the loadings entirely."""
    result = explore(1e-3, seed=0, schedule="ET", architecture="4x3", **SMALL)
    assert result["limit_error"] < 0.01
    assert result["share"]["principled"]["targets"] > 0.999 and result["share"]["principled"]["epsilon"] > 0.999
    # the authors' matrix pairs test row n with training column n, so the limit's same-task bonus
    # (task_n . task_m) is not symmetric there: its first eigenvector is the targets only to ~3% at 48 patterns
    assert result["share"]["authors"]["targets"] > 0.95 and result["share"]["authors"]["epsilon"] > 0.95
    assert result["silhouette"]["targets"] == pytest.approx(1.0)


def test_at_large_scale_epsilon_explains_less_than_at_small_scale(at_one):
    large = explore(10.0, seed=3, schedule="LR", architecture="4x3", **SMALL)
    assert large["share"]["principled"]["epsilon"] < at_one["share"]["principled"]["epsilon"]
    assert large["limit_error"] > 10 * at_one["limit_error"]
    assert large["learning_rate"] == 0.01  # the LR schedule's large-init rate


def test_swapped_architecture_has_twelve_outputs():
    result = explore(1.0, seed=0, schedule="ET", architecture="3x4", **SMALL)
    assert result["loadings"]["entk_authors"].shape == (SMALL["n_train"], 12) and result["n_features"] == 3


def test_learning_rate_follows_the_nearer_init():
    assert explorer_learning_rate("LR", 3.0) == 0.03 and explorer_learning_rate("LR", 3.2) == 0.01
    assert explorer_learning_rate("ET", 0.01) == explorer_learning_rate("ET", 50.0) == 0.01


@pytest.mark.parametrize("changes, message", [
    (dict(g=0.0), r"g must be a positive finite number"),
    (dict(g=1000.0), r"g must be a number in \[0.001, 100\], got 1000.0"),
    (dict(seed=-1), r"seed must be an integer >= 0"),
    (dict(schedule="XX"), r"schedule must be one of \['ET', 'LR'\], got 'XX'"),
    (dict(architecture="5x5"), r"architecture must be one of \['4x3', '3x4'\], got '5x5'"),
    (dict(n_iterations=25), r"n_iterations must be a multiple of 10"),
    (dict(n_iterations=0), r"n_iterations must be an integer >= 10"),
    (dict(n_train=12), r"n_train must be an integer >= 24"),
])
def test_bad_input_names_the_parameter(changes, message):
    arguments = dict(g=1.0, seed=0, schedule="LR", architecture="4x3", n_iterations=100, n_train=200) | changes
    with pytest.raises(ValueError, match=message):
        check_explorer(**arguments)
    with pytest.raises(ValueError, match=message):
        explore(**arguments)
    with pytest.raises(ValueError, match=message):
        chapter_parameters.check_chapter("11_explorer", arguments)


def test_the_figure_has_its_four_panels_and_is_legible(at_one):
    from tests.test_plot_style import legibility_problems

    fig = plot_explorer.plot_explorer(at_one)
    assert legibility_problems(fig) == []
    titles = [ax.get_title() for ax in fig.axes]
    assert f"eNTK, principled (silhouette {at_one['silhouette']['entk_principled']:.2f})" in titles
    assert f"eNTK, authors (silhouette {at_one['silhouette']['entk_authors']:.2f})" in titles
    assert "training, learning rate 0.03" in titles
    plt.close(fig)


def test_the_widget_callback_redraws_for_two_parameter_changes():
    """What ipywidgets.interact calls in notebook 11: once at the page's values, then after two changes."""
    plt.close("all")
    values = dict(g=1.0, seed=0, schedule="LR", architecture="4x3", **SMALL)
    for changes in ({}, {"g": 10.0}, {"schedule": "ET", "architecture": "3x4"}):
        assert plot_explorer.show_explorer(**(values | changes)) is None
        fig = plt.gcf()
        expected = values | changes
        assert fig._suptitle.get_text() == (f"g = {expected['g']:g}, seed 0, schedule {expected['schedule']}, "
                                            f"architecture {expected['architecture']}")
        plt.close(fig)


def test_the_scale_strip_explores_each_scale_and_draws_a_column_each():
    """What the scale slider changes, for the static page: one explore() per scale, every scale checked first."""
    from tests.test_plot_style import legibility_problems

    strip = scale_strip((0.3, 1.0, 10.0), seed=3, schedule="LR", architecture="4x3", **SMALL)
    assert sorted(strip) == [0.3, 1.0, 10.0] and all(r["g"] == g for g, r in strip.items())
    assert strip[1.0]["silhouette"] == explore(1.0, seed=3, schedule="LR", architecture="4x3", **SMALL)["silhouette"]
    fig = plot_explorer.plot_scale_strip(strip)
    assert legibility_problems(fig) == []
    titles = [ax.get_title() for ax in fig.axes]
    assert f"g = 10\nsil. {strip[10.0]['silhouette']['entk_principled']:.2f}" in titles
    plt.close(fig)
    with pytest.raises(ValueError, match="scales must be an increasing list"):
        scale_strip((1.0, 0.3))
    with pytest.raises(ValueError, match="g must be a number in"):
        scale_strip((1.0, 1000.0), **SMALL)
