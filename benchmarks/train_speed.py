"""Training throughput: 10 vmapped standard/large pairs (20 networks), ET schedule (lr 0.01).

Side by side in one run: ``lib.experiments.run_pairs`` (JAX, one compiled ``lax.scan``,
vmapped over networks) and a plain NumPy full-batch gradient-descent loop of the same
network, one network at a time. Prints medians of repeated runs in network-iterations
per second and their ratio, and the ratio to the authors' PyTorch script.

    python benchmarks/train_speed.py [--iterations 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from lib.experiments import pair_initial_params, run_pairs
from lib.models import MultitaskNet
from lib.tasks import TaskEnvironment

AUTHORS_PYTORCH_S_PER_PAIR_ITERATION = 0.63  # measured on this machine kind


def numpy_gd(w_h: np.ndarray, w_o: np.ndarray, x: np.ndarray, y: np.ndarray, lr: float, n: int, n_stim: int):
    """Reference: full-batch GD on the summed squared error, biases fixed at -2, in NumPy float32."""
    sig = lambda a: 1.0 / (1.0 + np.exp(-a))
    x_task = x[:, n_stim:]
    for _ in range(n):
        h = sig(x @ w_h.T - 2)
        z = np.concatenate([h, x_task], axis=1)
        out = sig(z @ w_o.T - 2)
        g_o = 2 * (out - y) * out * (1 - out)
        g_h = (g_o @ w_o[:, : h.shape[1]]) * h * (1 - h)
        w_o = w_o - lr * g_o.T @ z
        w_h = w_h - lr * g_h.T @ x
    return w_h, w_o


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    env, seeds, n_it = TaskEnvironment(), tuple(range(10)), args.iterations
    n_networks = 2 * len(seeds)

    run_pairs(env, "ET", seeds, n_iterations=n_it, n_snapshots=101 if n_it % 100 == 0 else 2)  # compile
    jax_times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        run_pairs(env, "ET", seeds, n_iterations=n_it, n_snapshots=101 if n_it % 100 == 0 else 2)
        jax_times.append(time.perf_counter() - start)

    net = MultitaskNet.for_environment(env)
    params = pair_initial_params(net, (0,))
    train, _ = env.make_data(0)
    x, y = train.x.astype(np.float32), train.y.astype(np.float32)
    n_ref = max(10, n_it // 10)
    ref_times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        numpy_gd(np.asarray(params["w_hidden"][0]), np.asarray(params["w_output"][0]), x, y, 0.01, n_ref, env.n_stimulus_units)
        ref_times.append(time.perf_counter() - start)

    ours = n_networks * n_it / statistics.median(jax_times)
    reference = n_ref / statistics.median(ref_times)
    authors = 2 / AUTHORS_PYTORCH_S_PER_PAIR_ITERATION
    print(f"training throughput, paper network, 500 patterns, {n_it} iterations x {n_networks} networks (10 pairs)")
    print(f"{'implementation':48s} {'median s':>9s} {'net-it/s':>10s} {'ratio':>8s}")
    print(f"{'lib.experiments.run_pairs (JAX, vmapped scan)':48s} {statistics.median(jax_times):9.2f} {ours:10.0f} {1.0:8.2f}")
    print(f"{'NumPy loop, one network (' + str(n_ref) + ' iterations)':48s} {statistics.median(ref_times):9.2f} "
          f"{reference:10.0f} {reference / ours:8.4f}")
    print(f"{'authors PyTorch script (0.63 s/pair-iteration)':48s} {'':9s} {authors:10.1f} {authors / ours:8.4f}")
    print(f"speed-up: {ours / reference:.1f}x over the NumPy loop, {ours / authors:.0f}x over the authors' script; "
          f"10 pairs x 10000 ET iterations would take {n_networks * 10_000 / ours:.0f} s")


if __name__ == "__main__":
    main()
