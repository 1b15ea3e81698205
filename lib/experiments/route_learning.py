"""When the paper's sigmoid multitask network learns each route, and when its hidden layer groups
the tasks by pool: the observations that the neural race of :mod:`lib.experiments.gated_race`
predicts.

Theory being tested (Saxe, Sodhani & Lewallen 2022, Sec 4.2, Fig. 5): gradient descent from
small weights is a race between pathways; those shared by more contexts (tasks) learn faster, so
pool-level (shared) structure should form before route-specific structure, and the order in
which the routes are learned is set by the statistics of the routes and of the pools they share.

What the module computes. :func:`run_route_learning` trains :class:`lib.core.models.MultitaskNet`
at init scale ``g`` (:func:`lib.experiments.continuum.scaled_initial_params`) on the single-task
training set of :meth:`TaskEnvironment.make_data` (i.i.d., stream 0, the draw of
:func:`lib.experiments.continuum.run_continuum`) with :func:`lib.core.training.train_many`, and
records at every snapshot (:class:`RouteObserver`) the per-task mean summed squared error on the
training set and on every single-task pattern, and the hidden activity of every single-task
pattern. Pure functions then give the route learning times and order (the race's criterion,
:func:`lib.experiments.gated_race.learning_times`), the task representations
(:func:`task_representations`), the adjusted Rand index over training of a clustering of the
tasks (k = n_in_pools, k = n_out_pools) against the input- and output-pool groupings
(:func:`pool_ari`), and the rank agreement of a predicted and an observed order with a
permutation p-value (:func:`order_agreement`). Checked in tests/test_route_learning.py.

scikit-learn and ``scipy.stats`` are imported where they are used: the chapters' parameter checks
import this module, and a check should not pay their import time (``benchmarks/import_cost.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np

from ..core.engines import DEFAULT_ENGINE, Engine
from ..core.models import MultitaskNet
from ..core.tasks import TaskEnvironment
from ..core.training import train_many
from ..core.validation import check_choice, check_int, check_positive_float, check_seed, check_seeds
from .continuum import SCALINGS, scaled_initial_params
from .gated_race import learning_order, learning_times

REPRESENTATIONS = ("profile", "mean")
CLUSTERINGS = ("agglomerative", "kmeans")


@dataclass(frozen=True)
class RouteObserver:
    """``observe`` for :func:`train_many`: ``task_loss_train`` (R,) and ``task_loss_all`` (R,), the
    mean over each task's patterns of the summed-over-outputs squared error on ``x_train`` and on
    ``x_all`` (NaN for a task without patterns), ``hidden_all`` (N_all, n_hidden), ``output_all``
    (N_all, n_outputs), and the weights ``w_hidden``, ``w_output`` (for kernels at the snapshots)."""

    model: MultitaskNet

    def _task_losses(self, params, x, y):
        per_pattern = jnp.sum((self.model.apply(params, x) - y) ** 2, axis=-1)
        onehot = self.model.task_input(x)
        count = onehot.sum(axis=0)
        return jnp.where(count > 0, onehot.T @ per_pattern / jnp.maximum(count, 1.0), jnp.nan)

    def __call__(self, params, data):
        return {"task_loss_train": self._task_losses(params, data["x_train"], data["y_train"]),
                "task_loss_all": self._task_losses(params, data["x_all"], data["y_all"]),
                "hidden_all": self.model.hidden(params, data["x_all"]),
                "output_all": self.model.apply(params, data["x_all"]), "w_hidden": params["w_hidden"],
                "w_output": params["w_output"]}


def run_route_learning(env: TaskEnvironment, seeds=(0,), g: float = 1.0, learning_rate: float = 0.03,
                       n_iterations: int = 1000, n_snapshots: int = 21, n_hidden: int = 200, n_train: int = 500,
                       scaling: str = "both", engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """Train one network per seed at init scale ``g`` on single-task data and observe its routes.

    Args:
        seeds: network seeds (weight draw and training set, as :func:`run_continuum`).
        g, scaling: init scale and the layers it multiplies (:data:`continuum.SCALINGS`).
        learning_rate, n_iterations, n_snapshots: full-batch GD on the summed squared error;
            ``n_iterations`` a multiple of ``n_snapshots - 1``.
        n_hidden, n_train: hidden units; training patterns (i.i.d.).

    Returns (S seeds, T snapshots, R tasks, N_all = every single-task pattern): ``iterations``
    (T,), ``task_loss_train``, ``task_loss_all`` (S, T, R), ``hidden`` (S, T, N_all, n_hidden),
    ``outputs`` (S, T, N_all, n_outputs), ``all_task`` (N_all,), ``all_stimulus`` (N_all, n_in_pools),
    ``all_x`` (N_all, n_inputs), ``all_y`` (N_all, n_outputs) the patterns and their targets,
    ``x_train`` (S, n_train, n_inputs), ``y_train`` (S, n_train, n_outputs), ``w_hidden`` and
    ``w_output`` (S, T, ...) the weights at every snapshot (the first: the initial weights).
    """
    seeds = check_seeds("seeds", seeds)
    check_positive_float("learning_rate", learning_rate)
    check_positive_float("g", g)
    check_choice("scaling", scaling, SCALINGS)
    check_int("n_train", n_train, minimum=1)
    check_int("n_iterations", n_iterations, minimum=1)
    check_int("n_snapshots", n_snapshots, minimum=2)
    if n_iterations % (n_snapshots - 1):
        raise ValueError(f"n_iterations ({n_iterations}) must be a multiple of n_snapshots - 1 ({n_snapshots - 1})")
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    params0 = scaled_initial_params(net, seeds, g, scaling)
    train = [env.make_data(s, n_train, 1, "iid", multitask=False, stream=0)[0] for s in seeds]
    everything = env.all_patterns()
    stack = lambda arrays: jnp.asarray(np.stack(arrays), jnp.float32)
    data = {"x_train": stack([d.x for d in train]), "y_train": stack([d.y for d in train]),
            "x_all": stack([everything.x] * len(seeds)), "y_all": stack([everything.y] * len(seeds))}
    lrs = jnp.full((len(seeds),), learning_rate, jnp.float32)
    _, snaps = train_many(net, params0, data, lrs, n_iterations, n_snapshots, RouteObserver(net), engine=engine)
    return {"iterations": np.linspace(0, n_iterations, n_snapshots).round().astype(int),
            "task_loss_train": np.asarray(snaps["task_loss_train"], float),
            "task_loss_all": np.asarray(snaps["task_loss_all"], float),
            "hidden": np.asarray(snaps["hidden_all"]), "outputs": np.asarray(snaps["output_all"]),
            "all_task": everything.task, "all_stimulus": everything.stimulus, "all_x": np.asarray(everything.x),
            "all_y": np.asarray(everything.y), "x_train": np.asarray(data["x_train"]),
            "y_train": np.asarray(data["y_train"]), "w_hidden": np.asarray(snaps["w_hidden"]),
            "w_output": np.asarray(snaps["w_output"])}


def observed_route_order(task_loss: np.ndarray, iterations: np.ndarray, fraction: float = 0.5) -> dict[str, np.ndarray]:
    """``time`` (R,) in iterations when each task's loss (T, R) falls to ``fraction`` of its start
    (the race's criterion, interpolated; inf if never) and ``order`` (R,) first to last."""
    times = learning_times(task_loss, iterations, fraction)
    return {"time": times, "order": learning_order(times)}


def task_representations(hidden: np.ndarray, task: np.ndarray, stimulus: np.ndarray,
                         how: str = "profile") -> np.ndarray:
    """(..., R, K) one vector per task from hidden activity (..., N, H) of single-task patterns.

    ``how="profile"``: the task's patterns ordered by stimulus, concatenated (K = stimuli x H;
    every task must have the same stimuli): how the task maps the stimuli. ``how="mean"``: the
    mean over the task's patterns (K = H). ``task`` (N,) ints in 0..R-1, ``stimulus`` (N, n_in_pools).
    """
    check_choice("how", how, REPRESENTATIONS)
    hidden, task, stimulus = np.asarray(hidden, float), np.asarray(task), np.asarray(stimulus)
    n = task.shape[0]
    if hidden.ndim < 2 or hidden.shape[-2] != n or stimulus.ndim != 2 or stimulus.shape[0] != n or task.ndim != 1:
        raise ValueError(f"hidden must be (..., N, H), task (N,) and stimulus (N, n_in_pools) with one N, got "
                         f"{hidden.shape}, {task.shape} and {stimulus.shape}")
    if n == 0 or task.min() < 0:
        raise ValueError("task must hold at least one pattern and only single-task indices >= 0")
    tasks = np.unique(task)
    if how == "mean":
        return np.stack([hidden[..., task == t, :].mean(axis=-2) for t in tasks], axis=-2)
    sizes = np.bincount(task)[tasks]
    order = np.lexsort((*stimulus.T[::-1], task))  # by task, then stimulus
    blocks = stimulus[order].reshape(len(tasks), -1, stimulus.shape[1]) if np.all(sizes == sizes[0]) else None
    if blocks is None or not np.all(blocks == blocks[:1]):
        raise ValueError("how='profile' needs every task to have the same stimuli (e.g. env.all_patterns())")
    return hidden[..., order, :].reshape(*hidden.shape[:-2], len(tasks), sizes[0] * hidden.shape[-1])


def cluster_tasks(representations: np.ndarray, n_clusters: int, method: str = "agglomerative") -> np.ndarray:
    """(R,) cluster labels of task vectors (R, K): Ward agglomerative, or k-means (10 starts, seed 0)."""
    check_choice("method", method, CLUSTERINGS)
    representations = np.asarray(representations, float)
    if representations.ndim != 2 or not np.all(np.isfinite(representations)):
        raise ValueError(f"representations must be a finite (R, K) array, got shape {representations.shape}")
    check_int("n_clusters", n_clusters, minimum=1, maximum=representations.shape[0])
    from sklearn.cluster import AgglomerativeClustering, KMeans

    if method == "kmeans":
        return KMeans(n_clusters=n_clusters, n_init=10, random_state=0).fit_predict(representations)
    return AgglomerativeClustering(n_clusters=n_clusters, linkage="ward").fit_predict(representations)


def ari_over_time(representations: np.ndarray, labels: np.ndarray, n_clusters: int,
                  method: str = "agglomerative") -> np.ndarray:
    """(T,) adjusted Rand index of :func:`cluster_tasks` on each snapshot's task vectors (T, R, K)
    against ``labels`` (R,)."""
    representations, labels = np.asarray(representations, float), np.asarray(labels)
    if representations.ndim != 3 or labels.shape != (representations.shape[1],):
        raise ValueError(f"representations must be (T, R, K) and labels (R,), got {representations.shape} "
                         f"and {labels.shape}")
    from sklearn.metrics import adjusted_rand_score

    return np.array([adjusted_rand_score(labels, cluster_tasks(r, n_clusters, method)) for r in representations])


def pool_ari(env: TaskEnvironment, hidden: np.ndarray, task: np.ndarray, stimulus: np.ndarray,
             how: str = "profile", method: str = "agglomerative") -> dict[str, np.ndarray]:
    """``in_pool`` and ``out_pool`` (T,): ARI over training of tasks clustered by their hidden
    representation (hidden (T, N, H) of single-task patterns) into n_in_pools (n_out_pools)
    clusters against the input-pool (output-pool) grouping of the tasks."""
    reps = task_representations(hidden, task, stimulus, how)
    if reps.ndim != 3 or reps.shape[1] != env.n_tasks:
        raise ValueError(f"hidden must be (T, N, H) covering all {env.n_tasks} tasks, got {np.shape(hidden)}")
    routes = np.arange(env.n_tasks)
    return {"in_pool": ari_over_time(reps, env.task_in_pool(routes), env.n_in_pools, method),
            "out_pool": ari_over_time(reps, env.task_out_pool(routes), env.n_out_pools, method)}


def order_agreement(predicted_times: np.ndarray, observed_times: np.ndarray, n_permutations: int = 10000,
                    seed: int = 0) -> dict[str, float]:
    """Spearman rank correlation of predicted and observed learning times (R,) (equal times, e.g.
    never learned = inf, share ranks): ``rho``, scipy's ``p_value`` and a two-sided permutation
    ``p_permutation`` = (1 + ``#{|rho of a shuffle| >= |rho|}``) / (1 + n_permutations)."""
    check_int("n_permutations", n_permutations, minimum=1)
    rng = np.random.default_rng(check_seed("seed", seed))
    predicted, observed = np.asarray(predicted_times, float), np.asarray(observed_times, float)
    if predicted.ndim != 1 or predicted.shape != observed.shape or predicted.size < 3:
        raise ValueError(f"predicted_times and observed_times must be 1-D of one length >= 3, got "
                         f"{predicted.shape} and {observed.shape}")
    if np.any(np.isnan(predicted)) or np.any(np.isnan(observed)):
        raise ValueError("predicted_times and observed_times must not contain NaN")
    from scipy.stats import rankdata, spearmanr

    rank_p, rank_o = rankdata(predicted), rankdata(observed)
    if np.all(rank_p == rank_p[0]) or np.all(rank_o == rank_o[0]):
        raise ValueError("predicted_times and observed_times must each have at least two distinct values")
    rho, p_value = spearmanr(rank_p, rank_o)
    centred_p, centred_o = rank_p - rank_p.mean(), rank_o - rank_o.mean()
    norm = np.sqrt((centred_p ** 2).sum() * (centred_o ** 2).sum())
    shuffled = np.array([centred_p @ centred_o[rng.permutation(centred_o.size)] for _ in range(n_permutations)]) / norm
    p_perm = (1 + np.count_nonzero(np.abs(shuffled) >= abs(rho) - 1e-12)) / (1 + n_permutations)
    return {"rho": float(rho), "p_value": float(p_value), "p_permutation": float(p_perm)}
