"""What a network's initial state predicts: t=0 predictors, outcomes, and their correlations.

Analyses layer, for the rich-to-lazy continuum (:mod:`lib.experiments.continuum`). Every function takes
one network (a :class:`~lib.core.models.MultitaskNet` and its parameters) or per-network numbers.

Predictors at t=0 (one number per network):

* ``silhouette_entk_<variant>``: silhouette of the t=0 eNTK leading-vector loadings, the
  paper's predictor (:mod:`lib.analyses.entk_vectors`, both variants);
* ``silhouette_epsilon``: the same clustering applied to the loss sensitivities
  epsilon = dL/dy (M, K) alone, without any kernel (control 1: what the eNTK adds to epsilon);
* ``silhouette_ntk``: the same clustering of the leading vectors of the *plain* NTK blocks
  ntk[:, :, k, k] (control 2: what the loss weighting adds);
* ``kta_ntk_<single|multi>``: centered kernel-target alignment (Cortes et al. 2012) of the
  output-traced t=0 NTK with the single-task or the multitask targets;
* ``kta_entk_<single|multi>``: cosine between the t=0 eNTK's predicted first-step change of
  the test outputs and the change they need (targets minus outputs): how well the eNTK
  points at the targets on patterns it was not computed from;
* ``sharing_initial``: :func:`sharing_index` of the t=0 hidden representation.

Outcomes: see :func:`network_outcomes`. Correlations within each init scale:
:mod:`lib.analyses.within_scale`.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from .entk_vectors import leading_vectors, silhouette_of_loadings
from ..experiments.continuum import LinearizedNet, layer_multipliers, run_continuum, scaled_initial_params, single_task_losses
from ..core.kernels import entk, ntk_output_diagonal
from ..core.losses import output_loss_gradient
from ..core.models import MultitaskNet, Params
from ..core.tasks import TaskEnvironment
from ..core.training import DEFAULT_METHOD, METHODS
from ..core.validation import check_choice, check_int

# --- kernels -------------------------------------------------------------------------------------


def traced_ntk(net: MultitaskNet, params: Params, x1: jax.Array, x2: jax.Array) -> jax.Array:
    """(N, M) output-traced NTK ``sum_k ntk[n, m, k, k]``."""
    return ntk_output_diagonal(net, params, x1, x2).sum(axis=0)


def centered_alignment(kernel_a: np.ndarray, kernel_b: np.ndarray) -> float:
    """Centered alignment ``<HAH, HBH>_F / (|HAH|_F |HBH|_F)`` of two (N, N) kernels, in [-1, 1]
    for positive semi-definite kernels; nan if either centered kernel is zero."""
    a, b = np.asarray(kernel_a, np.float64), np.asarray(kernel_b, np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape != b.shape:
        raise ValueError(f"kernels must be two (N, N) arrays of one shape, got {a.shape} and {b.shape}")
    center = lambda k: k - k.mean(axis=0, keepdims=True) - k.mean(axis=1, keepdims=True) + k.mean()
    a, b = center(a), center(b)
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    return float((a * b).sum() / denom) if denom > 0 else float("nan")


def kernel_target_alignment(kernel: np.ndarray, targets: np.ndarray) -> float:
    """Centered alignment of an (N, N) kernel with the target kernel Y Y^T of targets (N, K)."""
    y = np.asarray(targets, np.float64)
    return centered_alignment(kernel, y @ y.T)


def ntk_target_alignment(net: MultitaskNet, params: Params, x: np.ndarray, y: np.ndarray) -> float:
    """:func:`kernel_target_alignment` of the traced NTK on inputs x (N, D) with targets y (N, K)."""
    return kernel_target_alignment(np.asarray(traced_ntk(net, params, jnp.asarray(x), jnp.asarray(x))), y)


def entk_target_alignment(net: MultitaskNet, params: Params, x_train, y_train, x_eval, y_eval) -> float:
    """Cosine between the eNTK's first-order change of the outputs on ``x_eval`` for one
    gradient step on (x_train, y_train), ``-sum_m entk[k, n, m]`` (N_eval, K), and the change
    the outputs need, ``y_eval - f(x_eval)``. Independent of the learning rate."""
    e = entk(net, params, jnp.asarray(x_eval), jnp.asarray(x_train), jnp.asarray(y_train))
    predicted = -np.asarray(e, np.float64).sum(axis=2).T
    needed = np.asarray(y_eval, np.float64) - np.asarray(net.apply(params, jnp.asarray(x_eval)), np.float64)
    return _cosine(predicted, needed)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.ravel(a), np.ravel(b)
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / denom) if denom > 0 else float("nan")


def kernel_distance(kernel_a: np.ndarray, kernel_b: np.ndarray) -> float:
    """``1 - <A, B>_F / (|A|_F |B|_F)`` (Fort et al. 2020): 0 for kernels equal up to scale."""
    a, b = np.ravel(np.asarray(kernel_a, np.float64)), np.ravel(np.asarray(kernel_b, np.float64))
    if a.shape != b.shape:
        raise ValueError(f"kernels must have one shape, got {np.shape(kernel_a)} and {np.shape(kernel_b)}")
    return float(1.0 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# --- silhouettes -----------------------------------------------------------------------------------

ENTK_VARIANTS = ("principled", "authors")


def entk_silhouette(net: MultitaskNet, params: Params, x_train, y_train, x_test, variant: str) -> float:
    """Silhouette of the t=0 eNTK loadings (``variant`` as in :mod:`lib.analyses.entk_vectors`: rows over
    the training inputs, or over the test inputs for the authors' variant)."""
    check_choice("variant", variant, ENTK_VARIANTS)
    x_eval = x_train if variant == "principled" else x_test
    e = entk(net, params, jnp.asarray(x_eval), jnp.asarray(x_train), jnp.asarray(y_train))
    return silhouette_of_loadings(leading_vectors(np.asarray(e), variant))


def epsilon_silhouette(net: MultitaskNet, params: Params, x_train, y_train) -> float:
    """Control "epsilon alone": silhouette of k-means on the (M, K) loss sensitivities dL/dy."""
    eps = output_loss_gradient(net.apply(params, jnp.asarray(x_train)), jnp.asarray(y_train))
    return silhouette_of_loadings(np.asarray(eps, np.float64))


def ntk_silhouette(net: MultitaskNet, params: Params, x_train) -> float:
    """Control "plain NTK": silhouette of the leading right singular vectors of the per-output
    NTK blocks ntk[:, :, k, k] (no loss weighting)."""
    x = jnp.asarray(x_train)
    return silhouette_of_loadings(leading_vectors(np.asarray(ntk_output_diagonal(net, params, x, x)), "principled"))


# --- representation sharing ------------------------------------------------------------------------


def linear_cka(a: np.ndarray, b: np.ndarray) -> float:
    """Linear CKA of two (N, H) representations of the same N patterns (Kornblith et al. 2019);
    nan if either is constant over patterns."""
    a = np.asarray(a, np.float64) - np.mean(a, axis=0)
    b = np.asarray(b, np.float64) - np.mean(b, axis=0)
    cross = np.linalg.norm(a.T @ b) ** 2
    denom = np.linalg.norm(a.T @ a) * np.linalg.norm(b.T @ b)
    return float(cross / denom) if denom > 0 else float("nan")


def task_pair_kinds(env: TaskEnvironment) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Every task pair (a < b) and whether the two tasks share an input or an output pool."""
    pairs = list(itertools.combinations(range(env.n_tasks), 2))
    shares = np.array([env.task_in_pool(a) == env.task_in_pool(b) or env.task_out_pool(a) == env.task_out_pool(b)
                       for a, b in pairs])
    return pairs, shares


def sharing_index(env: TaskEnvironment, hidden_by_task: np.ndarray) -> float:
    """Mean linear CKA between the hidden representations of task pairs that share an input
    or output pool, minus the mean over pairs that share neither.

    Args:
        hidden_by_task: (n_tasks, n_stimuli, H) hidden activity of every task on the same
            stimuli (rows in one stimulus order).
    """
    hidden_by_task = np.asarray(hidden_by_task)
    if hidden_by_task.ndim != 3 or hidden_by_task.shape[0] != env.n_tasks:
        raise ValueError(f"hidden_by_task must be (n_tasks={env.n_tasks}, n_stimuli, H), got {hidden_by_task.shape}")
    pairs, shares = task_pair_kinds(env)
    cka = np.array([linear_cka(hidden_by_task[a], hidden_by_task[b]) for a, b in pairs])
    return float(np.nanmean(cka[shares]) - np.nanmean(cka[~shares]))


def hidden_by_task(env: TaskEnvironment, net: MultitaskNet, params: Params) -> np.ndarray:
    """(n_tasks, n_stimuli, H) hidden activity on every single-task pattern, by task."""
    data = env.all_patterns()  # stimulus-major: stimulus s, task t at row s * n_tasks + t
    h = np.asarray(net.hidden(params, jnp.asarray(data.x, jnp.float32)))
    return h.reshape(len(env.all_stimuli), env.n_tasks, -1).transpose(1, 0, 2)


# --- outcomes --------------------------------------------------------------------------------------


def relative_weight_change(params_initial: Params, params_final: Params) -> float:
    """``|theta_T - theta_0| / |theta_0|`` over all weights (Euclidean norms)."""
    d = sum(float(np.sum((np.asarray(params_final[k], np.float64) - np.asarray(v, np.float64)) ** 2))
            for k, v in params_initial.items())
    n = sum(float(np.sum(np.asarray(v, np.float64) ** 2)) for v in params_initial.values())
    return float(np.sqrt(d / n))


def linearization_gap(y_net: np.ndarray, y_linearized: np.ndarray, y_initial: np.ndarray) -> float:
    """``|f_T - f_lin,T| / |f_T - f_0|`` on the same inputs: how far the trained network is from
    its trained linearization, relative to how far it moved (0: lazy)."""
    moved = np.linalg.norm(np.asarray(y_net, np.float64) - y_initial)
    return float(np.linalg.norm(np.asarray(y_net, np.float64) - y_linearized) / moved) if moved > 0 else float("nan")


def iterations_to_criterion(iterations: np.ndarray, losses: np.ndarray, criterion: float) -> tuple[float, bool]:
    """(first snapshot iteration with loss <= criterion, whether it was reached); when it is
    never reached, the last iteration (a censored value) and False."""
    losses = np.asarray(losses)
    reached = np.flatnonzero(losses <= criterion)
    if len(reached):
        return float(iterations[reached[0]]), True
    return float(iterations[-1]), False


def learning_speed(losses: np.ndarray) -> float:
    """1 - L(t_1) / L(0): the share of the initial loss removed by the first snapshot."""
    return float(1.0 - losses[1] / losses[0])


# --- per-network tables, as sweep points -----------------------------------------------------------

PREDICTORS = ("silhouette_entk_principled", "silhouette_entk_authors", "silhouette_epsilon", "silhouette_ntk",
              "kta_ntk_single", "kta_ntk_multi", "kta_entk_single", "kta_entk_multi", "sharing_initial")
OUTCOMES = ("loss_single_test", "loss_multi_before", "finetune_speed", "loss_finetune_test", "route_zero_shot",
            "route_iterations", "route_reached", "sharing_final", "weight_change", "kernel_distance",
            "linearization_gap", "converged")

POINT_DEFAULTS = {"scaling": "both", "g": 1.0, "first_seed": 0, "n_seeds": 10, "n_hidden": 200, "n_train": 200,
                  "n_test": 200}
OUTCOME_DEFAULTS = {**POINT_DEFAULTS, "method": DEFAULT_METHOD, "lr": 0.01, "n_single": 1000, "n_finetune": 1000, "n_route": 500,
                    "route_criterion": 0.1, "converged_ratio": 0.1}
LR_DEFAULTS = {**POINT_DEFAULTS, "method": DEFAULT_METHOD, "lr": 0.01, "n_iterations": 500}


def _complete(name: str, defaults: dict, parameters: dict) -> dict:
    unknown = sorted(set(parameters) - set(defaults))
    if unknown:
        raise ValueError(f"{name} parameters must be among {sorted(defaults)}, got unknown {unknown}")
    p = {**defaults, **parameters}
    layer_multipliers(p["g"], p["scaling"])  # checks g and scaling
    if "method" in p:
        check_choice("method", p["method"], METHODS)
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
    """Sweep point: every t=0 predictor of :data:`PREDICTORS` for the networks ``first_seed``,
    ..., ``first_seed + n_seeds - 1`` at init scale ``g`` (``scaling``). Returns (S,) arrays."""
    from tqdm import tqdm

    p = predictor_point.check_parameters(parameters)
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, p["n_hidden"])
    params = scaled_initial_params(net, _seeds(p), p["g"], p["scaling"])
    out = {name: [] for name in PREDICTORS}
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
                     route_criterion: float, converged_ratio: float, n_kernel: int = 100) -> dict[str, float]:
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
    * ``converged``: final single-task training loss <= ``converged_ratio`` x its initial value.
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
    }


def outcome_point(parameters: dict) -> dict[str, np.ndarray]:
    """Sweep point: train the networks of one init scale and learning rate
    (:func:`lib.experiments.continuum.run_continuum`) and return every outcome of :data:`OUTCOMES` (S,),
    plus the loss curves ``curve/<run>`` (S, 11) and ``iterations/<run>`` (11,) (the held-out
    route's: (S, n_route + 1) and (n_route + 1,), every iteration)."""
    p = outcome_point.check_parameters(parameters)
    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, p["n_hidden"])
    run = run_continuum(env, _seeds(p), p["g"], p["scaling"], p["lr"], p["n_single"], p["n_finetune"], p["n_route"],
                        p["n_hidden"], p["n_train"], p["n_test"], method=p["method"])
    rows = [network_outcomes(env, net, run, i, p["route_criterion"], p["converged_ratio"]) for i in range(p["n_seeds"])]
    out = {k: np.array([r[k] for r in rows]) for k in OUTCOMES}
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
                              p["n_hidden"], p["n_train"], p["n_test"], method=p["method"])


