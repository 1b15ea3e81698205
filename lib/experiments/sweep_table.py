"""Sweep results as labelled tables: every analysis of a grid starts from one.

:func:`point_frame` gives a :class:`pandas.DataFrame` with one row per point: the point's
parameters, its scalar outputs and a ``failed`` column (the error line of a failed point, empty
otherwise). :func:`grid_dataset` gives an :class:`xarray.Dataset` whose dimensions are the grid
parameters (their values in grid order) and whose variables are the outputs, each output's own
axes named ``<output>_dim_<k>``. A failed point is a row of missing values (NaN, or an empty
string for text outputs), never a crash. :func:`write_table` writes either (``.csv`` or ``.nc``).

    report = sweep(points, "lib.experiments.sweep_points:pair_final_losses")
    grid_dataset(report.points, report.load()).loss_test.plot()
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

TABLE_SUFFIXES = (".csv", ".nc")
Outputs = Mapping[str, np.ndarray] | None  # one point's arrays; None for a failed point


def grid_axes(points: Sequence[Mapping]) -> dict[str, list]:
    """Per parameter name, its distinct values in order of first appearance (the grid's axes).

    ``ValueError`` unless every point has the same parameter names and the points are exactly
    the cartesian product of the axes (each combination once)."""
    if not points:
        raise ValueError("points must contain at least one parameter dict")
    names = list(points[0])
    if any(set(p) != set(names) for p in points):
        raise ValueError(f"points must all have the parameters {names}")
    axes = {n: list(dict.fromkeys(_hashable(p[n]) for p in points)) for n in names}
    combos = {tuple(_hashable(p[n]) for n in names) for p in points}
    if len(combos) != len(points) or len(points) != int(np.prod([len(v) for v in axes.values()], dtype=int)):
        raise ValueError(f"points must form a full grid (each combination of {names} once) to make a dataset; "
                         "use point_frame for other sets of points")
    return axes


def _hashable(value):
    return tuple(_hashable(v) for v in value) if isinstance(value, (list, tuple)) else value


def _scalar(array: np.ndarray):
    """A Python scalar for a one-element numeric, boolean or text array, else None."""
    array = np.asarray(array)
    if array.size != 1 or array.dtype.kind not in "biufU":
        return None
    return array.reshape(()).item()


def point_frame(points: Sequence[Mapping], outputs: Sequence[Outputs],
                failures: Mapping[int, str] | None = None) -> pd.DataFrame:
    """One row per point: parameters, scalar outputs (one-element arrays), ``failed``.

    Args:
        points: the grid points (parameter dicts), in grid order.
        outputs: per point its arrays, or None where the point failed (``SweepReport.load()``).
        failures: point index -> error line (default: "failed" for every None output).
    Outputs with more than one element are left out; their names are in ``frame.attrs["array_outputs"]``."""
    _check_lengths(points, outputs)
    failures = dict(failures or {})
    rows, arrays = [], set()
    for i, (point, out) in enumerate(zip(points, outputs)):
        row = {k: (list(v) if isinstance(v, tuple) else v) for k, v in point.items()}
        for name, value in (out or {}).items():
            scalar = _scalar(value)
            if scalar is None:
                arrays.add(name)
            else:
                row[name] = scalar
        row["failed"] = failures.get(i, "failed" if out is None else "")
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame = frame[[c for c in frame.columns if c != "failed"] + ["failed"]]
    frame.attrs["array_outputs"] = sorted(arrays)
    return frame


def _check_lengths(points, outputs) -> None:
    """``ValueError`` unless there is one output per point and no output has a parameter's name."""
    if len(points) != len(outputs):
        raise ValueError(f"outputs must have one entry per point: {len(points)} points, {len(outputs)} outputs")
    clashing = sorted({n for p, out in zip(points, outputs) for n in (out or {}) if n in p})
    if clashing:
        raise ValueError(f"outputs {clashing} have the names of grid parameters; a table needs distinct names")


def _output_shapes(outputs: Sequence[Outputs]) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Shape and dtype of every output name; ``ValueError`` if points disagree."""
    shapes: dict[str, tuple[tuple[int, ...], np.dtype]] = {}
    for out in outputs:
        for name, value in (out or {}).items():
            value = np.asarray(value)
            seen = shapes.setdefault(name, (value.shape, value.dtype))
            if seen[0] != value.shape:
                raise ValueError(f"output {name!r} has shape {seen[0]} at one point and {value.shape} at another; "
                                 "a dataset needs one shape per output (use point_frame)")
    return shapes


def _missing_like(dtype: np.dtype) -> tuple[np.dtype, object]:
    """The dtype a variable takes when some points are missing, and its missing value."""
    if dtype.kind == "U":
        return np.dtype(object), ""
    return np.dtype(np.float64), np.nan


def grid_dataset(points: Sequence[Mapping], outputs: Sequence[Outputs]) -> xr.Dataset:
    """The outputs on the grid: dimensions = grid parameters (:func:`grid_axes`), then each output's own
    axes ``<output>_dim_<k>``. A failed point (None) is NaN (text: ""); with no failure dtypes are kept."""
    _check_lengths(points, outputs)
    axes = grid_axes(points)
    names = list(axes)
    grid_shape = tuple(len(v) for v in axes.values())
    index = {tuple(_hashable(p[n]) for n in names): i for i, p in enumerate(points)}
    variables = {}
    for name, (shape, dtype) in _output_shapes(outputs).items():
        complete = all(out is not None and name in out for out in outputs)
        kind, missing = (dtype, None) if complete else _missing_like(dtype)
        data = np.empty(grid_shape + shape, dtype=kind)
        for cell in itertools.product(*(range(n) for n in grid_shape)):
            out = outputs[index[tuple(axes[n][k] for n, k in zip(names, cell))]]
            data[cell] = missing if out is None or name not in out else np.asarray(out[name])
        if kind == object:
            data = data.astype(str)
        variables[name] = (names + [f"{name}_dim_{k}" for k in range(len(shape))], data)
    coords = {n: _coordinate(v) for n, v in axes.items()}
    return xr.Dataset(variables, coords=coords)


def _coordinate(values: list) -> np.ndarray:
    """A coordinate array; list-valued parameters become their text (``"[1, 2]"``)."""
    if any(isinstance(v, tuple) for v in values):
        return np.array([str(list(v)) if isinstance(v, tuple) else str(v) for v in values])
    return np.asarray(values)


def check_table_path(path: str | Path) -> Path:
    """``path`` if it ends in one of :data:`TABLE_SUFFIXES` and its folder exists, else ``ValueError``."""
    path = Path(path)
    if path.suffix not in TABLE_SUFFIXES:
        raise ValueError(f"--table must end in one of {', '.join(TABLE_SUFFIXES)} (.csv: one row per point with the "
                         f"scalar outputs; .nc: the grid as an xarray dataset), got {str(path)!r}")
    if not path.parent.is_dir():
        raise ValueError(f"--table {str(path)!r}: folder {str(path.parent)!r} does not exist")
    return path


def write_table(path: str | Path, points: Sequence[Mapping], outputs: Sequence[Outputs],
                failures: Mapping[int, str] | None = None) -> Path:
    """Write :func:`point_frame` (``.csv``) or :func:`grid_dataset` (``.nc``, netCDF3 through scipy) to ``path``."""
    path = check_table_path(path)
    if path.suffix == ".csv":
        point_frame(points, outputs, failures).to_csv(path, index=False)
    else:
        grid_dataset(points, outputs).to_netcdf(path, engine="scipy")
    return path
