"""Plain definitions that only the tests use: each is the textbook form of a quantity that a faster
or batched function of ``lib`` computes another way, and the tests check ``lib`` against it."""

import jax
import jax.numpy as jnp
import numpy as np


def linear_cka(a: np.ndarray, b: np.ndarray) -> float:
    """Linear CKA of two (N, H) representations of the same N patterns (Kornblith et al. 2019),
    from the features' cross-covariances; nan if either is constant over patterns
    (``lib.analyses.network_measures.task_pair_cka`` computes it from Gram matrices)."""
    a = np.asarray(a, np.float64) - np.mean(a, axis=0)
    b = np.asarray(b, np.float64) - np.mean(b, axis=0)
    cross = np.linalg.norm(a.T @ b) ** 2
    denom = np.linalg.norm(a.T @ a) * np.linalg.norm(b.T @ b)
    return float(cross / denom) if denom > 0 else float("nan")


def squared_error_per_pattern(y_pred: jax.Array, y_true: jax.Array) -> jax.Array:
    """(N,) summed squared error of each pattern over its outputs."""
    return jnp.sum((y_pred - y_true) ** 2, axis=-1)
