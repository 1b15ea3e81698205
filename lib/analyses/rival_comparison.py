"""Both rival theories beside the t=0 eNTK, the accumulated eNTK and the targets control, on the
same multitask networks (chapter 13's side-by-side comparison, issue 25).

For the networks of one initial scale (the output of
:func:`lib.experiments.route_learning.run_route_learning`, which keeps the weights at every
snapshot) :func:`kernel_predictions` gives, per network, each kernel predictor's prediction of
the three outcomes of chapter 13:

* (a) the learned task similarity, the final task-pair distance (mean over the 81 shared stimuli
  of the squared hidden distance, :func:`lib.analyses.rival_theories.pair_trajectories`);
* (b) the route learning times (training loss at half its start,
  :func:`lib.experiments.gated_race.learning_times`);
* (c) the mean route training loss curve, compared by its clock-free shape number
  :func:`loss_shape` (the share of the loss removed at half the time to half loss).

Predictors (every kernel on the network's own training set):

* ``entk``: the t=0 eNTK (:func:`lib.core.kernels.entk`). (a) 1 - centered cosine similarity of
  the tasks' mean eNTK columns (:func:`lib.core.kernel_statistics.task_profiles`, "columns", as
  chapter 08 compares tasks; :func:`profile_distances`); (b) each route's initial loss over its
  initial rate of decrease under the eNTK's first-order change (:func:`initial_rate_times`).
* ``linearized``: the network linearized at its initial weights
  (:class:`lib.experiments.continuum.LinearizedNet`), trained alike: the exact dynamics of the
  t=0 NTK. (a) the same distance on its hidden layer (first order in the weight change,
  :func:`linearized_hidden`); (b) its route times; (c) its loss curve.
* ``accumulated``: the eNTK accumulated over the snapshots by the trapezoid rule
  (:func:`lib.analyses.horizon_points.accumulated_kernels`), the ePNTK stand-in of chapter 12.
  It uses the whole run, so it is a reference, not a prediction: (a) profile distances of the
  final accumulated kernel only. Its first-order output change (b, c) is not used: on chapter
  13's snapshots (50 steps apart at learning rate 0.1) the trapezoid's first interval overshoots
  the loss several hundredfold (the loss-weighted kernel shrinks fast while the error does).
* ``targets``: the control. The small-weight-limit eNTK
  (:func:`lib.analyses.controls.small_weight_entk`: targets, task units and the two biases, no
  weights) for (a); for (b, c) gradient flow with its NTK (:func:`limit_ntk`) from its outputs
  ``sigma(b_o)``, closed form (:func:`kernel_flow_route_losses`).

Scores per network (:func:`outcome_scores`): (a) Pearson's r over the 66 task pairs with the
observed final distances (held-out networks, beside the two-point theory and the distance at
t=0 of :func:`lib.analyses.rival_theories.network_analysis`); (b) Spearman's rho
(:func:`spearman`) with the observed route times (beside the race, the race without sharing and
route size), and for the predictors with the network's clock :func:`time_ratio`; (c) the
absolute error of the loss shape (beside the race's).

Statistics: :func:`sign_flip_p` (exact one-sided sign-flip permutation p of a mean paired
difference, both ways), :func:`paired_cells` (a theory against rivals, cell by cell),
:func:`family_p_values` (a family of claims), :func:`mean_interval` and :func:`interval_table`
(percentile bootstrap of a mean). Checked in tests/test_rival_comparison.py. ``scipy.stats`` is
imported where it is used: chapter 13's parameter check imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import jax
import jax.numpy as jnp
import numpy as np

from .controls import small_weight_entk
from .horizon_points import accumulated_kernels
from .rival_theories import pair_trajectories, pearson, same_stimulus_pairs
from ..core.kernel_statistics import centered_cosine_similarity, task_profiles
from ..core.kernels import entk, predicted_change
from ..core.models import MultitaskNet
from ..core.tasks import TaskEnvironment
from ..core.training import train_many
from ..core.validation import check_int, check_positive_float, check_seed
from ..experiments.continuum import LinearizedNet
from ..experiments.gated_race import learning_times

EXACT_FLIPS = 16  # sign flips are enumerated exactly up to this many pairs


def sign_flip_p(differences: np.ndarray, n_flips: int = 20000, seed: int = 0) -> tuple[float, float]:
    """One-sided sign-flip permutation p-values of the mean of paired ``differences`` (n,):
    (p that the mean is > 0, p that it is < 0), each the share of sign patterns whose mean is at
    least as extreme (the observed one included). All 2^n patterns for n <= 16, else ``n_flips``
    random ones (seed ``seed``) plus the observed. Non-finite differences are dropped; none left: nan."""
    d = np.asarray(differences, np.float64).ravel()
    d = d[np.isfinite(d)]
    if d.size == 0:
        return float("nan"), float("nan")
    if d.size <= EXACT_FLIPS:
        signs = 1 - 2 * ((np.arange(2 ** d.size)[:, None] >> np.arange(d.size)) & 1)
    else:
        rng = np.random.default_rng(check_seed("seed", seed))
        signs = np.vstack([np.ones(d.size), rng.choice([-1.0, 1.0], size=(check_int("n_flips", n_flips, 1), d.size))])
    means, observed = signs @ d / d.size, d.mean()
    tol = 1e-12 * max(1.0, np.abs(d).max())
    return float(np.mean(means >= observed - tol)), float(np.mean(means <= observed + tol))


def mean_interval(values: np.ndarray, n_resamples: int = 2000, seed: int = 0, level: float = 0.95) -> tuple:
    """(mean, low, high): the mean of the finite ``values`` (n,) and its percentile bootstrap
    interval at ``level``; nan when fewer than two are finite."""
    v = np.asarray(values, np.float64).ravel()
    v = v[np.isfinite(v)]
    if v.size < 2:
        return (float(v.mean()) if v.size else float("nan")), float("nan"), float("nan")
    rng = np.random.default_rng(check_seed("seed", seed))
    means = v[rng.integers(v.size, size=(check_int("n_resamples", n_resamples, 1), v.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(v.mean()), float(lo), float(hi)


def task_averaging(task_of: np.ndarray, n_tasks: int) -> np.ndarray:
    """(n_tasks, N) rows averaging over each task's patterns (task_of (N,) in 0..n_tasks-1; a task
    without patterns: a zero row)."""
    task_of = np.asarray(task_of)
    onehot = (task_of[None, :] == np.arange(check_int("n_tasks", n_tasks, 1))[:, None]).astype(np.float64)
    return onehot / np.maximum(onehot.sum(axis=1, keepdims=True), 1.0)


def profile_distances(kernel: np.ndarray, task_of: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(Q,) 1 - centered cosine similarity of the tasks' mean kernel columns
    (:func:`lib.core.kernel_statistics.task_profiles`, "columns") for the task ``pairs`` (Q, 2);
    ``kernel`` (K, N, N) on the training set, ``task_of`` (N,) each training pattern's task."""
    kernel, pairs = np.asarray(kernel, np.float64), np.asarray(pairs)
    if kernel.ndim != 3 or kernel.shape[1] != kernel.shape[2] or np.shape(task_of) != kernel.shape[1:2]:
        raise ValueError(f"kernel must be (K, N, N) and task_of (N,), got {kernel.shape} and {np.shape(task_of)}")
    average = task_averaging(task_of, int(pairs.max()) + 1)
    similarity = centered_cosine_similarity(task_profiles(kernel, average, average)["columns"])
    return 1.0 - similarity[pairs[:, 0], pairs[:, 1]]


