"""lib.book.tables (tables for reading) and lib.book.names (reader-facing names)."""

import numpy as np
import pandas as pd
import pytest

from lib.analyses.claims import VERDICTS
from lib.analyses.replication import DOES_NOT_REPLICATE
from lib.analyses.expected_signs import OUTCOME_NAMES, PREDICTOR_NAMES
from lib.book import names
from lib.book.tables import NOT_APPLICABLE, long_view, reading_table
from lib.core.entk_variants import ENTK_VARIANTS


def test_every_predictor_outcome_variant_and_verdict_has_a_name():
    for key in (*PREDICTOR_NAMES, *OUTCOME_NAMES, *ENTK_VARIANTS):
        name = names.reader_name(key)
        assert name and "_" not in name, key
    assert set(names.VERDICT_SYMBOLS) == {*VERDICTS, DOES_NOT_REPLICATE}  # the verdicts, and the tally's replication row
    assert names.verdict_badge("not reproduced").endswith(" not reproduced")
    assert len(set(names.PREDICTOR_LABELS.values())) == len(names.PREDICTOR_LABELS)  # no two predictors read the same


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
    html = reading_table(frame, "Two scales", units={"g": "×"}, digits=2).to_html()
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
    html = reading_table(frame, "One row", transpose=True).to_html()
    assert "only row" in html and "row_heading" in html
    assert "row_heading" in reading_table(frame, "One row").to_html()  # labelled rows are shown by default
    assert "row_heading" not in reading_table(frame, "One row", index=False).to_html()
    with pytest.raises(ValueError, match="units"):
        reading_table(frame, "One row", units={"c": "s"})
    with pytest.raises(ValueError, match="digits"):
        reading_table(frame, "One row", digits=0)
    with pytest.raises(ValueError, match="frame"):
        reading_table([[1, 2]], "A list")
    with pytest.raises(ValueError, match="title must be a non-empty string"):
        reading_table(frame, "  ")
    assert "<caption>One row</caption>" in reading_table(frame, " One row ").to_html()


def _wide() -> pd.DataFrame:
    """3 cells x (2 groups + 2 kept columns), rows and groups not in sorted order, one missing cell."""
    return pd.DataFrame({"g = 10": ["+0.10 [0.0, 0.2]", None, "+0.30 [0.2, 0.4]"],
                         "g = 1": ["-0.10 [-0.2, 0.0]", "+0.50 [0.4, 0.6]", "–"],
                         "pooled r": ["+0.01", "+0.50", "+0.30"], "Cochran's Q p": ["0.5", "0.01", "–"]},
                        index=pd.Index(["z cell", "a cell", "m cell"], name="cell"))


def test_long_view_moves_each_cell_into_its_own_row_and_repeats_the_kept_columns():
    wide = _wide()
    long = long_view(wide, ["cell", "group"], columns=["g = 10", "g = 1"], value_name="r [95% interval]")
    expected = [(cell, group, wide.loc[cell, group], wide.loc[cell, "pooled r"], wide.loc[cell, "Cochran's Q p"])
                for cell in wide.index for group in ("g = 10", "g = 1")]  # row by row, in the frame's order
    assert list(long.index.names) == ["cell", "group"]
    assert list(long.columns) == ["r [95% interval]", "pooled r", "Cochran's Q p"]
    assert [(*i, *(None if pd.isna(v) else v for v in row)) for i, row in zip(long.index, long.values.tolist())] == [
        tuple(None if pd.isna(v) else v for v in e) for e in expected]  # the missing cell stays, as missing
    swapped = long_view(wide, ["cell", "group"], columns=["g = 1", "g = 10"], value_name="r")
    assert [i[1] for i in swapped.index[:2]] == ["g = 1", "g = 10"]  # the order of columns, not sorted
    alone = long_view(wide[["g = 10", "g = 1"]], ["cell", "group"], value_name="r")  # default: every column
    assert list(alone.columns) == ["r"] and len(alone) == 6


