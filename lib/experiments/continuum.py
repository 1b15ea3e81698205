"""The rich-to-lazy continuum: the paper's network trained from a range of initial scales.

Experiments layer. A network's initial weights are the *standard* draw (U[-0.1, 0.1], the
same draw per seed as :meth:`lib.core.models.MultitaskNet.init`) multiplied by ``g``: on both
layers (``scaling="both"``; g = 10 is the paper's large init) or on the hidden layer only
(``scaling="hidden"``, the paper's "layer 1 x 10" wording of Sec 5). Each network is trained
with full-batch gradient descent (:func:`lib.core.training.train_many`, vmapped over seeds) in
four runs that share its initial weights:

* ``single``: single-task data, then ``finetune``: multitask data from the trained weights
  (the paper's Sec 5 schedule);
* ``linearized``: the network's first-order Taylor expansion at its initial weights,
  :class:`LinearizedNet`, trained on the same single-task data (the lazy limit;
  :func:`train_linearized`);
* ``route``: single-task data of 11 of the 12 tasks, then the 12th task alone (the held-out
  route; which task is held out cycles with the seed).

Everything returned is numpy, with a leading axis over seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial

import jax
import jax.numpy as jnp
import numpy as np

from ..core.losses import squared_error
from ..core.models import MultitaskNet, Params
from ..core.tasks import Dataset, TaskEnvironment
from ..core.engines import DEFAULT_ENGINE, Engine
from ..core.steps import check_schedule, scan_segments
from ..core.training import train_many
from ..core.validation import check_choice, check_int, check_positive_float, check_seeds

SCALINGS = ("both", "hidden")


def layer_multipliers(g: float, scaling: str) -> tuple[float, float]:
    """(hidden, output) multipliers of the standard draw for init scale ``g``."""
    check_positive_float("g", g)
    check_choice("scaling", scaling, SCALINGS)
    return (float(g), float(g) if scaling == "both" else 1.0)


def scaled_initial_params(net: MultitaskNet, seeds, g: float, scaling: str = "both") -> Params:
    """(S, ...) initial weights: seed s's standard draw (``PRNGKey(s)``, as in
    :func:`lib.experiments.schedules.pair_initial_params`) times :func:`layer_multipliers`."""
    seeds = check_seeds("seeds", seeds)
    m_hidden, m_output = layer_multipliers(g, scaling)
    draws = [net.init(jax.random.PRNGKey(s), "standard") for s in seeds]
    stacked = jax.tree.map(lambda *a: jnp.stack(a), *draws)
    return {"w_hidden": stacked["w_hidden"] * m_hidden, "w_output": stacked["w_output"] * m_output}


@dataclass(frozen=True)
class LinearizedNet:
    """f_lin(theta) = f(theta0) + J(theta0) (theta - theta0) for a :class:`MultitaskNet`.

    Parameters are ``{"theta": ..., "theta0": ...}``; theta0 enters through
    ``stop_gradient``, so gradient descent moves only theta (theta0's gradient is exactly 0).
    """

    net: MultitaskNet

    def apply(self, params: dict, x: jax.Array) -> jax.Array:
        theta0 = jax.lax.stop_gradient(params["theta0"])
        delta = jax.tree.map(lambda a, b: a - b, params["theta"], theta0)
        y0, dy = jax.jvp(lambda p: self.net.apply(p, x), (theta0,), (delta,))
        return y0 + dy


def _linearization_constants(net: MultitaskNet, theta0: Params, x: jax.Array) -> tuple[jax.Array, ...]:
    """What the linearization at ``theta0`` keeps fixed, on the inputs x (N, D): hidden slopes
    h0 (1 - h0) (N, H), the output layer's input z0 = [h0; x_task] (N, H + T), the outputs
    f0 (N, K) and their slopes f0 (1 - f0) (N, K)."""
    h0 = net.hidden(theta0, x)
    z0 = jnp.concatenate([h0, net.task_input(x)], axis=1)
    f0 = jax.nn.sigmoid(z0 @ theta0["w_output"].T + net.bias_output)
    return h0 * (1 - h0), z0, f0, f0 * (1 - f0)


def _linearized_step(net: MultitaskNet, theta0: Params, constants, x, y, learning_rate, theta: Params) -> Params:
    """One full-batch GD step on the summed squared error of :class:`LinearizedNet`, with its
    Jacobian written out: f = f0 + s0 (z0 d2^T + (a0 (x d1^T)) W_o0[:, :H]^T), d = theta - theta0,
    so a step costs six small matrix products and no sigmoid (``jax.grad`` of the ``jvp``
    recomputes the network at theta0 every step)."""
    slope_hidden, z0, f0, slope_out = constants
    w_out_hidden = theta0["w_output"][:, : net.n_hidden]
    d_hidden = theta["w_hidden"] - theta0["w_hidden"]
    d_output = theta["w_output"] - theta0["w_output"]
    tangent_hidden = slope_hidden * (x @ d_hidden.T)
    f = f0 + slope_out * (z0 @ d_output.T + tangent_hidden @ w_out_hidden.T)
    error = 2 * (f - y) * slope_out  # dL/d(pre-activation tangent), (N, K)
    grad_output = error.T @ z0
    grad_hidden = (slope_hidden * (error @ w_out_hidden)).T @ x
    return {"w_hidden": theta["w_hidden"] - learning_rate * grad_hidden,
            "w_output": theta["w_output"] - learning_rate * grad_output}


@partial(jax.jit, static_argnames=("net", "steps_per_snapshot", "n_segments"))
def _linearized_run(net, theta0, x, y, learning_rates, steps_per_snapshot, n_segments):
    def one(theta0, x, y, learning_rate):
        constants = _linearization_constants(net, theta0, x)
        loss = lambda theta: squared_error(LinearizedNet(net).apply({"theta": theta, "theta0": theta0}, x), y)

        step = lambda theta: _linearized_step(net, theta0, constants, x, y, learning_rate, theta)
        final, losses = scan_segments(step, theta0, steps_per_snapshot, n_segments, loss)
        return final, jnp.concatenate([loss(theta0)[None], losses])

    return jax.vmap(one)(theta0, x, y, learning_rates)


def train_linearized(net: MultitaskNet, params0: Params, x_train: jax.Array, y_train: jax.Array,
                     learning_rates: jax.Array, n_iterations: int, n_snapshots: int = 11) -> tuple[Params, jax.Array]:
    """Full-batch GD of the linearizations of S networks at their ``params0`` (leading axis S) on
    their own x_train (S, N, D), y_train (S, N, K): the same descent as
    ``train_many(LinearizedNet(net), {"theta": params0, "theta0": params0}, ...)`` (equal to
    float32 rounding, tested), with the Jacobian written out (:func:`_linearized_step`).

    Returns (theta after ``n_iterations`` steps, (S, n_snapshots) summed squared training error
    at equally spaced snapshots, the first at theta0)."""
    steps = check_schedule(n_iterations, n_snapshots)
    dtype = params0["w_hidden"].dtype
    x_train, y_train, learning_rates = (jnp.asarray(a, dtype) for a in (x_train, y_train, learning_rates))
    return _linearized_run(net, params0, x_train, y_train, learning_rates, steps, n_snapshots - 1)


def held_out_task(seed: int, n_tasks: int) -> int:
    """The task held out for the route experiment of ``seed`` (cycles through the tasks)."""
    return int(seed) % n_tasks


def route_data(env: TaskEnvironment, seed: int, n_train: int) -> tuple[Dataset, Dataset]:
    """(pre-training data over the 11 other tasks (n_train patterns, i.i.d.), every pattern of
    the held-out task (n_features ** n_in_pools patterns))."""
    held = held_out_task(seed, env.n_tasks)
    rng = np.random.default_rng((seed, 2))
    others = np.delete(np.arange(env.n_tasks), held)
    stimulus = rng.integers(env.n_features, size=(n_train, env.n_in_pools))
    tasks = np.eye(env.n_tasks, dtype=np.int8)[rng.choice(others, size=n_train)]
    everything = env.all_patterns()
    route = everything.task == held
    return env.encode(stimulus, tasks), Dataset(everything.x[route], everything.y[route],
                                                  everything.stimulus[route], everything.tasks[route])


@lru_cache(maxsize=None)
def _observe_mean_losses(model, names: tuple[str, ...]):
    """Observe the mean (over patterns) summed-over-outputs squared error on each named set."""

    def observe(params, data):
        return {f"loss_{n}": squared_error(model.apply(params, data[f"x_{n}"]), data[f"y_{n}"]) / data[f"x_{n}"].shape[0]
                for n in names}

    return observe


def _stack(arrays: list[np.ndarray]) -> jax.Array:
    return jnp.asarray(np.stack(arrays), jnp.float32)


def run_continuum(env: TaskEnvironment, seeds, g: float, scaling: str, learning_rate: float,
                  n_single: int, n_finetune: int, n_route: int, n_hidden: int = 200, n_train: int = 200,
                  n_test: int = 200, n_snapshots: int = 11, progress: bool = False,
                  engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """Train every seed's network at init scale ``g`` in the four runs of the module docstring.

    Args:
        seeds: network seeds (weight draw and data).
        g, scaling: init scale and which layers it multiplies (:data:`SCALINGS`).
        learning_rate: one step size for every run.
        n_single, n_finetune, n_route: iterations of the single-task (also the linearized and
            the 11-task pre-training) run, of fine-tuning and of learning the held-out route;
            ``n_single`` and ``n_finetune`` multiples of ``n_snapshots - 1``. The held-out
            route's loss is recorded after every iteration (1-iteration resolution).
        n_train, n_test: training and test patterns per phase (i.i.d., as the paper).
        engine: the :class:`~lib.core.engines.Engine` of the network's runs (the linearized
            network always trains with :func:`train_linearized`).

    Returns (S = len(seeds), T = n_snapshots): ``params_initial/*``, ``params_single/*``,
    ``params_linearized/*``, ``params_route_pre/*`` (S, ...); mean per-pattern losses
    ``single/loss_train``, ``single/loss_test``, ``linearized/loss_train``,
    ``finetune/loss_test`` (multitask test set), each (S, T), and ``route/loss_route`` (the
    held-out task's 81 patterns) (S, n_route + 1), after every iteration; the data
    ``x_train``, ``y_train``, ``x_test``, ``y_test``, ``x_multi_train``, ``y_multi_train``,
    ``x_multi_test``, ``y_multi_test`` (S, N, .);
    ``held_out`` (S,) and ``iterations/<run>`` (T,; (n_route + 1,) for the route).
    """
    seeds = check_seeds("seeds", seeds)
    check_positive_float("learning_rate", learning_rate)
    for name, value in (("n_single", n_single), ("n_finetune", n_finetune), ("n_route", n_route)):
        check_int(name, value, minimum=1)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    params0 = scaled_initial_params(net, seeds, g, scaling)
    lrs = jnp.full((len(seeds),), learning_rate, jnp.float32)
    single = [env.make_data(s, n_train, n_test, "iid", multitask=False, stream=0) for s in seeds]
    multi = [env.make_data(s, n_train, n_test, "iid", multitask=True, stream=1) for s in seeds]
    routes = [route_data(env, s, n_train) for s in seeds]
    data_single = {"x_train": _stack([d[0].x for d in single]), "y_train": _stack([d[0].y for d in single]),
                   "x_test": _stack([d[1].x for d in single]), "y_test": _stack([d[1].y for d in single])}
    label = f"g={g:g} ({scaling}), lr={learning_rate:g}"
    bar = (lambda run: f"{label}: {run}") if progress else (lambda run: None)

    observe = _observe_mean_losses(net, ("train", "test"))
    p_single, s_single = train_many(net, params0, data_single, lrs, n_single, n_snapshots, observe,
                                    progress=bar("single"), engine=engine)
    data_multi = {"x_train": _stack([d[0].x for d in multi]), "y_train": _stack([d[0].y for d in multi]),
                  "x_test": _stack([d[1].x for d in multi]), "y_test": _stack([d[1].y for d in multi])}
    _, s_finetune = train_many(net, p_single, data_multi, lrs, n_finetune, n_snapshots,
                               _observe_mean_losses(net, ("test",)), progress=bar("finetune"), engine=engine)

    p_lin, loss_lin = train_linearized(net, params0, data_single["x_train"], data_single["y_train"], lrs, n_single,
                                       n_snapshots)

    data_pre = {"x_train": _stack([r[0].x for r in routes]), "y_train": _stack([r[0].y for r in routes])}
    p_pre, _ = train_many(net, params0, data_pre, lrs, n_single, n_snapshots, _observe_mean_losses(net, ()),
                          progress=bar("11 tasks"), engine=engine)
    data_route = {"x_train": _stack([r[1].x for r in routes]), "y_train": _stack([r[1].y for r in routes])}
    _, s_route = train_many(net, p_pre, data_route, lrs, n_route, n_route + 1,
                            _observe_mean_losses(net, ("train",)), progress=bar("held-out route"), engine=engine)

    out = {f"params_initial/{k}": np.asarray(v) for k, v in params0.items()}
    out |= {f"params_single/{k}": np.asarray(v) for k, v in p_single.items()}
    out |= {f"params_linearized/{k}": np.asarray(v) for k, v in p_lin.items()}
    out |= {f"params_route_pre/{k}": np.asarray(v) for k, v in p_pre.items()}
    out |= {"single/loss_train": np.asarray(s_single["loss_train"]), "single/loss_test": np.asarray(s_single["loss_test"]),
            "linearized/loss_train": np.asarray(loss_lin) / n_train,
            "finetune/loss_test": np.asarray(s_finetune["loss_test"]),
            "route/loss_route": np.asarray(s_route["loss_train"])}
    out |= {k: np.asarray(v) for k, v in data_single.items()}
    out |= {k.replace("_", "_multi_", 1): np.asarray(v) for k, v in data_multi.items()}
    out["held_out"] = np.array([held_out_task(s, env.n_tasks) for s in seeds])
    for run, n in (("single", n_single), ("finetune", n_finetune)):
        out[f"iterations/{run}"] = np.linspace(0, n, n_snapshots).round().astype(int)
    out["iterations/route"] = np.arange(n_route + 1)
    return out


def single_task_losses(env: TaskEnvironment, seeds, g: float, scaling: str, learning_rate: float, n_iterations: int,
                       n_hidden: int = 200, n_train: int = 200, n_test: int = 200,
                       engine: Engine | str = DEFAULT_ENGINE) -> dict[str, np.ndarray]:
    """Single-task phase only (for choosing a learning rate): ``loss_train`` (S, 11) mean
    per-pattern training loss at 11 snapshots, and ``loss_test`` (S, 11)."""
    seeds = check_seeds("seeds", seeds)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    data = [env.make_data(s, n_train, n_test, "iid", multitask=False, stream=0) for s in seeds]
    arrays = {"x_train": _stack([d[0].x for d in data]), "y_train": _stack([d[0].y for d in data]),
              "x_test": _stack([d[1].x for d in data]), "y_test": _stack([d[1].y for d in data])}
    lrs = jnp.full((len(seeds),), check_positive_float("learning_rate", learning_rate), jnp.float32)
    _, snaps = train_many(net, scaled_initial_params(net, seeds, g, scaling), arrays, lrs, n_iterations, 11,
                          _observe_mean_losses(net, ("train", "test")), engine=engine)
    return {k: np.asarray(v) for k, v in snaps.items()}
