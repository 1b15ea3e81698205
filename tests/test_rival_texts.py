"""Chapter 13's glued texts (lib.book.rival_texts) on measurements built by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.analyses import claims
from lib.analyses import rival_comparison as rcomp
from lib.analyses import rival_continuum as rcon
from lib.book import rival_answer, rival_chapter, rival_verdicts
from lib.book import rival_texts as rt
from tests.test_rival_tables import BY_SCALE
from tests.test_rival_verdicts import measures


def test_design_texts_describe_both_networks_and_their_training():
    texts = rt.design_texts(100, [10, 11], [12, 13, 14], 10, 12, [0.3246, 1.0, 3.42], 100, 200, 0.1, 2000, 41, 2)
    assert texts["rv_tp_fit"] == "10, 11" and texts["rv_tp_test"] == "12, 13, 14" and texts["rv_tp_width"] == "100"
    assert texts["rv_nets"] == ("12 networks (seeds 10-21) at each of the initial scales g = 0.3246, 1, 3.42; "
                                "100 hidden units")
    assert texts["rv_train"] == "200 i.i.d. patterns, learning rate 0.1, 2,000 iterations, 41 snapshots"
    assert texts["rv_n_fit"] == "2" and texts["rv_hidden"] == "100"
    with pytest.raises(ValueError, match="n_seeds must be at least 1, got 0"):
        rt.design_texts(100, [10], [12], 10, 0, [1.0], 100, 200, 0.1, 2000, 41, 1)


def test_two_point_race_check_and_task_pair_texts():
    assert rt.two_point_texts(np.array([[0.01, 0.05], [0.02, 0.5]])) == {"rv_tp_median": "3.5%"}
    assert rt.race_check_texts(10, {"max_error": 0.0123, "time_error": 0.2}) == {
        "rv_race_seed": "10", "rv_race_error": "1.2%", "rv_race_time_error": "20.0%"}
    assert rt.task_pair_texts(BY_SCALE)["rv_pairs_across"].startswith("+1.00 (log distances")


def test_side_and_continuum_texts_add_their_settings_to_the_tables_sentences():
    kernels = {g: {"linearized_diverged": np.array([True, False])} for g in (0.3, 3.0)}
    scores = {g: {"c_shape": {"observed": np.array([0.4, 0.6]), "race": np.array([0.2, 0.4])}} for g in (0.3, 3.0)}
    side = rt.side_texts(kernels, scores, 41)
    assert side["rv_side_snapshots"] == "41" and side["rv_side_diverged"] == "g = 0.3: 1 of 2, g = 3: 1 of 2"
    across = pd.DataFrame({"pooled r": [0.5]}, index=["two-point theory"])
    block = rival_chapter.ContinuumBlock([1.0, 10.0], {}, np.array([True, False]),
                                         rcon.ContinuumScores({}, {}, [2e-4, 1e-3], {}), across, 7)
    texts = rt.continuum_texts(block, 30, 200, False, [1000, 1001], 51)
    assert texts["rv_cont_fit_seeds"] == "1000, 1001" and texts["rv_cont_fit_snapshots"] == "51"
    assert texts["rv_cont_match"] == "1.0e-03" and texts["rv_cont_across"].endswith("(7 networks with a finite "
                                                                                    "linearization)")
    assert texts["rv_cont_nets"].endswith("analysed: 1 of 2 (every network: converged_only is off)")


def test_verdict_texts_quote_every_verdict_and_the_answer():
    m = measures(np.random.default_rng(4))
    every = {*rcomp.A_PREDICTORS, *rcomp.B_PREDICTORS, *rcomp.C_PREDICTORS}  # side_words names each predictor
    m = m._replace(scores={g: {k: {name: by.get(name, np.full(10, 0.1)) for name in every} for k, by in outcomes.items()}
                           for g, outcomes in m.scores.items()},
                   small={**m.small, "rho_route_only": np.zeros(10), "t_in": np.full(10, np.nan), "t_out": np.ones(10)})
    judgements, earlier = rival_verdicts.judge_claims(m)
    verdicts = rival_chapter.ChapterVerdicts(m, judgements, earlier)
    texts = rt.verdict_texts(verdicts, 0.004, 100, 200)
    lines = texts["rv_verdicts"].splitlines()
    assert len(lines) == len(judgements) and lines[0].startswith(f"- **{claims.CLAIMS[next(iter(judgements))].text}**")
    assert texts["rv_answer_box"] == rival_answer.answer_box(judgements, 0.02, 0.004, m.held_r, m.small)
    assert "within 0.4%" in texts["rv_answer"] and texts["rv_cont_verdicts"].startswith("On chapter 13's own networks "
                                                                                        "(100 hidden units")
    assert texts["rv_side_words"].startswith("**Which predicts what.**")


def test_the_replication_texts_quote_both_blocks_the_precision_and_the_earlier_versions():
    from lib.analyses.claim_types import Judgement

    block = rival_chapter.ContinuumBlock([1.0], {}, np.array([True, True, False]),
                                         rcon.ContinuumScores({}, {}, [2e-7, 5e-7], {}), pd.DataFrame(), 0)
    discovery = Judgement("rival-continuum-similarity", 2, "reproduced", "mean z difference +0.30", "", 28, "", "", "")
    replicated = discovery._replace(verdict="inconclusive", ours="mean z difference +0.05")
    older = discovery._replace(version=1, verdict="reproduced")
    texts = rt.continuum_replication_texts(discovery, rival_chapter.ContinuumReplication(
        block, replicated, (older,), "widest 95% interval half-width 0.20 ..."), "seeds 3000-3029")
    assert texts["rv_rep_block"] == "seeds 3000-3029" and texts["rv_rep_half_width"] == "0.15"
    assert texts["rv_rep_analysed"] == "2 of its 3 networks" and texts["rv_rep_match"] == "5.0e-07"
    assert texts["rv_rep_discovery"] == "mean z difference +0.30: reproduced"
    assert texts["rv_rep_result"] == "mean z difference +0.05: inconclusive (does not replicate)"
    assert texts["rv_rep_earlier"] == "version 1: reproduced"
    assert texts["rv_rep_precision"].startswith("widest 95%")
