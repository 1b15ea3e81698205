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
# # The path-integrated eNTK (ePNTK)
#
# The eNTK describes one step. Summed along the whole training path it accounts for
# *everything* the network has learned (paper App A.3, after Domingos 2020). This chapter
# derives that sum, discretizes it as the paper does, and checks it on the SMG network of
# the previous chapter.
#
# ## From gradient flow to a path kernel
#
# Under gradient flow $\dot\theta = -\sum_m \partial L_m / \partial\theta$ the output for
# any input $x$ evolves as
#
# $$
# \frac{d y_k(x)}{dt} = \frac{\partial y_k(x)}{\partial\theta}\cdot\frac{d\theta}{dt}
# = -\sum_m \underbrace{\frac{\partial y_k(x)}{\partial\theta}\cdot\frac{\partial L_m}{\partial\theta}}_{K_k(x, x_m; t)},
# \qquad K_k(x, x_m; t) = \sum_l \Theta_{kl}(x, x_m; t)\, \epsilon_{ml}(t),
# $$
#
# with $\Theta$ the NTK and $\epsilon_{ml} = \partial L / \partial y_l(x_m)$ the loss
# sensitivities. Integrating from $0$ to $t$,
#
# $$
# y_k(x, t) = y_k(x, 0) + \sum_m P_k(x, x_m; t), \qquad
# P_k(x, x_m; t) = -\int_0^t K_k(x, x_m; t')\, dt'.
# $$
#
# $P$ is the path kernel: it attributes the whole change of the output at $x$ to the
# training points. It is only a *pseudo*-kernel: its weights $\epsilon$ change along the path.
#
# ## Forward-Euler discretization
#
# Gradient descent with step $\eta$ visits $\theta_0, \theta_1, \dots$; the paper's ePNTK
# is the left Riemann sum
#
# $$
# P_k(x, x_m; T) = -\eta \sum_{s=0}^{T-1} K_k(x, x_m; \theta_s).
# $$
#
# Each term predicts its step's change to $O(\eta^2)$ (previous chapters), so over $T$
# steps with $\eta T$ fixed the error of $y(x, 0) + \sum_m P(x, x_m)$ is $O(\eta)$: halving
# the step and doubling the steps should halve it. `lib.core.kernels.epntk` accumulates this
# sum inside the training scan.
#
# ## Per input dimension, and the learned map (App A.3.2)
#
# For the linear network $y = W x$, $W = W_2 W_1$, $\partial y(x)/\partial\theta$ is linear
# in $x$, hence so are $K$ and $P$ in their first argument:
# $P_k(x, x_m) = \sum_i x[i]\, P_k(e_i, x_m)$. The paper splits each input into its
# dimensions $x[i]$ and divides by $x[i]$; this is the same as evaluating at the basis
# inputs $e_i$. Summing over the training points gives an estimate of the learned change
# of the whole map,
#
# $$
# \widehat{\Delta W}[k, i](t) = \sum_m P_k(e_i, x_m; t) \approx W(t) - W(0),
# $$
#
# exact up to the Euler error. (The paper's final expression, with only the first-order
# products $\langle \Delta W_1, W_2\rangle + \langle W_1, \Delta W_2\rangle$, is the
# one-step version of the same statement.)
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `seed` | SMG problem and initialization seed (as in the previous chapter) | integer >= 0 |
# | `learning_rate` | gradient-descent step | > 0 |
# | `n_iterations` | training length | multiple of `record_every` |
# | `record_every` | iterations between recorded ePNTKs | integer >= 1 |
# | `analysis_times` | the paper's two analysis iterations | recorded iterations |
# | `n_halvings` | learning-rate halvings in the convergence study | integer >= 2 |
# :::

# %% tags=["parameters"]
seed = 0
learning_rate = 0.2
n_iterations = 2500
record_every = 10
analysis_times = [190, 770]
n_halvings = 4

# %% tags=["remove-cell"]
import jax

jax.config.update("jax_enable_x64", True)

from lib.book import check_chapter

check_chapter("03_epntk", globals())

# %% tags=["hide-input"]
import matplotlib.pyplot as plt

from lib.book import epntk_chapter as chapter, epntk_report, glue_texts, plot_theory, reading_table, summary

run_parameters = summary.ran_with("03_epntk", globals())

smg_path = chapter.smg_epntk_path(seed, learning_rate, n_iterations, record_every, analysis_times)
map_errors = chapter.map_error_frame(smg_path.map_change, smg_path.map_estimate, smg_path.index)
summary.check_headline("03_epntk", run_parameters, "ePNTK estimate of W(t) - W(0): largest relative error",
                       float(map_errors[chapter.ERROR_COLUMN].max()), 0.0, 0.05)
reading_table(chapter.map_error_shown(map_errors),
              "ePNTK estimate of the end-to-end map's change W(t) - W(0): its size and relative error", index=True)

