"""Robustness of the paper's binary comparison (standard vs large init): the Sec 5 experiment
rerun on more seeds and iterations, who wins each phase, and the principled t=0 silhouette of
every network.

Analyses layer; used by the continuum chapter.
"""

from __future__ import annotations

import numpy as np

from .entk_vectors import silhouette_of_loadings
from ..core.tasks import TaskEnvironment, environment_key

def principled_loadings_fast(entk_matrix: np.ndarray) -> np.ndarray:
    """(M, K) the principled leading right singular vectors of each output's eNTK (as
    :func:`lib.analyses.entk_vectors.leading_vectors`), by a Lanczos partial SVD (scipy ``svds``, k=1)
    instead of a full SVD: the same vectors, much faster for 500 x 500 matrices."""
    from scipy.sparse.linalg import svds

    from .entk_vectors import _fix_sign

    cols = []
    for m in np.asarray(entk_matrix, np.float64):
        _, _, vt = svds(m, k=1, random_state=0)
        cols.append(_fix_sign(vt[0]))
    return np.stack(cols, axis=1)


def pair_silhouettes(env: TaskEnvironment, seeds, n_hidden: int = 200, n_train: int = 500) -> np.ndarray:
    """(P, 2) principled-variant t=0 eNTK silhouette of every standard/large pair of ``seeds``
    (the networks :func:`lib.experiments.schedules.run_schedule` trains)."""
    from ..core.models import INITS
    from ..core.parallel import parallel_map
    from ..experiments.schedules import entk_at_init, initial_pairs

    pairs = initial_pairs(env, seeds, n_hidden, n_train)
    networks = [(p, init) for p in range(len(pairs["x_train"])) for init in INITS]
    silhouettes = parallel_map(lambda p, init: silhouette_of_loadings(principled_loadings_fast(
        entk_at_init(env, pairs, p, init))), networks, desc="t=0 silhouettes")
    return np.array(silhouettes).reshape(-1, len(INITS))


def binary_comparison(single_test: np.ndarray, finetune_test: np.ndarray, single_train: np.ndarray,
                      finetune_train: np.ndarray, converged_ratio: float = 0.1) -> dict[str, float]:
    """Who wins each phase over P standard/large pairs, and who did not converge.

    Args: final test losses (P, 2) per phase, and training-loss curves (P, 2, S) per phase.
    A network *did not converge* in a phase when its final training loss is not finite or
    above ``converged_ratio`` times its initial training loss of that phase.
    """
    out = {"n_pairs": int(len(single_test))}
    for phase, test, train in (("single", single_test, single_train), ("finetune", finetune_test, finetune_train)):
        test, train = np.asarray(test, np.float64), np.asarray(train, np.float64)
        out[f"{phase}/standard_wins"] = int((test[:, 0] < test[:, 1]).sum())
        out[f"{phase}/large_wins"] = int((test[:, 1] < test[:, 0]).sum())
        bad = ~np.isfinite(train[..., -1]) | (train[..., -1] > converged_ratio * train[..., 0])
        out[f"{phase}/not_converged_standard"] = int(bad[:, 0].sum())
        out[f"{phase}/not_converged_large"] = int(bad[:, 1].sum())
    return out


def robustness_runs(env: TaskEnvironment, plan: dict, n_hidden: int = 200,
                    block_pairs: int = 10) -> dict[str, dict[str, np.ndarray]]:
    """Per schedule: the Sec 5 experiment of the seeds and iterations in ``plan`` (schedule ->
    (seeds, n_iterations), as :func:`lib.experiments.schedules.check_schedule_parameters` returns
    it), trained in cached blocks of ``block_pairs`` pairs on Dask
    (:func:`lib.experiments.sweep_points.cached_schedule_blocks`: blocks a notebook already ran
    are read), and the principled t=0 silhouette of every network (cached), as ``silhouette``
    (P, 2), final test losses ``single``/``finetune`` (P, 2) and training curves
    ``single_train``/``finetune_train`` (P, 2, S)."""
    from ..core import results
    from ..experiments.sweep_points import cached_schedule_blocks

    runs = cached_schedule_blocks(env, plan, block_pairs, n_hidden)
    out = {}
    for schedule, (seeds, _) in plan.items():
        run = runs[schedule]
        key = dict(env=environment_key(env), seeds=list(seeds), n_hidden=n_hidden)
        sil = results.cached("pair_silhouettes", key,
                             lambda: {"silhouette": pair_silhouettes(env, seeds, n_hidden)}, computed_by=__name__)["silhouette"]
        out[schedule] = {"silhouette": sil, "single": run["single/loss_test"][:, :, -1],
                         "finetune": run["finetune/loss_test"][:, :, -1], "single_train": run["single/loss_train"],
                         "finetune_train": run["finetune/loss_train"]}
    return out
