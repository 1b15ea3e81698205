"""Predicting representational learning from the empirical NTK (Pyle et al., arXiv 2307.07575).

Modules: ``tasks`` (environment), ``models`` (networks), ``losses``, ``training``
(full-batch GD with optax + ``lax.scan``), ``kernels`` (NTK, eNTK, ePNTK), ``experiments``
(paper schedules, standard/large pairs), ``analysis``, ``controls`` (the t=0 eNTK against
kernel-free controls), ``partitions``, ``representations``, ``stats``, ``mphate``, ``plotting``,
``results`` (on-disk cache with provenance), ``summary`` (verdict rows), ``paper`` (the paper's
numbers and claims), ``validation``.
"""

__version__ = "0.1.0"
