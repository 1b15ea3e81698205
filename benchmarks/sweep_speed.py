"""Sweep throughput: points per second of ``lib.experiments.sweep`` on LocalClusters of 1 and 2 workers.

Each point is :func:`lib.experiments.sweep_points.pair_final_losses` (one standard/large pair of the
paper network, ``--iterations`` full-batch steps) written to a temporary results cache.
Side by side in one run, alternating, ``--repeats`` times: the same number of fresh points
on a 1-worker and a 2-worker cluster (started once, every worker compiled before timing),
and, for the engine's overhead, serially in this process through the same cache. Prints
medians and the measured 2-vs-1-worker scaling, whatever it is.

    python benchmarks/sweep_speed.py [--points 12] [--iterations 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from machine import describe_machine  # benchmarks/machine.py

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def compile_point(n_iterations: int) -> None:
    """Run one uncached point (compiles the training scan in this worker process)."""
    from lib.experiments.sweep_points import pair_final_losses

    pair_final_losses({"seed": 0, "n_iterations": n_iterations})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=12, help="points per timed sweep")
    parser.add_argument("--iterations", type=int, default=200, help="training iterations per point")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name in ("points", "iterations", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be an integer >= 1, got {getattr(args, name)}")

    with ExitStack() as stack:
        os.environ["REPRO_RESULTS_DIR"] = stack.enter_context(tempfile.TemporaryDirectory())  # inherited by workers
        from lib.core import results
        from lib.experiments import sweep, sweep_cluster

        function = "lib.experiments.sweep_points:pair_final_losses"
        clients = {n: stack.enter_context(sweep_cluster.dask_client(n_workers=n)) for n in (1, 2)}
        for client in clients.values():
            client.run(compile_point, args.iterations)  # on every worker
        compile_point(args.iterations)
        fresh_seeds = itertools.count(1)  # never repeat a point: every timed point is computed

        def fresh_points() -> list[dict]:
            return [{"seed": next(fresh_seeds), "n_iterations": args.iterations} for _ in range(args.points)]

        def time_serial() -> float:
            plan = sweep.plan_function_sweep(fresh_points(), function)
            target = plan.target
            start = time.perf_counter()
            for point, key in zip(plan.points, plan.cache_parameters):
                results.cached(plan.name, key, lambda: target(point))
            return time.perf_counter() - start

        def time_cluster(n_workers: int) -> float:
            plan = sweep.plan_function_sweep(fresh_points(), function)
            start = time.perf_counter()
            report = sweep.run_plan(plan, client=clients[n_workers], progress=False)
            elapsed = time.perf_counter() - start
            if not report.ok or len(report.computed) != args.points:
                raise RuntimeError(f"benchmark sweep failed: {[f.format() for f in report.failures]}")
            return elapsed

        timings: dict[str, list[float]] = {"serial (this process, no Dask)": [], "1 worker": [], "2 workers": []}
        for _ in range(args.repeats):
            timings["serial (this process, no Dask)"].append(time_serial())
            timings["1 worker"].append(time_cluster(1))
            timings["2 workers"].append(time_cluster(2))

    medians = {k: statistics.median(v) for k, v in timings.items()}
    rate = {k: args.points / v for k, v in medians.items()}
    print(describe_machine())
    print(f"{args.points} points per sweep, each one standard/large pair of the paper network (200 hidden), "
          f"{args.iterations} iterations; median of {args.repeats}; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, seconds in medians.items():
        print(f"  {name:32s} {seconds:7.2f} s   {rate[name]:6.2f} points/s")
    print(f"scaling 2 workers / 1 worker: {rate['2 workers'] / rate['1 worker']:.2f}x; "
          f"1 worker / serial: {rate['1 worker'] / rate['serial (this process, no Dask)']:.2f}x")


if __name__ == "__main__":
    main()
