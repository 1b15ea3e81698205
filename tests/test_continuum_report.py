"""The continuum chapter's facts (lib.analyses.continuum_facts) and reader text (lib.book.continuum_report)."""

import numpy as np
import pytest

from lib.analyses import claims, continuum_facts
from lib.book import continuum_report

GS = np.repeat([0.3, 1.0, 10.0], 4)


def _networks(gap=None) -> dict:
    """12 networks at three scales: losses lowest at g = 1, NTK distance falling with g."""
    rng = np.random.default_rng(0)
    return {"g": GS, "scaling": np.array(["both"] * 8 + ["hidden"] * 4), "lr_kind": np.array(["paper", "tuned"] * 6),
            "linearization_gap": np.repeat([0.9, 0.5, 0.1], 4) if gap is None else gap,
            "kernel_distance": np.repeat([1.0, 0.6, 0.2], 4), "loss_single_test": np.repeat([0.3, 0.1, 0.2], 4),
            "converged": np.array([True] * 9 + [False] * 3), "settle_single": np.array([0.001] * 6 + [0.05] * 6),
            "settle_finetune": np.full(12, 0.02), "sharing_final": rng.normal(size=12),
            "route_iterations": rng.normal(size=12)}


def test_networks_of_selects_one_setting_and_names_what_exists():
    chosen = continuum_facts.networks_of(_networks(), "both", "tuned")
    assert len(chosen["g"]) == 4 and set(chosen["lr_kind"]) == {"tuned"} and set(chosen["scaling"]) == {"both"}
    with pytest.raises(ValueError, match="no network has scaling='both' and lr_kind='fast'"):
        continuum_facts.networks_of(_networks(), "both", "fast")


def test_transition_facts_medians_midpoints_and_convergence():
    facts = continuum_facts.transition_facts(_networks())
    np.testing.assert_array_equal(facts["gs"], [0.3, 1.0, 10.0])
    assert facts["best_g"] == 1.0 and facts["gap_defined"] and facts["converged"] == 0.75
    assert 0.3 < facts["mid_dist"] < 10.0 and np.isfinite(facts["mid_gap"])


def test_a_gap_diverged_in_a_scale_is_undefined_and_said_so():
    gap = np.repeat([0.9, 0.5, 0.1], 4).astype(float)
    gap[8:11] = np.inf  # three of the four networks at g = 10
    facts = continuum_facts.transition_facts(_networks(gap))
    assert not facts["gap_defined"] and np.isnan(facts["mid_gap"])
    sentence = continuum_report.gap_sentence(facts)
    assert "diverged (a non-finite gap) in 75% of the networks at g = 10" in sentence
    assert "where it stayed finite (g = 0.3, 1) the median gap is 0.90, 0.50" in sentence
    defined = continuum_report.gap_sentence(continuum_facts.transition_facts(_networks()))
    assert defined.startswith("The median gap between a trained network and its trained linearization runs from 0.90 "
                              "at g = 0.3 to 0.10 at g = 10")


def test_settled_share_overall_per_scale_and_bad_phase():
    networks = _networks()
    assert continuum_facts.settled_share(networks, "single") == 0.5
    assert continuum_facts.settled_share(networks, "single", 0.3) == 1.0
    assert continuum_facts.settled_share(networks, "finetune") == 0.0
    with pytest.raises(ValueError, match="phase must be one of"):
        continuum_facts.settled_share(networks, "route")


def test_cell_finds_the_row_or_names_the_missing_one():
    rows = [{"predictor": "a", "outcome": "x", "r": 0.1}, {"predictor": "b", "outcome": "x", "r": 0.2}]
    assert continuum_facts.cell(rows, "b", "x")["r"] == 0.2
    with pytest.raises(ValueError, match="no cell for predictor='c'"):
        continuum_facts.cell(rows, "c", "x")


