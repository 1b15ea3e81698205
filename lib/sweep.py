"""Parameter sweeps on ``dask.distributed``: a grid of points, one cached task per point.

    python -m lib.sweep --function lib.sweep_points:pair_final_losses --grid seed=0,1,2 --grid n_hidden=50,200
    python -m lib.sweep --notebook 00_quickstart --grid seed=0,1 --output-dir sweeps/quickstart
    python -m lib.sweep ... --scheduler tcp://10.0.0.5:8786      # or REPRO_DASK_SCHEDULER=tcp://...

A point is either a *point function* (``"module:function"`` or a callable taking the point's
parameter dict and returning a dict of arrays, see :mod:`lib.sweep_points`) or a notebook
executed with papermill (:func:`lib.runner.execute`, one sub-folder of ``output_dir`` per
point). Every finished point is written to the results cache (:func:`lib.results.cached`);
points already there are skipped before anything is submitted, so re-running a sweep, or
resuming a crashed one, computes only what is missing.

Execution is Dask's: by default a ``LocalCluster`` with one single-threaded worker process
per CPU core of this machine; with a scheduler address, an existing cluster whose workers
run the same code and see the same results folder (checked before submitting). A point
that raises is retried ``retries`` times, then reported with its parameters and traceback
while the other points finish; a point whose worker dies (killed, out of memory) is
rescheduled by Dask on another worker (up to the scheduler's
``distributed.scheduler.allowed-failures``, 3 by default). The sweep fails (non-zero exit)
at the end if any point failed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import re
import sys
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import results
from .results import REPO_ROOT
from .runner import check_parameters, grid_points, parse_grid, parse_grid_spec, point_folder

SCHEDULER_ENV = "REPRO_DASK_SCHEDULER"
PointFunction = Callable[[dict], Mapping[str, np.ndarray]]


class PointError(RuntimeError):
    """A point raised: its parameters, the error line and the worker's formatted traceback."""

    def __init__(self, parameters: dict, error: str, traceback_text: str):
        super().__init__(parameters, error, traceback_text)
        self.parameters, self.error, self.traceback_text = parameters, error, traceback_text

    def __str__(self) -> str:
        return f"point {self.parameters} failed: {self.error}"


class ClusterError(RuntimeError):
    """The Dask cluster cannot run the sweep (no workers, or workers without the results folder)."""


@dataclass(frozen=True)
class Failure:
    """A point that did not finish: its grid parameters, the error and its traceback."""

    parameters: dict
    error: str
    traceback: str

    def format(self) -> str:
        return f"point {self.parameters}: {self.error}\n{self.traceback.rstrip()}"


