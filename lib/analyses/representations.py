"""Grouped hidden representations and how well the t=0 eNTK predicts their structure (paper Sec 4.2, Figs 7-9).

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

from .checks import as_array, check_finite, check_iterations, check_labels, check_ndim, check_real
from .partitions import (REFERENCE_PARTITIONS, ari_of_clusters, cluster_over_training, derive_partition,
                         group_means, reference_partition)
from ..core.tasks import Dataset, TaskEnvironment, environment_key
from ..core.validation import check_choice, check_int, check_seed

GROUPINGS = ("task", "input", "task_by_input", "output")


def _check_patterns(name: str, data) -> Dataset:
    if not isinstance(data, Dataset):
        raise ValueError(f"{name} must be a lib.core.tasks.Dataset (e.g. env.all_patterns()), got {type(data).__name__}")
    if (data.task < 0).any():
        raise ValueError(f"{name} must hold single-task patterns only, got {int((data.task < 0).sum())} multitask "
                         f"patterns of {len(data)}")
    return data


def _n_probe_rows(env: TaskEnvironment) -> int:
    """Number of group means :func:`probe` stacks (69 for the 4x3 environment)."""
    return env.n_tasks + env.n_stimulus_units + env.n_tasks * env.n_features + env.n_outputs


def group_labels(env: TaskEnvironment, data: Dataset, grouping: str) -> tuple[np.ndarray, int]:
    """(N,) group index of every single-task pattern under ``grouping``, and the number of groups."""
    check_choice("grouping", grouping, GROUPINGS)
    if not isinstance(data, Dataset):
        raise ValueError(f"data must be a lib.core.tasks.Dataset (e.g. env.all_patterns()), got {type(data).__name__}")
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
    """(G, N) matrix whose row g averages the patterns with label g (labels (N,) in 0..G-1)."""
    check_int("n_groups", n_groups, minimum=0)
    labels = check_labels("labels", labels, n_groups=n_groups)
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


def variance_explained(values: np.ndarray, labels: np.ndarray) -> float:
    """Between-group share of the variance of ``values`` (N,) (eta squared, 0..1) for integer
    group ``labels`` (N,) >= 0; nan if ``values`` is constant (no variance to explain).
    ``values`` must be finite."""
    values = check_ndim("values", as_array("values", values), 1, "(N,)")
    if values.size == 0:
        raise ValueError("values must hold at least one value, got an empty array")
    check_finite("values", values)
    labels = check_labels("labels", labels, size=values.shape[0])
    total = ((values - values.mean()) ** 2).sum()
    if total == 0:
        return float("nan")
    means = np.bincount(labels, weights=values) / np.maximum(np.bincount(labels), 1)
    return float(((means[labels] - values.mean()) ** 2).sum() / total)


def loading_factors(env: TaskEnvironment, data: Dataset) -> dict[str, np.ndarray]:
    """Factors of single-task patterns used to explain eNTK loadings: the relevant feature
    position, the task's output pool and input pool, the task, and the target output unit
    (output pool x feature). ``data``: single-task patterns only."""
    task = _check_patterns("data", data).task
    return {
        "feature": env.relevant_feature(data),
        "output pool": env.task_out_pool(task),
        "input pool": env.task_in_pool(task),
        "task": task,
        "target output unit": env.target_output_unit(data),
    }


def loading_variance_explained(loadings: np.ndarray, factors: dict[str, np.ndarray]) -> dict[str, float]:
    """Mean over output units of the variance of each unit's loadings (N, K) explained by each factor
    (``factors``: name -> (N,) integer labels >= 0). ``loadings`` must be finite; a constant column
    (eta^2 undefined) is left out of the mean, so a factor is nan only if every column is constant."""
    loadings = np.asarray(loadings)
    check_ndim("loadings", loadings, 2, "(N patterns, K outputs)")
    check_finite("loadings", loadings)
    for name, labels in factors.items():
        check_labels(f"factors[{name!r}]", labels, size=loadings.shape[0], rows_of="loadings")
    return {name: float(np.nanmean([variance_explained(loadings[:, k], labels) for k in range(loadings.shape[1])]))
            for name, labels in factors.items()}


# --- cached experiments used by the representations chapter -------------------------------
def cached_grouped_hidden(env: TaskEnvironment, schedule: str, seeds, n_iterations: int | None = None,
                          n_hidden: int = 200) -> dict[str, np.ndarray]:
    """Single-task training of standard/large pairs recording group-averaged hidden activity
    on all single-task patterns at 101 snapshots: ``hidden_groups`` (P, 2, 101, 69, H) float32
    (groupings stacked in :data:`GROUPINGS` order), ``iterations`` and ``loss_test``."""
    from ..core import results
    from ..experiments.schedules import get_schedule, run_pairs
    from ..core.engines import DEFAULT_ENGINE
    from ..core.validation import check_seeds

    seeds = check_seeds("seeds", seeds)
    n_iterations = get_schedule(schedule).n_iterations if n_iterations is None else n_iterations
    data, average, _ = probe(env)

    def compute():
        out = run_pairs(env, schedule, seeds, n_iterations=n_iterations, n_hidden=n_hidden,
                        probe=(data.x, average), progress=True)
        return {k: out[k] for k in ("hidden_groups", "iterations", "loss_test")}

    parameters = dict(env=environment_key(env), schedule=schedule, seeds=list(seeds),
                      n_iterations=n_iterations, n_hidden=n_hidden, engine_tag=DEFAULT_ENGINE.tag)
    return results.cached("grouped_hidden", parameters, compute, computed_by=__name__)


def split_groupings(env: TaskEnvironment, hidden_groups: np.ndarray) -> dict[str, np.ndarray]:
    """grouping -> (..., G, H) from the stacked (..., 69, H) group means."""
    n_rows = _n_probe_rows(env)
    if np.ndim(hidden_groups) < 2 or np.shape(hidden_groups)[-2] != n_rows:
        raise ValueError(f"hidden_groups must be an array (..., {n_rows} group means, H units) as probe(env) stacks "
                         f"them, got shape {np.shape(hidden_groups)}")
    _, _, rows = probe(env)
    return {grouping: hidden_groups[..., rows[grouping], :] for grouping in GROUPINGS}


REFERENCE_COMPARISONS = tuple((grouping, by) for grouping, bys in REFERENCE_PARTITIONS.items() for by in bys)
DERIVED_GROUPINGS = ("input", "task")


def entk_partitions(env: TaskEnvironment, loadings: np.ndarray, stimulus: np.ndarray, tasks: np.ndarray,
                    grouping: str) -> tuple[np.ndarray, np.ndarray]:
    """Partitions of the groups of ``grouping`` ("input" units or "task"s) derived from each network's
    own t=0 eNTK loadings (:func:`lib.analyses.partitions.derive_partition` of the group-averaged loadings).

    Args:
        loadings: (P, 2, N, K) leading-vector loadings over each pair's N training patterns.
        stimulus, tasks: (P, N, ...) the pairs' training-pattern metadata.

    Returns: labels (P, 2, G) and the number of parts (P, 2).
    """
    check_choice("grouping", grouping, DERIVED_GROUPINGS)
    check_ndim("loadings", loadings, 4, "(P pairs, 2 inits, N patterns, K outputs)")
    n_pairs, n_inits, n_patterns = np.shape(loadings)[:3]
    if n_inits != 2:
        raise ValueError(f"loadings must be an array (P pairs, 2 inits, N patterns, K outputs), got shape "
                         f"{np.shape(loadings)}")
    for name, array in (("stimulus", stimulus), ("tasks", tasks)):
        if np.ndim(array) != 3 or np.shape(array)[:2] != (n_pairs, n_patterns):
            raise ValueError(f"{name} must be an array (P, N, ...) = ({n_pairs}, {n_patterns}, ...) for loadings of "
                             f"shape {np.shape(loadings)}, got shape {np.shape(array)}")
    check_finite("loadings", loadings)
    labels_out, parts = [], []
    for p in range(loadings.shape[0]):
        pattern_groups, n_groups = group_labels(env, env.encode(stimulus[p], tasks[p]), grouping)
        derived = [derive_partition(group_means(net, pattern_groups, n_groups)) for net in loadings[p]]
        labels_out.append([d[0] for d in derived])
        parts.append([d[1] for d in derived])
    return np.array(labels_out), np.array(parts)


def ari_curves(env: TaskEnvironment, hidden_groups: np.ndarray, derived: dict | None = None,
               seed: int = 0) -> dict[str, np.ndarray]:
    """"<grouping> vs <partition>" -> (P, 2, S) adjusted Rand index over training for every network.

    Hidden group means at each snapshot are clustered by :func:`lib.analyses.partitions.kmeans` into as many
    clusters as the partition has parts, and scored against every reference partition
    (:data:`REFERENCE_COMPARISONS`) and, if given, against each network's eNTK-derived partition:
    ``derived[grouping] = (labels (P, 2, G), parts (P, 2))`` from :func:`entk_partitions`
    (reported as "<grouping> vs eNTK-derived"). ``hidden_groups`` (P, 2, S, 69, H) must be finite."""
    from ..core.parallel import parallel_map

    n_rows = _n_probe_rows(env)
    if np.ndim(hidden_groups) != 5 or np.shape(hidden_groups)[1] != 2 or np.shape(hidden_groups)[3] != n_rows:
        raise ValueError(f"hidden_groups must be an array (P pairs, 2 inits, S snapshots, {n_rows} group means, H units), "
                         f"got shape {np.shape(hidden_groups)}")
    check_finite("hidden_groups", hidden_groups)
    check_seed("seed", seed)
    grouped = split_groupings(env, hidden_groups)
    n_pairs = hidden_groups.shape[0]
    references = {(grouping, by): reference_partition(env, grouping, by) for grouping, by in REFERENCE_COMPARISONS}
    for grouping in derived or {}:
        check_choice("derived grouping", grouping, DERIVED_GROUPINGS)
        _check_derived(f"derived[{grouping!r}]", derived[grouping], n_pairs, grouped[grouping].shape[-2])
    # every (grouping, k, pair, init) clustering over training that a comparison needs, computed once
    needed = {(grouping, k, p, i) for (grouping, _), (_, k) in references.items()
              for p in range(n_pairs) for i in range(2)}
    needed |= {(grouping, int(parts[p, i]), p, i) for grouping, (_, parts) in (derived or {}).items()
               for p in range(n_pairs) for i in range(2)}
    needed = sorted(needed)
    labels_over_training = parallel_map(
        cluster_over_training, [(grouped[grouping][p, i], k, seed) for grouping, k, p, i in needed],
        desc="k-means over training")
    clusters = dict(zip(needed, labels_over_training))

    out = {f"{grouping} vs {by}": np.array([[ari_of_clusters(clusters[grouping, k, p, i], labels) for i in range(2)]
                                           for p in range(n_pairs)])
           for (grouping, by), (labels, k) in references.items()}
    for grouping, (labels, parts) in (derived or {}).items():
        out[f"{grouping} vs eNTK-derived"] = np.array([
            [ari_of_clusters(clusters[grouping, int(parts[p, i]), p, i], labels[p, i]) for i in range(2)]
            for p in range(n_pairs)])
    return out


def _check_derived(name: str, entry, n_pairs: int, n_groups: int) -> None:
    """``entry`` = (labels (P, 2, G), parts (P, 2)) with integer parts in [1, G]."""
    if not isinstance(entry, (tuple, list)) or len(entry) != 2:
        raise ValueError(f"{name} must be a pair (labels (P, 2, G), parts (P, 2)) as entk_partitions returns, got "
                         f"{type(entry).__name__}")
    labels, parts = np.asarray(entry[0]), np.asarray(entry[1])
    if labels.shape != (n_pairs, 2, n_groups):
        raise ValueError(f"{name} labels must have shape (P, 2, G) = {(n_pairs, 2, n_groups)}, got {labels.shape}")
    if parts.shape != (n_pairs, 2):
        raise ValueError(f"{name} parts must have shape (P, 2) = {(n_pairs, 2)}, got {parts.shape}")
    if parts.dtype.kind not in "iu" or parts.min() < 1 or parts.max() > n_groups:
        raise ValueError(f"{name} parts must be integers in [1, {n_groups}] (clusters of {n_groups} groups), got "
                         f"{parts.tolist()}")


def cached_ari_curves(env: TaskEnvironment, recorded: dict[str, np.ndarray], key: dict,
                      derived: dict | None = None) -> dict[str, np.ndarray]:
    """:func:`ari_curves` of a :func:`cached_grouped_hidden` result through the cache, keyed by ``key``
    and the derived partitions."""
    from ..core import results

    derived_key = {g: [np.asarray(labels).tolist(), np.asarray(parts).tolist()]
                   for g, (labels, parts) in (derived or {}).items()}
    return results.cached("ari_curves", {**key, "derived": derived_key, "version": 2},
                          lambda: ari_curves(env, recorded["hidden_groups"], derived), computed_by=__name__)


def cached_mphate(env: TaskEnvironment, hidden_groups_pair: np.ndarray, key: dict) -> dict[str, np.ndarray]:
    """M-PHATE embeddings (S, G, 2) of one pair's grouped activity (2, S, 69, H), per
    "<init>/<grouping>", cached under ``key`` (the parameters that produced the activity)."""
    from ..core import results
    from ..core.parallel import parallel_map
    from .mphate import embed_over_time

    n_rows = _n_probe_rows(env)
    if np.ndim(hidden_groups_pair) != 4 or np.shape(hidden_groups_pair)[0] != 2 or np.shape(hidden_groups_pair)[2] != n_rows:
        raise ValueError(f"hidden_groups_pair must be one pair's array (2 inits, S snapshots, {n_rows} group means, "
                         f"H units), got shape {np.shape(hidden_groups_pair)}")

    def compute():
        grouped = split_groupings(env, hidden_groups_pair)
        jobs = [(init, g) for init in ("standard", "large") for g in GROUPINGS]
        embeddings = parallel_map(lambda init, g: embed_over_time(grouped[g][("standard", "large").index(init)]),
                                  jobs, desc="M-PHATE")
        return {f"{init}/{g}": embedding for (init, g), embedding in zip(jobs, embeddings)}

    return results.cached("mphate", {**key, "version": 1}, compute, computed_by=__name__)


def task_distance_ratios(env: TaskEnvironment, task_means: np.ndarray) -> dict[str, np.ndarray]:
    """How much closer tasks that share a pool lie: mean Euclidean distance between the hidden
    means (..., G=n_tasks, H) of task pairs sharing their input pool, or their output pool, divided
    by that of pairs sharing neither. 1: equidistant regardless of shared pools; < 1: shared
    structure. Returns "same input pool" and "same output pool" -> (...) ratios; nan where the
    pairs sharing neither pool are at distance 0 (all task means equal). ``task_means`` must be finite."""
    if np.ndim(task_means) < 2 or np.shape(task_means)[-2] != env.n_tasks:
        raise ValueError(f"task_means must be an array (..., {env.n_tasks} tasks, H units), got shape "
                         f"{np.shape(task_means)}")
    check_finite("task_means", np.asarray(task_means))
    tasks = np.arange(env.n_tasks)
    first, second = np.triu_indices(env.n_tasks, k=1)
    same_in = env.task_in_pool(tasks)[first] == env.task_in_pool(tasks)[second]
    same_out = env.task_out_pool(tasks)[first] == env.task_out_pool(tasks)[second]
    means = np.asarray(task_means, dtype=np.float64)
    distances = np.linalg.norm(means[..., first, :] - means[..., second, :], axis=-1)
    neither = distances[..., ~same_in & ~same_out].mean(axis=-1)
    return {"same input pool": distances[..., same_in].mean(axis=-1) / neither,
            "same output pool": distances[..., same_out].mean(axis=-1) / neither}


def onset(iterations: np.ndarray, curve: np.ndarray, level: float = 0.5) -> float:
    """First iteration at which ``curve`` (S,) reaches ``level`` (linear interpolation); nan if never.
    ``iterations`` (S,), ``curve`` finite, S >= 1."""
    from ..experiments.smg import crossing_time

    curve_array = check_ndim("curve", np.asarray(curve), 1, "(S snapshots,)")
    if curve_array.size == 0:
        raise ValueError("curve must hold at least one snapshot, got an empty array")
    check_finite("curve", as_array("curve", curve_array))
    check_iterations("iterations", iterations, curve_array.shape[0], "curve")
    check_real("level", level)
    return crossing_time(np.asarray(iterations, dtype=float), np.asarray(curve, dtype=float), level)
