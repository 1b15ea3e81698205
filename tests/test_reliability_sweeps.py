"""Reliability of sweeps and of the runner's side-by-side chapters (issue 39): stalls that end,
bounded sweep points, counts that are the truth, and a killed chapter process that is named.

- a SIGSTOPped worker of a local cluster with a short ``worker_ttl_s`` is restarted by the
  scheduler and its point resubmitted, before the time the sweep's report states has passed
  (a watchdog resumes the worker at that time, so the test cannot hang);
- sweep points with sizes above the chapters' sane bounds are refused before any cluster starts,
  unless ``allow_large`` (which then holds on the worker too);
- points that are the same cache entry are computed once and reported so, and an entry another
  process wrote while the sweep ran is counted as loaded, not computed;
- a ``--jobs 2`` chapter whose process is killed is named in one line, its run folder removed,
  while the chapter beside it finishes.
"""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import dask
import numpy as np
import pytest

from lib.book import concurrent_runs as cr
from lib.book import sweep_command
from lib.core import cache_key, results
from lib.core.validation import ALLOW_LARGE_ENV, check_size, large_runs_allowed
from lib.experiments import sweep, sweep_cluster
from lib.experiments.sweep_watch import ClusterState, StallMonitor, Watch, drop_after_s, dropping_text

PAIR = "lib.experiments.sweep_points:pair_final_losses"


def no_cluster(*args, **kwargs):
    raise AssertionError("a cluster was started")


# --- a silent worker is dropped and its point resubmitted within the stated time -----------------


@pytest.mark.alone
def test_a_stopped_worker_is_dropped_and_its_point_resubmitted_within_the_stated_time(tmp_path, monkeypatch):
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path / "results"))
    marker, messages, resumed = tmp_path / "stopped-pid", [], []
    deadline_s = drop_after_s(2.0, 1)  # what the report promises for this cluster

    def resume_after_the_stated_time():  # never needed when the promise holds; keeps the test finite
        while not marker.exists():
            time.sleep(0.05)
        stopped = time.monotonic()
        while time.monotonic() - stopped < deadline_s and not any("left the cluster" in m for m in messages):
            time.sleep(0.1)
        if not any("left the cluster" in m for m in messages):
            resumed.append(True)
            os.kill(int(marker.read_text()), signal.SIGCONT)

    def stops_itself_once(parameters: dict) -> dict:
        """The first call: write this worker's pid, then SIGSTOP it (a hung worker: no heartbeats).
        Defined here, so that it travels by value and a worker imports nothing for it."""
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGSTOP)
        (tmp_path / "computed-pid").write_text(str(os.getpid()))
        return {"x": np.array(parameters["x"])}

    # the workers import the sweep engine before they join: an import takes seconds on a busy machine
    # and would hold back heartbeats (this short worker-ttl would then restart healthy workers)
    with dask.config.set({"distributed.worker.preload": ["lib.experiments.sweep"]}), \
            sweep_cluster.dask_client(n_workers=1, worker_ttl_s=2.0) as client:
        watchdog = threading.Thread(target=resume_after_the_stated_time, daemon=True)
        watchdog.start()
        report = sweep.sweep([{"x": 7}], stops_itself_once, name="stopped_ttl", client=client, progress=False,
                             watch=Watch(check_s=0.2, heartbeat_s=1.0, stall_s=120), log=messages.append)
        watchdog.join()
    assert not resumed, f"the stopped worker was not dropped within the stated {deadline_s:.0f} s: {messages}"
    assert report.ok and report.computed == [{"x": 7}]
    assert (tmp_path / "computed-pid").read_text() != marker.read_text()  # resubmitted to the restarted worker
    # the stopped worker is reported silent once, with the promise; its restarted successor (another
    # address) may be reported too while it starts on a busy machine, and then as responding again
    silent = [m for m in messages if "has sent no heartbeat" in m]
    stopped_address = silent[0].split()[2] if silent else None  # "[sweep] worker <address> (name 0) has sent ..."
    assert silent and sum(stopped_address in m for m in silent) == 1 and silent[0].endswith(
        f"nothing is stopped: the scheduler restarts or drops it at the latest {deadline_s:.0f} s after its last "
        "heartbeat (distributed.scheduler.worker-ttl 2 s) and resubmits its points"), messages


