"""Full-batch gradient descent with optax, compiled as one ``lax.scan`` (SPEC section 2).

``train`` runs one network; ``train_many`` vmaps it over a leading axis of parameters,
data and learning rates (seeds, standard/large pairs). Snapshots are taken at
``n_snapshots`` equally spaced iterations, including iteration 0 and the last one; what is
recorded is chosen by an ``observe(params, data)`` function, so no parameters are stored
unless asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

import jax
import jax.numpy as jnp
import optax

from .losses import REDUCTIONS, squared_error
from .models import Model, Params
from .validation import check_choice, check_int, check_positive_float

Data = dict[str, jax.Array]
Observe = Callable[[Params, Data], Any]


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


def _train(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction):
    steps_per_snapshot = n_iterations // (n_snapshots - 1)
    optimizer = optax.sgd(learning_rate)

    def loss(p: Params) -> jax.Array:
        return squared_error(model.apply(p, data["x_train"]), data["y_train"], reduction)

    def step(carry, _):
        p, opt_state = carry
        updates, opt_state = optimizer.update(jax.grad(loss)(p), opt_state, p)
        return (optax.apply_updates(p, updates), opt_state), None

    def segment(carry, _):
        carry, _ = jax.lax.scan(step, carry, None, length=steps_per_snapshot)
        return carry, observe(carry[0], data)

    first = observe(params, data)
    (final, _), rest = jax.lax.scan(segment, (params, optimizer.init(params)), None, length=n_snapshots - 1)
    snapshots = jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), first, rest)
    return final, snapshots


_STATIC = ("model", "n_iterations", "n_snapshots", "observe", "reduction")
_train_one = jax.jit(_train, static_argnames=_STATIC)


@partial(jax.jit, static_argnames=_STATIC)
def _train_batched(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction):
    one = lambda p, d, lr: _train(model, p, d, lr, n_iterations, n_snapshots, observe, reduction)
    return jax.vmap(one)(params, data, learning_rate)


def train(
    model: Model,
    params: Params,
    data: Data,
    learning_rate: float,
    n_iterations: int,
    n_snapshots: int = 101,
    observe: Observe | None = None,
    reduction: str = "sum",
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

    Returns:
        (final params, pytree of snapshots with a leading axis of size ``n_snapshots``).
    """
    check_positive_float("learning_rate", learning_rate)
    return _train_checked(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction)


def train_many(
    model: Model,
    params: Params,
    data: Data,
    learning_rates: jax.Array,
    n_iterations: int,
    n_snapshots: int = 101,
    observe: Observe | None = None,
    reduction: str = "sum",
) -> tuple[Params, Any]:
    """:func:`train` vmapped over the leading axis of ``params``, ``data`` and ``learning_rates``."""
    learning_rates = jnp.asarray(learning_rates)
    if learning_rates.ndim != 1 or not bool(jnp.all(learning_rates > 0)):
        raise ValueError(f"learning_rates must be a 1-D array of positive numbers, got {learning_rates!r}")
    return _train_checked(
        model, params, data, learning_rates, n_iterations, n_snapshots, observe, reduction, _train_batched
    )


def _train_checked(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction, fn=None):
    check_schedule(n_iterations, n_snapshots)
    check_choice("reduction", reduction, REDUCTIONS)
    for key in ("x_train", "y_train"):
        if key not in data:
            raise ValueError(f"data must contain {key!r}; got keys {sorted(data)}")
    observe = observe or observe_losses(model, reduction)
    fn = fn or _train_one
    return fn(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction)
