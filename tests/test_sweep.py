"""The Dask sweep engine on a 2-worker LocalCluster: same numbers as serial runs, killed
workers retried, failing points reported while the others finish, resumption from the cache.

The point functions below run in the worker processes, which import them from this module;
each call leaves a file in ``$REPRO_SWEEP_TEST_CALLS`` so that tests can count computations
across processes.
"""

import os
import signal
import uuid
from pathlib import Path

import numpy as np
import pytest

from lib.book import sweep_command
from lib.core import cache_entry, results
from lib.experiments import sweep, sweep_cluster
from lib.experiments.sweep_points import check_pair_parameters, pair_final_losses

CALLS_ENV = "REPRO_SWEEP_TEST_CALLS"


def _record_call(tag: str, x) -> None:
    (Path(os.environ[CALLS_ENV]) / f"{tag}-{x}-{uuid.uuid4().hex}").touch()


def _calls(tag: str, x) -> int:
    return len(list(Path(os.environ[CALLS_ENV]).glob(f"{tag}-{x}-*")))


def square(parameters: dict) -> dict:
    _record_call("square", parameters["x"])
    return {"square": np.array(parameters["x"] ** 2)}


def raises_on_two(parameters: dict) -> dict:
    _record_call("raises", parameters["x"])
    if parameters["x"] == 2:
        raise ArithmeticError(f"refusing x={parameters['x']}")
    return {"x": np.array(parameters["x"])}


def killed_on_first_attempt(parameters: dict) -> dict:
    """Point x=1 SIGKILLs its own worker process the first time it runs (marker file)."""
    _record_call("killed", parameters["x"])
    marker = Path(os.environ[CALLS_ENV]) / f"killed-marker-{parameters['x']}"
    if parameters["x"] == 1 and not marker.exists():
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return {"x": np.array(parameters["x"])}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A LocalCluster of 2 single-threaded worker processes that inherit the temporary
    results and call-count folders from this process's environment."""
    folders = {"REPRO_RESULTS_DIR": tmp_path_factory.mktemp("results"), CALLS_ENV: tmp_path_factory.mktemp("calls")}
    saved = {k: os.environ.get(k) for k in folders}
    os.environ.update({k: str(v) for k, v in folders.items()})
    try:
        with sweep_cluster.dask_client(n_workers=2) as dask_client:
            assert len(dask_client.scheduler_info()["workers"]) == 2
            yield dask_client
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_results_equal_serial_execution_bit_for_bit(client):
    points = [{"seed": s, "n_hidden": 16, "n_iterations": 20, "schedule": sc} for s in (0, 1) for sc in ("ET", "LR")]
    report = sweep.sweep(points, "lib.experiments.sweep_points:pair_final_losses", client=client, progress=False)
    assert report.ok and len(report.computed) == 4 and not report.skipped
    for point, swept in zip(points, report.load()):
        serial = pair_final_losses(point)
        assert sorted(swept) == sorted(serial)
        for key in serial:
            np.testing.assert_array_equal(swept[key], serial[key])
    assert report.cache_parameters[0] == check_pair_parameters(points[0])  # defaults are part of the key


@pytest.mark.alone
def test_worker_killed_mid_task_is_retried_and_every_point_finishes(client):
    points = [{"x": x} for x in range(4)]
    report = sweep.sweep(points, killed_on_first_attempt, name="killed", client=client, progress=False)
    assert report.ok, [f.format() for f in report.failures]
    assert sorted(p["x"] for p in report.computed) == [0, 1, 2, 3]
    assert _calls("killed", 1) == 2  # the first attempt really died
    assert [int(r["x"]) for r in report.load()] == [0, 1, 2, 3]


def test_failing_point_is_reported_with_parameters_and_others_finish(client):
    points = [{"x": x} for x in range(4)]
    report = sweep.sweep(points, raises_on_two, name="raises", client=client, retries=1, progress=False)
    assert [f.parameters for f in report.failures] == [{"x": 2}]
    failure = report.failures[0]
    assert failure.error == "ArithmeticError: refusing x=2"
    assert "raises_on_two" in failure.traceback and "ArithmeticError" in failure.traceback
    assert sorted(p["x"] for p in report.computed) == [0, 1, 3]
    assert _calls("raises", 2) == 2  # first attempt + one retry
    loaded = report.load()
    assert loaded[2] is None and [int(loaded[i]["x"]) for i in (0, 1, 3)] == [0, 1, 3]


def test_command_line_prints_failures_and_exits_nonzero(client, capsys, monkeypatch):
    monkeypatch.setenv(sweep_cluster.SCHEDULER_ENV, client.scheduler.address)
    code = sweep_command.main(["--function", "tests.test_sweep:raises_on_two", "--grid", "x=1,2", "--name", "raises_cli"])
    out = capsys.readouterr()
    assert code == 1
    assert "2 points, 0 already cached, 1 computed, 1 failed" in out.out
    assert "FAILED point {'x': 2}: ArithmeticError: refusing x=2" in out.err and "Traceback" in out.err


