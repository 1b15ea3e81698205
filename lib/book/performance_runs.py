"""Chapter 05's blocks of work, one call each: the schedule runs (the figures' pairs, the verdicts'
pairs and their wall time), the early-phase speed measure, the chapter's verdicts and the
replication block of new pairs.

Book layer. The runs come from the results cache (:mod:`lib.experiments.schedules`,
:mod:`lib.experiments.sweep_points`), the rules from :mod:`lib.analyses.performance_verdicts`
and the tables, texts and judgements from :mod:`lib.book.performance_report`; this module joins
them for the chapter. Checked in ``tests/test_performance_runs.py``.

A plan maps each schedule ("ET", "LR") to (seeds, iterations per phase); a run is the dict of
:func:`lib.experiments.schedules.cached_schedule` (``iterations`` (T,), ``single/loss_test``
(P, 2, T), ...); P pairs, 2 inits (standard, large); losses are summed squared errors.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..analyses import performance_verdicts, replication
from ..analyses.performance_verdicts import SingleTaskCounts
from ..core.tasks import TaskEnvironment
from ..experiments.schedules import cached_schedule, schedule_wall_time_s
from ..experiments.sweep_points import cached_early_phase_blocks, cached_schedule_blocks
from . import performance_report
from .correlation_report import block_words

# the declared speed measure (perf-multitask-speed, version 3): the first 10% of each phase, a snapshot every 10
# iterations; the iteration at which a network's test loss falls to half its own value at the start of the phase
EARLY_FRACTION, EARLY_EVERY = 0.1, 10
PHASE_WORDS = {"single": "single-task", "finetune": "fine-tuning"}


class ScheduleRuns(NamedTuple):
    """The chapter's schedule runs (:func:`schedule_runs`): ``env``, ``choices`` (``split``,
    ``large_scaling``), ``figures`` (schedule -> run of the figures' pairs), ``verdicts`` (schedule ->
    run of the verdicts' pairs), ``blocks`` (schedule -> the seed blocks they were trained in),
    ``wall_s`` (schedule -> seconds the blocks took when first computed) and the figures' losses by
    phase, ``test_loss`` and ``train_loss`` (schedule -> phase -> (P, 2, T))."""

    env: TaskEnvironment
    choices: dict
    figures: dict
    verdicts: dict
    blocks: dict
    wall_s: dict
    test_loss: dict
    train_loss: dict


def seed_blocks(seeds, block_pairs: int) -> list:
    """``seeds`` in consecutive blocks of ``block_pairs`` (the last may be shorter)."""
    if block_pairs < 1:
        raise ValueError(f"block_pairs must be a positive integer, got {block_pairs}")
    return [seeds[i:i + block_pairs] for i in range(0, len(seeds), block_pairs)]


def check_first_block(figures: dict, verdicts: dict, n_pairs: int) -> None:
    """RuntimeError naming the schedule and field where the verdicts' runs do not begin with the
    figures' runs (their first ``n_pairs`` pairs; the iterations whole)."""
    for name, run in figures.items():
        for key, value in run.items():
            first = verdicts[name][key] if key == "iterations" else verdicts[name][key][:n_pairs]
            if not np.array_equal(first, value):
                raise RuntimeError(f"{name} {key}: the first block differs from the figures' run")


def phase_losses(runs: dict, which: str) -> dict:
    """schedule -> phase -> (P, 2, T) loss of ``runs`` (schedule -> run) on the ``which`` set
    ("test" or "train")."""
    if which not in ("test", "train"):
        raise ValueError(f"which must be 'test' or 'train', got {which!r}")
    return {name: {phase: run[f"{phase}/loss_{which}"] for phase in performance_report.PHASES}
            for name, run in runs.items()}


def schedule_runs(plan: dict, verdict_plan: dict, n_pairs: int, split: str, large_scaling: str) -> ScheduleRuns:
    """The figures' runs (``plan``) and the verdicts' (``verdict_plan``, trained in blocks of ``n_pairs``
    pairs, the first block the figures' run), read from the results cache (computing what is
    missing), with the wall time of each schedule's blocks."""
    env = TaskEnvironment(4, 3, 3)
    choices = dict(split=split, large_scaling=large_scaling)
    figures = {name: cached_schedule(env, name, seeds, n_it, **choices) for name, (seeds, n_it) in plan.items()}
    verdicts = cached_schedule_blocks(env, verdict_plan, block_pairs=n_pairs, progress=False, **choices)
    check_first_block(figures, verdicts, n_pairs)
    blocks = {name: seed_blocks(seeds, n_pairs) for name, (seeds, _) in verdict_plan.items()}
    wall = {name: sum(schedule_wall_time_s(env, name, block, n_it, **choices) for block in blocks[name])
            for name, (_, n_it) in verdict_plan.items()}
    return ScheduleRuns(env, choices, figures, verdicts, blocks, wall, phase_losses(figures, "test"),
                        phase_losses(figures, "train"))


def run_size_texts(plan: dict, verdict_plan: dict, blocks: dict, wall_s: dict, n_pairs: int,
                   n_verdict_pairs: int) -> dict[str, str]:
    """The page's texts of the runs: per schedule the verdicts' seeds, their blocks, the figures'
    seeds, the iterations and the seconds they took; the total in minutes; the pairs per schedule of
    the verdicts and of the figures."""
    sizes = "; ".join(f"{name}: seeds {seeds[0]}-{seeds[-1]} in {len(blocks[name])} blocks of up to {n_pairs} pairs "
                      f"(the figures use seeds {plan[name][0][0]}-{plan[name][0][-1]}), {n_it} iterations per phase, "
                      f"computed in {wall_s[name]:.0f} s (both phases, 2 networks per pair)"
                      for name, (seeds, n_it) in verdict_plan.items())
    return {"perf_run_sizes": sizes, "perf_wall_total": f"{sum(wall_s.values()) / 60:.1f} minutes",
            "perf_n_verdict": f"{n_verdict_pairs}", "perf_n_pairs": f"{n_pairs}"}


def et_single_counts(runs: dict) -> SingleTaskCounts:
    """:func:`lib.analyses.performance_verdicts.single_task_counts` of the ET pairs of ``runs``
    (schedule -> run)."""
    return performance_verdicts.single_task_counts(runs["ET"]["iterations"], runs["ET"]["single/loss_test"])


class EarlySpeed(NamedTuple):
    """The speed measure (:func:`early_speed`): ``early`` (schedule -> the early-phase re-runs),
    ``worst`` (their largest relative difference from the cached runs at shared snapshots) and
    ``comparison`` (:class:`lib.book.performance_report.SpeedComparison`)."""

    early: dict
    worst: float
    comparison: performance_report.SpeedComparison


def early_speed(runs: ScheduleRuns, verdict_plan: dict, n_pairs: int) -> EarlySpeed:
    """The first :data:`EARLY_FRACTION` of both phases of the verdicts' pairs re-run with a snapshot
    every :data:`EARLY_EVERY` iterations (cached in blocks of ``n_pairs``), checked against the cached
    runs, and which init first halves its test loss from its own start."""
    early = cached_early_phase_blocks(runs.env, verdict_plan, EARLY_FRACTION, EARLY_EVERY, block_pairs=n_pairs,
                                      **runs.choices)
    worst = performance_report.early_agreement(runs.verdicts, early)
    return EarlySpeed(early, worst, performance_report.speed_comparison(early))


def halving_panels(early: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The panels of the halving figure: "<schedule>: <phase in words>" -> (iterations (T,), test
    loss (P, 2, T)) of the early-phase runs, schedule by schedule, single-task first."""
    return {f"{name}: {PHASE_WORDS[phase]}": (run["iterations"], run[f"{phase}/loss_test"])
            for name, run in early.items() for phase in performance_report.PHASES}


def train_below_texts(train_loss: dict, test_loss: dict) -> dict[str, str]:
    """In how many (schedule, phase, init) cells the mean final training loss lies below the test loss
    (:func:`lib.analyses.performance_verdicts.train_below_test`), as "k of n"."""
    below = performance_verdicts.train_below_test(train_loss, test_loss)
    return {"perf_train_below": f"{sum(below.values())} of {len(below)}"}


def judge_chapter(rows: list[dict], counts: SingleTaskCounts, speed: EarlySpeed, runs: ScheduleRuns,
                  n_pairs: int) -> performance_report.PerformanceJudgements:
    """Every claim of chapter 05 (:func:`lib.book.performance_report.judge_claims`) on the figures'
    phase rows (``rows``: :func:`lib.book.performance_report.phase_rows`, ``n_pairs`` pairs per
    schedule), the verdicts' single-task ET counts, the pooled speed comparison, the verdicts' start
    ratio and the figures' training and test losses."""
    return performance_report.judge_claims(performance_report.PerformanceMeasures(
        {(r["schedule"], r["phase"]): r for r in rows}, n_pairs, counts, speed.comparison.pooled,
        performance_report.start_ratio(runs.verdicts), runs.train_loss, runs.test_loss, runs.choices["split"]))


class ReplicationBlock(NamedTuple):
    """The single-task ET claims on a replication block (:func:`replication_block`): ``words`` (its seeds
    in words), ``counts``, ``replicated`` (claim -> judgement on the block), ``precision`` (claim ->
    note over both blocks) and ``in_force`` (claim -> the discovery block's judgement)."""

    words: str
    counts: SingleTaskCounts
    replicated: dict
    precision: dict
    in_force: dict


def replication_block(runs: ScheduleRuns, replication_plan: dict, n_pairs: int, counts: SingleTaskCounts,
                      judged: performance_report.PerformanceJudgements) -> ReplicationBlock:
    """The replication block's pairs (``replication_plan``, trained like the verdicts' in blocks of
    ``n_pairs``), its single-task ET claims judged by the same criteria, the precision of their
    shares over both blocks (``counts``: the discovery block's) and the discovery verdicts in force."""
    replication_runs = cached_schedule_blocks(runs.env, replication_plan, block_pairs=n_pairs, progress=False,
                                              **runs.choices)
    replication_counts = et_single_counts(replication_runs)
    return ReplicationBlock(block_words({"ET": replication_plan["ET"]}), replication_counts,
                            performance_verdicts.judge_single_task(replication_counts),
                            performance_verdicts.precision_notes([counts, replication_counts]),
                            performance_report.single_task_judgements(judged))


def replication_texts(block: ReplicationBlock, n_replication_pairs: int) -> dict[str, str]:
    """The page's texts of the replication block: each claim's replication
    (:func:`lib.book.performance_report.replication_texts`), its pairs per schedule, its seeds and the
    declared half-width of a share's 95% interval."""
    return {**performance_report.replication_texts(block.in_force, block.replicated),
            "perf_replication_pairs": f"{n_replication_pairs}", "perf_replication_block": block.words,
            "perf_declared_half_width": f"{replication.PERFORMANCE_SAMPLE.half_width:.2f}"}


def claim_rows(judged: performance_report.PerformanceJudgements, block: ReplicationBlock, runs: ScheduleRuns,
               speed: EarlySpeed, n_verdict_pairs: int) -> list[dict]:
    """The summary rows of chapter 05 (:func:`lib.book.performance_report.claim_rows`) with the
    replication block, the runs' total wall time and the early re-runs' agreement."""
    return performance_report.claim_rows(judged, block.replicated, block.precision, block.words, n_verdict_pairs,
                                         sum(runs.wall_s.values()), speed.worst)
