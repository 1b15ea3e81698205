"""Chapter 13's blocks of work (lib.book.rival_chapter): small networks trained here, and tables and
verdicts on scores built by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.analyses import rival_comparison as rcomp
from lib.analyses import rival_continuum as rcon
from lib.book import plot_rival_theories, rival_chapter, rival_verdicts
from tests.test_rival_verdicts import measures

SCALES = [0.3, 3.0]


@pytest.fixture(scope="module")
def multitask():
    """3 networks per scale (8 hidden units, 40 iterations, 5 snapshots), the first fitting the rates."""
    return rival_chapter.multitask_block(SCALES, first_seed=10, n_seeds=3, n_fit=1, learning_rate=0.1, n_iterations=40,
                                         n_snapshots=5, n_hidden=8, n_train=200)


def test_two_point_block_fits_per_gain_and_ranks_endless_plateaus_last():
    block = rival_chapter.two_point_block([0.6, 2.5], [0.02, 0.0004], [10], [11, 12], n_steps=200, width=8)
    assert block.summary["final_rel_error"].shape == (2, 2) and block.examples["sim"].shape[0] == 2
    for key in ("plateau_sim", "plateau_theory"):
        raw = np.asarray(block.summary[key], float)
        assert np.array_equal(np.isinf(block.plateaus[key]), np.isnan(raw))
        assert np.array_equal(block.plateaus[key][np.isfinite(raw)], raw[np.isfinite(raw)])


def test_multitask_block_analyses_every_scale_and_races_the_first_training_set(multitask):
    assert multitask.seeds == (10, 11, 12) and list(multitask.by_scale) == SCALES
    assert np.array_equal(multitask.iterations, [0, 10, 20, 30, 40])
    assert [int(np.sum(multitask.kinds == k)) for k in range(len(plot_rival_theories.PAIR_KINDS))] == [18, 12, 36]
    assert rival_chapter.held_out_r(multitask).shape == (4,)  # 2 held-out networks at each of 2 scales
    assert list(multitask.race["families"]) == ["shared", "in_pool", "out_pool", "route"]
    assert list(multitask.race_pools["families"]) == ["in_pool", "out_pool", "route"]
    assert {"max_error", "time_error"} <= set(multitask.race_check)


def test_side_by_side_scores_every_predictor_of_every_outcome(multitask):
    side = rival_chapter.side_by_side(multitask, learning_rate=0.1, n_fit=1)
    assert list(side.scores) == SCALES and list(side.kernel_predictions) == SCALES
    for key, names in rival_chapter.SIDE_PREDICTORS.items():
        assert set(names) <= set(side.scores[SCALES[0]][key])
    assert side.scores[SCALES[0]]["a"]["two-point theory"].shape == (2,)  # the held-out networks only


def hand_scores(rng) -> dict:
    """scale -> outcome -> predictor -> (4,) scores; route times for two predictors only."""
    by_outcome = {key: {name: rng.normal(size=4) for name in names} for key, names in rival_chapter.SIDE_PREDICTORS.items()}
    return {g: {**by_outcome, "b_time": {"race": rng.normal(size=4), "targets control": rng.normal(size=4)}}
            for g in SCALES}


def test_side_tables_give_one_table_per_outcome_in_its_format():
    tables = rival_chapter.side_tables(hand_scores(np.random.default_rng(0)))
    titles = [title for _, title in tables]
    assert titles[2] == "(b) route times, per predictor and scale: median log10(predicted / observed) [95% interval]"
    assert [list(t.index) for t, _ in tables] == [list(rcomp.A_PREDICTORS), list(rcomp.B_PREDICTORS),
                                                  ["race", "targets control"], list(rcomp.C_PREDICTORS)]
    signed, unsigned = tables[0][0].loc["two-point theory", "g = 0.3"], tables[3][0].iloc[0, 0]
    assert signed[0] in "+-" and unsigned[0] not in "+"  # (c) is an error: no sign


def continuum_block(rng) -> rival_chapter.ContinuumBlock:
    """Two scales, three networks each, the last at each scale not analysed."""
    g = np.repeat([1.0, 10.0], 3)
    use = np.array([True, True, False] * 2)
    scores = {s: {name: rng.uniform(-1, 1, size=2) for name in rcon.CONTINUUM_PREDICTORS_A} for s in (1.0, 10.0)}
    rates = {s: {"lr": 0.1, "rate_h": 1.0, "rate_y": 2.0, "fit_error": 0.01} for s in (1.0, 10.0)}
    across = pd.DataFrame({"pooled r": [0.5]}, index=pd.Index(["two-point theory"], name="predictor"))
    return rival_chapter.ContinuumBlock([1.0, 10.0], {"g": g}, use, rcon.ContinuumScores(scores, rates, [1e-6], {}),
                                        across, 4)


def test_continuum_tables_list_scores_per_predictor_and_scale_then_rates_then_the_pooled_r():
    block = continuum_block(np.random.default_rng(1))
    (scores, _), (rates, _), (across, title) = rival_chapter.continuum_tables(block)
    assert list(scores.index[:2]) == [("two-point theory", "g = 1"), ("two-point theory", "g = 10")]
    assert len(scores) == 2 * len(rcon.CONTINUUM_PREDICTORS_A) and "mean r [95% interval]" in scores.columns
    assert list(rates["analysed networks"]) == [2, 2] and list(rates.index) == [1.0, 10.0]
    assert across is block.across and title.endswith("pooled across scales")


def test_judge_chapter_judges_the_blocks_measurements_as_the_verdicts_module_does():
    m = measures(np.random.default_rng(3))
    held = np.split(m.held_r, 2)
    two_point = rival_chapter.TwoPointBlock({"final_rel_error": m.two_point_error}, {},
                                            {"plateau_sim": m.plateau_network, "plateau_theory": m.plateau_theory})
    by_scale = {g: {"pair_r": r, **(m.small if g == m.scales[0] else {})} for g, r in zip(m.scales, held)}
    multitask = rival_chapter.MultitaskBlock(None, (), {}, np.arange(3), by_scale, np.zeros(66), {}, {}, {})
    side = rival_chapter.SideBySide({}, m.scores)
    continuum = rival_chapter.ContinuumBlock(list(m.continuum_scales), {}, np.array([]),
                                             rcon.ContinuumScores(m.continuum_scores, {}, [], {}), pd.DataFrame(), 0)
    verdicts = rival_chapter.judge_chapter(two_point, m.gains, multitask, side, continuum)
    assert np.array_equal(verdicts.measures.held_r, m.held_r) and verdicts.measures.small is by_scale[m.scales[0]]
    expected, earlier = rival_verdicts.judge_claims(m)
    assert {k: j.verdict for k, j in verdicts.judgements.items()} == {k: j.verdict for k, j in expected.items()}
    assert {k: [e.version for e in v] for k, v in verdicts.earlier.items()} == {k: [e.version for e in v]
                                                                                  for k, v in earlier.items()}


def _scored_block(scores: dict) -> rival_chapter.ContinuumBlock:
    scales = list(scores)
    return rival_chapter.ContinuumBlock(scales, {}, np.ones(30 * len(scales), bool),
                                        rcon.ContinuumScores(scores, {}, [1e-7], {}), pd.DataFrame(), 0)


def test_the_continuum_replication_is_judged_as_the_chapter_judges_its_discovery_block():
    """The replication block's judgement equals judge_chapter's on a chapter whose continuum scores are
    the block's (the same criterion, every version, every stability seed); the precision note reads
    the wider of the two blocks' widest cell intervals and the summary row records the status."""
    from lib.analyses.replication import RIVAL_CONTINUUM_SAMPLE, precision_note

    good, bad = measures(np.random.default_rng(4)), measures(np.random.default_rng(5), theory_r=0.2)
    discovery, replicated = _scored_block(good.continuum_scores), _scored_block(bad.continuum_scores)
    replication = rival_chapter.continuum_replication(discovery, replicated, 30)
    expected, earlier = rival_verdicts.judge_claims(bad)
    assert replication.judgement == expected["rival-continuum-similarity"]
    assert replication.earlier == tuple(earlier["rival-continuum-similarity"])
    assert replication.block is replicated
    from lib.book import rival_report

    widest = max(rival_report.continuum_half_width(m.continuum_scores, m.continuum_scales) for m in (good, bad))
    assert replication.precision == precision_note(widest, 30, RIVAL_CONTINUUM_SAMPLE)
    judgements, older = rival_verdicts.judge_claims(good)
    rows = rival_verdicts.claim_rows(judgements, older, replication.judgement, "seeds 3000-3029", replication.precision)
    row = next(r for r in rows if r["claim"] == "rival-continuum-similarity")
    assert judgements["rival-continuum-similarity"].verdict.startswith("reproduced")
    assert not replication.judgement.verdict.startswith("reproduced")
    assert row["replication"]["status"] == "does not replicate" and row["replication"]["block"] == "seeds 3000-3029"
    same = rival_chapter.continuum_replication(discovery, discovery, 30)
    assert same.judgement == judgements["rival-continuum-similarity"]
