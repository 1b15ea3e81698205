"""CPU seconds of one process by kind of work, for ``benchmarks/build_profile.py``.

Python imports this module at the start of every interpreter whose ``sys.path`` holds this folder
(``build_profile.py`` puts it on ``PYTHONPATH``, so the runner, each chapter's process, its kernel
and its Dask workers all load it). It does nothing unless ``$REPRO_BUILD_PROFILE_DIR`` names a
folder. Then it wraps the entry points of each kind of work (:data:`KINDS`) as their modules are
imported, and charges the process's CPU time (``time.process_time``: every thread of the process,
so numba's and BLAS's threads too) to the kind on top of a per-thread stack: the CPU between two
events goes to the innermost kind active in the thread that saw them, time outside every kind to
``other``. Nested kinds are exclusive (a JAX compilation inside a kernel computation counts as
compilation, not kernel). In a process where two Python threads compute at once (a Dask worker's
event loop beside its task), the CPU of both goes to whichever kind the thread that records the
event is in; the book's workers run one task thread each, whose work dominates.

Each process writes ``<folder>/<pid>.json`` (kinds, total CPU, role, chapter) every few seconds
and at exit, so a process that is killed (a Dask worker at shutdown) keeps all but its last seconds.
"""

from __future__ import annotations

import os

_FOLDER = os.environ.get("REPRO_BUILD_PROFILE_DIR")


