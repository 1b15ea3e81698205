"""Predicting representational learning from the empirical NTK (Pyle et al., arXiv 2307.07575).

Modules: ``tasks`` (environment), ``models`` (networks), ``losses``, ``training``
(full-batch GD with optax + ``lax.scan``), ``kernels`` (NTK, eNTK, ePNTK), ``experiments``
(paper schedules, standard/large pairs), ``analysis``, ``mphate``, ``plotting``,
``results`` (on-disk cache with provenance), ``validation``.
"""

__version__ = "0.1.0"
