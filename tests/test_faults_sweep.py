"""Fault tests of the Dask sweep engine: each reproduces a way a sweep could hang, crash with a
traceback, or write a cache entry nobody can read, and checks that it now ends in a clear error
(one line and exit status 2 on the command line) or a clear report.

Unreachable schedulers and bad arguments; results the cache cannot store (checked against the
cache's own save and load); stalls: workers that die or stop sending heartbeats, and sweeps in
which no point finishes (the pure :class:`~lib.experiments.sweep_watch.StallMonitor`, a fake client,
and a one-worker LocalCluster whose worker process is killed or stopped).
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from lib.book import sweep_command
from lib.core import cache_entry, results
from lib.experiments import sweep, sweep_cluster
from lib.experiments.sweep import UnstorableResult
from lib.experiments.sweep_watch import ClusterState, StallMonitor, Watch, cluster_state, points_text

MARKS_ENV = "REPRO_SWEEP_FAULT_MARKS"
PAIR = "lib.experiments.sweep_points:pair_final_losses"
# an answer within this many seconds did not wait for Dask's default connect timeout (30 s); generous, since
# the time includes the command's first imports on a machine that may be busy
WITHIN_S = 20


def run_cli(argv: list[str], capsys) -> tuple[int, list[str], float]:
    """Exit status, stderr lines and seconds taken by ``sweep_command.main(argv)``."""
    start = time.monotonic()
    try:
        code = sweep_command.main(argv)
    except SystemExit as exit_info:  # a parser that exits instead of returning
        code = exit_info.code
    return code, capsys.readouterr().err.splitlines(), time.monotonic() - start


def no_cluster(*args, **kwargs):
    raise AssertionError("a cluster was started")


# --- unreachable schedulers and bad arguments ---------------------------------------------------


def test_unreachable_scheduler_is_one_line_naming_it_and_exit_2_within_seconds(results_tmp, capsys):
    code, err, seconds = run_cli(["--function", PAIR, "--grid", "seed=0", "--scheduler", "tcp://127.0.0.1:1",
                                  "--connect-timeout", "1"], capsys)
    assert code == 2
    assert len(err) == 1 and err[0].startswith("[sweep] error: no Dask scheduler answered at tcp://127.0.0.1:1 "
                                               "within 1 s"), err
    assert "(last attempt: " in err[0]  # refused, or timed out when the timeout ends during an attempt
    assert seconds < WITHIN_S


def test_unreachable_scheduler_from_the_environment_is_named_too(results_tmp, capsys, monkeypatch):
    monkeypatch.setenv(sweep_cluster.SCHEDULER_ENV, "tcp://127.0.0.1:1")
    code, err, seconds = run_cli(["--function", PAIR, "--grid", "seed=0", "--connect-timeout", "1"], capsys)
    assert code == 2 and len(err) == 1 and "tcp://127.0.0.1:1" in err[0] and seconds < WITHIN_S


def test_connect_reason_is_the_last_attempts_error():
    from distributed.comm.core import CommClosedError

    refused = OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 1 s")
    refused.__cause__ = CommClosedError("in <distributed.comm.tcp.TCPConnector object at 0x7f>: "
                                        "ConnectionRefusedError: [Errno 111] Connection refused")
    assert sweep_cluster.connect_reason(refused) == "ConnectionRefusedError: [Errno 111] Connection refused"
    late = OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 1 s")
    late.__cause__ = TimeoutError()
    assert sweep_cluster.connect_reason(late) == "timed out"


@pytest.fixture
def silent_listener():
    """A loopback port that accepts connections and never says anything (not a Dask scheduler)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    accepted, stop = [], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    server.close()


