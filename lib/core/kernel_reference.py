"""The kernels of your own network: lib's generic path checked against neural-tangents, and timed.

Any model object with ``apply(params, x) -> y``, ``x`` of shape (N, ...) and ``y`` of shape
(N, K), works with :func:`lib.core.kernels.ntk`, :func:`lib.core.kernels.entk` and
:func:`lib.core.kernels.epntk`. The object must be hashable (a frozen dataclass, say): the kernels
are compiled once per model. ``params`` is any pytree of arrays. The loss is the squared
error of :mod:`lib.core.losses`. These helpers compare those kernels with neural-tangents (the
reference, imported only here) and measure what they cost.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial

import jax
import numpy as np
from jax.flatten_util import ravel_pytree

from . import kernels
from .models import Model, MultitaskNet, Params


def relative_difference(ours, reference) -> float:
    """Largest absolute difference relative to the largest reference entry: ``max|a - b| / max|b|``
    (entry-wise ratios are meaningless for entries near zero)."""
    ours, reference = np.asarray(ours), np.asarray(reference)
    if ours.shape != reference.shape:
        raise ValueError(f"shapes differ: ours {ours.shape}, reference {reference.shape}")
    scale = np.abs(reference).max()
    return float(np.abs(ours - reference).max() / scale) if scale > 0 else float(np.abs(ours).max())


def median_seconds(fn: Callable[[], object], repeats: int = 5) -> float:
    """Median wall time of ``fn()`` over ``repeats`` calls, after one call that compiles."""
    if repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    jax.block_until_ready(fn())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def n_parameters(params: Params) -> int:
    """Number of trainable scalars in a parameter pytree."""
    return int(ravel_pytree(params)[0].size)


def compare_with_neural_tangents(model: Model, params: Params, x_eval: jax.Array, x_train: jax.Array,
                                 y_train: jax.Array, reduction: str = "sum", repeats: int = 5) -> dict[str, np.ndarray]:
    """NTK and eNTK from lib (:func:`lib.core.kernels.ntk`, :func:`lib.core.kernels.entk`) and from
    neural-tangents (implementations 1 and 2), their differences and their cost.

    Returns:
        ``ntk`` (N, M, K, K) and ``entk`` (K, N, M) from lib; ``ntk_reference`` and
        ``entk_reference`` from neural-tangents implementation 1; ``ntk_difference`` and
        ``entk_difference`` (2,): :func:`relative_difference` of lib to implementations 1 and 2;
        ``seconds`` (lib eNTK) and ``seconds_reference`` (2,) (neural-tangents eNTK, as
        :func:`lib.core.kernels.entk_neural_tangents` calls it), medians of ``repeats`` calls;
        ``n_parameters``.
    """
    ours_ntk = kernels.ntk(model, params, x_eval, x_train)
    ours_entk = kernels.entk(model, params, x_eval, x_train, y_train, reduction)
    reference_ntk = {i: kernels.ntk_neural_tangents(model, params, x_eval, x_train, i) for i in kernels.NT_IMPLEMENTATIONS}
    reference_entk = {i: kernels.entk_neural_tangents(model, params, x_eval, x_train, y_train, reduction, i)
                      for i in kernels.NT_IMPLEMENTATIONS}
    seconds_reference = [
        median_seconds(lambda i=i: kernels.entk_neural_tangents(model, params, x_eval, x_train, y_train, reduction, i),
                       repeats) for i in kernels.NT_IMPLEMENTATIONS]
    return {
        "ntk": np.asarray(ours_ntk), "entk": np.asarray(ours_entk),
        "ntk_reference": np.asarray(reference_ntk[1]), "entk_reference": np.asarray(reference_entk[1]),
        "ntk_difference": np.array([relative_difference(ours_ntk, reference_ntk[i]) for i in kernels.NT_IMPLEMENTATIONS]),
        "entk_difference": np.array([relative_difference(ours_entk, reference_entk[i])
                                     for i in kernels.NT_IMPLEMENTATIONS]),
        "seconds": np.array(median_seconds(lambda: kernels.entk(model, params, x_eval, x_train, y_train, reduction),
                                           repeats)),
        "seconds_reference": np.array(seconds_reference),
        "n_parameters": np.array(n_parameters(params)),
    }


def path_kernel_check(model: Model, params: Params, x_eval: jax.Array, x_train: jax.Array, y_train: jax.Array,
                      learning_rate: float, n_iterations: int, reduction: str = "sum") -> dict[str, np.ndarray]:
    """Train for ``n_iterations`` full-batch steps while accumulating the ePNTK
    (:func:`lib.core.kernels.epntk`), and compare its estimate of the learned change with the real one.

    Returns:
        ``epntk`` (K, N, M) at the end; ``actual_change`` and ``estimated_change`` (N, K):
        ``y(T) - y(0)`` on ``x_eval`` and ``epntk.sum(axis=2).T``; ``relative_error``
        (:func:`relative_difference`, O(learning_rate) at fixed learning_rate * n_iterations);
        ``training_seconds``: wall time of the call, compilation included.
    """
    start = time.perf_counter()
    final, paths = jax.block_until_ready(
        kernels.epntk(model, params, x_eval, x_train, y_train, learning_rate, n_iterations, reduction=reduction))
    seconds = time.perf_counter() - start
    actual = model.apply(final, x_eval) - model.apply(params, x_eval)
    estimate = paths[-1].sum(axis=2).T
    return {"epntk": np.asarray(paths[-1]), "actual_change": np.asarray(actual),
            "estimated_change": np.asarray(estimate), "relative_error": np.array(relative_difference(estimate, actual)),
            "training_seconds": np.array(seconds)}


@partial(jax.jit, static_argnames=("model", "reduction"))
def _entk_generic(model, params, x_eval, x_train, y_train, reduction):
    return kernels.entk_jacobian(model, params, x_eval, x_train, y_train, reduction)


def structured_vs_generic(net: MultitaskNet, params: Params, x_eval: jax.Array, x_train: jax.Array,
                          y_train: jax.Array, repeats: int = 3) -> dict[str, np.ndarray]:
    """The eNTK of the paper's network by the structured path (what :func:`lib.core.kernels.entk`
    uses for a :class:`~lib.core.models.MultitaskNet`) and by the generic Jacobian path (what it
    uses for any other model): ``seconds`` (2,) medians (structured, generic) and ``difference``."""
    if not isinstance(net, MultitaskNet):
        raise TypeError(f"net must be a lib.core.models.MultitaskNet (the only model with a structured path), got {net!r}")
    structured = lambda: kernels.entk(net, params, x_eval, x_train, y_train, "sum")
    generic = lambda: _entk_generic(net, params, x_eval, x_train, y_train, "sum")
    return {"seconds": np.array([median_seconds(structured, repeats), median_seconds(generic, repeats)]),
            "difference": np.array(relative_difference(structured(), generic()))}
