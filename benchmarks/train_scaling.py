"""Training throughput against the number of vmapped networks, on the device JAX uses.

For the "Running at scale" page: how many paper networks one compiled training program
should hold. Times ``lib.experiments.schedules.run_pairs`` (ET learning rates, single-task
phase, snapshots every 25 iterations) with the XLA engine, ``engine="reference"``
(``jax.grad``), for growing numbers of standard/large pairs, and prints network-iterations
per second (medians of the repeats, compiled once before timing). On a CPU this measures the
vmapped XLA program; on a GPU (JAX's CUDA build installed) it measures the GPU. The CPU
kernel (``engine="numba"``) is in ``benchmarks/train_speed.py``.

    python benchmarks/train_scaling.py [--pairs 10 50 250 1000] [--iterations 500] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax

from lib.core.engines import Engine
from lib.core.tasks import TaskEnvironment
from lib.experiments.schedules import run_pairs

SNAPSHOT_SPACING = 25


def time_run(env: TaskEnvironment, n_pairs: int, n_iterations: int, engine: Engine, repeats: int) -> float:
    """Median seconds of ``repeats`` runs of ``n_pairs`` pairs (after one compiling run)."""
    kw = dict(n_iterations=n_iterations, n_snapshots=n_iterations // SNAPSHOT_SPACING + 1, engine=engine)
    seeds = tuple(range(n_pairs))
    run_pairs(env, "ET", seeds, **kw)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        run_pairs(env, "ET", seeds, **kw)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, nargs="+", default=[10, 50, 250, 1000])
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.iterations % SNAPSHOT_SPACING:
        parser.error(f"--iterations must be a multiple of {SNAPSHOT_SPACING}, got {args.iterations}")
    env = TaskEnvironment()
    device = jax.devices()[0]
    print(f"JAX {jax.__version__} on {device.platform}: {getattr(device, 'device_kind', device)}; "
          f"{args.iterations} iterations, ET learning rates, medians of {args.repeats} runs")
    print(f"  {'networks':>8s} {'net-it/s':>12s}")
    for n_pairs in args.pairs:
        rate = 2 * n_pairs * args.iterations / time_run(env, n_pairs, args.iterations, Engine.REFERENCE, args.repeats)
        print(f"  {2 * n_pairs:8d} {rate:12.0f}", flush=True)


if __name__ == "__main__":
    main()
