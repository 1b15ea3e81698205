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
from .horizon_pair_block import judge_pair_block
from .horizon_report import window_cells

FINETUNE = " of fine-tuning"  # appended to a fine-tuning cell's fraction


def _window(claim: str, curves: dict, predictors, names, outcomes, fractions, early: float, n_per_group,
            phase: str = "") -> claims.Judgement:
    r, labels = window_cells(curves, predictors, names, outcomes, fractions, early, phase)
    return claims.judge(claim, r=r, labels=labels, n_per_group=n_per_group)


def _joined(labels) -> list[str]:
    return [" / ".join(label) for label in labels]


def judge_single_task(curves: dict, findings: dict, predictors: Sequence[str], kernels: Sequence[str],
                      outcomes: Sequence[str], fractions, early: float, n_per_group, n_networks: int,
                      control_discoveries: Callable[[int], np.ndarray]) -> dict[str, claims.Judgement]:
    """The single-task horizon claims: the three windows (kernel quantities, the representation, the
    test loss), the kernel against its rivals (beat, add) and the add test's negative control, judged
    under every stability seed of its permutations (``control_discoveries``: seed -> discoveries per
    permutation, :func:`lib.analyses.horizon_checks.discoveries_by_seed`)."""
    window = lambda claim, names, outs: _window(claim, curves, predictors, names, outs, fractions, early,  # noqa: E731
                                                n_per_group)
    return {
        "horizon-kernel-window": window("horizon-kernel-window", kernels, outcomes),
        "horizon-representation-window": window("horizon-representation-window", ["sharing"], ["sharing_final"]),
        "horizon-loss-window": window("horizon-loss-window", ["loss_test"], ["loss_single_test"]),
        "horizon-kernel-beats-rivals": claims.judge("horizon-kernel-beats-rivals", p=findings["p"],
                                                    p_reverse=findings["p_reverse"], labels=_joined(findings["labels"]),
                                                    kernel_of=findings["kernel_of"], n=n_networks),
        "horizon-kernel-adds": claims.judge("horizon-kernel-adds", p=findings["p_partial"],
                                            labels=_joined(findings["labels"]), n=n_networks),
        "horizon-kernel-adds-control": claims.judge("horizon-kernel-adds-control",
                                                    seeded=lambda s: {"discoveries": control_discoveries(s)}),
    }


def beats_rivals_version_1(findings: dict, n_networks: int) -> claims.Judgement:
    """horizon-kernel-beats-rivals under its first criterion (no reverse test), shown beside the one in force."""
    return claims.judge("horizon-kernel-beats-rivals", version=1, p=findings["p"], labels=_joined(findings["labels"]),
                        n=n_networks)


def judge_finetune(curves: dict, findings: dict, predictors: Sequence[str], kernels: Sequence[str],
                   outcomes: Sequence[str], fractions, early: float, n_per_group,
                   n_networks: int) -> dict[str, claims.Judgement]:
    """The fine-tuning horizon claims: the kernel and loss windows and the kernel against its rivals."""
    window = lambda claim, names, outs: _window(claim, curves, predictors, names, outs, fractions, early,  # noqa: E731
                                                n_per_group, FINETUNE)
    return {
        "horizon-finetune-kernel-window": window("horizon-finetune-kernel-window", kernels, outcomes),
        "horizon-finetune-loss-window": window("horizon-finetune-loss-window", ["loss_test"], ["loss_finetune_test"]),
        "horizon-finetune-kernel-beats-rivals": claims.judge(
            "horizon-finetune-kernel-beats-rivals", p=findings["p"], p_reverse=findings["p_reverse"],
            labels=_joined(findings["labels"]), kernel_of=findings["kernel_of"], n=n_networks),
    }


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
    """Every verdict of chapter 12, claim -> :class:`lib.analyses.claims.Judgement` under the
    criterion in force: ``single`` (the continuum's single-task phase), ``finetune`` (its
    fine-tuning), ``pairs`` (the paper's pairs, the add test's control included) and
    ``replicated_pairs`` (their replication block); ``beats_v1``: horizon-kernel-beats-rivals under
    its first criterion, shown beside the one in force."""

    single: dict
    finetune: dict
    pairs: dict
    replicated_pairs: dict
    beats_v1: claims.Judgement


def judge_chapter(block, finetune_block, pairs, replicated_pairs, predictors: Sequence[str], kernels: Sequence[str],
                  outcomes: Sequence[str], finetune_outcomes: Sequence[str], fractions, finetune_fractions,
                  pair_fractions, early: float) -> HorizonJudgements:
    """The :class:`HorizonJudgements` of the continuum's blocks (``block``: a
    :class:`lib.book.horizon_continuum_block.ContinuumBlock`, ``finetune_block`` its
    :class:`~lib.book.horizon_continuum_block.FinetuneBlock`) and of the pairs' two blocks
    (:class:`lib.book.horizon_pair_block.PairBlock`); the controls are judged under every stability
    seed of their permutations."""
    n_networks = int(block.use.sum())
    single = judge_single_task(block.curves, block.findings, predictors, kernels, outcomes, fractions, early,
                               block.per_scale, n_networks, block.control_by_seed)
    finetune = judge_finetune(finetune_block.curves, finetune_block.findings, predictors, kernels, finetune_outcomes,
                              finetune_fractions, early, block.per_scale, n_networks)
    pair = judge_pair_block(pairs, predictors, kernels, outcomes, pair_fractions, early)
    pair["horizon-pairs-kernel-adds-control"] = judge_pair_control(pairs.control_by_seed)
    replicated = judge_pair_block(replicated_pairs, predictors, kernels, outcomes, pair_fractions, early)
    return HorizonJudgements(single, finetune, pair, replicated, beats_rivals_version_1(block.findings, n_networks))
