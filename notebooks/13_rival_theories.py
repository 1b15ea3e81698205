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
# # Beyond the paper: two rival theories on the same network
#
# The paper predicts representation learning from the eNTK at the start of training. Two
# related papers claim to predict it without a kernel: the two-point effective theory and the
# neural race.
#
# :::{admonition} The answer
# :class: tip
# {glue:text}`rv_answer_box`
# ({ref}`the verdicts <rv-verdicts>`)
# :::
#
# What the two theories say:
# - **the two-point effective theory** (van Rossem & Saxe 2024): for any pair of inputs, the
#   representational distance a, the output distance b and their alignment w obey a small ODE
#   (their Eq. 7) with two effective learning rates. At small initial weights it predicts a
#   plateau and a final distance set by the input and target distances (the *rich* term
#   A_low = sqrt(rate_h/rate_y) |dx||dy|); at large weights, no plateau and a final distance
#   kept from initialization (the *lazy* term A_high);
# - **the neural race** (Saxe, Sodhani & Lewallen 2022): in a gated deep linear network,
#   pathways race and those used by more contexts learn faster, so shared structure appears
#   first at small initial weights; its reduction gives the dynamics exactly.
#
# This chapter validates each theory on its own ground first, then asks what it predicts for
# the paper's sigmoid multitask network: (a) the learned task similarity, (b) the order and
# times of route learning, (c) the single-task loss.
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `tp_gains`, `tp_learning_rates` | initial gains of the two-point network (Xavier-normal x gain) and one learning rate each | increasing list of >= 2 gains in (0, 100]; as many rates in (0, 1]; a rate at which gradient descent diverges at its gain stops the chapter with an error naming both |
# | `tp_fit_seeds`, `tp_test_seeds` | seeds of the two-point networks that fit the effective rates, and the held-out ones | disjoint non-empty lists of distinct seeds >= 10 |
# | `tp_steps`, `tp_width` | gradient steps and hidden width of the two-point network (depth 4) | integers in [100, 100 000], [2, 2000] |
# | `scales` | initial scales g of the multitask networks (both layers scaled, as the continuum chapter) | increasing list of numbers in [1e-4, 1e6]; the first is "small" |
# | `first_seed`, `n_seeds` | the multitask networks' seeds: first_seed, first_seed + 1, ... | first_seed >= 10; n_seeds >= 2 |
# | `n_fit` | networks per scale (the first seeds) that fit the two-point rates; the others are held out | integer in [1, n_seeds - 1] |
# | `learning_rate`, `n_iterations`, `n_snapshots`, `n_hidden`, `n_train` | full-batch gradient descent of the multitask networks on single tasks | n_iterations a multiple of n_snapshots - 1 |
# | `converged_scales`, `converged_seeds`, `first_block`, `converged_iterations`, `lr_candidates`, `n_lr_seeds`, `lr_choice_iterations`, `converged_n_train`, `converged_n_hidden` | the converged continuum of the continuum chapter, read from its cache (the prediction-horizon chapter's parameters of the same names; its `n_train`, `n_hidden` renamed here) | as in the continuum chapter (`lr_candidates` in float32's normal range [1.175e-38, 3.403e+38]); `converged_seeds` >= 4 |
# | `converged_only` | analyse only the continuum's networks whose single-task training converged (the quick profile, too short to converge, analyses all) | True or False |
# | `converged_first_seed` | the converged continuum's first network seed (0: the book's networks; another value trains a disjoint block of `converged_seeds` networks per scale, a replication block; chapters 10, 12 and 13 must be given the same) | integer >= 0, with `converged_first_seed + converged_seeds` at most 100 000 |
# | `converged_replication_first_seed` | first network seed of the converged continuum's replication block (`converged_seeds` networks per scale, trained by the continuum chapter, which must be given the same), on which the continuum's task-similarity claim is judged again | integer >= 0, seeds disjoint from the continuum's, with `converged_replication_first_seed + converged_seeds` at most 100 000 |
# | `continuum_fit_seeds`, `continuum_fit_snapshots` | held-out networks per scale (never analysed) trained like the continuum, with snapshots, to fit the two-point rates | distinct seeds outside both blocks' seeds; snapshots - 1 dividing the single-task iterations |
# :::

