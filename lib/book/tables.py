"""Tables for reading: :func:`reading_table` turns a DataFrame into what a page shows.

Cells that do not apply (NaN, None) are shown as an en dash, identifiers as words
(:mod:`lib.book.names`), units in the column names, floats to a few significant digits; the
table carries the class ``reading`` so that the book's stylesheet (``book/_static/book.css``)
wraps its headers and text cells, while a cell holding a number or an interval of numbers
(such as ``"0.12 [0.03, 0.21]"``) never wraps. :func:`long_view` turns a table too wide for the
page into a long one (column labels moved into the rows).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from .names import rename

NOT_APPLICABLE = "–"  # en dash: a cell that does not apply
# a number or an interval/ratio of numbers (the browser check's definition of a numeric cell)
_NUMERIC = re.compile(r"^[-+\u2212\u2013]?[\d.,]+(e[-+]?\d+)?%?(\s*(\u00b1|\+-|[\[(,;\])/]|\u2013|to|x|\u00d7)\s*"
                      r"[-+\u2212\u2013]?[\d.,]*(e[-+]?\d+)?%?)*$", re.IGNORECASE)
LONG_TEXT = 60  # characters: a text cell at least this long gets room to wrap in a wider column


def _format(value, digits: int) -> str:
    """One cell as text: NaN/None as the en dash, floats to ``digits`` significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_APPLICABLE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if math.isfinite(value) else ("∞" if value > 0 else "−∞")
    try:
        if pd.isna(value):
            return NOT_APPLICABLE
    except (TypeError, ValueError):
        pass
    return str(value)


def iteration_text(iteration: float) -> str:
    """An iteration as a page quotes it, "never" where it is NaN (a curve that never got there)."""
    return "never" if math.isnan(iteration) else f"{iteration:.0f}"


def _cell_class(text: str) -> str:
    if text == NOT_APPLICABLE or _NUMERIC.match(text.strip()):
        return "num"
    return "text long" if len(text) >= LONG_TEXT else "text"


