"""The multitask environment of Pyle et al. (paper Sec 4.1.2, App A.1-A.2).

Stimulus input: ``n_in_pools`` pools of ``n_features`` one-hot units (exactly one feature
active per pool). Task input: ``n_in_pools * n_out_pools`` one-hot units; task ``k`` maps
input pool ``k // n_out_pools`` to output pool ``k % n_out_pools`` (input-major order, as
in the authors' code) by copying the position of the active feature. Output:
``n_out_pools`` pools of ``n_features`` units; the target is 1 at the copied position in
each active task's output pool and 0 elsewhere.

A *legal task set* is a set of tasks that share no input pool and no output pool
(1, 2 or 3 simultaneous tasks for the 4x3 environment: 12 + 36 + 24 = 72 sets).
The target of a task set is the sum of its single-task targets.

Patterns are described by integer arrays (stimulus feature per pool, task-set indicator),
so that every analysis can group them without parsing the input vectors.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .validation import check_choice, check_int, check_seed

SPLITS = ("iid", "disjoint")
# the environments of the book by name: (n_in_pools, n_out_pools, n_features); "3x4" is App A.7.1's swap
ARCHITECTURES = {"4x3": (4, 3, 3), "3x4": (3, 4, 3)}


@dataclass(frozen=True)
class Dataset:
    """A set of patterns with their metadata. ``N`` patterns.

    Attributes:
        x: (N, n_stimulus_units + n_tasks) float inputs ``[x_stimulus; x_task]``.
        y: (N, n_outputs) float targets.
        stimulus: (N, n_in_pools) int, index of the active feature in each input pool.
        tasks: (N, n_tasks) int8, 1 for every active task.
    """

    x: np.ndarray
    y: np.ndarray
    stimulus: np.ndarray
    tasks: np.ndarray

    def __len__(self) -> int:
        return int(self.x.shape[0])

    @property
    def n_active_tasks(self) -> np.ndarray:
        """(N,) int, number of simultaneous tasks in each pattern."""
        return self.tasks.sum(axis=1).astype(int)

    @property
    def task(self) -> np.ndarray:
        """(N,) int, the task index of single-task patterns, -1 for multitask patterns."""
        single = self.n_active_tasks == 1
        return np.where(single, self.tasks.argmax(axis=1), -1)


@dataclass(frozen=True)
class TaskEnvironment:
    """Routing environment with ``n_in_pools`` stimulus pools and ``n_out_pools`` response pools.

    The paper's main network uses ``TaskEnvironment(4, 3, 3)``; App A.7.1 swaps it to
    ``TaskEnvironment(3, 4, 3)``.
    """

    n_in_pools: int = 4
    n_out_pools: int = 3
    n_features: int = 3

    def __post_init__(self) -> None:
        check_int("n_in_pools", self.n_in_pools, minimum=1)
        check_int("n_out_pools", self.n_out_pools, minimum=1)
        check_int("n_features", self.n_features, minimum=1)

    # --- sizes -----------------------------------------------------------------
    @property
    def n_tasks(self) -> int:
        return self.n_in_pools * self.n_out_pools

    @property
    def n_stimulus_units(self) -> int:
        return self.n_in_pools * self.n_features

    @property
    def n_inputs(self) -> int:
        """Stimulus units followed by task units."""
        return self.n_stimulus_units + self.n_tasks

    @property
    def n_outputs(self) -> int:
        return self.n_out_pools * self.n_features

    @property
    def max_concurrent_tasks(self) -> int:
        return min(self.n_in_pools, self.n_out_pools)

    # --- task structure --------------------------------------------------------
    def task_in_pool(self, task: np.ndarray | int) -> np.ndarray | int:
        """Input pool read by ``task``."""
        return task // self.n_out_pools

    def task_out_pool(self, task: np.ndarray | int) -> np.ndarray | int:
        """Output pool written by ``task``."""
        return task % self.n_out_pools

    @cached_property
    def all_stimuli(self) -> np.ndarray:
        """(n_features ** n_in_pools, n_in_pools) int, every stimulus, lexicographic."""
        grid = itertools.product(range(self.n_features), repeat=self.n_in_pools)
        return np.array(list(grid), dtype=np.int64).reshape(-1, self.n_in_pools)

    @cached_property
    def legal_task_sets(self) -> tuple[tuple[int, ...], ...]:
        """Every task set with no shared input or output pool, by size then lexicographic."""
        sets: list[tuple[int, ...]] = []
        for size in range(1, self.max_concurrent_tasks + 1):
            for combo in itertools.combinations(range(self.n_tasks), size):
                in_pools = {self.task_in_pool(k) for k in combo}
                out_pools = {self.task_out_pool(k) for k in combo}
                if len(in_pools) == size and len(out_pools) == size:
                    sets.append(combo)
        return tuple(sets)

    @cached_property
    def task_set_indicators(self) -> np.ndarray:
        """(n_legal_sets, n_tasks) int8 indicator rows of :attr:`legal_task_sets`."""
        rows = np.zeros((len(self.legal_task_sets), self.n_tasks), dtype=np.int8)
        for i, combo in enumerate(self.legal_task_sets):
            rows[i, list(combo)] = 1
        return rows

    # --- encoding ----------------------------------------------------------------
    def encode(self, stimulus: np.ndarray, tasks: np.ndarray) -> Dataset:
        """Build inputs and targets for patterns given as stimulus features and task indicators.

        Args:
            stimulus: (N, n_in_pools) int feature index per input pool.
            tasks: (N, n_tasks) 0/1 indicator of the active tasks (a legal set per row).
        """
        stimulus = np.asarray(stimulus, dtype=np.int64)
        tasks = np.asarray(tasks, dtype=np.int8)
        n = stimulus.shape[0]
        if stimulus.shape != (n, self.n_in_pools) or tasks.shape != (n, self.n_tasks):
            raise ValueError(
                f"stimulus must be (N, {self.n_in_pools}) and tasks (N, {self.n_tasks}), "
                f"got {stimulus.shape} and {tasks.shape}"
            )
        if stimulus.min(initial=0) < 0 or stimulus.max(initial=0) >= self.n_features:
            raise ValueError(f"stimulus entries must be in 0..{self.n_features - 1}")
        x_stimulus = np.zeros((n, self.n_in_pools, self.n_features))
        np.put_along_axis(x_stimulus, stimulus[:, :, None], 1.0, axis=2)
        # task k reads pool k // n_out and writes pool k % n_out
        route = tasks.reshape(n, self.n_in_pools, self.n_out_pools).astype(float)
        y = np.einsum("nio,nif->nof", route, x_stimulus)
        x = np.concatenate([x_stimulus.reshape(n, -1), tasks.astype(float)], axis=1)
        return Dataset(x=x, y=y.reshape(n, -1), stimulus=stimulus, tasks=tasks)

    def all_patterns(self, multitask: bool = False) -> Dataset:
        """Every (stimulus, task set) pattern: single tasks only, or every legal task set."""
        sets = self.task_set_indicators if multitask else np.eye(self.n_tasks, dtype=np.int8)
        n_stim, n_sets = len(self.all_stimuli), len(sets)
        stimulus = np.repeat(self.all_stimuli, n_sets, axis=0)
        tasks = np.tile(sets, (n_stim, 1))
        return self.encode(stimulus, tasks)

    # --- sampling ----------------------------------------------------------------
    def sample_task_sets(self, n: int, rng: np.random.Generator, multitask: bool) -> np.ndarray:
        """(n, n_tasks) indicators. Single: a uniform task. Multi: a uniform set size in
        1..max_concurrent_tasks, then a uniform legal set of that size (authors' scheme)."""
        if not multitask:
            return np.eye(self.n_tasks, dtype=np.int8)[rng.integers(self.n_tasks, size=n)]
        sizes = self.task_set_indicators.sum(axis=1)
        chosen_size = rng.integers(1, self.max_concurrent_tasks + 1, size=n)
        out = np.empty((n, self.n_tasks), dtype=np.int8)
        for size in np.unique(chosen_size):
            rows = np.flatnonzero(chosen_size == size)
            candidates = np.flatnonzero(sizes == size)
            out[rows] = self.task_set_indicators[rng.choice(candidates, size=len(rows))]
        return out

    def sample_iid(self, n: int, rng: np.random.Generator, multitask: bool = False) -> Dataset:
        """``n`` patterns drawn independently (stimulus uniform, task set as above)."""
        check_int("n", n, minimum=1)
        stimulus = rng.integers(self.n_features, size=(n, self.n_in_pools))
        return self.encode(stimulus, self.sample_task_sets(n, rng, multitask))

    def sample_disjoint(
        self, n_train: int, n_test: int, rng: np.random.Generator, multitask: bool = False
    ) -> tuple[Dataset, Dataset]:
        """Disjoint train/test samples without replacement from :meth:`all_patterns`.

        For multitask sets every set *size* keeps probability 1/max_concurrent_tasks, as in
        the i.i.d. scheme (the sample is stratified by set size).
        """
        pool = self.all_patterns(multitask)
        total = len(pool)
        check_int("n_train", n_train, minimum=1)
        check_int("n_test", n_test, minimum=0)
        if n_train + n_test > total:
            raise ValueError(
                f"n_train + n_test must be <= {total} patterns for a disjoint split, "
                f"got {n_train} + {n_test}"
            )
        # stratified by set size so each size keeps probability 1/max_concurrent_tasks
        if not multitask:
            order = rng.permutation(total)[: n_train + n_test]
        else:
            sizes = pool.n_active_tasks
            chosen_size = rng.integers(1, self.max_concurrent_tasks + 1, size=n_train + n_test)
            order = np.empty(n_train + n_test, dtype=np.int64)
            for size in range(1, self.max_concurrent_tasks + 1):
                slots = np.flatnonzero(chosen_size == size)
                candidates = np.flatnonzero(sizes == size)
                if len(slots) > len(candidates):
                    raise ValueError(
                        f"n_train + n_test = {n_train + n_test} is too large for a disjoint multitask split: "
                        f"{len(slots)} patterns with {size} tasks requested, {len(candidates)} exist"
                    )
                order[slots] = rng.choice(candidates, size=len(slots), replace=False)
        take = lambda idx: Dataset(pool.x[idx], pool.y[idx], pool.stimulus[idx], pool.tasks[idx])
        return take(order[:n_train]), take(order[n_train:])

    def make_data(
        self,
        seed: int,
        n_train: int = 500,
        n_test: int = 500,
        split: str = "iid",
        multitask: bool = False,
        stream: int = 0,
    ) -> tuple[Dataset, Dataset]:
        """Train and test sets from one explicit seed (``stream`` separates independent draws
        from the same seed, e.g. 0 for single-task training and 1 for fine-tuning data).

        ``split="iid"`` (authors' code): both sets drawn independently, so they may overlap.
        ``split="disjoint"``: no pattern appears in both.
        """
        check_choice("split", split, SPLITS)
        check_seed("seed", seed)
        check_int("stream", stream, minimum=0)
        rng = np.random.default_rng((seed, stream))
        if split == "iid":
            return self.sample_iid(n_train, rng, multitask), self.sample_iid(n_test, rng, multitask)
        return self.sample_disjoint(n_train, n_test, rng, multitask)

    # --- metadata used for grouping ------------------------------------------------
    def relevant_feature(self, data: Dataset) -> np.ndarray:
        """(N,) feature position read by the single task of each pattern (-1 if multitask)."""
        task = data.task
        pool = np.where(task >= 0, self.task_in_pool(np.maximum(task, 0)), 0)
        feature = np.take_along_axis(data.stimulus, pool[:, None], axis=1)[:, 0]
        return np.where(task >= 0, feature, -1)

    def relevant_input_unit(self, data: Dataset) -> np.ndarray:
        """(N,) stimulus unit (pool * n_features + feature) routed by the single task, -1 if multitask."""
        task = data.task
        unit = self.task_in_pool(np.maximum(task, 0)) * self.n_features + self.relevant_feature(data)
        return np.where(task >= 0, unit, -1)

    def target_output_unit(self, data: Dataset) -> np.ndarray:
        """(N,) output unit that should be on for single-task patterns, -1 if multitask."""
        task = data.task
        unit = self.task_out_pool(np.maximum(task, 0)) * self.n_features + self.relevant_feature(data)
        return np.where(task >= 0, unit, -1)


def environment_key(env: TaskEnvironment) -> list[int]:
    """``[n_in_pools, n_out_pools, n_features]``: the environment as it enters the results cache's keys."""
    return [env.n_in_pools, env.n_out_pools, env.n_features]
