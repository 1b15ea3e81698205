"""Predicting representational learning from the empirical NTK (Pyle et al., arXiv 2307.07575).

Four layers; a module imports only from its own layer or the ones above it in this list:

``lib.core``
    The building blocks: ``tasks`` (the multitask environment), ``models``, ``losses``,
    ``training`` (full-batch GD, optax + ``lax.scan``), ``kernels`` (NTK, eNTK, ePNTK),
    ``kernel_reference`` (neural-tangents and timing references), ``validation`` (parameter
    checks), and ``results``, the on-disk cache with provenance that every layer writes
    through (it sits here, below the experiments that use it).
``lib.experiments``
    What is run: ``schedules`` (the paper's schedules, standard/large pairs, the t=0 eNTK),
    ``smg`` (the linear validation problem), ``continuum`` (the rich-to-lazy init-scale
    sweep), ``kernel_dynamics`` (the eNTK over training and the streamed ePNTK), ``paper``
    (the paper's settings, reported numbers and claims), ``sweep`` (grids on Dask) and
    ``sweep_points`` (functions to sweep).
``lib.analyses``
    What is measured on the runs: ``entk_vectors`` (leading eNTK vectors, silhouettes),
    ``controls`` (the t=0 eNTK's small-weight limit and kernel-free rivals), ``partitions``,
    ``representations`` (grouping, ARI), ``stats`` (correlations with controls),
    ``predictors`` (t=0 predictors and outcomes), ``kernel_analysis`` (alignment, sharing),
    ``mphate``.
``lib.book``
    Book plumbing: ``runner`` (papermill execution with profiles), ``summary`` (the verdicts
    page's records), ``plotting`` and ``plot_style`` (every figure), ``sweep_command`` (sweeps
    of notebooks and the ``python -m lib.book.sweep_command`` command line).
"""

__version__ = "0.1.0"
