"""Partitions of groups (tasks, input units): fixed reference partitions, partitions derived from a
network's own t=0 eNTK, and the k-means clusterings of hidden activity they are scored against.

The paper's Fig 9 scores k-means clusters of group-averaged hidden activity against partitions
"predicted from the eNTK" — in its analysis (and in the authors' code) these are fixed labels:
input units by feature position, tasks by input pool. Here those are the *reference partitions*
(:func:`reference_partition`). A partition actually derived from a network's eNTK is
:func:`derive_partition`: average the network's t=0 leading-vector loadings (N patterns, K
outputs) within each group (e.g. the 12 tasks), then k-means the (G, K) group means, with the
number of clusters chosen by the best silhouette among 2..G//2. Nothing in it is fixed by hand
except that range.

:func:`kmeans` is a small deterministic k-means (k-means++ starts, Lloyd iterations, best of
``n_init``) for the many tiny problems of the ARI curves (12-36 points, 101 snapshots per
network), where scikit-learn's per-call overhead dominates; same partitions on
separated clusters (tested against scikit-learn).
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import silhouette_score

from .checks import as_array, check_finite, check_labels, check_ndim
from ..core.tasks import TaskEnvironment
from ..core.validation import check_choice, check_int, check_seed

REFERENCE_PARTITIONS = {"input": ("feature",), "task": ("input_pool", "output_pool"),
                        "task_by_input": ("output_pool", "feature"), "output": ("output_pool", "feature")}


def reference_partition(env: TaskEnvironment, grouping: str, by: str) -> tuple[np.ndarray, int]:
    """(G,) labels of the groups of ``grouping`` under a fixed partition, and its number of parts.

    ``input`` units (pool x feature) by ``feature`` position; ``task`` by ``input_pool`` or
    ``output_pool``; ``task_by_input`` (task x relevant feature) and ``output`` units (pool x
    position) by ``output_pool`` or ``feature`` position. Group order is that of
    :mod:`lib.analyses.representations`.
    """
    check_choice("grouping", grouping, REFERENCE_PARTITIONS)
    check_choice("by", by, REFERENCE_PARTITIONS[grouping])
    tasks = np.arange(env.n_tasks)
    if grouping == "input":
        return np.arange(env.n_stimulus_units) % env.n_features, env.n_features
    if grouping == "task":
        if by == "input_pool":
            return env.task_in_pool(tasks), env.n_in_pools
        return env.task_out_pool(tasks), env.n_out_pools
    if grouping == "task_by_input":
        if by == "feature":
            return np.tile(np.arange(env.n_features), env.n_tasks), env.n_features
        return env.task_out_pool(np.repeat(tasks, env.n_features)), env.n_out_pools
    if by == "feature":
        return np.arange(env.n_outputs) % env.n_features, env.n_features
    return np.arange(env.n_outputs) // env.n_features, env.n_out_pools


def group_means(values: np.ndarray, labels: np.ndarray, n_groups: int) -> np.ndarray:
    """(G, K) mean of the rows of ``values`` (N, K), finite, within each label in 0..G-1 (nan for an
    empty group: a legitimate result, not an error)."""
    values = as_array("values", values)
    labels = np.asarray(labels)
    if values.ndim != 2 or labels.shape != (values.shape[0],):
        raise ValueError(f"values must be (N, K) and labels (N,), got {values.shape} and {labels.shape}")
    check_int("n_groups", n_groups, minimum=0)
    check_labels("labels", labels, n_groups=n_groups)
    check_finite("values", values)
    counts = np.bincount(labels, minlength=n_groups).astype(float)
    sums = np.zeros((n_groups, values.shape[1]))
    np.add.at(sums, labels, values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts[:, None]


def kmeans(points: np.ndarray, n_clusters: int, n_init: int = 10, seed: int = 0, max_iter: int = 300) -> np.ndarray:
    """(N,) labels of the lowest-inertia k-means partition of ``points`` (N, D) over ``n_init``
    greedy k-means++ starts (as scikit-learn: 2 + log(k) candidates per centre) drawn from
    ``np.random.default_rng(seed)``, all run at once by Lloyd iterations until no label changes.
    Labels are renumbered in order of first appearance, so equal partitions give equal arrays.
    ``points`` must be finite (k-means++ and Lloyd iterations give garbage on NaN or inf)."""
    points = check_ndim("points", as_array("points", points), 2, "(N points, D dimensions)")
    n = points.shape[0]
    if n == 0:
        raise ValueError(f"points must hold at least one point, got shape {points.shape}")
    check_int("n_clusters", n_clusters, minimum=1, maximum=n)
    check_int("n_init", n_init, minimum=1)
    check_int("max_iter", max_iter, minimum=1)
    check_seed("seed", seed)
    check_finite("points", points)
    rng = np.random.default_rng(seed)
    centers = _greedy_kmeans_plus_plus(points, n_clusters, n_init, rng)  # (I, k, D)
    labels = None
    for _ in range(max_iter):
        distances = ((points[None, :, None, :] - centers[:, None, :, :]) ** 2).sum(axis=3)  # (I, N, k)
        new_labels = distances.argmin(axis=2)
        if labels is not None and np.array_equal(new_labels, labels):
            break
        labels = new_labels
        onehot = labels[:, :, None] == np.arange(n_clusters)[None, None, :]  # (I, N, k)
        counts = onehot.sum(axis=1)  # (I, k)
        sums = np.einsum("ink,nd->ikd", onehot.astype(np.float64), points)
        centers = np.where(counts[:, :, None] > 0, sums / np.maximum(counts, 1)[:, :, None], centers)
    inertia = np.take_along_axis(distances, labels[:, :, None], axis=2)[:, :, 0].sum(axis=1)  # (I,)
    return canonical_labels(labels[int(np.argmin(inertia))])


def _greedy_kmeans_plus_plus(points: np.ndarray, n_clusters: int, n_init: int, rng: np.random.Generator):
    """(n_init, k, D) starting centres: each next centre the best (lowest potential) of
    2 + floor(log k) candidates drawn with probability proportional to the squared distance."""
    n = points.shape[0]
    n_candidates = 2 + int(np.log(n_clusters))
    pairwise = ((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)  # (N, N)
    chosen = np.empty((n_init, n_clusters), dtype=int)
    chosen[:, 0] = rng.integers(n, size=n_init)
    closest = pairwise[chosen[:, 0]]  # (I, N) squared distance to the nearest chosen centre
    for c in range(1, n_clusters):
        total = closest.sum(axis=1, keepdims=True)
        cumulative = np.cumsum(np.where(total > 0, closest / np.where(total > 0, total, 1), 1.0 / n), axis=1)
        draws = rng.random((n_init, n_candidates))
        candidates = np.minimum((cumulative[:, None, :] < draws[:, :, None]).sum(axis=2), n - 1)  # (I, L)
        trial = np.minimum(closest[:, None, :], pairwise[candidates])  # (I, L, N)
        best = trial.sum(axis=2).argmin(axis=1)
        chosen[:, c] = candidates[np.arange(n_init), best]
        closest = trial[np.arange(n_init), best]
    return points[chosen].copy()


def canonical_labels(labels: np.ndarray) -> np.ndarray:
    """Labels (N,) renumbered 0, 1, ... in order of first appearance (the same partition, one spelling)."""
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"labels must be a 1-D array (one label per group), got shape {labels.shape}")
    if labels.dtype.kind in "fc" and not np.isfinite(labels).all():
        raise ValueError(f"labels must not be NaN or infinite, got {labels.tolist()}")
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse.ravel()]


def derive_partition(means: np.ndarray, seed: int = 0) -> tuple[np.ndarray, int]:
    """Partition of G groups from their (G, K) eNTK loading means: :func:`kmeans` for every k in
    2..G//2, keeping the k with the highest silhouette. Returns ((G,) labels, k)."""
    means = as_array("means", means)
    n_groups = means.shape[0] if means.ndim else 0
    check_seed("seed", seed)
    if means.ndim != 2 or n_groups < 4 or not np.isfinite(means).all():
        raise ValueError(f"means must be a finite (G >= 4, K) array, got shape {means.shape}")
    best = (-np.inf, None, None)
    for k in range(2, n_groups // 2 + 1):
        labels = kmeans(means, k, seed=seed)
        if len(np.unique(labels)) < 2:
            continue
        score = silhouette_score(means, labels)
        if score > best[0] + 1e-12:
            best = (score, labels, k)
    if best[1] is None:
        raise ValueError("derive_partition: every group has the same mean; there is no partition to derive")
    return best[1], best[2]


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label arrays (G,) of the same groups describe the same partition (up to renaming)."""
    if np.ndim(a) != 1 or np.shape(a) != np.shape(b):
        raise ValueError(f"a and b must be 1-D label arrays of the same groups, got shapes {np.shape(a)} and "
                         f"{np.shape(b)}")
    return bool(np.array_equal(canonical_labels(a), canonical_labels(b)))


def cluster_over_training(grouped: np.ndarray, n_clusters: int, seed: int = 0) -> np.ndarray:
    """(S, G) :func:`kmeans` labels of the group means at each snapshot, ``grouped`` (S, G, H), finite."""
    grouped = check_ndim("grouped", as_array("grouped", grouped), 3, "(S snapshots, G groups, H units)")
    if grouped.shape[0] == 0:
        raise ValueError(f"grouped must hold at least one snapshot, got shape {grouped.shape}")
    check_finite("grouped", grouped)
    return np.stack([kmeans(g, n_clusters, seed=seed) for g in grouped])


def ari_of_clusters(clusters: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(S,) adjusted Rand index of each snapshot's clusters (S, G) against ``labels`` (G,).

    scikit-learn's ``adjusted_rand_score(labels, clusters[s])`` for every s at once: the same
    pair-confusion counts in integers and the same final float expression, so the same numbers
    (tested), without its per-call input validation (~3 ms a call, 70% of the ARI curves' time)."""
    clusters = np.asarray(clusters)
    labels = np.asarray(labels)
    if clusters.ndim != 2 or labels.shape != clusters.shape[1:]:
        raise ValueError(f"clusters must be (snapshots, G) and labels (G,), got shapes {clusters.shape} and "
                         f"{labels.shape}")
    for name, array in (("clusters", clusters), ("labels", labels)):
        if array.dtype.kind in "fc" and not np.isfinite(array).all():
            raise ValueError(f"{name} must not hold NaN or infinite labels, got {int((~np.isfinite(array)).sum())}")
    n = labels.shape[0]
    true_onehot = (np.unique(labels)[:, None] == labels[None, :]).astype(np.int64)  # (R, G)
    pred_values = np.unique(clusters)
    pred_onehot = (clusters[:, None, :] == pred_values[None, :, None]).astype(np.int64)  # (S, C, G)
    contingency = np.einsum("rg,scg->src", true_onehot, pred_onehot)  # (S, R, C)
    true_sizes, pred_sizes = contingency.sum(axis=2), contingency.sum(axis=1)  # (S, R), (S, C)
    sum_squares = (contingency**2).sum(axis=(1, 2))
    true_positive = sum_squares - n
    false_positive = (contingency * pred_sizes[:, None, :]).sum(axis=(1, 2)) - sum_squares
    false_negative = (contingency * true_sizes[:, :, None]).sum(axis=(1, 2)) - sum_squares
    true_negative = n**2 - false_positive - false_negative - sum_squares
    out = np.ones(len(clusters))  # scikit-learn: 1.0 when the partitions agree on every pair
    for s, (tn, fp, fn, tp) in enumerate(zip(true_negative.tolist(), false_positive.tolist(),
                                             false_negative.tolist(), true_positive.tolist())):
        if fn or fp:
            out[s] = 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    return out