@dataclass
class SweepReport:
    """Outcome of :func:`sweep`. ``cache_parameters[i]`` is the results-cache key of ``points[i]``."""

    name: str
    points: list[dict]
    cache_parameters: list[dict]
    skipped: list[dict] = field(default_factory=list)  # already in the cache, not submitted
    computed: list[dict] = field(default_factory=list)  # finished by this sweep
    failures: list[Failure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def load(self) -> list[dict[str, np.ndarray] | None]:
        """Every point's cached arrays, in grid order (``None`` for a point that failed)."""
        return [results.load(self.name, key) for key in self.cache_parameters]


# --- what a point runs ---------------------------------------------------------------------------


def resolve_function(spec: str | PointFunction) -> PointFunction:
    """A point function from ``"package.module:function"`` (or a callable, returned as is)."""
    if callable(spec):
        return spec
    module_name, sep, attribute = str(spec).partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"function must be given as 'package.module:function', got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"function {spec!r}: cannot import module {module_name!r} ({err})") from err
    function = getattr(module, attribute, None)
    if not callable(function):
        raise ValueError(f"function {spec!r}: module {module_name!r} has no function {attribute!r}")
    return function


def function_name(function: PointFunction) -> str:
    """Results-cache name of a point function's results: ``module.qualname``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{function.__module__}.{function.__qualname__}")


@dataclass(frozen=True)
class FunctionPoint:
    """Calls a point function on a worker; a ``"module:function"`` spec is imported there."""

    spec: str | PointFunction

    def __call__(self, parameters: dict) -> Mapping[str, np.ndarray]:
        arrays = resolve_function(self.spec)(dict(parameters))
        if not isinstance(arrays, Mapping):
            raise TypeError(f"a point function must return a dict of arrays, got {type(arrays).__name__}")
        return arrays


@dataclass(frozen=True)
class NotebookPoint:
    """Executes a notebook with the point's parameters into ``output_dir/<point_folder>``."""

    notebook: str
    output_dir: str

    def __call__(self, parameters: dict) -> dict[str, np.ndarray]:
        from .runner import execute

        output = execute(self.notebook, dict(parameters), Path(self.output_dir) / point_folder(parameters))
        return {"executed_notebook": np.array(str(output))}


def notebook_source_hash(notebook: str) -> str:
    """First 16 hex digits of the SHA-256 of ``notebooks/<notebook>.py`` (part of the cache key)."""
    return hashlib.sha256((REPO_ROOT / "notebooks" / f"{notebook}.py").read_bytes()).hexdigest()[:16]


# --- planning (all validation happens here, before any cluster starts) ----------------------------


@dataclass(frozen=True)
class Plan:
    """Validated sweep: the cache name, each point's task and cache key."""

    name: str
    target: FunctionPoint | NotebookPoint
    points: list[dict]
    cache_parameters: list[dict]


def plan_sweep(points: list[dict], function: str | PointFunction | None = None, notebook: str | None = None,
               output_dir: str | Path | None = None, name: str | None = None) -> Plan:
    """Check a sweep before running it: exactly one of ``function`` / ``notebook``; every point
    valid for it (a function's ``check_parameters``, a notebook's parameters cell)."""
    if (function is None) == (notebook is None):
        raise ValueError("give exactly one of function ('module:function' or a callable) and notebook")
    if not points:
        raise ValueError("points must contain at least one parameter dict")
    if function is not None:
        resolved = resolve_function(function)
        check = getattr(resolved, "check_parameters", None)
        keys = []
        for point in points:
            try:
                keys.append(check(dict(point)) if check else dict(point))
            except ValueError as err:
                raise ValueError(f"point {point}: {err}") from err
        return Plan(name or function_name(resolved), FunctionPoint(function), list(points), keys)
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


# --- execution ----------------------------------------------------------------------------------


def run_point(name: str, key: dict, point: dict, target: FunctionPoint | NotebookPoint) -> None:
    """Worker side: compute one point through the results cache (under ``key``); a point that
    raises becomes a :class:`PointError` carrying ``point`` and the formatted traceback."""
    try:
        results.cached(name, key, lambda: target(point))
    except Exception as err:  # reported with the point, other points go on
        raise PointError(point, describe_error(err), traceback.format_exc()) from None


def describe_error(err: BaseException) -> str:
    """One line: the exception type and message (for a failed notebook, the failing cell's exception)."""
    if hasattr(err, "ename") and hasattr(err, "evalue"):  # papermill.PapermillExecutionError
        return f"{type(err).__name__}: {err.ename}: {err.evalue}"
    return f"{type(err).__name__}: {err}"


def local_worker_count() -> int:
    """CPU cores available to this process."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def dask_client(scheduler: str | None = None, n_workers: int | None = None) -> Iterator:
    """A ``distributed.Client``: to ``scheduler`` (or ``$REPRO_DASK_SCHEDULER``) if given, else
    to a new ``LocalCluster`` of ``n_workers`` (default: one per core) single-threaded processes."""
    from dask.distributed import Client, LocalCluster

    address = scheduler or os.environ.get(SCHEDULER_ENV)
    if address:
        if n_workers is not None:
            raise ValueError("n_workers sizes the local cluster only; an existing cluster keeps its workers")
        with Client(address) as client:
            yield client
        return
    n_workers = local_worker_count() if n_workers is None else n_workers
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": "localhost:0"}) as cluster, \
            Client(cluster) as client:
        yield client


def _sees_file(name: str) -> bool:
    return (results.results_dir() / name).exists()


def check_shared_results(client) -> None:
    """Fail unless every worker sees this process's results folder (a probe file written here)."""
    folder = results.results_dir()
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f".sweep-probe-{uuid.uuid4().hex}"
    probe.touch()
    try:
        seen = client.run(_sees_file, probe.name)
    finally:
        probe.unlink()
    blind = sorted(worker for worker, ok in seen.items() if not ok)
    if not seen:
        raise ClusterError("the Dask cluster has no workers")
    if blind:
        raise ClusterError(f"workers {blind} do not see the results folder {folder}: mount it on every worker "
                           "and point REPRO_RESULTS_DIR at it there")


def sweep(points: list[dict], function: str | PointFunction | None = None, notebook: str | None = None,
          output_dir: str | Path | None = None, name: str | None = None, **options) -> SweepReport:
    """Check the sweep (:func:`plan_sweep`), then :func:`run_plan` it; ``options`` go to ``run_plan``.

    Args:
        points: parameter dicts (e.g. :func:`lib.runner.grid_points` of a grid).
        function: a point function or ``"module:function"`` (see :mod:`lib.sweep_points`).
        notebook: instead, a notebook name (``notebooks/<name>.py``), run into ``output_dir``.
        name: results-cache name (default: the function's ``module.qualname`` or ``notebook_<name>``).
    """
    return run_plan(plan_sweep(points, function, notebook, output_dir, name), **options)


def run_plan(plan: Plan, scheduler: str | None = None, n_workers: int | None = None, retries: int = 1,
             progress: bool = True, client=None) -> SweepReport:
    """Run every point of ``plan`` not yet in the results cache on Dask; report what was skipped,
    computed and failed.

    Args:
        scheduler: address of an existing Dask scheduler (default ``$REPRO_DASK_SCHEDULER``, else a
            local cluster of ``n_workers`` processes, default one per core).
        retries: extra attempts for a point that raises.
        progress: print the number of cached points and show a tqdm bar over points.
        client: an existing ``distributed.Client`` to use instead (``scheduler``, ``n_workers`` unused).
    """
    from dask.distributed import as_completed
    from tqdm import tqdm

    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be an integer >= 0, got {retries!r}")
    if n_workers is not None and (isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1):
        raise ValueError(f"n_workers must be an integer >= 1, got {n_workers!r}")
    report = SweepReport(plan.name, plan.points, plan.cache_parameters)
    todo = []
    for point, key in zip(plan.points, plan.cache_parameters):
        try:
            done = results.load(plan.name, key) is not None
        except results.CacheError as err:
            report.failures.append(Failure(point, f"CacheError: {err}", ""))
            continue
        if done:
            report.skipped.append(point)
        else:
            todo.append((point, key))
    if progress and report.skipped:
        print(f"[sweep] {plan.name}: {len(report.skipped)} of {len(plan.points)} points already cached", flush=True)
    if not todo:
        return report

    with dask_client(scheduler, n_workers) if client is None else nullcontext(client) as client:
        check_shared_results(client)
        futures = {client.submit(run_point, plan.name, key, point, plan.target, retries=retries, pure=False): point
                   for point, key in todo}
        bar = tqdm(as_completed(futures), total=len(futures), desc=f"sweep {plan.name}", unit="point",
                   disable=not progress)
        for future in bar:
            point = futures[future]
            try:
                future.result()
            except PointError as err:
                report.failures.append(Failure(point, err.error, err.traceback_text))
            except Exception as err:  # KilledWorker (its worker died too often), lost scheduler, ...
                text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
                report.failures.append(Failure(point, describe_error(err), text))
            else:
                report.computed.append(point)
            bar.set_postfix(failed=len(report.failures), refresh=False)
    return report


# --- command line -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lib.sweep",
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
