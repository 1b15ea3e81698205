"""Chapter 06's reader tables, glued texts and summary rows, assembled from its blocks of work
(:mod:`lib.book.correlation_blocks`).

Book layer. The single tables, texts and rows are :mod:`lib.book.correlation_report`'s (shared with
other chapters); this module puts the chapter's together: what each of its cells shows and glues,
and the record it writes. Checked in ``tests/test_correlation_page.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import replication
from ..analyses.correlation_verdicts import RELATIVE_CLAIMS, ClaimJudgements, holm_significant, judge_version_1
from . import correlation_report as cr
from .correlation_blocks import Choices, FirstPairs, Rivals, Verdicts
from .names import judgement_text, reader_name
from .replication_report import replication_words

DISJOINT_NOTE = ("With `split='disjoint'` the authors' variant does not exist (472 test patterns): the principled "
                 "variant is shown.")
INITS = ("standard", "large")


class HolmTable(NamedTuple):
    """A correlation table's Holm correction: ``view`` (the reader's table with a column of
    Holm-adjusted within-init permutation p's), ``adjusted`` (rows,) and ``significant`` (phase ->
    whether some row of that phase has an adjusted p <= 0.05)."""

    view: pd.DataFrame
    adjusted: np.ndarray
    significant: dict[str, bool]


def silhouette_summary(first: FirstPairs) -> pd.DataFrame:
    """Mean t=0 silhouette of each eNTK variant (rows, reader names) per schedule and init (columns)."""
    means = pd.DataFrame({f"{name}, {init} init": [first.structure[name][f"silhouette/entk_{v}"][:, i].mean()
                                                   for v in first.variants]
                          for name in first.runs for i, init in enumerate(INITS)}, index=first.variants)
    means.index = [reader_name(v) for v in means.index]
    return means


def variant_verdict_view(judged: dict[str, dict[str, ClaimJudgements]]) -> pd.DataFrame:
    """:func:`lib.book.correlation_report.verdict_view` of the discovery block's verdicts in force,
    variant by variant (``judged``: variant -> claim -> judgements)."""
    return cr.verdict_view({(f"discovery block, {v} variant", claim): j.current
                            for v, by_claim in judged.items() for claim, j in by_claim.items()})


def holm_table(table: pd.DataFrame) -> HolmTable:
    """The :class:`HolmTable` of a correlation table (:func:`lib.analyses.stats.correlation_table`)."""
    adjusted, significant = holm_significant(table)
    view = cr.correlation_view(table)
    view["Holm-adjusted p"] = [f"{p:.3f}" for p in adjusted]
    return HolmTable(view, adjusted, significant)


def discovery_texts(judged: dict[str, ClaimJudgements], holm: HolmTable, n_verdict_pairs: int) -> dict[str, str]:
    """The page's texts of the discovery block, by glue name: the pairs per schedule, each
    relative-loss claim's r's (phases in words), intervals and verdict, and the Holm correction's
    number of tests and whether it leaves a significant association per phase ("yes"/"no")."""
    texts = {"corr_n_verdict": f"{n_verdict_pairs}", "corr_n_holm": f"{len(holm.adjusted)}",
             "corr_holm_single": "yes" if holm.significant["single"] else "no",
             "corr_holm_finetune": "yes" if holm.significant["finetune"] else "no"}
    for claim in RELATIVE_CLAIMS:
        j = judged[claim].current
        texts |= {f"corr_v_{claim}": j.ours.replace("single", "single-task").replace("finetune", "fine-tuning"),
                  f"corr_v_{claim}_ci": j.interval, f"corr_v_{claim}_verdict": judgement_text(j)}
    return texts


def replication_texts(verdicts: Verdicts) -> dict[str, str]:
    """The page's texts of the replication block, by glue name: its seeds, the declared precision of r
    (half-width of the 95% interval) and ET's result on it beside the discovery block's."""
    return {"corr_replication_block": verdicts.replication_block,
            "corr_declared_half_width": f"{replication.CORRELATION_SAMPLE.half_width:.2f}",
            "corr_replication_et": replication_words(verdicts.judged["corr-et"].current,
                                                     verdicts.replicated["corr-et"].current)}


def choice_texts(choices: Choices) -> dict[str, str]:
    """The page's texts of the robustness section, by glue name: each choice's ET correlations and
    coverage (:func:`lib.book.correlation_report.choice_texts`) and the values this page did not use."""
    return cr.choice_texts(choices.tables) | {"other_split": choices.other["split"],
                                              "other_scaling": choices.other["large_scaling"]}


def summary_rows(first: FirstPairs, verdicts: Verdicts, rivals: Rivals, choices: Choices) -> list[dict]:
    """The chapter's summary rows: each correlation claim (verdict in force with versions 1 and 2 and its
    replication), ``corr-predicts``, the largest gap to the init label's r, and the other choices'
    correlations (robustness, where computed)."""
    first_table = first.tables[first.headline]
    rows = [cr.correlation_claim_row(
        claim, judged, judge_version_1(claim, first_table, first.n_pairs), discovery_table=verdicts.discovery_table,
        n_first_pairs=first.n_pairs, headline=first.headline,
        first_pairs_rivals={} if claim == "corr-raw" else cr.output_error_rs(rivals.by_predictor,
                                                                             RELATIVE_CLAIMS[claim]),
        replication=verdicts.replicated[claim].current, replication_block=verdicts.replication_block,
        precision=verdicts.precision[claim]) for claim, judged in verdicts.judged.items()]
    rows.append(cr.predicts_row(verdicts.in_force["corr-predicts"], verdicts.predicts_earlier,
                                verdicts.replicated_in_force["corr-predicts"], verdicts.replication_block,
                                cr.output_error_gap(rivals.by_predictor, first.headline), first.n_pairs))
    return rows + [cr.label_gap_row(first_table), *cr.choice_rows(choices.tables)]

