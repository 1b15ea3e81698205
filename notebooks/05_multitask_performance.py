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
# # Single-task learning, then multitask fine-tuning
#
# The paper's Sec 5 experiment: standard/large pairs of the multitask network (same weight
# draw, x1 and x10; same data) are trained on single tasks, then fine-tuned from the
# trained weights on 1-3 concurrent tasks. The paper's claim: standard init (shared
# representations) generalizes better on single tasks, large init (separated
# representations) acquires multitasking faster. Two schedules ({doc}`../choices`):
#
# * **ET** ("extended time"): learning rate 0.01 for both inits, 10,000 iterations per phase;
# * **LR** ("learning-rate tuned"): 0.03 for standard and 0.01 for large init, 2,500 iterations.
#
# Each schedule uses its own fresh seeds. By default the test sets are 500 patterns drawn
# i.i.d. like the training sets (the authors' scheme, so they overlap with them) and the
# large init scales both layers x10; both are parameters. Losses are summed squared errors
# over the 500 patterns.
#
# **Parameters**
#
# | name | meaning | allowed |
# |---|---|---|
# | `n_pairs` | standard/large pairs per schedule (paper: 10) | integer >= 2 |
# | `first_seeds` | first pair seed per schedule; pairs use consecutive seeds | dict `{"ET": int, "LR": int}`, disjoint ranges |
# | `iterations` | iterations per phase per schedule (paper: 10000 / 2500) | dict, multiples of 100 |
# | `split` | train/test sampling: `"iid"` (authors' code, overlapping) or `"disjoint"` | `"iid"`, `"disjoint"` |
# | `large_scaling` | large init: the standard draw x10 on `"both_layers"` (paper Sec 4.1.3) or `"layer1_only"` (its Sec 5 sentence) | `"both_layers"`, `"layer1_only"` |

# %% tags=["parameters"]
n_pairs = 10
first_seeds = {"ET": 0, "LR": 100}
iterations = {"ET": 10000, "LR": 2500}
split = "iid"
large_scaling = "both_layers"

# %% tags=["remove-cell"]
from lib.experiments.schedules import check_schedule_parameters
from lib.core.models import LARGE_SCALINGS
from lib.core.tasks import SPLITS
from lib.core.validation import check_choice

plan = check_schedule_parameters(n_pairs, first_seeds, iterations)
check_choice("split", split, SPLITS)
check_choice("large_scaling", large_scaling, LARGE_SCALINGS)
run_parameters = dict(n_pairs=n_pairs, first_seeds=first_seeds, iterations=iterations, split=split,
                      large_scaling=large_scaling)

# %% tags=["hide-input", "remove-stderr"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from lib.book import plotting
from lib.core import results
from lib.analyses import stats
from lib.book import summary
from lib.experiments.schedules import cached_schedule, schedule_parameters
from lib.core.tasks import TaskEnvironment

env = TaskEnvironment(4, 3, 3)
choices = dict(split=split, large_scaling=large_scaling)
runs = {name: cached_schedule(env, name, seeds, n_it, **choices) for name, (seeds, n_it) in plan.items()}
wall = {name: results.metadata_of("schedule", schedule_parameters(env, name, seeds, n_it, **choices))["wall_time_s"]
        for name, (seeds, n_it) in plan.items()}
for name, (seeds, n_it) in plan.items():
    print(f"{name}: seeds {seeds[0]}-{seeds[-1]}, {n_it} iterations per phase; computed in {wall[name]:.0f} s "
          "(both phases, 2 x {n} networks vmapped)".format(n=len(seeds)))
glue("perf_wall_total", f"{sum(wall.values()) / 60:.1f} minutes", display=False)