lr_point.check_parameters = lambda parameters: _complete("lr_point", LR_DEFAULTS, parameters)


def choose_learning_rate(candidates: list[float], final_train_losses: list[np.ndarray]) -> float:
    """The candidate whose networks end with the lowest median final training loss; a
    candidate with any non-finite loss (diverged) is never chosen."""
    if len(candidates) != len(final_train_losses) or not candidates:
        raise ValueError("candidates and final_train_losses must be non-empty and of equal length")
    medians = [np.median(l) if np.all(np.isfinite(l)) else np.inf for l in final_train_losses]
    if not np.isfinite(min(medians)):
        raise ValueError(f"every candidate learning rate {candidates} diverged")
    return float(candidates[int(np.argmin(medians))])


# --- correlations ---------------------------------------------------------------------------------


# --- the continuum sweep, end to end --------------------------------------------------------------

LR_SELECTION_SEED = 100_000  # first seed of the held-out networks used only to choose learning rates


def scale_grid(g_min: float, g_max: float, n_points: int) -> list[float]:
    """``n_points`` init scales spaced evenly in log from ``g_min`` to ``g_max``, always including 1
    (the standard draw) and 10 (the paper's large init) when they lie inside, rounded to 4 digits."""
    check_int("n_points", n_points, minimum=2)
    if not 0 < g_min < g_max:
        raise ValueError(f"g_min and g_max must satisfy 0 < g_min < g_max, got {g_min!r}, {g_max!r}")
    grid = set(np.round(np.geomspace(g_min, g_max, n_points), 4).tolist())
    for anchor in (1.0, 10.0):
        if g_min <= anchor <= g_max and anchor not in grid:
            grid.remove(min(grid, key=lambda g: abs(np.log(g / anchor))))
            grid.add(anchor)
    return sorted(grid)


