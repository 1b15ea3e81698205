"""Replication blocks (lib/analyses/replication.py), the correlation claims judged on a block
(lib/analyses/correlation_verdicts.py) and how a replication block is counted and shown
(lib/book/summary.py, lib/book/verdicts_page.py)."""

import numpy as np
import pandas as pd
import pytest

from lib.analyses import claims, correlation_verdicts as cv, replication, stats
from lib.analyses.claim_types import Judgement
from lib.book import correlation_report, names, replication_report, summary, verdicts_page as page


def judgement(verdict: str, claim: str = "corr-et", version: int = 3, ours: str = "single -0.300") -> Judgement:
    return Judgement(claim, version, verdict, ours, "single [-0.50, -0.10]", 50, "", "20/20", "criterion")


def test_a_verdict_replicates_only_when_both_blocks_give_it():
    assert replication.replication_status(judgement("reproduced"), judgement("reproduced")) == replication.REPLICATES
    for other in ("reproduced with qualification", "not reproduced", "borderline"):
        assert replication.replication_status(judgement("reproduced"), judgement(other)) == \
            replication.DOES_NOT_REPLICATE
    with pytest.raises(ValueError, match="same claim and version"):
        replication.replication_status(judgement("reproduced"), judgement("reproduced", version=2))


def test_pairs_for_a_declared_precision_scale_as_one_over_root_n():
    assert replication.pairs_for_half_width(0.30, 50, 0.15) == 200
    assert replication.pairs_for_half_width(0.15, 50, 0.15) == 50
    assert replication.pairs_for_half_width(0.31, 50, 0.15) == 214  # ceil(50 * (0.31 / 0.15)**2 = 213.6)
    note = replication.precision_note(0.29, 50, replication.CORRELATION_SAMPLE)
    assert note == ("widest 95% interval half-width 0.29 at 50 pairs per schedule; declared 0.15, which needs about "
                    "187 pairs per schedule (not in the build's budget)")
    assert replication.precision_note(0.1, 50, replication.CORRELATION_SAMPLE).endswith("(reached)")
    with pytest.raises(ValueError, match="target_half_width"):
        replication.pairs_for_half_width(0.3, 50, 0.0)


def test_the_replication_block_must_be_disjoint_from_the_discovery_block():
    declared = replication.CORRELATION_SAMPLE
    discovery = replication.block_seeds(declared.discovery_first_seeds, declared.n_pairs)
    replication.check_disjoint(discovery, replication.block_seeds(declared.replication_first_seeds, declared.n_pairs))
    with pytest.raises(ValueError, match=r"both use \[40, 41, .*replication_first_seeds"):
        replication.check_disjoint(discovery, replication.block_seeds({"ET": 140, "LR": 40}, 10))


def test_the_chapter_refuses_an_overlapping_replication_block_before_any_work():
    from lib.book.chapter_parameters import check_correlation_analysis

    args = (10, {"ET": 0, "LR": 100}, {"ET": 10000, "LR": 2500}, 10000, "iid", "both_layers", True, 50)
    plans = check_correlation_analysis(*args, {"ET": 1000, "LR": 1100}, 50)
    assert list(plans[2]["ET"][0]) == list(range(1000, 1050))
    with pytest.raises(ValueError, match="disjoint from the discovery block"):
        check_correlation_analysis(*args, {"ET": 120, "LR": 1100}, 50)
    with pytest.raises(ValueError, match="n_replication_pairs"):
        check_correlation_analysis(*args, {"ET": 1000, "LR": 1100}, 1)


def synthetic_inputs(n_pairs: int, within: float, seed: int = 0, offset: float = 0.3) -> dict:
    """schedule -> inputs where the standard init ends better after single-task training and worse
    after fine-tuning (the paper's signs) and the silhouette
    is the init label plus ``within`` times the network's own loss deviation plus noise."""
    rng = np.random.default_rng(seed)
    out = {}
    for schedule in ("ET", "LR"):
        loss = np.stack([rng.normal(1.0, 0.1, n_pairs), rng.normal(1.0, 0.1, n_pairs) + offset], axis=1)
        silhouette = stats.init_label(n_pairs) * 0.5 - within * (loss - loss.mean()) + rng.normal(0, 0.01, loss.shape)
        out[schedule] = {"entk_authors": silhouette, "single": loss, "finetune": -loss}
    return out


