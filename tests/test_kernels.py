"""The structured eNTK/NTK against neural-tangents and central finite differences (float64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.flatten_util import ravel_pytree

from lib.core import kernels
from lib.core.models import LinearNet, MultitaskNet, ReluNet1D
from lib.core.tasks import TaskEnvironment
from tests.references import squared_error_per_pattern

ENV = TaskEnvironment()


def rel_err(a, b):
    return float(jnp.abs(jnp.asarray(a) - jnp.asarray(b)).max() / jnp.abs(jnp.asarray(b)).max())


def setup(init, n_hidden=200, n_eval=12, n_train=15, seed=0):
    net = MultitaskNet.for_environment(ENV, n_hidden=n_hidden)
    params = net.init(jax.random.PRNGKey(seed), init, dtype=jnp.float64)
    train, test = ENV.make_data(seed, n_train, n_eval)
    return net, params, jnp.asarray(test.x), jnp.asarray(train.x), jnp.asarray(train.y)


def finite_difference_entk(net, params, x_eval, x_train, y_train, step=1e-6):
    """(K, N, M) from central differences of y(x_eval) and of every training pattern's loss."""
    flat, unravel = ravel_pytree(params)
    basis = jnp.eye(flat.size) * step

    def outputs(f):
        p = unravel(f)
        return net.apply(p, x_eval), squared_error_per_pattern(net.apply(p, x_train), y_train)

    (y_plus, l_plus), (y_minus, l_minus) = jax.vmap(outputs)(flat + basis), jax.vmap(outputs)(flat - basis)
    jac_eval = (y_plus - y_minus) / (2 * step)  # (P, N, K)
    loss_grads = (l_plus - l_minus) / (2 * step)  # (P, M)
    return jnp.einsum("pnk,pm->knm", jac_eval, loss_grads)


@pytest.mark.parametrize("init", ["standard", "large"])
def test_structured_entk_matches_finite_differences(init):
    net, params, x_eval, x_train, y_train = setup(init, n_hidden=16)
    structured = kernels.entk_structured(net, params, x_eval, x_train, y_train)
    reference = finite_difference_entk(net, params, x_eval, x_train, y_train)
    assert structured.shape == (9, 12, 15)
    assert rel_err(structured, reference) < 1e-5


@pytest.mark.parametrize("init", ["standard", "large"])
@pytest.mark.parametrize("implementation", [1, 2])
def test_structured_entk_matches_neural_tangents(init, implementation):
    net, params, x_eval, x_train, y_train = setup(init)
    structured = kernels.entk_structured(net, params, x_eval, x_train, y_train)
    reference = kernels.entk_neural_tangents(net, params, x_eval, x_train, y_train, implementation=implementation)
    assert rel_err(structured, reference) < 1e-5
    assert rel_err(kernels.entk_jacobian(net, params, x_eval, x_train, y_train), reference) < 1e-5


@pytest.mark.parametrize("init", ["standard", "large"])
def test_structured_ntk_matches_neural_tangents(init):
    net, params, x_eval, x_train, _ = setup(init)
    structured = kernels.ntk_structured(net, params, x_eval, x_train)
    reference = kernels.ntk_neural_tangents(net, params, x_eval, x_train)
    assert structured.shape == (12, 15, 9, 9)
    assert rel_err(structured, reference) < 1e-5


@pytest.mark.parametrize("model, n_in", [(LinearNet(), 4), (ReluNet1D(20), 1)])
def test_generic_entk_matches_neural_tangents(model, n_in):
    params = model.init(jax.random.PRNGKey(2), dtype=jnp.float64)
    x = jax.random.normal(jax.random.PRNGKey(3), (10, n_in))
    y = jax.random.normal(jax.random.PRNGKey(4), (10, model.apply(params, x).shape[1]))
    for reduction in ("sum", "mean"):
        ours = kernels.entk(model, params, x[:6], x, y, reduction)
        reference = kernels.entk_neural_tangents(model, params, x[:6], x, y, reduction)
        assert rel_err(ours, reference) < 1e-5


def test_dispatch_uses_structured_for_multitask():
    net, params, x_eval, x_train, y_train = setup("standard", n_hidden=8)
    np.testing.assert_allclose(
        kernels.entk(net, params, x_eval, x_train, y_train),
        kernels.entk_structured(net, params, x_eval, x_train, y_train),
        rtol=1e-12,
    )


@pytest.mark.parametrize("init", ["standard", "large"])
def test_ntk_output_diagonal_is_the_diagonal_of_the_full_ntk(init):
    net, params, x_eval, x_train, _ = setup(init, n_hidden=30)
    full = kernels.ntk_structured(net, params, x_eval, x_train)  # checked against neural-tangents above
    diagonal = kernels.ntk_output_diagonal(net, params, x_eval, x_train)
    assert diagonal.shape == (9, 12, 15)
    assert rel_err(diagonal, jnp.einsum("nmkk->knm", full)) < 1e-12
    generic = kernels.ntk_output_diagonal(LinearNet(), LinearNet().init(jax.random.PRNGKey(0), dtype=jnp.float64),
                                          x_eval[:, :4], x_train[:, :4])
    assert generic.shape == (5, 12, 15)
