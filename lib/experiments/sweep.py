"""Parameter sweeps on ``dask.distributed``: a grid of points, one cached task per point.

A point runs a *point function*: ``"module:function"`` or a callable taking the point's
parameter dict and returning a dict of arrays (see :mod:`lib.experiments.sweep_points`).
Every finished point is written to the results cache (:func:`lib.core.results.cached`);
points already there are skipped before anything is submitted, so re-running a sweep, or
resuming a crashed one, computes only what is missing. Sweeps of whole notebooks, and the
command line ``python -m lib.book.sweep_command``, are built on this module in
:mod:`lib.book.sweep_command`.

Execution is Dask's: by default a ``LocalCluster`` with one single-threaded worker process
per CPU core of this machine; with a scheduler address, an existing cluster whose workers
run the same code and see the same results folder (checked before submitting). A point
that raises is retried ``retries`` times, then reported with its parameters and traceback
while the other points finish; a point whose worker dies (killed, out of memory) is
rescheduled by Dask on another worker (up to the scheduler's
``distributed.scheduler.allowed-failures``, 3 by default). A sweep reports every failed
point at the end (:class:`SweepReport`).
"""

from __future__ import annotations

import importlib
import os
import re
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

import numpy as np

from ..core import results

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


# --- planning (all validation happens here, before any cluster starts) ----------------------------


@dataclass(frozen=True)
class Plan:
    """Validated sweep: the cache name, each point's task and cache key."""

    name: str
    target: Callable[[dict], Mapping[str, np.ndarray]]  # FunctionPoint, or a notebook run (lib.book.sweep_command)
    points: list[dict]
    cache_parameters: list[dict]


def plan_function_sweep(points: list[dict], function: str | PointFunction, name: str | None = None) -> Plan:
    """Check a sweep of a point function before running it: every point valid for the
    function's ``check_parameters`` (if it has one), which also gives the point's cache key."""
    if not points:
        raise ValueError("points must contain at least one parameter dict")
    resolved = resolve_function(function)
    check = getattr(resolved, "check_parameters", None)
    keys = []
    for point in points:
        try:
            keys.append(check(dict(point)) if check else dict(point))
        except ValueError as err:
            raise ValueError(f"point {point}: {err}") from err
    return Plan(name or function_name(resolved), FunctionPoint(function), list(points), keys)


# --- execution ----------------------------------------------------------------------------------


def run_point(name: str, key: dict, point: dict, target: Callable[[dict], Mapping[str, np.ndarray]]) -> None:
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


def sweep(points: list[dict], function: str | PointFunction, name: str | None = None, **options) -> SweepReport:
    """Check the sweep (:func:`plan_function_sweep`), then :func:`run_plan` it; ``options`` go to ``run_plan``.

    Args:
        points: parameter dicts (e.g. :func:`lib.book.runner.grid_points` of a grid).
        function: a point function or ``"module:function"`` (see :mod:`lib.experiments.sweep_points`).
        name: results-cache name (default: the function's ``module.qualname``).
    """
    return run_plan(plan_function_sweep(points, function, name), **options)


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