def test_the_init_label_control_qualifies_a_correlation_that_the_label_alone_gives():
    inputs = synthetic_inputs(60, within=0.0)
    parts = cv.claim_parts(inputs, "entk_authors", "corr-et", label_only=True)
    assert set(parts) == {"single", "finetune"}
    np.testing.assert_array_equal(parts["single"][0], stats.init_label(60))
    raw = cv.claim_parts(inputs, "entk_authors", "corr-raw")
    assert list(raw) == ["single ET+LR", "finetune ET+LR", "single ET", "finetune ET", "single LR", "finetune LR"]
    table = pd.DataFrame(stats.correlation_table(inputs, 500, predictor="entk_authors"))
    judged = cv.judge_correlations(inputs, "entk_authors", table)
    et = judged["corr-et"]
    assert et.current.version == claims.criterion("corr-et").version and et.version_2.version == 2
    assert et.current.verdict == "reproduced with qualification"
    assert "declared control, init label alone, passes the same criterion" in et.current.qualification
    assert "the init label alone gives the same r" in et.version_2.qualification  # version 2's own rule
    # no init wins consistently, the silhouette tracks each network's own loss: the label fails its control
    informative = synthetic_inputs(60, within=5.0, offset=0.0)
    table = pd.DataFrame(stats.correlation_table(informative, 500, predictor="entk_authors"))
    alone = cv.judge_correlations(informative, "entk_authors", table)["corr-et"].current
    assert alone.verdict.startswith("reproduced") and "init label" not in alone.qualification


def test_version_1_is_judged_on_the_first_pairs_table():
    inputs = synthetic_inputs(10, within=0.0)
    table = pd.DataFrame(stats.correlation_table(inputs, 500, predictor="entk_authors"))
    j = cv.judge_version_1("corr-et", table, 10)
    assert j.version == 1 and j.ours.endswith("(10 pairs)") and j.verdict in ("reproduced", "not reproduced")
    raw = cv.judge_version_1("corr-raw", table, 10)
    assert raw.ours.count(" / ") == 5


def test_corr_predicts_version_1_counts_uncorrected_permutation_p_below_the_level():
    table = pd.DataFrame({"p_within_permutation": [0.01, 0.2, 0.04, 0.5]})
    fixed = lambda seed: table["p_within_permutation"].to_numpy()  # noqa: E731 (the same p under every seed)
    j = cv.judge_predicts_version_1(table, fixed)
    assert j.version == 1 and j.ours == format(0.5, claims.criterion("corr-predicts", 1).settings.get("fmt", ".3g"))
    assert cv.judge_predicts_version_1(table, fixed, level=0.03).ours != j.ours
    assert j.stability == "20/20"  # the same share under every seed


def test_corr_predicts_is_judged_under_every_seed_of_its_within_init_permutations():
    """The permutation p of each row drawn under seeds 0-19: seed 0 is the table's own column, other
    seeds draw other shuffles; a p_by_seed of another block is refused; the verdict carries the count
    of seeds that give it."""
    inputs = synthetic_inputs(10, within=0.05)  # p between 0.03 and 0.2: the shuffles matter
    table = pd.DataFrame(stats.correlation_table(inputs, 500, predictor="entk_authors"))
    p_by_seed = cv.within_init_p_by_seed(inputs, "entk_authors", 500)
    np.testing.assert_array_equal(p_by_seed(0), table["p_within_permutation"].to_numpy())
    assert not np.array_equal(p_by_seed(1), p_by_seed(0))
    for j in (cv.judge_predicts(table, 10, p_by_seed), cv.judge_predicts(table, 10, p_by_seed, version=2),
              cv.judge_predicts_version_1(table, p_by_seed)):
        k = int(j.stability.split("/")[0])
        assert k >= claims.STABLE_AT or j.verdict == "borderline"
    other = cv.within_init_p_by_seed(synthetic_inputs(10, within=0.0, seed=9), "entk_authors", 500)
    with pytest.raises(ValueError, match="p_by_seed must draw the within-init permutations of the table's own block"):
        cv.judge_predicts(table, 10, other)


