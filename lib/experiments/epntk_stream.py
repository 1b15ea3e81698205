r"""The ePNTK streamed along full-batch gradient descent: its path integral of the eNTK,
accumulated in compiled segments without holding the kernel of every step.

The paper integrates the eNTK along training only for the 4-3-5 linear network and calls
it too costly for anything larger (App A.3). Here the ePNTK, of shape (K, N_eval, M_train),

.. math:: P(t) = -\eta \sum_{s < t} K(\theta_s)

(:math:`\eta` the learning rate ``lr``) is accumulated inside the same full-batch gradient
descent as :mod:`lib.core.training`, holding O(K N M) numbers however long the run: the
running sum and the kernel at the current weights, never the kernel of every step. Each
stretch between two snapshots is compiled
code (one program when a kernel is taken at every step, else alternating calls of a node's
kernel and the steps to the next node, see :func:`_segment`; the node spacing is traced, so
one compilation serves every spacing); at each snapshot an ``observe(params, path, kernel,
data)`` function records only what an analysis needs (scalars, small matrices, the
weights), and the full P is returned at chosen snapshots only.

**The kernel K.** ``path_kernel="euler"`` is the paper's: the eNTK at the start of each step
(:func:`lib.core.kernels.entk`); summed over the training patterns it reproduces y(t) - y(0) to
first order in lr at fixed lr * t (forward Euler). ``path_kernel="step"`` averages the
output gradient along each discrete step (:func:`lib.core.step_kernels.step_entk`), which makes
the per-pattern attribution of every step exact up to a Gauss-Legendre quadrature in the step,
whatever lr.

**Time quadrature.** The every-step sum is the definition. With *nodes* every
``node_every = s`` steps (:math:`t_j = j s`) and :math:`f_j = K(\theta_{t_j})`,

.. math:: P(t_J) \approx -\eta \left[ \tfrac{s+1}{2} f_0 + s \sum_{0<j<J} f_j + \tfrac{s-1}{2} f_J \right],

the trapezoid rule of the *left Riemann sum*: exact whenever the kernel changes linearly
between nodes, identical to the every-step sum for s = 1, and one kernel per s steps. The
spacing may change at snapshots (every step through a fast early phase, then sparser;
:func:`node_phases`). Its error against the every-step sum is measured by
:func:`lib.experiments.kernel_dynamics.validation_runs`.

**Distinct patterns.** A kernel row depends only on its input and a column only on its
training pattern, and i.i.d. sampling repeats ~20% of the paper's 500 training patterns; the
node kernels and their running sum are therefore held on the distinct rows and columns
(:func:`distinct_patterns`, about 0.6 of the K x N x M work) and expanded where a snapshot
observes them or a path is returned; the multitask network's gradient steps run on the
same distinct patterns weighted by their counts (the descent of :mod:`lib.core.training` up
to float rounding). ``distinct=False`` computes everything on every pattern.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

from ..core.kernels import entk
from ..core.losses import REDUCTIONS
from ..core.models import Model, MultitaskNet, Params
from ..core.patterns import distinct_rows, stack_padded
from ..core.step_kernels import step_entk
from ..core.steps import check_schedule, gradient_step
from ..core.training import distinct_gd_steps
from ..core.validation import check_choice, check_int, check_positive_float

Data = dict[str, jax.Array]
Observe = Callable[[Params, jax.Array, jax.Array, Data], Any]
PATH_KERNELS = ("euler", "step")  # the node kernel: the eNTK at a step's start, or the step-integrated eNTK


def quadrature_weights(learning_rate, node_every: int) -> tuple[Any, Any]:
    """(interior, end) weights of the node kernels: P(t_J) = sum_{j<J} interior * f_j + end * f_J,
    plus the first node's correction ``-end * f_0`` (see the module docstring)."""
    return -learning_rate * node_every, -learning_rate * (node_every - 1) / 2


@lru_cache(maxsize=None)
def observe_reconstruction(model: Model) -> Observe:
    """An ``observe`` recording the outputs on ``data["x_eval"]`` (N, K) and the ePNTK's
    estimate of their change since iteration 0, ``P.sum(axis=2).T`` (N, K)."""

    def observe(params, path, kernel_now, data):
        return {"outputs": model.apply(params, data["x_eval"]), "estimate": path.sum(axis=2).T}

    return observe