def test_resume_computes_only_missing_points(client):
    first = sweep.sweep([{"x": x} for x in (0, 1)], square, name="resume", client=client, progress=False)
    assert len(first.computed) == 2
    second = sweep.sweep([{"x": x} for x in range(4)], square, name="resume", client=client, progress=False)
    assert second.skipped == [{"x": 0}, {"x": 1}] and sorted(p["x"] for p in second.computed) == [2, 3]
    assert [_calls("square", x) for x in range(4)] == [1, 1, 1, 1]
    assert [int(r["square"]) for r in second.load()] == [0, 1, 4, 9]


def _set_results_dir(path: str) -> None:
    os.environ["REPRO_RESULTS_DIR"] = path


def test_workers_must_see_the_results_folder(client, tmp_path):
    sweep_cluster.check_shared_results(client)
    client.run(_set_results_dir, str(tmp_path / "elsewhere"), workers=[next(iter(client.scheduler_info()["workers"]))])
    try:
        with pytest.raises(sweep_cluster.ClusterError, match=r"workers \['tcp://.*'\] do not see the results folder"):
            sweep_cluster.check_shared_results(client)
    finally:
        client.run(_set_results_dir, os.environ["REPRO_RESULTS_DIR"])
    sweep_cluster.check_shared_results(client)


@pytest.mark.parametrize("argv, message", [
    (["--function", "lib.nope:fn", "--grid", "seed=1"], "cannot import module 'lib.nope'"),
    (["--function", "lib.experiments.sweep_points:no_such", "--grid", "seed=1"], "has no function 'no_such'"),
    (["--function", "lib.experiments.sweep_points:pair_final_losses", "--grid", "seed=0,-1"], "seed must be an integer >= 0"),
    (["--function", "lib.experiments.sweep_points:pair_final_losses", "--grid", "seed=0", "--grid", "sead=1"], "unknown ['sead']"),
    (["--function", "lib.experiments.sweep_points:pair_final_losses", "--grid", "seed=0", "--grid", "seed=1"], "given more than once"),
    (["--function", "lib.experiments.sweep_points:pair_final_losses", "--grid", "seed"], "name=value1,value2"),
    (["--notebook", "00_quickstart", "--grid", "sead=1"], "has no parameter sead; allowed: seed"),
    (["--notebook", "00_quickstart", "--grid", "seed='a'"], "seed must be an integer like its default"),
    (["--notebook", "00_quickstart", "--grid-spec", "seed=0;touch x"], "not a Python literal"),
    (["--notebook", "nope", "--grid", "seed=1"], "notebook must be one of ["),
    (["--notebook", "00_quickstart", "--grid", "seed=1", "--output-dir", "book/executed"], "outside book/executed"),
    (["--function", "lib.experiments.sweep_points:pair_final_losses", "--grid", "seed=1", "--workers", "0"], "--workers"),
])
def test_bad_input_fails_before_any_cluster_starts(argv, message, capsys, monkeypatch):
    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(sweep, "dask_client", no_cluster)
    try:
        code = sweep_command.main(argv)
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_schedule_blocks_are_the_notebooks_cache_entries_and_train_as_one_block_would(client):
    """cached_schedule_blocks: a block a notebook already ran (cached_schedule of the same seeds)
    is read, not trained again; every block is the cache entry cached_schedule reads; the joined
    weights and losses equal those of all pairs trained as one block, bit for bit."""
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.schedules import SCHEDULE_CODE, cached_schedule, run_schedule, schedule_parameters
    from lib.experiments.sweep_points import cached_schedule_blocks

    env = TaskEnvironment()
    notebook = cached_schedule(env, "LR", (0, 1), 100, n_hidden=16)
    meta = results.entry_dir("schedule", schedule_parameters(env, "LR", (0, 1), 100, 16),
                             computed_by=SCHEDULE_CODE) / cache_entry.META_FILE
    written = meta.stat().st_mtime_ns
    plan = {"LR": ((0, 1, 2, 3, 4), 100), "ET": ((10, 11, 12), 100)}
    joined = cached_schedule_blocks(env, plan, block_pairs=2, n_hidden=16, client=client, progress=False)
    assert meta.stat().st_mtime_ns == written
    for key, value in notebook.items():
        np.testing.assert_array_equal(joined["LR"][key][:2] if key != "iterations" else joined["LR"][key], value)
    for schedule, (seeds, n_iterations) in plan.items():
        assert joined[schedule]["single/loss_test"].shape[0] == len(seeds)
        for start in range(0, len(seeds), 2):
            block = cached_schedule(env, schedule, seeds[start:start + 2], n_iterations, n_hidden=16)
            for key in block:
                if key != "iterations":
                    np.testing.assert_array_equal(joined[schedule][key][start:start + 2], block[key], err_msg=key)
        whole = run_schedule(env, schedule, seeds, n_iterations, 16, progress=False)
        for key, value in whole.items():
            np.testing.assert_array_equal(joined[schedule][key], value, err_msg=key)


