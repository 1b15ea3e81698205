"""The continuum's per-network task-pair distances (chapter 13 reads them from chapter 10's cache):
lib.analyses.continuum_points.network_outcomes against a direct computation on a small network."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.analyses import continuum_points as cp
from lib.analyses import rival_comparison as rc
from lib.analyses import rival_theories as rt
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.experiments.continuum import run_continuum


@pytest.fixture(scope="module")
def small_run():
    env = TaskEnvironment()
    run = run_continuum(env, [3, 4], 1.0, "both", 0.1, 20, 10, 5, n_hidden=16, n_train=48, n_test=24)
    return env, MultitaskNet.for_environment(env, 16), run


def test_pair_outcomes_match_direct_computation(small_run):
    env, net, run = small_run
    patterns = env.all_patterns()
    pairs = rt.same_stimulus_pairs(patterns.task, patterns.stimulus)
    for i in range(2):
        out = cp.network_outcomes(env, net, run, i, 0.1, 0.1)
        params = {name: {k.split("/")[1]: jnp.asarray(v[i]) for k, v in run.items() if k.startswith(name + "/")}
                  for name in ("params_initial", "params_single", "params_linearized")}
        hidden = {"pairs/initial": net.hidden(params["params_initial"], jnp.asarray(patterns.x)),
                  "pairs/single": net.hidden(params["params_single"], jnp.asarray(patterns.x)),
                  "pairs/linearized": rc.linearized_hidden(net, params["params_initial"], params["params_linearized"],
                                                           patterns.x)}
        for key, h in hidden.items():
            h = np.asarray(h, np.float64)
            # the direct definition: variable a of Eq. 8 (pair_trajectories) at one snapshot, mean over stimuli
            direct = rt.pair_trajectories(h[None], np.zeros((1, *patterns.y.shape)), patterns.y, pairs)[:, :, 0, 0]
            expected = np.array([[np.sum((h[b] - h[a]) ** 2) for a, b in pairs[q]] for q in range(pairs.shape[0])])
            np.testing.assert_allclose(direct, expected, rtol=1e-10)
            assert out[key].shape == (66,)
            np.testing.assert_allclose(out[key], expected.mean(axis=1), rtol=2e-4, atol=1e-6)
        assert not np.allclose(out["pairs/single"], out["pairs/initial"])  # training moved the hidden layer


def test_outcome_point_passes_pair_arrays():
    point = cp.outcome_point({"g": 1.0, "n_seeds": 2, "first_seed": 5, "n_hidden": 8, "n_train": 24, "n_test": 24,
                              "n_single": 10, "n_finetune": 10, "n_route": 2})
    for key in cp.TASK_PAIR_DISTANCES:
        assert point[key].shape == (2, 66) and np.all(np.isfinite(point[key])) and np.all(point[key] >= 0)


def test_task_pair_hidden_distances_bad_inputs():
    with pytest.raises(ValueError, match="hidden"):
        rt.task_pair_hidden_distances(np.zeros(5), np.zeros((1, 1, 2), int))
    with pytest.raises(ValueError, match="pairs"):
        rt.task_pair_hidden_distances(np.zeros((5, 3)), np.full((1, 1, 2), 7))
    with pytest.raises(ValueError, match="pairs"):
        rt.task_pair_hidden_distances(np.zeros((5, 3)), np.zeros((1, 2), int))
