"""The results cache's key: a type-preserving encoding of the parameters, and the conditions a
number depends on (float width, Numba target, host CPU, numeric environment)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lib.core import cache_key, results

REPO = Path(__file__).resolve().parents[1]

COLLIDING = [{1: "x"}, {"1": "x"}, {True: "x"}, {"true": "x"}, {None: "x"}, {"null": "x"}, {1.0: "x"}, {"1.0": "x"}]


def test_dict_keys_of_different_types_never_share_an_encoding():
    encoded = {cache_key.canonical_json({"labels": value}) for value in COLLIDING}
    assert len(encoded) == len(COLLIDING)  # {1: ..} and {1.0: ..} too: keys of two types


def test_string_keyed_dicts_keep_their_plain_json_encoding():
    parameters = {"iterations": {"ET": 5, "LR": 6}, "sizes": (3, 4), "seed": np.int64(2)}
    assert cache_key.canonical_json(parameters) == '{"iterations":{"ET":5,"LR":6},"seed":2,"sizes":[3,4]}'


def test_mixed_key_types_are_one_clear_error_naming_the_parameter():
    with pytest.raises(cache_key.ParameterEncodingError, match=r"parameter 'labels': a dict whose keys mix types"):
        cache_key.canonical_json({"labels": {1: "a", "b": "c"}})
    with pytest.raises(cache_key.ParameterEncodingError, match=r"parameter 'grid'\[0\]: dict key \(1, 2\) is a tuple"):
        cache_key.canonical_json({"grid": [{(1, 2): 3}]})
    with pytest.raises(cache_key.ParameterEncodingError, match="reserves"):
        cache_key.canonical_json({"labels": {"\0int-keyed": [[1, "x"]]}})
    with pytest.raises(cache_key.ParameterEncodingError, match="cannot be encoded"):
        cache_key.canonical_json({"f": object()})


@pytest.mark.parametrize("value", COLLIDING)
def test_a_sweep_of_colliding_values_gives_one_entry_per_value(results_tmp, value):
    """Each dict value computes and reads back its own entry (the colliding value next to it does not)."""
    for other in COLLIDING:
        results.cached("labels", {"labels": other}, lambda other=other: {"text": np.array(repr(other))})
    assert len(list((results_tmp / "labels").iterdir())) == 2 * len(COLLIDING)  # entry + lock each
    assert str(results.load("labels", {"labels": value})["text"]) == repr(value)
    meta = results.metadata_of("labels", {"labels": value})
    assert json.dumps(meta["parameters"], sort_keys=True, separators=(",", ":")) == \
        cache_key.canonical_json({"labels": value})


def test_the_float_width_is_part_of_the_key(results_tmp):
    import jax

    assert jax.config.read("jax_enable_x64")  # the test session runs in float64 (conftest)
    calls = []
    compute = lambda: calls.append(1) or {"a": np.zeros(1)}  # noqa: E731
    results.cached("width", {"seed": 0}, compute)
    try:
        jax.config.update("jax_enable_x64", False)
        assert results.load("width", {"seed": 0}) is None  # a float32 run is not served the float64 entry
        results.cached("width", {"seed": 0}, compute)
        assert results.metadata_of("width", {"seed": 0})["conditions"]["float64"] is False
    finally:
        jax.config.update("jax_enable_x64", True)
    assert len(calls) == 2 and results.metadata_of("width", {"seed": 0})["conditions"]["float64"] is True


def _conditions_in_subprocess(**environment) -> dict:
    # the machine's own settings of the variables under test left out (one machine kind sets OPENBLAS_CORETYPE)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_CPU", "JAX_ENABLE")) and k not in cache_key.NUMERIC_ENVIRONMENT} | environment
    code = "import json; from lib.core import cache_key; print(json.dumps(cache_key.computation_conditions()))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_numba_target_float_width_and_numeric_environment_change_the_conditions():
    host = _conditions_in_subprocess()
    generic = _conditions_in_subprocess(NUMBA_CPU_NAME="generic")
    x64 = _conditions_in_subprocess(JAX_ENABLE_X64="1")
    coretype = _conditions_in_subprocess(OPENBLAS_CORETYPE="Haswell")
    assert host["float64"] is False and x64["float64"] is True
    assert generic["numba_cpu"] == "generic" and host["numba_cpu"] != "generic"
    assert generic["numba_features"] != host["numba_features"]
    assert coretype["environment"] == {"OPENBLAS_CORETYPE": "Haswell"}
    keys = {cache_key.entry_key({"seed": 0}, "code", c) for c in (host, generic, x64, coretype)}
    assert len(keys) == 4
    assert host == _conditions_in_subprocess(), "the conditions of one machine and environment are deterministic"


def test_the_conditions_do_not_depend_on_which_module_compiles_first():
    """The kernel's 512-bit preference is applied before the conditions are read, so a process
    that imports the training kernel later computes the same key as one that imported it first."""
    code = ("import json, sys; from lib.core import cache_key; a = cache_key.computation_conditions(); "
            "import lib.core.training_kernel; cache_key.numba_target.cache_clear(); "
            "b = cache_key.computation_conditions(); print(json.dumps([a, b]))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU")}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    first, second = json.loads(done.stdout)
    assert first == second


def test_a_bad_jax_enable_x64_is_a_clear_error(monkeypatch):
    monkeypatch.delitem(sys.modules, "jax")
    monkeypatch.setenv("JAX_ENABLE_X64", "maybe")
    with pytest.raises(ValueError, match=r"\$JAX_ENABLE_X64='maybe' is not a truth value"):
        cache_key.x64_enabled()
    monkeypatch.setenv("JAX_ENABLE_X64", "True")
    assert cache_key.x64_enabled() is True


@pytest.mark.parametrize("numpy_first", [True, False])
def test_every_process_computes_with_one_blas_thread(numpy_first):
    """Why the BLAS thread count is not a condition: it is fixed. A process that imports ``lib``
    computes with one BLAS thread, whether NumPy was imported before ``lib`` or after, and SciPy's
    own OpenBLAS (loaded later) too, although the environment asks for two threads."""
    imports = "import numpy, lib" if numpy_first else "import lib, numpy"
    code = (f"{imports}; import scipy.linalg, threadpoolctl, json; "
            "print(json.dumps([i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']))")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")} | {"OPENBLAS_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    threads = json.loads(done.stdout)
    assert len(threads) >= 2 and threads == [1] * len(threads), f"BLAS libraries' threads: {threads}"
