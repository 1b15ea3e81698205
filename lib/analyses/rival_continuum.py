"""The two-point theory's task-similarity prediction (a) on the networks of chapter 10's converged
continuum, beside the t=0 eNTK, the network linearized at t=0 and the targets control (chapter 13,
"(a) on the continuum's networks"; issue 25).

The continuum's cache keeps no weights or hidden activity, only per network the hidden layer's
task-pair distances at t=0, after single-task training and of the network linearized at t=0
(:data:`lib.analyses.continuum_points.TASK_PAIR_DISTANCES`). Everything else the predictors need comes
from the network's seed, which fixes its initial weights
(:func:`lib.experiments.continuum.scaled_initial_params`, both layers scaled) and its training set
(:meth:`TaskEnvironment.make_data`, i.i.d., stream 0, as
:func:`lib.experiments.continuum.run_continuum` draws it):

* :func:`fit_scale_rates` (cached: :func:`cached_scale_rates`): the two-point theory's effective rates at one scale, fitted
  (:func:`lib.analyses.rival_theories.fit_pair_rates`) on held-out networks (seeds never analysed,
  :func:`check_fit_seeds`) trained with snapshots like the continuum
  (:func:`lib.experiments.route_learning.run_route_learning`: same initial draw, data, learning
  rate and engine);
* :func:`initial_predictions`: per analysed network, from its state at t=0, the two-point
  prediction (Eq. 36, :func:`lib.analyses.rival_theories.task_pair_distances`), the t=0 eNTK's
  and the targets control's (:func:`lib.analyses.rival_comparison.profile_distances` of the eNTK
  and of :func:`lib.analyses.controls.small_weight_entk` on the training set), and the t=0
  task-pair distances recomputed (checked against the cached ones by :func:`check_initial_match`);
* :func:`similarity_scores`: per network, Pearson's r over the 66 task pairs of each predictor
  with the observed distances after single-task training.

Checked in tests/test_rival_continuum.py.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from .continuum_points import LR_SELECTION_SEED
from ..core import results
from .controls import small_weight_entk
from .rival_comparison import profile_distances
from .rival_theories import (fit_pair_rates, fitting_pairs, pair_distances, pair_trajectories, pearson, same_stimulus_pairs,
                             task_pair_distances)
from ..core.engines import DEFAULT_ENGINE, check_engine
from ..core.kernels import entk
from ..core.models import MultitaskNet
from ..core.tasks import TaskEnvironment
from ..core.validation import check_int, check_positive_float, check_seeds
from ..experiments.continuum import scaled_initial_params
from ..experiments.route_learning import run_route_learning

CONTINUUM_PREDICTORS_A = ("two-point theory", "t=0 eNTK", "linearized at t=0", "targets control", "distance at t=0")
SCALE_ALONE = "scale alone"  # the log of the init scale, the same on every task pair of a network


class ContinuumScores(NamedTuple):
    """What :func:`continuum_scores` finds: ``scores`` scale -> predictor ->
    (networks,) r (:func:`similarity_scores`; empty arrays at a scale with no analysed network);
    ``rates`` scale -> the two-point theory's fitted rates and the scale's learning rate ``lr``;
    ``match``, per scale, the largest relative difference of the recomputed t=0 distances from the
    cached ones (:func:`check_initial_match`); ``pooled`` "observed", each predictor's prediction and
    :data:`SCALE_ALONE` -> one (networks, task pairs) array per analysed scale."""

    scores: dict
    rates: dict
    match: list
    pooled: dict


def check_fit_seeds(fit_seeds, n_analysed: int, fit_seeds_name: str = "fit_seeds",
                    n_analysed_name: str = "n_analysed", first_analysed: int = 0) -> tuple[int, ...]:
    """``fit_seeds`` as a tuple, or ValueError unless they are >= 1 distinct seeds outside the analysed
    seeds ``first_analysed``..``first_analysed + n_analysed - 1`` and below the learning-rate
    selection seeds (:data:`lib.analyses.continuum_points.LR_SELECTION_SEED`...). ``fit_seeds_name``,
    ``n_analysed_name`` are the caller's names of the two (chapter 13's ``continuum_fit_seeds``,
    ``converged_seeds``), used in the messages."""
    n_analysed = check_int(n_analysed_name, n_analysed, minimum=1)
    seeds = tuple(check_seeds(fit_seeds_name, fit_seeds))
    analysed = range(first_analysed, first_analysed + n_analysed)
    if not seeds or len(set(seeds)) != len(seeds) or any(s in analysed for s in seeds) \
            or max(seeds) >= LR_SELECTION_SEED:
        raise ValueError(f"{fit_seeds_name} must be distinct seeds below {LR_SELECTION_SEED} (never a learning-rate "
                         f"selection seed) outside the analysed seeds {first_analysed}..{analysed[-1]} "
                         f"({n_analysed_name} = {n_analysed}), got {fit_seeds!r}")
    return seeds


def fit_scale_rates(env: TaskEnvironment, g: float, learning_rate: float, fit_seeds, n_analysed: int,
                    n_iterations: int, n_snapshots: int, n_hidden: int, n_train: int,
                    engine: str = DEFAULT_ENGINE.value, n_pairs: int = 4, first_analysed: int = 0) -> dict[str, float]:
    """The two-point theory's effective rates at init scale ``g``: ``rate_h``, ``rate_y``, ``fit_error``
    (:func:`lib.analyses.rival_theories.fit_pair_rates` on ``n_pairs`` pattern pairs per network) from
    the held-out networks ``fit_seeds`` (:func:`check_fit_seeds` against the analysed seeds
    ``first_analysed``.., ``n_analysed`` of them) trained like the continuum's single-task run (``learning_rate``,
    ``n_iterations``, ``engine``, ``n_hidden``, ``n_train``), observed at ``n_snapshots`` snapshots;
    time is learning rate x iterations."""
    seeds = check_fit_seeds(fit_seeds, n_analysed, first_analysed=first_analysed)
    check_positive_float("g", g), check_positive_float("learning_rate", learning_rate)
    check_engine("engine", engine)
    run = run_route_learning(env, seeds, g, learning_rate, n_iterations, n_snapshots, n_hidden, n_train, "both", engine)
    pairs = same_stimulus_pairs(run["all_task"], run["all_stimulus"])
    _, dy2 = pair_distances(run["all_x"], run["all_y"], pairs)
    # only the fit's pattern pairs (fitting_pairs, as fit_pair_rates picks them), each as one (Q = 1, M = 1) cell
    chosen = pairs[tuple(fitting_pairs(dy2, n_pairs).T)][:, None]  # (n_pairs, 1, 2)
    dx2, dy2 = pair_distances(run["all_x"], run["all_y"], chosen)
    trajectories = [pair_trajectories(h, o, run["all_y"], chosen) for h, o in zip(run["hidden"], run["outputs"])]
    times = learning_rate * np.asarray(run["iterations"], np.float64)
    return fit_pair_rates(times, trajectories, dx2, dy2, n_pairs)


def cached_scale_rates(env: TaskEnvironment, g: float, learning_rate: float, fit_seeds, n_analysed: int,
                       n_iterations: int, n_snapshots: int, n_hidden: int, n_train: int,
                       engine: str = DEFAULT_ENGINE.value, first_analysed: int = 0) -> dict[str, float]:
    """:func:`fit_scale_rates` through the results cache (:func:`lib.core.results.cached`, keyed by
    every argument but ``env`` and ``first_analysed``, which only checks the fit seeds, and by the
    code), as floats."""
    seeds = check_fit_seeds(fit_seeds, n_analysed, first_analysed=first_analysed)
    key = {"g": float(g), "learning_rate": float(learning_rate), "fit_seeds": list(seeds), "n_analysed": int(n_analysed),
           "n_iterations": int(n_iterations), "n_snapshots": int(n_snapshots), "n_hidden": int(n_hidden),
           "n_train": int(n_train), "engine": str(engine)}
    fit = results.cached("rival_continuum_rates", key, lambda: fit_scale_rates(
        env, g, learning_rate, seeds, n_analysed, n_iterations, n_snapshots, n_hidden, n_train, engine), computed_by=__name__)
    return {k: float(v) for k, v in fit.items()}


def initial_predictions(env: TaskEnvironment, g: float, seeds, rates: dict[str, float], n_hidden: int,
                        n_train: int) -> dict[str, np.ndarray]:
    """From each network's state at t=0 (seeds ``seeds`` at init scale ``g``, both layers scaled,
    ``n_hidden`` units; training set of ``n_train`` patterns): (S, 66) task-pair predictions
    ``two_point`` (Eq. 36 with ``rates["rate_h"]``, ``rates["rate_y"]``, mean over stimuli),
    ``entk`` and ``targets`` (1 - centered cosine similarity of the tasks' mean columns of the t=0
    eNTK and of the small-weight-limit eNTK on the training set), and ``initial`` the hidden
    task-pair distances at t=0 (for :func:`check_initial_match`)."""
    seeds = check_seeds("seeds", seeds)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    check_int("n_train", n_train, minimum=1)
    patterns = env.all_patterns()
    pairs = same_stimulus_pairs(patterns.task, patterns.stimulus)
    dx2, dy2 = pair_distances(patterns.x, patterns.y, pairs)
    task_pairs = np.stack([patterns.task[pairs[:, 0, 0]], patterns.task[pairs[:, 0, 1]]], axis=1)
    params = scaled_initial_params(net, seeds, g, "both")
    x_all = jnp.asarray(patterns.x, jnp.float32)
    out = {k: [] for k in ("two_point", "entk", "targets", "initial")}
    for i, seed in enumerate(seeds):
        theta = jax.tree.map(lambda a: a[i], params)
        state = pair_trajectories(np.asarray(net.hidden(theta, x_all))[None], np.asarray(net.apply(theta, x_all))[None],
                                  patterns.y, pairs)
        two_point = task_pair_distances(state, rates["rate_h"], rates["rate_y"], dx2, dy2)
        train, _ = env.make_data(seed, n_train, n_train, "iid", multitask=False, stream=0)
        task_of = np.argmax(train.x[:, net.n_stimulus:], axis=1)
        kernel = np.asarray(entk(net, theta, jnp.asarray(train.x), jnp.asarray(train.x), jnp.asarray(train.y)))
        out["two_point"].append(two_point["predicted"])
        out["initial"].append(two_point["initial"])
        out["entk"].append(profile_distances(kernel, task_of, task_pairs))
        out["targets"].append(profile_distances(small_weight_entk(net, train.x, train.x, train.y), task_of, task_pairs))
    return {k: np.asarray(v, np.float64) for k, v in out.items()}


def check_initial_match(recomputed: np.ndarray, cached: np.ndarray, rtol: float = 1e-3) -> float:
    """The largest relative difference between the t=0 task-pair distances recomputed from the seeds
    (:func:`initial_predictions`) and those of the continuum's cache (S, 66) each; ValueError when it
    exceeds ``rtol`` (the predictions would not be of the cached networks)."""
    recomputed, cached = np.asarray(recomputed, np.float64), np.asarray(cached, np.float64)
    if recomputed.shape != cached.shape or recomputed.ndim != 2:
        raise ValueError(f"recomputed and cached must be (S, Q) of one shape, got {recomputed.shape}, {cached.shape}")
    worst = float(np.max(np.abs(recomputed - cached) / np.maximum(np.abs(cached), 1e-12)))
    if not worst <= rtol:
        raise ValueError(f"the t=0 task-pair distances recomputed from the seeds differ from the cached ones by "
                         f"{worst:.2g} (relative), more than rtol = {rtol:g}: not the same networks")
    return worst


def similarity_scores(observed: np.ndarray, predictions: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per network, Pearson's r over task pairs (:func:`lib.analyses.rival_theories.pearson`) between
    each named prediction (S, Q) and the ``observed`` distances (S, Q): name -> (S,); nan for a network
    with a non-finite value (e.g. a diverged linearization: no prediction) or a constant row."""
    observed = np.asarray(observed, np.float64)
    if observed.ndim != 2:
        raise ValueError(f"observed must be (S, Q), got shape {observed.shape}")
    scores = {}
    for name, predicted in predictions.items():
        predicted = np.asarray(predicted, np.float64)
        if predicted.shape != observed.shape:
            raise ValueError(f"prediction {name!r} must be {observed.shape} like observed, got {predicted.shape}")
        scores[name] = np.array([pearson(p, o) if np.all(np.isfinite(p)) and np.all(np.isfinite(o)) else np.nan
                                 for p, o in zip(predicted, observed)])
    return scores


