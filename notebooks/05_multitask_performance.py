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
# :::{admonition} The answer
# :class: tip
# Large init ends fine-tuning lower: ET **{glue:text}`perf_et_finetune_verdict`**, LR
# **{glue:text}`perf_lr_finetune_verdict`**. Standard init ends single-task training lower in
# {glue:text}`perf_runs_ours` of the ET pairs, against the paper's "every trial":
# **{glue:text}`perf_runs_verdict`**; on a replication block of new pairs,
# {glue:text}`perf_runs_replication`. Whether large init also learns multitasking faster from its own
# start: **{glue:text}`perf_speed_verdict`** ({ref}`details <tab-perf-speed>`; every verdict:
# {ref}`the end of this chapter <tab-perf-replication>`).
# :::
#
# Each schedule uses its own fresh seeds. By default the test sets are 500 patterns drawn
# i.i.d. like the training sets (the authors' scheme, so they overlap with them) and the
# large init scales both layers x10; both are parameters. Losses are summed squared errors
# over the 500 patterns.
#
# The figures show `n_pairs` pairs per schedule, as many as the paper trained. Claims about
# "every trial", "most pairs" or "an order of magnitude" are judged on `n_verdict_pairs`
# pairs per schedule (the first `n_pairs` of them are the pairs of the figures), with
# criteria that do not grow or shrink with the number of pairs: shares with exact binomial
# intervals and quantile ratios with bootstrap intervals ({doc}`07_reproduction_summary`
# lists each criterion).
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `n_pairs` | standard/large pairs per schedule in the figures (paper: 10) | integer >= 2 |
# | `n_verdict_pairs` | pairs per schedule for the verdicts: the `n_pairs` pairs and the next seeds, trained in blocks of `n_pairs` | integer >= `n_pairs` |
# | `first_seeds` | first pair seed per schedule; pairs use consecutive seeds | dict `{"ET": int, "LR": int}`, disjoint ranges of `n_verdict_pairs` seeds |
# | `iterations` | iterations per phase per schedule (paper: 10000 / 2500) | dict, multiples of 100 |
# | `split` | train/test sampling: `"iid"` (authors' code, overlapping) or `"disjoint"` | `"iid"`, `"disjoint"` |
# | `large_scaling` | large init: the standard draw x10 on `"both_layers"` (paper Sec 4.1.3) or `"layer1_only"` (its Sec 5 sentence) | `"both_layers"`, `"layer1_only"` |
# | `replication_first_seeds` | first seed per schedule of the replication block, judged by the same criteria | dict `{"ET": int, "LR": int}`, seeds disjoint from the discovery block's |
# | `n_replication_pairs` | pairs per schedule of the replication block | integer in [2, 200] |
# :::

# %% tags=["parameters"]
n_pairs = 10
n_verdict_pairs = 50
first_seeds = {"ET": 0, "LR": 100}
iterations = {"ET": 10000, "LR": 2500}
split = "iid"
large_scaling = "both_layers"
replication_first_seeds = {"ET": 1000, "LR": 1100}
n_replication_pairs = 50

# %% tags=["remove-cell"]
from lib.book import check_chapter

plan, verdict_plan, replication_plan = check_chapter("05_multitask_performance", globals())

# %% tags=["hide-input", "remove-stderr"]
import matplotlib.pyplot as plt

from lib.book import (glue_texts, performance_report, performance_runs, plot_performance_chapter as plot_chapter,
                      reading_table, replication_report, summary)

runs = performance_runs.schedule_runs(plan, verdict_plan, n_pairs, split, large_scaling)
glue_texts(performance_runs.run_size_texts(plan, verdict_plan, runs.blocks, runs.wall_s, n_pairs, n_verdict_pairs))