def test_a_port_that_never_answers_is_bounded_by_the_connect_timeout(results_tmp, silent_listener):
    """distributed alone would wait until the peer hangs up (here: forever, so the attempt runs in a thread)."""
    outcome = []

    def attempt():
        try:
            with sweep_cluster.dask_client(silent_listener, connect_timeout_s=1):
                outcome.append("connected")
        except Exception as err:
            outcome.append(err)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(timeout=8)  # the handshake gets 2 * 1 + 1 s
    assert not thread.is_alive(), "still connecting after 8 s"
    assert isinstance(outcome[0], sweep_cluster.ClusterError)
    assert str(outcome[0]).startswith(f"no Dask scheduler answered at {silent_listener} within 1 s (last attempt: "
                                      "connected, but no Dask handshake came back)")


@pytest.mark.parametrize("call, message", [
    (lambda: sweep_cluster.connect("notanaddress"), r"scheduler address 'notanaddress' is not valid \(missing port"),
    (lambda: sweep_cluster.connect("foo://127.0.0.1:5"), r"scheduler address 'foo://127.0.0.1:5' is not valid"),
    (lambda: sweep_cluster.connect("tcp://127.0.0.1:1", 0),
     r"connect_timeout_s must be a number of seconds > 0, got 0"),
    (lambda: sweep_cluster.dask_client("").__enter__(), r"scheduler must be an address like tcp://host:8786, got ''"),
    (lambda: Watch(check_s=float("nan")), r"watch.check_s must be a number of seconds > 0, got nan"),
    (lambda: Watch(stall_s=-1), r"watch.stall_s must be a number of seconds > 0, got -1"),
    (lambda: sweep.sweep([{"x": 1}], "lib.experiments.sweep:run_point", name="a/b"), r"name: result name must be"),
    (lambda: sweep.sweep([{"x": 1}], "lib.experiments.sweep:run_point", name=""), r"name: result name must be"),
    (lambda: sweep_command.plan_sweep([{"seed": 1}], notebook="00_quickstart", name=".hidden"), r"name: result"),
])
def test_library_raises_value_errors_naming_the_parameter(call, message, results_tmp, monkeypatch):
    monkeypatch.setattr(sweep, "check_shared_results", no_cluster)
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("argv, message", [
    (["--grid", "seed=0,1"], "one of the arguments --function --notebook is required (see --help)"),
    (["--function", PAIR, "--grid", "seed=0", "--workers", "abc"], "argument --workers: invalid int value: 'abc'"),
    (["--function", PAIR, "--grid", "seed=0", "--retries", "-1"], "--retries must be an integer >= 0, got -1"),
    (["--function", PAIR, "--grid", "seed=0", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["--function", PAIR, "--grid", "seed=0", "--name", "a/b"], "name: result name must be a non-empty folder name"),
    (["--function", PAIR, "--grid", "seed=0", "--name", ""], "name: result name must be a non-empty folder name"),
    (["--function", PAIR, "--grid", "seed=0", "--scheduler", ""], "--scheduler is empty"),
    (["--function", PAIR, "--grid", "seed=0", "--connect-timeout", "0"], "argument --connect-timeout: must be a "
                                                                          "number of seconds > 0, got '0'"),
    (["--function", PAIR, "--grid", "seed=0", "--stall-after", "inf"], "argument --stall-after: must be"),
    (["--function", PAIR, "--grid-spec", "seed=0 seed"], "name=value1,value2"),
    (["--function", "lib.experiments.sweep_points", "--grid", "seed=0"], "'package.module:function'"),
])
def test_bad_arguments_are_one_line_and_exit_2_before_any_cluster(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(sweep, "dask_client", no_cluster)
    code, err, _ = run_cli(argv, capsys)
    assert code == 2
    assert len(err) == 1 and err[0].startswith("[sweep] error: ") and message in err[0], err


def test_cli_errors_are_printed_on_one_line(capsys):
    assert sweep_command.error(ValueError("first line\n  second line")) == 2
    assert capsys.readouterr().err == "[sweep] error: first line second line\n"


@pytest.mark.parametrize("address", ["notanaddress", "foo://127.0.0.1:5"])
def test_malformed_scheduler_address_is_one_line_and_exit_2(address, results_tmp, capsys):
    code, err, seconds = run_cli(["--function", PAIR, "--grid", "seed=0", "--scheduler", address], capsys)
    assert code == 2 and len(err) == 1 and f"scheduler address {address!r} is not valid" in err[0], err
    assert seconds < WITHIN_S


def test_results_folder_that_cannot_be_written_is_one_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path / "file" / "results"))
    monkeypatch.setattr(sweep, "dask_client", lambda *args: sweep.nullcontext(object()))
    code, err, _ = run_cli(["--function", PAIR, "--grid", "seed=0"], capsys)
    assert code == 2 and len(err) == 1 and "cannot write to the results folder" in err[0], err