# %% tags=["parameters"]
tp_gains = [0.6, 0.9, 1.2, 1.5, 2.0, 2.5]
tp_learning_rates = [0.02, 0.01, 0.005, 0.0025, 0.001, 0.0004]
tp_fit_seeds = [10, 11]
tp_test_seeds = [12, 13, 14]
tp_steps = 3000
tp_width = 100
scales = [0.3246, 1.0, 3.42]
first_seed = 10
n_seeds = 12
n_fit = 2
learning_rate = 0.1
n_iterations = 2000
n_snapshots = 41
n_hidden = 100
n_train = 200
converged_scales = [0.3246, 1.0, 3.42, 10.0, 20.0]
converged_seeds = 30
first_block = 14
converged_iterations = {"single": 2500, "finetune": 2500, "route": 200}
lr_candidates = [0.01, 0.03, 0.1]
n_lr_seeds = 2
lr_choice_iterations = 500
converged_n_train = 200
converged_n_hidden = 200
converged_only = True
continuum_fit_seeds = [1000, 1001]
continuum_fit_snapshots = 51
converged_first_seed = 0
converged_replication_first_seed = 3000

# %% tags=["remove-cell"]
from lib.book import check_chapter

check_chapter("13_rival_theories", globals())

# %% [markdown]
# ## Design
#
# **Criteria first.** Every verdict of this chapter is judged by a criterion of the claims
# registry declared before any confirmatory number existed. Exploratory runs on seeds 0-4
# (of the sigmoid network's route order and of the two-point network) preceded the criteria,
# so every network judged here has a seed of 10 or more.
#
# **Two-point network** (van Rossem & Saxe, App. B.1): two 1-d inputs (-1 and -0.5) with
# targets 0.6 and 1.6, a leaky-ReLU network of depth 4 and width {glue:text}`rv_tp_width`,
# Xavier-normal weights times a gain, full-batch gradient descent; the hidden layer is the
# middle one. At each gain the two effective rates are fitted on seeds {glue:text}`rv_tp_fit`
# and the theory is tested on seeds {glue:text}`rv_tp_test`.
#
# **Multitask networks**: the paper's 4x3 sigmoid network ({glue:text}`rv_nets`), trained on
# single tasks ({glue:text}`rv_train`). A *task pair* (i, j) is represented by its 81 pattern
# pairs that show the same stimulus to task i and task j: their input distance is the same
# for every pair (two task units differ), their target distance is 2 when the tasks write to
# different output pools, and 0 or 2 when they share one (0 when both input pools show the
# same feature). The two-point theory, with rates fitted per scale on the first
# {glue:text}`rv_n_fit` networks, predicts each pattern pair's final distance from its state
# at t = 0 (Eq. 36); averaged over stimuli it predicts the task pair's.
#
# **Race**: the environment as a gated deep linear network (one hidden layer of modules at
# four levels of sharing: one shared module, one per input pool, one per output pool, one per
# route; the task gates its modules), reduced to one scalar per edge and feature, from each
# network's own training set. It predicts each route's learning time (the loss at half its
# start) and when each level of sharing forms.

# %% tags=["hide-input"]
import matplotlib.pyplot as plt

from lib.book import (glue_texts, plot_rival_theories, reading_table, replication_report, rival_chapter, rival_tables,
                      rival_texts, rival_verdicts, summary)

two_point = rival_chapter.two_point_block(tp_gains, tp_learning_rates, tp_fit_seeds, tp_test_seeds, tp_steps, tp_width)
multitask = rival_chapter.multitask_block(scales, first_seed, n_seeds, n_fit, learning_rate, n_iterations, n_snapshots,
                                          n_hidden, n_train)
glue_texts(rival_texts.design_texts(tp_width, tp_fit_seeds, tp_test_seeds, first_seed, n_seeds, scales, n_hidden,
                                    n_train, learning_rate, n_iterations, n_snapshots, n_fit))

# %% [markdown]
# (rv-two-point-validation)=
# ## Validation 1: the two-point theory on its own network
#
# Each held-out network against Eq. 7 started from its own state at t = 0, with the rates
# fitted on the other seeds of its gain. The median relative error of the final distance
# (Eq. 36 against the network's last snapshot) over gains and held-out seeds is
# {glue:text}`rv_tp_median`; the held-out trajectory error (root-mean-square of the
# difference, each variable divided by its largest value) per gain is in the table (a plateau
# of "inf" lasts beyond the last step).

