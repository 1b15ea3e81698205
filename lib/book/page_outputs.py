"""What a published page may show of a notebook's run: its results, not the run's progress or noise.

A chapter shows tqdm progress bars on stderr while it runs (in Jupyter and in the runner's log), and
the tools it calls say how the run goes: the sweep engine how many points were already cached or
which worker is slow, the results cache that it waits for an entry another process is computing
(:data:`lib.core.cache_entry.LOCK_WAIT_NOTICE`). These *run notices* are lines starting with
``[sweep]`` or ``[results]`` (:data:`RUN_NOTICE`), on stdout or stderr. The executed notebook that
the book renders keeps every other output. :func:`without_progress_bars` removes the bars,
:func:`without_run_notices` the notices (and only them; :func:`run_notices` lists them for the
runner's log) from an executed notebook, :func:`without_widget_state` the saved state of live
widgets (the page is static); anything else on stderr stays, and the book build fails on it
(``nb_output_stderr: warn`` in ``_config.yml`` with ``jupyter-book -W``), so a warning is fixed where
it arises instead of being published. :func:`page_problems` lists what a reader must not see in an
executed notebook's outputs: stderr, run notices, warning text, absolute paths.

Sphinx re-reads a page only when its file is newer than at the last build, so a page replaced by
an older file (``cp -p``, rsync, a restore) would keep its old rendering. :func:`mark_if_changed`
decides by content instead: the runner calls it for every executed notebook it leaves in place,
and it gives a page whose SHA-256 differs from the one recorded beside it (``.<name>.ipynb.sha256``)
the modification time of now. For the same reason a chapter's summary record, which the verdicts
page publishes, must be the one its run wrote: :func:`record_digest` seals a record's content and
:func:`verified` checks a record against its seal and against the executed chapter beside it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for annotations: importing nbformat costs a kernel seconds (jsonschema's formats)
    import nbformat

from ..core.cache_entry import LOCK_WAIT_NOTICE

# One state of a tqdm bar: "desc:  40%|####      | 2/5 [00:06<00:08,  2.77s/it, x=1]" or, without a
# total, "desc: 12it [00:01, 9.5it/s]".
PROGRESS_BAR = re.compile(r"^.*(\d+%\|.*\|\s*\d+(\.\d+)?[kMG]?/\d+(\.\d+)?[kMG]?|\d+(\.\d+)?[kMG]?\w*)\s*"
                          r"\[[\d:<?, .]*([\d.?]+\s*\w+/\w+|\?\w+/\w+)?[^\]]*\]\s*$")
# An absolute file path: three or more segments anywhere ("/check/work/main/x.json"), or two under a
# usual root ("/tmp/x"); not a URL ("https://a/b/c"), a ratio ("it/s") or a fraction ("1/2/3").
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~])/(?:(?:home|root|tmp|work|usr|opt|var|Users|srv|mnt)/[\w.\-/]+"
                           r"|[\w.\-]+/[\w.\-]+/[\w.\-/]*)")
RUN_NOTICE = re.compile(r"^\[(sweep|results)\] ")  # how a run went, said by lib.experiments.sweep and lib.core.results
HIDDEN_OUTPUTS = {"remove-cell", "remove-output"}  # cell tags whose outputs the book does not render
WARNING_TEXT = re.compile(r"\b\w*Warning\b:|\bwarnings\.warn\b|^WARNING\b", re.MULTILINE)


def progress_line(line: str) -> bool:
    """Whether ``line`` is one state of a tqdm progress bar."""
    return bool(PROGRESS_BAR.match(line.strip()))


def lock_wait_line(line: str) -> bool:
    """Whether ``line`` is the notice of a wait for a results-cache entry's lock."""
    return line.strip().startswith(LOCK_WAIT_NOTICE)


def run_notice(line: str) -> bool:
    """Whether ``line`` is a run notice of the sweep engine or the results cache (:data:`RUN_NOTICE`)."""
    return bool(RUN_NOTICE.match(line.strip()))


def _stderr_lines(text: str) -> list[str]:
    """The non-blank lines of a stream (tqdm separates a bar's states with carriage returns)."""
    return [part for line in text.split("\n") for part in line.split("\r") if part.strip()]


def _without_lines(notebook: nbformat.NotebookNode, drop: Callable[[str], bool],
                   streams: tuple[str, ...] = ("stderr",)) -> nbformat.NotebookNode:
    """``notebook`` with the lines of its ``streams`` outputs for which ``drop`` is true removed (in
    place, and returned); a stream output left empty is dropped; every other output is kept as it is."""
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") in streams:
                output["text"] = "".join(f"{part}\n" for part in _stderr_lines(output["text"]) if not drop(part))
                if not output["text"]:
                    continue
            outputs.append(output)
        cell["outputs"] = outputs
    return notebook


