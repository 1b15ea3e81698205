"""The eNTK predicts one full-batch step to O(lr^2); the ePNTK integrates a run to O(lr)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.core import kernels
from lib.core.losses import squared_error
from lib.core.models import LinearNet, MultitaskNet
from lib.core.tasks import TaskEnvironment


def one_step_error(model, params, x_eval, x_train, y_train, lr, reduction="sum"):
    """max |actual change - eNTK prediction| and max |actual change| after one GD step.
    The actual step is taken here, independently of lib: params - lr * grad(loss)."""
    grads = jax.grad(lambda p: squared_error(model.apply(p, x_train), y_train, reduction))(params)
    stepped = jax.tree.map(lambda w, g: w - lr * g, params, grads)
    actual = model.apply(stepped, x_eval) - model.apply(params, x_eval)
    predicted = kernels.predicted_change(kernels.entk(model, params, x_eval, x_train, y_train, reduction), lr)
    lib_actual, lib_predicted = kernels.one_step_change(model, params, x_eval, x_train, y_train, lr, reduction)
    np.testing.assert_allclose(lib_actual, actual, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(lib_predicted, predicted, rtol=1e-12, atol=1e-15)
    return float(jnp.abs(actual - predicted).max()), float(jnp.abs(actual).max())


@pytest.mark.parametrize("init", ["standard", "large"])
def test_entk_predicts_one_step_to_second_order(init):
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env)
    params = net.init(jax.random.PRNGKey(1), init, dtype=jnp.float64)
    train, test = env.make_data(1, 60, 40)
    lrs = [2e-3, 1e-3, 5e-4, 2.5e-4]
    errors = [one_step_error(net, params, test.x, train.x, train.y, lr) for lr in lrs]
    for (e_big, change), (e_small, _) in zip(errors, errors[1:]):
        assert 3.5 < e_big / e_small < 4.5, errors  # halving lr quarters the error
        assert e_big < 0.05 * change  # and the prediction is close
    assert errors[-1][0] > 1e-13  # not at round-off: the ratios above are meaningful


def smg_like_problem(seed=0, n=24):
    model = LinearNet(4, 3, 5)
    params = model.init(jax.random.PRNGKey(seed), scale=1.0, dtype=jnp.float64)
    x = jax.random.normal(jax.random.PRNGKey(seed + 1), (n, 4)) / jnp.sqrt(n)
    target = jax.random.normal(jax.random.PRNGKey(seed + 2), (5, 4))
    return model, params, x, x @ target.T


def test_epntk_reproduces_output_change_with_error_linear_in_lr():
    model, params, x, y = smg_like_problem()
    total_time = 0.4  # lr * n_iterations kept fixed
    rel_errors = []
    for n_iterations in (40, 80, 160, 320):
        lr = total_time / n_iterations
        final, path = kernels.epntk(model, params, x, x, y, lr, n_iterations, n_snapshots=5)
        actual = model.apply(final, x) - model.apply(params, x)
        estimate = path[-1].sum(axis=2).T
        assert path.shape == (5, 5, 24, 24)
        np.testing.assert_array_equal(path[0], 0)
        rel_errors.append(float(jnp.linalg.norm(estimate - actual) / jnp.linalg.norm(actual)))
    for big, small in zip(rel_errors, rel_errors[1:]):
        assert 1.6 < big / small < 2.4, rel_errors  # first-order (forward Euler) convergence
    assert rel_errors[-1] < 0.01, rel_errors


def test_epntk_final_params_equal_plain_training():
    from lib.core.training import train

    model, params, x, y = smg_like_problem(seed=5)
    final, _ = kernels.epntk(model, params, x, x, y, 0.002, 50)
    trained, _ = train(model, params, {"x_train": x, "y_train": y}, 0.002, 50, 2, engine="reference")
    for name in params:
        np.testing.assert_allclose(final[name], trained[name], rtol=1e-10)
