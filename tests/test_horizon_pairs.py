"""The prediction horizon on the paper's standard/large pairs: the retrained snapshots
(lib.experiments.horizon_snapshots.pair_single_task_snapshots) against the schedule runs themselves,
the outcomes (lib.analyses.horizon_pairs.pair_outcomes) against direct computation, the sweep point
and its groups."""

import jax.numpy as jnp
import numpy as np
import pytest

from lib.analyses import horizon
from lib.analyses.horizon_pairs import (PAIR_OUTCOMES, check_pair_horizon, pair_groups, pair_horizon_point,
                                        pair_outcomes)
from lib.analyses.horizon_points import KERNEL_PREDICTORS, RIVAL_PREDICTORS
from lib.analyses.network_measures import hidden_by_task, sharing_index
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.experiments.horizon_snapshots import pair_single_task_snapshots
from lib.experiments.schedules import params_of, run_schedule

SMALL = dict(n_hidden=20, n_train=40, n_test=40)


@pytest.fixture(scope="module")
def schedule_run():
    """Two LR pairs trained by the schedule code itself, 100 iterations per phase."""
    return run_schedule(TaskEnvironment(), "LR", [100, 101], n_iterations=100, progress=False, **SMALL)


@pytest.fixture(scope="module")
def snapshots():
    return pair_single_task_snapshots(TaskEnvironment(), "LR", [100, 101], [0.0, 0.01, 0.25, 1.0], n_iterations=100,
                                      **SMALL)


def test_the_retrained_pairs_end_at_the_schedule_runs_final_weights(schedule_run, snapshots):
    final = params_of(schedule_run, "single/params_final")  # (P, 2, ...)
    for name, value in final.items():
        retrained = snapshots[f"params/{name}"][-1].reshape(value.shape)  # (2P, ...) standard, large, ...
        np.testing.assert_allclose(retrained, value, rtol=1e-5, atol=1e-6)


def test_the_snapshot_losses_are_the_schedule_runs_losses_at_the_same_iterations(schedule_run, snapshots):
    its = list(schedule_run["iterations"])  # 101 snapshots: every iteration of 100
    at = [its.index(i) for i in snapshots["iterations"]]
    for name in ("loss_train", "loss_test"):
        np.testing.assert_allclose(snapshots[name], schedule_run[f"single/{name}"][:, :, at].reshape(4, -1), rtol=1e-5)
    assert snapshots["iterations"].tolist() == [0, 1, 25, 100]


def test_the_large_network_starts_as_its_partners_draw_times_ten(snapshots):
    w = snapshots["params/w_hidden"][0]
    np.testing.assert_allclose(w[1::2], 10 * w[0::2], rtol=1e-6)
    np.testing.assert_array_equal(snapshots["x_train"][0], snapshots["x_train"][1])  # a pair shares its data


def test_pair_outcomes_equal_their_direct_computation(schedule_run):
    env = TaskEnvironment()
    out = pair_outcomes(env, schedule_run)
    assert set(out) == set(PAIR_OUTCOMES) and all(v.shape == (4,) for v in out.values())
    test = schedule_run["single/loss_test"]
    np.testing.assert_allclose(out["loss_single_test"], [test[0, 0, -1], test[0, 1, -1], test[1, 0, -1],
                                                         test[1, 1, -1]])
    ft = schedule_run["finetune/loss_test"]
    np.testing.assert_allclose(out["finetune_speed"][3], 1 - ft[1, 1, 10] / ft[1, 1, 0], rtol=1e-6)
    np.testing.assert_allclose(out["loss_finetune_test"][2], ft[1, 0, -1])
    net = MultitaskNet.for_environment(env, SMALL["n_hidden"])
    final = {k: jnp.asarray(v[1, 1]) for k, v in params_of(schedule_run, "single/params_final").items()}
    assert out["sharing_final"][3] == pytest.approx(sharing_index(env, hidden_by_task(env, net, final)), rel=1e-9)
    with pytest.raises(ValueError, match="finetune_fraction"):
        pair_outcomes(env, schedule_run, finetune_fraction=0.123)


