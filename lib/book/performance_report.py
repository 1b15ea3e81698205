"""Chapter 05's tables, texts, verdicts and summary rows: how standard and large init perform
(paper Figs 10 and 17-19) as the reader sees it.

Book layer. The rules are :mod:`lib.analyses.performance_verdicts`' and the statistics
:mod:`lib.analyses.stats`'; every verdict comes from :func:`lib.analyses.claims.judge`. This module
summarises each (schedule, phase) of the figures' runs (:func:`phase_rows`), compares which init
first halves its test loss (:func:`speed_comparison`), judges the chapter's claims
(:func:`judge_claims`) and writes the page's tables, glued texts and summary rows. Checked in
``tests/test_performance_report.py``.

Shapes: P pairs, 2 inits (standard, large), T snapshots; losses are summed squared errors.
A run is the dict of :func:`lib.experiments.schedules.cached_schedule` (``iterations`` (T,),
``single/loss_test`` (P, 2, T), ...).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import claims, performance_verdicts, stats
from ..analyses.performance_verdicts import SingleTaskCounts
from . import summary
from .names import judgement_text
from .replication_report import replication_words

PHASES = ("single", "finetune")
CLAIM_KEYS = {"et_single": "perf-et-single", "et_finetune": "perf-et-finetune", "speed": "perf-multitask-speed",
              "runs": "perf-runs", "scale": "perf-scale", "lr_single": "perf-lr-single",
              "lr_finetune": "perf-lr-finetune", "train_test": "perf-train-test", "train_speed": "perf-train-speed"}


def phase_rows(runs: dict) -> list[dict]:
    """One row per (schedule, phase) of ``runs`` (schedule -> run): the paired trajectory summary of
    its test loss (:func:`lib.analyses.stats.paired_trajectory_summary`), the mean start losses, the
    pairs in which large init's time-averaged relative loss is lower and in which it halves first,
    and whether large init is better on average early in the phase."""
    rows = []
    for name, run in runs.items():
        its = run["iterations"]
        for phase in PHASES:
            losses = run[f"{phase}/loss_test"]
            relative = stats.relative_loss_area(losses)  # (P, 2) time-averaged loss relative to the start
            halving = stats.first_iteration_below(its, losses, 0.5)  # (P, 2), at snapshot resolution
            rows.append({"schedule": name, "phase": phase, **stats.paired_trajectory_summary(its, losses),
                         "start_standard": float(losses[:, 0, 0].mean()), "start_large": float(losses[:, 1, 0].mean()),
                         "pairs_large_faster": int((relative[:, 1] < relative[:, 0]).sum()),
                         "halving_large_first": int((halving[:, 1] < halving[:, 0]).sum()),
                         "early_large_better": performance_verdicts.large_better_early(losses)})
    return rows


def phase_texts(rows: list[dict]) -> dict[str, str]:
    """The page's texts of :func:`phase_rows`, named ``perf_<schedule>_<phase>_...``."""
    texts = {}
    for r in rows:
        k = f"perf_{r['schedule']}_{r['phase']}"
        texts |= {f"{k}_better": f"{r['pairs_standard_better_at_end']}/{r['n_pairs']}",
                  f"{k}_share": f"{r['share_standard_better']:.0%}",
                  f"{k}_settle": "never changes sign" if np.isnan(r["settles_at"]) else f"{r['settles_at']:.0f}"}
        texts |= {f"{k}_{stem}": f"{r[stem]:.1f}" for stem in ("start_standard", "start_large", "final_standard",
                                                                "final_large")}
        texts[f"{k}_start_ratio"] = f"{r['start_large'] / r['start_standard']:.2f}"
    return texts


