"""Parameter checks that fail early with a message naming the parameter and the allowed values.

Every public entry point of :mod:`lib` (and every notebook's first cell, right after its
``parameters`` cell) validates its inputs with these helpers, so that a bad value gives one
clear ``ValueError`` before any work starts instead of a stack trace from deep inside JAX.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
from collections.abc import Iterable
from typing import Any

import numpy as np

SEED_LIMIT = 2**32  # JAX's PRNGKey (without x64) and NumPy's legacy seeding take seeds in [0, 2**32)
ALLOW_LARGE_ENV = "REPRO_ALLOW_LARGE"
LARGE_RUN_HINT = (f"to run it anyway pass --allow-large to python -m lib.book.runner (or set {ALLOW_LARGE_ENV}=1, "
                  "or allow_large=True where the function takes it)")


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``allowed``, else raise ``ValueError``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def check_int(name: str, value: Any, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as ``int`` if it is an integer (not bool) in [``minimum``, ``maximum``]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        low = "" if minimum is None else f" >= {minimum}"
        high = "" if maximum is None else f"{' and' if low else ''} <= {maximum}"
        raise ValueError(f"{name} must be an integer{low}{high}, got {value!r}")
    return int(value)


def check_seed(name: str, value: Any) -> int:
    """A seed: an integer in [0, 2**32) (larger ones would alias or overflow in JAX and NumPy)."""
    return check_int(name, value, minimum=0, maximum=SEED_LIMIT - 1)


def large_runs_allowed() -> bool:
    """Whether sizes above the sane bounds were confirmed (runner ``--allow-large``)."""
    return os.environ.get(ALLOW_LARGE_ENV, "0") == "1"


def check_size(name: str, value: Any, minimum: int, sane_maximum: int, maximum: int | None = None,
               allow_large: bool | None = None) -> int:
    """An integer size or iteration count in [``minimum``, ``maximum``]; above ``sane_maximum`` (a
    run of hours to days on a laptop) only when confirmed: ``allow_large`` if given, else the
    runner's ``--allow-large`` (``REPRO_ALLOW_LARGE=1``). ``maximum`` is where the computation
    itself breaks: no confirmation lifts it."""
    value = check_int(name, value, minimum=minimum, maximum=maximum)
    if value > sane_maximum and not allow_large_runs(allow_large):
        raise ValueError(f"{name} must be an integer in [{minimum}, {sane_maximum}] (larger values run for hours "
                         f"or days), got {value!r}; {LARGE_RUN_HINT}")
    return value


def check_positive_float(name: str, value: Any, maximum: float | None = None) -> float:
    """Return ``value`` as ``float`` if it is a finite real number in (0, ``maximum``]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not (value > 0.0 and value < float("inf")) or (maximum is not None and value > maximum):
        bound = f" and <= {maximum}" if maximum is not None else ""
        raise ValueError(f"{name} must be a positive finite number (> 0{bound}), got {value!r}")
    return value


FLOAT32_LR_RANGE = (float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max))


def check_learning_rate(name: str, value: Any, maximum: float | None = None) -> float:
    """A learning rate: a positive finite number (at most ``maximum``) inside
    :data:`FLOAT32_LR_RANGE`, the normal float32 numbers the networks train in: a smaller rate is
    0 or subnormal in float32 (the CPU kernel flushes subnormals to 0), so the weights never
    move; a larger one is infinite in float32 and the losses turn NaN."""
    value = check_positive_float(name, value, maximum)
    low, high = FLOAT32_LR_RANGE
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low:.4g}, {high:.4g}], the normal float32 numbers the networks train "
                         f"in (a smaller rate rounds to 0 and the weights never move, a larger one to inf), got "
                         f"{value!r}")
    return value


def check_keys(name: str, value: Any, keys: Iterable[Any]) -> dict:
    """``value`` if it is a dict with exactly the keys ``keys`` (compared as sets, so that keys of
    mixed types give this one-line error rather than a TypeError from sorting them)."""
    keys = list(keys)
    if not isinstance(value, dict) or set(value) != set(keys):
        raise ValueError(f"{name} must be a dict with keys {keys}, got {value!r}")
    return value