def route_losses(outputs: np.ndarray, y: np.ndarray, task_of: np.ndarray, n_tasks: int) -> np.ndarray:
    """(..., R) each task's mean over its patterns of the summed squared error of ``outputs``
    (..., N, K) against ``y`` (N, K) (nan for a task without patterns)."""
    per_pattern = ((np.asarray(outputs, np.float64) - np.asarray(y, np.float64)) ** 2).sum(axis=-1)
    average = task_averaging(task_of, n_tasks)
    out = per_pattern @ average.T
    return np.where(average.sum(axis=1) > 0, out, np.nan)


def initial_rate_times(entk0: np.ndarray, outputs0: np.ndarray, y: np.ndarray, task_of: np.ndarray,
                       n_tasks: int) -> np.ndarray:
    """(R,) each route's loss at t=0 over its rate of decrease per iteration (unit learning rate)
    under the eNTK's first-order output change ``-sum_m entk0[k, n, m]``
    (:func:`lib.core.kernels.predicted_change`): the time to clear the route's loss at its
    initial speed; inf where the loss does not decrease. entk0 (K, N, N), outputs0 and y (N, K)."""
    f0, y = np.asarray(outputs0, np.float64), np.asarray(y, np.float64)
    change = np.asarray(predicted_change(np.asarray(entk0, np.float64), 1.0))  # (N, K) per unit time
    rate = (2 * (f0 - y) * change).sum(axis=1) @ task_averaging(task_of, n_tasks).T
    loss = route_losses(f0, y, task_of, n_tasks)
    with np.errstate(divide="ignore"):
        return np.where(rate < 0, loss / -rate, np.inf)


