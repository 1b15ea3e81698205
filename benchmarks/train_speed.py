"""Training throughput of the paper network: every training engine side by side, and NumPy.

Does each engine earn its place on this machine? Side by side in one run, repeats
interleaved so that a busy machine slows every implementation alike:
``lib.experiments.schedules.run_pairs`` with each :class:`lib.core.engines.Engine` (``numba``:
the compiled CPU kernel of ``lib.core.training_kernel``, one network per thread;
``reference``: ``jax.grad``, one compiled ``lax.scan`` vmapped over the networks), and a
plain NumPy full-batch gradient-descent loop of one network (BLAS on one thread). Workloads:
10 standard/large pairs (20 networks, single-task and fine-tuning phases) and 50 pairs (100
networks, single-task), ET learning rates, snapshots every 25 iterations (the LR schedule's
spacing, the denser of the book's).

Prints medians of the repeats in network-iterations per second, each engine's rate relative
to the fastest, the GFLOP/s of the dense-equivalent work (the matmul FLOPs of one dense
full-batch step on all 500 patterns, 2 N (2 D H + 2 (H + T) K + K H) per network and
iteration, about 15.2 MFLOP, whatever shortcuts an implementation takes), and per engine
whether it earns its place here: it is the fastest on some workload, or it trains what no
other engine does (``reference``: any model, loss reduction, dtype or device).

    python benchmarks/train_speed.py [--iterations 1000] [--iterations-large 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

from lib.core.engines import Engine
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.experiments.schedules import initial_pairs, params_of, run_pairs
from machine import describe_machine  # benchmarks/machine.py

ENGINES = tuple(Engine)
SNAPSHOT_SPACING = 25  # iterations between snapshots in the LR schedule (2500 / 100)
GENERAL_ENGINES = {Engine.REFERENCE: "the only engine for any model, loss reduction, dtype or device"}


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


def dense_flops_per_network_iteration(net: MultitaskNet, n_patterns: int) -> int:
    """Matmul FLOPs of one dense full-batch GD step: forward, back-propagation, both weight gradients."""
    d, h, t, k = net.n_inputs, net.n_hidden, net.n_tasks, net.n_outputs
    return 2 * n_patterns * (2 * d * h + 2 * (h + t) * k + k * h)


def time_numpy(env: TaskEnvironment, n_iterations: int) -> float:
    """Seconds for ``n_iterations`` NumPy GD steps of one standard network (seed 0), BLAS on one
    thread (with two, OpenBLAS slows down many-fold whenever the cores are shared)."""
    pairs = initial_pairs(env, [0])
    x, y = pairs["x_train"][0].astype(np.float32), pairs["y_train"][0].astype(np.float32)
    w_h, w_o = (np.asarray(pairs[f"params_initial/{k}"][0, 0]) for k in ("w_hidden", "w_output"))
    with threadpool_limits(1):
        start = time.perf_counter()
        numpy_gd(w_h, w_o, x, y, 0.01, n_iterations, env.n_stimulus_units)
        return time.perf_counter() - start


def benchmark(env: TaskEnvironment, label: str, n_pairs: int, phase: str, n_iterations: int, repeats: int,
              n_numpy: int) -> dict[str, float]:
    """Interleaved repeats of every engine and NumPy; returns medians in network-iterations/s."""
    seeds = tuple(range(n_pairs))
    kw = dict(n_iterations=n_iterations, n_snapshots=n_iterations // SNAPSHOT_SPACING + 1, phase=phase)
    if phase == "finetune":
        kw["start_params"] = params_of(initial_pairs(env, seeds), "params_initial")
    n_networks = 2 * n_pairs
    for engine in ENGINES:
        run_pairs(env, "ET", seeds, engine=engine, **kw)  # compile
    seconds = {name: [] for name in (*ENGINES, "numpy")}
    for _ in range(repeats):
        for engine in ENGINES:
            start = time.perf_counter()
            run_pairs(env, "ET", seeds, engine=engine, **kw)
            seconds[engine].append(time.perf_counter() - start)
        seconds["numpy"].append(time_numpy(env, n_numpy))
    rate = {e: n_networks * n_iterations / statistics.median(seconds[e]) for e in ENGINES}
    rate["numpy"] = n_numpy / statistics.median(seconds["numpy"])
    flops = dense_flops_per_network_iteration(MultitaskNet.for_environment(env), 500)
    fastest = max(ENGINES, key=rate.get)
    print(f"\n{label}: {n_networks} networks, {n_iterations} iterations, {phase} phase, {repeats} repeats")
    print(f"  {'implementation':46s} {'median s':>9s} {'net-it/s':>10s} {'GFLOP/s':>8s} {'/ fastest':>10s}")
    names = {e: f"run_pairs(engine='{e}')" for e in ENGINES} | {"numpy": f"NumPy loop, one network, 1 thread ({n_numpy} it)"}
    for name in (*ENGINES, "numpy"):
        print(f"  {names[name]:46s} {statistics.median(seconds[name]):9.2f} {rate[name]:10.0f} "
              f"{rate[name] * flops / 1e9:8.1f} {rate[name] / rate[fastest]:10.2f}")
    return rate


def verdicts(rates: list[dict[str, float]]) -> list[str]:
    """Per engine, one line: whether it earns its place on this machine (the fastest engine on
    at least one workload, or the only engine for what it trains)."""
    lines = []
    for engine in ENGINES:
        wins = sum(max(ENGINES, key=rate.get) is engine for rate in rates)
        if wins:
            lines.append(f"{engine}: earns its place (the fastest engine on {wins} of {len(rates)} workloads)")
        elif engine in GENERAL_ENGINES:
            lines.append(f"{engine}: earns its place ({GENERAL_ENGINES[engine]}; the fastest on no workload here)")
        else:
            lines.append(f"{engine}: does NOT earn its place here (the fastest on no workload, and other engines "
                         "train everything it trains)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000, help="iterations for the 20-network runs")
    parser.add_argument("--iterations-large", type=int, default=200, help="iterations for the 100-network run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for n in (args.iterations, args.iterations_large):
        if n % SNAPSHOT_SPACING:
            parser.error(f"iterations must be multiples of {SNAPSHOT_SPACING}, got {n}")
    env = TaskEnvironment()
    flops = dense_flops_per_network_iteration(MultitaskNet.for_environment(env), 500)
    print(describe_machine())
    print(f"training throughput, paper network (500 patterns), dense-equivalent work {flops / 1e6:.1f} MFLOP "
          "per network-iteration; medians of interleaved repeats")
    n_numpy = max(20, args.iterations // 10)
    results = [
        benchmark(env, "10 pairs", 10, "single", args.iterations, args.repeats, n_numpy),
        benchmark(env, "10 pairs, fine-tuning (multitask data)", 10, "finetune", args.iterations, args.repeats, n_numpy),
        benchmark(env, "50 pairs", 50, "single", args.iterations_large, args.repeats, n_numpy),
    ]
    print("\n10 pairs x 10000 ET iterations (single-task phase): "
          + ", ".join(f"{20 * 10_000 / results[0][e]:.0f} s {e}" for e in ENGINES))
    print("\nengines on this machine:")
    for line in verdicts(results):
        print(f"  {line}")


if __name__ == "__main__":
    main()
