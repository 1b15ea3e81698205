"""Parameter checks that fail early with a message naming the parameter.

Every public entry point of :mod:`lib` (and every notebook ``parameters`` cell)
validates its inputs with these helpers, so that a bad value gives one clear
``ValueError`` instead of a stack trace from deep inside JAX.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any


def check_choice(name: str, value: Any, allowed: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``allowed``, else raise ``ValueError``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def check_int(name: str, value: Any, minimum: int | None = None) -> int:
    """Return ``value`` as ``int`` if it is an integer (not bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_positive_float(name: str, value: Any) -> float:
    """Return ``value`` as ``float`` if it is a finite real number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not (value > 0.0 and value < float("inf")):
        raise ValueError(f"{name} must be a positive finite number (> 0), got {value!r}")
    return value


def check_seeds(name: str, value: Any) -> tuple[int, ...]:
    """Return a tuple of non-negative integer seeds from an int or a sequence of ints."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = [value]
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a non-negative integer or a list of them, got {value!r}")
    seeds = tuple(check_int(f"{name}[{i}]", s, minimum=0) for i, s in enumerate(value))
    if not seeds:
        raise ValueError(f"{name} must contain at least one seed, got {value!r}")
    return seeds