def test_the_stated_drop_time_follows_the_schedulers_rule():
    assert drop_after_s(300, 4) == 300 + 300 + 30  # Dask's default worker-ttl: not 5 minutes but up to 10.5
    assert drop_after_s(2, 4) == 5 + 2 + 30  # a silent worker counts after 10 heartbeat intervals (0.5 s) at least
    assert "never drops it" in dropping_text(None, 2)
    assert "at the latest 630 s" in dropping_text(300.0, 4)
    assert "5 min" not in dropping_text()  # unknown ttl: no number promised


def test_the_monitor_states_the_drop_time_it_is_given():
    watcher = StallMonitor(Watch(check_s=1, heartbeat_s=10, stall_s=100), {"k": {"x": 1}}, 0.0, dropping_text(60, 2))
    watcher.check(ClusterState({"A": 0.0}, {}, {"A": ["k"]}), ["k"], 0)
    [message] = watcher.check(ClusterState({"A": 0.0}, {}, {"A": ["k"]}), ["k"], 11)
    assert message.endswith("at the latest 150 s after its last heartbeat (distributed.scheduler.worker-ttl 60 s) "
                            "and resubmits its points")


def test_worker_ttl_is_refused_for_an_existing_scheduler_and_checked(results_tmp, capsys, monkeypatch):
    with pytest.raises(ValueError, match="worker_ttl_s configures the local cluster only"):
        sweep_cluster.dask_client("tcp://127.0.0.1:1", worker_ttl_s=5).__enter__()
    monkeypatch.setattr(sweep, "dask_client", no_cluster)
    with pytest.raises(ValueError, match=r"worker_ttl_s must be a number of seconds > 0, got 0"):
        sweep.sweep([{"x": 1}], square_once, worker_ttl_s=0)
    code = sweep_command.main(["--function", PAIR, "--grid", "seed=0", "--worker-ttl", "5", "--scheduler",
                               "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and err == ["[sweep] error: --worker-ttl configures the local cluster; it cannot be combined "
                                 "with --scheduler/$REPRO_DASK_SCHEDULER"]


# --- sweep points have the chapters' upper bounds, checked before anything is submitted ----------


@pytest.mark.parametrize("point, name", [
    ({"seed": 0, "n_iterations": 10**12}, "n_iterations"),
    ({"seed": 0, "n_hidden": 10**6}, "n_hidden"),
])
def test_a_huge_sweep_point_is_refused_before_any_cluster(point, name, results_tmp, capsys, monkeypatch):
    monkeypatch.delenv(ALLOW_LARGE_ENV, raising=False)
    monkeypatch.setattr(sweep, "dask_client", no_cluster)
    with pytest.raises(ValueError, match=rf"{name} must be an integer in \[1, \d+\] .*pass --allow-large to "
                                         r"python -m lib.book.sweep_command \(or allow_large=True to sweep\)"):
        sweep.sweep([point], PAIR)
    grid = ",".join(f"{k}={v}" for k, v in point.items())
    code = sweep_command.main(["--function", PAIR, *sum((["--grid", g] for g in grid.split(",")), [])])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith(f"[sweep] error: point {point}: {name} must be"), err


def test_a_schedule_point_of_too_many_iterations_is_refused():
    from lib.core.engines import DEFAULT_ENGINE, check_engine

    point = {"env": [3, 3, 3], "schedule": "LR", "seeds": [0], "n_iterations": 10**9, "n_hidden": 20,
             "split": "iid", "large_scaling": "both_layers", "engine_tag": check_engine("engine", DEFAULT_ENGINE).tag}
    with pytest.raises(ValueError, match=r"n_iterations must be an integer in \[1, 100000\]"):
        sweep.plan_function_sweep([point], "lib.experiments.sweep_points:schedule_point", allow_large=False)


def large_point(parameters: dict) -> dict:
    """A point function with a sane bound of 10 on ``n``; returns whether large runs were allowed."""
    check_size("n", parameters["n"], minimum=1, sane_maximum=10)
    return {"allowed": np.array(large_runs_allowed())}


large_point.check_parameters = lambda p: {"n": check_size("n", p["n"], minimum=1, sane_maximum=10)}


def test_allow_large_passes_planning_and_holds_on_the_worker(monkeypatch):
    monkeypatch.delenv(ALLOW_LARGE_ENV, raising=False)
    with pytest.raises(ValueError, match="n must be an integer in"):
        sweep.plan_function_sweep([{"n": 11}], large_point)
    plan = sweep.plan_function_sweep([{"n": 11}], large_point, allow_large=True)
    assert plan.target({"n": 11}) == {"allowed": np.array(True)}  # as a worker calls it, without the env variable
    assert ALLOW_LARGE_ENV not in os.environ


def test_a_notebook_sweep_point_is_range_checked_before_any_cluster(results_tmp, tmp_path, monkeypatch):
    monkeypatch.delenv(ALLOW_LARGE_ENV, raising=False)
    with pytest.raises(ValueError, match=r"00_quickstart: n_iterations must be an integer in \[100, 100000\].*"
                                         r"python -m lib.book.sweep_command"):
        sweep_command.plan_sweep([{"n_iterations": 10**12}], notebook="00_quickstart", output_dir=tmp_path / "out")


# --- counts are the truth: distinct cache entries, computed or loaded -----------------------------


def square_once(parameters: dict) -> dict:
    return {"square": np.array(parameters["x"] ** 2)}


square_once.check_parameters = lambda p: {"x": p["x"]}  # "label" is not part of the cache key


class FinishedFuture:
    def __init__(self, value):
        self.value, self.key = value, id(self)

    def result(self):
        return self.value


def test_points_of_one_cache_entry_are_submitted_once_and_reported_so(results_tmp, capsys, monkeypatch):
    submitted = []

    class Client:  # computes each submitted point in this process, under this process's conditions
        def submit(self, function, *args, **kwargs):
            submitted.append(args[2])
            return FinishedFuture(function(*args))

        def run(self, function):
            return {"in-process": function()}

    points = [{"x": 1, "label": "a"}, {"x": 2, "label": "b"}, {"x": 1, "label": "c"}]
    monkeypatch.setattr(sweep, "check_shared_results", lambda client: None)
    monkeypatch.setattr(sweep, "scheduler_ttl", lambda client: ())
    monkeypatch.setattr(sweep, "watched_batches", lambda futures, *args: iter([list(futures)]))
    report = sweep.sweep(points, square_once, name="same_entry", client=Client(), progress=True)
    assert submitted == points[:2]
    assert report.computed == points[:2] and report.same_entry == [(points[2], points[0])]
    assert report.summary() == "same_entry: 3 points (2 distinct cache entries), 0 already cached, 2 computed, 0 failed"
    assert "1 points are the same cache entry as an earlier point, computed once: " \
           "[{'x': 1, 'label': 'c'} = {'x': 1, 'label': 'a'}]" in capsys.readouterr().out
    assert [int(a["square"]) for a in report.load()] == [1, 4, 1]


def test_a_failed_entry_fails_every_point_of_it():
    report = sweep.SweepReport("r", [{"x": 1}, {"x": 1, "l": 2}], [{"x": 1}, {"x": 1}],
                               failures=[sweep.Failure({"x": 1}, "boom", "")], same_entry=[({"x": 1, "l": 2}, {"x": 1})])
    assert report.failure_lines() == {0: "boom", 1: "boom"}
    assert report.failed_points() == [{"x": 1}, {"x": 1, "l": 2}]


def test_an_entry_written_by_another_process_meanwhile_is_loaded_not_computed(results_tmp):
    key = {"x": 3}
    assert sweep.run_point("meanwhile", key, key, square_once) is None  # computed and written
    assert sweep.run_point("meanwhile", key, key, square_once) == sweep.LOADED  # found: nothing computed
    report = sweep.SweepReport("meanwhile", [key], [key])
    sweep.collect(FinishedFuture(sweep.LOADED), key, report)
    assert report.loaded == [key] and report.computed == []
    assert report.summary() == ("meanwhile: 1 points, 0 already cached, 0 computed, 1 written meanwhile by another "
                                "process, 0 failed")


# --- a killed chapter process is named, its run folder removed -----------------------------------


def execute_or_die(name: str, parameters: dict, folder: Path) -> str:
    """Like lib.book.runner.execute: works in a temporary ``.run-<name>-*`` folder; the chapter named
    in ``parameters["die"]`` SIGKILLs its own process there."""
    with tempfile.TemporaryDirectory(dir=folder, prefix=f".run-{name}-"):
        if parameters.get("die") == name:
            time.sleep(0.3)
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(parameters.get("sleep", 0.1))
    (Path(folder) / f"{name}.done").touch()
    return name


def test_a_killed_chapter_process_is_named_and_its_run_folder_removed(tmp_path):
    names = ["00_quickstart", "01_one_step_entk"]
    runs = [(name, {"die": "00_quickstart", "sleep": 2.0}, tmp_path) for name in names]
    times, errors = cr.run_all(runs, execute_or_die, jobs=2, report=lambda line: None)
    assert [type(e) for e in errors] == [cr.RunDied]
    message = str(errors[0])
    assert "\n" not in message and message.startswith("00_quickstart stopped: the process running it died "
                                                      "(killed, or out of memory) before it finished; its temporary "
                                                      "run folder .run-00_quickstart-")
    assert message.endswith(f"was removed, its previous output in {tmp_path} is untouched")
    assert [n for n, _, _ in times] == ["01_one_step_entk"]  # beside it: finished, nothing lost
    assert (tmp_path / "01_one_step_entk.done").exists()
    assert list(tmp_path.glob(".run-*")) == []


def test_a_run_folder_that_was_there_before_is_left_alone(tmp_path):
    older = tmp_path / ".run-00_quickstart-older"
    older.mkdir()
    new = tmp_path / ".run-00_quickstart-new"
    new.mkdir()
    error = cr.died("00_quickstart", tmp_path, {older})
    assert older.exists() and not new.exists() and ".run-00_quickstart-new was removed" in str(error)


def test_workers_of_different_conditions_are_refused_and_the_workers_conditions_are_used():
    """A cluster whose workers compute under different conditions would write entries the others
    cannot read: refused, naming both; a cluster of one kind gives its conditions to the report."""
    here = cache_key.computation_conditions()

    class Client:
        def __init__(self, *conditions):
            self.conditions = conditions

        def run(self, function):
            return {f"w{i}": c for i, c in enumerate(self.conditions)}

    other = {**here, "float64": not here["float64"]}
    with pytest.raises(sweep_cluster.SweepError, match="workers compute under 2 different conditions.*float32.*float64|"
                                               "workers compute under 2 different conditions.*float64.*float32"):
        sweep_cluster.worker_conditions(Client(here, other), here)
    assert sweep_cluster.worker_conditions(Client(other, other), here) == other
    assert sweep_cluster.worker_conditions(Client(), here) == here  # no worker yet: what a new local worker will use


def echo_labels(parameters: dict) -> dict:
    return {"text": np.array(repr(parameters["labels"]))}


def test_a_sweep_over_colliding_dict_values_computes_one_entry_per_distinct_value(results_tmp, monkeypatch):
    """{1: 'x'} and {'1': 'x'} (and True/'true', None/'null', 1.0/'1.0') once shared a cache key: a
    sweep reported 8 computed while 4 entries existed and four rows held another point's result."""
    values = [{1: "x"}, {"1": "x"}, {True: "x"}, {"true": "x"}, {None: "x"}, {"null": "x"}, {1.0: "x"}, {"1.0": "x"}]

    class Client:  # computes each submitted point in this process, under this process's conditions
        def submit(self, function, *args, **kwargs):
            return FinishedFuture(function(*args))

        def run(self, function):
            return {"in-process": function()}

    monkeypatch.setattr(sweep, "check_shared_results", lambda client: None)
    monkeypatch.setattr(sweep, "scheduler_ttl", lambda client: ())
    monkeypatch.setattr(sweep, "watched_batches", lambda futures, *args: iter([list(futures)]))
    points = [{"labels": value} for value in values]
    report = sweep.sweep(points, echo_labels, name="labels", client=Client(), progress=False)
    assert len(report.computed) == len(values) and not report.same_entry and not report.skipped
    assert len([p for p in (results_tmp / "labels").iterdir() if p.is_dir()]) == len(values)
    assert [str(r["text"]) for r in report.load()] == [repr(value) for value in values]


def test_a_float64_a_generic_target_and_a_host_run_each_compute_their_own_entry(results_tmp):
    """Three processes on one cache: the host's float32, JAX_ENABLE_X64=1 and NUMBA_CPU_NAME=generic
    each compute (and record) their own entry of the same name and parameters; a second host run
    computes nothing."""
    import json
    import subprocess
    import sys

    code = ("import json, numpy as np; from lib.core import results; calls = []; "
            "results.cached('conditions', {'seed': 0}, lambda: calls.append(1) or {'a': np.zeros(1)}); "
            "print(json.dumps(len(calls)))")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CPU", "JAX_ENABLE"))}
    base["REPRO_RESULTS_DIR"] = str(results_tmp)
    computed = []
    for extra in ({}, {"JAX_ENABLE_X64": "1"}, {"NUMBA_CPU_NAME": "generic"}, {}):
        done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1],
                              env=base | extra, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        computed.append(json.loads(done.stdout))
    assert computed == [1, 1, 1, 0]
    metas = [json.loads((p / "meta.json").read_text()) for p in (results_tmp / "conditions").iterdir() if p.is_dir()]
    described = sorted((m["conditions"]["float64"], m["conditions"]["numba_cpu"] == "generic") for m in metas)
    assert described == [(False, False), (False, True), (True, False)]
