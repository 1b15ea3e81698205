"""Parameter sweeps on ``dask.distributed``: a grid of points, one cached task per point.

A point runs a *point function*: ``"module:function"`` or a callable taking the point's
parameter dict and returning a dict of arrays (see :mod:`lib.experiments.sweep_points`).
Every finished point is written to the results cache (:func:`lib.core.results.cached`);
points already there are skipped before anything is submitted, so re-running a sweep, or
resuming a crashed one, computes only what is missing, and points that are the same cache entry
are computed once. Every point is checked before anything is submitted; sizes above a point
function's sane bounds need ``allow_large``. Sweeps of whole notebooks, and the
command line ``python -m lib.book.sweep_command``, are built on this module in
:mod:`lib.book.sweep_command`.

Execution is Dask's, on the cluster of :mod:`lib.experiments.sweep_cluster`: by default a
``LocalCluster`` with one single-threaded worker process per CPU core of this machine; with a
scheduler address (which must answer within ``connect_timeout_s``), an existing cluster whose
workers run the same code and see the same results folder (checked before submitting). A point
that raises is retried ``retries`` times, then reported with its parameters and traceback while
the other points finish; a point whose worker dies (killed, out of memory) is rescheduled by Dask
on another worker (up to the scheduler's ``distributed.scheduler.allowed-failures``, 3 by
default); a result the cache could not store and read back (:func:`storable_arrays`) is reported
at once and never written. While waiting, a sweep reports workers that die or stop responding,
and stalls (:class:`lib.experiments.sweep_watch.StallMonitor`); it never stops a point itself:
the scheduler restarts or drops a worker that sent no heartbeat for its ``worker-ttl`` and
resubmits its points, and the report says by when
(:func:`lib.experiments.sweep_watch.drop_after_s`). A sweep reports which cache entries it
computed, which another process wrote meanwhile, and every failed point (:class:`SweepReport`).
"""

from __future__ import annotations

import importlib
import re
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import CancelledError
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from ..core import cache_entry, cache_key, results
from ..core.code_closure import PACKAGE
from ..core.validation import LARGE_RUN_HINT, allow_large_runs, large_runs
from . import sweep_table
from .sweep_cluster import (CONNECT_TIMEOUT_S, SweepError, check_shared_results, dask_client, one_line,
                            worker_conditions)
from .sweep_watch import (StallMonitor, Watch, check_seconds, dropping_text, points_text, scheduler_ttl,
                          watched_batches)

LOADED = "loaded"  # what run_point returns for an entry another process wrote after the sweep looked
PointFunction = Callable[[dict], Mapping[str, np.ndarray]]
# Parameters of the call that stores a result (results.save): a key named so would be taken as one.


class UnstorableResult(SweepError):
    """A point function returned something the results cache cannot store and read back."""

    def __init__(self, parameters: dict, key: object, problem: str):
        super().__init__(parameters, key, problem)
        self.parameters, self.key, self.problem = parameters, key, problem

    def detail(self) -> str:
        """The problem, without the point: ``result key 'k' ...``."""
        where = "the result" if self.key is None else f"result key {self.key!r}"
        return f"{where} {self.problem}; nothing was written to the cache"

    def __str__(self) -> str:
        return f"point {self.parameters}: {self.detail()}"


class PointError(RuntimeError):
    """A point raised: its parameters, the error line and the worker's formatted traceback."""

    def __init__(self, parameters: dict, error: str, traceback_text: str):
        super().__init__(parameters, error, traceback_text)
        self.parameters, self.error, self.traceback_text = parameters, error, traceback_text

    def __str__(self) -> str:
        return f"point {self.parameters} failed: {self.error}"


@dataclass(frozen=True)
class Failure:
    """A point that did not finish: its grid parameters, the error and its traceback."""

    parameters: dict
    error: str
    traceback: str

    def format(self) -> str:
        return f"point {self.parameters}: {self.error}\n{self.traceback.rstrip()}".rstrip()


