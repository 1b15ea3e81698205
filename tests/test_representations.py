"""Grouping, ARI and variance-explained helpers on inputs with known answers."""

import numpy as np
import pytest

from lib.analyses import partitions
from lib.analyses import representations as rep
from lib.core.tasks import TaskEnvironment

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


def planted_hidden_groups(rng, n_snapshots=3, n_hidden=40):
    """(1 pair, 2 inits, S, 69, H) group means: standard init's tasks clustered by input pool and
    input units by feature at every snapshot, large init's pure noise."""
    _, _, rows = rep.probe(ENV)
    groups = rng.normal(size=(1, 2, n_snapshots, 69, n_hidden))
    task_centres, feature_centres = rng.normal(size=(4, n_hidden)) * 5, rng.normal(size=(3, n_hidden)) * 5
    groups[0, 0, :, rows["task"]] = task_centres[np.arange(12) // 3] + 0.1 * groups[0, 0, :, rows["task"]]
    groups[0, 0, :, rows["input"]] = feature_centres[np.arange(12) % 3] + 0.1 * groups[0, 0, :, rows["input"]]
    return groups


def test_ari_curves_score_planted_structure_against_reference_and_derived_partitions():
    rng = np.random.default_rng(0)
    groups = planted_hidden_groups(rng)
    by_input_pool = np.tile(np.arange(12) // 3, (1, 2, 1))
    by_output_pool = np.tile(np.arange(12) % 3, (1, 2, 1))
    curves = rep.ari_curves(ENV, groups, derived={"task": (by_input_pool, np.full((1, 2), 4)),
                                                  "input": (by_output_pool, np.full((1, 2), 3))})
    assert set(curves) >= {"task vs input_pool", "task vs output_pool", "input vs feature", "output vs output_pool",
                           "task_by_input vs output_pool", "task vs eNTK-derived", "input vs eNTK-derived"}
    np.testing.assert_allclose(curves["task vs input_pool"][0, 0], 1.0)
    np.testing.assert_allclose(curves["task vs eNTK-derived"][0, 0], 1.0)  # the derived labels are the input pools
    np.testing.assert_allclose(curves["input vs feature"][0, 0], 1.0)
    np.testing.assert_allclose(curves["input vs eNTK-derived"][0, 0], 1.0)  # feature position = k % 3 too
    # a partition crossing every input pool scores below chance
    assert (curves["task vs output_pool"][0, 0] < 0).all()
    assert np.abs(curves["task vs input_pool"][0, 1]).max() < 0.5  # noise


def test_entk_partitions_derive_the_partition_the_loadings_carry():
    """Loadings that depend only on the output pool of a pattern's task (as the standard-init eNTK's
    do, being the loss sensitivities) give the output-pool partition of the tasks, never the input pool."""
    data = ENV.all_patterns()
    rng = np.random.default_rng(2)
    pool_profile = rng.normal(size=(3, 9))
    loadings = pool_profile[ENV.task_out_pool(data.task)] + 0.01 * rng.normal(size=(len(data), 9))
    stacked = np.broadcast_to(loadings, (1, 2) + loadings.shape)
    labels, parts = rep.entk_partitions(ENV, stacked, data.stimulus[None], data.tasks[None], "task")
    assert parts.tolist() == [[3, 3]]
    assert partitions.same_partition(labels[0, 0], partitions.reference_partition(ENV, "task", "output_pool")[0])
    assert not partitions.same_partition(labels[0, 0], partitions.reference_partition(ENV, "task", "input_pool")[0])
    with pytest.raises(ValueError, match="grouping must be one of"):
        rep.entk_partitions(ENV, stacked, data.stimulus[None], data.tasks[None], "output")


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


def test_task_distance_ratios_known_geometry():
    rng = np.random.default_rng(4)
    in_pool, out_pool = np.arange(12) // 3, np.arange(12) % 3
    shared = rng.normal(size=(4, 30))[in_pool] * 5 + rng.normal(size=(12, 30)) * 0.5
    equidistant = np.eye(12, 30) * 3.0
    ratios = rep.task_distance_ratios(ENV, np.stack([shared, equidistant]))
    assert ratios["same input pool"][0] < 0.3 and ratios["same output pool"][0] == pytest.approx(1.0, abs=0.2)
    np.testing.assert_allclose([ratios["same input pool"][1], ratios["same output pool"][1]], 1.0)
    assert rep.onset(np.array([0, 100, 200]), np.array([0.0, 0.4, 0.8])) == pytest.approx(125.0)
    assert np.isnan(rep.onset(np.array([0, 100]), np.array([0.0, 0.1])))
