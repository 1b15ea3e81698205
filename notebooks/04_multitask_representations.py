# ---
# jupyter:
#   chapter:
#     figures: 7
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
# reproduce the paper's pictures (network, M-PHATE, eNTK eigenvectors, ARI) and put
# numbers with intervals over seeds on what the paper judges by eye.
#
# **Parameters**
#
# | name | meaning | allowed |
# |---|---|---|
# | `architecture` | `"4x3"` (4 input pools, 3 output pools; the paper's main network) or `"3x4"` (App A.7.1) | `"4x3"`, `"3x4"` |
# | `schedule` | learning rates and iterations of single-task training | `"ET"`, `"LR"` |
# | `n_iterations` | iterations (multiple of 100) | integer >= 100 |
# | `n_entk_pairs` | pairs (seeds `first_seed`...) for the eNTK statistics | integer >= 2 |
# | `n_ari_pairs` | pairs whose hidden activity is recorded for ARI and M-PHATE | integer >= 2 |
# | `first_seed` | first pair seed (the same networks as the performance chapter) | integer >= 0 |
# | `show_swapped_architecture` | also embed the other architecture (Fig 20) | bool |

# %% tags=["parameters"]
architecture = "4x3"
schedule = "ET"
n_iterations = 10000
n_entk_pairs = 10
n_ari_pairs = 5
first_seed = 0
show_swapped_architecture = True

# %% tags=["remove-cell"]
from lib.experiments import SCHEDULES
from lib.validation import check_choice, check_seed, check_size

ARCHITECTURES = {"4x3": (4, 3, 3), "3x4": (3, 4, 3)}
check_choice("architecture", architecture, ARCHITECTURES)
check_choice("schedule", schedule, SCHEDULES)
check_size("n_iterations", n_iterations, minimum=100, sane_maximum=100_000)
if n_iterations % 100:
    raise ValueError(f"n_iterations must be a multiple of 100 (101 snapshots), got {n_iterations}")
check_size("n_entk_pairs", n_entk_pairs, minimum=2, sane_maximum=200)
check_size("n_ari_pairs", n_ari_pairs, minimum=2, sane_maximum=100)
check_seed("first_seed", first_seed)
check_seed("first_seed + n_entk_pairs - 1", first_seed + max(n_entk_pairs, n_ari_pairs) - 1)
check_choice("show_swapped_architecture", show_swapped_architecture, (True, False))

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-network", "caption": "Fig 6 of the paper, redrawn. (A) The network: stimulus pools (green) and task units (purple) project to 200 sigmoid hidden units; hidden and task units project to the output pools (red). All biases are fixed at -2. (B) The tasks: each maps one input pool to one output pool (numbers: task index)."}}
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue
from scipy import stats as scipy_stats

from lib import plotting
from lib import representations as rep
from lib.experiments import ENTK_VARIANTS, cached_initial_entk
from lib.tasks import TaskEnvironment

env = TaskEnvironment(*ARCHITECTURES[architecture])
plotting.plot_network_diagram(env.n_in_pools, env.n_out_pools, env.n_features)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Hidden representations over training (M-PHATE, Fig 7)
#
# Hidden activity is probed on all 972 single-task patterns and averaged within each group
# of four groupings — by task, by the routed input unit, by task x input, by the output
# unit that should respond — at 101 snapshots of single-task training, then embedded with
# M-PHATE {cite}`gigante2019`. Outlined markers at the final snapshot encode the structure
# the paper describes: input pool (task panel), feature position (input panel), output
# pool (task x input and output panels).

# %% tags=["hide-input", "remove-stderr"]
ari_seeds = list(range(first_seed, first_seed + n_ari_pairs))
recorded = rep.cached_grouped_hidden(env, schedule, ari_seeds, n_iterations)
iterations = recorded["iterations"]
key = dict(env=list(ARCHITECTURES[architecture]), schedule=schedule, seed=first_seed, n_iterations=n_iterations)
embeddings = rep.cached_mphate(env, recorded["hidden_groups"][0], key)


