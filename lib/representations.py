"""Grouped hidden representations and how well the t=0 eNTK predicts their structure.

Hidden activity is probed on every single-task pattern of the environment (81 stimuli x 12
tasks = 972 for the 4x3 environment), so every group below is complete and balanced, and
averaged within the groups of four *groupings* (paper Fig 7):

* ``task``: the task performed (12 groups);
* ``input``: the stimulus unit the task routes (pool x feature, 12 groups);
* ``task_by_input``: task x relevant feature (36 groups);
* ``output``: the output unit that should respond (9 groups).
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from .tasks import Dataset, TaskEnvironment
from .validation import check_choice, check_int

GROUPINGS = ("task", "input", "task_by_input", "output")


def group_labels(env: TaskEnvironment, data: Dataset, grouping: str) -> tuple[np.ndarray, int]:
    """(N,) group index of every single-task pattern under ``grouping``, and the number of groups."""
    check_choice("grouping", grouping, GROUPINGS)
    if (data.task < 0).any():
        raise ValueError("grouping needs single-task patterns only")
    if grouping == "task":
        return data.task, env.n_tasks
    if grouping == "input":
        return env.relevant_input_unit(data), env.n_stimulus_units
    if grouping == "task_by_input":
        return data.task * env.n_features + env.relevant_feature(data), env.n_tasks * env.n_features
    return env.target_output_unit(data), env.n_outputs


def averaging_matrix(labels: np.ndarray, n_groups: int) -> np.ndarray:
    """(G, N) matrix whose row g averages the patterns with label g."""
    counts = np.bincount(labels, minlength=n_groups)
    if (counts == 0).any():
        raise ValueError(f"every group needs at least one pattern; empty groups: {np.flatnonzero(counts == 0)}")
    return (np.arange(n_groups)[:, None] == labels[None, :]) / counts[:, None]


def probe(env: TaskEnvironment) -> tuple[Dataset, np.ndarray, dict[str, slice]]:
    """All single-task patterns, the stacked (69, N) averaging matrix of the four groupings,
    and the rows belonging to each grouping."""
    data = env.all_patterns()
    blocks, rows, start = [], {}, 0
    for grouping in GROUPINGS:
        labels, n = group_labels(env, data, grouping)
        blocks.append(averaging_matrix(labels, n))
        rows[grouping] = slice(start, start + n)
        start += n
    return data, np.concatenate(blocks), rows


def predicted_partition(env: TaskEnvironment, grouping: str, by: str) -> tuple[np.ndarray, int]:
    """Labels of the groups of ``grouping`` under the structure the t=0 eNTK predicts, and the
    number of clusters: input units by feature position; tasks by input pool or output pool."""
    if grouping == "input":
        check_choice("by", by, ("feature",))
        return np.arange(env.n_stimulus_units) % env.n_features, env.n_features
    if grouping == "task":
        check_choice("by", by, ("input_pool", "output_pool"))
        tasks = np.arange(env.n_tasks)
        if by == "input_pool":
            return env.task_in_pool(tasks), env.n_in_pools
        return env.task_out_pool(tasks), env.n_out_pools
    raise ValueError(f"grouping must be one of ['input', 'task'] for a predicted partition, got {grouping!r}")


def ari_over_training(grouped: np.ndarray, labels: np.ndarray, n_clusters: int, seed: int = 0) -> np.ndarray:
    """(S,) adjusted Rand index between k-means clusters of the group means at each snapshot
    (``grouped`` (S, G, H)) and the predicted ``labels`` (G,)."""
    check_int("n_clusters", n_clusters, minimum=2)
    return np.array([
        adjusted_rand_score(labels, KMeans(n_clusters=n_clusters, n_init=10, random_state=seed).fit_predict(g))
        for g in np.asarray(grouped, dtype=np.float64)
    ])


def variance_explained(values: np.ndarray, labels: np.ndarray) -> float:
    """Between-group share of the variance of ``values`` (N,) (eta squared, 0..1)."""
    values = np.asarray(values, dtype=np.float64)
    total = ((values - values.mean()) ** 2).sum()
    if total == 0:
        return float("nan")
    means = np.bincount(labels, weights=values) / np.maximum(np.bincount(labels), 1)
    return float(((means[labels] - values.mean()) ** 2).sum() / total)


def loading_factors(env: TaskEnvironment, data: Dataset) -> dict[str, np.ndarray]:
    """Factors of single-task patterns used to explain eNTK loadings: the relevant feature
    position, the task's output pool and input pool, the task, and the target output unit
    (output pool x feature)."""
    task = data.task
    return {
        "feature": env.relevant_feature(data),
        "output pool": env.task_out_pool(task),
        "input pool": env.task_in_pool(task),
        "task": task,
        "target output unit": env.target_output_unit(data),
    }


def loading_variance_explained(loadings: np.ndarray, factors: dict[str, np.ndarray]) -> dict[str, float]:
    """Mean over output units of the variance of each unit's loadings (N, K) explained by each factor."""
    loadings = np.asarray(loadings)
    return {name: float(np.nanmean([variance_explained(loadings[:, k], labels) for k in range(loadings.shape[1])]))
            for name, labels in factors.items()}