@dataclass
class SweepReport:
    """Outcome of :func:`sweep`. ``cache_parameters[i]`` is the results-cache key of ``points[i]``.

    Points that are the same cache entry (their keys are equal once completed, e.g. a default
    given explicitly) are one entry: the first of them is submitted and counted, each other one is
    listed in ``same_entry`` with that first point. ``skipped``, ``computed``, ``loaded`` and
    ``failures`` hold one point per distinct entry, and together every distinct entry once."""

    name: str
    points: list[dict]
    cache_parameters: list[dict]
    skipped: list[dict] = field(default_factory=list)  # already in the cache, not submitted
    computed: list[dict] = field(default_factory=list)  # computed and written by this sweep
    loaded: list[dict] = field(default_factory=list)  # submitted, but written by another process meanwhile
    failures: list[Failure] = field(default_factory=list)
    same_entry: list[tuple[dict, dict]] = field(default_factory=list)  # (point, earlier point of that entry)
    conditions: dict = field(default_factory=cache_key.new_process_conditions)  # the workers' (cache_key)
    computed_by: tuple[str, ...] = (PACKAGE,)  # the modules whose code computes a point (results.cached)

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        """One line: points, distinct entries, and how many were already cached, computed, loaded, failed."""
        entries = f" ({len(self.points) - len(self.same_entry)} distinct cache entries)" if self.same_entry else ""
        loaded = f"{len(self.loaded)} written meanwhile by another process, " if self.loaded else ""
        return (f"{self.name}: {len(self.points)} points{entries}, {len(self.skipped)} already cached, "
                f"{len(self.computed)} computed, {loaded}{len(self.failures)} failed")

    def failed_points(self) -> list[dict]:
        """Every point whose entry failed, points of the same entry included."""
        failed = [f.parameters for f in self.failures]
        return failed + [point for point, first in self.same_entry if first in failed]

    def load(self) -> list[dict[str, np.ndarray] | None]:
        """Every point's cached arrays, in grid order (``None`` for a point that failed).

        A point that did not fail but cannot be read is an error: its result was cached under
        other code (``lib/`` edited while the sweep ran), and a None there would pass for a failure."""
        failed = self.failed_points()
        loaded = [results.load(self.name, key, conditions=self.conditions, computed_by=self.computed_by)
                  for key in self.cache_parameters]
        unreadable = [p for p, arrays in zip(self.points, loaded) if arrays is None and p not in failed]
        if unreadable:
            raise RuntimeError(f"{len(unreadable)} points of sweep {self.name!r} finished but cannot be read under the "
                               f"current code (was lib/ edited while the sweep ran?); run again: {unreadable[:2]}")
        return loaded

    def failure_lines(self) -> dict[int, str]:
        """Grid index -> error line of every point that failed (points of the same entry included)."""
        errors = [(f.parameters, f.error) for f in self.failures]
        errors += [(point, error) for point, first in self.same_entry for parameters, error in errors if parameters == first]
        return {i: error for i, point in enumerate(self.points) for parameters, error in errors if parameters == point}

    def frame(self):
        """The points as a :class:`pandas.DataFrame`: parameters, scalar outputs, ``failed``
        (:func:`lib.experiments.sweep_table.point_frame`)."""
        return sweep_table.point_frame(self.points, self.load(), self.failure_lines())

    def dataset(self):
        """The outputs on the grid as an :class:`xarray.Dataset`, failed points missing
        (:func:`lib.experiments.sweep_table.grid_dataset`)."""
        return sweep_table.grid_dataset(self.points, self.load())


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


def point_code(function: PointFunction) -> tuple[str, ...]:
    """The modules whose code computes a point function's results (``computed_by`` of
    :func:`lib.core.results.cached`): its own ``computed_by`` attribute if it has one (a point
    that writes the same entries as another module's cached function names both), else its
    module if that is part of ``lib``, else all of ``lib`` (a function of a notebook or a script)."""
    declared = getattr(function, "computed_by", None)
    if declared is not None:
        return results.code_modules(declared)
    module = getattr(function, "__module__", None) or ""
    return (module,) if module.startswith(f"{PACKAGE}.") else (PACKAGE,)


