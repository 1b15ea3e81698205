"""The two rival theories of representation learning tested on the paper's multitask network.

Two-point theory (van Rossem & Saxe 2024, :mod:`lib.experiments.two_point`). For a pair of
inputs the representational distance a = ||dh||^2, output distance b and alignment w obey Eq. 7
with two effective rates; its stable fixed point (Eq. 10-11 = Eq. 36) is the predicted final
distance a* = A_high/2 + sqrt(A_high^2/4 + A_low^2), A_high set by the pair's state at t=0 and
``A_low = sqrt(rate_h/rate_y) |dx| |dy|`` by its input and target distances. On the multitask network
a *task pair* (i, j) is represented by its pattern pairs with one stimulus and the two task units
(:func:`same_stimulus_pairs`): their variables over training (:func:`pair_trajectories`, Eq. 8 as
:func:`lib.experiments.two_point.pair_variables`), the rates fitted on other networks of the same
initial scale (:func:`fit_pair_rates`), and the predicted and observed final distances averaged
over stimuli (:func:`task_pair_distances`). Only the target distance separates pairs of one
network at small init, so the theory can order task pairs by output pool and not by input pool.

Neural race (Saxe, Sodhani & Lewallen 2022, :mod:`lib.experiments.gated_race`): the predicted
route learning times against the observed ones (Spearman's rho, :func:`order_rhos`), beside the
trivial rival "a route with more training patterns is learned sooner" (:func:`route_size_times`),
and the order in which the hidden layer's output-pool and input-pool groupings appear
(:func:`first_reach`, on :func:`lib.experiments.route_learning.pool_ari`); :func:`network_analysis`
does all of it for the networks of one scale. Each theory on its own ground first:
:func:`two_point_examples` (held-out two-point networks against Eq. 7) and :func:`race_validation`
(the reduction against direct gradient descent of the gated network it reduces).

Time is gradient-flow time (learning rate x iterations). Pure numpy, float64. Checked in
tests/test_rival_theories.py: the vectorised pair variables and fixed point against
:mod:`lib.experiments.two_point`'s one-pair functions, the pattern pairs against the environment,
rate recovery from ODE-generated pair trajectories, the orders on constructed cases, the race's
reduction within 10% of direct simulation, one small end-to-end run, bad inputs.
"""

from __future__ import annotations

import numpy as np

from . import stats
from ..core.tasks import TaskEnvironment
from ..core.validation import check_int, check_positive_float
from ..experiments import two_point
from ..experiments.gated_race import (GatedArchitecture, learning_times, matched_initial_edges, race_predictions,
                                      random_weights, route_statistics, simulate_direct, simulate_reduced)
from ..experiments.route_learning import observed_route_order, order_agreement, pool_ari

COARSE_LOG_RATE_GRID = (-4.0, -2.0, 0.0, 2.0, 4.0)  # natural-log rates of the fit's starting grid


def task_pairs(n_tasks: int) -> np.ndarray:
    """(Q, 2) every task pair (i, j), i < j, in lexicographic order; Q = n_tasks (n_tasks - 1) / 2."""
    n_tasks = check_int("n_tasks", n_tasks, minimum=2)
    i, j = np.triu_indices(n_tasks, k=1)
    return np.stack([i, j], axis=1)


