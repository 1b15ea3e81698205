"""The "your own network" chapter at small size: lib's generic NTK, eNTK and ePNTK of a
user-defined MLP and CNN (models as a user writes them: a frozen dataclass with ``apply``)
against neural-tangents and against the real change of the outputs (float64: conftest enables x64)."""

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.core import kernel_reference
from lib.core import kernels
from lib.core.models import MultitaskNet


@dataclass(frozen=True)
class MLP:
    width: int = 8

    def init(self, key):
        k1, k2 = jax.random.split(key)
        return {"w1": jax.random.normal(k1, (2, self.width), jnp.float64), "b1": jnp.zeros(self.width, jnp.float64),
                "w2": jax.random.normal(k2, (self.width, 3), jnp.float64) / jnp.sqrt(self.width)}

    def apply(self, params, x):
        return jnp.tanh(x @ params["w1"] + params["b1"]) @ params["w2"]


@dataclass(frozen=True)
class CNN:
    channels: int = 2

    def init(self, key):
        k1, k2 = jax.random.split(key)
        return [jax.random.normal(k1, (3, 3, 1, self.channels), jnp.float64) / 3,
                jax.random.normal(k2, (self.channels, 2), jnp.float64)]

    def apply(self, params, x):
        h = jax.lax.conv_general_dilated(x, params[0], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.tanh(h).mean(axis=(1, 2)) @ params[1]


def problems():
    key = jax.random.split(jax.random.PRNGKey(0), 6)
    mlp, cnn = MLP(), CNN()
    return {
        "mlp": (mlp, mlp.init(key[0]), jax.random.normal(key[1], (5, 2), jnp.float64),
                jax.random.normal(key[2], (4, 2), jnp.float64), jax.random.normal(key[3], (4, 3), jnp.float64)),
        "cnn": (cnn, cnn.init(key[0]), jax.random.normal(key[4], (3, 5, 5, 1), jnp.float64),
                jax.random.normal(key[5], (4, 5, 5, 1), jnp.float64), jax.nn.one_hot(jnp.arange(4) % 2, 2)),
    }


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_generic_kernels_match_neural_tangents(name):
    model, params, x_eval, x_train, y_train = problems()[name]
    k = model.apply(params, x_train).shape[1]
    ntk = kernels.ntk(model, params, x_eval, x_train)
    entk = kernels.entk(model, params, x_eval, x_train, y_train)
    assert ntk.shape == (len(x_eval), len(x_train), k, k) and entk.shape == (k, len(x_eval), len(x_train))
    for implementation in kernels.NT_IMPLEMENTATIONS:
        reference = kernels.ntk_neural_tangents(model, params, x_eval, x_train, implementation)
        np.testing.assert_allclose(ntk, reference, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(
            entk, kernels.entk_neural_tangents(model, params, x_eval, x_train, y_train, "sum", implementation),
            rtol=1e-10, atol=1e-12)
    report = kernel_reference.compare_with_neural_tangents(model, params, x_eval, x_train, y_train, repeats=1)
    assert report["ntk_difference"].shape == report["entk_difference"].shape == (2,)
    assert report["entk_difference"].max() < 1e-12 and report["ntk_difference"].max() < 1e-12
    assert report["n_parameters"] == sum(p.size for p in jax.tree.leaves(params))
    assert report["seconds"] > 0 and (report["seconds_reference"] > 0).all()


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_epntk_accounts_for_the_learned_change(name):
    """Summed over the training points the ePNTK predicts y(T) - y(0), to O(lr) at fixed lr * T."""
    model, params, x_eval, x_train, y_train = problems()[name]
    errors = [float(kernel_reference.path_kernel_check(model, params, x_eval, x_train, y_train, 0.02 / 2**h,
                                                       25 * 2**h)["relative_error"]) for h in range(2)]
    assert errors[0] < 0.05, errors
    assert 1.6 < errors[0] / errors[1] < 2.4, errors  # first order: halving the step halves the error


def test_relative_difference_is_scaled_by_the_reference():
    assert kernel_reference.relative_difference([1.0, 2.0], [1.0, 4.0]) == pytest.approx(0.5)
    assert kernel_reference.relative_difference([1e-9, 0.0], [0.0, 0.0]) == pytest.approx(1e-9)
    with pytest.raises(ValueError, match="shapes differ"):
        kernel_reference.relative_difference(np.zeros(2), np.zeros(3))


def test_structured_and_generic_paths_agree_on_the_paper_network():
    net = MultitaskNet(n_stimulus=4, n_tasks=3, n_outputs=3, n_hidden=5)
    params = net.init(jax.random.PRNGKey(1), dtype=jnp.float64)
    x = jax.random.bernoulli(jax.random.PRNGKey(2), 0.5, (6, net.n_inputs)).astype(jnp.float64)
    y = jax.random.uniform(jax.random.PRNGKey(3), (6, 3), jnp.float64)
    report = kernel_reference.structured_vs_generic(net, params, x, x, y, repeats=1)
    assert report["difference"] < 1e-12 and report["seconds"].shape == (2,)
    with pytest.raises(TypeError, match="MultitaskNet"):
        kernel_reference.structured_vs_generic(MLP(), MLP().init(jax.random.PRNGKey(0)), x, x, y)
