"""The verdicts page (lib/book/verdicts_page.py) and the counted verdict of lib.book.summary: a
version declared after its numbers were seen is labelled post hoc and does not count in the tally;
the claim counts under its latest version declared before them."""

from lib.book import summary, verdicts_page as page


def version(number: int, verdict: str, **extra) -> dict:
    return {"version": number, "verdict": verdict, "qualification": "", "stability": "", "ours": "0.9",
            "interval": "", "criterion": f"criterion v{number}", "commit": "", "replaced_because": "why", **extra}


def entry(claim: str, current: dict, earlier: list[dict], section: str = "Sec 5") -> dict:
    return summary.with_provenance({"claim": claim, "section": section, "figure": "", "text": f"claim {claim}",
                                    "chapter": "05_multitask_performance", "paper": "", "control": "",
                                    "evidence": "", "n": 50, **current, "earlier": earlier})


def test_a_post_hoc_version_does_not_count_the_latest_version_before_it_does():
    # perf-lr-single: v1 (80%, declared with its data) reproduced; v2 (95%, post hoc) not reproduced
    lr = entry("perf-lr-single", version(2, "not reproduced"), [version(1, "reproduced")])
    assert (lr["status"], lr["earlier"][0]["status"]) == ("post hoc", "with the data")
    assert (lr["counted_verdict"], lr["counted_version"]) == ("reproduced", 1)
    # rival-race-loss-shape: its only version is post hoc
    shape = entry("rival-race-loss-shape", version(1, "reproduced"), [], "beyond the paper (from Saxe et al.)")
    assert shape["counted_verdict"] is None
    # perf-multitask-speed v3 was declared before its data: it counts as it is
    speed = entry("perf-multitask-speed", version(3, "inconclusive"), [version(1, "reproduced"),
                                                                       version(2, "not reproduced")])
    assert (speed["counted_verdict"], speed["status"]) == ("inconclusive", "before the data")
    table = page.tally_table([lr, shape, speed])
    assert table.splitlines()[0] == f":::{{table}} {page.TALLY_TITLE}" and table.splitlines()[-1] == ":::"
    assert table.splitlines()[1] == ("| verdict | the paper's results | the paper's Discussion | related papers' claims "
                                     "| beyond the paper |")
    assert "| \u2714 reproduced | 1 | 0 | 0 | 0 |" in table  # perf-lr-single under v1, not the post-hoc v2
    assert "| \u2718 not reproduced | 0 | 0 | 0 | 0 |" in table
    assert "| post hoc only (not counted) | 0 | 0 | 0 | 1 |" in table
    assert page.tally_sentence([lr, shape, speed]) == (
        "the paper's results (2 claims): 1 reproduced, 1 inconclusive; beyond the paper (1 claim): 1 post hoc only "
        "(not counted).")
    assert page.declaration_counts([lr, shape, speed]) == {"before the data": 1, "with the data": 2, "post hoc": 3}


def test_an_entry_says_when_each_version_was_declared_and_never_shows_a_blank_commit():
    lr = entry("perf-lr-single", version(2, "not reproduced"), [version(1, "reproduced")])
    lines = "\n".join(page.entry_lines(7, lr))
    assert "*Counted in the tally under version 1, the latest declared before its numbers:*" in lines
    assert "- *Declared:* POST HOC: declared after its numbers had been shown (at e033172" in lines
    assert "its numbers first shown at 4980257" in lines
    assert "*Earlier criterion, version 1* (declared with its numbers" in lines
    assert "commit ``" not in lines and "last in force" not in lines  # v1 records no commit: nothing blank shown
    old = entry("perf-lr-single", version(2, "not reproduced"), [version(1, "reproduced", commit="25a8566")])
    assert "last in force at commit `25a8566`" in "\n".join(page.entry_lines(7, old))
    shape = entry("rival-race-loss-shape", version(1, "reproduced"), [], "beyond the paper")
    assert "   *Not counted in the tally: every version of this criterion is post hoc.*" in page.entry_lines(1, shape)


def test_chapter_blocks_number_the_entries_across_chapters():
    a = entry("perf-runs", version(2, "reproduced"), [version(1, "not reproduced")])
    b = {**entry("corr-et", version(2, "reproduced"), [version(1, "reproduced")]), "chapter": "06_correlation_analysis"}
    blocks = page.chapter_blocks([a, b])
    assert blocks[0].startswith("**Judged in {doc}`05_multitask_performance`**") and "\n1. **claim perf-runs**" in blocks[0]
    assert "\n2. **claim corr-et**" in blocks[1]
    assert page.with_intervals("a 0.1; b 0.2", "a [0, 1]; b [0, 2]") == "a 0.1 [0, 1]; b 0.2 [0, 2]"


