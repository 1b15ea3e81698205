"""Chapter 10's blocks (lib/book/continuum_chapter.py) on synthetic continua: the converged run
analysed on the one convergence filter's networks, its convergence described on all of them, the
within-scale cells, the route claim judged in force on the analysed networks and under its earlier
versions on every network, and the texts and tables the page shows."""

import numpy as np
import pytest

from lib.analyses import claims, continuum_facts
from lib.book import continuum_chapter as cc

SCALES = [0.3, 1.0, 10.0]
N = 12  # networks per scale and setting


def _columns(rng, g: np.ndarray) -> dict:
    """Every predictor and outcome of the cells, random, with the route's columns; the first
    predictor carries the single-task test loss within each scale."""
    n = len(g)
    out = {name: rng.normal(size=n) for name in (*cc.PREDICTOR_TITLES, *cc.CELL_OUTCOMES)}
    first = next(iter(cc.PREDICTOR_TITLES))
    out["loss_single_test"] = np.exp(out[first] + 0.3 * rng.normal(size=n))
    out["linearization_gap"], out["kernel_distance"] = np.abs(out["linearization_gap"]), 1.0 / g
    out["route_iterations"] = rng.integers(1, 50, size=n).astype(float)
    out["route_resolution"], out["route_reached"] = np.ones(n), (rng.random(n) < 0.9).astype(float)
    out["sharing_final"] = rng.normal(size=n) + np.where(g == 1.0, 1.0, 0.0)  # g = 1 shares more than g = 10
    return out | {"g": g, "lr": np.full(n, 0.03)}


def _converged(rng) -> dict:
    """A converged continuum: one network per scale did not converge, one more did not settle in fine-tuning."""
    g = np.repeat(SCALES, N)
    return _columns(rng, g) | {"converged": (np.arange(g.size) % N != 0).astype(float),
                               "settle_single": np.full(g.size, 0.001),
                               "settle_finetune": np.where(np.arange(g.size) % N == 1, 0.5, 0.001)}


def _runs(converged_only: bool = True, replication: bool = False) -> cc.ContinuumRuns:
    rng = np.random.default_rng(0)
    short_g = np.tile(np.repeat(SCALES, N), 4)
    short = _columns(rng, short_g) | {"scaling": np.repeat(["both", "both", "hidden", "hidden"], 3 * N),
                                      "lr_kind": np.repeat(["paper", "tuned", "paper", "tuned"], 3 * N),
                                      "converged": np.ones(short_g.size)}
    converged = _converged(rng)
    sweep = {"networks": short, "tuned_lr": {("both", 0.3): 0.1, ("both", 1.0): 0.03, ("hidden", 10.0): 0.01}}
    block = _converged(np.random.default_rng(1)) if replication else None
    return cc.ContinuumRuns(sweep, converged, continuum_facts.analysed_networks(converged, converged_only),
                            {"both": SCALES, "hidden": SCALES}, 12.3, 0.0, block,
                            None if block is None else continuum_facts.analysed_networks(block, converged_only))


@pytest.fixture(scope="module")
def blocks():
    runs = _runs()
    settings = cc.setting_networks(runs)
    within = cc.within_cells(settings, 100, 99)
    return runs, settings, cc.transition(runs, settings, 100), within, cc.route(runs, settings, within, 100, 99)


def test_the_converged_setting_is_the_filter_s_networks_and_convergence_is_told_of_all(blocks):
    runs, settings, transition, _, _ = blocks
    assert len(runs.converged["g"]) == 36 and len(settings[cc.CONVERGED]["g"]) == 33  # the unconverged left out
    assert np.isnan(settings[cc.CONVERGED]["loss_finetune_test"]).sum() == 3  # unsettled fine-tuning, per scale one
    assert np.isfinite(settings[cc.CONVERGED]["loss_single_test"]).all()
    assert transition.facts[cc.CONVERGED]["converged"] == pytest.approx(33 / 36)  # over every network
    assert transition.settled["finetune"] == pytest.approx(33 / 36)
    assert list(transition.table["g"]) == SCALES
    texts = cc.run_texts(runs, N, N, {"single": 100, "finetune": 50}, True)
    assert texts["conv_analysed"].startswith("33 of the 36 networks, those whose single-task training converged; the "
                                             "fine-tuning outcomes of 3 of them")
    assert texts["cont_sweep_s"] == "12" and texts["conv_scales"] == "0.3, 1, 10"
    assert cc.run_texts(_runs(False), N, N, {"single": 100, "finetune": 50}, False)["conv_analysed"] == \
        "all 36 networks (converged_only is off)"


