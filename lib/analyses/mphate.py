"""M-PHATE (Gigante et al. 2019) of hidden activity over training, via ``m_phate.M_PHATE``.

Deterministic: with its defaults, ``m_phate`` builds each time slice's graph with
``graphtools.Graph(n_pca=100)`` without passing on ``random_state``, so each slice goes through
an unseeded randomized PCA and two runs differ.
We pass ``n_pca=None``: slices are compared by exact distances in the hidden space (a slice has
only G <= 36 points, so this is cheap), and the whole embedding is bit-identical run to run.

Disconnected graphs: where the group means of some snapshots lie far from all others, the
multislice graph falls into several connected components and PHATE warns ("Graph is
disconnected", a RuntimeWarning on stderr); each component is then embedded without
distances to the others. :func:`embed_over_time` does not publish that warning: it returns the
number of components (``return_components=True``), for a chapter to state.
"""

from __future__ import annotations

import warnings

import numpy as np

from .checks import check_finite
from ..core.validation import check_int, check_seed

DISCONNECTED_WARNING = r"Graph is disconnected with \d+ connected components"


def embed_over_time(
    activity: np.ndarray,
    n_components: int = 2,
    interslice_knn: int = 25,
    seed: int = 0,
    n_jobs: int = 1,
    n_landmark: int = 1000,
    return_components: bool = False,
) -> np.ndarray | tuple[np.ndarray, int]:
    """Embed grouped hidden activity of shape (T snapshots, G groups, H units) into
    (T, G, n_components) with M-PHATE. Needs T > ``interslice_knn``, G >= 2 groups, H >= 1 units
    and finite activity.

    ``n_landmark`` (PHATE's landmark approximation of the diffusion operator) matters only
    above that many points (T x G); 1000 keeps a 101 x 36 embedding to seconds instead of
    ~40 s with M-PHATE's default of 4000.

    With ``return_components``: ``(embedding, n_graph_components)``, the number of connected
    components of M-PHATE's graph (1: connected); PHATE's warning about a disconnected graph is
    not emitted either way (see the module docstring)."""
    activity = np.asarray(activity, dtype=np.float64)
    if activity.ndim != 3:
        raise ValueError(f"activity must be (snapshots, groups, units), got shape {activity.shape}")
    n_slices = activity.shape[0]
    if activity.shape[1] < 2 or activity.shape[2] < 1:
        raise ValueError(f"activity must hold >= 2 groups and >= 1 unit per snapshot (snapshots, groups, units), got "
                         f"shape {activity.shape}")
    check_finite("activity", activity)
    check_int("n_components", n_components, minimum=1)
    check_int("interslice_knn", interslice_knn, minimum=1)
    check_seed("seed", seed)
    if check_int("n_jobs", n_jobs) == 0:
        raise ValueError("n_jobs must be a non-zero integer (the number of processes; -1: all cores), got 0")
    check_int("n_landmark", n_landmark, minimum=1)
    if n_slices <= interslice_knn:
        raise ValueError(
            f"M-PHATE needs more snapshots than interslice_knn: got {n_slices} snapshots and "
            f"interslice_knn={interslice_knn}; lower interslice_knn or record more snapshots"
        )
    import m_phate  # imported here (after the checks): it is slow to import and only this function needs it

    operator = m_phate.M_PHATE(
        n_components=n_components,
        interslice_knn=interslice_knn,
        random_state=seed,
        n_jobs=n_jobs,
        verbose=0,
        n_landmark=n_landmark,
        n_pca=None,  # exact per-slice distances: m_phate's default PCA here is unseeded (see module docstring)
    )
    # PHATE's "Graph is disconnected" RuntimeWarning: handled (counted) here, not printed. A process-wide
    # filter for that one message, because M-PHATE runs in threads (lib.core.parallel), where
    # warnings.catch_warnings would restore the filters under another thread's feet.
    warnings.filterwarnings("ignore", message=DISCONNECTED_WARNING, category=RuntimeWarning)
    embedding = np.asarray(operator.fit_transform(activity)).reshape(n_slices, activity.shape[1], n_components)
    if return_components:
        return embedding, int(getattr(operator.graph, "n_connected_components", 1))
    return embedding
