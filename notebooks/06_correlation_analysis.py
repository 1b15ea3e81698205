# ---
# jupyter:
#   chapter:
#     figures: 1
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
# # Does the t=0 eNTK predict performance? Correlations and their controls
#
# The paper's quantitative headline (Sec 5.2, App A.6.4-A.6.5): the silhouette score of
# 12-cluster k-means on the leading eNTK vectors at initialization (one loading per
# training pattern and output unit, 500 x 9) correlates with each network's final test
# loss relative to its partner: $r = -0.881$ after single-task training and $r = 0.973$
# after multitask fine-tuning (ET schedule), with LR-schedule, pooled and raw-loss variants.
#
# :::{admonition} The answer
# :class: tip
# On {glue:text}`corr_n_verdict` ET pairs, single-task / fine-tuning: {glue:text}`corr_v_corr-et`
# (paper $-0.881$ / $0.973$): **{glue:text}`corr_v_corr-et_verdict`**. On a replication block of
# new pairs: {glue:text}`corr_replication_et`. Within one init, does any association survive a
# correction for the number of tests? Single-task {glue:text}`corr_holm_single`, fine-tuning
# {glue:text}`corr_holm_finetune` ({ref}`the verdicts <tab-corr-verdicts>`,
# {ref}`the replication <tab-corr-replication>`).
# :::
#
# A caution the paper does not discuss. Within a pair the relative losses are $+d$ and $-d$,
# and standard-init networks have much higher silhouettes than large-init ones. Any
# variable that merely separates the two inits then correlates with relative loss
# through the sign of $d$: for the init label itself $r = \bar d / \sqrt{\overline{d^2}}$,
# close to $\pm 1$ whenever one init wins consistently. So next to every $r$ we report:
#
# * **label-only r**: the same correlation with the init label (1 = standard) in place of
#   the silhouette — what "predicting" would achieve knowing only the init scale;
# * **within-condition r**: among standard-init networks only, and among large-init only;
# * **permutation p**: silhouettes shuffled *within* each init, keeping the between-init
#   difference (a small p means the silhouette carries information beyond the init);
# * a **bootstrap 95% interval** resampling whole pairs;
# * **rival predictors** ({doc}`04_multitask_representations` shows what they are): the
#   silhouette of kernel-free quantities of the same untrained networks — the loss
#   sensitivities $\epsilon$, the output error $\epsilon\odot\sigma'$, the targets — and of the
#   plain NTK's and the eNTK's row-side vectors.
#
# The eNTK variants ({doc}`../choices`): `authors` — rows over the 500 test inputs, columns
# over the 500 training inputs, the first vector `np.linalg.eig` returns (the paper's
# numbers come from this); `principled` — training x training inputs, the leading right
# singular vector (a weight per training pattern, like the authors' vector).
#
# :::{dropdown} Parameters of this chapter
# The same runs as the previous chapter, loaded from the cache.
#
# | name | meaning | allowed |
# |---|---|---|
# | `n_pairs` | pairs per schedule | integer >= 2 |
# | `first_seeds` | first pair seed per schedule | dict `{"ET": int, "LR": int}`, disjoint ranges |
# | `iterations` | iterations per phase per schedule | dict, multiples of 100 |
# | `n_resamples` | bootstrap resamples and permutations | integer in [100, 1 000 000]; more with `--allow-large` while 64 bytes x 4 `n_verdict_pairs` per resample fit in the memory available (no `--allow-large` lifts that) |
# | `split` | train/test sampling of the main analysis | `"iid"`, `"disjoint"` |
# | `large_scaling` | large init of the main analysis: x10 on both layers or on layer 1 only | `"both_layers"`, `"layer1_only"` |
# | `compare_choices` | also compute the table with the other split and the other large-init scaling | bool |
# | `n_verdict_pairs` | pairs per schedule behind the verdicts (the discovery block): the performance chapter's pairs at the paper's counts, read from the cache (the first `n_pairs` are this page's) | integer >= `n_pairs` |
# | `replication_first_seeds` | first seed per schedule of the replication block, judged by the same criteria | dict `{"ET": int, "LR": int}`, seeds disjoint from the discovery block's |
# | `n_replication_pairs` | pairs per schedule of the replication block | integer in [2, 200] |
# :::

