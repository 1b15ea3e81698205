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

from lib.book import check_chapter

check_chapter("01_one_step_entk", globals())

# %% tags=["hide-input"]
import matplotlib.pyplot as plt

from lib.book import glue_texts, one_step, one_step_report, plot_theory, reading_table, summary

run_parameters = summary.ran_with("01_one_step_entk", globals())

problem = one_step.one_step_problem(seed, n_hidden, n_train)
picture = one_step.one_step_picture(problem, learning_rate, n_iterations)

# %% mystnb={"figure": {"caption": "Paper Fig 1, recomputed. (a) Predictions at initialization, after one gradient step and after training. (b) The influence function K(x, x_n) of each training point at t=0 (colours match the points). (c) Each influence scaled by -lr times that point's loss sensitivity. (d) Their sum added to the t=0 prediction (dashed) against the true state after one step.", "name": "fig-one-step"}} tags=["hide-input"]
plot_theory.plot_one_step_explainer(picture.grid, picture.x_train, picture.y_train, picture.y_start,
                                    picture.y_one_step, picture.y_final, picture.influence, picture.contributions)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## How good is the one-step prediction?
#
# The neglected term is second order in the step, so halving $\eta$ should quarter the
# error. We measure the largest error over the grid for a sequence of halved learning rates.

# %% tags=["hide-input"]
errors = one_step.error_scaling(problem, learning_rate, n_learning_rates)
summary.check_headline("01_one_step_entk", run_parameters, "one-step error order in the learning rate (training "
                       "points)", errors.slope_train, 1.8, 2.2)  # second order where the network is smooth
glue_texts(one_step_report.error_texts(errors))
reading_table(one_step_report.error_view(errors),
              "Per learning rate: largest error of the eNTK one-step prediction and largest true change")

# %% mystnb={"figure": {"caption": "Sec 2.1 of the paper (no paper figure): largest error of the eNTK one-step prediction at the training points against the learning rate, with an lr^2 guide.", "name": "fig-one-step-scaling"}} tags=["hide-input"]
plot_theory.plot_error_scaling(errors.table["learning rate"], errors.table["max |true - eNTK|, training points"],
                               errors.slope_train)
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
summary.record("01_one_step_entk", run_parameters, one_step_report.claim_rows(errors))
