"""Results on disk: every computation cached under a hash of its parameters *and of the code*.

``cached(name, parameters, compute)`` returns the arrays of the entry
``<results>/<name>/<key>/`` if it exists, otherwise calls ``compute()``, writes the entry and
returns the arrays. The key is a hash of the parameters and of :func:`code_digest` (every
``.py`` file of ``lib/`` and the pinned ``requirements.txt``), so a result is only ever served
to the code that computed it: after a code change the same parameters get a new entry, and
the old one is neither served nor overwritten (``python -m lib.core.results prune`` removes
entries of other code versions).

An entry is a folder holding ``arrays.npz`` and ``meta.json`` (parameters, code digest,
SHA-256 of the archive, wall time, provenance). It is written into a temporary folder and
renamed into place in one step, so a killed writer never leaves a half-written entry
(stray ``.tmp-*`` folders are ignored, and removed by ``prune``). Concurrent writers of one
entry are serialized with a file lock (``filelock``): the second waits, then loads what the
first wrote. Every unreadable, truncated, edited or swapped file raises :class:`CacheError`
naming the file and what to do; nothing is deleted automatically. Files get the user's
umask, like any other file the user writes.

The results folder is ``$REPRO_RESULTS_DIR`` if set (made absolute against the current
directory when this module is imported, so processes started from elsewhere — a notebook
kernel, a Dask worker — inherit the same folder), else ``results/`` at the repository root.
"""

from __future__ import annotations

import functools
import hashlib
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
from filelock import FileLock

REPO_ROOT = Path(__file__).resolve().parents[2]
LIB_DIR = Path(__file__).resolve().parents[1]
RESULTS_ENV = "REPRO_RESULTS_DIR"
TRACKED_PACKAGES = ("jax", "jaxlib", "optax", "numpy", "scipy", "scikit-learn", "m-phate", "neural-tangents")
ARRAYS_FILE, META_FILE = "arrays.npz", "meta.json"
LOCK_TIMEOUT_S = 24 * 3600.0


class CacheError(RuntimeError):
    """A cache entry is unreadable, incomplete, or does not belong to the requested parameters and code."""


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


resolve_results_env()


def canonical_json(parameters: Mapping[str, Any]) -> str:
    """Deterministic JSON of a parameter dict (sorted keys; tuples become lists)."""
    return json.dumps(parameters, sort_keys=True, separators=(",", ":"), default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"parameter value {value!r} of type {type(value).__name__} is not JSON-serializable")


def code_files() -> list[Path]:
    """The files a result's validity depends on: every ``.py`` under ``lib/`` and ``requirements.txt``."""
    return sorted(LIB_DIR.rglob("*.py")) + [REPO_ROOT / "requirements.txt"]


