"""The execution report: when, from which code, on which machine and in how long each chapter's page
was computed, as a page of the book the runner writes after every run.

The runner records in each executed notebook's ``repro`` metadata, beside its execution key, the
run's provenance (:func:`run_provenance`: start time, wall time, commit and whether ``lib/`` had
uncommitted changes, host CPU and cores, Python). After a run it writes
``<executed folder>/execution_report.md`` (:func:`write_report`) from the notebooks in that
folder, so a chapter that this build found up to date shows the run that computed its page, and
the page says which chapters this build executed (their run started after the build did) and
which it kept.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any, NamedTuple

REPORT_NAME = "execution_report.md"


class ChapterRun(NamedTuple):
    """One chapter's executed page: its name and title, the profile, the provenance of the run that
    computed it (:func:`run_provenance`; empty for a page written before it was recorded) and
    whether the current build executed it (False: kept, up to date)."""

    name: str
    title: str
    profile: str
    provenance: dict
    executed_now: bool


def machine() -> str:
    """The machine as one line: architecture, CPU name and the cores this process may use."""
    from llvmlite import binding

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{platform.machine()} {binding.get_host_cpu_name()}, {cores} cores, {platform.system()}"


def run_provenance(started: float, wall_time_s: float) -> dict[str, Any]:
    """What the executed notebook records about its run: UTC start (``started``: seconds since the
    epoch), wall time in seconds, commit and ``lib/`` state, machine and Python."""
    from ..core.results import provenance

    code = provenance()
    return {"started_s": float(started), "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(started)),
            "wall_time_s": round(float(wall_time_s), 1), "commit": code["commit"], "lib_dirty": code["lib_dirty"],
            "machine": machine(), "python": platform.python_version()}


def chapter_title(cells: list[dict], name: str) -> str:
    """The first level-1 heading of a notebook's Markdown cells (``name`` if it has none)."""
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", "")).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return name


def chapter_runs(executed_dir: Path, names: list[str], build_started: float) -> list[ChapterRun]:
    """The :class:`ChapterRun` of each of ``names`` that has an executed notebook in ``executed_dir``;
    executed by this build if its run started at or after ``build_started`` (seconds since the epoch)."""
    runs = []
    for name in names:
        path = Path(executed_dir) / f"{name}.ipynb"
        if not path.is_file():
            continue
        try:
            notebook = json.loads(path.read_text())
        except (OSError, ValueError):  # not a notebook the runner wrote: listed without a record
            notebook = {}
        repro = notebook.get("metadata", {}).get("repro", {})
        run = repro.get("run", {})
        runs.append(ChapterRun(name, chapter_title(notebook.get("cells", []), name), repro.get("profile", ""), run,
                               run.get("started_s", float("-inf")) >= build_started))
    return runs


def _commit(provenance: dict) -> str:
    commit = provenance.get("commit") or "unknown"
    short = commit[:10] if commit != "unknown" else commit
    return f"`{short}`" + (" (with uncommitted changes to lib/)" if provenance.get("lib_dirty") else "")


def report_markdown(runs: list[ChapterRun]) -> str:
    """The report page (MyST Markdown): one row per chapter with its run's start, wall time, commit,
    machine and whether this build executed it, then the totals."""
    lines = ["# Execution report", "",
             "When, from which code and on which machine each chapter's page was computed. The runner",
             "(`python -m lib.book.runner`) writes this page after every build from the record each executed",
             "chapter keeps of its run. A chapter whose source, parameters, code and inputs had not changed",
             "is not executed again: it is marked *kept*, and its row shows the run that computed it.", ""]
    if not runs:
        return "\n".join(lines + ["No chapter has been executed in this folder.", ""])
    lines += ["```{list-table} Each chapter's run", ":header-rows: 1", "",
              "* - Chapter", "  - Started (UTC)", "  - Wall time", "  - This build", "  - Commit"]
    for run in runs:
        p = run.provenance
        wall = f"{p['wall_time_s']:.0f} s" if "wall_time_s" in p else "not recorded"
        lines += [f"* - {{doc}}`{run.title} <{run.name}>`", f"  - {p.get('started_utc', 'not recorded')}",
                  f"  - {wall}", f"  - {'executed' if run.executed_now else 'kept'}", f"  - {_commit(p)}"]
    lines += ["```", ""]
    total = sum(r.provenance.get("wall_time_s", 0.0) for r in runs)
    executed = [r for r in runs if r.executed_now]
    machines = sorted({r.provenance["machine"] for r in runs if "machine" in r.provenance})
    pythons = sorted({r.provenance["python"] for r in runs if "python" in r.provenance})
    profiles = sorted({r.profile for r in runs if r.profile})
    lines += [f"- **Profile:** {', '.join(profiles) or 'not recorded'} "
              "(`full`: the book's own parameters; `quick`: small ones that exercise every code path).",
              f"- **Chapters:** {len(runs)}, of which this build executed {len(executed)} and kept "
              f"{len(runs) - len(executed)}.",
              f"- **Wall time of the chapters' runs:** {total:.0f} s in all (chapters that run side by side "
              "overlap, so the build took less).",
              f"- **Machine:** {'; '.join(machines) or 'not recorded'}; Python {', '.join(pythons) or 'not recorded'}.",
              ""]
    return "\n".join(lines)


def write_report(executed_dir: Path, names: list[str], build_started: float) -> Path:
    """Write :func:`report_markdown` of the chapters in ``executed_dir`` (:func:`chapter_runs`) to its
    :data:`REPORT_NAME` (atomically) and return the path."""
    path = Path(executed_dir) / REPORT_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{REPORT_NAME}.tmp")
    tmp.write_text(report_markdown(chapter_runs(executed_dir, names, build_started)))
    os.replace(tmp, path)
    return path