# the static configuration of a run: (model, path kernel, Gauss-Legendre points, reduction, observe, batched)
_CONFIG = ("model", "path_kernel", "n_points", "reduction", "observe", "batched")


def distinct_patterns(data: Data, batched: bool = False, columns: bool = True) -> Data:
    """``data`` plus its distinct kernel rows and training patterns, so that a node kernel is
    computed once per distinct pair (i.i.d. sampling repeats ~20% of the paper's 500 training
    patterns): a kernel row depends only on its input, a column only on its pattern's input and
    target, hence ``kernel[:, n, m] == distinct[:, eval_index[n], train_index[m]]``.

    Adds ``x_eval_distinct`` (N', D), ``eval_index`` (N,), ``x_train_distinct`` (M', D),
    ``y_train_distinct`` (M', K), ``train_index`` (M,), ``train_counts`` (M',) how often each
    distinct pattern occurs (:func:`lib.core.patterns.distinct_rows`, lexicographic order; a
    leading network axis if ``batched``, each network's sets padded to the batch's largest with
    zero rows of count 0, which no index points to). ``columns=False`` keeps every training
    pattern as its own column (the ``"mean"`` loss, whose per-pattern gradient depends on the
    number of patterns)."""
    host = {k: np.asarray(data[k]) for k in ("x_eval", "x_train", "y_train")}
    networks = [{k: v[b] for k, v in host.items()} for b in range(len(host["x_eval"]))] if batched else [host]
    rows = [distinct_rows(d["x_eval"]) for d in networks]
    if columns:
        cols = [distinct_rows(np.concatenate([d["x_train"], d["y_train"]], axis=-1)) for d in networks]
    else:
        n_train = len(host["x_train"][0] if batched else host["x_train"])
        cols = [(np.concatenate([d["x_train"], d["y_train"]], axis=-1), np.arange(n_train, dtype=np.int32),
                 np.ones(n_train, np.int64)) for d in networks]
    stack = stack_padded if batched else (lambda arrays: arrays[0])
    xy = stack([c[0] for c in cols])
    n_inputs = host["x_train"].shape[-1]
    out = {"x_eval_distinct": stack([r[0] for r in rows]), "eval_index": stack([r[1] for r in rows]),
           "x_train_distinct": xy[..., :n_inputs], "y_train_distinct": xy[..., n_inputs:],
           "train_index": stack([c[1] for c in cols]),
           "train_counts": stack([c[2] for c in cols]).astype(host["x_train"].dtype)}  # padding: count 0
    return dict(data) | {k: jnp.asarray(v) for k, v in out.items()}


def _expand(kernel: jax.Array, data: Data) -> jax.Array:
    """(K, N, M) kernel from its (K, N', M') distinct rows and columns (:func:`distinct_patterns`)."""
    # columns first: XLA's CPU gather copies the rows' contiguous slices fast, the columns element by element
    return jnp.take(jnp.take(kernel, data["train_index"], axis=2), data["eval_index"], axis=1)


def _kernel(model, params, data, learning_rate, path_kernel, n_points, reduction):
    """The node kernel at ``params`` on the distinct rows and columns (K, N', M'): the eNTK
    ("euler") or the step-integrated eNTK ("step")."""
    columns = (data["x_train_distinct"], data["y_train_distinct"])
    if path_kernel == "euler":
        return entk(model, params, data["x_eval_distinct"], *columns, reduction)
    return step_entk(model, params, data["x_eval_distinct"], data["x_train"], data["y_train"], learning_rate, n_points,
                     reduction, columns)


def _observe_expanded(observe, params, path, kernel, data):
    """``observe`` of the (K, N, M) path and kernel expanded from their distinct rows and columns."""
    return observe(params, _expand(path, data), _expand(kernel, data), data)


def _batch(fn, batched):
    return jax.vmap(fn) if batched else fn


def _weights(learning_rate, node_every, like: jax.Array):
    """:func:`quadrature_weights` for a traced integer ``node_every``, in the dtype of ``like``."""
    return quadrature_weights(learning_rate, jnp.asarray(node_every).astype(like.dtype))


