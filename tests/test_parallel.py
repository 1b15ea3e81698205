"""lib.core.parallel: independent jobs on threads give exactly the loop's results, in job order."""

import numpy as np
import pytest

from lib.core import parallel


def _leading_eigenvalue(seed: int, size: int) -> float:
    matrix = np.random.default_rng(seed).normal(size=(size, size))
    return float(np.max(np.abs(np.linalg.eigvals(matrix))))


def test_parallel_map_equals_the_loop_in_job_order():
    jobs = [(seed, 40 + 7 * (seed % 3)) for seed in range(12)]
    expected = [_leading_eigenvalue(*job) for job in jobs]
    assert parallel.parallel_map(_leading_eigenvalue, jobs, n_workers=2) == expected
    assert parallel.parallel_map(_leading_eigenvalue, jobs, n_workers=1) == expected
    assert parallel.parallel_map(_leading_eigenvalue, [], n_workers=2) == []


def test_a_failing_job_raises_its_error():
    def fails_on_three(i):
        if i == 3:
            raise RuntimeError("job 3 failed")
        return i

    with pytest.raises(RuntimeError, match="job 3 failed"):
        parallel.parallel_map(fails_on_three, [(i,) for i in range(6)], n_workers=2)


def test_worker_count_from_argument_and_environment(monkeypatch):
    with pytest.raises(ValueError, match="n_workers must be an integer >= 1"):
        parallel.parallel_map(_leading_eigenvalue, [(0, 3)], n_workers=0)
    monkeypatch.setenv("REPRO_WORKERS", "3")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert parallel.available_workers() == 3
    monkeypatch.delenv("REPRO_WORKERS")
    assert parallel.available_workers() == 1  # as in a Dask worker process
    monkeypatch.setenv("REPRO_WORKERS", "two")
    with pytest.raises(ValueError, match=r"\$REPRO_WORKERS must be an integer"):
        parallel.available_workers()


def test_analyses_are_bit_identical_on_one_and_two_threads(monkeypatch):
    from lib.analyses import controls, representations
    from lib.core.tasks import TaskEnvironment

    env = TaskEnvironment()
    hidden_groups = np.random.default_rng(0).normal(size=(2, 2, 6, 69, 8)).cumsum(axis=2)
    results = {}
    for workers in ("1", "2"):
        monkeypatch.setenv("REPRO_WORKERS", workers)
        structure = controls.run_initial_structure(env, [0, 1], n_hidden=16,
                                                   predictors=("entk_authors", "entk_principled", "ntk"))
        results[workers] = structure | representations.ari_curves(env, hidden_groups)
    assert results["1"].keys() == results["2"].keys()
    for key, value in results["1"].items():
        np.testing.assert_array_equal(value, results["2"][key], err_msg=key)