def limit_ntk(net: MultitaskNet, x: np.ndarray) -> np.ndarray:
    """(N, N) NTK of ``net`` on x (N, n_inputs) as every weight goes to zero, the same for every
    output: ``sigma'(b_o)^2 (H sigma(b_h)^2 + x_task,n . x_task,m)``; the eNTK of that limit is
    :func:`lib.analyses.controls.small_weight_entk` (= this times the loss sensitivity, tested)."""
    x = np.asarray(x, np.float64)
    if x.ndim != 2 or x.shape[1] != net.n_inputs:
        raise ValueError(f"x must be (N, {net.n_inputs}), got {x.shape}")
    sig = lambda b: 1.0 / (1.0 + np.exp(-b))
    slope = sig(net.bias_output) * (1 - sig(net.bias_output))
    task = x[:, net.n_stimulus:]
    return slope ** 2 * (net.n_hidden * sig(net.bias_hidden) ** 2 + task @ task.T)


def kernel_flow_route_losses(theta: np.ndarray, f0: np.ndarray, y: np.ndarray, task_of: np.ndarray, n_tasks: int,
                             times: np.ndarray) -> np.ndarray:
    """(T, R) route losses (:func:`route_losses`) of gradient flow on the summed squared error of a
    linear model with NTK ``theta`` (N, N), the same for every output: ``f(t) = y + V exp(-2 L t)
    V^T (f0 - y)`` (theta = V L V^T), at ``times`` (T,) (learning rate x iterations); f0, y (N, K)."""
    theta, f0, y = (np.asarray(a, np.float64) for a in (theta, f0, y))
    if theta.ndim != 2 or theta.shape != (f0.shape[0],) * 2 or f0.shape != y.shape:
        raise ValueError(f"theta must be (N, N) and f0, y (N, K), got {theta.shape}, {f0.shape}, {y.shape}")
    lam, vec = np.linalg.eigh((theta + theta.T) / 2)
    coeff = vec.T @ (f0 - y)  # (N, K)
    decay = np.exp(-2 * np.clip(lam, 0, None)[None, :] * np.asarray(times, np.float64)[:, None])  # (T, N)
    outputs = y[None] + vec[None] @ (decay[:, :, None] * coeff[None])
    return route_losses(outputs, y, task_of, n_tasks)


def diverged(losses: np.ndarray) -> bool:
    """Whether route losses (T, R) become non-finite on a route that has patterns (finite at the
    start; a route without patterns is nan throughout and does not count)."""
    losses = np.asarray(losses, np.float64)
    return not np.isfinite(losses[:, np.isfinite(losses[0])]).all()


def route_times_and_shape(losses: np.ndarray, clock: np.ndarray) -> tuple[np.ndarray, float]:
    """Route learning times (R,) (:func:`~lib.experiments.gated_race.learning_times`) and the
    :func:`loss_shape` of the mean route curve, from route losses (T, R) on ``clock`` (T,). A route
    without patterns (nan from the start) gets a nan time and is left out of the mean; a run whose
    losses become non-finite (:func:`diverged`) gives nan for every route and for the shape."""
    losses = np.asarray(losses, np.float64)
    present = np.isfinite(losses[0])
    times = np.full(losses.shape[1], np.nan)
    if not present.any() or diverged(losses):
        return times, float("nan")
    times[present] = learning_times(losses[:, present], clock)
    return times, loss_shape(losses[:, present].mean(axis=1), clock)