def test_long_view_is_the_notebooks_former_reshaping():
    """Chapters 12 and 13 built these views with pandas directly; the function gives the same frames and
    the same page (reading_table's HTML)."""
    wide = _wide()
    groups = ["g = 10", "g = 1"]
    former = wide[groups].stack().rename("r [95% interval]").to_frame()
    former.index.names = ["cell", "group"]
    former = former.join(wide[["pooled r", "Cochran's Q p"]], on="cell")
    ours = long_view(wide, ["cell", "group"], columns=groups, value_name="r [95% interval]")
    pd.testing.assert_frame_equal(ours, former)
    assert reading_table(ours, "t").set_uuid("t").to_html() == reading_table(former, "t").set_uuid("t").to_html()

    two_level = pd.DataFrame([["+0.1", "+0.2", "-0.3", "–"], ["+0.5", "+0.6", "+0.7", "+0.8"]],
                             index=pd.Index(["sharing index", "loss"], name="predictor"),
                             columns=pd.MultiIndex.from_tuples([("speed", "t = 0"), ("speed", "10%"),
                                                                ("final loss", "t = 0"), ("final loss", "10%")]))
    former = two_level.stack(level=0, future_stack=True).rename_axis(["predictor", "outcome"])
    ours = long_view(two_level, ["predictor", "outcome"])
    pd.testing.assert_frame_equal(ours, former)
    assert reading_table(ours, "t").set_uuid("t").to_html() == reading_table(former, "t").set_uuid("t").to_html()
    assert list(ours.columns) == ["t = 0", "10%"]  # the inner labels in their order, not sorted
    assert [tuple(i) for i in ours.index] == [("sharing index", "speed"), ("sharing index", "final loss"),
                                              ("loss", "speed"), ("loss", "final loss")]
    assert ours.loc[("sharing index", "final loss")].tolist() == ["-0.3", "–"]


@pytest.mark.parametrize("kwargs, message", [
    (dict(frame=[[1, 2]]), r"frame must be a pandas DataFrame, got list"),
    (dict(index_names=["cell"]), r"index_names must be two distinct strings"),
    (dict(index_names="cg"), r"index_names must be two distinct strings"),
    (dict(index_names=["cell", "cell"]), r"index_names must be two distinct strings"),
    (dict(columns=["g = 2"]), r"columns must be a non-empty list of distinct columns of frame \(allowed: \['g = 10'"),
    (dict(columns=[]), r"columns must be a non-empty list"),
    (dict(columns=["g = 1", "g = 1"]), r"columns must be a non-empty list of distinct columns"),
    (dict(columns="g = 1"), r"columns must be a non-empty list"),
    (dict(value_name=None), r"value_name must be a string"),
    (dict(value_name="pooled r"), r"value_name must be a string .* other than the kept columns \['pooled r'"),
])
def test_long_view_refuses_bad_input_naming_the_parameter(kwargs, message):
    arguments = dict(frame=_wide(), index_names=["cell", "group"], columns=["g = 10", "g = 1"], value_name="r") | kwargs
    with pytest.raises(ValueError, match=message):
        long_view(**arguments)


def test_long_view_refuses_frames_it_cannot_reshape():
    with pytest.raises(ValueError, match=r"frame must have a unique one-level row index, got 1 levels, repeated"):
        long_view(pd.DataFrame({"a": [1, 2]}, index=["x", "x"]), ["row", "column"], value_name="v")
    two_level = pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("o", "a"), ("o", "b")]))
    with pytest.raises(ValueError, match=r"columns and value_name must be None for a frame with two levels"):
        long_view(two_level, ["row", "outer"], value_name="v")
    three_level = pd.DataFrame([[1]], columns=pd.MultiIndex.from_tuples([("o", "a", "x")]))
    with pytest.raises(ValueError, match=r"frame must have one or two levels of columns, got 3"):
        long_view(three_level, ["row", "outer"])


def test_a_two_level_row_index_is_shown_as_two_header_columns_not_tuple_text():
    frame = pd.DataFrame({"r": [0.1, 0.2, 0.3]},
                         index=pd.MultiIndex.from_tuples([("sharing", "g = 1"), ("sharing", "g = 10"),
                                                          ("loss_test", "g = 1")], names=["predictor", "scale"]))
    html = reading_table(frame, "A table").to_html()
    assert "('" not in html and "g = 10" in html and ">predictor<" in html and ">scale<" in html
    assert names.reader_name("loss_test") in html  # identifiers in every level shown as words


def test_no_reader_name_is_defined_twice():
    """Every key of the tables that names.NAMES merges is in one of them only: a second entry would be
    overridden by the merge, a label nobody can reach."""
    tables = [names.HORIZON_PREDICTOR_LABELS, names.PREDICTOR_LABELS, names.OUTCOME_LABELS, names.VARIANTS,
              names.COMPARISON, names.COLUMNS]
    assert sum(len(t) for t in tables) == len(names.NAMES)
