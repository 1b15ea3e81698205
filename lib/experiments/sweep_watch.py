"""Watching a running Dask sweep (:func:`lib.experiments.sweep.run_plan`): workers that leave
the cluster or stop sending heartbeats, and stalls in which no point finishes.

:class:`StallMonitor` is pure (it is given each :class:`ClusterState` and the time), so its
reports are unit-tested without a cluster; :func:`watched_batches` polls the scheduler for it
while yielding finished points. Nothing here stops a point: a long point is legitimate, so the
reports only say where the points are and what Dask will do.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

POLL_S = 0.1  # how often the waiting loop looks for finished points
RESTART_TIMEOUT_S = 30.0  # how long the scheduler waits for a nanny to stop its silent worker, then drops it
UNKNOWN_TTL = ("the scheduler restarts or drops it after its distributed.scheduler.worker-ttl (checked every "
               "worker-ttl) and resubmits its points")


def check_seconds(name: str, value: object) -> float:
    """``value`` as a finite number of seconds > 0, else ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a number of seconds > 0, got {value!r}")
    return float(value)


def drop_after_s(worker_ttl_s: float, n_workers: int) -> float:
    """Seconds after its last heartbeat by which the scheduler has restarted or dropped a silent
    worker, whose points it then resubmits: ``distributed``'s check runs every ``worker_ttl_s``
    and takes a worker silent for ``max(worker_ttl_s, 10 heartbeat intervals)``
    (``distributed.scheduler.heartbeat_interval`` of ``n_workers``); it then gives the worker's
    nanny :data:`RESTART_TIMEOUT_S` to stop it (a stopped process is killed within about 5 s)."""
    from distributed.scheduler import heartbeat_interval

    return max(worker_ttl_s, 10 * heartbeat_interval(n_workers)) + worker_ttl_s + RESTART_TIMEOUT_S


def dropping_text(worker_ttl_s: float | None = None, n_workers: int | None = None) -> str:
    """What the scheduler does with a worker that stopped sending heartbeats, given its
    ``worker_ttl`` (None: off) and number of workers (no arguments: not known)."""
    if n_workers is None:
        return UNKNOWN_TTL
    if not worker_ttl_s:
        return ("the scheduler never drops it (its distributed.scheduler.worker-ttl is off): the sweep waits until "
                "the worker responds or is killed")
    return (f"the scheduler restarts or drops it at the latest {drop_after_s(worker_ttl_s, n_workers):.0f} s after "
            f"its last heartbeat (distributed.scheduler.worker-ttl {worker_ttl_s:g} s) and resubmits its points")


def _scheduler_ttl(dask_scheduler) -> tuple[float | None, int]:
    return dask_scheduler.worker_ttl, len(dask_scheduler.workers)


def scheduler_ttl(client) -> tuple[float | None, int] | tuple[()]:
    """The scheduler's ``worker_ttl`` in seconds (None: off) and its number of workers, or ``()``
    where the scheduler does not say (it refuses to run functions sent to it)."""
    try:
        return client.run_on_scheduler(_scheduler_ttl)
    except Exception:  # a scheduler with distributed.scheduler.pickle off: the report stays general
        return ()


@dataclass(frozen=True)
class Watch:
    """When a waiting sweep reports trouble: it looks every ``check_s``; a worker whose heartbeat
    has not changed for ``heartbeat_s`` is not responding; no point finished for ``stall_s`` is a stall."""

    check_s: float = 15.0
    heartbeat_s: float = 30.0
    stall_s: float = 120.0

    def __post_init__(self):
        for name in ("check_s", "heartbeat_s", "stall_s"):
            check_seconds(f"watch.{name}", getattr(self, name))


@dataclass(frozen=True)
class ClusterState:
    """What the scheduler says at one moment: each worker's last heartbeat (scheduler clock) and
    name, and the task keys it is processing (running or queued on it)."""

    last_seen: dict[str, float]
    names: dict[str, str] = field(default_factory=dict)
    processing: dict[str, list] = field(default_factory=dict)


def cluster_state(client) -> ClusterState:
    """The scheduler's view of the workers, asked of the scheduler itself (its ``identity`` of every
    worker, and ``client.processing``). Not ``client.scheduler_info()``: that returns the client's
    cached identity, which the client's periodic refresh (every
    ``distributed.client.scheduler-info-interval``) can overwrite with one that lists no workers,
    so a live worker would read as having left."""
    workers = client.sync(client.scheduler.identity, n_workers=-1)["workers"]
    return ClusterState({w: info.get("last_seen") for w, info in workers.items()},
                        {w: str(info.get("name", w)) for w, info in workers.items()},
                        {w: list(keys) for w, keys in client.processing().items()})


def points_text(points: list[dict], limit: int = 5) -> str:
    """``[{...}, {...}]``, at most ``limit`` points, then how many more."""
    more = f" and {len(points) - limit} more" if len(points) > limit else ""
    return f"[{', '.join(map(str, points[:limit]))}{more}]"


