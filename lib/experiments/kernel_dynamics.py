"""The eNTK over training of the multitask network (the chapter "The eNTK over training"):
standard/large pairs trained with the streamed ePNTK (:mod:`lib.experiments.epntk_stream`),
what each snapshot records, and the cached runs.

Pairs as in :mod:`lib.experiments.schedules`, rows of the kernels over training inputs followed
by test inputs, so one run serves both index sets of the eNTK analyses (``"principled"``: rows
over training inputs; ``"authors"``: rows over test inputs; columns always the training
inputs). Recorded per snapshot: the reconstruction error of y(t) - y(0), the split of the
learned change into contributions of training patterns by how their task relates to the
row's task (:data:`SHARING_CATEGORIES`) and how much those contributions cancel, the
alignment of P(t) with the t=0 eNTK, task x task similarity matrices implied by P(t) and
by the hidden layer; after the run, from the recorded weights: alignment and leading-vector
overlap of eNTK(t) with eNTK(0) and with the final ePNTK. The checks of the method: the time
quadrature against the every-step sum (:func:`validation_runs`), the convergence of the
paper's ePNTK in the learning rate (:func:`epntk_convergence`), and, inside every run, its
training against :mod:`lib.core.training` (:func:`check_training`).
"""

from __future__ import annotations

from functools import lru_cache, partial

import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

from .epntk_stream import PATH_KERNELS, Data, node_phases, stream_epntk
from .schedules import by_pair, get_schedule, pair_data_arrays, pair_datasets, pair_initial_params
from ..core.kernel_statistics import (PROFILE_SIDES, alignment, centered_cosine_similarity, cold_start,
                                      subspace_iteration, task_profiles)
from ..core.entk_variants import ENTK_VARIANTS
from ..core.kernels import entk
from ..core.losses import squared_error
from ..core.models import INITS, MultitaskNet, Params
from ..core.steps import check_schedule
from ..core.training import SummedLosses, train_many
from ..core.tasks import TaskEnvironment, environment_key
from ..core.validation import check_choice, check_int, check_positive_float, check_seeds

SHARING_CATEGORIES = ("same task", "same input pool", "same output pool", "neither")
# relative agreement required between the stream's training loss and lib.core.training's at every
# snapshot; measured at most 5e-7 (ET, 10 000 iterations, seeds 0-1) and 7e-5 (LR, 2 500 iterations, seeds
# 100-101, its larger steps amplify rounding), so float32 rounding passes and a wrong trajectory (a loss of 88
# where training reaches 0.05) fails
TRAINING_AGREEMENT = 1e-3


class TrainingMismatch(RuntimeError):
    """The streamed run's weights did not follow full-batch gradient descent: its result is wrong
    and is not cached (:func:`check_training`)."""


def sharing_category(env: TaskEnvironment, task_rows: np.ndarray, task_columns: np.ndarray) -> np.ndarray:
    """(N, M) int8 index into :data:`SHARING_CATEGORIES` of training pattern m (column) for the
    pattern of row n: the same task, another task reading the same input pool, another task
    writing the same output pool, or neither (two different tasks never share both pools).

    Args:
        task_rows, task_columns: (N,), (M,) task index of single-task patterns.
    """
    task_rows, task_columns = np.asarray(task_rows), np.asarray(task_columns)
    if (task_rows < 0).any() or (task_columns < 0).any():
        raise ValueError("sharing categories are defined for single-task patterns only (task index >= 0)")
    a, b = task_rows[:, None], task_columns[None, :]
    same_in = env.task_in_pool(a) == env.task_in_pool(b)
    same_out = env.task_out_pool(a) == env.task_out_pool(b)
    return np.where(a == b, 0, np.where(same_in, 1, np.where(same_out, 2, 3))).astype(np.int8)


def group_average(labels: np.ndarray, n_groups: int, n_columns: int, offset: int) -> np.ndarray:
    """(G, n_columns) matrix averaging, per group, the columns ``offset + i`` with ``labels[i] == g``
    (a zero row for an empty group)."""
    out = np.zeros((n_groups, n_columns), np.float32)
    counts = np.bincount(labels, minlength=n_groups)
    out[labels, offset + np.arange(len(labels))] = 1.0 / counts[labels]
    return out


