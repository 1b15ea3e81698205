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

from .schedules import (SCHEDULE_CODE, SCHEDULES, cached_schedule, params_of, run_early_phases, run_pairs,
                        run_schedule, schedule_parameters)
from ..core.engines import DEFAULT_ENGINE, Engine, engine_of_tag
from ..core.tasks import TaskEnvironment
from ..core.validation import check_choice, check_int, check_seed, check_seeds, check_size

PAIR_DEFAULTS = {"schedule": "LR", "n_iterations": 100, "n_hidden": 200}
# sizes above these (hours of training per point) only when confirmed (lib.core.validation.check_size):
# the chapters' own bounds on iterations, hidden units and pairs
SANE_ITERATIONS, SANE_HIDDEN, SANE_PAIRS = 100_000, 5000, 200


def check_pair_parameters(parameters: dict) -> dict:
    """The complete parameters of :func:`pair_final_losses`: ``seed`` (required, int in [0, 2**32)),
    ``schedule`` ("ET" or "LR"), ``n_iterations`` (int in [1, 100000]), ``n_hidden`` (int in
    [1, 5000]); larger sizes only when confirmed (``allow_large`` of the sweep)."""
    allowed = ("seed", *PAIR_DEFAULTS)
    unknown = sorted(set(parameters) - set(allowed))
    if unknown:
        raise ValueError(f"pair_final_losses parameters must be among {list(allowed)}, got unknown {unknown}")
    if "seed" not in parameters:
        raise ValueError("seed is required (pair seed: weight draw and dataset, an integer >= 0)")
    complete = {**PAIR_DEFAULTS, **parameters}
    check_seed("seed", complete["seed"])
    check_choice("schedule", complete["schedule"], SCHEDULES)
    check_size("n_iterations", complete["n_iterations"], minimum=1, sane_maximum=SANE_ITERATIONS)
    check_size("n_hidden", complete["n_hidden"], minimum=1, sane_maximum=SANE_HIDDEN)
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


# --- the Sec 5 experiment in blocks of pairs ----------------------------------------------------

SCHEDULE_CACHE = "schedule"  # the results-cache name of lib.experiments.schedules.cached_schedule
_SCHEDULE_KEYS = ("env", "schedule", "seeds", "n_iterations", "n_hidden", "split", "large_scaling", "engine_tag")


def check_schedule_point(parameters: dict) -> dict:
    """The complete parameters of :func:`schedule_point`, which are exactly the cache key of
    :func:`lib.experiments.schedules.cached_schedule` (:func:`~lib.experiments.schedules.schedule_parameters`):
    ``env`` [n_in_pools, n_out_pools, n_features], ``schedule``, ``seeds``, ``n_iterations``,
    ``n_hidden``, ``split``, ``large_scaling`` and ``engine_tag`` (an engine's
    :attr:`~lib.core.engines.Engine.tag`). A point and a notebook's
    ``cached_schedule`` of the same pairs therefore share one cache entry. ``n_iterations`` above
    100000, ``n_hidden`` above 5000 or more than 200 ``seeds`` only when confirmed (``allow_large``
    of the sweep)."""
    unknown, missing = sorted(set(parameters) - set(_SCHEDULE_KEYS)), sorted(set(_SCHEDULE_KEYS) - set(parameters))
    if unknown or missing:
        raise ValueError(f"schedule_point parameters must be exactly {list(_SCHEDULE_KEYS)}; unknown {unknown}, "
                         f"missing {missing}")
    engine = engine_of_tag(parameters["engine_tag"])
    env = parameters["env"]
    if not (isinstance(env, (list, tuple)) and len(env) == 3):
        raise ValueError(f"env must be [n_in_pools, n_out_pools, n_features], got {env!r}")
    n_hidden = check_size("n_hidden", parameters["n_hidden"], minimum=1, sane_maximum=SANE_HIDDEN)
    key = schedule_parameters(TaskEnvironment(*env), parameters["schedule"], parameters["seeds"],
                              parameters["n_iterations"], n_hidden, parameters["split"], parameters["large_scaling"],
                              engine)
    check_size("n_iterations", key["n_iterations"], minimum=1, sane_maximum=SANE_ITERATIONS)
    check_size("number of seeds", len(key["seeds"]), minimum=1, sane_maximum=SANE_PAIRS)
    return key


