"""The eNTK over training of the multitask network (lib.experiments.kernel_dynamics) and the kernel
statistics it records (lib.core.kernel_statistics): small network, short runs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.experiments import kernel_dynamics as kd
from lib.core import kernel_statistics as ks
from lib.core import kernels
from lib.core.tasks import TaskEnvironment
from tests.test_epntk_stream import ENV, small_problem


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
def test_subspace_iteration_from_the_cold_start_finds_the_leading_right_vectors_of_the_svd(n_rows):
    net, params, data = small_problem("large", n_hidden=32)
    kernel = kernels.entk(net, params, data["x_eval"][:n_rows], data["x_train"], data["y_train"])
    vectors, block = ks.subspace_iteration(kernel, ks.cold_start(9, 40, kernel.dtype), 30)
    assert block.shape == (9, 40, 4)
    assert vectors.shape == (9, 40)
    for k, matrix in enumerate(np.asarray(kernel)):
        reference = np.linalg.svd(matrix)[2][0]
        assert abs(float(vectors[k] @ reference)) > 1 - 1e-8
        assert float(vectors[k].sum()) >= 0


def test_task_profiles_average_kernel_rows_and_columns():
    kernel = jnp.asarray(np.random.default_rng(1).normal(size=(2, 4, 5)))
    rows, columns = np.array([0, 1, 1, 0]), np.array([1, 0, 1, 1, 0])
    profiles = ks.task_profiles(kernel, kd.group_average(rows, 2, 4, 0), kd.group_average(columns, 2, 5, 0))
    np.testing.assert_allclose(profiles["rows"][1], kernel[:, [1, 2]].mean(axis=1).ravel())
    np.testing.assert_allclose(profiles["columns"][0], kernel[:, :, [1, 4]].mean(axis=2).ravel())


def test_alignment_and_similarity():
    a = jax.random.normal(jax.random.PRNGKey(0), (3, 5, 4))
    np.testing.assert_allclose(ks.alignment(a, 2.0 * a), 1.0)
    np.testing.assert_allclose(ks.alignment(a, -a), -1.0)
    features = np.random.default_rng(0).normal(size=(6, 10))
    similarity = ks.centered_cosine_similarity(features)
    np.testing.assert_allclose(np.diag(similarity), 1.0)
    np.testing.assert_allclose(similarity, ks.centered_cosine_similarity(3 * features + 5), atol=1e-12)


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


def test_analysis_helpers():
    from lib.analyses import kernel_analysis as ka

    iterations = np.array([0, 10, 20, 30])
    curves = np.array([[1.0, 0.9, 0.4, 0.2], [1.0, 0.8, 0.7, 0.6]])
    np.testing.assert_array_equal(ka.first_below(iterations, curves, 0.5), [20, np.nan])
    features = np.random.default_rng(0).normal(size=(12, 30))
    similarity = ks.centered_cosine_similarity(features)
    assert ka.rsa(similarity, similarity) == pytest.approx(1.0)
    assert ka.rsa(similarity, -similarity) == pytest.approx(-1.0)
    assert np.isnan(ka.rsa(similarity, np.ones((12, 12))))
    grouped = np.repeat(np.eye(3), 4, axis=0) + 0.01 * features[:, :3]
    assert ka.cluster_agreement(grouped, 5 * grouped + 1, 3) == pytest.approx(1.0)
    mean, low, high = ka.paired_interval(np.array([1.0, 2.0, 3.0]))
    assert mean == 2.0 and low < 2.0 < high


def test_a_stream_whose_steps_go_wrong_is_refused_and_nothing_is_cached(monkeypatch, results_tmp):
    """The failure seen once in a full build: the stream's gradient steps stopped changing the
    weights while its kernels went on accumulating, and the wrong run was cached. The
    reconstruction error cannot see it; the comparison with lib.core.training's loss does."""
    from lib.core import results
    from lib.experiments import epntk_stream

    monkeypatch.setattr(epntk_stream, "_steps", lambda model, params, *rest: params)  # steps that do nothing
    options = dict(n_iterations=40, n_snapshots=5, node_every=((20, 1), (40, 5)), path_kernel="step", n_hidden=16,
                   n_train=60, n_test=60, progress=False)
    compute = lambda: kd.run_kernel_dynamics(ENV, "LR", [0], **options)
    with pytest.raises(kd.TrainingMismatch, match=r"departs from lib.core.training's .* iteration (30|40)"):
        results.cached("kernel_dynamics", {"test": 1}, compute, computed_by=kd.__name__)
    assert not list(results_tmp.rglob("*.npz"))


def test_the_training_check_allows_rounding_and_refuses_a_departure():
    from lib.core.models import MultitaskNet
    from lib.experiments.schedules import pair_initial_params

    net = MultitaskNet.for_environment(ENV, 16)
    weights = pair_initial_params(net, [0])
    arrays = kd.pair_kernel_data(ENV, [0], 60, 60)
    data = {k: jnp.asarray(np.repeat(arrays[k], 2, axis=0), jnp.float32) for k in ("x_train", "y_train", "x_eval",
                                                                                     "y_eval")}
    rates = np.array([0.01, 0.002], np.float32)
    _, reference = kd.train_many(net, weights, {"x_train": data["x_train"], "y_train": data["y_train"],
                                                "x_rows": data["x_eval"][:, :60], "y_rows": data["y_eval"][:, :60]},
                                 rates, 40, 5, engine="reference")
    loss = np.asarray(reference["loss_rows"])  # the JAX engine: another code path than the check's numba
    check = lambda stream_loss: kd.check_training(net, weights, data, rates, 40, 5, stream_loss, 60, np.arange(2))
    check(loss)
    check(loss * (1 + 0.5 * kd.TRAINING_AGREEMENT))
    for wrong in (loss * (1 + 2 * kd.TRAINING_AGREEMENT), np.where(np.arange(5) == 4, np.nan, loss)):
        with pytest.raises(kd.TrainingMismatch, match="network"):
            check(wrong)