@partial(jax.jit, static_argnames=_CONFIG)
def _start(model, params, data, learning_rate, node_every, path_kernel, n_points, reduction, observe, batched):
    """Carry at iteration 0 and its snapshot (P(0) = 0)."""

    def one(params, data, learning_rate):
        kernel = _kernel(model, params, data, learning_rate, path_kernel, n_points, reduction)
        _, end = _weights(learning_rate, node_every, kernel)
        path_sum = -end * kernel  # path_sum + end * kernel = P(0) = 0; the first node gets weight (s+1)/2
        carry = (params, kernel, path_sum)
        # P(0) = 0 as 0 * kernel: a literal zero is folded slowly
        return carry, _observe_expanded(observe, params, 0.0 * kernel, kernel, data)

    return _batch(one, batched)(params, data, learning_rate)


@partial(jax.jit, static_argnames=("batched",))
def _path(carry, data, learning_rate, node_every, new_node_every, batched=False):
    """(the ePNTK at the carry's iteration (K, N, M), the carry re-based so that nodes continue
    every ``new_node_every`` steps instead of ``node_every`` (the path does not change))."""

    def one(carry, data, learning_rate):
        params, kernel, path_sum = carry
        path = path_sum + _weights(learning_rate, node_every, kernel)[1] * kernel
        rebased = path - _weights(learning_rate, new_node_every, kernel)[1] * kernel
        return _expand(path, data), (params, kernel, rebased)

    return _batch(one, batched)(carry, data, learning_rate)


def _gd_steps(model, params, data, learning_rate, node_every, reduction):
    """``node_every`` (traced) full-batch gradient steps of one network: on the distinct
    patterns, count-weighted, for the multitask network with the summed loss
    (:func:`distinct_patterns`), else as :mod:`lib.core.training` takes them
    (:func:`lib.core.steps.gradient_step`)."""
    if "train_counts" in data and isinstance(model, MultitaskNet) and reduction == "sum":
        x = data["x_train_distinct"]
        batch = (x, x[..., model.n_stimulus:], data["y_train_distinct"], data["train_counts"])
        return distinct_gd_steps(model, params, batch, learning_rate, node_every)
    gd = lambda _, p: gradient_step(model, p, data["x_train"], data["y_train"], learning_rate, reduction)
    return jax.lax.fori_loop(0, node_every, gd, params)


@partial(jax.jit, static_argnames=("model", "reduction", "batched"))
def _steps(model, params, data, learning_rate, node_every, reduction, batched):
    """:func:`_gd_steps` as a program of its own (see :func:`_segment`)."""
    one = lambda params, data, lr: _gd_steps(model, params, data, lr, node_every, reduction)
    return _batch(one, batched)(params, data, learning_rate)


@partial(jax.jit, static_argnames=_CONFIG)
def _every_step_segment(model, carry, data, learning_rate, nodes, path_kernel, n_points, reduction, observe, batched):
    """:func:`_segment` with a node at every step (``nodes`` traced), as one program."""

    def one(carry, data, learning_rate):
        params, kernel, path_sum = carry
        interior, end = _weights(learning_rate, 1, kernel)
        kernel_at = lambda p: _kernel(model, p, data, learning_rate, path_kernel, n_points, reduction)
        step = lambda params: _gd_steps(model, params, data, learning_rate, 1, reduction)

        def node(_, state):
            params, path_sum = state
            path_sum = path_sum + interior * kernel_at(params)
            return step(params), path_sum

        state = (step(params), path_sum + interior * kernel)
        params, path_sum = jax.lax.fori_loop(0, nodes - 1, node, state)
        kernel = kernel_at(params)
        return (params, kernel, path_sum), _observe_expanded(observe, params, path_sum + end * kernel, kernel, data)

    return _batch(one, batched)(carry, data, learning_rate)


@partial(jax.jit, static_argnames=("batched",), donate_argnames=("path_sum",))
def _accumulate(path_sum, kernel, learning_rate, node_every, batched):
    """``path_sum + interior * kernel`` (:func:`quadrature_weights`)."""
    one = lambda path_sum, kernel, learning_rate: path_sum + _weights(learning_rate, node_every, kernel)[0] * kernel
    return _batch(one, batched)(path_sum, kernel, learning_rate)


