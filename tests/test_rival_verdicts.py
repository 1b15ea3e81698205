"""Chapter 13's verdicts and summary rows (lib.book.rival_verdicts) on measurements built by hand."""

from __future__ import annotations

import numpy as np

from lib.book import rival_report
from lib.book import rival_verdicts as rv

PAGE_ORDER = ["rival-two-point-own-ground", "rival-two-point-task-pairs", "rival-race-order", "rival-race-beats-size",
              "rival-race-structure", *rival_report.HOLM_CLAIMS, "rival-race-loss-shape"]


def measures(rng, theory_r: float = 0.9, held_r: float = 0.9, n_side: int = 10) -> rv.RivalMeasures:
    """The two-point theory scoring ``theory_r`` on every network, its rivals about 0.2; the race
    ordering the routes (rho about 0.7) better than route size (about 0.1)."""
    names = ("two-point theory", "race", "route size", *rival_report.SIDE_RIVALS)
    score = lambda name, n: np.clip((theory_r if name in ("two-point theory", "race") else 0.2)  # noqa: E731
                                    + 0.05 * rng.normal(size=n), -0.99, 0.99)
    scores = {g: {k: {name: score(name, n_side) for name in names} for k in "abc"} for g in (0.3, 3.0)}
    continuum = {g: {name: score(name, 30) for name in ("two-point theory", *rival_report.SIDE_RIVALS)} for g in (1.0, 10.0)}
    small = {"rho_race": 0.7 + 0.05 * rng.normal(size=n_side), "rho_size": 0.1 + 0.05 * rng.normal(size=n_side),
             "out_first": np.ones(n_side, int)}
    error, plateau = np.full((3, 5), 0.02), np.full((3, 5), 100.0)
    return rv.RivalMeasures(error, plateau, plateau * 1.05, (0.6, 1.2, 2.5), np.full(24, held_r), small, scores,
                            [0.3, 3.0], continuum, [1.0, 10.0])


def test_every_claim_is_judged_in_the_page_order_with_the_earlier_versions_of_the_holm_claims():
    judgements, earlier = rv.judge_claims(measures(np.random.default_rng(0)))
    assert list(judgements) == PAGE_ORDER and set(earlier) == set(rival_report.HOLM_CLAIMS)
    assert all(j.claim == name for name, j in judgements.items())
    rows = rv.claim_rows(judgements, earlier)
    assert [r["claim"] for r in rows] == [*PAGE_ORDER[:5], "rival-side-similarity", "rival-continuum-similarity",
                                          "rival-side-order", "rival-side-kernel-vs-control", "rival-race-loss-shape",
                                          "rival-multitask-family"]


def test_the_verdicts_follow_the_measurements():
    good, _ = rv.judge_claims(measures(np.random.default_rng(1)))
    bad, _ = rv.judge_claims(measures(np.random.default_rng(1), theory_r=0.2, held_r=0.1))
    assert good["rival-two-point-task-pairs"].verdict.startswith("reproduced")
    assert bad["rival-two-point-task-pairs"].verdict == "not reproduced"
    assert good["rival-race-beats-size"].verdict.startswith("reproduced")
    assert good["rival-continuum-similarity"].verdict.startswith("reproduced")
    assert not bad["rival-continuum-similarity"].verdict.startswith("reproduced")  # the theory no better than its rivals


def test_the_continuum_sentence_quotes_both_task_similarity_verdicts():
    m = measures(np.random.default_rng(2))
    judgements, _ = rv.judge_claims(m)
    text = rv.continuum_text(judgements, 200, 200, m)
    for claim in ("rival-side-similarity", "rival-continuum-similarity"):
        assert f"**{judgements[claim].verdict}** ({judgements[claim].ours})" in text