# %% mystnb={"figure": {"caption": "Beyond the paper (after van Rossem & Saxe Fig. 3, on a smaller network of depth 4): left, the representational distance a(t) of one held-out network per initial gain (solid) and Eq. 7 with rates fitted on other seeds (dashed); middle, the final distance of every held-out network against the theory's fixed point (Eq. 36), the line is equality; right, the plateau length (time until the pair error falls to half its value at equal outputs) of networks and theory against the gain.", "name": "fig-rival-two-point-validation"}} tags=["hide-input"]
fig = plot_rival_theories.plot_two_point_validation(two_point.summary, two_point.examples)
plt.show()

# %% tags=["hide-input"]
glue_texts(rival_texts.two_point_texts(two_point.summary["final_rel_error"]))
reading_table(rival_tables.two_point_table(two_point.summary, two_point.plateaus),
              "Two-point theory on its own network, per gain: fitted rates, errors and plateaus")

# %% [markdown]
# (rv-race-validation)=
# ## Validation 2: the race's reduction against the gated network it reduces
#
# The whole gated linear network (width 64, normal initial weights of standard deviation 1e-4:
# the settings of the race's predictions below) trained by gradient descent
# on the training set of seed {glue:text}`rv_race_seed`, against the reduction started on the
# matching edges: the largest route-loss difference, relative to the route's initial loss, is
# {glue:text}`rv_race_error`, and the routes' learning times differ by at most
# {glue:text}`rv_race_time_error`.

# %% mystnb={"figure": {"caption": "Beyond the paper (after Saxe, Sodhani & Lewallen Fig. 4e, simulation against reduction) on the paper's 4x3 environment written as a gated linear network: the twelve route losses of direct gradient descent (colours) and of the reduction (dotted).", "name": "fig-rival-race-validation"}} tags=["hide-input"]
fig = plot_rival_theories.plot_race_validation(multitask.race_check)
plt.show()
glue_texts(rival_texts.race_check_texts(multitask.seeds[0], multitask.race_check))

# %% [markdown]
# (rv-task-pairs)=
# ## (a) The learned task similarity: two-point theory against the hidden layer
#
# Per held-out network, the Pearson r over the 66 task pairs between the predicted and the
# observed final distance (the first table gives the median per scale, the share of networks
# with r > 0.5, and a trivial baseline: the median r of the pairs' distance at t = 0 with their
# final distance; the second, the fitted rates, the fit errors and the ratio observed /
# predicted by kind of pair). Across scales, pooling every held-out network's
# pairs, r = {glue:text}`rv_pairs_across`. The theory separates task pairs only through their
# target distance, so at small init it can tell pairs that share an output pool from the
# others, and cannot tell pairs that share an input pool from pairs that share nothing: the
# continuum chapter's within-scale analysis ({ref}`cont-within`) is where the t=0 eNTK was
# given the same task.

# %% mystnb={"figure": {"caption": "Beyond the paper (new): the two-point theory's predicted final distance of every task pair (Eq. 36 from each pattern pair's state at t = 0, rates fitted on other networks of the scale, averaged over stimuli) against the hidden layer's final distance, every held-out network, one panel per initial scale; each network's values divided by its mean over pairs. Colours: the kind of task pair.", "name": "fig-rival-two-point-multitask"}} tags=["hide-input"]
fig = plot_rival_theories.plot_two_point_multitask(multitask.by_scale, multitask.kinds)
plt.show()

# %% tags=["hide-input"]
prediction, fit = rival_tables.multitask_tables(multitask.by_scale, multitask.kinds, plot_rival_theories.PAIR_KINDS)
glue_texts(rival_texts.task_pair_texts(multitask.by_scale))
display(reading_table(prediction, "Two-point theory's prediction of the learned task similarity, per scale"))
display(reading_table(fit, "Two-point theory on the multitask network, per scale: fitted rates and fit"))