@partial(jax.jit, static_argnames=("model", "path_kernel", "n_points", "reduction", "batched"),
         donate_argnames=("path_sum",))
def _add_node(model, path_sum, params, data, learning_rate, node_every, path_kernel, n_points, reduction, batched):
    """``path_sum + interior * K(params)``: a node's kernel, added where it is computed (one pass)."""

    def one(path_sum, params, data, learning_rate):
        kernel = _kernel(model, params, data, learning_rate, path_kernel, n_points, reduction)
        return path_sum + _weights(learning_rate, node_every, kernel)[0] * kernel

    return _batch(one, batched)(path_sum, params, data, learning_rate)


@partial(jax.jit, static_argnames=_CONFIG)
def _close(model, params, path_sum, data, learning_rate, node_every, path_kernel, n_points, reduction, observe,
           batched):
    """The kernel at a snapshot (carried to the next segment) and the snapshot's observation of
    the expanded path ``path_sum + end * kernel`` and kernel."""

    def one(params, path_sum, data, learning_rate):
        kernel = _kernel(model, params, data, learning_rate, path_kernel, n_points, reduction)
        path = path_sum + _weights(learning_rate, node_every, kernel)[1] * kernel
        return kernel, _observe_expanded(observe, params, path, kernel, data)

    return _batch(one, batched)(params, path_sum, data, learning_rate)


def _segment(model, carry, data, learning_rate, node_every, nodes, path_kernel, n_points, reduction, observe, batched):
    """One snapshot segment: ``nodes`` nodes of ``node_every`` steps (traced: one compilation
    serves every node spacing), then the observation.

    On XLA's CPU runtime the gradient steps run slower when they are compiled into one program
    with the kernels' large products, and the kernel runs slower in a program of its own
    (``benchmarks/epntk_speed.py`` times the stream). Segments with a node at every step
    (kernel-bound) are therefore one program (:func:`_every_step_segment`); sparser ones
    alternate compiled calls: the node's kernel added to the running sum (donated: updated in
    place), then the steps.

    The carry holds (params, node kernel at params, running sum without that
    kernel), the kernels on the distinct rows and columns (:func:`distinct_patterns`); the
    observation gets them expanded. A node adds its kernel to the running sum and takes
    ``node_every`` steps; the next node's kernel is computed where it is added (one pass over
    the K x N x M sum), except at the snapshot, where it also enters the end correction and is
    carried to the next segment."""
    kernel_config = dict(model=model, path_kernel=path_kernel, n_points=n_points, reduction=reduction, batched=batched)
    if node_every == 1:
        return _every_step_segment(carry=carry, data=data, learning_rate=learning_rate, nodes=nodes, observe=observe,
                                   **kernel_config)
    params, kernel, path_sum = carry
    path_sum = _accumulate(path_sum, kernel, learning_rate, node_every, batched)
    params = _steps(model, params, data, learning_rate, node_every, reduction, batched)
    for _ in range(nodes - 1):
        path_sum = _add_node(path_sum=path_sum, params=params, data=data, learning_rate=learning_rate,
                             node_every=node_every, **kernel_config)
        params = _steps(model, params, data, learning_rate, node_every, reduction, batched)
    kernel, observed = _close(params=params, path_sum=path_sum, data=data, learning_rate=learning_rate,
                              node_every=node_every, observe=observe, **kernel_config)
    return (params, kernel, path_sum), observed


def node_phases(node_every, n_iterations: int, spacing: int) -> tuple[tuple[int, int], ...]:
    """Validated ((until_iteration, node spacing), ...) from an int s (one phase) or a sequence of
    (until, s) pairs: nodes every s_1 steps up to until_1, every s_2 up to until_2, ..., with the
    last until = ``n_iterations``, every until a multiple of the snapshot ``spacing`` and every
    s dividing it."""
    if isinstance(node_every, (int, np.integer)) and not isinstance(node_every, bool):
        node_every = ((n_iterations, node_every),)
    message = (f"node_every must be an integer or a list of [until_iteration, spacing] pairs with increasing "
               f"untils ending at n_iterations ({n_iterations}), each a multiple of the snapshot spacing "
               f"({spacing}) and each spacing dividing it; got {node_every!r}")
    try:
        phases = tuple((int(until), int(s)) for until, s in node_every)
    except (TypeError, ValueError) as err:
        raise ValueError(message) from err
    untils = [0] + [u for u, _ in phases]
    ok = (len(phases) > 0 and untils[-1] == n_iterations and all(b > a for a, b in zip(untils, untils[1:]))
          and all(u % spacing == 0 and s >= 1 and spacing % s == 0 for u, s in phases))
    if not ok:
        raise ValueError(message)
    return phases


