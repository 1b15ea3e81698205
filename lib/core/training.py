"""Full-batch gradient descent of a network, by one of two engines.

``train`` runs one network; ``train_many`` vmaps it over a leading axis of parameters,
data and learning rates (seeds, standard/large pairs). Snapshots are taken at
``n_snapshots`` equally spaced iterations, including iteration 0 and the last one; what is
recorded is chosen by an ``observe(params, data)`` function, so no parameters are stored
unless asked for. The snapshot segments run in a few chunks so that a progress bar can
advance between them: the CPU kernel (``numba``) runs the same steps in the same order
either way (bit-identical, tested); XLA (``reference``) compiles one program per chunk
length, whose results agree to float32 rounding.

The engines (:class:`lib.core.engines.Engine`, ``train_many(..., engine=...)``) train the same
gradient descent and agree to float32 rounding (``tests/test_training_fast.py``):

* ``numba`` (:data:`~lib.core.engines.DEFAULT_ENGINE`): the multitask network only (summed
  squared error, float32), as a compiled CPU kernel, one network per thread
  (:mod:`lib.core.training_kernel`): the first layer factored into distinct stimuli and task
  sets, the output layer with BLAS, distinct patterns weighted by their counts. A network's
  result does not depend on the other networks of its batch or on the thread count.
* ``reference``: ``jax.grad`` of the loss of any :class:`~lib.core.models.Model`, any
  reduction and dtype (:func:`lib.core.steps.gradient_step`), one compiled ``lax.scan``.

Which to pick: ``numba`` for the paper's network on a CPU (the fastest there, ``make benchmark``);
``reference`` for any other model, loss reduction or dtype, and on a GPU.

:func:`distinct_gd_steps` is the multitask network's step in XLA on distinct patterns (a
hand-written backward pass), for experiments that interleave their own work with training.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

from .engines import DEFAULT_ENGINE, Engine, EngineRun, check_engine
from .losses import REDUCTIONS, squared_error
from .models import Model, MultitaskNet, Params
from .patterns import distinct_training_set, factored_inputs
from .steps import check_schedule, gradient_step, scan_segments
from .validation import FLOAT32_LR_RANGE, check_choice, check_finite, check_learning_rate, named_leaves

Data = dict[str, jax.Array]
Observe = Callable[[Params, Data], Any]

N_PROGRESS_CHUNKS = 10


@lru_cache(maxsize=None)
def observe_losses(model: Model, reduction: str = "sum") -> Observe:
    """An ``observe`` function recording the loss on every ``x_<name>``/``y_<name>`` pair of the data."""

    def observe(params: Params, data: Data) -> dict[str, jax.Array]:
        names = [k[2:] for k in data if k.startswith("x_") and f"y_{k[2:]}" in data]
        return {
            f"loss_{name}": squared_error(model.apply(params, data[f"x_{name}"]), data[f"y_{name}"], reduction)
            for name in sorted(names)
        }

    return observe


@dataclass(frozen=True)
class SummedLosses:
    """An ``observe`` function: the multitask network's summed squared error on each named set
    (``loss_<name>`` from ``x_<name>``, ``y_<name>`` of the data).

    With the ``numba`` engine the CPU kernel evaluates it itself, per network on its distinct
    patterns weighted by their counts (:func:`lib.core.training_kernel.summed_losses`): no
    JAX call per snapshot, and each network's loss is the same whatever the other networks
    of its batch. The other engines call it as a JAX function (``squared_error``)."""

    model: MultitaskNet
    names: tuple[str, ...] = ("train", "test")

    def __call__(self, params: Params, data: Data) -> dict[str, jax.Array]:
        return {f"loss_{n}": squared_error(self.model.apply(params, data[f"x_{n}"]), data[f"y_{n}"])
                for n in self.names}


@partial(jax.jit, static_argnames=("observe", "batched"))
def _observe(params, data, observe, batched):
    return jax.vmap(observe)(params, data) if batched else observe(params, data)


def _first_snapshot(params: Params, data: Data, observe: Observe, batched: bool) -> Any:
    """The observation at iteration 0, with a snapshot axis of size 1 (after the network axis if ``batched``)."""
    return jax.tree.map(lambda a: jnp.expand_dims(a, int(batched)), _observe(params, data, observe, batched))


# --- the reference engine: jax.grad of any model's loss ---------------------------------------------
def _reference_segments(model, params, data, learning_rate, steps_per_snapshot, n_segments, observe, reduction):
    """Run ``n_segments`` x ``steps_per_snapshot`` GD steps; observe after each segment."""
    step = lambda p: gradient_step(model, p, data["x_train"], data["y_train"], learning_rate, reduction)
    return scan_segments(step, params, steps_per_snapshot, n_segments, lambda p: observe(p, data))


@partial(jax.jit, static_argnames=("model", "steps_per_snapshot", "n_segments", "observe", "reduction", "batched"))
def _reference_run(model, params, data, learning_rate, steps_per_snapshot, n_segments, observe, reduction, batched):
    def one(p, d, lr):
        return _reference_segments(model, p, d, lr, steps_per_snapshot, n_segments, observe, reduction)

    return jax.vmap(one)(params, data, learning_rate) if batched else one(params, data, learning_rate)


def _reference_engine(model, params, data, learning_rate, steps_per_snapshot, observe, reduction, batched) -> EngineRun:
    """The :class:`~lib.core.engines.EngineRun` of ``jax.grad`` training; its state is the parameters."""

    def advance(state, n_segments):
        return _reference_run(model, state, data, learning_rate, steps_per_snapshot, n_segments, observe, reduction,
                              batched)

    return EngineRun(params, advance, lambda state: state, _first_snapshot(params, data, observe, batched))


# --- the multitask network's hand-written backward pass in XLA, on distinct patterns -----------------
DistinctState = tuple[jax.Array, jax.Array, jax.Array]
DistinctBatch = tuple[jax.Array, jax.Array, jax.Array, jax.Array]


def multitask_loss(net: MultitaskNet, params: Params, x: jax.Array, y: jax.Array,
                   counts: jax.Array | None = None) -> jax.Array:
    """Summed squared error of the multitask network on (N, D) inputs ``x`` and (N, K) targets
    ``y``, pattern n weighted by ``counts[n]`` (default 1). Equal to
    ``squared_error(net.apply(params, x), y)`` up to float32 rounding, without the copy of the
    concatenated ``[h; x_task]`` (the forward pass of :func:`distinct_gd_steps`)."""
    hidden = net.hidden(params, x)
    w_output = params["w_output"]
    pre = hidden @ w_output[:, : net.n_hidden].T + (net.task_input(x) @ w_output[:, net.n_hidden :].T + net.bias_output)
    per_pattern = jnp.sum((jax.nn.sigmoid(pre) - y) ** 2, axis=-1)
    return jnp.sum(per_pattern if counts is None else counts * per_pattern)


def _distinct_state(net: MultitaskNet, params: Params) -> DistinctState:
    """One network's weights in the layout :func:`_distinct_step` uses: ``w_in`` (D, H) (the hidden
    weights transposed), ``w_out_hidden`` (K, H) and ``w_out_task`` (K, T)."""
    w_output = params["w_output"]
    return params["w_hidden"].T, w_output[:, : net.n_hidden], w_output[:, net.n_hidden :]


def _distinct_params(state: DistinctState) -> Params:
    """Inverse of :func:`_distinct_state` (exact: transposes and a concatenation)."""
    w_in, w_out_hidden, w_out_task = state
    return {"w_hidden": w_in.T, "w_output": jnp.concatenate([w_out_hidden, w_out_task], axis=1)}


def _distinct_step(net: MultitaskNet, state: DistinctState, batch: DistinctBatch, learning_rate) -> DistinctState:
    """One full-batch GD step of the multitask network on the count-weighted summed squared error,
    with a hand-written backward pass.

    ``batch`` is (x (U, D), x_task (U, T), y (U, K), counts (U,)). The output layer's hidden and
    task weights are kept apart (no concatenated ``[h; x_task]`` copy) and the hidden-layer
    weights are stored transposed. The learning rate is folded into the output error
    ``delta_out = -lr dL/d(output pre-activation)``, so that each weight update
    ``W + delta^T activity`` is a single matmul with a fused addition.
    """
    w_in, w_out_hidden, w_out_task = state
    x, x_task, y, counts = batch
    learning_rate = jnp.asarray(learning_rate, w_in.dtype)
    hidden = jax.nn.sigmoid(x @ w_in + net.bias_hidden)
    out = jax.nn.sigmoid(hidden @ w_out_hidden.T + (x_task @ w_out_task.T + net.bias_output))
    delta_out = (-2.0 * learning_rate) * counts[:, None] * (out - y) * out * (1.0 - out)
    # delta_out @ w_out_hidden, written as K broadcast products so that XLA fuses it with the
    # sigmoid derivative instead of materialising a (U, H) matmul result
    back = sum(delta_out[:, k, None] * w_out_hidden[k] for k in range(w_out_hidden.shape[0]))
    delta_hidden = back * (hidden * (1.0 - hidden))
    return x.T @ delta_hidden + w_in, delta_out.T @ hidden + w_out_hidden, delta_out.T @ x_task + w_out_task


def distinct_gd_steps(net: MultitaskNet, params: Params, batch: DistinctBatch, learning_rate, n_steps) -> Params:
    """``n_steps`` full-batch gradient steps of the multitask network's summed squared error on
    count-weighted distinct patterns, in XLA (traceable; ``n_steps`` may be traced): the descent
    of :func:`train` up to float32 rounding, for callers that interleave their own work with it.

    Args:
        batch: (x (U, D), x_task (U, T), y (U, K), counts (U,)) the distinct patterns, their
            task inputs ``x[:, net.n_stimulus:]`` and how often each occurs (0 adds nothing).
    """
    step = lambda _, state: _distinct_step(net, state, batch, learning_rate)
    return _distinct_params(jax.lax.fori_loop(0, n_steps, step, _distinct_state(net, params)))


# --- the numba engine: the CPU kernel of lib.core.training_kernel -----------------------------------
def _kernel_set(model: MultitaskNet, x, y) -> tuple:
    """One data set of B networks as the kernel takes it: (factored inputs..., y, counts, n_patterns)
    of the distinct patterns (``n_patterns`` (B,): each network's own number, the rows after it
    padding), and a (B, U, H + T) scratch whose last T columns hold the task inputs."""
    x, y, counts = distinct_training_set(model.n_inputs, x, y)
    n_patterns = np.count_nonzero(counts, axis=-1).astype(np.int64)  # padding rows alone have count 0
    scratch = np.zeros(x.shape[:-1] + (model.n_hidden + model.n_tasks,), np.float32)
    scratch[..., model.n_hidden :] = x[..., model.n_stimulus :]
    return scratch, (*factored_inputs(x, model.n_stimulus), y, counts, n_patterns)


def _numba_engine(model, params, data, learning_rate, steps_per_snapshot, observe, reduction, batched) -> EngineRun:
    """The :class:`~lib.core.engines.EngineRun` of the CPU kernel (``reduction`` is ``"sum"``).
    The state is NumPy arrays with a leading network axis, trained in place. A
    :class:`SummedLosses` observation is evaluated by the kernel; any other ``observe`` by JAX
    on copies of the weights."""
    import numba
    from threadpoolctl import threadpool_limits

    from . import training_kernel
    from .parallel import available_workers

    if params["w_hidden"].dtype != jnp.float32:
        raise ValueError(f"engine='numba' trains float32 weights, got {params['w_hidden'].dtype}; "
                         "use engine='reference'")
    lift = (lambda a: np.asarray(a)) if batched else (lambda a: np.asarray(a)[None])
    scratch, arrays = _kernel_set(model, lift(data["x_train"]), lift(data["y_train"]))
    constants = (*arrays, np.asarray(learning_rate, np.float32).reshape(-1))
    biases = (np.float32(model.bias_hidden), np.float32(model.bias_output))
    # copies (np.array, C order): the kernel trains them in place; a view (ascontiguousarray of an
    # already contiguous swap, n_hidden = 1) would be the caller's read-only weights
    state = (np.array(np.swapaxes(lift(params["w_hidden"]), 1, 2), np.float32, order="C"),
             np.array(lift(params["w_output"]), np.float32))
    training_kernel.check_batch(w_in=state[0], w_output=state[1], scratch=scratch, learning_rates=constants[-1],
                                **dict(zip(("stimulus_active", "stimulus_values", "stimulus_of", "task_active",
                                            "task_values", "task_of", "y", "counts", "n_patterns"), arrays)))
    in_kernel = isinstance(observe, SummedLosses) and observe.model == model
    # the training set's arrays serve its loss too (each step rewrites the scratch's hidden columns)
    loss_sets = {n: (scratch, arrays) if n == "train" else _kernel_set(model, lift(data[f"x_{n}"]),
                                                                       lift(data[f"y_{n}"]))
                 for n in (observe.names if in_kernel else ())}
    n_threads = min(available_workers(), numba.config.NUMBA_NUM_THREADS)  # a Dask worker's one, not the machine's

    @contextmanager
    def kernel_threads():
        """One kernel thread per available core, one BLAS thread inside each."""
        numba.set_num_threads(n_threads)
        with threadpool_limits(1, user_api="blas"):
            yield

    def to_params(state):
        w_in, w_output = state
        out = {"w_hidden": jnp.asarray(np.swapaxes(w_in, 1, 2)), "w_output": jnp.asarray(w_output)}
        return out if batched else jax.tree.map(lambda a: a[0], out)

    def kernel_losses(state) -> dict:
        out = {}
        for name, (set_scratch, set_arrays) in loss_sets.items():
            losses = np.empty(state[0].shape[0], np.float64)
            training_kernel.summed_losses(*state, set_scratch, *set_arrays, *biases, losses)
            out[f"loss_{name}"] = losses.astype(np.float32) if batched else np.float32(losses[0])
        return out

    def stacked(snapshots: list) -> dict:
        return jax.tree.map(lambda *parts: np.stack(parts, axis=int(batched)), *snapshots)

    def advance(state, n_segments):
        # with a JAX observation: train all segments first, keeping copies of the weights (the
        # kernel goes on writing into the state), then observe them (JAX's threads would
        # otherwise compete with the kernel's for the cores)
        snapshots = []
        with kernel_threads():
            for _ in range(n_segments):
                training_kernel.train_steps(*state, scratch, *constants, steps_per_snapshot, *biases)
                snapshots.append(kernel_losses(state) if in_kernel else tuple(np.array(a) for a in state))
        if not in_kernel:
            snapshots = jax.block_until_ready([_observe(to_params(c), data, observe, batched) for c in snapshots])
        return state, stacked(snapshots)

    if in_kernel:
        with kernel_threads():
            first = stacked([kernel_losses(state)])
    else:
        first = _first_snapshot(params, data, observe, batched)
    return EngineRun(state, advance, to_params, first)  # after the last segment nothing writes into the state


_ENGINES: dict[Engine, Callable[..., EngineRun]] = {Engine.NUMBA: _numba_engine, Engine.REFERENCE: _reference_engine}


# --- checks and the training loop -------------------------------------------------------------------
def _check_arrays(params: Params, data: Data, learning_rate, batched: bool) -> None:
    """Cheap checks at the entry of training, before anything is compiled or run: every
    parameter and data array is a finite real array, and with ``batched`` all of them and the
    learning rates share one leading size (the number of networks)."""
    arrays = named_leaves(params, "params") | named_leaves(data, "data")
    for name, value in arrays.items():
        value = np.asarray(value)
        if not (np.issubdtype(value.dtype, np.floating) or np.issubdtype(value.dtype, np.integer)
                or value.dtype == bool):
            raise ValueError(f"{name} must be a real array, got dtype {value.dtype}")
        check_finite(name, value)
    if not batched:
        return
    sizes = {name: (np.shape(value)[0] if np.ndim(value) else None) for name, value in arrays.items()}
    sizes["learning_rates"] = np.shape(learning_rate)[0]
    if len(set(sizes.values())) != 1:
        raise ValueError("params, data and learning_rates must have the same leading size (one entry per "
                         f"network), got {', '.join(f'{n}: {s}' for n, s in sizes.items())}")


def _check_distinct_pattern_engine(model, reduction: str, engine: Engine) -> None:
    """The ``numba`` engine trains the multitask network's summed squared error only."""
    if not isinstance(model, MultitaskNet):
        raise ValueError(f"engine='{engine}' trains only the multitask network (MultitaskNet), got "
                         f"{type(model).__name__}; use engine='reference'")
    if reduction != "sum":
        raise ValueError(f"engine='{engine}' trains only the summed squared error (reduction='sum'), got "
                         f"{reduction!r}; use engine='reference'")


