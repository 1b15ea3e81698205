"""Fault tests for the results cache's maintenance and locks (``lib.core.results``).

Each test reproduces a way the cache could lose a user's data, crash, or hang: ``prune`` deleting
a folder that is not a cache entry, metadata that is valid JSON but not the object the cache
writes, a writer waiting silently for hours on another process's lock, a command line that
answers bad input with a traceback. Every test works in its own results folder (``results_tmp``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from lib.core import cache_entry, results

REPO = Path(__file__).resolve().parents[1]
OLD_CODE = "0123456789abcdef"  # the code digest of "an older version of lib/"


def make_entry(seed: int, code: str | None = None) -> Path:
    """A real cache entry for ``{"seed": seed}`` (under ``code`` if given: an entry of other code)."""
    with pytest.MonkeyPatch.context() as patch:
        if code is not None:
            patch.setattr(results, "code_digest", lambda computed_by=None: code)
        results.cached("demo", {"seed": seed}, lambda: {"a": np.arange(4.0) + seed})
        return results.entry_dir("demo", {"seed": seed})


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (to show a folder was left exactly as it was)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ 1. prune touches only real entries


def user_folders(root: Path, stale: Path) -> list[Path]:
    """Folders under the results folder that look like the cache's but are not its entries."""
    made = []

    def folder(relative: str, files: dict[str, str]) -> None:
        path = root / relative
        path.mkdir(parents=True)
        for name, text in files.items():
            (path / name).write_text(text)
        made.append(path)

    stale_meta = (stale / "meta.json").read_text()
    folder("mydata/run1", {"meta.json": json.dumps({"code": "something else"}), "data.csv": "1,2\n"})
    folder("mydata/run2", {"meta.json": stale_meta})  # a copy of real metadata, but not a key-named folder
    folder("demo/my-backup", {"meta.json": stale_meta, "arrays.npz": "z"})  # the same, in the entry's own group
    folder("demo/aaaaaaaaaaaaaaaaaaaa", {"meta.json": json.dumps({"code": OLD_CODE})})  # key name, not the schema
    folder("demo/bbbbbbbbbbbbbbbbbbbb", {"meta.json": stale_meta, "notes.txt": "mine"})  # a user's file inside
    folder("demo/cccccccccccccccccccc", {"meta.json": stale_meta.replace('"name": "demo"', '"name": "other"')})
    folder("demo/.tmp-user-backup", {"arrays.npz": "x"})  # not the name save() gives its folder
    folder(".hidden/dddddddddddddddddddd", {"meta.json": stale_meta.replace('"name": "demo"', '"name": ".hidden"')})
    folder("elsewhere/target", {"meta.json": stale_meta, "arrays.npz": "y"})
    link = root / "demo" / "eeeeeeeeeeeeeeeeeeee"
    link.symlink_to(root / "elsewhere" / "target")  # prune never follows a link into someone's folder
    return made + [link]


def test_prune_removes_stale_entries_and_interrupted_writes_only(results_tmp, capsys):
    current, stale = make_entry(1), make_entry(2, code=OLD_CODE)
    interrupted = current.parent / f".tmp-{'f' * 20}-0123abcd"
    interrupted.mkdir()
    (interrupted / "arrays.npz").write_bytes(b"half")
    others = user_folders(results_tmp, stale)
    before = {p: snapshot(p) for p in others + [current]}

    assert results.stale_entries() == [stale, interrupted]
    assert results.prune() == [stale, interrupted]
    assert not stale.exists() and not interrupted.exists()
    assert {p: snapshot(p) for p in others + [current]} == before  # byte for byte
    err = capsys.readouterr().err
    for path in others:
        if ".hidden" not in str(path):
            assert f"skipped {path}" in err, err
    assert "records name 'other'" in err and "notes.txt" in err and "symbolic link" in err


