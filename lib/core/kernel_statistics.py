"""Statistics of (K, N, M) kernels (one N x M matrix per output k): alignment, leading right
singular vectors by subspace iteration, task profiles and the centered cosine similarity of
their rows. Used by the streamed ePNTK experiments (:mod:`lib.experiments.kernel_dynamics`)
at every snapshot and by the analyses of their results.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def alignment(a: jax.Array, b: jax.Array) -> jax.Array:
    """(K,) kernel alignment ``<a_k, b_k>_F / (|a_k| |b_k|)`` of two (K, N, M) kernels, per output."""
    num = jnp.sum(a * b, axis=(1, 2))
    return num / jnp.sqrt(jnp.sum(a * a, axis=(1, 2)) * jnp.sum(b * b, axis=(1, 2)))


def _orthonormalize(block: jax.Array) -> jax.Array:
    """(M, b) orthonormal columns spanning ``block``'s (modified Gram-Schmidt, b small)."""
    columns = []
    for j in range(block.shape[1]):
        column = block[:, j]
        for q in columns:
            column = column - (q @ column) * q
        columns.append(column / jnp.linalg.norm(column))
    return jnp.stack(columns, axis=1)


def subspace_iteration(kernel: jax.Array, start: jax.Array, n_iterations: int) -> tuple[jax.Array, jax.Array]:
    """Leading right singular vectors of each output's (N, M) matrix A of a (K, N, M) kernel by
    subspace iteration from the (K, M, b) right block ``start``, with a Rayleigh-Ritz step; the
    error of the leading vector falls like (s_{b+1} / s_1)^(2 n_iterations).

    The iteration runs on the smaller Gram matrix, A A^T (N x N, from the left block A V) when
    N < M, else A^T A: the same subspaces as iterating V <- A^T A V, but A is read three times
    (the Gram matrix, the start, the result) however many iterations, instead of twice per
    iteration; O(min(N, M) N M) once instead of an SVD's O(N M min(N, M)) per call.

    Returns ((K, M) unit vectors signed to a non-negative sum (the principled loading of
    :mod:`lib.analyses.entk_vectors`), (K, M, b) a right block spanning the final subspace, to
    warm-start a nearby kernel)."""

    def one(a, v):
        left = a.shape[0] < a.shape[1]  # static
        gram, block = (a @ a.T, a @ v) if left else (a.T @ a, v)
        block = jax.lax.fori_loop(0, n_iterations, lambda _, q: _orthonormalize(gram @ q), _orthonormalize(block))
        _, ritz = jnp.linalg.eigh(block.T @ gram @ block)  # ascending eigenvalues
        top = block @ ritz[:, -1]
        top, block = (a.T @ top, a.T @ block) if left else (top, block)
        top = top / jnp.linalg.norm(top)
        return top * jnp.where(jnp.sum(top) < 0, -1.0, 1.0), block

    return jax.vmap(one)(kernel, start)


def cold_start(n_outputs: int, n_columns: int, dtype, block: int = 4) -> jax.Array:
    """(n_outputs, n_columns, block) start of :func:`subspace_iteration` when no nearby kernel's
    block is at hand: an all-ones column and ``block - 1`` fixed pseudo-random columns (NumPy seed
    0), the same for every output."""
    start = np.concatenate([np.ones((n_columns, 1)), np.random.default_rng(0).normal(size=(n_columns, block - 1))],
                           axis=1)
    return jnp.broadcast_to(jnp.asarray(start, dtype), (n_outputs, n_columns, block))


PROFILE_SIDES = ("rows", "columns")


def task_profiles(kernel: jax.Array, row_average: jax.Array, column_average: jax.Array) -> dict[str, jax.Array]:
    """Each task's mean kernel row and mean kernel column, flattened: ``"rows"`` (G, K * M),
    how learning on every training pattern moved the outputs of the task's (evaluated)
    patterns; ``"columns"`` (G, K * N), how learning on the task's training patterns moved
    every output of every evaluated pattern (the side of the paper's loadings).

    Args:
        kernel: (K, N, M) rows of one index set x training patterns.
        row_average: (G, N) and column_average (G, M): task-averaging matrices.
    """
    g = row_average.shape[0]
    return {"rows": jnp.einsum("gn,knm->gkm", row_average, kernel).reshape(g, -1),
            "columns": jnp.einsum("gm,knm->gkn", column_average, kernel).reshape(g, -1)}


def centered_cosine_similarity(features):
    """(G, G) cosine similarity of the rows of (G, F) ``features`` after subtracting their mean
    over the G rows (the representational similarity used for kernels and hidden layers alike)."""
    xp = jnp if isinstance(features, jax.Array) else np
    centered = features - features.mean(axis=0, keepdims=True)
    norms = xp.sqrt((centered**2).sum(axis=1, keepdims=True))
    unit = centered / xp.where(norms > 0, norms, 1.0)
    return unit @ unit.T
