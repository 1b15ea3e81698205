"""Input checks shared by the analyses modules: arrays of the right shape, finite where NaN would
be silently wrong, label vectors, levels and thresholds. Each raises one ``ValueError`` that names
the argument, says what is expected and what was given (see :mod:`lib.core.validation` for the
scalar parameters). The checks only inspect their inputs, so they never change a result."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..core.validation import check_finite, check_int  # noqa: F401 (check_finite: for the analyses modules)


def as_array(name: str, value: Any, dtype=np.float64) -> np.ndarray:
    """``np.asarray(value, dtype)``, with a conversion failure (strings, ragged lists) naming ``name``."""
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be an array of numbers, got {type(value).__name__} ({error})") from None


def check_ndim(name: str, array: np.ndarray, ndim: int, layout: str) -> np.ndarray:
    """``array`` if it has ``ndim`` axes; ``layout`` names them, e.g. ``"(N, K)"``."""
    if np.ndim(array) != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array {layout}, got shape {np.shape(array)}")
    return array


def check_real(name: str, value: Any) -> float:
    """A finite real number (not a bool) as ``float``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def check_level(name: str, value: Any) -> float:
    """A confidence level strictly between 0 and 1 (0.95, not 95)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name} must be a number strictly between 0 and 1 (e.g. 0.95), got {value!r}")
    return float(value)


def check_labels(name: str, labels: Any, size: int | None = None, n_groups: int | None = None,
                 rows_of: str = "values") -> np.ndarray:
    """``labels`` as a 1-D array of non-negative integers (one per row of ``rows_of``: ``size``
    of them; each < ``n_groups``)."""
    array = np.asarray(labels)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iub"):
        raise ValueError(f"{name} must be a 1-D array of integer group labels, got shape {array.shape} and dtype "
                         f"{array.dtype}")
    if size is not None and array.shape[0] != size:
        raise ValueError(f"{name} must hold one label per row of {rows_of} ({size}), got {array.shape[0]} labels")
    if array.size and (array.min() < 0 or (n_groups is not None and array.max() >= n_groups)):
        allowed = f"in 0..{n_groups - 1}" if n_groups is not None else "that are >= 0"
        raise ValueError(f"{name} must hold group labels {allowed}, got labels from {array.min()} to {array.max()}")
    return array


def check_names(name: str, value: Any) -> tuple[str, ...]:
    """A list or tuple of strings (a bare string would be read character by character)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a list of names, got {value!r}")
    value = tuple(value)
    if not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name} must be a list of names (strings), got {value!r}")
    return value


def check_iterations(name: str, iterations: Any, n_snapshots: int, curves_name: str) -> np.ndarray:
    """``iterations`` as a 1-D array with one entry per snapshot of ``curves_name``."""
    iterations = np.asarray(iterations)
    if iterations.shape != (n_snapshots,):
        raise ValueError(f"{name} must be a 1-D array with one entry per snapshot of {curves_name} ({n_snapshots}), "
                         f"got shape {iterations.shape}")
    return iterations


def check_cluster_count(name: str, value: Any, n_points: int, points_name: str, minimum: int = 1,
                        maximum: int | None = None) -> int:
    """A number of clusters in [``minimum``, ``maximum`` (default: the number of points)]."""
    maximum = n_points if maximum is None else maximum
    if maximum < minimum:
        raise ValueError(f"{points_name} has {n_points} rows, too few for {name} in [{minimum}, {maximum}] "
                         f"(got {name}={value!r})")
    return check_int(name, value, minimum=minimum, maximum=maximum)
