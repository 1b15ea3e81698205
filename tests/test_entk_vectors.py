import numpy as np
import pytest

from lib.analyses import entk_vectors
from lib.analyses.mphate import embed_over_time


def test_principled_vector_recovers_rank_one_structure_with_sign_convention():
    rng = np.random.default_rng(0)
    u = rng.normal(size=30)
    u = u / np.linalg.norm(u) * np.sign(u.sum())
    v = rng.normal(size=20)
    matrix = -5.0 * np.outer(u, v) + 1e-3 * rng.normal(size=(30, 20))
    vec = entk_vectors.leading_vector(matrix, side="left")
    np.testing.assert_allclose(vec, u, atol=1e-3)
    assert vec.sum() > 0
    right = entk_vectors.leading_vector(matrix)  # default: the training-pattern (column) side
    np.testing.assert_allclose(np.abs(right), np.abs(v) / np.linalg.norm(v), atol=1e-3)
    assert right.shape == (20,) and right.sum() >= 0


def test_authors_vector_weights_columns():
    """eig(A^T) solves v_m = sum_n A[n, m] v_n / lambda: for a matrix whose columns differ in
    scale only, the eigenvector follows the column scales (the training-pattern side)."""
    column_scale = np.array([1.0, 2.0, 3.0])
    matrix = np.ones((3, 3)) * column_scale[None, :]
    vec = entk_vectors.leading_vector(matrix, "authors")
    np.testing.assert_allclose(np.abs(vec) / np.abs(vec).max(), column_scale / 3.0, atol=1e-12)


def test_authors_vector_is_first_unsorted_eigenvector():
    matrix = np.diag([1.0, 5.0, 3.0])  # eig returns eigenvalue 1 first: not the leading one
    np.testing.assert_allclose(np.abs(entk_vectors.leading_vector(matrix, "authors")), [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(np.abs(entk_vectors.leading_vector(matrix, "principled")), [0, 1, 0])
    with pytest.raises(ValueError, match="square"):
        entk_vectors.leading_vector(np.ones((3, 4)), "authors")


def _column_zero_of_eig(matrix: np.ndarray) -> np.ndarray:
    """The authors' choice, computed as they compute it: real part of np.linalg.eig's first column."""
    return entk_vectors._fix_sign(np.real(np.linalg.eig(matrix)[1][:, 0]))


def _first_eigenvector(matrix: np.ndarray) -> np.ndarray:
    return entk_vectors._fix_sign(entk_vectors.first_eigenvector(matrix))


@pytest.fixture(scope="module")
def paper_entks() -> np.ndarray:
    """(36, 500, 500) authors'-variant t=0 eNTKs (test x train) of two standard/large pairs, 9 outputs each."""
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.schedules import entk_at_init, initial_pairs

    env = TaskEnvironment()
    pairs = initial_pairs(env, [0, 1])
    return np.concatenate([np.asarray(entk_at_init(env, pairs, p, init, "authors"), np.float64)
                           for p in range(2) for init in ("standard", "large")])


def test_first_eigenvector_is_column_zero_of_eig_on_the_paper_entks(paper_entks):
    """The fast route (eigenvalues, then inverse iteration) chooses the vector np.linalg.eig returns
    first, on the eNTKs the book computes it for: real and complex first eigenvalues, duplicated patterns."""
    complex_first = 0
    for matrix in paper_entks:
        transposed = matrix.T
        complex_first += np.linalg.eigvals(transposed)[0].imag != 0
        np.testing.assert_allclose(_first_eigenvector(transposed), _column_zero_of_eig(transposed), atol=1e-10)
    assert complex_first > 0  # the complex normalization (largest component real) was exercised


def test_first_eigenvector_is_column_zero_of_eig_on_random_matrices():
    rng = np.random.default_rng(3)
    for n in (2, 5, 60, 200):
        for _ in range(5):
            matrix = rng.normal(size=(n, n))
            np.testing.assert_allclose(_first_eigenvector(matrix), _column_zero_of_eig(matrix), atol=1e-9)


def test_first_eigenvector_leaves_an_ill_defined_choice_to_eig():
    """A repeated first eigenvalue has a plane of eigenvectors: inverse iteration would return some
    vector of it, eig returns its own; the full decomposition decides (SEPARATION). So it does for a
    complex eigenvector whose largest components tie in modulus but differ, and for a zero matrix."""
    repeated = np.diag([2.0, 2.0, 1.0]) + np.triu(np.full((3, 3), 1e-3), 1)
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    for matrix in (repeated, rotation, np.zeros((4, 4)), np.eye(3)):
        np.testing.assert_allclose(_first_eigenvector(matrix), _column_zero_of_eig(matrix), atol=1e-12)


def test_leading_vectors_stack_per_output():
    entk = np.stack([np.outer(np.arange(1.0, 6.0), np.ones(4)) * (k + 1) for k in range(3)])
    assert entk_vectors.leading_vectors(entk).shape == (4, 3)
    np.testing.assert_allclose(entk_vectors.leading_vectors(entk)[:, 0], 0.5)
    loadings = entk_vectors.leading_vectors(entk, side="left")
    assert loadings.shape == (5, 3)
    np.testing.assert_allclose(loadings[:, 0], np.arange(1.0, 6.0) / np.linalg.norm(np.arange(1.0, 6.0)))


def test_silhouette_separates_clustered_from_uniform():
    rng = np.random.default_rng(1)
    centers = rng.normal(size=(12, 9)) * 10
    clustered = np.repeat(centers, 40, axis=0) + rng.normal(size=(480, 9)) * 0.1
    uniform = rng.uniform(size=(480, 9))
    assert entk_vectors.silhouette_of_loadings(clustered) > 0.9
    assert entk_vectors.silhouette_of_loadings(uniform) < 0.4


def test_mphate_on_a_paper_sized_tensor_is_finite_and_bit_identical_on_rerun():
    rng = np.random.default_rng(0)
    drift = np.cumsum(rng.normal(size=(101, 1, 200)) * 0.1, axis=0)
    activity = drift + rng.normal(size=(101, 12, 200)) * 0.5  # 1212 points: PHATE's landmark path (above 1000)
    embedding = embed_over_time(activity)
    assert embedding.shape == (101, 12, 2)
    assert np.isfinite(embedding).all() and embedding.std() > 0
    np.testing.assert_array_equal(embed_over_time(activity), embedding)
    with pytest.raises(ValueError, match="interslice_knn"):
        embed_over_time(activity[:20])


def test_leading_singular_pair_matches_the_full_svd_on_both_paths():
    rng = np.random.default_rng(5)
    for shape in ((8, 5), (120, 90)):  # full SVD below 50 rows/columns, ARPACK above
        matrix = rng.normal(size=shape) + np.outer(rng.normal(size=shape[0]), rng.normal(size=shape[1]))
        left, right = entk_vectors.leading_singular_pair(matrix)
        u, _, vt = np.linalg.svd(matrix)
        sign = np.sign(left @ u[:, 0])
        np.testing.assert_allclose(left, sign * u[:, 0], atol=1e-10)
        np.testing.assert_allclose(right, sign * vt[0], atol=1e-10)