def test_winner_text_and_unexpected_reading():
    assert continuum_report.winner_text({"predictor": "none"}) == "none"
    winner = {"predictor": "kta_ntk_single", "r": 0.41, "q": 0.012, "sign_as_expected": False}
    assert continuum_report.winner_text(winner).endswith("(+0.41, q = 0.012; UNEXPECTED sign)")
    reading = continuum_report.unexpected_reading("loss_single_test", winner, {"loss_single_test": "test loss"}, {})
    assert "have a higher test loss than networks of the same scale" in reading and "lazy-regime" in reading
    sharing = {"predictor": "sharing_initial", "r": -0.3, "q": 0.01, "sign_as_expected": False}
    reading = continuum_report.unexpected_reading("finetune_speed", sharing, {"finetune_speed": "fine-tuning speed"},
                                                  {"sharing_initial": "t=0 sharing"})
    assert reading.startswith("networks with a larger t=0 sharing have a lower fine-tuning speed")


def _cells(r: float) -> list[dict]:
    return [{"predictor": "sil", "outcome": "loss", "r": r, "lo": r - 0.1, "hi": r + 0.1, "r_across": r}]


def test_short_run_comparison_marks_a_flipped_sign_and_a_different_winner():
    facts = {key: continuum_facts.transition_facts(_networks()) for key in ("short", "conv")}
    settings = {"short": "short run", "conv": "converged run"}
    by_setting = {"short run": _cells(-0.2), "converged run": _cells(+0.3)}
    hypothesis = {"short": {"r": 0.1, "lo": 0.0, "hi": 0.2}, "conv": {"r": 0.2, "lo": 0.1, "hi": 0.3}}
    winner = lambda name: {"predictor": name, "r": 0.3, "q": 0.01, "sign_as_expected": True}
    winners = {"short run": {"loss": winner("silhouette_ntk")}, "converged run": {"loss": winner("kta_ntk_single")}}
    table, n_marked = continuum_report.short_run_comparison(
        facts, by_setting, hypothesis, winners, settings, {"short column": "short"}, "conv", {"loss": "test loss"},
        ("sil", "loss"))
    column = dict(zip(table["conclusion"], table["short column"]))
    assert column["within-scale r(authors' silhouette, single-task loss)"] == "-0.20 [-0.30, -0.10] (sign differs)"
    assert column["across-scale r(authors' silhouette, single-task loss)"] == "-0.20 (sign differs)"
    assert column["within-scale r(trained sharing, route iterations), hypothesis (i)"] == "+0.10 [+0.00, +0.20]"
    assert column["within-scale winner: test loss"].endswith("(different winner)")
    assert n_marked == 3
    assert list(table.columns) == ["conclusion", "short column", "converged"]


def test_within_table_formats_each_cell_for_the_reader():
    rows = [{"predictor": "sharing_initial", "outcome": "loss_single_test", "n": 30, "r_across": 0.1, "r": -0.25,
             "lo": -0.5, "hi": 0.02, "p": 0.061, "q": 0.2, "expected": -1}]
    table = continuum_report.within_table(rows)
    assert table.iloc[0]["within r [95% CI]"] == "-0.25 [-0.50, +0.02]"
    assert table.iloc[0]["expected sign"] == "-" and table.iloc[0]["q (BH)"] == "0.2"


def test_the_silhouette_wins_only_with_its_declared_sign_and_the_rows_say_so():
    from lib.analyses import claims

    win = {"predictor": "silhouette_entk_authors", "sign_as_expected": True, "r": -0.4, "lo": -0.6, "hi": -0.2,
           "q": 0.01}
    cr = continuum_report
    assert cr.silhouette_wins(win)
    assert not cr.silhouette_wins(win | {"sign_as_expected": False})
    assert not cr.silhouette_wins(win | {"predictor": "kta_ntk_single"})
    judgement = claims.not_judged("sharing-new-task", "a test")
    earlier = [claims.judge("sharing-new-task", version=1, value=-0.2),
               claims.judge("sharing-new-task", version=2, r=-0.3, lo=-0.5, hi=-0.1, separates=True, resolution=1)]
    rows = cr.summary_rows(win, 150, {"r": -0.4, "lo": -0.6, "hi": -0.2}, {"midpoint": 3.0, "lo": 2.0, "hi": 5.0},
                           judgement, earlier)
    assert [r.get("agrees") for r in rows[:2]] == [True, None] and rows[2]["claim"] == "sharing-new-task"
    assert "over 150 cells" in rows[0]["criterion"] and rows[1]["interval"] == "[2, 5]"