def final_labels(env):
    tasks = np.arange(env.n_tasks)
    return {"task": env.task_in_pool(tasks), "input": np.arange(env.n_stimulus_units) % env.n_features,
            "task_by_input": env.task_out_pool(np.repeat(tasks, env.n_features)),
            "output": np.arange(env.n_outputs) // env.n_features}


# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-mphate", "caption": "Fig 7 of the paper: M-PHATE of group-averaged hidden activity over single-task training (colour: % of training), standard init (top) and large init (bottom), for the four groupings. Outlined markers: final positions, shaped by the structure the paper describes. Inset: the input grouping of standard init at 3% of training, shaped by feature position."}}
inset_index = int(round(0.03 * (len(iterations) - 1)))
plotting.plot_mphate_grid(embeddings, final_labels(env),
                          inset=("standard", "input", inset_index, final_labels(env)["input"]))
plt.show()

# %% [markdown]
# ## The eNTK at initialization (Figs 8, 15, 16)
#
# For every network we take, per output unit, the leading vector of its $t=0$ eNTK (one
# loading per training pattern; both variants of SPEC section 3) — the same networks and
# training data as the performance chapter. Its entry for training pattern $m$ is, up to
# scale, $\partial L_m / \partial\theta \cdot g$ for a common direction $g$ in weight space:
# patterns whose loss gradients point the same way get similar loadings. Below, one standard/large pair, patterns sorted by the input
# unit their task routes and by task; then the unsorted control.

# %% tags=["hide-input", "remove-stderr"]
entk_seeds = list(range(first_seed, first_seed + n_entk_pairs))
entk0 = cached_initial_entk(env, entk_seeds)


def train_patterns(pair):
    """The training patterns of a pair: every variant gives one loading per training pattern."""
    return env.encode(entk0["stimulus_train"][pair], entk0["tasks_train"][pair])


variant = "authors"
patterns = train_patterns(0)
by_input = np.lexsort((patterns.task, env.relevant_input_unit(patterns)))
by_task = np.lexsort((env.relevant_feature(patterns), patterns.task))
loadings = entk0[f"loadings/{variant}"]

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-entk-sorted", "caption": "Fig 15 of the paper: leading eNTK vector at t=0 of each output unit (rows, grouped by output pool) over the patterns (columns), sorted by routed input unit or by task, for standard and large init of one pair (authors' variant)."}}
panels = {f"{init} init, sorted by input unit": loadings[0, i][order]
          for i, init in enumerate(("standard", "large")) for order in (by_input,)}
panels |= {f"{init} init, sorted by task": loadings[0, i][by_task] for i, init in enumerate(("standard", "large"))}
plotting.plot_loading_heatmaps(panels, env.n_features)
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-entk-means", "caption": "Fig 8 of the paper: mean t=0 eNTK loading of each output unit (rows: output pool and within-pool position m) over the patterns of each routed input unit (left) and each task (right), standard init (top) and large init (bottom), averaged over all pairs (authors' variant)."}}
means, names = {}, {}
for i, init in enumerate(("standard", "large")):
    for grouping, n_groups, label in (("input", env.n_stimulus_units, "input unit"), ("task", env.n_tasks, "task")):
        per_pair = []
        for p in range(n_entk_pairs):
            pats = train_patterns(p)
            labels, _ = rep.group_labels(env, pats, grouping)
            per_pair.append(np.stack([np.bincount(labels, weights=loadings[p, i][:, k], minlength=n_groups)
                                      / np.maximum(np.bincount(labels, minlength=n_groups), 1)
                                      for k in range(env.n_outputs)]))
        title = f"{init} init, by {label}"
        means[title] = np.mean(per_pair, axis=0)
        names[title] = [f"{label} {g}" for g in range(n_groups)]
plotting.plot_group_means({t: means[t] for t in sorted(means, key=lambda t: ("large" in t, "task" in t))},
                          names, env.n_features)
plt.tight_layout()
plt.show()

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-entk-unsorted", "caption": "Fig 16 of the paper: the same loadings as above for standard init, in the order the patterns were drawn (no sorting): the structure is invisible without grouping."}}
plotting.plot_loading_heatmaps({"standard init, unsorted": loadings[0, 0]}, env.n_features)
plt.tight_layout()
plt.show()

# %% [markdown]
# ### How much of the loadings does each factor explain?
#
# For each network and output unit, the share of the variance of the loadings explained by
# a factor of the patterns (between-group variance over total, $\eta^2$): the relevant
# feature position, the task's output pool, its input pool, and the task (12 groups, which
# contain the pools). Mean $\pm$ sd over pairs, and the paired difference standard $-$
# large with a 95% t-interval.

# %% tags=["hide-input"]
rows = []
for v in (*ENTK_VARIANTS, "principled_left"):
    explained = np.array([[list(rep.loading_variance_explained(
        entk0[f"loadings/{v}"][p, i], rep.loading_factors(env, train_patterns(p))).values())
        for i in range(2)] for p in range(n_entk_pairs)])  # (P, 2, factors)
    factors = list(rep.loading_factors(env, train_patterns(0)))
    diff = explained[:, 0] - explained[:, 1]
    half_width = scipy_stats.t.ppf(0.975, n_entk_pairs - 1) * diff.std(axis=0, ddof=1) / np.sqrt(n_entk_pairs)
    for j, factor in enumerate(factors):
        rows.append({"variant": v, "factor": factor,
                     "standard": f"{explained[:, 0, j].mean():.3f} ± {explained[:, 0, j].std(ddof=1):.3f}",
                     "large": f"{explained[:, 1, j].mean():.3f} ± {explained[:, 1, j].std(ddof=1):.3f}",
                     "standard - large [95% CI]": f"{diff[:, j].mean():+.3f} [{diff[:, j].mean() - half_width[j]:+.3f}, "
                                                  f"{diff[:, j].mean() + half_width[j]:+.3f}]",
                     "_diff": diff[:, j].mean(), "_lo": diff[:, j].mean() - half_width[j],
                     "_hi": diff[:, j].mean() + half_width[j], "_std": explained[:, 0, j].mean(),
                     "_large": explained[:, 1, j].mean()})
variance_table = pd.DataFrame(rows)
for r in rows:
    name = f"eta_{r['variant']}_{r['factor'].replace(' ', '_')}"
    glue(f"{name}_std", f"{r['_std']:.2f}", display=False)
    glue(f"{name}_large", f"{r['_large']:.2f}", display=False)
main_variants = variance_table[variance_table.variant.isin(ENTK_VARIANTS)]
structured = main_variants[main_variants["_lo"] > 0]
glue("eta_n_structured", f"{len(structured)} of {len(main_variants)}", display=False)
by_variant = main_variants.pivot(index="factor", columns="variant", values="_std")
glue("eta_variant_gap", f"{(by_variant['authors'] - by_variant['principled']).abs().max():.3f}", display=False)
variance_table[[c for c in variance_table if not c.startswith("_")]].style.hide(axis="index")

# %% [markdown]
# ## Does the t=0 structure appear in the hidden layer? (Fig 9)
#
# At each snapshot, k-means clusters the group-averaged hidden activity and the adjusted
# Rand index (ARI) scores the clusters against the partition the t=0 eNTK suggests: the
# 12 input-unit means into 3 clusters against feature position, and the 12 task means
# into 4 clusters against input pool (the paper's choice) or into 3 against output pool.
# ARI 1: the hidden layer is organized exactly that way; 0: chance.

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-ari", "caption": "Fig 9 of the paper: adjusted Rand index between k-means clusters of group-averaged hidden activity and the partitions predicted from the t=0 eNTK, over single-task training; mean +- sd over pairs, standard (blue) and large (orange) init."}}
ari = rep.cached_ari_curves(env, recorded, {**key, "seeds": ari_seeds})
plotting.plot_ari(iterations, ari)
plt.tight_layout()
plt.show()

# %% tags=["hide-input"]
final_ari = pd.DataFrame({title: [f"{v[:, i, -1].mean():.2f} ± {v[:, i, -1].std():.2f}" for i in range(2)]
                          for title, v in ari.items()}, index=["standard", "large"])
peak_ari = pd.DataFrame({title: [f"{v[:, i].mean(axis=0).max():.2f} at iteration "
                                 f"{iterations[np.argmax(v[:, i].mean(axis=0))]}" for i in range(2)]
                         for title, v in ari.items()}, index=["standard", "large"])
for title, v in ari.items():
    slug = title.replace(" ", "_")
    glue(f"ari_final_std_{slug}", f"{v[:, 0, -1].mean():.2f}", display=False)
    glue(f"ari_final_large_{slug}", f"{v[:, 1, -1].mean():.2f}", display=False)
    glue(f"ari_peak_std_{slug}", f"{v[:, 0].mean(axis=0).max():.2f}", display=False)
print(f"final ARI (mean ± sd over {n_ari_pairs} pairs):")
display(final_ari)
print("peak of the mean ARI curve:")
peak_ari

# %% [markdown]
# ## What we found
#
# * **eNTK structure at t=0.** With the authors' variant, the feature position explains
#   {glue:text}`eta_authors_feature_std` of the variance of standard-init loadings and
#   {glue:text}`eta_authors_feature_large` of large-init ones; the task's output pool
#   {glue:text}`eta_authors_output_pool_std` vs {glue:text}`eta_authors_output_pool_large`;
#   the task {glue:text}`eta_authors_task_std` vs {glue:text}`eta_authors_task_large`; the
#   target output unit (output pool x feature) {glue:text}`eta_authors_target_output_unit_std`
#   vs {glue:text}`eta_authors_target_output_unit_large`.
#   Over both variants and all four factors, standard init's loadings are more structured
#   than large init's with a 95% interval excluding zero in {glue:text}`eta_n_structured`
#   comparisons (table above). The paper's qualitative reading of Fig 8 — standard init
#   clustered, large init not — is thereby quantified; where a factor's interval includes
#   zero or is negative, the table shows it.
# * **The two eNTK variants** give nearly the same loadings' structure: the standard-init
#   $\eta^2$ of the two differ by at most {glue:text}`eta_variant_gap` over the factors.
#   Both vectors weight *training* patterns: the authors' `eig` of the transposed
#   test x train matrix solves $v_m = \sum_n K[n, m]\, v_n / \lambda$, the same column-side
#   relation as our right singular vector (sorted by test-pattern metadata, the authors'
#   loadings show no structure at all). The row-side (left) singular vector, listed as
#   `principled_left`, is a different object — which patterns' outputs move together — and
#   is organized by task (standard init
#   {glue:text}`eta_principled_left_task_std` vs large {glue:text}`eta_principled_left_task_large`).
# * **Hidden layer.** The task grouping reaches a final ARI of
#   {glue:text}`ari_final_std_task_vs_input_pool` against input pool for standard init
#   ({glue:text}`ari_final_large_task_vs_input_pool` for large); against output pool
#   {glue:text}`ari_final_std_task_vs_output_pool` vs
#   {glue:text}`ari_final_large_task_vs_output_pool`. The input grouping peaks at
#   {glue:text}`ari_peak_std_input_vs_feature` for standard init and ends at
#   {glue:text}`ari_final_std_input_vs_feature`. The paper reports the task ARI reaching 1
#   and the input ARI near 1 early, then decaying (SPEC section 6); the numbers here are
#   what our runs give.

# %% [markdown]
# ## The swapped architecture (Fig 20)
#
# App A.7.1 repeats the M-PHATE analysis with 3 input and 4 output pools, to rule out that
# the early organization by output simply reflects there being fewer output than input
# dimensions.

# %% tags=["hide-input", "remove-stderr"] mystnb={"figure": {"name": "fig-mphate-swapped", "caption": "Fig 20 of the paper: M-PHATE as in Fig 7 for the other architecture (one pair, same schedule)."}}
if show_swapped_architecture:
    other = "3x4" if architecture == "4x3" else "4x3"
    env_other = TaskEnvironment(*ARCHITECTURES[other])
    recorded_other = rep.cached_grouped_hidden(env_other, schedule, [first_seed], n_iterations)
    key_other = dict(env=list(ARCHITECTURES[other]), schedule=schedule, seed=first_seed, n_iterations=n_iterations)
    embeddings_other = rep.cached_mphate(env_other, recorded_other["hidden_groups"][0], key_other)
    plotting.plot_mphate_grid(embeddings_other, final_labels(env_other))
    plt.suptitle(f"{other} architecture", y=0.98)
    plt.show()
else:
    print("show_swapped_architecture is False: Fig 20 not computed")

# %% tags=["remove-cell"]
from lib import summary


def eta_row(factor, variant="authors"):
    r = variance_table[(variance_table.variant == variant) & (variance_table.factor == factor)].iloc[0]
    return summary.row(f"t=0 eNTK loadings ({variant} variant): variance explained by {factor}, standard vs large",
                       "standard clustered, large not (Fig 8, by eye)", f"{r._std:.2f} vs {r._large:.2f}",
                       r._lo > 0, "standard - large, 95% CI over pairs above 0",
                       f"difference [{r._lo:+.3f}, {r._hi:+.3f}]")


task_ari, input_ari = ari["task vs input_pool"], ari["input vs feature"]
input_peak, input_end = input_ari[:, 0].mean(axis=0).max(), input_ari[:, 0, -1].mean()
summary.record("04_multitask_representations", dict(architecture=architecture, schedule=schedule,
                                                    n_iterations=n_iterations, n_entk_pairs=n_entk_pairs,
                                                    n_ari_pairs=n_ari_pairs, first_seed=first_seed), [
    eta_row("feature"), eta_row("output pool"), eta_row("target output unit"),
    summary.row("ARI, task grouping vs input pool, standard init, end of training", "reaches 1",
                f"{task_ari[:, 0, -1].mean():.2f}", task_ari[:, 0, -1].mean() >= 0.9, "mean over pairs >= 0.9",
                f"sd {task_ari[:, 0, -1].std():.2f}"),
    summary.row("ARI, input grouping vs feature, standard init: peak / end", "1 early, then decays",
                f"{input_peak:.2f} / {input_end:.2f}", input_peak >= 0.9 and input_end < input_peak - 0.3,
                "peak of the mean curve >= 0.9 and end below peak - 0.3"),
    summary.row("ARI, task grouping vs input pool, large init, end of training", "little structure (M-PHATE)",
                f"{task_ari[:, 1, -1].mean():.2f}", task_ari[:, 1, -1].mean() < 0.5, "mean over pairs < 0.5",
                f"sd {task_ari[:, 1, -1].std():.2f}"),
    summary.row("ARI, task grouping vs output pool vs input pool, large init, end of training",
                "large init: structure only by output (M-PHATE)",
                f"{ari['task vs output_pool'][:, 1, -1].mean():.2f} vs {task_ari[:, 1, -1].mean():.2f}",
                ari["task vs output_pool"][:, 1, -1].mean() > task_ari[:, 1, -1].mean(),
                "output-pool ARI above input-pool ARI"),
])