def phase_view(rows: list[dict]) -> pd.DataFrame:
    """The reader's table of :func:`phase_rows`: start and end test loss and where standard init is
    better (numbers as text; None where a value does not exist, e.g. a sign that never settles)."""
    shown = pd.DataFrame(rows).drop(columns=["early_large_better", "n_pairs", "pairs_large_faster",
                                             "halving_large_first"])
    shown = shown.rename(columns={"pairs_standard_better_at_end": "standard lower at end",
                                  "share_standard_better": "share of snapshots standard better",
                                  "settles_at": "final sign from", "start_standard": "start, standard",
                                  "start_large": "start, large", "final_standard": "final, standard",
                                  "final_large": "final, large"})
    for column, form in {"final, standard": "{:.2f}", "final, large": "{:.2f}",
                         "share of snapshots standard better": "{:.0%}", "final sign from": "{:.0f}",
                         "start, standard": "{:.1f}", "start, large": "{:.1f}"}.items():
        shown[column] = [form.format(v) if np.isfinite(v) else None for v in shown[column]]
    return shown


def pair_view(counts: SingleTaskCounts) -> pd.DataFrame:
    """The reader's table of the single-task ET pairs of a block (:func:`lib.analyses.performance_verdicts.single_task_counts`):
    standard init ending lower, the paper's pattern, and the spread of standard init's final test loss."""
    final, n = counts.final_standard, counts.n
    q05, q95 = np.quantile(final, [0.05, 0.95])
    return pd.DataFrame([
        {"ET pairs (single-task)": "standard init ends lower", "pairs": f"{counts.overtaken}/{n}"},
        {"ET pairs (single-task)": f"large lower at iteration {counts.early_iteration} and standard lower at the end",
         "pairs": f"{counts.pattern}/{n}"},
        {"ET pairs (single-task)": "final test loss of standard init: 95th / 5th percentile",
         "pairs": f"{q95:.1f} / {q05:.1f} = {q95 / q05:.1f}x"},
        {"ET pairs (single-task)": "final test loss of standard init: max / min",
         "pairs": f"{final.max():.1f} / {final.min():.1f} = {final.max() / final.min():.1f}x"}])


def early_agreement(runs: dict, early: dict) -> float:
    """The largest relative difference between the early-phase re-runs (``early``: schedule -> run,
    sampled finer) and the cached ``runs`` at the snapshots they share; raises AssertionError where
    the two differ beyond float32 rounding (relative 1e-5), naming the schedule and phase."""
    worst = 0.0
    for name, run in runs.items():
        _, i, j = np.intersect1d(run["iterations"], early[name]["iterations"], return_indices=True)
        for phase in PHASES:
            a, b = run[f"{phase}/loss_test"][..., i], early[name][f"{phase}/loss_test"][..., j]
            np.testing.assert_allclose(b, a, rtol=1e-5, err_msg=f"{name} {phase}: early run differs from the cached run")
            worst = max(worst, float(np.max(np.abs(b - a) / np.abs(a))))
    return worst


class SpeedComparison(NamedTuple):
    """Which init first halves its test loss from its own start, per (schedule, phase) and pooled."""

    halving: dict  # (schedule, phase) -> (P, 2) iteration of halving (nan: never in the window)
    compared: dict  # (schedule, phase) -> stats.halving_comparison's counts
    pooled: dict  # phase -> {"large_faster", "n_pairs"} summed over the schedules
    windows: dict  # schedule -> the last iteration of its early window


def speed_comparison(early: dict) -> SpeedComparison:
    """:class:`SpeedComparison` of the early-phase runs (schedule -> run)."""
    halving = {(name, phase): stats.halving_iteration(early[name]["iterations"], early[name][f"{phase}/loss_test"])
               for name in early for phase in PHASES}
    compared = {key: stats.halving_comparison(times) for key, times in halving.items()}
    pooled = {phase: {k: sum(compared[name, phase][k] for name in early) for k in ("large_faster", "n_pairs")}
              for phase in PHASES}
    return SpeedComparison(halving, compared, pooled, {name: early[name]["iterations"][-1] for name in early})


def _median_or_none(times: np.ndarray) -> str | None:
    return f"{np.nanmedian(times):.0f}" if np.isfinite(times).any() else None


