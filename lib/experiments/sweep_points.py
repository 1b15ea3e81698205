"""Experiment functions for :mod:`lib.experiments.sweep`: one parameter point in, a dict of arrays out.

A *point function* takes a parameter dict and returns ``{name: numpy array}``; the sweep
engine caches that dict under the point's parameters. A point function may carry a
``check_parameters`` attribute (point dict -> complete, validated point dict with defaults
filled in): the engine calls it on every grid point before any work starts, and caches
under the complete dict, so a default changed here is a different cache entry.

    python -m lib.experiments.sweep --function lib.experiments.sweep_points:pair_final_losses --grid seed=0,1,2,3
"""

from __future__ import annotations

import numpy as np

from .schedules import SCHEDULES, run_pairs
from ..core.tasks import TaskEnvironment
from ..core.validation import check_choice, check_int

PAIR_DEFAULTS = {"schedule": "LR", "n_iterations": 100, "n_hidden": 200}


def check_pair_parameters(parameters: dict) -> dict:
    """The complete parameters of :func:`pair_final_losses`: ``seed`` (required, int >= 0),
    ``schedule`` ("ET" or "LR"), ``n_iterations`` (int >= 1), ``n_hidden`` (int >= 1)."""
    allowed = ("seed", *PAIR_DEFAULTS)
    unknown = sorted(set(parameters) - set(allowed))
    if unknown:
        raise ValueError(f"pair_final_losses parameters must be among {list(allowed)}, got unknown {unknown}")
    if "seed" not in parameters:
        raise ValueError("seed is required (pair seed: weight draw and dataset, an integer >= 0)")
    complete = {**PAIR_DEFAULTS, **parameters}
    check_int("seed", complete["seed"], minimum=0)
    check_choice("schedule", complete["schedule"], SCHEDULES)
    check_int("n_iterations", complete["n_iterations"], minimum=1)
    check_int("n_hidden", complete["n_hidden"], minimum=1)
    return {name: complete[name] for name in allowed}


def pair_final_losses(parameters: dict) -> dict[str, np.ndarray]:
    """Train one standard/large pair of the paper network (single-task phase) and return
    its losses after ``n_iterations`` full-batch steps.

    Returns:
        ``loss_train``, ``loss_test``: (2,) float32 summed squared errors after training,
        standard init first; ``loss_train_initial``: (2,) the same before training.
    """
    p = check_pair_parameters(parameters)
    out = run_pairs(TaskEnvironment(), p["schedule"], [p["seed"]], n_hidden=p["n_hidden"],
                    n_iterations=p["n_iterations"], n_snapshots=2)
    return {
        "loss_train": out["loss_train"][0, :, -1],
        "loss_test": out["loss_test"][0, :, -1],
        "loss_train_initial": out["loss_train"][0, :, 0],
    }


pair_final_losses.check_parameters = check_pair_parameters