def loss_shape(curve: np.ndarray, clock: np.ndarray) -> float:
    """The share of a loss curve's (T,) start removed at half its time to half loss (the first
    clock time (T,) at or below half, interpolated between snapshots): about 0.29 for an
    exponential, near 0 for a plateau then a drop; nan for a curve that never halves (it has no
    time to half loss)."""
    curve, clock = np.asarray(curve, np.float64), np.asarray(clock, np.float64)
    if curve.ndim != 1 or curve.shape != clock.shape or curve.size < 2 or np.any(np.diff(clock) <= 0):
        raise ValueError(f"curve and clock must be (T,) with T >= 2 and increasing clock, got {curve.shape}, "
                         f"{clock.shape}")
    rel = curve / curve[0]
    half = float(learning_times(rel[:, None], clock)[0])
    return float(1.0 - np.interp(half / 2, clock, rel)) if np.isfinite(half) else float("nan")


@dataclass(frozen=True)
class LinearizedRouteObserver:
    """``observe`` for :func:`train_many` of a :class:`LinearizedNet`: ``task_loss`` (R,) each task's
    mean summed squared training error (nan for a task without patterns)."""

    net: MultitaskNet

    def __call__(self, params, data):
        per_pattern = jnp.sum((LinearizedNet(self.net).apply(params, data["x_train"]) - data["y_train"]) ** 2, axis=-1)
        onehot = self.net.task_input(data["x_train"])
        count = onehot.sum(axis=0)
        return {"task_loss": jnp.where(count > 0, onehot.T @ per_pattern / jnp.maximum(count, 1.0), jnp.nan)}


def linearized_hidden(net: MultitaskNet, theta0: dict, theta: dict, x: np.ndarray) -> np.ndarray:
    """(N, H) the hidden layer of the network linearized at ``theta0`` after training to ``theta``:
    ``h(theta0) + dh/dw (theta - theta0)`` (a forward-mode derivative) on x (N, n_inputs)."""
    delta = jax.tree.map(lambda a, b: a - b, theta, theta0)
    h0, dh = jax.jvp(lambda p: net.hidden(p, jnp.asarray(x, jnp.float32)), (theta0,), (delta,))
    return np.asarray(h0 + dh, np.float64)


def train_linearized_routes(net: MultitaskNet, run: dict, learning_rate: float) -> tuple[dict, np.ndarray]:
    """Train the linearizations at the run's initial weights (``run["w_hidden"][:, 0]``, ...) on its
    training sets like the networks (``learning_rate``, the run's iterations and snapshots).
    Returns (final weights, leading axis S; route training losses (S, T, R))."""
    check_positive_float("learning_rate", learning_rate)
    iterations = np.asarray(run["iterations"])
    theta0 = {k: jnp.asarray(run[k][:, 0]) for k in ("w_hidden", "w_output")}
    data = {k: jnp.asarray(run[k], jnp.float32) for k in ("x_train", "y_train")}
    lrs = jnp.full((theta0["w_hidden"].shape[0],), learning_rate, jnp.float32)
    final, snaps = train_many(LinearizedNet(net), {"theta": theta0, "theta0": theta0}, data, lrs, int(iterations[-1]),
                              iterations.size, LinearizedRouteObserver(net), engine="reference")
    return final["theta"], np.asarray(snaps["task_loss"], np.float64)


