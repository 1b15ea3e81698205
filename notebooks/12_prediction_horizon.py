# ---
# jupyter:
#   chapter:
#     figures: 3
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
# # Beyond the paper: the prediction horizon
#
# The paper asks whether the eNTK at the start of training tells which representation a
# network will learn and how it will perform; its Discussion expects the eNTK to stay
# predictive during training, while the window of future it can predict may shrink. The
# {doc}`continuum chapter <10_rich_lazy_continuum>` found that, within an initial scale,
# the t=0 eNTK's associations with the outcomes are weak. This chapter asks the next
# question: **how much training must one watch before the outcome can be predicted, and
# does any kernel quantity predict better than, or add to, the representation and the
# losses one can observe at the same moment?**
#
# :::{admonition} The answer
# :class: tip
# {glue:text}`hz_answer_box`
# ({ref}`the verdicts <hz-verdicts>`)
# :::
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `converged_scales`, `converged_seeds`, `first_block`, `converged_iterations`, `lr_candidates`, `n_lr_seeds`, `lr_choice_iterations`, `n_train`, `n_hidden` | the converged continuum of the continuum chapter (its values there: the runs and outcomes are read from its cache) | as in the continuum chapter (`lr_candidates` in float32's normal range [1.175e-38, 3.403e+38]); `converged_seeds` >= 4 |
# | `fractions` | fractions f of the single-task phase at which the networks are observed | increasing list of >= 3 numbers in [0, 0.5], starting at 0, giving distinct iterations |
# | `converged_only` | analyse only the networks whose single-task training converged, and judge the post-hoc versions of the claims whose family of cells includes a fine-tuning outcome on those whose fine-tuning also settled (the quick profile, too short to converge, analyses all) | True or False |
# | `converged_first_seed` | the converged continuum's first network seed (0: the book's networks; another value trains a disjoint block of `converged_seeds` networks per scale, a replication block; chapters 10, 12 and 13 must be given the same) | integer >= 0, with `converged_first_seed + converged_seeds` at most 100 000 |
# | `n_resamples` | bootstrap resamples for the interval of the earliest fraction | integer in [100, 100000]; more with `--allow-large` while its 152 bytes per resample fit in the memory available (no `--allow-large` lifts that) |
# | `pair_first_seeds`, `pair_iterations`, `pair_n_pairs` | the paper's standard/large pairs: the performance chapter's verdict pairs (its `first_seeds`, `iterations`, `n_verdict_pairs`; their runs are read from its cache) | as in that chapter; `pair_n_pairs` >= 4 |
# | `pair_block` | pairs per cached block of the schedule runs (the performance chapter's `n_pairs`, so its cache entries are read) | integer in [1, `pair_n_pairs`] |
# | `pair_fractions` | fractions f of the single-task phase at which the pairs are observed | increasing list of >= 2 numbers in [0, 0.5], starting at 0, giving distinct iterations |
# | `finetune_fractions` | fractions f of fine-tuning at which the continuum's networks are observed | increasing list of >= 2 numbers in [0, 0.5], starting at 0, giving distinct iterations of fine-tuning |
# | `pair_replication_first_seeds` | first seed per schedule of the pairs' replication block (`pair_n_pairs` pairs, the replication block of chapters 05 and 06), judged by the same criteria | dict `{"ET": int, "LR": int}`, seeds disjoint from the pairs' |
# | `converged_replication_first_seed` | first network seed of the converged continuum's replication block (`converged_seeds` networks per scale, trained as the continuum's), judged by the criteria in force | integer >= 0, seeds disjoint from the continuum's, with `converged_replication_first_seed + converged_seeds` at most 100 000 |
# :::

# %% tags=["parameters"]
converged_scales = [0.3246, 1.0, 3.42, 10.0, 20.0]
converged_seeds = 30
first_block = 14
converged_iterations = {"single": 2500, "finetune": 2500, "route": 200}
lr_candidates = [0.01, 0.03, 0.1]
n_lr_seeds = 2
lr_choice_iterations = 500
n_train = 200
n_hidden = 200
fractions = [0.0, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
converged_only = True
n_resamples = 1000
pair_first_seeds = {"ET": 0, "LR": 100}
pair_iterations = {"ET": 10000, "LR": 2500}
pair_n_pairs = 50
pair_block = 10
pair_fractions = [0.0, 0.1]
finetune_fractions = [0.0, 0.01]
pair_replication_first_seeds = {"ET": 1000, "LR": 1100}
converged_first_seed = 0
converged_replication_first_seed = 3000

# %% tags=["remove-cell"]
from lib.book import check_chapter

pair_plan, pair_replication_plan = check_chapter("12_prediction_horizon", globals())

# %% [markdown]
# ## Design
#
# **Networks.** Every network of the *converged continuum* of the
# {doc}`continuum chapter <10_rich_lazy_continuum>`: the
# paper's 4x3 multitask network at five initial scales g, {glue:text}`hz_seeds` seeds each,
# trained on single tasks for {glue:text}`hz_single` iterations at a learning rate chosen per
# scale on held-out networks, then fine-tuned on multitasking. An unconverged run supports no
# conclusion, so only networks whose single-task training converged (final training loss at
# most a tenth of the initial one) enter the analysis: {glue:text}`hz_used`.
#
# **Snapshots.** The continuum keeps only each network's first and last weights, so the
# single-task phase is trained again from the same weights, data, learning rate and engine,
# stopping at the fractions f = {glue:text}`hz_fractions` of the phase. Gradient descent is
# deterministic, so these are the continuum's own trajectories: at 10% and 20% of the phase,
# where the continuum recorded its test loss, the retrained networks' test losses and the
# recorded ones are {glue:text}`hz_retrace`. At f = 0 the two eNTK silhouettes are the
# continuum chapter's t=0 predictors, read from its cache (the same weights, data and code, so
# the same numbers) rather than computed again.
#
# **Predictors at t = fT**, one number per network and fraction:
# - *kernel quantities*: the silhouette of the eNTK's leading vectors, in both variants of
#   the {doc}`representations chapter <04_multitask_representations>` (the paper's
#   predictor; "principled": rows over training inputs, "authors'": rows over test
#   inputs), the same silhouette for the eNTK accumulated so far (the trapezoid rule over
#   the snapshots, a coarse stand-in for the {doc}`ePNTK <03_epntk>`, which sums the eNTK
#   over every step), the eNTK-target alignment (the cosine between the kernel's next step
#   on the test patterns and the change they still need, i.e. their current error, so it
#   shares information with the test-loss rival) and the centred NTK-target alignment of the
#   continuum chapter;
# - *trivial rivals*, what anyone training the network sees without a kernel: the sharing
#   index of the hidden representation (the continuum chapter's measure of task similarity:
#   how much more alike the hidden codes of tasks sharing an input or output pool are than
#   those of other tasks), the training and test losses so far, and the slope of the log
#   training loss.
#
# **Outcomes**: the trained network's sharing index (its learned task similarity), its final
# single-task test loss, and, from the continuum chapter, the fine-tuning speed (the share of
# the multitask loss removed in the first tenth of fine-tuning) and the final multitask test
# loss.
#
# **Accuracy** here is the size |r| of a correlation between predictor and outcome (not a
# classification accuracy). *Within scales* (what matters for telling networks of the same
# scale apart): both variables standardised within each scale and pooled (the continuum
# chapter's pooled within-scale r, the average of the per-scale r's weighted by their
# networks, which are nearly equal); *across scales*: the plain correlation, which mostly
# measures the scale itself. Intervals are Fisher-z 95% intervals; the pooled within-scale
# r is given the standard error of the weighted average of the per-scale z's, which assumes
# one correlation common to all scales (where the scales differ, the pooled r is their
# average and says nothing about any one scale).
#
# **Criteria, declared before any number of this chapter existed, except the versions marked
# post hoc** (the claims registry; the verdicts are at the end and on the verdicts page; the
# versions that judge a family with a fine-tuning outcome on the networks whose fine-tuning
# settled are post hoc, see "Convergence of fine-tuning"): a predictor *reaches* the declared
# accuracy |r| = {glue:text}`hz_threshold` when its interval lies beyond it. "Early" means
# f <= {glue:text}`hz_early`. A kernel quantity *beats* the rivals at a fraction when
# Williams' t for dependent correlations shows its |r| above every rival's at that fraction,
# corrected (Holm) over every kernel quantity, outcome and fraction (version 2 of this
# criterion, added after the numbers were seen, calls the claim "not reproduced" only when
# the rivals are shown to predict better; both versions are judged). Whether a kernel
# quantity *adds* information to all the rivals together (a partial correlation) was added
# after a review, on these same networks: it is exploratory, and labelled so.

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display
from lib.book import (claims, continuum_facts, continuum_sweeps, correlation_report, glue_texts, horizon,
                      horizon_answer, horizon_checks, horizon_continuum_block, horizon_pair_block, horizon_points,
                      horizon_report as hr, horizon_texts, horizon_verdicts, long_view, plot_horizon, reading_table,
                      replication, replication_report, summary)
KERNELS, RIVALS = list(horizon_points.KERNEL_PREDICTORS), list(horizon_points.RIVAL_PREDICTORS)
PREDICTORS = KERNELS + RIVALS
OUTCOMES = ["sharing_final", "loss_single_test", "finetune_speed", "loss_finetune_test"]
THRESHOLD = claims.criterion("horizon-kernel-window").settings["threshold"]
EARLY = horizon.EARLY_FRACTION
scales = [float(g) for g in converged_scales]
common = continuum_sweeps.continuum_common(converged_iterations, n_train, n_hidden)
FT_OUTCOMES = ["finetune_speed", "loss_finetune_test"]
continuum_args = (scales, [float(lr) for lr in lr_candidates], n_lr_seeds, lr_choice_iterations, converged_seeds,
                  first_block, common, fractions, finetune_fractions, converged_only, PREDICTORS, KERNELS, OUTCOMES,
                  FT_OUTCOMES, THRESHOLD, n_resamples)
continuum = horizon_continuum_block.continuum_blocks(*continuum_args, first_seed=converged_first_seed)
block, ft_block, settled_block, settled_ft_block = continuum
glue_texts(horizon_texts.design_texts(converged_seeds, converged_iterations["single"], block.use, converged_only,
                                      scales, block.per_scale, fractions, block.retrace, THRESHOLD, EARLY))

# %% [markdown]
# (hz-figure)=
# ## Accuracy against the fraction of training

# %% mystnb={"figure": {"caption": "Beyond the paper (no figure of the paper): how well each quantity observed at a fraction f of the single-task phase predicts each outcome, |r|, within init scales (top, scales weighed equally) and across them (bottom); in colour with its Fisher 95% band, the strongest kernel quantity (solid) and the strongest trivial rival (dashed) of each panel (largest mean |r| over the fractions); thin grey: the other quantities, for context; dotted line: the declared accuracy; grey: the 95% range of a chance |r| within scales. f = 0 is t = 0.", "name": "fig-horizon"}} tags=["hide-input"]
fig = plot_horizon.plot_horizon(block.curves, PREDICTORS, KERNELS, fractions, THRESHOLD)
plt.show()

# %% [markdown]
# **Reading the figure.** Across scales (bottom row), quantities at t = 0 already correlate
# with the outcomes, kernel ones (largest: {glue:text}`hz_across_t0`) and trivial ones alike
# (largest: {glue:text}`hz_across_t0_rival`): the init scale moves every quantity and the
# outcome together. Within scales (top row), where networks of one scale must be told apart,
# the largest |r| of any kernel quantity is {glue:text}`hz_within_t0` at t = 0 and
# {glue:text}`hz_within_kernel` over all fractions, while the representation and the losses
# observed so far reach {glue:text}`hz_within_rival`.
#
# The negative control: with each outcome permuted within its scale
# ({glue:text}`hz_n_perm` permutations per outcome), the within-scale |r| of a predictor at a
# fraction should fall inside the grey chance band 95% of the time; it does in
# {glue:text}`hz_shuffled` of the permuted cells, and the 95th percentile of their |r| is
# {glue:text}`hz_shuffled_q95` (the band's edge: {glue:text}`hz_null_half`).
#
# (hz-earliest)=
# ## The earliest fraction at which each quantity predicts
#
# For each predictor and outcome, the first fraction at which its within-scale |r| reaches
# {glue:text}`hz_threshold` (a dash when it never does by {glue:text}`hz_last`), with the
# range in which 95% of bootstrap resamples (networks resampled within each scale) put that
# first fraction: a first passage of noisy correlations, so the range describes its spread
# and is not a confidence interval. Reaching it is not certainty: the cells whose
# (uncorrected) Fisher 95% interval lies wholly beyond {glue:text}`hz_threshold` at some
# fraction are {glue:text}`hz_sure`.

# %% tags=["hide-input"]
glue_texts(horizon_texts.curve_texts(block.curves, PREDICTORS, len(KERNELS), fractions))
reading_table(hr.earliest_table(block.curves, PREDICTORS),
              "Earliest fraction of training at which each quantity predicts each outcome within scales")

# %% [markdown]
# (hz-rivals)=
# ## Does a kernel quantity beat, or add to, the rivals observed at the same moment?
#
# **Beat.** At every fraction after t = 0, each kernel quantity against every trivial rival
# (Williams' t on the within-scale correlations, each predictor oriented by the sign of its
# own r; the kernel must beat every rival); Holm's correction over the
# {glue:text}`hz_n_tests` tests. {glue:text}`hz_beats_text`
#
# **Add (exploratory, added after a review).** A kernel quantity can hold information the
# rivals lack and still correlate less with the outcome than the best of them. The partial
# correlation of each kernel quantity with the outcome given all four rivals at the same
# fraction (within scale; two-sided t-test, Holm over the same cells) asks that.
# {glue:text}`hz_adds_text`
#
# **Control of the add test** (declared before its numbers): the same test, Holm over the same
# cells, with the four outcomes permuted together within each scale
# ({glue:text}`hz_n_control` permutations): no kernel quantity can carry information about a
# shuffled outcome, so at a family-wise level of 5% some cell should be significant in about
# 5% of the permutations. {glue:text}`hz_control_text`

# %% tags=["hide-input"]
glue_texts(horizon_texts.finding_texts(block.findings, len(KERNELS), block.control_by_seed(0),
                                       horizon_checks.ADD_CONTROL_PERMUTATIONS))
for table in hr.finding_tables(block.findings, {
        "winners": "Kernel quantities that beat every rival, per outcome and fraction",
        "adds": "Kernel quantities that add to the rivals, per outcome and fraction"}):
    display(table)

# %% [markdown]
# (hz-per-scale)=
# ## Do the scales agree?
#
# The pooled within-scale r averages the scales' own correlations, and its interval assumes
# they share one. For the strongest cells (per outcome, the kernel quantity and the rival with
# the largest pooled |r| at some f > 0), the correlation inside each scale with its Fisher 95%
# interval, and Cochran's Q test of one correlation common to the scales (uncorrected p, a
# description of these chosen cells, not a claim). {glue:text}`hz_per_scale_text`

# %% tags=["hide-input"]
per_scale_table, per_scale_text = hr.per_group_table(
    block.values, block.outcomes, np.array([f"g = {g:g}" for g in block.groups]), fractions, block.curves, PREDICTORS,
    KERNELS, RIVALS)
glue_texts({"hz_per_scale_text": per_scale_text})
reading_table(hr.per_group_long(per_scale_table), "Strongest cells: correlation inside each init scale, and pooled")

# %% [markdown]
# (hz-finetune)=
# ## Observing fine-tuning
#
# The fine-tuning outcomes above are predicted from the single-task phase. Here the same
# networks are observed during fine-tuning itself: their single-task phase is trained again as
# the continuum trained it and fine-tuning stops at f = {glue:text}`hz_ft_fractions` of its
# {glue:text}`hz_ft_iterations` iterations; at its start the retrained networks' multitask test
# loss and the continuum's recorded one are {glue:text}`hz_ft_retrace`. The same quantities are
# observed on the multitask data (the eNTK of the multitask training set; the sharing index; the
# multitask training and test losses so far and their slope) and set against the fine-tuning
# speed and the final multitask test loss, within scales as above. Only
# {glue:text}`hz_ft_n_fractions` fractions, for the time budget (each costs about as much as a
# fraction of the single-task phase).
#
# **Convergence of fine-tuning.** {glue:text}`hz_ft_settled` {glue:text}`hz_settled_text`
#
# **Shared data.** The fine-tuning speed is the share of the multitask test loss removed in the
# first tenth of fine-tuning. The test-loss rival observed during that tenth is part of the
# same curve (at f = 0 it is the speed's denominator), so its correlation with the speed is in
# part built in, and a kernel quantity failing to beat it there says less than elsewhere.
# {glue:text}`hz_ft_text`

# %% mystnb={"figure": {"caption": "Beyond the paper (no figure of the paper): the continuum's networks observed at the fractions finetune_fractions of fine-tuning (t = 0 and 1% in the book), on the multitask data; |r| of each predictor with each fine-tuning outcome, within init scales (top) and across them (bottom); in colour with its Fisher 95% band, the strongest kernel quantity (solid) and the strongest trivial rival (dashed) of each panel (largest mean |r| over the fractions); thin grey: the other quantities, for context; dotted line: the declared accuracy; grey: the 95% range of a chance |r| within scales.", "name": "fig-horizon-finetune"}} tags=["hide-input"]
fig = plot_horizon.plot_horizon(ft_block.curves, PREDICTORS, KERNELS, finetune_fractions, THRESHOLD,
                                phase="fine-tuning")
plt.show()
glue_texts(horizon_texts.finetune_texts(ft_block, finetune_fractions, converged_iterations["finetune"], PREDICTORS,
                                        continuum_facts.unsettled(block.networks, "finetune", block.use),
                                        continuum_facts.SETTLED_CHANGE))

# %% [markdown]
# (hz-pairs)=
# ## The paper's standard/large pairs
#
# The continuum's networks of one scale differ only by their seed. The paper's own networks
# are its standard/large pairs: the {doc}`performance chapter <05_multitask_performance>`'s
# {glue:text}`hz_pairs_n` pairs per schedule (ET: learning rate 0.01, {glue:text}`hz_pairs_et`
# iterations per phase; LR: 0.03 standard and 0.01 large, {glue:text}`hz_pairs_lr`), each one
# weight draw at standard init and x10 on the same data, trained on single tasks and then
# fine-tuned on multitasking. Their single-task phase is trained again from the same weights,
# data, learning rates and engine, stopping at f = {glue:text}`hz_pairs_fractions` of the
# phase; where the schedule runs recorded the test loss at the same iteration, the retrained
# and recorded losses are {glue:text}`hz_pairs_retrace`.
#
# **Fewer fractions than for the continuum.** A pair network's predictors take
# {glue:text}`hz_pairs_cost` per fraction after t = 0 (two eNTKs on 500 x 500 inputs and, for
# the authors' variant, nine 500 x 500 eigendecompositions; the two t = 0 silhouettes are those
# of the {doc}`correlation chapter <06_correlation_analysis>`, read from its cache: the same
# weights, data and code), so the book's time budget allows
# {glue:text}`hz_pairs_n_fractions` fractions for these {glue:text}`hz_pairs_networks`
# networks, the last at the end of the declared "early" window. The pairs therefore answer
# "does a kernel quantity observed early predict, and better than the rivals?", not "from
# which fraction on?"; nor are they observed during fine-tuning (the same cost again). To
# observe them at every fraction of the continuum, run this chapter with that list, e.g.
# `.venv/bin/python -m lib.book.runner --only 12_prediction_horizon -p
# "pair_fractions=[0.0, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]" --output-dir
# sweeps/pairs`: each added fraction costs about the time above per network, divided among
# the cores.
#
# **Outcomes** per network, as chapters 05 and 06 use them: the final single-task test loss,
# the fine-tuning speed (the share of the multitask test loss removed in the first tenth of
# fine-tuning, the continuum's measure), the final multitask test loss and the final sharing
# index. **Within** here is within each of the four schedule x init groups
# ({glue:text}`hz_pairs_groups`), pooled as the continuum's within-scale r; **across** pools
# all the networks and so mostly measures the schedule and the init. The criteria were
# declared in the registry before these numbers were computed, with the continuum's
# thresholds.

# %% mystnb={"figure": {"caption": "Beyond the paper (no figure of the paper): the paper's standard/large pairs (pair_n_pairs per schedule) observed at the fractions pair_fractions of their single-task phase (t = 0 and 10% in the book); |r| of each predictor with each outcome, within the four schedule x init groups (top, groups weighed equally) and across all networks (bottom); in colour with its Fisher 95% band, the strongest kernel quantity (solid) and the strongest trivial rival (dashed) of each panel (largest mean |r| over the fractions); thin grey: the other quantities, for context; dotted line: the declared accuracy; grey: the 95% range of a chance |r| within groups.", "name": "fig-horizon-pairs"}} tags=["hide-input"]
pairs = horizon_pair_block.pair_block(pair_plan, pair_fractions, pair_block, PREDICTORS, KERNELS, OUTCOMES, THRESHOLD,
                                      n_resamples)
fig = plot_horizon.plot_horizon(pairs.curves, PREDICTORS, KERNELS, pair_fractions, THRESHOLD, groups="groups")
plt.show()
glue_texts(horizon_texts.pair_texts(pairs, pair_n_pairs, pair_iterations, pair_fractions, len(KERNELS)))

# %% [markdown]
# (hz-pairs-table)=
# Within the schedule x init groups, the correlation of each predictor with each outcome at
# each observed fraction (pooled r, with its uncorrected Fisher 95% interval), and the rival
# comparison on the pairs: {glue:text}`hz_pairs_beats_text` {glue:text}`hz_pairs_adds_text`
# Its control, with the outcomes permuted within the groups ({glue:text}`hz_n_control`
# permutations): {glue:text}`hz_pairs_control_text` The last table shows the strongest
# cells inside each group, as for the continuum's scales above:
# {glue:text}`hz_pairs_per_group_text`

# %% tags=["hide-input"]
display(reading_table(long_view(hr.within_table(pairs.curves, PREDICTORS, pair_fractions), ["predictor", "outcome"]),
                      "The paper's pairs: within-group correlation of each predictor with each outcome"))
for table in hr.finding_tables(pairs.findings, {"adds": "The paper's pairs: kernel quantities that add to the rivals"}):
    display(table)
glue_texts({"hz_pairs_control_text": hr.control_text(pairs.control_by_seed(0))})
pair_group_table, pair_group_text = hr.per_group_table(pairs.values, pairs.outcomes, pairs.groups, pair_fractions,
                                                       pairs.curves, PREDICTORS, KERNELS, RIVALS)
glue_texts({"hz_pairs_per_group_text": pair_group_text})
display(reading_table(hr.per_group_long(pair_group_table),
                      "The paper's pairs, strongest cells: correlation inside each schedule and init group"))

# %% [markdown]
# (hz-pairs-replication)=
# ### Do the pairs' verdicts replicate?
#
# The five claims on the pairs are judged again, by the same criteria, on the replication block
# of chapters 05 and 06 ({glue:text}`hz_pairs_replication_block`), observed at the same
# fractions. Its snapshots were computed only after the block, and the precision its verdicts
# need (a pooled within-group interval no wider than $\pm${glue:text}`hz_pairs_declared_half_width`
# in Fisher z), had been declared ({mod}`lib.analyses.replication`). A verdict replicates only
# when both blocks give it.

# %% tags=["hide-input", "remove-stderr"]
replicated_pairs = horizon_pair_block.pair_block(pair_replication_plan, pair_fractions, pair_block, PREDICTORS, KERNELS,
                                                 OUTCOMES, THRESHOLD, n_resamples)
replication_blocks = horizon_continuum_block.continuum_blocks(*continuum_args,
                                                              first_seed=converged_replication_first_seed)
judgements = horizon_verdicts.judge_chapter(continuum, replication_blocks, pairs, replicated_pairs, PREDICTORS, KERNELS,
                                            OUTCOMES, FT_OUTCOMES, fractions, finetune_fractions, pair_fractions, EARLY)
pair_precision_text = horizon_pair_block.precision_text([pairs, replicated_pairs], pair_n_pairs)
pair_replication_words = correlation_report.block_words(pair_replication_plan)
glue_texts({"hz_pairs_replication_block": pair_replication_words,
            "hz_pairs_declared_half_width": f"{replication.HORIZON_PAIRS_SAMPLE.half_width:.2f}"})
reading_table(replication_report.replication_view(
    {k: judgements.pairs[k] for k in replication.HORIZON_PAIR_CLAIMS}, judgements.replicated_pairs,
    {k: pair_precision_text for k in replication.HORIZON_PAIR_CLAIMS}),
    "Verdicts on the paper's pairs in the discovery and the replication block")

# %% [markdown]
# (hz-continuum-replication)=
# ### Do the continuum's verdicts replicate?
#
# The nine claims on the continuum are judged again, each under its criterion in force and on
# the networks that version was declared for, on a replication block of the converged
# continuum: {glue:text}`hz_replication_block`, trained exactly as the continuum's networks (the
# same scales, learning rates, data sizes and convergence filter). That block and the precision
# its verdicts need (a pooled within-scale interval no wider than
# $\pm${glue:text}`hz_declared_half_width` in Fisher z) were declared before any of its networks
# was trained ({mod}`lib.analyses.replication`); the criteria in force had been written after
# the continuum's own networks were seen. {glue:text}`hz_replication_text`

# %% tags=["hide-input"]
replication_words = replication_report.continuum_block_words(converged_replication_first_seed, converged_seeds, scales)
precision_text = horizon_continuum_block.precision_text([continuum, replication_blocks], converged_seeds)
glue_texts(horizon_texts.replication_texts(judgements, replication_words, replication_blocks))
reading_table(replication_report.replication_view(
    {k: {**judgements.single, **judgements.finetune}[k] for k in replication.CONTINUUM_HORIZON_CLAIMS},
    judgements.replicated, {k: precision_text for k in replication.CONTINUUM_HORIZON_CLAIMS}),
    "Verdicts on the continuum in its discovery and its replication block")

# %% [markdown]
# (hz-verdicts)=
# ## Verdicts
#
# **In detail.** {glue:text}`hz_answer`
#
# The claims of this chapter, each under its criterion in force, then the verdicts of its
# earlier versions. Some versions were declared after their numbers had been seen (post hoc):
# the verdicts page marks them and counts each claim under its latest version declared before
# its numbers. The answer above describes every analysed network, as the figures do, so for the
# claims judged again on the settled networks it quotes the version before the one in force.
#
# {glue:text}`hz_verdicts`
#
# ## What this chapter cannot show
#
# Fine-tuning is observed at only {glue:text}`hz_ft_n_fractions` fractions, for the continuum's
# networks only (not the pairs: the time budget), and its speed shares data with the losses
# observed during its first tenth; the paper's standard/large pairs are observed at only
# {glue:text}`hz_pairs_n_fractions` fractions of their single-task phase, so for them the
# earliest fraction of prediction is not located. The accumulated
# eNTK is a trapezoid sum over the snapshots, not the ePNTK's sum over every step. The
# networks use the continuum's training sets of `n_train` patterns. Only networks whose
# single-task training converged are analysed; the others (see Design) are few, but their
# exclusion depends on how training went. The same holds, with more networks left out, for the
# post-hoc versions judged on the networks whose fine-tuning settled. The pooled within-scale correlations average over
# scales that can differ (the rich scales may carry more of a correlation than the lazy
# ones); the per-scale view above shows this for the strongest cells only.

# %% tags=["remove-cell"]
glue_texts(horizon_answer.answer_texts(THRESHOLD, block, pairs, judgements, PREDICTORS, KERNELS, OUTCOMES, fractions,
                                       finetune_fractions, pair_fractions, EARLY))
glue_texts({"hz_settled_text": horizon_answer.settled_text(judgements, int(settled_block.use.sum()),
                                                           int(block.use.sum()))})
rows = hr.summary_rows(judgements.single, judgements.finetune, judgements.pairs, judgements.replicated_pairs,
                       judgements.earlier, hr.control_text(settled_block.control_by_seed(0)),
                       hr.control_text(pairs.control_by_seed(0)), pair_replication_words, pair_precision_text,
                       judgements.replicated, replication_words, precision_text)
_ = summary.record("12_prediction_horizon", summary.ran_with("12_prediction_horizon", globals()), rows)

