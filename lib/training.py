"""Full-batch gradient descent with optax, compiled as ``lax.scan``.

``train`` runs one network; ``train_many`` vmaps it over a leading axis of parameters,
data and learning rates (seeds, standard/large pairs). Snapshots are taken at
``n_snapshots`` equally spaced iterations, including iteration 0 and the last one; what is
recorded is chosen by an ``observe(params, data)`` function, so no parameters are stored
unless asked for. The snapshot segments run in a few compiled chunks so that a progress
bar can advance between them; chunking does not change a single bit of the result.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

import jax
import jax.numpy as jnp
import optax
from tqdm import tqdm

from .losses import REDUCTIONS, squared_error
from .models import Model, Params
from .validation import check_choice, check_int, check_positive_float

Data = dict[str, jax.Array]
Observe = Callable[[Params, Data], Any]

N_PROGRESS_CHUNKS = 10


@lru_cache(maxsize=None)
def observe_losses(model: Model, reduction: str = "sum") -> Observe:
    """An ``observe`` function recording the loss on every ``x_<name>``/``y_<name>`` pair of the data."""

    def observe(params: Params, data: Data) -> dict[str, jax.Array]:
        names = [k[2:] for k in data if k.startswith("x_") and f"y_{k[2:]}" in data]
        return {
            f"loss_{name}": squared_error(model.apply(params, data[f"x_{name}"]), data[f"y_{name}"], reduction)
            for name in sorted(names)
        }

    return observe


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


def _segments(model, params, opt_state, data, learning_rate, steps_per_snapshot, n_segments, observe, reduction):
    """Run ``n_segments`` x ``steps_per_snapshot`` GD steps; observe after each segment."""
    optimizer = optax.sgd(learning_rate)

    def loss(p: Params) -> jax.Array:
        return squared_error(model.apply(p, data["x_train"]), data["y_train"], reduction)

    def step(carry, _):
        p, state = carry
        updates, state = optimizer.update(jax.grad(loss)(p), state, p)
        return (optax.apply_updates(p, updates), state), None

    def segment(carry, _):
        carry, _ = jax.lax.scan(step, carry, None, length=steps_per_snapshot)
        return carry, observe(carry[0], data)

    (params, opt_state), snapshots = jax.lax.scan(segment, (params, opt_state), None, length=n_segments)
    return params, opt_state, snapshots


_STATIC = ("model", "steps_per_snapshot", "n_segments", "observe", "reduction")


@partial(jax.jit, static_argnames=("observe", "batched"))
def _observe(params, data, observe, batched):
    return jax.vmap(observe)(params, data) if batched else observe(params, data)


@partial(jax.jit, static_argnames=_STATIC + ("batched",))
def _run(model, params, opt_state, data, learning_rate, steps_per_snapshot, n_segments, observe, reduction, batched):
    def one(p, s, d, lr):
        return _segments(model, p, s, d, lr, steps_per_snapshot, n_segments, observe, reduction)

    return jax.vmap(one)(params, opt_state, data, learning_rate) if batched else one(params, opt_state, data, learning_rate)


def _chunks(n_segments: int) -> list[int]:
    """Split the segments into at most N_PROGRESS_CHUNKS chunks of at most two distinct sizes."""
    size = -(-n_segments // N_PROGRESS_CHUNKS)
    full, rest = divmod(n_segments, size)
    return [size] * full + ([rest] if rest else [])


def _train_checked(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction, batched,
                   progress):
    steps_per_snapshot = check_schedule(n_iterations, n_snapshots)
    check_choice("reduction", reduction, REDUCTIONS)
    for key in ("x_train", "y_train"):
        if key not in data:
            raise ValueError(f"data must contain {key!r}; got keys {sorted(data)}")
    observe = observe or observe_losses(model, reduction)
    init = jax.vmap(optax.sgd(1.0).init) if batched else optax.sgd(1.0).init  # SGD's state does not depend on lr
    opt_state = init(params)
    recorded = [jax.tree.map(lambda a: jnp.expand_dims(a, int(batched)), _observe(params, data, observe, batched))]
    bar = tqdm(total=n_iterations, desc=progress or "training", unit="it", disable=not progress, mininterval=1.0)
    for n_segments in _chunks(n_snapshots - 1):
        params, opt_state, snaps = _run(model, params, opt_state, data, learning_rate, steps_per_snapshot,
                                        n_segments, observe, reduction, batched)
        recorded.append(snaps)
        if progress:
            jax.block_until_ready(params)  # dispatch is asynchronous: wait so the bar tells the truth
        bar.update(n_segments * steps_per_snapshot)
    bar.close()
    snapshots = jax.tree.map(lambda *parts: jnp.concatenate(parts, axis=int(batched)), *recorded)
    return params, snapshots


def train(
    model: Model,
    params: Params,
    data: Data,
    learning_rate: float,
    n_iterations: int,
    n_snapshots: int = 101,
    observe: Observe | None = None,
    reduction: str = "sum",
    progress: str | None = None,
) -> tuple[Params, Any]:
    """Full-batch gradient descent on the squared error of ``data["x_train"], data["y_train"]``.

    Args:
        model: a network with ``apply(params, x) -> (N, K)``.
        params: initial parameter pytree.
        data: arrays passed to ``observe``; must hold ``x_train`` (N, D) and ``y_train`` (N, K).
        learning_rate: step size (> 0), per iteration.
        n_iterations: number of full-batch steps (a multiple of ``n_snapshots - 1``).
        n_snapshots: snapshots at iterations 0, n_iterations/(n_snapshots-1), ..., n_iterations.
        observe: ``observe(params, data) -> pytree`` recorded at each snapshot; default: losses.
        reduction: ``"sum"`` or ``"mean"`` squared error.
        progress: a tqdm bar description, or None for no bar.

    Returns:
        (final params, pytree of snapshots with a leading axis of size ``n_snapshots``).
    """
    check_positive_float("learning_rate", learning_rate)
    return _train_checked(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction,
                          False, progress)


def train_many(
    model: Model,
    params: Params,
    data: Data,
    learning_rates: jax.Array,
    n_iterations: int,
    n_snapshots: int = 101,
    observe: Observe | None = None,
    reduction: str = "sum",
    progress: str | None = None,
) -> tuple[Params, Any]:
    """:func:`train` vmapped over the leading axis of ``params``, ``data`` and ``learning_rates``;
    snapshots have shape (networks, n_snapshots, ...)."""
    learning_rates = jnp.asarray(learning_rates)
    if learning_rates.ndim != 1 or not bool(jnp.all(learning_rates > 0)):
        raise ValueError(f"learning_rates must be a 1-D array of positive numbers, got {learning_rates!r}")
    return _train_checked(model, params, data, learning_rates, n_iterations, n_snapshots, observe, reduction,
                          True, progress)