def visible(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without its hidden columns (those whose label starts with "_": the numbers a
    chapter's texts read)."""
    return frame[[c for c in frame if not c.startswith("_")]]


def reading_table(frame: pd.DataFrame, title: str, units: Mapping[str, str] | None = None, digits: int = 3,
                  index: bool | None = None, transpose: bool = False):
    """A pandas ``Styler`` of ``frame`` (rows x columns, any dtypes) for a book page, under its title.

    Args:
        frame: the table; column (and, with ``index``, row) labels that are identifiers known to
            :mod:`lib.book.names` are shown as words.
        title: what the table shows, in words (its caption, shown above it; the browser test fails
            on a table without one).
        units: column label (before renaming) -> unit, shown as "name (unit)".
        digits: significant digits of float cells (integers and strings are shown as they are).
        index: show the row labels (as the first column); by default, unless they are the plain
            row numbers 0, 1, 2, ... of a RangeIndex.
        transpose: show rows as columns (for a table of few rows and many columns).

    NaN/None cells are shown as an en dash ("not applicable"). Raises ``ValueError`` for a
    ``units`` key that is not a column, or ``digits`` outside 1-12.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"title must be a non-empty string saying what the table shows, got {title!r}")
    if not isinstance(digits, int) or not 1 <= digits <= 12:
        raise ValueError(f"digits must be an integer in [1, 12], got {digits!r}")
    units = dict(units or {})
    unknown = [k for k in units if k not in frame.columns]
    if unknown:
        raise ValueError(f"units names columns {unknown} that are not in the table; allowed: {list(frame.columns)}")
    if index is None:
        index = not isinstance(frame.index, pd.RangeIndex)
    shown = frame.copy()
    shown.columns = [f"{name} ({units[key]})" if key in units else name
                     for key, name in zip(frame.columns, rename(frame.columns))]
    shown.index = _labels(shown.index, lambda v: v)
    if transpose:
        shown, index = shown.T, True
    text = shown.map(lambda v: _format(v, digits)) if hasattr(shown, "map") else shown.applymap(
        lambda v: _format(v, digits))
    text.index = _labels(text.index, lambda v: _format(v, digits))
    text.columns = _labels(text.columns, lambda v: _format(v, digits))
    classes = text.map(_cell_class) if hasattr(text, "map") else text.applymap(_cell_class)
    styler = text.style.set_td_classes(classes).set_table_attributes('class="reading"').set_caption(title.strip())
    return styler if index else styler.hide(axis="index")


def _labels(labels: pd.Index, as_shown) -> pd.Index:
    """Row or column labels with known identifiers as words (:func:`lib.book.names.rename`) and each
    label passed through ``as_shown``; each level of a MultiIndex on its own (so that a page shows
    one header column per level, headed by the level's name, not the tuple's text)."""
    if isinstance(labels, pd.MultiIndex):
        return pd.MultiIndex.from_tuples([tuple(as_shown(v) for v in rename(label)) for label in labels],
                                         names=labels.names)
    return pd.Index([as_shown(v) for v in rename(labels)])


def long_view(frame: pd.DataFrame, index_names: Sequence[str], columns: Sequence | None = None,
              value_name: str | None = None) -> pd.DataFrame:
    """``frame`` with column labels moved into the rows, for a page too narrow for its columns.

    Two shapes of ``frame`` (R rows under a unique one-level row index):

    * one level of columns (C of them): the cells of ``columns`` (K of the C, default all) become
      one row per (row label, column label), row by row and in the order of ``columns``: R K rows
      under a two-level index named ``index_names``, the cells in one column ``value_name``,
      followed by the other C - K columns of ``frame`` (in its order), their values repeated on the
      K rows of their row;
    * two levels of columns (outer, inner): each row becomes one row per outer label (in the order
      of the columns), the inner labels its columns: R O rows under ``index_names`` (row label,
      outer label), I columns; ``columns`` and ``value_name`` must be None.

    Cells are moved, never computed; missing ones (NaN, None) stay (:func:`reading_table` shows
    them as a dash). Raises ``ValueError`` naming the parameter for a ``frame`` that is not such a
    DataFrame, ``index_names`` that are not two distinct strings, ``columns`` that are not distinct
    columns of ``frame``, or a ``value_name`` missing, not a string, or already a column's name.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if frame.index.nlevels != 1 or not frame.index.is_unique:
        repeated = list(frame.index[frame.index.duplicated()])
        raise ValueError(f"frame must have a unique one-level row index, got {frame.index.nlevels} levels"
                         + (f", repeated labels {repeated}" if repeated else ""))
    if (isinstance(index_names, str) or not isinstance(index_names, Sequence) or len(index_names) != 2
            or not all(isinstance(n, str) for n in index_names) or index_names[0] == index_names[1]):
        raise ValueError(f"index_names must be two distinct strings (row label, column label), got {index_names!r}")
    if frame.columns.nlevels == 2:
        if columns is not None or value_name is not None:
            raise ValueError(f"columns and value_name must be None for a frame with two levels of columns (the outer "
                             f"level moves into the rows), got columns={columns!r}, value_name={value_name!r}")
        return frame.stack(level=0, future_stack=True).rename_axis(list(index_names))
    if frame.columns.nlevels != 1:
        raise ValueError(f"frame must have one or two levels of columns, got {frame.columns.nlevels}")
    columns = list(frame.columns) if columns is None else columns
    if (isinstance(columns, str) or not isinstance(columns, Sequence) or not columns
            or len(set(columns)) != len(columns) or not all(c in frame.columns for c in columns)):
        raise ValueError(f"columns must be a non-empty list of distinct columns of frame (allowed: "
                         f"{list(frame.columns)}), got {columns!r}")
    others = [c for c in frame.columns if c not in columns]
    if not isinstance(value_name, str) or value_name in others:
        raise ValueError(f"value_name must be a string naming the column of the moved cells, other than the kept "
                         f"columns {others}, got {value_name!r}")
    long = frame[list(columns)].stack(future_stack=True).rename(value_name).to_frame()
    long = long.rename_axis(list(index_names))
    return long.join(frame[others], on=index_names[0]) if others else long
