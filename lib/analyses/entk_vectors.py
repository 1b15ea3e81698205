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

scikit-learn and ARPACK are imported where they are used: the chapters' parameter checks import
this module (through :mod:`lib.analyses.continuum_points`), and a check should not pay their import
time (``benchmarks/import_cost.py``).
"""

from __future__ import annotations

import numpy as np

from .checks import as_array, check_cluster_count, check_finite, check_ndim
from ..core.entk_variants import ENTK_VARIANTS
from ..core.validation import check_choice, check_int, check_seed


def _check_matrix(name: str, matrix) -> np.ndarray:
    """A finite, real, non-empty (N, M) matrix, not all zero, as float64 (a zero matrix has no
    leading vector: every unit vector is a singular vector of its only singular value 0)."""
    if np.iscomplexobj(matrix):
        raise ValueError(f"{name} must be a real matrix, got dtype {np.asarray(matrix).dtype}")
    matrix = check_ndim(name, as_array(name, matrix), 2, "(N, M)")
    if matrix.size == 0:
        raise ValueError(f"{name} must be a non-empty (N, M) matrix, got shape {matrix.shape}")
    check_finite(name, matrix)
    if not matrix.any():
        raise ValueError(f"{name} must have a nonzero entry (a zero matrix has no leading vector), got all "
                         f"{matrix.size} entries of a {matrix.shape} matrix zero")
    return matrix


def _fix_sign(vector: np.ndarray) -> np.ndarray:
    """Sign convention: non-negative sum; ties broken by the entry of largest magnitude."""
    total = vector.sum()
    if np.isclose(total, 0.0, atol=1e-12 * np.abs(vector).sum()):
        total = vector[np.argmax(np.abs(vector))]
    return vector if total >= 0 else -vector


SIDES = ("right", "left")


def leading_vector(matrix: np.ndarray, method: str = "principled", side: str = "right") -> np.ndarray:
    """Leading vector of one (N, M) eNTK matrix (see module docstring): (M,) for the right
    side, (N,) for the left side of the principled method. ``matrix`` must be finite and not
    all zero."""
    check_choice("method", method, ENTK_VARIANTS)
    check_choice("side", side, SIDES)
    if method == "authors" and side != "right":
        raise ValueError(f"side={side!r} is only offered for method='principled' (the authors' eigenvector is a "
                         "column-side loading), got method='authors'")
    matrix = _check_matrix("matrix", matrix)
    if method == "principled":
        left, right = leading_singular_pair(matrix)
        return _fix_sign(right if side == "right" else left)
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"method='authors' needs a square eNTK (test x train of equal size), got {matrix.shape}")
    return _fix_sign(first_eigenvector(matrix.T))


# a first eigenvalue closer than this (relative to the largest modulus) to another, or a complex eigenvector with
# components this close in modulus to its largest that differ from it: the full decomposition decides
# (see first_eigenvector)
SEPARATION = 1e-6
SHIFT_OFFSET = 1e-10  # inverse iteration's shift: the eigenvalue plus this times the largest modulus


def first_eigenvector(matrix: np.ndarray) -> np.ndarray:
    """Real part of the eigenvector that ``np.linalg.eig(matrix)`` returns first (column 0), for a
    square, finite (N, N) matrix; (N,), unit norm before the real part is taken, sign arbitrary.

    The same vector, chosen the same way, at a fraction of the cost: ``np.linalg.eigvals`` (LAPACK
    ``geev`` without eigenvectors, the same Hessenberg QR that orders the eigenvalues) gives the
    first returned eigenvalue, and two steps of inverse iteration (an LU solve with the shift
    eigenvalue + :data:`SHIFT_OFFSET` x the largest modulus) give its eigenvector, normalized as
    LAPACK does (unit norm; for a complex eigenvalue, largest component real). Where that vector is
    not well defined by the eigenvalue alone (the first eigenvalue within :data:`SEPARATION` of
    another, relative to the largest modulus, or components of a complex eigenvector within
    :data:`SEPARATION` of the largest modulus that differ from the largest one: equal components,
    as duplicated patterns give, make the same choice), the full ``np.linalg.eig`` is used. Agrees with column 0 of
    ``np.linalg.eig`` to ~1e-12 (tests/test_entk_vectors.py; ``benchmarks/leading_vector_speed.py``
    times both)."""
    from scipy.linalg import lu_factor, lu_solve

    matrix = np.asarray(matrix, np.float64)
    eigenvalues = np.linalg.eigvals(matrix)
    first, scale = eigenvalues[0], np.abs(eigenvalues).max()
    if len(eigenvalues) < 2 or scale == 0 or np.abs(eigenvalues[1:] - first).min() < SEPARATION * scale:
        return _first_eigenvector_full(matrix)
    if first.imag == 0:  # a real eigenvalue has a real eigenvector (LAPACK's is real too)
        first = first.real
    shifted = matrix - (first + SHIFT_OFFSET * scale) * np.eye(len(matrix))
    factors = lu_factor(shifted, check_finite=False)
    vector = np.random.default_rng(0).normal(size=len(matrix)).astype(shifted.dtype)
    for _ in range(2):
        vector = lu_solve(factors, vector, check_finite=False)
        vector /= np.linalg.norm(vector)
    if not np.isfinite(vector).all():
        return _first_eigenvector_full(matrix)
    if np.iscomplexobj(vector):
        moduli = np.abs(vector)
        largest = int(np.argmax(moduli))
        near_largest = vector[moduli >= (1 - SEPARATION) * moduli[largest]]
        if np.abs(near_largest - vector[largest]).max() > SEPARATION * moduli[largest]:
            return _first_eigenvector_full(matrix)  # LAPACK's choice among them rests on rounding
        vector = vector * np.conj(vector[largest]) / moduli[largest]
    return np.real(vector)


def _first_eigenvector_full(matrix: np.ndarray) -> np.ndarray:
    """Real part of column 0 of ``np.linalg.eig(matrix)``'s eigenvectors."""
    return np.real(np.linalg.eig(matrix)[1][:, 0])


