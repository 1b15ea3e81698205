"""Chapter 01's verdict and rows (lib.book.one_step_report)."""

from lib.book import one_step_report as osr


def test_a_second_order_error_reproduces_the_claim_with_its_qualification_and_a_first_order_one_does_not():
    assert osr.judge_one_step(2.0).verdict == "reproduced with qualification"
    assert osr.judge_one_step(1.0).verdict == "not reproduced"
    rows = osr.claim_rows(2.0, 3e-4)
    assert [r.get("claim") for r in rows] == ["one-step", None] and rows[1]["ours"] == "3.0e-04"