def function_name(function: PointFunction) -> str:
    """Results-cache name of a point function's results: ``module.qualname``."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{function.__module__}.{function.__qualname__}")


def check_name(name: object) -> str:
    """``name`` if the results cache accepts it as a result name (:func:`lib.core.results.entry_dir`),
    else ``ValueError`` naming the parameter."""
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {name!r} ({type(name).__name__})")
    try:
        results.entry_dir(name, {}, directory=results.REPO_ROOT, code="0")  # the cache's own rule, no I/O
    except ValueError as err:
        raise ValueError(f"name: {err}") from None
    return name


@dataclass(frozen=True)
class FunctionPoint:
    """Calls a point function on a worker; a ``"module:function"`` spec is imported there. Sizes
    above the sane bounds pass the function's own checks there exactly when they passed planning
    (``allow_large``: :func:`lib.core.validation.large_runs`)."""

    spec: str | PointFunction
    allow_large: bool = False

    def __call__(self, parameters: dict) -> Mapping[str, np.ndarray]:
        with large_runs(self.allow_large):
            return resolve_function(self.spec)(dict(parameters))


def storable_arrays(parameters: dict, arrays: object) -> dict[str, np.ndarray]:
    """A point's result as the results cache stores it (each value through ``np.asarray``), or
    :class:`UnstorableResult` naming the point and the first offending key: the cache writes
    ``np.savez_compressed(**arrays)`` and reads it back with ``allow_pickle=False``, so a result
    must be a dict of string keys to numeric, boolean, string or bytes arrays or scalars."""
    if not isinstance(arrays, Mapping):
        raise UnstorableResult(parameters, None, f"is a {type(arrays).__name__}, not a dict of arrays")
    stored = {}
    for key, value in arrays.items():
        try:
            stored[key] = results.storable_array(key, value)
        except ValueError as err:
            raise UnstorableResult(parameters, key, str(err)) from None
    return stored


# --- planning (all validation happens here, before any cluster starts) ----------------------------


@dataclass(frozen=True)
class Plan:
    """Validated sweep: the cache name, each point's task and cache key."""

    name: str
    target: Callable[[dict], Mapping[str, np.ndarray]]  # FunctionPoint, or a notebook run (lib.book.sweep_command)
    points: list[dict]
    cache_parameters: list[dict]
    computed_by: tuple[str, ...] = (PACKAGE,)  # the modules whose code computes a point (point_code)


SWEEP_LARGE_HINT = ("to run it anyway pass --allow-large to python -m lib.book.sweep_command (or allow_large=True "
                    "to sweep)")


def sweep_hint(message: str) -> str:
    """A check's message with the way to confirm a large size that a sweep takes."""
    return message.replace(LARGE_RUN_HINT, SWEEP_LARGE_HINT)


def plan_function_sweep(points: list[dict], function: str | PointFunction, name: str | None = None,
                        allow_large: bool | None = None) -> Plan:
    """Check a sweep of a point function before running it: every point valid for the
    function's ``check_parameters`` (if it has one), which also gives the point's cache key.
    Sizes above a check's sane bounds (:func:`lib.core.validation.check_size`) pass only with
    ``allow_large`` (None: ``$REPRO_ALLOW_LARGE``, as the runner's ``--allow-large`` sets it)."""
    if not points:
        raise ValueError("points must contain at least one parameter dict")
    allowed = allow_large_runs(allow_large)
    resolved = resolve_function(function)
    name = function_name(resolved) if name is None else check_name(name)
    check = getattr(resolved, "check_parameters", None)
    keys = []
    with large_runs(allowed):
        for point in points:
            try:
                keys.append(check(dict(point)) if check else dict(point))
            except ValueError as err:
                raise ValueError(f"point {point}: {sweep_hint(str(err))}") from err
    return Plan(name, FunctionPoint(function, allowed), list(points), keys, point_code(resolved))


