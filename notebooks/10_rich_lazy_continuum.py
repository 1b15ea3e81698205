# ---
# jupyter:
#   chapter:
#     figures: 5
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
# # Beyond the paper: the rich-to-lazy continuum
#
# The paper compares two initial scales (the standard draw and the same draw x10) with
# ten pairs each, and the correlation chapter found that its correlations equal those of
# the bare init label. The paper's question, *can we tell from the initial state which
# representation a network will learn and how it will perform?*, is therefore still open.
# Here we ask it over a continuum of initial scales g, with enough networks per scale to
# measure prediction **within** a scale, and we test the paper's predictor (the t=0 eNTK
# silhouette) against rivals from the rich/lazy literature: kernel-target alignment of the
# t=0 kernel (in the lazy regime a network behaves like its linearization, whose
# performance follows that alignment) and the sharing of the t=0 hidden representation,
# plus two controls (the loss sensitivities epsilon alone, and the plain NTK without loss
# weighting).
#
# **Design.** Every network is the paper's 4x3 multitask network (200 hidden units) with
# the standard weight draw of its seed multiplied by g, on both layers (g = 10 is the
# paper's large init) or on the hidden layer only (the paper's "layer 1 x 10" wording).
# Each network is trained four times from the same initial weights (full-batch gradient
# descent on the summed squared error): single-task data, then multitask fine-tuning;
# the network's linearization at its initial weights on the same single-task data; and
# 11 of the 12 tasks, then the held-out 12th alone. Every scale is run at the paper's ET
# learning rate (0.01) and at a learning rate chosen per scale on *held-out* networks
# (seeds never evaluated here): the candidate with the lowest median final training loss.
# Training and test sets hold `n_train` i.i.d. patterns each. The sweep runs on Dask, one
# cached task per scale and learning rate.
#
# **Parameters**
#
# | name | meaning | allowed |
# |---|---|---|
# | `g_min`, `g_max`, `n_scales` | log grid of init scales (both layers), rounded to 4 decimals; 1 and 10 always included when inside | 0.0001 <= g_min < g_max <= 1e6; n_scales in [3, 40], all distinct after rounding |
# | `hidden_scales` | init scales with the hidden layer scaled only | non-empty list of distinct numbers in [0.0001, 1e6] |
# | `n_seeds` | evaluated networks per scale and learning rate | integer in [3, 200] |
# | `n_lr_seeds` | held-out networks per scale and candidate learning rate | integer in [1, 50] |
# | `lr_candidates` | learning rates to choose from per scale | non-empty list of distinct positive numbers |
# | `iterations` | iterations of the single-task (and linearized, and 11-task) run, fine-tuning, held-out route, learning-rate choice | dict, multiples of 10 in [10, 100 000] |
# | `n_train` | training and test patterns per phase | integer in [24, 2000] |
# | `n_hidden` | hidden units of every network (the paper: 200) | integer in [1, 2000] |
# | `n_pairs`, `first_seeds`, `robustness_iterations` | the standard-vs-large experiment of the performance chapter, repeated at a larger size | as there |
# | `block_pairs` | pairs per cached sweep task of that experiment; the performance chapter's `n_pairs`, so that its pairs are read from the cache, not trained again | integer in [1, 200] |
# | `n_resamples` | bootstrap resamples per interval | integer in [100, 1 000 000] |
#
# Besides these maxima, the continuum's training work ((scales) x (networks x iterations) x `n_train` x
# `n_hidden`, 3.4e10 at the defaults) is limited to 5e11, and `n_resamples` x the networks of the largest
# bootstrap to 2e7 numbers; larger runs need `--allow-large` (`python -m lib.book.runner`).
#
# The defaults are sized for the book's time budget on a 2-core machine (the sizes of this
# run are stated below the sweep); the continuum's iteration counts are therefore far below the
# paper's 10,000 (see "What this profile cannot show" below). The robustness experiment runs
# at the paper's counts. For a cluster, the larger profile is
# `n_scales=16, hidden_scales=[0.3, 1.0, 3.0, 5.0, 10.0, 20.0], n_seeds=30, n_lr_seeds=5,
# iterations={"single": 10000, "finetune": 10000, "route": 2000, "lr_choice": 2500},
# n_train=500, n_pairs=100, robustness_iterations={"ET": 10000, "LR": 2500}`, at several widths
# (run it with `python -m lib.book.runner --only 10_rich_lazy_continuum --allow-large -p ...
# --grid n_hidden=100,200,400 --output-dir sweeps/continuum`, one executed chapter per width,
# and the Dask scheduler of the cluster in `REPRO_DASK_SCHEDULER`).

