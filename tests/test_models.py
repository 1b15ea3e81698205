import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.experiments.schedules import pair_initial_params, run_pairs
from lib.core.models import LinearNet, MultitaskNet, ReluNet1D
from lib.core.tasks import TaskEnvironment


def test_large_init_is_ten_times_the_standard_draw():
    net = MultitaskNet.for_environment(TaskEnvironment())
    std = net.init(jax.random.PRNGKey(4), "standard")
    large = net.init(jax.random.PRNGKey(4), "large")
    for name in ("w_hidden", "w_output"):
        np.testing.assert_allclose(large[name], 10 * std[name], rtol=1e-6)
        assert float(jnp.abs(std[name]).max()) <= 0.1
        assert float(jnp.abs(std[name]).max()) > 0.09  # the draw fills U[-.1, .1]
    assert std["w_hidden"].shape == (200, 24) and std["w_output"].shape == (9, 212)


def test_layer_multipliers_ablation():
    net = MultitaskNet(12, 12, 9, n_hidden=8)
    std = net.init(jax.random.PRNGKey(1))
    ablation = net.init(jax.random.PRNGKey(1), "large", large_multipliers=(10.0, 1.0))
    np.testing.assert_allclose(ablation["w_hidden"], 10 * std["w_hidden"], rtol=1e-6)
    np.testing.assert_array_equal(ablation["w_output"], std["w_output"])


def test_pairs_interleave_standard_and_large():
    net = MultitaskNet(12, 12, 9, n_hidden=8)
    params = pair_initial_params(net, (0, 1))
    np.testing.assert_allclose(params["w_output"][3], 10 * params["w_output"][2], rtol=1e-6)
    assert not np.allclose(params["w_output"][0], params["w_output"][2])
    layer1 = pair_initial_params(net, (0, 1), large_scaling="layer1_only")
    np.testing.assert_allclose(layer1["w_hidden"][3], 10 * layer1["w_hidden"][2], rtol=1e-6)
    np.testing.assert_array_equal(layer1["w_output"][3], layer1["w_output"][2])
    with pytest.raises(ValueError, match="large_scaling must be one of \\['both_layers', 'layer1_only'\\]"):
        pair_initial_params(net, (0,), large_scaling="output_only")


def test_biases_are_fixed_through_training():
    """Only weights are parameters; after training, a zero input still meets the -2 biases."""
    env = TaskEnvironment()
    result = run_pairs(env, "LR", [0], n_hidden=16, n_train=40, n_test=10, n_iterations=200, n_snapshots=3)
    assert sorted(k for k in result if k.startswith("params_final/")) == [
        "params_final/w_hidden",
        "params_final/w_output",
    ]
    net = MultitaskNet.for_environment(env, n_hidden=16)
    params = {k: result[f"params_final/{k}"][0, 1] for k in ("w_hidden", "w_output")}
    assert not np.allclose(params["w_output"], result["params_initial/w_output"][0, 1])  # it did train
    zero = jnp.zeros((1, env.n_inputs))
    np.testing.assert_allclose(net.hidden(params, zero), jax.nn.sigmoid(-2.0) * np.ones((1, 16)), rtol=1e-6)
    y_zero = jax.nn.sigmoid(net.hidden(params, zero) @ params["w_output"][:, :16].T - 2.0)
    np.testing.assert_allclose(net.apply(params, zero), y_zero, rtol=1e-6)


@pytest.mark.parametrize("model, n_in", [(LinearNet(), 4), (ReluNet1D(7), 1)])
def test_small_models_shapes(model, n_in):
    params = model.init(jax.random.PRNGKey(0))
    y = model.apply(params, jnp.ones((5, n_in)))
    assert y.shape == (5, getattr(model, "n_outputs", 1))
