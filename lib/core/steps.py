"""Gradient-descent steps and the loop over them between snapshots, shared by training
(:mod:`lib.core.training`), the ePNTK (:mod:`lib.core.kernels`) and the experiments.

A run of ``n_iterations`` full-batch steps is observed at ``n_snapshots`` equally spaced
iterations, 0 and the last included (:func:`check_schedule`); between two snapshots lie
``n_iterations / (n_snapshots - 1)`` steps, one *segment* (:func:`scan_segments`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

from .losses import squared_error
from .models import Model, Params
from .validation import check_int


def check_schedule(n_iterations: int, n_snapshots: int) -> int:
    """Validate the snapshot grid and return the number of iterations between snapshots."""
    check_int("n_iterations", n_iterations, minimum=1)
    check_int("n_snapshots", n_snapshots, minimum=2)
    if n_iterations % (n_snapshots - 1):
        raise ValueError(
            f"n_iterations ({n_iterations}) must be a multiple of n_snapshots - 1 ({n_snapshots - 1}) "
            "so that snapshots are equally spaced"
        )
    return n_iterations // (n_snapshots - 1)


def scan_segments(step: Callable[[Any], Any], carry: Any, n_steps: int, n_segments: int,
                  observe: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``n_segments`` segments of ``n_steps`` applications of ``carry -> step(carry)``, with
    ``observe(carry)`` after each segment (traceable; one ``lax.scan`` over segments of a
    ``lax.scan`` over steps).

    Returns:
        (the carry after the last segment, the observations stacked on a new leading axis of
        size ``n_segments``).
    """

    def segment(carry, _):
        carry, _ = jax.lax.scan(lambda c, _: (step(c), None), carry, None, length=n_steps)
        return carry, observe(carry)

    return jax.lax.scan(segment, carry, None, length=n_segments)


def gradient_step(model: Model, params: Params, x_train: jax.Array, y_train: jax.Array, learning_rate,
                  reduction: str = "sum") -> Params:
    """One full-batch gradient-descent step on the squared error (``jax.grad``): theta - lr * dL/dtheta,
    in each parameter's dtype (a float64 learning rate does not promote float32 weights)."""
    loss = lambda p: squared_error(model.apply(p, x_train), y_train, reduction)
    return jax.tree.map(lambda w, g: (w - learning_rate * g).astype(w.dtype), params, jax.grad(loss)(params))
