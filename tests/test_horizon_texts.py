"""The prediction-horizon chapter's sentences (lib.book.horizon_texts) on curves and findings built by hand."""

from __future__ import annotations

import numpy as np

from lib.book import horizon_texts as ht

PREDICTORS = ["silhouette_entk_authors", "sharing"]  # one kernel quantity, one rival
FRACTIONS = [0.0, 0.01, 0.1]


def curves() -> dict:
    within = np.array([[0.2, 0.5, 0.7], [0.1, 0.3, 0.9]])
    shuffled = np.full((10, 2, 3), 0.05)
    shuffled[0, 0, 0] = 0.5  # one shuffled |r| beyond the null half-width
    return {"loss_single_test": {"within": within, "across": within / 2, "earliest_sure": np.array([0.1, np.inf]),
                                 "shuffled": shuffled, "null_half": 0.2}}


def findings(winners=(), beaten=("silhouette",)) -> dict:
    return {"p": np.array([0.01, 0.2]), "p_holm": np.array([0.02, 0.2]), "p_reverse_holm": np.array([0.01, 0.5]),
            "p_partial": np.array([0.03, np.nan]), "winners": list(winners), "beaten": list(beaten),
            "kernel_of": ["silhouette", "silhouette"], "adds": []}


def test_curve_texts_name_the_strongest_cells_the_shuffled_control_and_the_sure_cells():
    texts = ht.curve_texts(curves(), PREDICTORS, 1, FRACTIONS)
    assert texts["hz_within_kernel"].startswith("|r| = 0.70") and texts["hz_within_rival"].startswith("|r| = 0.90")
    assert texts["hz_within_t0"].startswith("|r| = 0.20") and texts["hz_last"] == "10%"
    assert texts["hz_n_perm"] == "10" and texts["hz_shuffled"] == "98.3%" and texts["hz_null_half"] == "0.200"
    assert texts["hz_sure"].endswith("from 10%") and ";" not in texts["hz_sure"]


def test_beats_text_reads_the_reverse_test_only_where_no_kernel_quantity_wins():
    assert ht.beats_text(findings(winners=[("a", "b", "c", 0.01)]), 1).startswith("A kernel quantity beats every rival in 1 of 2")
    lost = ht.beats_text(findings(), 1)
    assert "significant in 1 cells, for 1 of the 1 kernel quantities." in lost and "never for" not in lost
    assert "(never for: silhouette)." in ht.beats_text(findings(beaten=()), 1)
    assert ht.adds_text(findings()) == "Significant after the correction in 0 of 1 cells that could be tested."


def test_finetune_text_gives_each_outcomes_strongest_cell_after_the_start_and_the_rival_counts():
    text = ht.finetune_text(curves(), findings(), PREDICTORS, FRACTIONS)
    assert "largest within-scale |r| after the start is 0.90" in text
    assert text.endswith("beats every rival in 1 of 2 cells (Holm), and a rival beats a kernel quantity in 1.")


def test_design_texts_and_the_retrace_sentence():
    assert ht.retrace_text(0.0) == "identical" and ht.retrace_text(2e-6) == "equal to within 2.0e-06 (relative)"
    texts = ht.design_texts(30, 2500, np.array([True, True, False]), True, [1.0, 10.0], [1, 1], [0.0, 0.01], 0.0,
                            0.3, 0.1)
    assert texts["hz_used"] == "2 of 3 networks (g = 1: 1, g = 10: 1)" and texts["hz_single"] == "2,500"
    assert texts["hz_fractions"] == "0%, 1%" and texts["hz_early"] == "10%" and texts["hz_retrace"] == "identical"
    assert "converged_only is off" in ht.design_texts(30, 2500, np.ones(3, bool), False, [1.0], [3], [0.0], 0.0, 0.3,
                                                      0.1)["hz_used"]


def test_the_fine_tuning_convergence_sentence_counts_the_unsettled_networks():
    assert ht.finetune_settle_text(0, 145, 0.01).startswith("Every one of the 145 analysed networks'")
    some = ht.finetune_settle_text(32, 145, 0.01)
    assert some.startswith("32 of the 145 analysed networks' multitask test loss still changed by 1% or more")
    assert "not at convergence" in some


def test_the_replication_texts_name_the_block_and_each_verdict_that_does_not_replicate():
    from types import SimpleNamespace

    from lib.analyses import claims
    from lib.book.horizon_verdicts import HorizonJudgements

    def judged(claim, verdict):
        return claims.Judgement(claim, claims.criterion(claim).version, verdict, "", "", 10, "", "", "")
    single = {"horizon-kernel-window": judged("horizon-kernel-window", "inconclusive"),
              "horizon-loss-window": judged("horizon-loss-window", "reproduced")}
    finetune = {"horizon-finetune-kernel-beats-rivals": judged("horizon-finetune-kernel-beats-rivals", "inconclusive")}
    replicated = {**single, "horizon-finetune-kernel-beats-rivals": judged("horizon-finetune-kernel-beats-rivals",
                                                                           "not reproduced")}
    from lib.book.replication_report import continuum_block_words

    words = continuum_block_words(3000, 30, [0.3, 1.0, 3.0, 10.0, 20.0])
    assert words == "seeds 3000-3029 at each of the 5 init scales (150 networks)"
    blocks = SimpleNamespace(single=SimpleNamespace(use=np.array([True] * 146 + [False] * 4)),
                             settled=SimpleNamespace(use=np.array([True] * 120 + [False] * 30)))
    judgements = HorizonJudgements(single, finetune, {}, {}, {}, replicated)
    texts = ht.replication_texts(judgements, words, blocks)
    assert texts["hz_replication_block"] == words and texts["hz_declared_half_width"] == "0.15"
    text = texts["hz_replication_text"]
    assert text.startswith("Of the block's 150 networks, 146 are analysed (120 of them settled in fine-tuning too). "
                           "2 of the 3 verdicts replicate; ")
    assert "inconclusive on the discovery block, not reproduced on the replication block." in text
    same = ht.replication_texts(judgements._replace(replicated={**single, **finetune}), words, blocks)
    assert same["hz_replication_text"].endswith("All 3 verdicts replicate.")