# %% [markdown]
# Training and fine-tuning all {glue:text}`perf_n_verdict` pairs of both schedules took
# {glue:text}`perf_wall_total` on this machine's CPU (summed over the blocks, each timed when
# first computed); they are loaded from the results cache afterwards. Per schedule:
# {glue:text}`perf_run_sizes`.
#
# ## Generalization over training (paper Figs 10 and 18)
#
# The difference panels use the paper's sign, large $-$ standard (above zero: standard init
# better), on a symmetric-log axis: linear within the final gap, logarithmic beyond, so that
# the early transient of several hundred units and the final gap of a few units are both
# legible.

# %% mystnb={"figure": {"caption": "Paper Fig 10, ET schedule, the first n_pairs pairs. Top: mean \u00b1 sd test loss of standard (blue) and large (orange) init over single-task training (left) and multitask fine-tuning (right). Bottom: mean \u00b1 sd of the paired difference large \u2212 standard (the paper's sign; above zero: standard init better), symlog axis.", "name": "fig-perf-et"}} tags=["hide-input"]
fig = plot_chapter.schedule_figure(runs.figures["ET"]["iterations"], runs.test_loss["ET"], "ET")
plt.show()

# %% mystnb={"figure": {"caption": "Paper Fig 18: the same for the LR schedule (learning rate 0.03 for standard, 0.01 for large init; 2500 iterations per phase).", "name": "fig-perf-lr"}} tags=["hide-input"]
fig = plot_chapter.schedule_figure(runs.figures["LR"]["iterations"], runs.test_loss["LR"], "LR")
plt.show()

# %% [markdown]
# (tab-perf-summary)=
# Per schedule and phase, over the pairs of the figures: final mean test loss per init, the
# pairs in which standard init ends lower, the share of snapshots (after the first) at which
# the mean difference favours standard init, the iteration from which it keeps its final
# sign, and the mean test loss at the start of the phase (for fine-tuning: after single-task
# training).

# %% tags=["hide-input"]
rows = performance_report.phase_rows(runs.figures)
glue_texts(performance_report.phase_texts(rows))
reading_table(performance_report.phase_view(rows),
              "Per schedule and phase: start and end test loss, and where standard init is better")

# %% [markdown]
# In single-task ET training the mean difference favours large init early on and standard
# init ends lower in {glue:text}`perf_ET_single_better` of these pairs, keeping its final
# sign from iteration {glue:text}`perf_ET_single_settle` on. During ET fine-tuning standard
# init is better at {glue:text}`perf_ET_finetune_share` of the snapshots and ends lower in
# {glue:text}`perf_ET_finetune_better` pairs. Under the LR schedule standard init is better
# at {glue:text}`perf_LR_single_share` of the single-task snapshots and at
# {glue:text}`perf_LR_finetune_share` of the fine-tuning ones.
#
# Large init starts ET fine-tuning at a mean test loss of
# {glue:text}`perf_ET_finetune_start_large` against {glue:text}`perf_ET_finetune_start_standard`
# for standard init ({glue:text}`perf_ET_finetune_start_ratio` times; LR:
# {glue:text}`perf_LR_finetune_start_large` vs {glue:text}`perf_LR_finetune_start_standard`).
# The two inits do not start fine-tuning from the same loss, so how fast each *learns*
# multitasking is measured from each network's own start (below).
#
# ## Per pair, on all the pairs (paper Fig 17 and Sec 5.1)
#
# (tab-perf-pairs)=
# Over all {glue:text}`perf_n_verdict` ET pairs: the pairs in which standard init ends the
# single-task phase lower, the pairs showing the whole Sec 5.1 pattern (large init lower at
# the snapshot nearest 10% of the phase, standard init lower at its end), and the spread of
# standard init's final test loss. The figure below the table shows the first
# {glue:text}`perf_n_pairs` pairs one by one.

# %% tags=["hide-input"]
counts = performance_runs.et_single_counts(runs.verdicts)
reading_table(performance_report.pair_view(counts),
              "Single-task ET pairs: standard init ending lower, the paper's pattern, spread of final loss")