def continuum_sweep(scales: dict[str, list[float]], lr_paper: float, lr_candidates: list[float], n_seeds: int,
                    n_lr_seeds: int, common: dict, n_lr_iterations: int, progress: bool = True) -> dict:
    """Run (or load from the cache) the whole continuum on Dask, one cached point per init
    scale and learning rate (:mod:`lib.experiments.sweep`):

    1. for every scale, :func:`lr_point` for each of ``lr_candidates`` on ``n_lr_seeds``
       held-out networks (seeds from :data:`LR_SELECTION_SEED`, never evaluated);
       :func:`choose_learning_rate` picks the scale's tuned learning rate;
    2. :func:`predictor_point` per scale on the evaluated seeds 0..n_seeds-1;
    3. :func:`outcome_point` per scale at ``lr_paper`` and at the tuned learning rate.

    Args:
        scales: scaling ("both", "hidden") -> init scales g.
        common: parameters shared by every outcome point (``n_single``, ``n_finetune``,
            ``n_route``, ``n_hidden``, ``n_train``, ``n_test``, ...).

    Returns: ``{"networks": {column: (rows,) array}, "tuned_lr": {(scaling, g): lr},
    "curves": {(scaling, g, lr_kind): outcome point arrays}}``; one row per evaluated
    network and learning-rate kind ("paper", "tuned").
    """
    from ..experiments.sweep import dask_client, sweep

    size = {k: common[k] for k in ("n_hidden", "n_train", "n_test") if k in common}
    cells = [(s, float(g)) for s, gs in scales.items() for g in gs]
    with dask_client() as client:
        lr_points = [{"scaling": s, "g": g, "lr": float(lr), "first_seed": LR_SELECTION_SEED, "n_seeds": n_lr_seeds,
                      "n_iterations": n_lr_iterations, **size} for s, g in cells for lr in lr_candidates]
        lr_runs = _run_sweep(sweep, lr_points, "lib.analyses.predictors:lr_point", client, progress)
        tuned = {}
        for i, (s, g) in enumerate(cells):
            runs = lr_runs[i * len(lr_candidates):(i + 1) * len(lr_candidates)]
            tuned[(s, g)] = choose_learning_rate(list(lr_candidates), [r["loss_train"][:, -1] for r in runs])
        pred_points = [{"scaling": s, "g": g, "first_seed": 0, "n_seeds": n_seeds, **size} for s, g in cells]
        preds = _run_sweep(sweep, pred_points, "lib.analyses.predictors:predictor_point", client, progress)
        kinds = (("paper", lambda s, g: float(lr_paper)), ("tuned", lambda s, g: tuned[(s, g)]))
        out_points = [{"scaling": s, "g": g, "lr": lr_of(s, g), "first_seed": 0, "n_seeds": n_seeds, **common}
                      for _, lr_of in kinds for s, g in cells]
        outs = _run_sweep(sweep, out_points, "lib.analyses.predictors:outcome_point", client, progress)
    columns: dict[str, list] = {}
    curves = {}
    for k, (kind, _) in enumerate(kinds):
        for i, (s, g) in enumerate(cells):
            o = outs[k * len(cells) + i]
            curves[(s, g, kind)] = o
            block = {"scaling": [s] * n_seeds, "g": [g] * n_seeds, "lr_kind": [kind] * n_seeds,
                     "lr": [out_points[k * len(cells) + i]["lr"]] * n_seeds, "seed": list(range(n_seeds))}
            block |= {name: list(preds[i][name]) for name in PREDICTORS}
            block |= {name: list(o[name]) for name in OUTCOMES}
            for name, values in block.items():
                columns.setdefault(name, []).extend(values)
    return {"networks": {k: np.asarray(v) for k, v in columns.items()}, "tuned_lr": tuned, "curves": curves}


