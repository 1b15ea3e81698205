"""The rival theories on the multitask network (lib.analyses.rival_theories): vectorised pair
variables and fixed point against the one-pair functions of lib.experiments.two_point, pattern
pairs against the environment, rate recovery from ODE-generated pair trajectories, orders and
first times on constructed cases, one small end-to-end run, bad inputs."""

import numpy as np
import pytest

from lib.analyses import rival_theories as rt
from lib.core.tasks import TaskEnvironment
from lib.experiments import route_learning as rl
from lib.experiments import two_point as tp

ENV = TaskEnvironment()
ALL = ENV.all_patterns()


def test_task_pairs_and_same_stimulus_pairs_match_the_environment():
    assert rt.task_pairs(4).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    pairs = rt.same_stimulus_pairs(ALL.task, ALL.stimulus)
    assert pairs.shape == (66, 81, 2)
    q = 10
    i, j = rt.task_pairs(12)[q]
    assert np.all(ALL.task[pairs[q, :, 0]] == i) and np.all(ALL.task[pairs[q, :, 1]] == j)
    np.testing.assert_array_equal(ALL.stimulus[pairs[q, :, 0]], ALL.stimulus[pairs[q, :, 1]])
    assert len(np.unique(pairs[q, :, 0])) == 81


def test_pair_distances_follow_the_routes():
    pairs = rt.same_stimulus_pairs(ALL.task, ALL.stimulus)
    dx2, dy2 = rt.pair_distances(ALL.x, ALL.y, pairs)
    np.testing.assert_allclose(dx2, 2.0)  # one stimulus, two task units
    for q, (i, j) in enumerate(rt.task_pairs(12)):
        if ENV.task_out_pool(i) != ENV.task_out_pool(j):
            np.testing.assert_allclose(dy2[q], 2.0)  # one-hot targets in different pools
        else:  # same output pool: the targets agree exactly when the two input pools show one feature
            same = ALL.stimulus[pairs[q, :, 0], ENV.task_in_pool(i)] == ALL.stimulus[pairs[q, :, 0], ENV.task_in_pool(j)]
            np.testing.assert_allclose(dy2[q], np.where(same, 0.0, 2.0))


def test_pair_trajectories_equal_pair_variables_pair_by_pair():
    rng = np.random.default_rng(0)
    hidden, outputs, targets = rng.normal(size=(5, 8, 6)), rng.normal(size=(5, 8, 3)), rng.normal(size=(8, 3))
    pairs = np.array([[[0, 1], [2, 3]], [[4, 7], [6, 5]]])
    out = rt.pair_trajectories(hidden, outputs, targets, pairs)
    assert out.shape == (2, 2, 5, 3)
    for q in range(2):
        for m in range(2):
            i, j = pairs[q, m]
            one = tp.pair_variables(hidden[:, [i, j]], outputs[:, [i, j]], targets[[i, j]]).as_array()
            np.testing.assert_allclose(out[q, m], one, rtol=1e-12)