def digest_files(paths: list[Path], root: Path = REPO_ROOT) -> str:
    """SHA-256 (hex) over the relative names and bytes of ``paths``; a missing file counts as empty."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() if path.exists() else b"")
        digest.update(b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """First 16 hex digits of :func:`digest_files` over :func:`code_files`, read once per process:
    the digest of the code this process loaded (a process started after an edit sees the edit)."""
    return digest_files(code_files())[:16]


def parameter_hash(parameters: Mapping[str, Any]) -> str:
    """First 16 hex digits of the SHA-256 of :func:`canonical_json` (parameters only)."""
    return hashlib.sha256(canonical_json(parameters).encode()).hexdigest()[:16]


def entry_key(parameters: Mapping[str, Any], code: str) -> str:
    """The entry's folder name: hash of the parameters and the code digest."""
    return hashlib.sha256(f"{canonical_json(parameters)}\0{code}".encode()).hexdigest()[:20]


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(functools.partial(handle.read, 1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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


def entry_dir(name: str, parameters: Mapping[str, Any], directory: Path | None = None, code: str | None = None) -> Path:
    """Where the entry for ``parameters`` under the current (or given) code lives."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"result name must be a non-empty folder name without '/', got {name!r}")
    return (directory or results_dir()) / name / entry_key(parameters, code or code_digest())


def _read_meta(folder: Path) -> dict[str, Any]:
    meta_path = folder / META_FILE
    try:
        return json.loads(meta_path.read_text())
    except FileNotFoundError as err:
        raise CacheError(f"cache entry {folder} has no {META_FILE} (removed or edited by hand); "
                         f"delete the folder {folder} to recompute") from err
    except (OSError, ValueError) as err:
        raise CacheError(f"cache metadata {meta_path} is unreadable ({err}); delete the folder {folder} to recompute") \
            from err


def _verified_arrays(folder: Path, meta: Mapping[str, Any]) -> dict[str, np.ndarray]:
    npz_path = folder / ARRAYS_FILE
    try:
        checksum = file_sha256(npz_path)
    except OSError as err:
        raise CacheError(f"cache file {npz_path} is missing or unreadable ({err}); delete the folder {folder} "
                         "to recompute") from err
    if checksum != meta.get("sha256"):
        raise CacheError(f"cache file {npz_path} does not match the checksum in {folder / META_FILE} (truncated, "
                         f"corrupted or replaced); delete the folder {folder} to recompute")
    try:
        with np.load(npz_path, allow_pickle=False) as archive:
            return {k: archive[k] for k in archive.files}
    except Exception as err:  # a file that passed its checksum but numpy cannot read: report, never guess
        raise CacheError(f"cache file {npz_path} is unreadable ({type(err).__name__}: {err}); delete the folder "
                         f"{folder} to recompute") from err


def load(name: str, parameters: Mapping[str, Any], directory: Path | None = None) -> dict[str, np.ndarray] | None:
    """The cached arrays for ``parameters`` under the current code, ``None`` if there is no entry;
    :class:`CacheError` if the entry is broken or records other parameters or code."""
    code = code_digest()
    folder = entry_dir(name, parameters, directory, code)
    if not folder.exists():
        return None
    meta = _read_meta(folder)
    if canonical_json(meta.get("parameters", {})) != canonical_json(parameters) or meta.get("code") != code:
        raise CacheError(f"cache entry {folder} records parameters {meta.get('parameters')} and code "
                         f"{meta.get('code')} but {dict(parameters)} and code {code} were requested (edited or "
                         f"moved by hand); delete the folder {folder} to recompute")
    return _verified_arrays(folder, meta)


def save(name: str, parameters: Mapping[str, Any], arrays: Mapping[str, np.ndarray], wall_time_s: float,
         directory: Path | None = None) -> Path:
    """Write an entry atomically (temporary folder, then one rename); refuse to overwrite one."""
    code = code_digest()
    folder = entry_dir(name, parameters, directory, code)
    if folder.exists():
        raise CacheError(f"refusing to overwrite existing cache entry {folder}")
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".tmp-{folder.name}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()  # mode 0777 & ~umask, like every other folder the user makes
    try:
        with open(tmp / ARRAYS_FILE, "wb") as handle:
            np.savez_compressed(handle, **{k: np.asarray(v) for k, v in arrays.items()})
            handle.flush()
            os.fsync(handle.fileno())
        meta = {
            "name": name,
            "parameters": json.loads(canonical_json(parameters)),
            "code": code,
            "sha256": file_sha256(tmp / ARRAYS_FILE),
            "wall_time_s": wall_time_s,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "arrays": {k: [list(np.shape(v)), str(np.asarray(v).dtype)] for k, v in arrays.items()},
            "provenance": provenance(),
        }
        (tmp / META_FILE).write_text(json.dumps(meta, indent=2))
        os.rename(tmp, folder)  # atomic; fails if another writer got there first
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return folder


def lock_for(name: str, parameters: Mapping[str, Any], directory: Path | None = None) -> FileLock:
    """The inter-process lock serializing writers of one entry (a ``.lock`` file beside it)."""
    folder = entry_dir(name, parameters, directory)
    folder.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(folder.parent / f"{folder.name}.lock"), timeout=LOCK_TIMEOUT_S)


def cached(name: str, parameters: Mapping[str, Any], compute: Callable[[], Mapping[str, np.ndarray]],
           directory: Path | None = None) -> dict[str, np.ndarray]:
    """Load the result of ``compute`` for ``parameters`` from disk, computing and saving it if absent.

    Two processes asking for the same missing entry: one computes, the other waits for the
    lock and loads the finished entry."""
    found = load(name, parameters, directory)
    if found is not None:
        return found
    with lock_for(name, parameters, directory):
        found = load(name, parameters, directory)
        if found is not None:
            return found
        start = time.perf_counter()
        arrays = {k: np.asarray(v) for k, v in compute().items()}
        save(name, parameters, arrays, time.perf_counter() - start, directory)
    return arrays


def metadata_of(name: str, parameters: Mapping[str, Any], directory: Path | None = None) -> dict[str, Any]:
    """The metadata (parameters, code digest, checksum, wall time, provenance) of a cached result."""
    folder = entry_dir(name, parameters, directory)
    if not folder.exists():
        raise CacheError(f"no cache entry {folder} for {name} with parameters {dict(parameters)} under the current "
                         "code; compute it first (lib.core.results.cached)")
    return _read_meta(folder)


def stale_entries(directory: Path | None = None) -> list[Path]:
    """Entries written by other code versions, and temporary folders of interrupted writes."""
    root, code = directory or results_dir(), code_digest()
    stale = []
    for meta_path in sorted(root.glob(f"*/*/{META_FILE}")):
        try:
            recorded = json.loads(meta_path.read_text()).get("code")
        except (OSError, ValueError):
            continue  # unreadable: reported by load, never removed automatically
        if recorded != code:
            stale.append(meta_path.parent)
    return stale + sorted(p for p in root.glob("*/.tmp-*") if p.is_dir())


def prune(directory: Path | None = None, dry_run: bool = False) -> list[Path]:
    """Remove :func:`stale_entries` (each under its writer's lock, so a running write is never touched)."""
    removed = []
    for folder in stale_entries(directory):
        key = folder.name.split("-")[1] if folder.name.startswith(".tmp-") else folder.name
        lock = FileLock(str(folder.parent / f"{key}.lock"), timeout=0)
        try:
            with lock:
                if not dry_run:
                    shutil.rmtree(folder)
                removed.append(folder)
        except TimeoutError:
            print(f"[results] {folder}: being written by another process, left alone", file=sys.stderr)
    return removed


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Inspect or prune the results cache.")
    parser.add_argument("command", choices=["prune", "stale", "digest"],
                        help="prune: delete entries of other code versions and interrupted writes; "
                             "stale: list them; digest: print the current code digest")
    args = parser.parse_args(argv)
    if args.command == "digest":
        print(code_digest())
        return 0
    paths = prune() if args.command == "prune" else stale_entries()
    verb = "removed" if args.command == "prune" else "stale"
    for path in paths:
        print(f"{verb}: {path}")
    print(f"[results] {len(paths)} {verb} under {results_dir()} (current code {code_digest()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
