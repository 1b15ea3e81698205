"""Chapter 06's page texts and rows (lib.book.correlation_report) on tables built by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.analyses.controls import LOADING_PREDICTOR_NAMES
from lib.book import correlation_report as cr

CELLS = [(q, ph, sc) for q in ("raw", "relative") for ph in ("single", "finetune") for sc in ("ET", "LR", "combined")]


def table(r, r_label=0.0, paper_r=-0.5, half_width=0.2, p=0.01) -> pd.DataFrame:
    """A correlation table: every cell with the same numbers but ``r`` (a list per cell or one value)."""
    r = np.broadcast_to(np.asarray(r, float), (len(CELLS),))
    return pd.DataFrame({"quantity": [c[0] for c in CELLS], "phase": [c[1] for c in CELLS],
                         "schedule": [c[2] for c in CELLS], "r": r, "r_label": r_label, "paper_r": paper_r,
                         "ci_low": r - half_width, "ci_high": r + half_width, "p_within_permutation": p})


def test_headline_texts_count_signs_coverage_and_significance():
    t = table([-0.4] * 6 + [0.3] * 6, r_label=[0.0] * 6 + [0.1] * 6, p=[0.01] * 10 + [0.2] * 2)
    texts = cr.headline_texts(t)
    assert texts["corr_same_sign"] == "6 of 12" and texts["corr_in_ci"] == "6 of 12"
    assert texts["corr_significant"] == "10 of 12" and texts["corr_label_gap"] == "0.200"
    assert (texts["corr_et_single"], texts["corr_et_single_label"]) == ("+0.300", "+0.100")
    assert np.isclose(cr.label_gap(t), 0.2)


def test_rival_view_orders_predictors_puts_the_paper_first_and_the_control_gap_is_the_largest_difference():
    rows = []
    for predictor, shift in (("entk_authors", 0.0), ("output_error", 0.05), ("init label", 0.3)):
        for i, (q, ph, sc) in enumerate(CELLS):
            rows.append({"predictor": predictor, "quantity": q, "phase": ph, "schedule": sc,
                         "r": -0.5 + shift + 0.01 * i, "p_within_permutation": 0.01})
    view, by_predictor = cr.rival_view(pd.DataFrame(rows), ("entk_authors", "output_error"), table(-0.5)["paper_r"])
    assert list(view.index) == ["paper", LOADING_PREDICTOR_NAMES["entk_authors"], LOADING_PREDICTOR_NAMES["output_error"],
                                "init label"]
    assert view.iloc[0, 0] == "-0.500" and view.shape == (4, len(CELLS))
    assert np.isclose(cr.output_error_gap(by_predictor, "authors"), 0.05)
    # relative single ET is cell 6 of CELLS, relative finetune ET cell 9: r = -0.5 + 0.05 + 0.01 i
    assert cr.output_error_rs(by_predictor, "ET") == pytest.approx({"single": -0.39, "finetune": -0.36})


def test_choice_texts_and_rows_name_only_the_choices_computed():
    tables = {"this page (iid, both_layers)": table(-0.4), "split=disjoint": table(-0.2)}
    texts = cr.choice_texts(tables)
    assert texts["choice_this_et"] == "-0.400 / -0.400" and texts["choice_split_et"] == "-0.200 / -0.200"
    assert texts["choice_large_scaling_et"].startswith("not computed")
    rows = cr.choice_rows(tables)
    assert len(rows) == 1 and "split=disjoint" in rows[0]["quantity"] and rows[0]["ours"] == "-0.200 / -0.200"
    assert list(cr.choice_view(tables).columns[-2:]) == list(tables)
