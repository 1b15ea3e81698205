# ---
# jupyter:
#   chapter:
#     figures: 10
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
# # Shared or separated representations, seen by the eNTK at t=0
#
# The paper's central demonstration (Sec 4): in the multitask network, standard
# initialization ($U[-0.1, 0.1]$) learns hidden representations *shared* across tasks that
# share an input or output pool, large initialization (the same draw x10) learns
# *separated* ones — and the eNTK at $t=0$ already shows the difference. Here we
# reproduce the paper's pictures (network, M-PHATE, eNTK eigenvectors, ARI), put numbers
# with intervals over seeds on what the paper judges by eye, and ask what the $t=0$ eNTK
# contains beyond the labels: we derive its small-weight limit and compare it with
# kernel-free controls (the loss sensitivities and the targets alone) and with the plain NTK.
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `architecture` | `"4x3"` (4 input pools, 3 output pools; the paper's main network) or `"3x4"` (App A.7.1) | `"4x3"`, `"3x4"` |
# | `schedule` | learning rates and iterations of single-task training | `"ET"`, `"LR"` |
# | `n_iterations` | iterations (multiple of 100) | integer >= 100 |
# | `n_entk_pairs` | pairs (seeds `first_seed`...) for the $t=0$ eNTK statistics and controls | integer >= 2 |
# | `n_ari_pairs` | pairs whose hidden activity is recorded for ARI and M-PHATE (the first of the eNTK pairs) | 2 ... `n_entk_pairs` |
# | `first_seed` | first pair seed (the same networks as the performance chapter) | integer >= 0 |
# | `show_swapped_architecture` | also analyse the other architecture (Fig 20) | bool |
# | `n_swapped_pairs` | pairs of the other architecture | integer >= 2 |
# | `n_permutations` | label shuffles of the null for the $t=0$ structure | integer in [100, 100 000]; more with `--allow-large` while the null's 58 kB per shuffle fit in the memory available (no `--allow-large` lifts that) |
# :::

# %% tags=["parameters"]
architecture = "4x3"
schedule = "ET"
n_iterations = 10000
n_entk_pairs = 10
n_ari_pairs = 5
first_seed = 0
show_swapped_architecture = True
n_swapped_pairs = 3
n_permutations = 1000

# %% tags=["remove-cell"]
from lib.book import check_chapter

check_chapter("04_multitask_representations", globals())

# %% mystnb={"figure": {"caption": "Paper Fig 6, redrawn. (A) The network: stimulus pools (green) and task units (purple) project to 200 sigmoid hidden units; hidden and task units project to the output pools (red). All biases are fixed at -2. (B) The tasks: each maps one input pool to one output pool (numbers: task index).", "name": "fig-network"}} tags=["hide-input"]
import matplotlib.pyplot as plt

from lib.book import (ARCHITECTURES, glue_texts, plot_multitask, plot_representations, reading_table,
                      representation_blocks as blocks, representation_report, structure_report as report, summary,
                      TaskEnvironment)

run_parameters = summary.ran_with("04_multitask_representations", globals())

env = TaskEnvironment(*ARCHITECTURES[architecture])
plot_multitask.plot_network(env)
plt.show()

# %% [markdown]
# ## Hidden representations over training (M-PHATE, paper Fig 7)
#
# Hidden activity is probed on all single-task patterns and averaged within each group
# of four groupings — by task, by the routed input unit, by task x input, by the output
# unit that should respond — at 101 snapshots of single-task training, then embedded with
# M-PHATE {cite}`gigante2019`. Outlined markers at the final snapshot encode the structure
# the paper describes: input pool (task panel), feature position (input panel), output
# pool (task x input and output panels). M-PHATE joins the snapshots in one graph; where the
# group means of some snapshots lie far from all others, that graph falls into several
# connected components, and each component is embedded without distances to the others
# (positions of points in different components are not comparable).

# %% tags=["hide-input"]
hidden = blocks.hidden_layer(env, schedule, first_seed, n_ari_pairs, n_iterations)


# %% mystnb={"figure": {"caption": "Paper Fig 7: M-PHATE of group-averaged hidden activity over single-task training (colour: % of training), standard init (top) and large init (bottom), for the four groupings. Outlined markers: final positions, shaped by the structure the paper describes. Inset: the input grouping of standard init at 3% of training, shaped by feature position.", "name": "fig-mphate"}} tags=["hide-input"]
plot_representations.plot_mphate_grid(hidden.embeddings, hidden.final_labels, inset=blocks.mphate_inset(hidden))
plt.show()

# %% [markdown]
# (tab-task-distances)=
# The paper reads the large-init panels as "each task develops its own representations that
# are roughly equidistant from the others". Measured on the final hidden means of every
# recorded pair: the mean distance between tasks that share their input pool (or their
# output pool), divided by that between tasks sharing neither (1: equidistant, below 1:
# shared structure).

# %% tags=["hide-input"]
distance_ratios = blocks.final_distance_ratios(env, hidden)
glue_texts(representation_report.mean_texts("dist_", distance_ratios))
reading_table(report.distance_table(distance_ratios),
              "Final hidden distance between tasks sharing a pool, relative to tasks sharing neither")

# %% [markdown]
# ## The eNTK at initialization (paper Figs 15, 8, 16)
#
# For every network we take, per output unit, the leading vector of its $t=0$ eNTK (one
# loading per training pattern) — the same networks and training data as the performance
# chapter. Two variants ({doc}`../choices`): the **authors'** (rows over test inputs, the
# first eigenvector `np.linalg.eig` returns, as their code) and our **principled** one
# (training x training inputs, the leading right singular vector). Below, one
# standard/large pair (authors' variant), patterns sorted by the input unit their task
# routes and by task; then the average over all pairs, and the unsorted control.

# %% tags=["hide-input"]
t0 = blocks.initial_structure(env, first_seed, n_entk_pairs)

# %% mystnb={"figure": {"caption": "Paper Fig 15: leading eNTK vector at t=0 of each output unit (rows, grouped by output pool) over the training patterns (columns), sorted by routed input unit or by task, for standard and large init of one pair (authors' variant).", "name": "fig-entk-sorted"}} tags=["hide-input"]
plot_multitask.plot_sorted_loadings(env, t0)
plt.show()

# %% [markdown]
# To average vectors over networks their signs must agree (an eigenvector's sign is
# arbitrary). We orient each network's vector of output $k$ so that it correlates positively
# with that network's loss sensitivities $\epsilon_{\cdot k} = \partial L/\partial y_k$ — a
# fixed reference — instead of the rule "entries sum to $\ge 0$", whose sum is near zero
# here and flips from pair to pair.

# %% mystnb={"figure": {"caption": "Paper Fig 8: mean t=0 eNTK loading of each output unit (rows: output pool and within-pool position m) over the patterns of each routed input unit (left) and each task (right), standard init (top) and large init (bottom), averaged over all pairs after orienting every vector along its network's loss sensitivities (authors' variant).", "name": "fig-entk-means"}} tags=["hide-input"]
plot_multitask.plot_oriented_means(env, t0)
plt.show()

# %% mystnb={"figure": {"caption": "Paper Fig 16: the same loadings as above for standard init, in the order the patterns were drawn (no sorting): the structure is invisible without grouping.", "name": "fig-entk-unsorted"}} tags=["hide-input"]
plot_multitask.plot_unsorted_loadings(env, t0)
plt.show()

# %% [markdown]
# ## What the t=0 eNTK is made of
#
# **The small-weight limit.** For this network the eNTK of output $k$ factors layer by layer
# ({doc}`../methods`):
#
# $$
# K_k[n,m] = s'_k(n)\Big[g_{mk}\,(z_n\!\cdot z_m) + (x_n\!\cdot x_m)\sum_i W_o[k,i]\,h'_i(n)\,b_{mi}\Big],
# \qquad g_m = \epsilon_m \odot s'(m),\quad b_m = h'(m) \odot W_o^T g_m ,
# $$
#
# with $z = [h; x_\text{task}]$. Let every weight go to zero. Every hidden unit then sits at
# $h = \sigma(-2) \approx 0.119$ for every pattern, every output at $y = \sigma(-2)$ with slope
# $s' = \sigma'(-2) \approx 0.105$, and the hidden-layer term vanishes (it carries $W_o$
# twice). What is left is
#
# $$
# K_k[n, m] \;\to\; \sigma'(-2)^2\; \epsilon^0_{mk}\; \big(H\sigma(-2)^2 + x_{\text{task},n}\cdot x_{\text{task},m}\big),
# \qquad \epsilon^0_{mk} = 2\big(\sigma(-2) - t_{mk}\big),
# $$
#
# a constant ($H\sigma(-2)^2 = 2.84$ for $H = 200$) plus a same-task bonus of 1, *times the loss
# sensitivity of the column pattern*. The constant dominates (each of the 500 patterns shares
# its task with only ~42 others), so the matrix is close to rank one, $\mathbf{1}\,
# \epsilon^{0\,T}_{\cdot k}$, and its leading right vector is close to $\epsilon^0_{\cdot k}$: a
# two-valued function of whether output $k$ is pattern $m$'s target unit ($-1.76$ if it is,
# $+0.24$ if not). **At small weights the leading eNTK vector is the target.** The same-task
# bonus modulates it by about 1%; the deviation from the limit grows linearly with the weight
# scale (`lib.analyses.controls.small_weight_entk`, tested against the exact kernel). At the paper's
# large init (weights $U[-1,1]$) hidden units and outputs vary strongly from pattern to
# pattern and the hidden-layer term is as large as the output term: the limit no longer
# applies. What remains there, the numbers show, is the output error $\epsilon\odot\sigma'$.
#
# **Verification and controls.** For every network and output we compare the leading eNTK
# vector with kernel-free quantities of the same network at $t=0$: the loss sensitivities
# $\epsilon$, the output error $\epsilon\odot\sigma'$ (what the output term of the kernel
# carries), the targets, and the leading vector of the plain NTK block
# $\Theta_{kk}$ (no loss weighting). Each cell is the share of the variance of the eNTK
# vector that a linear function of the control explains ($r^2$, mean over outputs), mean
# $\pm$ sd over pairs; the last row is the relative distance of the exact eNTK from its
# small-weight limit.

# %% tags=["hide-input"]
shares = blocks.control_shares(t0)
summary.check_headline("04_multitask_representations", run_parameters, "standard init: share of the t=0 eNTK "
                       "vectors explained by the loss sensitivities", blocks.epsilon_share(shares), 0.95, 1.0)
glue_texts(representation_report.share_texts(shares, t0.structure["limit_error"]))
reading_table(report.share_table(shares, t0.structure["limit_error"]),
              "Variance of the t=0 eNTK vectors explained by each control; distance from the small-weight limit")

# %% [markdown]
# Per output unit (authors' variant): the squared correlation of the leading eNTK vector with
# that output's $\epsilon_{\cdot k}$ and $(\epsilon\odot\sigma')_{\cdot k}$, mean over pairs (lowest pair in
# brackets).

# %% tags=["hide-input"]
reading_table(blocks.per_output_table(env, t0),
              "Per output unit: r² of its leading eNTK vector with ε and with ε·σ'")

# %% mystnb={"figure": {"caption": "Beyond the paper (a control for Sec 4.2.2): what the t=0 eNTK adds beyond kernel-free controls (authors' variant; one dot per network, bars: mean over pairs). Left: share of the variance of the leading eNTK vectors explained by the loss sensitivities \u03b5, the output error \u03b5\u00b7\u03c3', the targets and the plain NTK's leading vector. Right: silhouette of 12-cluster k-means on each predictor's own loadings \u2014 the quantity the paper correlates with performance.", "name": "fig-entk-controls"}} tags=["hide-input"]
plot_multitask.plot_controls(blocks.control_panels(shares, t0))
plt.show()

# %% tags=["hide-input"]
glue_texts(blocks.silhouette_texts(t0))
reading_table(blocks.silhouette_table(t0),
              "Clustering of the eNTK loadings and the kernel-free controls: silhouette per init scale")

# %% [markdown]
# **What the kernel adds.** At standard init the loss sensitivities alone explain
# {glue:text}`share_authors_epsilon_std` of the variance of the leading eNTK vectors (lowest
# network {glue:text}`share_authors_epsilon_std_min`), the targets alone
# {glue:text}`share_authors_targets_std`, the plain NTK's leading vector only
# {glue:text}`share_authors_ntk_std`: the kernel there is the derivation's rank-one matrix,
# and its leading vector adds nothing to the targets. At large init the exact kernel differs
# from the limit by {glue:text}`limit_error_large` times the limit's own size, and the targets
# explain only {glue:text}`share_authors_targets_large` of the vectors — but the output
# error $\epsilon\odot\sigma'$, a kernel-free quantity of the untrained network, still
# explains {glue:text}`share_authors_output_error_large`. The silhouette follows: that of the
# output error alone is {glue:text}`sil_output_error_std` (standard) and
# {glue:text}`sil_output_error_large` (large), against {glue:text}`sil_entk_authors_std` and
# {glue:text}`sil_entk_authors_large` for the eNTK, and over all networks the two correlate
# with $r =$ {glue:text}`sil_r_output_error`. The row-side (left) vectors, a different object
# (which patterns' outputs move together), resemble the plain NTK's instead: both are
# organized by task (table below).
#
# ### How much of the loadings does each factor explain?
#
# For each network and output unit, the share of the variance of the loadings explained by
# a factor of the patterns (between-group variance over total, $\eta^2$): the relevant
# feature position, the task's output pool, its input pool, the task (12 groups), and the
# target output unit (output pool x feature). Mean $\pm$ sd over pairs, and the paired
# difference standard $-$ large with a 95% t-interval; the kernel-free controls below.

# %% tags=["hide-input"]
eta = blocks.loading_eta(env, t0)
glue_texts(representation_report.eta_texts(eta.rows))
reading_table(eta.table, "Share of the eNTK loadings' variance explained by each factor (η²), standard vs large init")

# %% tags=["hide-input"]
reading_table(blocks.factor_means_table(eta),
              "Mean η² of each factor for the eNTK loadings and the kernel-free controls")

# %% [markdown]
# (tab-entk-paired)=
# ### Is large init's $t=0$ eNTK less clustered than standard init's?
#
# The paper reads Figs 8 and 15 as a contrast: standard init's $t=0$ eNTK is clustered, large
# init's is not. We test the contrast where it is made, per weight draw: each pair is one draw
# of weights at both scales, and for each we take $\eta^2$ of the authors' leading loadings
# (mean over outputs, the statistic of the table above) by the two factors the figure's two
# sorts display — the feature position (input sort) and the task's output pool (task sort) —
# and average the two. The difference standard $-$ large is averaged over draws, with a
# bootstrap 95% interval over draws; the claim is reproduced when the interval lies above 0.

# %% tags=["hide-input"]
eta_pair, control_pair = blocks.sort_factor_pairs(eta)  # (P, 2 inits, 2 factors), (P, 2): ε·σ' alone
entk_large = representation_report.judge_entk_large(eta_pair, control_pair)
glue_texts(representation_report.entk_large_texts(entk_large))
reading_table(report.paired_table(eta_pair, t0.seeds),
              "Per weight draw: η² of the eNTK loadings by the two sort factors, standard vs large")

# %% [markdown]
# Averaged over the two factors, standard init's loadings have $\eta^2 =$
# {glue:text}`entk_large_std` and large init's {glue:text}`entk_large_large`; standard init is
# the more structured one in {glue:text}`entk_large_k` draws, and the mean paired difference is
# {glue:text}`entk_large_diff` (bootstrap 95% interval {glue:text}`entk_large_ci`). Verdict on
# the paper's contrast: {glue:text}`entk_large_verdict` ({glue:text}`entk_large_stability`). The kernel-free output error
# $\epsilon\odot\sigma'$ of the same networks, scored the same way, gives a paired difference of
# {glue:text}`entk_large_control_diff`: like standard init's structure itself, the contrast is
# present without the kernel. The claims registry's third version of this criterion declares
# that control and judges it by the same test, so a control that passes qualifies the verdict
# (the version was written after both contrasts had been shown, and is labelled post hoc); the
# second version, without the control, gives {glue:text}`entk_large_v2_verdict`.
#
# (tab-entk-null)=
# #### Less structured is not unstructured
#
# Each network's loadings are also tested on their own against a null of **shuffled pattern
# labels**: $\eta^2$ (mean over outputs) by the two groupings of Fig 8 — routed input unit and
# task — against its distribution over {glue:text}`n_permutations` random relabellings of the
# patterns.

# %% tags=["hide-input"]
null = blocks.shuffle_null(env, t0, n_permutations)
glue_texts(blocks.null_texts(null, n_permutations))
reading_table(null.table, "η² of the eNTK loadings against a null of shuffled pattern labels")

# %% [markdown]
# Large init's loadings keep structure of their own: their $\eta^2$ by routed input unit is
# {glue:text}`null_large_eta` (standard: {glue:text}`null_std_eta`) against a shuffle null
# whose 95th percentile is {glue:text}`null_95`, and {glue:text}`null_large_structured`
# large-init networks are structured beyond chance — the structure the output error
# $\epsilon\odot\sigma'$ carries (above). A null that any such structure beats does not test the
# paper's contrast, so the verdict on "not clustered" is the paired comparison above; the
# shuffle test is kept as the claim's earlier criterion, on the verdicts page.
#
# ## Does the t=0 structure appear in the hidden layer? (paper Fig 9)
#
# The paper scores k-means clusters of group-averaged hidden activity (adjusted Rand index,
# ARI; 1: the hidden layer is organized exactly that way, 0: chance) against partitions it
# calls "predicted from the eNTK": input units by feature position and tasks by input pool.
# These are fixed labels, written down from the figures; we keep them as **reference
# partitions** and add the partition each network's own $t=0$ eNTK actually gives:
#
# * average the network's leading-vector loadings within each group (the 12 input units, or
#   the 12 tasks), giving a $12 \times 9$ matrix of group means;
# * k-means it for every number of clusters from 2 to 6 and keep the one with the highest
#   silhouette (`lib.analyses.partitions.derive_partition`; nothing else is chosen by hand).
#
# How often the eNTK-derived partition *is* each reference partition, over all
# {glue:text}`n_entk_pairs_text` pairs (authors' variant), and how often the kernel-free
# control $\epsilon\odot\sigma'$ gives the same partition as the eNTK:

# %% tags=["hide-input"]
agreement = blocks.partition_agreement(env, t0)
glue_texts(blocks.agreement_texts(agreement, n_entk_pairs))
reading_table(agreement.table,
              "How often each network's eNTK-derived partition equals a reference partition or the control's")

# %% mystnb={"figure": {"caption": "Paper Fig 9, with eNTK-derived partitions: adjusted Rand index between k-means clusters of group-averaged hidden activity and a partition of the groups, over single-task training (symlog time axis), mean \u00b1 sd over pairs, standard (blue) and large (orange) init. Reference partitions are fixed labels (the paper's choice); 'eNTK-derived' is each network's own partition from its t=0 eNTK. Below zero: clusters that cut across the partition more than chance would.", "name": "fig-ari"}} tags=["hide-input"]
ari = blocks.ari_curves(env, hidden, agreement.derived)
plot_multitask.plot_ari_panels(hidden.iterations, ari)
plt.show()

# %% tags=["hide-input"]
glue_texts(representation_report.ari_texts(env, ari, hidden.iterations))
reading_table(blocks.ari_table(ari, hidden.iterations),
              "Adjusted Rand index of hidden-layer clusters against each partition: end, peak and onset")

# %% [markdown]
# Values below zero are not noise around chance: the ARI of two partitions that cut across
# each other completely — tasks by input pool against tasks by output pool, where every
# input-pool group holds one task of each output pool — is {glue:text}`ari_crossing`. A
# negative ARI against the input pools means the hidden layer groups tasks *across* input
# pools, by output pool.

# %% [markdown]
# ## The swapped architecture (paper Fig 20)
#
# App A.7.1 repeats the M-PHATE analysis with the pool counts swapped (3 input, 4 output
# pools, for the 4x3 network; 4 and 3 for the 3x4 one), to rule out that the early
# organization by output simply reflects there being fewer output than input dimensions.
# We add the $t=0$ eNTK structure and the ARI curves of that architecture.

# %% mystnb={"figure": {"caption": "Paper Fig 20: M-PHATE as in Paper Fig 7 for the other architecture (one pair, same schedule).", "name": "fig-mphate-swapped"}} tags=["hide-input"]
other = blocks.other_architecture(architecture)
swapped = blocks.swapped_architecture(other, schedule, first_seed, n_swapped_pairs, n_iterations,
                                      show_swapped_architecture)
plot_multitask.show_swapped_figure(plot_multitask.plot_swapped_mphate, swapped)

# %% mystnb={"figure": {"caption": "Paper Fig 20, extended: the adjusted Rand index of Paper Fig 9 for the other architecture (mean \u00b1 sd over its pairs; reference partitions and the partitions derived from each network's t=0 eNTK).", "name": "fig-ari-swapped"}} tags=["hide-input"]
plot_multitask.show_swapped_figure(plot_multitask.plot_swapped_ari, swapped)

# %% mystnb={"figure": {"caption": "Paper Fig 20, extended: leading t=0 eNTK vector of each output unit of the other architecture (authors' variant, first pair), over the training patterns sorted by routed input unit or by task, for standard and large init (as Paper Fig 15).", "name": "fig-entk-swapped"}} tags=["hide-input"]
plot_multitask.show_swapped_figure(plot_multitask.plot_swapped_loadings, swapped)

# %% tags=["hide-input"]
onset_table = blocks.onset_table(architecture, ari, hidden.iterations, swapped)
glue_texts(blocks.swapped_page_texts(swapped, architecture, other, onset_table, n_swapped_pairs))
reading_table(blocks.onset_frame(onset_table),
              "Per architecture: when each hidden-layer organization appears under standard init", digits=6)

# %% [markdown]
# Iterations; a dash marks a grouping whose mean ARI never reaches 0.5 in the run. In the
# {glue:text}`other_architecture` architecture, the $t=0$ eNTK (authors' variant) has a mean
# silhouette of {glue:text}`other_sil_std` (standard) and {glue:text}`other_sil_large` (large)
# over {glue:text}`other_n_pairs` pairs; $\eta^2$ of its loadings by factor (standard / large):
# {glue:text}`other_eta_by_factor`.
#
# ## What we found
#
# * **The t=0 eNTK is the output error.** Derived above and verified over
#   {glue:text}`n_entk_pairs_text` pairs: at standard init the loss sensitivities alone
#   explain {glue:text}`share_authors_epsilon_std` of the variance of the leading eNTK
#   vectors (the targets alone {glue:text}`share_authors_targets_std`, the plain NTK
#   {glue:text}`share_authors_ntk_std`); at large init the output error $\epsilon\odot\sigma'$
#   explains {glue:text}`share_authors_output_error_large`. The paper's structure — clustered
#   at standard init (silhouette {glue:text}`sil_entk_authors_std`), much less at large
#   init ({glue:text}`sil_entk_authors_large`) — is reproduced by the output error without
#   any kernel ({glue:text}`sil_output_error_std` and {glue:text}`sil_output_error_large`).
#   The eNTK's leading vector says which outputs are wrong for which patterns at $t=0$, which
#   the targets and the initial outputs already say.
# * **Fig 8's structure, quantified.** By the feature position the standard-init loadings
#   have $\eta^2 =$ {glue:text}`eta_entk_authors_feature_std` against
#   {glue:text}`eta_entk_authors_feature_large` at large init; by the task's output pool
#   {glue:text}`eta_entk_authors_output_pool_std` vs {glue:text}`eta_entk_authors_output_pool_large`;
#   by the target output unit {glue:text}`eta_entk_authors_target_output_unit_std` vs
#   {glue:text}`eta_entk_authors_target_output_unit_large`. Standard init is more structured
#   with a 95% interval excluding zero in {glue:text}`eta_n_structured` comparisons (both
#   variants; they differ by at most {glue:text}`eta_variant_gap` in $\eta^2$). Per weight draw,
#   averaged over feature position and output pool, standard minus large is
#   {glue:text}`entk_large_diff` (95% interval {glue:text}`entk_large_ci`; verdict on the paper's
#   "large init: not clustered", read as less clustered than standard init:
#   {glue:text}`entk_large_verdict`). Less structured is not unstructured:
#   {glue:text}`null_large_structured` of the large-init networks are structured beyond a
#   shuffled-label null.
# * **Partitions derived from the eNTK.** For the input units, each network's eNTK gives the
#   feature-position partition ({glue:text}`agree_input_feature_standard` standard-init
#   networks); for the tasks it gives the **output-pool** partition
#   ({glue:text}`agree_task_output_pool_standard`), never the input-pool partition the paper
#   scores against ({glue:text}`agree_task_input_pool_standard`). The kernel-free control
#   $\epsilon\odot\sigma'$ yields the same partition in {glue:text}`agree_task_control_standard`
#   (tasks) and {glue:text}`agree_input_control_standard` (input units) standard-init networks.
# * **Hidden layer.** Against the reference input-pool partition the task grouping ends at
#   ARI {glue:text}`ari_final_std_task_vs_input_pool` (standard) and
#   {glue:text}`ari_final_large_task_vs_input_pool` (large): the paper's "complete match" holds
#   for the partition it wrote down. Against the eNTK-derived partition it ends at
#   {glue:text}`ari_final_std_task_vs_eNTK-derived`, after peaking at
#   {glue:text}`ari_peak_std_task_vs_eNTK-derived` at iteration
#   {glue:text}`ari_peak_at_std_task_vs_eNTK-derived`: what the $t=0$ eNTK shows (output pools)
#   is the hidden layer's early organization, not its final one. The input grouping peaks at
#   {glue:text}`ari_peak_std_input_vs_feature` and ends at
#   {glue:text}`ari_final_std_input_vs_feature`, as the paper describes.
# * **Order of organization.** In the {glue:text}`arch_main` network the tasks first reach
#   ARI 0.5 against output pools at iteration {glue:text}`onset_main_out` and against input
#   pools at {glue:text}`onset_main_task`; in the swapped architecture at
#   {glue:text}`onset_other_out` and {glue:text}`onset_other_task`. (The task x input
#   groups' early clusters follow the feature position rather than the output pool; see the
#   table.) There, too, the eNTK at standard init is the loss
#   sensitivity ({glue:text}`other_share_epsilon_std` of its variance) and gives the
#   output-pool partition of the tasks in {glue:text}`other_task_output_pool` networks.
# * **Distances.** Tasks sharing an input pool end at {glue:text}`dist_same_input_pool_std`
#   of the distance of unrelated tasks at standard init and {glue:text}`dist_same_input_pool_large`
#   at large init; sharing an output pool, {glue:text}`dist_same_output_pool_std` and
#   {glue:text}`dist_same_output_pool_large`.

# %% tags=["remove-cell"]
measures = representation_report.RepresentationMeasures(
    architecture, other, n_entk_pairs, ari, distance_ratios, shares, agreement.counts, onset_table, eta.by_name,
    report.structured_by_seed(env, t0.structure, t0.loadings, n_entk_pairs, n_permutations), show_swapped_architecture)
summary.record("04_multitask_representations", run_parameters, representation_report.claim_rows(measures, entk_large))