def without_progress_bars(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` with tqdm bars removed from its stderr stream outputs (in place, and returned)."""
    return _without_lines(notebook, progress_line)


def run_notices(notebook: nbformat.NotebookNode) -> list[str]:
    """The run notices (:func:`run_notice`) in ``notebook``'s stream outputs, in cell order."""
    return [line.strip() for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", [])
            if output.get("output_type") == "stream" for line in _stderr_lines(output["text"]) if run_notice(line)]


def without_run_notices(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``notebook`` with the run notices removed from its stream outputs (in place, and returned): a
    notice says how the run went (what was cached, whom it waited for), not a result, and the page is
    the same whichever way the run went."""
    return _without_lines(notebook, run_notice, ("stdout", "stderr"))


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
    :data:`HIDDEN_OUTPUTS` are not rendered), one line each, cell index first: stderr output, run
    notices on stdout, error outputs, warning text, absolute file paths."""
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or HIDDEN_OUTPUTS & set(cell.get("metadata", {}).get("tags", [])):
            continue
        for output in cell.get("outputs", []):
            text = _output_text(output)
            where = f"cell {index}"
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                found.append(f"{where}: stderr output {text.strip()[:120]!r}")
            elif output.get("output_type") == "stream":
                found += [f"{where}: run notice {line.strip()[:120]!r}" for line in _stderr_lines(text)
                          if run_notice(line)]
            elif output.get("output_type") == "error":
                found.append(f"{where}: error {text[:120]!r}")
            else:
                found += [f"{where}: warning text {m.group(0)!r}" for m in WARNING_TEXT.finditer(text)]
            found += [f"{where}: absolute path {m.group(0)!r}" for m in ABSOLUTE_PATH.finditer(text)]
    return found


def _digest_path(page: Path) -> Path:
    return page.with_name(f".{page.name}.sha256")


def mark_if_changed(page: Path) -> bool:
    """Give ``page`` (an executed notebook the book renders) the modification time of now if its
    content differs from the content recorded at the last call (or none was recorded), and record its
    SHA-256 (hex) beside it; returns whether it was marked. Sphinx re-reads a page only when its
    modification time is later than at the last build, so this makes it re-read every page whose
    content changed, whatever the file's own time."""
    page = Path(page)
    digest = hashlib.sha256(page.read_bytes()).hexdigest()
    stamp = _digest_path(page)
    if stamp.exists() and stamp.read_text().strip() == digest:
        return False
    os.utime(page)  # now
    scratch = stamp.with_name(f"{stamp.name}.{os.getpid()}")
    scratch.write_text(digest + "\n")
    os.replace(scratch, stamp)
    return True


class RecordMismatch(ValueError):
    """A summary record whose content is not what its chapter's run wrote (edited, damaged or stale)."""


def record_digest(payload: dict) -> str:
    """SHA-256 (hex) of a record's content: its JSON with sorted keys, without its ``sha256`` field."""
    content = {k: v for k, v in payload.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def verified(path: Path) -> dict:
    """The record at ``path``, if its content matches its ``sha256`` and, where its chapter's executed
    notebook lies beside the summary folder (the runner's layout, ``<folder>/<chapter>.ipynb`` for
    ``<folder>/summary/<chapter>.json``), that notebook's ``repro.summary_sha256`` names this record;
    otherwise :class:`RecordMismatch` naming the file and what to do."""
    payload = json.loads(Path(path).read_text())
    chapter = payload.get("chapter", Path(path).stem)
    rerun = (f"re-run the chapter (python -m lib.book.runner --only {chapter} --force, with the profile and "
             f"--output-dir of this folder) to write it again")
    if payload.get("sha256") != record_digest(payload):
        raise RecordMismatch(f"summary record {path} does not match its checksum (edited by hand or damaged, so "
                             f"its numbers are not the ones {chapter} computed): {rerun}")
    executed = Path(path).parent.parent / f"{chapter}.ipynb"
    if executed.exists():
        recorded = json.loads(executed.read_text()).get("metadata", {}).get("repro", {}).get("summary_sha256", {})
        if recorded.get(chapter) != payload["sha256"]:
            raise RecordMismatch(f"summary record {path} was not written by the run that produced {executed} "
                                 f"(copied from another run, or that run's record was replaced): {rerun}")
    return payload