def test_predicted_final_dist2_equals_eq36_pair_by_pair():
    rng = np.random.default_rng(1)
    initial = np.column_stack([rng.uniform(0.1, 2, 6), rng.uniform(0, 1, 6), rng.normal(size=6)]).reshape(2, 3, 3)
    dx2, dy2 = rng.uniform(0.5, 2, (2, 3)), np.array([[0.0, 1.0, 2.0], [0.5, 0.0, 3.0]])
    got = rt.predicted_final_dist2(initial, 0.7, 1.3, dx2, dy2)
    want = np.array([[tp.final_rep_dist2(initial[q, m], 0.7, 1.3, dx2[q, m], dy2[q, m]) for m in range(3)]
                     for q in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_fit_pair_rates_recovers_the_rates_of_ode_pairs():
    times = np.linspace(0, 8, 25)
    dx2 = np.full((3, 2), 2.0)
    dy2 = np.array([[2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    rng = np.random.default_rng(2)
    traj = np.zeros((3, 2, 25, 3))
    for q in range(3):
        for m in range(2):
            start = [rng.uniform(0.05, 0.2), rng.uniform(0.0, 0.05), rng.uniform(-0.05, 0.0)]
            traj[q, m] = tp.integrate_two_point(start, times, 0.8, 1.5, dx2[q, m], dy2[q, m])
    fit = rt.fit_pair_rates(times, [traj], dx2, dy2, n_pairs=3)
    assert fit["rate_h"] == pytest.approx(0.8, rel=1e-3) and fit["rate_y"] == pytest.approx(1.5, rel=1e-3)
    dist = rt.task_pair_distances(traj, 0.8, 1.5, dx2, dy2)
    np.testing.assert_allclose(dist["initial"], traj[:, :, 0, 0].mean(1))
    assert dist["predicted"].shape == dist["observed"].shape == (3,)


def test_fitting_pairs_take_the_commonest_positive_target_distance():
    dy2 = np.array([[0.0, 2.0, 2.0], [1.0, 2.0, 0.0]])
    chosen = rt.fitting_pairs(dy2, 2)
    assert all(dy2[q, m] == 2.0 for q, m in chosen) and len({tuple(c) for c in chosen}) == 2
    with pytest.raises(ValueError, match="n_pairs"):
        rt.fitting_pairs(dy2, 4)


def test_first_reach_and_output_pool_first():
    times = np.array([0.0, 10.0, 20.0, 30.0])
    assert rt.first_reach([0.0, 0.2, 0.6, 1.0], times) == 20.0
    assert rt.first_reach([0.0, 0.2, 0.3, 0.4], times) == np.inf
    order = rt.output_pool_first([0.0, 0.0, 0.7, 1.0], [0.0, 0.6, 1.0, 1.0], times)
    assert order == {"t_in": 20.0, "t_out": 10.0, "out_first": True}
    assert not rt.output_pool_first([0.0] * 4, [0.0] * 4, times)["out_first"]  # never and never: not first


def test_route_size_times_and_order_rhos():
    data = ENV.make_data(3, 120, 1, "iid", multitask=False, stream=0)[0]
    size = rt.route_size_times(ENV, data.x, data.y)
    task = data.x[:, ENV.n_stimulus_units:].argmax(axis=1)
    np.testing.assert_array_equal(-size, np.bincount(task, minlength=12))
    rhos = rt.order_rhos(size + np.arange(12) * 1e-3, {"size": size, "reverse": -size}, n_permutations=200)
    assert np.isnan(rt.order_rhos(np.full(12, np.inf), {"size": size})["size"]["rho"])  # nothing learned: no order
    assert rhos["size"]["rho"] > 0.95 and rhos["reverse"]["rho"] < -0.95  # ties in size keep rho below 1


def test_network_analysis_end_to_end_is_shaped_and_consistent():
    run = rl.run_route_learning(ENV, seeds=(0, 1, 2), g=0.5, learning_rate=0.2, n_iterations=200, n_snapshots=5,
                                n_hidden=16, n_train=120)
    out = rt.network_analysis(ENV, run, 0.2, n_fit=1, n_pairs=2, n_permutations=50)
    assert out["predicted"].shape == out["observed"].shape == (2, 66) and out["pair_r"].shape == (2,)
    assert out["rho_race"].shape == out["rho_size"].shape == (3,) and out["ari_in"].shape == (3, 5)
    np.testing.assert_allclose(out["times"], 0.2 * run["iterations"])
    pairs = rt.same_stimulus_pairs(run["all_task"], run["all_stimulus"])
    hidden = run["hidden"][1, -1]
    observed = ((hidden[pairs[..., 1]] - hidden[pairs[..., 0]]) ** 2).sum(-1).mean(1)
    np.testing.assert_allclose(out["observed"][0], observed, rtol=1e-6)
    assert np.all(out["observed_curve"][:, 0] == 1.0) and np.all(np.isfinite(out["rho_race"]))


@pytest.mark.parametrize("call, name", [
    (lambda: rt.task_pairs(1), "n_tasks"),
    (lambda: rt.same_stimulus_pairs(ALL.task[:-1], ALL.stimulus[:-1]), "stimuli"),
    (lambda: rt.pair_trajectories(np.zeros((2, 4, 3)), np.zeros((2, 4, 2)), np.zeros((4, 2)),
                                  np.array([[[0, 9]]])), "pairs"),
    (lambda: rt.pair_distances(np.zeros((4, 3)), np.zeros((5, 2)), np.array([[[0, 1]]])), "x must be"),
    (lambda: rt.predicted_final_dist2(np.array([[0.0, 1.0, 0.0]]), 1.0, 1.0, np.ones(1), np.ones(1)), "initial"),
    (lambda: rt.predicted_final_dist2(np.ones((1, 3)), -1.0, 1.0, np.ones(1), np.ones(1)), "rate_h"),
    (lambda: rt.fitting_pairs(np.zeros((2, 2)), 1), "target_dist2"),
    (lambda: rt.first_reach([0.0, 1.0], [1.0, 0.0]), "values and times"),
    (lambda: rt.pearson([1.0, 2.0], [1.0, 2.0]), "x and y"),
])
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_race_validation_reduction_tracks_direct_simulation():
    data = ENV.make_data(1, 120, 1, "iid", multitask=False, stream=0)[0]
    out = rt.race_validation(ENV, data.x, data.y, n_snapshots=41)
    assert out["direct"].shape == out["reduced"].shape == (41, 12)
    assert out["max_error"] < 0.1 and out["time_error"] < 0.05
    np.testing.assert_allclose(out["direct"][0], out["reduced"][0], rtol=0.2)  # both start near the target variance


def test_half_time_clock_puts_each_curve_on_its_own_clock():
    clock = np.arange(5.0) * 10
    np.testing.assert_allclose(rt.half_time_clock(np.array([1.0, 0.8, 0.5, 0.2, 0.1]), clock), clock / 20)
    np.testing.assert_allclose(rt.half_time_clock(np.array([1.0, 0.9, 0.8, 0.7, 0.6]), clock), clock / 40)
    with pytest.raises(ValueError, match="curve and clock"):
        rt.half_time_clock(np.ones(3), np.ones(4))


def test_own_ground_conditions_are_the_criterion_s_and_each_can_fail():
    from lib.analyses import claims

    text = " ".join(claims.criterion("rival-two-point-own-ground").settings["names"])
    assert f"<= {rt.OWN_GROUND_ERROR:g}" in text and f"exceed {rt.OWN_GROUND_PLATEAU_RATIO:g}x" in text
    plateau = np.array([[500.0, np.inf], [2.0, 3.0]])  # (scales, seeds): long at the smallest scale, short at the largest
    assert rt.own_ground_conditions([0.1, 0.3, 0.15], plateau, plateau) == (True, True)
    assert rt.own_ground_conditions([0.1, 0.3, 0.25], plateau, plateau) == (False, True)  # median 0.25
    short = np.array([[500.0, 25.0], [2.0, 3.0]])  # one seed's plateau only 8.3x the largest scale's
    assert rt.own_ground_conditions([0.1], plateau, short) == (True, False)
