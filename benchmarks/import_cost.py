"""What a fresh process pays to import the book's stack, with and without compiled bytecode.

Every chapter's kernel, every Dask worker and every test process starts by importing NumPy, SciPy,
JAX, scikit-learn, pandas, matplotlib, the Jupyter machinery and ``lib``. Python reads a module's
compiled ``.pyc`` when one is present and compiles the source otherwise; ``make setup`` installs
the packages with ``--compile-bytecode`` (pip's default, not uv's), so the ``.pyc`` are written once.
Without them, and where ``PYTHONDONTWRITEBYTECODE`` is set (as in many containers), every process
compiles what it imports again.

Side by side in one run, interleaved: the same imports in a child process that reads the
environment's ``.pyc`` (as the book runs), and in one that finds none (``-B -X pycache_prefix=`` an
empty folder: Python looks for bytecode only there and writes none). Prints the median wall seconds
of each and their ratio. Run it in an environment set up by ``make setup``; in one without bytecode
both columns show the compiling cost.

    python benchmarks/import_cost.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from machine import describe_machine  # benchmarks/machine.py

STACK = ("numpy", "scipy.stats", "scipy.integrate", "jax", "sklearn.cluster", "sklearn.metrics", "pandas",
         "matplotlib.pyplot", "ipykernel.kernelapp", "papermill", "jupytext", "distributed",
         "lib.book.chapter_parameters")


def import_seconds(flags: list[str]) -> float:
    """Wall seconds of a child Python process that imports :data:`STACK` with ``flags``."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *flags, "-c", "import " + ", ".join(STACK)], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be an integer >= 1, got {args.repeats}")
    print(describe_machine())
    print(f"importing {', '.join(STACK)} in a fresh process; median wall seconds of {args.repeats} interleaved repeats")
    with tempfile.TemporaryDirectory() as empty:
        ways = {"from source (no .pyc)": ["-B", "-X", f"pycache_prefix={empty}"],
                "compiled .pyc (make setup)": []}
        seconds = {name: [] for name in ways}
        for _ in range(args.repeats):
            for name, flags in ways.items():
                seconds[name].append(import_seconds(flags))
    old = statistics.median(seconds["from source (no .pyc)"])
    print(f"  {'imports':30s} {'median s':>9s} {'ratio':>7s}")
    for name in ways:
        median = statistics.median(seconds[name])
        print(f"  {name:30s} {median:9.2f} {old / median:7.2f}")


if __name__ == "__main__":
    main()