# %% tags=["parameters"]
g_min = 0.1
g_max = 20.0
n_scales = 10
hidden_scales = [0.3, 3.0, 5.0, 10.0, 20.0]
n_seeds = 14
n_lr_seeds = 2
lr_candidates = [0.01, 0.03, 0.1]
iterations = {"single": 500, "finetune": 200, "route": 200, "lr_choice": 500}
n_train = 200
n_hidden = 200
n_pairs = 50
first_seeds = {"ET": 0, "LR": 100}
robustness_iterations = {"ET": 10000, "LR": 2500}
block_pairs = 10
n_resamples = 2000

# %% tags=["remove-cell"]
import numpy as np

from lib.analyses.predictors import LR_SELECTION_SEED, scale_grid
from lib.experiments.schedules import check_schedule_parameters
from lib.core.validation import (check_int, check_number_list, check_positive_float, check_seed, check_size,
                                 check_workload)

G_RANGE = (1e-4, 1e6)  # the grid rounds to 4 decimals; float32 weights and losses stay finite up to 1e6
LR_MAXIMUM = float(np.finfo(np.float32).max)  # learning rates are float32
plan = check_schedule_parameters(n_pairs, first_seeds, robustness_iterations)
check_size("n_scales", n_scales, minimum=3, sane_maximum=40)
check_size("n_seeds", n_seeds, minimum=3, sane_maximum=200)
check_int("n_seeds", n_seeds, minimum=3, maximum=LR_SELECTION_SEED)  # evaluated seeds stay below the held-out ones
check_size("n_lr_seeds", n_lr_seeds, minimum=1, sane_maximum=50)
check_seed("n_lr_seeds: the last held-out seed", LR_SELECTION_SEED + n_lr_seeds - 1)
check_size("n_train", n_train, minimum=24, sane_maximum=2000)
check_size("n_hidden", n_hidden, minimum=1, sane_maximum=2000)
check_size("n_resamples", n_resamples, minimum=100, sane_maximum=1_000_000)
check_size("block_pairs", block_pairs, minimum=1, sane_maximum=200)
for name, value in (("g_min", g_min), ("g_max", g_max)):
    if not G_RANGE[0] <= check_positive_float(name, value) <= G_RANGE[1]:
        raise ValueError(f"{name} must be a number in [{G_RANGE[0]:g}, {G_RANGE[1]:g}], got {value!r}")
if not g_min < g_max:
    raise ValueError(f"g_min and g_max must satisfy g_min < g_max, got {g_min!r}, {g_max!r}")
grid = scale_grid(g_min, g_max, n_scales)
if len(grid) != n_scales or not all(np.isfinite(g) and g > 0 for g in grid):
    raise ValueError(f"g_min = {g_min!r}, g_max = {g_max!r}, n_scales = {n_scales!r} give {len(grid)} distinct init "
                     f"scales {grid} (the grid is rounded to 4 decimals), not {n_scales}: widen [g_min, g_max] or ask "
                     "for fewer scales")
missing = [anchor for anchor in (1.0, 10.0) if g_min <= anchor <= g_max and anchor not in grid]
if missing:
    raise ValueError(f"n_scales = {n_scales} scales between g_min = {g_min!r} and g_max = {g_max!r} cannot hold both "
                     f"anchors 1 and 10 (grid {grid}, missing {missing}): ask for more scales or a narrower range")
