"""Chapter 13's blocks of work, one call each: the two-point network, the multitask networks, the
race on one training set, the side-by-side predictors, the converged continuum's networks and the
chapter's verdicts.

Book layer. Each block runs the chapter's computations in :mod:`lib.experiments` and
:mod:`lib.analyses` (read from the results cache where they are cached) and returns them as a
NamedTuple; the chapter's tables come from :mod:`lib.book.rival_tables` and its texts from
:mod:`lib.book.rival_texts`. Checked in ``tests/test_rival_chapter.py``.

Scales are the multitask networks' initial scales g; ``by_scale`` maps each to
:func:`lib.analyses.rival_theories.network_analysis` and ``scores`` each to
:func:`lib.analyses.rival_comparison.outcome_scores`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import claims, continuum_facts, continuum_sweeps
from ..analyses import rival_comparison as rc
from ..analyses import rival_continuum as rcon
from ..analyses import rival_theories as rt
from ..core.tasks import TaskEnvironment
from ..experiments import route_learning, two_point
from ..experiments.gated_race import race_predictions
from . import plot_rival_theories, rival_report, rival_verdicts
from .tables import long_view

# the predictors of each outcome of the side-by-side comparison: (a) task similarity, (b) route order, (c) loss shape
SIDE_PREDICTORS = {"a": rc.A_PREDICTORS, "b": rc.B_PREDICTORS, "c": rc.C_PREDICTORS}
# the side-by-side tables: (score key, outcome, what the score is, its number format)
SIDE_TABLES = (("a", "(a) task similarity", "mean r", "+.2f"), ("b", "(b) route order", "mean rho", "+.2f"),
               ("b_time", "(b) route times", "median log10(predicted / observed)", "+.2f"),
               ("c", "(c) loss shape", "mean absolute error", ".2f"))


class TwoPointBlock(NamedTuple):
    """The two-point network (:func:`two_point_block`): ``summary``
    (:func:`lib.experiments.two_point.scale_summary`), ``examples`` (one held-out network per gain,
    :func:`lib.analyses.rival_theories.two_point_examples`) and ``plateaus`` ("plateau_sim",
    "plateau_theory" -> (gains, test seeds) plateau lengths, inf where the plateau outlasts the run)."""

    summary: dict
    examples: dict
    plateaus: dict


def two_point_block(gains: Sequence[float], learning_rates: Sequence[float], fit_seeds: Sequence[int],
                    test_seeds: Sequence[int], n_steps: int, width: int) -> TwoPointBlock:
    """The two-point theory on its own network: effective rates fitted per gain on ``fit_seeds``,
    tested on ``test_seeds`` over ``n_steps`` gradient steps of a depth-4 network of ``width``; the
    parameters' names in errors are the chapter's (``tp_gains``, ``tp_learning_rates``)."""
    summary = two_point.scale_summary(gains, learning_rates, tuple(fit_seeds), tuple(test_seeds), n_steps, width=width,
                                      gains_name="tp_gains", learning_rates_name="tp_learning_rates")
    examples = rt.two_point_examples(summary, learning_rates, test_seeds[0], n_steps, width=width)
    plateaus = {key: rival_report.plateau_lengths(summary[key]) for key in ("plateau_sim", "plateau_theory")}
    return TwoPointBlock(summary, examples, plateaus)


class MultitaskBlock(NamedTuple):
    """The multitask networks (:func:`multitask_block`): ``env``, ``seeds`` (S,), ``runs`` (scale ->
    :func:`lib.experiments.route_learning.run_route_learning`), ``iterations`` (T,) their snapshots'
    iterations (the smallest scale's; every scale has the same), ``by_scale`` (scale ->
    :func:`lib.analyses.rival_theories.network_analysis`), ``kinds`` (66,) the kind of each task pair
    (index into :data:`lib.book.plot_rival_theories.PAIR_KINDS`), ``race_check``
    (:func:`lib.analyses.rival_theories.race_validation`) and the race
    (:func:`lib.experiments.gated_race.race_predictions`) with every family of modules (``race``) and
    without the shared module (``race_pools``), each on the first network's training set at the
    smallest scale."""

    env: TaskEnvironment
    seeds: tuple
    runs: dict
    iterations: np.ndarray
    by_scale: dict
    kinds: np.ndarray
    race_check: dict
    race: dict
    race_pools: dict


def multitask_block(scales: Sequence[float], first_seed: int, n_seeds: int, n_fit: int, learning_rate: float,
                    n_iterations: int, n_snapshots: int, n_hidden: int, n_train: int) -> MultitaskBlock:
    """The paper's 4x3 sigmoid network trained on single tasks at each initial scale of ``scales``
    (seeds ``first_seed`` ... ``first_seed + n_seeds - 1``), both theories on them (two-point rates
    fitted on the first ``n_fit`` networks of each scale) and the race's reduction checked against
    its gated network on the smallest scale's first training set, where the race is also run with and
    without its shared module."""
    env = TaskEnvironment()
    seeds = tuple(range(first_seed, first_seed + n_seeds))
    runs = {g: route_learning.run_route_learning(env, seeds, g, learning_rate, n_iterations, n_snapshots, n_hidden,
                                                 n_train) for g in scales}
    by_scale = {g: rt.network_analysis(env, run, learning_rate, n_fit) for g, run in runs.items()}
    kinds = plot_rival_theories.pair_kind(env, rt.task_pairs(env.n_tasks))
    first = runs[scales[0]]
    x, y = first["x_train"][0], first["y_train"][0]
    race_check = rt.race_validation(env, x, y)
    race = race_predictions(env, x, y)
    race_pools = race_predictions(env, x, y, families=("in_pool", "out_pool", "route"))
    return MultitaskBlock(env, seeds, runs, first["iterations"], by_scale, kinds, race_check, race, race_pools)


def held_out_r(multitask: MultitaskBlock) -> np.ndarray:
    """(M,) the two-point theory's task-pair Pearson r of every held-out network, scale after scale."""
    return np.concatenate([out["pair_r"] for out in multitask.by_scale.values()])