# %% tags=["parameters"]
n_pairs = 10
first_seeds = {"ET": 0, "LR": 100}
iterations = {"ET": 10000, "LR": 2500}
n_resamples = 10000
split = "iid"
large_scaling = "both_layers"
compare_choices = True
n_verdict_pairs = 50
replication_first_seeds = {"ET": 1000, "LR": 1100}
n_replication_pairs = 50

# %% tags=["remove-cell"]
from lib.book import check_chapter

plan, verdict_plan, replication_plan = check_chapter("06_correlation_analysis", globals())

# %% tags=["hide-input", "remove-stderr"]
import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from lib.book import (correlation_blocks, correlation_page, correlation_report, correlation_verdicts, glue_texts,
                      plot_representations, reading_table, replication_report, summary, TaskEnvironment)

run_parameters = summary.ran_with("06_correlation_analysis", globals())

env = TaskEnvironment(4, 3, 3)
choices = dict(split=split, large_scaling=large_scaling)
first = correlation_blocks.first_pairs(env, plan, n_resamples, **choices)
reading_table(correlation_page.silhouette_summary(first),
              "Mean t=0 silhouette of each eNTK variant, per schedule and init")

# %% [markdown]
# The mean $t=0$ silhouette of each eNTK variant per schedule and init, over the pairs of this page.


# %% [markdown]
# (tab-corr-authors)=
# ## The paper's correlations, reproduced (authors' eNTK variant)

# %% tags=["hide-input"]
if first.headline != "authors":
    display(Markdown(correlation_page.DISJOINT_NOTE))
reading_table(correlation_report.correlation_view(first.tables[first.headline]),
              "Silhouette against final test loss: the paper's r beside ours, with its controls")

# %% [markdown]
# ## The same with the principled eNTK variant

# %% tags=["hide-input"]
reading_table(correlation_report.correlation_view(first.tables["principled"]),
              "Principled eNTK variant: silhouette against final test loss, with the same controls")

# %% tags=["hide-input"]
glue_texts(correlation_report.headline_texts(first.tables[first.headline]))

# %% [markdown]
# **At the paper's size (10 pairs per schedule).** With the authors' eNTK variant the
# headline correlations come out at
# {glue:text}`corr_et_single` (single-task, ET; paper $-0.881$) and
# {glue:text}`corr_et_finetune` (fine-tuning, ET; paper $0.973$). Our sign agrees with the
# paper's in {glue:text}`corr_same_sign` correlations, and the paper's value lies inside
# our bootstrap interval in {glue:text}`corr_in_ci`. But the init label alone gives
# {glue:text}`corr_et_single_label` and {glue:text}`corr_et_finetune_label` for the same
# two quantities, and for every relative-loss correlation the silhouette's $r$ is within
# {glue:text}`corr_label_gap` of the label-only $r$. Within a condition the silhouette
# carries little information: the within-init permutation test gives $p < 0.05$ in
# {glue:text}`corr_significant` correlations.
#
# (tab-corr-verdicts)=
# ## The verdicts: all {glue:text}`corr_n_verdict` pairs per schedule
#
# Ten pairs give wide, skewed intervals that contain almost any value, so "the paper's
# value lies inside our interval" rewards imprecision. The verdicts therefore use every pair
# trained at the paper's counts: the performance chapter's {glue:text}`corr_n_verdict` pairs
# per schedule (this page's ten are the first of them), by the criteria of the claims registry,
# written after these pairs' numbers had been shown (post hoc, as the verdicts page says; hence the
# replication block below, for which they were written first). For each correlation, (a) **sign**: the bootstrap
# 95% interval of $r$ excludes 0 on the paper's side; (b) **size**: equivalence with the
# paper's $r$ by two one-sided tests on Fisher's $z$ — the 90% interval of
# $z(r) - z(r_\text{paper})$ must lie inside $\pm 0.3$. The margin 0.3 is Cohen's "medium"
# difference between correlations, declared with the criterion. Both intervals resample whole
# pairs: the two networks of a pair share their data and weight draw, and their relative
# losses are $+d$ and $-d$, so they are not independent observations and a Fisher-z interval
# with $n - 3$ networks would overstate the sample. The pair bootstrap's intervals are wider
# than that formula's; where they are wider than the margin (see the table), the size test
# cannot pass at this sample, and its failure means "equivalence not shown". Where the
# paper's $r$ lies outside our 95% interval, the size *differs*; the verdict's qualification
# says which of the two holds. A verdict
# counts as settled only when it is the same under at least 19 of 20 bootstrap seeds;
# otherwise it is *borderline*, with the count. The within-init permutation test behind
# "the silhouette predicts beyond the init" is drawn the same way: its verdict is judged under
# 20 seeds of the shuffles, with the same rule.