@lru_cache(maxsize=None)
def observe_kernel_dynamics(net: MultitaskNet, n_train: int, n_categories: int, statistics: bool = True):
    """Snapshot function of the multitask runs; rows ``:n_train`` of ``x_eval`` are the training
    inputs (index set "principled"), the rest the test inputs ("authors").

    Records, per index set (leading axis 2 of each entry, :data:`ENTK_VARIANTS` order):
    ``reconstruction_error`` ``|sum_m P - (y(t) - y(0))| / |y(t) - y(0)|`` (Frobenius over rows and
    outputs); ``sharing_signed`` (C,) each category's projection on the ePNTK estimate of the
    change, ``sum_{n,k} C_c[n,k] dy[n,k] / sum dy^2`` (sums to 1); ``sharing_abs`` (C,) its share
    of ``sum |C_c|``; ``cancellation`` ``sum_{c,n,k} |C_c[n,k]| / sum_{n,k} |dy[n,k]|`` (1: the
    categories never push against each other; x: their contributions add up to x times the change
    they make) and ``cancellation_patterns`` the same over single training patterns,
    ``sum_{k,n,m} |P_k[n,m]| / sum |dy|`` (at least ``cancellation``); ``alignment_path_initial``
    (K,) alignment of -P(t) with eNTK(0) (1 while the t=0 kernel describes everything learned so
    far: P = -lr t eNTK(0)); and, if ``statistics``, the task x task similarities (G, G)
    ``kernel_similarity_rows``, ``kernel_similarity_columns`` of P(t)
    (:func:`lib.core.kernel_statistics.task_profiles`) and ``hidden_similarity`` of the task-mean
    hidden activity, and the weights ``params``. Plus ``loss_train``, ``loss_test``.

    ``data`` must hold ``y_eval`` (targets of the rows), ``y0_eval`` (outputs at iteration 0),
    ``column_tasks`` (M, G) the training patterns' tasks and ``row_sharing`` (N, G, C) the
    category of each task for each row, one-hot (the categories as task x task: one pass over
    P(t) sums it by task), ``entk_initial`` (K, N, M), ``row_average`` (2, G, N)
    (one task-averaging matrix per index set, zero on the other set's rows) and
    ``column_average`` (G, M).
    """
    sets = (slice(0, n_train), slice(n_train, None))

    def observe(params, path, entk_now, data):
        outputs = net.apply(params, data["x_eval"])
        by_task = jnp.einsum("knm,mg->kng", path, data["column_tasks"])  # (K, N, G) summed over each task's patterns
        change, estimate = outputs - data["y0_eval"], by_task.sum(axis=2).T  # (N, K)
        contributions = jnp.einsum("kng,ngc->cnk", by_task, data["row_sharing"])  # (C, N, K)
        out = {"loss_train": squared_error(outputs[sets[0]], data["y_eval"][sets[0]]),
               "loss_test": squared_error(outputs[sets[1]], data["y_eval"][sets[1]])}
        per_set = []
        for rows in sets:
            e, d, c = estimate[rows], change[rows], contributions[:, rows]
            magnitude = jnp.abs(c).sum(axis=(1, 2))
            entry = {"reconstruction_error": jnp.sqrt(jnp.sum((e - d) ** 2) / jnp.sum(d**2)),
                     "sharing_signed": jnp.sum(c * e[None], axis=(1, 2)) / jnp.sum(e**2),
                     "sharing_abs": magnitude / magnitude.sum(),
                     "cancellation": magnitude.sum() / jnp.abs(e).sum(),
                     "cancellation_patterns": jnp.abs(path[:, rows]).sum() / jnp.abs(e).sum(),
                     "alignment_path_initial": alignment(-path[:, rows], data["entk_initial"][:, rows])}
            per_set.append(entry)
        if statistics:
            out["params"] = params
            hidden = net.hidden(params, data["x_eval"])
            for rows, average, entry in zip(sets, data["row_average"], per_set):
                profiles = task_profiles(path[:, rows], average[:, rows], data["column_average"])
                for side in PROFILE_SIDES:
                    entry[f"kernel_similarity_{side}"] = centered_cosine_similarity(profiles[side])
                entry["hidden_similarity"] = centered_cosine_similarity(average @ hidden)
        return out | {k: jnp.stack([e[k] for e in per_set]) for k in per_set[0]}

    return observe


