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
# # Quickstart: one standard/large pair and its eNTK at initialization
#
# This page trains one *pair* of the paper's multitask networks (Sec 4.1): the same random
# weight draw at standard scale, $U[-0.1, 0.1]$, and multiplied by ten ("large init"),
# on the same 500 single-task training patterns. It then computes the loss-weighted
# empirical NTK (eNTK) of both networks at $t=0$ and looks at the leading vector of each
# output's eNTK, the object the paper uses to predict which representations will be learned.
#
# :::{dropdown} Parameters of this chapter
# Set in the cell tagged `parameters`; override them with papermill,
# e.g. `python -m lib.book.runner --only 00_quickstart -p seed=3 --output-dir sweeps/seed3`:
#
# | name | meaning | allowed |
# |---|---|---|
# | `seed` | pair seed: weight draw and dataset | integer >= 0 |
# | `schedule` | learning rates: `"ET"` (0.01 / 0.01) or `"LR"` (0.03 standard / 0.01 large) | `"ET"`, `"LR"` |
# | `n_iterations` | full-batch gradient steps | multiple of 100, >= 100 |
# | `n_hidden` | hidden units | integer >= 1 |
# | `entk_variant` | `"principled"` (train x train, leading singular vector) or `"authors"` (test x train, first `eig` vector) | see left |
# :::
#
# Everything computed here is cached in `results/` under a hash of these parameters.

# %% tags=["parameters"]
seed = 0
schedule = "LR"
n_iterations = 2500
n_hidden = 200
entk_variant = "principled"

# %% tags=["remove-cell"]
from lib.book import check_chapter

check_chapter("00_quickstart", globals())

# %% tags=["hide-input"]
from functools import partial

import matplotlib.pyplot as plt
import numpy as np
from myst_nb import glue

from lib.book import (DEFAULT_ENGINE, entk_vectors, leading_loadings_at_init, plot_performance, plot_representations,
                      results, run_pairs, TaskEnvironment)

env = TaskEnvironment(4, 3, 3)
cache_parameters = dict(schedule=schedule, seeds=[seed], n_iterations=n_iterations, n_hidden=n_hidden,
                        engine_tag=DEFAULT_ENGINE.tag)
pair = results.cached(
    "quickstart_pair",
    cache_parameters,
    partial(run_pairs, env, schedule, [seed], n_iterations=n_iterations, n_hidden=n_hidden),
)
final_test = pair["loss_test"][0, :, -1]
glue("quickstart_final_test_standard", float(final_test[0]), display=False)
glue("quickstart_final_test_large", float(final_test[1]), display=False)

# %% [markdown]
# ## Learning curves
#
# Full-batch gradient descent on the summed squared error; the biases stay at $-2$. After
# training, the test loss (summed squared error over the 500 test patterns) is
# {glue:text}`quickstart_final_test_standard:.2f` for the standard-init network and
# {glue:text}`quickstart_final_test_large:.2f` for the large-init one.

# %% mystnb={"figure": {"caption": "Paper Figs 10 and 19 in miniature (one pair): test (solid) and training (dotted) loss of the standard- and large-init networks of one pair over training, drawn from the cached run.", "name": "fig-quickstart-losses"}} tags=["hide-input"]
ax = plot_performance.plot_pair_losses(pair["iterations"], pair["loss_test"], pair["loss_train"])
ax.set_title(f"schedule {schedule}, seed {seed}")
plt.show()

# %% [markdown]
# ## The eNTK at initialization
#
# For each output unit $k$ the eNTK is the matrix
# $K_k[n, m] = \partial y_k(x_n)/\partial\theta \cdot \partial L_m/\partial\theta$;
# one gradient step changes output $k$ on pattern $n$ by $-\eta \sum_m K_k[n, m]$.
# Below: the leading vector of each output's eNTK (one column per output unit), with the
# training patterns sorted by the stimulus unit their task routes. The silhouette score
# of 12-cluster k-means on these loadings is the paper's predictor of later performance.

# %% mystnb={"figure": {"caption": "Paper Fig 15 in miniature (one pair): leading vector of each output unit's eNTK at t=0 (columns), over the training patterns sorted by the stimulus unit their task routes (rows), for standard and large init. Titles give the silhouette score of 12-cluster k-means on the loadings.", "name": "fig-quickstart-entk"}} tags=["hide-input"]
entk_parameters = {**cache_parameters, "entk_variant": entk_variant}
loadings = results.cached("quickstart_entk_loadings", entk_parameters,
                          partial(leading_loadings_at_init, env, pair, 0, entk_variant))
train_set = env.encode(pair["stimulus_train"][0], pair["tasks_train"][0])
order = np.argsort(env.relevant_input_unit(train_set), kind="stable")
fig, axes = plt.subplots(1, 2, figsize=(9, 4))
for ax, init in zip(axes, ("standard", "large")):
    score = entk_vectors.silhouette_of_loadings(loadings[init])
    glue(f"quickstart_silhouette_{init}", float(score), display=False)
    plot_representations.plot_entk_loadings(loadings[init], order, f"{init} init (silhouette {score:.3f})", ax)
fig.tight_layout()
plt.show()