# --- execution ----------------------------------------------------------------------------------


def run_point(name: str, key: dict, point: dict, target: Callable[[dict], Mapping[str, np.ndarray]],
              computed_by: tuple[str, ...] = (PACKAGE,)) -> PointError | str | None:
    """Worker side: compute one point through the results cache (under ``key``, for the code of
    ``computed_by``: :func:`point_code`); None if this call
    computed and wrote the entry, :data:`LOADED` if the cache already held it (another process
    wrote it after the sweep looked). A point that raises becomes a :class:`PointError` carrying ``point``
    and the formatted traceback. A result the cache cannot store is *returned* as a
    :class:`PointError` (Dask retries only what raises, and computing it again would give the same
    result)."""
    computed = []

    def compute() -> dict[str, np.ndarray]:
        computed.append(True)
        return storable_arrays(point, target(point))

    try:
        results.cached(name, key, compute, computed_by=computed_by)
    except UnstorableResult as err:
        return PointError(point, f"{type(err).__name__}: {err.detail()}", "")
    except Exception as err:  # reported with the point, other points go on
        raise PointError(point, describe_error(err), traceback.format_exc()) from None
    return None if computed else LOADED


def describe_error(err: BaseException) -> str:
    """One line: the exception type and message (for a failed notebook, the failing cell's exception)."""
    if hasattr(err, "ename") and hasattr(err, "evalue"):  # papermill.PapermillExecutionError
        return one_line(f"{type(err).__name__}: {err.ename}: {err.evalue}")
    return one_line(f"{type(err).__name__}: {err}")


def sweep(points: list[dict], function: str | PointFunction, name: str | None = None,
          allow_large: bool | None = None, **options) -> SweepReport:
    """Check the sweep (:func:`plan_function_sweep`), then :func:`run_plan` it; ``options`` go to ``run_plan``.

    Args:
        points: parameter dicts (e.g. :func:`lib.book.run_parameters.grid_points` of a grid).
        function: a point function or ``"module:function"`` (see :mod:`lib.experiments.sweep_points`).
        name: results-cache name (default: the function's ``module.qualname``).
        allow_large: accept sizes above the function's sane bounds (None: ``$REPRO_ALLOW_LARGE``).
    """
    return run_plan(plan_function_sweep(points, function, name, allow_large), **options)


def check_options(retries: object, n_workers: object, connect_timeout_s: object, watch: object,
                  worker_ttl_s: object = None) -> None:
    """``ValueError`` naming the first bad option of :func:`run_plan`."""
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be an integer >= 0, got {retries!r}")
    if n_workers is not None and (isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1):
        raise ValueError(f"n_workers must be an integer >= 1, got {n_workers!r}")
    check_seconds("connect_timeout_s", connect_timeout_s)
    if worker_ttl_s is not None:
        check_seconds("worker_ttl_s", worker_ttl_s)
    if watch is not None and not isinstance(watch, Watch):
        raise ValueError(f"watch must be a Watch, got {watch!r}")