def test_cli_prune_reports_skipped_folders_and_keeps_them(results_tmp, capsys):
    stale = make_entry(3, code=OLD_CODE)
    keep = results_tmp / "mydata" / "run1"
    keep.mkdir(parents=True)
    (keep / "meta.json").write_text(json.dumps({"code": "something else", "rows": [1, 2]}))
    assert results.main(["prune", "--dry-run"]) == 0 and stale.exists()
    assert f"would remove: {stale}" in capsys.readouterr().out
    assert results.main(["prune"]) == 0
    out, err = capsys.readouterr()
    assert f"removed: {stale}" in out and "1 removed" in out and not stale.exists()
    assert f"skipped {keep}" in err and keep.exists() and json.loads((keep / "meta.json").read_text())["rows"]


# ------------------------------------------------------------------ 2. malformed metadata


MALFORMED = {
    "array": ("[]", "holds a JSON array, not an object"),
    "null": ("null", "holds a JSON null, not an object"),
    "number": ("3", "holds a JSON number, not an object"),
    "string": ('"meta"', "holds a JSON string, not an object"),
    "truncated": (None, "is unreadable"),
    "missing_keys": (json.dumps({"code": OLD_CODE}), "missing key 'sha256'"),
    "wrong_types": ("WRONG", "'parameters' is a JSON array, not object; 'wall_time_s' is a JSON string, not number"),
}


def break_meta(entry: Path, case: str) -> Path:
    """Replace the metadata of ``entry`` by the ``case`` of :data:`MALFORMED`."""
    meta_path = entry / "meta.json"
    text = MALFORMED[case][0]
    if text is None:
        text = meta_path.read_text()[:40]
    elif text == "WRONG":
        meta = json.loads(meta_path.read_text())
        text = json.dumps({**meta, "parameters": [1], "wall_time_s": "fast", "code": OLD_CODE})
    meta_path.write_text(text)
    return meta_path


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_metadata_is_a_cache_error_naming_the_file(results_tmp, case):
    entry = make_entry(4)
    meta_path = break_meta(entry, case)
    calls = []
    for attempt in (lambda: results.load("demo", {"seed": 4}), lambda: results.metadata_of("demo", {"seed": 4}),
                    lambda: results.cached("demo", {"seed": 4}, lambda: calls.append(1) or {"a": np.zeros(1)})):
        with pytest.raises(cache_entry.CacheError) as error:
            attempt()
        assert str(meta_path) in str(error.value) and MALFORMED[case][1] in str(error.value), str(error.value)
        assert "delete the folder" in str(error.value)
    assert calls == [] and meta_path.exists()  # neither recomputed over nor deleted


@pytest.mark.parametrize("case", list(MALFORMED))
def test_prune_and_stale_report_malformed_entries_and_leave_them(results_tmp, case, capsys):
    entry = make_entry(5, code=OLD_CODE)  # an entry prune would remove, were its metadata readable
    break_meta(entry, case)
    before = snapshot(entry)
    assert results.main(["stale"]) == 0
    assert results.prune() == []
    assert snapshot(entry) == before
    err = capsys.readouterr().err
    assert err.count(f"skipped {entry} ") == 2 and MALFORMED[case][1] in err, err


# ------------------------------------------------------------------ 3. bounded lock waits that name the holder


HOLDER = """
    import sys, time
    from pathlib import Path
    from filelock import FileLock
    from lib.core import cache_entry
    lock_path, entry, kind = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    if kind == "entry":  # this code: records itself as the holder
        held = cache_entry.EntryLock(lock_path, entry)
        assert held.try_acquire(10)
    else:  # a writer that records nothing (older code)
        held = FileLock(str(lock_path))
        held.acquire(timeout=10)
    print("locked", flush=True)
    time.sleep(120)
"""


