"""The prediction horizon on the paper's standard/large pairs: every horizon predictor of every
pair network at fractions f of its single-task phase, and the outcomes chapters 05-06 use.

Analyses layer. :func:`pair_horizon_point` (a sweep point) retrains one block of pairs of one
schedule to the snapshots (:func:`lib.experiments.horizon_snapshots.pair_single_task_snapshots`:
the same weights, data, learning rates and engine as the schedule runs of
:func:`lib.experiments.schedules.run_schedule`) and applies
:func:`lib.analyses.horizon_points.network_predictors` to every network; :func:`pair_horizon_sweep`
runs the blocks of every schedule on Dask (cached). :func:`pair_outcomes` reads the outcomes of
the schedule runs themselves. Networks are ordered as the schedules store them: per schedule,
pair by pair, standard then large (N = 2 x pairs per schedule); the analysis groups are
schedule x init (:func:`pair_groups`).

Losses here are the schedule runs' summed squared errors (over the 500 patterns), not means:
within a group every predictor and outcome is z-scored, so the unit does not matter.
"""

from __future__ import annotations

from collections.abc import Mapping

import jax.numpy as jnp
import numpy as np

from .horizon_points import KERNEL_PREDICTORS, RIVAL_PREDICTORS, check_initial_silhouettes, snapshot_predictors
from .network_measures import hidden_by_task, learning_speed, sharing_index
from ..core import results
from ..core.engines import DEFAULT_ENGINE, check_engine
from ..core.entk_variants import ENTK_VARIANTS
from ..core.models import INITS, LARGE_SCALINGS, MultitaskNet
from ..core.tasks import SPLITS, TaskEnvironment
from ..core.validation import check_choice, check_int
from ..experiments.horizon_snapshots import pair_single_task_snapshots, snapshot_iterations
from ..experiments.schedules import SCHEDULES, get_schedule, params_of

PAIR_FRACTIONS = (0.0, 0.01, 0.1)  # the pairs' default fractions (fewer than the continuum's: see the chapter)
PAIR_OUTCOMES = ("sharing_final", "loss_single_test", "finetune_speed", "loss_finetune_test")
PAIR_HORIZON_DEFAULTS = {"schedule": "LR", "first_seed": 0, "n_pairs": 5, "n_iterations": None,
                         "fractions": list(PAIR_FRACTIONS), "n_hidden": 200, "n_train": 500, "n_test": None,
                         "split": "iid", "large_scaling": "both_layers", "engine": DEFAULT_ENGINE.value,
                         "initial_silhouettes": True}


def check_pair_horizon(parameters: dict) -> dict:
    """The complete parameters of :func:`pair_horizon_point` (defaults :data:`PAIR_HORIZON_DEFAULTS`;
    ``n_iterations`` None: the schedule's own count, filled in; ``n_test`` None: 500 for the iid split)."""
    unknown = sorted(set(parameters) - set(PAIR_HORIZON_DEFAULTS))
    if unknown:
        raise ValueError(f"pair_horizon_point parameters must be among {sorted(PAIR_HORIZON_DEFAULTS)}, got unknown "
                         f"{unknown}")
    p = {**PAIR_HORIZON_DEFAULTS, **parameters}
    check_choice("schedule", p["schedule"], SCHEDULES)
    if p["n_iterations"] is None:
        p["n_iterations"] = get_schedule(p["schedule"]).n_iterations
    for key in ("first_seed", "n_pairs", "n_iterations", "n_hidden", "n_train"):
        check_int(key, p[key], minimum=0 if key == "first_seed" else 1)
    check_choice("split", p["split"], SPLITS)
    check_choice("large_scaling", p["large_scaling"], LARGE_SCALINGS)
    check_engine("engine", p["engine"])
    if p["n_test"] is None:
        from ..experiments.schedules import test_set_size
        p["n_test"] = test_set_size(TaskEnvironment(), p["split"], p["n_train"])
    check_int("n_test", p["n_test"], minimum=1)
    p["fractions"] = [float(f) for f in p["fractions"]]
    snapshot_iterations(p["fractions"], p["n_iterations"])  # fractions in [0, 1], distinct iterations
    check_initial_silhouettes(p["initial_silhouettes"], p["fractions"])
    return p


