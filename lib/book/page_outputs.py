"""What a published page may show of a notebook's run: its results, not the run's progress or noise.

A chapter shows tqdm progress bars on stderr while it runs (in Jupyter and in the runner's log); the
executed notebook that the book renders keeps every other output. :func:`without_progress_bars`
removes the bars (and only them) from an executed notebook, :func:`without_widget_state` the saved
state of live widgets (the page is static); anything else on stderr stays, and the
book build fails on it (``nb_output_stderr: warn`` in ``_config.yml`` with ``jupyter-book -W``), so a
warning is fixed where it arises instead of being published. :func:`page_problems` lists what a
reader must not see in an executed notebook's outputs: stderr, warning text, absolute paths.
"""

from __future__ import annotations

import re

import nbformat

# One state of a tqdm bar: "desc:  40%|####      | 2/5 [00:06<00:08,  2.77s/it, x=1]" or, without a
# total, "desc: 12it [00:01, 9.5it/s]".
PROGRESS_BAR = re.compile(r"^.*(\d+%\|.*\|\s*\d+(\.\d+)?[kMG]?/\d+(\.\d+)?[kMG]?|\d+(\.\d+)?[kMG]?\w*)\s*"
                          r"\[[\d:<?, .]*([\d.?]+\s*\w+/\w+|\?\w+/\w+)?[^\]]*\]\s*$")
# An absolute file path: three or more segments anywhere ("/check/work/main/x.json"), or two under a
# usual root ("/tmp/x"); not a URL ("https://a/b/c"), a ratio ("it/s") or a fraction ("1/2/3").
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~])/(?:(?:home|root|tmp|work|usr|opt|var|Users|srv|mnt)/[\w.\-/]+"
                           r"|[\w.\-]+/[\w.\-]+/[\w.\-/]*)")
HIDDEN_OUTPUTS = {"remove-cell", "remove-output"}  # cell tags whose outputs the book does not render
WARNING_TEXT = re.compile(r"\b\w*Warning\b:|\bwarnings\.warn\b|^WARNING\b", re.MULTILINE)


def progress_line(line: str) -> bool:
    """Whether ``line`` is one state of a tqdm progress bar."""
    return bool(PROGRESS_BAR.match(line.strip()))


def _remaining_text(text: str) -> str:
    """``text`` without its progress-bar states (tqdm separates them with carriage returns)."""
    kept = [part for line in text.split("\n") for part in line.split("\r")
            if part.strip() and not progress_line(part)]
    return "".join(f"{part}\n" for part in kept)


def without_progress_bars(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` with tqdm bars removed from its stderr stream outputs (in place, and returned);
    a stderr output left empty is dropped; every other output is kept as it is."""
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                output["text"] = _remaining_text(output["text"])
                if not output["text"]:
                    continue
            outputs.append(output)
        cell["outputs"] = outputs
    return notebook


def without_widget_state(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` without the saved state of its interactive widgets (in place, and returned): the
    book shows a static page, and with that state myst-nb would load the widget scripts from the
    network, which the book must not need."""
    notebook.metadata.pop("widgets", None)
    return notebook


def _output_text(output: dict) -> str:
    if output.get("output_type") == "stream":
        return output.get("text", "")
    if output.get("output_type") == "error":
        return f"{output.get('ename')}: {output.get('evalue')}"
    data = output.get("data", {})
    return "\n".join(str(data[k]) for k in ("text/plain", "text/html", "text/markdown") if k in data)


def page_problems(notebook: nbformat.NotebookNode) -> list[str]:
    """What a reader must not see in the outputs ``notebook`` publishes (cells tagged
    :data:`HIDDEN_OUTPUTS` are not rendered), one line each, cell index first: stderr output, error
    outputs, warning text, absolute file paths."""
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or HIDDEN_OUTPUTS & set(cell.get("metadata", {}).get("tags", [])):
            continue
        for output in cell.get("outputs", []):
            text = _output_text(output)
            where = f"cell {index}"
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                found.append(f"{where}: stderr output {text.strip()[:120]!r}")
            elif output.get("output_type") == "error":
                found.append(f"{where}: error {text[:120]!r}")
            else:
                found += [f"{where}: warning text {m.group(0)!r}" for m in WARNING_TEXT.finditer(text)]
            found += [f"{where}: absolute path {m.group(0)!r}" for m in ABSOLUTE_PATH.finditer(text)]
    return found
