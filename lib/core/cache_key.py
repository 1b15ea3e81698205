"""What identifies a cached result: its parameters, encoded without loss, and the conditions it was computed under.

Two requests share a cache entry only when they would compute the same numbers. That needs

* a **canonical, type-preserving encoding of the parameters** (:func:`canonical_json`). Plain JSON
  turns every dict key into a string, so ``{1: 'x'}`` and ``{'1': 'x'}``, ``{True: ..}`` and
  ``{'true': ..}``, ``{None: ..}`` and ``{'null': ..}`` would share a key. A dict whose keys are not
  all strings is therefore written as ``{"\\u0000<type>-keyed": [[key, value], ...]}``, sorted by
  key, with the key type in the tag (``int``, ``float``, ``bool`` or ``null``); dicts with string keys
  are written as plain JSON objects, so their encoding is unchanged. A dict that mixes key types
  (``{1: .., 'a': ..}``), a key of another type (a tuple) or a string key starting with NUL (the
  tag's marker) is refused with a :class:`ParameterEncodingError` naming the parameter. Tuples
  are written as lists (they mean the same computation);
* the **computation conditions** (:func:`computation_conditions`): every input outside the
  parameters and the code that changes a number. These are the float width JAX computes in
  (``jax_enable_x64``), the target and CPU features Numba compiles the training kernel for
  (``$NUMBA_CPU_NAME`` / ``$NUMBA_CPU_FEATURES``, or the host's, with the 512-bit preference of
  :func:`lib.core.cpu_target.prefer_512_bit_vectors`), the host CPU (XLA and NumPy pick their
  vector kernels from it), and the environment variables that change which kernels NumPy,
  OpenBLAS and XLA run (:data:`NUMERIC_ENVIRONMENT`). The number of BLAS threads is not among
  them because it is fixed: every process that imports ``lib`` computes with one BLAS thread
  (:data:`lib.ONE_BLAS_THREAD`), since a float32 product's bits may depend on the thread count
  (on a Zen 5 CPU with OpenBLAS's Haswell kernels they do; ``tests/test_cache_key.py``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import sys
from collections.abc import Mapping
from typing import Any

import llvmlite.binding as llvm
import numpy as np
from numba.core import codegen, config

from .cpu_target import prefer_512_bit_vectors

KEY_TAG = "\0"  # starts the tag of a dict with non-string keys; refused at the start of a string key
KEY_TYPES = ((bool, "bool"), (int, "int"), (float, "float"), (type(None), "null"))  # bool before int: a subclass
NUMERIC_ENVIRONMENT = ("XLA_FLAGS", "JAX_DEFAULT_MATMUL_PRECISION", "JAX_NUMPY_DTYPE_PROMOTION",
                       "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES")
X64_ENV = "JAX_ENABLE_X64"
TRUE_WORDS, FALSE_WORDS = ("1", "true", "t", "yes", "y", "on"), ("", "0", "false", "f", "no", "n", "off")


class ParameterEncodingError(ValueError):
    """A parameter cannot be encoded without loss (mixed dict key types, an unsupported key)."""


def _key_type(key: Any, where: str) -> str:
    """The tag word of a non-string dict key's type; :class:`ParameterEncodingError` for other keys."""
    key = _plain_key(key)
    for kind, word in KEY_TYPES:
        if isinstance(key, kind):
            return word
    raise ParameterEncodingError(f"parameter {where}: dict key {key!r} is a {type(key).__name__}; the cache "
                                 "encodes dict keys of type str, int, float, bool or None")


