# ---
# jupyter:
#   chapter:
#     figures: 4
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
# # Single-task learning, then multitask fine-tuning
#
# The paper's Sec 5 experiment: standard/large pairs of the multitask network (same weight
# draw, x1 and x10; same data) are trained on single tasks, then fine-tuned from the
# trained weights on 1-3 concurrent tasks. The paper's claim: standard init (shared
# representations) generalizes better on single tasks, large init (separated
# representations) acquires multitasking faster. Two schedules (SPEC section 2):
#
# * **ET** ("extended time"): learning rate 0.01 for both inits, 10,000 iterations per phase;
# * **LR** ("learning-rate tuned"): 0.03 for standard and 0.01 for large init, 2,500 iterations.
#
# Each schedule uses its own fresh seeds. Test sets are 500 patterns drawn i.i.d. like the
# training sets (the authors' scheme, so they overlap with them); losses are summed squared
# errors over the 500 patterns.
#
# **Parameters**
#
# | name | meaning | allowed |
# |---|---|---|
# | `n_pairs` | standard/large pairs per schedule (paper: 10) | integer >= 2 |
# | `first_seeds` | first pair seed per schedule; pairs use consecutive seeds | dict `{"ET": int, "LR": int}`, disjoint ranges |
# | `iterations` | iterations per phase per schedule (paper: 10000 / 2500) | dict, multiples of 100 |

# %% tags=["parameters"]
n_pairs = 10
first_seeds = {"ET": 0, "LR": 100}
iterations = {"ET": 10000, "LR": 2500}

# %% tags=["remove-cell"]
from lib.experiments import check_schedule_parameters

plan = check_schedule_parameters(n_pairs, first_seeds, iterations)

# %% tags=["hide-input", "remove-stderr"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from lib import plotting, results, stats
from lib.experiments import cached_schedule, schedule_parameters
from lib.tasks import TaskEnvironment

env = TaskEnvironment(4, 3, 3)
runs = {name: cached_schedule(env, name, seeds, n_it) for name, (seeds, n_it) in plan.items()}
wall = {name: results.metadata_of("schedule", schedule_parameters(env, name, seeds, n_it))["wall_time_s"]
        for name, (seeds, n_it) in plan.items()}
for name, (seeds, n_it) in plan.items():
    print(f"{name}: seeds {seeds[0]}-{seeds[-1]}, {n_it} iterations per phase; computed in {wall[name]:.0f} s "
          "(both phases, 2 x {n} networks vmapped)".format(n=len(seeds)))
glue("perf_wall_total", f"{sum(wall.values()) / 60:.1f} minutes", display=False)

# %% [markdown]
# Training and fine-tuning for both schedules took {glue:text}`perf_wall_total` of wall time on this machine's CPU when first computed;
# they are loaded from the results cache afterwards.
#
# ## Generalization over training (Fig 10, Fig 18)

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-et", "caption": "Fig 10 of the paper, ET schedule. Top: mean +- sd test loss of standard (blue) and large (orange) init over single-task training (left) and multitask fine-tuning (right). Bottom: mean +- sd of the paired difference standard - large (below zero: standard init better)."}}
phases = ("single", "finetune")
test_loss = {name: {phase: run[f"{phase}/loss_test"] for phase in phases} for name, run in runs.items()}
plotting.plot_phase_losses(runs["ET"]["iterations"], test_loss["ET"], title="ET: ")
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-lr", "caption": "Fig 18 of the paper: the same for the LR schedule (learning rate 0.03 for standard, 0.01 for large init; 2500 iterations per phase)."}}
plotting.plot_phase_losses(runs["LR"]["iterations"], test_loss["LR"], title="LR: ")
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
rows = []
for name, run in runs.items():
    for phase in phases:
        summary = stats.paired_trajectory_summary(run["iterations"], test_loss[name][phase])
        rows.append({"schedule": name, "phase": phase, **summary})
summary_table = pd.DataFrame(rows)
for row in rows:
    key = f"perf_{row['schedule']}_{row['phase']}"
    glue(f"{key}_better", f"{row['pairs_standard_better_at_end']}/{row['n_pairs']}", display=False)
    glue(f"{key}_share", f"{row['share_standard_better']:.0%}", display=False)
    glue(f"{key}_settle", "never changes sign" if np.isnan(row["settles_at"]) else f"{row['settles_at']:.0f}",
         display=False)
