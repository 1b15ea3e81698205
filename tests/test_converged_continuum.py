"""The converged continuum (lib.analyses.continuum_sweeps.converged_sweep) and the held-out route at
1-iteration resolution (lib.experiments.continuum.run_continuum)."""

import numpy as np
import pytest

from lib.analyses import continuum_points, continuum_sweeps

SIZE = dict(n_hidden=8, n_train=24, n_test=24)


class _Report:
    ok, failures = True, ()

    def __init__(self, results):
        self._results = results

    def load(self):
        return self._results


def _in_process_sweep(points, function, client=None, progress=False):
    """The sweep of ``points`` computed in this process, without Dask: checked and keyed as a sweep
    plans it, each point through the results cache as a worker computes it (a point function's
    exception propagates as it is), so a test that sweeps the same points again reads them."""
    from lib.core import results
    from lib.experiments import sweep

    plan = sweep.plan_function_sweep(points, function)
    return _Report([results.cached(plan.name, key, lambda p=point: sweep.storable_arrays(p, plan.target(p)),
                                   computed_by=plan.computed_by)
                    for key, point in zip(plan.cache_parameters, plan.points)])


class _NoClient:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@pytest.fixture
def in_process(monkeypatch):
    from lib.experiments import sweep, sweep_cluster

    monkeypatch.setattr(sweep, "sweep", _in_process_sweep)
    monkeypatch.setattr(sweep_cluster, "dask_client", lambda *a, **k: _NoClient())


def test_route_is_recorded_every_iteration():
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.continuum import run_continuum

    run = run_continuum(TaskEnvironment(), [0, 1], 1.0, "both", 0.05, 10, 10, 7, **SIZE)
    assert run["route/loss_route"].shape == (2, 8)
    np.testing.assert_array_equal(run["iterations/route"], np.arange(8))
    assert run["single/loss_test"].shape == (2, 11)