def _check_stream(learning_rate, n_iterations, n_snapshots, node_every, path_kernel, n_points, keep_paths, data,
                  reduction, batched):
    """Validate :func:`stream_epntk`'s arguments; return (snapshot spacing, node phases, sorted kept snapshots)."""
    spacing = check_schedule(n_iterations, n_snapshots)
    phases = node_phases(node_every, n_iterations, spacing)
    check_choice("path_kernel", path_kernel, PATH_KERNELS)
    check_int("n_points", n_points, minimum=1)
    check_choice("reduction", reduction, REDUCTIONS)
    for key in ("x_eval", "x_train", "y_train"):
        if key not in data:
            raise ValueError(f"data must contain {key!r}; got keys {sorted(data)}")
    if not isinstance(keep_paths, (tuple, list)):
        raise ValueError(f"keep_paths must be a tuple of snapshot indices, got {keep_paths!r}")
    keep = tuple(sorted({check_int("keep_paths[i]", k, minimum=0) for k in keep_paths}))
    if keep and keep[-1] > n_snapshots - 1:
        raise ValueError(f"keep_paths must be snapshot indices in 0..{n_snapshots - 1}, got {keep_paths!r}")
    if batched:
        rates = np.asarray(learning_rate)
        if rates.ndim != 1 or not (np.isfinite(rates) & (rates > 0)).all():
            raise ValueError(f"learning_rate must be a 1-D array of positive numbers when batched, got {learning_rate!r}")
    else:
        check_positive_float("learning_rate", learning_rate)
    return spacing, phases, keep