def _start() -> None:
    import atexit
    import functools
    import importlib._bootstrap as bootstrap
    import inspect
    import json
    import multiprocessing
    import sys
    import threading
    import time

    # (kind, module, attribute or "Class.method" or "*" for every function the module defines)
    kinds = [
        ("training", "lib.core.training", "*"), ("training", "lib.core.steps", "*"),
        ("training", "lib.experiments.schedules", "run_pairs"),
        ("kernels (eNTK, ePNTK)", "lib.core.kernels", "*"), ("kernels (eNTK, ePNTK)", "lib.core.entk_variants", "*"),
        ("kernels (eNTK, ePNTK)", "lib.core.step_kernels", "*"),
        ("kernels (eNTK, ePNTK)", "lib.core.kernel_statistics", "*"),
        ("kernels (eNTK, ePNTK)", "lib.experiments.epntk_stream", "*"),
        ("network measures", "lib.analyses.network_measures", "*"),
        ("eigendecompositions", "numpy.linalg", "eigh"), ("eigendecompositions", "numpy.linalg", "eig"),
        ("eigendecompositions", "numpy.linalg", "svd"), ("eigendecompositions", "numpy.linalg", "eigvalsh"),
        ("eigendecompositions", "scipy.linalg", "eigh"), ("eigendecompositions", "scipy.linalg", "svd"),
        ("eigendecompositions", "scipy.linalg", "eig"), ("eigendecompositions", "scipy.sparse.linalg", "eigsh"),
        ("eigendecompositions", "scipy.sparse.linalg", "svds"),
        ("clustering", "sklearn.cluster", "KMeans.fit"), ("clustering", "sklearn.cluster", "AgglomerativeClustering.fit"),
        ("clustering", "sklearn.metrics", "silhouette_score"), ("clustering", "sklearn.metrics", "silhouette_samples"),
        ("clustering", "sklearn.metrics", "adjusted_rand_score"), ("clustering", "lib.analyses.partitions", "*"),
        ("clustering", "lib.analyses.representations", "*"),
        ("M-PHATE", "lib.analyses.mphate", "*"),
        ("statistics and resampling", "lib.analyses.stats", "*"),
        ("statistics and resampling", "lib.analyses.multiple_testing", "*"),
        ("statistics and resampling", "lib.analyses.within_scale", "*"),
        ("statistics and resampling", "lib.analyses.robustness", "*"),
        ("statistics and resampling", "lib.analyses.claim_tests", "*"),
        ("plotting", "matplotlib.figure", "Figure.savefig"), ("plotting", "matplotlib.figure", "Figure.draw"),
        ("plotting", "matplotlib.pyplot", "subplots"), ("plotting", "matplotlib.pyplot", "figure"),
        *[("plotting", f"lib.book.{m}", "*") for m in (
            "plot_attribution", "plot_continuum", "plot_entk_over_training", "plot_explorer", "plot_horizon",
            "plot_performance", "plot_representations", "plot_rival_theories", "plot_style", "plot_theory")],
        ("plotting", "IPython.core.formatters", "BaseFormatter.__call__"),
        ("JAX compilation", "jax._src.interpreters.pxla", "lower_sharding_computation"),
        ("JAX compilation", "jax._src.compiler", "compile_or_get_cached"),
        ("JAX compilation", "jax._src.pjit", "_create_pjit_jaxpr"),
        ("numba compilation", "numba.core.dispatcher", "Dispatcher._compile_for_args"),
        ("Dask start-up and transfer", "distributed.deploy.local", "LocalCluster.__init__"),
        ("Dask start-up and transfer", "distributed.client", "Client.__init__"),
        ("Dask start-up and transfer", "distributed.client", "Client.close"),
        ("Dask start-up and transfer", "distributed.deploy.spec", "SpecCluster.close"),
        ("Dask start-up and transfer", "distributed.client", "Client.gather"),
        ("Dask start-up and transfer", "distributed.client", "Client.submit"),
        ("Dask start-up and transfer", "distributed.client", "Client.map"),
        ("Dask start-up and transfer", "distributed.client", "Client.scatter"),
        ("Dask start-up and transfer", "distributed.protocol.serialize", "serialize"),
        ("Dask start-up and transfer", "distributed.protocol.serialize", "deserialize"),
        # the cache's own work (keys, reading, writing, locks), not ``cached``, whose computation is the caller's
        *[("results cache", "lib.core.results", f) for f in ("load", "save", "metadata_of", "entry_dir", "code_digest",
                                                             "provenance", "lock_for")],
        ("results cache", "lib.core.cache_entry", "*"),
        ("imports", "importlib._bootstrap", "_find_and_load"),
    ]
    by_module: dict[str, list[tuple[str, str]]] = {"ipykernel.ipkernel": []}
    for kind, module, attribute in kinds:
        by_module.setdefault(module, []).append((kind, attribute))

    # "last": 0.0, so that the interpreter's start before this hook is charged too ("other")
    state = {"totals": {}, "last": 0.0, "current": "other", "chapter": os.environ.get("REPRO_CHAPTER"),
             "first_cell_cpu": None, "pid": os.getpid()}
    local = threading.local()
    lock = threading.Lock()

    def charge_and_switch(push: str | None) -> None:
        """Charge the CPU since the last event to the innermost kind of this thread, then enter kind
        ``push`` (or, with ``None``, leave the innermost one)."""
        stack = local.__dict__.setdefault("stack", [])
        now = time.process_time()
        with lock:
            kind = stack[-1] if stack else "other"
            state["totals"][kind] = state["totals"].get(kind, 0.0) + now - state["last"]
            state["last"] = now
            stack.append(push) if push is not None else stack.pop()
            state["current"] = stack[-1] if stack else "other"

    def wrap(function, kind: str):
        if getattr(function, "_build_profile_kind", None):
            return function

        @functools.wraps(function)
        def timed(*args, **kwargs):
            charge_and_switch(kind)
            try:
                return function(*args, **kwargs)
            finally:
                charge_and_switch(None)
        timed._build_profile_kind = kind
        return timed

    def first_cell(function):  # ipykernel's do_execute: the kernel's start-up ends at its first cell
        @functools.wraps(function)
        def execute(*args, **kwargs):
            if state["first_cell_cpu"] is None:
                state["first_cell_cpu"] = time.process_time()
            return function(*args, **kwargs)
        return execute

    def patch(module) -> None:
        """Wrap ``module``'s entries of the table (and the kernel's first cell)."""
        if module.__name__ == "ipykernel.ipkernel":
            module.IPythonKernel.do_execute = first_cell(module.IPythonKernel.do_execute)
        for kind, attribute in by_module.get(module.__name__, ()):
            if attribute == "*":
                for name, value in list(vars(module).items()):
                    if inspect.isfunction(value) and value.__module__ == module.__name__:
                        setattr(module, name, wrap(value, kind))
                continue
            owner_name, _, method = attribute.rpartition(".")
            owner = getattr(module, owner_name, None) if owner_name else module
            target = getattr(owner, method, None) if owner is not None else None
            if target is not None and callable(target):
                setattr(owner, method, wrap(target, kind))

    find_and_load = bootstrap._find_and_load

    def find_and_load_timed(name, import_):
        charge_and_switch("imports")
        try:
            module = find_and_load(name, import_)
        finally:
            charge_and_switch(None)
        if name in by_module:
            patch(module)
        return module

    def dump() -> None:
        """Write the totals so far, the CPU since the last event going to the kind active then."""
        state["chapter"] = os.environ.get("REPRO_CHAPTER") or state["chapter"]  # set by the runner per chapter
        this_role = role()  # outside the lock: nothing that may import runs under it
        with lock:
            now, kinds = time.process_time(), dict(state["totals"])
            kinds[state["current"]] = kinds.get(state["current"], 0.0) + now - state["last"]
            record = {"pid": state["pid"], "role": this_role, "chapter": state["chapter"], "argv": sys.argv[:3],
                      "cpu_s": now, "kinds_s": kinds, "before_first_cell_s": state["first_cell_cpu"]}
        path = os.path.join(_FOLDER, f"{state['pid']}.json")
        with open(path + ".tmp", "w") as out:
            json.dump(record, out)
        os.replace(path + ".tmp", path)

    def role() -> str:
        """What this process is in the build, from the modules it loaded and its command line (which a
        process that multiprocessing spawns inherits from its parent)."""
        if "papermill" in sys.modules:
            return "runner (papermill)"
        if "distributed.worker" in sys.modules and multiprocessing.parent_process() is not None:
            return "dask worker"
        if any("ipykernel_launcher" in arg for arg in sys.argv):
            return "kernel"
        return "runner"

    def every_few_seconds() -> None:
        while True:
            time.sleep(3.0)
            dump()

    bootstrap._find_and_load = find_and_load_timed
    for name in list(by_module):
        if name in sys.modules:
            patch(sys.modules[name])
    os.makedirs(_FOLDER, exist_ok=True)
    atexit.register(dump)
    threading.Thread(target=every_few_seconds, daemon=True, name="build-profile").start()

    def after_fork() -> None:
        nonlocal lock
        lock = threading.Lock()  # another thread may have held it at the fork
        # a forked child's CPU time starts at 0
        state.update(totals={}, last=0.0, current="other", pid=os.getpid(), first_cell_cpu=None)
        threading.Thread(target=every_few_seconds, daemon=True, name="build-profile").start()
    os.register_at_fork(after_in_child=after_fork)


if _FOLDER:
    _start()
