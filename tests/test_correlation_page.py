"""Chapter 06's tables, texts and rows (lib.book.correlation_page) on tables and judgements built by hand,
and on the synthetic blocks of tests/test_correlation_blocks.py."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lib.analyses import correlation_verdicts as cv, multiple_testing
from lib.analyses.claim_types import Judgement
from lib.book import correlation_blocks as cb, correlation_page as cp, correlation_report
from lib.book.names import reader_name
from tests.test_correlation_blocks import judged_blocks  # noqa: F401 (a fixture)
from tests.test_correlation_report import CELLS, table


def judgement(claim: str, verdict: str = "reproduced", ours: str = "single -0.500 / finetune +0.400",
              qualification: str = "") -> Judgement:
    return Judgement(claim, 3, verdict, ours, "single [-0.60, -0.40]", 50, qualification, "20/20", "criterion", "")


def test_the_silhouette_summary_averages_each_variant_per_schedule_and_init():
    ones = np.ones((3, 2))
    structure = {name: {"silhouette/entk_principled": ones * [k, k + 1], "silhouette/entk_authors": ones * [k + 2, 0]}
                 for k, name in ((1, "ET"), (5, "LR"))}
    first = cb.FirstPairs(["principled", "authors"], "authors", [], {"ET": {}, "LR": {}}, structure, {}, {}, 3)
    summary = cp.silhouette_summary(first)
    assert list(summary.index) == [reader_name("principled"), reader_name("authors")]
    assert list(summary.columns) == ["ET, standard init", "ET, large init", "LR, standard init", "LR, large init"]
    assert summary.to_numpy().tolist() == [[1, 2, 5, 6], [3, 0, 7, 0]]


def test_the_holm_table_adjusts_every_row_and_says_per_phase_whether_one_survives():
    p = [0.001] + [0.5] * (len(CELLS) - 1)  # one small p, in a single-task row
    holm = cp.holm_table(table(-0.4, p=p).assign(n_networks=40, r_within_standard=0.1, r_within_large=-0.1))
    np.testing.assert_allclose(holm.adjusted, multiple_testing.holm_adjusted(np.array(p)))
    assert holm.significant == {"single": True, "finetune": False}
    assert holm.view["Holm-adjusted p"].iloc[0] == f"{0.001 * len(CELLS):.3f}" and len(holm.view) == len(CELLS)


def test_discovery_texts_name_the_phases_in_words_and_the_holm_answer():
    judged = {c: cv.ClaimJudgements(judgement(c, qualification="q" if c == "corr-lr" else ""), judgement(c))
              for c in (*cv.RELATIVE_CLAIMS, "corr-raw")}
    holm = cp.HolmTable(pd.DataFrame(), np.array([0.01, 0.2, 0.3]), {"single": False, "finetune": True})
    texts = cp.discovery_texts(judged, holm, 50)
    assert texts["corr_v_corr-et"] == "single-task -0.500 / fine-tuning +0.400"
    assert texts["corr_v_corr-lr_verdict"] == "reproduced (q)" and texts["corr_v_corr-et_verdict"] == "reproduced"
    assert texts["corr_v_corr-combined_ci"] == "single [-0.60, -0.40]"
    assert (texts["corr_n_verdict"], texts["corr_n_holm"]) == ("50", "3")
    assert (texts["corr_holm_single"], texts["corr_holm_finetune"]) == ("no", "yes")
    assert not any("corr-raw" in name for name in texts)  # the raw-loss claim is not quoted in the prose


def test_the_variant_view_labels_each_variant_s_verdicts():
    judged = {v: {"corr-et": cv.ClaimJudgements(judgement("corr-et", verdict), judgement("corr-et"))}
              for v, verdict in (("principled", "reproduced"), ("authors", "not reproduced"))}
    view = cp.variant_verdict_view(judged)
    assert list(view["networks"]) == ["discovery block, principled variant", "discovery block, authors variant"]
    assert view["verdict"].str.contains("not reproduced").tolist() == [False, True]


def test_replication_and_choice_texts():
    et = cv.ClaimJudgements(judgement("corr-et"), judgement("corr-et"))
    failed = cv.ClaimJudgements(judgement("corr-et", "not reproduced", ours="single -0.100"), judgement("corr-et"))
    verdicts = cb.Verdicts({"corr-et": et}, {"corr-et": failed}, {}, {}, [], {}, pd.DataFrame(),
                           "ET seeds 1000-1049, LR seeds 1100-1149")
    texts = cp.replication_texts(verdicts)
    assert texts["corr_replication_block"] == "ET seeds 1000-1049, LR seeds 1100-1149"
    assert texts["corr_replication_et"].startswith("single -0.100: not reproduced (")
    assert texts["corr_declared_half_width"] == "0.15"
    choices = cb.Choices({"split": "disjoint", "large_scaling": "layer1_only"},
                         {"this page (iid, both_layers)": table(-0.4)}, pd.DataFrame())
    texts = cp.choice_texts(choices)
    assert (texts["other_split"], texts["other_scaling"]) == ("disjoint", "layer1_only")
    assert texts["choice_this_et"] == "-0.400 / -0.400" and texts["choice_split_et"].startswith("not computed")


def test_the_summary_rows_hold_every_claim_its_replication_and_the_robustness_rows(judged_blocks):  # noqa: F811
    first, _, _, verdicts = judged_blocks
    rivals = cb.rivals(first, 200)
    choices = cb.Choices({}, {"this page (iid, both_layers)": table(-0.4), "split=disjoint": table(-0.2)},
                         pd.DataFrame())
    rows = cp.summary_rows(first, verdicts, rivals, choices)
    assert [r.get("claim") for r in rows] == ["corr-et", "corr-lr", "corr-combined", "corr-raw", "corr-predicts",
                                              None, None]
    et = rows[0]
    assert et["verdict"] == verdicts.in_force["corr-et"].verdict
    assert et["replication"]["block"] == verdicts.replication_block
    assert [e["version"] for e in et["earlier"]] == [1, 2] and et["earlier"][0]["ours"].endswith("(12 pairs)")
    assert "ε·σ' silhouette (12 pairs)" in et["control"]
    assert [e["version"] for e in rows[4]["earlier"]] == [1, 2]
    assert rows[5]["ours"] == f"{correlation_report.label_gap(first.tables['authors']):.3f}"
    assert "split=disjoint" in rows[6]["quantity"] and rows[6]["ours"] == "-0.200 / -0.200"
