"""Chapter 12's horizon on the paper's standard/large pairs, for one block of pairs, and its verdicts.

A block is a plan of pairs per schedule (the chapter's pairs, or their replication block of
disjoint seeds: :mod:`lib.analyses.replication`). :func:`pair_block` reads the pairs' schedule
runs and their snapshots at the observed fractions of the single-task phase from the results
cache (computing what is missing), checks that the retrained snapshots retrace the runs, and
measures every predictor against every outcome within the four schedule x init groups;
:func:`judge_pair_block` judges the five horizon claims on the pairs by the criteria in force.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..analyses import claims, horizon, horizon_checks, horizon_pairs
from ..analyses.replication import HORIZON_PAIRS_SAMPLE, pooled_fisher_half_width, precision_note
from ..core.tasks import TaskEnvironment
from ..experiments.sweep_points import cached_schedule_blocks
from . import horizon_report as hr

RETRACE_TOLERANCE = 1e-4  # relative: float32 agreement of retrained snapshots with the recorded runs
CONTROL_FIRST_SEED = 2  # the pairs' add-test control permutations start at this seed (the continuum's at 1)
WINDOW_CLAIMS = {"horizon-pairs-kernel-window": "kernels", "horizon-pairs-representation-window": "sharing",
                 "horizon-pairs-loss-window": "loss"}


class PairBlock(NamedTuple):
    """One block of pairs observed at ``fractions``: ``runs`` (schedule -> the schedule runs),
    ``snapshots`` (:func:`lib.analyses.horizon_pairs.pair_horizon_sweep`), ``retrace`` (largest
    relative test-loss difference of the snapshots from the runs), ``outcomes`` (outcome -> (N,)),
    ``groups`` (N,), ``values`` (predictors, fractions, N), ``per_group`` (networks per group, in
    order), ``curves`` (outcome -> :func:`lib.analyses.horizon.accuracy_curves`), ``findings``
    (:func:`lib.book.horizon_report.rival_findings`) and ``control_by_seed`` (seed -> the add test's
    discoveries on outcomes shuffled within the groups, computed when first asked:
    :func:`lib.analyses.horizon_checks.discoveries_by_seed`)."""

    runs: dict
    snapshots: dict
    retrace: float
    outcomes: dict[str, np.ndarray]
    groups: np.ndarray
    values: np.ndarray
    per_group: list[int]
    curves: dict
    findings: dict
    control_by_seed: Callable[[int], np.ndarray]


def pair_block(plan: dict, fractions: list[float], block_pairs: int, predictors: list[str], kernels: list[str],
               outcomes: list[str], threshold: float, n_resamples: int) -> PairBlock:
    """The :class:`PairBlock` of ``plan`` (schedule -> (seeds, n_iterations)) observed at
    ``fractions``; the schedule runs in cached blocks of ``block_pairs`` pairs; ``predictors`` in
    the order of the values, the first ``len(kernels)`` the kernel quantities; ``threshold`` and
    ``n_resamples`` as :func:`lib.analyses.horizon.accuracy_curves`. RuntimeError when the
    snapshots do not retrace the runs to float32 agreement."""
    env = TaskEnvironment()
    runs = cached_schedule_blocks(env, plan, block_pairs=block_pairs, progress=False)
    snapshots = horizon_pairs.pair_horizon_sweep(plan, fractions, progress=False)
    retrace = horizon_pairs.pair_retrace(snapshots, runs)
    if not retrace < RETRACE_TOLERANCE:
        raise RuntimeError(f"retrained pair snapshots' test loss differs from the schedule runs' by {retrace:.2g} "
                           f"(relative), more than float32 agreement ({RETRACE_TOLERANCE:g}) allows")
    by_schedule = {s: horizon_pairs.pair_outcomes(env, runs[s]) for s in plan}
    out = {o: np.concatenate([by_schedule[s][o] for s in plan]) for o in outcomes}
    groups = snapshots["group"]
    values = np.stack([snapshots[p] for p in predictors])  # (P, F, N)
    per_group = [int(np.sum(groups == g)) for g in dict.fromkeys(groups)]
    curves = {o: horizon.accuracy_curves(values, out[o], groups, fractions, threshold, n_resamples, seed=i)
              for i, o in enumerate(outcomes)}
    findings = hr.rival_findings(hr.labelled_rival_cells(values, kernels, out, groups, fractions))
    control_by_seed = horizon_checks.discoveries_by_seed(
        values[:len(kernels)], values[len(kernels):], out, groups, fractions,
        n_permutations=horizon_checks.ADD_CONTROL_PERMUTATIONS, first_seed=CONTROL_FIRST_SEED)
    return PairBlock(runs, snapshots, retrace, out, groups, values, per_group, curves, findings, control_by_seed)


def judge_pair_block(block: PairBlock, predictors: list[str], kernels: list[str], outcomes: list[str],
                     fractions: list[float], early: float) -> dict[str, claims.Judgement]:
    """claim -> judgement under the criterion in force of the five horizon claims on the pairs: the
    three early windows (kernel quantities, the sharing index, the test loss; fractions 0 < f <=
    ``early``), the kernel against every rival and what a kernel quantity adds to all rivals."""
    names = {"kernels": (kernels, outcomes), "sharing": (["sharing"], ["sharing_final"]),
             "loss": (["loss_test"], ["loss_single_test"])}
    out = {}
    for claim, which in WINDOW_CLAIMS.items():
        r, labels = hr.window_cells(block.curves, predictors, *names[which], fractions, early)
        out[claim] = claims.judge(claim, r=r, labels=labels, n_per_group=block.per_group)
    f = block.findings
    cell_labels = [" / ".join(label) for label in f["labels"]]
    n = int(block.values.shape[2])
    out["horizon-pairs-kernel-beats-rivals"] = claims.judge(
        "horizon-pairs-kernel-beats-rivals", p=f["p"], p_reverse=f["p_reverse"], labels=cell_labels,
        kernel_of=f["kernel_of"], n=n)
    out["horizon-pairs-kernel-adds"] = claims.judge("horizon-pairs-kernel-adds", p=f["p_partial"], labels=cell_labels,
                                                    n=n)
    return out


def precision_text(blocks: list[PairBlock], n_pairs: int) -> str:
    """:func:`lib.analyses.replication.precision_note` of the pair claims: the widest pooled
    within-group Fisher half-width over the ``blocks`` against the declared one."""
    return precision_note(max(pooled_fisher_half_width(b.per_group) for b in blocks), n_pairs, HORIZON_PAIRS_SAMPLE)