# %% mystnb={"figure": {"caption": "Paper Fig 17: single-task test loss of the first n_pairs ET pairs, standard (blue) and large (orange) init, on a shared log scale.", "name": "fig-perf-runs"}} tags=["hide-input"]
fig = plot_chapter.runs_figure(runs.figures["ET"]["iterations"], runs.test_loss["ET"]["single"])
plt.show()

# %% [markdown]
# ## Learning speed from each network's own start
#
# (tab-perf-speed)=
# Speed is measured as the iteration at which a network's test loss falls to half its own
# value at the start of the phase, over the first 10% of the phase with a snapshot every 10
# iterations (interpolated linearly between snapshots), for every pair of both schedules. The
# runs behind it are the first 10% of the cached runs, re-run with finer snapshots; at their
# shared snapshots the two agree {glue:text}`perf_speed_worst`. A pair counts
# for "large faster" when large init halves its loss in the window and standard init halves
# later or not at all. The same measure in the single-task phase is the control: a measure
# that also calls large init faster there does not tell fine-tuning apart. The table below
# gives the counts per schedule and phase (medians over the networks that halve).

# %% tags=["hide-input"]
speed = performance_runs.early_speed(runs, verdict_plan, n_pairs)
glue_texts(performance_report.speed_texts(speed.comparison, speed.worst))
reading_table(performance_report.speed_view(speed.comparison),
              "Per schedule and phase: which init first halves its test loss from its own start")

# %% [markdown]
# In fine-tuning large init halves first in {glue:text}`perf_speed_ET_finetune` ET and
# {glue:text}`perf_speed_LR_finetune` LR pairs ({glue:text}`perf_speed_finetune` pooled); in
# single-task training in {glue:text}`perf_speed_ET_single` and
# {glue:text}`perf_speed_LR_single` ({glue:text}`perf_speed_single` pooled). The verdict on
# "large init acquires multitasking faster" is **{glue:text}`perf_speed_verdict`**
# ({glue:text}`perf_speed_detail`): {glue:text}`perf_speed_meaning`.
#
# Two limits of this control. The ET single-task phase is not a phase where the paper
# expects no difference: it says large init improves faster there at first (Sec 5.1). In the
# LR schedule, where it claims no early large-init advantage in single-task training (App
# A.6.3), large init still halves first in {glue:text}`perf_speed_LR_single` pairs, so the
# verdict does not rest on the ET control. And halving is measured from each network's own
# start, which differs between the inits (the left panels): at large init it includes the
# removal of the large initial error, which the figure shows to be fast in both phases.

# %% mystnb={"figure": {"caption": "Beyond the paper (the speed claim of Sec 5): the first 10% of each phase, every pair of both schedules: test loss divided by its value at the start of the phase, median (line) and interquartile range (band) over pairs, standard (blue) and large (orange) init. Dashed: half the starting loss; dotted: each init's median halving iteration over the networks that reach it. Left: single-task training (the control); right: multitask fine-tuning.", "name": "fig-perf-halving"}} tags=["hide-input"]
fig = plot_chapter.halving_figure(performance_runs.halving_panels(speed.early))
plt.show()

# %% [markdown]
# ## Training vs test loss (paper Fig 19)

# %% mystnb={"figure": {"caption": "Paper Fig 19: mean training (dotted) and test (solid) loss of each init in both phases, ET schedule (top) and LR schedule (bottom), the first n_pairs pairs. Train and test sets are drawn i.i.d. from the same 972 (single-task) or 5832 (multitask) patterns, so they overlap (split='iid').", "name": "fig-perf-train-test"}} tags=["hide-input"]
fig = plot_chapter.train_test_figure(runs.figures, runs.train_loss, runs.test_loss)
plt.show()

# %% tags=["hide-input"]
glue_texts(performance_runs.train_below_texts(runs.train_loss, runs.test_loss))