# --- results the cache cannot store -------------------------------------------------------------


STORABLE = {
    "float array": np.arange(3.0), "int": 3, "bool": True, "str": "text", "bytes": b"raw", "complex": 1j,
    "float16": np.float16(1), "datetime64": np.datetime64("2020-01-01"), "nested list": [[1, 2], [3, 4]],
    "structured": np.zeros(2, dtype=[("x", "f8"), ("y", "i4")]), "empty": np.array([]), "tuple": (1, 2.5),
}
UNSTORABLE = {
    "object array": (np.array([1, "a"], dtype=object), "dtype object"),
    "None": (None, "dtype object"),
    "dict": ({"inner": 1}, "holds a dict that becomes an array of dtype object"),
    "set": ({1, 2}, "dtype object"),
    "huge int": (2 ** 100, "dtype object"),
    "ragged list": ([[1], [1, 2]], "holds a list that is not an array"),
    "string dtype": (np.array(["a"], dtype=np.dtypes.StringDType()), "dtype StringDType"),
    "object field": (np.zeros(1, dtype=[("x", "O")]), "(Python objects)"),
    "masked array": (np.ma.masked_array([1, 2], mask=[0, 1]), "whose mask the cache would drop"),
}
BAD_KEYS = {
    "allow_pickle": "parameter of np.savez_compressed",  # silently swallowed by the save, entry lacks it
    "file": "parameter of np.savez_compressed",  # a TypeError in the middle of the save
    "a\0b": "NUL character or a lone surrogate",  # stored as 'a'
    "\udcff": "NUL character or a lone surrogate",  # a UnicodeEncodeError in the middle of the save
    1: "is a int, not a string",
}


def round_trips(key, value) -> bool:
    """Whether the cache itself stores ``{key: value}`` and gives back exactly that."""
    parameters = {"probe": uuid.uuid4().hex}
    try:
        stored = results.cached("probe", parameters, lambda: {key: value})
        loaded = results.load("probe", parameters)
    except Exception:
        return False
    expected = np.asarray(value)
    return (not isinstance(value, np.ma.MaskedArray) and list(loaded) == [key] and loaded[key].dtype == expected.dtype
            and np.array_equal(loaded[key], expected) and np.array_equal(stored[key], expected))


@pytest.mark.filterwarnings("ignore:Custom dtypes are saved as python objects")
@pytest.mark.parametrize("label", list(STORABLE) + list(UNSTORABLE) + [f"key {k!r}" for k in BAD_KEYS])
def test_storable_arrays_accepts_exactly_what_the_cache_stores_and_reads_back(label, results_tmp):
    """The validator against the cache's own save and load: accepted if and only if it round-trips."""
    key, value = ("a", STORABLE[label]) if label in STORABLE else ("a", UNSTORABLE[label][0]) \
        if label in UNSTORABLE else (next(k for k in BAD_KEYS if f"key {k!r}" == label), np.array(1))
    try:
        sweep.storable_arrays({"x": 1}, {key: value})
        accepted = True
    except UnstorableResult:
        accepted = False
    assert accepted == round_trips(key, value) == (label in STORABLE)