def leading_singular_pair(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(left (N,), right (M,)) singular vectors of the largest singular value of an (N, M) matrix.

    ARPACK (``scipy.sparse.linalg.svds``, k=1) from a fixed pseudo-random start: deterministic,
    equal to the full SVD's pair to ~1e-15 up to sign, and faster for the 500 x 500 eNTKs;
    small matrices (fewer than 50 rows or columns), where ARPACK is unreliable, use the full SVD.
    ``matrix`` must be finite (LAPACK and ARPACK give garbage or fail on NaN) and not all zero
    (then every unit vector is a leading one)."""
    matrix = _check_matrix("matrix", matrix)
    if min(matrix.shape) < 50:
        left, _, right_t = np.linalg.svd(matrix, full_matrices=False)
        return left[:, 0], right_t[0]
    from scipy.sparse.linalg import svds

    start = np.random.default_rng(0).normal(size=min(matrix.shape))
    left, _, right_t = svds(matrix, k=1, v0=start, tol=0, solver="arpack")
    return left[:, 0], right_t[0]


def leading_vectors(entk: np.ndarray, method: str = "principled", side: str = "right") -> np.ndarray:
    """(M, K) loadings (or (N, K) for ``side="left"``): the leading vector of each output's
    (N, M) eNTK, stacked as columns. ``entk``: (K, N, M), finite, no output's matrix all zero."""
    entk = np.asarray(entk)
    if entk.ndim != 3 or 0 in entk.shape:
        raise ValueError(f"entk must be a non-empty 3-D array (K outputs, N, M), got shape {entk.shape}")
    check_finite("entk", entk)
    zero = [k for k in range(entk.shape[0]) if not entk[k].any()]
    if zero:
        raise ValueError(f"entk[k] must have a nonzero entry for every output k (a zero matrix has no leading "
                         f"vector), got all zero for k in {zero}")
    return np.stack([leading_vector(m, method, side) for m in entk], axis=1)


def silhouette_of_loadings(loadings: np.ndarray, n_clusters: int = 12, seed: int = 10) -> float:
    """Silhouette score of k-means clusters of the (N, K) loading matrix (authors: 12 clusters,
    ``n_init=10``, ``random_state=10``). ``loadings`` must be finite with N > ``n_clusters`` rows, and
    k-means must find at least 2 clusters (else the silhouette is undefined)."""
    check_int("n_clusters", n_clusters, minimum=2)
    check_ndim("loadings", np.asarray(loadings), 2, "(N patterns, K outputs)")
    check_cluster_count("n_clusters", n_clusters, np.shape(loadings)[0], "loadings", minimum=2,
                        maximum=np.shape(loadings)[0] - 1)
    check_finite("loadings", as_array("loadings", loadings))
    check_seed("seed", seed)
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    labels = KMeans(n_clusters=n_clusters, n_init=10, random_state=seed).fit_predict(loadings)
    if len(np.unique(labels)) < 2:
        raise ValueError(f"loadings has fewer than 2 distinct rows ({np.shape(loadings)[0]} rows): k-means finds one "
                         "cluster and the silhouette is undefined")
    return float(silhouette_score(loadings, labels))


def loglog_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of log(y) against log(x): the order of a power law y ~ x^slope.
    x, y: 1-D, equal length >= 2, finite and positive, with at least 2 distinct x."""
    x, y = as_array("x", x), as_array("y", y)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(f"x and y must be equal-length 1-D arrays of >= 2 positive numbers, got shapes {x.shape} "
                         f"and {y.shape}")
    for name, values in (("x", x), ("y", y)):
        if not (np.isfinite(values).all() and (values > 0).all()):
            raise ValueError(f"x and y must be equal-length arrays of >= 2 positive numbers; {name} holds "
                             f"non-positive or non-finite values: {values.tolist()}")
    if np.unique(x).size < 2:
        raise ValueError(f"x must hold at least 2 distinct values to fit a slope, got {x.tolist()}")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
