"""The runner's concurrent schedule: dependencies and core use respected, every run started once,
no new run after a failure (lib.book.concurrent_runs)."""

import json
import time
from pathlib import Path

import pytest

from lib.book import concurrent_runs as cr
from lib.book.notebook_sources import NOTEBOOKS

FOLDER = Path("/out")
# the full profile's chapter times on 2 cores (a build from an empty cache on the 2-core AMD EPYC, side by side where
# they may; seconds; any positive numbers would do)
DURATIONS = {"00_quickstart": 21, "01_one_step_entk": 17, "02_smg_validation": 21, "03_epntk": 33,
             "04_multitask_representations": 153, "05_multitask_performance": 487, "06_correlation_analysis": 390,
             "08_entk_over_training": 387, "09_your_own_network": 50, "10_rich_lazy_continuum": 528,
             "11_explorer": 21, "12_prediction_horizon": 567, "13_rival_theories": 119, "07_reproduction_summary": 16}


# the quick profile's, measured the same way (seconds)
QUICK_DURATIONS = {"00_quickstart": 27, "01_one_step_entk": 18, "02_smg_validation": 15, "03_epntk": 22,
                   "04_multitask_representations": 89, "05_multitask_performance": 35, "06_correlation_analysis": 63,
                   "08_entk_over_training": 90, "09_your_own_network": 80, "10_rich_lazy_continuum": 63,
                   "11_explorer": 21, "12_prediction_horizon": 143, "13_rival_theories": 38,
                   "07_reproduction_summary": 15}
# the share of its slots a chapter that takes every slot keeps busy (its CPU seconds over slots x wall time, in the
# same full build): the rest is idle time (single-threaded phases, Dask start-up) the background can use
BUSY = {"10_rich_lazy_continuum": 0.91, "06_correlation_analysis": 0.65, "12_prediction_horizon": 0.85}
# the chains of chapters that read each other's results (lib.book.chapters), for the wall time's lower bound
CHAINS = [("10_rich_lazy_continuum", "05_multitask_performance", "06_correlation_analysis", "12_prediction_horizon",
           "07_reproduction_summary"),
          ("04_multitask_representations", "06_correlation_analysis", "12_prediction_horizon", "07_reproduction_summary")]


def simulate(runs, jobs, alone=cr.USES_EVERY_CORE, durations=None, order=None, busy=None):
    """Event simulation of run_all's policy with ``durations`` (default DURATIONS, seconds of a run
    in the foreground): (name, start, end, foreground intervals) per run, in finishing order; the
    runs ranked in ``order`` (default: run_all's start order). A foreground run progresses at rate 1
    and keeps its slots busy (the ``busy`` share of them for a chapter that runs alone, default
    BUSY); the background runs share what the foreground leaves idle (each at most rate 1), the CPU
    time a niced run gets."""
    busy = BUSY if busy is None else busy
    durations = DURATIONS if durations is None else durations
    after = cr.predecessors(runs)
    waiting = cr.start_order(runs, after) if order is None else list(order)
    rank = {i: r for r, i in enumerate(waiting)}
    if jobs == 1:  # run_all runs them one after another, in plan order
        clock, spans = 0.0, []
        for name, _, _ in runs:
            spans.append((name, clock, clock + durations[name], [(clock, clock + durations[name])]))
            clock += durations[name]
        return spans
    finished, tiers, left, started, fg_since, fg_spans, spans, clock = set(), {}, {}, {}, {}, {}, [], 0.0
    while waiting or tiers:
        step = cr.next_step(waiting, finished, tiers, jobs, runs, after, rank, alone)
        for j in step.demote:
            tiers[j] = "background"
            fg_spans[j].append((fg_since.pop(j), clock))
        for i in step.foreground + step.background:
            tiers[i], left[i], started[i], fg_spans[i] = ("foreground" if i in step.foreground else "background",
                                                          float(durations[runs[i][0]]), clock, [])
            if tiers[i] == "foreground":
                fg_since[i] = clock
            waiting.remove(i)
        free = jobs - sum(cr.width(runs[i][0], jobs, alone) * (busy.get(runs[i][0], 1.0) if runs[i][0] in alone else 1)
                          for i, t in tiers.items() if t == "foreground")
        background = [i for i, t in tiers.items() if t == "background"]
        rate = {i: 1.0 if t == "foreground" else min(1.0, free / len(background)) for i, t in tiers.items()}
        moving = [i for i in tiers if rate[i] > 0]
        assert moving, f"deadlock: {[runs[i][0] for i in waiting]} can never start"
        dt = min(left[i] / rate[i] for i in moving)
        clock += dt
        for i in moving:
            left[i] -= dt * rate[i]
        for i in [i for i in moving if left[i] <= 1e-9]:
            if i in fg_since:
                fg_spans[i].append((fg_since.pop(i), clock))
            spans.append((runs[i][0], started[i], clock, fg_spans[i]))
            del tiers[i]
            finished.add(i)
    return spans


