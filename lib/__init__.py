"""Predicting representational learning from the empirical NTK (Pyle et al., arXiv 2307.07575).

Four layers; a module imports only from its own layer or the ones above it in this list:

``lib.core``
    The building blocks: ``tasks`` (the multitask environment and its architectures), ``models``,
    ``losses``, ``engines`` (which training engine, one default), ``training`` and
    ``training_kernel`` (full-batch gradient descent; the compiled CPU kernel), ``steps`` (one
    gradient step and the loop between snapshots), ``patterns`` (distinct training patterns),
    ``kernels`` (NTK, eNTK, ePNTK), ``step_kernels`` (the eNTK integrated over one step),
    ``kernel_statistics`` (alignment, leading vectors, task profiles), ``entk_variants``,
    ``kernel_reference`` (neural-tangents and timing references), ``validation`` (parameter
    checks), ``parallel``, ``cpu_target``, and ``results``, the on-disk cache with provenance that
    every layer writes through (its key, parameters and computation conditions, in ``cache_key``;
    the ``lib`` files an entry's computation can run, in ``code_closure``; one entry's files,
    their checks and its lock, in ``cache_entry``).
``lib.experiments``
    What is run: ``schedules`` (the paper's schedules, standard/large pairs, the t=0 eNTK),
    ``smg`` (the linear validation problem), ``continuum`` (the rich-to-lazy init-scale sweep),
    ``epntk_stream`` (the streamed ePNTK), ``kernel_dynamics`` (the eNTK over training of the
    multitask network), ``horizon_snapshots`` (networks retrained to fractions of a phase),
    ``two_point``, ``gated_race`` and ``route_learning`` (the rival theories' networks and the
    multitask network's route learning), ``paper`` (the paper's reported correlations), ``sweep``,
    ``sweep_cluster``, ``sweep_watch`` and ``sweep_table`` (grids on Dask, the cluster they run on,
    their monitoring, their results as tables) and ``sweep_points`` (functions to sweep).
``lib.analyses``
    What is measured on the runs: ``entk_vectors`` (leading eNTK vectors, silhouettes),
    ``controls`` (the t=0 eNTK's small-weight limit and kernel-free rivals), ``partitions``,
    ``representations`` (grouping, ARI), ``structure_report`` (chapter 04's tables), ``stats``,
    ``network_measures`` (per-network predictors and outcomes), ``continuum_points`` and
    ``continuum_sweeps`` (the continuum's sweep points and sweeps), ``robustness``,
    ``within_scale``, ``kernel_analysis`` (alignment, sharing), ``attribution``, ``mphate``,
    ``explorer`` (one network at one setting, for the live explorer), the prediction horizon
    (``horizon``, ``horizon_points``, ``horizon_pairs``, ``horizon_finetune``, ``horizon_checks``),
    the rival theories (``rival_theories``, ``rival_comparison``, ``rival_continuum``), and
    the verdicts: ``claims`` (the registry; its types in ``claim_types``, its data in
    ``claim_registry_paper`` and ``claim_registry_horizon_rivals``; the digest of the code that decides a
    verdict in ``verdict_code``), ``claim_tests``, the chapters' claim rules (``smg_claims``: 02 and 03; ``representation_claims``: 04),
    ``expected_signs``,
    ``multiple_testing``, ``checks``.
``lib.book``
    Book plumbing: ``chapters`` (one declaration per chapter, from which the runner's tables derive),
    ``runner`` (papermill execution with profiles; ``notebook_sources``, the
    chapters' sources and their pairing; ``run_parameters``, the runner's parameters and their
    checks; ``concurrent_runs``, chapters side by side), ``chapter_parameters`` (each chapter's parameter checks; chapters 10-13's in
    ``chapter_parameters_beyond``, shared ones in ``parameter_checks``), ``kernel_manager`` and ``page_outputs`` (quiet kernels; what a
    published page may show), ``summary`` (the verdicts page's records), ``plot_style`` and the
    ``plot_*`` modules (every figure, by chapter), ``tables`` and ``names`` (what a table shows),
    ``entk_report`` and ``entk_findings`` (chapter 08's tables and sentences), ``horizon_report`` and
    ``rival_report`` (chapters 12 and 13's), ``sweep_command`` (sweeps of notebooks and the
    ``python -m lib.book.sweep_command`` command line).
"""

__version__ = "0.1.0"

import os as _os
import sys as _sys

# JAX's persistent compilation cache is off in every process that imports ``lib`` and in the ones it
# starts, whatever ``JAX_COMPILATION_CACHE_DIR`` says: with jaxlib 0.5.3 on the CPU, an executable
# loaded from that cache runs a loop whose trip count is traced (``fori_loop(0, n, ...)`` with a
# traced ``n``; the streamed ePNTK's gradient steps are such loops) zero times, silently
# (``tests/test_jax_cache.py`` shows it with the cache and shows ``lib`` preventing it).
_os.environ["JAX_ENABLE_COMPILATION_CACHE"] = "false"

# One BLAS thread in every process that imports ``lib`` and in the ones it starts (notebook kernels, Dask
# workers, test workers): a float32 product's bits may depend on OpenBLAS's thread count (they do on a
# Zen 5 CPU with OpenBLAS's Haswell kernels), and the results cache does not key on it, so every result is
# computed with the same one (``tests/test_cache_key.py`` checks it). The processes that share the cores
# lose nothing by it: OpenBLAS's spinning threads slow LAPACK calls when more threads than cores compete
# (``benchmarks/blas_threads.py``).
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
_os.environ.update(ONE_BLAS_THREAD)
if "numpy" in _sys.modules:  # a BLAS loaded before lib read the variables already: limit it directly
    from threadpoolctl import threadpool_limits as _threadpool_limits

    _threadpool_limits(1, user_api="blas")
if "jax" in _sys.modules:  # imported before lib: switch the cache off there too
    from jax.experimental.compilation_cache import compilation_cache as _compilation_cache

    _sys.modules["jax"].config.update("jax_enable_compilation_cache", False)
    _compilation_cache.reset_cache()