# %% [markdown]
# The mean final training loss lies below the test loss in {glue:text}`perf_train_below`
# (schedule, phase, init) combinations — with i.i.d. sampling about 40% of test patterns
# also occur in training, which narrows the gap (`split="disjoint"` removes the overlap;
# its effect on the correlations is measured in {doc}`06_correlation_analysis`).
#
# ## Verdicts

# %% tags=["remove-cell"]
judged = performance_runs.judge_chapter(rows, counts, speed, runs, n_pairs)
glue_texts(performance_report.verdict_texts(judged))

# %% [markdown]
# Each claim of this chapter under the criterion in force ({doc}`07_reproduction_summary`
# shows the earlier criteria and their verdicts too):
#
# * *Single-task ET: large init better at first, then overtaken by standard* — the pattern
#   holds in {glue:text}`perf_et_single_ours` ET pairs, exact 95% interval
#   {glue:text}`perf_et_single_interval`: **{glue:text}`perf_et_single_verdict`**.
# * *Standard init overtakes large init in every trial* — standard init ends lower in
#   {glue:text}`perf_runs_ours` ET pairs ({glue:text}`perf_runs_interval`; the criterion
#   asks for more than 90%): **{glue:text}`perf_runs_verdict`**.
# * *Final loss varies by over an order of magnitude between trials* — the 95th / 5th
#   percentile ratio of standard init's final test loss is {glue:text}`perf_scale_ours`
#   ({glue:text}`perf_scale_interval`, bootstrap; the same verdict for
#   {glue:text}`perf_scale_stability` bootstrap seeds): **{glue:text}`perf_scale_verdict`**.
# * *Large init acquires multitasking faster* — **{glue:text}`perf_speed_verdict`** (above).
# * *ET fine-tuning: large init's advantage is clear and sustained* — standard init is better
#   at {glue:text}`perf_et_finetune_ours` of the snapshots: **{glue:text}`perf_et_finetune_verdict`**.
# * *LR: standard init better in single-task training* — at {glue:text}`perf_lr_single_ours`
#   of the snapshots: **{glue:text}`perf_lr_single_verdict`**; *LR: large init better
#   throughout fine-tuning* — standard better at {glue:text}`perf_lr_finetune_ours`:
#   **{glue:text}`perf_lr_finetune_verdict`**.
# * *Training losses below test losses* — **{glue:text}`perf_train_test_verdict`**; *ET: large
#   init fits the training set faster without generalizing better, LR: standard init fits
#   better without generalizing better* — **{glue:text}`perf_train_speed_verdict`**.

# %% tags=["hide-input"]
reading_table(performance_report.verdict_view(judged),
              "This chapter's claims: our result, its interval and the verdict under the criterion in force")

# %% [markdown]
# (tab-perf-replication)=
# ### Do the pair counts replicate on networks the verdicts never saw?
#
# The three claims counted over every ET pair are judged again, by the same criteria, on a
# replication block of {glue:text}`perf_replication_pairs` new pairs per schedule
# ({glue:text}`perf_replication_block`), trained at the same counts; the correlation chapter
# uses the same block. The block and the precision each share needs (a 95% interval no wider
# than $\pm${glue:text}`perf_declared_half_width`) were declared before any performance number of
# these networks was computed ({mod}`lib.analyses.replication`). A verdict replicates only when
# both blocks give it; the verdicts page counts a claim whose blocks disagree as "does not
# replicate".

# %% tags=["hide-input", "remove-stderr"]
replication = performance_runs.replication_block(runs, replication_plan, n_pairs, counts, judged)
glue_texts(performance_runs.replication_texts(replication, n_replication_pairs))
reading_table(replication_report.replication_view(replication.in_force, replication.replicated, replication.precision),
              "Pair-count claims: verdicts on the original pairs and on a replication block of new pairs")

# %% tags=["remove-cell"]
summary.record("05_multitask_performance", summary.ran_with("05_multitask_performance", globals()),
               performance_runs.claim_rows(judged, replication, runs, speed, n_verdict_pairs))