def entry(current_verdict: str, replicated_verdict: str | None) -> dict:
    current = judgement(current_verdict)
    row = summary.claim_row("q", "-0.881 / 0.973", current, control="label", evidence="",
                            earlier=[judgement("reproduced", version=1), judgement("reproduced", version=2)],
                            replication=None if replicated_verdict is None else judgement(replicated_verdict),
                            replication_block="ET seeds 1000-1049, LR seeds 1100-1149",
                            precision="widest 95% interval half-width 0.29")
    return summary.with_provenance({"claim": "corr-et", "section": "Sec 5.2", "figure": "", "text": "claim",
                                    "chapter": "06_correlation_analysis", **row})


def test_a_claim_with_a_replication_block_counts_under_the_version_in_force_only_if_it_replicates():
    same = entry("reproduced", "reproduced")
    assert (same["counted_verdict"], same["counted_version"]) == ("reproduced", 3)  # v3 is post hoc, yet counts
    differs = entry("reproduced", "not reproduced")
    assert differs["counted_verdict"] == replication.DOES_NOT_REPLICATE
    without = entry("reproduced", None)
    assert without["counted_version"] == 1  # no replication block: the latest version before its data (v1)
    table = page.tally_table([same, differs, without])
    assert "| \u2260 does not replicate | 1 | 0 | 0 | 0 |" in table
    assert "| \u2714 reproduced | 2 | 0 | 0 | 0 |" in table
    lines = "\n".join(page.entry_lines(1, differs))
    assert "*Replication block* (ET seeds 1000-1049, LR seeds 1100-1149;" in lines
    assert "**does not replicate**" in lines and "\u2718 **not reproduced**" in lines
    assert "*Precision:* widest 95% interval half-width 0.29" in lines
    assert "Counted in the tally under version" not in lines
    assert "replication block: not reproduced" in page.claim_index([differs])
    assert page.replication_counts([same, differs, without]) == (2, 1)
    assert page.tally_sentence([same, differs, without]) == \
        "the paper's results (3 claims): 2 reproduced, 1 does not replicate."
    assert "2 do not replicate" in page.tally_sentence([same, differs, differs])
    assert page.quoted_verdict(differs).endswith("not reproduced on the replication block (ET seeds 1000-1049, LR "
                                                 "seeds 1100-1149): does not replicate")
    with pytest.raises(ValueError, match="replication_block must name"):
        summary.claim_row("q", "", judgement("reproduced"), control="", evidence="",
                          earlier=[judgement("reproduced", version=1), judgement("reproduced", version=2)],
                          replication=judgement("reproduced"))


def test_the_replication_table_names_both_blocks_and_the_status():
    view = replication_report.replication_view({"corr-et": judgement("reproduced")},
                                               {"corr-et": judgement("not reproduced", ours="single -0.100")},
                                               {"corr-et": "precision"})
    assert view.iloc[0]["replicates?"] == "does not replicate"
    assert view.iloc[0]["replication block"] == "not reproduced: single -0.100"


def test_no_significant_within_init_test_is_inconclusive_not_a_refutation():
    """corr-predicts v3 (all_discovered): version 2 read "nothing significant" as "not reproduced"."""
    names = claims.criterion("corr-predicts").settings["names"]
    none = {names[0]: False, names[1]: False}
    assert claims.judge("corr-predicts", conditions=none, n=50).verdict == "inconclusive"
    assert claims.judge("corr-predicts", version=2, conditions=none, n=50).verdict == "not reproduced"
    assert claims.judge("corr-predicts", conditions={names[0]: True, names[1]: True}, n=50).verdict == "reproduced"
    rng = np.random.default_rng(2)
    table = pd.DataFrame({"phase": ["single", "finetune"] * 3, "p_within_permutation": rng.uniform(0.3, 0.9, 6)})
    fixed = lambda seed: table["p_within_permutation"].to_numpy()  # noqa: E731 (the same p under every seed)
    assert cv.judge_predicts(table, 50, fixed).verdict == "inconclusive"
    assert cv.judge_predicts(table, 50, fixed, version=2).verdict == "not reproduced"