def kernel_predictions(env: TaskEnvironment, run: dict, learning_rate: float, control_points: int = 401) -> dict:
    """Every kernel predictor (the t=0 eNTK, the network linearized at t=0, the accumulated eNTK and
    the targets control) of the three outcomes for the S networks of
    ``run`` (:func:`lib.experiments.route_learning.run_route_learning`, trained at ``learning_rate``).

    Returns ``distance_<p>`` (S, Q) for (a) (p in entk, linearized, accumulated, targets),
    ``time_<p>`` (S, R) route times in iterations (entk: the initial-rate time, a time scale only
    its order counts; linearized, targets), ``shape_<p>`` (S,) the loss shape (linearized, targets),
    ``curve_linearized`` (S, T) its mean route loss over its start (nan where its training diverged),
    ``linearized_diverged`` (S,) whether it did, and ``shape_observed`` (S,).
    The targets control's curve is evaluated at ``control_points`` times over the run."""
    n_hidden = run["w_hidden"].shape[-2]
    net = MultitaskNet.for_environment(env, n_hidden)
    iterations = np.asarray(run["iterations"], np.float64)
    pairs = same_stimulus_pairs(run["all_task"], run["all_stimulus"])
    task_pairs = np.array([[run["all_task"][pairs[q, 0, 0]], run["all_task"][pairs[q, 0, 1]]]
                           for q in range(pairs.shape[0])])
    final_lin, lin_loss = train_linearized_routes(net, run, learning_rate)
    dense = np.linspace(0, iterations[-1], check_int("control_points", control_points, 3))
    trapezoid = accumulated_kernels(iterations, np.eye(iterations.size))[-1]  # (T,) the rule's weights
    out = {k: [] for k in ("distance_entk", "distance_linearized", "distance_accumulated", "distance_targets",
                           "time_entk", "time_linearized", "time_targets", "shape_linearized", "shape_targets",
                           "curve_linearized", "shape_observed", "linearized_diverged")}
    for s in range(run["w_hidden"].shape[0]):
        x, y = run["x_train"][s], run["y_train"][s]
        task_of = np.argmax(x[:, net.n_stimulus:], axis=1)
        thetas = [{k: jnp.asarray(run[k][s, t]) for k in ("w_hidden", "w_output")} for t in range(iterations.size)]
        kernels = np.stack([np.asarray(entk(net, th, jnp.asarray(x), jnp.asarray(x), jnp.asarray(y)))
                            for th in thetas])  # (T, K, N, N) float32
        # the trapezoid rule is linear: the whole run's accumulated kernel is a weighted sum of the snapshots'
        accumulated_final = np.tensordot(trapezoid.astype(np.float32), kernels, axes=1).astype(np.float64)
        f0 = np.asarray(net.apply(thetas[0], jnp.asarray(x)), np.float64)
        out["distance_entk"].append(profile_distances(kernels[0], task_of, task_pairs))
        out["distance_accumulated"].append(profile_distances(accumulated_final, task_of, task_pairs))
        out["distance_targets"].append(profile_distances(small_weight_entk(net, x, x, y), task_of, task_pairs))
        h_lin = linearized_hidden(net, thetas[0], jax.tree.map(lambda a: a[s], final_lin), run["all_x"])
        out["distance_linearized"].append(pair_trajectories(h_lin[None], np.zeros((1, *run["all_y"].shape)),
                                                            run["all_y"], pairs)[:, :, 0, 0].mean(axis=1))
        f_limit = np.full_like(y, 1.0 / (1.0 + np.exp(-net.bias_output)))  # the limit's outputs: no weights
        control = kernel_flow_route_losses(limit_ntk(net, x), f_limit, y, task_of, env.n_tasks, learning_rate * dense)
        out["time_entk"].append(initial_rate_times(kernels[0], f0, y, task_of, env.n_tasks))
        for name, losses, clock in (("linearized", lin_loss[s], iterations), ("targets", control, dense)):
            times, shape = route_times_and_shape(losses, clock)
            out[f"time_{name}"].append(times)
            out[f"shape_{name}"].append(shape)
        lin_diverged = diverged(lin_loss[s])
        out["linearized_diverged"].append(lin_diverged)
        curve = np.full(iterations.size, np.nan) if lin_diverged else np.nanmean(lin_loss[s], axis=1)
        out["curve_linearized"].append(curve / curve[0])
        out["shape_observed"].append(loss_shape(np.nanmean(run["task_loss_train"][s], axis=1), iterations))
    return {k: np.asarray(v, np.float64) for k, v in out.items()}