def encode(value: Any, where: str = "value") -> Any:
    """``value`` as plain JSON data that keeps every distinction the computation can see.

    Dicts with string keys stay objects, dicts with keys of one other type become a tagged list
    of ``[key, value]`` pairs; NumPy scalars and arrays become Python numbers and lists; tuples
    become lists. ``where`` names the parameter in errors (e.g. ``"'iterations'"``)."""
    if isinstance(value, Mapping):
        types = {"str" if isinstance(key, str) else _key_type(key, where) for key in value}
        if len(types) > 1:
            raise ParameterEncodingError(
                f"parameter {where}: a dict whose keys mix types ({', '.join(sorted(types))}); use keys of one "
                f"type, e.g. all strings (got keys {sorted(map(repr, value))})")
        if types <= {"str"}:
            tagged = [key for key in value if key.startswith(KEY_TAG)]
            if tagged:
                raise ParameterEncodingError(f"parameter {where}: dict key {tagged[0]!r} starts with a NUL "
                                             "character, which the cache reserves; rename it")
            return {key: encode(item, f"{where}[{key!r}]") for key, item in value.items()}
        pairs = sorted(([_plain_key(key), encode(item, f"{where}[{key!r}]")] for key, item in value.items()),
                       key=lambda pair: json.dumps(pair[0]))
        return {f"{KEY_TAG}{types.pop()}-keyed": pairs}
    if isinstance(value, (list, tuple)):
        return [encode(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, np.ndarray):
        return encode(value.tolist(), where)
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise ParameterEncodingError(f"parameter {where}: value {value!r} of type {type(value).__name__} cannot be "
                                 "encoded for the cache key; pass numbers, strings, booleans, None, lists or dicts")


def _plain_key(key: Any) -> Any:
    """A NumPy scalar key as the Python number it holds; any other key as it is."""
    return key.item() if isinstance(key, np.generic) else key


def canonical_json(parameters: Mapping[str, Any]) -> str:
    """Deterministic, type-preserving JSON of a parameter dict (:func:`encode`, sorted keys)."""
    if not isinstance(parameters, Mapping):
        raise ParameterEncodingError(f"parameters must be a dict, got a {type(parameters).__name__}")
    encoded = {}
    for name, value in parameters.items():
        if not isinstance(name, str):
            raise ParameterEncodingError(f"parameter name {name!r} is a {type(name).__name__}, not a string")
        encoded[name] = encode(value, repr(name))
    return json.dumps(encoded, sort_keys=True, separators=(",", ":"))


def x64_enabled() -> bool:
    """Whether JAX computes in float64 in this process: its configuration once JAX is imported,
    else what ``$JAX_ENABLE_X64`` will make it (:func:`x64_from_environment`)."""
    jax = sys.modules.get("jax")
    if jax is not None:
        return bool(jax.config.read("jax_enable_x64"))
    return x64_from_environment()


def x64_from_environment() -> bool:
    """Whether a new process started with this environment computes in float64 (``$JAX_ENABLE_X64``;
    :class:`ValueError` for a value JAX would refuse). A notebook or test that turns float64 on
    with ``jax.config.update`` does so for itself only: the processes it starts use float32."""
    word = os.environ.get(X64_ENV, "").strip().lower()
    if word not in TRUE_WORDS + FALSE_WORDS:
        raise ValueError(f"${X64_ENV}={os.environ[X64_ENV]!r} is not a truth value; use 1 or 0 (or unset it)")
    return word in TRUE_WORDS


@functools.lru_cache(maxsize=1)
def numba_target() -> tuple[str, str]:
    """``(cpu_name, features)`` Numba compiles for in this process, after the kernel's 512-bit
    preference (applied here first, so it holds whichever module asks first)."""
    prefer_512_bit_vectors()
    name = config.CPU_NAME or llvm.get_host_cpu_name()
    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else codegen.get_host_cpu_features()
    return name, features


@functools.lru_cache(maxsize=1)
def host_cpu() -> dict[str, str]:
    """The machine, CPU name and a digest of the CPU's features (XLA and NumPy choose kernels by them)."""
    features = codegen.get_host_cpu_features()
    return {"host_cpu": f"{platform.machine()} {llvm.get_host_cpu_name()}",
            "host_features": hashlib.sha256(features.encode()).hexdigest()[:16]}


def computation_conditions() -> dict[str, Any]:
    """Every input besides the parameters and the code that changes a computed number (module
    docstring), as JSON data: float width, Numba target, host CPU and the numeric environment."""
    name, features = numba_target()
    return {
        "float64": x64_enabled(),
        "numba_cpu": name,
        "numba_features": hashlib.sha256(features.encode()).hexdigest()[:16],
        **host_cpu(),
        "environment": {variable: os.environ[variable] for variable in NUMERIC_ENVIRONMENT
                        if variable in os.environ},
    }


def new_process_conditions() -> dict[str, Any]:
    """The :func:`computation_conditions` of a new process started with this process's environment
    (a local Dask worker, a notebook kernel): the same but for the float width, read from
    ``$JAX_ENABLE_X64`` (:func:`x64_from_environment`)."""
    return {**computation_conditions(), "float64": x64_from_environment()}


def conditions_digest(conditions: Mapping[str, Any]) -> str:
    """First 16 hex digits of the SHA-256 of the conditions' canonical JSON."""
    return hashlib.sha256(canonical_json(conditions).encode()).hexdigest()[:16]


def describe_conditions(conditions: Mapping[str, Any]) -> str:
    """One readable line: ``float32, numba znver4, host x86_64 znver4`` (and the environment set)."""
    words = [("float64" if conditions.get("float64") else "float32"), f"numba target {conditions.get('numba_cpu')}",
             f"host {conditions.get('host_cpu')}"]
    words += [f"{k}={v}" for k, v in sorted(conditions.get("environment", {}).items())]
    return ", ".join(words)


def entry_key(parameters: Mapping[str, Any], code: str, conditions: Mapping[str, Any]) -> str:
    """The entry's folder name: 20 hex digits of the hash of the parameters, the code digest and
    the conditions digest."""
    text = f"{canonical_json(parameters)}\0{code}\0{conditions_digest(conditions)}"
    return hashlib.sha256(text.encode()).hexdigest()[:20]