def check_seeds(name: str, value: Any, distinct: bool = False) -> tuple[int, ...]:
    """Return a tuple of seeds in [0, 2**32) from an int or a sequence of ints; with ``distinct``
    no seed may repeat (a repeated seed is one network counted twice)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = [value]
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be an integer in [0, {SEED_LIMIT}) or a list of them, got {value!r}")
    seeds = tuple(check_seed(f"{name}[{i}]", s) for i, s in enumerate(value))
    if not seeds:
        raise ValueError(f"{name} must contain at least one seed, got {value!r}")
    repeated = sorted({s for s in seeds if seeds.count(s) > 1})
    if distinct and repeated:
        raise ValueError(f"{name} must hold distinct seeds (each is one network), got {value!r} (repeated: {repeated})")
    return seeds


def check_finite(name: str, array: Any) -> Any:
    """``array`` if it holds no NaN or infinite entry, else ``ValueError`` naming ``name``, the count
    and the first such entry."""
    finite = np.isfinite(array)
    if not finite.all():
        bad = np.argwhere(~finite)[0]
        where = tuple(int(i) for i in bad)
        where = where[0] if len(where) == 1 else where
        raise ValueError(f"{name} must be finite, got {int(finite.size - finite.sum())} NaN or infinite entries "
                         f"(first at index {where}: {np.asarray(array)[tuple(bad)]!r}) in an array of shape "
                         f"{np.shape(array)}")
    return array


def named_leaves(tree: Any, prefix: str) -> dict[str, Any]:
    """The arrays of a pytree (dicts, lists, ...) as ``{"prefix['key']...": array}``, so that a
    check of each can name it."""
    from jax.tree_util import keystr, tree_leaves_with_path

    return {prefix + keystr(path): leaf for path, leaf in tree_leaves_with_path(tree)}


# --- helpers for the notebooks' parameter checks (confirmation of large runs, derived workloads,
# lists of numbers) -------------------------------------------------------------------
def allow_large_runs(allow_large: bool | None = None) -> bool:
    """``allow_large`` if given (True/False), else :func:`large_runs_allowed` (the runner's ``--allow-large``)."""
    if allow_large is None:
        return large_runs_allowed()
    if not isinstance(allow_large, bool):
        raise ValueError(f"allow_large must be True, False or None (the runner's --allow-large), got {allow_large!r}")
    return allow_large


def check_workload(what: str, value: float, sane_maximum: float, allow_large: bool | None = None) -> float:
    """A workload derived from several parameters (``what`` names them and the formula, e.g.
    ``"convergence_iterations x (2**n_halvings - 1)"``): above ``sane_maximum`` only when confirmed."""
    if value > sane_maximum and not allow_large_runs(allow_large):
        raise ValueError(f"{what} must be <= {sane_maximum:g} (more runs for hours or days), got {value:g}; "
                         f"{LARGE_RUN_HINT}")
    return value


def check_memory(what: str, n_bytes: float) -> float:
    """``n_bytes``, the memory that the arrays of a computation described by ``what`` (naming the
    parameters and the formula) need at once, if the machine has that much available now
    (:func:`psutil.virtual_memory`); no confirmation lifts this: the computation would fail (or
    swap for hours) at its allocation, after the work before it."""
    import psutil

    available = psutil.virtual_memory().available
    if n_bytes > available:
        raise ValueError(f"{what} must fit in the {available / 2**30:.3g} GiB of memory available on this machine, "
                         f"got about {n_bytes / 2**30:.3g} GiB; no --allow-large lifts this")
    return n_bytes


def check_number_list(name: str, values: Any, minimum: float, maximum: float, distinct: bool = True,
                      increasing: bool = False, min_length: int = 1, include_minimum: bool = True) -> list[float]:
    """A list (or tuple) of at least ``min_length`` finite real numbers (not bools, not strings)
    between ``minimum`` (excluded unless ``include_minimum``) and ``maximum``, pairwise distinct if
    ``distinct``, strictly increasing if ``increasing``; returned as floats."""
    low = f"[{minimum:g}" if include_minimum else f"({minimum:g}"
    allowed = (f"a list of at least {min_length} {'distinct ' if distinct else ''}numbers in {low}, {maximum:g}]"
               f"{' in increasing order' if increasing else ''}")
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)) or len(values) < min_length:
        raise ValueError(f"{name} must be {allowed}, got {values!r}")
    out = []
    for i, v in enumerate(values):
        ok = not isinstance(v, bool) and isinstance(v, numbers.Real) and math.isfinite(float(v))
        ok = ok and (minimum <= float(v) if include_minimum else minimum < float(v)) and float(v) <= maximum
        if not ok:
            raise ValueError(f"{name}[{i}] must be a finite number in {low}, {maximum:g}], got {v!r}")
        out.append(float(v))
    if distinct and len(set(out)) != len(out):
        repeated = sorted({v for v in out if out.count(v) > 1})
        raise ValueError(f"{name} must be {allowed}, got {values!r} (repeated: {repeated})")
    if increasing and any(b <= a for a, b in zip(out, out[1:])):
        raise ValueError(f"{name} must be {allowed}, got {values!r}")
    return out


@contextlib.contextmanager
def large_runs(allow_large: bool | None = None):
    """Within the block :func:`large_runs_allowed` (so :func:`check_size`) answers ``allow_large``
    (None: leave the runner's ``--allow-large`` setting as it is); restored afterwards."""
    if allow_large is None:
        yield
        return
    saved = os.environ.get(ALLOW_LARGE_ENV)
    os.environ[ALLOW_LARGE_ENV] = "1" if allow_large_runs(allow_large) else "0"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(ALLOW_LARGE_ENV, None)
        else:
            os.environ[ALLOW_LARGE_ENV] = saved