def assert_readers_start_after_what_they_read(span: dict) -> None:
    """Every chapter in ``span`` (name -> (start, end)) starts after the chapters it reads have finished."""
    for name, (start, _) in span.items():
        for first in cr.RUNS_AFTER.get(name, ()):
            for other in (NOTEBOOKS if first == "*" else [first]):
                if other != name:
                    assert span[other][1] <= start, f"{name} started before {other} finished"


@pytest.mark.parametrize("jobs", [1, 2, 3, 8])
def test_schedule_respects_dependencies_and_core_use(jobs):
    """Each run once, each after what it reads; no foreground run beside one that takes every slot, at
    most ``jobs`` foreground slots and ``jobs`` runs started in the background at once."""
    runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
    spans = simulate(runs, jobs)
    assert sorted(n for n, _, _, _ in spans) == sorted(NOTEBOOKS)  # each run once
    span = {n: (s, e) for n, s, e, _ in spans}
    foreground = {n: f for n, _, _, f in spans}
    assert_readers_start_after_what_they_read(span)
    for name in cr.USES_EVERY_CORE:
        start, end = span[name]
        assert foreground[name] == [(start, end)] or jobs == 1
        overlapping = [n for n, f in foreground.items() if n != name for s, e in f if s < end and e > start]
        assert not overlapping, f"{name} shares the foreground with {overlapping}"
    moments = sorted({t for f in foreground.values() for t, _ in f})
    for t in moments:
        in_front = [n for n, f in foreground.items() for s, e in f if s <= t < e]
        assert sum(cr.width(n, jobs) for n in in_front) <= jobs, (t, in_front)
    total = sum(DURATIONS.values())
    wall = max(e for _, e in span.values())
    assert wall == pytest.approx(total) if jobs == 1 else wall < total