def _check_multitask_shapes(model: MultitaskNet, params: Params, data: Data, batched: bool) -> None:
    """The multitask network's weights and data have the shapes of ``model``."""
    lead = 1 if batched else 0
    expected = {"w_hidden": (model.n_hidden, model.n_inputs), "w_output": (model.n_outputs, model.n_hidden + model.n_tasks)}
    if sorted(params) != sorted(expected):
        raise ValueError(f"params must hold exactly {sorted(expected)} for {model}, got {sorted(params)}")
    for key, shape in expected.items():
        if np.shape(params[key])[lead:] != shape:
            raise ValueError(f"params[{key!r}] must have shape {('B',) * lead + shape} for this network, "
                             f"got {np.shape(params[key])}")
    for name in (k[2:] for k in data if k.startswith("x_") and f"y_{k[2:]}" in data):
        x_shape, y_shape = np.shape(data[f"x_{name}"]), np.shape(data[f"y_{name}"])
        if len(x_shape) != lead + 2 or x_shape[-1] != model.n_inputs or y_shape != x_shape[:-1] + (model.n_outputs,):
            raise ValueError(f"data['x_{name}'] and data['y_{name}'] must have shapes {('B',) * lead + ('N', model.n_inputs)} "
                             f"and {('B',) * lead + ('N', model.n_outputs)}, got {x_shape} and {y_shape}")