def speed_view(s: SpeedComparison) -> pd.DataFrame:
    """The reader's table of :func:`speed_comparison`: per (schedule, phase) the pairs in which each
    init halves first, ties, neither, and the median halving iterations."""
    return pd.DataFrame([{"schedule": name, "phase": phase, "window": f"0-{s.windows[name]}",
                          "large halves first": c["large_faster"], "standard halves first": c["standard_faster"],
                          "tied": c["tied"], "neither halves": c["neither"], "pairs": c["n_pairs"],
                          "median halving, standard": _median_or_none(s.halving[name, phase][:, 0]),
                          "median halving, large": _median_or_none(s.halving[name, phase][:, 1])}
                         for (name, phase), c in s.compared.items()])


def speed_texts(s: SpeedComparison, worst: float) -> dict[str, str]:
    """The page's texts of :func:`speed_comparison`, and how closely the early re-runs equal the
    cached runs (``worst``: :func:`early_agreement`)."""
    return ({f"perf_speed_{name}_{phase}": f"{c['large_faster']}/{c['n_pairs']}" for (name, phase), c in s.compared.items()}
            | {f"perf_speed_{phase}": f"{s.pooled[phase]['large_faster']}/{s.pooled[phase]['n_pairs']}" for phase in PHASES}
            | {"perf_speed_worst": "exactly (bit for bit)" if worst == 0 else f"to a relative {worst:.0e}"})


class PerformanceMeasures(NamedTuple):
    """What chapter 05's claims read."""

    rows: dict  # (schedule, phase) -> the row of phase_rows on the figures' runs
    n_pairs: int  # pairs per schedule in the figures' runs
    counts: SingleTaskCounts  # the discovery block's single-task ET counts
    pooled: dict  # SpeedComparison.pooled
    start_ratio: float  # median over the verdict pairs of large / standard test loss at the start of fine-tuning
    train_loss: dict  # schedule -> phase -> (P, 2, T) training loss of the figures' runs
    test_loss: dict  # schedule -> phase -> (P, 2, T) test loss of the same runs
    split: str  # the train/test split ("iid": the sets overlap)


class PerformanceJudgements(NamedTuple):
    """Chapter 05's judgements by key (:data:`CLAIM_KEYS`): under the criteria in force, and each
    claim's earlier versions."""

    in_force: dict
    earlier: dict


def start_ratio(runs: dict) -> float:
    """Median over every pair of ``runs`` (schedule -> run) of large / standard init's test loss at the
    start of fine-tuning."""
    return float(np.median(np.concatenate([r["finetune/loss_test"][:, 1, 0] / r["finetune/loss_test"][:, 0, 0]
                                           for r in runs.values()])))


def judge_claims(m: PerformanceMeasures) -> PerformanceJudgements:
    """Every claim of chapter 05, by the criteria in force and by each earlier version."""
    et_s, et_f, lr_s, lr_f = (m.rows[k] for k in (("ET", "single"), ("ET", "finetune"), ("LR", "single"),
                                                  ("LR", "finetune")))
    n_figures = 2 * m.n_pairs  # pairs of both schedules in the figures
    start_note = performance_verdicts.head_start_note(m.start_ratio)
    single = performance_verdicts.judge_single_task(m.counts)
    train_below = performance_verdicts.train_below_test(m.train_loss, m.test_loss)
    final = m.test_loss["ET"]["single"][:, :, -1]
    in_force = {
        "et_single": single["perf-et-single"],
        "et_finetune": claims.judge("perf-et-finetune", value=et_f["share_standard_better"]),
        "speed": claims.judge("perf-multitask-speed", k=m.pooled["finetune"]["large_faster"],
                              n=m.pooled["finetune"]["n_pairs"], k_control=m.pooled["single"]["large_faster"],
                              n_control=m.pooled["single"]["n_pairs"], qualification=start_note),
        "runs": single["perf-runs"], "scale": single["perf-scale"],
        "lr_single": claims.judge("perf-lr-single", value=lr_s["share_standard_better"]),
        "lr_finetune": claims.judge("perf-lr-finetune", value=lr_f["share_standard_better"]),
        "train_test": claims.judge("perf-train-test", conditions=claims.named_conditions(
            "perf-train-test", [all(train_below.values())]), ours=f"{sum(train_below.values())}/{len(train_below)} cells",
            qualification="train and test sets overlap (i.i.d. split)" if m.split == "iid" else ""),
        "train_speed": claims.judge("perf-train-speed", conditions=claims.named_conditions(
            "perf-train-speed", performance_verdicts.train_speed_conditions(m.train_loss, m.test_loss))),
    }
    earlier = {
        "et_single": [claims.judge("perf-et-single", version=1, conditions=claims.named_conditions(
            "perf-et-single", [et_s["early_large_better"], et_s["pairs_standard_better_at_end"] > m.n_pairs / 2],
            version=1), ours=f"large better early: {et_s['early_large_better']}; standard lower at end in "
                             f"{et_s['pairs_standard_better_at_end']}/{m.n_pairs} pairs")],
        "speed": [claims.judge("perf-multitask-speed", version=1,
                               value=(et_f["halving_large_first"] + lr_f["halving_large_first"]) / n_figures,
                               qualification=start_note),
                  claims.judge("perf-multitask-speed", version=2,
                               value=(et_f["pairs_large_faster"] + lr_f["pairs_large_faster"]) / n_figures,
                               qualification=start_note)],
        "runs": [claims.judge("perf-runs", version=1, value=et_s["pairs_standard_better_at_end"] / m.n_pairs)],
        "scale": [claims.judge("perf-scale", version=1, value=float(final[:, 0].max() / final[:, 0].min()))],
        "lr_single": [claims.judge("perf-lr-single", version=1, value=lr_s["share_standard_better"])],
    }
    return PerformanceJudgements(in_force, earlier)