@pytest.fixture
def hold_lock():
    """Start a process holding the lock of an entry; yields a function returning the process."""
    procs = []

    def start(name: str, parameters: dict, kind: str = "entry") -> subprocess.Popen:
        lock = results.lock_for(name, parameters)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLDER), str(lock.path), str(lock.entry), kind],
                                env=env, stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout.readline().strip() == "locked"
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def test_waiting_for_a_held_lock_says_who_once_and_gives_up_in_time(results_tmp, hold_lock, monkeypatch, capsys):
    monkeypatch.setenv(cache_entry.LOCK_TIMEOUT_ENV, "1.5")
    monkeypatch.setattr(cache_entry, "LOCK_NOTICE_AFTER_S", 0.3)
    holder = hold_lock("demo", {"seed": 6})
    entry, calls = results.entry_dir("demo", {"seed": 6}), []
    start = time.monotonic()
    with pytest.raises(cache_entry.CacheError) as error:
        results.cached("demo", {"seed": 6}, lambda: calls.append(1) or {"a": np.zeros(1)})
    elapsed = time.monotonic() - start
    assert 1.4 < elapsed < 10 and calls == []
    message = str(error.value)
    for part in (str(entry), f"pid {holder.pid} on host", "1.5 s", cache_entry.LOCK_TIMEOUT_ENV):
        assert part in message, message
    notices = [line for line in capsys.readouterr().err.splitlines() if "waiting for cache entry" in line]
    assert len(notices) == 1 and f"pid {holder.pid}" in notices[0] and str(entry) in notices[0]


def test_a_dead_holder_pid_is_reported_as_not_running(results_tmp, hold_lock, monkeypatch):
    monkeypatch.setenv(cache_entry.LOCK_TIMEOUT_ENV, "0.5")
    hold_lock("demo", {"seed": 7}, kind="plain")  # holds the lock but writes no record
    lock = results.lock_for("demo", {"seed": 7})
    with pytest.raises(cache_entry.CacheError, match="an unknown process .no holder record"):
        lock.acquire()
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(finished.stdout)  # a pid on this host that is no longer running
    lock.holder_path.write_text(json.dumps({"pid": dead, "host": socket.gethostname(), "since": "then"}))
    with pytest.raises(cache_entry.CacheError) as error:
        lock.acquire()
    assert f"holder pid {dead} is not running" in str(error.value) and str(lock.entry) in str(error.value)


def test_a_killed_holder_releases_the_lock_at_once(results_tmp, hold_lock, monkeypatch):
    """The OS drops a dead process's lock: the waiter goes on as soon as the holder dies, not at the timeout."""
    monkeypatch.setenv(cache_entry.LOCK_TIMEOUT_ENV, "60")
    monkeypatch.setattr(cache_entry, "LOCK_NOTICE_AFTER_S", 0.2)
    holder = hold_lock("demo", {"seed": 8})
    lock = results.lock_for("demo", {"seed": 8})
    assert json.loads(lock.holder_path.read_text())["pid"] == holder.pid
    threading.Timer(1.0, os.kill, (holder.pid, signal.SIGKILL)).start()
    start = time.monotonic()
    out = results.cached("demo", {"seed": 8}, lambda: {"a": np.arange(2.0)})
    assert 0.9 < time.monotonic() - start < 15
    np.testing.assert_array_equal(out["a"], np.arange(2.0))
    assert not lock.holder_path.exists()  # the killed holder's record was replaced, then removed on release


def test_the_holder_records_itself_while_computing(results_tmp):
    lock = results.lock_for("demo", {"seed": 9})
    seen = []

    def compute():
        seen.append(json.loads(lock.holder_path.read_text()))
        return {"a": np.zeros(1)}

    results.cached("demo", {"seed": 9}, compute)
    assert seen[0]["pid"] == os.getpid() and seen[0]["host"] == socket.gethostname() and seen[0]["since"]
    assert not lock.holder_path.exists()


def test_lock_timeout_is_configurable_and_bounded(monkeypatch):
    monkeypatch.delenv(cache_entry.LOCK_TIMEOUT_ENV, raising=False)
    assert cache_entry.lock_timeout() == cache_entry.LOCK_TIMEOUT_S == 2 * 3600.0
    monkeypatch.setattr(cache_entry, "LOCK_TIMEOUT_S", 5.0)
    assert cache_entry.lock_timeout() == 5.0
    monkeypatch.setenv(cache_entry.LOCK_TIMEOUT_ENV, "30")
    assert cache_entry.lock_timeout() == 30.0
    for bad in ("soon", "-1", "inf", "nan", ""):
        monkeypatch.setenv(cache_entry.LOCK_TIMEOUT_ENV, bad)
        with pytest.raises(cache_entry.CacheError,
                           match=f"{cache_entry.LOCK_TIMEOUT_ENV}=.* is not a number of seconds"):
            cache_entry.lock_timeout()