# %% [markdown]
# (rv-race)=
# ## (b, c) Route order, pool groupings and loss: race against the sigmoid network
#
# At the smallest scale (g = {glue:text}`rv_small`), the route learning order of each
# network against the race's prediction from the same training set, against the trivial
# rival "the route with more training patterns is learned sooner", and against a race without
# sharing (route modules only; the table's last rho column: what the race's sharing adds); the hidden layer's
# grouping of the tasks by output pool and by input pool (adjusted Rand index of a Ward
# clustering of the tasks' hidden profiles); and the mean single-task loss of network and
# race, each on its own clock. In the race (seed {glue:text}`rv_race_seed`'s training set),
# the module shared by all twelve routes wins outright: at the end it carries
# {glue:text}`rv_race_shared` of the routes' maps. Between the pool modules, output-pool
# modules serve 4 routes and input-pool modules 3, so output-pool structure wins: raced
# without the shared module, {glue:text}`rv_race_pools`. The sigmoid network does the
# opposite at this scale: its hidden layer groups the tasks by input pool in
# {glue:text}`rv_in_count` networks and by output pool in {glue:text}`rv_out_count` (ARI
# reaching 0.5), and at the largest scale here by output pool only ({glue:text}`rv_large_counts`).
# The paper reports output-pool clusters first at its standard init (Fig 7), with its own
# clustering of eNTK vectors rather than of hidden profiles, so the order depends on the
# measure as well as on the scale. A race without its shared and pool modules (route modules
# only) orders the routes with mean rho {glue:text}`rv_rho_unshared` against the full race's
# {glue:text}`rv_rho_race` at the smallest scale, and better than the full race at
# {glue:text}`rv_unshared_better` scales (the table): where the race gets the order right, it
# is each route's own statistics that order it, not sharing. The loss curves differ in shape: at
# half of its time to half loss, the sigmoid network has already removed
# {glue:text}`rv_loss_network` of its mean route loss and the race {glue:text}`rv_loss_race`;
# the race has a plateau and then a sharp drop, the sigmoid network at this scale none.

# %% mystnb={"figure": {"caption": "Beyond the paper (new): the race against the sigmoid network at the smallest initial scale. Left, Spearman's rho between predicted and observed route learning times per network, for the race and for route size alone (lines join one network). Middle, ARI of the hidden layer's task clustering with the output-pool and the input-pool grouping over training (thin: networks; thick: mean; dotted: 0.5). Right, the mean route training loss of the networks and the race's mean route loss, each against its own time divided by its time to half the start.", "name": "fig-rival-race-multitask"}} tags=["hide-input"]
fig = plot_rival_theories.plot_race_multitask(multitask.by_scale[scales[0]], multitask.iterations, scales[0])
plt.show()

# %% tags=["hide-input"]
glue_texts(rival_tables.race_texts(multitask.by_scale, scales, multitask.iterations, multitask.race,
                                   multitask.race_pools))
reading_table(rival_tables.race_table(multitask.by_scale),
              "Race against the sigmoid networks, per scale: route order and pool groupings")

# %% [markdown]
# (rv-side-by-side)=
# ## Side by side: both theories, the t=0 eNTK, the accumulated eNTK and the targets control
#
# On the same networks, every predictor of the three outcomes (rows), per initial scale
# (columns): the mean per-network score with its percentile bootstrap 95% interval. The **t=0
# eNTK** predicts (a) by how alike two tasks' mean eNTK columns are (the task profiles with which
# the eNTK-over-training chapter compares tasks), and (b) by each route's initial loss
# over its initial rate of decrease under the eNTK's first-order change. The **network linearized
# at t=0** is the exact dynamics of the t=0 NTK: trained alike, it gives a hidden layer (a), route
# times (b) and a loss curve (c). The **accumulated eNTK** (the trapezoid rule over the
# chapter's {glue:text}`rv_side_snapshots` snapshots, the prediction horizon chapter's stand-in
# for the ePNTK) uses the whole run, so it is a reference for how much a kernel can say, not a
# prediction; it is shown for (a) only, because on snapshots 50 steps apart its first-order
# output change overshoots the loss in the first interval (the loss-weighted kernel shrinks as
# fast as the error), so it gives no route times or loss curve here. The **targets control** is the small-weight limit of the eNTK (derived in the
# multitask-representations chapter): targets, task units and the two biases, no weights; for (b) and (c) it
# is gradient flow with that limit's NTK from the limit's outputs. Scores: (a) Pearson's r over
# the 66 task pairs with the observed final distances (held-out networks); (b) Spearman's rho
# with the observed route times, and for the two predictors with the network's clock (the
# linearized network, the targets control) how much later they put the routes (the median over
# routes of log10 of predicted over observed time); (c) the absolute error of the share of the loss removed at half
# the time to half loss (lower is better; observed: {glue:text}`rv_side_shape_observed`). A
# predictor whose routes never reach half their loss gives no order and no shape, nor does a
# linearized network whose training diverges at the networks' learning rate
# ({glue:text}`rv_side_diverged`; the table's last column counts the networks with a score); a cell without scores is left out of its
# claim's family, as declared. The claims' cells, signs and corrections were declared in the
# registry before these numbers existed, except three the verdicts page marks: the race's loss
# shape and the correction across the chapter's claims (post hoc) and the route-order claim
# (declared with its numbers). A cell's sign-flip p enumerates every sign pattern up to 16
# networks; above that it draws 20 000 patterns, so each claim is judged under the 20 seeds of
# that draw and a verdict that changes with the seed is reported as borderline, with its count.
#
# {glue:text}`rv_side_words`