def test_the_cells_find_the_planted_correlation_in_every_setting(blocks):
    _, _, _, within, _ = blocks
    first = next(iter(cc.PREDICTOR_TITLES))
    assert set(within.by_setting) == set(cc.SETTINGS.values()) == set(within.winners)
    for label, rows in within.by_setting.items():
        planted = next(r for r in rows if r["predictor"] == first and r["outcome"] == "loss_single_test")
        assert planted["r"] > 0.6 and planted["p"] <= 0.01, label
        assert set(within.winners[label]) == set(cc.CELL_OUTCOMES)
    assert within.n_tests == sum(np.isfinite(r["p"]) for rows in within.by_setting.values() for r in rows)
    converged_cell = next(r for r in within.converged if r["predictor"] == first and r["outcome"] == "loss_finetune_test")
    assert converged_cell["n"] == 30  # 33 analysed, 3 of them with their fine-tuning left out
    assert cc.winner_pairs(within) == [(w["predictor"], o, cc.OUTCOME_TITLES[o])
                                       for o, w in within.winners[cc.SETTINGS[cc.CONVERGED]].items()
                                       if w["predictor"] != "none"]
    table = cc.winner_table(within)
    assert list(table.columns) == list(cc.SETTINGS.values()) and list(table.index) == list(cc.CELL_OUTCOMES)
    texts = cc.within_texts(within)
    assert texts["cont_n_cells_setting"] == f"{len(cc.PREDICTOR_TITLES) * len(cc.CELL_OUTCOMES)}"


def test_the_route_claim_is_judged_on_the_analysed_networks_in_force_and_on_every_network_before(blocks):
    runs, _, transition, within, route = blocks
    assert route.judgement.version == claims.criterion("sharing-new-task").version == 3
    assert [j.version for j in route.earlier] == [1, 2]
    on_analysed = continuum_facts.route_hypothesis(runs.analysed, 100, 99)["r"]
    on_every = continuum_facts.route_hypothesis(runs.converged, 100, 99)["r"]
    assert on_analysed != on_every
    assert route.judgement.ours == f"{on_analysed:+.2f}" and route.earlier[1].ours == f"{on_every:+.2f}"
    texts = cc.route_texts(runs, route)
    assert {"cont_hyp_verdict", "cont_hyp_verdict_v1", "cont_hyp_verdict_v2"} <= set(texts)
    assert list(route.table.columns) == ["g", "route_zero_shot", "route_iterations", "route_reached", "sharing_final",
                                         "share of networks at ≤ 1 iteration"]
    comparison, n_changed = cc.short_run_comparison(transition, within, route, 500)
    assert list(comparison.columns) == ["conclusion", "500 it., lr 0.01", "500 it., tuned lr", "converged"]
    assert 0 <= n_changed <= 2 * len(comparison)
    rows = cc.summary_rows(within, transition, route)
    assert [r.get("claim") for r in rows] == [None, None, "sharing-new-task"]
    assert [e["version"] for e in rows[2]["earlier"]] == [1, 2]


def test_the_route_claim_is_judged_again_on_the_replication_block_and_its_row_says_whether_it_replicates(blocks):
    from lib.analyses.replication import DOES_NOT_REPLICATE, REPLICATES
    from lib.book.replication_report import continuum_block_words

    _, settings, transition, within, route = blocks
    with pytest.raises(ValueError, match="needs the runs of a replication block"):
        cc.route_replication(_runs(), route, N, 100, 99)
    runs = _runs(replication=True)
    replicated = cc.route_replication(runs, route, N, 100, 99)
    on_analysed = continuum_facts.route_hypothesis(runs.replication_analysed, 100, 99)
    on_every = continuum_facts.route_hypothesis(runs.replication, 100, 99)["r"]
    assert len(runs.replication_analysed["g"]) == 33 and on_analysed["r"] != on_every
    assert replicated.judgement.version == 3 and [j.version for j in replicated.earlier] == [1, 2]
    assert replicated.judgement.ours == f"{on_analysed['r']:+.2f}" and replicated.earlier[1].ours == f"{on_every:+.2f}"
    assert replicated.judgement.ours != route.judgement.ours  # other networks
    widest = max(h["hi"] - h["lo"] for h in (on_analysed, route.hypotheses[cc.CONVERGED])) / 2
    assert replicated.precision.startswith(f"widest 95% interval half-width {widest:.2f} at {N} networks per init "
                                           "scale; declared 0.15")
    words = continuum_block_words(3000, N, SCALES)
    assert words == "seeds 3000-3011 at each of the 3 init scales (36 networks)"
    texts = cc.route_replication_texts(runs, route, replicated, words)
    assert texts["cont_rep_analysed"] == "33 of its 36 networks" and texts["cont_rep_half_width"] == "0.15"
    assert {"cont_rep_verdict_v1", "cont_rep_verdict_v2"} <= set(texts)
    same = replicated._replace(judgement=route.judgement)
    assert cc.route_replication_texts(runs, route, same, words)["cont_rep_sentence"].startswith(
        "The verdict in force replicates:")
    other = "not reproduced" if route.judgement.verdict != "not reproduced" else "inconclusive"
    differs = replicated._replace(judgement=route.judgement._replace(verdict=other, qualification=""))
    assert cc.route_replication_texts(runs, route, differs, words)["cont_rep_sentence"].endswith(
        f"{other} on the replication block.")
    row = cc.summary_rows(within, transition, route, differs, words)[2]
    assert row["replication"]["status"] == DOES_NOT_REPLICATE and row["replication"]["block"] == words
    assert cc.summary_rows(within, transition, route, same, words)[2]["replication"]["status"] == REPLICATES
    assert cc.summary_rows(within, transition, route)[2]["replication"] is None