# %% tags=["hide-input", "remove-stderr"]
discovery = correlation_verdicts.correlation_block(env, verdict_plan, first.variants, n_resamples, n_pairs, **choices)
judged = correlation_blocks.judge_variants(discovery)
reading_table(correlation_page.variant_verdict_view(judged),
              "Verdicts on the paper's correlations over all pairs, for both eNTK variants")

# %% tags=["hide-input"]
holm = correlation_page.holm_table(discovery.tables[first.headline])
glue_texts(correlation_page.discovery_texts(judged[first.headline], holm, n_verdict_pairs))
reading_table(holm.view, "Each correlation over all pairs, with its controls and Holm-adjusted permutation p-values")

# %% [markdown]
# The first table gives the verdicts with both eNTK variants (the registry's verdict is
# the authors' variant, whose numbers the paper reports); the second, the full
# {glue:text}`corr_n_verdict`-pair table of the headline variant with the controls and
# Holm-adjusted within-init permutation p-values over its {glue:text}`corr_n_holm` tests.
# ET: {glue:text}`corr_v_corr-et` (intervals {glue:text}`corr_v_corr-et_ci`; paper
# $-0.881$ / $0.973$): **{glue:text}`corr_v_corr-et_verdict`**. LR:
# {glue:text}`corr_v_corr-lr` ({glue:text}`corr_v_corr-lr_ci`; paper $-0.850$ / $0.952$):
# **{glue:text}`corr_v_corr-lr_verdict`**. Both schedules pooled:
# {glue:text}`corr_v_corr-combined` ({glue:text}`corr_v_corr-combined_ci`; paper $-0.757$ /
# $0.932$): **{glue:text}`corr_v_corr-combined_verdict`**. Does any within-init association
# (silhouette against loss among networks of one init) have a Holm-adjusted $p \le 0.05$?
# Single-task: {glue:text}`corr_holm_single`; fine-tuning: {glue:text}`corr_holm_finetune`.
# A "no" is an absence of evidence at this sample, not evidence that there is no association.
#
#
# (tab-corr-replication)=
# ## Does the verdict replicate on networks it never saw?
#
# The criteria in force were written after the discovery block's numbers had been shown (the
# verdicts page says so per version). So every claim is judged a second time, by the same
# criterion, on a *replication block*: {glue:text}`corr_replication_block`, trained at the same
# counts and never shown before the criteria were fixed ({mod}`lib.analyses.replication` records
# the declaration). A verdict *replicates* only when both blocks give it; the verdicts page counts
# a claim whose blocks disagree as "does not replicate". The declaration also fixes the precision
# a verdict needs — a 95% interval on $r$ no wider than $\pm${glue:text}`corr_declared_half_width`
# — and the last column says whether a block of this size reaches it and, if not, how many pairs
# would. ET single-task / fine-tuning on the replication block: {glue:text}`corr_replication_et`
# (discovery block {glue:text}`corr_v_corr-et`).

# %% tags=["hide-input", "remove-stderr"]
replication_block = correlation_verdicts.correlation_block(env, replication_plan, [first.headline], n_resamples,
                                                           n_pairs, **choices)
verdicts = correlation_blocks.block_verdicts(first, discovery, judged, replication_block, replication_plan,
                                             n_resamples)
glue_texts(correlation_page.replication_texts(verdicts))
reading_table(replication_report.replication_view(verdicts.in_force, verdicts.replicated_in_force, verdicts.precision),
              "Correlation claims: verdicts on the original pairs and on a replication block of new pairs")