# --- cached experiments used by the representations chapter -------------------------------
def cached_grouped_hidden(env: TaskEnvironment, schedule: str, seeds, n_iterations: int | None = None,
                          n_hidden: int = 200) -> dict[str, np.ndarray]:
    """Single-task training of standard/large pairs recording group-averaged hidden activity
    on all single-task patterns at 101 snapshots: ``hidden_groups`` (P, 2, 101, 69, H) float32
    (groupings stacked in :data:`GROUPINGS` order), ``iterations`` and ``loss_test``."""
    from . import results
    from .experiments import TRAINING_TAGS, get_schedule, run_pairs
    from .validation import check_seeds

    seeds = check_seeds("seeds", seeds)
    n_iterations = get_schedule(schedule).n_iterations if n_iterations is None else n_iterations
    data, average, _ = probe(env)

    def compute():
        out = run_pairs(env, schedule, seeds, n_iterations=n_iterations, n_hidden=n_hidden,
                        probe=(data.x, average), progress=True)
        return {k: out[k] for k in ("hidden_groups", "iterations", "loss_test")}

    parameters = dict(env=[env.n_in_pools, env.n_out_pools, env.n_features], schedule=schedule, seeds=list(seeds),
                      n_iterations=n_iterations, n_hidden=n_hidden, training=TRAINING_TAGS["fast"])
    return results.cached("grouped_hidden", parameters, compute)


def split_groupings(env: TaskEnvironment, hidden_groups: np.ndarray) -> dict[str, np.ndarray]:
    """grouping -> (..., G, H) from the stacked (..., 69, H) group means."""
    _, _, rows = probe(env)
    return {grouping: hidden_groups[..., rows[grouping], :] for grouping in GROUPINGS}


ARI_COMPARISONS = (("input", "feature"), ("task", "input_pool"), ("task", "output_pool"))


def ari_curves(env: TaskEnvironment, hidden_groups: np.ndarray, seed: int = 0) -> dict[str, np.ndarray]:
    """"<grouping> vs <partition>" -> (P, 2, S) ARI over training for every network."""
    grouped = split_groupings(env, hidden_groups)
    out = {}
    for grouping, by in ARI_COMPARISONS:
        labels, n_clusters = predicted_partition(env, grouping, by)
        out[f"{grouping} vs {by}"] = np.array([[ari_over_training(net, labels, n_clusters, seed) for net in pair]
                                               for pair in grouped[grouping]])
    return out


def cached_ari_curves(env: TaskEnvironment, recorded: dict[str, np.ndarray], key: dict) -> dict[str, np.ndarray]:
    """:func:`ari_curves` of a :func:`cached_grouped_hidden` result through the cache, keyed by ``key``."""
    from . import results

    return results.cached("ari_curves", {**key, "version": 1}, lambda: ari_curves(env, recorded["hidden_groups"]))


def cached_mphate(env: TaskEnvironment, hidden_groups_pair: np.ndarray, key: dict) -> dict[str, np.ndarray]:
    """M-PHATE embeddings (S, G, 2) of one pair's grouped activity (2, S, 69, H), per
    "<init>/<grouping>", cached under ``key`` (the parameters that produced the activity)."""
    from tqdm import tqdm

    from . import results
    from .mphate import embed_over_time

    def compute():
        grouped = split_groupings(env, hidden_groups_pair)
        jobs = [(init, g) for init in ("standard", "large") for g in GROUPINGS]
        return {f"{init}/{g}": embed_over_time(grouped[g][("standard", "large").index(init)])
                for init, g in tqdm(jobs, desc="M-PHATE")}

    return results.cached("mphate", {**key, "version": 1}, compute)
