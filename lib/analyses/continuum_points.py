"""Sweep points of the rich-to-lazy continuum: the t=0 predictors and the outcomes of the networks
of one init scale and learning rate, and the learning-rate choice.

Analyses layer. Each ``*_point`` takes a parameter dict, checks and completes it against its
defaults (``point.check_parameters``), and returns (S,) arrays over the networks (seeds) of the
point; :mod:`lib.experiments.sweep` runs and caches them (the cache key is the completed
parameter dict). The per-network measures are in :mod:`lib.analyses.network_measures`; the
sweeps that combine the points in :mod:`lib.analyses.continuum_sweeps`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .rival_theories import same_stimulus_pairs, task_pair_hidden_distances
from .network_measures import (entk_silhouette, entk_target_alignment, epsilon_silhouette, hidden_by_task,
                               iterations_to_criterion, kernel_distance, learning_speed, linearization_gap,
                               ntk_silhouette, ntk_target_alignment, relative_weight_change, sharing_index, traced_ntk)
from ..experiments.continuum import LinearizedNet, layer_multipliers, run_continuum, scaled_initial_params, single_task_losses
from ..core.engines import DEFAULT_ENGINE, check_engine
from ..core.entk_variants import ENTK_VARIANTS
from ..core.models import MultitaskNet
from ..core.tasks import TaskEnvironment
from ..core.validation import check_int

LR_SELECTION_SEED = 100_000  # first seed of the held-out networks used only to choose learning rates

# the t=0 predictors of every continuum network (one column each; :mod:`lib.analyses.network_measures`)
CONTINUUM_PREDICTORS = ("silhouette_entk_principled", "silhouette_entk_authors", "silhouette_epsilon",
                        "silhouette_ntk", "kta_ntk_single", "kta_ntk_multi", "kta_entk_single", "kta_entk_multi",
                        "sharing_initial")
CONTINUUM_OUTCOMES = ("loss_single_test", "loss_multi_before", "finetune_speed", "loss_finetune_test",
                      "route_zero_shot", "route_iterations", "route_reached", "sharing_final", "weight_change",
                      "kernel_distance", "linearization_gap", "converged")
# per network (Q = 66,) arrays, kept under their own prefix (not a scalar column): the hidden layer's task-pair
# distances at t=0, after single-task training and of the network linearized at t=0 trained alike
TASK_PAIR_DISTANCES = ("pairs/initial", "pairs/single", "pairs/linearized")

POINT_DEFAULTS = {"scaling": "both", "g": 1.0, "first_seed": 0, "n_seeds": 10, "n_hidden": 200, "n_train": 200,
                  "n_test": 200}
# "engine": the training engine's value (a string, as in every cache key of these points)
OUTCOME_DEFAULTS = {**POINT_DEFAULTS, "engine": DEFAULT_ENGINE.value, "lr": 0.01, "n_single": 1000, "n_finetune": 1000,
                    "n_route": 500, "route_criterion": 0.1, "converged_ratio": 0.1}
LR_DEFAULTS = {**POINT_DEFAULTS, "engine": DEFAULT_ENGINE.value, "lr": 0.01, "n_iterations": 500}


def _complete(name: str, defaults: dict, parameters: dict) -> dict:
    unknown = sorted(set(parameters) - set(defaults))
    if unknown:
        raise ValueError(f"{name} parameters must be among {sorted(defaults)}, got unknown {unknown}")
    p = {**defaults, **parameters}
    layer_multipliers(p["g"], p["scaling"])  # checks g and scaling
    if "engine" in p:
        check_engine("engine", p["engine"])
    for key in ("first_seed", "n_seeds", "n_hidden", "n_train", "n_test", "n_single", "n_finetune", "n_route",
                "n_iterations"):
        if key in p:
            check_int(key, p[key], minimum=0 if key == "first_seed" else 1)
    for key in ("lr", "route_criterion", "converged_ratio"):
        if key in p and not (isinstance(p[key], (int, float)) and not isinstance(p[key], bool) and p[key] > 0):
            raise ValueError(f"{key} must be a positive number, got {p[key]!r}")
    return {k: p[k] for k in defaults}


def _seeds(p: dict) -> range:
    return range(p["first_seed"], p["first_seed"] + p["n_seeds"])


def predictor_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point: every t=0 predictor of :data:`CONTINUUM_PREDICTORS` for the networks ``first_seed``,
    ..., ``first_seed + n_seeds - 1`` at init scale ``g`` (``scaling``). Returns (S,) arrays."""
    from tqdm import tqdm

    p = predictor_point.check_parameters(parameters)
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, p["n_hidden"])
    params = scaled_initial_params(net, _seeds(p), p["g"], p["scaling"])
    out = {name: [] for name in CONTINUUM_PREDICTORS}
    for i, seed in enumerate(tqdm(_seeds(p), desc=f"t=0 predictors g={p['g']:g}", mininterval=5)):
        theta = jax.tree.map(lambda a: a[i], params)
        tr, te = env.make_data(seed, p["n_train"], p["n_test"], "iid", multitask=False, stream=0)
        mtr, mte = env.make_data(seed, p["n_train"], p["n_test"], "iid", multitask=True, stream=1)
        for variant in ENTK_VARIANTS:
            out[f"silhouette_entk_{variant}"].append(entk_silhouette(net, theta, tr.x, tr.y, te.x, variant))
        out["silhouette_epsilon"].append(epsilon_silhouette(net, theta, tr.x, tr.y))
        out["silhouette_ntk"].append(ntk_silhouette(net, theta, tr.x))
        out["kta_ntk_single"].append(ntk_target_alignment(net, theta, tr.x, tr.y))
        out["kta_ntk_multi"].append(ntk_target_alignment(net, theta, mtr.x, mtr.y))
        out["kta_entk_single"].append(entk_target_alignment(net, theta, tr.x, tr.y, te.x, te.y))
        out["kta_entk_multi"].append(entk_target_alignment(net, theta, mtr.x, mtr.y, mte.x, mte.y))
        out["sharing_initial"].append(sharing_index(env, hidden_by_task(env, net, theta)))
    return {k: np.asarray(v, np.float64) for k, v in out.items()}