# %% [markdown]
# Training and fine-tuning for both schedules took {glue:text}`perf_wall_total` of wall time on this machine's CPU when first computed;
# they are loaded from the results cache afterwards.
#
# ## Generalization over training (paper Figs 10 and 18)
#
# The difference panels use the paper's sign, large $-$ standard (above zero: standard init
# better), on a symmetric-log axis: linear within the final gap, logarithmic beyond, so that
# the early transient of several hundred units and the final gap of a few units are both
# legible.

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-et", "caption": "Paper Fig 10, ET schedule. Top: mean \u00b1 sd test loss of standard (blue) and large (orange) init over single-task training (left) and multitask fine-tuning (right). Bottom: mean \u00b1 sd of the paired difference large \u2212 standard (the paper's sign; above zero: standard init better), symlog axis."}}
phases = ("single", "finetune")
test_loss = {name: {phase: run[f"{phase}/loss_test"] for phase in phases} for name, run in runs.items()}
train_loss = {name: {phase: run[f"{phase}/loss_train"] for phase in phases} for name, run in runs.items()}
plotting.plot_phase_losses(runs["ET"]["iterations"], test_loss["ET"], title="ET: ")
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-lr", "caption": "Paper Fig 18: the same for the LR schedule (learning rate 0.03 for standard, 0.01 for large init; 2500 iterations per phase)."}}
plotting.plot_phase_losses(runs["LR"]["iterations"], test_loss["LR"], title="LR: ")
plt.tight_layout()
plt.show()

# %% [markdown]
# (tab-perf-summary)=
# Per schedule and phase: final mean test loss per init, the pairs in which standard init
# ends lower, the share of snapshots (after the first) at which the mean difference favours
# standard init, and the iteration from which it keeps its final sign. For fine-tuning the
# table adds where each init **starts** (test loss at fine-tuning iteration 0, i.e. after
# single-task training) and how fast each improves *relative to its own start*: the test
# loss divided by its starting value, averaged over the phase's snapshots (lower: faster
# relative improvement; mean over pairs), and the pairs in which it is lower for large init.

# %% tags=["hide-input"]
rows = []
for name, run in runs.items():
    its = run["iterations"]
    for phase in phases:
        row = {"schedule": name, "phase": phase, **stats.paired_trajectory_summary(its, test_loss[name][phase])}
        losses = test_loss[name][phase]
        relative = stats.relative_loss_area(losses)  # (P, 2) time-averaged loss relative to the start
        halving = stats.first_iteration_below(its, losses, 0.5)  # (P, 2), at snapshot resolution
        row |= {"start_standard": float(losses[:, 0, 0].mean()), "start_large": float(losses[:, 1, 0].mean()),
                "relative_standard": float(relative[:, 0].mean()), "relative_large": float(relative[:, 1].mean()),
                "pairs_large_faster": int((relative[:, 1] < relative[:, 0]).sum()),
                "halving_large_first": int((halving[:, 1] < halving[:, 0]).sum()),
                "halving_tied": int((halving[:, 1] == halving[:, 0]).sum()),
                "halving_standard_first": int((halving[:, 1] > halving[:, 0]).sum()),
                "early_large_better": bool(((losses[:, 0] - losses[:, 1]).mean(axis=0)[1:max(2, len(its) // 10)] > 0).any())}
        rows.append(row)
summary_table = pd.DataFrame(rows)
by = {(r["schedule"], r["phase"]): r for r in rows}
for r in rows:
    k = f"perf_{r['schedule']}_{r['phase']}"
    glue(f"{k}_better", f"{r['pairs_standard_better_at_end']}/{r['n_pairs']}", display=False)
    glue(f"{k}_share", f"{r['share_standard_better']:.0%}", display=False)
    glue(f"{k}_settle", "never changes sign" if np.isnan(r["settles_at"]) else f"{r['settles_at']:.0f}", display=False)
    for stem in ("start_standard", "start_large", "relative_standard", "relative_large", "final_standard", "final_large"):
        glue(f"{k}_{stem}", f"{r[stem]:.2f}" if "relative" in stem else f"{r[stem]:.1f}", display=False)
    glue(f"{k}_large_faster", f"{r['pairs_large_faster']}/{n_pairs}", display=False)
    for stem in ("halving_large_first", "halving_tied", "halving_standard_first"):
        glue(f"{k}_{stem}", f"{r[stem]}", display=False)
    glue(f"{k}_start_ratio", f"{r['start_large'] / r['start_standard']:.2f}", display=False)
shown = summary_table.rename(columns={"pairs_standard_better_at_end": "standard lower at end",
                                      "share_standard_better": "share of snapshots standard better",
                                      "settles_at": "final sign from", "start_standard": "start, standard",
                                      "start_large": "start, large", "relative_standard": "loss / start, standard",
                                      "relative_large": "loss / start, large",
                                      "pairs_large_faster": "large faster from its start"})
shown.drop(columns=["early_large_better", "n_pairs", "halving_large_first", "halving_tied",
                    "halving_standard_first"]).style.format(
    {"final_standard": "{:.2f}", "final_large": "{:.2f}", "share of snapshots standard better": "{:.0%}",
     "final sign from": "{:.0f}", "start, standard": "{:.1f}", "start, large": "{:.1f}",
     "loss / start, standard": "{:.2f}", "loss / start, large": "{:.2f}"}).hide(axis="index")

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-relative", "caption": "Beyond the paper (a control for Sec 5.1's fine-tuning claim): multitask fine-tuning from each network's own starting point: test loss divided by its value at fine-tuning iteration 0 (mean \u00b1 sd over pairs), ET (left) and LR (right). Large init starts fine-tuning lower (table above); here both start at 1."}}
plotting.plot_relative_to_start({f"{name}: multitask fine-tuning": (run["iterations"], test_loss[name]["finetune"])
                                 for name, run in runs.items()})
plt.tight_layout()
plt.show()

# %% [markdown]
# **What we find.** In single-task ET training the mean difference favours large init early
# on and standard init ends lower in {glue:text}`perf_ET_single_better` pairs, keeping its
# final sign from iteration {glue:text}`perf_ET_single_settle` on — the paper's "large init
# improves faster at first, then standard overtakes it". During ET fine-tuning standard init
# is better at only {glue:text}`perf_ET_finetune_share` of the snapshots and ends lower in
# {glue:text}`perf_ET_finetune_better` pairs: large init's advantage is clear and sustained.
# Under the LR schedule standard init is better at {glue:text}`perf_LR_single_share` of the
# single-task snapshots and at {glue:text}`perf_LR_finetune_share` of the fine-tuning ones.
#
# But large init does not *acquire* multitasking from the same place. It starts ET
# fine-tuning at a test loss of {glue:text}`perf_ET_finetune_start_large` against
# {glue:text}`perf_ET_finetune_start_standard` for standard init
# ({glue:text}`perf_ET_finetune_start_ratio` times; LR: {glue:text}`perf_LR_finetune_start_large`
# vs {glue:text}`perf_LR_finetune_start_standard`): its single-task solution already multitasks
# better. Measured from each network's own start, the test loss averaged over fine-tuning is
# {glue:text}`perf_ET_finetune_relative_large` of its starting value for large and
# {glue:text}`perf_ET_finetune_relative_standard` for standard init under ET (LR:
# {glue:text}`perf_LR_finetune_relative_large` vs {glue:text}`perf_LR_finetune_relative_standard`);
# large init improves faster relative to its start in {glue:text}`perf_ET_finetune_large_faster`
# (ET) and {glue:text}`perf_LR_finetune_large_faster` (LR) pairs.
#
# We first measured speed as the iteration at which a network's test loss halves. At the
# resolution of the saved snapshots that criterion can tie: under ET large init halves
# first in {glue:text}`perf_ET_finetune_halving_large_first` pairs, standard first in
# {glue:text}`perf_ET_finetune_halving_standard_first`, and
# {glue:text}`perf_ET_finetune_halving_tied` tie (LR:
# {glue:text}`perf_LR_finetune_halving_large_first`,
# {glue:text}`perf_LR_finetune_halving_standard_first`,
# {glue:text}`perf_LR_finetune_halving_tied`). We replaced it by the time-averaged ratio above,
# which uses every snapshot and does not tie (a pair in which a network never halves its loss
# counts in none of the three). Both are shown so that the choice can be judged.
#
# ## Every run (paper Fig 17) and training vs test loss (paper Fig 19)

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-runs", "caption": "Paper Fig 17: single-task test loss of every ET pair, standard (blue) and large (orange) init, on a shared log scale."}}
plotting.plot_individual_runs(runs["ET"]["iterations"], test_loss["ET"]["single"])
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-perf-train-test", "caption": "Paper Fig 19: mean training (dotted) and test (solid) loss of each init in both phases, ET schedule (top) and LR schedule (bottom). Train and test sets are drawn i.i.d. from the same 972 (single-task) or 5832 (multitask) patterns, so they overlap (split='iid')."}}
fig, axes = plt.subplots(2, 2, figsize=(11, 6.8))
for row_axes, (name, run) in zip(axes, runs.items()):
    plotting.plot_train_test(run["iterations"], train_loss[name], test_loss[name], axes=row_axes, title=f"{name}: ")
fig.tight_layout()
plt.show()

# %% tags=["hide-input"]
et_single = test_loss["ET"]["single"]
final_single = et_single[:, :, -1]
overtaken = int((final_single[:, 0] < final_single[:, 1]).sum())
spread = float(final_single[:, 0].max() / final_single[:, 0].min())
glue("perf_overtaken", f"{overtaken}/{n_pairs}", display=False)
glue("perf_spread", f"{spread:.1f}", display=False)
train_below = {(n, ph, i): bool(train_loss[n][ph][:, i, -1].mean() < test_loss[n][ph][:, i, -1].mean())
               for n in runs for ph in phases for i in range(2)}
early = slice(1, max(2, len(runs["ET"]["iterations"]) // 10))
et_train_large_faster = bool((train_loss["ET"]["single"][:, 1, early].mean(axis=0)
                              < train_loss["ET"]["single"][:, 0, early].mean(axis=0)).any())
et_test_large_not_better = bool(final_single[:, 1].mean() >= final_single[:, 0].mean())
lr_train_standard_better = bool(train_loss["LR"]["finetune"][:, 0, -1].mean() < train_loss["LR"]["finetune"][:, 1, -1].mean())
lr_test_standard_not_better = bool(test_loss["LR"]["finetune"][:, 0, -1].mean() >= test_loss["LR"]["finetune"][:, 1, -1].mean())
glue("perf_train_below", f"{sum(train_below.values())} of {len(train_below)}", display=False)
print(f"ET single-task: standard ends lower in {overtaken}/{n_pairs} pairs; final standard-init test loss spans "
      f"a factor {spread:.1f} over pairs; mean final train loss below test loss in {sum(train_below.values())} of "
      f"{len(train_below)} (schedule, phase, init) cells")

# %% [markdown]
# Standard init ends below its partner in {glue:text}`perf_overtaken` ET pairs (Fig 17);
# its final single-task test loss spans a factor {glue:text}`perf_spread` across pairs.
# The mean final training loss lies below the test loss in {glue:text}`perf_train_below`
# (schedule, phase, init) combinations — with i.i.d. sampling about 40% of test patterns
# also occur in training, which narrows the gap (`split="disjoint"` removes the overlap;
# its effect on the correlations is measured in {doc}`06_correlation_analysis`).

# %% tags=["remove-cell"]
E = summary.evidence
et_s, et_f, lr_s, lr_f = (by[k] for k in (("ET", "single"), ("ET", "finetune"), ("LR", "single"), ("LR", "finetune")))
holds_et_single = et_s["early_large_better"] and et_s["pairs_standard_better_at_end"] > n_pairs / 2
large_first = et_f["pairs_large_faster"] + lr_f["pairs_large_faster"]
start_ratio = float(np.median(np.concatenate([test_loss[n]["finetune"][:, 1, 0] / test_loss[n]["finetune"][:, 0, 0]
                                              for n in runs])))
rows_out = [
    summary.row("Fig 10, ET single-task: large better early, then overtaken by standard", "yes",
                f"large better early: {et_s['early_large_better']}; standard lower at end in "
                f"{et_s['pairs_standard_better_at_end']}/{n_pairs} pairs (final sign from iteration {et_s['settles_at']:.0f})",
                holds_et_single, "mean difference favours large in the first 10% and standard lower at end in most pairs",
                claim="perf-et-single", verdict=summary.verdict_of(holds_et_single),
                control="paired differences (same draw, same data)", evidence=E("fig-perf-et", "Fig 10 (ET)")),
    summary.row("Fig 10, ET fine-tuning: large init better throughout", "clear and sustained",
                f"standard better at {et_f['share_standard_better']:.0%} of snapshots",
                et_f["share_standard_better"] <= 0.05, "mean difference favours large at >= 95% of snapshots",
                claim="perf-et-finetune", verdict=summary.verdict_of(et_f["share_standard_better"] <= 0.05),
                control="paired differences", evidence=E("fig-perf-et", "Fig 10 (ET)")),
    summary.row("large init acquires multitasking faster: pairs in which large init's fine-tuning test loss, "
                "relative to its own start and averaged over the phase, is lower (ET + LR)", "faster",
                f"{large_first}/{2 * n_pairs}; large starts at {start_ratio:.2f}x standard's loss",
                large_first > n_pairs, "large faster relative to its start in most pairs", claim="perf-multitask-speed",
                verdict=summary.verdict_of(large_first > n_pairs,
                                           f"large starts fine-tuning at {start_ratio:.2f}x the loss"
                                           if start_ratio < 0.8 else None),
                control="learning speed measured from each network's own start",
                evidence=E("fig-perf-relative", "relative fine-tuning progress")),
    summary.row("Fig 17: ET pairs in which standard init ends below large init", "every trial",
                f"{overtaken}/{n_pairs}", overtaken == n_pairs, "all pairs", claim="perf-runs",
                verdict=summary.verdict_of(overtaken == n_pairs), control="per pair, no averaging",
                evidence=E("fig-perf-runs", "Fig 17")),
    summary.row("Fig 17: spread of final single-task test loss over pairs (max / min, standard init)",
                "over an order of magnitude", f"{spread:.1f}x", spread >= 10, "max / min >= 10", claim="perf-scale",
                verdict=summary.verdict_of(spread >= 10), control="-", evidence=E("fig-perf-runs", "Fig 17")),
    summary.row("Fig 18, LR single-task: standard init better (transient removed)", "yes",
                f"standard better at {lr_s['share_standard_better']:.0%} of snapshots",
                lr_s["share_standard_better"] >= 0.95, "mean difference favours standard at >= 95% of snapshots",
                claim="perf-lr-single", verdict=summary.verdict_of(lr_s["share_standard_better"] >= 0.95),
                control="paired differences", evidence=E("fig-perf-lr", "Fig 18")),
    summary.row("Fig 18, LR fine-tuning: large init better throughout", "yes",
                f"standard better at {lr_f['share_standard_better']:.0%} of snapshots",
                lr_f["share_standard_better"] <= 0.05, "mean difference favours large at >= 95% of snapshots",
                claim="perf-lr-finetune", verdict=summary.verdict_of(lr_f["share_standard_better"] <= 0.05),
                control="paired differences", evidence=E("fig-perf-lr", "Fig 18")),
    summary.row("Fig 19: mean final training loss below test loss ((schedule, phase, init) cells)", "yes",
                f"{sum(train_below.values())}/{len(train_below)}", all(train_below.values()), "in every cell",
                claim="perf-train-test",
                verdict=summary.verdict_of(all(train_below.values()),
                                           "train and test sets overlap (i.i.d. split)" if split == "iid" else None),
                control="disjoint split (chapter 06)", evidence=E("fig-perf-train-test", "Fig 19")),
    summary.row("Fig 19: ET large init fits the training set faster without a lower final test loss; LR standard "
                "init ends with lower fine-tuning training loss without lower test loss", "yes",
                f"ET: {et_train_large_faster and et_test_large_not_better}; LR: "
                f"{lr_train_standard_better and lr_test_standard_not_better}",
                et_train_large_faster and et_test_large_not_better and lr_train_standard_better
                and lr_test_standard_not_better, "both statements hold for the mean curves", claim="perf-train-speed",
                verdict=summary.verdict_of(et_train_large_faster and et_test_large_not_better
                                           and lr_train_standard_better and lr_test_standard_not_better),
                control="-", evidence=E("fig-perf-train-test", "Fig 19")),
    summary.row("wall time of the runs (both schedules, both phases)", "-", f"{sum(wall.values()):.0f} s", None,
                "measured when first computed"),
]
summary.record("05_multitask_performance", run_parameters, rows_out)
