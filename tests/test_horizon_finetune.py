"""The prediction horizon during fine-tuning: the retrained fine-tuning snapshots
(lib.experiments.horizon_snapshots.finetune_snapshots) against the continuum's own runs
(lib.experiments.continuum.run_continuum), and the sweep point (lib.analyses.horizon_finetune)."""

import numpy as np
import pytest

from lib.analyses.horizon_finetune import finetune_horizon_point
from lib.analyses.horizon_points import KERNEL_PREDICTORS, RIVAL_PREDICTORS
from lib.core.tasks import TaskEnvironment
from lib.experiments.continuum import run_continuum
from lib.experiments.horizon_snapshots import finetune_snapshots

SMALL = dict(n_hidden=20, n_train=40, n_test=40)
RUN = dict(g=3.42, scaling="both", learning_rate=0.1, n_single=20, n_finetune=20)


@pytest.fixture(scope="module")
def continuum_run():
    return run_continuum(TaskEnvironment(), [0, 1], RUN["g"], RUN["scaling"], RUN["learning_rate"], RUN["n_single"],
                         RUN["n_finetune"], 5, **SMALL)


@pytest.fixture(scope="module")
def snapshots():
    return finetune_snapshots(TaskEnvironment(), [0, 1], fractions=[0.0, 0.5, 1.0], **RUN, **SMALL)


def test_fine_tuning_starts_from_the_continuums_single_task_weights(continuum_run, snapshots):
    for name in ("w_hidden", "w_output"):
        np.testing.assert_allclose(snapshots[f"params/{name}"][0], continuum_run[f"params_single/{name}"], rtol=1e-5,
                                   atol=1e-6)


def test_the_fine_tuning_losses_are_the_continuums_at_the_same_iterations(continuum_run, snapshots):
    recorded = continuum_run["finetune/loss_test"]  # (S, 11) at every tenth of fine-tuning
    np.testing.assert_allclose(snapshots["loss_test"], recorded[:, [0, 5, 10]], rtol=1e-5)
    np.testing.assert_array_equal(snapshots["x_test"], continuum_run["x_multi_test"])
    assert snapshots["iterations"].tolist() == [0, 10, 20]


def test_the_point_observes_every_predictor_on_the_multitask_data(continuum_run):
    out = finetune_horizon_point({"g": RUN["g"], "lr": RUN["learning_rate"], "first_seed": 0, "n_seeds": 2,
                                  "n_single": RUN["n_single"], "n_finetune": RUN["n_finetune"],
                                  "fractions": [0.0, 0.5], **SMALL})
    for name in KERNEL_PREDICTORS + RIVAL_PREDICTORS:
        assert out[name].shape == (2, 2), name
    np.testing.assert_allclose(out["loss_test"].T, continuum_run["finetune/loss_test"][:, [0, 5]], rtol=1e-5)
    assert np.all(np.isfinite(out["silhouette_entk_principled"]))


@pytest.mark.parametrize("bad, match", [({"fractions": [0.0, 0.5, 0.5]}, "fractions"), ({"n_finetune": 0}, "n_finetune"),
                                        ({"colour": 1}, "unknown")])
def test_bad_point_parameters_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        finetune_horizon_point.check_parameters(bad)
