"""The chapters' notebooks: which there are (:data:`NOTEBOOKS`, the chapters of :mod:`lib.book.chapters` in the order the runner starts them),
where each one's source is, and what that source holds.

Book layer, below :mod:`lib.book.runner` and :mod:`lib.book.run_parameters`. A chapter's source is
``notebooks/<name>.py`` (percent format); its paired ``notebooks/<name>.ipynb`` must hold the same
cells (:func:`check_paired`, one line naming both files otherwise), so that the runner, sweeps,
papermill and JupyterLab never run two versions of one chapter. From the source come the defaults of
its ``parameters`` cell (:func:`notebook_parameters`), the names its parameter table documents
(:func:`documented_parameters`), its range checks (the first code cell after that one,
:func:`check_cell_source`) and whether it reads or writes summary records
(:func:`reads_summaries`, :func:`writes_summary`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ..core.results import REPO_ROOT
from .chapters import chapter_names

NOTEBOOK_DIR = REPO_ROOT / "notebooks"
NOTEBOOKS = chapter_names()  # in the runner's start order (lib.book.chapters)


class ParameterError(ValueError):
    """A runner parameter (name, value or grid) that cannot be run; raised before any kernel starts."""


def notebook_source(name: str) -> Path:
    """``notebooks/<name>.py``; a name not in :data:`NOTEBOOKS` is a :class:`ParameterError`."""
    if name not in NOTEBOOKS:
        raise ParameterError(f"notebook must be one of {list(NOTEBOOKS)}, got {name!r}")
    return NOTEBOOK_DIR / f"{name}.py"


class PairMismatch(ValueError):
    """A notebook's ``.py`` source and its paired ``.ipynb`` hold different cells."""


def _cells(path: Path) -> list[tuple]:
    import jupytext

    return [(c.cell_type, c.source, dict(c.metadata)) for c in jupytext.read(path).cells]


def check_paired(source: Path) -> None:
    """Refuse (:class:`PairMismatch`, one line naming both files) a percent-format ``source`` whose paired
    ``.ipynb`` differs in any cell's type, source or metadata (metadata compared as mappings, so key
    order does not count); an ``.ipynb`` that does not exist is no mismatch."""
    source = Path(source)
    paired = source.with_suffix(".ipynb")
    if not paired.exists():
        return
    ours, theirs = _cells(source), _cells(paired)
    if ours != theirs:
        where = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        raise PairMismatch(f"{source} and {paired} differ (cell {where}; {len(ours)} and {len(theirs)} cells): the "
                           f".py is the source; make it hold what you want, then run .venv/bin/jupytext --to ipynb "
                           f"{source}")


def notebook_parameters(name: str) -> dict[str, object]:
    """The defaults of ``notebooks/<name>.py``'s ``parameters`` cell (every ``name = literal``)."""
    import jupytext

    cells = [c for c in jupytext.read(notebook_source(name)).cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise ParameterError(f"notebooks/{name}.py must have exactly one cell tagged 'parameters', found {len(cells)}")
    defaults = {}
    for statement in ast.parse(cells[0].source).body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            raise ParameterError(f"the parameters cell of notebooks/{name}.py may only hold 'name = literal' lines")
        defaults[statement.targets[0].id] = ast.literal_eval(statement.value)
    return defaults


PARAMETER_TABLE = "Parameters of this chapter"  # the title of the dropdown that documents the parameters


def documented_parameters(name: str) -> list[str]:
    """The parameter names, in order, that ``notebooks/<name>.py``'s ``Parameters of this chapter``
    dropdown documents: every ```name``` in the first column of its table (a row may document
    several); ParameterError when the notebook has no such dropdown."""
    lines = notebook_source(name).read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("# :::{dropdown}") and PARAMETER_TABLE in line),
                 None)
    if start is None:
        raise ParameterError(f"notebooks/{name}.py has no ':::{{dropdown}} {PARAMETER_TABLE}' documenting its "
                             "parameters")
    names = []
    for line in lines[start + 1:]:
        if line.strip() == "# :::":
            break
        cells = line.removeprefix("#").strip().strip("|").split("|")
        if line.startswith("# |") and len(cells) > 1:
            names += re.findall(r"`([A-Za-z_]\w*)`", cells[0])
    return names


def check_cell_source(name: str) -> str:
    """The source of ``notebooks/<name>.py``'s first code cell after its ``parameters`` cell: the
    notebook's range checks, which must do no work besides checking."""
    import jupytext

    cells = [c for c in jupytext.read(notebook_source(name)).cells if c.cell_type == "code"]
    index = next(i for i, c in enumerate(cells) if "parameters" in c.metadata.get("tags", []))
    return cells[index + 1].source if index + 1 < len(cells) else ""


def chapter_title(name: str) -> str:
    """The title of chapter ``name``: the first level-1 Markdown heading of its source."""
    for line in notebook_source(name).read_text().splitlines():
        if line.startswith("# # "):
            return line[4:].strip()
    raise ParameterError(f"notebooks/{name}.py has no level-1 heading ('# # Title' in a Markdown cell)")


def reads_summaries(name: str) -> bool:
    return "summary.load(" in notebook_source(name).read_text()


def writes_summary(name: str) -> bool:
    return "summary.record(" in notebook_source(name).read_text()
