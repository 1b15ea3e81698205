"""The leading eNTK loadings at t=0 of both networks of one standard/large pair (the quickstart's Fig 15 in miniature)."""

from __future__ import annotations

import numpy as np

from ..core.models import INITS
from ..core.tasks import TaskEnvironment
from ..experiments.schedules import entk_at_init
from .entk_vectors import leading_vectors


def leading_loadings_at_init(env: TaskEnvironment, result: dict[str, np.ndarray], pair: int,
                             variant: str = "principled") -> dict[str, np.ndarray]:
    """init -> (M, K) loadings: the leading vector of each output unit's t=0 eNTK of network
    ``pair`` of a :func:`lib.experiments.schedules.run_pairs` result, for each init. ``variant``:
    the eNTK variant (:data:`lib.core.entk_variants.ENTK_VARIANTS`); "principled" takes the
    leading right singular vector, "authors" the first eigenvector ``np.linalg.eig`` returns."""
    method = "principled" if variant == "principled" else "authors"
    return {init: leading_vectors(entk_at_init(env, result, pair, init, variant), method) for init in INITS}