def test_converged_sweep_blocks_columns_and_convergence_measures(in_process):
    common = dict(n_single=20, n_finetune=20, n_route=6, **SIZE)
    out = continuum_sweeps.converged_sweep([1.0, 10.0], [0.03, 0.1], 1, 10, 3, 2, common, progress=False)
    assert all(len(v) == 6 for v in out.values())
    np.testing.assert_array_equal(out["g"], [1.0] * 3 + [10.0] * 3)
    np.testing.assert_array_equal(out["seed"], [0, 1, 2] * 2)
    for i, g in enumerate((1.0, 10.0)):  # the lr of lowest median final training loss on the held-out network
        finals = [continuum_points.lr_point({"scaling": "both", "g": g, "lr": lr,
                                             "first_seed": continuum_points.LR_SELECTION_SEED, "n_seeds": 1,
                                             "n_iterations": 10, **SIZE})["loss_train"][:, -1]
                  for lr in (0.03, 0.1)]
        np.testing.assert_array_equal(out["lr"][3 * i:3 * i + 3],
                                      continuum_points.choose_learning_rate([0.03, 0.1], finals))
    np.testing.assert_array_equal(out["route_resolution"], 1)
    # the two predictor blocks give what one block of all three seeds gives
    whole = continuum_points.predictor_point({"scaling": "both", "g": 10.0, "first_seed": 0, "n_seeds": 3, **SIZE})
    for name in continuum_points.CONTINUUM_PREDICTORS:
        np.testing.assert_allclose(out[name][3:], whole[name], rtol=1e-6, err_msg=name)
    # outcomes (trained in two blocks) and the settling measure from one outcome point of all three seeds
    point = continuum_points.outcome_point({"scaling": "both", "g": 1.0, "lr": float(out["lr"][0]), "first_seed": 0,
                                            "n_seeds": 3, **common})
    for name in continuum_points.CONTINUUM_OUTCOMES + continuum_points.TASK_PAIR_DISTANCES:
        np.testing.assert_allclose(np.asarray(out[name][:3], np.float64), np.asarray(point[name], np.float64),
                                   rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(out["loss_finetune_test"][:3], point["curve/finetune/loss_test"][:, -1])
    curve = point["curve/single/loss_test"]
    np.testing.assert_allclose(out["settle_single"][:3], np.abs(curve[:, -1] - curve[:, -2]) / curve[:, -2])
    np.testing.assert_array_equal(out["loss_single_test_10pct"][:3], curve[:, 1])
    np.testing.assert_array_equal(out["loss_single_test_20pct"][:3], curve[:, 2])
    assert set(continuum_points.CONTINUUM_OUTCOMES) <= set(out)


def test_converged_sweep_rejects_bad_blocks(in_process):
    with pytest.raises(ValueError, match="first_block"):
        continuum_sweeps.converged_sweep([1.0], [0.1], 1, 10, 3, 4, dict(n_single=10, n_finetune=10, n_route=5, **SIZE))
    with pytest.raises(ValueError, match="n_seeds"):
        continuum_sweeps.converged_sweep([1.0], [0.1], 1, 10, 1, 1, dict(n_single=10, n_finetune=10, n_route=5, **SIZE))


def test_horizon_sweep_blocks_give_what_one_block_gives_in_the_continuums_order(in_process):
    from lib.analyses import horizon_points

    common = dict(n_single=20, **SIZE)
    fractions = [0.0, 0.1, 0.5]
    blocks = horizon_points.horizon_sweep([1.0, 10.0], [0.1, 0.03], 3, common, fractions, block_seeds=2,
                                          progress=False)
    whole = horizon_points.horizon_sweep([1.0, 10.0], [0.1, 0.03], 3, common, fractions, block_seeds=3,
                                         progress=False)
    np.testing.assert_array_equal(blocks["g"], [1.0] * 3 + [10.0] * 3)
    np.testing.assert_array_equal(blocks["seed"], [0, 1, 2] * 2)
    np.testing.assert_array_equal(blocks["iterations"], [0, 2, 10])
    for name in horizon_points.KERNEL_PREDICTORS + horizon_points.RIVAL_PREDICTORS:
        assert blocks[name].shape == (3, 6)
        np.testing.assert_allclose(blocks[name], whole[name], rtol=1e-5, atol=1e-9, err_msg=name)
    with pytest.raises(ValueError, match="scales and learning_rates"):
        horizon_points.horizon_sweep([1.0], [0.1, 0.2], 3, common, fractions)


def test_the_horizon_reads_the_t0_silhouettes_the_continuum_computed(in_process):
    """horizon_sweep(initial_silhouettes=...) skips the two t=0 silhouettes and takes the converged
    continuum's t=0 predictors instead: they must be the numbers the horizon point computes itself.
    In float32, as the book computes them: in float64 (this suite's default) the continuum's t=0 eNTK
    is computed on its float64 data while the horizon's data pass through the float32 training
    engine, and k-means of loadings that differ by float32 rounding can cluster differently."""
    from jax.experimental import disable_x64

    from lib.analyses import horizon_points

    common = dict(n_single=20, n_finetune=10, n_route=5, **SIZE)
    fractions = [0.0, 0.5]
    with disable_x64():
        nets = continuum_sweeps.converged_sweep([1.0, 10.0], [0.1], 1, 10, 3, 2, common)
        given = {name: nets[name] for name in horizon_points.INITIAL_SILHOUETTES}
        computed = horizon_points.horizon_sweep([1.0, 10.0], [0.1, 0.1], 3, common, fractions, progress=False)
        reused = horizon_points.horizon_sweep([1.0, 10.0], [0.1, 0.1], 3, common, fractions, progress=False,
                                              initial_silhouettes=given)
    for name in horizon_points.KERNEL_PREDICTORS + horizon_points.RIVAL_PREDICTORS:
        np.testing.assert_allclose(reused[name], computed[name], rtol=1e-6, atol=1e-12, err_msg=name)
    assert np.isfinite(reused["silhouette_entk_authors"][0]).all()
    with pytest.raises(ValueError, match="initial_silhouettes"):
        horizon_points.horizon_sweep([1.0, 10.0], [0.1, 0.1], 3, common, fractions,
                                     initial_silhouettes={k: v[:2] for k, v in given.items()})
    with pytest.raises(ValueError, match="fractions must start at 0"):
        horizon_points.horizon_sweep([1.0, 10.0], [0.1, 0.1], 3, common, [0.1, 0.5], initial_silhouettes=given)


def test_a_replication_block_of_the_continuum_is_its_own_seeds_each_network_as_in_any_block(in_process):
    """converged_first_seed: the networks from another first seed are the same networks wherever their
    block starts (seeds 1 and 2 of a block from seed 1 equal those of the block from seed 0), and the
    horizon's snapshots follow the same seeds."""
    from lib.analyses import horizon_points

    common = dict(n_single=20, n_finetune=20, n_route=6, **SIZE)
    book = continuum_sweeps.converged_sweep([1.0, 10.0], [0.1], 1, 10, 3, 2, common, progress=False)
    fresh = continuum_sweeps.converged_sweep([1.0, 10.0], [0.1], 1, 10, 2, 1, common, progress=False, first_seed=1)
    np.testing.assert_array_equal(fresh["seed"], [1, 2, 1, 2])
    shared = np.isin(book["seed"], [1, 2])
    for name in ("loss_single_test", "sharing_final", "silhouette_entk_authors", "lr"):
        np.testing.assert_allclose(fresh[name], book[name][shared], rtol=1e-6, err_msg=name)
    snaps = horizon_points.horizon_sweep([1.0, 10.0], [0.1, 0.1], 2, dict(n_single=20, **SIZE), [0.0, 0.5],
                                         progress=False, first_seed=1)
    np.testing.assert_array_equal(snaps["seed"], [1, 2, 1, 2])
    with pytest.raises(ValueError, match="first_seed"):
        continuum_sweeps.converged_sweep([1.0], [0.1], 1, 10, 3, 2, common, first_seed=-1)