@pytest.mark.parametrize("label", list(UNSTORABLE))
def test_unstorable_value_names_the_point_and_the_key(label):
    value, message = UNSTORABLE[label]
    with pytest.raises(UnstorableResult) as info:
        sweep.storable_arrays({"x": 1}, {"fine": np.arange(2), "bad": value})
    assert str(info.value).startswith("point {'x': 1}: result key 'bad' ") and message in str(info.value)
    assert str(info.value).endswith("nothing was written to the cache")
    assert info.value.parameters == {"x": 1} and info.value.key == "bad"


@pytest.mark.parametrize("key", list(BAD_KEYS))
def test_unstorable_key_is_named(key):
    with pytest.raises(UnstorableResult, match=BAD_KEYS[key]) as info:
        sweep.storable_arrays({"x": 1}, {key: np.array(1)})
    assert f"result key {key!r}" in str(info.value)


@pytest.mark.parametrize("returned, message", [
    ([1, 2], "the result is a list, not a dict of arrays"),
    (None, "the result is a NoneType, not a dict of arrays"),
])
def test_a_result_that_is_not_a_dict_is_refused(returned, message):
    with pytest.raises(UnstorableResult, match=message):
        sweep.storable_arrays({"x": 1}, returned)


def cache_files(root: Path) -> list[Path]:
    """Every archive and metadata file under the results folder (locks do not count)."""
    return sorted(p for p in root.rglob("*") if p.name in (cache_entry.ARRAYS_FILE, cache_entry.META_FILE))


def test_run_point_refuses_before_writing_and_does_not_raise_for_a_retry(results_tmp):
    calls = []

    def object_result(parameters):
        calls.append(parameters)
        return {"loss": np.arange(2.0), "history": np.array([{"step": 1}], dtype=object)}

    outcome = sweep.run_point("unstorable", {"x": 1}, {"x": 1}, object_result)
    assert isinstance(outcome, sweep.PointError) and outcome.parameters == {"x": 1}
    assert outcome.error.startswith("UnstorableResult: result key 'history' holds a ndarray that becomes an array "
                                    "of dtype object")
    assert calls == [{"x": 1}] and cache_files(results_tmp) == []
    assert results.load("unstorable", {"x": 1}) is None  # nothing half-written that a later load would trip on
    assert sweep.run_point("unstorable", {"x": 1}, {"x": 1}, lambda p: {"loss": np.arange(2.0)}) is None
    assert len(cache_files(results_tmp)) == 2


def unstorable_on_two(parameters: dict) -> dict:
    (Path(os.environ[MARKS_ENV]) / f"unstorable-{parameters['x']}-{uuid.uuid4().hex}").touch()
    return {"x": np.array(parameters["x"]), "extra": None if parameters["x"] == 2 else np.array(0)}


def marks(prefix: str) -> int:
    return len(list(Path(os.environ[MARKS_ENV]).glob(f"{prefix}-*")))


class CancelledFuture:
    """A future of a sweep whose client lost the scheduler."""

    def result(self):
        from distributed.client import FutureCancelledError

        raise FutureCancelledError("run_point-1", reason="scheduler-connection-lost",
                                   msg="Client lost the connection to the scheduler.\nPlease re-run your work.")


def test_lost_scheduler_is_one_line_per_point_without_a_traceback():
    report = sweep.SweepReport("lost", [{"x": 1}], [{"x": 1}])
    sweep.collect(CancelledFuture(), {"x": 1}, report)
    assert report.failures[0].format() == ("point {'x': 1}: FutureCancelledError: run_point-1 cancelled for reason: "
                                           "scheduler-connection-lost. Client lost the connection to the scheduler. "
                                           "Please re-run your work.")