def pair_horizon_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point: the predictors of :data:`~lib.analyses.horizon_points.KERNEL_PREDICTORS` and
    :data:`~lib.analyses.horizon_points.RIVAL_PREDICTORS`, (F, 2P) each, of the ``n_pairs`` pairs
    ``first_seed`` ... of ``schedule`` (standard, large, standard, ...) at the ``fractions`` of
    their single-task phase; plus ``loss_train_summed``, ``loss_test_summed`` (2P, F) and
    ``iterations`` (F,). With ``initial_silhouettes`` False the two eNTK silhouettes at f = 0 are
    nan (:func:`pair_horizon_sweep` reads them from the t=0 structure cache instead)."""

    p = pair_horizon_point.check_parameters(parameters)
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, p["n_hidden"])
    seeds = range(p["first_seed"], p["first_seed"] + p["n_pairs"])
    run = pair_single_task_snapshots(env, p["schedule"], seeds, p["fractions"], p["n_iterations"], p["n_hidden"],
                                     p["n_train"], p["n_test"], p["split"], p["large_scaling"], p["engine"])
    out = snapshot_predictors(env, net, run, f"pair horizon {p['schedule']} from seed {p['first_seed']}",
                              p["initial_silhouettes"])
    out["loss_train_summed"], out["loss_test_summed"] = run["loss_train"], run["loss_test"]
    return out


pair_horizon_point.check_parameters = check_pair_horizon


def pair_retrace(snapshots: dict[str, np.ndarray], runs: dict[str, dict[str, np.ndarray]]) -> float:
    """Largest relative difference between the retrained snapshots' summed test loss
    (:func:`pair_horizon_sweep`'s ``loss_test_summed`` (N, F), rows labelled by ``schedule``) and the
    schedule runs' recorded ``single/loss_test`` (pairs, 2, S) at the iterations both have; 0 when
    they are identical (the same gradient descent from the same weights)."""
    worst = 0.0
    for schedule, run in runs.items():
        rows = snapshots["schedule"] == schedule
        recorded = run["single/loss_test"].reshape(int(rows.sum()), -1)  # (2P, S): standard, large, ...
        recorded_at = list(run["iterations"])
        for f, iteration in enumerate(snapshots[f"iterations/{schedule}"]):
            if iteration in recorded_at:
                col = recorded[:, recorded_at.index(iteration)]
                worst = max(worst, float(np.max(np.abs(snapshots["loss_test_summed"][rows, f] - col) / col)))
    return worst


def pair_groups(n_pairs: Mapping[str, int]) -> np.ndarray:
    """(N,) group label "<schedule> <init>" of each network of ``n_pairs`` (schedule -> its number of
    pairs), N = 2 x all pairs, in the order of :func:`pair_horizon_sweep` (schedule-major, then
    pair, then init)."""
    for schedule, count in n_pairs.items():
        check_int(f"n_pairs[{schedule!r}]", count, minimum=1)
    return np.array([f"{s} {init}" for s, count in n_pairs.items() for _ in range(count) for init in INITS])


def pair_outcomes(env: TaskEnvironment, run: dict[str, np.ndarray], finetune_fraction: float = 0.1) -> dict:
    """(2P,) outcomes of every network of a :func:`lib.experiments.schedules.run_schedule` result
    (pair-major, standard then large), as chapters 05, 06 and 10 measure them:

    * ``loss_single_test``: final single-task test loss (summed over the test set);
    * ``finetune_speed``: :func:`~lib.analyses.network_measures.learning_speed` of fine-tuning, the
      share of the multitask test loss removed by ``finetune_fraction`` of fine-tuning (the
      continuum's: one tenth);
    * ``loss_finetune_test``: multitask test loss at the end of fine-tuning;
    * ``sharing_final``: :func:`~lib.analyses.network_measures.sharing_index` of the hidden layer
      after single-task training."""
    iterations = np.asarray(run["iterations"])
    target = finetune_fraction * iterations[-1]
    at = np.flatnonzero(np.isclose(iterations, target))
    if not 0 < finetune_fraction <= 1 or at.size == 0:
        raise ValueError(f"finetune_fraction must be in (0, 1] and a snapshot of the run (iterations "
                         f"{iterations[:3].tolist()}...), got {finetune_fraction!r}")
    finetune = np.asarray(run["finetune/loss_test"])  # (P, 2, S)
    n_pairs = finetune.shape[0]
    final = params_of(run, "single/params_final")
    net = MultitaskNet.for_environment(env, final["w_hidden"].shape[2])
    sharing = [sharing_index(env, hidden_by_task(env, net, {k: jnp.asarray(v[p, i]) for k, v in final.items()}))
               for p in range(n_pairs) for i in range(2)]
    return {"loss_single_test": np.asarray(run["single/loss_test"])[:, :, -1].reshape(-1).astype(np.float64),
            "finetune_speed": np.array([learning_speed(finetune[p, i, [0, at[0]]]) for p in range(n_pairs)
                                        for i in range(2)]),
            "loss_finetune_test": finetune[:, :, -1].reshape(-1).astype(np.float64),
            "sharing_final": np.asarray(sharing, np.float64)}


def pair_horizon_sweep(plan: dict, fractions=PAIR_FRACTIONS, block_pairs: int = 5, n_hidden: int = 200,
                       split: str = "iid", large_scaling: str = "both_layers", engine=DEFAULT_ENGINE,
                       progress: bool = True) -> dict[str, np.ndarray]:
    """The predictors of every pair network of ``plan`` (schedule -> (seeds, n_iterations or None),
    as :func:`lib.experiments.schedules.check_schedule_parameters` returns it; each schedule's seeds
    consecutive) at every fraction: cached :func:`pair_horizon_point` blocks of at most
    ``block_pairs`` pairs, run on Dask.

    When the fractions start at 0, the two t=0 eNTK silhouettes
    (:data:`~lib.analyses.horizon_points.INITIAL_SILHOUETTES`) are read from
    :func:`lib.analyses.controls.cached_initial_structure` of the same seeds (the correlation
    chapter's cache entry, computed here if missing) instead of being computed again: the same
    weights, data and functions, so the same numbers bit for bit (tested).

    Returns ``group`` (:func:`pair_groups`), ``schedule``, ``seed`` (N,) with N = 2 x all pairs,
    ``fractions``, ``iterations/<schedule>`` (F,), every predictor (F, N), ``loss_test_summed``
    (N, F) and ``wall_time_s`` (the blocks' compute time when first computed, summed)."""
    from ..experiments.sweep import sweep
    from ..experiments.sweep_cluster import dask_client

    check_int("block_pairs", block_pairs, minimum=1)
    from_cache = float(fractions[0]) == 0.0
    points, owner = [], []
    for schedule, (seeds, n_iterations) in plan.items():
        seeds = list(seeds)
        if not seeds or seeds != list(range(seeds[0], seeds[0] + len(seeds))):
            raise ValueError(f"plan's seeds of {schedule} must be consecutive integers, got {seeds}")
        for first in range(0, len(seeds), block_pairs):
            point = {"schedule": schedule, "first_seed": seeds[first], "n_pairs": min(block_pairs, len(seeds) - first),
                     "n_iterations": n_iterations, "fractions": [float(f) for f in fractions], "n_hidden": n_hidden,
                     "split": split, "large_scaling": large_scaling, "engine": check_engine("engine", engine).value,
                     "initial_silhouettes": not from_cache}
            points.append(pair_horizon_point.check_parameters(point))
            owner.append(schedule)
    with dask_client() as client:
        report = sweep(points, function="lib.analyses.horizon_pairs:pair_horizon_point", client=client,
                       progress=progress)
    if not report.ok:
        raise RuntimeError("pair horizon sweep points failed:\n" + "\n".join(f.format() for f in report.failures))
    runs = report.load()
    out = {name: np.concatenate([r[name] for r in runs], axis=1) for name in KERNEL_PREDICTORS + RIVAL_PREDICTORS}
    out["wall_time_s"] = np.array(sum(results.metadata_of(report.name, key, conditions=report.conditions,
                                                          computed_by=report.computed_by)
                                      ["wall_time_s"] for key in report.cache_parameters))
    out["loss_test_summed"] = np.concatenate([r["loss_test_summed"] for r in runs])
    n_pairs = {s: len(seeds) for s, (seeds, _) in plan.items()}
    out["schedule"] = np.array([s for s in plan for _ in range(2 * n_pairs[s])])
    out["seed"] = np.array([seed for s, (seeds, _) in plan.items() for seed in seeds for _ in INITS])
    out["group"] = pair_groups(n_pairs)
    out["fractions"] = np.asarray(fractions, np.float64)
    if from_cache:
        for name, values in initial_silhouettes(plan, n_hidden, split, large_scaling).items():
            out[name][0] = values
    for schedule in plan:
        out[f"iterations/{schedule}"] = next(r for r, o in zip(runs, owner) if o == schedule)["iterations"]
    return out


def initial_silhouettes(plan: dict, n_hidden: int = 200, split: str = "iid",
                        large_scaling: str = "both_layers") -> dict[str, np.ndarray]:
    """(N,) t=0 eNTK silhouettes (:data:`~lib.analyses.horizon_points.INITIAL_SILHOUETTES`) of every
    pair network of ``plan``, in :func:`pair_horizon_sweep`'s order, from
    :func:`lib.analyses.controls.cached_initial_structure` (the t=0 structure of the correlation
    chapter: the same initial weights and data as the schedule runs)."""
    from .controls import cached_initial_structure

    env = TaskEnvironment()
    predictors = [f"entk_{variant}" for variant in ENTK_VARIANTS]  # the correlation chapter's cache key
    structures = [cached_initial_structure(env, list(seeds), n_hidden, split, large_scaling, predictors)
                  for seeds, _ in plan.values()]
    return {f"silhouette_{p}": np.concatenate([s[f"silhouette/{p}"].reshape(-1) for s in structures])
            for p in predictors}
