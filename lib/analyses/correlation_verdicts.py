"""The verdicts of the correlation claims (chapter 06; paper Sec 5.2, App A.6.4-A.6.5) on one block of pairs.

A *block* is a set of standard/large pairs per schedule (the discovery block the chapter shows,
or its replication block of disjoint seeds, :mod:`lib.analyses.replication`). Its *inputs* are,
per schedule, each predictor's t=0 silhouette and the final test loss after each phase, all
(P pairs, 2 inits) arrays. Every verdict comes from :func:`lib.analyses.claims.judge`: the claims
``corr-et``, ``corr-lr``, ``corr-combined`` (relative loss) and ``corr-raw`` (raw loss) under the
criterion in force, with the init label as their declared control, and under version 2, which
was judged with the chapter's own label rule (:func:`label_rule_note`, kept so that version's
verdict stays what it was); ``corr-predicts`` from the Holm-corrected within-init permutation
tests of :func:`holm_significant`, under every stability seed of their shuffles.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from . import claims, controls, multiple_testing, stats
from ..core.tasks import TaskEnvironment
from ..experiments.paper import PAPER_CORRELATIONS

SCHEDULE_GROUPS = {"ET": ("ET",), "LR": ("LR",), "combined": ("ET", "LR")}  # a claim's schedules, pooled
RELATIVE_CLAIMS = {"corr-et": "ET", "corr-lr": "LR", "corr-combined": "combined"}  # claim -> schedule group
RAW_GROUPS = ("combined", "ET", "LR")  # corr-raw's parts, in the paper's order
PHASES = ("single", "finetune")
LABEL_RULE_GAP = 0.1  # version 2's rule: the label's r within this of the silhouette's qualifies the verdict


class Block(NamedTuple):
    """One block of pairs, per eNTK variant: ``inputs`` (:func:`network_inputs`) and ``tables``
    (:func:`lib.analyses.stats.correlation_table`, one row per correlation); ``n_pairs`` per schedule."""

    inputs: dict[str, dict]
    tables: dict[str, pd.DataFrame]
    n_pairs: int


class ClaimJudgements(NamedTuple):
    """A claim's judgement under the criterion in force and under version 2 (same evidence)."""

    current: claims.Judgement
    version_2: claims.Judgement


def network_inputs(runs: Mapping[str, dict], structure: Mapping[str, dict], predictors: list[str]) -> dict:
    """schedule -> {predictor: t=0 silhouette (P, 2), "single"/"finetune": final test loss (P, 2)},
    from :func:`lib.experiments.schedules.cached_schedule` runs and
    :func:`lib.analyses.controls.cached_initial_structure` results of the same seeds."""
    return {name: {**{p: structure[name][f"silhouette/{p}"] for p in predictors},
                   "single": run["single/loss_test"][:, :, -1], "finetune": run["finetune/loss_test"][:, :, -1]}
            for name, run in runs.items()}


def correlation_block(env: TaskEnvironment, plan: dict, variants: list[str], n_resamples: int, block_pairs: int,
                      split: str = "iid", large_scaling: str = "both_layers") -> Block:
    """The :class:`Block` of the pairs of ``plan`` (schedule -> (seeds, n_iterations), all
    schedules the same number of seeds): the runs from the results cache or trained as one sweep
    (:func:`lib.experiments.sweep_points.cached_schedule_blocks`, blocks of ``block_pairs``), the
    t=0 structure of each eNTK variant in ``variants`` ("authors", "principled") and the
    correlation table of each with ``n_resamples`` resamples."""
    from ..experiments.sweep_points import cached_schedule_blocks

    runs = cached_schedule_blocks(env, plan, block_pairs, split=split, large_scaling=large_scaling)
    predictors = [f"entk_{v}" for v in variants]
    structure = {name: controls.cached_initial_structure(env, seeds, predictors=predictors, split=split,
                                                         large_scaling=large_scaling)
                 for name, (seeds, _) in plan.items()}
    inputs = {v: network_inputs(runs, structure, [f"entk_{v}"]) for v in variants}
    tables = {v: pd.DataFrame(stats.correlation_table(inputs[v], n_resamples, predictor=f"entk_{v}")) for v in variants}
    return Block(inputs, tables, len(next(iter(plan.values()))[0]))