# --- a one-worker LocalCluster whose worker process a test may kill or stop ----------------------


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory):
    """A LocalCluster of one single-threaded worker process (with a nanny that restarts it) that
    inherits a temporary results folder and marks folder from this process's environment."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REPRO_RESULTS_DIR", str(tmp_path_factory.mktemp("results")))
        patch.setenv(MARKS_ENV, str(tmp_path_factory.mktemp("marks")))
        with sweep_cluster.dask_client(n_workers=1) as client:
            yield client


def test_unstorable_point_fails_once_with_its_key_and_the_others_finish(one_worker, capsys):
    report = sweep.sweep([{"x": x} for x in (1, 2, 3)], unstorable_on_two, name="unstorable_sweep", client=one_worker,
                         retries=2, progress=False)
    assert [f.parameters for f in report.failures] == [{"x": 2}]
    assert report.failures[0].format() == ("point {'x': 2}: UnstorableResult: result key 'extra' holds a NoneType "
                                           "that becomes an array of dtype object (Python objects), which the cache "
                                           "reads without pickle and so cannot store; return numbers, booleans or "
                                           "strings (a nested dict as one key per entry); nothing was written to "
                                           "the cache")
    assert marks("unstorable-2") == 1  # not retried: the same code would return the same thing
    assert sorted(p["x"] for p in report.computed) == [1, 3]
    loaded = report.load()  # the failed point has no entry at all, so loading never trips on it
    assert loaded[1] is None and int(loaded[0]["x"]) == 1 and int(loaded[2]["x"]) == 3


def sleeps_then_dies_once(parameters: dict) -> dict:
    """Point x=1 SIGKILLs its worker process after 1.5 s the first time it runs (marker file, holding
    the worker's address)."""
    from distributed import get_worker

    marker = Path(os.environ[MARKS_ENV]) / f"died-{parameters['x']}"
    if parameters["x"] == 1 and not marker.exists():
        marker.write_text(get_worker().address)
        time.sleep(1.5)
        os.kill(os.getpid(), signal.SIGKILL)
    return {"x": np.array(parameters["x"])}


@pytest.mark.alone
def test_killed_worker_is_reported_with_its_points_and_the_sweep_finishes(one_worker):
    messages = []
    report = sweep.sweep([{"x": 1}], sleeps_then_dies_once, name="killed_watch", client=one_worker, progress=False,
                         watch=Watch(check_s=0.2, heartbeat_s=30, stall_s=60), log=messages.append)
    assert report.ok and report.computed == [{"x": 1}], [f.format() for f in report.failures]
    killed = (Path(os.environ[MARKS_ENV]) / "died-1").read_text()
    lost = [m for m in messages if f"worker {killed} " in m and "left the cluster" in m]
    assert len(lost) == 1, messages  # the killed worker, once (its restarted successor has another address)
    assert "while holding [{'x': 1}]; Dask resubmits them to the other workers" in lost[0]


def naps(parameters: dict) -> dict:
    time.sleep(0.3)
    return {"x": np.array(parameters["x"])}


@pytest.mark.alone
def test_points_finishing_steadily_are_no_stall(one_worker):
    messages = []
    report = sweep.sweep([{"x": x} for x in range(6)], naps, name="steady", client=one_worker, progress=False,
                         watch=Watch(check_s=0.1, heartbeat_s=30, stall_s=1.5), log=messages.append)
    assert len(report.computed) == 6 and messages == []  # 1.8 s in all, never 1.5 s without a finished point


def stops_itself_once(parameters: dict) -> dict:
    """The first time: write this worker's pid, then SIGSTOP it (a hung worker: no heartbeats)."""
    marker = Path(os.environ[MARKS_ENV]) / "stopped-pid"
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGSTOP)
    return {"x": np.array(parameters["x"])}