@pytest.mark.parametrize("change, message", [
    ({"engine_tag": "numba-v0"}, "engine_tag must be one of"),
    ({"extra": 1}, "unknown \\['extra'\\]"),
    ({"env": [4, 3]}, "env must be"),
    ({"schedule": "XX"}, "schedule must be one of"),
])
def test_schedule_point_rejects_bad_parameters(change, message):
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.schedules import schedule_parameters
    from lib.experiments.sweep_points import check_schedule_point

    good = schedule_parameters(TaskEnvironment(), "ET", (0, 1), 100)
    assert check_schedule_point(good) == good
    with pytest.raises(ValueError, match=message):
        check_schedule_point({**good, **change})


def doubled_unless_two(parameters: dict) -> dict:
    if parameters["x"] == 2:
        raise ArithmeticError(f"refusing x={parameters['x']}")
    return {"doubled": np.array(2.0 * parameters["x"]), "curve": np.arange(3.0) * parameters["x"]}


def test_command_line_writes_the_grid_as_a_table_with_failed_points_missing(client, tmp_path, monkeypatch):
    import xarray as xr
    monkeypatch.setenv(sweep_cluster.SCHEDULER_ENV, client.scheduler.address)
    nc = tmp_path / "doubled.nc"
    code = sweep_command.main(["--function", "tests.test_sweep:doubled_unless_two", "--grid", "x=1,2,3",
                               "--grid", "y=0,1", "--name", "doubled_table", "--table", str(nc), "--retries", "0"])
    assert code == 1  # the points x=2 failed; the table is written all the same
    with xr.open_dataset(nc, engine="scipy") as data:
        assert data["doubled"].dims == ("x", "y") and data["curve"].dims == ("x", "y", "curve_dim_0")
        np.testing.assert_array_equal(data["doubled"].sel(y=1), [2.0, np.nan, 6.0])
        np.testing.assert_array_equal(data["curve"].sel(x=3, y=0), [0.0, 3.0, 6.0])
    report = sweep.sweep([{"x": x} for x in (1, 2, 3)], doubled_unless_two, name="doubled_frame", client=client,
                         retries=0, progress=False)
    frame = report.frame()
    assert frame["failed"].tolist() == ["", "ArithmeticError: refusing x=2", ""]
    assert frame["doubled"].tolist()[::2] == [2.0, 6.0] and np.isnan(frame["doubled"][1])


def test_notebook_sweep_table_holds_the_glued_numbers(client, tmp_path, monkeypatch):
    import pandas as pd
    monkeypatch.setenv(sweep_cluster.SCHEDULER_ENV, client.scheduler.address)
    csv = tmp_path / "quickstart.csv"
    code = sweep_command.main(["--notebook", "00_quickstart", "--grid", "seed=0,1", "--grid", "n_iterations=100",
                               "--grid", "n_hidden=8", "--output-dir", str(tmp_path / "runs"), "--table", str(csv)])
    assert code == 0
    frame = pd.read_csv(csv)
    assert frame["seed"].tolist() == [0, 1] and (frame["n_hidden"] == 8).all()
    losses = frame["quickstart_final_test_standard"]
    assert losses.notna().all() and (losses > 0).all() and losses[0] != losses[1]
    assert frame["quickstart_silhouette_large"].between(-1, 1).all()


def test_the_local_cluster_quiets_only_its_nannys_teardown_warnings(monkeypatch):
    """Inside the block the nanny's log level is untouched; at teardown its warnings (a worker killed
    after 4 s) are quiet; afterwards, and at the teardown after a failure inside the block, the level
    is the caller's."""
    import logging

    from dask.distributed import LocalCluster

    nanny = logging.getLogger("distributed.nanny")
    before = nanny.level
    at_teardown = []
    original_exit = LocalCluster.__exit__

    def recording_exit(self, *args):
        at_teardown.append(nanny.level)
        return original_exit(self, *args)

    monkeypatch.setattr(LocalCluster, "__exit__", recording_exit)
    with sweep_cluster.dask_client(n_workers=1) as dask_client:
        assert nanny.level == before and len(dask_client.scheduler_info()["workers"]) == 1
    assert nanny.level == before
    with pytest.raises(RuntimeError, match="inside"):
        with sweep_cluster.dask_client(n_workers=1):
            raise RuntimeError("a failure inside the block")
    assert nanny.level == before and at_teardown == [logging.ERROR, before]
