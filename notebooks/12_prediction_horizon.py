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
# # Beyond the paper: the prediction horizon
#
# The paper asks whether the eNTK at the start of training tells which representation a
# network will learn and how it will perform, and its Discussion hopes for a *time window*
# in which the kernel predicts the outcome. The continuum chapter found that, within an
# initial scale, the t=0 eNTK predicts nothing measurable. This chapter asks the next
# question: **how much training must one watch before the outcome can be predicted, and
# does any kernel quantity know more than the representation and the losses one can
# observe at the same moment?**
#
# **Answer.** {glue:text}`hz_answer`
#
# :::{dropdown} Parameters of this chapter
# | name | meaning | allowed |
# |---|---|---|
# | `converged_scales`, `converged_seeds`, `first_block`, `converged_iterations`, `lr_candidates`, `n_lr_seeds`, `lr_choice_iterations`, `n_train`, `n_hidden` | the converged continuum of the continuum chapter (its values there: the runs and outcomes are read from its cache) | as in the continuum chapter; `converged_seeds` >= 4 |
# | `fractions` | fractions f of the single-task phase at which the networks are observed | increasing list of >= 3 numbers in [0, 0.5], starting at 0, giving distinct iterations |
# | `converged_only` | analyse only the networks whose single-task training converged (the quick profile, too short to converge, analyses all) | True or False |
# | `n_resamples` | bootstrap resamples for the interval of the earliest fraction | integer in [100, 100000] |
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

# %% tags=["remove-cell"]
from lib.book.chapter_parameters import check_prediction_horizon

check_prediction_horizon(converged_scales, converged_seeds, first_block, converged_iterations, lr_candidates,
                         n_lr_seeds, lr_choice_iterations, n_train, n_hidden, fractions, converged_only,
                         n_resamples)

# %% [markdown]
# ## Design
#
# **Networks.** Every network of the converged continuum (the continuum chapter): the
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
# where the continuum recorded its test loss, the retrained networks' test losses differ
# from the recorded ones by at most {glue:text}`hz_retrace` (relative).
#
# **Predictors at t = fT**, one number per network and fraction:
# - *kernel quantities*: the eNTK silhouette of both variants (the paper's leading-vector
#   structure), the silhouette of the eNTK accumulated so far (the trapezoid rule over the
#   snapshots, a coarse stand-in for the ePNTK, which sums the eNTK over every step),
#   the eNTK-target alignment (does the kernel's next step point where the test outputs
#   must go) and the NTK-target alignment;
# - *trivial rivals*, what anyone training the network sees without a kernel: the sharing
#   index of the hidden representation (its task-similarity structure so far), the
#   training and test losses so far, and the slope of the log training loss.
#
# **Outcomes**: the trained network's sharing index (its learned task similarity), its final
# single-task test loss, and the fine-tuning speed and final multitask test loss of the
# continuum chapter.
#
# **Accuracy** is the size |r| of a correlation between predictor and outcome. *Within
# scales* (what matters for telling networks of the same scale apart): both variables
# standardised within each scale, so that every scale weighs the same (the continuum
# chapter's pooled within-scale r); *across scales*: the plain correlation, which mostly
# measures the scale itself. Intervals are Fisher-z 95% intervals; for the pooled
# within-scale r the standard error of z is that of the average of the per-scale z's.
#
# **Criteria, declared before any number of this chapter existed** (the claims registry; the
# verdicts are at the end and on the verdicts page): a predictor *reaches* the declared
# accuracy |r| = {glue:text}`hz_threshold` when its interval lies beyond it. "Early" means
# f <= {glue:text}`hz_early`. A kernel quantity *beats* the rivals at a fraction when
# Williams' t for dependent correlations shows its |r| above every rival's at that fraction,
# corrected (Holm) over every kernel quantity, outcome and fraction.

# %% tags=["hide-input"]
import matplotlib.pyplot as plt
import numpy as np
from myst_nb import glue

from lib.analyses import claims, continuum_sweeps, horizon, horizon_points
from lib.analyses.multiple_testing import holm_adjusted
from lib.book import plot_horizon
from lib.book.names import reader_name
from lib.book.tables import reading_table

KERNELS, RIVALS = list(horizon_points.KERNEL_PREDICTORS), list(horizon_points.RIVAL_PREDICTORS)
PREDICTORS = KERNELS + RIVALS
OUTCOMES = ["sharing_final", "loss_single_test", "finetune_speed", "loss_finetune_test"]
THRESHOLD = claims.criterion("horizon-kernel-window").settings["threshold"]
EARLY = horizon.EARLY_FRACTION