def run_plan(plan: Plan, scheduler: str | None = None, n_workers: int | None = None, retries: int = 1,
             progress: bool = True, client=None, connect_timeout_s: float = CONNECT_TIMEOUT_S,
             watch: Watch | None = None, log: Callable[[str], None] | None = None,
             worker_ttl_s: float | None = None) -> SweepReport:
    """Run every distinct cache entry of ``plan`` not yet in the results cache on Dask, once
    however many points share it; report what was skipped, computed, loaded and failed.

    Args:
        scheduler: address of an existing Dask scheduler (default ``$REPRO_DASK_SCHEDULER``, else a
            local cluster of ``n_workers`` processes, default one per core).
        retries: extra attempts for a point that raises.
        progress: print the number of cached points and show a tqdm bar over points.
        client: an existing ``distributed.Client`` to use instead (``scheduler``, ``n_workers`` unused).
        connect_timeout_s: how long ``scheduler`` has to answer
            (:class:`lib.experiments.sweep_cluster.ClusterError` after that).
        watch: when to report lost, silent or stalled workers while waiting (default :class:`Watch`).
        log: where those reports go (default: a line on stderr, above the progress bar).
        worker_ttl_s: the local cluster's ``worker_ttl_s`` (see
            :func:`lib.experiments.sweep_cluster.dask_client`).
    """
    from tqdm import tqdm

    check_options(retries, n_workers, connect_timeout_s, watch, worker_ttl_s)
    report = SweepReport(plan.name, plan.points, plan.cache_parameters, computed_by=plan.computed_by)
    todo = partition(plan, report)
    if progress and report.same_entry:
        pairs = [f"{point} = {earlier}" for point, earlier in report.same_entry]
        print(f"[sweep] {plan.name}: {len(pairs)} points are the same cache entry as an earlier point, computed once: "
              f"{points_text(pairs)}", flush=True)
    if progress and report.skipped:
        entries = len(plan.points) - len(report.same_entry)
        print(f"[sweep] {plan.name}: {len(report.skipped)} of {entries} cache entries already cached", flush=True)
    if not todo:
        return report

    local = dask_client(scheduler, n_workers, connect_timeout_s, worker_ttl_s)
    with local if client is None else nullcontext(client) as client:
        check_shared_results(client)
        conditions = worker_conditions(client, report.conditions)
        if conditions != report.conditions:  # workers of another environment or CPU: their entries
            report = SweepReport(plan.name, plan.points, plan.cache_parameters, conditions=conditions,
                                 computed_by=plan.computed_by)
            todo = partition(plan, report)
        dropping = dropping_text(*scheduler_ttl(client))
        futures = {client.submit(run_point, plan.name, key, point, plan.target, plan.computed_by, retries=retries,
                                 pure=False): point
                   for point, key in todo}
        monitor = StallMonitor(watch or Watch(), {f.key: p for f, p in futures.items()}, time.monotonic(), dropping)
        bar = tqdm(total=len(futures), desc=f"sweep {plan.name}", unit="point", disable=not progress)
        for batch in watched_batches(futures, client, monitor, log or (lambda line: bar.write(line, file=sys.stderr))):
            for future in batch:
                collect(future, futures[future], report)
            bar.update(len(batch))
            bar.set_postfix(failed=len(report.failures), refresh=False)
        bar.close()
    return report


def partition(plan: Plan, report: SweepReport) -> list[tuple[dict, dict]]:
    """Sort ``plan``'s points into ``report`` (already cached under ``report.conditions``, the same
    entry as an earlier point, unreadable) and return the ``(point, key)`` pairs to compute."""
    todo, first = [], {}  # first: entry folder -> the first point of that entry
    for point, key in zip(plan.points, plan.cache_parameters):
        entry = results.entry_dir(plan.name, key, conditions=report.conditions, computed_by=plan.computed_by)
        if entry in first:
            report.same_entry.append((point, first[entry]))
            continue
        first[entry] = point
        try:
            done = results.load(plan.name, key, conditions=report.conditions, computed_by=plan.computed_by) is not None
        except cache_entry.CacheError as err:
            report.failures.append(Failure(point, f"CacheError: {err}", ""))
            continue
        (report.skipped if done else todo).append(point if done else (point, key))
    return todo


def collect(future, point: dict, report: SweepReport) -> None:
    """Record one finished future in ``report``: computed, loaded, or a :class:`Failure`."""
    try:
        outcome = future.result()
    except PointError as err:
        outcome = err
    except Exception as err:  # KilledWorker (its worker died too often), lost scheduler (cancelled: no traceback)
        text = "" if isinstance(err, CancelledError) else "".join(traceback.format_exception(err))
        report.failures.append(Failure(point, describe_error(err), text))
        return
    if isinstance(outcome, PointError):
        report.failures.append(Failure(point, outcome.error, outcome.traceback_text))
    else:
        (report.loaded if outcome == LOADED else report.computed).append(point)