def test_the_sharing_claim_is_judged_under_every_seed_of_its_two_bootstraps():
    from lib.analyses import claims, continuum_facts, within_scale

    rng = np.random.default_rng(7)
    g = np.repeat([0.3, 1.0, 10.0], 30)
    sharing = np.where(g == 1.0, 0.6, 0.1) + 0.05 * rng.normal(size=g.size)
    networks = {"g": g, "sharing_final": sharing, "route_iterations": 50 - 20 * sharing + 5 * rng.normal(size=g.size)}
    evidence = continuum_facts.route_hypothesis_evidence(networks, 500, 999)
    direct = continuum_facts.route_hypothesis(networks, 500, 999)
    assert {k: evidence(0)[k] for k in ("r", "lo", "hi")} == {k: direct[k] for k in ("r", "lo", "hi")}
    assert evidence(0)["separates"] == within_scale.group_difference(sharing, g, 1.0, 10.0, 500)["separates"]
    assert evidence(1)["r"] == evidence(0)["r"] and evidence(1)["lo"] != evidence(0)["lo"]  # only the resampling moves
    judged = claims.judge("sharing-new-task", resolution=1, seeded=evidence)
    assert judged.verdict == "reproduced" and judged.stability == "20/20"


def test_the_page_texts_of_the_transition_winners_route_and_robustness():
    import pandas as pd

    from lib.analyses import claims

    facts = continuum_facts.transition_facts(_networks())
    mid = {m: {"midpoint": 2.0, "lo": 1.0, "hi": 4.0, "n_undefined": 0} for m in ("kernel_distance", "linearization_gap")}
    texts = continuum_report.transition_texts(facts, mid, {"single": 0.9, "finetune": 0.5},
                                              {"paper": facts, "tuned": facts})
    assert texts["conv_mid_dist"] == "2 [1, 4]" and texts["conv_best_g"] == "1" and texts["conv_converged"] == "75%"
    assert texts["conv_dist_range"] == "0.200 at g = 10 to 1.000 at g = 0.3"
    winner = {"predictor": "silhouette_entk_authors", "r": -0.4, "q": 0.01, "sign_as_expected": False}
    none = {"predictor": "none"}
    winners = {"converged": {"loss_single_test": winner, "finetune_speed": none, "loss_finetune_test": none,
                             "route_iterations": none}}
    rows = {"converged": [{"q": 0.01}, {"q": 0.2}]}
    silhouette = {"r_across": -0.5, "r": -0.4, "lo": -0.6, "hi": -0.2, "q": 0.01}
    texts = continuum_report.winner_texts(rows, winners, "converged", silhouette, {"loss_single_test": "loss"},
                                          {"silhouette_entk_authors": "silhouette"})
    assert texts["cont_sig_counts"] == "converged: 1 of 2" and texts["cont_n_unexpected"] == "1"
    assert texts["cont_sil_within"] == "-0.40 [-0.60, -0.20] (q = 0.01)" and texts["cont_win_ft"] == "none"
    judgement = claims.judge("sharing-new-task", r=-0.3, lo=-0.5, hi=-0.1, separates=True, resolution=1)
    texts = continuum_report.route_texts({"route_reached": np.array([1.0, 0.0])}, 1, {**silhouette, "r_across": 0.1},
                                         silhouette, {"difference": 0.5, "lo": 0.1, "hi": 0.9, "separates": True},
                                         judgement, [judgement._replace(version=1, verdict="not reproduced"),
                                                     judgement._replace(version=2)])
    assert texts["cont_route_reached"] == "50%" and texts["cont_sep_word"] == "separates"
    assert texts["cont_hyp_verdict"] == "reproduced"
    assert (texts["cont_hyp_verdict_v1"], texts["cont_hyp_verdict_v2"]) == ("not reproduced", "reproduced")
    comparison = {"single/standard_wins": 40, "finetune/large_wins": 45, "single/not_converged_standard": 1,
                  "single/not_converged_large": 0, "finetune/not_converged_standard": 0, "finetune/not_converged_large": 2}
    table = pd.DataFrame({"p_within_permutation": [0.01, 0.2, 0.03, 0.5]})
    texts = continuum_report.robustness_texts({"ET": comparison, "LR": comparison}, {"single/standard_wins": 8}, 50, 10,
                                              table)
    assert texts["rob_et_single"] == "40 of 50" and texts["rob_et_single_first"] == "8 of 10"
    assert texts["rob_sig"] == "2 of 4" and texts["rob_sig_chance"] == "0.2"
    assert texts["rob_et_single_ci"] == "66% to 90%"