check_number_list("hidden_scales", hidden_scales, *G_RANGE)
check_number_list("lr_candidates", lr_candidates, 0.0, LR_MAXIMUM, include_minimum=False)
if not isinstance(iterations, dict) or sorted(iterations) != ["finetune", "lr_choice", "route", "single"]:
    raise ValueError(f"iterations must be a dict with the keys finetune, lr_choice, route, single, got {iterations!r}")
for key, value in iterations.items():
    check_size(f"iterations[{key!r}]", value, minimum=10, sane_maximum=100_000)
    if value % 10:
        raise ValueError(f"iterations[{key!r}] must be a multiple of 10 (11 snapshots), got {value}")
n_cells = n_scales + len(hidden_scales)
check_workload(f"the continuum's training work, (n_scales + len(hidden_scales)) x (2 n_seeds x (3 iterations['single'] + "
               f"iterations['finetune'] + iterations['route']) + len(lr_candidates) x n_lr_seeds x "
               f"iterations['lr_choice']) x n_train x n_hidden (the defaults: 3.4e10)",
               n_cells * (2 * n_seeds * (3 * iterations["single"] + iterations["finetune"] + iterations["route"])
                          + len(lr_candidates) * n_lr_seeds * iterations["lr_choice"]) * n_train * n_hidden, 5e11)
check_workload("n_resamples x the networks of the largest bootstrap (max(n_scales x n_seeds, len(hidden_scales) x "
               "n_seeds, 4 n_pairs); its arrays hold that many numbers)",
               n_resamples * max(n_scales * n_seeds, len(hidden_scales) * n_seeds, 4 * n_pairs), 2e7)

# %% tags=["hide-input", "remove-stderr"]
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue
from scipy.stats import binomtest

from lib.book import plotting
from lib.analyses import predictors
from lib.analyses import stats
from lib.core.tasks import TaskEnvironment

env = TaskEnvironment(4, 3, 3)
scales = {"both": predictors.scale_grid(g_min, g_max, n_scales), "hidden": [float(g) for g in hidden_scales]}
common = dict(n_single=iterations["single"], n_finetune=iterations["finetune"], n_route=iterations["route"],
              n_train=n_train, n_test=n_train, n_hidden=n_hidden)
start = time.perf_counter()
sweep = predictors.continuum_sweep(scales, 0.01, [float(lr) for lr in lr_candidates], n_seeds, n_lr_seeds, common,
                                   iterations["lr_choice"])
nets = sweep["networks"]
print(f"{len(nets['g'])} trained networks ({len(scales['both'])} + {len(scales['hidden'])} scales x 2 learning "
      f"rates x {n_seeds}); sweep wall time {time.perf_counter() - start:.0f} s (0 when every point was cached)")
glue("cont_n_points", f"{len(scales['both']) + len(scales['hidden'])}", display=False)
glue("cont_n_initial", f"{(len(scales['both']) + len(scales['hidden'])) * n_seeds}", display=False)
glue("cont_n_trained", f"{len(nets['g'])}", display=False)
tuned = pd.DataFrame([{"scaling": s, "g": g, "tuned lr": lr} for (s, g), lr in sweep["tuned_lr"].items()])
tuned.pivot(index="g", columns="scaling", values="tuned lr")

