"""Results on disk: every computation cached under a hash of its parameters, with provenance.

``cached(name, parameters, compute)`` returns the arrays of ``results/<name>/<hash>.npz``
if that file exists (checking that its sidecar ``<hash>.json`` records the same
parameters), otherwise calls ``compute()``, writes both files atomically and returns the
arrays. A corrupt or mismatched cache file raises :class:`CacheError` naming the file; it
is never silently overwritten. Delete the folder (``make clean-results``) to recompute.

The results folder is ``$REPRO_RESULTS_DIR`` if set, else ``results/`` at the repository root.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
TRACKED_PACKAGES = ("jax", "jaxlib", "optax", "numpy", "scipy", "scikit-learn", "m-phate", "neural-tangents")


class CacheError(RuntimeError):
    """A cache file is unreadable or does not belong to the requested parameters."""


def results_dir() -> Path:
    return Path(os.environ.get("REPRO_RESULTS_DIR", REPO_ROOT / "results"))


def canonical_json(parameters: Mapping[str, Any]) -> str:
    """Deterministic JSON of a parameter dict (sorted keys; tuples become lists)."""
    return json.dumps(parameters, sort_keys=True, separators=(",", ":"), default=_jsonable)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"parameter value {value!r} of type {type(value).__name__} is not JSON-serializable")


def parameter_hash(parameters: Mapping[str, Any]) -> str:
    """First 16 hex digits of the SHA-256 of :func:`canonical_json`."""
    return hashlib.sha256(canonical_json(parameters).encode()).hexdigest()[:16]


def provenance() -> dict[str, Any]:
    """Commit, package versions, Python and platform of the running code."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--", "lib"], capture_output=True, text=True
            ).stdout.strip()
        )
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = "unknown", None
    versions = {}
    for package in TRACKED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "commit": commit,
        "lib_dirty": dirty,
        "packages": versions,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _paths(name: str, parameters: Mapping[str, Any], directory: Path | None) -> tuple[Path, Path]:
    folder = (directory or results_dir()) / name
    key = parameter_hash(parameters)
    return folder / f"{key}.npz", folder / f"{key}.json"


def load(name: str, parameters: Mapping[str, Any], directory: Path | None = None) -> dict[str, np.ndarray] | None:
    """The cached arrays for ``parameters``, ``None`` if absent; :class:`CacheError` if broken."""
    npz_path, json_path = _paths(name, parameters, directory)
    if not npz_path.exists() and not json_path.exists():
        return None
    try:
        meta = json.loads(json_path.read_text())
    except (OSError, ValueError) as err:
        raise CacheError(f"cache metadata {json_path} is missing or unreadable ({err}); delete it to recompute") from err
    if canonical_json(meta.get("parameters", {})) != canonical_json(parameters):
        raise CacheError(
            f"cache file {json_path} records parameters {meta.get('parameters')} but {dict(parameters)} were "
            "requested (hash collision or edited file); delete it to recompute"
        )
    try:
        with np.load(npz_path, allow_pickle=False) as archive:
            return {k: archive[k] for k in archive.files}
    except (OSError, ValueError, EOFError) as err:
        raise CacheError(f"cache file {npz_path} is corrupt ({err}); delete it to recompute") from err


def save(
    name: str,
    parameters: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
    wall_time_s: float,
    directory: Path | None = None,
) -> Path:
    """Write arrays and their metadata atomically; refuse to overwrite an existing entry."""
    npz_path, json_path = _paths(name, parameters, directory)
    if npz_path.exists() or json_path.exists():
        raise CacheError(f"refusing to overwrite existing cache entry {npz_path}")
    npz_path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "name": name,
        "parameters": json.loads(canonical_json(parameters)),
        "wall_time_s": wall_time_s,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "arrays": {k: [list(np.shape(v)), str(np.asarray(v).dtype)] for k, v in arrays.items()},
        "provenance": provenance(),
    }
    with tempfile.NamedTemporaryFile(dir=npz_path.parent, suffix=".npz.tmp", delete=False) as tmp:
        np.savez_compressed(tmp, **{k: np.asarray(v) for k, v in arrays.items()})
    os.replace(tmp.name, npz_path)
    tmp_json = json_path.with_suffix(".json.tmp")
    tmp_json.write_text(json.dumps(meta, indent=2))
    os.replace(tmp_json, json_path)
    return npz_path


def cached(
    name: str,
    parameters: Mapping[str, Any],
    compute: Callable[[], Mapping[str, np.ndarray]],
    directory: Path | None = None,
) -> dict[str, np.ndarray]:
    """Load the result of ``compute`` for ``parameters`` from disk, computing and saving it if absent."""
    found = load(name, parameters, directory)
    if found is not None:
        return found
    start = time.perf_counter()
    arrays = {k: np.asarray(v) for k, v in compute().items()}
    save(name, parameters, arrays, time.perf_counter() - start, directory)
    return arrays


def metadata_of(name: str, parameters: Mapping[str, Any], directory: Path | None = None) -> dict[str, Any]:
    """The JSON sidecar (parameters, wall time, provenance) of a cached result."""
    _, json_path = _paths(name, parameters, directory)
    return json.loads(json_path.read_text())
