"""One entry of the results cache (:mod:`lib.core.results`) on disk: its files, their checks, its lock.

An entry is a folder ``<results>/<name>/<key>/`` (:data:`KEY_PATTERN`) holding :data:`ARRAYS_FILE`
and :data:`META_FILE`; a writer builds it in a temporary folder (:data:`TMP_PATTERN`) and renames
it into place. Its metadata must match :data:`META_SCHEMA` (:func:`check_meta`, :func:`read_meta`)
and its arrays the SHA-256 the metadata records (:func:`verified_arrays`); anything else is a
:class:`CacheError` naming the file and what to do. Writers of one entry take its lock
(:class:`EntryLock`, ``<key>.lock``), which records its holder in ``<key>.lock.holder``; a waiter
says once on stderr whom it waits for (:data:`LOCK_WAIT_NOTICE`) and gives up after
:func:`lock_timeout` seconds.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import os
import re
import socket
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from filelock import FileLock, Timeout

ARRAYS_FILE, META_FILE = "arrays.npz", "meta.json"
KEY_PATTERN = re.compile(r"[0-9a-f]{20}")  # lib.core.cache_key.entry_key
TMP_PATTERN = re.compile(r"\.tmp-([0-9a-f]{20})-[0-9a-f]{8}")  # the temporary folder of results.save
META_SCHEMA = {"name": "string", "parameters": "object", "code": "string", "sha256": "string", "wall_time_s": "number",
               "created": "string", "arrays": "object", "provenance": "object", "conditions": "object",
               "computed_by": "array"}  # as results.save writes
OPTIONAL_META = frozenset({"conditions", "computed_by"})  # absent from entries written before they were recorded
LOCK_TIMEOUT_ENV, LOCK_TIMEOUT_S = "REPRO_LOCK_TIMEOUT", 2 * 3600.0  # a writer gives up waiting after this
LOCK_WAIT_NOTICE = "[results] waiting for cache entry"  # the start of the line a waiting writer prints
LOCK_NOTICE_AFTER_S, HOLDER_SUFFIX = 1.0, ".holder"  # wait this long silently; ``<key>.lock.holder`` names the holder


class CacheError(RuntimeError):
    """A cache entry is unreadable, incomplete, or does not belong to the requested parameters and code."""


def file_sha256(path: Path) -> str:
    """SHA-256 (hex) of the bytes of ``path``, read in blocks of 1 MiB."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(functools.partial(handle.read, 1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type (for error messages)."""
    kinds = ((bool, "boolean"), (dict, "object"), (list, "array"), (str, "string"), ((int, float), "number"))
    return next((label for kind, label in kinds if isinstance(value, kind)), "null" if value is None else "?")


def check_meta(meta: Any, meta_path: Path) -> dict[str, Any]:
    """``meta`` if it matches :data:`META_SCHEMA` (a JSON object with every key the cache writes,
    each of the right type), else :class:`CacheError` naming ``meta_path`` and what is wrong."""
    if not isinstance(meta, dict):
        raise CacheError(f"cache metadata {meta_path} holds a JSON {_json_type(meta)}, not an object (edited or "
                         f"written by something else); delete the folder {meta_path.parent} to recompute")
    problems = [f"missing key {key!r}" if key not in meta else f"{key!r} is a JSON {_json_type(meta[key])}, not {kind}"
                for key, kind in META_SCHEMA.items()
                if (key not in meta and key not in OPTIONAL_META) or (key in meta and _json_type(meta[key]) != kind)]
    if problems:
        raise CacheError(f"cache metadata {meta_path} is not the metadata the cache writes ({'; '.join(problems)}); "
                         f"delete the folder {meta_path.parent} to recompute")
    return meta


def read_meta(folder: Path) -> dict[str, Any]:
    """The checked (:func:`check_meta`) metadata of an entry; :class:`CacheError` naming the file otherwise."""
    meta_path = folder / META_FILE
    try:
        meta = json.loads(meta_path.read_text())
    except FileNotFoundError as err:
        raise CacheError(f"cache entry {folder} has no {META_FILE} (removed or edited by hand); "
                         f"delete the folder {folder} to recompute") from err
    except (OSError, ValueError) as err:
        raise CacheError(f"cache metadata {meta_path} is unreadable ({err}); delete the folder {folder} to recompute") \
            from err
    return check_meta(meta, meta_path)


