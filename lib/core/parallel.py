"""Independent jobs on this machine's cores, with the same results as a loop.

The analyses that follow training (leading eNTK vectors and silhouettes per network, k-means
per snapshot, M-PHATE per grouping) are many small independent jobs whose heavy parts run in
LAPACK, BLAS, scikit-learn's and SciPy's compiled code, which release Python's GIL. Run one per
thread, each with one BLAS/OpenMP thread (many-threaded BLAS on these small matrices spin-waits
and runs several times slower on a shared 2-core machine), they use every core. Each job
computes exactly what it computes in a loop, so the results are bit-identical to the loop
(``tests/test_parallel.py``); only the order in which jobs finish changes, and results are
returned in job order.

Jobs made of many small NumPy calls hold the GIL much of the time and gain less (k-means of a few
dozen points: 1.4x on 2 cores; worker processes gain 1.9x once started, but starting them costs
about as much as they save here, so they are not used).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .validation import check_int

WORKERS_ENV = "REPRO_WORKERS"


def available_workers() -> int:
    """Threads to use: ``$REPRO_WORKERS`` if set, else ``$OMP_NUM_THREADS`` (Dask's worker processes
    set it to their thread count, so a sweep point does not oversubscribe its worker), else the
    cores this process may run on."""
    for name in (WORKERS_ENV, "OMP_NUM_THREADS"):
        value = os.environ.get(name)
        if value:
            return check_int(f"${name}", int(value) if value.strip().isdigit() else value, minimum=1)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def parallel_map(function: Callable[..., Any], jobs: Iterable[Sequence], desc: str | None = None,
                 n_workers: int | None = None) -> list:
    """``[function(*job) for job in jobs]``, run on ``n_workers`` threads (default
    :func:`available_workers`), with BLAS and OpenMP limited to one thread.

    Args:
        function: a pure function of the job's arguments (it must not write shared state).
        jobs: argument tuples, one per call.
        desc: label of a tqdm progress bar over the jobs (no bar if None).
        n_workers: threads; 1 runs the plain loop in this thread.

    Returns:
        the results in job order. An exception in a job is raised here, after the running jobs end.
    """
    from joblib import Parallel, delayed
    from threadpoolctl import threadpool_limits
    from tqdm import tqdm

    jobs = [tuple(job) for job in jobs]
    n_workers = available_workers() if n_workers is None else check_int("n_workers", n_workers, minimum=1)
    with threadpool_limits(1), tqdm(total=len(jobs), desc=desc, disable=desc is None) as bar:
        if n_workers == 1 or len(jobs) <= 1:
            results = []
            for job in jobs:
                results.append(function(*job))
                bar.update()
            return results
        results = []
        for result in Parallel(n_jobs=min(n_workers, len(jobs)), backend="threading", return_as="generator")(
                delayed(function)(*job) for job in jobs):
            results.append(result)
            bar.update()
        return results