def test_next_step_fills_the_background_and_moves_lower_ranks_out_of_the_way():
    """A run with no free foreground slot starts in the background (up to jobs runs there); a chapter
    that takes every slot moves lower-ranked foreground runs to the background, never higher-ranked
    ones, and never starts in the background itself."""
    names = ["06_correlation_analysis", "13_rival_theories", "00_quickstart", "01_one_step_entk",
             "02_smg_validation", "03_epntk"]
    runs = [(name, {}, FOLDER) for name in names]
    after, rank = [set() for _ in runs], {i: i for i in range(len(runs))}
    step = cr.next_step([2, 3, 4, 5], set(), {}, 2, runs, after, rank)
    assert step == cr.Step([2, 3], [4, 5], [])
    step = cr.next_step([0], set(), {2: "foreground", 3: "foreground", 4: "background"}, 2, runs, after, rank)
    assert step == cr.Step([0], [], [3, 2])  # the lowest rank moves first
    step = cr.next_step([1], set(), {0: "foreground", 2: "background"}, 2, runs, after, rank)
    assert step == cr.Step([], [1], [])  # 06 holds every slot: 13 waits in the background
    step = cr.next_step([0], set(), {1: "foreground"}, 2, runs, {**dict(enumerate(after)), 0: {5}}, rank)
    assert step == cr.Step([], [], [])  # not ready
    higher = {0: "foreground"}
    runs_after_06 = [("13_rival_theories", {}, FOLDER), ("06_correlation_analysis", {}, FOLDER)]
    step = cr.next_step([1], set(), higher, 2, runs_after_06, [set(), set()], {0: 0, 1: 1})
    assert step == cr.Step([], [], [])  # 13 ranks higher: 06 waits, and never in the background
    chained = [("00_quickstart", {}, FOLDER), ("01_one_step_entk", {}, FOLDER), ("02_smg_validation", {}, FOLDER),
               ("03_epntk", {}, FOLDER), ("07_reproduction_summary", {}, FOLDER)]
    chained_after = [set(), set(), set(), {2}, {0, 1, 2, 3}]
    step = cr.next_step([2], set(), {0: "foreground", 1: "foreground"}, 2, chained, chained_after,
                        {i: i for i in range(5)})
    assert step == cr.Step([], [], [])  # 03 waits for 02: 02 never goes to the background, nor is moved there
    assert cr.foreground_only(2, chained, chained_after) and not cr.foreground_only(1, chained, chained_after)
    # pages that report measured times: eNTK speeds, the kernels' compute time, the explorer's redraw time
    assert cr.REPORTS_TIMES == {"08_entk_over_training", "09_your_own_network", "11_explorer"}
    timed = [("00_quickstart", {}, FOLDER), ("01_one_step_entk", {}, FOLDER), ("09_your_own_network", {}, FOLDER)]
    step = cr.next_step([2], set(), {0: "foreground", 1: "foreground"}, 2, timed, [set()] * 3, {0: 0, 1: 1, 2: 2})
    assert step == cr.Step([], [], [])  # it waits for a foreground slot


def test_in_the_quick_profile_no_chapter_runs_alone_and_dependencies_still_hold():
    runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
    assert cr.ALONE_IN_PROFILE["full"] == cr.USES_EVERY_CORE and cr.ALONE_IN_PROFILE["quick"] == frozenset()
    from lib.book.runner import PROFILES
    assert set(cr.ALONE_IN_PROFILE) == set(PROFILES)  # every profile says which chapters run alone
    spans = simulate(runs, 2, alone=cr.ALONE_IN_PROFILE["quick"])
    span = {n: (s, e) for n, s, e, _ in spans}
    assert_readers_start_after_what_they_read(span)
    shared = [name for name in cr.USES_EVERY_CORE
              if any(n != name and s < span[name][1] and e > span[name][0] for n, (s, e) in span.items())]
    assert shared, "in the quick profile some chapter that runs alone in the full one should share the cores"
    assert max(e for _, e in span.values()) <= max(e for _, _, e, _ in simulate(runs, 2))


def test_the_longest_chain_of_readers_gets_the_cores_first():
    """start_order: the continuum (read by 05, 06 via 05, 12 via 06, 13) before everything; each run
    after every run it follows; the chain's runs ahead of chapters of the same chain length that use
    one core; and with the quick profile's durations the chain no longer waits behind them."""
    runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
    after = cr.predecessors(runs)
    order = [runs[i][0] for i in cr.start_order(runs, after)]
    assert order[0] == "10_rich_lazy_continuum" and order[-1] == "07_reproduction_summary"
    for i, preceding in enumerate(after):
        assert all(order.index(runs[j][0]) < order.index(runs[i][0]) for j in preceding)
    assert order.index("12_prediction_horizon") < order.index("13_rival_theories")  # same chain: every core first
    assert sorted(order) == sorted(NOTEBOOKS)
    assert cr.start_order([], []) == []


