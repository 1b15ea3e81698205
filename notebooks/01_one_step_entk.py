# ---
# jupyter:
#   chapter:
#     figures: 2
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: chapter
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # One gradient step, explained by the eNTK
#
# The paper's Fig 1: a one-hidden-layer ReLU network fits a few points of a 1-D
# regression. Gradient descent on $L = \sum_n (y(x_n) - t_n)^2$ moves the parameters by
# $-\eta\, \partial L / \partial\theta$, so to first order the prediction at any $x$ moves by
#
# $$
# \Delta y(x) = -\eta \sum_n \underbrace{\frac{\partial y(x)}{\partial\theta}\cdot
# \frac{\partial y(x_n)}{\partial\theta}}_{K(x, x_n)}\;\underbrace{\frac{\partial L}{\partial y(x_n)}}_{\epsilon_n}
# + O(\eta^2).
# $$
#
# Each training point acts through an *influence function* $K(x, x_n)$ (the NTK at the
# current weights), scaled by its loss sensitivity $\epsilon_n$; the product is the eNTK.
# Below we draw these pieces at $t=0$ and check that their sum predicts the next state,
# with an error that shrinks as $\eta^2$.
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `seed` | weights and data seed | integer >= 0 |
# | `n_hidden` | hidden ReLU units | integer >= 1 |
# | `n_train` | training points | integer >= 1 |
# | `learning_rate` | the step drawn in the figure | > 0 |
# | `n_iterations` | steps for the "final" curve | integer >= 1 |
# | `n_learning_rates` | halvings of the learning rate in the error study | integer >= 3 |
# :::

# %% tags=["parameters"]
seed = 0
n_hidden = 50
n_train = 8
learning_rate = 0.002
n_iterations = 2000
n_learning_rates = 6

# %% tags=["remove-cell"]
import jax

jax.config.update("jax_enable_x64", True)  # the error study goes far below float32 precision

from lib.book.chapter_parameters import check_one_step_entk

check_one_step_entk(seed, n_hidden, n_train, learning_rate, n_iterations, n_learning_rates)

# %% tags=["hide-input"]
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from lib.analyses import entk_vectors
from lib.core import kernels
from lib.book import plot_theory
from lib.book import one_step_report, summary
from lib.book.tables import reading_table
from lib.core.models import ReluNet1D
from lib.core.training import train

run_parameters = summary.ran_with("01_one_step_entk", globals())

model = ReluNet1D(n_hidden)
params = model.init(jax.random.PRNGKey(seed), dtype=jnp.float64)
rng = np.random.default_rng(seed)
x_train = jnp.asarray(np.sort(rng.uniform(-1, 1, n_train))[:, None])
y_train = jnp.sin(np.pi * x_train)
grid = jnp.linspace(-1, 1, 201)[:, None]

influence = kernels.ntk(model, params, grid, x_train)[:, :, 0, 0]  # (G, M) K(x, x_n)
contributions = -learning_rate * kernels.entk(model, params, grid, x_train, y_train)[0]  # (G, M)
actual, predicted = kernels.one_step_change(model, params, grid, x_train, y_train, learning_rate)
final, _ = train(model, params, {"x_train": x_train, "y_train": y_train}, learning_rate, n_iterations, 2,
                 engine="reference")
np.testing.assert_allclose(predicted[:, 0], contributions.sum(axis=1), rtol=1e-10)  # the same sum, two ways

# %% mystnb={"figure": {"caption": "Paper Fig 1, recomputed. (a) Predictions at initialization, after one gradient step and after training. (b) The influence function K(x, x_n) of each training point at t=0 (colours match the points). (c) Each influence scaled by -lr times that point's loss sensitivity. (d) Their sum added to the t=0 prediction (dashed) against the true state after one step.", "name": "fig-one-step"}} tags=["hide-input"]
y_start = model.apply(params, grid)[:, 0]
plot_theory.plot_one_step_explainer(np.asarray(grid[:, 0]), np.asarray(x_train[:, 0]), np.asarray(y_train[:, 0]),
                                    np.asarray(y_start), np.asarray(y_start + actual[:, 0]),
                                    np.asarray(model.apply(final, grid)[:, 0]), np.asarray(influence),
                                    np.asarray(contributions))
plt.tight_layout()
plt.show()

# %% [markdown]
# ## How good is the one-step prediction?
#
# The neglected term is second order in the step, so halving $\eta$ should quarter the
# error. We measure the largest error over the grid for a sequence of halved learning rates.

# %% tags=["hide-input"]
learning_rates = learning_rate * 2.0 ** -np.arange(n_learning_rates)
rows = []
for lr in learning_rates:
    row = {"learning rate": lr}
    for where, x_eval in (("training points", x_train), ("grid", grid)):
        true_change, eNTK_change = kernels.one_step_change(model, params, x_eval, x_train, y_train, float(lr))
        row[f"max |true - eNTK|, {where}"] = float(jnp.abs(true_change - eNTK_change).max())
        row[f"max |true change|, {where}"] = float(jnp.abs(true_change).max())
    rows.append(row)
errors = pd.DataFrame(rows)
slope_train = entk_vectors.loglog_slope(errors["learning rate"], errors["max |true - eNTK|, training points"])
slope_grid = entk_vectors.loglog_slope(errors["learning rate"], errors["max |true - eNTK|, grid"])
summary.check_headline("01_one_step_entk", run_parameters, "one-step error order in the learning rate (training "
                       "points)", slope_train, 1.8, 2.2)  # second order where the network is smooth
relative = errors["max |true - eNTK|, grid"].iloc[0] / errors["max |true change|, grid"].iloc[0]
glue("one_step_slope", f"{slope_train:.2f}", display=False)
glue("one_step_slope_grid", f"{slope_grid:.2f}", display=False)
glue("one_step_rel_error", f"{relative:.1e}", display=False)
reading_table(errors.map("{:.3e}".format),
              "Per learning rate: largest error of the eNTK one-step prediction and largest true change")

# %% mystnb={"figure": {"caption": "Sec 2.1 of the paper (no paper figure): largest error of the eNTK one-step prediction at the training points against the learning rate, with an lr^2 guide.", "name": "fig-one-step-scaling"}} tags=["hide-input"]
plot_theory.plot_error_scaling(errors["learning rate"], errors["max |true - eNTK|, training points"], slope_train)
plt.tight_layout()
plt.show()

# %% [markdown]
# At the training points the error falls with slope {glue:text}`one_step_slope` on the
# log-log plot, i.e. as $\eta^2$. Over the whole grid the fitted slope is
# {glue:text}`one_step_slope_grid` and the halvings are irregular: a ReLU network is only
# piecewise smooth in its parameters, and where a step moves a unit's kink across an
# evaluation point the error there is first order in the moved distance. At the step drawn
# in the figure the largest error over the grid is {glue:text}`one_step_rel_error` of the
# largest change. The paper's Fig 1 says the t=0 eNTK prediction "perfectly matches" the
# state at t=1: it matches up to this second-order term, which is what makes the
# eNTK a faithful account of *instantaneous* learning, and why the path integral of the
# next chapters is needed for longer horizons outside the kernel regime.

# %% tags=["remove-cell"]
summary.record("01_one_step_entk", run_parameters, one_step_report.claim_rows(slope_train, relative))