def stream_epntk(
    model: Model,
    params: Params,
    data: Data,
    learning_rate,
    n_iterations: int,
    n_snapshots: int = 101,
    node_every=1,
    path_kernel: str = "euler",
    n_points: int = 8,
    observe: Observe | None = None,
    keep_paths: tuple[int, ...] = (),
    reduction: str = "sum",
    batched: bool = False,
    progress: str | None = None,
    distinct: bool = True,
) -> tuple[Params, Any, np.ndarray]:
    """Full-batch gradient descent that accumulates the ePNTK as it goes, in compiled segments.

    Args:
        model: a network with :func:`lib.core.kernels.entk` (structured for the multitask network).
        params: initial weights (a leading network axis if ``batched``).
        data: ``x_eval`` (N, D) the kernel's rows, ``x_train`` (M, D), ``y_train`` (M, K), plus
            whatever ``observe`` reads (a leading network axis on everything if ``batched``).
        learning_rate: step size (> 0); a (networks,) array if ``batched``.
        n_iterations: gradient steps (a multiple of ``n_snapshots - 1``).
        n_snapshots: observations at iterations 0, n_iterations/(n_snapshots-1), ..., n_iterations.
        node_every: s, iterations between kernel evaluations (1: the every-step sum; > 1: the
            trapezoid quadrature of the module docstring), dividing the snapshot spacing; or
            phases ``[(until_1, s_1), (until_2, s_2), ...]`` (:func:`node_phases`), e.g. every
            step through a fast early transient, then sparser.
        path_kernel: ``"euler"``, the eNTK at each step's start (the paper's ePNTK, first order
            in lr), or ``"step"``, the step-integrated eNTK of :func:`lib.core.step_kernels.step_entk` (exact up to
            its ``n_points``-point quadrature along each step).
        n_points: Gauss-Legendre points along a step (``path_kernel="step"``).
        observe: ``observe(params, path (K, N, M), kernel (K, N, M), data) -> pytree`` at each
            snapshot, given the ePNTK and the node kernel there; default :func:`observe_reconstruction`.
        keep_paths: snapshot indices at which the full ePNTK is returned.
        reduction: ``"sum"`` or ``"mean"`` squared error.
        batched: vmap over a leading network axis (memory grows with the number of networks).
        progress: a tqdm bar description, or None.
        distinct: work on the distinct rows and training patterns (:func:`distinct_patterns`;
            columns only with the ``"sum"`` loss): the node kernels and their sum are computed
            there and expanded where they are observed or returned, and the multitask
            network's steps are the count-weighted steps of
            :func:`lib.core.training.distinct_gd_steps`. The same numbers up to float
            rounding, less work where patterns repeat. False: every pattern, and the steps of
            :func:`lib.core.training.train` (``engine="reference"``) bit for bit.

    Returns:
        (final params, snapshots with a leading axis n_snapshots (after the network axis if
        batched), numpy array of the ePNTK at the sorted ``keep_paths``: (len(keep_paths), K, N, M),
        or (networks, len(keep_paths), K, N, M) if batched). Memory: two K x N' x M' arrays
        (the running sum and the current node kernel) plus the kept paths on the host.
    """
    spacing, phases, keep = _check_stream(learning_rate, n_iterations, n_snapshots, node_every, path_kernel, n_points,
                                          keep_paths, data, reduction, batched)
    config = dict(model=model, path_kernel=path_kernel, n_points=n_points, reduction=reduction,
                  observe=observe or observe_reconstruction(model), batched=batched)
    learning_rate = jnp.asarray(learning_rate) if batched else float(learning_rate)  # a float stays weakly typed
    if distinct:
        data = distinct_patterns(data, batched, columns=reduction == "sum")
    else:
        every = lambda n: jnp.broadcast_to(jnp.arange(n, dtype=jnp.int32), (*np.shape(data["x_eval"])[:-2], n))
        data = dict(data) | {"x_eval_distinct": data["x_eval"], "x_train_distinct": data["x_train"],
                             "y_train_distinct": data["y_train"], "eval_index": every(np.shape(data["x_eval"])[-2]),
                             "train_index": every(np.shape(data["x_train"])[-2])}
    segment_spacing, start = [], 0
    for until, s in phases:  # node spacing of every snapshot segment
        segment_spacing += [s] * ((until - start) // spacing)
        start = until
    axis = int(batched)
    carry, first = _start(params=params, data=data, learning_rate=learning_rate, node_every=segment_spacing[0],
                          **config)
    recorded, paths = [first], {}
    bar = tqdm(total=n_iterations, desc=progress or "ePNTK", unit="it", disable=not progress, mininterval=1.0)
    for i, s in enumerate(segment_spacing):
        previous = segment_spacing[max(i - 1, 0)]
        if i in keep or s != previous:
            path, rebased = _path(carry, data, learning_rate, previous, s, batched)
            carry = rebased if s != previous else carry  # a new node spacing: same path, new end weight
            if i in keep:
                paths[i] = np.asarray(path) if i else np.zeros(np.shape(path), np.result_type(path))
        carry, observed = _segment(carry=carry, data=data, learning_rate=learning_rate, node_every=s,
                                   nodes=spacing // s, **config)
        recorded.append(observed)
        if progress:
            jax.block_until_ready(carry)  # dispatch is asynchronous: wait so the bar tells the truth
        bar.update(spacing)
    bar.close()
    if n_snapshots - 1 in keep:
        paths[n_snapshots - 1] = np.asarray(_path(carry, data, learning_rate, segment_spacing[-1], segment_spacing[-1],
                                                  batched)[0])
    snapshots = jax.tree.map(lambda *parts: jnp.stack(parts, axis=axis), *recorded)
    kept = np.stack([paths[k] for k in keep], axis=axis) if keep else np.zeros((0,), np.float32)
    return carry[0], snapshots, kept


def truncate_phases(phases, n_iterations: int) -> tuple[tuple[int, int], ...]:
    """The node phases of a run cut at ``n_iterations`` (the last phase kept ends there)."""
    out = []
    for until, s in phases:
        out.append((min(until, n_iterations), s))
        if until >= n_iterations:
            break
    return tuple(out)


def node_count(phases) -> int:
    """Kernel evaluations (nodes) per network of the node phases ``((until, s), ...)``."""
    starts = [0] + [until for until, _ in phases[:-1]]
    return sum((until - start) // s for (until, s), start in zip(phases, starts))
