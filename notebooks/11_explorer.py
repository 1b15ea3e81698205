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
# # The live explorer: one network's t=0 eNTK at any initial scale
#
# This page draws **one** multitask network at initial scale $g$ (the standard draw,
# $U[-0.1, 0.1]$, times $g$ on both layers: $g = 1$ is the paper's standard init, $g = 10$ its
# large init, the same weights as the standard/large pair of that seed in
# {doc}`00_quickstart` and {doc}`04_multitask_representations`) and shows, in about a second:
#
# * **the leading vector of each output's $t=0$ eNTK** (one column per output unit, one row per
#   training pattern, patterns sorted by the input unit their task routes), for both variants
#   of the analysis ({doc}`../choices`), with the silhouette of 12-cluster k-means on the
#   loadings: the paper's predictor of later performance (its Fig 15 and Sec 4.2.2);
# * **its controls** ({doc}`04_multitask_representations`, *What the t=0 eNTK is made of*): the
#   share of the eNTK loadings that a linear function of a kernel-free quantity of the same
#   network explains — the loss sensitivities $\epsilon = \partial L/\partial y$, the output
#   error $\epsilon\odot\sigma'$ and the targets — and those quantities' own silhouettes;
# * **a short training curve**: summed squared error on the training and test sets over a few
#   hundred full-batch gradient steps at the schedule's learning rate.
#
# **How to read it.** Where $\epsilon$ and the targets explain nearly all of the eNTK loadings
# (bars near 1), the kernel is close to its small-weight limit, a rank-one matrix whose leading
# vector *is* the loss sensitivity: its silhouette then measures the targets, not anything the
# network has. As $g$ grows toward the paper's large init ($g = 10$) the hidden units vary from
# pattern to pattern, the bars for $\epsilon$ and the targets drop, and the output error
# $\epsilon\odot\sigma'$ still explains most of the loadings (chapter 04's finding for ten
# pairs); move the scale further to see where that stops.
# {doc}`10_rich_lazy_continuum` follows the same quantities over many networks per scale and
# asks whether any of them predicts what the network learns.
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `g` | initial scale of both layers | number in [0.001, 100] |
# | `seed` | weight draw and dataset | integer >= 0 |
# | `schedule` | learning rate: `"ET"` 0.01; `"LR"` 0.03 for g < √10, 0.01 above (the standard and large rates) | `"ET"`, `"LR"` |
# | `architecture` | `"4x3"` (the paper's network) or `"3x4"` (App A.7.1's swap) | see left |
# | `n_iterations` | gradient steps of the training curve | multiple of 10 in [10, 10000] |
# | `n_train` | training patterns, and as many test patterns (i.i.d.) | integer in [24, 1000] |
# :::
#
# The defaults use the continuum's data size (200 patterns; chapter 04 uses 500, where the
# authors' variant, a full eigendecomposition per output, takes several seconds). Nothing on
# this page is cached: every change recomputes.

# %% tags=["parameters"]
g = 1.0
seed = 0
schedule = "LR"
architecture = "4x3"
n_iterations = 300
n_train = 200

# %% tags=["remove-cell"]
from lib.book import check_chapter

check_chapter("11_explorer", globals())

# %% tags=["hide-input"]
import time

import matplotlib.pyplot as plt
from myst_nb import glue

from lib.book import explore, plot_explorer, scale_strip, STRIP_SCALES

result = explore(g, seed, schedule, architecture, n_iterations, n_train=n_train)  # the first call also compiles
start = time.perf_counter()  # a slider change's redraw in a warm kernel: compute and draw again, not shown
plt.close(plot_explorer.plot_explorer(explore(g, seed, schedule, architecture, n_iterations, n_train=n_train)))
glue("explorer_redraw_s", f"{time.perf_counter() - start:.1f}", display=False)
glue("explorer_g", float(g), display=False)
glue("explorer_n_iterations", int(n_iterations), display=False)
for name, value in result["silhouette"].items():
    glue(f"explorer_silhouette_{name}", value, display=False)
for variant, by_control in result["share"].items():
    for control, value in by_control.items():
        glue(f"explorer_share_{variant}_{control}", value, display=False)
glue("explorer_limit_error", result["limit_error"], display=False)
glue("explorer_learning_rate", result["learning_rate"], display=False)
for name in ("loss_train", "loss_test"):
    glue(f"explorer_{name}_start", float(result[name][0]), display=False)
    glue(f"explorer_{name}_end", float(result[name][-1]), display=False)

