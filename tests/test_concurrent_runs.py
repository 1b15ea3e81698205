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


def simulate(runs, jobs):
    """Event simulation of run_all's policy with DURATIONS: (name, start, end) per run."""
    after = cr.predecessors(runs)
    waiting, finished, running, clock, spans = list(range(len(runs))), set(), {}, 0.0, []
    while waiting or running:
        busy = sum(cr.width(runs[i][0], jobs) for i in running)
        for i in cr.next_runs(waiting, finished, busy, jobs, runs, after):
            running[i] = clock + DURATIONS[runs[i][0]]
            waiting.remove(i)
        assert running, f"deadlock: {[runs[i][0] for i in waiting]} can never start"
        i = min(running, key=running.get)
        spans.append((runs[i][0], running[i] - DURATIONS[runs[i][0]], running[i]))
        clock = running.pop(i)
        finished.add(i)
    return spans


@pytest.mark.parametrize("jobs", [1, 2, 3, 8])
def test_schedule_respects_dependencies_and_core_use(jobs):
    runs = [(name, {}, FOLDER) for name in NOTEBOOKS]
    spans = simulate(runs, jobs)
    assert sorted(n for n, _, _ in spans) == sorted(NOTEBOOKS)  # each run once
    span = {n: (s, e) for n, s, e in spans}
    for name, (start, _) in span.items():
        for first in cr.RUNS_AFTER.get(name, ()):
            for other in (NOTEBOOKS if first == "*" else [first]):
                if other != name:
                    assert span[other][1] <= start, f"{name} started before {other} finished"
    for name in cr.USES_EVERY_CORE:
        start, end = span[name]
        overlapping = [n for n, (s, e) in span.items() if n != name and s < end and e > start]
        assert not overlapping, f"{name} shares the cores with {overlapping}"
    at_once = max(sum(s <= t < e for s, e in span.values()) for t, _ in span.values())
    assert at_once <= jobs
    total = sum(DURATIONS.values())
    wall = max(e for _, e in span.values())
    assert wall == pytest.approx(total) if jobs == 1 else wall < total


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
    names = ["00_quickstart", "01_one_step_entk", "06_correlation_analysis", "07_reproduction_summary"]
    runs = [(name, {"fail": "00_quickstart", "sleep": 0.1 if name == "00_quickstart" else 0.5}, tmp_path)
            for name in names]
    times, errors = cr.run_all(runs, _fake_execute, jobs=2, report=lambda line: None)
    assert [str(e) for e in errors] == ["00_quickstart failed on purpose"]
    assert [n for n, _, _ in times] == ["01_one_step_entk"]  # was running: it finished
    assert not (tmp_path / "06_correlation_analysis.json").exists()
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


def test_the_start_order_keeps_two_cores_busy_with_the_measured_times():
    """With the measured chapter times (full profile, 2 cores), the start order finishes the
    one-core chapters between the continuum and the correlation chapter within a second of
    half their summed time (the best two cores can do): the order, not luck, keeps both busy."""
    spans = simulate([(name, {}, FOLDER) for name in NOTEBOOKS], 2)
    span = {n: (s, e) for n, s, e in spans}
    one_core = [n for n in NOTEBOOKS if n not in cr.USES_EVERY_CORE and n != "07_reproduction_summary"]
    phase = max(span[n][1] for n in one_core) - span["10_rich_lazy_continuum"][1]
    assert phase <= sum(DURATIONS[n] for n in one_core) / 2 + 1
