"""The Fig 1 problem and the one-step error study (lib.analyses.one_step) on a small network."""

import numpy as np
import pytest
from jax.experimental import disable_x64

from lib.analyses import one_step

# tests/conftest.py turns float64 on for the whole session, as the chapter does


def test_the_problem_is_sin_pi_x_at_sorted_points_in_float64():
    problem = one_step.one_step_problem(seed=3, n_hidden=7, n_train=5)
    x = np.asarray(problem.x_train[:, 0])
    assert problem.x_train.shape == (5, 1) and problem.grid.shape == (one_step.GRID_POINTS, 1)
    assert np.all(np.diff(x) > 0) and np.all(np.abs(x) <= 1)
    np.testing.assert_allclose(np.asarray(problem.y_train[:, 0]), np.sin(np.pi * x), rtol=1e-15)
    assert problem.params["w"].dtype == np.float64 and problem.params["w"].shape == (7,)
    again = one_step.one_step_problem(seed=3, n_hidden=7, n_train=5)
    assert np.array_equal(problem.x_train, again.x_train) and np.array_equal(problem.params["a"], again.params["a"])


def test_the_picture_s_contributions_sum_to_the_one_step_change_up_to_second_order():
    problem = one_step.one_step_problem(seed=0, n_hidden=20, n_train=4)
    picture = one_step.one_step_picture(problem, learning_rate=1e-4, n_iterations=200)
    assert picture.influence.shape == picture.contributions.shape == (one_step.GRID_POINTS, 4)
    predicted = picture.y_start + picture.contributions.sum(axis=1)
    change = np.abs(picture.y_one_step - picture.y_start).max()
    assert change > 0 and np.abs(picture.y_one_step - predicted).max() < 1e-2 * change
    # training moves the fit towards the targets at the training points
    at_train = [np.argmin(np.abs(picture.grid - x)) for x in picture.x_train]
    assert np.abs(picture.y_final[at_train] - picture.y_train).mean() < np.abs(picture.y_start[at_train]
                                                                               - picture.y_train).mean()


def test_the_error_falls_as_the_square_of_the_learning_rate_at_the_training_points():
    problem = one_step.one_step_problem(seed=0, n_hidden=20, n_train=4)
    scaling = one_step.error_scaling(problem, learning_rate=1e-3, n_learning_rates=4)
    assert list(scaling.table["learning rate"]) == [1e-3, 5e-4, 2.5e-4, 1.25e-4]
    assert list(scaling.table.columns) == ["learning rate", "max |true - eNTK|, training points",
                                           "max |true change|, training points", "max |true - eNTK|, grid",
                                           "max |true change|, grid"]
    assert scaling.slope_train == pytest.approx(2.0, abs=0.2)
    first = scaling.table.iloc[0]
    assert scaling.relative_error == pytest.approx(first["max |true - eNTK|, grid"] / first["max |true change|, grid"])
    assert 0 < scaling.relative_error < 0.1


def test_bad_inputs_name_the_parameter_and_float32_is_refused():
    with pytest.raises(ValueError, match="n_train must be an integer >= 1"):
        one_step.one_step_problem(0, 5, 0)
    problem = one_step.one_step_problem(0, 5, 3)
    with pytest.raises(ValueError, match="learning_rate must be a positive"):
        one_step.one_step_picture(problem, -1.0, 10)
    with pytest.raises(ValueError, match="n_learning_rates must be an integer >= 2"):
        one_step.error_scaling(problem, 1e-3, 1)


def test_without_float64_the_study_refuses_to_run():
    with disable_x64(), pytest.raises(RuntimeError, match="jax_enable_x64"):
        one_step.one_step_problem(0, 5, 3)
