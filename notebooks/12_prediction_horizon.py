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
# network will learn and how it will perform; its Discussion expects the eNTK to stay
# predictive during training, while the window of future it can predict may shrink. The
# {doc}`continuum chapter <10_rich_lazy_continuum>` found that, within an initial scale,
# the t=0 eNTK's associations with the outcomes are weak. This chapter asks the next
# question: **how much training must one watch before the outcome can be predicted, and
# does any kernel quantity predict better than, or add to, the representation and the
# losses one can observe at the same moment?**
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
# recorded ones are {glue:text}`hz_retrace`.
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
# **Criteria, declared before any number of this chapter existed** (the claims registry; the
# verdicts are at the end and on the verdicts page): a predictor *reaches* the declared
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
from myst_nb import glue

from lib.analyses import claims, continuum_sweeps, horizon, horizon_points
from lib.analyses.multiple_testing import holm_adjusted_finite
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
curves = {o: horizon.accuracy_curves(values, nets[o][use], groups, fractions, THRESHOLD, n_resamples, seed=i)
          for i, o in enumerate(OUTCOMES)}

glue("hz_seeds", f"{converged_seeds}", display=False)
glue("hz_single", f"{converged_iterations['single']:,}", display=False)
glue("hz_used", f"{int(use.sum())} of {use.size} networks{'' if converged_only else ' (every network: converged_only is off)'} ("
     + ", ".join(f"g = {g:g}: {n}" for g, n in zip(scales, per_scale)) + ")", display=False)
glue("hz_fractions", ", ".join(f"{100 * f:g}%" for f in fractions), display=False)
glue("hz_retrace", "identical" if retrace == 0 else f"equal to within {retrace:.1e} (relative)", display=False)
glue("hz_threshold", f"{THRESHOLD:g}", display=False)
glue("hz_early", f"{100 * EARLY:g}%", display=False)

# %% [markdown]
# (hz-figure)=
# ## Accuracy against the fraction of training

# %% tags=["hide-input"] mystnb={"figure": {"name": "fig-horizon", "caption": "Beyond the paper (no figure of the paper): how well each quantity observed at a fraction f of the single-task phase predicts each outcome, |r| with its Fisher 95% band, within init scales (top, scales weighed equally) and across them (bottom); kernel quantities solid, trivial rivals dashed; dotted line: the declared accuracy; grey: the 95% range of a chance |r| within scales. f = 0 is t = 0."}}
fig = plot_horizon.plot_horizon(curves, PREDICTORS, KERNELS, fractions, THRESHOLD)
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
import pandas as pd


def _fraction(f: float) -> str:
    return "\u2013" if not np.isfinite(f) else ("t = 0" if f == 0 else f"{100 * f:g}%")


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
glue("hz_across_t0_rival", _strongest("across", slice(len(KERNELS), None), slice(0, 1)), display=False)
glue("hz_within_t0", _strongest("within", slice(0, len(KERNELS)), slice(0, 1)), display=False)
glue("hz_within_kernel", _strongest("within", slice(0, len(KERNELS))), display=False)
glue("hz_within_rival", _strongest("within", slice(len(KERNELS), None)), display=False)
glue("hz_last", f"{100 * max(fractions):g}%", display=False)
shuffled = np.concatenate([np.abs(c["shuffled"]).ravel() for c in curves.values()])
shuffled = shuffled[np.isfinite(shuffled)]
null_half = curves[OUTCOMES[0]]["null_half"]
glue("hz_n_perm", f"{curves[OUTCOMES[0]]['shuffled'].shape[0]}", display=False)
glue("hz_shuffled", f"{np.mean(shuffled <= null_half):.1%}", display=False)
glue("hz_shuffled_q95", f"{np.quantile(shuffled, 0.95):.3f}", display=False)
glue("hz_null_half", f"{null_half:.3f}", display=False)


def _reached(c: dict, i: int) -> str:
    if not np.isfinite(c["earliest"][i]):
        return "\u2013"
    return f"{_fraction(c['earliest'][i])} ({_fraction(c['earliest_lo'][i])} to {_fraction(c['earliest_hi'][i])})"


