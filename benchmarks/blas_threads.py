"""BLAS threads per process when processes share the cores: the runner's reason for one BLAS thread per kernel.

The book's chapters run side by side (``make book``: ``--jobs 0``), and a chapter's LAPACK calls
(e.g. ``numpy.linalg.eig`` of a 500 x 500 eNTK in the authors' eNTK variant) run in OpenBLAS,
whose threads spin while waiting. Side by side in one run, alternating, ``--repeats`` times: the
median time of one eig of the paper network's t=0 eNTK (500 test x 500 training patterns, first
output) in ``--processes`` processes at once (1 = alone), with OpenBLAS limited to one thread
and with its default number of threads. Prints the medians and their ratio, whatever they are.

    python benchmarks/blas_threads.py [--processes 2] [--calls 5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

from machine import describe_machine  # benchmarks/machine.py

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def entk_matrix():
    """(500, 500) float64: the first output's t=0 eNTK of the paper network (test x training)."""
    import jax
    import numpy as np

    from lib.core.kernels import entk
    from lib.core.models import MultitaskNet
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.continuum import scaled_initial_params

    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, 200)
    train, test = env.make_data(0, 500, 500, "iid", multitask=False, stream=0)
    theta = jax.tree.map(lambda a: a[0], scaled_initial_params(net, [0], 1.0, "both"))
    return np.asarray(entk(net, theta, test.x, train.x, train.y), np.float64)[0]


def time_eig(matrix, threads: int | None, calls: int, start) -> float:
    """Median seconds of ``calls`` eigendecompositions, OpenBLAS limited to ``threads`` (None: default)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    start.wait()
    with threadpool_limits(limits=threads, user_api="blas"):
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            np.linalg.eig(matrix.T)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run_together(matrix, threads: int | None, processes: int, calls: int) -> float:
    """Median over ``processes`` processes started together of their median eig time."""
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        start = manager.Barrier(processes)
        with context.Pool(processes) as pool:
            medians = pool.starmap(time_eig, [(matrix, threads, calls, start)] * processes)
    return statistics.median(medians)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2, help="processes computing at once")
    parser.add_argument("--calls", type=int, default=5, help="eig calls per process and setting")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name in ("processes", "calls", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be an integer >= 1, got {getattr(args, name)}")
    print(describe_machine())
    matrix = entk_matrix()
    settings = {"1 BLAS thread": 1, "default BLAS threads": None}
    times = {name: [] for name in settings}
    for _ in range(args.repeats):
        for name, threads in settings.items():
            times[name].append(run_together(matrix, threads, args.processes, args.calls))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"eig of the 500 x 500 t=0 eNTK, {args.processes} process(es) at once, median seconds per call:")
    for name, value in medians.items():
        print(f"  {name:22s} {value:.3f}")
    print(f"  default / 1 thread     {medians['default BLAS threads'] / medians['1 BLAS thread']:.2f}x")


if __name__ == "__main__":
    main()
