"""The Dask cluster a sweep (:mod:`lib.experiments.sweep`) runs on, and the checks it passes first.

By default a ``LocalCluster`` with one single-threaded worker process per CPU core of this machine
(:func:`dask_client`); with a scheduler address (or ``$REPRO_DASK_SCHEDULER``), an existing
cluster, whose scheduler must answer, handshake included, within ``connect_timeout_s``
(:func:`connect`; :class:`ClusterError` naming the address and the last attempt's error
otherwise). Before a sweep submits anything, every worker must see this process's results folder
(:func:`check_shared_results`) and all workers must compute under one set of computation
conditions (:func:`worker_conditions`), since each writes cache entries under its own.

With ``$REPRO_KEEP_LOCAL_CLUSTER=1`` (the runner sets it in every chapter's kernel) the local
cluster outlives its ``with`` block and serves this process's next sweeps of the same size, as long
as the environment its workers inherited is unchanged, it is running and it has all its workers; otherwise it
is closed and a new one started. A chapter with several sweeps then starts its worker processes
(their imports, their compiled kernels) once instead of once per sweep. Every point computes the
same numbers on a new or a kept worker: it is a pure function of its parameters, cached under them.
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from ..core import cache_key, results
from .sweep_watch import check_seconds

SCHEDULER_ENV = "REPRO_DASK_SCHEDULER"
KEEP_ENV = "REPRO_KEEP_LOCAL_CLUSTER"
CONNECT_TIMEOUT_S = 5.0  # an existing scheduler must answer within this


class SweepError(RuntimeError):
    """A sweep cannot run, or a point's result cannot be kept."""


class ClusterError(SweepError):
    """The Dask cluster cannot run the sweep (no scheduler at the address, no workers, or
    workers without the results folder)."""


def one_line(err: object) -> str:
    """``str(err)`` on one line (messages of some libraries span several)."""
    return re.sub(r"\s*\n\s*", " ", str(err)).strip() or type(err).__name__


def local_worker_count() -> int:
    """CPU cores available to this process."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def connect(address: str, timeout_s: float = CONNECT_TIMEOUT_S):
    """A ``distributed.Client`` of the scheduler at ``address``: ``ValueError`` if the address is
    malformed, :class:`ClusterError` naming it if no scheduler answers within ``timeout_s``."""
    from dask.distributed import Client

    timeout_s = check_seconds("connect_timeout_s", timeout_s)
    try:
        probe_scheduler(address, timeout_s)
        return Client(address, timeout=timeout_s)
    except ValueError as err:
        raise ValueError(f"scheduler address {address!r} is not valid ({one_line(err)}); expected e.g. "
                         "tcp://host:8786") from None
    except (OSError, TimeoutError) as err:
        reason = "connected, but no Dask handshake came back" if type(err) is TimeoutError else connect_reason(err)
        raise ClusterError(f"no Dask scheduler answered at {address} within {timeout_s:g} s (last attempt: {reason}); "
                           f"start one there, or fix --scheduler / ${SCHEDULER_ENV}") from None


def connect_reason(err: OSError) -> str:
    """Why ``distributed`` could not connect: its last attempt's error (the cause of the error it
    raises after retrying until the timeout), without the connector's repr."""
    cause = err.__cause__ or err
    if isinstance(cause, TimeoutError) and not str(cause):
        return "timed out"
    return re.sub(r"^in <[^>]*>: ", "", one_line(cause))