def test_the_sweep_point_returns_every_predictor_and_the_schedule_runs_losses(schedule_run):
    out = pair_horizon_point({"schedule": "LR", "first_seed": 100, "n_pairs": 2, "n_iterations": 100,
                              "fractions": [0.0, 0.1, 0.5], **SMALL})
    for name in KERNEL_PREDICTORS + RIVAL_PREDICTORS:
        assert out[name].shape == (3, 4), name
    np.testing.assert_allclose(out["loss_test"], out["loss_test_summed"].T)
    np.testing.assert_allclose(out["loss_test_summed"], schedule_run["single/loss_test"][:, :, [0, 10, 50]].reshape(4, 3),
                               rtol=1e-5)
    assert np.all(np.isnan(out["silhouette_entk_accumulated"][0])) and np.all(np.isnan(out["loss_slope"][0]))
    assert np.all(np.isfinite(out["silhouette_entk_authors"]))


@pytest.mark.parametrize("bad, match", [({"schedule": "XX"}, "schedule"), ({"fractions": [0.0, 0.1, 0.1]}, "fractions"),
                                        ({"n_pairs": 0}, "n_pairs"), ({"split": "none"}, "split"),
                                        ({"colour": 1}, "unknown")])
def test_bad_point_parameters_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        check_pair_horizon(bad)


def test_the_schedules_own_iteration_count_is_filled_in():
    assert check_pair_horizon({"schedule": "ET"})["n_iterations"] == 10_000
    assert check_pair_horizon({"schedule": "LR"})["n_test"] == 500


def test_groups_are_schedule_by_init_and_the_within_group_r_uses_them():
    groups = pair_groups({"ET": 3, "LR": 3})
    assert groups.tolist()[:4] == ["ET standard", "ET large", "ET standard", "ET large"]
    assert groups.tolist()[-1] == "LR large" and len(groups) == 12
    rng = np.random.default_rng(0)
    outcome = rng.normal(size=12) + np.repeat([0.0, 5.0], 6)
    values = rng.normal(size=(2, 3, 12))
    codes = np.unique(groups, return_inverse=True)[1]
    np.testing.assert_allclose(horizon.within_scale_accuracy(values, outcome, groups),
                               horizon.within_scale_accuracy(values, outcome, codes), atol=1e-12)


def test_rival_cells_are_the_rival_tests_of_every_kernel_outcome_and_later_fraction():
    rng = np.random.default_rng(1)
    groups = np.repeat([0, 1], 20)
    kernels, rivals = rng.normal(size=(2, 3, 40)), rng.normal(size=(4, 3, 40))
    outcomes = {"a": rng.normal(size=40), "b": kernels[1, 2] + rng.normal(size=40)}
    cells = horizon.rival_cells(kernels, rivals, outcomes, groups, [0.0, 0.1, 0.5])
    assert len(cells["p"]) == 2 * 2 * 2 and 0 not in cells["fraction"]  # outcomes x kernels x fractions > 0
    i = cells["outcome"].index("b") + 2 + 1  # outcome b, kernel 1, fraction index 2
    assert (cells["outcome"][i], cells["kernel"][i], cells["fraction"][i]) == ("b", 1, 2)
    direct = horizon.beats_rivals(kernels, rivals, outcomes["b"], groups)
    added = horizon.added_information(kernels, rivals, outcomes["b"], groups)
    assert cells["p"][i] == direct["p"][1, 2] and cells["p_reverse"][i] == direct["p_reverse"][1, 2]
    assert cells["r_partial"][i] == added["r_partial"][1, 2] and cells["p_partial"][i] == added["p"][1, 2]
    with pytest.raises(ValueError, match="fractions"):
        horizon.rival_cells(kernels, rivals, outcomes, groups, [0.0, 0.1])


