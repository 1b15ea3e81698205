"""The prediction horizon during fine-tuning: every horizon predictor of the continuum's networks at
fractions f of their fine-tuning phase, for the fine-tuning outcomes.

Analyses layer. :func:`finetune_horizon_point` (a sweep point) trains one block of networks of one
init scale through the single-task phase and then to the fine-tuning snapshots
(:func:`lib.experiments.horizon_snapshots.finetune_snapshots`: the continuum's weights, data,
learning rate and engine) and applies :func:`lib.analyses.horizon_points.network_predictors` on the
*multitask* data: the kernels are the eNTK of the multitask training set, the rivals the sharing
index and the multitask losses so far. :func:`finetune_horizon_sweep` runs the blocks of every
scale on Dask (cached).

The fine-tuning speed (the share of the multitask test loss removed in the first tenth of
fine-tuning) is defined on the same losses that the rivals observe during that tenth: a loss
observed at f <= 10% shares data with it by construction.
"""

from __future__ import annotations

import numpy as np

from .continuum_points import POINT_DEFAULTS, _complete, _seeds
from .horizon_points import scale_block_sweep, snapshot_predictors
from ..core.engines import DEFAULT_ENGINE
from ..core.models import MultitaskNet
from ..core.tasks import TaskEnvironment
from ..experiments.horizon_snapshots import finetune_snapshots, snapshot_iterations

FINETUNE_FRACTIONS = (0.0, 0.01)  # the book's default fractions of fine-tuning (the time budget: see chapter 12)
FINETUNE_HORIZON_DEFAULTS = {**POINT_DEFAULTS, "engine": DEFAULT_ENGINE.value, "lr": 0.01, "n_single": 2500,
                             "n_finetune": 2500, "fractions": list(FINETUNE_FRACTIONS)}


def finetune_horizon_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point: every horizon predictor (F, S) of the networks ``first_seed`` ... at init scale
    ``g`` (trained with ``lr``: ``n_single`` single-task iterations, then fine-tuning of
    ``n_finetune``) at the ``fractions`` of fine-tuning, on the multitask data; plus ``iterations`` (F,)."""

    p = finetune_horizon_point.check_parameters(parameters)
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, p["n_hidden"])
    run = finetune_snapshots(env, _seeds(p), p["g"], p["scaling"], p["lr"], p["n_single"], p["n_finetune"],
                             p["fractions"], p["n_hidden"], p["n_train"], p["n_test"], engine=p["engine"])
    return snapshot_predictors(env, net, run, f"fine-tuning horizon g={p['g']:g}")


def _check_finetune_horizon(parameters: dict) -> dict:
    p = _complete("finetune_horizon_point", FINETUNE_HORIZON_DEFAULTS, parameters)
    p["fractions"] = [float(f) for f in p["fractions"]]
    snapshot_iterations(p["fractions"], p["n_finetune"])  # fractions in [0, 1], distinct iterations
    return p


finetune_horizon_point.check_parameters = _check_finetune_horizon


def finetune_horizon_sweep(scales, learning_rates, n_seeds: int, common: dict, fractions=FINETUNE_FRACTIONS,
                           block_seeds: int = 15, progress: bool = True, first_seed: int = 0) -> dict[str, np.ndarray]:
    """The predictors of every network of the converged continuum at every fraction of fine-tuning:
    cached :func:`finetune_horizon_point` blocks (as :func:`lib.analyses.horizon_points.horizon_sweep`,
    seeds ``first_seed``..., with ``n_single``, ``n_finetune``, ``n_hidden``, ``n_train``, ``n_test``
    from ``common``).

    Returns ``g``, ``seed`` (N,) scale-major, ``fractions``, ``iterations`` (F,), every predictor (F, N)."""
    size = {k: common[k] for k in ("n_single", "n_finetune", "n_hidden", "n_train", "n_test") if k in common}
    return scale_block_sweep(finetune_horizon_point, "lib.analyses.horizon_finetune:finetune_horizon_point", scales,
                             learning_rates, n_seeds, size, fractions, block_seeds, progress, first_seed)
