import jax
import pytest

from lib.experiments.schedules import get_schedule, run_pairs
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.core.training import train


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: get_schedule("XX"), "schedule must be one of \\['ET', 'LR'\\]"),
        (lambda: TaskEnvironment(0, 3, 3), "n_in_pools must be an integer >= 1"),
        (lambda: TaskEnvironment(4, 3.0, 3), "n_out_pools must be an integer"),
        (lambda: TaskEnvironment().make_data(0, split="random"), "split must be one of \\['iid', 'disjoint'\\]"),
        (lambda: TaskEnvironment().make_data(-1), "seed must be an integer >= 0"),
        (lambda: TaskEnvironment().make_data(0, 900, 100, split="disjoint"), "n_train \\+ n_test must be <= 972"),
        (lambda: MultitaskNet(12, 12, 9).init(jax.random.PRNGKey(0), "huge"), "init must be one of"),
        (lambda: run_pairs(TaskEnvironment(), "ET", [0], n_iterations=10, n_snapshots=4), "multiple of n_snapshots - 1"),
        (lambda: run_pairs(TaskEnvironment(), "ET", [0.5]), "seeds\\[0\\] must be an integer"),
        (lambda: run_pairs(TaskEnvironment(), "ET", [0], phase="finetune"), "start_params is required"),
        (lambda: run_pairs(TaskEnvironment(), "ET", [0], phase="multi"), "phase must be one of"),
    ],
)
def test_bad_parameters_name_themselves(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("lr", [-0.1, 0.0, float("nan"), "0.1"])
def test_bad_learning_rate(lr):
    net = MultitaskNet(12, 12, 9, n_hidden=4)
    params = net.init(jax.random.PRNGKey(0))
    data = {"x_train": jax.numpy.zeros((2, 24)), "y_train": jax.numpy.zeros((2, 9))}
    with pytest.raises(ValueError, match="learning_rate must be a positive"):
        train(net, params, data, lr, 10, 2)