predictor_point.check_parameters = lambda parameters: _complete("predictor_point", POINT_DEFAULTS, parameters)


def network_outcomes(env: TaskEnvironment, net: MultitaskNet, run: dict[str, np.ndarray], i: int,
                     route_criterion: float, converged_ratio: float, n_kernel: int = 100) -> dict:
    """Outcomes of network ``i`` of a :func:`lib.experiments.continuum.run_continuum` result:

    * ``loss_single_test``: final single-task test loss (mean per pattern);
    * ``loss_multi_before``: multitask test loss of the single-task-trained network;
    * ``finetune_speed``: :func:`learning_speed` of fine-tuning (share of that loss removed by
      the first snapshot, one tenth of the fine-tuning iterations);
    * ``loss_finetune_test``: multitask test loss at the end of fine-tuning;
    * ``route_zero_shot``: loss on the held-out task before learning it (network trained on
      the other 11); ``route_iterations``/``route_reached``: :func:`iterations_to_criterion`
      of learning it, criterion ``route_criterion`` (mean per-pattern loss), to 1 iteration;
    * ``sharing_final``: :func:`sharing_index` after single-task training;
    * ``weight_change``, ``kernel_distance`` (traced NTK on the first ``n_kernel`` training
      inputs, t=0 vs trained), ``linearization_gap`` (test outputs, single-task run);
    * ``converged``: final single-task training loss <= ``converged_ratio`` x its initial value;
    * :data:`TASK_PAIR_DISTANCES`, each (Q,) = (66,): the hidden layer's task-pair distances on every
      single-task pattern (``env.all_patterns()``), chapter 13's observed task similarity:
      :func:`lib.analyses.rival_theories.task_pair_hidden_distances` (mean over the 81 shared
      stimuli of the squared hidden distance) of the task pairs of
      :func:`lib.analyses.rival_theories.same_stimulus_pairs`, at t=0 (``pairs/initial``), after
      single-task training (``pairs/single``) and for the network linearized at t=0 after the same
      training (``pairs/linearized``: its hidden layer to first order in the weight change,
      ``h(theta0) + dh/dw (theta - theta0)``, as
      :func:`lib.analyses.rival_comparison.linearized_hidden`).
    """
    pick = lambda prefix: {k.split("/")[1]: jnp.asarray(v[i]) for k, v in run.items() if k.startswith(prefix + "/")}
    p0, p1, plin = pick("params_initial"), pick("params_single"), pick("params_linearized")
    x_test = jnp.asarray(run["x_test"][i])
    f0, f1 = np.asarray(net.apply(p0, x_test)), np.asarray(net.apply(p1, x_test))
    flin = np.asarray(LinearizedNet(net).apply({"theta": plin, "theta0": p0}, x_test))
    xk = jnp.asarray(run["x_train"][i][:n_kernel])
    route_it, reached = iterations_to_criterion(run["iterations/route"], run["route/loss_route"][i], route_criterion)
    train = run["single/loss_train"][i]
    return {
        "loss_single_test": float(run["single/loss_test"][i, -1]),
        "loss_multi_before": float(run["finetune/loss_test"][i, 0]),
        "finetune_speed": learning_speed(run["finetune/loss_test"][i]),
        "loss_finetune_test": float(run["finetune/loss_test"][i, -1]),
        "route_zero_shot": float(run["route/loss_route"][i, 0]),
        "route_iterations": route_it,
        "route_reached": float(reached),
        "sharing_final": sharing_index(env, hidden_by_task(env, net, p1)),
        "weight_change": relative_weight_change(p0, p1),
        "kernel_distance": kernel_distance(np.asarray(traced_ntk(net, p0, xk, xk)), np.asarray(traced_ntk(net, p1, xk, xk))),
        "linearization_gap": linearization_gap(f1, flin, f0),
        "converged": float(np.isfinite(train[-1]) and train[-1] <= converged_ratio * train[0]),
    } | _pair_outcomes(env, net, p0, p1, plin)


