"""Where a build's CPU time goes: CPU seconds per chapter, split by kind of work, measured.

Runs the book's runner (``python -m lib.book.runner --profile <profile> --jobs 0``) from an empty
results cache into a temporary folder, with ``benchmarks/profiling`` on ``PYTHONPATH``: its
``sitecustomize`` makes every process of the build (the runner, each chapter's process, its
kernel, its Dask workers) charge its CPU time to the kind of work it is doing
(training, kernels, network measures, eigendecompositions, clustering, M-PHATE, statistics and resampling, plotting,
JAX and numba compilation, Dask start-up and transfer, imports, the results cache, ...; see
``profiling/sitecustomize.py`` for the functions each kind covers). CPU time that falls in none of
them is the notebook's own code (kernel), the worker's scheduling (Dask worker) or papermill's
messaging (runner). "start-up" is a kernel's CPU before its first cell, imports included.

Prints the wall time, then a table of CPU seconds: one row per chapter, one column per kind, and a
total row and column; writes the same table as JSON beside the printed path. Nothing the book
publishes is touched: outputs, summary records and the results cache go to a temporary folder.

    python benchmarks/build_profile.py --profile quick [--only 00_quickstart ...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import describe_machine  # benchmarks/machine.py

REPO = Path(__file__).resolve().parent.parent
HOOK = Path(__file__).resolve().parent / "profiling"
KIND_ORDER = ("training", "kernels (eNTK, ePNTK)", "network measures", "eigendecompositions", "clustering", "M-PHATE",
              "statistics and resampling", "plotting", "JAX compilation", "numba compilation",
              "Dask start-up and transfer", "results cache", "imports", "start-up (other)",
              "notebook code", "Dask worker (other)", "papermill (other)", "runner (other)")
OTHER_BY_ROLE = {"kernel": "notebook code", "dask worker": "Dask worker (other)",
                 "runner (papermill)": "papermill (other)", "runner": "runner (other)"}


def process_rows(folder: Path) -> list[dict]:
    """One record per profiled process (see ``profiling/sitecustomize.py``)."""
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]


def chapter_kinds(records: list[dict]) -> dict[str, dict[str, float]]:
    """CPU seconds per chapter and kind. A kernel's CPU before its first cell is its start-up: its
    imports stay "imports", the rest of it leaves "notebook code" for "start-up (other)"."""
    table: dict[str, dict[str, float]] = collections.defaultdict(lambda: collections.defaultdict(float))
    for record in records:
        if record["role"] == "kernel" and record.get("before_first_cell_s") is None:
            record = {**record, "role": "dask worker"}  # a kernel's spawned child (it never ran a cell)
        chapter = record["chapter"] or "(runner: planning)"
        kinds = dict(record["kinds_s"])
        other = kinds.pop("other", 0.0)
        if record["role"] == "kernel" and record.get("before_first_cell_s") is not None:
            start_up = min(other, max(0.0, record["before_first_cell_s"] - kinds.get("imports", 0.0)))
            table[chapter]["start-up (other)"] += start_up
            other -= start_up
        if other:
            table[chapter][OTHER_BY_ROLE.get(record["role"], "runner (other)")] += other
        for kind, seconds in kinds.items():
            table[chapter][kind] += seconds
    return {chapter: dict(kinds) for chapter, kinds in sorted(table.items())}


def format_table(table: dict[str, dict[str, float]]) -> str:
    """A Markdown table: chapters as rows, kinds (those with any time) as columns, seconds rounded."""
    kinds = [k for k in KIND_ORDER if any(row.get(k, 0.0) >= 0.05 for row in table.values())]
    kinds += sorted({k for row in table.values() for k in row} - set(KIND_ORDER))
    header = "| chapter | " + " | ".join(kinds) + " | total |"
    lines = [header, "|" + "---|" * (len(kinds) + 2)]
    totals = collections.defaultdict(float)
    for chapter, row in table.items():
        for kind in kinds:
            totals[kind] += row.get(kind, 0.0)
        cells = [f"{row.get(k, 0.0):.0f}" for k in kinds]
        lines.append(f"| {chapter} | " + " | ".join(cells) + f" | {sum(row.values()):.0f} |")
    lines.append("| **total** | " + " | ".join(f"**{totals[k]:.0f}**" for k in kinds)
                 + f" | **{sum(totals.values()):.0f}** |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", choices=("quick", "full"), default="quick")
    parser.add_argument("--only", nargs="+", default=None, help="chapters to run (default: all)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="folder for the run's outputs, results cache and per-process records (default: temporary)")
    args = parser.parse_args()
    print(describe_machine(), flush=True)
    with tempfile.TemporaryDirectory(prefix="build-profile-") as tmp:
        work = (args.keep or Path(tmp)).absolute()
        records = work / "processes"
        records.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "REPRO_BUILD_PROFILE_DIR": str(records),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "lib.book.runner", "--profile", args.profile, "--jobs", "0",
                   "--output-dir", str(work / "executed"), "--results-dir", str(work / "results"),
                   *(["--only", *args.only] if args.only else [])]
        start = time.perf_counter()
        subprocess.run(command, cwd=REPO, env=env, check=True)
        wall = time.perf_counter() - start
        time.sleep(4.0)  # the last periodic records of processes still shutting down
        table = chapter_kinds(process_rows(records))
    text = format_table(table)
    print(f"\n{args.profile} profile from an empty cache: {wall:.0f} s wall, "
          f"{sum(sum(r.values()) for r in table.values()):.0f} CPU-s (seconds of CPU per chapter and kind)\n")
    print(text)
    out = REPO / "_build" / f"build_profile_{args.profile}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"machine": describe_machine(), "wall_s": wall, "cpu_s": table}, indent=1))
    print(f"\n(written to {out.relative_to(REPO)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
