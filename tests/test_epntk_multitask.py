"""The streamed ePNTK of the multitask network (lib.experiments.kernel_dynamics): small network, short runs, float64."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.experiments import kernel_dynamics as kd
from lib.core import kernels
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
    final, snaps, paths = kd.stream_epntk(net, params, data, lr, n_steps, n_snapshots=7, keep_paths=(0, 3, 6),
                                          distinct=False)
    _, reference = kernels.epntk(net, params, data["x_eval"], data["x_train"], data["y_train"], lr, n_steps, 3)
    # the same sums in the same order, but separately compiled programs (XLA may fuse them
    # differently on another CPU): float64 agreement, not bit-identity
    np.testing.assert_allclose(paths, np.asarray(reference), rtol=1e-12, atol=1e-12 * np.abs(reference).max())
    trained, _ = train(net, params, {k: data[k] for k in ("x_train", "y_train")}, lr, n_steps, 2)
    for name in params:  # the same gradient descent as lib.core.training
        np.testing.assert_allclose(final[name], trained[name], rtol=1e-12, atol=1e-12, err_msg=name)
    assert paths.shape == (3, 9, 70, 40) and snaps["estimate"].shape == (7, 70, 9)
    np.testing.assert_allclose(snaps["estimate"][3], paths[1].sum(axis=2).T, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("path_kernel", kd.PATH_KERNELS)
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
    distinct = kd.distinct_patterns(datasets[0])
    assert distinct["x_train_distinct"].shape[0] <= 30 and distinct["x_eval_distinct"].shape[0] <= 50
    np.testing.assert_array_equal(distinct["x_train_distinct"][distinct["train_index"]], datasets[0]["x_train"])
    np.testing.assert_array_equal(distinct["x_eval_distinct"][distinct["eval_index"]], datasets[0]["x_eval"])
    np.testing.assert_array_equal(distinct["train_counts"], np.bincount(distinct["train_index"]))
    padded = kd.distinct_patterns({k: np.stack([d[k] for d in datasets]) for k in datasets[0]}, batched=True)
    assert padded["train_counts"].sum(axis=1).tolist() == [80, 80]  # padding: zero rows with count 0
    if batched:
        data = {k: jnp.asarray(np.stack([d[k] for d in datasets])) for k in datasets[0]}
        params, lr = jax.tree.map(lambda *w: jnp.stack(w), *weights), jnp.asarray([0.02, 0.01])
    else:
        data, params, lr = {k: jnp.asarray(v) for k, v in datasets[0].items()}, weights[0], 0.02
    run = lambda distinct: kd.stream_epntk(net, params, data, lr, 40, n_snapshots=5, node_every=((20, 1), (40, 5)),
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
    _, _, paths = kd.stream_epntk(net, params, data, lr, n_steps, n_snapshots=7, node_every=node_every,
                                  keep_paths=(0, 4, 6))
    trajectory = plain_gd(net, params, data, lr, n_steps)
    f = lambda t: np.asarray(kernels.entk(net, trajectory[t], data["x_eval"], data["x_train"], data["y_train"]))
    phases = kd.node_phases(node_every, n_steps, 10)
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
    step = -lr * kd.step_entk(net, params, x_eval, x_train, y_train, lr, 8).sum(axis=2).T
    rel = lambda a: float(jnp.linalg.norm(a - actual) / jnp.linalg.norm(actual))
    assert rel(euler) > 1e-3  # a large step: first order is visibly off
    assert rel(step) < 1e-4 * rel(euler)
    np.testing.assert_allclose(kd.step_entk(net, params, x_eval[:9], x_train[:11], y_train[:11], lr, 3),
                               kd.step_entk_jacobian(net, params, x_eval[:9], x_train[:11], y_train[:11], lr, 3),
                               rtol=1e-10, atol=1e-12)


def test_step_kernel_of_a_generic_model_and_its_small_step_limit():
    model = LinearNet(4, 3, 5)
    params = model.init(jax.random.PRNGKey(0), scale=1.0, dtype=jnp.float64)
    x = jax.random.normal(jax.random.PRNGKey(1), (12, 4))
    y = x @ jax.random.normal(jax.random.PRNGKey(2), (5, 4)).T
    lr = 0.05
    stepped = kernels.gradient_step(model, params, x, y, lr)
    actual = model.apply(stepped, x) - model.apply(params, x)
    step = -lr * kd.step_entk(model, params, x, x, y, lr, 2).sum(axis=2).T  # quadratic in u: 2 points are exact
    np.testing.assert_allclose(step, actual, rtol=1e-10, atol=1e-12)
    tiny = kd.step_entk(model, params, x, x, y, 1e-12, 2)
    np.testing.assert_allclose(tiny, kernels.entk(model, params, x, x, y), rtol=1e-7)


def test_step_path_reconstructs_the_learned_change_on_train_and_test_inputs():
    net, params, data = small_problem("large", seed=2)
    lr, n_steps = 0.02, 40
    _, snaps, _ = kd.stream_epntk(net, params, data, lr, n_steps, n_snapshots=5, path_kernel="step")
    change = snaps["outputs"] - snaps["outputs"][0]
    for rows in (slice(0, 40), slice(40, None)):  # training inputs, test inputs
        error = jnp.linalg.norm(snaps["estimate"][-1, rows] - change[-1, rows]) / jnp.linalg.norm(change[-1, rows])
        assert error < 1e-9
    _, euler, _ = kd.stream_epntk(net, params, data, lr, n_steps, n_snapshots=5)
    assert jnp.linalg.norm(euler["estimate"][-1] - change[-1]) / jnp.linalg.norm(change[-1]) > 1e-3


def test_euler_path_converges_at_first_order_in_the_learning_rate():
    net, params, data = small_problem(seed=3)
    errors = []
    for h in range(4):  # lr x steps fixed
        lr, n_steps = 0.04 / 2**h, 25 * 2**h
        _, snaps, _ = kd.stream_epntk(net, params, data, lr, n_steps, n_snapshots=2)
        change = snaps["outputs"][-1] - snaps["outputs"][0]
        errors.append(float(jnp.linalg.norm(snaps["estimate"][-1] - change) / jnp.linalg.norm(change)))
    for big, small in zip(errors, errors[1:]):
        assert 1.7 < big / small < 2.3, errors


def test_sharing_categories_partition_the_tasks():
    for env, counts in ((TaskEnvironment(4, 3, 3), [1, 2, 3, 6]), (TaskEnvironment(3, 4, 3), [1, 3, 2, 6])):
        tasks = np.arange(env.n_tasks)
        category = kd.sharing_category(env, tasks, tasks)
        np.testing.assert_array_equal(np.diag(category), 0)
        for row in category:
            np.testing.assert_array_equal(np.bincount(row, minlength=4), counts)
        in_pool, out_pool = env.task_in_pool(tasks), env.task_out_pool(tasks)
        for a, b in zip(*np.nonzero(category == 1)):
            assert in_pool[a] == in_pool[b] and out_pool[a] != out_pool[b]
        for a, b in zip(*np.nonzero(category == 2)):
            assert out_pool[a] == out_pool[b] and in_pool[a] != in_pool[b]
    with pytest.raises(ValueError, match="single-task"):
        kd.sharing_category(ENV, np.array([0, -1]), np.array([1]))


@pytest.mark.parametrize("n_rows", [70, 25])  # more rows than columns (40), and fewer: the other Gram matrix
def test_leading_right_vectors_match_the_svd(n_rows):
    net, params, data = small_problem("large", n_hidden=32)
    kernel = kernels.entk(net, params, data["x_eval"][:n_rows], data["x_train"], data["y_train"])
    vectors = kd.leading_right_vectors(kernel)
    assert vectors.shape == (9, 40)
    for k, matrix in enumerate(np.asarray(kernel)):
        reference = np.linalg.svd(matrix)[2][0]
        assert abs(float(vectors[k] @ reference)) > 1 - 1e-8
        assert float(vectors[k].sum()) >= 0


def test_task_profiles_average_kernel_rows_and_columns():
    kernel = jnp.asarray(np.random.default_rng(1).normal(size=(2, 4, 5)))
    rows, columns = np.array([0, 1, 1, 0]), np.array([1, 0, 1, 1, 0])
    profiles = kd.task_profiles(kernel, kd.group_average(rows, 2, 4, 0), kd.group_average(columns, 2, 5, 0))
    np.testing.assert_allclose(profiles["rows"][1], kernel[:, [1, 2]].mean(axis=1).ravel())
    np.testing.assert_allclose(profiles["columns"][0], kernel[:, :, [1, 4]].mean(axis=2).ravel())


def test_alignment_and_similarity():
    a = jax.random.normal(jax.random.PRNGKey(0), (3, 5, 4))
    np.testing.assert_allclose(kd.alignment(a, 2.0 * a), 1.0)
    np.testing.assert_allclose(kd.alignment(a, -a), -1.0)
    features = np.random.default_rng(0).normal(size=(6, 10))
    similarity = kd.centered_cosine_similarity(features)
    np.testing.assert_allclose(np.diag(similarity), 1.0)
    np.testing.assert_allclose(similarity, kd.centered_cosine_similarity(3 * features + 5), atol=1e-12)


def test_multitask_run_records_consistent_statistics_and_is_deterministic():
    options = dict(n_iterations=40, n_snapshots=5, node_every=((20, 1), (40, 5)), path_kernel="step", n_hidden=16,
                   n_train=60, n_test=60, progress=False)
    out = kd.run_kernel_dynamics(ENV, "LR", [0], **options)
    assert out["reconstruction_error"].shape == (1, 2, 5, 2)
    assert out["reconstruction_error"][:, :, 1:3].max() < 1e-5  # every-step phase: exact up to float32 round-off
    assert out["reconstruction_error"][:, :, 3:].max() < 0.01  # quadrature phase: close
    np.testing.assert_allclose(out["sharing_signed"][:, :, 1:].sum(axis=-1), 1.0, rtol=1e-4)
    np.testing.assert_allclose(out["sharing_abs"][:, :, 1:].sum(axis=-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(out["alignment_initial"][:, :, 0], 1.0, rtol=1e-5)
    np.testing.assert_allclose(out["overlap_initial"][:, :, 0], 1.0, rtol=1e-4)
    assert np.isnan(out["alignment_path_initial"][:, :, 0]).all()  # P(0) = 0
    assert out["kernel_similarity_columns"].shape == (1, 2, 5, 2, 12, 12)
    assert out["profiles/path_final/rows/authors"].shape == (1, 2, 12, 9 * 60)
    assert out["profiles/entk_initial/columns/principled"].shape == (1, 2, 12, 9 * 60)
    np.testing.assert_allclose(np.diagonal(out["hidden_similarity"], axis1=-2, axis2=-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(out["sharing_pattern_fraction"].sum(axis=-1), 1.0)
    # the categories' contributions (summed by task in the run) against a direct split of the final path
    final = kd.run_kernel_dynamics(ENV, "LR", [0], keep_final_path=True, **options)
    category = kd.pair_kernel_data(ENV, [0], 60, 60)["sharing"][0]  # (N, M)
    for init in range(2):
        path = final["path_final"][0, init].astype(np.float64)  # (K, N, M)
        for s, rows in enumerate((slice(0, 60), slice(60, None))):
            estimate = path[:, rows].sum(axis=2).T
            parts = np.stack([np.where(category[rows] == c, path[:, rows], 0.0).sum(axis=2).T for c in range(4)])
            np.testing.assert_allclose(final["sharing_signed"][0, init, -1, s],
                                       (parts * estimate).sum(axis=(1, 2)) / (estimate**2).sum(), rtol=1e-4, atol=1e-6)
    again = kd.run_kernel_dynamics(ENV, "LR", [0], **options)
    for key in out:
        np.testing.assert_array_equal(out[key], again[key], err_msg=key)


def test_validation_and_convergence_helpers_on_a_small_network():
    small = dict(n_hidden=16, n_train=60, n_test=60)
    checks = kd.validation_runs(ENV, "ET", 0, ((20, 1), (100, 10)), n_iterations=100, n_snapshots=6, n_rows=40,
                                progress=False, **small)
    assert np.nanmax(checks["reconstruction_error/step"]) < 1e-3
    assert (checks["path_difference/step_quadrature"] < 0.05).all()
    assert (checks["path_difference/euler"] > 0).all()
    convergence = kd.epntk_convergence(ENV, "ET", 0, 3, 50, n_rows=40, progress=False, **small)
    ratios = convergence["reconstruction_error"][:, :-1] / convergence["reconstruction_error"][:, 1:]
    assert ((ratios > 1.5) & (ratios < 2.5)).all(), convergence


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
        kd.stream_epntk(net, params, data, **arguments)


def test_analysis_helpers():
    from lib.analyses import kernel_analysis as ka

    iterations = np.array([0, 10, 20, 30])
    curves = np.array([[1.0, 0.9, 0.4, 0.2], [1.0, 0.8, 0.7, 0.6]])
    np.testing.assert_array_equal(ka.first_below(iterations, curves, 0.5), [20, np.nan])
    features = np.random.default_rng(0).normal(size=(12, 30))
    similarity = kd.centered_cosine_similarity(features)
    assert ka.rsa(similarity, similarity) == pytest.approx(1.0)
    assert ka.rsa(similarity, -similarity) == pytest.approx(-1.0)
    assert np.isnan(ka.rsa(similarity, np.ones((12, 12))))
    grouped = np.repeat(np.eye(3), 4, axis=0) + 0.01 * features[:, :3]
    assert ka.cluster_agreement(grouped, 5 * grouped + 1, 3) == pytest.approx(1.0)
    mean, low, high = ka.paired_interval(np.array([1.0, 2.0, 3.0]))
    assert mean == 2.0 and low < 2.0 < high
