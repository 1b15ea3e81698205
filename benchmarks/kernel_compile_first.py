"""Chapters that start training at the same time, with and without the training kernel compiled first.

The CPU training kernel is compiled by Numba into an on-disk cache; a process that finds the cache
cold compiles it (several seconds of one core) and writes it. When the runner starts chapters side
by side from a fresh clone (CI, a first ``make book``), each chapter and each of its Dask workers
that reaches training before the first has written the cache compiles the kernel too. The runner
therefore compiles it once first (``lib.book.runner.COMPILE_KERNEL``).

Side by side in one run, alternating, ``--repeats`` times, each from an empty cache (its own
``NUMBA_CACHE_DIR``): ``--processes`` processes at once, each training one standard/large pair for
100 iterations (``run_pairs``, into a throwaway results folder), as they start (``at once``), and
after one process has compiled the kernel (``compiled first``: the wall time includes that
process). Prints the median wall seconds of each and their ratio, whatever they are.

    python benchmarks/kernel_compile_first.py [--processes 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import describe_machine  # benchmarks/machine.py

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lib.book.runner import COMPILE_KERNEL  # noqa: E402

TRAIN = ("from lib.core.tasks import TaskEnvironment; from lib.experiments.schedules import run_pairs; "
         "run_pairs(TaskEnvironment(), 'ET', [0], n_iterations=100)")


def wall_seconds(processes: int, compile_first: bool) -> float:
    """Wall seconds of ``processes`` training processes started at once, from an empty compiled-code
    cache, after one compiling process if ``compile_first``."""
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / "numba")}
        start = time.perf_counter()
        if compile_first:
            subprocess.run([sys.executable, "-c", COMPILE_KERNEL], env=env, check=True)
        children = [subprocess.Popen([sys.executable, "-c", TRAIN],
                                     env={**env, "REPRO_RESULTS_DIR": str(Path(folder) / f"results{i}")})
                    for i in range(processes)]
        if any(child.wait() for child in children):
            raise RuntimeError("a training process failed")
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name in ("processes", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be an integer >= 1, got {getattr(args, name)}")
    print(describe_machine())
    print(f"{args.processes} processes each training one pair for 100 iterations from an empty compiled-code cache; "
          f"median wall seconds of {args.repeats} alternating repeats")
    seconds = {"at once": [], "compiled first": []}
    for _ in range(args.repeats):
        for name in seconds:
            seconds[name].append(wall_seconds(args.processes, name == "compiled first"))
    old = statistics.median(seconds["at once"])
    print(f"  {'start':16s} {'median s':>9s} {'ratio':>7s}")
    for name, values in seconds.items():
        median = statistics.median(values)
        print(f"  {name:16s} {median:9.2f} {old / median:7.2f}")


if __name__ == "__main__":
    main()
