"""Summary rows that judge the paper's claims, and the one-verdict-per-claim table built from them."""

import pytest

from lib.book import summary
from lib.experiments.paper import CLAIMS


def test_claim_rows_need_a_known_claim_and_verdict():
    good = summary.row("q", "paper", "ours", True, "criterion", claim="smg-tiers", verdict="reproduced",
                       control="closed form", evidence=summary.evidence("fig-smg-modes", "mode strengths"))
    assert good["evidence"] == "{ref}`mode strengths <fig-smg-modes>`"
    with pytest.raises(ValueError, match="claim must be one of"):
        summary.row("q", 1, 1, True, "c", claim="no-such-claim", verdict="reproduced")
    with pytest.raises(ValueError, match="verdict must be one of"):
        summary.row("q", 1, 1, True, "c", claim="smg-tiers", verdict="sort of")
    with pytest.raises(ValueError, match="qualification is required"):
        summary.row("q", 1, 1, True, "c", claim="smg-tiers", verdict="reproduced with qualification")
    qualified = summary.row("q", 1, 1, True, "c", claim="smg-tiers", verdict=summary.verdict_of(True, "caveat"))
    assert (qualified["verdict"], qualified["qualification"]) == ("reproduced with qualification", "caveat")
    with pytest.raises(ValueError, match="backticks"):
        summary.evidence("fig`x", "text")
    assert "claim" not in summary.row("q", 1, 1, None, "c")  # plain rows stay as they were
    assert summary.verdict_of(True).verdict == "reproduced"
    assert summary.verdict_of(True, "only by construction") == ("reproduced with qualification", "only by construction")
    assert summary.verdict_of(False, "anything").verdict == "not reproduced"


def rows_for(chapter):
    return [{"chapter": chapter, **summary.row("q", 1, 1, True, "c", claim=key, verdict="reproduced")}
            for key, claim in CLAIMS.items() if claim.chapter == chapter and not claim.untested]


def test_every_claim_gets_exactly_one_verdict():
    chapters = sorted({c.chapter for c in CLAIMS.values()})
    rows = [r for chapter in chapters for r in rows_for(chapter)]
    table = summary.claim_verdicts(rows, chapters)
    assert [t["claim"] for t in table] == list(CLAIMS)
    untested = [t for t in table if t["verdict"] == "not tested"]
    assert untested and all(t["qualification"] == CLAIMS[t["claim"]].untested for t in untested)
    # a chapter left out of the build: its claims are listed as not tested, not dropped
    partial = summary.claim_verdicts(rows_for("02_smg_validation"), ["02_smg_validation"])
    assert len(partial) == len(CLAIMS)
    assert {t["verdict"] for t in partial if t["chapter"] == "05_multitask_performance"} == {"not tested"}
    with pytest.raises(ValueError, match="missing from chapters that ran \\['smg-fig3'"):
        summary.claim_verdicts([r for r in rows if r["claim"] != "smg-fig3"], chapters)
    with pytest.raises(ValueError, match="recorded twice \\['smg-tiers'\\]"):
        summary.claim_verdicts(rows + [r for r in rows if r["claim"] == "smg-tiers"], chapters)