def test_the_precision_text_says_at_which_sample_equivalence_becomes_decidable():
    table = pd.DataFrame({"quantity": ["relative"] * 2, "phase": ["single", "finetune"], "schedule": ["ET"] * 2,
                          "ci_low": [-0.65, 0.90], "ci_high": [-0.06, 0.98]})
    assert correlation_report.widest_half_width(table, "corr-et") == pytest.approx(0.295)
    z90 = max(np.arctanh(-0.06) - np.arctanh(-0.65), np.arctanh(0.98) - np.arctanh(0.90)) / 2 * 1.6448536 / 1.9599640
    assert correlation_report.widest_z_half_width_90(table, "corr-et") == pytest.approx(z90, rel=1e-6)
    text = correlation_report.precision_text([table], "corr-et", 50, replication.CORRELATION_SAMPLE, 0.3)
    assert text.startswith("widest 95% interval half-width 0.30 at 50 pairs per schedule; declared 0.15")
    assert text.endswith(f"about {replication.pairs_for_half_width(z90, 50, 0.3)} pairs per schedule")
    narrow = table.assign(ci_low=[-0.40, 0.93], ci_high=[-0.30, 0.95])
    assert correlation_report.precision_text([narrow], "corr-et", 50, replication.CORRELATION_SAMPLE, 0.3).endswith(
        "is decidable at this sample")


def test_single_task_counts_and_their_precision():
    from lib.analyses import performance_verdicts as pv

    iterations = np.arange(0, 1001, 100)
    loss = np.ones((4, 2, 11))
    loss[:, 1, 1] = 0.5  # large init lower at iteration 100 (10% of the phase) in every pair
    loss[:, 0, -1] = [0.1, 0.1, 0.1, 2.0]  # standard ends lower in three pairs
    counts = pv.single_task_counts(iterations, loss)
    assert (counts.n, counts.overtaken, counts.pattern, counts.early_iteration) == (4, 3, 3, 100)
    np.testing.assert_array_equal(counts.final_standard, [0.1, 0.1, 0.1, 2.0])
    with pytest.raises(ValueError, match="loss_test must have shape"):
        pv.single_task_counts(iterations, loss[:, :, :5])
    from scipy.stats import binomtest
    ci = binomtest(3, 4).proportion_ci(0.95, method="exact")
    assert pv.share_half_width(3, 4) == pytest.approx((ci.high - ci.low) / 2)
    notes = pv.precision_notes([counts, counts._replace(overtaken=4, pattern=4)])
    assert notes["perf-runs"].startswith(f"widest 95% interval half-width {pv.share_half_width(3, 4):.2f} at 4 pairs")


def test_the_chapters_quote_a_replication_block_in_one_form():
    assert replication_report.replication_words(judgement("reproduced"), judgement("not reproduced", ours="single -0.1")) \
        == "single -0.1: not reproduced (does not replicate)"


def test_one_formatter_gives_a_judgement_as_reader_text_with_or_without_its_badge():
    qualified = judgement("reproduced with qualification")._replace(qualification="sign only")
    assert names.judgement_text(qualified) == "reproduced with qualification (sign only)"
    assert names.judgement_text(qualified, badge=True) == "\u2611 reproduced with qualification (sign only)"
    assert names.judgement_text(judgement("not reproduced"), badge=True) == "\u2718 not reproduced"
    assert correlation_report.verdict_view({("block", "corr-et"): qualified})["verdict"][0] == \
        names.judgement_text(qualified, badge=True)


def test_the_mean_half_width_is_the_t_interval_of_the_finite_values():
    from scipy import stats

    values = np.array([0.3, -0.1, 0.25, np.nan, 0.6, 0.05])
    finite = values[np.isfinite(values)]
    low, high = stats.t.interval(0.9, finite.size - 1, loc=finite.mean(), scale=stats.sem(finite))
    assert replication.mean_half_width(values, 0.9) == pytest.approx((high - low) / 2, rel=1e-12)
    assert np.isnan(replication.mean_half_width([0.2, np.nan]))


def test_one_formatter_says_a_verdict_on_both_blocks_with_its_qualification():
    same = judgement("reproduced")
    qualified = judgement("reproduced")._replace(qualification="with qualification")
    other = judgement("inconclusive")
    assert replication_report.blocks_text(same, same) == "reproduced on both blocks"
    assert replication_report.blocks_text(qualified, other) == ("reproduced (with qualification) on the discovery "
                                                                "block, inconclusive on the replication block")
    discovery = {"corr-et": same, "corr-lr": same, "corr-raw": same}
    replicated = {"corr-et": same, "corr-lr": other, "corr-raw": other}
    assert replication_report.failing_claims(discovery, replicated) == ["corr-lr", "corr-raw"]
    assert replication_report.failing_claims(discovery, replicated, ["corr-raw", "corr-et"]) == ["corr-raw"]
