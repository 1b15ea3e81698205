"""The prediction-horizon chapter's answer texts (lib.book.horizon_answer)."""

import math

import pytest

from lib.analyses.claims import Judgement
from lib.book import horizon_answer

FRACTIONS = [0.0, 0.01, 0.05, 0.1, 0.5]


def _judged(claim: str, verdict: str, ours: str = "r = 0.1") -> Judgement:
    return Judgement(claim, 1, verdict, ours, "", 30, "", "", "")


def _continuum(window: str = "inconclusive", beats: str = "not reproduced") -> dict:
    return {"horizon-kernel-window": _judged("horizon-kernel-window", window),
            "horizon-kernel-beats-rivals": _judged("horizon-kernel-beats-rivals", beats)}


def _in_force(finetune_beats: str = "inconclusive") -> dict:
    return {**_continuum(), "horizon-finetune-kernel-beats-rivals": _judged("horizon-finetune-kernel-beats-rivals",
                                                                            finetune_beats)}


def _pairs(window: str = "inconclusive", beats: str = "not reproduced") -> dict:
    return {"horizon-pairs-kernel-window": _judged("horizon-pairs-kernel-window", window, "largest |r| 0.40"),
            "horizon-pairs-representation-window": _judged("horizon-pairs-representation-window", "reproduced"),
            "horizon-pairs-loss-window": _judged("horizon-pairs-loss-window", "inconclusive"),
            "horizon-pairs-kernel-beats-rivals": _judged("horizon-pairs-kernel-beats-rivals", beats)}


def test_when_words_names_the_first_fraction_or_the_last_observed():
    assert horizon_answer.when_words(0.05, "a rival", FRACTIONS) == "a rival from 5% of the single-task phase"
    assert horizon_answer.when_words(math.inf, "a kernel", FRACTIONS) == "a kernel at no fraction up to 50%"


def test_beats_words_follow_the_verdict_and_count_the_winners():
    assert "2 of 40 comparisons" in horizon_answer.beats_words("reproduced", 2, 40)
    assert horizon_answer.beats_words("not reproduced", 0, 40).startswith("No kernel quantity predicts better")
    assert "3 of 20 cells" in horizon_answer.beats_words("reproduced", 3, 20, pairs=True)
    with pytest.raises(ValueError, match="verdict must be one of"):
        horizon_answer.beats_words("replicates", 0, 1)


def test_adds_words_distinguish_none_some_and_no_cells():
    assert horizon_answer.adds_words(0, 0) == "."
    assert "in 2 of 160 cells" in horizon_answer.adds_words(2, 160)
    assert "in any cell" in horizon_answer.adds_words(0, 160)


def test_answer_box_is_short_and_quotes_both_blocks():
    box = horizon_answer.answer_box(0.5, 0.05, math.inf, FRACTIONS, _continuum(), _pairs(), _pairs(), _in_force(),
                                    _in_force())
    assert box.count(". ") + 1 <= 3  # three sentences
    assert "from 5% of the single-task phase" in box and "at no fraction up to 50%" in box
    assert "the same verdicts on both blocks of pairs" in box
    assert "not reproduced on the continuum" in box
    assert box.endswith("under the criteria in force: the same verdicts on both blocks of the continuum.")


def test_answer_box_says_which_pair_or_continuum_verdict_does_not_replicate():
    box = horizon_answer.answer_box(0.5, 0.05, 0.1, FRACTIONS, _continuum(), _pairs(),
                                    _pairs(window="reproduced"), _in_force(), _in_force("not reproduced"))
    assert ("the kernel's early window does not replicate (inconclusive on the discovery block, reproduced on the "
            "replication block)") in box
    assert ("the rival comparison during fine-tuning does not replicate (inconclusive on the discovery block, not "
            "reproduced on the replication block)") in box
    assert "both blocks" not in box


def test_answer_details_carry_every_part_of_the_chapter():
    finetune = {"horizon-finetune-kernel-window": _judged("horizon-finetune-kernel-window", "not reproduced"),
                "horizon-finetune-kernel-beats-rivals": _judged("horizon-finetune-kernel-beats-rivals", "inconclusive")}
    text = horizon_answer.answer_details(0.5, 0.05, math.inf, FRACTIONS, 120, _continuum(), 0, 160, 2, 160,
                                         [0.0, 0.01], finetune, [0.0, 0.1], _pairs(), 0, 20, 1, 20)
    for part in ("correction for the 120 early cells, the kernel's window is inconclusive",
                 "for every kernel quantity some rival predicts better",
                 "in 2 of 160 cells", "at t = 0 and 1% of it", "window for the fine-tuning outcomes is not reproduced",
                 "whether it beats the rivals there is inconclusive", "(largest |r| 0.40)",
                 "every one is beaten by some rival", "in 1 of 20 cells"):
        assert part in text, part


def test_rival_answer_box_and_details_quote_the_verdicts_and_numbers():
    import numpy as np

    from lib.book import rival_answer

    claims_judged = ("rival-two-point-own-ground", "rival-two-point-task-pairs", "rival-race-order",
                     "rival-race-beats-size", "rival-race-structure", "rival-multitask-family", "rival-side-similarity",
                     "rival-continuum-similarity", "rival-side-order", "rival-side-kernel-vs-control",
                     "rival-race-loss-shape")
    judgements = {claim: _judged(claim, "reproduced") for claim in claims_judged}
    judgements["rival-multitask-family"] = _judged("rival-multitask-family", "not reproduced")
    race = {"rho_race": np.array([0.3, 0.34]), "rho_size": np.array([0.2, np.nan]), "rho_route_only": np.array([0.4, 0.44]),
            "out_first": np.array([True, False]), "t_in": np.array([10.0, np.nan]), "t_out": np.array([np.nan, np.nan])}
    held_r = np.array([0.6, 0.1, 0.2])
    box = rival_answer.answer_box(judgements, 0.04, 0.02, held_r, race)
    assert "median error of 4% (reproduced)" in box and "within 2.0%" in box
    assert "corrected together, are not reproduced" in box
    assert "r > 0.5 in 1 of 3 networks" in box and "mean rho +0.32 against +0.20" in box
    details = rival_answer.answer_details(judgements, 0.04, 0.02, held_r, race)
    assert "output-pool grouping came first in 1 of 2 networks" in details
    assert "input-pool ARI reached 0.5 in 1 and its output-pool ARI in 0 of them" in details
    assert "continuum's converged networks: reproduced)" in details  # no replication block given
    for replicated, words in (("reproduced", "reproduced on both blocks"),
                              ("inconclusive", "reproduced on the discovery block, inconclusive on the replication "
                                               "block")):
        with_block = rival_answer.answer_details(judgements, 0.04, 0.02, held_r, race,
                                                 _judged("rival-continuum-similarity", replicated))
        assert f"continuum's converged networks: {words})" in with_block
    with pytest.raises(ValueError, match="missing \\['t_out'\\]"):
        rival_answer.answer_box(judgements, 0.04, 0.02, held_r, {k: v for k, v in race.items() if k != "t_out"})
