"""A chapter's kernel keeps one local Dask cluster for its sweeps ($REPRO_KEEP_LOCAL_CLUSTER=1, set by
the runner), and starts a new one whenever the kept one no longer fits: another environment (its
workers would write to another results folder), another size, or a cluster that is no longer running."""

from __future__ import annotations

import os

import numpy as np
import pytest

from lib.experiments import sweep, sweep_cluster


def scheduler_of(client) -> str:
    return client.scheduler.address


def worker_pids(client) -> list[int]:
    return sorted(client.run(os.getpid).values())


def square(parameters: dict) -> dict:
    return {"y": np.array(parameters["x"] ** 2)}


@pytest.fixture
def keep(monkeypatch, results_tmp):
    monkeypatch.setenv(sweep_cluster.KEEP_ENV, "1")
    yield
    sweep_cluster.close_kept_cluster()


def test_sweeps_of_one_process_share_the_kept_cluster_and_compute_the_same(keep):
    with sweep_cluster.dask_client(n_workers=1) as client:
        first, pids = scheduler_of(client), worker_pids(client)
    report = sweep.sweep([{"x": 2}, {"x": 3}], square, name="kept_square", n_workers=1, progress=False)
    assert report.ok and [int(r["y"]) for r in report.load()] == [4, 9]
    with sweep_cluster.dask_client(n_workers=1) as client:
        assert scheduler_of(client) == first and worker_pids(client) == pids  # the same worker processes


def test_another_environment_size_or_a_closed_cluster_gets_a_new_cluster(keep, monkeypatch, tmp_path):
    with sweep_cluster.dask_client(n_workers=1) as client:
        first, (pid,) = scheduler_of(client), worker_pids(client)
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path / "other"))  # workers would write elsewhere
    with sweep_cluster.dask_client(n_workers=1) as client:
        second = scheduler_of(client)
        assert second != first and client.run(lambda: os.environ["REPRO_RESULTS_DIR"]).popitem()[1] == \
            str(tmp_path / "other")
    with sweep_cluster.dask_client(n_workers=2) as client:
        third = scheduler_of(client)
        assert third != second and len(worker_pids(client)) == 2
    (kept,) = sweep_cluster._kept.values()
    kept.close()  # closed under its user's feet (or its scheduler died)
    with sweep_cluster.dask_client(n_workers=2) as client:
        assert scheduler_of(client) != third and len(worker_pids(client)) == 2


def test_without_the_variable_each_block_has_its_own_cluster(results_tmp, monkeypatch):
    monkeypatch.delenv(sweep_cluster.KEEP_ENV, raising=False)
    with sweep_cluster.dask_client(n_workers=1) as client:
        first = scheduler_of(client)
    with sweep_cluster.dask_client(n_workers=1) as client:
        assert scheduler_of(client) != first
    assert not sweep_cluster._kept