def _kernel_over_training(net: MultitaskNet, snapshot_params: Params, data: Data, entk_initial: jax.Array,
                         path_final: jax.Array, n_train: int, n_vector_iterations: int = 8) -> dict[str, jax.Array]:
    """eNTK(t) at every recorded snapshot, recomputed from its weights (one at a time), against
    eNTK(0) and the final ePNTK, per index set: alignments (with -P, the direction P = -lr sum
    eNTK accumulates) and overlaps ``|v_k(t) . v_k|`` of the leading right singular vectors per
    output (subspace iteration warm-started from the previous snapshot's block, 30 iterations
    for eNTK(0) and the ePNTK). Each entry (S, 2, K)."""
    sets = (slice(0, n_train), slice(n_train, None))

    def vectors(kernel, starts, n_iterations):
        found = [subspace_iteration(kernel[:, rows], start, n_iterations) for rows, start in zip(sets, starts)]
        return jnp.stack([v for v, _ in found]), tuple(block for _, block in found)

    k, _, m = entk_initial.shape
    cold = (cold_start(k, m, entk_initial.dtype),) * len(sets)
    v_initial, warm = vectors(entk_initial, cold, 30)
    v_final, _ = vectors(path_final, cold, 30)

    def one(blocks, params):
        kernel = entk(net, params, data["x_eval"], data["x_train"], data["y_train"])
        v_now, blocks = vectors(kernel, blocks, n_vector_iterations)
        return blocks, {"alignment_initial": jnp.stack([alignment(kernel[:, r], entk_initial[:, r]) for r in sets]),
                        "alignment_final": jnp.stack([alignment(kernel[:, r], -path_final[:, r]) for r in sets]),
                        "overlap_initial": jnp.abs(jnp.sum(v_now * v_initial, axis=2)),
                        "overlap_final": jnp.abs(jnp.sum(v_now * v_final, axis=2))}

    return jax.lax.scan(one, warm, snapshot_params)[1]


kernel_over_training = partial(jax.jit, static_argnames=("net", "n_train", "n_vector_iterations"))(_kernel_over_training)


@partial(jax.jit, static_argnames=("net", "n_train", "n_vector_iterations"))
def kernel_over_training_batched(net: MultitaskNet, snapshot_params: Params, data: Data, entk_initial: jax.Array,
                                 path_final: jax.Array, n_train: int, n_vector_iterations: int = 8):
    """:func:`kernel_over_training` vmapped over a leading network axis of every argument."""
    one = lambda p, d, e, f: _kernel_over_training(net, p, d, e, f, n_train, n_vector_iterations)
    return jax.vmap(one)(snapshot_params, data, entk_initial, path_final)