def probe_scheduler(address: str, timeout_s: float) -> None:
    """Open and close one Dask connection to ``address``, handshake included, within ``timeout_s``
    (twice that, +1 s): ``distributed`` bounds the connection, not the handshake, so a port that accepts
    and never answers would hold ``Client(address)`` forever. Runs in its own thread and event loop."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from distributed.comm import connect as open_comm

    async def handshake() -> None:
        comm = await asyncio.wait_for(open_comm(address, timeout=timeout_s), 2 * timeout_s + 1.0)
        await comm.close()

    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, handshake()).result()


@contextmanager
def dask_client(scheduler: str | None = None, n_workers: int | None = None,
                connect_timeout_s: float = CONNECT_TIMEOUT_S, worker_ttl_s: float | None = None) -> Iterator:
    """A ``distributed.Client``: to ``scheduler`` (or ``$REPRO_DASK_SCHEDULER``) if given (see
    :func:`connect`), else to a new ``LocalCluster`` of ``n_workers`` (default: one per core)
    single-threaded processes, whose scheduler restarts or drops a worker that sent no heartbeat
    for ``worker_ttl_s`` (default: ``distributed.scheduler.worker-ttl``, 5 minutes unless
    configured; see :func:`lib.experiments.sweep_watch.drop_after_s`). With ``$REPRO_KEEP_LOCAL_CLUSTER=1``
    the local cluster is this process's kept one (:func:`kept_local_cluster`), left running after the block."""
    from dask.distributed import Client

    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise ValueError(f"scheduler must be an address like tcp://host:8786, got {scheduler!r}")
    address = scheduler or os.environ.get(SCHEDULER_ENV)
    if address:
        if n_workers is not None:
            raise ValueError("n_workers sizes the local cluster only; an existing cluster keeps its workers")
        if worker_ttl_s is not None:
            raise ValueError("worker_ttl_s configures the local cluster only; an existing scheduler keeps its own "
                             "distributed.scheduler.worker-ttl")
        with connect(address, connect_timeout_s) as client:
            yield client
        return
    n_workers = local_worker_count() if n_workers is None else n_workers
    ttl = {} if worker_ttl_s is None else {"worker_ttl": check_seconds("worker_ttl_s", worker_ttl_s)}
    if os.environ.get(KEEP_ENV) == "1":
        with Client(kept_local_cluster(n_workers, ttl)) as client:
            yield client
        return
    # At the local cluster's teardown a worker process still releasing its libraries after 4 s is
    # killed, and the nanny logs a warning that is expected there; only then are its warnings quiet
    # (errors still show, and a failure inside the block leaves every message as it is).
    nanny_log = logging.getLogger("distributed.nanny")
    level = nanny_log.level
    try:
        with new_local_cluster(n_workers, ttl) as cluster, Client(cluster) as client:
            yield client
            nanny_log.setLevel(logging.ERROR)
    finally:
        nanny_log.setLevel(level)


def new_local_cluster(n_workers: int, ttl: dict):
    """A ``LocalCluster`` of ``n_workers`` single-threaded worker processes, no dashboard;
    ``ttl``: ``{"worker_ttl": seconds}`` or ``{}``."""
    from dask.distributed import LocalCluster

    return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                        scheduler_kwargs={"dashboard_address": "localhost:0", **ttl})


@contextmanager
def quiet_nanny() -> Iterator[None]:
    """The nanny's warnings are quiet inside the block (a teardown's expected kill of a slow worker)."""
    nanny_log = logging.getLogger("distributed.nanny")
    level = nanny_log.level
    nanny_log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        nanny_log.setLevel(level)


_kept: dict[tuple, object] = {}  # at most one: (n_workers, ttl, environment) -> LocalCluster


def _kept_key(n_workers: int, ttl: dict) -> tuple:
    return n_workers, tuple(sorted(ttl.items())), tuple(sorted(os.environ.items()))


def kept_local_cluster(n_workers: int, ttl: dict):
    """This process's kept ``LocalCluster`` of ``n_workers`` workers (see the module docstring):
    the one started before if it was started with the same size and ``ttl``, this process's
    environment is still the one it was started under (read after the start: starting a cluster
    sets a few variables here, e.g. ``OMP_NUM_THREADS``) and all its workers are alive; else a new
    one (the old one closed)."""
    cluster = _kept.get(_kept_key(n_workers, ttl))
    if cluster is not None and cluster.status.name == "running" and \
            len(cluster.scheduler_info.get("workers", {})) == n_workers:
        return cluster
    close_kept_cluster()
    cluster = new_local_cluster(n_workers, ttl)
    _kept[_kept_key(n_workers, ttl)] = cluster
    return cluster


@atexit.register
def close_kept_cluster() -> None:
    """Close this process's kept local cluster, if any (also at the process's exit)."""
    while _kept:
        _, cluster = _kept.popitem()
        with quiet_nanny():
            cluster.close()


def _sees_file(name: str) -> bool:
    return (results.results_dir() / name).exists()


def check_shared_results(client) -> None:
    """Fail unless every worker sees this process's results folder (a probe file written here)."""
    folder = results.results_dir()
    probe = folder / f".sweep-probe-{uuid.uuid4().hex}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.touch()
    except OSError as err:
        raise SweepError(f"cannot write to the results folder {folder} ({one_line(err)}); check "
                         f"{results.RESULTS_ENV}") from None
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


def worker_conditions(client, expected: dict) -> dict:
    """The computation conditions (:func:`lib.core.cache_key.computation_conditions`) the cluster's
    workers compute under (``expected`` when it has none yet); :class:`SweepError` when workers
    differ, since each would write entries the others cannot read."""
    found = {cache_key.conditions_digest(c): c for c in client.run(cache_key.computation_conditions).values()}
    if len(found) > 1:
        raise SweepError(f"the cluster's workers compute under {len(found)} different conditions "
                         f"({'; '.join(cache_key.describe_conditions(c) for c in found.values())}); start every "
                         "worker with one environment on one CPU type")
    return next(iter(found.values()), expected)