# %% [markdown]
# (tab-corr-rivals)=
# ## Rival predictors
#
# The same correlations with the silhouette of each rival predictor in place of the eNTK's
# (authors' variant), and with the init label. A predictor that is the same for both
# networks of every pair (the targets: each pair shares its data) cannot separate the inits;
# its $r$ is undefined ("–").

# %% tags=["hide-input"]
rivals = correlation_blocks.rivals(first, n_resamples)
glue_texts(correlation_report.rival_texts(rivals.by_predictor, first.headline))
reading_table(rivals.table,
              "Each correlation with each rival predictor's silhouette or the init label, beside the paper's r",
              transpose=True)

# %% [markdown]
# Cells: Pearson $r$ over the networks of the schedule (both schedules for "combined");
# an asterisk marks a within-init permutation $p < 0.05$. The silhouette of the output error
# $\epsilon\odot\sigma'$ — no kernel involved — gives {glue:text}`rival_output_error_et_single`
# and {glue:text}`rival_output_error_et_finetune` for the ET headline pair, and over the six
# relative-loss correlations it differs from the eNTK's by at most
# {glue:text}`rival_output_error_gap`. The loss sensitivities alone give
# {glue:text}`rival_epsilon_et_single` / {glue:text}`rival_epsilon_et_finetune`, the plain
# NTK {glue:text}`rival_ntk_et_single` / {glue:text}`rival_ntk_et_finetune`. The reported
# correlations' signs reproduce; what they measure is that the untrained networks of the two inits
# differ — in anything, kernel or not — and that one init consistently ends better.
#
# ## Scatter plots

# %% mystnb={"figure": {"caption": "Sec 5.2 of the paper (no figure there): t=0 eNTK silhouette (authors' variant) against the final test loss relative to the partner, after single-task training (left) and fine-tuning (right), pooled over schedules (circles: ET, squares: LR). Blue: standard init, orange: large init. Each pair contributes one point of each colour with opposite relative losses.", "name": "fig-corr-scatter"}} tags=["hide-input"]
points = correlation_blocks.scatter_points(first)
fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.8))
for ax, phase in zip(axes, points.relative):
    plot_representations.plot_silhouette_scatter(points.silhouette, points.relative[phase], points.r[phase],
                                                 "silhouette at t=0", f"relative final test loss ({phase})", ax,
                                                 points.markers, marker_labels=points.marker_labels)
fig.tight_layout()
plt.show()

# %% [markdown]
# (tab-corr-choices)=
# ## Robustness to our choices
#
# Two choices of this reproduction could matter ({doc}`../choices`): test sets drawn i.i.d.
# like the training sets overlap with them (about 40% of test patterns also occur in
# training), and the paper scales "all weights" x10 in Sec 4.1.3 but "layer 1 weights" in
# Sec 5. With `compare_choices`, the correlations are recomputed with the other split and with
# the other scaling — the same seeds, everything else unchanged — using the principled eNTK
# variant (the authors' eigendecomposition is the expensive part; the two variants agree
# closely above). Each cell: $r$, and in brackets the label-only $r$.

# %% tags=["hide-input", "remove-stderr"]
robustness = correlation_blocks.choices(env, plan, first, n_resamples, split, large_scaling, compare_choices)
glue_texts(correlation_page.choice_texts(robustness))
reading_table(correlation_report.choice_view(robustness.tables),
              "Principled eNTK variant: correlations under this page's choices, the other split and the other scaling")

# %% tags=["hide-input"]
reading_table(robustness.performance,
              "Performance effects under each choice: how often standard init ends lower or is better")

# %% [markdown]
# With the principled variant the ET relative-loss pair (single-task / fine-tuning) is
# {glue:text}`choice_this_et` on this page's ten pairs (paper value inside our bootstrap
# interval — a wide one at this size — in {glue:text}`choice_this_in_ci` correlations), {glue:text}`choice_split_et`
# with split = {glue:text}`other_split` ({glue:text}`choice_split_in_ci`), and
# {glue:text}`choice_large_scaling_et` with the large init scaled on
# {glue:text}`other_scaling` ({glue:text}`choice_large_scaling_in_ci`). The second table
# shows whether the performance effects themselves survive each change.

# %% tags=["remove-cell"]
summary.record("06_correlation_analysis", run_parameters,
               correlation_page.summary_rows(first, verdicts, rivals, robustness))
