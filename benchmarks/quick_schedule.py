"""The quick profile's wall time under two schedules of ``lib.book.concurrent_runs``, interleaved in
this run, each from an empty results cache into a temporary folder: every run in the foreground (a
run that finds no free slot waits for one), and the runner's (such a run starts in the background,
niced, where it gets only the CPU time the foreground leaves idle: :func:`~lib.book.concurrent_runs.next_step`).
Prints each run's wall time, then the medians and their ratio.

    python benchmarks/quick_schedule.py [--repeats 2]
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

RUNNERS_FOREGROUND_ONLY = concurrent_runs.foreground_only


def quick_wall_s(background: bool) -> float:
    """Seconds of one quick-profile run (``--jobs 0``), with runs started in the background or not."""
    concurrent_runs.foreground_only = RUNNERS_FOREGROUND_ONLY if background else (lambda *args: True)
    try:
        with tempfile.TemporaryDirectory(prefix="quick-schedule-") as tmp:
            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                code = runner.main(["--profile", "quick", "--jobs", "0", "--output-dir", f"{tmp}/executed",
                                    "--results-dir", f"{tmp}/results"])
            wall = time.perf_counter() - start
    finally:
        concurrent_runs.foreground_only = RUNNERS_FOREGROUND_ONLY
    if code != 0:
        raise SystemExit(f"the quick profile failed (exit {code})")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(describe_machine(), flush=True)
    schedules = {"every run in the foreground": False, "the runner's (background runs niced)": True}
    walls = {label: [] for label in schedules}
    for _ in range(args.repeats):
        for label, background in schedules.items():
            walls[label].append(quick_wall_s(background))
            print(f"  {label}: {walls[label][-1]:.0f} s", flush=True)
    old, new = (statistics.median(w) for w in walls.values())
    print(f"quick profile wall, median of {args.repeats}: every run in the foreground {old:.0f} s, the runner's "
          f"{new:.0f} s, ratio {old / new:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