def paired_cells(theory: dict[str, np.ndarray], rivals: dict[str, dict[str, np.ndarray]],
                 seed: int = 0) -> dict[str, np.ndarray]:
    """Cells for a claim test: ``theory`` scale -> (S,) per-network scores of the theory, ``rivals``
    name -> scale -> (S,) the rival's scores on the same networks (higher is better). Returns
    ``labels`` (m,) "rival, scale", ``p`` and ``p_reverse`` (m,) (:func:`sign_flip_p` of theory -
    rival over the networks where both are finite, its random patterns drawn under ``seed``),
    ``mean`` (m,) the mean difference, ``n`` (m,)."""
    rows = {"labels": [], "p": [], "p_reverse": [], "mean": [], "n": []}
    for name, scale in product(rivals, theory):
        d = np.asarray(theory[scale], np.float64) - np.asarray(rivals[name][scale], np.float64)
        p, q = sign_flip_p(d, seed=seed)
        rows["labels"].append(f"{name}, g = {scale:g}")
        rows["p"].append(p), rows["p_reverse"].append(q)
        rows["mean"].append(float(np.nanmean(d)) if np.isfinite(d).any() else np.nan)
        rows["n"].append(int(np.isfinite(d).sum()))
    return {k: np.asarray(v) for k, v in rows.items()}


def spearman(predicted: np.ndarray, observed: np.ndarray) -> float:
    """Spearman's rho of two (R,) time vectors (equal times, e.g. never = inf, share ranks); nan when
    either has a single value (no order) or contains nan."""
    p, o = np.asarray(predicted, np.float64), np.asarray(observed, np.float64)
    if p.shape != o.shape or p.ndim != 1 or p.size < 3:
        raise ValueError(f"predicted and observed must be (R,) of one length >= 3, got {p.shape} and {o.shape}")
    if np.isnan(p).any() or np.isnan(o).any():
        return float("nan")
    from scipy.stats import rankdata

    rp, ro = rankdata(p), rankdata(o)
    rp, ro = rp - rp.mean(), ro - ro.mean()
    denom = np.sqrt((rp ** 2).sum() * (ro ** 2).sum())
    return float(rp @ ro / denom) if denom > 0 else float("nan")


def fisher_z(r: np.ndarray) -> np.ndarray:
    """arctanh of correlations, clipped to +-0.999999 (so that r = +-1 stays finite)."""
    return np.arctanh(np.clip(np.asarray(r, np.float64), -0.999999, 0.999999))


A_PREDICTORS = ("two-point theory", "t=0 eNTK", "linearized at t=0", "accumulated eNTK (reference)",
                "targets control", "distance at t=0")
B_PREDICTORS = ("race", "race without sharing", "t=0 eNTK", "linearized at t=0", "targets control", "route size")
C_PREDICTORS = ("race", "linearized at t=0", "targets control")


def outcome_scores(analysis: dict, kernels: dict, n_fit: int) -> dict[str, dict[str, np.ndarray]]:
    """Per-network scores of every predictor for the three outcomes of one scale: ``analysis`` from
    :func:`lib.analyses.rival_theories.network_analysis` (fit on the first ``n_fit`` networks),
    ``kernels`` from :func:`kernel_predictions` on the same run.

    ``"a"``: name (:data:`A_PREDICTORS`) -> (S - n_fit,) Pearson r over task pairs with the observed
    final distance, held-out networks (nan for a predictor with non-finite distances); ``"b"``: name
    (:data:`B_PREDICTORS`) -> (S,) Spearman's rho with the observed route times; ``"c"``: name (:data:`C_PREDICTORS`) -> (S,) absolute error of the
    loss shape (:func:`loss_shape`; lower is better); ``"c_shape"``: the shapes, observed included;
    ``"b_time"``: name -> (S,) :func:`time_ratio` of the predictors with a clock (linearized, targets)."""
    observed = analysis["observed"]
    held = slice(check_int("n_fit", n_fit, 1), None)
    # no r for a predictor without finite values (a linearized network whose training diverged)
    r = lambda pred: np.array([pearson(p, o) if np.isfinite(p).all() else np.nan for p, o in zip(pred, observed)])
    a = dict(zip(A_PREDICTORS, (r(analysis["predicted"]), r(kernels["distance_entk"][held]),
                                r(kernels["distance_linearized"][held]), r(kernels["distance_accumulated"][held]),
                                r(kernels["distance_targets"][held]), r(analysis["initial"]))))
    rho = lambda times: np.array([spearman(p, o) for p, o in zip(times, analysis["observed_time"])])
    b = dict(zip(B_PREDICTORS, (analysis["rho_race"], analysis["rho_route_only"], rho(kernels["time_entk"]),
                                rho(kernels["time_linearized"]), rho(kernels["time_targets"]), analysis["rho_size"])))
    race_shape = np.array([loss_shape(c, analysis["race_clock"]) for c in analysis["race_curve"]])
    shapes = {"observed": kernels["shape_observed"], "race": race_shape, "linearized at t=0": kernels["shape_linearized"],
              "targets control": kernels["shape_targets"]}
    c = {name: np.abs(shapes[name] - shapes["observed"]) for name in C_PREDICTORS}
    b_time = {name: time_ratio(kernels[key], analysis["observed_time"])
              for name, key in (("linearized at t=0", "time_linearized"), ("targets control", "time_targets"))}
    return {"a": a, "b": b, "c": c, "c_shape": shapes, "b_time": b_time}


