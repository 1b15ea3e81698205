# ---
# jupyter:
#   chapter:
#     figures: 6
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
# back to the eNTK at $t=0$. Here we compute it for the multitask network itself, for
# standard and large init under both schedules, and ask three questions the $t=0$ kernel
# cannot answer: *when* does the $t=0$ structure stop describing the learning (the
# Discussion's "time window of prediction"), *how much* of what a network learned for one
# task came from training patterns of other tasks (sharing, measured from the kernel), and
# does the ePNTK predict the representation the network ends up with?
#
# **How it is computed.** The ePNTK $P_k(x_n, x_m; t) = -\eta \sum_{s<t} K_k(x_n, x_m; \theta_s)$
# is accumulated inside the training scan (`lib.experiments.kernel_dynamics.stream_epntk`): the memory
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
# **Parameters**
#
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
from lib.experiments.kernel_dynamics import check_notebook_parameters

ARCHITECTURES = {"4x3": (4, 3, 3), "3x4": (3, 4, 3)}
plan = check_notebook_parameters(architecture, ARCHITECTURES, n_pairs, first_seeds, iterations, n_snapshots,
                                 node_every, path_kernel, n_points, n_rows, check_rows, check_iterations, n_halvings,
                                 convergence_iterations, window_threshold, index_set)

# %% tags=["hide-input", "remove-stderr"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown
from myst_nb import glue

from lib.analyses import kernel_analysis as ka
from lib.experiments import kernel_dynamics as kd
from lib.book import plotting
from lib.core import results
from lib.analyses.entk_vectors import loglog_slope
from lib.experiments.schedules import get_schedule
from lib.core.models import INITS
from lib.core.tasks import TaskEnvironment

