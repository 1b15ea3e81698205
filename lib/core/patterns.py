"""Distinct training patterns: data preparation for the engines that train on them.

The summed squared error over N patterns equals the count-weighted sum over the distinct
ones, and so does its gradient, so an engine may train on the distinct (input, target) rows
weighted by how often each occurs (:func:`unique_patterns`). The CPU kernel further factors
each input into its distinct stimulus and its distinct task set (:func:`factored_inputs`).
Everything here is NumPy, run once before training.
"""

from __future__ import annotations

import numpy as np


def distinct_rows(a) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``a`` (N, ...): ``distinct`` (U, ...) in lexicographic order, the
    (N,) int32 ``index`` with ``a == distinct[index]``, and the (U,) int64 ``counts`` of each.
    The same arrays as ``np.unique(flat, axis=0, return_inverse=True, return_counts=True)``
    (tested), by a lexsort of the columns."""
    a = np.asarray(a)
    flat = a.reshape(len(a), int(np.prod(a.shape[1:])))
    order = np.lexsort(flat.T[::-1]) if flat.size else np.arange(len(a))  # first column first
    rows = flat[order]
    starts = np.ones(len(a), bool)
    starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    group = np.cumsum(starts) - 1
    index = np.empty(len(a), np.int32)
    index[order] = group
    distinct = rows[starts]
    return distinct.reshape((len(distinct),) + a.shape[1:]), index, np.bincount(group, minlength=len(distinct))


def stack_padded(arrays: list[np.ndarray]) -> np.ndarray:
    """Stack arrays (U_b, ...) of different lengths U_b into (B, max U_b, ...), zeros after each."""
    out = np.zeros((len(arrays), max(len(a) for a in arrays)) + arrays[0].shape[1:], arrays[0].dtype)
    for b, a in enumerate(arrays):
        out[b, : len(a)] = a
    return out


def unique_patterns(x, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (input, target) rows of a training set and how often each occurs
    (:func:`distinct_rows` of ``[x, y]``).

    The summed squared error over the N patterns equals the count-weighted sum over the
    distinct ones, and so does its gradient: training on them is the same gradient descent.

    Args:
        x: (N, D) inputs, or (B, N, D) for B networks.
        y: (N, K) targets, or (B, N, K).

    Returns:
        ``x_unique`` (..., U, D), ``y_unique`` (..., U, K) and ``counts`` (..., U), float32,
        rows in lexicographic order; U is the largest number of distinct rows over the
        networks, and shorter sets are padded with zero rows of count 0 (they add nothing).
    """
    x, y = np.asarray(x), np.asarray(y)
    if x.ndim not in (2, 3) or y.shape[:-1] != x.shape[:-1]:
        raise ValueError(f"x must be (N, D) or (B, N, D) and y (N, K) or (B, N, K) with the same N (and B), "
                         f"got shapes {x.shape} and {y.shape}")
    if x.ndim == 2:
        return tuple(a[0] for a in unique_patterns(x[None], y[None]))
    sets = [distinct_rows(np.concatenate([xb, yb], axis=1).astype(np.float32)) for xb, yb in zip(x, y)]
    rows = stack_padded([distinct for distinct, _, _ in sets])
    counts = stack_padded([count.astype(np.float32) for _, _, count in sets])
    return rows[..., : x.shape[-1]], rows[..., x.shape[-1] :], counts


def distinct_training_set(n_inputs: int, x_train, y_train) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`unique_patterns` of a training set, checked against the network's ``n_inputs`` input units."""
    x, y, counts = unique_patterns(x_train, y_train)
    if x.shape[-1] != n_inputs:
        raise ValueError(f"data['x_train'] must have {n_inputs} input units for this network, got {x.shape[-1]}")
    return x, y, counts


def sparse_inputs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nonzero entries of each input row: (..., U, D) -> int32 indices and float32 values
    (..., U, A), A the largest count over rows, shorter rows padded with (index 0, value 0)."""
    x = np.asarray(x, np.float32)
    nonzero = x != 0
    width = max(int(nonzero.sum(axis=-1).max(initial=0)), 1)
    order = np.argsort(~nonzero, axis=-1, kind="stable")[..., :width]  # nonzero columns first, in order
    values = np.take_along_axis(x, order, axis=-1)
    keep = np.take_along_axis(nonzero, order, axis=-1)
    return np.where(keep, order, 0).astype(np.int32), np.where(keep, values, 0).astype(np.float32)


def factored_inputs(x: np.ndarray, n_stimulus: int) -> tuple[np.ndarray, ...]:
    """The inputs (B, U, D) of B networks' patterns as distinct stimuli and distinct task sets.

    The first ``n_stimulus`` input units are the stimulus, the others the task. Returns
    ``(stimulus_active, stimulus_values, stimulus_of, task_active, task_values, task_of)``: for each
    block, :func:`sparse_inputs` of its distinct rows (B, R, A), indices into all D input units,
    each network's rows padded with zero rows to the batch's largest R, and ``*_of`` (B, U) int32,
    the distinct row of each pattern (:func:`distinct_rows`)."""
    x = np.asarray(x, np.float32)
    out = []
    for block in (slice(0, n_stimulus), slice(n_stimulus, x.shape[-1])):
        only_block = np.zeros_like(x)
        only_block[..., block] = x[..., block]
        per_network = [distinct_rows(network) for network in only_block]
        out += [*sparse_inputs(stack_padded([distinct for distinct, _, _ in per_network])),
                np.stack([index for _, index, _ in per_network])]
    return tuple(out)