# %% mystnb={"figure": {"caption": "Paper Fig 15's t=0 eNTK structure, live for one network (new: the explorer). Top: leading eNTK vector of each output unit (columns) over the training patterns sorted by the input unit their task routes (rows), principled and authors' variant, each oriented along the loss sensitivities \u03b5; titles give the silhouette of 12-cluster k-means on the loadings. Bottom left: share of the variance of each variant's loadings explained by \u03b5, the output error \u03b5\u00b7\u03c3' and the targets (R\u00b2, mean over outputs), each control's own silhouette under its name. Bottom right: summed squared error on the training (dotted) and test (solid) patterns during full-batch gradient descent.", "name": "fig-explorer"}} tags=["hide-input"]
plot_explorer.plot_explorer(result)
plt.show()

# %% [markdown]
# At $g$ = {glue:text}`explorer_g:g` the leading eNTK vectors cluster with silhouette
# {glue:text}`explorer_silhouette_entk_principled:.2f` (principled variant) and
# {glue:text}`explorer_silhouette_entk_authors:.2f` (authors'); the loss sensitivities alone give
# {glue:text}`explorer_silhouette_epsilon:.2f`, the output error
# {glue:text}`explorer_silhouette_output_error:.2f` and the targets
# {glue:text}`explorer_silhouette_targets:.2f`. The loss sensitivities explain
# {glue:text}`explorer_share_principled_epsilon:.3f` of the variance of the principled loadings
# ({glue:text}`explorer_share_authors_epsilon:.3f` of the authors'), the output error
# {glue:text}`explorer_share_principled_output_error:.3f`
# ({glue:text}`explorer_share_authors_output_error:.3f`) and the targets
# {glue:text}`explorer_share_principled_targets:.3f`
# ({glue:text}`explorer_share_authors_targets:.3f`). The exact eNTK lies at a relative distance
# of {glue:text}`explorer_limit_error:.2f` from its small-weight limit. In
# {glue:text}`explorer_n_iterations` steps at learning rate
# {glue:text}`explorer_learning_rate:g` the training loss went from
# {glue:text}`explorer_loss_train_start:.1f` to {glue:text}`explorer_loss_train_end:.1f` and the
# test loss from {glue:text}`explorer_loss_test_start:.1f` to
# {glue:text}`explorer_loss_test_end:.1f`.
#
# ## Run it live
#
# :::{note}
# The sliders below need a running kernel: in the project's folder run `make lab` (after
# `make setup`), open `11_explorer.py` in the notebooks folder JupyterLab shows, and run all
# cells. Each change of the scale (log slider), seed, schedule or architecture recomputes the
# figure above for that network: at this page's parameters, computing and drawing it again in a
# warm kernel took {glue:text}`explorer_redraw_s` s on the machine that built the page (named in the
# {doc}`execution report <execution_report>`). The rendered book shows the figure at the page's
# parameters and, below, what the scale slider changes.
# :::
#
# ## What the scale slider changes
#
# The same network (the page's seed, schedule and architecture) at each of the initial scales
# {glue:text}`explorer_strip_scales`: the structure the slider moves through, drawn once for this
# page.

# %% mystnb={"figure": {"caption": "Paper Fig 15's t=0 eNTK structure across initial scales (new: the explorer's scale slider, drawn once): top, the principled variant's leading eNTK vector of each output unit (columns) over the training patterns sorted by the input unit their task routes (rows), one network at each initial scale g, silhouette of 12-cluster k-means in the title; bottom, each variant's silhouette (circles) and the share of its loadings explained by the loss sensitivities \u03b5 (squares, R\u00b2 mean over outputs) against g.", "name": "fig-explorer-strip"}} tags=["hide-input"]
glue("explorer_strip_scales", ", ".join(f"{s:g}" for s in STRIP_SCALES), display=False)
plot_explorer.plot_scale_strip(scale_strip(STRIP_SCALES, seed, schedule, architecture, n_iterations=10, n_train=n_train))
plt.show()

# %% tags=["hide-input", "remove-output"]
import math

from ipywidgets import Dropdown, FloatLogSlider, IntSlider, fixed, interact

from lib.book import ARCHITECTURES, G_RANGE, interactive_frontend, SCHEDULES

# the sliders only where someone can move them (JupyterLab): a headless run (the runner, papermill,
# nbconvert) renders no widgets and would wait forever on a live widget's messages
if interactive_frontend():
    interact(plot_explorer.show_explorer,
             g=FloatLogSlider(value=g, base=10, min=math.log10(G_RANGE[0]), max=math.log10(G_RANGE[1]), step=0.05,
                              description="init scale g", continuous_update=False),
             seed=IntSlider(value=seed, min=0, max=max(99, seed), description="seed", continuous_update=False),
             schedule=Dropdown(options=list(SCHEDULES), value=schedule, description="schedule"),
             architecture=Dropdown(options=list(ARCHITECTURES), value=architecture, description="architecture"),
             n_iterations=fixed(n_iterations), n_train=fixed(n_train));
