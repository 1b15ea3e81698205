"""lib.book.tables (tables for reading) and lib.book.names (reader-facing names)."""

import numpy as np
import pandas as pd
import pytest

from lib.analyses.claims import VERDICTS
from lib.analyses.expected_signs import OUTCOME_NAMES, PREDICTOR_NAMES
from lib.book import names
from lib.book.tables import NOT_APPLICABLE, reading_table
from lib.core.entk_variants import ENTK_VARIANTS


def test_every_predictor_outcome_variant_and_verdict_has_a_name():
    for key in (*PREDICTOR_NAMES, *OUTCOME_NAMES, *ENTK_VARIANTS):
        name = names.reader_name(key)
        assert name and "_" not in name, key
    assert set(names.VERDICT_SYMBOLS) == set(VERDICTS)
    assert names.verdict_badge("not reproduced").endswith(" not reproduced")
    assert len(set(names.PREDICTORS.values())) == len(names.PREDICTORS)  # no two predictors read the same


def test_unknown_names_are_refused_and_words_kept():
    with pytest.raises(ValueError, match="key="):
        names.reader_name("no_such_predictor")
    with pytest.raises(ValueError, match="verdict="):
        names.verdict_badge("fine")
    assert names.rename(["kta_ntk_multi", "already words", 3]) == ["NTK-target alignment, multi", "already words", 3]


def test_reading_table_shows_dashes_names_units_and_marks_cells():
    frame = pd.DataFrame({"g": [0.1, 1.0], "kta_ntk_multi": [np.nan, 0.123456],
                          "note": ["a text long enough to wrap over several lines of a column " * 2, "x"],
                          "interval": ["0.12 [0.03, 0.21]", None], "single/standard_wins": [3, 4]})
    html = reading_table(frame, units={"g": "×"}, digits=2).to_html()
    assert 'class="reading"' in html
    assert "NaN" not in html and "None" not in html and html.count(NOT_APPLICABLE) == 2
    for label in ("init scale g (×)", "NTK-target alignment, multi", "single task: standard lower"):
        assert label in html
    assert "kta_ntk_multi" not in html and "0.12<" in html  # two significant digits
    assert 'col3 num" >0.12 [0.03, 0.21]' in html  # an interval is a number: never wraps
    assert 'col2 text long"' in html and 'row1 col2 text"' in html  # text wraps
    assert 'row0_col0"' in html and "level0 row0" not in html  # index hidden


def test_reading_table_transposes_and_refuses_bad_input():
    frame = pd.DataFrame({"a": [1.5], "b": [2.5]}, index=["only row"])
    html = reading_table(frame, transpose=True).to_html()
    assert "only row" in html and "row_heading" in html
    assert "row_heading" in reading_table(frame).to_html()  # labelled rows are shown by default
    assert "row_heading" not in reading_table(frame, index=False).to_html()
    with pytest.raises(ValueError, match="units"):
        reading_table(frame, units={"c": "s"})
    with pytest.raises(ValueError, match="digits"):
        reading_table(frame, digits=0)
    with pytest.raises(ValueError, match="frame"):
        reading_table([[1, 2]])