scales = [float(g) for g in converged_scales]
common = dict(n_single=converged_iterations["single"], n_finetune=converged_iterations["finetune"],
              n_route=converged_iterations["route"], n_train=n_train, n_test=n_train, n_hidden=n_hidden)
nets = continuum_sweeps.converged_sweep(scales, [float(lr) for lr in lr_candidates], n_lr_seeds, lr_choice_iterations,
                                        converged_seeds, first_block, common)
learning_rates = [float(nets["lr"][nets["g"] == g][0]) for g in scales]
snaps = horizon_points.horizon_sweep(scales, learning_rates, converged_seeds, common, fractions)
if not (np.array_equal(snaps["g"], nets["g"]) and np.array_equal(snaps["seed"], nets["seed"])):
    raise RuntimeError("the horizon's networks are not the converged continuum's (scale and seed order differ)")

# the retrained snapshots are the continuum's trajectories: compare the test loss where both recorded it
retrace = max(float(np.max(np.abs(snaps["loss_test"][fractions.index(f)] - nets[f"loss_single_test_{pct}pct"])
                           / nets[f"loss_single_test_{pct}pct"]))
              for f, pct in ((0.1, 10), (0.2, 20)) if f in fractions)
if not retrace < 1e-4:
    raise RuntimeError(f"retrained snapshots' test loss differs from the continuum's by {retrace:.2g} (relative), "
                       "more than float32 agreement allows")

use = nets["converged"] == 1 if converged_only else np.ones(nets["g"].shape, bool)
groups = nets["g"][use]
values = np.stack([snaps[p][:, use] for p in PREDICTORS])  # (P, F, N)
per_scale = [int(np.sum(groups == g)) for g in scales]
if min(per_scale) < 4:
    raise RuntimeError(f"every scale needs >= 4 analysed networks for a within-scale correlation, got {per_scale} "
                       f"for scales {scales} (converged_only={converged_only})")
curves = {o: horizon.accuracy_curves(values, nets[o][use], groups, fractions, THRESHOLD, n_resamples)
          for o in OUTCOMES}

glue("hz_seeds", f"{converged_seeds}", display=False)
glue("hz_single", f"{converged_iterations['single']:,}", display=False)
glue("hz_used", f"{int(use.sum())} of {use.size} networks{'' if converged_only else ' (every network: converged_only is off)'} ("
     + ", ".join(f"g = {g:g}: {n}" for g, n in zip(scales, per_scale)) + ")", display=False)
glue("hz_fractions", ", ".join(f"{100 * f:g}%" for f in fractions), display=False)
glue("hz_retrace", f"{retrace:.1e}", display=False)
glue("hz_threshold", f"{THRESHOLD:g}", display=False)
glue("hz_early", f"{100 * EARLY:g}%", display=False)

# %% [markdown]
# (hz-figure)=
# ## Accuracy against the fraction of training

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-horizon", "caption": "Beyond the paper (no figure of the paper): how well each quantity observed at a fraction f of the single-task phase predicts each outcome, |r| with its Fisher 95% band, within init scales (top, scales weighed equally) and across them (bottom); kernel quantities solid, trivial rivals dashed; dotted line: the declared accuracy; grey: the 95% range of a chance |r| within scales. f = 0 is t = 0."}}
fig = plot_horizon.plot_horizon(curves, PREDICTORS, KERNELS, fractions, THRESHOLD)
plt.show()

# %% [markdown]
# **Reading the figure.** Across scales (bottom row), kernel quantities at t = 0 already
# correlate with the outcomes (largest: {glue:text}`hz_across_t0`): the init scale moves the
# kernel and the outcome together. Within scales (top row), where networks of one scale must
# be told apart, the largest |r| of any kernel quantity at any fraction is
# {glue:text}`hz_within_kernel`, while the representation and the losses observed so far reach
# {glue:text}`hz_within_rival`.
#
# The negative control: with each outcome permuted within its scale, the within-scale |r|
# of every predictor at every fraction should fall inside the grey chance band about 95% of
# the time; it does in {glue:text}`hz_shuffled` cells.
#
# (hz-earliest)=
# ## The earliest fraction at which each quantity predicts
#
# For each predictor and outcome, the first fraction at which its within-scale |r| reaches
# {glue:text}`hz_threshold` ("not by" the last fraction when it never does), with a bootstrap
# 95% interval (networks resampled within each scale). Reaching it is not yet certainty: the
# cells whose Fisher 95% interval lies wholly beyond {glue:text}`hz_threshold` at some fraction
# are {glue:text}`hz_sure`.

