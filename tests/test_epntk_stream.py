"""The streamed ePNTK (lib.experiments.epntk_stream) and the step-integrated eNTK
(lib.core.step_kernels) of the multitask network: small network, short runs, float64."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.experiments import epntk_stream as es
from lib.core import kernels, step_kernels
from lib.core.losses import squared_error
from lib.core.models import LinearNet, MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.core.training import train

ENV = TaskEnvironment()


def small_problem(init="standard", seed=0, n_hidden=16, n_train=40, n_test=30):
    net = MultitaskNet.for_environment(ENV, n_hidden=n_hidden)
    params = net.init(jax.random.PRNGKey(seed), init, dtype=jnp.float64)
    train_set, test_set = ENV.make_data(seed, n_train, n_test)
    data = {"x_eval": jnp.asarray(np.concatenate([train_set.x, test_set.x])), "x_train": jnp.asarray(train_set.x),
            "y_train": jnp.asarray(train_set.y)}
    return net, params, data


def plain_gd(model, params, data, lr, n_steps):
    """Weights after each step, by an independent loop (theta - lr * grad)."""
    grad = jax.jit(jax.grad(lambda p: squared_error(model.apply(p, data["x_train"]), data["y_train"])))
    trajectory = [params]
    for _ in range(n_steps):
        trajectory.append(jax.tree.map(lambda w, g: w - lr * g, trajectory[-1], grad(trajectory[-1])))
    return trajectory


def test_every_step_path_is_the_papers_epntk_along_the_training_trajectory():
    net, params, data = small_problem()
    lr, n_steps = 0.05, 60
    final, snaps, paths = es.stream_epntk(net, params, data, lr, n_steps, n_snapshots=7, keep_paths=(0, 3, 6),
                                          distinct=False)
    _, reference = kernels.epntk(net, params, data["x_eval"], data["x_train"], data["y_train"], lr, n_steps, 3)
    # the same sums in the same order, but separately compiled programs (XLA may fuse them
    # differently on another CPU): float64 agreement, not bit-identity
    np.testing.assert_allclose(paths, np.asarray(reference), rtol=1e-12, atol=1e-12 * np.abs(reference).max())
    trained, _ = train(net, params, {k: data[k] for k in ("x_train", "y_train")}, lr, n_steps, 2, engine="reference")
    for name in params:  # the same gradient descent as lib.core.training
        np.testing.assert_allclose(final[name], trained[name], rtol=1e-12, atol=1e-12, err_msg=name)
    assert paths.shape == (3, 9, 70, 40) and snaps["estimate"].shape == (7, 70, 9)
    np.testing.assert_allclose(snaps["estimate"][3], paths[1].sum(axis=2).T, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("path_kernel", es.PATH_KERNELS)
@pytest.mark.parametrize("batched", [False, True])
def test_kernels_on_distinct_patterns_equal_the_kernels_on_every_pattern(path_kernel, batched):
    """Training sets with many repeats (and kernel rows with repeats): the default computes each
    node kernel once per distinct row and pattern and must give the same paths and observations."""
    net = MultitaskNet.for_environment(ENV, n_hidden=16)
    datasets, weights = [], []
    for seed in (4, 5):
        train_set, test_set = ENV.make_data(seed, 30, 20)
        repeat = np.random.default_rng(seed).integers(0, 30, 50)  # 80 patterns, at most 30 distinct
        x_eval = np.concatenate([train_set.x, test_set.x, test_set.x[:7]])
        datasets.append({"x_eval": x_eval, "x_train": np.concatenate([train_set.x, train_set.x[repeat]]),
                         "y_train": np.concatenate([train_set.y, train_set.y[repeat]])})
        weights.append(net.init(jax.random.PRNGKey(seed), "large", dtype=jnp.float64))
    distinct = es.distinct_patterns(datasets[0])
    assert distinct["x_train_distinct"].shape[0] <= 30 and distinct["x_eval_distinct"].shape[0] <= 50
    np.testing.assert_array_equal(distinct["x_train_distinct"][distinct["train_index"]], datasets[0]["x_train"])
    np.testing.assert_array_equal(distinct["x_eval_distinct"][distinct["eval_index"]], datasets[0]["x_eval"])
    np.testing.assert_array_equal(distinct["train_counts"], np.bincount(distinct["train_index"]))
    padded = es.distinct_patterns({k: np.stack([d[k] for d in datasets]) for k in datasets[0]}, batched=True)
    assert padded["train_counts"].sum(axis=1).tolist() == [80, 80]  # padding: zero rows with count 0
    if batched:
        data = {k: jnp.asarray(np.stack([d[k] for d in datasets])) for k in datasets[0]}
        params, lr = jax.tree.map(lambda *w: jnp.stack(w), *weights), jnp.asarray([0.02, 0.01])
    else:
        data, params, lr = {k: jnp.asarray(v) for k, v in datasets[0].items()}, weights[0], 0.02
    run = lambda distinct: es.stream_epntk(net, params, data, lr, 40, n_snapshots=5, node_every=((20, 1), (40, 5)),
                                           path_kernel=path_kernel, keep_paths=(2, 4), batched=batched,
                                           distinct=distinct)
    (final, snaps, paths), (final_all, snaps_all, paths_all) = run(True), run(False)
    assert np.abs(paths).max() > 0
    np.testing.assert_allclose(paths, paths_all, rtol=1e-11, atol=1e-15)
    np.testing.assert_allclose(snaps["estimate"], snaps_all["estimate"], rtol=1e-11, atol=1e-15)
    for name in final:  # count-weighted steps on the distinct patterns: the same descent
        np.testing.assert_allclose(final[name], final_all[name], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("node_every", [5, ((10, 1), (60, 5)), ((20, 2), (40, 10), (60, 5))])
def test_time_quadrature_is_the_trapezoid_rule_of_the_left_sum(node_every):
    net, params, data = small_problem(seed=1)
    lr, n_steps = 0.05, 60
    _, _, paths = es.stream_epntk(net, params, data, lr, n_steps, n_snapshots=7, node_every=node_every,
                                  keep_paths=(0, 4, 6))
    trajectory = plain_gd(net, params, data, lr, n_steps)
    f = lambda t: np.asarray(kernels.entk(net, trajectory[t], data["x_eval"], data["x_train"], data["y_train"]))
    phases = es.node_phases(node_every, n_steps, 10)
    start, manual, at = 0, 0.0, {}
    for until, s in phases:  # panels [a, a + s]: (s + 1)/2 on the left node, (s - 1)/2 on the right one
        for a in range(start, until, s):
            manual = manual - lr * ((s + 1) / 2 * f(a) + (s - 1) / 2 * f(a + s))
            at[a + s] = manual
        start = until
    np.testing.assert_allclose(paths[1], at[40], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(paths[2], at[60], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(paths[0], 0.0)
    every_step = -lr * sum(f(t) for t in range(n_steps))
    error = np.abs(paths[2] - every_step).max() / np.abs(every_step).max()
    assert 1e-6 < error < 0.01  # an approximation of the every-step sum, and a close one


@pytest.mark.parametrize("init, lr", [("standard", 0.05), ("large", 0.01)])
def test_step_kernel_reproduces_one_step_where_the_entk_does_not(init, lr):
    net, params, data = small_problem(init, n_hidden=200, n_train=200)
    x_eval, x_train, y_train = data["x_eval"], data["x_train"], data["y_train"]
    actual, euler = kernels.one_step_change(net, params, x_eval, x_train, y_train, lr)
    step = -lr * step_kernels.step_entk(net, params, x_eval, x_train, y_train, lr, 8).sum(axis=2).T
    rel = lambda a: float(jnp.linalg.norm(a - actual) / jnp.linalg.norm(actual))
    assert rel(euler) > 1e-3  # a large step: first order is visibly off
    assert rel(step) < 1e-4 * rel(euler)
    np.testing.assert_allclose(step_kernels.step_entk(net, params, x_eval[:9], x_train[:11], y_train[:11], lr, 3),
                               step_kernels.step_entk_jacobian(net, params, x_eval[:9], x_train[:11], y_train[:11], lr, 3),
                               rtol=1e-10, atol=1e-12)


def test_step_kernel_of_a_generic_model_and_its_small_step_limit():
    model = LinearNet(4, 3, 5)
    params = model.init(jax.random.PRNGKey(0), scale=1.0, dtype=jnp.float64)
    x = jax.random.normal(jax.random.PRNGKey(1), (12, 4))
    y = x @ jax.random.normal(jax.random.PRNGKey(2), (5, 4)).T
    lr = 0.05
    stepped = kernels.gradient_step(model, params, x, y, lr)
    actual = model.apply(stepped, x) - model.apply(params, x)
    step = -lr * step_kernels.step_entk(model, params, x, x, y, lr, 2).sum(axis=2).T  # quadratic in u: 2 points are exact
    np.testing.assert_allclose(step, actual, rtol=1e-10, atol=1e-12)
    tiny = step_kernels.step_entk(model, params, x, x, y, 1e-12, 2)
    np.testing.assert_allclose(tiny, kernels.entk(model, params, x, x, y), rtol=1e-7)


def test_step_path_reconstructs_the_learned_change_on_train_and_test_inputs():
    net, params, data = small_problem("large", seed=2)
    lr, n_steps = 0.02, 40
    _, snaps, _ = es.stream_epntk(net, params, data, lr, n_steps, n_snapshots=5, path_kernel="step")
    change = snaps["outputs"] - snaps["outputs"][0]
    for rows in (slice(0, 40), slice(40, None)):  # training inputs, test inputs
        error = jnp.linalg.norm(snaps["estimate"][-1, rows] - change[-1, rows]) / jnp.linalg.norm(change[-1, rows])
        assert error < 1e-9
    _, euler, _ = es.stream_epntk(net, params, data, lr, n_steps, n_snapshots=5)
    assert jnp.linalg.norm(euler["estimate"][-1] - change[-1]) / jnp.linalg.norm(change[-1]) > 1e-3


def test_euler_path_converges_at_first_order_in_the_learning_rate():
    net, params, data = small_problem(seed=3)
    errors = []
    for h in range(4):  # lr x steps fixed
        lr, n_steps = 0.04 / 2**h, 25 * 2**h
        _, snaps, _ = es.stream_epntk(net, params, data, lr, n_steps, n_snapshots=2)
        change = snaps["outputs"][-1] - snaps["outputs"][0]
        errors.append(float(jnp.linalg.norm(snaps["estimate"][-1] - change) / jnp.linalg.norm(change)))
    for big, small in zip(errors, errors[1:]):
        assert 1.7 < big / small < 2.3, errors


@pytest.mark.parametrize("bad, match", [
    (dict(node_every=3), "node_every"),
    (dict(node_every=((30, 1), (50, 5))), "node_every"),
    (dict(node_every=((20, 1), (10, 5), (60, 5))), "node_every"),
    (dict(path_kernel="midpoint"), "path_kernel"),
    (dict(keep_paths=(7,)), "keep_paths"),
    (dict(learning_rate=-1.0), "learning_rate"),
])
def test_bad_arguments_stop_with_a_message_naming_them(bad, match):
    net, params, data = small_problem()
    arguments = dict(learning_rate=0.05, n_iterations=60, n_snapshots=4) | bad
    with pytest.raises(ValueError, match=match):
        es.stream_epntk(net, params, data, **arguments)
