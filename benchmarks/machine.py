"""One line naming the machine a benchmark ran on: speed ratios vary by CPU, so every
benchmark prints this first and quoted ratios carry it."""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo; else what ``platform`` knows)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.split(":")[0].strip() in ("model name", "Model", "Hardware"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe_machine() -> str:
    """CPU model, cores available to this process, the Numba target and OpenBLAS's kernel."""
    from llvmlite import binding as llvm
    from numba.core import codegen, config
    from threadpoolctl import threadpool_info

    import numpy as np

    np.dot(np.ones((2, 2)), np.ones((2, 2)))  # load the BLAS so that threadpoolctl sees it
    blas = ", ".join(f"{i['internal_api']} {i.get('architecture', '?')}" for i in threadpool_info()
                     if i["user_api"] == "blas")
    target = config.CPU_NAME or llvm.get_host_cpu_name()
    avx512 = "+avx512f" in (config.CPU_FEATURES or codegen.get_host_cpu_features()).split(",")
    return (f"machine: {cpu_model()} ({platform.machine()}), {len(os.sched_getaffinity(0))} cores; "
            f"Numba target {target}{' with AVX-512' if avx512 else ''}; BLAS {blas}")


def print_medians(seconds: dict[str, list[float]], digits: int = 4) -> None:
    """One line per method (name -> its repeats' seconds, the first the baseline): its median and the
    baseline's median over it (the ratio, above 1 where the method is faster)."""
    import statistics

    baseline = statistics.median(next(iter(seconds.values())))
    width = max(len(name) for name in seconds)
    print(f"  {'method':{width}s} {'median s':>9s} {'ratio':>7s}")
    for name, repeats in seconds.items():
        median = statistics.median(repeats)
        print(f"  {name:{width}s} {median:9.{digits}f} {baseline / median:7.2f}")