# %% mystnb={"figure": {"caption": "Beyond the paper (new): every predictor of (a) the learned task similarity, (b) the route learning order and (c) the single-task loss shape, on the same multitask networks, per initial scale (colours): mean per-network score with its percentile bootstrap 95% interval. (a) and (b): higher is better; (c): lower is better. The accumulated eNTK uses the whole run (a reference, not a prediction) and is shown for (a) only.", "name": "fig-rival-side-by-side"}} tags=["hide-input"]
side = rival_chapter.side_by_side(multitask, learning_rate, n_fit)
fig = plot_rival_theories.plot_side_by_side(side.scores, rival_chapter.SIDE_PREDICTORS)
plt.show()

# %% tags=["hide-input"]
for table, title in rival_chapter.side_tables(side.scores):
    display(reading_table(table, title))
glue_texts(rival_texts.side_texts(side.kernel_predictions, side.scores, n_snapshots))

# %% [markdown]
# (rv-continuum)=
# ## (a) on the continuum's networks
#
# The same comparison of task-similarity predictors, on other networks: the converged continuum
# of the continuum chapter ({glue:text}`rv_cont_nets`), read from its cache. Its networks were
# trained without snapshots, and the cache keeps no weights, but it keeps each network's hidden
# task-pair distances (chapter 13's measure: mean over the 81 shared stimuli of the squared hidden
# distance) at t = 0, after single-task training (the observed similarity), and of the network
# linearized at t = 0 after the same training. Each network's seed fixes its initial weights and
# training set, so the t=0 predictors are recomputed from it (the recomputed t = 0 distances agree
# with the cached ones: largest relative difference {glue:text}`rv_cont_match`). The two-point theory predicts with
# Eq. 36 from each network's state at t = 0; its effective rates are fitted per scale on
# held-out networks, seeds {glue:text}`rv_cont_fit_seeds` (never analysed), trained like the
# continuum's (the scale's learning rate, the same engine and data draw) and observed at
# {glue:text}`rv_cont_fit_snapshots` snapshots. The t=0 eNTK and the targets control predict as in
# the side-by-side comparison above. Scores: per network, Pearson's r over the 66 task pairs with
# the observed distances; within each scale, the mean with its percentile bootstrap 95% interval
# (table); the claim's cells compare the two-point theory with each rival, scale by scale
# (Fisher z, sign-flip p, Holm over the cells), declared before these numbers existed.
#
# **Verdicts, both network sets side by side.** {glue:text}`rv_cont_verdicts`
#
# **Across scales** (every analysed network's task pairs pooled): {glue:text}`rv_cont_across`.
# The scale sets the size of every distance, so a pooled correlation is mostly the scale's: the
# row "scale alone" (log g against the log observed distance) shows how much of it the scale gives
# without any theory.
#
# **Replication block.** The same claim, by the same criterion, on networks this comparison had
# never seen: the continuum chapter's replication block ({glue:text}`rv_rep_block`), declared
# before this chapter computed anything on it with the precision its verdict needs (a 95%
# half-width of {glue:text}`rv_rep_half_width` in each cell's mean Fisher-z difference). The
# two-point rates are the ones fitted above, on the same held-out seeds; analysed:
# {glue:text}`rv_rep_analysed` (recomputed t = 0 distances within {glue:text}`rv_rep_match` of
# the cached ones). Discovery block: {glue:text}`rv_rep_discovery`; replication block:
# {glue:text}`rv_rep_result`. Precision: {glue:text}`rv_rep_precision`. Earlier criterion
# versions on the replication block: {glue:text}`rv_rep_earlier`.

