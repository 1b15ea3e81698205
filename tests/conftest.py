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
# One BLAS thread in this process and the ones it starts, as in every process that imports lib
# (lib.ONE_BLAS_THREAD; tests/test_cache_key.py checks it), set before a plugin or a test imports NumPy.
import lib  # noqa: E402,F401

import jax  # noqa: E402
import pytest  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
jax.config.update("jax_enable_x64", True)


@pytest.fixture
def results_tmp(tmp_path, monkeypatch):
    """An empty results folder for cache tests."""
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path))
    return tmp_path
