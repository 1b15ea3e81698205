"""Results on disk: every computation cached under a hash of its parameters, the code and the conditions.

``cached(name, parameters, compute)`` returns the arrays of the entry
``<results>/<name>/<key>/`` if it exists, otherwise calls ``compute()``, writes the entry and
returns the arrays. The key (:func:`lib.core.cache_key.entry_key`) is a hash of the parameters
in a type-preserving encoding, of :func:`code_digest` and of the computation conditions (float
width, Numba target, host CPU, numeric environment variables:
:func:`lib.core.cache_key.computation_conditions`), so a result is only ever served to the code
and conditions that computed it: after a code change the same parameters get a new entry, and
the old one is neither served nor overwritten (``python -m lib.core.results prune`` removes
entries of other code versions); a float64 run, a generic-CPU run and a host run each compute
their own entries.

The code digest covers the pinned ``requirements.txt`` and the files of ``lib/`` the computation
can run: ``computed_by`` names the module (or modules) whose code computes the entry, usually
the caller's ``__name__``, and the digest is taken over that module, every ``lib`` module it
imports, transitively, and the packages above them (:func:`lib.core.code_closure.module_closure`).
Editing the book layer (plotting, labels, the runner), which no computation imports, therefore
recomputes nothing; editing the training kernel recomputes every run that trains. Without
``computed_by`` (a notebook or a script caching its own function) the digest covers every file
of ``lib/``.

An entry is a folder holding ``arrays.npz`` and ``meta.json`` (parameters, code digest,
conditions, SHA-256 of the archive, wall time, provenance); its files, their checks and its lock
are :mod:`lib.core.cache_entry`'s. It is written into a temporary folder and renamed into place in
one step, so a killed writer never leaves a half-written entry (stray ``.tmp-*`` folders are
ignored, and removed by ``prune``). Concurrent writers of one entry are serialized with a file
lock (``filelock``, ``<key>.lock``): the second waits, then loads what the first wrote. The holder
records its pid, host and start in ``<key>.lock.holder``; a waiter says once on stderr whom it
waits for, and gives up with :class:`lib.core.cache_entry.CacheError` after
``$REPRO_LOCK_TIMEOUT`` seconds (default two hours). Every unreadable, truncated, edited or
swapped file (metadata not of :data:`lib.core.cache_entry.META_SCHEMA` included) raises
:class:`lib.core.cache_entry.CacheError` naming the file and what to do; nothing is deleted
automatically, and ``prune`` removes only folders that are entries by name, files and metadata
(:func:`classify`), reporting anything else. Files get the user's umask, like any other file the
user writes.

The results folder is ``$REPRO_RESULTS_DIR`` if set (made absolute against the current
directory when this module is imported, so processes started from elsewhere — a notebook
kernel, a Dask worker — inherit the same folder), else ``results/`` at the repository root.
This module is the cache itself: where it is, the code digest and provenance of an entry,
reading, writing and pruning entries, and the command line ``python -m lib.core.results
prune|stale|digest``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from .cache_entry import (ARRAYS_FILE, KEY_PATTERN, META_FILE, TMP_PATTERN, CacheError, EntryLock, describe_holder,
                          file_sha256, read_meta, verified_arrays)
from .cache_key import canonical_json, computation_conditions, describe_conditions, entry_key
from .code_closure import PACKAGE, closure_files, code_text

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULTS_ENV = "REPRO_RESULTS_DIR"
TRACKED_PACKAGES = ("jax", "jaxlib", "numpy", "scipy", "scikit-learn", "m-phate", "neural-tangents")
SAVEZ_PARAMETERS = frozenset(name for name, p in inspect.signature(np.savez_compressed).parameters.items()
                             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))  # not usable as array names


def resolve_results_env() -> None:
    """Make ``$REPRO_RESULTS_DIR`` absolute (against the current directory) in this process's
    environment, so child processes inherit one folder; an empty value is an error."""
    value = os.environ.get(RESULTS_ENV)
    if value is None:
        return
    if not value.strip():
        raise CacheError(f"{RESULTS_ENV} is set but empty; unset it (default: {REPO_ROOT / 'results'}) or name a folder")
    os.environ[RESULTS_ENV] = str(Path(value).expanduser().absolute())


def results_dir() -> Path:
    """The results folder: ``$REPRO_RESULTS_DIR`` (absolute) or ``<repo>/results``."""
    value = os.environ.get(RESULTS_ENV)
    if value is None:
        return REPO_ROOT / "results"
    if not value.strip():
        raise CacheError(f"{RESULTS_ENV} is set but empty; unset it (default: {REPO_ROOT / 'results'}) or name a folder")
    return Path(value).expanduser().absolute()


if __name__ != "__main__":  # the command line reports a bad value as one line (main)
    resolve_results_env()


def _jsonable(value: Any) -> Any:
    """NumPy scalars and arrays as Python numbers and lists (``json.dumps(default=...)`` of summary records)."""
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"parameter value {value!r} of type {type(value).__name__} is not JSON-serializable")


ComputedBy = str | tuple[str, ...] | list[str] | None  # module names; None: all of lib


def code_modules(computed_by: ComputedBy = None) -> tuple[str, ...]:
    """``computed_by`` as the sorted tuple of module names an entry records (None: ``("lib",)``,
    the whole library); :class:`ValueError` naming ``computed_by`` for anything else."""
    if computed_by is None:
        return (PACKAGE,)
    names = (computed_by,) if isinstance(computed_by, str) else computed_by
    if not isinstance(names, (tuple, list)) or not names or not all(isinstance(n, str) for n in names):
        raise ValueError(f"computed_by must be a module name or a non-empty list of them (e.g. __name__), got "
                         f"{computed_by!r}")
    return tuple(sorted(set(names)))


def code_files(computed_by: ComputedBy = None) -> list[Path]:
    """The files a result's validity depends on: those of ``lib/`` that ``computed_by`` can run
    (:func:`lib.core.code_closure.closure_files`; None: every one) and ``requirements.txt``."""
    return [*closure_files(code_modules(computed_by)), REPO_ROOT / "requirements.txt"]


def _file_bytes(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def digest_files(paths: list[Path], root: Path | None = None, content: Callable[[Path], bytes] = _file_bytes) -> str:
    """SHA-256 (hex) over the names relative to ``root`` (default: the repository) and the
    ``content`` of ``paths`` (default: their bytes; a missing file counts as empty)."""
    root = REPO_ROOT if root is None else root
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + content(path) + b"\0")
    return digest.hexdigest()


def code_digest(computed_by: ComputedBy = None) -> str:
    """First 16 hex digits of :func:`digest_files` of the code text of :func:`code_files` of ``computed_by``, read
    once per process: the digest of the code this process loaded (a process started after an edit
    sees the edit). Docstrings, comments and formatting do not count
    (:func:`lib.core.code_closure.code_text`)."""
    return _modules_digest(code_modules(computed_by))


@functools.lru_cache(maxsize=None)
def _modules_digest(modules: tuple[str, ...]) -> str:
    return digest_files(code_files(modules), content=code_text)[:16]


@functools.lru_cache(maxsize=1)
def _static_provenance() -> dict[str, Any]:
    versions = {}
    for package in TRACKED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {"packages": versions, "python": platform.python_version(), "platform": platform.platform()}


def provenance() -> dict[str, Any]:
    """Commit (and whether ``lib/`` had uncommitted changes), package versions, Python and platform."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--", "lib"],
                                    capture_output=True, text=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = "unknown", None
    return {"commit": commit, "lib_dirty": dirty, **_static_provenance()}