def test_dependencies_hold_within_each_output_folder_only():
    runs = [("02_smg_validation", {}, Path("/a")), ("03_epntk", {}, Path("/b")), ("03_epntk", {}, Path("/a"))]
    assert cr.predecessors(runs) == [set(), set(), {0}]
    runs = [(name, {}, Path("/a")) for name in ("00_quickstart", "01_one_step_entk", "07_reproduction_summary")]
    assert cr.predecessors(runs)[-1] == {0, 1}


def test_every_named_chapter_exists():
    named = set(cr.USES_EVERY_CORE) | set(cr.RUNS_AFTER) | {n for v in cr.RUNS_AFTER.values() for n in v} - {"*"}
    assert named <= set(NOTEBOOKS)
    assert NOTEBOOKS[-1] == "07_reproduction_summary"  # sequential order (jobs = 1) stays valid


def _fake_execute(name, parameters, folder):
    """Record start and end times in folder; fail for the run named in parameters['fail']."""
    import os

    start = time.time()
    time.sleep(parameters.get("sleep", 0.2))
    (Path(folder) / f"{name}.json").write_text(json.dumps({"start": start, "end": time.time(), "nice": os.nice(0)}))
    if parameters.get("fail") == name:
        raise RuntimeError(f"{name} failed on purpose")
    return name


def test_run_all_executes_in_processes_with_the_schedule(tmp_path):
    names = ["02_smg_validation", "03_epntk", "00_quickstart", "06_correlation_analysis", "07_reproduction_summary"]
    # 02 and 00 last 2 s: longer than starting a chapter's own process, so they overlap on any machine
    runs = [(name, {"sleep": 2.0} if name in ("02_smg_validation", "00_quickstart") else {}, tmp_path)
            for name in names]
    lines = []
    times, errors = cr.run_all(runs, _fake_execute, jobs=2, report=lines.append)
    assert errors == [] and sorted(n for n, _, _ in times) == sorted(names)
    span = {n: json.loads((tmp_path / f"{n}.json").read_text()) for n in names}
    assert span["03_epntk"]["start"] >= span["02_smg_validation"]["end"]
    assert span["07_reproduction_summary"]["start"] >= max(s["end"] for n, s in span.items() if n != "07_reproduction_summary")
    alone = span["06_correlation_analysis"]
    beside = [n for n, s in span.items() if n != "06_correlation_analysis" and s["start"] < alone["end"]
              and s["end"] > alone["start"]]
    assert all(span[n]["nice"] == cr.BACKGROUND_NICE for n in beside), beside  # only niced runs beside it
    # 02 and 00 ran side by side (both ready at once, one slot each)
    assert span["00_quickstart"]["start"] < span["02_smg_validation"]["end"]
    assert any("started" in line for line in lines) and any("done in" in line for line in lines)


def test_run_all_starts_nothing_after_a_failure_and_lets_running_runs_finish(tmp_path):
    """With two slots, four runs start at once (two in the background); the first fails: the three
    others finish, and the runs still waiting never start."""
    names = ["00_quickstart", "01_one_step_entk", "13_rival_theories", "03_epntk", "09_your_own_network",
             "07_reproduction_summary"]
    runs = [(name, {"fail": "00_quickstart", "sleep": 0.1 if name == "00_quickstart" else 0.5}, tmp_path)
            for name in names]
    lines = []
    times, errors = cr.run_all(runs, _fake_execute, jobs=2, report=lines.append)
    assert [str(e) for e in errors] == ["00_quickstart failed on purpose"]
    assert sorted(n for n, _, _ in times) == ["01_one_step_entk", "03_epntk", "13_rival_theories"]  # were running
    assert sum("started in the background" in line for line in lines) == 2
    assert not (tmp_path / "09_your_own_network.json").exists()
    assert not (tmp_path / "07_reproduction_summary.json").exists()