# %% tags=["hide-input"]
import pandas as pd


def _fraction(f: float) -> str:
    return f"not by {100 * max(fractions):g}%" if not np.isfinite(f) else ("t = 0" if f == 0 else f"{100 * f:g}%")


def _strongest(kind: str, rows: slice, at=slice(None)) -> str:
    """The largest |r| of ``kind`` ("within" or "across") over the predictors ``rows``, every outcome
    and the fractions ``at``, as text with its predictor, outcome and fraction."""
    best = max(((abs(c[kind][i, f]), i, o, f) for o, c in curves.items()
                for i in range(len(PREDICTORS))[rows] for f in range(len(fractions))[at]
                if np.isfinite(c[kind][i, f])), default=None)
    if best is None:
        return "undefined"
    size, i, o, f = best
    return f"|r| = {size:.2f} ({reader_name(PREDICTORS[i])} with the {reader_name(o)}, at {_fraction(fractions[f])})"


glue("hz_across_t0", _strongest("across", slice(0, len(KERNELS)), slice(0, 1)), display=False)
glue("hz_within_kernel", _strongest("within", slice(0, len(KERNELS))), display=False)
glue("hz_within_rival", _strongest("within", slice(len(KERNELS), None)), display=False)
shuffled_inside = np.concatenate([(np.abs(c["shuffled"]) <= c["null_half"]).ravel() for c in curves.values()])
glue("hz_shuffled", f"{shuffled_inside.mean():.0%} of {shuffled_inside.size}", display=False)
earliest = pd.DataFrame({reader_name(o): [f"{_fraction(c['earliest'][i])} [{_fraction(c['earliest_lo'][i])}, "
                                          f"{_fraction(c['earliest_hi'][i])}]" for i in range(len(PREDICTORS))]
                         for o, c in curves.items()}, index=[reader_name(p) for p in PREDICTORS])
earliest.index.name = "predictor"
sure = [f"{reader_name(p)} for the {reader_name(o)} from {_fraction(c['earliest_sure'][i])}"
        for o, c in curves.items() for i, p in enumerate(PREDICTORS) if np.isfinite(c["earliest_sure"][i])]
glue("hz_sure", "; ".join(sure) if sure else "none", display=False)
reading_table(earliest)

# %% [markdown]
# (hz-rivals)=
# ## Does a kernel quantity beat the rivals observed at the same moment?
#
# At every fraction after t = 0, each kernel quantity against every trivial rival (Williams'
# t on the within-scale correlations, each predictor oriented by the sign of its own r; the
# kernel must beat every rival); Holm's correction over the {glue:text}`hz_n_tests` tests.
# {glue:text}`hz_beats_text`

# %% tags=["hide-input"]
later = np.asarray(fractions) > 0
tests, labels, reverse = [], [], []
for o in OUTCOMES:
    comparison = horizon.beats_rivals(values[:len(KERNELS)], values[len(KERNELS):], nets[o][use], groups)
    for k, name in enumerate(KERNELS):
        for f in np.flatnonzero(later):
            tests.append(comparison["p"][k, f])
            reverse.append(comparison["p_reverse"][k, f])
            labels.append((reader_name(name), reader_name(o), _fraction(fractions[f])))
p_holm, reverse_holm = holm_adjusted(tests), holm_adjusted(reverse)
winners = [(*labels[i], p_holm[i]) for i in np.flatnonzero(p_holm <= 0.05)]
rivals_win = int(np.sum(reverse_holm <= 0.05))
glue("hz_n_tests", f"{len(tests)}", display=False)
if winners:
    beats_text = (f"A kernel quantity beats every rival in {len(winners)} of {len(tests)} cells (table below).")
else:
    beats_text = (f"No kernel quantity beats every rival in any of the {len(tests)} cells after the correction. "
                  f"The reverse test (some rival predicts better than the kernel quantity, Holm over the same "
                  f"cells) is significant in {rivals_win} cells.")
glue("hz_beats_text", beats_text, display=False)
if winners:
    reading_table(pd.DataFrame(winners, columns=["kernel quantity", "outcome", "fraction f", "Holm-adjusted p"]))

# %% [markdown]
# (hz-verdicts)=
# ## Verdicts
#
# The four claims of this chapter, each judged by the criterion the registry declared before
# the numbers existed (the verdicts page lists them with the others):
#
# {glue:text}`hz_verdicts`
#
# ## What this chapter cannot show
#
# The snapshots cover the single-task phase; the fine-tuning outcomes are predicted from
# quantities observed during single-task training, not during fine-tuning, and the paper's
# fifty standard/large pairs per schedule are not observed at fractions here. The accumulated
# eNTK is a trapezoid sum over the snapshots, not the ePNTK's sum over every step. The
# networks use the continuum's training sets of `n_train` patterns.