def pair_kernel_data(env: TaskEnvironment, seeds, n_train: int = 500, n_test: int = 500, split: str = "iid",
                     n_rows: int | None = None) -> dict[str, np.ndarray]:
    """Per pair (P, ...): the single-task data of :func:`lib.experiments.schedules.pair_datasets` with the
    kernel rows ``x_eval`` = training inputs then test inputs (optionally only the first
    ``n_rows // 2`` of each, for cheap checks), their targets ``y_eval``, ``n_train_rows``,
    the ``sharing`` categories (P, N, M) (:func:`sharing_category`), the same as one-hot
    ``column_tasks`` (P, M, G) and ``row_sharing`` (P, N, G, C) (category of every task for each
    row), the per-index-set task averages ``row_average`` (P, 2, G, N) and the training
    patterns' ``column_average`` (P, G, M)."""
    arrays = pair_data_arrays(pair_datasets(env, seeds, "single", n_train, n_test, split))
    take = (n_train, n_test) if n_rows is None else (min(n_rows // 2, n_train), min(n_rows - n_rows // 2, n_test))
    task_of = lambda tasks: np.asarray(tasks).argmax(axis=-1)
    out = {"x_train": arrays["x_train"], "y_train": arrays["y_train"],
           "x_eval": np.concatenate([arrays["x_train"][:, :take[0]], arrays["x_test"][:, :take[1]]], axis=1),
           "y_eval": np.concatenate([arrays["y_train"][:, :take[0]], arrays["y_test"][:, :take[1]]], axis=1)}
    sharing, rows_average, columns_average, column_tasks, row_sharing = [], [], [], [], []
    one_hot = lambda labels, n: np.eye(n, dtype=np.float32)[labels]
    for p in range(len(arrays["x_train"])):
        rows = np.concatenate([task_of(arrays["tasks_train"][p, :take[0]]), task_of(arrays["tasks_test"][p, :take[1]])])
        columns = task_of(arrays["tasks_train"][p])
        sharing.append(sharing_category(env, rows, columns))
        column_tasks.append(one_hot(columns, env.n_tasks))
        row_sharing.append(one_hot(sharing_category(env, rows, np.arange(env.n_tasks)), len(SHARING_CATEGORIES)))
        rows_average.append(np.stack([group_average(rows[:take[0]], env.n_tasks, len(rows), 0),
                                      group_average(rows[take[0]:], env.n_tasks, len(rows), take[0])]))
        columns_average.append(group_average(columns, env.n_tasks, len(columns), 0))
    out |= {"sharing": np.stack(sharing), "column_tasks": np.stack(column_tasks), "row_sharing": np.stack(row_sharing),
            "row_average": np.stack(rows_average),
            "column_average": np.stack(columns_average), "n_train_rows": np.asarray(take[0])}
    return out


@partial(jax.jit, static_argnames=("net",))
def _initial(net: MultitaskNet, params: Params, data: Data):
    """(eNTK(0) (B, K, N, M), outputs at iteration 0 (B, N, K)) of a batch of networks."""
    one = lambda p, d: (entk(net, p, d["x_eval"], d["x_train"], d["y_train"]), net.apply(p, d["x_eval"]))
    return jax.vmap(one)(params, data)


def run_kernel_dynamics(
    env: TaskEnvironment,
    schedule: str,
    seeds,
    n_iterations: int | None = None,
    n_snapshots: int = 51,
    node_every=1,
    path_kernel: str = "euler",
    n_points: int = 8,
    n_hidden: int = 200,
    n_train: int = 500,
    n_test: int = 500,
    split: str = "iid",
    n_rows: int | None = None,
    statistics: bool = True,
    keep_final_path: bool = False,
    learning_rate_scale: float = 1.0,
    max_batch: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Single-task training of standard/large pairs (as :func:`lib.experiments.schedules.run_pairs`) with
    the streamed ePNTK, the networks vmapped in batches (memory O(batch x K x N x M)).

    Args:
        env, schedule, seeds, n_iterations, n_hidden, n_train, n_test, split: as ``run_pairs``.
        n_snapshots: recorded snapshots (iterations 0, ..., n_iterations).
        node_every, path_kernel, n_points: the ePNTK's time quadrature and kernel, as in
            :func:`lib.experiments.epntk_stream.stream_epntk`.
        n_rows: kernel rows (half training, half test inputs); None: all training then all test inputs.
        statistics: also record the task similarity matrices, the final task profiles and the
            eNTK-over-training statistics (needs every task among the rows of each index set);
            False: only the losses, reconstruction, sharing and path alignment (checks).
        keep_final_path: also return the final ePNTK ``path_final`` (P, 2, K, N, M) (checks only).
        learning_rate_scale: multiplies the schedule's learning rates (convergence studies).
        max_batch: networks vmapped together (None: all 2 x pairs; fewer: less memory).

    Returns:
        numpy arrays with leading axes (pairs, 2 inits): per snapshot (S after the two axes)
        the entries of :func:`observe_kernel_dynamics` (except the weights) and of
        :func:`kernel_over_training`; ``profiles/<kernel>/<side>/<index set>`` the
        :func:`lib.core.kernel_statistics.task_profiles` of the final ePNTK (``path_final``) and of eNTK(0)
        (``entk_initial``); ``hidden_final``, ``hidden_initial`` (2 index sets, G, H) task-mean
        hidden activity; ``sharing_pattern_fraction`` (2, C) share of (row, training pattern)
        pairs per category; and ``iterations`` (S,), ``node_phases``.
    """
    seeds = check_seeds("seeds", seeds)
    sched = get_schedule(schedule)
    n_iterations = sched.n_iterations if n_iterations is None else check_int("n_iterations", n_iterations, 1)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    check_int("n_snapshots", n_snapshots, minimum=2)
    check_schedule(n_iterations, n_snapshots)
    check_positive_float("learning_rate_scale", learning_rate_scale)
    if n_rows is not None:
        check_int("n_rows", n_rows, minimum=2)
    n_networks = 2 * len(seeds)
    max_batch = n_networks if max_batch is None else check_int("max_batch", max_batch, minimum=1)
    params = pair_initial_params(net, seeds)
    pair_data = pair_kernel_data(env, seeds, n_train, n_test, split, n_rows)
    n_train_rows = int(pair_data.pop("n_train_rows"))
    if statistics:
        empty = [(p, i) for p in range(len(seeds)) for i in range(2)
                 if (pair_data["row_average"][p, i].sum(axis=1) == 0).any()]
        if empty:
            raise ValueError(f"n_rows: the task statistics need every task among the kernel rows of each index set; "
                             f"(pair, index set) {empty} lack one: use more rows")
    observe = observe_kernel_dynamics(net, n_train_rows, len(SHARING_CATEGORIES), statistics)
    rates = np.array([sched.learning_rate(init) * learning_rate_scale for _ in seeds for init in INITS], np.float32)
    sets = dict(zip(ENTK_VARIANTS, (slice(0, n_train_rows), slice(n_train_rows, None))))
    records = []
    for start in range(0, n_networks, max_batch):
        batch = np.arange(start, min(start + max_batch, n_networks))  # networks: pair = index // 2, init = index % 2
        data = {k: jnp.asarray(v[batch // 2], jnp.float32 if v.dtype.kind == "f" else v.dtype)
                for k, v in pair_data.items()}
        weights = jax.tree.map(lambda a: a[batch], params)
        entk_initial, y0 = _initial(net, weights, data)
        data |= {"entk_initial": entk_initial, "y0_eval": y0}
        keep = (n_snapshots - 1,) if statistics or keep_final_path else ()
        final, snaps, paths = stream_epntk(
            net, weights, data, rates[batch], n_iterations, n_snapshots, node_every, path_kernel, n_points, observe,
            keep_paths=keep, batched=True,
            progress=f"ePNTK {schedule}, networks {batch[0] + 1}-{batch[-1] + 1} of {n_networks}" if progress else None)
        snapshot_params = snaps.pop("params", None)
        record = {k: np.asarray(v) for k, v in snaps.items()}
        check_training(net, weights, data, rates[batch], n_iterations, n_snapshots, record["loss_train"],
                       n_train_rows, batch)
        categories = np.asarray(pair_data["sharing"][batch // 2])  # (B, N, M)
        record["sharing_pattern_fraction"] = np.stack([
            np.stack([np.bincount(c[rows].ravel(), minlength=len(SHARING_CATEGORIES)) / c[rows].size
                      for rows in sets.values()]) for c in categories])
        if statistics:
            path_final = jnp.asarray(paths[:, 0])
            record |= {k: np.asarray(v) for k, v in kernel_over_training_batched(
                net, snapshot_params, data, entk_initial, path_final, n_train_rows).items()}
            for name, kernel in (("path_final", path_final), ("entk_initial", entk_initial)):
                for s, (set_name, rows) in enumerate(sets.items()):
                    profiles = jax.vmap(task_profiles)(kernel[:, :, rows], data["row_average"][:, s][:, :, rows],
                                                       data["column_average"])
                    for side in PROFILE_SIDES:
                        record[f"profiles/{name}/{side}/{set_name}"] = np.asarray(profiles[side], np.float32)
            for name, w in (("final", final), ("initial", weights)):
                hidden = jax.vmap(net.hidden)(w, data["x_eval"])  # (B, N, H)
                record[f"hidden_{name}"] = np.asarray(jnp.einsum("bsgn,bnh->bsgh", data["row_average"], hidden))
        if keep_final_path:
            record["path_final"] = paths[:, 0]
        records.append(record)
    out = {k: by_pair(np.concatenate([r[k] for r in records]), len(seeds)) for k in records[0]}
    out["iterations"] = np.linspace(0, n_iterations, n_snapshots).round().astype(int)
    out["node_phases"] = np.asarray(node_phases(node_every, n_iterations, n_iterations // (n_snapshots - 1)))
    return out


def check_training(net: MultitaskNet, weights: Params, data: Data, learning_rates: np.ndarray, n_iterations: int,
                   n_snapshots: int, stream_loss: np.ndarray, n_train_rows: int, networks: np.ndarray) -> None:
    """Raise :class:`TrainingMismatch` unless the stream's loss on the training rows (B, S), at
    every snapshot, equals that of the same networks trained by :func:`lib.core.training.train_many`
    (the numba engine: code independent of the stream's XLA programs) to :data:`TRAINING_AGREEMENT`
    relative. A wrong gradient step anywhere in the stream changes every later snapshot's loss;
    the reconstruction error alone cannot see it (the ePNTK follows the wrong trajectory too).

    Args:
        weights: the batch's initial weights (leading axis B); data: the batch's arrays with
            ``x_train`` (B, M, D), ``y_train``, ``x_eval``, ``y_eval`` (B, N, ...);
        learning_rates: (B,); networks: (B,) each network's index in the run (2 x pair + init).
    """
    rows = slice(0, n_train_rows)
    sets = {"x_train": data["x_train"], "y_train": data["y_train"],
            "x_rows": data["x_eval"][:, rows], "y_rows": data["y_eval"][:, rows]}
    _, reference = train_many(net, weights, sets, learning_rates, n_iterations, n_snapshots,
                              observe=SummedLosses(net, ("rows",)))
    expected = np.asarray(reference["loss_rows"], np.float64)  # (B, S)
    departure = np.abs(np.asarray(stream_loss, np.float64) - expected) / np.maximum(np.abs(expected), 1e-30)
    if not np.all(departure <= TRAINING_AGREEMENT):  # NaN fails too
        b, s = np.unravel_index(np.nanargmax(np.where(np.isnan(departure), np.inf, departure)), departure.shape)
        iteration = round(s * n_iterations / (n_snapshots - 1))
        raise TrainingMismatch(
            f"the streamed ePNTK run's training loss departs from lib.core.training's (numba engine) by "
            f"{departure[b, s]:.3g} relative (at most {TRAINING_AGREEMENT:g} allowed): network {networks[b]} "
            f"(pair {networks[b] // 2}, init {INITS[networks[b] % 2]}) at iteration {iteration}, stream "
            f"{stream_loss[b, s]:.6g}, training {expected[b, s]:.6g}. The stream's weights did not follow "
            f"gradient descent, so its kernels are wrong; nothing was cached. Run it again; if this persists, "
            f"report this message")


# --- checks: quadrature against the every-step sum, convergence in the learning rate ---------
def validation_runs(env: TaskEnvironment, schedule: str, seed: int, node_every, n_iterations: int | None = None,
                    n_snapshots: int = 51, n_points: int = 8, n_rows: int = 100, progress: bool = True,
                    **run_options) -> dict[str, np.ndarray]:
    """One standard/large pair trained three times with the ePNTK on ``n_rows`` kernel rows (half
    training, half test inputs; the rows do not change the trajectory): the paper's every-step
    eNTK sum (``"euler"``), the every-step step-integrated sum (``"step"``) and the latter with
    the time quadrature ``node_every`` (``"step_quadrature"``).

    Returns (S snapshots): ``reconstruction_error/<run>`` (2 inits, S, 2 index sets);
    ``path_difference/<run>`` (2,) ``|P_run - P_step| / |P_step|`` at the end (Frobenius over
    outputs, rows and columns) for ``euler`` and ``step_quadrature``; for the quadrature,
    ``sharing_abs_difference``, ``sharing_signed_difference`` and ``alignment_difference``
    (2,): the largest absolute difference over snapshots, index sets and categories/outputs
    of ``sharing_abs``, ``sharing_signed`` and ``alignment_path_initial``; and ``iterations``. ``run_options`` go to :func:`run_kernel_dynamics`.
    """
    common = dict(n_iterations=n_iterations, n_snapshots=n_snapshots, n_points=n_points, n_rows=n_rows,
                  statistics=False, keep_final_path=True, progress=False, **run_options)
    variants = {"euler": ("euler", 1), "step": ("step", 1), "step_quadrature": ("step", node_every)}
    runs = {name: run_kernel_dynamics(env, schedule, [seed], node_every=s, path_kernel=kernel, **common)
            for name, (kernel, s) in tqdm(variants.items(), desc=f"validation runs {schedule}", disable=not progress)}
    first = lambda name, key: runs[name][key][0]  # the only pair
    norm = lambda a: np.sqrt((a.astype(np.float64) ** 2).sum(axis=(1, 2, 3)))
    largest = lambda key: np.nanmax(np.abs(first("step_quadrature", key) - first("step", key)).reshape(2, -1), axis=1)
    out = {f"reconstruction_error/{name}": first(name, "reconstruction_error") for name in variants}
    for name in ("euler", "step_quadrature"):
        out[f"path_difference/{name}"] = norm(first(name, "path_final") - first("step", "path_final")) / norm(
            first("step", "path_final"))
    out["sharing_abs_difference"] = largest("sharing_abs")
    out["sharing_signed_difference"] = largest("sharing_signed")
    out["alignment_difference"] = largest("alignment_path_initial")
    out["iterations"] = runs["step"]["iterations"]
    return out


def epntk_convergence(env: TaskEnvironment, schedule: str, seed: int, n_halvings: int, n_iterations: int,
                      path_kernel: str = "euler", n_points: int = 8, n_rows: int = 100, progress: bool = True,
                      **run_options) -> dict[str, np.ndarray]:
    """Reconstruction error of y(t) - y(0) by the every-step ePNTK for one standard/large pair,
    with the schedule's learning rate halved ``n_halvings - 1`` times while the iterations
    double (lr x t fixed at the schedule's lr x ``n_iterations``).

    Returns: ``learning_rate`` (2 inits, H), ``reconstruction_error`` (2, H, 2 index sets)
    at lr x t, on ``n_rows`` kernel rows (half training, half test inputs). ``run_options`` go
    to :func:`run_kernel_dynamics`."""
    check_int("n_halvings", n_halvings, minimum=2)
    check_int("n_iterations", n_iterations, minimum=1)
    sched = get_schedule(schedule)
    errors = []
    for h in tqdm(range(n_halvings), desc=f"ePNTK convergence {schedule}", disable=not progress):
        run = run_kernel_dynamics(env, schedule, [seed], n_iterations=n_iterations * 2**h, n_snapshots=2,
                                  path_kernel=path_kernel, n_points=n_points, n_rows=n_rows, statistics=False,
                                  learning_rate_scale=0.5**h, progress=False, **run_options)
        errors.append(run["reconstruction_error"][0, :, -1])  # (2 inits, 2 index sets) at the end
    rates = np.array([[sched.learning_rate(init) * 0.5**h for h in range(n_halvings)] for init in INITS])
    return {"learning_rate": rates, "reconstruction_error": np.stack(errors, axis=1)}


# --- cached runs (results cache) ---------------------------------------------------------------
def kernel_dynamics_parameters(env: TaskEnvironment, schedule: str, seeds, n_iterations: int, n_snapshots: int,
                               node_every, path_kernel: str = "step", n_points: int = 8, n_rows: int | None = None,
                               n_hidden: int = 200, split: str = "iid") -> dict:
    """The cache key of :func:`cached_kernel_dynamics` (validated)."""
    seeds = check_seeds("seeds", seeds)
    check_choice("schedule", schedule, ("ET", "LR"))
    phases = node_phases(node_every, n_iterations, check_schedule(n_iterations, n_snapshots))
    check_choice("path_kernel", path_kernel, PATH_KERNELS)
    return dict(env=environment_key(env), schedule=schedule, seeds=list(seeds), n_iterations=n_iterations,
                n_snapshots=n_snapshots, node_every=[list(p) for p in phases], path_kernel=path_kernel,
                n_points=check_int("n_points", n_points, minimum=1), n_rows=n_rows, n_hidden=n_hidden, split=split,
                version=2)  # 2: the cancellation factors recorded


def cached_kernel_dynamics(env: TaskEnvironment, schedule: str, seeds, n_iterations: int, n_snapshots: int, node_every,
                           path_kernel: str = "step", n_points: int = 8, n_rows: int | None = None,
                           n_hidden: int = 200, split: str = "iid") -> dict[str, np.ndarray]:
    """:func:`run_kernel_dynamics` through the on-disk results cache (wall time in its metadata)."""
    from ..core import results

    p = kernel_dynamics_parameters(env, schedule, seeds, n_iterations, n_snapshots, node_every, path_kernel, n_points,
                                   n_rows, n_hidden, split)
    return results.cached("kernel_dynamics", p, lambda: run_kernel_dynamics(
        env, schedule, p["seeds"], n_iterations=n_iterations, n_snapshots=n_snapshots, node_every=p["node_every"],
        path_kernel=path_kernel, n_points=n_points, n_hidden=n_hidden, split=split, n_rows=n_rows),
        computed_by=__name__)


def kernel_dynamics_wall_time_s(*arguments, **options) -> float:
    """Seconds the cached :func:`cached_kernel_dynamics` with these arguments took to compute (its
    entry's metadata; :class:`lib.core.cache_entry.CacheError` if it is not cached)."""
    from ..core import results

    return results.metadata_of("kernel_dynamics", kernel_dynamics_parameters(*arguments, **options),
                               computed_by=__name__)["wall_time_s"]


def cached_validation_runs(env: TaskEnvironment, schedule: str, seed: int, node_every, n_iterations: int,
                           n_snapshots: int, n_points: int = 8, n_rows: int = 100) -> dict[str, np.ndarray]:
    """:func:`validation_runs` through the results cache."""
    from ..core import results

    phases = node_phases(node_every, n_iterations, check_schedule(n_iterations, n_snapshots))
    parameters = dict(env=environment_key(env), schedule=schedule, seed=seed, node_every=[list(p) for p in phases],
                      n_iterations=n_iterations, n_snapshots=n_snapshots, n_points=n_points, n_rows=n_rows, version=2)
    return results.cached("epntk_validation", parameters, lambda: validation_runs(
        env, schedule, seed, phases, n_iterations=n_iterations, n_snapshots=n_snapshots, n_points=n_points,
        n_rows=n_rows), computed_by=__name__)


def cached_convergence(env: TaskEnvironment, schedule: str, seed: int, n_halvings: int, n_iterations: int,
                       n_rows: int = 100) -> dict[str, np.ndarray]:
    """:func:`epntk_convergence` of the paper's (Euler) ePNTK through the results cache."""
    from ..core import results

    parameters = dict(env=environment_key(env), schedule=schedule, seed=seed, n_halvings=n_halvings,
                      n_iterations=n_iterations, n_rows=n_rows, version=1)
    return results.cached("epntk_convergence_multitask", parameters, lambda: epntk_convergence(
        env, schedule, seed, n_halvings, n_iterations, n_rows=n_rows), computed_by=__name__)