def _chunks(n_segments: int) -> list[int]:
    """Split the segments into at most N_PROGRESS_CHUNKS chunks of at most two distinct sizes."""
    size = -(-n_segments // N_PROGRESS_CHUNKS)
    full, rest = divmod(n_segments, size)
    return [size] * full + ([rest] if rest else [])


def _train_checked(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction, batched,
                   progress, engine):
    steps_per_snapshot = check_schedule(n_iterations, n_snapshots)
    check_choice("reduction", reduction, REDUCTIONS)
    engine = check_engine("engine", engine)
    for key in ("x_train", "y_train"):
        if key not in data:
            raise ValueError(f"data must contain {key!r}; got keys {sorted(data)}")
    shape = np.shape(data["x_train"])
    if len(shape) <= batched or shape[int(batched)] == 0:
        raise ValueError(f"data['x_train'] must hold at least one training pattern, shape "
                         f"{('B', 'N') if batched else ('N',)} + the input's with N >= 1, got {shape}")
    _check_arrays(params, data, learning_rate, batched)
    if engine.distinct_patterns:
        _check_distinct_pattern_engine(model, reduction, engine)
    if isinstance(model, MultitaskNet):
        _check_multitask_shapes(model, params, data, batched)
    observe = observe or observe_losses(model, reduction)
    run = _ENGINES[engine](model, params, data, learning_rate, steps_per_snapshot, observe, reduction, batched)
    state, recorded = run.state, [run.first]
    bar = tqdm(total=n_iterations, desc=progress or "training", unit="it", disable=not progress, mininterval=1.0)
    for n_segments in _chunks(n_snapshots - 1):
        state, snaps = run.advance(state, n_segments)
        recorded.append(snaps)
        if progress:
            jax.block_until_ready(state)  # dispatch is asynchronous: wait so the bar tells the truth
        bar.update(n_segments * steps_per_snapshot)
    bar.close()
    snapshots = jax.tree.map(lambda *parts: jnp.concatenate(parts, axis=int(batched)), *recorded)
    return run.final(state), snapshots


def train(
    model: Model,
    params: Params,
    data: Data,
    learning_rate: float,
    n_iterations: int,
    n_snapshots: int = 101,
    observe: Observe | None = None,
    reduction: str = "sum",
    progress: str | None = None,
    engine: Engine | str = DEFAULT_ENGINE,
) -> tuple[Params, Any]:
    """Full-batch gradient descent on the squared error of ``data["x_train"], data["y_train"]``.

    Args:
        model: a network with ``apply(params, x) -> (N, K)``.
        params: initial parameter pytree.
        data: arrays passed to ``observe``; must hold ``x_train`` (N, D) and ``y_train`` (N, K).
        learning_rate: step size per iteration, in :data:`~lib.core.validation.FLOAT32_LR_RANGE`
            (a smaller rate is 0 in float32, a larger one inf).
        n_iterations: number of full-batch steps (a multiple of ``n_snapshots - 1``).
        n_snapshots: snapshots at iterations 0, n_iterations/(n_snapshots-1), ..., n_iterations.
        observe: ``observe(params, data) -> pytree`` recorded at each snapshot; default: losses.
        reduction: ``"sum"`` or ``"mean"`` squared error.
        progress: a tqdm bar description, or None for no bar.
        engine: an :class:`~lib.core.engines.Engine` or its value: ``"numba"`` (the default;
            the multitask network with ``reduction="sum"`` and float32 weights only) or
            ``"reference"`` (any model); equal up to float32 rounding.

    Returns:
        (final params, pytree of snapshots with a leading axis of size ``n_snapshots``).
    """
    check_learning_rate("learning_rate", learning_rate)
    return _train_checked(model, params, data, learning_rate, n_iterations, n_snapshots, observe, reduction,
                          False, progress, engine)


def train_many(
    model: Model,
    params: Params,
    data: Data,
    learning_rates: jax.Array,
    n_iterations: int,
    n_snapshots: int = 101,
    observe: Observe | None = None,
    reduction: str = "sum",
    progress: str | None = None,
    engine: Engine | str = DEFAULT_ENGINE,
) -> tuple[Params, Any]:
    """:func:`train` vmapped over the leading axis of ``params``, ``data`` and ``learning_rates``;
    snapshots have shape (networks, n_snapshots, ...)."""
    low, high = FLOAT32_LR_RANGE
    rates = np.asarray(learning_rates, np.float64)
    if rates.ndim != 1 or not np.all((rates >= low) & (rates <= high)):
        raise ValueError(f"learning_rates must be a 1-D array of numbers in [{low:.4g}, {high:.4g}], the normal "
                         f"float32 numbers the networks train in (a smaller rate rounds to 0, a larger one to inf), "
                         f"got {learning_rates!r}")
    learning_rates = jnp.asarray(learning_rates)
    return _train_checked(model, params, data, learning_rates, n_iterations, n_snapshots, observe, reduction,
                          True, progress, engine)


def compile_cpu_kernel() -> None:
    """Compile the CPU kernel (``engine="numba"``) into Numba's on-disk cache for the argument
    types the book's runs pass it: two tiny multitask networks trained for 2 steps with the
    kernel's own loss observation (:class:`SummedLosses`), the path of every run that trains with
    the default engine. Keeps nothing it computes.

    A process started after this call loads the compiled code instead of compiling it (on a
    2-core AMD EPYC, about 17 s of one core per process); the runner calls it once before it
    starts chapters side by side, each of which (and each of their Dask workers) would otherwise
    compile it at the same time. Signatures it does not reach are compiled where first used,
    as before."""
    from .tasks import TaskEnvironment

    env = TaskEnvironment()
    net = MultitaskNet.for_environment(env, 4)
    train_set, test_set = env.make_data(0, 8, 8)
    params = jax.tree.map(lambda a: jnp.stack([a, a]), net.init(jax.random.PRNGKey(0)))
    arrays = {"x_train": train_set.x, "y_train": train_set.y, "x_test": test_set.x, "y_test": test_set.y}
    data = {k: jnp.asarray(np.stack([v, v]), jnp.float32) for k, v in arrays.items()}
    train_many(net, params, data, jnp.full((2,), 0.01, jnp.float32), 2, 2, SummedLosses(net), engine=Engine.NUMBA)
