"""Which of the runner's notebook runs may execute at the same time, and running them so.

Book layer. :mod:`lib.book.runner` plans runs ``(notebook, parameters, output folder)``; this
module starts them on ``jobs`` foreground slots (one per core by default), offering free slots first
to the longest chain of runs that must follow one another (:func:`start_order`), as soon as every
run it must follow in the same output folder has finished; each runs in a process of its own, so a
process that dies (killed, out of memory) ends only its own run, which is then named
(:class:`RunDied`). A chapter that keeps every core busy for most of its run
(:data:`USES_EVERY_CORE`: its Dask sweeps start one worker per core) takes every foreground slot at
the book's own parameters; the other chapters run in one kernel on about one core and take one slot
each. In the quick profile (:data:`ALONE_IN_PROFILE`) no chapter takes every slot: its sweeps are
too small to keep the cores busy (they are mostly start-up).

A run that finds no free foreground slot starts in the background instead (at most ``jobs`` runs
there), niced to :data:`BACKGROUND_NICE`: it gets only the CPU time the foreground leaves idle (a
chapter that takes every slot still has single-threaded phases and Dask start-up), so it neither
slows the chain that bounds the wall time nor waits while a core is idle; a foreground run of lower
rank moves to the background when a run of higher rank needs its slot (:func:`next_step`). Nicing
a process changes when it runs, never what it computes.

Why a chapter must follow another (:data:`RUNS_AFTER`): it reads the summary records of all
the others (``07_reproduction_summary``), or it reads results-cache entries the other one
computes (a kernel that finds such an entry being computed waits on its lock, and the runner
logs the wait). Running in any order gives the same numbers (every computation is
deterministic and cached under its parameters); the order only avoids that wait.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import NamedTuple

from .chapters import every_core_chapters, runs_after, timing_chapters


# chapters that keep every core busy and run alone, and the chapters each one starts after (declared
# in lib.book.chapters)
USES_EVERY_CORE = every_core_chapters()
# the chapters that run alone, per runner profile
ALONE_IN_PROFILE: dict[str, frozenset[str]] = {"full": USES_EVERY_CORE, "quick": frozenset()}
RUNS_AFTER: dict[str, tuple[str, ...]] = runs_after()
REPORTS_TIMES = timing_chapters()  # chapters whose pages report measured times: never in the background


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def width(name: str, jobs: int, alone: frozenset[str] = USES_EVERY_CORE) -> int:
    """Slots the run of notebook ``name`` takes out of ``jobs``: all of them when it is one of the
    chapters that run ``alone``, else one."""
    return jobs if name in alone else 1


def predecessors(runs: list[tuple[str, dict, Path]]) -> list[set[int]]:
    """For each run (its index in ``runs``), the indices of the runs it must follow: those of
    :data:`RUNS_AFTER` in the same output folder that come before it in ``runs`` ("*": all of them)."""
    out = []
    for i, (name, _, folder) in enumerate(runs):
        after = RUNS_AFTER.get(name, ())
        out.append({j for j, (other, _, other_folder) in enumerate(runs[:i])
                    if other_folder == folder and ("*" in after or other in after)})
    return out


def start_order(runs: list[tuple[str, dict, Path]], after: list[set[int]]) -> list[int]:
    """The runs' indices in the order :func:`run_all` offers them the free slots: longest chain of
    runs that must wait for it first (so the chain that bounds the build's wall time never waits
    for a slot), then the chapters that keep every core busy at paper scale (the longest ones),
    then plan order. A run always comes after every run it must follow (its chain is longer)."""
    followers: list[set[int]] = [set() for _ in runs]
    for i, preceding in enumerate(after):
        for j in preceding:
            followers[j].add(i)
    chain: dict[int, int] = {}
    for i in reversed(range(len(runs))):  # a run's followers come after it in the plan
        chain[i] = 1 + max((chain[j] for j in followers[i]), default=0)
    return sorted(range(len(runs)), key=lambda i: (-chain[i], runs[i][0] not in USES_EVERY_CORE, i))


BACKGROUND_NICE = 19  # the niceness of a background run: it gets the CPU time the foreground runs leave idle


def foreground_only(i: int, runs: list[tuple[str, dict, Path]], after: list[set[int]]) -> bool:
    """Whether run ``i`` must never go to the background: a run other than one that reads every other
    (the verdicts chapter) must follow it (in the background it would hold them up), or its chapter
    reports measured times (:data:`REPORTS_TIMES`: it would time what gets only the CPU time others leave
    idle)."""
    return runs[i][0] in REPORTS_TIMES or any(i in preceding and "*" not in RUNS_AFTER.get(runs[k][0], ())
                                           for k, preceding in enumerate(after))


class Step(NamedTuple):
    """What :func:`next_step` decides: the waiting runs to start in the foreground and in the
    background (indices), and the foreground runs to move to the background to make room."""

    foreground: list[int]
    background: list[int]
    demote: list[int]


def next_step(waiting: list[int], finished: set[int], tiers: dict[int, str], jobs: int,
              runs: list[tuple[str, dict, Path]], after: list[set[int]], rank: dict[int, int],
              alone: frozenset[str] = USES_EVERY_CORE) -> Step:
    """The runs to start now and the runs to move to the background, given the running runs' tiers
    (index -> "foreground" or "background") and each run's ``rank`` in :func:`start_order`.

    The waiting runs whose predecessors have all finished are taken in start order. Each gets a
    foreground slot (its :func:`width` of the ``jobs``) if enough are free, or if enough are held by
    foreground runs of lower rank that may run in the background (:func:`foreground_only`), which then move to the
    background (lowest rank first). For a run that could wait in the background, a running background
    run of higher rank counts as holding a slot (it is the one that runs on a free core: a niced
    process cannot be made un-niced). Otherwise a run that neither runs ``alone`` nor must stay in the
    foreground starts in the background when fewer than ``jobs`` runs are there.
    A background run is niced (:data:`BACKGROUND_NICE`), so it takes only the CPU time the foreground
    leaves idle (a chapter's single-threaded phases, its Dask start-up): the chain that bounds the
    build's wall time keeps the cores, and nothing waits that could run."""
    tiers = dict(tiers)
    free = jobs - sum(width(runs[j][0], jobs, alone) for j, t in tiers.items() if t == "foreground")
    step = Step([], [], [])
    for i in waiting:
        if not after[i] <= finished:
            continue
        need = width(runs[i][0], jobs, alone)
        # a background run of higher rank takes a slot left free before a run that could wait in the background
        background_ok = runs[i][0] not in alone and not foreground_only(i, runs, after)
        reserved = sum(t == "background" and rank[j] < rank[i] for j, t in tiers.items()) if background_ok else 0
        free -= reserved
        lower = sorted((j for j, t in tiers.items() if t == "foreground" and rank[j] > rank[i]
                        and not foreground_only(j, runs, after)), key=rank.get, reverse=True)
        moved = []
        while free < need and lower:
            moved.append(lower.pop(0))
            free += width(runs[moved[-1]][0], jobs, alone)
        if free >= need:
            for j in moved:
                tiers[j] = "background"
            step.demote.extend(moved)
            step.foreground.append(i)
            tiers[i] = "foreground"
            free += reserved - need
            continue
        free += reserved - sum(width(runs[j][0], jobs, alone) for j in moved)  # nothing moved after all
        if background_ok:
            if sum(t == "background" for t in tiers.values()) < jobs:
                step.background.append(i)
                tiers[i] = "background"
    return step


def run_all(runs: list[tuple[str, dict, Path]], execute_one: Callable[[str, dict, Path], object], jobs: int,
            report: Callable[[str], None] = print,
            alone: frozenset[str] = USES_EVERY_CORE) -> tuple[list[tuple[str, Path, float]], list[BaseException]]:
    """Execute every run with ``execute_one(name, parameters, folder)`` on ``jobs`` slots: with one
    slot in this process, in plan order; with more each in a process of its own (``execute_one``
    must then be picklable), offered the free slots in :func:`start_order` and started in the
    foreground or the background as :func:`next_step` decides (the chapters named in ``alone`` take
    every foreground slot). After the first failure no new run
    starts; running ones finish (nothing computed is lost). A run whose process dies fails with a
    :class:`RunDied` naming it, and its temporary run folder is removed. Returns (name, folder,
    seconds) per finished run, in finishing order, and the exceptions of the failed runs."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if jobs == 1:
        return _run_in_order(runs, execute_one, report)
    return _run_side_by_side(runs, execute_one, jobs, report, alone)


def _run_in_order(runs, execute_one, report):
    times = []
    for name, parameters, folder in runs:
        report(f"[runner] {name} ({parameters}) -> {folder}")
        start = time.perf_counter()
        try:
            execute_one(name, parameters, folder)
        except Exception as err:
            return times, [err]
        times.append((name, folder, time.perf_counter() - start))
        report(f"[runner] {name} done in {times[-1][2]:.1f} s")
    return times, []


class RunDied(RuntimeError):
    """The process running a chapter died (killed, out of memory) before the chapter finished."""


def run_folders(name: str, folder: Path) -> set[Path]:
    """The temporary run folders of notebook ``name`` in ``folder`` (``.run-<name>-*``, made by
    :func:`lib.book.runner.execute`)."""
    return set(Path(folder).glob(f".run-{name}-*"))


def died(name: str, folder: Path, before: set[Path]) -> RunDied:
    """The error of run ``name`` whose process died: its run folders that were not there
    ``before`` it started are removed (a killed process leaves its temporary folder behind)."""
    import shutil

    left = sorted(run_folders(name, folder) - before)
    for path in left:
        shutil.rmtree(path, ignore_errors=True)
    removed = f"its temporary run folder {left[0].name} was removed, " if len(left) == 1 else ""
    return RunDied(f"{name} stopped: the process running it died (killed, or out of memory) before it finished; "
                   f"{removed}its previous output in {folder} is untouched")


def nice_process(pid: int, niceness: int) -> None:
    """Lower process ``pid``'s priority to ``niceness`` (never raise it), and, where it leads a
    session of its own (a Jupyter kernel does), its session's scheduling group's too: where Linux
    groups processes by session (autogroups, ``/proc/<pid>/autogroup``), such a group shares the CPU
    with other sessions as a whole, whatever the niceness of its processes. The group of a process
    that shares its parent's session is left as it is (it is the runner's own). A process that has
    ended, or a system without autogroups, is passed over."""
    try:
        if os.getpriority(os.PRIO_PROCESS, pid) < niceness:
            os.setpriority(os.PRIO_PROCESS, pid, niceness)
        leads_session = os.getsid(pid) == pid
    except (ProcessLookupError, PermissionError):
        return
    if leads_session:
        try:
            with open(f"/proc/{pid}/autogroup", "w") as group:
                group.write(str(niceness))
        except OSError:
            pass


def _demote(pool, report: Callable[[str], None], name: str) -> None:
    """Nice the process running a pool's run and every process it started (its kernel, Dask workers)
    to :data:`BACKGROUND_NICE` (:func:`nice_process`); processes they start later inherit it."""
    import psutil

    for pid in list(pool._processes):  # the pool's one worker process
        try:
            tree = [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
        except psutil.NoSuchProcess:
            continue
        for member in tree:
            nice_process(member, BACKGROUND_NICE)
    report(f"[runner] {name} continues in the background (niced: it gets the CPU time the others leave idle)")


def _start_niced() -> None:
    """A background run's process initializer (its kernel inherits the niceness and gets its group's
    in :class:`lib.book.kernel_manager.QuietKernelManager`)."""
    nice_process(os.getpid(), BACKGROUND_NICE)


def _run_side_by_side(runs, execute_one, jobs, report, alone):
    """Each run in a process of its own (a one-process pool), so that a process that dies ends
    only its own run, which :func:`died` names; the tiers as :func:`next_step` decides them."""
    after = predecessors(runs)
    waiting = start_order(runs, after)
    rank = {i: r for r, i in enumerate(waiting)}
    finished, running, started = set(), {}, {}
    times, errors = [], []
    context = multiprocessing.get_context("spawn")
    try:
        while waiting or running:
            if not errors:
                tiers = {i: tier for i, _, _, tier in running.values()}
                step = next_step(waiting, finished, tiers, jobs, runs, after, rank, alone)
                for future, (i, pool, before, tier) in list(running.items()):
                    if i in step.demote:
                        _demote(pool, report, runs[i][0])
                        running[future] = (i, pool, before, "background")
                for i in step.foreground + step.background:
                    name, parameters, folder = runs[i]
                    tier = "foreground" if i in step.foreground else "background"
                    report(f"[runner] {name} started{' in the background' if tier == 'background' else ''} "
                           f"({parameters}) -> {folder}")
                    pool = ProcessPoolExecutor(max_workers=1, mp_context=context,
                                               **({"initializer": _start_niced} if tier == "background" else {}))
                    running[pool.submit(execute_one, name, parameters, folder)] = (i, pool, run_folders(name, folder),
                                                                                   tier)
                    started[i] = time.perf_counter()
                    waiting.remove(i)
            if not running:
                break  # after a failure: the runs still waiting are not started
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                i, pool, before, _ = running.pop(future)
                pool.shutdown()
                error = future.exception()
                if isinstance(error, BrokenProcessPool):
                    error = died(runs[i][0], runs[i][2], before)
                if error is not None:
                    errors.append(error)
                    continue
                finished.add(i)
                times.append((runs[i][0], runs[i][2], time.perf_counter() - started[i]))
                report(f"[runner] {runs[i][0]} done in {times[-1][2]:.1f} s")
    finally:
        for _, pool, _, _ in running.values():  # only on an exception here (e.g. KeyboardInterrupt)
            pool.shutdown(cancel_futures=True)
    return times, errors