summary_table.style.format({"final_standard": "{:.2f}", "final_large": "{:.2f}", "share_standard_better": "{:.0%}",
                            "settles_at": "{:.0f}"}).hide(axis="index")

# %% [markdown]
# **What we find.** In single-task ET training, standard init ends with the lower test
# loss in {glue:text}`perf_ET_single_better` pairs; the mean paired difference favours
# standard init at {glue:text}`perf_ET_single_share` of the snapshots and keeps its final
# sign from iteration {glue:text}`perf_ET_single_settle` on. During fine-tuning, standard
# init ends lower in {glue:text}`perf_ET_finetune_better` pairs and the mean difference
# favours it at {glue:text}`perf_ET_finetune_share` of the snapshots. Under the LR
# schedule the corresponding counts are {glue:text}`perf_LR_single_better` (single task)
# and {glue:text}`perf_LR_finetune_better` (fine-tuning) pairs, with the mean difference
# favouring standard init at {glue:text}`perf_LR_single_share` and
# {glue:text}`perf_LR_finetune_share` of the snapshots. The paper reports large init
# better early in single-task ET training and then overtaken by standard init, and large
# init better throughout fine-tuning under both schedules (Fig 10, Fig 18); compare the
# counts above with those statements.
#
# ## Every run (Fig 17) and training vs test loss (Fig 19)

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-runs", "caption": "Fig 17 of the paper: single-task test loss of every ET pair, standard (blue) and large (orange) init, on a shared log scale."}}
plotting.plot_individual_runs(runs["ET"]["iterations"], test_loss["ET"]["single"])
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-train-test", "caption": "Fig 19 of the paper: mean training (dotted) and test (solid) loss of each init in both phases of the ET schedule. Train and test sets are drawn i.i.d. from the same 972 (single-task) or 5832 (multitask) patterns, so they overlap."}}
train_loss = {phase: runs["ET"][f"{phase}/loss_train"] for phase in phases}
plotting.plot_train_test(runs["ET"]["iterations"], train_loss, test_loss["ET"])
plt.tight_layout()
plt.show()

# %% tags=["remove-cell"]
from lib import summary


def early_large_better(name):
    diff = (test_loss[name]["single"][:, 0] - test_loss[name]["single"][:, 1]).mean(axis=0)
    early = slice(1, max(2, len(diff) // 10))
    return bool((diff[early] > 0).any())


by = {(r["schedule"], r["phase"]): r for r in rows}
et_single, et_fine, lr_single, lr_fine = (by[k] for k in (("ET", "single"), ("ET", "finetune"),
                                                           ("LR", "single"), ("LR", "finetune")))
summary.record("05_multitask_performance", dict(n_pairs=n_pairs, first_seeds=first_seeds, iterations=iterations), [
    summary.row("Fig 10, ET single-task: large init better early, then overtaken by standard",
                "yes", f"large better early: {early_large_better('ET')}; standard better at end in "
                f"{et_single['pairs_standard_better_at_end']}/{n_pairs} pairs",
                early_large_better("ET") and et_single["pairs_standard_better_at_end"] > n_pairs / 2,
                "mean difference > 0 in the first 10% of training and standard better at end in most pairs"),
    summary.row("Fig 10, ET fine-tuning: large init better throughout", "yes",
                f"standard better at {et_fine['share_standard_better']:.0%} of snapshots",
                et_fine["share_standard_better"] <= 0.05, "mean difference favours large at >= 95% of snapshots"),
    summary.row("Fig 18, LR single-task: standard init better (transient removed)", "yes",
                f"standard better at {lr_single['share_standard_better']:.0%} of snapshots",
                lr_single["share_standard_better"] >= 0.8, "mean difference favours standard at >= 80% of snapshots"),
    summary.row("Fig 18, LR fine-tuning: large init better throughout", "yes",
                f"standard better at {lr_fine['share_standard_better']:.0%} of snapshots",
                lr_fine["share_standard_better"] <= 0.05, "mean difference favours large at >= 95% of snapshots"),
    summary.row("wall time of the paper-scale runs (both schedules, both phases)", "-",
                f"{sum(wall.values()):.0f} s", None, "measured when first computed"),
])