def time_ratio(predicted: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """(S,) per network the median over routes of log10(predicted / observed) route time (S, R),
    over the routes where both are finite and positive (nan where none is): how much later (> 0)
    or sooner a predictor on the network's own clock puts the routes."""
    p, o = np.asarray(predicted, np.float64), np.asarray(observed, np.float64)
    if p.shape != o.shape or p.ndim != 2:
        raise ValueError(f"predicted and observed must be (S, R) of one shape, got {p.shape} and {o.shape}")
    ok = np.isfinite(p) & np.isfinite(o) & (p > 0) & (o > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(ok, np.log10(np.where(ok, p / np.where(ok, o, 1.0), 1.0)), np.nan)
    return np.array([np.median(row[np.isfinite(row)]) if np.isfinite(row).any() else np.nan for row in logs])



def family_p_values(proportions: dict[str, tuple[int, int]], means: dict[str, np.ndarray],
                    seed: int = 0) -> dict[str, np.ndarray]:
    """One-sided p both ways for a family of claims: ``proportions`` name -> (k, n), a share claimed
    above 1/2 (exact binomial test); ``means`` name -> (n,) values whose mean is claimed above 0
    (:func:`sign_flip_p` under ``seed``, non-finite values dropped). Returns ``labels``, ``p``,
    ``p_reverse`` (m,)."""
    from scipy.stats import binomtest

    labels, p, q = [], [], []
    for name, (k, n) in proportions.items():
        k, n = check_int(f"{name} k", k, 0), check_int(f"{name} n", n, 1)
        labels.append(name)
        p.append(binomtest(k, n, 0.5, alternative="greater").pvalue)
        q.append(binomtest(k, n, 0.5, alternative="less").pvalue)
    for name, values in means.items():
        labels.append(name)
        greater, less = sign_flip_p(values, seed=seed)
        p.append(greater), q.append(less)
    return {"labels": np.array(labels), "p": np.array(p, np.float64), "p_reverse": np.array(q, np.float64)}


def interval_table(by_scale: dict[float, dict[str, np.ndarray]], names, fmt: str = "+.2f", n_resamples: int = 2000):
    """pandas DataFrame, one row per predictor of ``names``, one column per scale: "mean [low, high]"
    (:func:`mean_interval` of the per-network scores ``by_scale[g][name]``; None where no network has
    a score) and the networks counted."""
    import pandas as pd

    rows = []
    for name in names:
        row = {"predictor": name}
        for g, scores in by_scale.items():
            mean, lo, hi = mean_interval(scores[name], n_resamples)
            row[f"g = {g:g}"] = (f"{mean:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]" if np.isfinite(lo) else
                                 f"{mean:{fmt}}" if np.isfinite(mean) else None)  # None: no network has a score
        row["networks per scale"] = ", ".join(str(int(np.isfinite(s[name]).sum())) for s in by_scale.values())
        rows.append(row)
    return pd.DataFrame(rows).set_index("predictor")
