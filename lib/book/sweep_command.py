"""Sweeps from the command line, and sweeps of whole notebooks, on the Dask engine of
:mod:`lib.experiments.sweep`.

    python -m lib.book.sweep_command --function lib.experiments.sweep_points:pair_final_losses --grid seed=0,1,2 --grid n_hidden=50,200
    python -m lib.book.sweep_command --notebook 00_quickstart --grid seed=0,1 --output-dir sweeps/quickstart
    python -m lib.book.sweep_command ... --scheduler tcp://10.0.0.5:8786      # or REPRO_DASK_SCHEDULER=tcp://...

A notebook point executes the notebook with papermill (:func:`lib.book.runner.execute`) into
one sub-folder of ``output_dir`` per point, and is cached like a function point. Every check
(grid syntax, parameter names and types, output folders) happens before any cluster starts;
the command exits 2 on bad input and 1 if any point failed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core import results
from ..core.results import REPO_ROOT
from ..experiments.sweep import (SCHEDULER_ENV, ClusterError, Plan, PointFunction, SweepReport, plan_function_sweep,
                                 run_plan)
from .runner import check_parameters, execute, grid_points, parse_grid, parse_grid_spec, point_folder


@dataclass(frozen=True)
class NotebookPoint:
    """Executes a notebook with the point's parameters into ``output_dir/<point_folder>``."""

    notebook: str
    output_dir: str

    def __call__(self, parameters: dict) -> dict[str, np.ndarray]:
        output = execute(self.notebook, dict(parameters), Path(self.output_dir) / point_folder(parameters))
        return {"executed_notebook": np.array(str(output))}


def notebook_source_hash(notebook: str) -> str:
    """First 16 hex digits of the SHA-256 of ``notebooks/<notebook>.py`` (part of the cache key)."""
    return hashlib.sha256((REPO_ROOT / "notebooks" / f"{notebook}.py").read_bytes()).hexdigest()[:16]


def plan_notebook_sweep(points: list[dict], notebook: str, output_dir: str | Path | None = None,
                        name: str | None = None) -> Plan:
    """Check a notebook sweep before running it: every point valid for the notebook's
    parameters cell, one distinct output folder per point, never inside ``book/executed``."""
    if not points:
        raise ValueError("points must contain at least one parameter dict")
    points = [check_parameters(notebook, dict(p)) for p in points]  # names and types, as the runner checks them
    out = Path(output_dir if output_dir is not None else REPO_ROOT / "sweeps" / notebook).resolve()
    if out == (REPO_ROOT / "book" / "executed").resolve():
        raise ValueError("output_dir must be outside book/executed (a sweep never overwrites the book)")
    folders = [point_folder(p) for p in points]
    clashing = sorted({f for f in folders if folders.count(f) > 1})
    if clashing:
        raise ValueError(f"points must have distinct output folders, got {clashing} more than once")
    source = notebook_source_hash(notebook)
    keys = [{"notebook": notebook, "source": source, "output_dir": str(out), "parameters": dict(p)} for p in points]
    return Plan(name or f"notebook_{notebook}", NotebookPoint(notebook, str(out)), list(points), keys)


def plan_sweep(points: list[dict], function: str | PointFunction | None = None, notebook: str | None = None,
               output_dir: str | Path | None = None, name: str | None = None) -> Plan:
    """Check a sweep before running it: exactly one of ``function`` / ``notebook``."""
    if (function is None) == (notebook is None):
        raise ValueError("give exactly one of function ('module:function' or a callable) and notebook")
    if function is not None:
        if output_dir is not None:
            raise ValueError("output_dir applies to notebook sweeps only")
        return plan_function_sweep(points, function, name)
    return plan_notebook_sweep(points, notebook, output_dir, name)


def sweep(points: list[dict], function: str | PointFunction | None = None, notebook: str | None = None,
          output_dir: str | Path | None = None, name: str | None = None, **options) -> SweepReport:
    """Check the sweep (:func:`plan_sweep`), then :func:`~lib.experiments.sweep.run_plan` it.

    Args:
        points: parameter dicts (e.g. :func:`lib.book.runner.grid_points` of a grid).
        function: a point function or ``"module:function"`` (see :mod:`lib.experiments.sweep_points`).
        notebook: instead, a notebook name (``notebooks/<name>.py``), run into ``output_dir``.
        name: results-cache name (default: the function's ``module.qualname`` or ``notebook_<name>``).
        options: passed to :func:`~lib.experiments.sweep.run_plan` (``scheduler``, ``n_workers``, ...).
    """
    return run_plan(plan_sweep(points, function, notebook, output_dir, name), **options)


# --- command line -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lib.book.sweep_command",
        description="Run a parameter grid on Dask (a local cluster by default), caching every point.")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--function", help="point function 'package.module:function' (params dict -> arrays)")
    target.add_argument("--notebook", help="notebook name (notebooks/<name>.py), executed with papermill")
    parser.add_argument("--grid", action="append", default=[],
                        help="name=v1,v2,... with Python literal values (repeatable; the cartesian product is run)")
    parser.add_argument("--grid-spec", default="", help="several grids in one string: \"seed=0,1 n_hidden=50,200\"")
    parser.add_argument("--output-dir", type=Path,
                        help="notebooks only: one executed notebook per point in a sub-folder (default sweeps/<name>)")
    parser.add_argument("--name", help="results-cache name (default: module.function or notebook_<name>)")
    parser.add_argument("--workers", type=int, help="local cluster size (default: one per CPU core)")
    parser.add_argument("--scheduler", help=f"address of an existing Dask scheduler (default ${SCHEDULER_ENV}, "
                                            "else a local cluster)")
    parser.add_argument("--retries", type=int, default=1, help="extra attempts for a point that raises (default 1)")
    args = parser.parse_args(argv)
    if args.output_dir is not None and args.notebook is None:
        parser.error("--output-dir applies to --notebook sweeps only")
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers must be an integer >= 1, got {args.workers}")
    if args.retries < 0:
        parser.error(f"--retries must be an integer >= 0, got {args.retries}")
    if args.workers is not None and (args.scheduler or os.environ.get(SCHEDULER_ENV)):
        parser.error("--workers sizes the local cluster; it cannot be combined with --scheduler/$" + SCHEDULER_ENV)
    try:  # every check before any cluster starts
        grids = [parse_grid(g) for g in args.grid] + parse_grid_spec(args.grid_spec)
        plan = plan_sweep(grid_points(grids), args.function, args.notebook, args.output_dir, args.name)
    except ValueError as err:  # ParameterError included
        print(f"[sweep] error: {err}", file=sys.stderr, flush=True)
        return 2
    try:
        report = run_plan(plan, args.scheduler, args.workers, args.retries)
    except ClusterError as err:
        print(f"[sweep] error: {err}", file=sys.stderr, flush=True)
        return 2
    print(f"[sweep] {report.name}: {len(report.points)} points, {len(report.skipped)} already cached, "
          f"{len(report.computed)} computed, {len(report.failures)} failed (results in {results.results_dir()})",
          flush=True)
    for failure in report.failures:
        print(f"[sweep] FAILED {failure.format()}", file=sys.stderr, flush=True)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
