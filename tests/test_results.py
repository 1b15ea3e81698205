import json

import numpy as np
import pytest

from lib.core import cache_entry, results


def test_cached_computes_once_and_records_provenance(results_tmp):
    calls = []

    def compute():
        calls.append(1)
        return {"a": np.arange(3.0), "b/c": np.ones((2, 2))}

    params = {"seed": 1, "schedule": "ET", "sizes": (3, 4)}
    first = results.cached("demo", params, compute)
    second = results.cached("demo", params, compute)
    assert len(calls) == 1
    np.testing.assert_array_equal(first["b/c"], second["b/c"])
    meta = results.metadata_of("demo", params)
    assert meta["parameters"] == {"seed": 1, "schedule": "ET", "sizes": [3, 4]}
    assert meta["code"] == results.code_digest()
    assert meta["provenance"]["packages"]["jax"] and "commit" in meta["provenance"]
    assert meta["wall_time_s"] >= 0
    results.cached("demo", {**params, "seed": 2}, compute)
    assert len(calls) == 2


def test_mismatched_metadata_is_an_error_not_an_overwrite(results_tmp):
    params = {"seed": 1}
    results.cached("demo", params, lambda: {"a": np.zeros(2)})
    meta_path = next((results_tmp / "demo").glob("*/meta.json"))
    meta = json.loads(meta_path.read_text())
    meta["parameters"] = {"seed": 99}
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(cache_entry.CacheError, match="records parameters"):
        results.cached("demo", params, lambda: {"a": np.ones(2)})
    assert json.loads(meta_path.read_text())["parameters"] == {"seed": 99}  # untouched


def test_existing_entry_is_never_overwritten(results_tmp):
    results.cached("demo", {"seed": 3}, lambda: {"a": np.zeros(2)})
    with pytest.raises(cache_entry.CacheError, match="refusing to overwrite"):
        results.save("demo", {"seed": 3}, {"a": np.ones(2)}, 0.0)


def test_entry_key_is_order_independent_and_covers_parameters_code_and_conditions():
    conditions = results.computation_conditions()
    key = results.entry_key({"a": 1, "b": 2}, "code1", conditions)
    assert key == results.entry_key({"b": 2, "a": 1}, "code1", conditions)
    assert key != results.entry_key({"a": 1, "b": 3}, "code1", conditions)
    assert key != results.entry_key({"a": 1, "b": 2}, "code2", conditions)
    assert key != results.entry_key({"a": 1, "b": 2}, "code1", {**conditions, "float64": not conditions["float64"]})