# %% [markdown]
# The sweep has {glue:text}`cont_n_points` scale points with `n_seeds` networks each:
# {glue:text}`cont_n_initial` distinct initial networks, each trained at two learning rates
# ({glue:text}`cont_n_trained` trained networks, each also linearized, fine-tuned and given a
# held-out route). The table gives the learning rate chosen per scale on the held-out networks. Below,
# "paper lr" is 0.01 at every scale and "tuned lr" the table's choice.
#
# ## Outcomes across the continuum

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-continuum-outcomes", "caption": "Beyond the paper: outcomes against the init scale g (median and interquartile range over networks; blue: both layers scaled, red: hidden layer only; solid: lr 0.01, dashed: tuned lr; dotted lines at the standard draw g = 1 and the paper's large init g = 10). Losses are mean squared errors per pattern; fine-tuning speed is the share of the multitask loss removed in the first tenth of fine-tuning; route iterations are censored at the route run's length when the criterion is not reached; laziness: relative weight change, distance between the t=0 and trained NTK, and the gap between the trained network and its trained linearization relative to how far its outputs moved (log scale: at the larger tuned learning rates the linearization itself can diverge while the network does not)."}}
OUTCOME_TITLES = {"loss_single_test": "single-task test loss", "loss_multi_before": "multitask loss before fine-tuning",
                  "finetune_speed": "fine-tuning speed", "route_zero_shot": "held-out route: zero-shot loss",
                  "route_iterations": "held-out route: iterations to criterion",
                  "sharing_final": "sharing index, trained", "weight_change": "|dW| / |W0|",
                  "kernel_distance": "NTK distance t=0 vs trained", "linearization_gap": "gap to linearization"}
axes = plotting.plot_versus_scale(nets, OUTCOME_TITLES)
for name in ("loss_single_test", "loss_multi_before", "route_zero_shot", "weight_change", "linearization_gap"):
    axes[list(OUTCOME_TITLES).index(name)].set_yscale("log")
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
gs, gap = predictors.medians_by_scale(nets, "linearization_gap", "both", "paper")
_, dist = predictors.medians_by_scale(nets, "kernel_distance", "both", "paper")
both_scaled = {kind: (nets["scaling"] == "both") & (nets["lr_kind"] == kind) for kind in ("paper", "tuned")}
conv = {kind: float(nets["converged"][rows].mean()) for kind, rows in both_scaled.items()}
_, loss_paper = predictors.medians_by_scale(nets, "loss_single_test", "both", "paper")
_, loss_tuned = predictors.medians_by_scale(nets, "loss_single_test", "both", "tuned")
glue("cont_n_networks", f"{int(both_scaled['paper'].sum())}", display=False)
glue("cont_mid_gap", f"{predictors.transition_midpoint(gs, gap):.2g}", display=False)
glue("cont_mid_dist", f"{predictors.transition_midpoint(gs, dist):.2g}", display=False)
glue("cont_gap_range", f"{gap.max():.2f} to {gap.min():.2f}", display=False)
glue("cont_gap_min_g", f"{gs[np.nanargmin(gap)]:g}", display=False)
glue("cont_gap_max_g", f"{gs[np.nanargmax(gap)]:g}", display=False)
glue("cont_dist_min_g", f"{gs[np.nanargmin(dist)]:g}", display=False)
glue("cont_dist_max_g", f"{gs[np.nanargmax(dist)]:g}", display=False)
glue("cont_dist_range", f"{dist.min():.3f} to {dist.max():.3f}", display=False)
glue("cont_converged_paper", f"{100 * conv['paper']:.0f}%", display=False)
glue("cont_converged_tuned", f"{100 * conv['tuned']:.0f}%", display=False)
glue("cont_best_g_paper", f"{gs[np.nanargmin(loss_paper)]:g}", display=False)
glue("cont_best_g_tuned", f"{gs[np.nanargmin(loss_tuned)]:g}", display=False)
pd.DataFrame({"g": gs, "linearization gap": gap, "NTK distance": dist, "test loss (paper lr)": loss_paper,
              "test loss (tuned lr)": loss_tuned}).round(3).style.hide(axis="index")

# %% [markdown]
# **Where the transition lies.** Over the {glue:text}`cont_n_networks` networks (both
# layers scaled, lr 0.01) the median gap between a trained network and its trained
# linearization runs from {glue:text}`cont_gap_range` across the grid (smallest at
# g = {glue:text}`cont_gap_min_g`, largest at g = {glue:text}`cont_gap_max_g`); a lazy network
# would have a gap near 0. The median NTK distance between t=0 and the end of training
# spans {glue:text}`cont_dist_range` (smallest at g = {glue:text}`cont_dist_min_g`, largest at
# g = {glue:text}`cont_dist_max_g`). Scaling the weights of this sigmoid network is not the
# output scaling that makes a network lazy: where the gap and the kernel distance stay
# large at every g, no scale of this grid is in the kernel regime. Taking the transition as the
# scale where a measure crosses the middle of its range (interpolated in log g), it lies at
# g = {glue:text}`cont_mid_dist` by the NTK distance and g = {glue:text}`cont_mid_gap` by the
# linearization gap. The lowest median single-task test loss is
# reached at g = {glue:text}`cont_best_g_paper` with lr 0.01 and at
# g = {glue:text}`cont_best_g_tuned` with the tuned learning rates. A network counts as
# *converged* when its final single-task training loss is at most 10% of its initial
# one: {glue:text}`cont_converged_paper` of the networks are at lr 0.01 and
# {glue:text}`cont_converged_tuned` at the tuned rates, within this profile's iteration
# budget.
#
# ## The t=0 predictors across the continuum

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-continuum-predictors", "caption": "Beyond the paper: the t=0 predictors against the init scale g (median and interquartile range; styles as in the outcome figure; the predictors do not depend on the learning rate, so solid and dashed lines coincide). Silhouettes of k-means (12 clusters) on the eNTK loadings (principled and authors' variants), on the loss sensitivities alone, and on the plain NTK; centered alignment of the traced NTK with the single-task and multitask targets; cosine between the eNTK's predicted first step on test patterns and the change they need; sharing index of the t=0 hidden representation."}}
PREDICTOR_TITLES = {"silhouette_entk_principled": "eNTK silhouette (principled)",
                    "silhouette_entk_authors": "eNTK silhouette (authors)",
                    "silhouette_epsilon": "control: epsilon alone", "silhouette_ntk": "control: plain NTK",
                    "kta_ntk_single": "NTK-target alignment, single", "kta_ntk_multi": "NTK-target alignment, multi",
                    "kta_entk_single": "eNTK-target alignment, single", "kta_entk_multi": "eNTK-target alignment, multi",
                    "sharing_initial": "sharing index, t=0"}
plotting.plot_versus_scale(nets, PREDICTOR_TITLES)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Which t=0 quantity predicts the outcomes, across and within a scale
#
# For every predictor and outcome we compute three correlations over the networks of one
# scaling and learning-rate setting: *across* the continuum (plain r, which includes
# everything the scale itself explains), *within* scales (both variables centered per
# scale, the pooled within-scale r) and *partial* r controlling log g linearly. Intervals
# are percentile bootstrap 95% intervals that resample networks within each scale. A
# predictor "wins" an outcome when its |r| is the largest among those whose interval
# excludes 0; "none" when no interval excludes 0.

# %% tags=["hide-input"]
CORR_OUTCOMES = [o for o in OUTCOME_TITLES]
subsets = {(s, k): {c: v[(nets["scaling"] == s) & (nets["lr_kind"] == k)] for c, v in nets.items()}
           for s in scales for k in ("paper", "tuned")}
corr = {key: predictors.correlation_rows(sub, CORR_OUTCOMES, n_resamples=n_resamples)
        for key, sub in subsets.items()}
winners = pd.DataFrame([{"scaling": s, "lr": k, "kind": kind,
                         **{o: predictors.winner(rows, o, kind) for o in CORR_OUTCOMES}}
                        for (s, k), rows in corr.items() for kind in ("across", "within", "partial")])
winners.style.hide(axis="index")

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-continuum-within-paper", "caption": "Beyond the paper: pooled within-scale correlation r of each t=0 predictor (rows) with each outcome (columns), both layers scaled, lr 0.01, with bootstrap 95% intervals; framed cells have intervals excluding 0."}}
plotting.plot_correlation_grid(corr[("both", "paper")], list(PREDICTOR_TITLES), CORR_OUTCOMES, "within",
                               "within-scale r, both layers, lr 0.01")
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-continuum-within-tuned", "caption": "Beyond the paper: as the previous figure, at the tuned learning rates."}}
plotting.plot_correlation_grid(corr[("both", "tuned")], list(PREDICTOR_TITLES), CORR_OUTCOMES, "within",
                               "within-scale r, both layers, tuned lr")
plt.tight_layout()
plt.show()


# %% tags=["hide-input"]
def lookup(key, predictor, outcome):
    return next(r for r in corr[key] if r["predictor"] == predictor and r["outcome"] == outcome)


main_key = ("both", "paper")
n_sig_within = sum(r["lo_within"] * r["hi_within"] > 0 for r in corr[main_key])
n_sig_across = sum(r["lo_across"] * r["hi_across"] > 0 for r in corr[main_key])
sil = lookup(main_key, "silhouette_entk_authors", "loss_single_test")
win_loss = predictors.winner(corr[main_key], "loss_single_test", "within")
win_ft = predictors.winner(corr[main_key], "finetune_speed", "within")
win_route = predictors.winner(corr[main_key], "route_iterations", "within")
glue("cont_sig_within", f"{n_sig_within} of {len(corr[main_key])}", display=False)
glue("cont_sig_across", f"{n_sig_across} of {len(corr[main_key])}", display=False)
glue("cont_sil_across", f"{sil['r_across']:+.2f} [{sil['lo_across']:+.2f}, {sil['hi_across']:+.2f}]", display=False)
glue("cont_sil_within", f"{sil['r_within']:+.2f} [{sil['lo_within']:+.2f}, {sil['hi_within']:+.2f}]", display=False)
glue("cont_win_loss", win_loss, display=False)
glue("cont_win_ft", win_ft, display=False)
glue("cont_win_route", win_route, display=False)
table = pd.DataFrame(corr[main_key])
table["across"] = [f"{r:+.2f} [{lo:+.2f}, {hi:+.2f}]" for r, lo, hi in zip(table.r_across, table.lo_across, table.hi_across)]
table["within"] = [f"{r:+.2f} [{lo:+.2f}, {hi:+.2f}]" for r, lo, hi in zip(table.r_within, table.lo_within, table.hi_within)]
table["partial (log g)"] = [f"{r:+.2f} [{lo:+.2f}, {hi:+.2f}]" for r, lo, hi in
                            zip(table.r_partial, table.lo_partial, table.hi_partial)]
table[["predictor", "outcome", "n", "across", "within", "partial (log g)"]].style.hide(axis="index")

# %% [markdown]
# **What the numbers say** (both layers scaled, lr 0.01). Across the continuum
# {glue:text}`cont_sig_across` predictor-outcome correlations have intervals excluding 0
# — most of that is the scale itself, which moves predictors and outcomes together.
# Within scales {glue:text}`cont_sig_within` do. The paper's predictor (authors' eNTK
# silhouette) against the final single-task test loss: r = {glue:text}`cont_sil_across`
# across the continuum, {glue:text}`cont_sil_within` within scales. The within-scale
# winner for the single-task test loss is **{glue:text}`cont_win_loss`**, for the
# fine-tuning speed **{glue:text}`cont_win_ft`**, and for the iterations needed to learn
# a held-out route **{glue:text}`cont_win_route`** (the table above gives the winners for
# every setting and kind of correlation).
#
# (cont-routes)=
# ## Held-out routes: do shared representations speed up learning a new task?

# %% tags=["hide-input"]
rows_main = subsets[main_key]
route = pd.DataFrame({"g": gs, **{name: predictors.medians_by_scale(nets, name, "both", "paper")[1]
                                  for name in ("route_zero_shot", "route_iterations", "route_reached",
                                               "sharing_final")}})
hyp = predictors.correlations_with_intervals(rows_main["sharing_final"], rows_main["route_iterations"],
                                             rows_main["g"], n_resamples)
hyp0 = predictors.correlations_with_intervals(rows_main["sharing_initial"], rows_main["route_iterations"],
                                              rows_main["g"], n_resamples)
glue("cont_route_reached", f"{100 * rows_main['route_reached'].mean():.0f}%", display=False)
glue("cont_hyp_across", f"{hyp['r_across']:+.2f} [{hyp['lo_across']:+.2f}, {hyp['hi_across']:+.2f}]", display=False)
glue("cont_hyp_within", f"{hyp['r_within']:+.2f} [{hyp['lo_within']:+.2f}, {hyp['hi_within']:+.2f}]", display=False)
glue("cont_hyp0_within", f"{hyp0['r_within']:+.2f} [{hyp0['lo_within']:+.2f}, {hyp0['hi_within']:+.2f}]",
     display=False)
route.round(3).style.hide(axis="index")

# %% [markdown]
# Per scale (both layers, lr 0.01): median zero-shot loss on the held-out task, median
# iterations to reach a mean per-pattern loss of 0.1 on it, the share of networks that
# reached it, and the median sharing index of the trained representation. Overall
# {glue:text}`cont_route_reached` of the networks reach the criterion. The paper's
# hypothesis predicts a *negative* correlation between sharing and the iterations
# needed: r = {glue:text}`cont_hyp_across` across the continuum and
# {glue:text}`cont_hyp_within` within scales for the trained representation's sharing;
# {glue:text}`cont_hyp0_within` within scales for the t=0 sharing.
#
# ## Robustness of the paper's binary comparison
#
# The performance chapter's standard-vs-large comparison, repeated with
# {glue:text}`cont_rob_pairs` pairs per schedule at {glue:text}`cont_rob_iterations`
# iterations per phase (the paper's counts). The performance chapter's pairs are the first
# ones here, exactly: the pairs are trained in blocks of {glue:text}`cont_rob_block` on the
# sweep engine, each block a cached result of its own, and the first block is the
# performance chapter's run, read from the cache rather than trained again. A network's
# training and recorded losses do not depend on the other networks of its block. A network *did not
# converge* in a phase when its final training loss is above 10% of its training loss at
# the start of that phase (or not finite).

# %% tags=["hide-input", "remove-stderr"]
robust = predictors.robustness_runs(env, plan, n_hidden, block_pairs)
glue("cont_rob_pairs", f"{n_pairs}", display=False)
glue("cont_rob_block", f"{block_pairs} pairs", display=False)
glue("cont_rob_iterations", " (ET) and ".join(str(robustness_iterations[s]) for s in ("ET", "LR")) + " (LR)",
     display=False)
comparisons = {s: predictors.binary_comparison(r["single"], r["finetune"], r["single_train"], r["finetune_train"])
               for s, r in robust.items()}
pd.DataFrame(comparisons).T

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-continuum-wins", "caption": "Beyond the paper: standard-vs-large pairs: in how many pairs each init ends with the lower test loss, per schedule and phase."}}
plotting.plot_win_counts(comparisons)
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
robust_table = pd.DataFrame(stats.correlation_table(robust, n_resamples))
shown = robust_table[["quantity", "phase", "schedule", "n_networks", "paper_r"]].copy()
shown["our r [95% CI]"] = [f"{r:+.3f} [{lo:+.2f}, {hi:+.2f}]" for r, lo, hi in
                           zip(robust_table.r, robust_table.ci_low, robust_table.ci_high)]
shown["label-only r"] = robust_table.r_label.map("{:+.3f}".format)
shown["within std / large"] = [f"{a:+.2f} / {b:+.2f}" for a, b in
                               zip(robust_table.r_within_standard, robust_table.r_within_large)]
shown["permutation p"] = robust_table.p_within_permutation.map("{:.3f}".format)
et, lr_ = comparisons["ET"], comparisons["LR"]
et_interval = binomtest(int(et["single/standard_wins"]), n_pairs).proportion_ci(0.95, method="exact")
first_block = predictors.binary_comparison(*(robust["ET"][k][:block_pairs] for k in
                                             ("single", "finetune", "single_train", "finetune_train")))
glue("rob_n", f"{n_pairs}", display=False)
glue("rob_et_single", f"{et['single/standard_wins']} of {n_pairs}", display=False)
glue("rob_et_single_ci", f"{et_interval.low:.0%} to {et_interval.high:.0%}", display=False)
glue("rob_et_single_first", f"{first_block['single/standard_wins']} of {min(block_pairs, n_pairs)}", display=False)
glue("rob_et_ft", f"{et['finetune/large_wins']} of {n_pairs}", display=False)
glue("rob_lr_single", f"{lr_['single/standard_wins']} of {n_pairs}", display=False)
glue("rob_lr_ft", f"{lr_['finetune/large_wins']} of {n_pairs}", display=False)
glue("rob_nc", ", ".join(f"{s} {p}: {c[f'{p}/not_converged_standard']} standard / {c[f'{p}/not_converged_large']} large"
                         for s, c in comparisons.items() for p in ("single", "finetune")), display=False)
glue("rob_sig", f"{int((robust_table.p_within_permutation < 0.05).sum())} of {len(robust_table)}", display=False)
glue("rob_sig_chance", f"{0.05 * len(robust_table):.1f}", display=False)
shown.style.hide(axis="index")

# %% [markdown]
# With {glue:text}`rob_n` pairs per schedule, standard init ends the single-task phase
# with the lower test loss in {glue:text}`rob_et_single` pairs (ET; exact binomial 95%
# interval for the share of pairs: {glue:text}`rob_et_single_ci`) and
# {glue:text}`rob_lr_single` (LR). In the performance chapter's pairs (the first block
# here) the ET count is {glue:text}`rob_et_single_first`; set against the share over all
# pairs and its interval, it shows how far a sample of that size can be from the larger one.
# Large init ends fine-tuning lower in
# {glue:text}`rob_et_ft` (ET) and {glue:text}`rob_lr_ft` (LR). Networks that did not
# converge: {glue:text}`rob_nc`. The correlation table above is the paper's, at this
# size, with the principled eNTK variant (the authors' variant needs a full
# eigendecomposition per output and network, beyond this profile's budget); the
# within-init permutation test gives p < 0.05 in {glue:text}`rob_sig` rows (by chance
# alone, {glue:text}`rob_sig_chance` such rows are expected at that level).
#
# ## What this profile cannot show
#
# The book's time budget allows a few hundred iterations per continuum run, not the paper's
# 10,000: at lr 0.01 most networks are still far from converged, so the continuum's
# outcomes measure early learning. The tuned learning rates partly compensate. (The
# robustness experiment above is at the paper's counts.) Training and test sets hold
# `n_train` patterns (the paper: 500), and the robustness table uses the principled eNTK
# variant only. The cluster profile in the parameter section removes all three limits.

# %% tags=["remove-cell"]
from lib.book import summary

summary_rows = [
    summary.row(f"standard init lower single-task test loss ({s}, {n_pairs} pairs)", "standard better",
                f"{c['single/standard_wins']} of {n_pairs}", c["single/standard_wins"] > n_pairs / 2,
                "majority of pairs")
    for s, c in comparisons.items()
] + [
    summary.row(f"large init lower test loss after fine-tuning ({s}, {n_pairs} pairs)", "large better",
                f"{c['finetune/large_wins']} of {n_pairs}", c["finetune/large_wins"] > n_pairs / 2,
                "majority of pairs")
    for s, c in comparisons.items()
] + [
    summary.row("within-scale winner predicting single-task test loss (continuum)", "eNTK silhouette (implied)",
                win_loss, win_loss.startswith("silhouette_entk"), "largest |r| with a 95% CI excluding 0",
                f"silhouette (authors) within-scale r {sil['r_within']:+.2f} [{sil['lo_within']:+.2f}, "
                f"{sil['hi_within']:+.2f}]"),
    summary.row("r(sharing of the trained representation, iterations to learn a held-out route), within "
                "scales", "negative (hypothesis i)", f"{hyp['r_within']:+.2f}", hyp["hi_within"] < 0,
                "95% CI below 0", f"[{hyp['lo_within']:+.2f}, {hyp['hi_within']:+.2f}]",
                claim="sharing-new-task", verdict=summary.verdict_of(hyp["hi_within"] < 0),
                control="correlation within each init scale (the scale held fixed)",
                evidence=summary.evidence("cont-routes", "held-out routes")),
]
_ = summary.record("10_rich_lazy_continuum",
                   dict(g_min=g_min, g_max=g_max, n_scales=n_scales, hidden_scales=hidden_scales, n_seeds=n_seeds,
                        n_lr_seeds=n_lr_seeds, lr_candidates=lr_candidates, iterations=iterations, n_train=n_train, n_hidden=n_hidden,
                        n_pairs=n_pairs, first_seeds=first_seeds, robustness_iterations=robustness_iterations,
                        block_pairs=block_pairs),
                   summary_rows)