class SideBySide(NamedTuple):
    """Every predictor on the multitask networks (:func:`side_by_side`): ``kernel_predictions`` (scale ->
    :func:`lib.analyses.rival_comparison.kernel_predictions`) and ``scores`` (scale -> outcome ->
    predictor -> (networks,) scores)."""

    kernel_predictions: dict
    scores: dict


def side_by_side(multitask: MultitaskBlock, learning_rate: float, n_fit: int) -> SideBySide:
    """The t=0 eNTK, the linearized network, the accumulated eNTK and the targets control beside both
    theories, scored per network on the three outcomes (the two-point theory on the networks after
    the first ``n_fit`` of each scale)."""
    kernels = {g: rc.kernel_predictions(multitask.env, run, learning_rate) for g, run in multitask.runs.items()}
    scores = {g: rc.outcome_scores(multitask.by_scale[g], kernels[g], n_fit) for g in multitask.runs}
    return SideBySide(kernels, scores)


def side_tables(scores: dict) -> list[tuple[pd.DataFrame, str]]:
    """(table, title) per outcome of :data:`SIDE_TABLES`: each predictor's mean score per scale with its
    bootstrap 95% interval (:func:`lib.analyses.rival_comparison.interval_table`); the route-time table
    lists the predictors that have a clock (the keys of its scores)."""
    scales = list(scores)
    tables = []
    for key, outcome, score, fmt in SIDE_TABLES:
        names = SIDE_PREDICTORS[key] if key in SIDE_PREDICTORS else tuple(scores[scales[0]][key])
        table = rc.interval_table({g: scores[g][key] for g in scales}, names, fmt)
        tables.append((table, f"{outcome}, per predictor and scale: {score} [95% interval]"))
    return tables


class ContinuumBlock(NamedTuple):
    """Task similarity on the converged continuum's networks (:func:`continuum_blocks`): ``scales``,
    ``nets`` (:func:`lib.analyses.continuum_sweeps.converged_sweep`), ``use`` (N,) the analysed networks,
    ``found`` (:class:`lib.analyses.rival_continuum.ContinuumScores`), ``across`` (each predictor's r
    pooled over scales, :func:`lib.book.rival_report.across_scales_table`) and ``n_finite`` (networks in it)."""

    scales: list
    nets: dict
    use: np.ndarray
    found: rcon.ContinuumScores
    across: pd.DataFrame
    n_finite: int


def continuum_blocks(converged_scales: Sequence[float], converged_seeds: int, first_block: int,
                     converged_iterations: dict, lr_candidates: Sequence[float], n_lr_seeds: int,
                     lr_choice_iterations: int, n_train: int, n_hidden: int, converged_only: bool,
                     fit_seeds: Sequence[int], fit_snapshots: int,
                     first_seeds: Sequence[int] = (0,)) -> list[ContinuumBlock]:
    """One block per entry of ``first_seeds`` (the continuum's first seed; 0: the book's networks,
    another: a disjoint block of ``converged_seeds`` networks per scale from there), all under the
    same parameters: the continuum chapter's converged networks (read from its cache under its
    parameters), the ones analysed (:func:`lib.analyses.continuum_facts.analysed`), the
    task-similarity predictors scored on them (two-point rates fitted on the held-out ``fit_seeds``
    at ``fit_snapshots`` snapshots) and pooled across scales."""
    env = TaskEnvironment()
    scales = [float(g) for g in converged_scales]
    common = continuum_sweeps.continuum_common(converged_iterations, n_train, n_hidden)
    learning_rates = [float(lr) for lr in lr_candidates]
    blocks = []
    for first_seed in first_seeds:
        nets = continuum_sweeps.converged_sweep(scales, learning_rates, n_lr_seeds,
                                                lr_choice_iterations, converged_seeds, first_block, common,
                                                first_seed=first_seed)
        use = continuum_facts.analysed(nets, converged_only)
        found = rcon.continuum_scores(env, nets, use, scales, fit_seeds, converged_seeds,
                                      converged_iterations["single"], fit_snapshots, n_hidden, n_train,
                                      first_seed=first_seed)
        across, n_finite = rival_report.across_scales_table({k: np.concatenate(v) for k, v in found.pooled.items()},
                                                            rcon.CONTINUUM_PREDICTORS_A)
        blocks.append(ContinuumBlock(scales, nets, use, found, across, n_finite))
    return blocks


