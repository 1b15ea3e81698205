"""Chapter 06's blocks of work, each one call returning a named result: the first pairs and their
correlation tables, the verdicts on the discovery and replication blocks, the rival predictors and
the robustness to the analysis choices.

Book layer. The pairs' runs and t=0 structure come from the results cache
(:func:`lib.experiments.schedules.cached_schedule`, :func:`lib.analyses.controls.cached_initial_structure`);
a block of verdict pairs is :func:`lib.analyses.correlation_verdicts.correlation_block`; every verdict
comes from :mod:`lib.analyses.correlation_verdicts` (through :func:`lib.analyses.claims.judge`).
The reader's tables and texts of these results are :mod:`lib.book.correlation_page`'s. Checked in
``tests/test_correlation_blocks.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import claims, controls, replication, stats
from ..analyses import correlation_verdicts as cv
from ..core.entk_variants import ENTK_VARIANTS
from ..core.tasks import TaskEnvironment
from ..core.validation import check_choice
from ..experiments.schedules import cached_schedule
from .correlation_report import block_words, choice_performance_rows, precision_text, rival_view

SPLITS = ("iid", "disjoint")
LARGE_SCALINGS = ("both_layers", "layer1_only")
CHOICE_PREDICTORS = ("entk_principled", "epsilon", "output_error")  # the t=0 structure the other choices need


class FirstPairs(NamedTuple):
    """This page's first pairs: ``variants`` (the eNTK variants computed: the authors' needs the iid
    split's square test x train eNTK), ``headline`` (the variant the verdicts use), ``predictors``
    (the loading predictors of the rival comparison), ``runs`` and ``structure`` (schedule -> the
    cached runs and t=0 structure), ``inputs`` and ``tables`` (variant ->
    :func:`lib.analyses.correlation_verdicts.network_inputs` and its correlation table) and
    ``n_pairs`` per schedule."""

    variants: list[str]
    headline: str
    predictors: list[str]
    runs: dict
    structure: dict
    inputs: dict
    tables: dict[str, pd.DataFrame]
    n_pairs: int


class Verdicts(NamedTuple):
    """The correlation claims on the headline variant: ``judged`` and ``replicated`` (claim ->
    :class:`lib.analyses.correlation_verdicts.ClaimJudgements` on the discovery and the replication
    block), ``in_force`` and ``replicated_in_force`` (claim -> judgement under the criterion in force,
    ``corr-predicts`` included), ``predicts_earlier`` (``corr-predicts`` under version 1 on the first
    pairs and version 2 on the discovery block), ``precision`` (claim -> what the blocks resolve,
    :func:`lib.book.correlation_report.precision_text`), ``discovery_table`` (the discovery block's
    correlation table) and ``replication_block`` (its seeds in words)."""

    judged: dict[str, cv.ClaimJudgements]
    replicated: dict[str, cv.ClaimJudgements]
    in_force: dict[str, claims.Judgement]
    replicated_in_force: dict[str, claims.Judgement]
    predicts_earlier: list[claims.Judgement]
    precision: dict[str, str]
    discovery_table: pd.DataFrame
    replication_block: str


class Rivals(NamedTuple):
    """The rival predictors' correlations: ``table`` (the reader's table of
    :func:`lib.book.correlation_report.rival_view`) and ``by_predictor`` ((reader name, "quantity phase
    schedule") -> r)."""

    table: pd.DataFrame
    by_predictor: dict


class Choices(NamedTuple):
    """The principled variant's correlations under each analysis choice: ``other`` (choice -> the value
    this page did not use), ``tables`` (title -> correlation table; this page's first, then, with
    ``compare_choices``, the other split and the other large-init scaling) and ``performance`` (one row
    per choice, schedule and phase: :func:`lib.book.correlation_report.choice_performance_rows` of the
    same runs)."""

    other: dict[str, str]
    tables: dict[str, pd.DataFrame]
    performance: pd.DataFrame


class ScatterPoints(NamedTuple):
    """The headline variant's t=0 silhouette against relative final test loss, pooled over schedules:
    ``silhouette`` (N pairs, 2 inits), ``markers`` (N,) the schedule index of each pair,
    ``marker_labels`` (index -> schedule), ``relative`` (phase -> (N, 2) loss minus the partner's) and
    ``r`` (phase -> Pearson r over all networks)."""

    silhouette: np.ndarray
    markers: np.ndarray
    marker_labels: dict[int, str]
    relative: dict[str, np.ndarray]
    r: dict[str, float]


def first_pairs(env: TaskEnvironment, plan: dict, n_resamples: int, split: str = "iid",
                large_scaling: str = "both_layers") -> FirstPairs:
    """The :class:`FirstPairs` of ``plan`` (schedule -> (seeds, n_iterations)) under the chapter's
    ``split`` and ``large_scaling``, each variant's correlation table with ``n_resamples``
    resamples and permutations."""
    check_choice("split", split, SPLITS)
    check_choice("large_scaling", large_scaling, LARGE_SCALINGS)
    variants = [v for v in ENTK_VARIANTS if v == "principled" or split == "iid"]
    headline = "authors" if split == "iid" else "principled"
    predictors = [p for p in controls.LOADING_PREDICTORS if p != "entk_authors" or split == "iid"]
    runs = {name: cached_schedule(env, name, seeds, n_it, split=split, large_scaling=large_scaling)
            for name, (seeds, n_it) in plan.items()}
    structure = {name: controls.cached_initial_structure(env, seeds, predictors=predictors, split=split,
                                                         large_scaling=large_scaling)
                 for name, (seeds, _) in plan.items()}
    inputs = {v: cv.network_inputs(runs, structure, [f"entk_{v}"]) for v in variants}
    tables = {v: pd.DataFrame(stats.correlation_table(inputs[v], n_resamples, predictor=f"entk_{v}")) for v in variants}
    return FirstPairs(variants, headline, predictors, runs, structure, inputs, tables,
                      len(next(iter(plan.values()))[0]))


def judge_variants(block: cv.Block) -> dict[str, dict[str, cv.ClaimJudgements]]:
    """variant -> claim -> :class:`lib.analyses.correlation_verdicts.ClaimJudgements` of the four
    correlation claims on ``block``, for each eNTK variant the block holds."""
    return {v: cv.judge_correlations(block.inputs[v], f"entk_{v}", block.tables[v]) for v in block.tables}


def block_verdicts(first: FirstPairs, discovery: cv.Block, discovery_judged: dict, replication_block: cv.Block,
                   replication_plan: dict, n_resamples: int) -> Verdicts:
    """The :class:`Verdicts` of the headline variant on the ``discovery`` block (already judged:
    ``discovery_judged``, :func:`judge_variants` of it) and on ``replication_block`` (of
    ``replication_plan``); ``corr-predicts`` under every stability seed of the within-init
    permutations (``n_resamples`` shuffles), its version 1 on the ``first`` pairs."""
    headline, predictor = first.headline, f"entk_{first.headline}"
    for name, block in (("discovery", discovery), ("replication_block", replication_block)):
        if headline not in block.tables:
            raise ValueError(f"{name} must hold the headline variant {headline!r}, holds {list(block.tables)}")
    table, replication_table = discovery.tables[headline], replication_block.tables[headline]
    judged = discovery_judged[headline]
    replicated = cv.judge_correlations(replication_block.inputs[headline], predictor, replication_table)
    p_by_seed = {name: cv.within_init_p_by_seed(inputs[headline], predictor, n_resamples)
                 for name, inputs in (("first", first.inputs), ("discovery", discovery.inputs),
                                      ("replication", replication_block.inputs))}
    in_force = {claim: j.current for claim, j in judged.items()} | {
        "corr-predicts": cv.judge_predicts(table, discovery.n_pairs, p_by_seed["discovery"])}
    replicated_in_force = {claim: j.current for claim, j in replicated.items()} | {
        "corr-predicts": cv.judge_predicts(replication_table, replication_block.n_pairs, p_by_seed["replication"])}
    earlier = [cv.judge_predicts_version_1(first.tables[headline], p_by_seed["first"]),
               cv.judge_predicts(table, discovery.n_pairs, p_by_seed["discovery"], 2)]
    n_pairs = min(discovery.n_pairs, replication_block.n_pairs)
    precision = {claim: precision_text([table, replication_table], claim, n_pairs, replication.DECLARED[claim],
                                       claims.criterion(claim).settings["margin_z"]) for claim in judged}
    return Verdicts(judged, replicated, in_force, replicated_in_force, earlier, precision, table,
                    block_words(replication_plan))


def rivals(first: FirstPairs, n_resamples: int) -> Rivals:
    """The :class:`Rivals` of the first pairs: every loading predictor's silhouette and the init label
    against the final test losses, beside the paper's r's."""
    inputs = cv.network_inputs(first.runs, first.structure, list(first.predictors))
    table = pd.DataFrame(stats.rival_correlations(inputs, list(first.predictors), n_resamples))
    return Rivals(*rival_view(table, tuple(first.predictors), first.tables[first.headline]["paper_r"]))


def other_choices(split: str, large_scaling: str) -> dict[str, str]:
    """choice -> the value this page did not use: the other split and the other large-init scaling."""
    return {"split": {"iid": "disjoint", "disjoint": "iid"}[check_choice("split", split, SPLITS)],
            "large_scaling": {"both_layers": "layer1_only", "layer1_only": "both_layers"}[
                check_choice("large_scaling", large_scaling, LARGE_SCALINGS)]}


def choices(env: TaskEnvironment, plan: dict, first: FirstPairs, n_resamples: int, split: str, large_scaling: str,
            compare_choices: bool) -> Choices:
    """The :class:`Choices` of ``plan``'s pairs (the ``first`` pairs' under ``split`` and
    ``large_scaling``); with ``compare_choices`` also the same seeds under each other choice
    (:func:`other_choices`), runs and t=0 structure from the results cache or computed."""
    other = other_choices(split, large_scaling)
    tables = {f"this page ({split}, {large_scaling})": first.tables["principled"]}
    runs_by_choice = {f"this page ({split}, {large_scaling})": first.runs}
    for choice, value in (other.items() if compare_choices else ()):
        changed = {"split": split, "large_scaling": large_scaling, choice: value}
        runs = {name: cached_schedule(env, name, seeds, n_it, **changed) for name, (seeds, n_it) in plan.items()}
        structure = {name: controls.cached_initial_structure(env, seeds, predictors=CHOICE_PREDICTORS, **changed)
                     for name, (seeds, _) in plan.items()}
        inputs = cv.network_inputs(runs, structure, ["entk_principled"])
        tables[f"{choice}={value}"] = pd.DataFrame(stats.correlation_table(inputs, n_resamples,
                                                                           predictor="entk_principled"))
        runs_by_choice[f"{choice}={value}"] = runs
    return Choices(other, tables, pd.DataFrame(choice_performance_rows(runs_by_choice)))


def scatter_points(first: FirstPairs) -> ScatterPoints:
    """The :class:`ScatterPoints` of the first pairs' headline silhouettes, schedules in plan order."""
    by_schedule = [first.structure[name][f"silhouette/entk_{first.headline}"] for name in first.runs]
    silhouette = np.concatenate(by_schedule)
    markers = np.concatenate([np.full(len(s), i) for i, s in enumerate(by_schedule)])
    relative = {phase: stats.relative_to_partner(np.concatenate([first.runs[n][f"{phase}/loss_test"][:, :, -1]
                                                                 for n in first.runs]))
                for phase in cv.PHASES}
    return ScatterPoints(silhouette, markers, dict(enumerate(first.runs)), relative,
                         {phase: stats.pearson(silhouette, y) for phase, y in relative.items()})