# %% tags=["remove-cell"]
from lib.book import summary

n_per_group = per_scale
early = [i for i, f in enumerate(fractions) if 0 < f <= EARLY]
cells = lambda names, outcomes: ([curves[o]["within"][PREDICTORS.index(p), f] for o in outcomes for p in names
                                  for f in early],
                                 [f"{reader_name(p)} -> {reader_name(o)} at {_fraction(fractions[f])}"
                                  for o in outcomes for p in names for f in early])
kernel_r, kernel_labels = cells(KERNELS, OUTCOMES)
sharing_r, sharing_labels = cells(["sharing"], ["sharing_final"])
loss_r, loss_labels = cells(["loss_test"], ["loss_single_test"])
judgements = {
    "horizon-kernel-window": claims.judge("horizon-kernel-window", r=kernel_r, labels=kernel_labels,
                                          n_per_group=n_per_group),
    "horizon-representation-window": claims.judge("horizon-representation-window", r=sharing_r, labels=sharing_labels,
                                                  n_per_group=n_per_group),
    "horizon-loss-window": claims.judge("horizon-loss-window", r=loss_r, labels=loss_labels, n_per_group=n_per_group),
    "horizon-kernel-beats-rivals": claims.judge("horizon-kernel-beats-rivals", p=tests,
                                                labels=[" / ".join(label) for label in labels], n=int(use.sum())),
}
glue("hz_verdicts", "\n".join(f"- **{claims.CLAIMS[k].text}**: {j.verdict} ({j.ours}; {j.interval})"
                              if j.interval else f"- **{claims.CLAIMS[k].text}**: {j.verdict} ({j.ours})"
                              for k, j in judgements.items()), display=False)
kernel_first = min(min(c["earliest_sure"][:len(KERNELS)]) for c in curves.values())
rival_first = min(min(c["earliest_sure"][len(KERNELS):]) for c in curves.values())
by_when = lambda f, who: (f"{who} from {_fraction(f)} of the single-task phase" if np.isfinite(f)
                          else f"{who} at no fraction up to {100 * max(fractions):g}%")
answer = (f"Within init scales, an outcome is predicted with |r| surely beyond {THRESHOLD:g} (its 95% interval) "
          f"{by_when(rival_first, 'by the representation or losses observed so far')}, and "
          f"{by_when(kernel_first, 'by a kernel quantity')}. ")
answer += ("No kernel quantity beats the representation and losses observed at the same moment."
           if not winners else f"A kernel quantity beats every trivial rival in {len(winners)} of {len(tests)} "
           "comparisons (after Holm's correction).")
glue("hz_answer", answer, display=False)

rows = [summary.claim_row("within-scale |r| of an eNTK quantity at f <= 10% with an outcome", "a time window of "
                          "prediction (Discussion)", judgements["horizon-kernel-window"],
                          control="the same criterion for the trivial rivals (next rows) and a within-scale shuffled "
                          "outcome", evidence=summary.evidence("hz-figure", "horizon figure")),
        summary.claim_row("within-scale |r| of the sharing index at f <= 10% with its final value", "",
                          judgements["horizon-representation-window"], control="the shuffled outcome",
                          evidence=summary.evidence("hz-figure", "horizon figure")),
        summary.claim_row("within-scale |r| of the test loss at f <= 10% with the final test loss", "",
                          judgements["horizon-loss-window"], control="the shuffled outcome",
                          evidence=summary.evidence("hz-figure", "horizon figure")),
        summary.claim_row("a kernel quantity predicts better than every trivial rival at the same f", "",
                          judgements["horizon-kernel-beats-rivals"], control="the reverse test (a rival beats the "
                          "kernel quantity)", evidence=summary.evidence("hz-rivals", "rival comparison"))]
_ = summary.record("12_prediction_horizon",
                   dict(converged_scales=converged_scales, converged_seeds=converged_seeds, first_block=first_block,
                        converged_iterations=converged_iterations, lr_candidates=lr_candidates, n_lr_seeds=n_lr_seeds,
                        lr_choice_iterations=lr_choice_iterations, n_train=n_train, n_hidden=n_hidden,
                        fractions=fractions, converged_only=converged_only, n_resamples=n_resamples),
                   rows)