class StallMonitor:
    """Turns successive :class:`ClusterState`\\ s of a running sweep into reports: workers that
    left, workers whose heartbeat stopped (and resumed), no point finished for ``stall_s``.
    Pure: the caller passes each state, the keys still pending and the (monotonic) time;
    ``dropping`` says what the scheduler does with a silent worker (:func:`dropping_text`)."""

    def __init__(self, watch: Watch, points: Mapping[object, dict], now: float, dropping: str = UNKNOWN_TTL):
        self.watch, self.points, self.dropping = watch, dict(points), dropping  # points: task key -> grid point
        self.last_check = self.last_progress = now
        self.last_stall_report: float | None = None
        self.previous: ClusterState | None = None
        self.heartbeats: dict[str, tuple[float, float]] = {}  # worker -> (last_seen, when first seen)
        self.silent: set[str] = set()  # reported as not responding
        self.gone: set[str] = set()  # reported as left: once per address, even if the scheduler lists it again

    def due(self, now: float) -> bool:
        return now - self.last_check >= self.watch.check_s

    def progress(self, now: float) -> None:
        """A point finished at ``now``."""
        self.last_progress = now

    def check(self, state: ClusterState, pending: Iterable, now: float) -> list[str]:
        """The reports for ``state`` (one line each), given the task keys not yet finished."""
        pending = set(pending)
        self.last_check = now
        messages = self._lost(state, pending) + self._silent(state, pending, now) + self._idle(state, pending, now)
        self.previous = state
        return messages

    def _label(self, worker: str, state: ClusterState) -> str:
        name = state.names.get(worker)
        return worker if name in (None, worker) else f"{worker} (name {name})"

    def _held(self, state: ClusterState, worker: str, pending: set) -> list[dict]:
        return [self.points[k] for k in state.processing.get(worker, ()) if k in pending and k in self.points]

    def _lost(self, state: ClusterState, pending: set) -> list[str]:
        messages = []
        for worker in sorted(set(self.previous.last_seen if self.previous else ()) - set(state.last_seen) - self.gone):
            self.gone.add(worker)
            held = self._held(self.previous, worker, pending)
            text = f"[sweep] worker {self._label(worker, self.previous)} left the cluster (died, killed, disconnected)"
            messages.append(text + (f" while holding {points_text(held)}; Dask resubmits them to the other workers "
                                    "(a point that loses 3 workers fails with KilledWorker)" if held else ""))
            self.heartbeats.pop(worker, None)
            self.silent.discard(worker)
        return messages

    def _silent(self, state: ClusterState, pending: set, now: float) -> list[str]:
        messages = []
        for worker, seen in sorted(state.last_seen.items()):
            known = self.heartbeats.get(worker)
            if known is None or known[0] != seen:
                self.heartbeats[worker] = (seen, now)
                if worker in self.silent:
                    self.silent.discard(worker)
                    messages.append(f"[sweep] worker {self._label(worker, state)} responds again")
            elif now - known[1] >= self.watch.heartbeat_s and worker not in self.silent:
                self.silent.add(worker)
                messages.append(
                    f"[sweep] worker {self._label(worker, state)} has sent no heartbeat for at least "
                    f"{now - known[1]:.0f} s (hung, overloaded or unreachable) while holding "
                    f"{points_text(self._held(state, worker, pending))}; nothing is stopped: "
                    f"{self.dropping}")
        return messages

    def _idle(self, state: ClusterState, pending: set, now: float) -> list[str]:
        idle = now - self.last_progress
        if idle < self.watch.stall_s or (self.last_stall_report is not None
                                         and now - self.last_stall_report < self.watch.stall_s):
            return []
        self.last_stall_report = now
        running = {w: self._held(state, w, pending) for w in sorted(state.processing)}
        running = {w: held for w, held in running.items() if held}
        waiting = len(pending) - sum(map(len, running.values()))
        where = "; ".join(f"worker {self._label(w, state)}: {points_text(held)}" for w, held in running.items())
        where = f"assigned to {where}" if where else "none is on a worker"
        return [f"[sweep] no point finished for {idle:.0f} s; {where}"
                + (f"; {waiting} points wait for a worker" if waiting > 0 else "")
                + " (a long point is not stopped, this is a report only)"]


def watched_batches(futures: Mapping, client, monitor: StallMonitor, log: Callable[[str], None]) -> Iterator[list]:
    """The futures in batches as they finish; between batches, every ``watch.check_s``, the
    monitor's reports on the cluster go to ``log`` (a failing query is reported, not raised)."""
    from dask.distributed import as_completed

    waiting = as_completed(futures)
    while not waiting.is_empty():
        batch = waiting.next_batch(block=False)
        now = time.monotonic()
        if batch:
            monitor.progress(now)
            yield batch
        if monitor.due(now):
            pending = [f.key for f in futures if not f.done()]
            try:
                messages = monitor.check(cluster_state(client), pending, now)
            except Exception as err:  # a lost scheduler: the futures report it themselves
                monitor.last_check = now
                reason = " ".join(f"{type(err).__name__}: {err}".split())
                messages = [f"[sweep] could not ask the scheduler about its workers ({reason})"]
            for message in messages:
                log(message)
        if not batch:
            time.sleep(POLL_S)