def test_judge_sharing_judges_the_analysed_networks_in_force_and_every_network_under_earlier_versions():
    analysed = lambda seed: {"r": -0.3, "lo": -0.5 + 0.01 * seed, "hi": -0.1, "separates": True}  # noqa: E731
    every = lambda seed: {"r": -0.1, "lo": -0.3, "hi": 0.1, "separates": True}  # noqa: E731
    current, earlier = continuum_report.judge_sharing(analysed, every, 1)
    assert (current.verdict, current.stability) == ("reproduced", "20/20")
    assert current.version == claims.criterion("sharing-new-task").version == 3
    assert [(j.version, j.verdict) for j in earlier] == [(1, "not reproduced"), (2, "inconclusive")]
    assert all(j.stability == "20/20" for j in earlier)
    assert continuum_report.judge_sharing(analysed, every, 20)[0].verdict == "not tested"  # the route is not resolved


def test_the_analysed_networks_and_the_unsettled_count_follow_the_declared_rules():
    """Chapters 12 and 13 analyse the networks whose single-task training converged (every network with
    converged_only off); a phase has not settled where its test loss changed by SETTLED_CHANGE or more
    over its last tenth, a diverged (nan) change included."""
    networks = {"g": np.array([1.0, 1.0, 10.0, 10.0]), "converged": np.array([1.0, 0.0, 1.0, 1.0]),
                "settle_finetune": np.array([0.001, 0.5, continuum_facts.SETTLED_CHANGE, np.nan])}
    np.testing.assert_array_equal(continuum_facts.analysed(networks, True), [True, False, True, True])
    np.testing.assert_array_equal(continuum_facts.analysed(networks, False), [True, True, True, True])
    # a family with a fine-tuning outcome: converged and settled (a diverged change has not settled)
    np.testing.assert_array_equal(continuum_facts.analysed(networks, True, finetune=True), [True, False, False, False])
    np.testing.assert_array_equal(continuum_facts.analysed(networks, False, finetune=True), [True] * 4)
    with pytest.raises(ValueError, match="finetune must be True or False"):
        continuum_facts.analysed(networks, True, finetune="yes")
    assert continuum_facts.unsettled(networks, "finetune") == (3, 4)
    assert continuum_facts.unsettled(networks, "finetune", continuum_facts.analysed(networks, True)) == (2, 3)
    with pytest.raises(ValueError, match="converged_only must be True or False"):
        continuum_facts.analysed(networks, 1)
    with pytest.raises(ValueError, match="phase must be one of"):
        continuum_facts.unsettled(networks, "route")


def test_unsettled_refuses_a_mask_that_is_not_one():
    networks = {"g": np.array([1.0, 10.0]), "settle_finetune": np.array([0.5, 0.001])}
    with pytest.raises(ValueError, match="boolean mask of shape"):
        continuum_facts.unsettled(networks, "finetune", np.array([0, 1]))


def test_analysed_networks_drop_the_unconverged_and_blank_unsettled_fine_tuning_outcomes_only():
    networks = {"g": np.array([1.0, 1.0, 10.0, 10.0]), "converged": np.array([1.0, 0.0, 1.0, 1.0]),
                "settle_finetune": np.array([0.001, 0.001, 0.5, 0.001]), "loss_single_test": np.arange(4.0),
                "finetune_speed": np.arange(4.0), "loss_finetune_test": np.arange(4.0) + 10}
    used = continuum_facts.analysed_networks(networks, True)
    np.testing.assert_array_equal(used["loss_single_test"], [0.0, 2.0, 3.0])
    np.testing.assert_array_equal(used["finetune_speed"], [0.0, np.nan, 3.0])
    np.testing.assert_array_equal(used["loss_finetune_test"], [10.0, np.nan, 13.0])
    every = continuum_facts.analysed_networks(networks, False)
    assert all(np.array_equal(every[k], networks[k]) for k in networks)