def continuum_score_table(scores: dict) -> pd.DataFrame:
    """The continuum's task-similarity scores (scale -> predictor -> (networks,) r) as one row per
    predictor and scale (narrow enough for the page): mean r with its bootstrap 95% interval."""
    table = rc.interval_table(scores, rcon.CONTINUUM_PREDICTORS_A)
    scale_columns = [c for c in table.columns if c.startswith("g = ")]
    return long_view(table, ["predictor", "scale"], columns=scale_columns, value_name="mean r [95% interval]")


def continuum_rates_table(rates: dict, g: np.ndarray, use: np.ndarray) -> pd.DataFrame:
    """Per scale of ``rates`` (scale -> ``lr``, ``rate_h``, ``rate_y``, ``fit_error``): its learning
    rate, the two-point theory's fitted rates and fit error, and its analysed networks (``g`` (N,) the
    networks' scales, ``use`` (N,) bool the analysed ones)."""
    return pd.DataFrame([{"scale g": scale, "learning rate": r["lr"], "rate_h": r["rate_h"], "rate_y": r["rate_y"],
                          "fit error": r["fit_error"], "analysed networks": int(((g == scale) & use).sum())}
                         for scale, r in rates.items()]).set_index("scale g")


def continuum_tables(continuum: ContinuumBlock) -> list[tuple[pd.DataFrame, str]]:
    """(table, title) of the continuum section: the scores per predictor and scale
    (:func:`continuum_score_table`), the two-point rates per scale (:func:`continuum_rates_table`) and
    each predictor's r pooled across scales."""
    return [(continuum_score_table(continuum.found.scores),
             "(a) on the continuum's networks: mean r over task pairs [95% interval]"),
            (continuum_rates_table(continuum.found.rates, continuum.nets["g"], continuum.use),
             "Two-point theory's rates per scale, fitted on held-out networks"),
            (continuum.across, "(a) on the continuum's networks: each predictor's correlation pooled across scales")]


class ContinuumReplication(NamedTuple):
    """rival-continuum-similarity on the converged continuum's replication block
    (:data:`lib.analyses.replication.RIVAL_CONTINUUM_SAMPLE`): ``block`` (its :class:`ContinuumBlock`,
    the two-point rates the discovery block's, fitted on the same held-out seeds), ``judgement`` (the
    criterion in force), ``earlier`` (its earlier versions, on the same evidence) and ``precision``
    (:func:`lib.analyses.replication.precision_note` of the wider of the two blocks' widest cell
    intervals)."""

    block: ContinuumBlock
    judgement: claims.Judgement
    earlier: tuple
    precision: str


def continuum_replication(discovery: ContinuumBlock, replication: ContinuumBlock, n_seeds: int) -> ContinuumReplication:
    """rival-continuum-similarity judged on ``replication`` (a :func:`continuum_blocks` block of the replication
    block's seeds, ``n_seeds`` networks per scale) by every criterion version, under every stability
    seed where a cell draws its sign flips, as :func:`judge_chapter` judges ``discovery``."""
    from ..analyses.replication import RIVAL_CONTINUUM_SAMPLE, precision_note

    current, earlier = claims.judge_every_version(
        "rival-continuum-similarity", **rival_report.continuum_judge_arguments(replication.found.scores,
                                                                               replication.scales))
    widest = max(rival_report.continuum_half_width(b.found.scores, b.scales) for b in (discovery, replication))
    return ContinuumReplication(replication, current, earlier, precision_note(widest, n_seeds, RIVAL_CONTINUUM_SAMPLE))


class ChapterVerdicts(NamedTuple):
    """Chapter 13's verdicts (:func:`judge_chapter`): ``measures`` (what the claims read),
    ``judgements`` (claim -> judgement under the criterion in force) and ``earlier`` (claim -> the
    judgements of its earlier criterion versions)."""

    measures: rival_verdicts.RivalMeasures
    judgements: dict[str, claims.Judgement]
    earlier: dict[str, list[claims.Judgement]]


def judge_chapter(two_point_results: TwoPointBlock, gains: Sequence[float], multitask: MultitaskBlock,
                  side: SideBySide, continuum: ContinuumBlock) -> ChapterVerdicts:
    """Every claim of chapter 13 judged (:func:`lib.book.rival_verdicts.judge_claims`) on the blocks'
    measurements: the two-point network at ``gains``, the held-out multitask networks, the race at the
    smallest scale, the side-by-side scores and the continuum's scores."""
    scales = list(multitask.by_scale)
    measures = rival_verdicts.RivalMeasures(
        two_point_results.summary["final_rel_error"], two_point_results.plateaus["plateau_sim"],
        two_point_results.plateaus["plateau_theory"], gains, held_out_r(multitask), multitask.by_scale[scales[0]],
        side.scores, scales, continuum.found.scores, continuum.scales)
    judgements, earlier = rival_verdicts.judge_claims(measures)
    return ChapterVerdicts(measures, judgements, earlier)
