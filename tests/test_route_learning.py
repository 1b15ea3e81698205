"""Observing the sigmoid network's routes (lib.experiments.route_learning): learning times and
order, task representations, ARI against the pool groupings, the rank agreement, bad inputs."""

import jax
import numpy as np
import pytest

from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.experiments import route_learning as rl
from lib.experiments.continuum import scaled_initial_params

ENV = TaskEnvironment()
ALL = ENV.all_patterns()
ROUTES = np.arange(ENV.n_tasks)


def pool_hidden(pool_of_task: np.ndarray, n_snapshots: int = 3, noise: float = 0.05, seed: int = 0) -> np.ndarray:
    """(T, N_all, 8) hidden activity that depends on a task only through ``pool_of_task``, plus noise."""
    rng = np.random.default_rng(seed)
    centres = 3.0 * rng.standard_normal((pool_of_task.max() + 1, 8))
    base = centres[pool_of_task[ALL.task]]
    return base[None] + noise * rng.standard_normal((n_snapshots, *base.shape))


def test_route_times_and_order_from_hand_made_loss_curves():
    iterations = np.array([0, 10, 20, 30])
    curves = np.array([[0.9, 0.9, 0.9], [0.8, 0.3, 0.9], [0.2, 0.1, 0.6], [0.1, 0.05, 0.5]])
    observed = rl.observed_route_order(curves, iterations)
    np.testing.assert_allclose(observed["time"][:2], [10 + 10 * 0.35 / 0.6, 10 * 0.45 / 0.6])
    assert np.isinf(observed["time"][2])
    assert observed["order"].tolist() == [1, 0, 2]


def test_task_representations_order_patterns_by_stimulus():
    hidden = np.stack([ALL.task * 1000.0 + np.ravel_multi_index(ALL.stimulus.T, (3,) * 4)], axis=1)  # (N, 1)
    profile = rl.task_representations(hidden, ALL.task, ALL.stimulus, "profile")
    assert profile.shape == (12, 81)
    np.testing.assert_array_equal(profile, ROUTES[:, None] * 1000.0 + np.arange(81)[None])
    mean = rl.task_representations(hidden[None].repeat(2, 0), ALL.task, ALL.stimulus, "mean")
    np.testing.assert_allclose(mean, np.broadcast_to(ROUTES[:, None] * 1000.0 + 40.0, (2, 12, 1)))


@pytest.mark.parametrize("how", rl.REPRESENTATIONS)
@pytest.mark.parametrize("method", rl.CLUSTERINGS)
def test_ari_is_one_for_representations_built_to_group_by_pool(how, method):
    by_in = rl.pool_ari(ENV, pool_hidden(ENV.task_in_pool(ROUTES)), ALL.task, ALL.stimulus, how, method)
    np.testing.assert_allclose(by_in["in_pool"], 1.0)
    assert np.all(by_in["out_pool"] < 0.1)  # input pools cut across output pools
    by_out = rl.pool_ari(ENV, pool_hidden(ENV.task_out_pool(ROUTES)), ALL.task, ALL.stimulus, how, method)
    np.testing.assert_allclose(by_out["out_pool"], 1.0)


@pytest.mark.parametrize("method, n_draws, band", [("agglomerative", 200, 0.04), ("kmeans", 15, 0.1)])
def test_ari_is_near_zero_for_random_representations(method, n_draws, band):
    # 12 tasks into 4 clusters: one draw's ARI has sd ~0.11, so the band (3.5 to 4.5 sd of the
    # mean of n_draws) is on the mean; no draw may look like a pool grouping
    reps = np.random.default_rng(1).standard_normal((n_draws, 12, 50))
    ari = rl.ari_over_time(reps, ENV.task_in_pool(ROUTES), 4, method)
    assert abs(ari.mean()) < band, ari.mean()
    assert ari.max() < 0.7