def same_stimulus_pairs(task: np.ndarray, stimulus: np.ndarray) -> np.ndarray:
    """(Q, M, 2) pattern indices: for every task pair (:func:`task_pairs`) and each of the M
    stimuli both tasks see, the pattern of task i and the pattern of task j with that stimulus.
    ``task`` (N,) single-task indices 0..R-1, ``stimulus`` (N, n_in_pools); every task must see
    the same M stimuli once each (e.g. ``env.all_patterns()``)."""
    task, stimulus = np.asarray(task), np.asarray(stimulus)
    if task.ndim != 1 or stimulus.ndim != 2 or stimulus.shape[0] != task.shape[0] or task.size == 0:
        raise ValueError(f"task must be (N,) and stimulus (N, n_in_pools), got {task.shape} and {stimulus.shape}")
    tasks = np.unique(task)
    if tasks[0] < 0 or not np.array_equal(tasks, np.arange(tasks.size)) or tasks.size < 2:
        raise ValueError("task must hold single-task indices 0..R-1 (R >= 2), each present")
    order = np.lexsort((*stimulus.T[::-1], task))  # by task, then stimulus
    per_task = order.reshape(tasks.size, -1) if task.size % tasks.size == 0 else None
    if per_task is None or any(not np.array_equal(stimulus[per_task[t]], stimulus[per_task[0]]) for t in tasks) \
            or len(np.unique(stimulus[per_task[0]], axis=0)) != per_task.shape[1]:
        raise ValueError("every task must see the same stimuli, once each (e.g. env.all_patterns())")
    pairs = task_pairs(tasks.size)
    return np.stack([per_task[pairs[:, 0]], per_task[pairs[:, 1]]], axis=-1)


