"""Grouping, ARI and variance-explained helpers on inputs with known answers."""

import numpy as np
import pytest

from lib import representations as rep
from lib.tasks import TaskEnvironment

ENV = TaskEnvironment()


def test_probe_groups_are_complete_and_balanced():
    data, average, rows = rep.probe(ENV)
    assert len(data) == 972 and average.shape == (12 + 12 + 36 + 9, 972)
    np.testing.assert_allclose(average.sum(axis=1), 1.0)
    sizes = {g: (average[rows[g]] > 0).sum(axis=1) for g in rep.GROUPINGS}
    assert set(sizes["task"]) == {81} and set(sizes["input"]) == {27 * 3}
    assert set(sizes["task_by_input"]) == {27} and set(sizes["output"]) == {108}


def test_group_labels_hand_picked():
    data = ENV.encode(np.array([[0, 2, 1, 1]]), np.eye(12, dtype=np.int8)[[7]])  # pool 2 (feature 1) -> out pool 1
    assert rep.group_labels(ENV, data, "task")[0][0] == 7
    assert rep.group_labels(ENV, data, "input")[0][0] == 2 * 3 + 1
    assert rep.group_labels(ENV, data, "task_by_input")[0][0] == 7 * 3 + 1
    assert rep.group_labels(ENV, data, "output")[0][0] == 1 * 3 + 1


def test_ari_is_one_for_planted_clusters_and_near_zero_for_noise():
    labels, n = rep.predicted_partition(ENV, "task", "input_pool")
    assert n == 4 and list(labels[:6]) == [0, 0, 0, 1, 1, 1]
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(4, 50)) * 5
    planted = centers[labels] + rng.normal(size=(12, 50)) * 0.1
    noise = rng.normal(size=(12, 50))
    ari = rep.ari_over_training(np.stack([planted, noise]), labels, n)
    assert ari[0] == pytest.approx(1.0)
    assert abs(ari[1]) < 0.5
    feature_labels, n_features = rep.predicted_partition(ENV, "input", "feature")
    assert n_features == 3 and list(feature_labels[:4]) == [0, 1, 2, 0]


def test_variance_explained_known_values():
    labels = np.array([0, 0, 1, 1])
    assert rep.variance_explained(np.array([1.0, 1.0, 3.0, 3.0]), labels) == pytest.approx(1.0)
    assert rep.variance_explained(np.array([1.0, 3.0, 1.0, 3.0]), labels) == pytest.approx(0.0)
    assert rep.variance_explained(np.array([0.0, 2.0, 2.0, 4.0]), labels) == pytest.approx(0.5)


def test_loading_variance_explained_finds_the_planted_factor():
    data = ENV.all_patterns()
    factors = rep.loading_factors(ENV, data)
    rng = np.random.default_rng(1)
    loadings = np.stack([factors["feature"] * 1.0 + rng.normal(size=972) * 0.01 for _ in range(9)], axis=1)
    explained = rep.loading_variance_explained(loadings, factors)
    assert explained["feature"] > 0.99
    assert explained["output pool"] < 0.01 and explained["input pool"] < 0.01


def test_empty_group_is_an_error():
    with pytest.raises(ValueError, match="empty groups"):
        rep.averaging_matrix(np.array([0, 0, 2]), 3)
    with pytest.raises(ValueError, match="grouping must be one of"):
        rep.group_labels(ENV, ENV.all_patterns(), "pool")
