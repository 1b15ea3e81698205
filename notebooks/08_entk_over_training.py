# ---
# jupyter:
#   chapter:
#     figures: 9
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
# # Beyond the paper: the eNTK over training and the ePNTK of the multitask network
#
# The paper's central tool is the ePNTK, the eNTK integrated along training, which accounts
# for everything a network has learned. The paper computes it only for the 4-3-5 linear
# network and calls it too compute- and memory-intensive for anything larger; Secs 4-5 fall
# back to the eNTK at $t=0$. Here we compute it for the multitask network itself.
#
# :::{admonition} The answer
# :class: tip
# The paper's every-step eNTK sum misses the multitask network's learned change by up to
# {glue:text}`ch08_first_order_max_error` (verdict: **{glue:text}`kd_find_verdict`**). In ET
# training the eNTK's alignment with its $t=0$ value first falls below {glue:text}`kd_threshold`
# {glue:text}`kd_find_window_align_ET_standard` for standard and
# {glue:text}`kd_find_window_align_ET_large` for large init. Large minus standard init, the same
# task's share of the learned change is {glue:text}`kd_find_same_difference_abs_ET` by magnitude
# and {glue:text}`kd_find_same_difference_signed_ET` signed: {glue:text}`kd_find_sharing_reading_ET`.
# The final ePNTK, computed from the same run, agrees with the trained hidden layer at RSA
# {glue:text}`kd_find_rsa_epntk_ET_standard` / {glue:text}`kd_find_rsa_epntk_ET_large` (standard
# / large), the untrained hidden layer at {glue:text}`kd_find_rsa_control_ET_standard` /
# {glue:text}`kd_find_rsa_control_ET_large` ({ref}`every finding <kd-findings>`).
# :::
#
# We compute it for
# standard and large init under both schedules, and ask three questions the $t=0$ kernel
# cannot answer: *when* does the $t=0$ structure stop describing the learning (the
# Discussion's "time window of prediction"), *how much* of what a network learned for one
# task came from training patterns of other tasks (sharing, measured from the kernel), and
# how well does the ePNTK account for the representation the network ends up with? The
# final ePNTK is computed from the same run as that representation, so it can *account for*
# it, not predict it; the $t=0$ eNTK and the untrained hidden layer, known before training,
# are the predictors it is compared with.
#
# **How it is computed.** The ePNTK $P_k(x_n, x_m; t) = -\eta \sum_{s<t} K_k(x_n, x_m; \theta_s)$
# is accumulated inside the training scan (`lib.experiments.epntk_stream.stream_epntk`): the memory
# holds two $K \times N \times M$ arrays however long the run, and at each of the recorded
# snapshots only what the analyses below need is kept. Rows $n$ are training inputs (the
# principled index set) and test inputs (the authors'), columns $m$ the 500 training inputs.
# A kernel row depends only on its input and a column only on its training pattern, and
# i.i.d. sampling repeats training patterns, so the kernels are computed once per distinct
# row and column and copied to the repeats (and the gradient steps weight each distinct
# pattern by its count); `benchmarks/epntk_speed.py` compares this with the computation on
# every pattern (the same ePNTK up to float32 rounding, and its time).
#
# **Two refinements, both measured below.** (1) *The step-integrated kernel.* The paper's
# sum uses the eNTK at the start of each step and is exact only to first order in $\eta$.
# At the paper's learning rates that is not enough: the first steps from large init and an
# oscillating phase of the LR schedule's standard init are far outside the linear regime.
# The exact attribution of a discrete step $\Delta\theta = -\eta \sum_m \nabla L_m$ averages
# the output gradient *along* the step,
# $K^\text{step}_k(x_n, x_m) = \int_0^1 \nabla y_k(x_n; \theta + u\Delta\theta)\,du \cdot \nabla L_m(\theta)$
# (Gauss-Legendre in $u$), so that $\sum_m P$ reproduces $y(t) - y(0)$ exactly whatever
# the step size. (2) *Time quadrature.* Evaluating the kernel at every one of 10 000 steps for
# every network is what makes the ePNTK expensive; we evaluate it every step only through the
# fast early phase and then every $s$ steps, with the trapezoid rule of the step sum. Both are
# checked against the every-step sums.
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `architecture` | `"4x3"` (the paper's network) or `"3x4"` (App A.7.1) | `"4x3"`, `"3x4"` |
# | `n_pairs` | standard/large pairs per schedule | integer in [2, 200] |
# | `first_seeds` | first pair seed per schedule (the networks of the performance chapters) | dict `{"ET": int, "LR": int}`, disjoint ranges |
# | `iterations` | single-task training iterations per schedule | dict, multiples of 100 and of `n_snapshots - 1`, at most 100 000 |
# | `n_snapshots` | recorded snapshots, equally spaced | integer in [3, 1001] |
# | `node_every` | kernel evaluations: `[[until, s], ...]` every `s` iterations up to `until`, per schedule | dict of lists; untils multiples of the snapshot spacing, ending at `iterations`; each `s` divides the spacing |
# | `path_kernel` | `"step"` (step-integrated, exact) or `"euler"` (the paper's eNTK sum) for the analyses | `"step"`, `"euler"` |
# | `n_points` | Gauss-Legendre points along each step (`"step"`) | integer in [1, 32] (at most 256) |
# | `n_rows` | kernel rows: half training inputs, half test inputs (`None`: all 500 + 500) | integer in [48, 1000] with every task among each half, or `None` |
# | `check_rows` | kernel rows of the validation runs | integer in [2, 1000] |
# | `check_iterations` | length of the every-step validation runs per schedule | dict, multiples of the snapshot spacing |
# | `n_halvings` | learning-rate halvings in the convergence study | integer in [2, 10] |
# | `convergence_iterations` | iterations at the schedule's learning rate in the convergence study ($\eta t$ fixed) | integer in [1, 10 000], and `convergence_iterations` $\times (2^{n_\text{halvings}} - 1) \le$ 100 000 |
# | `window_threshold` | similarity below which the $t=0$ kernel no longer describes the kernel | number in (0, 1) |
# | `index_set` | kernel rows analysed in the time-window and representation sections | `"principled"`, `"authors"` |
# :::
#
# The maxima above, and a total of $5 \times 10^8$ for the kernel work of the ePNTK runs (networks $\times$
# (kernel nodes + snapshots) $\times$ rows $\times$ `n_points`; the defaults: $1.8 \times 10^7$), keep a run within
# hours; larger runs need `--allow-large` (`python -m lib.book.runner`), except where the computation itself
# breaks (256 points, 1000 rows, $2^{31}$ steps).

# %% tags=["parameters"]
architecture = "4x3"
n_pairs = 5
first_seeds = {"ET": 0, "LR": 100}
iterations = {"ET": 10000, "LR": 2500}
n_snapshots = 51
node_every = {"ET": [[200, 1], [600, 5], [2000, 20], [10000, 100]], "LR": [[400, 1], [1000, 5], [2500, 25]]}
path_kernel = "step"
n_points = 8
n_rows = 200
check_rows = 60
check_iterations = {"ET": 1000, "LR": 1000}
n_halvings = 6
convergence_iterations = 50
window_threshold = 0.5
index_set = "principled"

# %% tags=["remove-cell"]
from lib.book import check_chapter

plan = check_chapter("08_entk_over_training", globals())

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
from IPython.display import display

from lib.book import (ARCHITECTURES, attribution, entk_chapter as chapter, entk_findings as findings,
                      entk_panels as panels, entk_report as report, glue_texts, kernel_analysis as ka,
                      plot_attribution, plot_entk_over_training, reading_table, summary, TaskEnvironment, visible)

env = TaskEnvironment(*ARCHITECTURES[architecture])
runs, wall = chapter.kernel_dynamics_runs(env, plan, n_snapshots, path_kernel, n_points, n_rows)
glue_texts(chapter.run_texts(plan, wall, n_pairs, n_rows))

# %% [markdown]
# The ePNTKs of {glue:text}`kd_n_networks` networks per schedule, with kernel rows over
# {glue:text}`kd_rows`, took {glue:text}`kd_wall_total` on this machine's CPU when first
# computed ({glue:text}`kd_run_sizes`); they are read from the results cache afterwards.
#
# ## Validation: does the ePNTK reproduce what the network learned?
#
# Summed over the training patterns, the ePNTK must reproduce the change of every output
# since initialization, $\sum_m P_k(x_n, x_m; t) = y_k(x_n, t) - y_k(x_n, 0)$, on training and
# test inputs alike. One pair per schedule (the first) is trained three more times on
# fewer rows (they do not change the trajectory): with the paper's every-step eNTK sum, with
# the every-step step-integrated sum, and with the latter under the time quadrature.
#
# That identity cannot tell whether the weights followed gradient descent: the ePNTK
# reproduces whatever path they take. So before a run is cached, its networks' loss on the
# training rows at every snapshot must equal that of the same networks trained by the book's
# training engine (`lib.core.training`, code independent of the stream's) to a relative
# {glue:text}`kd_training_agreement`; a run that departs stops with an error and is never
# cached or shown ({func}`~lib.experiments.kernel_dynamics.check_training`).

# %% tags=["hide-input"]
validation = chapter.validation(env, plan, runs, path_kernel, n_points, check_rows)
glue_texts(report.reconstruction_texts(validation.reconstruction, validation.first_order, validation.check_length))
reading_table(report.reconstruction_shown(validation.reconstruction),
              "Reconstruction error of the learned change, per schedule, init and ePNTK sum")

# %% mystnb={"figure": {"caption": "Beyond the paper: relative error of the ePNTK's reconstruction of y(t) - y(0) on the test inputs over training, for the first pair of each schedule (standard init blue, large init orange): the paper's every-step eNTK sum (solid), the every-step step-integrated sum (dashed) and the step-integrated sum under the time quadrature (dotted). The paper's sum is first order in the learning rate; the step-integrated sum is exact up to the quadrature along each step and float32 round-off.", "name": "fig-kd-reconstruction"}} tags=["hide-input"]
plot_entk_over_training.plot_reconstruction_errors(panels.reconstruction_panels(validation.checks))
plt.show()

# %% [markdown]
# Largest relative error of the paper's every-step sum on the test outputs: ET
# {glue:text}`kd_recon_euler_ET_standard` (standard init) and
# {glue:text}`kd_recon_euler_ET_large` (large init), LR {glue:text}`kd_recon_euler_LR_standard`
# and {glue:text}`kd_recon_euler_LR_large`. Over the snapshots of the validation runs (the first
# {glue:text}`kd_check_length` iterations of the first pair, after t=0, where the outputs have
# not changed yet and the relative error is 0/0) and over training and test inputs,
# the largest errors are {glue:text}`kd_first_order_each`. The worst,
# {glue:text}`ch08_first_order_max_error` ({glue:text}`ch08_first_order_worst`, at iteration
# {glue:text}`kd_first_order_where`; {glue:text}`kd_first_order_end` at the end of the validation
# run), is the evidence of the verdict row on the paper's first-order sum applied to the multitask
# network (criterion: {glue:text}`kd_first_order_criterion`). The step-integrated sum
# reproduces the change to {glue:text}`kd_recon_step_worst` at worst, and with the time quadrature, over the full
# runs of all pairs, to {glue:text}`kd_recon_bulk_worst`.
#
# ### First-order convergence of the paper's sum
#
# As chapter 03 does for the linear network: halving the learning rate while doubling the
# steps ($\eta t$ fixed at the schedule's $\eta$ times `convergence_iterations`) should halve
# the error of the every-step eNTK sum once the steps are in the linear regime.

# %% tags=["hide-input"]
convergence = chapter.convergence_study(env, plan, n_halvings, convergence_iterations, check_rows)
glue_texts(report.order_texts(convergence.slopes))
reading_table(convergence.table, transpose=True,  # one column per run
              title="Error of the paper's eNTK sum as the learning rate halves, per schedule, init and inputs")

# %% mystnb={"figure": {"caption": "Beyond the paper: relative error of the paper's every-step eNTK sum in reconstructing y(t) - y(0), against the learning rate at fixed learning rate x steps (standard init blue, large orange; training inputs solid, test inputs dashed), with first-order guides (grey).", "name": "fig-kd-convergence"}} tags=["hide-input"]
plot_entk_over_training.plot_epntk_convergence(panels.convergence_panels(convergence.runs, convergence_iterations))
plt.show()

# %% [markdown]
# Over the last halving the order of convergence is between {glue:text}`kd_order_min` and
# {glue:text}`kd_order_max` (first order: 1); fitted over all halvings it is
# {glue:text}`kd_order_ET_standard_test` (ET, standard), {glue:text}`kd_order_ET_large_test`
# (ET, large), {glue:text}`kd_order_LR_standard_test` (LR, standard) and
# {glue:text}`kd_order_LR_large_test` (LR, large) on the test inputs; an order above 1 over
# all halvings means the largest learning rates are not yet in the asymptotic regime.
#
# ### The time quadrature against the every-step sum

# %% tags=["hide-input"]
quadrature_table = report.quadrature_table(validation.checks)
glue_texts(report.quadrature_texts(quadrature_table))
reading_table(quadrature_table,
              "Time quadrature and the paper's sum against the every-step ePNTK, per schedule and init", digits=4)

# %% [markdown]
# Under the node schedule of the bulk runs the ePNTK differs from the every-step sum by at
# most {glue:text}`kd_quadrature_path_max` (relative Frobenius norm, end of the validation
# run), and the shares of the learned change analysed below by at most
# {glue:text}`kd_quadrature_share_max` (absolute).
# The paper's eNTK sum itself differs from the step-integrated one by up to
# {glue:text}`kd_euler_vs_step_max`.
#
# ## The time window of prediction
#
# How long does the $t=0$ eNTK describe the kernel that drives learning? Per output unit we
# compare the eNTK at each snapshot with the eNTK at $t=0$ (kernel alignment
# $\langle A, B\rangle_F / |A|_F |B|_F$, and the overlap $|v_k(t) \cdot v_k(0)|$ of the leading
# right singular vectors, the loadings of chapter 04), with the final ePNTK, and the ePNTK
# accumulated so far with the $t=0$ eNTK (alignment 1: everything learned so far is what the
# $t=0$ kernel predicts). Means over the 9 outputs; mean $\pm$ sd over pairs.

# %% mystnb={"figure": {"caption": "Beyond the paper: similarity of the eNTK over training to the eNTK at t=0 and to the final ePNTK (alignment, leading-vector overlap), and of the ePNTK so far to the t=0 eNTK, for standard (blue) and large (orange) init under both schedules; mean over outputs, mean +- sd over pairs. Dotted: the threshold used in the table below.", "name": "fig-kd-window"}} tags=["hide-input"]
plot_entk_over_training.plot_kernel_similarity_over_training(panels.iterations_of(runs),
                                                             panels.window_curves(runs, index_set), window_threshold)
plt.show()

# %% tags=["hide-input"]
window = ka.window_table(runs, index_set, window_threshold)
glue_texts(chapter.window_texts(runs, window_threshold, index_set))
reading_table(visible(window),
              "Median first iteration at which each similarity to the t=0 eNTK falls below the threshold")

# %% [markdown]
# The table gives, per schedule and init, the first snapshot at which each similarity to the
# $t=0$ kernel (mean over outputs) falls below {glue:text}`kd_threshold`; the median over
# pairs. The alignment of the $t=0$ eNTK with the *final* ePNTK — how much of all learning the
# $t=0$ kernel describes — is {glue:text}`kd_align_final_t0_ET_standard` (ET, standard),
# {glue:text}`kd_align_final_t0_ET_large` (ET, large), {glue:text}`kd_align_final_t0_LR_standard`
# (LR, standard) and {glue:text}`kd_align_final_t0_LR_large` (LR, large).
#
# ### Does the crossing depend on the threshold?
#
# (tab-kd-crossings)=
# The first snapshot iteration at which each similarity (mean over outputs) falls below each of
# the thresholds {glue:text}`kd_thresholds`, for every pair (in pair order; "never": not within
# the run), and for each threshold the number of pairs in which large init crosses first, both
# cross at the same snapshot, or standard init crosses first. Crossings are resolved only to the
# snapshot spacing ({glue:text}`kd_spacing` iterations): a crossing at the first snapshot means
# "by then".

# %% tags=["hide-input"]
crossings = chapter.crossings(runs, index_set)
glue_texts(chapter.crossing_setup_texts(runs))
display(*chapter.crossing_displays(crossings.table))

# %% mystnb={"figure": {"caption": "Beyond the paper: the first snapshot iteration at which each similarity to the t=0 eNTK (mean over outputs) falls below the threshold, against the threshold, one line per pair (standard init blue, large init orange, slightly offset so that equal values stay visible); pairs on the dotted 'never' line do not cross within the run. Rows: alignment of eNTK(t) with eNTK(0), overlap of their leading vectors, alignment of the ePNTK so far with eNTK(0); columns: schedules.", "name": "fig-kd-crossings"}} tags=["hide-input"]
plot_attribution.plot_crossing_thresholds(attribution.THRESHOLDS, panels.crossing_panels(crossings.times, runs),
                                          panels.run_ends(runs))
plt.show()


# %% tags=["remove-cell"]
glue_texts(findings.crossing_texts(crossings.times, crossings.dependence))

# %% [markdown]
# * ET, alignment of eNTK(t) with eNTK(0): pairs that never cross (standard/large) at each threshold
#   {glue:text}`kd_cross_ET_align_never` (whether a pair crosses at all depends on the threshold:
#   {glue:text}`kd_cross_ET_align_depends`); of the {glue:text}`kd_cross_pairs` pairs, large init crosses
#   strictly first in {glue:text}`kd_cross_ET_align_large_first` and standard init in
#   {glue:text}`kd_cross_ET_align_standard_first`, depending on the threshold (in the others both cross at
#   the same snapshot, or neither crosses).
# * ET, overlap of leading vectors, eNTK(t) vs eNTK(0): pairs that never cross (standard/large) at each threshold
#   {glue:text}`kd_cross_ET_overlap_never` (whether a pair crosses at all depends on the threshold:
#   {glue:text}`kd_cross_ET_overlap_depends`); of the {glue:text}`kd_cross_pairs` pairs, large init crosses
#   strictly first in {glue:text}`kd_cross_ET_overlap_large_first` and standard init in
#   {glue:text}`kd_cross_ET_overlap_standard_first`, depending on the threshold (in the others both cross at
#   the same snapshot, or neither crosses).
# * ET, alignment of the ePNTK so far with eNTK(0): pairs that never cross (standard/large) at each threshold
#   {glue:text}`kd_cross_ET_path_never` (whether a pair crosses at all depends on the threshold:
#   {glue:text}`kd_cross_ET_path_depends`); of the {glue:text}`kd_cross_pairs` pairs, large init crosses
#   strictly first in {glue:text}`kd_cross_ET_path_large_first` and standard init in
#   {glue:text}`kd_cross_ET_path_standard_first`, depending on the threshold (in the others both cross at
#   the same snapshot, or neither crosses).
# * LR, alignment of eNTK(t) with eNTK(0): pairs that never cross (standard/large) at each threshold
#   {glue:text}`kd_cross_LR_align_never` (whether a pair crosses at all depends on the threshold:
#   {glue:text}`kd_cross_LR_align_depends`); of the {glue:text}`kd_cross_pairs` pairs, large init crosses
#   strictly first in {glue:text}`kd_cross_LR_align_large_first` and standard init in
#   {glue:text}`kd_cross_LR_align_standard_first`, depending on the threshold (in the others both cross at
#   the same snapshot, or neither crosses).
# * LR, overlap of leading vectors, eNTK(t) vs eNTK(0): pairs that never cross (standard/large) at each threshold
#   {glue:text}`kd_cross_LR_overlap_never` (whether a pair crosses at all depends on the threshold:
#   {glue:text}`kd_cross_LR_overlap_depends`); of the {glue:text}`kd_cross_pairs` pairs, large init crosses
#   strictly first in {glue:text}`kd_cross_LR_overlap_large_first` and standard init in
#   {glue:text}`kd_cross_LR_overlap_standard_first`, depending on the threshold (in the others both cross at
#   the same snapshot, or neither crosses).
# * LR, alignment of the ePNTK so far with eNTK(0): pairs that never cross (standard/large) at each threshold
#   {glue:text}`kd_cross_LR_path_never` (whether a pair crosses at all depends on the threshold:
#   {glue:text}`kd_cross_LR_path_depends`); of the {glue:text}`kd_cross_pairs` pairs, large init crosses
#   strictly first in {glue:text}`kd_cross_LR_path_large_first` and standard init in
#   {glue:text}`kd_cross_LR_path_standard_first`, depending on the threshold (in the others both cross at
#   the same snapshot, or neither crosses).
#
# ## Sharing: where does the learned change come from?
#
# The ePNTK splits the learned change of every output of every test pattern into the
# contributions of the training patterns, $y_k(x_n, t) - y_k(x_n, 0) = \sum_m P_k(x_n, x_m; t)$.
# Grouping the training patterns by how their task relates to the test pattern's task — the
# same task; another task reading the same input pool; another task writing the same output
# pool; neither — measures the paper's shared-versus-separated claim from the kernel itself.
# Writing $C_c$ for the summed contributions of category $c$ and $\Delta y = \sum_c C_c$ for the
# change they make (the ePNTK's reconstruction, exact up to the errors validated above), two
# shares answer two questions:
#
# * the **share of |contribution|**, $\sum_{k,n} |C_c| / \sum_{c,k,n} |C_c|$, says how large a
#   category's contributions are, whatever their direction (divided by the category's share of
#   the (test pattern, training pattern) pairs it gives the per-pattern ratio; 1: its patterns
#   contribute like average patterns);
# * the **signed share**, $\sum_{k,n} C_c \Delta y / \sum_{k,n} \Delta y^2$ (summing to 1 over the
#   categories), says how much of the learned change the category makes: above 1, more than all
#   of it while other categories push against it; below 0, it pushes against the change.
#
# The two disagree where contributions cancel. The **cancellation factor**
# $\sum_{c,k,n} |C_c| / \sum_{k,n} |\Delta y|$ measures how much: 1 when no category pushes
# against another, $x$ when the categories' contributions add up to $x$ times the change they
# make; over single training patterns, $\sum_{k,n,m} |P_k(x_n, x_m)| / \sum_{k,n} |\Delta y|$.

# %% mystnb={"figure": {"caption": "Beyond the paper: share of each category of training patterns in the magnitude of the learned change of the test outputs over training (mean over pairs), standard init (top) and large init (bottom), both schedules. Dotted lines: the categories' shares of the training patterns, the split expected if every pattern contributed alike. Magnitudes only: the signed shares are in the next figure.", "name": "fig-kd-sharing"}} tags=["hide-input"]
plot_entk_over_training.plot_sharing_over_training(panels.iterations_of(runs), panels.sharing_curves(runs),
                                                   panels.SHARING_CATEGORIES, panels.sharing_fractions(runs))
plt.show()

# %% [markdown]
# (tab-kd-attribution)=
# Shares of the learned change of the test outputs at the end of training, by category of
# training patterns and for all other tasks' patterns together: mean over the
# {glue:text}`kd_n_pairs` pairs with its 95% t-interval.

# %% tags=["hide-input"]
sharing = report.sharing_table(runs)
shared = sharing.set_index(["schedule", "init", "training patterns"])
reading_table(visible(sharing),
              "End of training: shares of the learned change per category of training patterns")

# %% mystnb={"figure": {"caption": "Beyond the paper: signed share of the learned change of the test outputs (top; negative: the category pushes against the change) and share of the magnitude sum |C| (bottom; dashes: the categories' share of the patterns) per category of training patterns, at the end of training; mean over pairs with 95% t-intervals, standard (blue) and large (orange) init. 'other tasks': the three categories of other tasks together.", "name": "fig-kd-attribution"}} tags=["hide-input"]
plot_attribution.plot_signed_attribution(panels.signed_attribution_panels(shared, runs), panels.ATTRIBUTION_LABELS)
plt.show()

# %% [markdown]
# (tab-kd-cancellation)=
# Cancellation factors of the learned change of the test outputs at the end of training, per
# network: by category and by single training pattern; median and range over the networks of
# each init, and the mean with its 95% t-interval.

# %% tags=["hide-input"]
cancellation = attribution.cancellation_table(runs, "authors")
cancelled = cancellation.set_index(["schedule", "init", "sum |C| / |dy|"])
reading_table(visible(cancellation),
              "End of training: cancellation factors of the learned change, per schedule and init")

# %% mystnb={"figure": {"caption": "Beyond the paper: cancellation factor sum |C| / sum |dy| of the learned change of the test outputs over training, one line per network (standard init blue, large init orange), by category of training patterns (top) and by single training pattern (bottom), log scale; dotted: 1, no cancellation.", "name": "fig-kd-cancellation"}} tags=["hide-input"]
plot_attribution.plot_cancellation(panels.iterations_of(runs), panels.cancellation_panels(runs))
plt.show()

# %% [markdown]
# ## How well does the ePNTK account for the learned representation?
#
# A kernel implies a similarity between tasks in two ways. On the *training-pattern side*
# (the side of the paper's loadings): the mean kernel column of a task's training patterns,
# how learning on them moved every output of every evaluated pattern; two tasks are similar
# if their patterns' loss gradients move the network's function alike. On the
# *evaluated-pattern side*: the mean kernel row of a task's evaluated patterns, how their
# outputs were moved by learning on every training pattern. Profiles are compared between
# tasks by cosine after centering over tasks. The trained network's hidden layer gives the
# similarity to account for: its task-mean activity, compared the same way. Agreement is
# measured by representational similarity (Spearman correlation over the 66 task pairs) and by
# clusters (k-means on both, 3 and 4 clusters, adjusted Rand index), for the final ePNTK, for
# the $t=0$ eNTK alone, and, as a control, for the hidden layer at initialization.
#
# The final ePNTK is integrated along the very run whose trained hidden layer it is compared
# with: agreement says that it *accounts for* the learned representation, not that it predicts
# it. Only the $t=0$ eNTK and the untrained hidden layer are known before training; the paired
# contrasts below (per pair: one predictor's agreement minus another's) say whether
# integrating the kernel along training adds anything to them.

# %% tags=["hide-input"]
agreement = {name: ka.representation_agreement(run, index_set) for name, run in runs.items()}
representation = report.representation_table(agreement)
reading_table(visible(representation),
              "Agreement of each predictor's task similarity with the trained hidden layer's, per schedule and init")

# %% [markdown]
# (tab-kd-contrasts)=
# Paired contrasts between the predictors (training-pattern side for both kernels): the mean
# over pairs of one predictor's agreement with the trained hidden layer minus another's, with
# its 95% t-interval, and whether the interval lies above 0, below 0 or includes it
# ("unresolved").

# %% tags=["hide-input"]
contrasts = report.contrast_table(agreement)
contrast_of = contrasts.set_index(["schedule", "init", "metric", "contrast"])
reading_table(visible(contrasts),
              "Paired contrasts between the predictors' agreement with the trained hidden layer")

# %% mystnb={"figure": {"caption": "Beyond the paper: representational similarity (Spearman) between the hidden layer's task similarity at each snapshot and the task similarity implied (training-pattern side) by the ePNTK accumulated so far (solid) or by the t=0 eNTK (dashed), standard (blue) and large (orange) init; mean +- sd over pairs.", "name": "fig-kd-rsa"}} tags=["hide-input"]
plot_entk_over_training.plot_rsa_over_training(panels.iterations_of(runs), panels.rsa_curves(runs, index_set))
plt.show()

# %% mystnb={"figure": {"caption": "Beyond the paper: task x task similarity (cosine after centering over tasks) of the first ET pair: implied by the final ePNTK and by the t=0 eNTK (training-pattern side), and of the trained hidden layer, for standard init (top) and large init (bottom). Task labels: index (input pool->output pool).", "name": "fig-kd-similarity"}} tags=["hide-input"]
plot_entk_over_training.plot_task_similarity_matrices(panels.task_similarity_panels(runs["ET"], index_set),
                                                      panels.task_labels(env))
plt.show()

# %% [markdown]
# (kd-findings)=
# ## What we found

# %% tags=["remove-cell"]
first_order_judgement = report.judge_first_order(validation.first_order)
glue_texts(report.first_order_findings(first_order_judgement, convergence.last_orders, validation.worst_step,
                                       validation.bulk_worst))
glue_texts(findings.schedule_findings(runs, window, crossings.dependence, crossings.times, shared, cancelled,
                                      representation, contrast_of))


# %% [markdown]
# * **Reconstruction.** The paper's every-step (first-order) eNTK sum misses the learned change of
#   the multitask network's outputs by up to {glue:text}`ch08_first_order_max_error`
#   ({glue:text}`ch08_first_order_worst`; largest per schedule and init, first pair, first
#   {glue:text}`kd_check_length` iterations: {glue:text}`kd_first_order_each`); at fixed learning
#   rate x steps its error falls with order {glue:text}`kd_order_min` to {glue:text}`kd_order_max`
#   over the last halving of the learning rate, {glue:text}`kd_find_order_reading`. Verdict on the
#   claim that the paper's sum accounts for the multitask network's learned change (criterion:
#   {glue:text}`kd_find_criterion`): {glue:text}`kd_find_verdict`. Integrating the output gradient
#   along each discrete step reproduces the change to {glue:text}`kd_find_step_worst`, and the time
#   quadrature keeps it within {glue:text}`kd_find_bulk_worst` over all runs; the analyses below use
#   that step-integrated ePNTK.
# * **Time window, ET.** The eNTK's alignment with its t=0 value (mean over outputs) first falls
#   below {glue:text}`kd_threshold` {glue:text}`kd_find_window_align_ET_standard` for standard
#   init and {glue:text}`kd_find_window_align_ET_large` for large init (median over pairs); the
#   leading-vector overlap falls below it {glue:text}`kd_find_window_overlap_ET_standard` for
#   standard and {glue:text}`kd_find_window_overlap_ET_large` for large init; the alignment of
#   everything learned so far (the ePNTK) with the t=0 eNTK
#   {glue:text}`kd_find_window_path_ET_standard` for standard and
#   {glue:text}`kd_find_window_path_ET_large` for large init. Between thresholds
#   {glue:text}`kd_find_threshold_low` and {glue:text}`kd_find_threshold_high`, whether a pair's
#   similarity falls below the threshold at all depends on the threshold for:
#   {glue:text}`kd_find_depends_ET` (see the crossing table). Cases (threshold, pair, measure) in
#   which standard init's similarity falls below the threshold before large init's:
#   {glue:text}`kd_find_standard_first_ET`.
# * **Time window, LR.** The eNTK's alignment with its t=0 value (mean over outputs) first falls
#   below {glue:text}`kd_threshold` {glue:text}`kd_find_window_align_LR_standard` for standard
#   init and {glue:text}`kd_find_window_align_LR_large` for large init (median over pairs); the
#   leading-vector overlap falls below it {glue:text}`kd_find_window_overlap_LR_standard` for
#   standard and {glue:text}`kd_find_window_overlap_LR_large` for large init; the alignment of
#   everything learned so far (the ePNTK) with the t=0 eNTK
#   {glue:text}`kd_find_window_path_LR_standard` for standard and
#   {glue:text}`kd_find_window_path_LR_large` for large init. Between thresholds
#   {glue:text}`kd_find_threshold_low` and {glue:text}`kd_find_threshold_high`, whether a pair's
#   similarity falls below the threshold at all depends on the threshold for:
#   {glue:text}`kd_find_depends_LR` (see the crossing table). Cases (threshold, pair, measure) in
#   which standard init's similarity falls below the threshold before large init's:
#   {glue:text}`kd_find_standard_first_LR`.
# * **Sharing, ET.** At the end of training, by magnitude, other tasks' patterns carry
#   {glue:text}`kd_find_other_abs_ET_standard` (standard init) and
#   {glue:text}`kd_find_other_abs_ET_large` (large init) of the summed |contribution| to a test
#   pattern's learned change. Their signed share of the change is
#   {glue:text}`kd_find_other_signed_ET_standard` (standard) and
#   {glue:text}`kd_find_other_signed_ET_large` (large; mean [95% CI] over pairs), the same task's
#   {glue:text}`kd_find_same_signed_ET_standard` and {glue:text}`kd_find_same_signed_ET_large`:
#   with standard init {glue:text}`kd_find_other_reading_ET_standard`, with large init
#   {glue:text}`kd_find_other_reading_ET_large`. The categories' contributions add up to
#   {glue:text}`kd_find_cancel_category_ET_standard`x (standard) and
#   {glue:text}`kd_find_cancel_category_ET_large`x (large) the change they make (median over
#   networks; over single training patterns {glue:text}`kd_find_cancel_pattern_ET_standard`x and
#   {glue:text}`kd_find_cancel_pattern_ET_large`x), so magnitudes say little about where the
#   change comes from. Large minus standard init, the same task's share is
#   {glue:text}`kd_find_same_difference_abs_ET` by magnitude and
#   {glue:text}`kd_find_same_difference_signed_ET` signed (paired over pairs):
#   {glue:text}`kd_find_sharing_reading_ET`.
# * **Sharing, LR.** At the end of training, by magnitude, other tasks' patterns carry
#   {glue:text}`kd_find_other_abs_LR_standard` (standard init) and
#   {glue:text}`kd_find_other_abs_LR_large` (large init) of the summed |contribution| to a test
#   pattern's learned change. Their signed share of the change is
#   {glue:text}`kd_find_other_signed_LR_standard` (standard) and
#   {glue:text}`kd_find_other_signed_LR_large` (large; mean [95% CI] over pairs), the same task's
#   {glue:text}`kd_find_same_signed_LR_standard` and {glue:text}`kd_find_same_signed_LR_large`:
#   with standard init {glue:text}`kd_find_other_reading_LR_standard`, with large init
#   {glue:text}`kd_find_other_reading_LR_large`. The categories' contributions add up to
#   {glue:text}`kd_find_cancel_category_LR_standard`x (standard) and
#   {glue:text}`kd_find_cancel_category_LR_large`x (large) the change they make (median over
#   networks; over single training patterns {glue:text}`kd_find_cancel_pattern_LR_standard`x and
#   {glue:text}`kd_find_cancel_pattern_LR_large`x), so magnitudes say little about where the
#   change comes from. Large minus standard init, the same task's share is
#   {glue:text}`kd_find_same_difference_abs_LR` by magnitude and
#   {glue:text}`kd_find_same_difference_signed_LR` signed (paired over pairs):
#   {glue:text}`kd_find_sharing_reading_LR`.
# * **Representation, ET.** The task similarity implied by the final ePNTK (training-pattern side)
#   agrees with that of the trained hidden layer at RSA {glue:text}`kd_find_rsa_epntk_ET_standard`
#   (standard) and {glue:text}`kd_find_rsa_epntk_ET_large` (large); computed from the same run, it
#   accounts for the learned representation to that degree, it does not predict it. The t=0 eNTK
#   reaches {glue:text}`kd_find_rsa_entk0_ET_standard` and {glue:text}`kd_find_rsa_entk0_ET_large`,
#   the untrained hidden layer {glue:text}`kd_find_rsa_control_ET_standard` and
#   {glue:text}`kd_find_rsa_control_ET_large` (means over pairs). Paired differences over the pairs,
#   final ePNTK minus t=0 eNTK (95% CI): for standard init {glue:text}`kd_find_gain_rsa_ET_standard`
#   (RSA; {glue:text}`kd_find_gain_direction_rsa_ET_standard`),
#   {glue:text}`kd_find_gain_ari3_ET_standard` (ARI, 3 clusters;
#   {glue:text}`kd_find_gain_direction_ari3_ET_standard`) and
#   {glue:text}`kd_find_gain_ari4_ET_standard` (ARI, 4 clusters;
#   {glue:text}`kd_find_gain_direction_ari4_ET_standard`); for large init
#   {glue:text}`kd_find_gain_rsa_ET_large` (RSA; {glue:text}`kd_find_gain_direction_rsa_ET_large`),
#   {glue:text}`kd_find_gain_ari3_ET_large` (ARI, 3 clusters;
#   {glue:text}`kd_find_gain_direction_ari3_ET_large`) and {glue:text}`kd_find_gain_ari4_ET_large`
#   (ARI, 4 clusters; {glue:text}`kd_find_gain_direction_ari4_ET_large`). Measures in which the
#   untrained hidden layer agrees with the trained one better than both kernels, with both paired
#   intervals below 0: {glue:text}`kd_find_control_resolved_ET_large` at large init,
#   {glue:text}`kd_find_control_resolved_ET_standard` at standard init; better than both in the
#   mean only: {glue:text}`kd_find_control_mean_ET_large` (large),
#   {glue:text}`kd_find_control_mean_ET_standard` (standard).
# * **Representation, LR.** The task similarity implied by the final ePNTK (training-pattern side)
#   agrees with that of the trained hidden layer at RSA {glue:text}`kd_find_rsa_epntk_LR_standard`
#   (standard) and {glue:text}`kd_find_rsa_epntk_LR_large` (large); computed from the same run, it
#   accounts for the learned representation to that degree, it does not predict it. The t=0 eNTK
#   reaches {glue:text}`kd_find_rsa_entk0_LR_standard` and {glue:text}`kd_find_rsa_entk0_LR_large`,
#   the untrained hidden layer {glue:text}`kd_find_rsa_control_LR_standard` and
#   {glue:text}`kd_find_rsa_control_LR_large` (means over pairs). Paired differences over the pairs,
#   final ePNTK minus t=0 eNTK (95% CI): for standard init {glue:text}`kd_find_gain_rsa_LR_standard`
#   (RSA; {glue:text}`kd_find_gain_direction_rsa_LR_standard`),
#   {glue:text}`kd_find_gain_ari3_LR_standard` (ARI, 3 clusters;
#   {glue:text}`kd_find_gain_direction_ari3_LR_standard`) and
#   {glue:text}`kd_find_gain_ari4_LR_standard` (ARI, 4 clusters;
#   {glue:text}`kd_find_gain_direction_ari4_LR_standard`); for large init
#   {glue:text}`kd_find_gain_rsa_LR_large` (RSA; {glue:text}`kd_find_gain_direction_rsa_LR_large`),
#   {glue:text}`kd_find_gain_ari3_LR_large` (ARI, 3 clusters;
#   {glue:text}`kd_find_gain_direction_ari3_LR_large`) and {glue:text}`kd_find_gain_ari4_LR_large`
#   (ARI, 4 clusters; {glue:text}`kd_find_gain_direction_ari4_LR_large`). Measures in which the
#   untrained hidden layer agrees with the trained one better than both kernels, with both paired
#   intervals below 0: {glue:text}`kd_find_control_resolved_LR_large` at large init,
#   {glue:text}`kd_find_control_resolved_LR_standard` at standard init; better than both in the
#   mean only: {glue:text}`kd_find_control_mean_LR_large` (large),
#   {glue:text}`kd_find_control_mean_LR_standard` (standard).
#
# All numbers above are computed from the saved results of this chapter's runs (rows of the
# kernels: the {glue:text}`kd_index_set` index set in the time-window and representation
# sections, test inputs in the sharing section).

# %% tags=["remove-cell"]
rows = report.summary_rows(runs, validation, first_order_judgement, convergence.last_orders, shared, cancelled,
                           contrast_of)
summary.record("08_entk_over_training", summary.ran_with("08_entk_over_training", globals()), rows)
