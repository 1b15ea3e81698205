"""Chapter 12's horizon on the converged continuum: its single-task and its fine-tuning block.

:func:`continuum_block` reads the converged continuum of chapter 10 (the same sweep, from the
results cache) and the horizon's snapshots of its single-task phase, checks that the retrained
snapshots retrace the continuum's runs to float32 agreement, keeps the networks the declared
convergence rule analyses (:func:`lib.analyses.continuum_facts.analysed`) and measures every
predictor against every outcome within the init scales: the accuracy curves, the kernel-against-
rival findings and the add test's negative control. :func:`finetune_block` does the same for the
snapshots of the fine-tuning phase, on the same networks. :func:`measured_on` and
:func:`finetune_measured_on` measure a block again on fewer networks: those whose fine-tuning also
settled, for the families of cells that include a fine-tuning outcome (the one convergence filter,
``continuum_facts.analysed(..., finetune=True)``). :func:`continuum_blocks` makes all four for one
block of seeds: the discovery block, or the replication block that
:data:`lib.analyses.replication.CONTINUUM_SAMPLE` declares.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ..analyses import continuum_facts, continuum_sweeps, horizon, horizon_checks, horizon_finetune, horizon_points
from ..analyses.continuum_sweeps import RECORDED_TEST_LOSS
from . import horizon_report as hr
from .horizon_pair_block import RETRACE_TOLERANCE

MIN_PER_SCALE = 4  # analysed networks per init scale that a within-scale correlation needs
CONTROL_FIRST_SEED = 1  # the continuum's control permutations start at this seed (the pairs' at 2)


class ContinuumBlock(NamedTuple):
    """The horizon of the converged continuum's single-task phase: ``networks`` (the continuum,
    field -> (N_all,)), ``learning_rates`` (per scale), ``snapshots``
    (:func:`lib.analyses.horizon_points.horizon_sweep`), ``retrace`` (largest relative test-loss
    difference of the snapshots from the runs), ``use`` ((N_all,) bool: the analysed networks),
    ``groups`` ((N,) init scale of each analysed network), ``per_scale`` (analysed networks per
    scale, in the order of the scales), ``values`` ((predictors, fractions, N)), ``outcomes``
    (outcome -> (N,)), ``curves`` (outcome -> :func:`lib.analyses.horizon.accuracy_curves`),
    ``findings`` (:func:`lib.book.horizon_report.rival_findings`) and ``control_by_seed`` (seed ->
    the add test's discoveries on within-scale shuffled outcomes,
    :func:`lib.analyses.horizon_checks.discoveries_by_seed`)."""

    networks: dict
    learning_rates: list[float]
    snapshots: dict
    retrace: float
    use: np.ndarray | None = None  # this and the fields below: None until measured (:func:`measured_on`)
    groups: np.ndarray | None = None
    per_scale: list[int] | None = None
    values: np.ndarray | None = None
    outcomes: dict[str, np.ndarray] | None = None
    curves: dict | None = None
    findings: dict | None = None
    control_by_seed: Callable[[int], np.ndarray] | None = None


class FinetuneBlock(NamedTuple):
    """The horizon of the continuum's fine-tuning phase, on the networks of a
    :class:`ContinuumBlock`: ``snapshots`` (:func:`lib.analyses.horizon_finetune.finetune_horizon_sweep`),
    ``retrace`` (relative multitask test-loss difference at the start of fine-tuning), ``use`` (the
    block's networks it is measured on), ``values`` ((predictors, fractions, N)), ``curves`` and
    ``findings`` (as in :class:`ContinuumBlock`)."""

    snapshots: dict
    retrace: float
    use: np.ndarray | None = None  # this and the fields below: None until measured (:func:`finetune_measured_on`)
    values: np.ndarray | None = None
    curves: dict | None = None
    findings: dict | None = None


class ContinuumBlocks(NamedTuple):
    """The horizon of one block of the converged continuum's networks (the discovery block, or a
    replication block of other seeds): ``single`` (:class:`ContinuumBlock`) and ``finetune``
    (:class:`FinetuneBlock`) on the analysed networks, ``settled`` and ``settled_finetune`` the same on
    those whose fine-tuning also settled (the one convergence filter)."""

    single: ContinuumBlock
    finetune: FinetuneBlock
    settled: ContinuumBlock
    settled_finetune: FinetuneBlock


def _same_networks(snapshots: dict, networks: dict, what: str) -> None:
    if not (np.array_equal(snapshots["g"], networks["g"]) and np.array_equal(snapshots["seed"], networks["seed"])):
        raise RuntimeError(f"the {what}'s networks are not the converged continuum's (scale and seed order differ)")


def single_task_retrace(snapshots: dict, networks: dict, fractions: Sequence[float]) -> float:
    """Largest relative difference of the snapshots' test loss (``loss_test``, (F, N)) from the
    continuum's recorded test loss at the fractions both recorded
    (:data:`lib.analyses.continuum_sweeps.RECORDED_TEST_LOSS`); ValueError where ``fractions`` holds
    none of them."""
    shared = [f for f in RECORDED_TEST_LOSS if f in fractions]
    if not shared:
        raise ValueError(f"fractions must include one of {list(RECORDED_TEST_LOSS)} (where the continuum recorded its "
                         f"test loss, to check the snapshots against it), got {list(fractions)}")
    return max(float(np.max(np.abs(snapshots["loss_test"][list(fractions).index(f)] - networks[RECORDED_TEST_LOSS[f]])
                            / networks[RECORDED_TEST_LOSS[f]])) for f in shared)


def _check_retrace(retrace: float, what: str) -> None:
    if not retrace < RETRACE_TOLERANCE:
        raise RuntimeError(f"retrained networks' {what} differs from the continuum's by {retrace:.2g} (relative), "
                           f"more than float32 agreement ({RETRACE_TOLERANCE:g}) allows")


def per_scale_counts(groups: np.ndarray, scales: Sequence[float]) -> list[int]:
    """Analysed networks per init scale, in the order of ``scales``; ValueError when a scale has
    fewer than :data:`MIN_PER_SCALE` (a within-scale correlation needs them)."""
    counts = [int(np.sum(groups == g)) for g in scales]
    if min(counts) < MIN_PER_SCALE:
        raise ValueError(f"every scale needs >= {MIN_PER_SCALE} analysed networks for a within-scale correlation, "
                         f"got {counts} for scales {list(scales)}")
    return counts


def continuum_block(scales: Sequence[float], lr_candidates: Sequence[float], n_lr_seeds: int, lr_choice_iterations: int,
                    n_seeds: int, first_block: int, common: dict, fractions: Sequence[float], converged_only: bool,
                    predictors: Sequence[str], kernels: Sequence[str], outcomes: Sequence[str], threshold: float,
                    n_resamples: int, first_seed: int = 0) -> ContinuumBlock:
    """The :class:`ContinuumBlock` of the converged continuum (``scales``, the learning rate chosen
    among ``lr_candidates`` as chapter 10 does, ``n_seeds`` per scale, sizes and iterations
    ``common``) observed at ``fractions`` of its single-task phase; ``predictors`` in the order of
    the values, the first ``len(kernels)`` the kernel quantities; ``threshold`` and ``n_resamples``
    as :func:`lib.analyses.horizon.accuracy_curves`; ``first_seed``: the continuum's first seed (0:
    the book's networks; another value: a disjoint replication block). RuntimeError when the snapshots are not the
    continuum's networks or do not retrace its runs; ValueError when a scale keeps fewer than
    :data:`MIN_PER_SCALE` analysed networks."""
    networks = continuum_sweeps.converged_sweep(list(scales), list(lr_candidates), n_lr_seeds, lr_choice_iterations,
                                                n_seeds, first_block, common, first_seed=first_seed)
    learning_rates = [float(networks["lr"][networks["g"] == g][0]) for g in scales]
    snapshots = horizon_points.horizon_sweep(list(scales), learning_rates, n_seeds, common, list(fractions),
                                             initial_silhouettes={k: networks[k]  # chapter 10's t=0 silhouettes
                                                                  for k in horizon_points.INITIAL_SILHOUETTES},
                                             first_seed=first_seed)
    _same_networks(snapshots, networks, "horizon")
    retrace = single_task_retrace(snapshots, networks, fractions)
    _check_retrace(retrace, "test loss at the retraced fractions")
    return measured_on(ContinuumBlock(networks, learning_rates, snapshots, retrace),
                       continuum_facts.analysed(networks, converged_only), scales, predictors, kernels, outcomes,
                       fractions, threshold, n_resamples)


def measured_on(block: ContinuumBlock, use: np.ndarray, scales: Sequence[float], predictors: Sequence[str],
                kernels: Sequence[str], outcomes: Sequence[str], fractions: Sequence[float], threshold: float,
                n_resamples: int) -> ContinuumBlock:
    """``block`` measured on the networks ``use`` ((N_all,) bool) of its continuum: the analysed
    networks' groups, values and outcomes, their accuracy curves (resampling seeds 0, 1, ... per
    outcome), rival findings and the add test's control (the arguments as :func:`continuum_block`).
    A family that includes a fine-tuning outcome is measured on
    ``continuum_facts.analysed(networks, converged_only, finetune=True)``: the same call on fewer networks."""
    networks = block.networks
    use = np.asarray(use)
    if use.dtype != bool or use.shape != np.shape(networks["g"]):
        raise ValueError(f"use must be a boolean mask of shape {np.shape(networks['g'])}, got {use.dtype} {use.shape}")
    if block.use is not None and np.array_equal(use, block.use):
        return block  # the same networks: the same measures, not computed again
    groups = networks["g"][use]
    per_scale = per_scale_counts(groups, scales)
    values = np.stack([block.snapshots[p][:, use] for p in predictors])  # (P, F, N)
    out = {o: networks[o][use] for o in outcomes}
    curves = {o: horizon.accuracy_curves(values, out[o], groups, list(fractions), threshold, n_resamples, seed=i)
              for i, o in enumerate(outcomes)}
    findings = hr.rival_findings(hr.labelled_rival_cells(values, kernels, out, groups, list(fractions)))
    control_by_seed = horizon_checks.discoveries_by_seed(
        values[:len(kernels)], values[len(kernels):], out, groups, list(fractions),
        n_permutations=horizon_checks.ADD_CONTROL_PERMUTATIONS, first_seed=CONTROL_FIRST_SEED)
    return block._replace(use=use, groups=groups, per_scale=per_scale, values=values, outcomes=out, curves=curves,
                          findings=findings, control_by_seed=control_by_seed)


def finetune_block(block: ContinuumBlock, scales: Sequence[float], n_seeds: int, common: dict,
                   fractions: Sequence[float], predictors: Sequence[str], kernels: Sequence[str],
                   outcomes: Sequence[str], threshold: float, n_resamples: int) -> FinetuneBlock:
    """The :class:`FinetuneBlock` of ``block``'s networks observed at ``fractions`` of fine-tuning
    (the other arguments as :func:`continuum_block`; the curves' resampling seeds are 10, 11, ...).
    RuntimeError when the snapshots are not the continuum's networks or do not retrace the start of
    its fine-tuning."""
    networks = block.networks
    snapshots = horizon_finetune.finetune_horizon_sweep(list(scales), block.learning_rates, n_seeds, common,
                                                        list(fractions), first_seed=int(block.networks["seed"][0]))
    _same_networks(snapshots, networks, "fine-tuning horizon")
    retrace = float(np.max(np.abs(snapshots["loss_test"][0] - networks["loss_multi_before"])
                           / networks["loss_multi_before"]))
    _check_retrace(retrace, "multitask test loss at the start of fine-tuning")
    return finetune_measured_on(FinetuneBlock(snapshots, retrace), block, predictors, kernels, outcomes, fractions,
                                threshold, n_resamples)


def finetune_measured_on(finetune: FinetuneBlock, block: ContinuumBlock, predictors: Sequence[str],
                         kernels: Sequence[str], outcomes: Sequence[str], fractions: Sequence[float], threshold: float,
                         n_resamples: int) -> FinetuneBlock:
    """``finetune``'s snapshots measured on the networks of ``block`` (its ``use`` and ``groups``):
    values, accuracy curves (resampling seeds 10, 11, ... per outcome) and rival findings (``finetune``
    itself where it was measured on these networks already)."""
    if finetune.use is not None and np.array_equal(finetune.use, block.use):
        return finetune
    values = np.stack([finetune.snapshots[p][:, block.use] for p in predictors])  # (P, F, N)
    out = {o: block.networks[o][block.use] for o in outcomes}
    curves = {o: horizon.accuracy_curves(values, out[o], block.groups, list(fractions), threshold, n_resamples,
                                         seed=10 + i) for i, o in enumerate(outcomes)}
    findings = hr.rival_findings(hr.labelled_rival_cells(values, kernels, out, block.groups, list(fractions)))
    return finetune._replace(use=block.use, values=values, curves=curves, findings=findings)


def continuum_blocks(scales: Sequence[float], lr_candidates: Sequence[float], n_lr_seeds: int,
                     lr_choice_iterations: int, n_seeds: int, first_block: int, common: dict,
                     fractions: Sequence[float], finetune_fractions: Sequence[float], converged_only: bool,
                     predictors: Sequence[str], kernels: Sequence[str], outcomes: Sequence[str],
                     finetune_outcomes: Sequence[str], threshold: float, n_resamples: int,
                     first_seed: int = 0) -> ContinuumBlocks:
    """The :class:`ContinuumBlocks` of the converged continuum's networks from ``first_seed``: its
    :func:`continuum_block`, :func:`finetune_block` at ``finetune_fractions`` with
    ``finetune_outcomes``, and both measured again on the networks whose fine-tuning also settled
    (the arguments as :func:`continuum_block`)."""
    block = continuum_block(scales, lr_candidates, n_lr_seeds, lr_choice_iterations, n_seeds, first_block, common,
                            fractions, converged_only, predictors, kernels, outcomes, threshold, n_resamples,
                            first_seed)
    finetune = finetune_block(block, scales, n_seeds, common, finetune_fractions, predictors, kernels,
                              finetune_outcomes, threshold, n_resamples)
    settled = measured_on(block, continuum_facts.analysed(block.networks, converged_only, finetune=True), scales,
                          predictors, kernels, outcomes, fractions, threshold, n_resamples)
    settled_finetune = finetune_measured_on(finetune, settled, predictors, kernels, finetune_outcomes,
                                            finetune_fractions, threshold, n_resamples)
    return ContinuumBlocks(block, finetune, settled, settled_finetune)


def precision_text(blocks: Sequence[ContinuumBlocks], n_seeds: int) -> str:
    """:func:`lib.analyses.replication.precision_note` of the continuum's horizon claims: the widest
    pooled within-scale Fisher half-width of the networks the blocks judge them on (the analysed ones,
    and the fewer whose fine-tuning also settled) against
    :data:`lib.analyses.replication.CONTINUUM_SAMPLE`'s, ``n_seeds`` networks per init scale."""
    from ..analyses.replication import CONTINUUM_SAMPLE, pooled_fisher_half_width, precision_note

    return precision_note(max(pooled_fisher_half_width(measured.per_scale) for b in blocks
                              for measured in (b.single, b.settled)), n_seeds, CONTINUUM_SAMPLE)