@pytest.mark.alone
def test_hung_worker_and_a_stalled_sweep_are_reported_and_nothing_is_stopped(one_worker):
    marker = Path(os.environ[MARKS_ENV]) / "stopped-pid"
    messages = []

    def resume_when_reported():
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (marker.exists() and any("no point finished" in m for m in messages)):
            time.sleep(0.1)
        if marker.exists():
            os.kill(int(marker.read_text()), signal.SIGCONT)

    resumer = threading.Thread(target=resume_when_reported, daemon=True)
    resumer.start()
    report = sweep.sweep([{"x": 7}], stops_itself_once, name="stopped_watch", client=one_worker, progress=False,
                         watch=Watch(check_s=0.2, heartbeat_s=1.0, stall_s=2.5), log=messages.append)
    resumer.join()
    assert report.ok and report.computed == [{"x": 7}]
    silent = [m for m in messages if "has sent no heartbeat" in m]
    assert len(silent) == 1 and "while holding [{'x': 7}]; nothing is stopped" in silent[0], messages
    stalled = [m for m in messages if "no point finished for" in m]
    assert stalled and "assigned to worker tcp://" in stalled[0] and ": [{'x': 7}]" in stalled[0], messages


# --- the stall monitor on its own (no cluster) --------------------------------------------------


POINTS = {"k1": {"x": 1}, "k2": {"x": 2}, "k3": {"x": 3}}


def state(processing: dict, seen: dict | None = None) -> ClusterState:
    """Workers ``A``, ``B`` (or those of ``seen``) with heartbeats ``seen`` and the keys they process."""
    seen = {w: 0.0 for w in processing} if seen is None else seen
    return ClusterState(seen, {w: f"name-{w}" for w in seen}, processing)


def monitor(**watch) -> StallMonitor:
    return StallMonitor(Watch(**{"check_s": 1, "heartbeat_s": 10, "stall_s": 100, **watch}), POINTS, now=0.0)


def test_quiet_cluster_gives_no_report():
    watcher = monitor()
    for now in range(0, 60, 5):  # heartbeats arrive, nothing is lost, the sweep is younger than stall_s
        assert watcher.check(state({"A": ["k1"], "B": ["k2"]}, {"A": now, "B": now}), POINTS, now) == []
    assert not watcher.due(55.5) and watcher.due(56)  # last checked at 55


def test_lost_worker_is_named_with_the_points_it_held():
    watcher = monitor()
    assert watcher.check(state({"A": ["k1", "k3"], "B": ["k2"]}), POINTS, 1) == []
    messages = watcher.check(state({"B": ["k2", "k1"]}), {"k1", "k2"}, 2)  # k3 finished, k1 moved to B
    assert messages == ["[sweep] worker A (name name-A) left the cluster (died, killed, disconnected) while holding "
                        "[{'x': 1}]; Dask resubmits them to the other workers (a point that loses 3 workers fails "
                        "with KilledWorker)"]
    assert watcher.check(state({"B": ["k2", "k1"]}), {"k1", "k2"}, 3) == []  # said once
    assert watcher.check(state({"A": [], "B": ["k2", "k1"]}), {"k1", "k2"}, 4) == []  # listed again while it closes
    assert watcher.check(state({"B": ["k2", "k1"]}), {"k1", "k2"}, 5) == []  # and gone again: still said once


def test_silent_worker_is_reported_once_after_heartbeat_s_then_when_it_responds_again():
    watcher = monitor(heartbeat_s=10)
    assert watcher.check(state({"A": ["k1"], "B": ["k2"]}, {"A": 5.0, "B": 5.0}), POINTS, 0) == []
    assert watcher.check(state({"A": ["k1"], "B": ["k2"]}, {"A": 5.0, "B": 9.0}), POINTS, 9) == []
    messages = watcher.check(state({"A": ["k1"], "B": ["k2"]}, {"A": 5.0, "B": 12.0}), POINTS, 12)
    assert messages == ["[sweep] worker A (name name-A) has sent no heartbeat for at least 12 s (hung, overloaded or "
                        "unreachable) while holding [{'x': 1}]; nothing is stopped: the scheduler restarts or drops it "
                        "after its distributed.scheduler.worker-ttl (checked every worker-ttl) and resubmits its points"]
    assert watcher.check(state({"A": ["k1"], "B": ["k2"]}, {"A": 5.0, "B": 14.0}), POINTS, 14) == []
    assert watcher.check(state({"A": ["k1"], "B": ["k2"]}, {"A": 15.0, "B": 15.0}), POINTS, 15) == \
        ["[sweep] worker A (name name-A) responds again"]


