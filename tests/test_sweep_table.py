"""Sweep results as labelled tables (lib.experiments.sweep_table): grid dimensions, failed points
as missing values, files that read back, and the glued values of an executed notebook."""

import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from lib.book.sweep_command import glued_values
from lib.experiments import sweep_table

POINTS = [{"seed": s, "n_hidden": h} for s in (0, 1, 2) for h in (50, 200)]


def outputs_of(points, failed=()):
    """Per point a scalar (seed * 1000 + n_hidden) and a length-3 curve; None at ``failed`` indices."""
    return [None if i in failed else {"final": np.array(p["seed"] * 1000.0 + p["n_hidden"]),
                                      "curve": np.arange(3.0) + p["seed"], "label": np.array(f"s{p['seed']}")}
            for i, p in enumerate(points)]


def test_dataset_has_the_grid_parameters_as_dimensions_and_each_cell_its_point():
    data = sweep_table.grid_dataset(POINTS, outputs_of(POINTS))
    assert data["final"].dims == ("seed", "n_hidden")
    assert data["curve"].dims == ("seed", "n_hidden", "curve_dim_0")
    assert list(data["seed"].values) == [0, 1, 2] and list(data["n_hidden"].values) == [50, 200]
    assert float(data["final"].sel(seed=2, n_hidden=50)) == 2050.0
    np.testing.assert_array_equal(data["curve"].sel(seed=1, n_hidden=200), [1.0, 2.0, 3.0])
    assert str(data["label"].sel(seed=2, n_hidden=200).values) == "s2"


def test_a_failed_point_is_missing_not_a_crash():
    data = sweep_table.grid_dataset(POINTS, outputs_of(POINTS, failed={3}))  # seed 1, n_hidden 200
    assert np.isnan(float(data["final"].sel(seed=1, n_hidden=200)))
    assert np.isnan(data["curve"].sel(seed=1, n_hidden=200)).all()
    assert str(data["label"].sel(seed=1, n_hidden=200).values) == ""
    assert float(data["final"].sel(seed=1, n_hidden=50)) == 1050.0
    assert int(np.isnan(data["final"]).sum()) == 1
    frame = sweep_table.point_frame(POINTS, outputs_of(POINTS, failed={3}), {3: "ArithmeticError: no"})
    assert list(frame.columns) == ["seed", "n_hidden", "final", "label", "failed"]
    assert frame.attrs["array_outputs"] == ["curve"]
    assert frame.loc[3, "failed"] == "ArithmeticError: no" and np.isnan(frame.loc[3, "final"])
    assert (frame.drop(index=3)["failed"] == "").all()


def test_points_that_are_not_a_full_grid_make_a_frame_but_no_dataset():
    points = POINTS[:-1]
    assert len(sweep_table.point_frame(points, outputs_of(points))) == 5
    with pytest.raises(ValueError, match="full grid"):
        sweep_table.grid_dataset(points, outputs_of(points))


def test_outputs_of_different_shapes_are_refused_with_their_name():
    outputs = outputs_of(POINTS)
    outputs[1]["curve"] = np.arange(4.0)
    with pytest.raises(ValueError, match="output 'curve' has shape"):
        sweep_table.grid_dataset(POINTS, outputs)


def test_tables_written_as_csv_and_netcdf_read_back(tmp_path):
    outputs = outputs_of(POINTS, failed={0})
    csv = sweep_table.write_table(tmp_path / "grid.csv", POINTS, outputs, {0: "died"})
    frame = pd.read_csv(csv, keep_default_na=False, na_values=[""])
    assert frame.loc[5, "final"] == 2200.0 and frame.loc[0, "failed"] == "died"
    nc = sweep_table.write_table(tmp_path / "grid.nc", POINTS, outputs)
    with xr.open_dataset(nc, engine="scipy") as data:
        assert data["final"].dims == ("seed", "n_hidden")
        assert float(data["final"].sel(seed=2, n_hidden=200)) == 2200.0
        assert np.isnan(float(data["final"].sel(seed=0, n_hidden=50)))


@pytest.mark.parametrize("path, message", [("grid.xlsx", "--table must end in one of .csv, .nc"),
                                           ("missing/grid.csv", "does not exist")])
def test_bad_table_paths_are_refused_naming_the_option(tmp_path, path, message):
    with pytest.raises(ValueError, match=message):
        sweep_table.check_table_path(tmp_path / path)


def test_glued_values_of_an_executed_notebook(tmp_path):
    def glued(name, text):
        return {"output_type": "display_data", "data": {"application/papermill.record/text/plain": text},
                "metadata": {"scrapbook": {"name": name, "mime_prefix": "application/papermill.record/"}}}
    figure = {"output_type": "display_data", "data": {"image/png": "AAAA"},
              "metadata": {"scrapbook": {"name": "fig", "mime_prefix": "application/papermill.record/"}}}
    notebook = {"cells": [{"cell_type": "code", "outputs": [glued("loss", "0.25"), glued("words", "'4.6 minutes'"),
                                                            glued("count", "'50'"), figure]}]}
    path = tmp_path / "executed.ipynb"
    path.write_text(json.dumps(notebook))
    values = glued_values(path)
    assert sorted(values) == ["count", "loss", "words"]
    assert float(values["loss"]) == 0.25 and float(values["count"]) == 50.0
    assert str(values["words"]) == "4.6 minutes"


def test_an_output_named_like_a_parameter_is_refused():
    outputs = [{"seed": np.array(1.0)} for _ in POINTS]
    with pytest.raises(ValueError, match=r"outputs \['seed'\] have the names of grid parameters"):
        sweep_table.point_frame(POINTS, outputs)