def test_order_agreement_spearman_and_permutation_p_value():
    times = np.array([5.0, 1.0, 3.0, 2.0, 8.0, 13.0, 21.0, 0.5, 34.0, 55.0])
    same = rl.order_agreement(times, times * 2 + 1, n_permutations=2000)
    assert same["rho"] == pytest.approx(1.0)
    assert same["p_permutation"] < 0.005 and same["p_value"] < 1e-6
    reversed_ = rl.order_agreement(times, -times, n_permutations=2000)
    assert reversed_["rho"] == pytest.approx(-1.0) and reversed_["p_permutation"] < 0.005
    noise = np.random.default_rng(2).permutation(times)
    loose = rl.order_agreement(times, noise, n_permutations=2000)
    assert -1 <= loose["rho"] <= 1 and 0 < loose["p_permutation"] <= 1
    assert loose["p_permutation"] == pytest.approx(loose["p_value"], abs=0.1)
    with_ties = rl.order_agreement([1.0, 2.0, np.inf, np.inf], [1.0, 2.0, 3.0, 3.0], n_permutations=200)
    assert with_ties["rho"] == pytest.approx(1.0)


def test_run_route_learning_records_per_task_losses_and_hidden_activity():
    out = rl.run_route_learning(ENV, seeds=(0, 1), g=0.5, learning_rate=0.05, n_iterations=20, n_snapshots=3,
                                n_hidden=16, n_train=60)
    assert out["iterations"].tolist() == [0, 10, 20]
    assert out["task_loss_train"].shape == out["task_loss_all"].shape == (2, 3, 12)
    assert out["hidden"].shape == (2, 3, 972, 16) and out["x_train"].shape == (2, 60, 24)
    # snapshot 0 against the initial network computed here
    net = MultitaskNet.for_environment(ENV, 16)
    params = jax.tree.map(lambda a: a[1], scaled_initial_params(net, (0, 1), 0.5))
    errors = np.sum((np.asarray(net.apply(params, ALL.x), float) - ALL.y) ** 2, axis=1)
    expected = np.array([errors[ALL.task == t].mean() for t in ROUTES])
    np.testing.assert_allclose(out["task_loss_all"][1, 0], expected, rtol=1e-5)
    np.testing.assert_allclose(out["hidden"][1, 0], net.hidden(params, ALL.x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["outputs"][1, 0], net.apply(params, ALL.x), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["all_x"], ALL.x)
    np.testing.assert_array_equal(out["all_y"], ALL.y)
    x, y = out["x_train"][1], out["y_train"][1]
    train_errors = np.sum((np.asarray(net.apply(params, x), float) - y) ** 2, axis=1)
    task = x[:, ENV.n_stimulus_units:].argmax(axis=1)
    seen = np.bincount(task, minlength=12) > 0
    expected_train = np.array([train_errors[task == t].mean() if seen[t] else np.nan for t in ROUTES])
    np.testing.assert_allclose(out["task_loss_train"][1, 0], expected_train, rtol=1e-5)
    losses = out["task_loss_train"]
    assert np.all(np.nanmean(losses[:, -1], axis=1) < np.nanmean(losses[:, 0], axis=1))  # it learns


@pytest.mark.parametrize("call, name", [
    (lambda: rl.task_representations(np.zeros((972, 4)), ALL.task, ALL.stimulus, "bogus"), "how"),
    (lambda: rl.task_representations(np.zeros((13, 4)), ALL.task[:13], ALL.stimulus[:13], "profile"), "profile"),
    (lambda: rl.cluster_tasks(np.zeros((12, 3)), 4, "dbscan"), "method"),
    (lambda: rl.cluster_tasks(np.zeros((12, 3)), 13), "n_clusters"),
    (lambda: rl.ari_over_time(np.zeros((2, 12, 3)), np.zeros(11), 4), "labels"),
    (lambda: rl.order_agreement([1.0, 2.0, 3.0], [1.0, 2.0]), "predicted_times"),
    (lambda: rl.order_agreement([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]), "distinct"),
    (lambda: rl.order_agreement([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], n_permutations=0), "n_permutations"),
    (lambda: rl.observed_route_order(np.ones((3, 12)), np.arange(3), fraction=0.0), "fraction"),
    (lambda: rl.run_route_learning(ENV, g=-1.0), "g"),
    (lambda: rl.run_route_learning(ENV, scaling="output"), "scaling"),
    (lambda: rl.run_route_learning(ENV, n_iterations=25, n_snapshots=3), "n_iterations"),
    (lambda: rl.run_route_learning(ENV, seeds=(-1,)), "seeds"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
