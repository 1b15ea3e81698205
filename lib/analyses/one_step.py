"""One gradient step explained by the eNTK (chapter 01; the paper's Fig 1 and Sec 2.1).

A one-hidden-layer ReLU network (:class:`lib.core.models.ReluNet1D`) fits ``n_train`` points of
sin(pi x) drawn uniformly on [-1, 1] (:func:`one_step_problem`). :func:`one_step_picture` draws the
pieces of the eNTK's prediction of one full-batch gradient step at t=0 on a grid of inputs, and
:func:`error_scaling` measures how the prediction's error shrinks as the learning rate is halved
(second order in the step where the network is smooth). Everything is float64: the error study
goes far below float32 precision, so JAX's ``jax_enable_x64`` must be on before these run.
Checked in ``tests/test_one_step.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from ..core import kernels
from ..core.models import ReluNet1D
from ..core.training import train
from ..core.validation import check_int, check_positive_float, check_seed
from .entk_vectors import loglog_slope

GRID_POINTS = 201  # evaluation inputs, evenly spaced on [-1, 1]
PLACES = {"training points": "x_train", "grid": "grid"}  # where the error is measured -> problem field


class OneStepProblem(NamedTuple):
    """The Fig 1 regression: ``model`` and its float64 initial ``params``, the training inputs
    ``x_train`` (M, 1) sorted, their targets ``y_train`` = sin(pi x) (M, 1) and the evaluation
    ``grid`` (G, 1) on [-1, 1]."""

    model: ReluNet1D
    params: dict
    x_train: jax.Array
    y_train: jax.Array
    grid: jax.Array


class OneStepPicture(NamedTuple):
    """The pieces of the Fig 1 explainer, NumPy float64: the evaluation ``grid`` (G,), ``x_train``
    and ``y_train`` (M,), the predictions at t=0 (``y_start``), after one gradient step
    (``y_one_step``) and after training (``y_final``), each (G,), the influence functions
    K(x, x_n) at t=0 (``influence``, (G, M)) and each scaled by -lr times that point's loss
    sensitivity (``contributions``, (G, M); their sum over M is the eNTK's predicted change)."""

    grid: np.ndarray
    x_train: np.ndarray
    y_train: np.ndarray
    y_start: np.ndarray
    y_one_step: np.ndarray
    y_final: np.ndarray
    influence: np.ndarray
    contributions: np.ndarray


class ErrorScaling(NamedTuple):
    """How the one-step prediction's error scales with the learning rate: ``table`` (one row per
    learning rate, largest to smallest: the rate, then per place ("training points", "grid") the
    largest ``|true - eNTK|`` change and the largest ``|true change|``), the fitted log-log slopes of
    the error against the rate at the training points (``slope_train``) and over the grid
    (``slope_grid``), and at the first (largest) rate the largest error over the grid divided by
    the largest true change there (``relative_error``)."""

    table: pd.DataFrame
    slope_train: float
    slope_grid: float
    relative_error: float


def _check_float64() -> None:
    if not jax.config.jax_enable_x64:
        raise RuntimeError("the one-step study runs in float64: call jax.config.update('jax_enable_x64', True) first")


def one_step_problem(seed: int, n_hidden: int, n_train: int) -> OneStepProblem:
    """The :class:`OneStepProblem` drawn from ``seed`` (the weights from ``jax.random.PRNGKey(seed)``,
    the training inputs from ``numpy.random.default_rng(seed)``) with ``n_hidden`` ReLU units and
    ``n_train`` training points. RuntimeError when float64 is off."""
    check_seed("seed", seed)
    check_int("n_hidden", n_hidden, minimum=1)
    check_int("n_train", n_train, minimum=1)
    _check_float64()
    model = ReluNet1D(n_hidden)
    params = model.init(jax.random.PRNGKey(seed), dtype=jnp.float64)
    rng = np.random.default_rng(seed)
    x_train = jnp.asarray(np.sort(rng.uniform(-1, 1, n_train))[:, None])
    return OneStepProblem(model, params, x_train, jnp.sin(np.pi * x_train), jnp.linspace(-1, 1, GRID_POINTS)[:, None])


def one_step_picture(problem: OneStepProblem, learning_rate: float, n_iterations: int) -> OneStepPicture:
    """The :class:`OneStepPicture` of one gradient step with ``learning_rate`` from the problem's
    initial weights, and of ``n_iterations`` steps (reference engine) for the final curve.
    RuntimeError when the eNTK's predicted change differs from the sum of the contributions
    (relative 1e-10: the same sum computed two ways)."""
    check_positive_float("learning_rate", learning_rate)
    check_int("n_iterations", n_iterations, minimum=1)
    _check_float64()
    model, params, x_train, y_train, grid = problem
    influence = kernels.ntk(model, params, grid, x_train)[:, :, 0, 0]  # (G, M) K(x, x_n)
    contributions = -learning_rate * kernels.entk(model, params, grid, x_train, y_train)[0]  # (G, M)
    actual, predicted = kernels.one_step_change(model, params, grid, x_train, y_train, learning_rate)
    if not np.allclose(predicted[:, 0], contributions.sum(axis=1), rtol=1e-10, atol=0.0):
        raise RuntimeError("the eNTK's predicted one-step change is not the sum of the training points' contributions")
    final, _ = train(model, params, {"x_train": x_train, "y_train": y_train}, learning_rate, n_iterations, 2,
                     engine="reference")
    y_start = model.apply(params, grid)[:, 0]
    return OneStepPicture(np.asarray(grid[:, 0]), np.asarray(x_train[:, 0]), np.asarray(y_train[:, 0]),
                          np.asarray(y_start), np.asarray(y_start + actual[:, 0]),
                          np.asarray(model.apply(final, grid)[:, 0]), np.asarray(influence), np.asarray(contributions))


def error_scaling(problem: OneStepProblem, learning_rate: float, n_learning_rates: int) -> ErrorScaling:
    """The :class:`ErrorScaling` of the one-step prediction over ``n_learning_rates`` (>= 2) rates,
    ``learning_rate`` halved each time, measured at the training points and over the grid."""
    check_positive_float("learning_rate", learning_rate)
    check_int("n_learning_rates", n_learning_rates, minimum=2)
    _check_float64()
    model, params, x_train, y_train = problem.model, problem.params, problem.x_train, problem.y_train
    rows = []
    for lr in learning_rate * 2.0 ** -np.arange(n_learning_rates):
        row = {"learning rate": lr}
        for where, field in PLACES.items():
            true_change, entk_change = kernels.one_step_change(model, params, getattr(problem, field), x_train,
                                                               y_train, float(lr))
            row[f"max |true - eNTK|, {where}"] = float(jnp.abs(true_change - entk_change).max())
            row[f"max |true change|, {where}"] = float(jnp.abs(true_change).max())
        rows.append(row)
    table = pd.DataFrame(rows)
    slope_train = loglog_slope(table["learning rate"], table["max |true - eNTK|, training points"])
    slope_grid = loglog_slope(table["learning rate"], table["max |true - eNTK|, grid"])
    relative = table["max |true - eNTK|, grid"].iloc[0] / table["max |true change|, grid"].iloc[0]
    return ErrorScaling(table, slope_train, slope_grid, float(relative))
