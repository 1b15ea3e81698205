"""Reference partitions, the small k-means and partitions derived from group means, on inputs with known answers."""

import numpy as np
import pytest
from sklearn.cluster import KMeans

from lib.analyses import partitions
from lib.core.tasks import TaskEnvironment

ENV = TaskEnvironment()


def planted(rng, labels, dim=20, spread=0.05):
    centres = rng.normal(size=(labels.max() + 1, dim)) * 3
    return centres[labels] + spread * rng.normal(size=(len(labels), dim))


def test_reference_partitions_hand_picked():
    labels, n = partitions.reference_partition(ENV, "task", "input_pool")
    assert n == 4 and list(labels[:6]) == [0, 0, 0, 1, 1, 1]
    labels, n = partitions.reference_partition(ENV, "task", "output_pool")
    assert n == 3 and list(labels[:4]) == [0, 1, 2, 0]
    labels, n = partitions.reference_partition(ENV, "input", "feature")
    assert n == 3 and list(labels[:4]) == [0, 1, 2, 0]
    labels, n = partitions.reference_partition(ENV, "output", "output_pool")
    assert n == 3 and list(labels) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    labels, n = partitions.reference_partition(ENV, "task_by_input", "output_pool")
    assert n == 3 and len(labels) == 36 and list(labels[:7]) == [0, 0, 0, 1, 1, 1, 2]
    labels, n = partitions.reference_partition(ENV, "task_by_input", "feature")
    assert n == 3 and len(labels) == 36 and list(labels[:7]) == [0, 1, 2, 0, 1, 2, 0]
    labels, n = partitions.reference_partition(ENV, "output", "feature")
    assert n == 3 and list(labels) == [0, 1, 2, 0, 1, 2, 0, 1, 2]
    with pytest.raises(ValueError, match="by must be one of \\['input_pool', 'output_pool'\\]"):
        partitions.reference_partition(ENV, "task", "feature")


def test_kmeans_finds_planted_clusters_like_scikit_learn_and_is_deterministic():
    rng = np.random.default_rng(0)
    for truth in (np.arange(12) // 3, np.arange(12) % 3, np.repeat(np.arange(3), 12)):
        points = planted(rng, truth)
        k = truth.max() + 1
        ours = partitions.kmeans(points, k)
        assert partitions.same_partition(ours, truth)
        assert partitions.same_partition(ours, KMeans(k, n_init=10, random_state=0).fit_predict(points))
        np.testing.assert_array_equal(ours, partitions.kmeans(points, k))
    with pytest.raises(ValueError, match="n_clusters must be an integer >= 1 and <= 12"):
        partitions.kmeans(points[:12], 13)


def test_kmeans_inertia_is_as_low_as_scikit_learns_on_unstructured_data():
    rng = np.random.default_rng(1)
    worse = 0
    for _ in range(20):
        points = rng.normal(size=(12, 30))
        inertia = lambda labels: sum(((points[labels == c] - points[labels == c].mean(0)) ** 2).sum()
                                     for c in np.unique(labels))
        ours = inertia(partitions.kmeans(points, 4))
        theirs = inertia(KMeans(4, n_init=10, random_state=0).fit_predict(points))
        worse += ours > theirs * 1.05
    assert worse <= 2


def test_canonical_labels_and_same_partition():
    np.testing.assert_array_equal(partitions.canonical_labels(np.array([2, 2, 0, 1, 0])), [0, 0, 1, 2, 1])
    assert partitions.same_partition([1, 1, 0], [5, 5, 3])
    assert not partitions.same_partition([1, 1, 0], [1, 0, 0])


@pytest.mark.parametrize("truth", [np.arange(12) // 3, np.arange(12) % 3, np.arange(12) // 6],
                         ids=["4 groups", "3 groups", "2 groups"])
def test_derive_partition_recovers_the_planted_number_of_groups(truth):
    labels, k = partitions.derive_partition(planted(np.random.default_rng(3), truth, dim=9))
    assert k == truth.max() + 1
    assert partitions.same_partition(labels, truth)


def test_derive_partition_needs_distinct_finite_means():
    with pytest.raises(ValueError, match="every group has the same mean"):
        partitions.derive_partition(np.ones((12, 9)))
    with pytest.raises(ValueError, match="finite"):
        partitions.derive_partition(np.full((12, 9), np.nan))


def test_group_means_and_ari_of_clusters():
    values = np.array([[1.0, 0.0], [3.0, 2.0], [5.0, 5.0]])
    np.testing.assert_allclose(partitions.group_means(values, np.array([0, 0, 1]), 2), [[2.0, 1.0], [5.0, 5.0]])
    clusters = np.array([[0, 0, 1, 1], [0, 1, 0, 1]])
    ari = partitions.ari_of_clusters(clusters, np.array([0, 0, 1, 1]))
    assert ari[0] == pytest.approx(1.0) and ari[1] < 0


def test_ari_of_clusters_equals_scikit_learn_exactly():
    from sklearn.metrics import adjusted_rand_score

    rng = np.random.default_rng(3)
    for n_groups, n_true, n_pred in [(12, 3, 4), (36, 4, 6), (69, 12, 2), (5, 5, 5), (9, 1, 3)]:
        labels = rng.integers(0, n_true, n_groups) * 7 - 2  # arbitrary label values, not 0..R-1
        clusters = rng.integers(0, n_pred, (20, n_groups))
        clusters[0] = 0  # one cluster
        clusters[1] = np.arange(n_groups)  # singletons
        clusters[2] = labels  # the reference itself (ARI 1)
        expected = [adjusted_rand_score(labels, c) for c in clusters]
        np.testing.assert_array_equal(partitions.ari_of_clusters(clusters, labels), expected)
    with pytest.raises(ValueError, match="clusters must be"):
        partitions.ari_of_clusters(np.zeros(4), np.zeros(4))
