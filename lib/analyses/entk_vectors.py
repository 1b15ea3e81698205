"""Analyses of eNTK matrices: leading vectors per output and their cluster structure (paper Sec 4.2.2, 5.2).

Two variants of the leading-vector analysis of an eNTK matrix ``A[n, m]`` (rows n: the
inputs whose outputs change; columns m: the training inputs whose loss drives the change):

* ``"principled"`` (our default): the eNTK over training x training inputs; per output the
  leading *right* singular vector (largest singular value), signed so that its entries sum
  to a non-negative number. Its entry m is ``sum_n A[n, m] u_n / s``: a weight per
  training pattern, as the paper describes its figures.
* ``"authors"`` (the authors' code): the eNTK with rows over test inputs and columns over
  training inputs; per output ``np.linalg.eig`` of the transposed matrix and the *first
  returned* eigenvector (LAPACK order, not sorted by eigenvalue), real part. It solves
  ``v_m = sum_n A[n, m] v_n / lambda`` — the same column-side relation, so its entries also
  weight training patterns (with test and training patterns identified by position).

Both return one loading per *training* pattern, with the same sign convention (an
eigenvector's sign is arbitrary; flipping a whole output's column changes no silhouette,
but averages over networks need a convention). The left singular vector (``side="left"``)
is offered for comparison: a loading per evaluated pattern.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import svds
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score

from ..core.validation import check_choice, check_int

VECTOR_METHODS = ("principled", "authors")


def _fix_sign(vector: np.ndarray) -> np.ndarray:
    """Sign convention: non-negative sum; ties broken by the entry of largest magnitude."""
    total = vector.sum()
    if np.isclose(total, 0.0, atol=1e-12 * np.abs(vector).sum()):
        total = vector[np.argmax(np.abs(vector))]
    return vector if total >= 0 else -vector


SIDES = ("right", "left")


def leading_vector(matrix: np.ndarray, method: str = "principled", side: str = "right") -> np.ndarray:
    """Leading vector of one (N, M) eNTK matrix (see module docstring): (M,) for the right
    side, (N,) for the left side of the principled method."""
    check_choice("method", method, VECTOR_METHODS)
    check_choice("side", side, SIDES)
    matrix = np.asarray(matrix, dtype=np.float64)
    if method == "principled":
        left, right = leading_singular_pair(matrix)
        return _fix_sign(right if side == "right" else left)
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"method='authors' needs a square eNTK (test x train of equal size), got {matrix.shape}")
    _, vectors = np.linalg.eig(matrix.T)
    return _fix_sign(np.real(vectors[:, 0]))


def leading_singular_pair(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(left (N,), right (M,)) singular vectors of the largest singular value of an (N, M) matrix.

    ARPACK (``scipy.sparse.linalg.svds``, k=1) from a fixed pseudo-random start: deterministic,
    equal to the full SVD's pair to ~1e-15 up to sign, and ~15x faster for the 500 x 500 eNTKs;
    small matrices (fewer than 50 rows or columns), where ARPACK is unreliable, use the full SVD."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if min(matrix.shape) < 50:
        left, _, right_t = np.linalg.svd(matrix, full_matrices=False)
        return left[:, 0], right_t[0]
    start = np.random.default_rng(0).normal(size=min(matrix.shape))
    left, _, right_t = svds(matrix, k=1, v0=start, tol=0, solver="arpack")
    return left[:, 0], right_t[0]


def leading_vectors(entk: np.ndarray, method: str = "principled", side: str = "right") -> np.ndarray:
    """(M, K) loadings (or (N, K) for ``side="left"``): the leading vector of each output's
    (N, M) eNTK, stacked as columns."""
    return np.stack([leading_vector(m, method, side) for m in np.asarray(entk)], axis=1)


def silhouette_of_loadings(loadings: np.ndarray, n_clusters: int = 12, seed: int = 10) -> float:
    """Silhouette score of k-means clusters of the (N, K) loading matrix (authors: 12 clusters,
    ``n_init=10``, ``random_state=10``)."""
    check_int("n_clusters", n_clusters, minimum=2)
    labels = KMeans(n_clusters=n_clusters, n_init=10, random_state=seed).fit_predict(loadings)
    return float(silhouette_score(loadings, labels))


def loglog_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log(y) against log(x): the order of a power law y ~ x^slope."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.size < 2 or (x <= 0).any() or (y <= 0).any():
        raise ValueError("x and y must be equal-length arrays of >= 2 positive numbers")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