def test_the_claim_index_gives_each_claim_its_counted_verdict_and_a_link_under_its_chapter_title():
    lr = entry("perf-lr-single", version(2, "not reproduced"), [version(1, "reproduced")])
    speed = entry("perf-multitask-speed", version(3, "inconclusive"), [version(1, "reproduced"),
                                                                       version(2, "not reproduced")])
    shape = {**entry("rival-race-loss-shape", version(1, "reproduced"), [], "beyond the paper"),
             "chapter": "13_rival_theories"}
    index = page.claim_index([lr, speed, shape]).splitlines()
    assert index[0] == "**Single-task learning, then multitask fine-tuning**"
    assert index[2] == ("- \u2714 reproduced (version 2, post hoc: not reproduced): "
                        "{ref}`claim perf-lr-single <verdict-perf-lr-single>`")
    assert index[3] == (f"- {page.VERDICT_SYMBOLS['inconclusive']} inconclusive: "
                        "{ref}`claim perf-multitask-speed <verdict-perf-multitask-speed>`")
    assert index[5] == "**Beyond the paper: two rival theories on the same network**"
    assert index[7] == "- post hoc only (not counted): {ref}`claim rival-race-loss-shape <verdict-rival-race-loss-shape>`"
    cards = page.number_cards([{"chapter": "03_epntk", "quantity": "q", "ours": 1, "paper": "", "criterion": "",
                                "agrees": True}])
    assert cards.startswith(":::{dropdown} The path-integrated eNTK (ePNTK): 1 numbers, 1 of 1 criteria hold")


def test_the_discussion_and_related_papers_are_counted_apart_from_the_papers_results():
    kinds = [page.claim_kind({"section": s}) for s in ("Sec 5.2, 6", "App A.6.1", "Sec 6 (Discussion)",
                                                       "van Rossem & Saxe 2024, Sec 4", "beyond the paper (x)")]
    assert kinds == ["the paper's results", "the paper's results", "the paper's Discussion", "related papers' claims",
                     "beyond the paper"]


def test_the_introduction_quotes_a_post_hoc_verdict_with_the_one_it_is_counted_under():
    lr = entry("perf-lr-single", version(2, "not reproduced"), [version(1, "reproduced")])
    assert page.quoted_verdict(lr) == ("not reproduced (a post-hoc criterion; counted in the tally under version 1, "
                                       "declared before its numbers: reproduced)")
    shape = entry("rival-race-loss-shape", version(1, "reproduced", qualification="sign only"), [], "beyond the paper")
    assert page.quoted_verdict(shape) == "reproduced: sign only (a post-hoc criterion; not counted in the tally)"
    speed = entry("perf-multitask-speed", version(3, "borderline", stability="15/20"), [version(1, "reproduced"),
                                                                                       version(2, "not reproduced")])
    assert page.quoted_verdict(speed) == "borderline (15/20)"


def test_a_version_that_judges_another_quantity_does_not_count():
    """rival-side-kernel-vs-control v1 was declared before its numbers but pooled the linearized network's cells
    with the eNTK's (claim_provenance: not_a_test); v2 tests the eNTK alone but is post hoc: the claim counts under
    no version, and its entry says why."""
    kernel = entry("rival-side-kernel-vs-control", version(2, "inconclusive"), [version(1, "reproduced")],
                   "beyond the paper (the control any kernel prediction must beat)")
    assert kernel["earlier"][0]["status"] == "before the data" and kernel["earlier"][0]["not_a_test"]
    assert (kernel["counted_verdict"], kernel["counted_version"]) == (None, None)
    lines = "\n".join(page.entry_lines(1, kernel))
    assert "*Not counted in the tally: no version declared before its numbers tests this claim: version 1 does not " \
           "test it (its family pooled the cells of the network linearized at t=0" in lines
    assert "version 2 is post hoc.*" in lines
    assert "| post hoc only (not counted) | 0 | 0 | 0 | 1 |" in page.tally_table([kernel])


def test_an_entry_shows_the_verdict_of_its_first_draw_alone_beside_the_verdict_in_force():
    """A verdict on seeded evidence that the chapter's first draw alone (as claims were judged before
    every draw was) would have given differently shows both, saying which counts, for the version in
    force, an earlier version and a replication block; one where they agree shows one."""
    said = ("The verdict that counts is the commonest over 20 resampling draws; the chapter's first draw alone "
            "(seed 0), as this claim was judged before every draw was, gives ")
    moved = entry("horizon-kernel-adds-control",
                  version(1, "borderline", stability="18/20", one_draw="reproduced",
                          qualification="reproduced for 18 of 20 resampling seeds"), [])
    lines = page.entry_lines(3, moved)
    verdict = lines.index(f"   {page.verdict_text('borderline', 'reproduced for 18 of 20 resampling seeds', '18/20')}")
    assert lines[verdict + 2] == f"   *{said}\u2714 reproduced*"
    same = entry("horizon-kernel-adds-control", version(1, "reproduced", stability="20/20"), [])
    assert "first draw alone" not in "\n".join(page.entry_lines(3, same))
    earlier = entry("perf-lr-single", version(2, "reproduced"), [version(1, "borderline", one_draw="not reproduced")])
    assert f"{said}\u2718 not reproduced. *Replaced because:*" in "\n".join(page.entry_lines(3, earlier))
    block = {**version(1, "borderline", stability="16/20", one_draw="reproduced"), "n": 40, "block": "seeds 1000-1049",
             "precision": "", "status": "does not replicate"}
    replicated = {**entry("horizon-pairs-kernel-adds-control", version(1, "reproduced", stability="20/20"), []),
                  "replication": block}
    assert page.replication_text(replicated).endswith(f"(ours: 0.9; n = 40). {said}\u2714 reproduced")