def entry_dir(name: str, parameters: Mapping[str, Any], directory: Path | None = None, code: str | None = None,
              conditions: Mapping[str, Any] | None = None, computed_by: ComputedBy = None) -> Path:
    """Where the entry for ``parameters`` under the current code of ``computed_by`` (or the given
    code digest) and this process's (or the given) computation conditions
    (:func:`lib.core.cache_key.computation_conditions`) lives."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"result name must be a non-empty folder name without '/', got {name!r}")
    conditions = computation_conditions() if conditions is None else conditions
    return (directory or results_dir()) / name / entry_key(parameters, code or code_digest(computed_by), conditions)


def _is_folder(path: Path) -> bool:
    """Whether ``path`` is an entry folder; ``False`` if absent, :class:`CacheError` if something else is there."""
    if not path.exists():
        return False
    if not path.is_dir():
        raise CacheError(f"cache entry {path} is a file, not a folder (damaged or written by something else); "
                         f"delete {path} to recompute")
    return True


def _writable_folder(folder: Path) -> Path:
    """Make ``folder`` (a results folder or an entry's parent); :class:`CacheError` naming it and the
    remedy if something in the way is a file, or the folder cannot be written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CacheError(f"cache folder {folder} cannot be made: it (or a folder above it) is a file; move that file "
                         f"away, or set {RESULTS_ENV} to another folder") from None
    except OSError as err:
        raise CacheError(f"cache folder {folder} cannot be made ({err.strerror}); set {RESULTS_ENV} to a folder you "
                         "can write") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CacheError(f"cache folder {folder} is not writable; set {RESULTS_ENV} to a folder you can write "
                         "(e.g. in a read-only checkout)")
    return folder


def load(name: str, parameters: Mapping[str, Any], directory: Path | None = None,
         conditions: Mapping[str, Any] | None = None, computed_by: ComputedBy = None) -> dict[str, np.ndarray] | None:
    """The cached arrays for ``parameters`` under the current code of ``computed_by`` and this
    process's (or the given) computation conditions, ``None`` if there is no entry;
    :class:`CacheError` if the entry is broken or records another name, other parameters, code or
    conditions."""
    code = code_digest(computed_by)
    conditions = computation_conditions() if conditions is None else dict(conditions)
    folder = entry_dir(name, parameters, directory, code, conditions)
    if not _is_folder(folder):
        return None
    meta = read_meta(folder)
    recorded = json.dumps(meta["parameters"], sort_keys=True, separators=(",", ":"))
    if recorded != canonical_json(parameters) or meta["code"] != code or meta["name"] != name \
            or meta.get("conditions") != json.loads(json.dumps(conditions)):
        raise CacheError(f"cache entry {folder} records parameters {meta['parameters']}, code {meta['code']} and "
                         f"conditions ({describe_conditions(meta.get('conditions', {}))}) of {meta['name']!r} but "
                         f"{dict(parameters)}, code {code} and conditions ({describe_conditions(conditions)}) of "
                         f"{name!r} were requested (edited or moved by hand); delete the folder {folder} to recompute")
    return verified_arrays(folder, meta)


def storable_array(key: object, value: object) -> np.ndarray:
    """``np.asarray(value)`` as :func:`save` stores it under ``key``, or a ``ValueError`` whose
    message (to follow the key's name) says why the cache could not store it or read it back:
    :func:`save` writes ``np.savez_compressed(**arrays)`` and :func:`load` reads it back with
    ``allow_pickle=False``."""
    if not isinstance(key, str):
        raise ValueError(f"is a {type(key).__name__}, not a string")
    if key in SAVEZ_PARAMETERS:
        raise ValueError("is the name of a parameter of np.savez_compressed, which stores the arrays; rename it")
    if "\0" in key or any(0xD800 <= ord(c) <= 0xDFFF for c in key):
        raise ValueError("contains a NUL character or a lone surrogate, which an archive member cannot be named "
                         "with; rename it")
    if isinstance(value, np.ma.MaskedArray):
        raise ValueError("holds a masked array, whose mask the cache would drop; return the data and the mask "
                         "as two arrays")
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as err:
        raise ValueError(f"holds a {type(value).__name__} that is not an array ({err})") from None
    if array.dtype.hasobject:
        raise ValueError(f"holds a {type(value).__name__} that becomes an array of dtype {array.dtype} (Python "
                         "objects), which the cache reads without pickle and so cannot store; return numbers, "
                         "booleans or strings (a nested dict as one key per entry)")
    return array


def save(name: str, parameters: Mapping[str, Any], arrays: Mapping[str, np.ndarray], wall_time_s: float,
         directory: Path | None = None, computed_by: ComputedBy = None) -> Path:
    """Write an entry atomically (temporary folder, then one rename); refuse to overwrite one, and
    refuse (``ValueError`` naming the key) arrays that could not be read back (:func:`storable_array`)."""
    stored = {}
    for key, value in arrays.items():
        try:
            stored[key] = storable_array(key, value)
        except ValueError as err:
            raise ValueError(f"cache entry {name!r}: array {key!r} {err}") from None
    arrays = stored
    modules = code_modules(computed_by)
    code, conditions = code_digest(modules), computation_conditions()
    folder = entry_dir(name, parameters, directory, code, conditions)
    if _is_folder(folder):
        raise CacheError(f"refusing to overwrite existing cache entry {folder}")
    _writable_folder(folder.parent)
    tmp = folder.parent / f".tmp-{folder.name}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()  # mode 0777 & ~umask, like every other folder the user makes
    try:
        with open(tmp / ARRAYS_FILE, "wb") as handle:
            np.savez_compressed(handle, **arrays)
            handle.flush()
            os.fsync(handle.fileno())
        meta = {
            "name": name,
            "parameters": json.loads(canonical_json(parameters)),
            "code": code,
            "computed_by": list(modules),
            "conditions": conditions,
            "sha256": file_sha256(tmp / ARRAYS_FILE),
            "wall_time_s": wall_time_s,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "arrays": {k: [list(v.shape), str(v.dtype)] for k, v in arrays.items()},
            "provenance": provenance(),
        }
        (tmp / META_FILE).write_text(json.dumps(meta, indent=2))
        os.rename(tmp, folder)  # atomic; fails if another writer got there first
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder


# ------------------------------------------------------------------ locks that say who holds them


def lock_for(name: str, parameters: Mapping[str, Any], directory: Path | None = None,
             computed_by: ComputedBy = None) -> EntryLock:
    """The inter-process lock serializing writers of one entry (a ``.lock`` file beside it)."""
    folder = entry_dir(name, parameters, directory, computed_by=computed_by)
    _writable_folder(folder.parent)
    lock_path = folder.parent / f"{folder.name}.lock"
    if lock_path.exists() and not lock_path.is_file():
        raise CacheError(f"the lock {lock_path} of cache entry {folder} is not a file (damaged); delete it "
                         "(no process is using it as a lock)")
    return EntryLock(lock_path, folder)


def cached(name: str, parameters: Mapping[str, Any], compute: Callable[[], Mapping[str, np.ndarray]],
           directory: Path | None = None, computed_by: ComputedBy = None) -> dict[str, np.ndarray]:
    """Load the result of ``compute`` for ``parameters`` from disk, computing and saving it if absent.

    ``computed_by``: the module (or modules) whose code ``compute`` runs, usually the caller's
    ``__name__``; the entry is valid for the code of that module and every ``lib`` module it
    imports (module docstring). None: for the code of all of ``lib/``.

    Two processes asking for the same missing entry: one computes, the other waits for the
    lock (at most :func:`lib.core.cache_entry.lock_timeout` seconds) and loads the finished entry."""
    modules = code_modules(computed_by)
    found = load(name, parameters, directory, computed_by=modules)
    if found is not None:
        return found
    with lock_for(name, parameters, directory, modules):
        found = load(name, parameters, directory, computed_by=modules)
        if found is not None:
            return found
        start = time.perf_counter()
        arrays = {k: np.asarray(v) for k, v in compute().items()}
        save(name, parameters, arrays, time.perf_counter() - start, directory, modules)
    return arrays


def metadata_of(name: str, parameters: Mapping[str, Any], directory: Path | None = None,
                conditions: Mapping[str, Any] | None = None, computed_by: ComputedBy = None) -> dict[str, Any]:
    """The metadata (parameters, code digest, conditions, checksum, wall time, provenance) of a
    cached result of ``computed_by``'s current code, computed under this process's (or the given)
    computation conditions."""
    folder = entry_dir(name, parameters, directory, conditions=conditions, computed_by=computed_by)
    if not _is_folder(folder):
        raise CacheError(f"no cache entry {folder} for {name} with parameters {dict(parameters)} under the current "
                         "code; compute it first (lib.core.results.cached)")
    return read_meta(folder)


# ------------------------------------------------------------------ maintenance: only ever real entries


def current_code(meta: Mapping[str, Any]) -> str | None:
    """The code digest an entry with metadata ``meta`` would have if computed now: of the modules
    it records in ``computed_by`` (all of ``lib/`` for an entry written before that was recorded);
    None if one of them no longer exists."""
    try:
        return code_digest(meta.get("computed_by") or None)
    except ValueError:
        return None


def classify(folder: Path) -> tuple[str, str]:
    """``(kind, reason)`` of a folder ``<results>/<name>/<folder>``: ``current`` or ``stale`` (an entry,
    by name, files and :func:`lib.core.cache_entry.check_meta`, of this or other code: :func:`current_code`),
    ``interrupted`` (a :func:`save` folder of a killed writer) or ``skipped`` (anything else: never
    touched; the reason says why)."""
    try:
        if folder.is_symlink():
            return "skipped", "a symbolic link, which the cache never writes"
        interrupted = TMP_PATTERN.fullmatch(folder.name) is not None
        if not interrupted and not KEY_PATTERN.fullmatch(folder.name):
            return "skipped", "its name is not a cache key"
        foreign = sorted(p.name for p in folder.iterdir()
                         if p.name not in (ARRAYS_FILE, META_FILE) or p.is_symlink() or not p.is_file())
        if foreign:
            return "skipped", f"it holds {', '.join(foreign)}, which the cache never writes"
        meta = None if interrupted else read_meta(folder)
    except (OSError, CacheError) as err:
        return "skipped", str(err)
    if meta is None:
        return "interrupted", ""
    if meta["name"] != folder.parent.name:
        return "skipped", f"{folder / META_FILE} records name {meta['name']!r}, not {folder.parent.name!r}"
    return ("current" if meta["code"] == current_code(meta) else "stale"), ""


def scan(directory: Path | None = None, report: bool = False) -> dict[str, list[Path]]:
    """Folders ``<results>/<name>/*`` by :func:`classify` kind (hidden ``<name>`` folders are not the
    cache's); with ``report``, one stderr line per skipped folder, naming it and the reason."""
    root = directory or results_dir()
    found: dict[str, list[Path]] = {"current": [], "stale": [], "interrupted": [], "skipped": []}
    if root.exists() and not root.is_dir():
        raise CacheError(f"results folder {root} is not a folder (check {RESULTS_ENV})")
    for group in sorted(root.iterdir()) if root.exists() else []:
        try:
            folders = sorted(p for p in group.iterdir() if p.is_dir()) if group.is_dir() \
                and not group.name.startswith(".") else []
            kinds = [(folder, *classify(folder)) for folder in folders]
        except OSError as err:
            kinds = [(group, "skipped", f"unreadable ({err})")]
        for folder, kind, reason in kinds:
            found[kind].append(folder)
            if report and kind == "skipped":
                print(f"[results] skipped {folder} (not a valid cache entry, left alone): {reason}", file=sys.stderr)
    return found


def stale_entries(directory: Path | None = None, report: bool = False) -> list[Path]:
    """Entries written by other code versions, and temporary folders of interrupted writes."""
    found = scan(directory, report)
    return found["stale"] + found["interrupted"]


def _remove(folder: Path, dry_run: bool) -> bool:
    """Delete one stale entry or interrupted write under its lock (never while a writer holds it),
    after checking again, under the lock, that it still is one."""
    match = TMP_PATTERN.fullmatch(folder.name)
    key = match.group(1) if match else folder.name
    lock = EntryLock(folder.parent / f"{key}.lock", folder.parent / key)
    if not lock.try_acquire(0):
        print(f"[results] {folder}: being written by {describe_holder(lock.holder_path)}, left alone", file=sys.stderr)
        return False
    try:
        kind, reason = classify(folder)
        if kind not in ("stale", "interrupted"):
            print(f"[results] {folder}: changed since the scan ({reason or kind}), left alone", file=sys.stderr)
            return False
        if not dry_run:
            shutil.rmtree(folder)
        return True
    except OSError as err:
        print(f"[results] {folder}: could not be removed ({err})", file=sys.stderr)
        return False
    finally:
        lock.release()


def prune(directory: Path | None = None, dry_run: bool = False) -> list[Path]:
    """Remove :func:`stale_entries` (each under its writer's lock, so a running write is never touched);
    every folder that is not a valid entry is reported on stderr and left alone."""
    return [folder for folder in stale_entries(directory, report=True) if _remove(folder, dry_run)]


class _Parser(argparse.ArgumentParser):
    """Raises its error for :func:`main` to report as one line, instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise argparse.ArgumentError(None, message)


def main(argv: list[str] | None = None) -> int:
    """The command line; bad input (arguments, ``$REPRO_RESULTS_DIR``) is one stderr line and status 2."""
    parser = _Parser(prog="python -m lib.core.results", description="Inspect or prune the results cache.")
    parser.add_argument("command", choices=["prune", "stale", "digest"],
                        help="prune: delete entries of other code versions and interrupted writes; "
                             "stale: list them; digest: print the current code digest of all of lib/ (an entry's "
                             "digest covers the modules it records in computed_by)")
    parser.add_argument("--dry-run", action="store_true", help="prune: list what would be removed, remove nothing")
    try:
        args = parser.parse_args(argv)
        if args.dry_run and args.command != "prune":
            parser.error(f"--dry-run applies to prune only, not {args.command}")
        resolve_results_env()
        if args.command == "digest":
            print(code_digest())
            return 0
        paths = prune(dry_run=args.dry_run) if args.command == "prune" else stale_entries(report=True)
    except (argparse.ArgumentError, CacheError) as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    verb = {"prune": "would remove" if args.dry_run else "removed", "stale": "stale"}[args.command]
    for path in paths:
        print(f"{verb}: {path}")
    print(f"[results] {len(paths)} {verb} under {results_dir()} (current code of lib/ {code_digest()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