def test_no_progress_for_stall_s_names_workers_and_points_and_repeats_only_every_stall_s():
    watcher = monitor(stall_s=100, heartbeat_s=1000)
    busy = state({"A": ["k1", "other-sweeps-key"], "B": []})
    assert watcher.check(busy, POINTS, 99) == []
    messages = watcher.check(busy, POINTS, 100)
    assert messages == ["[sweep] no point finished for 100 s; assigned to worker A (name name-A): [{'x': 1}]; 2 points "
                        "wait for a worker (a long point is not stopped, this is a report only)"]
    assert watcher.check(busy, POINTS, 150) == []
    assert len(watcher.check(busy, POINTS, 200)) == 1
    watcher.progress(210)
    assert watcher.check(busy, {"k1"}, 300) == []
    assert "no point finished for 100 s; assigned to worker A (name name-A): [{'x': 1}] (a long" in \
        watcher.check(busy, {"k1"}, 310)[0]


def test_many_points_are_abbreviated():
    assert points_text([{"x": i} for i in range(7)], limit=2) == "[{'x': 0}, {'x': 1} and 5 more]"


class FakeScheduler:
    def identity(self, n_workers=0):
        assert n_workers == -1  # every worker, not distributed's default of a few
        return {"workers": {"tcp://a:1": {"last_seen": 5.0, "name": 0}, "tcp://b:2": {"last_seen": 6.0, "name": 1}}}


class FakeClient:
    """What :func:`~lib.experiments.sweep_watch.cluster_state` asks a ``distributed.Client``."""

    scheduler = FakeScheduler()

    def sync(self, function, **kwargs):
        return function(**kwargs)

    def scheduler_info(self, n_workers=0):
        raise AssertionError("the client's cached identity may list no workers")

    def processing(self):
        return {"tcp://a:1": ("k1",), "tcp://b:2": ()}


def test_cluster_state_reads_heartbeats_names_and_processing_from_the_client():
    assert cluster_state(FakeClient()) == ClusterState({"tcp://a:1": 5.0, "tcp://b:2": 6.0},
                                                             {"tcp://a:1": "0", "tcp://b:2": "1"},
                                                             {"tcp://a:1": ["k1"], "tcp://b:2": []})


def test_cluster_state_lists_the_live_worker_while_the_client_refreshes_its_cached_identity():
    """The client's periodic refresh of its cached identity (here every 2 ms) lists no workers; a
    state read from that cache showed a live worker as having left the cluster mid-sweep."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.client.scheduler-info-interval": "2ms"}), \
            LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        worker_counts = {len(cluster_state(client).last_seen) for _ in range(300)}
    assert worker_counts == {1}


def test_a_finished_point_that_cannot_be_read_is_an_error_not_a_failure(tmp_path, monkeypatch):
    """A point that did not fail but has no entry under the current code (lib/ edited while the sweep
    ran) makes load() raise, naming the point, instead of returning None as for a failed point."""
    from lib.experiments.sweep import Failure, SweepReport

    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path))
    report = SweepReport("nowhere", [{"x": 1}, {"x": 2}], [{"x": 1}, {"x": 2}],
                         failures=[Failure({"x": 2}, "boom", "")])
    with pytest.raises(RuntimeError, match=r"1 points of sweep 'nowhere' finished but cannot be read.*\{'x': 1\}"):
        report.load()
    assert SweepReport("nowhere", [{"x": 2}], [{"x": 2}], failures=[Failure({"x": 2}, "boom", "")]).load() == [None]
