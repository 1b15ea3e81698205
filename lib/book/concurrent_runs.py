"""Which of the runner's notebook runs may execute at the same time, and running them so.

Book layer. :mod:`lib.book.runner` plans runs ``(notebook, parameters, output folder)``; this
module starts them on ``jobs`` slots (one per core by default), offering free slots first to the
longest chain of runs that must follow one another (:func:`start_order`), as soon as (i) every
run it must follow in the same output folder has finished and (ii) enough slots are free; each runs in a process of its own, so a process that dies (killed, out of memory) ends
only its own run, which is then named (:class:`RunDied`). A chapter that keeps every core busy for most of its run (:data:`USES_EVERY_CORE`: its Dask
sweeps start one worker per core) takes every slot at the book's own parameters, so it never shares
the cores; the other chapters run in one kernel on about one core and take one slot each, so two of
them can run side by side on two cores. In the quick profile (:data:`ALONE_IN_PROFILE`) no chapter
runs alone: its sweeps are too small to keep the cores busy (they are mostly start-up), and running
them beside other chapters fills the cores they leave idle.

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

from .chapters import every_core_chapters, runs_after


# chapters that keep every core busy and run alone, and the chapters each one starts after (declared
# in lib.book.chapters)
USES_EVERY_CORE = every_core_chapters()
# the chapters that run alone, per runner profile
ALONE_IN_PROFILE: dict[str, frozenset[str]] = {"full": USES_EVERY_CORE, "quick": frozenset()}
RUNS_AFTER: dict[str, tuple[str, ...]] = runs_after()


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


def next_runs(waiting: list[int], finished: set[int], busy_slots: int, jobs: int,
              runs: list[tuple[str, dict, Path]], after: list[set[int]],
              alone: frozenset[str] = USES_EVERY_CORE) -> list[int]:
    """The waiting runs (indices, in plan order) to start now: each whose predecessors have all
    finished and whose width (:func:`width`, with the chapters that run ``alone``) fits the slots
    still free, taken in order (a run that does not fit yet lets a narrower later one start)."""
    starting, free = [], jobs - busy_slots
    for i in waiting:
        need = width(runs[i][0], jobs, alone)
        if after[i] <= finished and need <= free:
            starting.append(i)
            free -= need
    return starting


def run_all(runs: list[tuple[str, dict, Path]], execute_one: Callable[[str, dict, Path], object], jobs: int,
            report: Callable[[str], None] = print,
            alone: frozenset[str] = USES_EVERY_CORE) -> tuple[list[tuple[str, Path, float]], list[BaseException]]:
    """Execute every run with ``execute_one(name, parameters, folder)`` on ``jobs`` slots: with one
    slot in this process, in plan order; with more each in a process of its own (``execute_one``
    must then be picklable), offered the free slots in :func:`start_order` and started as
    :func:`next_runs` allows (the chapters named in ``alone`` take every slot). After the first failure no new run
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


def _run_side_by_side(runs, execute_one, jobs, report, alone):
    """Each run in a process of its own (a one-process pool), so that a process that dies ends
    only its own run, which :func:`died` names."""
    after = predecessors(runs)
    waiting, finished, running, started = start_order(runs, after), set(), {}, {}
    times, errors = [], []
    context = multiprocessing.get_context("spawn")
    try:
        while waiting or running:
            if not errors:
                busy = sum(width(runs[j][0], jobs, alone) for j, _, _ in running.values())
                for i in next_runs(waiting, finished, busy, jobs, runs, after, alone):
                    name, parameters, folder = runs[i]
                    report(f"[runner] {name} started ({parameters}) -> {folder}")
                    pool = ProcessPoolExecutor(max_workers=1, mp_context=context)
                    running[pool.submit(execute_one, name, parameters, folder)] = (i, pool, run_folders(name, folder))
                    started[i] = time.perf_counter()
                    waiting.remove(i)
            if not running:
                break  # after a failure: the runs still waiting are not started
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                i, pool, before = running.pop(future)
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
        for _, pool, _ in running.values():  # only on an exception here (e.g. KeyboardInterrupt)
            pool.shutdown(cancel_futures=True)
    return times, errors
