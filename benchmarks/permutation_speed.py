"""The book's two permutation nulls, batched against the one-at-a-time computation they replaced.

* Chapter 04's shuffled-label null of eta^2 (:func:`lib.analyses.controls.eta_squared_permutation`):
  the group sums of 1001 label sets by ``numpy.bincount`` against a one-hot ``einsum``, for one
  network's loadings (500 training patterns, 9 outputs, 12 groups), as chapter 04 computes them for each
  network, init and grouping under each of the 20 stability seeds.
* Chapter 12's negative control of the add test (:func:`lib.analyses.horizon_checks.shuffled_discoveries`):
  200 within-scale permutations of 4 outcomes at the continuum's full-scale shape (5 kernel quantities,
  4 rivals, 9 fractions, 145 networks in 5 scales), each outcome's runs in one batch against one partial
  correlation test per run and outcome.

Interleaved repeats, one BLAS thread (as the runner gives a chapter sharing the cores); prints the median
seconds of each, their ratio and the largest difference of their results.

    python benchmarks/permutation_speed.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from machine import describe_machine, print_medians  # benchmarks/machine.py


def eta_squared_one_hot(values: np.ndarray, label_sets: np.ndarray) -> np.ndarray:
    """(B,) eta^2 of ``values`` (N, K) averaged over its columns, per label set (B, N): the one-hot einsum."""
    n_groups = int(label_sets.max()) + 1
    centred = values - values.mean(axis=0)
    total = (centred ** 2).sum(axis=0)
    onehot = (label_sets[:, :, None] == np.arange(n_groups)[None, None, :]).astype(np.float64)
    counts, sums = onehot.sum(axis=1), np.einsum("bng,nk->bgk", onehot, centred)
    with np.errstate(invalid="ignore", divide="ignore"):
        between = np.where(counts[:, :, None] > 0, sums ** 2 / np.maximum(counts, 1)[:, :, None], 0.0).sum(axis=1)
        return np.nanmean(np.where(total > 0, between / total, np.nan), axis=1)


def discoveries_one_at_a_time(kernels, rivals, outcomes, groups, fractions, n_permutations, seed):
    """The add test's control with one :func:`lib.analyses.horizon.added_information` per run and outcome."""
    from lib.analyses.horizon import added_information
    from lib.analyses.horizon_checks import permute_within
    from lib.analyses.multiple_testing import holm_adjusted_finite

    stacked, rng, out = np.stack(list(outcomes.values())), np.random.default_rng(seed), []
    for _ in range(n_permutations):
        shuffled = permute_within(stacked, groups, rng)
        p = np.concatenate([added_information(kernels, rivals, y, groups)["p"][:, fractions > 0].ravel() for y in shuffled])
        adjusted = holm_adjusted_finite(p)
        out.append(np.sum(adjusted <= 0.05) if np.isfinite(adjusted).any() else np.nan)
    return np.array(out)


def timed(function) -> tuple[float, object]:
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def compare(label: str, methods: dict, repeats: int) -> None:
    seconds, results = {name: [] for name in methods}, {}
    for _ in range(repeats):
        for name, method in methods.items():
            s, results[name] = timed(method)
            seconds[name].append(s)
    old, new = methods
    difference = np.nanmax(np.abs(np.asarray(results[old], float) - np.asarray(results[new], float)))
    print(f"\n{label}")
    print_medians(seconds, digits=3)
    print(f"  largest difference of the results: {difference:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be an integer >= 1, got {args.repeats}")
    from lib.analyses import controls, horizon_checks

    print(describe_machine())
    print("one BLAS thread; median CPU seconds over interleaved repeats")
    rng = np.random.default_rng(0)
    values, labels = rng.normal(size=(500, 9)), rng.integers(0, 12, 500)
    label_sets = np.stack([labels] + [rng.permutation(labels) for _ in range(1000)])
    groups = np.repeat(np.arange(5), 29)
    kernels, rivals = rng.normal(size=(5, 9, 145)), rng.normal(size=(4, 9, 145))
    outcomes = {o: rng.normal(size=145) for o in range(4)}
    fractions = np.array([0.0, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5])
    with threadpool_limits(1, user_api="blas"):
        compare("eta^2 of 1001 label sets, one network (500 patterns, 9 outputs, 12 groups)",
                {"one-hot einsum (before)": lambda: eta_squared_one_hot(values, label_sets),
                 "bincount (controls._batch_eta_squared)": lambda: controls._batch_eta_squared(values, label_sets)},
                args.repeats)
        compare("add test's control, 200 permutations x 4 outcomes (145 networks, 5 + 4 predictors, 9 fractions)",
                {"one run and outcome at a time (before)": lambda: discoveries_one_at_a_time(
                    kernels, rivals, outcomes, groups, fractions, 200, 1),
                 "batched (horizon_checks.shuffled_discoveries)": lambda: horizon_checks.shuffled_discoveries(
                    kernels, rivals, outcomes, groups, fractions, n_permutations=200, seed=1)}, args.repeats)


if __name__ == "__main__":
    main()