# %% [markdown]
# The ePNTK recovers the learned change of the map to within
# {glue:text}`epntk_map_error_t2` at $t = 770$, from the kernel alone.
#
# ## Which modes have been learned (paper Fig 11)
#
# Singular vectors (input side) of the eNTK's one-step map change (what is being learned at
# $t$) and of the ePNTK's accumulated map change (what has been learned by $t$), each matched
# to the target mode it is closest to (largest $|\cos|$). Each cell is
# $\big||v_\text{target}| - |v_\text{kernel}|\big|$ for the entries (rows) of a kernel vector
# and of the target mode it is matched to (columns: kernel vector $\to$ mode): a light
# column is a kernel vector that *is* that mode. (Comparing vector $j$ with mode $j$
# instead, as a plain column-by-column difference does, marks the eNTK's top vector at
# $t = 770$ as wrong merely because it is mode 2.)

# %% mystnb={"figure": {"caption": "Paper Fig 11: absolute differences between the input-side singular vectors of the eNTK one-step map change (left) and of the ePNTK map estimate (right) and the target modes they are matched to, at the two analysis times. Column labels: kernel vector \u2192 matched target mode (with |cos|); a light column is a kernel vector equal to that mode up to sign.", "name": "fig-epntk-fig11"}} tags=["hide-input"]
fig11 = chapter.fig11_matches(smg_path, analysis_times)
plot_theory.plot_singular_vector_differences(fig11.panels, column_labels=fig11.labels)
plt.show()

# %% tags=["hide-input"]
reading_table(chapter.match_table(fig11.matches, smg_path.problem.v_in.shape[1]),
              "Per kernel singular vector: the closest target mode and its |cos|, at the analysis times", index=True)

# %% [markdown]
# ## The ePNTK over the training inputs (paper Fig 12)
#
# By linearity the data-by-data ePNTK summed over outputs is
# $\sum_k P_k(x_n, x_m) = \sum_{k,i} x_n[i]\, P_k(e_i, x_m)$. Its left singular vectors
# against the inputs' projections on the target modes ($|r|$):

# %% tags=["hide-input"]
fig12 = chapter.fig12_correlations(smg_path.problem, smg_path.path_basis, smg_path.index, analysis_times)
reading_table(fig12.table, "|r| of the ePNTK's first two singular vectors with each mode's input projection",
              index=True)

# %% mystnb={"figure": {"caption": "Paper Fig 12: first singular vector of the output-summed ePNTK over the training inputs (blue) against the inputs' projection on mode 1 (orange, scaled), at the two analysis times: the first mode, once learned, stays in the accumulated kernel.", "name": "fig-epntk-fig12"}} tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(11, 3))
for ax, t in zip(axes, analysis_times):
    plot_theory.plot_vector_vs_projection(fig12.vectors[t][:, 0], smg_path.problem.input_projections[:, 0],
                                          fig12.title(t), ax)
fig.tight_layout()
plt.show()

# %% mystnb={"figure": {"caption": "Paper Fig 13: the three largest singular values of the ePNTK map estimate (left axis, log scale) and the loss (grey). Each jump in a singular value coincides with a drop of the loss: the accumulated kernel records how much of each mode has been learned.", "name": "fig-epntk-fig13"}} tags=["hide-input"]
singular_values = chapter.map_singular_values(smg_path.map_estimate)
plot_theory.plot_curves_vs_loss(smg_path.run.times, singular_values, chapter.FIG13_LABELS, smg_path.run.loss,
                                "ePNTK map singular value", marks=analysis_times, log_curves=True)
plt.show()

# %% [markdown]
# The target's singular values are {glue:text}`epntk_target_sv`; those of the ePNTK map
# estimate at the end of training, {glue:text}`epntk_map_sv_end`.

# %% [markdown]
# ## Convergence in the step size
#
# Finally, the reconstruction of the outputs, $y(x_n, t) - y(x_n, 0) \approx \sum_m P(x_n, x_m; t)$
# over the 250 training inputs, and of the map, for learning rates halved while the number
# of steps doubles ($\eta \times$ steps fixed at the second analysis time).

# %% tags=["hide-input"]
convergence = chapter.step_size_convergence(seed, learning_rate, analysis_times[1], n_halvings)
summary.check_headline("03_epntk", run_parameters, "ePNTK reconstruction error order in the learning rate",
                       convergence.slope, 0.8, 1.2)  # first order (forward Euler)
glue_texts(chapter.epntk_texts(map_errors, smg_path.problem, singular_values, convergence))
reading_table(chapter.convergence_shown(convergence.frame),
              "Per learning rate at a fixed lr x steps: relative error of the ePNTK reconstructions")

# %% mystnb={"figure": {"caption": "App A.3 of the paper (no paper figure): relative error of the ePNTK reconstruction of y(t) - y(0) over the training inputs and of W(t) - W(0), against the learning rate at fixed lr x steps, with an lr^1 guide.", "name": "fig-epntk-convergence"}} tags=["hide-input"]
plot_theory.plot_convergence(convergence.frame["learning rate"], convergence.curves())
plt.tight_layout()
plt.show()

# %% [markdown]
# At the paper's step size the reconstruction error of the outputs is
# {glue:text}`epntk_output_error`, and it falls with slope {glue:text}`epntk_slope` in the
# learning rate: the ePNTK is a first-order (forward-Euler) path integral, exact in the
# limit of gradient flow.

# %% tags=["remove-cell"]
measures = chapter.epntk_measures(smg_path, analysis_times, map_errors, convergence, fig11, fig12, singular_values)
summary.record("03_epntk", run_parameters, epntk_report.claim_rows(measures))
