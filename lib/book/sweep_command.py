"""Sweeps from the command line, and sweeps of whole notebooks, on the Dask engine of
:mod:`lib.experiments.sweep`.

    python -m lib.book.sweep_command --function lib.experiments.sweep_points:pair_final_losses --grid seed=0,1,2 --grid n_hidden=50,200
    python -m lib.book.sweep_command --notebook 00_quickstart --grid seed=0,1 --output-dir sweeps/quickstart
    python -m lib.book.sweep_command ... --scheduler tcp://10.0.0.5:8786      # or REPRO_DASK_SCHEDULER=tcp://...
    python -m lib.book.sweep_command ... --table grid.nc      # or grid.csv: the results as a labelled table

A notebook point executes the notebook with papermill (:func:`lib.book.runner.execute`) into
one sub-folder of ``output_dir`` per point, and is cached like a function point: its outputs are
the executed notebook's path and every value the notebook glued (:func:`glued_values`). With
``--table`` the results are written as a table (:mod:`lib.experiments.sweep_table`). Every check
(grid syntax, parameter names and types, the point function's or chapter's own range checks,
output folders) happens before any cluster starts; sizes above their sane bounds (hours per
point) need ``--allow-large``;
every error that stops a sweep before it runs (bad input, no scheduler answering at
``--scheduler`` within ``--connect-timeout`` seconds, workers without the results folder) is one
line on stderr and exit status 2; the command exits 1 if any point failed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core import results
from ..core.cache_entry import CacheError
from ..core.results import REPO_ROOT
from ..core.cpu_target import check_cpu_features
from ..core.validation import allow_large_runs
from ..experiments.sweep import (Plan, PointFunction, SweepReport, check_name, plan_function_sweep, run_plan,
                                 sweep_hint)
from ..experiments.sweep_cluster import CONNECT_TIMEOUT_S, SCHEDULER_ENV, SweepError
from ..experiments.sweep_table import check_table_path, write_table
from ..experiments.sweep_watch import Watch
from .notebook_sources import check_paired, notebook_source
from .run_parameters import check_parameters, check_ranges, grid_points, parse_grid, parse_grid_spec, point_folder
from .runner import execute


@dataclass(frozen=True)
class NotebookPoint:
    """Executes a notebook with the point's parameters into ``output_dir/<point_folder>``
    (sizes above the chapter's sane bounds accepted when ``allow_large``)."""

    notebook: str
    output_dir: str
    allow_large: bool = False

    def __call__(self, parameters: dict) -> dict[str, np.ndarray]:
        output = execute(self.notebook, dict(parameters), Path(self.output_dir) / point_folder(parameters),
                         allow_large=self.allow_large)
        return {"executed_notebook": np.array(str(output)), **glued_values(output)}


def _glued_text(text: str) -> np.ndarray:
    """A glued value's text as a 0-d array: a number where the text is one, else the text."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        value = text
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        value = str(value)
    return np.array(value)


def glued_values(executed_notebook: str | Path) -> dict[str, np.ndarray]:
    """Every text value glued (myst_nb ``glue``) in an executed notebook, by name, as 0-d arrays
    (numbers as numbers); figures and other non-text glue are left out."""
    notebook = json.loads(Path(executed_notebook).read_text())
    values = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook")
            text = output.get("data", {}).get(f"{record.get('mime_prefix', '')}text/plain") if record else None
            if text is not None and "name" in record:
                values[record["name"]] = _glued_text("".join(text) if isinstance(text, list) else text)
    return values


def notebook_source_hash(notebook: str) -> str:
    """First 16 hex digits of the SHA-256 of ``notebooks/<notebook>.py`` (part of the cache key)."""
    return hashlib.sha256((REPO_ROOT / "notebooks" / f"{notebook}.py").read_bytes()).hexdigest()[:16]


def plan_notebook_sweep(points: list[dict], notebook: str, output_dir: str | Path | None = None,
                        name: str | None = None, allow_large: bool | None = None) -> Plan:
    """Check a notebook sweep before running it: every point valid for the notebook's
    parameters cell and its own range checks (sizes above the chapter's sane bounds only with
    ``allow_large``; None: ``$REPRO_ALLOW_LARGE``), one distinct output folder per point, never
    inside ``book/executed``."""
    if not points:
        raise ValueError("points must contain at least one parameter dict")
    allowed = allow_large_runs(allow_large)
    check_paired(notebook_source(notebook))  # one source: the .py and its .ipynb hold the same cells
    points = [check_parameters(notebook, dict(p)) for p in points]  # names and types, as the runner checks them
    out = Path(output_dir if output_dir is not None else REPO_ROOT / "sweeps" / notebook).resolve()
    if out == (REPO_ROOT / "book" / "executed").resolve():
        raise ValueError("output_dir must be outside book/executed (a sweep never overwrites the book)")
    folders = [point_folder(p) for p in points]
    clashing = sorted({f for f in folders if folders.count(f) > 1})
    if clashing:
        raise ValueError(f"points must have distinct output folders, got {clashing} more than once")
    name = f"notebook_{notebook}" if name is None else check_name(name)
    try:
        check_ranges([(notebook, p, out) for p in points], allow_large=allowed)  # the chapter's own checks
    except ValueError as err:
        raise ValueError(sweep_hint(str(err))) from None
    source = notebook_source_hash(notebook)
    keys = [{"notebook": notebook, "source": source, "output_dir": str(out), "parameters": dict(p)} for p in points]
    return Plan(name, NotebookPoint(notebook, str(out), allowed), list(points), keys)


def plan_sweep(points: list[dict], function: str | PointFunction | None = None, notebook: str | None = None,
               output_dir: str | Path | None = None, name: str | None = None, allow_large: bool | None = None) -> Plan:
    """Check a sweep before running it: exactly one of ``function`` / ``notebook``."""
    if (function is None) == (notebook is None):
        raise ValueError("give exactly one of function ('module:function' or a callable) and notebook")
    if function is not None:
        if output_dir is not None:
            raise ValueError("output_dir applies to notebook sweeps only")
        return plan_function_sweep(points, function, name, allow_large)
    return plan_notebook_sweep(points, notebook, output_dir, name, allow_large)


def sweep(points: list[dict], function: str | PointFunction | None = None, notebook: str | None = None,
          output_dir: str | Path | None = None, name: str | None = None, allow_large: bool | None = None,
          **options) -> SweepReport:
    """Check the sweep (:func:`plan_sweep`), then :func:`~lib.experiments.sweep.run_plan` it.

    Args:
        points: parameter dicts (e.g. :func:`lib.book.run_parameters.grid_points` of a grid).
        function: a point function or ``"module:function"`` (see :mod:`lib.experiments.sweep_points`).
        notebook: instead, a notebook name (``notebooks/<name>.py``), run into ``output_dir``.
        name: results-cache name (default: the function's ``module.qualname`` or ``notebook_<name>``).
        allow_large: accept sizes above the sane bounds (None: ``$REPRO_ALLOW_LARGE``).
        options: passed to :func:`~lib.experiments.sweep.run_plan` (``scheduler``, ``n_workers``, ...).
    """
    return run_plan(plan_sweep(points, function, notebook, output_dir, name, allow_large), **options)


# --- command line -------------------------------------------------------------------------------


class UsageError(Exception):
    """Bad command-line input (one line on stderr, exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # argparse's usage block is 5 lines
        raise UsageError(f"{message} (see --help)")


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line of :func:`main`."""
    parser = _Parser(
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
    parser.add_argument("--connect-timeout", type=positive_seconds, default=CONNECT_TIMEOUT_S, metavar="SECONDS",
                        help=f"how long --scheduler has to answer (default {CONNECT_TIMEOUT_S:g})")
    parser.add_argument("--stall-after", type=positive_seconds, default=Watch.stall_s, metavar="SECONDS",
                        help="report the running points when none finished for this long (default "
                             f"{Watch.stall_s:g}); workers that die or stop responding are reported at once")
    parser.add_argument("--worker-ttl", type=positive_seconds, metavar="SECONDS",
                        help="local cluster: restart or drop a worker that sent no heartbeat for this long, and "
                             "resubmit its points (default: distributed.scheduler.worker-ttl, 5 minutes)")
    parser.add_argument("--retries", type=int, default=1, help="extra attempts for a point that raises (default 1)")
    parser.add_argument("--allow-large", action="store_true",
                        help="accept sizes above the sane bounds of the point function or chapter (hours per point)")
    parser.add_argument("--table", type=Path, metavar="PATH",
                        help="also write the results as a table: .csv (one row per point: parameters, scalar outputs, "
                             "failed) or .nc (an xarray dataset on the grid, failed points missing)")
    return parser


def check_arguments(args: argparse.Namespace) -> None:
    """:class:`UsageError` for options that parse but do not fit together."""
    if args.output_dir is not None and args.notebook is None:
        raise UsageError("--output-dir applies to --notebook sweeps only")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be an integer >= 1, got {args.workers}")
    if args.retries < 0:
        raise UsageError(f"--retries must be an integer >= 0, got {args.retries}")
    if args.scheduler is not None and not args.scheduler.strip():
        raise UsageError("--scheduler is empty; give an address like tcp://host:8786, or leave it out")
    for option, value in (("--workers", args.workers), ("--worker-ttl", args.worker_ttl)):
        if value is not None and (args.scheduler or os.environ.get(SCHEDULER_ENV)):
            raise UsageError(f"{option} configures the local cluster; it cannot be combined with --scheduler/$"
                             + SCHEDULER_ENV)
    if args.table is not None:
        check_table_path(args.table)


def error(message: object) -> int:
    """Print ``[sweep] error: message`` as one line on stderr; the exit status 2."""
    print(f"[sweep] error: {' '.join(str(message).split())}", file=sys.stderr, flush=True)
    return 2


def main(argv: list[str] | None = None) -> int:
    try:  # every check before any cluster starts
        args = build_parser().parse_args(argv)
        check_arguments(args)
        check_cpu_features()  # $NUMBA_CPU_FEATURES, which the workers inherit
        grids = [parse_grid(g) for g in args.grid] + parse_grid_spec(args.grid_spec)
        plan = plan_sweep(grid_points(grids), args.function, args.notebook, args.output_dir, args.name,
                          args.allow_large or None)
    except (UsageError, ValueError, RuntimeError) as err:  # ParameterError included; a range check that cannot run
        return error(err)
    try:
        report = run_plan(plan, args.scheduler, args.workers, args.retries, connect_timeout_s=args.connect_timeout,
                          watch=Watch(check_s=min(Watch.check_s, args.stall_after), stall_s=args.stall_after),
                          worker_ttl_s=args.worker_ttl)
    except (SweepError, ValueError, CacheError) as err:  # no scheduler, no shared results folder, ...
        return error(err)
    print(f"[sweep] {report.summary()} (results in {results.results_dir()})", flush=True)
    for failure in report.failures:
        print(f"[sweep] FAILED {failure.format()}", file=sys.stderr, flush=True)
    if args.table is not None:
        try:
            written = write_table(args.table, report.points, report.load(), report.failure_lines())
        except (ValueError, RuntimeError, OSError) as err:  # e.g. points that are not a full grid, for .nc
            return error(f"the sweep finished, but --table {args.table} could not be written: {err}")
        print(f"[sweep] table: {written}", flush=True)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