earliest = pd.DataFrame({reader_name(o): [_reached(c, i) for i in range(len(PREDICTORS))] for o, c in curves.items()},
                        index=[reader_name(p) for p in PREDICTORS])
earliest.index.name = "predictor"
sure = [f"{reader_name(p)} for the {reader_name(o)} from {_fraction(c['earliest_sure'][i])}"
        for o, c in curves.items() for i, p in enumerate(PREDICTORS) if np.isfinite(c["earliest_sure"][i])]
glue("hz_sure", "; ".join(sure) if sure else "none", display=False)
reading_table(earliest)

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

# %% tags=["hide-input"]
from IPython.display import display

later = np.asarray(fractions) > 0
tests, labels, reverse, kernel_of, partial_r, partial_p = [], [], [], [], [], []
for o in OUTCOMES:
    comparison = horizon.beats_rivals(values[:len(KERNELS)], values[len(KERNELS):], nets[o][use], groups)
    added = horizon.added_information(values[:len(KERNELS)], values[len(KERNELS):], nets[o][use], groups)
    for k, name in enumerate(KERNELS):
        for f in np.flatnonzero(later):
            tests.append(comparison["p"][k, f])
            reverse.append(comparison["p_reverse"][k, f])
            partial_r.append(added["r_partial"][k, f])
            partial_p.append(added["p"][k, f])
            kernel_of.append(reader_name(name))
            labels.append((reader_name(name), reader_name(o), _fraction(fractions[f])))
p_holm, reverse_holm, partial_holm = (holm_adjusted_finite(p) for p in (tests, reverse, partial_p))
winners = [(*labels[i], p_holm[i]) for i in np.flatnonzero(p_holm <= 0.05)]
beaten = sorted({kernel_of[i] for i in np.flatnonzero(reverse_holm <= 0.05)})
glue("hz_n_tests", f"{len(tests)}", display=False)
if winners:
    beats_text = f"A kernel quantity beats every rival in {len(winners)} of {len(tests)} cells (first table below)."
else:
    beats_text = (f"No kernel quantity beats every rival in any of the {len(tests)} cells after the correction "
                  f"(smallest p before it: {min(tests):.2g}). The reverse test (some rival predicts better than the "
                  f"kernel quantity; the smallest p over the four rivals times four, Holm over the same cells) is "
                  f"significant in {int(np.sum(reverse_holm <= 0.05))} cells, for "
                  f"{len(beaten)} of the {len(KERNELS)} kernel quantities"
                  + (f" (never for: {', '.join(k for k in dict.fromkeys(kernel_of) if k not in beaten)})."
                     if len(beaten) < len(KERNELS) else "."))
glue("hz_beats_text", beats_text, display=False)
adds = [(*labels[i], f"{partial_r[i]:+.2f}", partial_holm[i]) for i in np.flatnonzero(partial_holm <= 0.05)]
glue("hz_adds_text", (f"Significant after the correction in {len(adds)} of {int(np.isfinite(partial_p).sum())} "
                      f"cells that could be tested"
                      + (" (second table below)." if adds else ".")), display=False)
if winners:
    display(reading_table(pd.DataFrame(winners, columns=["kernel quantity", "outcome", "fraction f",
                                                         "Holm-adjusted p"])))
if adds:
    display(reading_table(pd.DataFrame(adds, columns=["kernel quantity", "outcome", "fraction f",
                                                      "partial r given the rivals", "Holm-adjusted p"])))