def verified_arrays(folder: Path, meta: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The arrays of the entry ``folder`` whose checked metadata is ``meta``, once their file's SHA-256
    matches ``meta["sha256"]``; :class:`CacheError` naming the file otherwise."""
    npz_path = folder / ARRAYS_FILE
    try:
        checksum = file_sha256(npz_path)
    except OSError as err:
        raise CacheError(f"cache file {npz_path} is missing or unreadable ({err}); delete the folder {folder} "
                         "to recompute") from err
    if checksum != meta["sha256"]:
        raise CacheError(f"cache file {npz_path} does not match the checksum in {folder / META_FILE} (truncated, "
                         f"corrupted or replaced); delete the folder {folder} to recompute")
    try:
        with np.load(npz_path, allow_pickle=False) as archive:
            return {k: archive[k] for k in archive.files}
    except Exception as err:  # a file that passed its checksum but numpy cannot read: report, never guess
        raise CacheError(f"cache file {npz_path} is unreadable ({type(err).__name__}: {err}); delete the folder "
                         f"{folder} to recompute") from err


def lock_timeout() -> float:
    """Seconds a writer waits for another process's lock: ``$REPRO_LOCK_TIMEOUT`` or :data:`LOCK_TIMEOUT_S`."""
    value = os.environ.get(LOCK_TIMEOUT_ENV)
    try:
        seconds = LOCK_TIMEOUT_S if value is None else float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise CacheError(f"{LOCK_TIMEOUT_ENV}={value!r} is not a number of seconds >= 0; unset it "
                         f"(default {LOCK_TIMEOUT_S:g}) or set e.g. {LOCK_TIMEOUT_ENV}=14400")
    return seconds


def _pid_running(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (one of another user counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists but belongs to someone else
        pass
    return True


def describe_holder(holder_path: Path) -> str:
    """Who holds a lock, from the record its holder wrote (pid, host, since when, command)."""
    try:
        record = json.loads(holder_path.read_text())
        pid, host, since = record["pid"], record["host"], record["since"]
        if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
            raise ValueError(f"pid {pid!r}")
    except FileNotFoundError:
        return f"an unknown process (no holder record {holder_path}: a writer running older code?)"
    except (OSError, ValueError, TypeError, KeyError) as err:
        return f"an unknown process (holder record {holder_path} is unreadable: {err!r})"
    text = f"pid {pid} on host {host} since {since} ({record.get('command') or '?'})"
    if host == socket.gethostname() and not _pid_running(pid):
        text += (f"; holder pid {pid} is not running: that record is stale, and the lock is held by a "
                 "process that wrote none (a writer running older code?)")
    return text


class EntryLock:
    """The inter-process lock of one entry (``<key>.lock``, a ``filelock.FileLock``) that records
    its holder in ``<key>.lock.holder`` and waits a bounded time, saying once whom it waits for."""

    def __init__(self, lock_path: Path, entry: Path):
        self.path, self.entry, self._lock = lock_path, entry, FileLock(str(lock_path))
        self.holder_path = lock_path.with_name(lock_path.name + HOLDER_SUFFIX)

    def try_acquire(self, timeout: float) -> bool:
        """Take the lock within ``timeout`` seconds and record this process as its holder."""
        try:
            self._lock.acquire(timeout=timeout)
        except Timeout:
            return False
        record = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                  "command": " ".join(sys.argv)[:200]}
        scratch = self.holder_path.with_name(f"{self.holder_path.name}.{os.getpid()}")
        with contextlib.suppress(OSError):  # advisory: without it, waiters only cannot say who holds the lock
            scratch.write_text(json.dumps(record))
            os.replace(scratch, self.holder_path)  # whole, never half-written
        return True

    def acquire(self) -> None:
        """Take the lock, saying once on stderr who holds it if that takes over :data:`LOCK_NOTICE_AFTER_S`;
        :class:`CacheError` naming the entry, the holder and the timeout after :func:`lock_timeout` seconds."""
        timeout = lock_timeout()
        deadline = time.monotonic() + timeout
        if self.try_acquire(min(LOCK_NOTICE_AFTER_S, timeout)):
            return
        if deadline > time.monotonic():
            print(f"{LOCK_WAIT_NOTICE} {self.entry}: its lock {self.path} is held by "
                  f"{describe_holder(self.holder_path)}; giving up after {timeout:g} s ({LOCK_TIMEOUT_ENV})",
                  file=sys.stderr, flush=True)
            if self.try_acquire(max(0.0, deadline - time.monotonic())):
                return
        raise CacheError(f"gave up after {timeout:g} s ({LOCK_TIMEOUT_ENV}) waiting for cache entry {self.entry}: "
                         f"its lock {self.path} is held by {describe_holder(self.holder_path)}; wait for that "
                         f"process, stop it, or set {LOCK_TIMEOUT_ENV} to a longer time in seconds")

    def release(self) -> None:
        """Remove this process's holder record, then release the lock."""
        try:
            self.holder_path.unlink(missing_ok=True)
        finally:
            self._lock.release()

    def __enter__(self) -> EntryLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.release()