def correlation_parts(inputs: Mapping[str, dict], predictor: str, quantity: str, group: str,
                      label_only: bool = False) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    """part name -> (x (P, 2), y (P, 2), the paper's r) for :func:`lib.analyses.claim_tests.correlation`:
    one part per phase, the schedules of ``group`` (a key of :data:`SCHEDULE_GROUPS`) pooled.

    quantity: "relative" (loss minus the partner's) or "raw"; a relative part is named by its
    phase, a raw one by phase and schedules. ``label_only``: x is the init label (1 standard, 0
    large) instead of the predictor's silhouette: the control."""
    if quantity not in ("relative", "raw"):
        raise ValueError(f"quantity must be 'relative' or 'raw', got {quantity!r}")
    if group not in SCHEDULE_GROUPS:
        raise ValueError(f"group must be one of {list(SCHEDULE_GROUPS)}, got {group!r}")
    schedules = SCHEDULE_GROUPS[group]
    parts = {}
    for phase in PHASES:
        x = np.concatenate([inputs[s][predictor] for s in schedules])
        loss = np.concatenate([inputs[s][phase] for s in schedules])
        y = stats.relative_to_partner(loss) if quantity == "relative" else loss
        if label_only:
            x = stats.init_label(len(x))
        name = phase if quantity == "relative" else f"{phase} {'+'.join(schedules)}"
        parts[name] = (x, y, PAPER_CORRELATIONS[(quantity, phase, group)])
    return parts


def claim_parts(inputs: Mapping[str, dict], predictor: str, claim: str, label_only: bool = False) -> dict:
    """The parts ``claim`` (``corr-raw`` or a key of :data:`RELATIVE_CLAIMS`) is judged on."""
    if claim == "corr-raw":
        return {name: part for group in RAW_GROUPS
                for name, part in correlation_parts(inputs, predictor, "raw", group, label_only).items()}
    if claim not in RELATIVE_CLAIMS:
        raise ValueError(f"claim must be 'corr-raw' or one of {list(RELATIVE_CLAIMS)}, got {claim!r}")
    return correlation_parts(inputs, predictor, "relative", RELATIVE_CLAIMS[claim], label_only)


def judged_rows(table: pd.DataFrame, claim: str) -> pd.DataFrame:
    """The rows of a correlation table (:func:`lib.analyses.stats.correlation_table`) that ``claim``
    (``corr-raw`` or a key of :data:`RELATIVE_CLAIMS`) judges."""
    quantity, groups = ("raw", list(RAW_GROUPS)) if claim == "corr-raw" else ("relative", [RELATIVE_CLAIMS[claim]])
    return table[(table.quantity == quantity) & table.schedule.isin(groups)]


def label_rule_note(table: pd.DataFrame, claim: str) -> str:
    """Version 2's qualification: "the init label alone gives the same r" when, for every row of
    ``table`` (:func:`lib.analyses.stats.correlation_table`) that ``claim`` judges, the label's r is
    within :data:`LABEL_RULE_GAP` of the silhouette's; else ""."""
    rows = judged_rows(table, claim)
    return "the init label alone gives the same r" if float(np.abs(rows.r - rows.r_label).max()) < LABEL_RULE_GAP \
        else ""


def judge_correlations(inputs: Mapping[str, dict], predictor: str, table: pd.DataFrame) -> dict[str, ClaimJudgements]:
    """claim -> its :class:`ClaimJudgements` for ``corr-et``, ``corr-lr``, ``corr-combined`` and
    ``corr-raw`` on one block: ``inputs`` from :func:`network_inputs`, ``table`` the block's
    :func:`lib.analyses.stats.correlation_table` for the same predictor."""
    out = {}
    for claim in (*RELATIVE_CLAIMS, "corr-raw"):
        parts = claim_parts(inputs, predictor, claim)
        control = {name: {"parts": claim_parts(inputs, predictor, claim, label_only=True)}
                   for name in claims.criterion(claim).controls}
        out[claim] = ClaimJudgements(
            claims.judge(claim, controls=control, parts=parts),
            claims.judge(claim, version=2, parts=parts, qualification=label_rule_note(table, claim)))
    return out


