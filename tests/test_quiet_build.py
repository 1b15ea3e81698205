"""A quiet build: library start-up noise silenced at its source, real errors still shown, and
published pages without progress bars, stderr, warnings or absolute paths."""

import os
import sys

import nbformat
import pytest

from lib.book.page_outputs import page_problems, progress_line, without_progress_bars
from lib.core.kernels import _without_tensorflow_info_lines


def test_tensorflow_info_lines_are_dropped_and_every_other_stderr_line_kept(capfd):
    with _without_tensorflow_info_lines():
        os.write(2, b"WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n")
        os.write(2, b"I0000 00:00:1795490243.381530   21160 port.cc:153] oneDNN custom operations are on.\n")
        os.write(2, b"W0000 00:00:1795490243.381530   21160 x.cc:1] a real warning\n")
        os.write(2, b"Traceback (most recent call last): an error\n")
    err = capfd.readouterr().err
    assert "oneDNN" not in err and "InitializeLog" not in err
    assert "a real warning" in err and "Traceback" in err


@pytest.mark.parametrize("line, is_bar", [
    ("SMG seeds:  15%|█▌        | 3/20 [00:00<00:00, 24.31it/s]", True),
    ("sweep f:  40%|████      | 2/5 [00:06<00:08,  2.77s/point, failed=0]", True),
    ("Executing:   0%|          | 0/9 [00:00<?, ?cell/s]", True),
    ("training: 1000it [00:01, 900.1it/s]", True),
    ("/x/phate.py:919: RuntimeWarning: Graph is disconnected with 14 connected components", False),
    ("ValueError: 40% of [the] rows | are missing", False),
])
def test_progress_lines_are_told_from_other_text(line, is_bar):
    assert progress_line(line) is is_bar


def _notebook(*outputs, tags=()):
    cell = nbformat.v4.new_code_cell("x", outputs=list(outputs))
    cell.metadata["tags"] = list(tags)
    return nbformat.v4.new_notebook(cells=[cell])


def _stderr(text):
    return nbformat.v4.new_output("stream", name="stderr", text=text)


def test_progress_bars_are_removed_and_a_warning_among_them_kept():
    bar = "fit:  50%|█████     | 1/2 [00:01<00:01, 1.0it/s]\rfit: 100%|██████████| 2/2 [00:02<00:00, 1.0it/s]\n"
    only_bars = _notebook(_stderr(bar))
    assert without_progress_bars(only_bars).cells[0].outputs == []
    mixed = without_progress_bars(_notebook(_stderr(bar + "UserWarning: something is off\n")))
    assert mixed.cells[0].outputs[0]["text"] == "UserWarning: something is off\n"
    assert page_problems(mixed) == ["cell 0: stderr output 'UserWarning: something is off'"]


def test_page_problems_names_warnings_paths_and_errors_but_not_hidden_cells():
    printed = nbformat.v4.new_output("stream", name="stdout", text=f"saved to {sys.prefix}/lib/x.json\n")
    warned = nbformat.v4.new_output("display_data", data={"text/plain": "RuntimeWarning: All-NaN slice"})
    problems = page_problems(_notebook(printed, warned))
    assert any("absolute path" in p and "/lib/x.json" in p for p in problems)
    # a checkout under any root (CI builds in /check/...) and the usual roots; not URLs, ratios or fractions
    for path in ("/check/work/main/results/x.npz", "/tmp/x.json", "/srv/book"):
        found = page_problems(_notebook(nbformat.v4.new_output("stream", name="stdout", text=f"at {path}\n")))
        assert found == [f"cell 0: absolute path {path!r}"], (path, found)
    for text in ("see https://github.com/a/b/c", "3.1 it/s", "1/2/3 of the runs", "docs/a/b"):
        assert page_problems(_notebook(nbformat.v4.new_output("stream", name="stdout", text=text))) == [], text
    assert any("warning text 'RuntimeWarning:'" in p for p in problems)
    assert page_problems(_notebook(printed, warned, tags=["remove-output"])) == []
    assert page_problems(_notebook(nbformat.v4.new_output("stream", name="stdout", text="r = 0.31 (n = 50)\n"))) == []


def test_saved_widget_state_is_dropped_and_outputs_kept():
    from lib.book.page_outputs import without_widget_state

    notebook = _notebook(nbformat.v4.new_output("stream", name="stdout", text="r = 0.31\n"))
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    cleaned = without_widget_state(notebook)
    assert "widgets" not in cleaned.metadata and cleaned.cells[0].outputs[0]["text"] == "r = 0.31\n"