def test_the_winners_are_found_again_on_the_replication_block_each_block_its_own_family(blocks):
    from lib.analyses.multiple_testing import bh_adjusted

    _, _, _, within, _ = blocks
    with pytest.raises(ValueError, match="needs the runs of a replication block"):
        cc.replicated_winners(_runs(), within, 100, 99)
    # 9999 permutations: a p of 1e-4 stays significant in a family of its 90 cells (99 would floor it at 0.01)
    replicated = cc.replicated_winners(_runs(replication=True), within, 100, 9999)
    first = next(iter(cc.PREDICTOR_TITLES))
    assert replicated.replication["loss_single_test"]["predictor"] == first  # planted in the block
    assert replicated.replication["finetune_speed"]["predictor"] == "none"  # noise
    assert replicated.n_cells == len(cc.PREDICTOR_TITLES) * len(cc.CELL_OUTCOMES)
    own = cc.own_family(within.converged)  # the discovery block's converged cells alone
    p = np.array([r["p"] for r in own])
    finite = np.isfinite(p)
    assert np.allclose([r["q"] for r, f in zip(own, finite) if f], bh_adjusted(p[finite]))
    assert replicated.n_significant["discovery"] == sum(r["q"] <= 0.05 for r in own)
    assert list(replicated.table.index) == [cc.OUTCOME_TITLES[o] for o in cc.CELL_OUTCOMES]
    assert replicated.table.shape == (len(cc.CELL_OUTCOMES), 3)
    texts = cc.replicated_winner_texts(replicated)
    assert texts["cont_rep_n_sig"] == f"{replicated.n_significant['replication']} of {replicated.n_cells}"
    assert texts["cont_rep_win_loss"].startswith(cc.continuum_report.reader_name(first))


def test_chapter_10_refuses_a_replication_block_that_shares_seeds_with_the_continuum():
    from lib.book import chapter_parameters as cp
    from tests.test_bad_inputs_chapters import parameters

    with pytest.raises(ValueError, match=r"disjoint from the discovery block.*converged_replication_first_seed"):
        cp.check_chapter("10_rich_lazy_continuum", parameters("10_rich_lazy_continuum",
                                                              converged_replication_first_seed=10))
    with pytest.raises(ValueError, match=r"converged_replication_first_seed must be an integer"):
        cp.check_chapter("10_rich_lazy_continuum", parameters("10_rich_lazy_continuum",
                                                              converged_replication_first_seed=99_990))


def test_the_tuned_learning_rates_are_one_row_per_scale():
    table = cc.tuned_lr_table(_runs().sweep)
    assert list(table.index) == ["g = 0.3", "g = 1", "g = 10"]
    assert list(table.columns) == ["both layers scaled", "hidden layer scaled"]
    assert table.loc["g = 1", "both layers scaled"] == 0.03 and np.isnan(table.loc["g = 1", "hidden layer scaled"])


@pytest.mark.parametrize("chapter", ["10_rich_lazy_continuum", "12_prediction_horizon", "13_rival_theories"])
def test_each_continuum_chapter_refuses_a_first_seed_that_reaches_the_learning_rate_seeds(chapter):
    from lib.book import chapter_parameters as cp
    from tests.test_bad_inputs_chapters import parameters

    with pytest.raises(ValueError, match=r"converged_first_seed must be an integer"):
        cp.check_chapter(chapter, parameters(chapter, converged_first_seed=99_990))
    cp.check_chapter(chapter, parameters(chapter, converged_first_seed=2000))  # a disjoint block is fine


def test_chapter_13_refuses_fit_seeds_inside_a_replication_block():
    from lib.book import chapter_parameters as cp
    from tests.test_bad_inputs_chapters import parameters

    with pytest.raises(ValueError, match=r"continuum_fit_seeds .* outside the analysed seeds 1000\.\.1029"):
        cp.check_chapter("13_rival_theories", parameters("13_rival_theories", converged_first_seed=1000))
    with pytest.raises(ValueError, match=r"continuum_fit_seeds .* outside the analysed seeds 1000\.\.1029"):
        cp.check_chapter("13_rival_theories", parameters("13_rival_theories",
                                                         converged_replication_first_seed=1000))
    with pytest.raises(ValueError, match=r"disjoint from the discovery block.*converged_replication_first_seed"):
        cp.check_chapter("13_rival_theories", parameters("13_rival_theories", converged_replication_first_seed=10))
