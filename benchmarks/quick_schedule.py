"""The quick profile's wall time under two schedules of ``lib.book.concurrent_runs``, one after the
other in this run, each from an empty results cache into a temporary folder: the chapters offered
the free cores in plan order with the chapters that keep every core busy at paper scale running
alone (the full profile's rule), and the runner's quick schedule (the longest chain of chapters that
read each other's results first, :func:`~lib.book.concurrent_runs.start_order`, and no chapter
alone, :data:`~lib.book.concurrent_runs.ALONE_IN_PROFILE`). Prints both wall times and their ratio.

    python benchmarks/quick_schedule.py [--repeats 1]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

from machine import describe_machine  # benchmarks/machine.py

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lib.book import concurrent_runs, runner  # noqa: E402
from lib.book.concurrent_runs import ALONE_IN_PROFILE, USES_EVERY_CORE, start_order  # noqa: E402


def in_plan_order(runs, after) -> list[int]:
    """The runs' indices in plan order (the schedule before :func:`start_order`)."""
    return list(range(len(runs)))


def quick_wall_s(alone: frozenset[str], order) -> float:
    """Seconds of one quick-profile run (``--jobs 0``) with the chapters ``alone`` taking every core,
    the free cores offered in ``order`` (a function like :func:`start_order`)."""
    runner.ALONE_IN_PROFILE = {**ALONE_IN_PROFILE, "quick": alone}
    concurrent_runs.start_order = order
    with tempfile.TemporaryDirectory(prefix="quick-schedule-") as tmp:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            code = runner.main(["--profile", "quick", "--jobs", "0", "--output-dir", f"{tmp}/executed",
                                "--results-dir", f"{tmp}/results"])
        wall = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"the quick profile failed (exit {code})")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print(describe_machine(), flush=True)
    schedules = {"plan order, every-core chapters alone": (USES_EVERY_CORE, in_plan_order),
                 "longest chain first, none alone (the runner's)": (ALONE_IN_PROFILE["quick"], start_order)}
    walls = {label: [] for label in schedules}
    for _ in range(args.repeats):
        for label, (alone, order) in schedules.items():
            walls[label].append(quick_wall_s(alone, order))
            print(f"  {label}: {walls[label][-1]:.0f} s", flush=True)
    old, new = (statistics.median(w) for w in walls.values())
    print(f"quick profile wall, median of {args.repeats}: before {old:.0f} s, the runner's schedule {new:.0f} s, "
          f"ratio {old / new:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
