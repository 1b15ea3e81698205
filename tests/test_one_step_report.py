"""Chapter 01's verdict, texts, table and rows (lib.book.one_step_report) on error studies built by hand."""

import pandas as pd

from lib.analyses.one_step import ErrorScaling
from lib.book import one_step_report as osr


def scaling(slope_train: float, relative_error: float = 3e-4) -> ErrorScaling:
    table = pd.DataFrame({"learning rate": [0.002, 0.001], "max |true - eNTK|, grid": [1.23456e-5, 3.1e-6]})
    return ErrorScaling(table, slope_train, 1.234, relative_error)


def test_a_second_order_error_reproduces_the_claim_with_its_qualification_and_a_first_order_one_does_not():
    assert osr.judge_one_step(2.0).verdict == "reproduced with qualification"
    assert osr.judge_one_step(1.0).verdict == "not reproduced"
    rows = osr.claim_rows(scaling(2.0))
    assert [r.get("claim") for r in rows] == ["one-step", None] and rows[1]["ours"] == "3.0e-04"
    assert osr.claim_rows(scaling(1.0))[0]["verdict"] == "not reproduced"


def test_error_texts_and_view_round_as_the_page_quotes_them():
    assert osr.error_texts(scaling(1.996, 4.56e-3)) == {"one_step_slope": "2.00", "one_step_slope_grid": "1.23",
                                                        "one_step_rel_error": "4.6e-03"}
    view = osr.error_view(scaling(2.0))
    assert view.iloc[0].tolist() == ["2.000e-03", "1.235e-05"]
    assert list(view.columns) == list(scaling(2.0).table.columns)
