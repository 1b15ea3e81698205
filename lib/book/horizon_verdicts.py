"""Chapter 12's verdicts on the continuum's networks: the prediction-horizon claims of single-task
training and of fine-tuning, judged from the chapter's accuracy curves and rival findings.

Book layer. Every verdict comes from :func:`lib.analyses.claims.judge`; the cells come from
:mod:`lib.book.horizon_report` (:func:`~lib.book.horizon_report.window_cells` for the window claims,
:func:`~lib.book.horizon_report.rival_findings` for the rival claims). The paper's pairs are judged by
:func:`lib.book.horizon_pair_block.judge_pair_block`. Checked in ``tests/test_horizon_verdicts.py``.

``curves``: outcome -> :func:`lib.analyses.horizon.accuracy_curves` (``within`` (P, F) per predictor
and fraction); ``findings``: :func:`~lib.book.horizon_report.rival_findings` of the same networks;
``n_per_group``: networks per init scale; ``n_networks``: the networks analysed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from ..analyses import claims
from ..analyses.claim_registry_horizon_rivals import SETTLED_FROM
from .horizon_pair_block import judge_pair_block
from .horizon_report import window_cells

FINETUNE = " of fine-tuning"  # appended to a fine-tuning cell's fraction


def _window(claim: str, curves: dict, predictors, names, outcomes, fractions, early: float, n_per_group,
            phase: str = "") -> Callable[..., claims.Judgement]:
    r, labels = window_cells(curves, predictors, names, outcomes, fractions, early, phase)
    return lambda version=None: claims.judge(claim, version=version, r=r, labels=labels, n_per_group=n_per_group)


def _joined(labels) -> list[str]:
    return [" / ".join(label) for label in labels]


def _beats(claim: str, findings: dict, n_networks: int) -> Callable[..., claims.Judgement]:
    """A beats-rivals claim's judge by version; version 1 of horizon-kernel-beats-rivals takes no reverse test."""
    labels = _joined(findings["labels"])

    def judged(version=None):
        if claim == "horizon-kernel-beats-rivals" and version == 1:
            return claims.judge(claim, version=1, p=findings["p"], labels=labels, n=n_networks)
        return claims.judge(claim, version=version, p=findings["p"], p_reverse=findings["p_reverse"], labels=labels,
                            kernel_of=findings["kernel_of"], n=n_networks)
    return judged


def single_task_judges(curves: dict, findings: dict, predictors: Sequence[str], kernels: Sequence[str],
                       outcomes: Sequence[str], fractions, early: float, n_per_group, n_networks: int,
                       control_discoveries: Callable[[int], np.ndarray]) -> dict[str, Callable[..., claims.Judgement]]:
    """claim -> its judge (version -> :class:`lib.analyses.claims.Judgement`; no version: the
    criterion in force) of the single-task horizon claims on these networks: the three windows
    (kernel quantities, the representation, the test loss), the kernel against its rivals (beat,
    add) and the add test's negative control, judged under every stability seed of its permutations
    (``control_discoveries``: seed -> discoveries per permutation,
    :func:`lib.analyses.horizon_checks.discoveries_by_seed`)."""
    window = lambda claim, names, outs: _window(claim, curves, predictors, names, outs, fractions, early,  # noqa: E731
                                                n_per_group)
    labels = _joined(findings["labels"])
    return {
        "horizon-kernel-window": window("horizon-kernel-window", kernels, outcomes),
        "horizon-representation-window": window("horizon-representation-window", ["sharing"], ["sharing_final"]),
        "horizon-loss-window": window("horizon-loss-window", ["loss_test"], ["loss_single_test"]),
        "horizon-kernel-beats-rivals": _beats("horizon-kernel-beats-rivals", findings, n_networks),
        "horizon-kernel-adds": lambda version=None: claims.judge("horizon-kernel-adds", version=version,
                                                                 p=findings["p_partial"], labels=labels, n=n_networks),
        "horizon-kernel-adds-control": lambda version=None: claims.judge(
            "horizon-kernel-adds-control", version=version, seeded=lambda s: {"discoveries": control_discoveries(s)}),
    }


def finetune_judges(curves: dict, findings: dict, predictors: Sequence[str], kernels: Sequence[str],
                    outcomes: Sequence[str], fractions, early: float, n_per_group,
                    n_networks: int) -> dict[str, Callable[..., claims.Judgement]]:
    """claim -> its judge by version (as :func:`single_task_judges`) of the fine-tuning horizon
    claims: the kernel and loss windows and the kernel against its rivals."""
    window = lambda claim, names, outs: _window(claim, curves, predictors, names, outs, fractions, early,  # noqa: E731
                                                n_per_group, FINETUNE)
    return {
        "horizon-finetune-kernel-window": window("horizon-finetune-kernel-window", kernels, outcomes),
        "horizon-finetune-loss-window": window("horizon-finetune-loss-window", ["loss_test"], ["loss_finetune_test"]),
        "horizon-finetune-kernel-beats-rivals": _beats("horizon-finetune-kernel-beats-rivals", findings, n_networks),
    }


def judged_on(claim: str, version: int) -> str:
    """Which networks ``claim``'s ``version`` is judged on: "settled" (the analysed networks whose
    fine-tuning also settled) from the version
    :data:`lib.analyses.claim_registry_horizon_rivals.SETTLED_FROM` names on, else "analysed"."""
    return "settled" if version >= SETTLED_FROM.get(claim, version + 1) else "analysed"