# %% tags=["hide-input"]
continuum, replication_block = rival_chapter.continuum_blocks(
    converged_scales, converged_seeds, first_block, converged_iterations, lr_candidates, n_lr_seeds,
    lr_choice_iterations, converged_n_train, converged_n_hidden, converged_only, continuum_fit_seeds,
    continuum_fit_snapshots, first_seeds=(converged_first_seed, converged_replication_first_seed))
for table, title in rival_chapter.continuum_tables(continuum):
    display(reading_table(table, title))
glue_texts(rival_texts.continuum_texts(continuum, converged_seeds, converged_n_hidden, converged_only,
                                       continuum_fit_seeds, continuum_fit_snapshots))

# %% tags=["hide-input"]
continuum_replication = rival_chapter.continuum_replication(continuum, replication_block, converged_seeds)
display(reading_table(rival_chapter.continuum_score_table(continuum_replication.block.found.scores),
                      "(a) on the continuum's replication block: mean r over task pairs [95% interval]"))

# %% [markdown]
# (rv-verdicts)=
# ## Verdicts
#
# **In detail.** {glue:text}`rv_answer`
#
# Each claim judged by the criterion in force in the claims registry. The first version of
# every criterion was declared before the confirmatory networks were trained, except the race's
# loss shape and the correction across the chapter's claims (post hoc, so labelled) and the
# route-order claim (declared with its numbers). Five criteria have a second version, also post hoc: after
# a review had seen the first verdicts, an undefined cell no longer drops out of a claim about
# every cell, and the t=0 eNTK is judged on its own cells instead of together with the
# linearized network's. For those the first version's verdict is given beside the second (the
# verdicts page lists every claim with the others):
#
# {glue:text}`rv_verdicts`
#
# ## What this chapter cannot show
#
# The two-point network here has depth 4 and width {glue:text}`rv_tp_width`, not the paper's
# 20 layers of 500 units. van Rossem & Saxe themselves find the theory inaccurate for
# shallow (two-layer) networks and accurate in later layers, and for data of many points
# average over trials and correct violations of the triangle inequality; the multitask
# network has one hidden layer and is analysed network by network with the raw fixed point,
# so its failure on task pairs is within what the theory's authors would expect. On its own
# network, the plateau part of the criterion measures slowness (the time until the pair error
# halves), which a slow exponential would also pass, and no trivial predictor of the final
# distance (such as the fitting seeds' mean at the same gain) is set against the theory's. The two-point theory's rates are fitted on a few pattern pairs
# sharing one target distance, and the theory is applied to the multitask network's pattern
# pairs although its derivation assumes pairs that do not rotate. The race is derived for
# gated *linear* networks with a hand-chosen gating of modules; the sigmoid network has no
# gates, so the comparison tests whether its learning resembles the race, not the reduction.
# Only the smallest scale is judged for the race; the larger scales are shown for contrast.
# The multitask networks here have {glue:text}`rv_hidden` hidden units (the paper: 200) and are
# trained in this chapter, because both theories need snapshots over training that the
# continuum's cached runs do not keep; the side-by-side comparison of (b) and (c) is on these
# networks only. (a) is also tested on the continuum's 200-unit networks ({ref}`rv-continuum`),
# whose cache keeps the task-pair distances it needs; there the two-point rates come from the
# held-out networks per scale (seeds {glue:text}`rv_cont_fit_seeds`), a fit whose error is in that section's table, and the
# accumulated eNTK (which needs every snapshot's weights) is not computed. The t=0 eNTK's route-order prediction from initial rates is a
# time scale, not a time; the linearized network gives times. The loss-shape verdict is post hoc
# (its numbers were seen before its criterion), and the shape number ignores the clock, which the
# race (on its own time) cannot predict at all.

# %% tags=["remove-cell"]
verdicts = rival_chapter.judge_chapter(two_point, tp_gains, multitask, side, continuum)
replication_words = replication_report.continuum_block_words(converged_replication_first_seed, converged_seeds,
                                                             converged_scales)
glue_texts(rival_texts.verdict_texts(verdicts, multitask.race_check["max_error"], n_hidden, converged_n_hidden,
                                     continuum_replication))
glue_texts(rival_texts.continuum_replication_texts(verdicts.judgements["rival-continuum-similarity"],
                                                   continuum_replication, replication_words))
rows = rival_verdicts.claim_rows(verdicts.judgements, verdicts.earlier, continuum_replication.judgement,
                                 replication_words, continuum_replication.precision)
_ = summary.record("13_rival_theories", summary.ran_with("13_rival_theories", globals()), rows)
