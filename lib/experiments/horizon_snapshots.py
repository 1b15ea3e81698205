"""The continuum's networks at fractions of their single-task training, for the prediction horizon.

Experiments layer. The rich-to-lazy continuum (:func:`lib.experiments.continuum.run_continuum`)
keeps only each network's initial and final weights. The horizon chapter needs the weights at
fractions f of the single-task phase (f = 0.25% ... 50%), so :func:`single_task_snapshots`
trains the same networks again — the same initial weights
(:func:`~lib.experiments.continuum.scaled_initial_params`), the same single-task data
(``make_data(seed, ..., multitask=False, stream=0)``), the same learning rate and engine —
stopping at each snapshot iteration. Full-batch gradient descent is deterministic, so the
trajectory is the continuum's own: the losses at the snapshots the continuum also records
(every tenth of the phase) agree with its cached curves (checked in the chapter and the tests).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .continuum import _observe_mean_losses, _stack, scaled_initial_params
from .schedules import (distinct_sets, get_schedule, observe_pairs, pair_data_arrays, pair_datasets,
                        pair_initial_params, test_set_size)
from ..core.engines import DEFAULT_ENGINE, Engine, check_engine
from ..core.models import INITS, MultitaskNet
from ..core.tasks import TaskEnvironment
from ..core.training import SummedLosses, train_many
from ..core.validation import check_int, check_positive_float, check_seeds

HORIZON_FRACTIONS = (0.0, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)


def snapshot_iterations(fractions, n_iterations: int, fractions_name: str = "fractions") -> np.ndarray:
    """(F,) iterations round(f * n_iterations) of the fractions (F,) of a phase of ``n_iterations``;
    fractions must be in [0, 1] and their iterations strictly increasing. ``fractions_name`` is the
    caller's name of ``fractions`` (chapter 12's ``pair_fractions``, ...), used in the messages."""
    check_int("n_iterations", n_iterations, minimum=1)
    f = np.asarray(fractions, np.float64)
    if f.ndim != 1 or f.size == 0 or not np.all((f >= 0) & (f <= 1)):
        raise ValueError(f"{fractions_name} must be a non-empty 1-D list of numbers in [0, 1], got {fractions!r}")
    iterations = np.rint(f * n_iterations).astype(int)
    if np.any(np.diff(iterations) <= 0):
        raise ValueError(f"{fractions_name} must give strictly increasing iterations of {n_iterations}, got "
                         f"{iterations.tolist()} from {list(fractions)}")
    return iterations


def single_task_snapshots(env: TaskEnvironment, seeds, g: float, scaling: str, learning_rate: float, n_single: int,
                          fractions=HORIZON_FRACTIONS, n_hidden: int = 200, n_train: int = 200, n_test: int = 200,
                          engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """Weights and losses of the continuum's networks (``seeds`` at init scale ``g``, ``scaling``)
    at the fractions (F,) of their single-task phase of ``n_single`` iterations.

    Returns (S = len(seeds), F = len(fractions)): ``params/<name>`` (F, S, ...) the weights at each
    snapshot; ``loss_train``, ``loss_test`` (S, F) mean per-pattern losses; ``iterations`` (F,);
    the data ``x_train``, ``y_train``, ``x_test``, ``y_test`` (S, N, .)."""
    seeds = check_seeds("seeds", seeds)
    check_positive_float("learning_rate", learning_rate)
    iterations = snapshot_iterations(fractions, n_single)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    single = [env.make_data(s, n_train, n_test, "iid", multitask=False, stream=0) for s in seeds]
    data = {"x_train": _stack([d[0].x for d in single]), "y_train": _stack([d[0].y for d in single]),
            "x_test": _stack([d[1].x for d in single]), "y_test": _stack([d[1].y for d in single])}
    lrs = jnp.full((len(seeds),), learning_rate, jnp.float32)
    observe = _observe_mean_losses(net, ("train", "test"))
    params = scaled_initial_params(net, seeds, g, scaling)
    out = _train_to_snapshots(net, params, data, lrs, iterations, observe, observe, engine)
    out |= {k: np.asarray(v) for k, v in data.items()}
    out["iterations"] = iterations
    return out


def _train_to_snapshots(net: MultitaskNet, params, data: dict, lrs, iterations, observe, observe_at_start,
                        engine) -> dict[str, np.ndarray]:
    """Train ``params`` (S, ...) on ``data`` with ``train_many``, stopping at each of ``iterations``
    (F,) (counted from these params); ``observe`` the engine's loss observer, ``observe_at_start`` a jax
    function of the same losses for a snapshot at iteration 0. Returns ``params/<name>`` (F, S, ...)
    and ``loss_train``, ``loss_test`` (S, F)."""
    snapshots, losses, done = [], [], 0
    for target in iterations:
        if target > done:
            params, observed = train_many(net, params, data, lrs, int(target - done), 2, observe, engine=engine)
            loss = {k: np.asarray(v)[:, -1] for k, v in observed.items()}
        else:  # a snapshot at iteration 0
            loss = {k: np.asarray(v) for k, v in jax.vmap(observe_at_start)(params, data).items()}
        done = int(target)
        snapshots.append({k: np.asarray(v) for k, v in params.items()})
        losses.append(loss)
    out = {f"params/{k}": np.stack([s[k] for s in snapshots]) for k in snapshots[0]}
    return out | {name: np.stack([l[name] for l in losses], axis=1) for name in ("loss_train", "loss_test")}


def pair_single_task_snapshots(env: TaskEnvironment, schedule: str, seeds, fractions=HORIZON_FRACTIONS,
                               n_iterations: int | None = None, n_hidden: int = 200, n_train: int = 500,
                               n_test: int | None = None, split: str = "iid", large_scaling: str = "both_layers",
                               engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """Weights and losses of the paper's standard/large pairs (``seeds``, ``schedule`` "ET" or "LR")
    at the fractions (F,) of their single-task phase of ``n_iterations`` (default: the schedule's).

    Trains exactly as :func:`lib.experiments.schedules.run_pairs` does (the same initial weights
    :func:`~lib.experiments.schedules.pair_initial_params`, data, learning rates per init, loss
    observer and engine), stopping at each snapshot iteration, so the trajectory is the schedule
    run's own. Networks are in the schedule's order: standard, large, standard, ... (2P = 2 x
    len(seeds)). Returns ``params/<name>`` (F, 2P, ...); ``loss_train``, ``loss_test`` (2P, F)
    summed squared errors (the schedule runs' unit); ``iterations`` (F,); the data ``x_train``,
    ``y_train``, ``x_test``, ``y_test`` (2P, N, .) (each pair's data twice)."""
    seeds = check_seeds("seeds", seeds)
    sched = get_schedule(schedule)
    engine = check_engine("engine", engine)
    n_iterations = sched.n_iterations if n_iterations is None else check_int("n_iterations", n_iterations, minimum=1)
    iterations = snapshot_iterations(fractions, n_iterations)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    n_test = test_set_size(env, split, n_train, n_test)
    arrays = pair_data_arrays(pair_datasets(env, seeds, "single", n_train, n_test, split))
    data = {k: jnp.asarray(np.repeat(v, 2, axis=0), jnp.float32) for k, v in arrays.items() if k[:2] in ("x_", "y_")}
    lrs = jnp.asarray([sched.learning_rate(init) for _ in seeds for init in INITS], jnp.float32)
    observe = observe_pairs(net, False, False, engine)
    if engine.distinct_patterns and not isinstance(observe, SummedLosses):
        data |= distinct_sets(data)
    losses_of = observe_pairs(net, False, False, Engine.REFERENCE)  # the same summed losses, as a jax function (iteration 0)
    params = pair_initial_params(net, seeds, large_scaling=large_scaling)
    out = _train_to_snapshots(net, params, data, lrs, iterations, observe, losses_of, engine)
    out |= {k: np.asarray(v) for k, v in data.items() if k in ("x_train", "y_train", "x_test", "y_test")}
    out["iterations"] = iterations
    return out


def finetune_snapshots(env: TaskEnvironment, seeds, g: float, scaling: str, learning_rate: float, n_single: int,
                       n_finetune: int, fractions, n_hidden: int = 200, n_train: int = 200, n_test: int = 200,
                       engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """Weights and losses of the continuum's networks at the fractions (F,) of their fine-tuning phase
    of ``n_finetune`` iterations.

    The continuum caches no weights, so the single-task phase (``n_single`` iterations) is trained
    again as :func:`lib.experiments.continuum.run_continuum` trains it (same weights, data, learning
    rate, engine, 11 snapshots), then fine-tuning on the same multitask data (``multitask=True,
    stream=1``) stops at each snapshot iteration. Returns (S = len(seeds)): ``params/<name>``
    (F, S, ...); ``loss_train``, ``loss_test`` (S, F) mean per-pattern losses on the multitask
    sets; ``iterations`` (F,); the multitask data ``x_train``, ``y_train``, ``x_test``, ``y_test``."""
    seeds = check_seeds("seeds", seeds)
    check_positive_float("learning_rate", learning_rate)
    check_int("n_single", n_single, minimum=1)
    iterations = snapshot_iterations(fractions, n_finetune)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    lrs = jnp.full((len(seeds),), learning_rate, jnp.float32)
    single = [env.make_data(s, n_train, n_test, "iid", multitask=False, stream=0) for s in seeds]
    multi = [env.make_data(s, n_train, n_test, "iid", multitask=True, stream=1) for s in seeds]
    data_of = lambda sets: {"x_train": _stack([d[0].x for d in sets]), "y_train": _stack([d[0].y for d in sets]),
                            "x_test": _stack([d[1].x for d in sets]), "y_test": _stack([d[1].y for d in sets])}
    observe = _observe_mean_losses(net, ("train", "test"))
    trained, _ = train_many(net, scaled_initial_params(net, seeds, g, scaling), data_of(single), lrs, n_single, 11,
                            observe, engine=engine)
    data = data_of(multi)
    out = _train_to_snapshots(net, trained, data, lrs, iterations, observe, observe, engine)
    out |= {k: np.asarray(v) for k, v in data.items()}
    out["iterations"] = iterations
    return out
