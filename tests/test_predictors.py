"""Known answers for the continuum's per-network measures (lib.analyses.network_measures), its sweep
points (continuum_points), sweeps (continuum_sweeps) and the robustness runs (robustness)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.experiments import continuum
from lib.analyses import continuum_points, continuum_sweeps, network_measures, robustness
from lib.core.kernels import ntk
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from tests.references import linear_cka

ENV = TaskEnvironment()


@pytest.fixture(scope="module")
def small():
    net = MultitaskNet.for_environment(ENV, n_hidden=16)
    params = net.init(jax.random.PRNGKey(3), "standard", weight_range=0.5)
    train, test = ENV.make_data(0, 30, 20)
    return net, params, train, test


def test_traced_ntk_matches_full_ntk(small):
    net, params, train, _ = small
    x = jnp.asarray(train.x[:12], jnp.float32)
    full = np.asarray(ntk(net, params, x, x))  # (N, M, K, K)
    np.testing.assert_allclose(network_measures.traced_ntk(net, params, x, x), np.einsum("nmkk->nm", full), rtol=1e-4,
                               atol=1e-7)


def test_alignment_known_answers():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(10, 4))
    k = a @ a.T
    assert network_measures.centered_alignment(k, k) == pytest.approx(1.0)
    assert network_measures.centered_alignment(k, 3.0 * k + 5.0) == pytest.approx(1.0)  # scale and constant invariant
    y = rng.normal(size=(10, 3))
    assert network_measures.kernel_target_alignment(y @ y.T, y) == pytest.approx(1.0)
    # orthogonal after centering: a kernel of one centered feature vs a target orthogonal to it
    u = np.array([1.0, -1.0, 1.0, -1.0])
    v = np.array([1.0, 1.0, -1.0, -1.0])
    assert network_measures.kernel_target_alignment(np.outer(u, u), v[:, None]) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="kernels"):
        network_measures.centered_alignment(k, k[:5, :5])


def test_kernel_distance_known_answers():
    k = np.eye(3) + 1.0
    assert network_measures.kernel_distance(k, 2.5 * k) == pytest.approx(0.0, abs=1e-12)
    assert network_measures.kernel_distance(np.diag([1.0, 0.0]), np.diag([0.0, 1.0])) == pytest.approx(1.0)


def test_entk_alignment_equals_actual_first_step(small):
    """As lr -> 0 one gradient step changes the outputs by the eNTK prediction."""
    from lib.core.kernels import gradient_step

    net, params, train, test = small
    lr = 1e-4
    stepped = gradient_step(net, params, jnp.asarray(train.x), jnp.asarray(train.y), lr)
    change = np.asarray(net.apply(stepped, jnp.asarray(test.x)) - net.apply(params, jnp.asarray(test.x)), np.float64)
    needed = test.y - np.asarray(net.apply(params, jnp.asarray(test.x)))
    expected = float(np.sum(change * needed) / (np.linalg.norm(change) * np.linalg.norm(needed)))
    got = network_measures.entk_target_alignment(net, params, train.x, train.y, test.x, test.y)
    assert got == pytest.approx(expected, abs=2e-3)
    # on its own training patterns a gradient step always reduces the loss: positive alignment
    assert network_measures.entk_target_alignment(net, params, train.x, train.y, train.x, train.y) > 0


def test_linear_cka_known_answers():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(50, 6))
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    assert linear_cka(a, a @ q * 3.0 + 1.0) == pytest.approx(1.0)  # rotation, scale, offset invariant
    assert linear_cka(a, rng.normal(size=(50, 6))) < 0.3


def test_task_pair_cka_equals_the_pairwise_definition():
    rng = np.random.default_rng(2)
    hidden = rng.normal(size=(ENV.n_tasks, 81, 30)) * rng.uniform(0.1, 10, size=(ENV.n_tasks, 1, 1))
    hidden[3] = 0.5  # a constant representation: CKA undefined
    pairs, _ = network_measures.task_pair_kinds(ENV)
    expected = [linear_cka(hidden[a], hidden[b]) for a, b in pairs]
    np.testing.assert_allclose(network_measures.task_pair_cka(hidden, pairs), expected, rtol=1e-12, atol=1e-15)


def test_sharing_index_of_pool_codes():
    """Task representations that encode exactly their input pool's feature: pairs sharing the
    input pool have CKA 1, all others 0 (independent pools), so the index is 12 / 30 = 0.4."""
    stimuli = ENV.all_stimuli  # (81, 4)
    codes = np.stack([np.eye(ENV.n_features)[stimuli[:, ENV.task_in_pool(t)]] for t in range(ENV.n_tasks)])
    assert network_measures.sharing_index(ENV, codes) == pytest.approx(12 / 30)
    same = np.broadcast_to(np.eye(ENV.n_features)[stimuli[:, 0]], codes.shape)
    assert network_measures.sharing_index(ENV, same) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="hidden_by_task"):
        network_measures.sharing_index(ENV, codes[:5])


def test_hidden_by_task_layout(small):
    net, params, _, _ = small
    h = network_measures.hidden_by_task(ENV, net, params)
    assert h.shape == (ENV.n_tasks, 81, 16)
    stim, task = 7, 5
    x = ENV.encode(ENV.all_stimuli[[stim]], np.eye(ENV.n_tasks, dtype=np.int8)[[task]]).x
    np.testing.assert_allclose(h[task, stim], np.asarray(net.hidden(params, jnp.asarray(x, jnp.float32)))[0],
                               rtol=1e-6)


def test_outcome_helpers():
    p0 = {"a": np.array([3.0, 4.0])}
    assert network_measures.relative_weight_change(p0, {"a": np.array([3.0, 4.0])}) == 0.0
    assert network_measures.relative_weight_change(p0, {"a": np.array([6.0, 8.0])}) == pytest.approx(1.0)
    it = np.array([0, 10, 20, 30])
    assert network_measures.iterations_to_criterion(it, np.array([1.0, 0.5, 0.05, 0.01]), 0.1) == (20.0, True)
    assert network_measures.iterations_to_criterion(it, np.array([1.0, 0.5, 0.4, 0.3]), 0.1) == (30.0, False)
    assert network_measures.learning_speed(np.array([2.0, 0.5, 0.1])) == pytest.approx(0.75)
    y0, y1 = np.zeros(4), np.ones(4)
    assert network_measures.linearization_gap(y1, y1, y0) == 0.0
    assert network_measures.linearization_gap(y1, y0, y0) == pytest.approx(1.0)


def test_linearized_net_equals_net_as_lr_goes_to_zero():
    """Trained with a tiny learning rate, the network and its linearization stay together:
    their output difference shrinks like lr^2 while their change shrinks like lr."""
    from lib.core.training import train_many

    net = MultitaskNet.for_environment(ENV, n_hidden=8)
    params0 = continuum.scaled_initial_params(net, [0], 5.0)
    train, _ = ENV.make_data(0, 40, 10)
    data = {"x_train": jnp.asarray(train.x[None], jnp.float32), "y_train": jnp.asarray(train.y[None], jnp.float32)}
    x = data["x_train"][0]
    gaps = []
    for lr in (1e-3, 1e-4):
        p_net, _ = train_many(net, params0, data, jnp.array([lr]), 10, 2, engine="reference")
        lin = continuum.LinearizedNet(net)
        p_lin, _ = train_many(lin, {"theta": params0, "theta0": params0}, data, jnp.array([lr]), 10, 2,
                              engine="reference")
        np.testing.assert_array_equal(p_lin["theta0"]["w_hidden"], params0["w_hidden"])  # theta0 never moves
        first = lambda p: jax.tree.map(lambda a: a[0], p)
        y_net = np.asarray(net.apply(first(p_net), x), np.float64)
        y_lin = np.asarray(lin.apply({"theta": first(p_lin["theta"]), "theta0": first(params0)}, x), np.float64)
        y0 = np.asarray(net.apply(first(params0), x), np.float64)
        gaps.append(network_measures.linearization_gap(y_net, y_lin, y0))
    assert gaps[1] < 0.3 * gaps[0]  # relative gap ~ lr: 10x smaller lr, about 10x smaller gap
    assert gaps[1] < 1e-2


def test_scaled_params_are_the_standard_draw_times_g():
    net = MultitaskNet.for_environment(ENV, n_hidden=8)
    std = net.init(jax.random.PRNGKey(4), "standard")
    both = continuum.scaled_initial_params(net, [4], 10.0, "both")
    hidden = continuum.scaled_initial_params(net, [4], 10.0, "hidden")
    large = net.init(jax.random.PRNGKey(4), "large")
    np.testing.assert_allclose(both["w_hidden"][0], large["w_hidden"], rtol=1e-6)
    np.testing.assert_allclose(both["w_output"][0], large["w_output"], rtol=1e-6)
    np.testing.assert_allclose(hidden["w_output"][0], std["w_output"], rtol=1e-6)
    with pytest.raises(ValueError, match="scaling"):
        continuum.scaled_initial_params(net, [4], 10.0, "output")
    with pytest.raises(ValueError, match="g must be"):
        continuum.layer_multipliers(-1.0, "both")


def test_route_data_holds_out_one_task():
    pre, route = continuum.route_data(ENV, 5, 100)
    held = continuum.held_out_task(5, ENV.n_tasks)
    assert held not in set(pre.task)
    assert set(route.task) == {held} and len(route) == 81


def test_learning_rate_choice():
    assert continuum_points.choose_learning_rate([0.01, 0.1], [np.array([0.5, 0.4]), np.array([0.1, np.nan])]) == 0.01
    assert continuum_points.choose_learning_rate([0.01, 0.1], [np.array([0.5, 0.4]), np.array([0.1, 0.2])]) == 0.1
    with pytest.raises(ValueError, match="diverged"):
        continuum_points.choose_learning_rate([0.1], [np.array([np.inf])])


def test_point_parameters_are_checked():
    with pytest.raises(ValueError, match="unknown"):
        continuum_points.outcome_point.check_parameters({"gg": 1.0})
    with pytest.raises(ValueError, match="scaling"):
        continuum_points.predictor_point.check_parameters({"scaling": "all"})
    with pytest.raises(ValueError, match="lr"):
        continuum_points.outcome_point.check_parameters({"lr": -1.0})
    assert continuum_points.lr_point.check_parameters({"g": 2.0})["n_iterations"] == 500
    with pytest.raises(ValueError, match="engine must be one of"):
        continuum_points.outcome_point.check_parameters({"engine": "jax"})
    assert continuum_points.outcome_point.check_parameters({})["engine"] == "numba"  # and so in every cache key


@pytest.mark.parametrize("g", [1.0, 10.0])
def test_explicit_linearized_descent_equals_autodiff_of_the_linearization(g):
    """train_linearized (the Jacobian written out) against jax.grad of LinearizedNet's jvp, through
    the reference training loop: weights and losses at every snapshot equal to float32 rounding."""
    from lib.core.training import train_many

    net = MultitaskNet.for_environment(ENV, n_hidden=16)
    params0 = continuum.scaled_initial_params(net, [0, 1, 2], g)
    sets = [ENV.make_data(s, 40, 10)[0] for s in (0, 1, 2)]
    x = jnp.asarray(np.stack([d.x for d in sets]), jnp.float32)
    y = jnp.asarray(np.stack([d.y for d in sets]), jnp.float32)
    lrs = jnp.array([0.05, 0.02, 0.01])
    fast, losses = continuum.train_linearized(net, params0, x, y, lrs, 60, 7)
    lin = continuum.LinearizedNet(net)
    reference, snaps = train_many(lin, {"theta": params0, "theta0": params0}, {"x_train": x, "y_train": y}, lrs, 60, 7,
                                  engine="reference")
    for key in fast:
        ref = np.asarray(reference["theta"][key])
        np.testing.assert_allclose(fast[key], ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max(), err_msg=key)
    assert not np.allclose(fast["w_hidden"], params0["w_hidden"], atol=1e-4)  # the descent moved the weights
    np.testing.assert_allclose(losses, snaps["loss_train"], rtol=1e-5)


def test_continuum_runs_with_the_kernel_equal_the_reference():
    """The continuum's networks train with the CPU kernel by default; the same runs with the
    reference engine agree to float32 tolerance (the linearized network is always reference)."""
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.continuum import run_continuum

    args = (TaskEnvironment(), [0, 1], 5.0, "both", 0.01, 40, 20, 20)
    kw = dict(n_hidden=16, n_train=40, n_test=30)
    kernel, reference = run_continuum(*args, **kw), run_continuum(*args, **kw, engine="reference")
    for key in ("single/loss_test", "finetune/loss_test", "route/loss_route", "params_single/w_hidden",
                "params_route_pre/w_output"):
        np.testing.assert_allclose(kernel[key], reference[key], rtol=1e-5, atol=1e-5 * np.abs(reference[key]).max(),
                                   err_msg=key)
    np.testing.assert_array_equal(kernel["linearized/loss_train"], reference["linearized/loss_train"])


def test_fast_loadings_equal_full_svd():
    from lib.analyses.entk_vectors import leading_vectors

    rng = np.random.default_rng(2)
    e = rng.normal(size=(3, 40, 40)) + 2.0
    np.testing.assert_allclose(robustness.principled_loadings_fast(e), leading_vectors(e, "principled"), atol=1e-8)


def test_silhouette_controls_match_their_definitions(small):
    from lib.analyses.entk_vectors import silhouette_of_loadings
    from lib.experiments.schedules import entk_at_init

    net, params, train, test = small
    eps = 2.0 * (np.asarray(net.apply(params, jnp.asarray(train.x, jnp.float32))) - train.y)
    assert network_measures.epsilon_silhouette(net, params, train.x, train.y) == pytest.approx(
        silhouette_of_loadings(eps), abs=1e-6)
    result = {"x_train": train.x[None], "y_train": train.y[None], "x_test": test.x[None],
              "params_initial/w_hidden": np.asarray(params["w_hidden"])[None, None],
              "params_initial/w_output": np.asarray(params["w_output"])[None, None]}
    from lib.analyses.entk_vectors import leading_vectors
    reference = silhouette_of_loadings(leading_vectors(entk_at_init(ENV, result, 0, "standard"), "principled"))
    got = network_measures.entk_silhouette(net, params, train.x, train.y, test.x, "principled")
    assert got == pytest.approx(reference, abs=1e-6)


def test_binary_comparison_counts():
    single = np.array([[1.0, 2.0], [3.0, 1.0], [1.0, 1.5]])
    train = np.stack([np.stack([[1.0, 0.05], [1.0, 0.5]])] * 3)  # large never falls below 10%
    out = robustness.binary_comparison(single, single[:, ::-1], train, train)
    assert out["single/standard_wins"] == 2 and out["single/large_wins"] == 1
    assert out["finetune/standard_wins"] == 1
    assert out["single/not_converged_standard"] == 0 and out["single/not_converged_large"] == 3


def test_scale_grid():
    grid = continuum_sweeps.scale_grid(0.1, 20.0, 10)
    assert len(grid) == 10 and grid[0] == 0.1 and grid[-1] == 20.0 and 1.0 in grid and 10.0 in grid


def test_points_run_end_to_end_and_are_deterministic():
    p = {"g": 3.0, "n_seeds": 2, "n_hidden": 8, "n_train": 24, "n_test": 24}
    a = continuum_points.predictor_point(p)
    assert set(a) == set(continuum_points.CONTINUUM_PREDICTORS) and all(v.shape == (2,) for v in a.values())
    o = {**p, "n_single": 20, "n_finetune": 10, "n_route": 10}
    b, c = continuum_points.outcome_point(o), continuum_points.outcome_point(o)
    for k in continuum_points.CONTINUUM_OUTCOMES:
        assert b[k].shape == (2,)
        np.testing.assert_array_equal(b[k], c[k])


def test_medians_by_scale():
    nets = {"scaling": np.array(["both"] * 4), "lr_kind": np.array(["paper"] * 4), "g": np.array([1.0, 1, 2, 2]),
            "x": np.array([1.0, 3.0, 5.0, 7.0])}
    gs, med = continuum_sweeps.medians_by_scale(nets, "x")
    np.testing.assert_array_equal(gs, [1.0, 2.0])
    np.testing.assert_array_equal(med, [2.0, 6.0])


def test_nan_summaries_equal_numpys_and_are_quiet_on_an_all_nan_scale():
    import warnings

    values = np.array([3.0, np.nan, 1.0, 8.0, 2.0])
    assert continuum_sweeps.nan_median(values) == np.nanmedian(values)
    np.testing.assert_array_equal(continuum_sweeps.nan_quartiles(values), np.nanpercentile(values, [25, 50, 75]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(continuum_sweeps.nan_median([np.nan, np.nan]))
        assert np.isnan(continuum_sweeps.nan_quartiles([np.nan])).all()


def test_transition_midpoint_interpolates_in_log_scale():
    gs = np.array([0.1, 1.0, 10.0, 100.0])
    assert continuum_sweeps.transition_midpoint(gs, np.array([0.0, 0.0, 1.0, 1.0])) == pytest.approx(np.sqrt(10.0))
    assert continuum_sweeps.transition_midpoint(gs, np.array([1.0, 1.0, 0.0, 0.0])) == pytest.approx(np.sqrt(10.0))
    assert continuum_sweeps.transition_midpoint(gs, np.array([0.0, 1.0, 2.0, 3.0])) == pytest.approx(np.sqrt(10.0))
    assert np.isnan(continuum_sweeps.transition_midpoint(gs, np.ones(4)))
    assert np.isnan(continuum_sweeps.transition_midpoint(gs[:1], np.ones(1)))