def converged_sweep(scales: list[float], lr_candidates: list[float], n_lr_seeds: int, n_lr_iterations: int,
                    n_seeds: int, first_block: int, common: dict, progress: bool = True) -> dict[str, np.ndarray]:
    """The converged continuum: ``n_seeds`` networks (seeds 0...) per init scale (both layers
    scaled) trained with the iteration counts of ``common`` (``n_single``, ``n_finetune``,
    ``n_route``, sizes), one cached :func:`outcome_point` per scale, at the scale's learning rate
    chosen as :func:`continuum_sweep` chooses it (:func:`lr_point` on ``n_lr_seeds`` held-out
    networks per candidate, ``n_lr_iterations`` iterations; for a scale of that sweep's grid the
    same cached points, so the same choice); and the t=0 predictors in two cached
    :func:`predictor_point` blocks per scale: seeds 0..first_block-1 (for a scale of the grid,
    :func:`continuum_sweep`'s points, read from the cache) and the rest.

    Returns ``{column: (len(scales) * n_seeds,) array}`` with ``g``, ``seed``, ``lr``, every
    predictor of :data:`PREDICTORS` and outcome of :data:`OUTCOMES`, and per network the
    relative change of the single-task (``settle_single``) and fine-tuning (``settle_finetune``)
    test loss over the last tenth of its run, ``|L(T) - L(0.9 T)| / L(0.9 T)``, and
    ``route_resolution``: the iterations between recorded losses of the held-out route."""
    from ..experiments.sweep import dask_client, sweep

    check_int("n_seeds", n_seeds, minimum=2)
    check_int("first_block", first_block, minimum=1, maximum=n_seeds)
    size = {k: common[k] for k in ("n_hidden", "n_train", "n_test") if k in common}
    blocks = [(0, first_block)] + ([(first_block, n_seeds - first_block)] if n_seeds > first_block else [])
    with dask_client() as client:
        lr_points = [{"scaling": "both", "g": float(g), "lr": float(lr), "first_seed": LR_SELECTION_SEED,
                      "n_seeds": n_lr_seeds, "n_iterations": n_lr_iterations, **size}
                     for g in scales for lr in lr_candidates]
        lr_runs = _run_sweep(sweep, lr_points, "lib.analyses.predictors:lr_point", client, progress)
        k = len(lr_candidates)
        tuned_lr = {g: choose_learning_rate(list(lr_candidates), [r["loss_train"][:, -1]
                                                                  for r in lr_runs[i * k:(i + 1) * k]])
                    for i, g in enumerate(scales)}
        pred_points = [{"scaling": "both", "g": float(g), "first_seed": a, "n_seeds": n, **size}
                       for g in scales for a, n in blocks]
        preds = _run_sweep(sweep, pred_points, "lib.analyses.predictors:predictor_point", client, progress)
        out_points = [{"scaling": "both", "g": float(g), "lr": float(tuned_lr[g]), "first_seed": 0,
                       "n_seeds": n_seeds, **common} for g in scales]
        outs = _run_sweep(sweep, out_points, "lib.analyses.predictors:outcome_point", client, progress)
    columns: dict[str, list] = {}
    for i, g in enumerate(scales):
        o = outs[i]
        block = {"g": [float(g)] * n_seeds, "seed": list(range(n_seeds)), "lr": [float(tuned_lr[g])] * n_seeds}
        block |= {name: np.concatenate([preds[i * len(blocks) + b][name] for b in range(len(blocks))]).tolist()
                  for name in PREDICTORS}
        block |= {name: list(o[name]) for name in OUTCOMES}
        for phase, key in (("single", "curve/single/loss_test"), ("finetune", "curve/finetune/loss_test")):
            curve = np.asarray(o[key], np.float64)
            block[f"settle_{phase}"] = list(np.abs(curve[:, -1] - curve[:, -2]) / curve[:, -2])
        block["route_resolution"] = [int(np.max(np.diff(o["iterations/route"])))] * n_seeds
        for name, values in block.items():
            columns.setdefault(name, []).extend(values)
    return {k: np.asarray(v) for k, v in columns.items()}