def test_the_horizon_figure_names_its_groups_and_phase_at_the_books_text_size():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib.book import plot_style
    from lib.book.plot_horizon import plot_horizon

    rng = np.random.default_rng(0)
    groups, fractions = np.repeat(["ET standard", "ET large", "LR standard", "LR large"], 6), [0.0, 0.1]
    values = rng.normal(size=(3, 2, 24))
    curves = {o: horizon.accuracy_curves(values, rng.normal(size=24), groups, fractions, 0.5, 100)
              for o in ("finetune_speed", "loss_finetune_test")}
    fig = plot_horizon(curves, ["sharing", "loss_test", "kta_ntk_single"], ["kta_ntk_single"], fractions, 0.5,
                       groups="groups", phase="fine-tuning")
    assert fig.axes[0].get_ylabel() == "|r|, within groups" and fig.axes[-1].get_xlabel() == "fraction of fine-tuning"
    assert fig.get_size_inches()[0] <= 12
    fig.canvas.draw()
    small = [t.get_text() for t in fig.findobj(matplotlib.text.Text)
             if t.get_visible() and t.get_text().strip() and t.get_fontsize() < plot_style.MIN_FONT_PT - 1e-9]
    assert not small, small
    plt.close(fig)


def test_pair_retrace_compares_only_the_iterations_both_recorded():
    from lib.analyses.horizon_pairs import pair_retrace

    recorded = np.arange(1.0, 13.0).reshape(2, 2, 3)  # 2 pairs x (standard, large) x iterations 0, 50, 100
    runs = {"ET": {"single/loss_test": recorded, "iterations": np.array([0, 50, 100])}}
    snaps = {"schedule": np.array(["ET"] * 4), "iterations/ET": np.array([0, 10, 100]),
             "loss_test_summed": np.stack([recorded.reshape(4, 3)[:, 0], np.full(4, 99.0), recorded.reshape(4, 3)[:, 2]],
                                          axis=1)}
    assert pair_retrace(snaps, runs) == 0.0  # iteration 10 was not recorded: not compared
    snaps["loss_test_summed"][3, 2] *= 1.5
    assert pair_retrace(snaps, runs) == pytest.approx(0.5)


def test_the_sweep_reads_the_t0_silhouettes_the_point_would_compute(results_tmp):
    """pair_horizon_sweep leaves the two t=0 silhouettes to the t=0 structure cache (the
    correlation chapter's): they must be the very numbers the sweep point computes itself, and
    the point without them must give the same later fractions. (The book computes everything in
    float32 and gets the same numbers bit for bit; this test session runs jax in float64, where the
    t=0 structure's data are float64 and the snapshots' float32, so they agree to float32 precision.)"""
    from lib.analyses.horizon_pairs import initial_silhouettes, pair_horizon_sweep
    from lib.analyses.horizon_points import INITIAL_SILHOUETTES

    plan = {"LR": ([100], 20)}
    point = {"schedule": "LR", "first_seed": 100, "n_pairs": 1, "n_iterations": 20, "fractions": [0.0, 0.5]}
    computed = pair_horizon_point(point)
    skipped = pair_horizon_point({**point, "initial_silhouettes": False})
    swept = pair_horizon_sweep(plan, [0.0, 0.5], progress=False)
    cached = initial_silhouettes(plan)
    for name in INITIAL_SILHOUETTES:
        assert np.all(np.isnan(skipped[name][0])) and np.all(np.isfinite(computed[name][0]))
        np.testing.assert_allclose(cached[name], computed[name][0], rtol=1e-6)
        np.testing.assert_allclose(swept[name], computed[name], rtol=1e-5)
    for name in KERNEL_PREDICTORS + RIVAL_PREDICTORS:
        np.testing.assert_array_equal(skipped[name][1:], computed[name][1:])
    with pytest.raises(ValueError, match="fractions must start at 0"):
        check_pair_horizon({**point, "fractions": [0.1, 0.5], "initial_silhouettes": False})