def pooled_log_r(predicted: np.ndarray, observed: np.ndarray) -> float:
    """Pearson's r of log ``predicted`` and log ``observed`` (any equal shapes, positive values) pooled
    over every network and task pair: across scales, where the scale itself sets both."""
    predicted, observed = np.asarray(predicted, np.float64), np.asarray(observed, np.float64)
    if predicted.shape != observed.shape or np.any(predicted <= 0) or np.any(observed <= 0):
        raise ValueError(f"predicted and observed must be positive and of one shape, got {predicted.shape}, "
                         f"{observed.shape}")
    return pearson(np.log(predicted), np.log(observed))


def continuum_scores(env: TaskEnvironment, nets: dict, use: np.ndarray, scales, fit_seeds, n_seeds: int,
                     n_iterations: int, n_snapshots: int, n_hidden: int, n_train: int,
                     first_seed: int = 0) -> ContinuumScores:
    """The predictors of task similarity (a) on the converged continuum's networks ``nets``
    (:func:`lib.analyses.continuum_sweeps.converged_sweep`: ``g``, ``seed``, ``lr``, ``pairs/initial``,
    ``pairs/single``, ``pairs/linearized``), the analysed ones ``use`` (N,) bool, scale by scale
    (``scales``, the continuum's init scales in their order): the
    two-point theory's rates fitted on the held-out ``fit_seeds`` (:func:`cached_scale_rates`, with
    ``n_seeds`` networks per scale from seed ``first_seed``, ``n_iterations`` single-task steps and
    ``n_snapshots``), each
    network's predictions from t=0 (:func:`initial_predictions`), and their scores against the
    distances after single-task training. Returns :class:`ContinuumScores`."""
    scores, rates, match, pooled = {}, {}, [], {}
    for g in tqdm([float(g) for g in scales], desc="continuum scales"):
        rows = (nets["g"] == g) & use
        lr = float(nets["lr"][nets["g"] == g][0])
        rates[g] = cached_scale_rates(env, g, lr, fit_seeds, n_seeds, n_iterations, n_snapshots, n_hidden,
                                      n_train, first_analysed=first_seed) | {"lr": lr}
        if not rows.any():  # no analysed network at this scale: no scores
            scores[g] = {name: np.array([]) for name in CONTINUUM_PREDICTORS_A}
            continue
        predictions = initial_predictions(env, g, [int(s) for s in nets["seed"][rows]], rates[g], n_hidden, n_train)
        match.append(check_initial_match(predictions["initial"], nets["pairs/initial"][rows]))
        observed = nets["pairs/single"][rows]
        named = dict(zip(CONTINUUM_PREDICTORS_A, (predictions["two_point"], predictions["entk"],
                                                  nets["pairs/linearized"][rows], predictions["targets"],
                                                  predictions["initial"])))
        scores[g] = similarity_scores(observed, named)
        for name, values in {**named, "observed": observed, SCALE_ALONE: np.full(observed.shape, np.log(g))}.items():
            pooled.setdefault(name, []).append(values)
    return ContinuumScores(scores, rates, match, pooled)
