"""Chapter 13's glued texts, section by section: each function returns glue name -> text, glued
with one :func:`lib.book.glued.glue_texts` call.

Book layer. The numbers come from the blocks of :mod:`lib.book.rival_chapter`, the sentences of
the race, side-by-side and continuum sections from :mod:`lib.book.rival_tables`, the verdicts'
from :mod:`lib.book.rival_report`, :mod:`lib.book.rival_verdicts` and :mod:`lib.book.rival_answer`;
every verdict is a :class:`lib.analyses.claims.Judgement`. Checked in ``tests/test_rival_texts.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..analyses import claims
from . import rival_answer, rival_report, rival_tables, rival_verdicts
from .names import judgement_text
from .replication_report import replication_words
from .rival_chapter import ChapterVerdicts, ContinuumBlock, ContinuumReplication


def _seed_list(seeds: Sequence[int]) -> str:
    return ", ".join(map(str, seeds))


def design_texts(tp_width: int, tp_fit_seeds: Sequence[int], tp_test_seeds: Sequence[int], first_seed: int,
                 n_seeds: int, scales: Sequence[float], n_hidden: int, n_train: int, learning_rate: float,
                 n_iterations: int, n_snapshots: int, n_fit: int) -> dict[str, str]:
    """The design's texts: the two-point network's width and its fitting and test seeds; the
    multitask networks (``n_seeds`` from ``first_seed`` at each of ``scales``, ``n_hidden`` hidden
    units), their training (``n_train`` patterns, ``n_iterations`` at ``learning_rate``,
    ``n_snapshots`` snapshots) and the networks per scale that fit the two-point rates (``n_fit``)."""
    if n_seeds < 1:
        raise ValueError(f"n_seeds must be at least 1, got {n_seeds}")
    return {"rv_tp_width": f"{tp_width}", "rv_tp_fit": _seed_list(tp_fit_seeds),
            "rv_tp_test": _seed_list(tp_test_seeds),
            "rv_nets": f"{n_seeds} networks (seeds {first_seed}-{first_seed + n_seeds - 1}) at each of the initial "
                       "scales g = " + ", ".join(f"{g:g}" for g in scales) + f"; {n_hidden} hidden units",
            "rv_train": f"{n_train} i.i.d. patterns, learning rate {learning_rate:g}, {n_iterations:,} iterations, "
                        f"{n_snapshots} snapshots",
            "rv_n_fit": f"{n_fit}", "rv_hidden": f"{n_hidden}"}


def two_point_texts(final_rel_error: np.ndarray) -> dict[str, str]:
    """The two-point network's median relative error of the final distance (``final_rel_error``
    (gains, test seeds), fractions) over gains and held-out seeds, as a percentage."""
    return {"rv_tp_median": f"{np.median(final_rel_error):.1%}"}


def race_check_texts(seed: int, race_check: dict) -> dict[str, str]:
    """The race's reduction against its gated network on the training set of ``seed``: the largest
    route-loss difference relative to the route's start (``max_error``) and the largest relative
    difference of the routes' learning times (``time_error``), as percentages."""
    return {"rv_race_seed": f"{seed}", "rv_race_error": f"{race_check['max_error']:.1%}",
            "rv_race_time_error": f"{race_check['time_error']:.1%}"}


def task_pair_texts(by_scale: dict) -> dict[str, str]:
    """The two-point theory's task-pair prediction pooled over every scale
    (:func:`lib.book.rival_tables.pooled_pairs_text`)."""
    return {"rv_pairs_across": rival_tables.pooled_pairs_text(by_scale)}


def side_texts(kernel_predictions: dict, scores: dict, n_snapshots: int) -> dict[str, str]:
    """The side-by-side section's texts (:func:`lib.book.rival_tables.side_texts` at the scales of
    ``scores``) and the snapshots the accumulated eNTK sums over."""
    return {"rv_side_snapshots": f"{n_snapshots}",
            **rival_tables.side_texts(kernel_predictions, scores, list(scores))}


def continuum_texts(continuum: ContinuumBlock, n_seeds: int, n_hidden: int, converged_only: bool,
                    fit_seeds: Sequence[int], fit_snapshots: int) -> dict[str, str]:
    """The continuum section's texts (:func:`lib.book.rival_tables.continuum_texts` of ``continuum``)
    and the held-out networks that fit its two-point rates (``fit_seeds``, observed at
    ``fit_snapshots`` snapshots)."""
    return {**rival_tables.continuum_texts(continuum.across, continuum.n_finite, continuum.scales, n_seeds, n_hidden,
                                           continuum.use, converged_only, continuum.found.match),
            "rv_cont_fit_seeds": _seed_list(fit_seeds), "rv_cont_fit_snapshots": f"{fit_snapshots}"}


def continuum_replication_texts(discovery: claims.Judgement, replication: ContinuumReplication,
                                block_words: str) -> dict[str, str]:
    """The page's texts of rival-continuum-similarity on the replication block (``block_words``): its
    declared precision, its networks analysed, the verdict in force there with its numbers and
    whether it replicates the discovery block's (``discovery``), the precision reached and the
    earlier versions' verdicts there."""
    from ..analyses.replication import RIVAL_CONTINUUM_SAMPLE

    block = replication.block
    return {"rv_rep_block": block_words, "rv_rep_half_width": f"{RIVAL_CONTINUUM_SAMPLE.half_width:.2f}",
            "rv_rep_analysed": f"{int(block.use.sum())} of its {block.use.size} networks",
            "rv_rep_match": rival_tables.match_text(block.found.match),
            "rv_rep_result": replication_words(discovery, replication.judgement),
            "rv_rep_discovery": f"{discovery.ours}: {judgement_text(discovery)}",
            "rv_rep_precision": replication.precision,
            "rv_rep_earlier": "; ".join(f"version {j.version}: {j.verdict}" for j in replication.earlier) or "none"}


def verdict_texts(verdicts: ChapterVerdicts, race_error: float, n_hidden: int, continuum_n_hidden: int,
                  replication: ContinuumReplication | None = None) -> dict[str, str]:
    """The texts built on the chapter's verdicts (:func:`lib.book.rival_chapter.judge_chapter`): which
    predictor predicts what (side by side), the two task-similarity verdicts (own and continuum
    networks), every claim's verdict line (with its earlier versions) and the answer, short and in
    detail (``race_error``: the race reduction's largest relative error; ``n_hidden``,
    ``continuum_n_hidden``: hidden units of the chapter's and the continuum's networks; ``replication``:
    the continuum claim on its replication block, quoted in the answer)."""
    m, judgements = verdicts.measures, verdicts.judgements
    answer_inputs = (judgements, float(np.median(m.two_point_error)), float(race_error), m.held_r, m.small)
    return {"rv_side_words": rival_report.side_words(m.scores, m.scales, judgements),
            "rv_cont_verdicts": rival_verdicts.continuum_text(judgements, n_hidden, continuum_n_hidden, m),
            "rv_verdicts": rival_report.verdict_lines(judgements, verdicts.earlier,
                                                      {k: claims.CLAIMS[k].text for k in judgements}),
            "rv_answer_box": rival_answer.answer_box(*answer_inputs),
            "rv_answer": rival_answer.answer_details(
                *answer_inputs, continuum_replication=None if replication is None else replication.judgement)}