def judge_version_1(claim: str, table: pd.DataFrame, n_pairs: int) -> claims.Judgement:
    """Version 1 of a correlation claim (``corr-raw`` or a key of :data:`RELATIVE_CLAIMS`) on the
    chapter's first ``n_pairs`` pairs (``table``: their correlation table): the paper's r inside
    our 95% intervals (corr-raw: the same sign in all six and inside in at least half)."""
    names = claims.criterion(claim, 1).settings["names"]
    if claim == "corr-raw":
        raw = table[table.quantity == "raw"]
        inside = ((raw.paper_r >= raw.ci_low) & (raw.paper_r <= raw.ci_high)).sum()
        return claims.judge(claim, version=1, ours=" / ".join(f"{r:+.2f}" for r in raw.r) + f" ({n_pairs} pairs)",
                            conditions={names[0]: bool((np.sign(raw.r) == np.sign(raw.paper_r)).all()),
                                        names[1]: bool(inside >= len(raw) / 2)})
    rows = table[(table.quantity == "relative") & (table.schedule == RELATIVE_CLAIMS[claim])]
    rows = rows.set_index("phase").loc[list(PHASES)]
    inside = bool(((rows.paper_r >= rows.ci_low) & (rows.paper_r <= rows.ci_high)).all())
    return claims.judge(claim, version=1, conditions={names[0]: inside},
                        ours=" / ".join(f"{r:+.3f}" for r in rows.r) + f" ({n_pairs} pairs)")


def within_init_p_by_seed(inputs: Mapping[str, dict], predictor: str, n_permutations: int) -> Callable[[int], np.ndarray]:
    """seed -> (rows,) the within-init permutation p of every correlation of a block's ``inputs`` (its
    table's rows, in order; :func:`lib.analyses.stats.within_init_p_values` with ``n_permutations``
    shuffles drawn under that seed), each seed computed once: the ``corr-predicts`` verdicts are
    judged under every stability seed of these shuffles."""
    return functools.lru_cache(maxsize=None)(
        lambda seed: stats.within_init_p_values(inputs, n_permutations, seed, predictor=predictor))


def holm_significant(table: pd.DataFrame, level: float = 0.05, p: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, bool]]:
    """(Holm-adjusted within-init permutation p of every row of ``table`` (its own
    ``p_within_permutation``, or ``p`` (rows,) drawn under another seed), phase -> whether some row
    of that phase is significant at ``level`` after the correction)."""
    adjusted = multiple_testing.holm_adjusted(table["p_within_permutation"] if p is None else p)
    return adjusted, {phase: bool((adjusted[(table.phase == phase).to_numpy()] <= level).any()) for phase in PHASES}


def _checked(table: pd.DataFrame, p_by_seed: Callable[[int], np.ndarray]) -> Callable[[int], np.ndarray]:
    """``p_by_seed``, after checking that its seed 0 is ``table``'s own column (the same block)."""
    own = table["p_within_permutation"].to_numpy(np.float64)
    if not np.array_equal(p_by_seed(0), own, equal_nan=True):
        raise ValueError("p_by_seed must draw the within-init permutations of the table's own block: its seed 0 "
                         f"gives {np.round(p_by_seed(0), 4).tolist()}, the table {np.round(own, 4).tolist()}")
    return p_by_seed


def judge_predicts_version_1(table: pd.DataFrame, p_by_seed: Callable[[int], np.ndarray],
                             level: float = 0.05) -> claims.Judgement:
    """Version 1 of ``corr-predicts`` on the chapter's first pairs (``table``): the share of its
    correlations whose within-init permutation p lies below ``level``, uncorrected, under every
    stability seed of the permutations (``p_by_seed``, :func:`within_init_p_by_seed` of the table's block)."""
    p_by_seed = _checked(table, p_by_seed)
    return claims.judge("corr-predicts", version=1, seeded=lambda seed: {"value": float((p_by_seed(seed) < level).mean())})


def judge_predicts(table: pd.DataFrame, n_pairs: int, p_by_seed: Callable[[int], np.ndarray],
                   version: int | None = None) -> claims.Judgement:
    """``corr-predicts`` (in force, or ``version`` >= 2) on one block's ``table``: a within-init
    association significant after Holm correction in each phase, under every stability seed of the
    permutations (``p_by_seed``, :func:`within_init_p_by_seed` of the table's block)."""
    p_by_seed = _checked(table, p_by_seed)
    names = claims.criterion("corr-predicts", version).settings["names"]

    def evidence(seed: int) -> dict:
        adjusted, significant = holm_significant(table, p=p_by_seed(seed))
        smallest = {phase: adjusted[(table.phase == phase).to_numpy()].min() for phase in PHASES}
        return {"conditions": {names[0]: significant["single"], names[1]: significant["finetune"]},
                "ours": f"smallest Holm-adjusted p: single-task {smallest['single']:.3f}, fine-tuning "
                        f"{smallest['finetune']:.3f}"}

    return claims.judge("corr-predicts", version=version, seeded=evidence, n=n_pairs)
