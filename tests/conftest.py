"""Tests run in float64 so that kernel comparisons can be tight; lib code that trains in
float32 casts explicitly and is unaffected."""

import os
import sys
from pathlib import Path

import jax
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
jax.config.update("jax_enable_x64", True)


@pytest.fixture
def results_tmp(tmp_path, monkeypatch):
    """An empty results folder for cache tests."""
    monkeypatch.setenv("REPRO_RESULTS_DIR", str(tmp_path))
    return tmp_path