# %% [markdown]
# (hz-verdicts)=
# ## Verdicts
#
# The claims of this chapter, each judged by the criterion the registry declared before the
# numbers existed, except the two marked as added after the numbers were seen (the verdicts
# page lists them with the others):
#
# {glue:text}`hz_verdicts`
#
# ## What this chapter cannot show
#
# The snapshots cover the single-task phase; the fine-tuning outcomes are predicted from
# quantities observed during single-task training, not during fine-tuning, and the paper's
# fifty standard/large pairs per schedule are not observed at fractions here. The accumulated
# eNTK is a trapezoid sum over the snapshots, not the ePNTK's sum over every step. The
# networks use the continuum's training sets of `n_train` patterns. Only networks whose
# single-task training converged are analysed; the others (see Design) are few, but their
# exclusion depends on how training went. The pooled within-scale correlations average over
# scales that can differ (the rich scales may carry more of a correlation than the lazy
# ones); the continuum chapter shows the per-scale correlations of its winners.

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
    "horizon-kernel-beats-rivals": claims.judge("horizon-kernel-beats-rivals", p=tests, p_reverse=reverse,
                                                labels=[" / ".join(label) for label in labels], kernel_of=kernel_of,
                                                n=int(use.sum())),
    "horizon-kernel-adds": claims.judge("horizon-kernel-adds", p=partial_p,
                                        labels=[" / ".join(label) for label in labels], n=int(use.sum())),
}
beats_v1 = claims.judge("horizon-kernel-beats-rivals", version=1, p=tests,
                        labels=[" / ".join(label) for label in labels], n=int(use.sum()))
verdict_line = lambda k, j: (f"- **{claims.CLAIMS[k].text}** (criterion v{j.version}): {j.verdict} ({j.ours}"
                             + (f"; {j.interval})" if j.interval else ")"))
glue("hz_verdicts", "\n".join([verdict_line(k, j) for k, j in judgements.items()]
                              + [verdict_line("horizon-kernel-beats-rivals", beats_v1)]), display=False)
kernel_first = min(min(c["earliest_sure"][:len(KERNELS)]) for c in curves.values())
rival_first = min(min(c["earliest_sure"][len(KERNELS):]) for c in curves.values())
by_when = lambda f, who: (f"{who} from {_fraction(f)} of the single-task phase" if np.isfinite(f)
                          else f"{who} at no fraction up to {100 * max(fractions):g}%")
answer = (f"Within init scales, an outcome is predicted with |r| beyond {THRESHOLD:g} (its uncorrected 95% "
          f"interval wholly beyond it) {by_when(rival_first, 'by the representation or losses observed so far')}, and "
          f"{by_when(kernel_first, 'by a kernel quantity')}; judged with the correction for the "
          f"{len(kernel_r)} early cells, the kernel's window is "
          f"{judgements['horizon-kernel-window'].verdict}. ")
BEATS = {"reproduced": f"A kernel quantity predicts better than every trivial rival in {len(winners)} of "
                       f"{len(tests)} comparisons (after Holm's correction)",
         "not reproduced": "No kernel quantity predicts better than the representation and losses observed at the "
                           "same moment, and for every kernel quantity some rival predicts better",
         "inconclusive": "No kernel quantity predicts significantly better than the representation and losses "
                         "observed at the same moment, and the rivals are not shown to predict better than every "
                         "kernel quantity (inconclusive)",
         "not tested": "Too few networks to judge whether a kernel quantity predicts better than the rivals",
         "borderline": "Whether a kernel quantity predicts better than the rivals is borderline"}
answer += BEATS[judgements["horizon-kernel-beats-rivals"].verdict]
n_partial = int(np.isfinite(partial_p).sum())
answer += ("." if n_partial == 0 else
           f"; in an exploratory test added after a review, a kernel quantity adds information to all the rivals "
           f"together in {len(adds)} of {n_partial} cells." if adds else
           "; in an exploratory test added after a review, no kernel quantity adds information to all the rivals "
           "together in any cell after the correction.")
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
                          "kernel quantity)", evidence=summary.evidence("hz-rivals", "rival comparison"),
                          earlier=[beats_v1]),
        summary.claim_row("partial r of a kernel quantity with an outcome given all trivial rivals (post hoc)", "",
                          judgements["horizon-kernel-adds"], control="Holm over every kernel quantity, outcome and "
                          "fraction", evidence=summary.evidence("hz-rivals", "rival comparison"))]
_ = summary.record("12_prediction_horizon",
                   dict(converged_scales=converged_scales, converged_seeds=converged_seeds, first_block=first_block,
                        converged_iterations=converged_iterations, lr_candidates=lr_candidates, n_lr_seeds=n_lr_seeds,
                        lr_choice_iterations=lr_choice_iterations, n_train=n_train, n_hidden=n_hidden,
                        fractions=fractions, converged_only=converged_only, n_resamples=n_resamples),
                   rows)