def every_version(judges: dict, settled_judges: dict) -> tuple[dict, dict]:
    """(claim -> the judgement in force, claim -> the judgements of its earlier versions in order)
    of each claim of ``judges`` (claim -> judge by version, on the analysed networks), each version
    judged on the networks it was declared for (:func:`judged_on`; ``settled_judges``: the same
    judges on the networks whose fine-tuning also settled, the one convergence filter)."""
    on = {"analysed": judges, "settled": settled_judges}
    now, earlier = {}, {}
    for claim in judges:
        current = claims.criterion(claim).version
        now[claim] = on[judged_on(claim, current)][claim]()
        if current > 1:
            earlier[claim] = [on[judged_on(claim, v)][claim](v) for v in range(1, current)]
    return now, earlier


def first_sure_fractions(curves: dict, n_kernels: int) -> tuple[float, float]:
    """(the earliest fraction at which some kernel quantity is surely beyond the threshold for some
    outcome, the same for the rivals): the kernel predictors are the first ``n_kernels`` rows."""
    kernel = min(min(c["earliest_sure"][:n_kernels]) for c in curves.values())
    rival = min(min(c["earliest_sure"][n_kernels:]) for c in curves.values())
    return kernel, rival


def judge_pair_control(control_discoveries: Callable[[int], np.ndarray]) -> claims.Judgement:
    """The add test's negative control on the paper's pairs, judged under every stability seed of its
    permutations (``control_discoveries``: seed -> discoveries per permutation)."""
    return claims.judge("horizon-pairs-kernel-adds-control", seeded=lambda s: {"discoveries": control_discoveries(s)})


class HorizonJudgements(NamedTuple):
    """Every verdict of chapter 12, claim -> :class:`lib.analyses.claims.Judgement`: ``single`` (the
    continuum's single-task phase) and ``finetune`` (its fine-tuning) under the criteria in force,
    ``earlier`` (claim -> its earlier versions' judgements, oldest first; :func:`every_version`),
    ``pairs`` (the paper's pairs, the add test's control included), ``replicated_pairs`` (their
    replication block) and ``replicated`` (the continuum's claims of
    :data:`lib.analyses.replication.CONTINUUM_HORIZON_CLAIMS` in force on its replication block)."""

    single: dict
    finetune: dict
    earlier: dict
    pairs: dict
    replicated_pairs: dict
    replicated: dict = {}


def _continuum_judges(blocks, predictors, kernels, outcomes, finetune_outcomes, fractions, finetune_fractions,
                      early) -> dict[str, tuple[dict, dict]]:
    """phase ("single", "finetune") -> (claim -> judge by version on the analysed networks, the same
    on those whose fine-tuning also settled) of the continuum's claims on one block of its networks
    (:class:`lib.book.horizon_continuum_block.ContinuumBlocks`)."""
    def single(b):
        return single_task_judges(b.curves, b.findings, predictors, kernels, outcomes, fractions, early, b.per_scale,
                                  int(b.use.sum()), b.control_by_seed)

    def tuned(b, ft):
        return finetune_judges(ft.curves, ft.findings, predictors, kernels, finetune_outcomes, finetune_fractions,
                               early, b.per_scale, int(b.use.sum()))
    return {"single": (single(blocks.single), single(blocks.settled)),
            "finetune": (tuned(blocks.single, blocks.finetune), tuned(blocks.settled, blocks.settled_finetune))}


def judge_chapter(continuum, replication, pairs, replicated_pairs, predictors: Sequence[str], kernels: Sequence[str],
                  outcomes: Sequence[str], finetune_outcomes: Sequence[str], fractions, finetune_fractions,
                  pair_fractions, early: float) -> HorizonJudgements:
    """The :class:`HorizonJudgements` of the continuum's discovery and replication blocks
    (``continuum``, ``replication``: :class:`lib.book.horizon_continuum_block.ContinuumBlocks`; each
    version judged on the networks it was declared for, :func:`every_version`; the replication block
    under the criteria in force only) and of the pairs' two blocks
    (:class:`lib.book.horizon_pair_block.PairBlock`); the controls are judged under every stability
    seed of their permutations."""
    from ..analyses.replication import CONTINUUM_HORIZON_CLAIMS

    args = (predictors, kernels, outcomes, finetune_outcomes, fractions, finetune_fractions, early)
    judges, replication_judges = _continuum_judges(continuum, *args), _continuum_judges(replication, *args)
    single, single_earlier = every_version(*judges["single"])
    tuned, tuned_earlier = every_version(*judges["finetune"])
    on = {"analysed": {**replication_judges["single"][0], **replication_judges["finetune"][0]},
          "settled": {**replication_judges["single"][1], **replication_judges["finetune"][1]}}
    replicated = {claim: on[judged_on(claim, claims.criterion(claim).version)][claim]()
                  for claim in CONTINUUM_HORIZON_CLAIMS}
    pair = judge_pair_block(pairs, predictors, kernels, outcomes, pair_fractions, early)
    pair["horizon-pairs-kernel-adds-control"] = judge_pair_control(pairs.control_by_seed)
    replicated_pair = judge_pair_block(replicated_pairs, predictors, kernels, outcomes, pair_fractions, early)
    return HorizonJudgements(single, tuned, {**single_earlier, **tuned_earlier}, pair, replicated_pair, replicated)


def on_every_analysed(judgements: HorizonJudgements) -> dict:
    """claim -> its latest judgement judged on every analysed network (:func:`judged_on`), for the
    continuum's single-task and fine-tuning claims: the one in force, or for a claim judged in force
    on the settled networks the version before it."""
    return {claim: judgements.earlier[claim][-1] if judged_on(claim, j.version) == "settled" else j
            for claim, j in {**judgements.single, **judgements.finetune}.items()}