def schedule_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point: :func:`lib.experiments.schedules.run_schedule` of the pairs ``seeds`` (the
    single-task phase, then fine-tuning), with the parameters of :func:`check_schedule_point`."""
    p = check_schedule_point(parameters)
    return run_schedule(TaskEnvironment(*p["env"]), p["schedule"], p["seeds"], p["n_iterations"], p["n_hidden"],
                        split=p["split"], progress=False, engine=engine_of_tag(p["engine_tag"]),
                        large_scaling=p["large_scaling"])


schedule_point.check_parameters = check_schedule_point
schedule_point.computed_by = SCHEDULE_CODE  # its entries are cached_schedule's


def cached_schedule_blocks(env: TaskEnvironment, plan: dict, block_pairs: int = 10, n_hidden: int = 200,
                           engine: Engine | str = DEFAULT_ENGINE, client=None, progress: bool = True, split: str = "iid",
                           large_scaling: str = "both_layers") -> dict[str, dict[str, np.ndarray]]:
    """:func:`lib.experiments.schedules.cached_schedule` of many pairs per schedule, trained as
    sweep points of ``block_pairs`` consecutive seeds each (a schedule's last block may be
    shorter), all schedules' blocks in one Dask sweep, and joined per schedule.

    Each block is its own cache entry, the same entry as ``cached_schedule`` of those seeds, so
    blocks already computed (by a notebook or an earlier sweep) are read, not trained again;
    the others run in parallel on the workers. A network's weights and recorded losses do not
    depend on the other networks of its block (each trains, and its losses are summed, on its
    own), so the joined arrays equal those of one block of all the pairs, bit for bit (tested).

    Args:
        plan: schedule -> (seeds, n_iterations or None for the schedule's own), as
            :func:`lib.experiments.schedules.check_schedule_parameters` returns it.
        client: an existing ``distributed.Client`` (default: a local cluster, started only if
            a block is missing).
        split, large_scaling: as :func:`lib.experiments.schedules.cached_schedule` (part of each
            block's cache key).

    Returns: schedule -> the :func:`~lib.experiments.schedules.run_schedule` arrays with the pair
    axis over all its seeds, in order.
    """
    from .sweep import sweep

    check_int("block_pairs", block_pairs, minimum=1)
    points, owner = [], []
    for schedule, (seeds, n_iterations) in plan.items():
        seeds = check_seeds(f"seeds of {schedule}", seeds)
        for i in range(0, len(seeds), block_pairs):
            points.append(schedule_parameters(env, schedule, seeds[i:i + block_pairs], n_iterations, n_hidden,
                                              split, large_scaling, engine))
            owner.append(schedule)
    report = sweep(points, "lib.experiments.sweep_points:schedule_point", name=SCHEDULE_CACHE, client=client,
                   progress=progress)
    if not report.ok:
        raise RuntimeError("schedule blocks failed:\n" + "\n".join(f.format() for f in report.failures))
    loaded = report.load()
    out = {}
    for schedule in plan:
        blocks = [b for b, o in zip(loaded, owner) if o == schedule]
        out[schedule] = {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0] if k != "iterations"}
        out[schedule]["iterations"] = blocks[0]["iterations"]
    return out


EARLY_PHASE_CACHE = "early_phases"  # the results-cache name of cached_early_phase_blocks


def cached_early_phase_blocks(env: TaskEnvironment, plan: dict, window_fraction: float = 0.1, every: int = 10,
                              block_pairs: int = 10, n_hidden: int = 200, split: str = "iid",
                              large_scaling: str = "both_layers",
                              engine: Engine | str = DEFAULT_ENGINE) -> dict[str, dict[str, np.ndarray]]:
    """The first ``window_fraction`` of both phases of the pairs of :func:`cached_schedule_blocks`
    (same ``plan``, ``block_pairs`` and choices), snapshotted every ``every`` iterations
    (:func:`lib.experiments.schedules.run_early_phases`), cached per block.

    Fine-tuning starts from the block's single-task-trained weights, read from its
    :func:`~lib.experiments.schedules.cached_schedule` entry (trained there first if missing).
    A block's cache key is that entry's key plus ``window`` (iterations: ``window_fraction`` of the
    schedule's count) and ``every``. ``window`` must be a multiple of ``every``.

    Returns: schedule -> ``single/loss_test`` etc. (P, 2, window // every + 1) over all its seeds in
    order, and ``iterations`` (S,).
    """
    from ..core import results

    check_int("block_pairs", block_pairs, minimum=1)
    if isinstance(window_fraction, bool) or not isinstance(window_fraction, (int, float)) or not 0 < window_fraction <= 1:
        raise ValueError(f"window_fraction must be a number in (0, 1], got {window_fraction!r}")
    out = {}
    for schedule, (seeds, n_iterations) in plan.items():
        seeds = check_seeds(f"seeds of {schedule}", seeds)
        blocks = []
        for i in range(0, len(seeds), block_pairs):
            block = seeds[i:i + block_pairs]
            key = schedule_parameters(env, schedule, block, n_iterations, n_hidden, split, large_scaling, engine)
            window = round(window_fraction * key["n_iterations"])
            key |= {"window": check_int("window", window, minimum=1), "every": check_int("every", every, minimum=1)}

            def compute(block=block, window=window):
                full = cached_schedule(env, schedule, block, n_iterations, n_hidden, split, large_scaling, engine)
                return run_early_phases(env, schedule, block, params_of(full, "single/params_final"), window, every,
                                        n_hidden, split=split, large_scaling=large_scaling, engine=engine)

            blocks.append(results.cached(EARLY_PHASE_CACHE, key, compute, computed_by=__name__))
        out[schedule] = {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0] if k != "iterations"}
        out[schedule]["iterations"] = blocks[0]["iterations"]
    return out