def _pair_outcomes(env: TaskEnvironment, net: MultitaskNet, p0, p1, plin) -> dict[str, np.ndarray]:
    """:data:`TASK_PAIR_DISTANCES` of one network (see :func:`network_outcomes`), each (66,) float64."""
    patterns = env.all_patterns()
    x = jnp.asarray(patterns.x, jnp.float32)
    pairs = same_stimulus_pairs(patterns.task, patterns.stimulus)
    delta = jax.tree.map(lambda a, b: a - b, plin, p0)
    h0, dh = jax.jvp(lambda p: net.hidden(p, x), (p0,), (delta,))
    hidden = {"pairs/initial": h0, "pairs/single": net.hidden(p1, x), "pairs/linearized": h0 + dh}
    return {k: task_pair_hidden_distances(np.asarray(h, np.float64), pairs) for k, h in hidden.items()}


def outcome_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point: train the networks of one init scale and learning rate
    (:func:`lib.experiments.continuum.run_continuum`) and return every outcome of
    :data:`CONTINUUM_OUTCOMES` (S,), the task-pair distances of :data:`TASK_PAIR_DISTANCES` (S, 66),
    plus the loss curves ``curve/<run>`` (S, 11) and ``iterations/<run>`` (11,) (the held-out
    route's: (S, n_route + 1) and (n_route + 1,), every iteration)."""
    p = outcome_point.check_parameters(parameters)
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, p["n_hidden"])
    run = run_continuum(env, _seeds(p), p["g"], p["scaling"], p["lr"], p["n_single"], p["n_finetune"], p["n_route"],
                        p["n_hidden"], p["n_train"], p["n_test"], engine=p["engine"])
    rows = [network_outcomes(env, net, run, i, p["route_criterion"], p["converged_ratio"]) for i in range(p["n_seeds"])]
    out = {k: np.array([r[k] for r in rows]) for k in CONTINUUM_OUTCOMES + TASK_PAIR_DISTANCES}
    for key in ("single/loss_train", "single/loss_test", "linearized/loss_train", "finetune/loss_test",
                "route/loss_route"):
        out[f"curve/{key}"] = run[key]
    out |= {k: v for k, v in run.items() if k.startswith("iterations/")}
    return out


outcome_point.check_parameters = lambda parameters: _complete("outcome_point", OUTCOME_DEFAULTS, parameters)


def lr_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point for choosing a learning rate: single-task losses (S, 11) of the networks
    ``first_seed``... at init scale ``g`` trained with ``lr`` for ``n_iterations``."""
    p = lr_point.check_parameters(parameters)
    return single_task_losses(TaskEnvironment(), _seeds(p), p["g"], p["scaling"], p["lr"], p["n_iterations"],
                              p["n_hidden"], p["n_train"], p["n_test"], engine=p["engine"])


lr_point.check_parameters = lambda parameters: _complete("lr_point", LR_DEFAULTS, parameters)


def choose_learning_rate(candidates: list[float], final_train_losses: list[np.ndarray],
                         initial_train_losses: list[np.ndarray] | None = None) -> float:
    """The candidate whose networks end with the lowest median final training loss
    (``final_train_losses``: one (S,) array per candidate). A candidate with any non-finite loss
    (diverged) is never chosen; with ``initial_train_losses`` (the same networks' (S,) losses at
    iteration 0) neither is one whose median loss did not fall (a rate too small to move the
    float32 weights, or so large that the first steps saturate the sigmoids, whose gradients then
    vanish: the loss jumps up and stays). ValueError naming every candidate's losses when none is
    left."""
    if len(candidates) != len(final_train_losses) or not candidates:
        raise ValueError("candidates and final_train_losses must be non-empty and of equal length")
    if initial_train_losses is not None and len(initial_train_losses) != len(candidates):
        raise ValueError("initial_train_losses must hold one array per candidate, like final_train_losses")
    medians = [np.median(l) if np.all(np.isfinite(l)) else np.inf for l in final_train_losses]
    if not np.isfinite(min(medians)):
        raise ValueError(f"every candidate learning rate {candidates} diverged")
    if initial_train_losses is not None:
        starts = [float(np.median(l)) for l in initial_train_losses]
        medians = [m if m < start else np.inf for m, start in zip(medians, starts)]
        if not np.isfinite(min(medians)):
            losses = ", ".join(f"{lr:g}: {start:.4g} -> {float(np.median(final)):.4g}"
                               for lr, start, final in zip(candidates, starts, final_train_losses))
            raise ValueError(f"lr_candidates: no candidate learning rate lowered the median training loss (a rate "
                             f"too small moves no float32 weight, one too large saturates the network or diverges; "
                             f"median loss at iteration 0 -> at the end, per candidate: {losses}); choose other "
                             f"candidates")
    return float(candidates[int(np.argmin(medians))])