def single_task_judgements(j: PerformanceJudgements) -> dict[str, claims.Judgement]:
    """claim -> judgement in force of the single-task ET claims
    (:data:`lib.analyses.performance_verdicts.SINGLE_TASK_CLAIMS`), the ones with a replication block."""
    return {claim: j.in_force[key] for key, claim in CLAIM_KEYS.items()
            if claim in performance_verdicts.SINGLE_TASK_CLAIMS}


def replication_texts(discovery: dict[str, claims.Judgement], replicated: dict[str, claims.Judgement]) -> dict[str, str]:
    """The page's texts of the replication block: per claim (``perf_<claim>_replication``) its
    numbers, verdict and whether it replicates the discovery block's."""
    return {f"perf_{claim.removeprefix('perf-').replace('-', '_')}_replication": replication_words(discovery[claim], j)
            for claim, j in replicated.items()}


SPEED_MEANING = {
    "not discriminating": "the measure calls large init faster in single-task training too, where the paper claims "
                          "no such advantage, so it does not single out multitask fine-tuning",
    "reproduced": "large init halves its loss first in more than half of the fine-tuning pairs (the whole interval), "
                  "and not so in single-task training",
    "reproduced with qualification": "large init halves its loss first in more than half of the fine-tuning pairs, "
                                     "and not so in single-task training, with the caveat stated",
    "not reproduced": "large init halves its loss first in fewer than half of the fine-tuning pairs (the whole interval)",
    "inconclusive": "the interval of the fine-tuning share includes one half",
    "borderline": "the verdict changes with the seed of the test's random draws",
    "not tested": "too few pairs for the criterion's minimum sample"}


def verdict_texts(j: PerformanceJudgements) -> dict[str, str]:
    """The page's texts of the judgements: each claim's verdict, numbers and interval, and what the
    speed verdict means."""
    speed = j.in_force["speed"]
    texts = {}
    for key, judgement in j.in_force.items():
        texts |= {f"perf_{key}_verdict": judgement.verdict, f"perf_{key}_ours": judgement.ours,
                  f"perf_{key}_interval": judgement.interval or "-"}
    return texts | {"perf_speed_meaning": SPEED_MEANING[speed.verdict],
                    "perf_speed_detail": f"fine-tuning {speed.ours}; exact 95% intervals {speed.interval}"
                                         + (f"; {speed.qualification}" if speed.qualification else ""),
                    "perf_scale_stability": j.in_force["scale"].stability}