def _run_sweep(sweep, points, function, client, progress):
    report = sweep(points, function=function, client=client, progress=progress)
    if not report.ok:
        raise RuntimeError("continuum sweep points failed:\n" + "\n".join(f.format() for f in report.failures))
    return report.load()


# --- robustness of the paper's binary comparison -----------------------------------------------------


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
        key = dict(env=[env.n_in_pools, env.n_out_pools, env.n_features], seeds=list(seeds), n_hidden=n_hidden)
        sil = results.cached("pair_silhouettes", key,
                             lambda: {"silhouette": pair_silhouettes(env, seeds, n_hidden)})["silhouette"]
        out[schedule] = {"silhouette": sil, "single": run["single/loss_test"][:, :, -1],
                         "finetune": run["finetune/loss_test"][:, :, -1], "single_train": run["single/loss_train"],
                         "finetune_train": run["finetune/loss_train"]}
    return out


def medians_by_scale(networks: dict[str, np.ndarray], column: str, scaling: str, lr_kind: str):
    """(scales, median of ``column`` per scale) for one scaling and learning-rate kind."""
    rows = (networks["scaling"] == scaling) & (networks["lr_kind"] == lr_kind)
    gs = np.unique(networks["g"][rows])
    return gs, np.array([np.nanmedian(networks[column][rows & (networks["g"] == g)]) for g in gs])


def transition_midpoint(scales: np.ndarray, values: np.ndarray) -> float:
    """Init scale at which ``values`` first crosses the midpoint of its range, interpolated
    linearly in log g between the two grid points around the crossing.

    scales: (G,) increasing init scales g; values: (G,) e.g. median kernel distance per scale.
    Returns nan when fewer than two finite values or a flat curve leave no crossing."""
    scales, values = np.asarray(scales, float), np.asarray(values, float)
    keep = np.isfinite(values)
    scales, values = scales[keep], values[keep]
    if len(values) < 2 or values.max() == values.min():
        return float("nan")
    middle = (values.max() + values.min()) / 2
    above = values >= middle
    crossing = np.flatnonzero(above[1:] != above[:-1])
    if not len(crossing):
        return float("nan")
    i = crossing[0]
    fraction = (middle - values[i]) / (values[i + 1] - values[i])
    return float(np.exp(np.log(scales[i]) + fraction * (np.log(scales[i + 1]) - np.log(scales[i]))))
