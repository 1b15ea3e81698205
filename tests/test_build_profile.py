"""The build profile's hook (benchmarks/profiling/sitecustomize.py) charges a process's CPU time to
the kind of work it does, and benchmarks/build_profile.py tabulates the records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import build_profile  # noqa: E402  (benchmarks/build_profile.py)

WORK = """
import time
import numpy as np
from lib.analyses import stats  # a lib module of one kind, imported after the hook is in place

a = np.random.default_rng(0).normal(size=(300, 300)); a = a + a.T
start = time.process_time()
while time.process_time() - start < 1.0:
    np.linalg.eigh(a)
start = time.process_time()
while time.process_time() - start < 0.5:
    sum(i * i for i in range(10_000))  # plain Python: no kind
"""


def profiled_record(tmp_path: Path, code: str, chapter: str | None = None) -> dict:
    env = {**os.environ, "REPRO_BUILD_PROFILE_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(BENCHMARKS / "profiling"), str(BENCHMARKS.parent)]),
           "OPENBLAS_NUM_THREADS": "1"}
    env.pop("REPRO_CHAPTER", None)
    if chapter:
        env["REPRO_CHAPTER"] = chapter
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    (record,) = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    return record


def test_the_hook_charges_eigendecompositions_and_the_rest_and_nothing_is_lost(tmp_path):
    record = profiled_record(tmp_path, WORK, chapter="99_test")
    kinds = record["kinds_s"]
    assert record["chapter"] == "99_test" and record["role"] == "runner"
    assert kinds["eigendecompositions"] >= 0.9 and kinds["other"] >= 0.4 and kinds["imports"] > 0
    assert sum(kinds.values()) == pytest.approx(record["cpu_s"], abs=0.05)  # every CPU second charged once


def test_the_hook_does_nothing_without_its_folder(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(BENCHMARKS / "profiling")}
    env.pop("REPRO_BUILD_PROFILE_DIR", None)
    done = subprocess.run([sys.executable, "-c", "import importlib._bootstrap as b, numpy; print(b._find_and_load.__name__)"],
                          env=env, check=True, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "_find_and_load"


def test_the_table_splits_a_kernels_start_up_and_names_each_processes_own_time():
    records = [
        {"pid": 1, "role": "kernel", "chapter": "00_x", "cpu_s": 10.0, "before_first_cell_s": 4.0,
         "kinds_s": {"imports": 3.0, "other": 5.0, "training": 2.0}},
        {"pid": 2, "role": "kernel", "chapter": "00_x", "cpu_s": 3.0, "before_first_cell_s": None,  # a spawned worker
         "kinds_s": {"other": 1.0, "training": 2.0}},
        {"pid": 3, "role": "runner (papermill)", "chapter": "00_x", "cpu_s": 1.0, "before_first_cell_s": None,
         "kinds_s": {"other": 1.0}},
        {"pid": 4, "role": "runner", "chapter": None, "cpu_s": 2.0, "before_first_cell_s": None,
         "kinds_s": {"imports": 2.0}},
    ]
    table = build_profile.chapter_kinds(records)
    assert table["00_x"] == {"start-up (other)": 1.0, "notebook code": 4.0, "imports": 3.0, "training": 4.0,
                             "Dask worker (other)": 1.0, "papermill (other)": 1.0}
    assert table["(runner: planning)"] == {"imports": 2.0}
    text = build_profile.format_table(table)
    assert "| 00_x |" in text and text.splitlines()[-1].endswith("| **16** |")
