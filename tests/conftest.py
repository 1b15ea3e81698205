"""Tests run in float64 so that kernel comparisons can be tight; lib code that trains in
float32 casts explicitly and is unaffected.

Nothing a test does may change what the book publishes: every test session gets its own
results folder (``REPRO_RESULTS_DIR``) and summary folder, never ``results/`` or ``book/``.
"""

import os
import sys
import tempfile
from pathlib import Path

_SESSION_DIR = Path(tempfile.mkdtemp(prefix="repro-tests-"))
os.environ["REPRO_RESULTS_DIR"] = str(_SESSION_DIR / "results")
os.environ["REPRO_SUMMARY_DIR"] = str(_SESSION_DIR / "summary")
# pytest -n auto (make test) runs one worker per core side by side: one BLAS thread per worker and for the
# processes it starts, as the runner gives a chapter that shares the cores (lib.book.runner.ONE_BLAS_THREAD).
# OpenBLAS's spinning threads slow LAPACK calls many times over when more threads than cores compete
# (benchmarks/blas_threads.py); no result depends on the BLAS thread count
# (tests/test_cache_key.py::test_blas_results_do_not_depend_on_the_number_of_threads).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.update(OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")  # in case a plugin imported NumPy before this file

import jax  # noqa: E402
import pytest  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
jax.config.update("jax_enable_x64", True)


@pytest.fixture
def results_tmp(tmp_path, monkeypatch):
    """An empty results folder for cache tests."""
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path))
    return tmp_path