def pair_trajectories(hidden: np.ndarray, outputs: np.ndarray, targets: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(Q, M, T, 3) the variables (a, b, w) of Eq. 8 of every pattern pair ``pairs`` (Q, M, 2) from
    hidden activity ``hidden`` (T, N, H), outputs ``outputs`` (T, N, K) and targets (N, K): the
    same numbers as :func:`lib.experiments.two_point.pair_variables` pair by pair."""
    hidden, outputs, targets = (np.asarray(v, np.float64) for v in (hidden, outputs, targets))
    pairs = np.asarray(pairs)
    if hidden.ndim != 3 or outputs.ndim != 3 or outputs.shape[:2] != hidden.shape[:2] or \
            targets.shape != outputs.shape[1:]:
        raise ValueError(f"hidden must be (T, N, H), outputs (T, N, K) and targets (N, K), got {hidden.shape}, "
                         f"{outputs.shape} and {targets.shape}")
    if pairs.ndim != 3 or pairs.shape[2] != 2 or pairs.min() < 0 or pairs.max() >= hidden.shape[1]:
        raise ValueError(f"pairs must be (Q, M, 2) pattern indices below {hidden.shape[1]}, got shape {pairs.shape}")
    gap = targets[pairs[..., 1]] - targets[pairs[..., 0]]  # (Q, M, K)
    out = np.empty((*pairs.shape[:2], hidden.shape[0], 3))
    for t, (h, o) in enumerate(zip(hidden, outputs)):  # one snapshot at a time keeps (Q, M, H) small
        dy = o[pairs[..., 1]] - o[pairs[..., 0]]
        out[:, :, t, 0] = ((h[pairs[..., 1]] - h[pairs[..., 0]]) ** 2).sum(-1)
        out[:, :, t, 1] = (dy ** 2).sum(-1)
        out[:, :, t, 2] = out[:, :, t, 1] - (dy * gap).sum(-1)
    return out


def task_pair_hidden_distances(hidden: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(Q,) each task pair's mean over its M stimuli of the squared hidden distance of its pattern
    pairs ``pairs`` (Q, M, 2) (:func:`same_stimulus_pairs`), hidden activity ``hidden`` (N, H): the
    variable a of :func:`pair_trajectories` at one snapshot, averaged over stimuli (chapter 13's
    observed task-pair distance, ``observed`` of :func:`task_pair_distances`)."""
    hidden, pairs = np.asarray(hidden, np.float64), np.asarray(pairs)
    if hidden.ndim != 2:
        raise ValueError(f"hidden must be (N, H), got shape {hidden.shape}")
    if pairs.ndim != 3 or pairs.shape[2] != 2 or pairs.size == 0 or pairs.min() < 0 or pairs.max() >= hidden.shape[0]:
        raise ValueError(f"pairs must be (Q, M, 2) pattern indices below {hidden.shape[0]}, got shape {pairs.shape}")
    return ((hidden[pairs[..., 1]] - hidden[pairs[..., 0]]) ** 2).sum(-1).mean(axis=1)


def pair_distances(x: np.ndarray, y: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(dx2, dy2), each (Q, M): squared input and target distances of the pattern pairs
    ``pairs`` (Q, M, 2), from inputs x (N, D) and targets y (N, K)."""
    x, y, pairs = np.asarray(x, np.float64), np.asarray(y, np.float64), np.asarray(pairs)
    if x.ndim != 2 or y.ndim != 2 or y.shape[0] != x.shape[0]:
        raise ValueError(f"x must be (N, D) and y (N, K) with one N, got {x.shape} and {y.shape}")
    if pairs.ndim != 3 or pairs.shape[2] != 2 or pairs.min() < 0 or pairs.max() >= x.shape[0]:
        raise ValueError(f"pairs must be (Q, M, 2) pattern indices below {x.shape[0]}, got shape {pairs.shape}")
    return (((x[pairs[..., 1]] - x[pairs[..., 0]]) ** 2).sum(-1),
            ((y[pairs[..., 1]] - y[pairs[..., 0]]) ** 2).sum(-1))


def predicted_final_dist2(initial: np.ndarray, rate_h: float, rate_y: float, input_dist2: np.ndarray,
                          target_dist2: np.ndarray) -> np.ndarray:
    """Eq. 36 for many pairs at once: ``initial`` (..., 3) states (a0 > 0, b0, w0) at t=0, squared
    input and target distances (...); returns a* (...), equal to
    :func:`lib.experiments.two_point.final_rep_dist2` pair by pair."""
    rate_h, rate_y = check_positive_float("rate_h", rate_h), check_positive_float("rate_y", rate_y)
    initial = np.asarray(initial, np.float64)
    dx2, dy2 = np.asarray(input_dist2, np.float64), np.asarray(target_dist2, np.float64)
    if initial.shape[-1:] != (3,) or dx2.shape != initial.shape[:-1] or dy2.shape != dx2.shape:
        raise ValueError(f"initial must be (..., 3) and the distances (...) of its leading shape, got "
                         f"{initial.shape}, {dx2.shape} and {dy2.shape}")
    if np.any(initial[..., 0] <= 0) or np.any(dx2 <= 0) or np.any(dy2 < 0):
        raise ValueError("initial representational distances and input distances must be > 0, target distances >= 0")
    a0, b0 = initial[..., 0], initial[..., 1]
    high = a0 - rate_h / rate_y * b0 * dx2 / a0
    low = np.sqrt(rate_h / rate_y * dx2 * dy2)
    return high / 2 + np.sqrt(high ** 2 / 4 + low ** 2)


def fitting_pairs(target_dist2: np.ndarray, n_pairs: int) -> np.ndarray:
    """(n_pairs, 2) (task pair, stimulus) indices into (Q, M) whose target distance is the commonest
    positive value of ``target_dist2`` (Q, M) (one joint fit needs one dy2), evenly spaced over them."""
    dy2 = np.round(np.asarray(target_dist2, np.float64), 9)
    n_pairs = check_int("n_pairs", n_pairs, minimum=1)
    if dy2.ndim != 2 or not np.any(dy2 > 0):
        raise ValueError(f"target_dist2 must be (Q, M) with some positive value, got shape {dy2.shape}")
    values, counts = np.unique(dy2[dy2 > 0], return_counts=True)
    candidates = np.argwhere(dy2 == values[np.argmax(counts)])
    if len(candidates) < n_pairs:
        raise ValueError(f"n_pairs must be at most {len(candidates)} (pairs with the commonest target distance)")
    return candidates[np.linspace(0, len(candidates) - 1, n_pairs).round().astype(int)]


def fit_pair_rates(times: np.ndarray, trajectories: list[np.ndarray], input_dist2: np.ndarray,
                   target_dist2: np.ndarray, n_pairs: int = 4) -> dict[str, float]:
    """Effective rates of Eq. 7 fitted jointly (:func:`lib.experiments.two_point.fit_effective_rates`,
    coarse starting grid :data:`COARSE_LOG_RATE_GRID`) on ``n_pairs`` pattern pairs
    (:func:`fitting_pairs`) of each network in ``trajectories`` (list of (Q, M, T, 3), the fit
    networks); ``times`` (T,) gradient-flow time; distances (Q, M), the same for every network."""
    times = np.asarray(times, np.float64)
    dx2, dy2 = np.asarray(input_dist2, np.float64), np.asarray(target_dist2, np.float64)
    if not trajectories or any(np.shape(t) != (*dx2.shape, times.size, 3) for t in trajectories):
        raise ValueError(f"trajectories must be a non-empty list of {(*dx2.shape, times.size, 3)} arrays")
    chosen = fitting_pairs(dy2, n_pairs)
    if np.ptp(dx2[chosen[:, 0], chosen[:, 1]]) > 1e-9:
        raise ValueError("the fitting pairs must share one input distance")
    picked = [np.asarray(t, np.float64)[q, m] for t in trajectories for q, m in chosen]
    return two_point.fit_effective_rates([times] * len(picked), picked, float(dx2[tuple(chosen[0])]),
                                         float(dy2[tuple(chosen[0])]), COARSE_LOG_RATE_GRID)


def task_pair_distances(trajectory: np.ndarray, rate_h: float, rate_y: float, input_dist2: np.ndarray,
                        target_dist2: np.ndarray) -> dict[str, np.ndarray]:
    """``predicted`` (Q,) the mean over stimuli of Eq. 36 from each pattern pair's state at t=0,
    ``observed`` (Q,) the mean over stimuli of the final representational distance, ``initial``
    (Q,) the mean at t=0; ``trajectory`` (Q, M, T, 3) of one network, distances (Q, M)."""
    trajectory = np.asarray(trajectory, np.float64)
    if trajectory.ndim != 4 or trajectory.shape[-1] != 3:
        raise ValueError(f"trajectory must be (Q, M, T, 3), got shape {trajectory.shape}")
    predicted = predicted_final_dist2(trajectory[:, :, 0], rate_h, rate_y, input_dist2, target_dist2)
    return {"predicted": predicted.mean(axis=1), "observed": trajectory[:, :, -1, 0].mean(axis=1),
            "initial": trajectory[:, :, 0, 0].mean(axis=1)}


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """:func:`lib.analyses.stats.pearson` of two (n,) arrays with n >= 3 (two points always give
    r = +-1); NaN when either is constant."""
    x, y = np.asarray(x, np.float64).ravel(), np.asarray(y, np.float64).ravel()
    if x.shape != y.shape or x.size < 3:
        raise ValueError(f"x and y must be finite and of one length >= 3, got {x.shape} and {y.shape}")
    return stats.pearson(x, y)


def route_size_times(env: TaskEnvironment, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(R,) the trivial rival's learning 'times': minus each route's number of training patterns
    (x (N, n_inputs), y (N, n_outputs), single tasks), so that a larger route comes first."""
    counts, _ = route_statistics(env, x, y)
    return -counts.sum(axis=1)


def order_rhos(observed_times: np.ndarray, predictions: dict[str, np.ndarray], n_permutations: int = 1000,
               seed: int = 0) -> dict[str, dict[str, float]]:
    """For each named prediction (R,) of learning times: :func:`order_agreement` (``rho``,
    ``p_value``, ``p_permutation``) with the observed times (R,) (never learned = inf, tied last);
    all NaN when the observed times are all equal (e.g. no route learned), where no order exists."""
    observed = np.asarray(observed_times, np.float64)
    if observed.ndim == 1 and observed.size and np.all(observed == observed[0]):
        return {name: {"rho": float("nan"), "p_value": float("nan"), "p_permutation": float("nan")}
                for name in predictions}
    return {name: order_agreement(times, observed, n_permutations, seed) for name, times in predictions.items()}


def first_reach(values: np.ndarray, times: np.ndarray, level: float = 0.5) -> float:
    """First time at which ``values`` (T,) (e.g. an ARI over training) is >= ``level``, at the
    snapshot ``times`` (T,) (no interpolation: ARI moves in jumps); inf if never."""
    values, times = np.asarray(values, np.float64), np.asarray(times, np.float64)
    if values.ndim != 1 or times.shape != values.shape or values.size < 1 or np.any(np.diff(times) <= 0):
        raise ValueError(f"values and times must be (T,) with increasing times, got {values.shape} and {times.shape}")
    if not np.isfinite(level):
        raise ValueError(f"level must be finite, got {level!r}")
    reached = np.flatnonzero(values >= level)
    return float(times[reached[0]]) if reached.size else float("inf")


def output_pool_first(ari_in: np.ndarray, ari_out: np.ndarray, times: np.ndarray, level: float = 0.5) -> dict:
    """``t_in``, ``t_out``: first times the input- and output-pool ARIs (T,) reach ``level``;
    ``out_first``: t_out < t_in strictly (both never: False)."""
    t_in, t_out = first_reach(ari_in, times, level), first_reach(ari_out, times, level)
    return {"t_in": t_in, "t_out": t_out, "out_first": bool(t_out < t_in)}


def half_time_clock(curve: np.ndarray, clock: np.ndarray) -> np.ndarray:
    """(T,) the times ``clock`` (T,) of a loss ``curve`` (T,, relative to its start) divided by the
    first time it is at or below half its start (the last time if never): two learners, each on its
    own clock."""
    curve, clock = np.asarray(curve, float), np.asarray(clock, float)
    if curve.shape != clock.shape or curve.ndim != 1 or curve.size < 2:
        raise ValueError(f"curve and clock must be 1-D arrays of one length >= 2, got {curve.shape}, {clock.shape}")
    below = np.flatnonzero(curve <= 0.5)
    return clock / (clock[below[0]] if below.size else clock[-1])


def race_validation(env: TaskEnvironment, x: np.ndarray, y: np.ndarray, n_hidden: int = 64, sigma: float = 1e-4,
                    learning_rate: float = 1.0, n_iterations: int = 2000, n_snapshots: int = 201,
                    seed: int = 0) -> dict[str, np.ndarray]:
    """The race's reduction (Eq. 10) against direct gradient descent of the whole gated network
    from N(0, sigma^2) weights of width ``n_hidden`` (seed ``seed``), on the single-task patterns x, y;
    the defaults are those of :func:`lib.experiments.gated_race.race_predictions`, so the reduction is
    checked where it predicts.

    Returns ``time`` (T,), ``direct`` and ``reduced`` (T, R) route losses, ``max_error`` the largest
    ``|direct - reduced|`` over routes and times divided by the route's initial loss, ``time_error``
    the largest relative difference of the routes' learning times (loss at half its start)."""
    arch = GatedArchitecture(env)
    counts, n = route_statistics(env, x, y)
    b_in, b_out = matched_initial_edges(arch, sigma, n_hidden)
    direct = simulate_direct(arch, random_weights(arch, n_hidden, sigma, seed), x, y, learning_rate, n_iterations,
                             n_snapshots)
    reduced = simulate_reduced(arch, counts, n, b_in, b_out, learning_rate, n_iterations, n_snapshots)
    t_direct = learning_times(direct["route_loss"], direct["time"])
    t_reduced = learning_times(reduced["route_loss"], reduced["time"])
    return {"time": direct["time"], "direct": direct["route_loss"], "reduced": reduced["route_loss"],
            "max_error": float(np.max(np.abs(direct["route_loss"] - reduced["route_loss"]) / reduced["route_loss"][0])),
            "time_error": float(np.max(np.abs(t_direct / t_reduced - 1)))}


def network_analysis(env: TaskEnvironment, run: dict[str, np.ndarray], learning_rate: float, n_fit: int,
                     n_pairs: int = 4, level: float = 0.5, n_permutations: int = 1000) -> dict[str, np.ndarray]:
    """Both theories on the S networks of one initial scale (``run``: the output of
    :func:`lib.experiments.route_learning.run_route_learning`, trained at ``learning_rate``).

    Two-point: rates fitted on the first ``n_fit`` networks (:func:`fit_pair_rates`), then on each
    of the other S - n_fit (held out): ``predicted``, ``observed``, ``initial`` (S - n_fit, Q) task-pair
    distances (:func:`task_pair_distances`), ``pair_r`` (S - n_fit,) their Pearson r, ``heldout_error``
    (S - n_fit,) :func:`lib.experiments.two_point.prediction_error` of the ODE on the network's own
    fitting pairs. Race, on every network: ``rho_race``, ``rho_size``, ``rho_route_only`` (S,) Spearman's
    rho with the observed times (training loss at half its start) of the race's, of the route-size
    rival's, and of a race without sharing (route modules only: what sharing adds to the race),
    ``observed_time`` (S, R) iterations, ``race_time`` (S, R), ``ari_in``, ``ari_out`` (S, T),
    ``t_in``, ``t_out`` (S,) first iteration each ARI reaches ``level``, ``out_first`` (S,) bool.
    Also ``rate_h``, ``rate_y``, ``fit_error`` (floats), ``times`` (T,), ``race_curve`` (S, T_race)
    and ``race_clock`` (T_race,) the race's mean route loss over its time, ``observed_curve`` (S, T)
    the observed mean route training loss, each divided by its start."""
    check_positive_float("learning_rate", learning_rate)
    n_networks = run["hidden"].shape[0]
    n_fit = check_int("n_fit", n_fit, minimum=1, maximum=n_networks - 1)
    times = learning_rate * np.asarray(run["iterations"], np.float64)
    pairs = same_stimulus_pairs(run["all_task"], run["all_stimulus"])
    dx2, dy2 = pair_distances(run["all_x"], run["all_y"], pairs)
    traj = [pair_trajectories(h, o, run["all_y"], pairs) for h, o in zip(run["hidden"], run["outputs"])]
    fit = fit_pair_rates(times, traj[:n_fit], dx2, dy2, n_pairs)
    rates = (fit["rate_h"], fit["rate_y"])
    chosen = fitting_pairs(dy2, n_pairs)
    out: dict = {"rate_h": fit["rate_h"], "rate_y": fit["rate_y"], "fit_error": fit["fit_error"], "times": times}
    held = [task_pair_distances(t, *rates, dx2, dy2) for t in traj[n_fit:]]
    for key in ("predicted", "observed", "initial"):
        out[key] = np.stack([h[key] for h in held])
    out["pair_r"] = np.array([pearson(h["predicted"], h["observed"]) for h in held])
    out["heldout_error"] = np.array([two_point.prediction_error([times] * n_pairs, [t[q, m] for q, m in chosen], *rates,
                                                                float(dx2[tuple(chosen[0])]),
                                                                float(dy2[tuple(chosen[0])])) for t in traj[n_fit:]])
    race_keys = ("rho_race", "rho_size", "rho_route_only", "observed_time", "race_time", "ari_in", "ari_out", "t_in", "t_out",
                 "out_first", "race_curve", "observed_curve")
    rows = {k: [] for k in race_keys}
    for s in range(n_networks):
        race = race_predictions(env, run["x_train"][s], run["y_train"][s])
        observed = observed_route_order(run["task_loss_train"][s], run["iterations"])["time"]
        unshared = race_predictions(env, run["x_train"][s], run["y_train"][s], families=("route",))
        rhos = order_rhos(observed, {"race": race["route_time"],
                                     "size": route_size_times(env, run["x_train"][s], run["y_train"][s]),
                                     "route_only": unshared["route_time"]}, n_permutations)
        ari = pool_ari(env, run["hidden"][s], run["all_task"], run["all_stimulus"])
        order = output_pool_first(ari["in_pool"], ari["out_pool"], np.asarray(run["iterations"], float), level)
        loss = run["task_loss_train"][s].mean(axis=1)
        for k, v in (("rho_race", rhos["race"]["rho"]), ("rho_size", rhos["size"]["rho"]),
                     ("rho_route_only", rhos["route_only"]["rho"]), ("observed_time", observed),
                     ("race_time", race["route_time"]), ("ari_in", ari["in_pool"]), ("ari_out", ari["out_pool"]),
                     ("t_in", order["t_in"]), ("t_out", order["t_out"]), ("out_first", order["out_first"]),
                     ("race_curve", race["route_loss"].mean(axis=1) / race["route_loss"][0].mean()),
                     ("observed_curve", loss / loss[0])):
            rows[k].append(v)
        out["race_clock"] = race["time"]
    return out | {k: np.array(v) for k, v in rows.items()}


def two_point_examples(summary: dict[str, np.ndarray], learning_rates, seed: int, n_steps: int = 3000, depth: int = 4,
                       width: int = 100, input_gap: float = 0.5, target_gap: float = 1.0,
                       record_every: int = 20) -> dict[str, np.ndarray]:
    """One held-out two-point network per gain of ``summary`` (:func:`lib.experiments.two_point.scale_summary`
    with the same sizes) and Eq. 7 from its initial state with that gain's fitted rates:
    ``times`` (G, T), ``sim`` and ``theory`` (G, T, 3) the variables (a, b, w)."""
    gains = np.asarray(summary["gain"], float)
    run = two_point.simulate_two_point(gains, [seed] * gains.size, learning_rates, n_steps, depth, width, input_gap,
                                       target_gap, record_every)
    sim = two_point.simulated_trajectories(run)
    theory = np.stack([two_point.integrate_two_point(s[0], t, rh, ry, input_gap ** 2, target_gap ** 2)
                       for s, t, rh, ry in zip(sim, run["times"], summary["rate_h"], summary["rate_y"])])
    return {"times": run["times"], "sim": sim, "theory": theory}


# the own-ground claim's two conditions (claim rival-two-point-own-ground, whose criterion states them)
OWN_GROUND_ERROR = 0.2  # the median of |a*(Eq. 36) / a(final) - 1| over scales and held-out seeds, at most
OWN_GROUND_PLATEAU_RATIO = 10  # the smallest scale's plateau over the largest scale's, more than, on every seed


def own_ground_conditions(final_rel_error, plateau_sim, plateau_theory) -> tuple[bool, bool]:
    """(the theory predicts the final distance: the median relative error (scales x seeds) is at most
    :data:`OWN_GROUND_ERROR`; the plateau shortens with the scale: at the smallest scale (row 0 of
    ``plateau_sim`` and ``plateau_theory``, (scales, seeds), inf for a run still on its plateau) both
    plateau lengths exceed :data:`OWN_GROUND_PLATEAU_RATIO` times those at the largest (last row),
    on every seed)."""
    plateau_sim, plateau_theory = np.asarray(plateau_sim, float), np.asarray(plateau_theory, float)
    shortens = all(np.all(p[0] > OWN_GROUND_PLATEAU_RATIO * p[-1]) for p in (plateau_sim, plateau_theory))
    return bool(np.median(final_rel_error) <= OWN_GROUND_ERROR), bool(shortens)