env = TaskEnvironment(*ARCHITECTURES[architecture])
SET = kd.INDEX_SETS.index(index_set)
runs, wall = {}, {}
for name, (seeds, n_it, phases, *_) in plan.items():
    runs[name] = kd.cached_kernel_dynamics(env, name, seeds, n_it, n_snapshots, phases, path_kernel, n_points, n_rows)
    key = kd.kernel_dynamics_parameters(env, name, seeds, n_it, n_snapshots, phases, path_kernel, n_points, n_rows)
    wall[name] = results.metadata_of("kernel_dynamics", key)["wall_time_s"]
    nodes = sum((until - start) // s for (until, s), start in zip(phases, [0] + [u for u, _ in phases[:-1]]))
    print(f"{name}: {len(seeds)} pairs, {n_it} iterations, kernel at {nodes} nodes per network "
          f"({n_it / nodes:.1f} iterations per node); computed in {wall[name]:.0f} s")
iterations_of = {name: run["iterations"] for name, run in runs.items()}
glue("kd_wall_total", f"{sum(wall.values()) / 60:.1f} minutes", display=False)
glue("kd_n_networks", f"{2 * n_pairs}", display=False)
glue("kd_rows", "all 500 training and 500 test inputs" if n_rows is None
     else f"{n_rows // 2} training and {n_rows - n_rows // 2} test inputs", display=False)

# %% [markdown]
# The ePNTKs of {glue:text}`kd_n_networks` networks per schedule, with kernel rows over
# {glue:text}`kd_rows`, took {glue:text}`kd_wall_total` on this machine's CPU when first
# computed; they are read from the results cache afterwards.
#
# ## Validation: does the ePNTK reproduce what the network learned?
#
# Summed over the training patterns, the ePNTK must reproduce the change of every output
# since initialization, $\sum_m P_k(x_n, x_m; t) = y_k(x_n, t) - y_k(x_n, 0)$, on training and
# test inputs alike. One pair per schedule (the first) is trained three more times on
# fewer rows (they do not change the trajectory): with the paper's every-step eNTK sum, with
# the every-step step-integrated sum, and with the latter under the time quadrature.

# %% tags=["hide-input", "remove-stderr"]
checks = {name: kd.cached_validation_runs(env, name, seeds[0], check_phases, n_check, check_snapshots, n_points,
                                          check_rows)
          for name, (seeds, _, _, n_check, check_phases, check_snapshots) in plan.items()}
variants = {"euler": "eNTK sum (paper), every step", "step": "step-integrated, every step",
            "step_quadrature": "step-integrated, quadrature"}
rows = []
for name, check in checks.items():
    for variant, label in variants.items():
        errors = check[f"reconstruction_error/{variant}"]  # (2 inits, S, 2 sets)
        for i, init in enumerate(INITS):
            rows.append({"schedule": name, "init": init, "ePNTK": label,
                         "max error, training inputs": np.nanmax(errors[i, :, 0]),
                         "max error, test inputs": np.nanmax(errors[i, :, 1]),
                         "error at the end, test inputs": errors[i, -1, 1]})
    for i, init in enumerate(INITS):
        rows.append({"schedule": name, "init": init, "ePNTK": "bulk runs (all pairs): " + variants[
            "step" if path_kernel == "step" else "euler"].split(",")[0] + ", quadrature",
                     "max error, training inputs": np.nanmax(runs[name]["reconstruction_error"][:, i, :, 0]),
                     "max error, test inputs": np.nanmax(runs[name]["reconstruction_error"][:, i, :, 1]),
                     "error at the end, test inputs": np.nanmean(runs[name]["reconstruction_error"][:, i, -1, 1])})
reconstruction = pd.DataFrame(rows)
by = reconstruction.set_index(["schedule", "init", "ePNTK"])
for name in checks:
    for init in INITS:
        for variant, label in variants.items():
            glue(f"kd_recon_{variant}_{name}_{init}", f"{by.loc[(name, init, label), 'max error, test inputs']:.2%}",
                 display=False)
worst_step = reconstruction[reconstruction.ePNTK == variants["step"]][["max error, training inputs",
                                                                      "max error, test inputs"]].to_numpy().max()
glue("kd_recon_step_worst", f"{worst_step:.1e}", display=False)
bulk = reconstruction[reconstruction.ePNTK.str.startswith("bulk")]
glue("kd_recon_bulk_worst", f"{bulk[['max error, training inputs', 'max error, test inputs']].to_numpy().max():.2%}",
     display=False)
reconstruction.style.format({c: "{:.2e}" for c in reconstruction.columns[3:]}).hide(axis="index")

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-kd-reconstruction", "caption": "Beyond the paper: relative error of the ePNTK's reconstruction of y(t) - y(0) on the test inputs over training, for the first pair of each schedule (standard init blue, large init orange): the paper's every-step eNTK sum (solid), the every-step step-integrated sum (dashed) and the step-integrated sum under the time quadrature (dotted). The paper's sum is first order in the learning rate; the step-integrated sum is exact up to the quadrature along each step and float32 round-off."}}
panels = {f"{name} (first {check['iterations'][-1]} iterations)": (
    check["iterations"], {label: check[f"reconstruction_error/{variant}"][:, :, 1] for variant, label in variants.items()})
    for name, check in checks.items()}
plotting.plot_reconstruction_errors(panels)
plt.tight_layout()
plt.show()

# %% [markdown]
# Largest relative error of the paper's every-step sum on the test outputs: ET
# {glue:text}`kd_recon_euler_ET_standard` (standard init) and
# {glue:text}`kd_recon_euler_ET_large` (large init), LR {glue:text}`kd_recon_euler_LR_standard`
# and {glue:text}`kd_recon_euler_LR_large`. The step-integrated sum reproduces the change to
# {glue:text}`kd_recon_step_worst` at worst, and with the time quadrature, over the full
# runs of all pairs, to {glue:text}`kd_recon_bulk_worst`.
#
# ### First-order convergence of the paper's sum
#
# As chapter 03 does for the linear network: halving the learning rate while doubling the
# steps ($\eta t$ fixed at the schedule's $\eta$ times `convergence_iterations`) should halve
# the error of the every-step eNTK sum once the steps are in the linear regime.

# %% tags=["hide-input", "remove-stderr"]
convergence = {name: kd.cached_convergence(env, name, seeds[0], n_halvings, convergence_iterations, check_rows)
               for name, (seeds, *_) in plan.items()}
rows, slopes = [], {}
for name, conv in convergence.items():
    for i, init in enumerate(INITS):
        for s, set_name in enumerate(("training", "test")):
            errors = conv["reconstruction_error"][i, :, s]
            slope_all = loglog_slope(conv["learning_rate"][i], errors)
            slope_last = loglog_slope(conv["learning_rate"][i][-2:], errors[-2:])
            slopes[(name, init, set_name)] = (slope_all, slope_last)
            rows.append({"schedule": name, "init": init, "inputs": set_name,
                         **{f"lr = {lr:.5f}": e for lr, e in zip(conv["learning_rate"][i], errors)},
                         "order (all halvings)": slope_all, "order (last halving)": slope_last})
convergence_table = pd.DataFrame(rows)
last_orders = np.array([v[1] for v in slopes.values()])
glue("kd_order_min", f"{last_orders.min():.2f}", display=False)
glue("kd_order_max", f"{last_orders.max():.2f}", display=False)
for (name, init, set_name), (s_all, s_last) in slopes.items():
    glue(f"kd_order_{name}_{init}_{set_name}", f"{s_all:.2f}", display=False)
convergence_table.style.format(precision=3).hide(axis="index")

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-kd-convergence", "caption": "Beyond the paper: relative error of the paper's every-step eNTK sum in reconstructing y(t) - y(0), against the learning rate at fixed learning rate x steps (standard init blue, large orange; training inputs solid, test inputs dashed), with first-order guides (grey)."}}
panels = {f"{name}: lr x t = {get_schedule(name).learning_rate('standard') * convergence_iterations:g} (standard), "
          f"{get_schedule(name).learning_rate('large') * convergence_iterations:g} (large)":
          {f"{init}, {set_name} inputs": (conv["learning_rate"][i], conv["reconstruction_error"][i, :, s])
           for i, init in enumerate(INITS) for s, set_name in enumerate(("training", "test"))}
          for name, conv in convergence.items()}
plotting.plot_epntk_convergence(panels)
plt.tight_layout()
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
rows = []
for name, check in checks.items():
    for i, init in enumerate(INITS):
        rows.append({"schedule": name, "init": init,
                     "|P_quadrature - P_every step| / |P_every step|": check["path_difference/step_quadrature"][i],
                     "largest difference of a share of |change|": check["sharing_abs_difference"][i],
                     "largest difference of a signed share": check["sharing_signed_difference"][i],
                     "largest difference of an alignment": check["alignment_difference"][i],
                     "|P_paper - P_step| / |P_step|": check["path_difference/euler"][i]})
quadrature_table = pd.DataFrame(rows)
glue("kd_quadrature_path_max", f"{quadrature_table.iloc[:, 2].max():.2%}", display=False)
glue("kd_quadrature_share_max", f"{quadrature_table.iloc[:, 3].max():.3f}", display=False)
glue("kd_euler_vs_step_max", f"{quadrature_table.iloc[:, -1].max():.1%}", display=False)
quadrature_table.style.format(precision=4).hide(axis="index")

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

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-kd-window", "caption": "Beyond the paper: similarity of the eNTK over training to the eNTK at t=0 and to the final ePNTK (alignment, leading-vector overlap), and of the ePNTK so far to the t=0 eNTK, for standard (blue) and large (orange) init under both schedules; mean over outputs, mean +- sd over pairs. Dotted: the threshold used in the table below."}}
measures = {"alignment\neNTK(t), eNTK(0)": "alignment_initial",
            "vector overlap\neNTK(t), eNTK(0)": "overlap_initial",
            "alignment\neNTK(t), final ePNTK": "alignment_final",
            "vector overlap\neNTK(t), final ePNTK": "overlap_final",
            "alignment\nePNTK so far, eNTK(0)": "alignment_path_initial"}
plotting.plot_kernel_similarity_over_training(
    iterations_of, {title: {name: run[key][:, :, :, SET].mean(axis=-1) for name, run in runs.items()}
                    for title, key in measures.items()}, window_threshold)
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
window = ka.window_table(runs, index_set, window_threshold)
glue("kd_threshold", f"{window_threshold:g}", display=False)
glue("kd_index_set", index_set, display=False)
for name, run in runs.items():
    for i, init in enumerate(INITS):
        glue(f"kd_align_final_t0_{name}_{init}", f"{np.nanmean(run['alignment_final'][:, i, 0, SET]):.2f}",
             display=False)
window[[c for c in window if not c.startswith("_")]].style.hide(axis="index")

# %% [markdown]
# The table gives, per schedule and init, the first snapshot at which each similarity to the
# $t=0$ kernel (mean over outputs) falls below {glue:text}`kd_threshold`; the median over
# pairs. The alignment of the $t=0$ eNTK with the *final* ePNTK — how much of all learning the
# $t=0$ kernel describes — is {glue:text}`kd_align_final_t0_ET_standard` (ET, standard),
# {glue:text}`kd_align_final_t0_ET_large` (ET, large), {glue:text}`kd_align_final_t0_LR_standard`
# (LR, standard) and {glue:text}`kd_align_final_t0_LR_large` (LR, large).
#
# ## Sharing: where does the learned change come from?
#
# The ePNTK splits the learned change of every output of every test pattern into the
# contributions of the training patterns, $y_k(x_n, t) - y_k(x_n, 0) = \sum_m P_k(x_n, x_m; t)$.
# Grouping the training patterns by how their task relates to the test pattern's task — the
# same task; another task reading the same input pool; another task writing the same output
# pool; neither — measures the paper's shared-versus-separated claim from the kernel itself.
# The share of a category is its part of $\sum_{k,n} |C_c|$; the per-pattern ratio divides it
# by the category's share of the training patterns (1: its patterns contribute like average
# patterns). The signed share $\sum_{k,n} C_c \Delta y / \sum \Delta y^2$ (summing to 1) is in
# the table too: categories can push against each other.

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-kd-sharing", "caption": "Beyond the paper: share of each category of training patterns in the magnitude of the learned change of the test outputs over training (mean over pairs), standard init (top) and large init (bottom), both schedules. Dotted lines: the categories' shares of the training patterns, the split expected if every pattern contributed alike."}}
fractions = {name: run["sharing_pattern_fraction"][:, :, 1].mean(axis=(0, 1)) for name, run in runs.items()}
plotting.plot_sharing_over_training(iterations_of, {name: run["sharing_abs"][:, :, :, 1] for name, run in runs.items()},
                                    kd.SHARING_CATEGORIES, fractions)
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
rows = []
for name, run in runs.items():
    for i, init in enumerate(INITS):
        shares_abs = run["sharing_abs"][:, i, -1, 1]  # (P, C), test inputs, end of training
        shares_signed = run["sharing_signed"][:, i, -1, 1]
        fraction = run["sharing_pattern_fraction"][:, i, 1]
        for c, category in enumerate(kd.SHARING_CATEGORIES):
            rows.append({"schedule": name, "init": init, "training patterns": category,
                         "share of the patterns": fraction[:, c].mean(),
                         "share of |change|": ka.mean_sd(shares_abs[:, c]),
                         "per-pattern ratio": ka.mean_sd(shares_abs[:, c] / fraction[:, c]),
                         "signed share": ka.mean_sd(shares_signed[:, c]),
                         "_abs": shares_abs[:, c].mean(), "_ratio": (shares_abs[:, c] / fraction[:, c]).mean()})
sharing = pd.DataFrame(rows)
shared = sharing.set_index(["schedule", "init", "training patterns"])
sharing[[c for c in sharing if not c.startswith("_")]].style.format({"share of the patterns": "{:.3f}"}).hide(
    axis="index")

# %% [markdown]
# ## Does the ePNTK predict the learned representation?
#
# A kernel implies a similarity between tasks in two ways. On the *training-pattern side*
# (the side of the paper's loadings): the mean kernel column of a task's training patterns,
# how learning on them moved every output of every evaluated pattern; two tasks are similar
# if their patterns' loss gradients move the network's function alike. On the
# *evaluated-pattern side*: the mean kernel row of a task's evaluated patterns, how their
# outputs were moved by learning on every training pattern. Profiles are compared between
# tasks by cosine after centering over tasks. The trained network's hidden layer gives the
# similarity to predict: its task-mean activity, compared the same way. Agreement is measured
# by representational similarity (Spearman correlation over the 66 task pairs) and by
# clusters (k-means on both, 3 and 4 clusters, adjusted Rand index), for the final ePNTK, for
# the $t=0$ eNTK alone, and, as a control, for the hidden layer at initialization.

# %% tags=["hide-input"]
agreement = {name: ka.representation_agreement(run, index_set) for name, run in runs.items()}
rows, rsa_gain = [], {}
for name, values in agreement.items():
    for i, init in enumerate(INITS):
        for predictor in ka.PREDICTORS:
            rows.append({"schedule": name, "init": init, "predictor": predictor,
                         **{metric: ka.mean_sd(values[f"{metric}/{predictor}"][:, i])
                            for metric in ("rsa", "ari3", "ari4")},
                         "_rsa": np.nanmean(values[f"rsa/{predictor}"][:, i])})
        difference = (values["rsa/final ePNTK, training-pattern side"][:, i]
                      - values["rsa/t=0 eNTK, training-pattern side"][:, i])
        rsa_gain.setdefault(name, {})[init] = ka.paired_interval(difference)
representation = pd.DataFrame(rows).rename(columns={"rsa": "RSA", "ari3": "ARI, 3 clusters", "ari4": "ARI, 4 clusters"})
representation[[c for c in representation if not c.startswith("_")]].style.hide(axis="index")

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-kd-rsa", "caption": "Beyond the paper: representational similarity (Spearman) between the hidden layer's task similarity at each snapshot and the task similarity implied (training-pattern side) by the ePNTK accumulated so far (solid) or by the t=0 eNTK (dashed), standard (blue) and large (orange) init; mean +- sd over pairs."}}
plotting.plot_rsa_over_training(iterations_of, {name: ka.rsa_over_training(run, index_set, "columns")
                                                for name, run in runs.items()})
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-kd-similarity", "caption": "Beyond the paper: task x task similarity (cosine after centering over tasks) of the first ET pair: implied by the final ePNTK and by the t=0 eNTK (training-pattern side), and of the trained hidden layer, for standard init (top) and large init (bottom). Task labels: index (input pool->output pool)."}}
first = runs["ET"]
panels = {}
for i, init in enumerate(INITS):
    for title, predictor in (("final ePNTK", "final ePNTK, training-pattern side"),
                             ("t=0 eNTK", "t=0 eNTK, training-pattern side")):
        features = ka.predictor_features(first, predictor, index_set)[0, i]
        panels[f"{init}: {title}"] = kd.centered_cosine_similarity(features)
    panels[f"{init}: trained hidden layer"] = kd.centered_cosine_similarity(first["hidden_final"][0, i, SET])
plotting.plot_task_similarity_matrices(panels, [f"{k} ({env.task_in_pool(k)}->{env.task_out_pool(k)})"
                                                for k in range(env.n_tasks)])
plt.show()

# %% [markdown]
# ## What we found

# %% tags=["remove-cell"]
def share(name, init, category):
    return shared.loc[(name, init, category), "_abs"]


def ratio(name, init, category):
    return shared.loc[(name, init, category), "_ratio"]


def window_text(name, init, slug="align"):
    """'at iteration N (x% of training)' or 'never during training' (median over pairs)."""
    r = window[(window.schedule == name) & (window.init == init)].iloc[
        ["align", "overlap", "path"].index(slug)]
    return "never during training" if np.isnan(r["_median"]) else f"at iteration {r['_median']:.0f} ({r['_fraction']:.0%})"


def rsa_of(name, init, predictor):
    return representation[(representation.schedule == name) & (representation.init == init)
                          & (representation.predictor == predictor)]["_rsa"].iloc[0]


lines = []
euler_worst = reconstruction[reconstruction.ePNTK == variants["euler"]]["max error, test inputs"]
first_order = bool((last_orders > 0.8).all() and (last_orders < 1.2).all())
lines.append(
    f"* **Reconstruction.** The paper's every-step eNTK sum misses the learned change of the test outputs by "
    f"{euler_worst.min():.1%} to {euler_worst.max():.1%} (first pair of each schedule and init); at fixed learning "
    f"rate x steps its error falls with order {last_orders.min():.2f} to {last_orders.max():.2f} over the last "
    f"halving of the learning rate" + (", first order as expected of a forward-Euler sum." if first_order else
                                       ", not yet the first order expected of a forward-Euler sum.")
    + f" Integrating the output gradient along each discrete step reproduces the change to {worst_step:.0e}, and "
    f"the time quadrature keeps it within "
    f"{bulk[['max error, training inputs', 'max error, test inputs']].to_numpy().max():.1%} over all runs.")
for name in runs:
    lines.append(
        f"* **Time window, {name}.** The eNTK's alignment with its t=0 value (mean over outputs) first falls below "
        f"{window_threshold:g} {window_text(name, 'standard')} for standard init and "
        f"{window_text(name, 'large')} for large init (median over pairs); the leading-vector overlap falls below "
        f"it {window_text(name, 'standard', 'overlap')} for standard and {window_text(name, 'large', 'overlap')} "
        f"for large init; the alignment of everything learned so far (the ePNTK) with the t=0 eNTK "
        f"{window_text(name, 'standard', 'path')} for standard and {window_text(name, 'large', 'path')} for "
        f"large init.")
for name in runs:
    same_std, same_large = share(name, "standard", "same task"), share(name, "large", "same task")
    other_std = 1 - same_std
    other_large = 1 - same_large
    lines.append(
        f"* **Sharing, {name}.** At the end of training, training patterns of *other* tasks account for "
        f"{other_std:.0%} of the magnitude of the learned change of a test pattern's outputs with standard init and "
        f"{other_large:.0%} with large init; a pattern of the same task contributes {ratio(name, 'standard', 'same task'):.1f}x "
        f"(standard) and {ratio(name, 'large', 'same task'):.1f}x (large) an average pattern's share. "
        + ("Large init relies more on its own task's patterns, as separated representations would."
           if same_large > same_std else
           "Standard init relies at least as much on its own task's patterns as large init: the kernel does not "
           "show the paper's shared-versus-separated contrast in this measure."))
for name in runs:
    lines.append(
        f"* **Representation, {name}.** The task similarity implied by the final ePNTK (training-pattern side) "
        f"correlates with that of the trained hidden layer at RSA "
        f"{rsa_of(name, 'standard', 'final ePNTK, training-pattern side'):.2f} (standard) and "
        f"{rsa_of(name, 'large', 'final ePNTK, training-pattern side'):.2f} (large), against "
        f"{rsa_of(name, 'standard', 't=0 eNTK, training-pattern side'):.2f} and "
        f"{rsa_of(name, 'large', 't=0 eNTK, training-pattern side'):.2f} for the t=0 eNTK and "
        f"{rsa_of(name, 'standard', 'hidden layer at t=0 (control)'):.2f} and "
        f"{rsa_of(name, 'large', 'hidden layer at t=0 (control)'):.2f} for the untrained hidden layer (mean over pairs). "
        + " ".join(f"For {init} init the final ePNTK's RSA minus the t=0 eNTK's is {gain[0]:+.2f} "
                   f"[95% CI {gain[1]:+.2f}, {gain[2]:+.2f}]"
                   + (": the ePNTK predicts the learned similarity better." if gain[1] > 0 else
                      ": the t=0 eNTK predicts it better." if gain[2] < 0 else ": no clear difference.")
                   for init, gain in rsa_gain[name].items()))
findings = "\n".join(lines)
glue("kd_findings", Markdown(findings), display=False)

# %% [markdown]
# ```{glue:md} kd_findings
# :format: myst
# ```
#
# All numbers above are computed from the saved results of this chapter's runs (rows of the
# kernels: the {glue:text}`kd_index_set` index set in the time-window and representation
# sections, test inputs in the sharing section).

# %% tags=["remove-cell"]
from lib.book import summary

summary.record("08_entk_over_training", dict(architecture=architecture, n_pairs=n_pairs, iterations=iterations,
                                             n_snapshots=n_snapshots, path_kernel=path_kernel, n_rows=n_rows), [
    summary.row("ePNTK (paper's eNTK sum) reconstruction of y(t) - y(0), multitask net: largest relative error",
                "'extremely compute and memory intensive' (not computed)", f"{euler_worst.max():.1%}", None,
                "new: first pair of each schedule, test inputs"),
    summary.row("ePNTK reconstruction: order of convergence in the learning rate (last halving)", "-",
                f"{last_orders.min():.2f} to {last_orders.max():.2f}",
                bool((last_orders > 0.8).all() and (last_orders < 1.2).all()),
                "first order (forward Euler): every order in [0.8, 1.2]"),
    summary.row("step-integrated ePNTK with time quadrature: largest reconstruction error over all runs", "-",
                f"{bulk[['max error, training inputs', 'max error, test inputs']].to_numpy().max():.2%}", None, "new"),
    *[summary.row(f"share of the learned change of test outputs from the same task's patterns, {name}, "
                  "standard vs large", "large init separated, standard shared (Sec 4)",
                  f"{share(name, 'standard', 'same task'):.0%} vs {share(name, 'large', 'same task'):.0%}",
                  share(name, "large", "same task") > share(name, "standard", "same task"),
                  "large init's same-task share above standard init's") for name in runs],
])
