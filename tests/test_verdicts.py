"""Summary rows that judge the registry's claims, and the one-verdict-per-claim table built from them."""

import pytest

from lib.analyses import claims
from lib.analyses.claims import CLAIMS
from lib.book import summary


def claim_row_for(key):
    """A row for ``key`` judged under every version of its criterion by a stand-in judgement."""
    versions = [claims.Judgement(key, c.version, "reproduced", "1", "", 0, "", "", c.text)
                for c in CLAIMS[key].criteria]
    return summary.claim_row("q", "paper", versions[-1], control="c", evidence="e", earlier=versions[:-1])


def test_claim_rows_carry_every_version_of_a_changed_criterion():
    j = claims.judge("perf-runs", k=50, n=50)
    old = claims.judge("perf-runs", version=1, value=0.9)
    r = summary.claim_row("Fig 17", "every trial", j, control="per pair", evidence=summary.evidence("fig-x", "Fig 17"),
                          earlier=[old])
    assert (r["claim"], r["version"], r["verdict"], r["agrees"]) == ("perf-runs", 2, "reproduced", True)
    assert r["criterion"] == CLAIMS["perf-runs"].current.text and r["evidence"] == "{ref}`Fig 17 <fig-x>`"
    assert [(e["version"], e["verdict"]) for e in r["earlier"]] == [(1, "not reproduced")]
    assert r["earlier"][0]["replaced_because"] == CLAIMS["perf-runs"].criteria[1].reason
    with pytest.raises(ValueError, match="earlier must hold the judgements"):
        summary.claim_row("q", "p", j, control="c", evidence="e")  # the old verdict may not be dropped
    with pytest.raises(ValueError, match="criterion in force"):
        summary.claim_row("q", "p", old, control="c", evidence="e")
    with pytest.raises(ValueError, match="backticks"):
        summary.evidence("fig`x", "text")
    assert "claim" not in summary.row("q", 1, 1, None, "c")


def rows_for(chapter):
    return [{"chapter": chapter, **claim_row_for(key)}
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