def verdict_view(j: PerformanceJudgements) -> pd.DataFrame:
    """The reader's table of the judgements in force: verdict, claim (with its figure), our numbers,
    interval and criterion."""
    def claim_text(claim: str) -> str:
        c = claims.CLAIMS[claim]
        return c.text + (f" ({c.figure})" if c.figure else "")

    return pd.DataFrame([{"verdict": judgement_text(v, badge=True),
                          "claim": claim_text(v.claim), "ours": v.ours, "interval": v.interval,
                          "criterion": v.criterion} for v in j.in_force.values()])


def claim_rows(j: PerformanceJudgements, replicated: dict, precision: dict, replication_block: str,
               n_verdict_pairs: int, wall_time_s: float, worst: float) -> list[dict]:
    """The summary rows of chapter 05 (:func:`lib.book.summary.claim_row`): every claim with its
    earlier versions, the single-task ET claims with their replication block (``replicated``: claim
    -> judgement; ``precision``: claim -> note; ``replication_block``: its seeds in words), and two
    checks: the runs' wall time and the early re-runs' agreement with the cached runs."""
    E, v, earlier = summary.evidence, j.in_force, j.earlier
    P = f"{n_verdict_pairs} pairs per schedule"
    replication = lambda claim: dict(replication=replicated[claim], replication_block=replication_block,
                                     precision=precision.get(claim, ""))
    return [
        summary.claim_row(f"Fig 10, ET single-task: pairs in which large init is lower at 10% of the phase and "
                          f"standard init at its end ({P})", "yes", v["et_single"], control="per pair (same draw, "
                          "same data)", evidence=E("tab-perf-pairs", "pairs table"), earlier=earlier["et_single"],
                          **replication("perf-et-single")),
        summary.claim_row("Fig 10, ET fine-tuning: large init better throughout", "clear and sustained",
                          v["et_finetune"], control="paired differences", evidence=E("fig-perf-et", "Fig 10 (ET)")),
        summary.claim_row(f"large init acquires multitasking faster: pairs in which large init's fine-tuning test loss "
                          f"halves first from its own start (ET + LR, {P}); control: the same in single-task training",
                          "faster", v["speed"], control="the same measure in single-task training (negative control)",
                          evidence=E("tab-perf-speed", "halving times"), earlier=earlier["speed"]),
        summary.claim_row(f"Fig 17: ET pairs in which standard init ends the single-task phase below large init ({P})",
                          "every trial", v["runs"], control="per pair, no averaging",
                          evidence=E("tab-perf-pairs", "pairs table"), earlier=earlier["runs"],
                          **replication("perf-runs")),
        summary.claim_row(f"Fig 17: spread of final single-task test loss over ET pairs, standard init ({P})",
                          "over an order of magnitude", v["scale"], control="a quantile ratio (does not grow with "
                          "the pairs)", evidence=E("tab-perf-pairs", "pairs table"), earlier=earlier["scale"],
                          **replication("perf-scale")),
        summary.claim_row("Fig 18, LR single-task: standard init better (transient removed)", "yes", v["lr_single"],
                          control="paired differences", evidence=E("fig-perf-lr", "Fig 18"),
                          earlier=earlier["lr_single"]),
        summary.claim_row("Fig 18, LR fine-tuning: large init better throughout", "yes", v["lr_finetune"],
                          control="paired differences", evidence=E("fig-perf-lr", "Fig 18")),
        summary.claim_row("Fig 19: mean final training loss below test loss ((schedule, phase, init) cells)", "yes",
                          v["train_test"], control="disjoint split (chapter 06)",
                          evidence=E("fig-perf-train-test", "Fig 19")),
        summary.claim_row("Fig 19: ET large init fits the training set faster without a lower final test loss; LR "
                          "standard init ends with lower fine-tuning training loss without lower test loss", "yes",
                          v["train_speed"], control="-", evidence=E("fig-perf-train-test", "Fig 19")),
        summary.row("wall time of the runs (both schedules, both phases, all pairs)", "-", f"{wall_time_s:.0f} s",
                    None, "measured when first computed"),
        summary.row("early-phase re-runs vs the cached runs at shared snapshots: largest relative difference", "-",
                    f"{worst:.1e}", worst <= 1e-5, "float32 agreement (<= 1e-5)"),
    ]
