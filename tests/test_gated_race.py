"""The gated deep linear network's reduction (lib.experiments.gated_race) against direct
simulation and the closed form, and the race's claim that shared pathways are learned first."""

import numpy as np
import pytest

from lib.core.tasks import TaskEnvironment
from lib.experiments import gated_race as gr

ENV = TaskEnvironment()


@pytest.fixture(scope="module")
def sampled():
    """The i.i.d. single-task training set of seed 0 (500 patterns), as the sigmoid network's."""
    train, _ = ENV.make_data(0, 500, 1)
    return train


@pytest.fixture(scope="module")
def random_start_runs(sampled):
    """The full 4-family network from small random weights (H = 64, sigma = 1e-4) and its reduction."""
    arch = gr.GatedArchitecture(ENV)
    counts, n = gr.route_statistics(ENV, sampled.x, sampled.y)
    b_in, b_out = gr.matched_initial_edges(arch, 1e-4, 64)
    direct = gr.simulate_direct(arch, gr.random_weights(arch, 64, 1e-4, seed=3), sampled.x, sampled.y, 1.0, 1600, 81)
    reduced = gr.simulate_reduced(arch, counts, n, b_in, b_out, 1.0, 1600, 81)
    return arch, direct, reduced


def test_one_pathway_reduction_equals_direct_simulation_and_the_closed_form():
    env = TaskEnvironment(1, 1, 3)
    arch = gr.GatedArchitecture(env, ("shared",))
    data = env.all_patterns()  # 3 patterns, one per feature: s = d = 1/3 per mode
    counts, n = gr.route_statistics(env, data.x, data.y)
    assert counts.tolist() == [[1.0, 1.0, 1.0]] and n == 3
    b0 = 0.05
    b = np.full((1, 3), b0)
    lr, steps = 0.01, 4000
    direct = gr.simulate_direct(arch, gr.decoupled_weights(arch, b, b, 5, seed=1), data.x, data.y, lr, steps, 41)
    reduced = gr.simulate_reduced(arch, counts, n, b, b, lr, steps, 41)
    np.testing.assert_allclose(direct["route_loss"], reduced["route_loss"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(direct["path_strength"], reduced["path_strength"], rtol=0, atol=1e-12)
    u = gr.sigmoid_mode(reduced["time"], 1 / 3, 1 / 3, b0 ** 2)
    assert u[-1] > 0.99 and u[0] < 0.01  # the whole sigmoid is covered
    error = np.abs(reduced["path_strength"][:, 0, :] - u[:, None]).max()
    assert error < 5e-3, error  # forward Euler with lr = 0.01 against gradient flow
    np.testing.assert_allclose(reduced["route_loss"][:, 0], 0.5 * (1 - u) ** 2, atol=5e-3)
    wrong_rate = gr.sigmoid_mode(reduced["time"], 1 / 3, 1 / 3, b0 ** 2, rate=1.5)
    assert np.abs(reduced["path_strength"][:, 0, 0] - wrong_rate).max() > 0.1  # the comparison can fail


def test_shared_module_follows_the_closed_form_with_rate_sqrt_of_its_context_counts():
    data = ENV.all_patterns()  # every route and feature equally often: s = d = 27 / 972
    arch = gr.GatedArchitecture(ENV, ("shared",))
    counts, n = gr.route_statistics(ENV, data.x, data.y)
    b_in, b_out = gr.matched_initial_edges(arch, 1e-3, 32)
    reduced = gr.simulate_reduced(arch, counts, n, b_in, b_out, 0.05, 3000, 31)
    s = 27 / 972
    rate = arch.effective_rate("shared")
    assert rate == pytest.approx(np.sqrt(12))
    u = gr.sigmoid_mode(reduced["time"], s, s, b_in[0, 0] * b_out[0, 0], rate)
    assert u[-1] > 0.99
    assert np.abs(reduced["path_strength"] - u[:, None, None]).max() < 1e-2


def test_reduction_equals_direct_simulation_from_a_decoupled_start_for_the_full_network(sampled):
    arch = gr.GatedArchitecture(ENV)
    assert (len(arch.modules), len(arch.in_edges), len(arch.out_edges), len(arch.paths["route"])) == (20, 32, 30, 48)
    counts, n = gr.route_statistics(ENV, sampled.x, sampled.y)
    rng = np.random.default_rng(1)
    b_in, b_out = rng.uniform(0.01, 0.05, (32, 3)), rng.uniform(0.01, 0.05, (30, 3))
    direct = gr.simulate_direct(arch, gr.decoupled_weights(arch, b_in, b_out, 8, 0), sampled.x, sampled.y, 1.0, 300, 31)
    reduced = gr.simulate_reduced(arch, counts, n, b_in, b_out, 1.0, 300, 31)
    assert reduced["route_loss"][-1].max() < 0.5 * reduced["route_loss"][0].min()  # learning happened
    np.testing.assert_allclose(direct["route_loss"], reduced["route_loss"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(direct["path_strength"], reduced["path_strength"], rtol=0, atol=1e-12)


def test_reduction_tracks_direct_simulation_from_small_random_weights(random_start_runs):
    _, direct, reduced = random_start_runs
    loss0 = reduced["route_loss"][0]
    error = np.abs(direct["route_loss"] - reduced["route_loss"]) / loss0
    assert error.max() < 0.1, error.max()
    t_direct = gr.learning_times(direct["route_loss"], direct["time"])
    t_reduced = gr.learning_times(reduced["route_loss"], reduced["time"])
    assert np.all(np.isfinite(t_reduced))
    np.testing.assert_allclose(t_direct, t_reduced, rtol=0.03)


def test_more_shared_pathways_learn_first_in_reduction_and_simulation():
    data = ENV.all_patterns()
    counts, n = gr.route_statistics(ENV, data.x, data.y)
    times = {}
    for family in gr.FAMILIES:  # one family alone per network, equal statistics
        arch = gr.GatedArchitecture(ENV, (family,))
        b_in, b_out = gr.matched_initial_edges(arch, 1e-3, 16)
        reduced = gr.simulate_reduced(arch, counts, n, b_in, b_out, 2.0, 800, 81)
        direct = gr.simulate_direct(arch, gr.random_weights(arch, 16, 1e-3, 0), data.x, data.y, 2.0, 800, 81)
        times[family] = [gr.learning_times(run["route_loss"], run["time"]).mean() for run in (reduced, direct)]
    for which in (0, 1):  # contexts per path: shared 3 x 4, out_pool 1 x 4, in_pool 3 x 1, route 1 x 1
        order = sorted(gr.FAMILIES, key=lambda family: times[family][which])
        assert order == ["shared", "out_pool", "in_pool", "route"], times


def test_shared_structure_wins_the_race_in_reduction_and_simulation(random_start_runs):
    arch, direct, reduced = random_start_runs
    for run in (reduced, direct):
        strength = gr.family_strengths(arch, run["path_strength"])
        structure = gr.structure_times(strength, run["time"], threshold=0.5)
        assert np.isfinite(structure[0]) and np.all(np.isinf(structure[1:])), structure
        assert strength[-1, 0] > 0.95 and strength[-1, 1:].max() < 0.05
        assert np.all(strength[1:, 0] > strength[1:, 1:].max(axis=1))


def test_route_times_and_order_from_hand_made_curves():
    times = np.array([0.0, 1.0, 2.0, 3.0])
    losses = np.array([[1.0, 2.0, 1.0], [0.8, 0.9, 0.9], [0.4, 0.5, 0.8], [0.1, 0.2, 0.7]])
    learned = gr.learning_times(losses, times, fraction=0.5)
    np.testing.assert_allclose(learned[:2], [1.0 + 0.3 / 0.4, 1.0 / 1.1])
    assert np.isinf(learned[2])
    assert gr.learning_order(learned).tolist() == [1, 0, 2]
    strength = np.array([[0.0, 0.0], [0.2, 0.1], [0.6, 0.2], [0.9, 0.3]])
    np.testing.assert_allclose(gr.structure_times(strength, times, 0.5), [1.75, np.inf])


def test_race_predictions_on_the_sampled_training_set(sampled):
    pred = gr.race_predictions(ENV, sampled.x, sampled.y)
    assert sorted(pred["route_order"].tolist()) == list(range(12))
    assert np.all(np.isfinite(pred["route_time"]))
    assert np.all(np.diff(pred["route_time"][pred["route_order"]]) >= 0)
    assert pred["families"].tolist() == list(gr.FAMILIES)
    assert np.isfinite(pred["family_time"][0]) and np.all(np.isinf(pred["family_time"][1:]))


@pytest.mark.parametrize("call, name", [
    (lambda: gr.GatedArchitecture(ENV, ("shared", "bogus")), "families[1]"),
    (lambda: gr.GatedArchitecture(ENV, ()), "families"),
    (lambda: gr.learning_times(np.ones((3, 2)), np.arange(3.0), fraction=1.5), "fraction"),
    (lambda: gr.learning_times(np.ones((3, 2)), np.arange(2.0)), "times"),
    (lambda: gr.sigmoid_mode(np.arange(3.0), 0.1, 0.1, -1.0), "u0"),
    (lambda: gr.matched_initial_edges(gr.GatedArchitecture(ENV), 0.0, 8), "sigma"),
    (lambda: gr.decoupled_weights(gr.GatedArchitecture(ENV), np.ones((32, 3)), np.ones((30, 3)), 2, 0), "n_hidden"),
    (lambda: gr.route_statistics(ENV, ENV.all_patterns(True).x, ENV.all_patterns(True).y), "x"),
    (lambda: gr.simulate_reduced(gr.GatedArchitecture(ENV), np.ones((12, 3)), 500, np.ones((32, 3)),
                                 np.ones((30, 3)), 1.0, 10, 4), "n_iterations"),
    (lambda: gr.simulate_reduced(gr.GatedArchitecture(ENV), np.ones((12, 2)), 500, np.ones((32, 3)),
                                 np.ones((30, 3)), 1.0, 10, 2), "counts"),
    (lambda: gr.race_predictions(ENV, ENV.all_patterns().x, ENV.all_patterns().y, learning_rate=0), "learning_rate"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("]", r"\]")):
        call()