def _report_niceness(name, parameters, folder):
    import os

    (Path(folder) / f"{name}.nice").write_text(str(os.nice(0)))
    time.sleep(parameters.get("sleep", 0.2))
    return name


def test_runs_started_in_the_background_are_niced(tmp_path):
    """With two slots, the third of three runs ready at once starts in the background, at BACKGROUND_NICE."""
    names = ["00_quickstart", "01_one_step_entk", "02_smg_validation"]
    runs = [(name, {"sleep": 1.0}, tmp_path) for name in names]
    times, errors = cr.run_all(runs, _report_niceness, jobs=2, report=lambda line: None)
    assert errors == []
    nice = {n: int((tmp_path / f"{n}.nice").read_text()) for n in names}
    assert nice == {"00_quickstart": 0, "01_one_step_entk": 0, "02_smg_validation": cr.BACKGROUND_NICE}


def test_a_demoted_run_and_its_children_are_niced():
    """A foreground run moved to the background is niced with the processes it started (its kernel)."""
    import subprocess
    import sys
    from concurrent.futures import ProcessPoolExecutor

    import psutil

    with ProcessPoolExecutor(max_workers=1) as pool:
        future = pool.submit(subprocess.run, [sys.executable, "-c", "import time; time.sleep(3)"])
        deadline = time.time() + 30
        while not any(psutil.Process(pid).children() for pid in pool._processes) and time.time() < deadline:
            time.sleep(0.05)
        lines = []
        cr._demote(pool, lines.append, "08_entk_over_training")
        (pid,) = pool._processes
        tree = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        assert len(tree) == 2 and all(p.nice() == cr.BACKGROUND_NICE for p in tree)
        assert lines == ["[runner] 08_entk_over_training continues in the background (niced: it gets the CPU time "
                         "the others leave idle)"]
        future.result()


def test_bad_jobs_is_refused():
    with pytest.raises(ValueError, match="jobs must be"):
        cr.run_all([], _fake_execute, jobs=0)


def test_each_kernel_gets_its_own_ipc_sockets():
    """Two kernels started at once in one folder must not pick the same IPC socket paths."""
    import os
    import tempfile

    from lib.book.kernel_manager import QuietKernelManager

    paths = {QuietKernelManager().ip for _ in range(3)}
    assert len(paths) == 3
    assert all(os.path.dirname(p) == tempfile.gettempdir() and len(p) + 3 < 100 for p in paths)  # AF_UNIX limit


def test_the_start_order_comes_within_5_percent_of_what_two_cores_can_do_with_the_measured_times():
    """With the measured chapter times of the full and the quick profile on 2 cores, the build's
    simulated wall time is within 5% of its lower bound (the longest chain of readers, or the CPU
    time of every run shared by the two cores, if longer). Plan order (the chapters' declared order)
    leaves the quick profile more than 10% above it, and keeping every run in the foreground (no
    background) leaves the full one more than 5% above it."""
    for durations, alone in ((DURATIONS, cr.ALONE_IN_PROFILE["full"]), (QUICK_DURATIONS, cr.ALONE_IN_PROFILE["quick"])):
        runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
        wall = max(e for _, _, e, _ in simulate(runs, 2, alone, durations))
        in_plan_order = max(e for _, _, e, _ in simulate(runs, 2, alone, durations, order=range(len(runs))))
        chain = max(sum(durations[n] for n in path) for path in CHAINS)
        cpu = sum(d * (2 * BUSY.get(n, 1.0) if n in alone else 1) for n, d in durations.items())
        bound = max(chain, cpu / 2)
        assert wall <= 1.05 * bound, (wall, bound)
        if durations is QUICK_DURATIONS:
            assert in_plan_order > 1.1 * bound, (in_plan_order, bound)
        else:
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(cr, "foreground_only", lambda *args: True)  # nothing in the background
                in_front = max(e for _, _, e, _ in simulate(runs, 2, alone, durations))
            assert in_front > 1.05 * bound, (in_front, bound)