# ------------------------------------------------------------------ 4. the command line on bad input


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["prune", "extra"], ["stale", "--dry-run"], ["--bogus"]])
def test_bad_arguments_are_one_line_and_status_2(results_tmp, argv, capsys):
    assert results.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and err.startswith("python -m lib.core.results: error:")


@pytest.mark.parametrize("value", [" ", "FILE"])
def test_bad_results_folder_on_the_command_line_is_one_line_and_status_2(tmp_path, value):
    if value == "FILE":
        value = str(tmp_path / "a-file")
        Path(value).write_text("not a folder")
    env = {**os.environ, "PYTHONPATH": str(REPO), results.RESULTS_ENV: value}
    done = subprocess.run([sys.executable, "-m", "lib.core.results", "prune"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and results.RESULTS_ENV in done.stderr, done.stderr


@pytest.mark.parametrize("arrays, message", [
    ({"a": np.array([{"x": 1}], dtype=object)}, r"array 'a' holds a ndarray that becomes an array of dtype object"),
    ({"file": np.zeros(2)}, r"array 'file' is the name of a parameter of np.savez_compressed"),
    ({"m": np.ma.masked_array([1.0, 2.0], mask=[0, 1])}, r"array 'm' holds a masked array"),
])
def test_save_refuses_arrays_it_could_not_read_back_and_writes_nothing(arrays, message, results_tmp):
    """Every caller of the cache, not only sweeps: nothing unreadable is ever written."""
    with pytest.raises(ValueError, match=message):
        results.save("unstorable", {"seed": 0}, arrays, 0.0)
    assert not list(results_tmp.rglob("meta.json")) and not list(results_tmp.rglob("arrays.npz"))


def test_damaged_cache_folders_are_clear_errors_not_raw_os_errors(results_tmp):
    """A lock path that is a folder, a results path or an entry that is a file, a read-only
    results folder: one CacheError naming the path and the remedy (never a raw OSError)."""
    compute = lambda: {"a": np.zeros(1)}  # noqa: E731
    (results_tmp / "as_file").write_text("not a folder")
    with pytest.raises(cache_entry.CacheError, match=r"as_file cannot be made: it \(or a folder above it\) is a file"):
        results.cached("as_file", {"seed": 0}, compute)
    entry = results.entry_dir("lock_dir", {"seed": 0})
    entry.parent.mkdir(parents=True)
    (entry.parent / f"{entry.name}.lock").mkdir()
    with pytest.raises(cache_entry.CacheError, match=r"\.lock of cache entry .* is not a file"):
        results.cached("lock_dir", {"seed": 0}, compute)
    entry = results.entry_dir("entry_file", {"seed": 0})
    entry.parent.mkdir(parents=True)
    entry.write_text("")
    with pytest.raises(cache_entry.CacheError, match="is a file, not a folder"):
        results.cached("entry_file", {"seed": 0}, compute)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_results_folder_is_a_clear_error(results_tmp):
    results_tmp.chmod(0o555)
    try:
        with pytest.raises(cache_entry.CacheError, match="REPRO_RESULTS_DIR"):
            results.cached("ro", {"seed": 0}, lambda: {"a": np.zeros(1)})
    finally:
        results_tmp.chmod(0o755)


def test_a_read_only_results_folder_is_a_clear_error_even_for_root(results_tmp, monkeypatch):
    """As root, os.access says yes to everything: the check is the same call, answered 'no'."""
    monkeypatch.setattr(results.os, "access", lambda path, mode: False)
    with pytest.raises(cache_entry.CacheError, match=r"is not writable; set REPRO_RESULTS_DIR"):
        results.cached("ro", {"seed": 0}, lambda: {"a": np.zeros(1)})
