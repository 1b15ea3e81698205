"""The runner's concurrent schedule: dependencies and core use respected, every run started once,
no new run after a failure (lib.book.concurrent_runs)."""

import json
import time
from pathlib import Path

import pytest

from lib.book import concurrent_runs as cr
from lib.book.notebook_sources import NOTEBOOKS

FOLDER = Path("/out")
# the full profile's chapter times on 2 cores, side by side where they may (seconds; any positive numbers would do)
DURATIONS = {"00_quickstart": 12, "01_one_step_entk": 12, "02_smg_validation": 13, "03_epntk": 24,
             "04_multitask_representations": 106, "05_multitask_performance": 31, "06_correlation_analysis": 163,
             "08_entk_over_training": 241, "09_your_own_network": 28, "10_rich_lazy_continuum": 382,
             "11_explorer": 11, "12_prediction_horizon": 344, "13_rival_theories": 82, "07_reproduction_summary": 8}


# the quick profile's, measured the same way (seconds)
QUICK_DURATIONS = {"00_quickstart": 14, "01_one_step_entk": 16, "02_smg_validation": 17, "03_epntk": 20,
                   "04_multitask_representations": 75, "05_multitask_performance": 44, "06_correlation_analysis": 45,
                   "08_entk_over_training": 87, "09_your_own_network": 32, "10_rich_lazy_continuum": 58,
                   "11_explorer": 15, "12_prediction_horizon": 80, "13_rival_theories": 39,
                   "07_reproduction_summary": 10}
# the chains of chapters that read each other's results (lib.book.chapters), for the wall time's lower bound
CHAINS = [("10_rich_lazy_continuum", "05_multitask_performance", "06_correlation_analysis", "12_prediction_horizon",
           "07_reproduction_summary"),
          ("04_multitask_representations", "06_correlation_analysis", "12_prediction_horizon", "07_reproduction_summary")]


def simulate(runs, jobs, alone=cr.USES_EVERY_CORE, durations=None, order=None):
    """Event simulation of run_all's policy with ``durations`` (default DURATIONS): (name, start,
    end) per run; the runs offered the slots in ``order`` (default: run_all's start order)."""
    durations = DURATIONS if durations is None else durations
    after = cr.predecessors(runs)
    waiting = cr.start_order(runs, after) if order is None else list(order)
    finished, running, clock, spans = set(), {}, 0.0, []
    while waiting or running:
        busy = sum(cr.width(runs[i][0], jobs, alone) for i in running)
        for i in cr.next_runs(waiting, finished, busy, jobs, runs, after, alone):
            running[i] = clock + durations[runs[i][0]]
            waiting.remove(i)
        assert running, f"deadlock: {[runs[i][0] for i in waiting]} can never start"
        i = min(running, key=running.get)
        spans.append((runs[i][0], running[i] - durations[runs[i][0]], running[i]))
        clock = running.pop(i)
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
    runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
    spans = simulate(runs, jobs)
    assert sorted(n for n, _, _ in spans) == sorted(NOTEBOOKS)  # each run once
    span = {n: (s, e) for n, s, e in spans}
    assert_readers_start_after_what_they_read(span)
    for name in cr.USES_EVERY_CORE:
        start, end = span[name]
        overlapping = [n for n, (s, e) in span.items() if n != name and s < end and e > start]
        assert not overlapping, f"{name} shares the cores with {overlapping}"
    at_once = max(sum(s <= t < e for s, e in span.values()) for t, _ in span.values())
    assert at_once <= jobs
    total = sum(DURATIONS.values())
    wall = max(e for _, e in span.values())
    assert wall == pytest.approx(total) if jobs == 1 else wall < total


def test_in_the_quick_profile_no_chapter_runs_alone_and_dependencies_still_hold():
    runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
    assert cr.ALONE_IN_PROFILE["full"] == cr.USES_EVERY_CORE and cr.ALONE_IN_PROFILE["quick"] == frozenset()
    from lib.book.runner import PROFILES
    assert set(cr.ALONE_IN_PROFILE) == set(PROFILES)  # every profile says which chapters run alone
    spans = simulate(runs, 2, alone=cr.ALONE_IN_PROFILE["quick"])
    span = {n: (s, e) for n, s, e in spans}
    assert_readers_start_after_what_they_read(span)
    shared = [name for name in cr.USES_EVERY_CORE
              if any(n != name and s < span[name][1] and e > span[name][0] for n, (s, e) in span.items())]
    assert shared, "in the quick profile some chapter that runs alone in the full one should share the cores"
    assert max(e for _, e in span.values()) < max(e for _, _, e in simulate(runs, 2))


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
    assert order.index("12_prediction_horizon") < order.index("08_entk_over_training")  # same chain: every core first
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
    start = time.time()
    time.sleep(parameters.get("sleep", 0.2))
    (Path(folder) / f"{name}.json").write_text(json.dumps({"start": start, "end": time.time()}))
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
    assert not any(s["start"] < alone["end"] and s["end"] > alone["start"] for n, s in span.items()
                   if n != "06_correlation_analysis")
    # 02 and 00 ran side by side (both ready at once, one slot each)
    assert span["00_quickstart"]["start"] < span["02_smg_validation"]["end"]
    assert any("started" in line for line in lines) and any("done in" in line for line in lines)


def test_run_all_starts_nothing_after_a_failure_and_lets_running_runs_finish(tmp_path):
    names = ["00_quickstart", "01_one_step_entk", "02_smg_validation", "07_reproduction_summary"]
    runs = [(name, {"fail": "00_quickstart", "sleep": 0.1 if name == "00_quickstart" else 0.5}, tmp_path)
            for name in names]
    times, errors = cr.run_all(runs, _fake_execute, jobs=2, report=lambda line: None)
    assert [str(e) for e in errors] == ["00_quickstart failed on purpose"]
    assert [n for n, _, _ in times] == ["01_one_step_entk"]  # was running: it finished
    assert not (tmp_path / "02_smg_validation.json").exists()
    assert not (tmp_path / "07_reproduction_summary.json").exists()


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
    simulated wall time is within 5% of its lower bound (the chapters that run alone one after
    another, plus half the others' summed time, or the longest chain of readers if longer). Plan
    order (the chapters' declared order) leaves the quick profile more than 20% above it."""
    for durations, alone in ((DURATIONS, cr.ALONE_IN_PROFILE["full"]), (QUICK_DURATIONS, cr.ALONE_IN_PROFILE["quick"])):
        runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
        wall = max(e for _, _, e in simulate(runs, 2, alone, durations))
        in_plan_order = max(e for _, _, e in simulate(runs, 2, alone, durations, order=range(len(runs))))
        chain = max(sum(durations[n] for n in path) for path in CHAINS)
        shared = sum(d for n, d in durations.items() if n not in alone)
        bound = max(chain, sum(durations[n] for n in alone) + shared / 2)
        assert wall <= 1.05 * bound, (wall, bound)
        if durations is QUICK_DURATIONS:
            assert in_plan_order > 1.2 * bound, (in_plan_order, bound)
