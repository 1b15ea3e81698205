"""The eNTK along training and its path integral (ePNTK), streamed, for the multitask network.

The paper integrates the eNTK along training only for the 4-3-5 linear network and calls
it too costly for anything larger (App A.3). Here the ePNTK

    P(t) = -lr * sum_{s < t} K(theta_s)                                      (K, N_eval, M_train)

is accumulated inside the same full-batch gradient descent as :mod:`lib.core.training`, holding
O(K N M) numbers however long the run: the running sum and the kernel at the current
weights, never the kernel of every step. Each stretch between two snapshots is compiled
code (one program when a kernel is taken at every step, else alternating calls of a node's
kernel and the steps to the next node, see :func:`_segment`; the node spacing is traced, so
one compilation serves every spacing); at each snapshot an ``observe(params, path, kernel,
data)`` function records only what an analysis needs (scalars, small matrices, the
weights), and the full P is returned at chosen snapshots only.

**The kernel K.** ``path_kernel="euler"`` is the paper's: the eNTK at the start of each step
(:func:`lib.core.kernels.entk`); summed over the training patterns it reproduces y(t) - y(0) to
first order in lr at fixed lr * t (forward Euler). ``path_kernel="step"`` averages the
output gradient along each discrete step (:func:`step_entk`), which makes the per-pattern
attribution of every step exact up to a Gauss-Legendre quadrature in the step, whatever lr.

**Time quadrature.** The every-step sum is the definition. With *nodes* every
``node_every = s`` steps (t_j = j s) and f_j = K(theta_{t_j}),

    P(t_J) ~= -lr * [ (s+1)/2 f_0 + s * sum_{0<j<J} f_j + (s-1)/2 f_J ],

the trapezoid rule of the *left Riemann sum*: exact whenever the kernel changes linearly
between nodes, identical to the every-step sum for s = 1, and one kernel per s steps. The
spacing may change at snapshots (every step through a fast early phase, then sparser).
Its error against the every-step sum is measured by :func:`validation_runs`.

**Distinct patterns.** A kernel row depends only on its input and a column only on its
training pattern, and i.i.d. sampling repeats ~20% of the paper's 500 training patterns; the
node kernels and their running sum are therefore held on the distinct rows and columns
(:func:`distinct_patterns`, about 0.6 of the K x N x M work) and expanded where a snapshot
observes them or a path is returned; the multitask network's gradient steps run on the
same distinct patterns weighted by their counts (the descent of :mod:`lib.core.training` up
to float rounding). ``distinct=False`` computes everything on every pattern.

**Multitask experiments** (the chapter "The eNTK over training"): standard/large pairs as
in :mod:`lib.experiments.schedules`, rows of the kernels over training inputs followed by test
inputs, so one run serves both index sets of the eNTK analyses (``"principled"``: rows
over training inputs; ``"authors"``: rows over test inputs; columns always the training
inputs). Recorded per snapshot: the reconstruction error of y(t) - y(0), the split of the
learned change into contributions of training patterns by how their task relates to the
row's task (:data:`SHARING_CATEGORIES`) and how much those contributions cancel, the
alignment of P(t) with the t=0 eNTK, task x task similarity matrices implied by P(t) and
by the hidden layer; after the run, from the
recorded weights: alignment and leading-vector overlap of eNTK(t) with eNTK(0) and with
the final ePNTK.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from tqdm import tqdm

from .schedules import by_pair, get_schedule, pair_data_arrays, pair_datasets, pair_initial_params
from ..core.kernels import entk
from ..core.losses import REDUCTIONS, output_loss_gradient, squared_error
from ..core.models import INITS, Model, MultitaskNet, Params
from ..core.tasks import TaskEnvironment
from ..core.training import check_schedule, distinct_gd_steps, distinct_rows, stack_padded
from ..core.validation import check_choice, check_int, check_positive_float, check_seeds, check_size

Data = dict[str, jax.Array]
Observe = Callable[[Params, jax.Array, jax.Array, Data], Any]


# --- the step-integrated eNTK --------------------------------------------------------------------
PATH_KERNELS = ("euler", "step")


def gauss_legendre(n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of ``n_points``-point Gauss-Legendre quadrature on [0, 1] (exact for
    polynomials of degree 2 n_points - 1)."""
    nodes, weights = np.polynomial.legendre.leggauss(check_int("n_points", n_points, minimum=1))
    return (nodes + 1) / 2, weights / 2


def _loss_gradient(model: Model, params: Params, x_train, y_train, reduction: str) -> Params:
    return jax.grad(lambda p: squared_error(model.apply(p, x_train), y_train, reduction))(params)


def _along(params: Params, step: Params, u) -> Params:
    return jax.tree.map(lambda w, d: w + u * d, params, step)


def step_entk_jacobian(model: Model, params: Params, x_eval, x_train, y_train, learning_rate, n_points: int = 8,
                       reduction: str = "sum", columns=None) -> jax.Array:
    """(K, N, M) step-integrated eNTK of any model, by Jacobian contraction (reference for
    :func:`step_entk_structured`); see :func:`step_entk`."""
    from ..core.kernels import flat_jacobian

    step = jax.tree.map(lambda g: -learning_rate * g, _loss_gradient(model, params, x_train, y_train, reduction))
    x_train, y_train = (x_train, y_train) if columns is None else columns
    j_train = flat_jacobian(model, params, x_train)  # (M, K, P)
    eps = output_loss_gradient(model.apply(params, x_train), y_train, reduction)
    loss_grads = jnp.einsum("mlp,ml->mp", j_train, eps)
    nodes, weights = gauss_legendre(n_points)
    j_eval = sum(w * flat_jacobian(model, _along(params, step, u), x_eval) for u, w in zip(nodes, weights))
    return jnp.einsum("nkp,mp->knm", j_eval, loss_grads)


def step_entk_structured(net: MultitaskNet, params: Params, x_eval, x_train, y_train, learning_rate,
                         n_points: int = 8, reduction: str = "sum", columns=None) -> jax.Array:
    """(K, N, M) step-integrated eNTK of the multitask network without the Jacobian.

    With theta_u = theta + u * dtheta along the gradient step dtheta = -lr dL/dtheta, the row
    side (the output's gradient) is averaged over the step, the column side (pattern m's loss
    gradient) taken where the step was computed:

        K[k, n, m] = sum_q w_q s'_k(n; u_q) [ g_mk (z_n(u_q) . z_m) + (x_n . x_m) sum_i W_o[k,i](u_q) h'_i(n; u_q) b_mi ]
    """
    hidden_units = net.n_hidden
    step = jax.tree.map(lambda g: -learning_rate * g, _loss_gradient(net, params, x_train, y_train, reduction))
    x_train, y_train = (x_train, y_train) if columns is None else columns
    h_t = net.hidden(params, x_train)
    z_t = jnp.concatenate([h_t, net.task_input(x_train)], axis=1)
    y_t = jax.nn.sigmoid(z_t @ params["w_output"].T + net.bias_output)
    g_t = output_loss_gradient(y_t, y_train, reduction) * y_t * (1.0 - y_t)  # (M, K) dL_m/d(output pre-activation)
    b_t = h_t * (1.0 - h_t) * (g_t @ params["w_output"][:, :hidden_units])  # (M, H) dL_m/d(hidden pre-activation)

    def row_factors(u):
        """s'(n; u) (K, N), z(n; u) (N, H+T), W_o(u) (K, H), h'(n; u) (N, H)."""
        p = _along(params, step, u)
        h = net.hidden(p, x_eval)
        z = jnp.concatenate([h, net.task_input(x_eval)], axis=1)
        y = jax.nn.sigmoid(z @ p["w_output"].T + net.bias_output)
        return (y * (1.0 - y)).T, z, p["w_output"][:, :hidden_units], h * (1.0 - h)

    # the points unrolled: each weighted sum over them is one elementwise pass writing its rows once
    points = [(w, *row_factors(u)) for u, w in zip(*(jnp.asarray(a, x_eval.dtype) for a in gauss_legendre(n_points)))]
    output_rows = sum(w * slope[:, :, None] * z[None] for w, slope, z, _, _ in points)  # (K, N, H+T)
    hidden_rows = sum(w * slope[:, :, None] * w_o[:, None, :] * dh[None]
                      for w, slope, _, w_o, dh in points)  # (K, N, H)
    product = lambda rows, columns: (rows.reshape(-1, rows.shape[-1]) @ columns.T).reshape(*rows.shape[:2], -1)
    output_layer = product(output_rows, z_t) * g_t.T[:, None, :]
    hidden_layer = product(hidden_rows, b_t) * (x_eval @ x_train.T)[None]
    return output_layer + hidden_layer


@partial(jax.jit, static_argnames=("model", "n_points", "reduction"))
def step_entk(model: Model, params: Params, x_eval, x_train, y_train, learning_rate, n_points: int = 8,
              reduction: str = "sum", columns=None) -> jax.Array:
    """(K, N_eval, M_train) step-integrated eNTK: the eNTK of one *discrete* gradient step,

        K_step[k, n, m] = int_0^1 dy_k(x_n; theta + u dtheta)/dtheta du . dL_m(theta)/dtheta,

    with dtheta = -lr dL/dtheta (``n_points`` Gauss-Legendre points in u). ``-lr *
    K_step.sum(axis=2).T`` is the step's change of the outputs up to that quadrature's error;
    the eNTK (:func:`lib.core.kernels.entk`) is the integrand at u = 0 and predicts it to O(lr^2).

    ``columns``: optional (x (M', D), y (M', K)) patterns whose loss gradients make the columns
    instead of the training set's (the step is always the training set's), e.g. its distinct
    patterns (:func:`distinct_patterns`); M_train is then M'."""
    if isinstance(model, MultitaskNet):
        return step_entk_structured(model, params, x_eval, x_train, y_train, learning_rate, n_points, reduction,
                                    columns)
    return step_entk_jacobian(model, params, x_eval, x_train, y_train, learning_rate, n_points, reduction, columns)


# --- streaming ePNTK ------------------------------------------------------------------------------
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


def _gd_step(model, params, opt_state, data, learning_rate, reduction):
    """One full-batch step, written exactly as :mod:`lib.core.training` takes it (optax SGD)."""
    loss = lambda p: squared_error(model.apply(p, data["x_train"]), data["y_train"], reduction)
    updates, opt_state = optax.sgd(learning_rate).update(jax.grad(loss)(params), opt_state, params)
    return optax.apply_updates(params, updates), opt_state


# the static configuration of a run: (model, path kernel, Gauss-Legendre points, reduction, observe, batched)
_CONFIG = ("model", "path_kernel", "n_points", "reduction", "observe", "batched")


def distinct_patterns(data: Data, batched: bool = False, columns: bool = True) -> Data:
    """``data`` plus its distinct kernel rows and training patterns, so that a node kernel is
    computed once per distinct pair (i.i.d. sampling repeats ~20% of the paper's 500 training
    patterns): a kernel row depends only on its input, a column only on its pattern's input and
    target, hence ``kernel[:, n, m] == distinct[:, eval_index[n], train_index[m]]``.

    Adds ``x_eval_distinct`` (N', D), ``eval_index`` (N,), ``x_train_distinct`` (M', D),
    ``y_train_distinct`` (M', K), ``train_index`` (M,), ``train_counts`` (M',) how often each
    distinct pattern occurs (:func:`lib.core.training.distinct_rows`, lexicographic order; a
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
        carry = (params, optax.sgd(learning_rate).init(params), kernel, path_sum)
        # P(0) = 0 as 0 * kernel: a literal zero is folded slowly
        return carry, _observe_expanded(observe, params, 0.0 * kernel, kernel, data)

    return _batch(one, batched)(params, data, learning_rate)


@partial(jax.jit, static_argnames=("batched",))
def _path(carry, data, learning_rate, node_every, new_node_every, batched=False):
    """(the ePNTK at the carry's iteration (K, N, M), the carry re-based so that nodes continue
    every ``new_node_every`` steps instead of ``node_every`` (the path does not change))."""

    def one(carry, data, learning_rate):
        params, opt_state, kernel, path_sum = carry
        path = path_sum + _weights(learning_rate, node_every, kernel)[1] * kernel
        rebased = path - _weights(learning_rate, new_node_every, kernel)[1] * kernel
        return _expand(path, data), (params, opt_state, kernel, rebased)

    return _batch(one, batched)(carry, data, learning_rate)


def _gd_steps(model, params, opt_state, data, learning_rate, node_every, reduction):
    """``node_every`` (traced) full-batch gradient steps of one network: on the distinct
    patterns, count-weighted, for the multitask network with the summed loss
    (:func:`distinct_patterns`), else as :mod:`lib.core.training` takes them (optax SGD)."""
    if "train_counts" in data and isinstance(model, MultitaskNet) and reduction == "sum":
        x = data["x_train_distinct"]
        batch = (x, x[..., model.n_stimulus:], data["y_train_distinct"], data["train_counts"])
        return distinct_gd_steps(model, params, batch, learning_rate, node_every), opt_state
    gd = lambda _, state: _gd_step(model, *state, data, learning_rate, reduction)
    return jax.lax.fori_loop(0, node_every, gd, (params, opt_state))


@partial(jax.jit, static_argnames=("model", "reduction", "batched"))
def _steps(model, params, opt_state, data, learning_rate, node_every, reduction, batched):
    """:func:`_gd_steps` as a program of its own (see :func:`_segment`)."""
    one = lambda params, opt_state, data, lr: _gd_steps(model, params, opt_state, data, lr, node_every, reduction)
    return _batch(one, batched)(params, opt_state, data, learning_rate)


@partial(jax.jit, static_argnames=_CONFIG)
def _every_step_segment(model, carry, data, learning_rate, nodes, path_kernel, n_points, reduction, observe, batched):
    """:func:`_segment` with a node at every step (``nodes`` traced), as one program."""

    def one(carry, data, learning_rate):
        params, opt_state, kernel, path_sum = carry
        interior, end = _weights(learning_rate, 1, kernel)
        kernel_at = lambda p: _kernel(model, p, data, learning_rate, path_kernel, n_points, reduction)
        steps = lambda params, opt_state: _gd_steps(model, params, opt_state, data, learning_rate, 1, reduction)

        def node(_, state):
            params, opt_state, path_sum = state
            path_sum = path_sum + interior * kernel_at(params)
            return (*steps(params, opt_state), path_sum)

        state = (*steps(params, opt_state), path_sum + interior * kernel)
        params, opt_state, path_sum = jax.lax.fori_loop(0, nodes - 1, node, state)
        kernel = kernel_at(params)
        return (params, opt_state, kernel, path_sum), _observe_expanded(observe, params, path_sum + end * kernel,
                                                                        kernel, data)

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

    XLA's CPU runtime runs the gradient steps ~3x slower when they are compiled into one
    program with the kernels' large products (measured: 0.73 vs 0.25 ms per network and step),
    and the kernel ~1.3x slower in a program of its own. Segments with a node at every step
    (kernel-bound) are therefore one program (:func:`_every_step_segment`); sparser ones
    alternate compiled calls: the node's kernel added to the running sum (donated: updated in
    place), then the steps.

    The carry holds (params, optimizer state, node kernel at params, running sum without that
    kernel), the kernels on the distinct rows and columns (:func:`distinct_patterns`); the
    observation gets them expanded. A node adds its kernel to the running sum and takes
    ``node_every`` steps; the next node's kernel is computed where it is added (one pass over
    the K x N x M sum), except at the snapshot, where it also enters the end correction and is
    carried to the next segment."""
    kernel_config = dict(model=model, path_kernel=path_kernel, n_points=n_points, reduction=reduction, batched=batched)
    if node_every == 1:
        return _every_step_segment(carry=carry, data=data, learning_rate=learning_rate, nodes=nodes, observe=observe,
                                   **kernel_config)
    params, opt_state, kernel, path_sum = carry
    path_sum = _accumulate(path_sum, kernel, learning_rate, node_every, batched)
    params, opt_state = _steps(model, params, opt_state, data, learning_rate, node_every, reduction, batched)
    for _ in range(nodes - 1):
        path_sum = _add_node(path_sum=path_sum, params=params, data=data, learning_rate=learning_rate,
                             node_every=node_every, **kernel_config)
        params, opt_state = _steps(model, params, opt_state, data, learning_rate, node_every, reduction, batched)
    kernel, observed = _close(params=params, path_sum=path_sum, data=data, learning_rate=learning_rate,
                              node_every=node_every, observe=observe, **kernel_config)
    return (params, opt_state, kernel, path_sum), observed


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
            in lr), or ``"step"``, the step-integrated eNTK of :func:`step_entk` (exact up to
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
            :func:`lib.core.training.train` (``method="reference"``) bit for bit.

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


# --- kernel statistics ---------------------------------------------------------------------
def alignment(a: jax.Array, b: jax.Array) -> jax.Array:
    """(K,) kernel alignment ``<a_k, b_k>_F / (|a_k| |b_k|)`` of two (K, N, M) kernels, per output."""
    num = jnp.sum(a * b, axis=(1, 2))
    return num / jnp.sqrt(jnp.sum(a * a, axis=(1, 2)) * jnp.sum(b * b, axis=(1, 2)))


def _orthonormalize(block: jax.Array) -> jax.Array:
    """(M, b) orthonormal columns spanning ``block``'s (modified Gram-Schmidt, b small)."""
    columns = []
    for j in range(block.shape[1]):
        column = block[:, j]
        for q in columns:
            column = column - (q @ column) * q
        columns.append(column / jnp.linalg.norm(column))
    return jnp.stack(columns, axis=1)


def subspace_iteration(kernel: jax.Array, start: jax.Array, n_iterations: int) -> tuple[jax.Array, jax.Array]:
    """Leading right singular vectors of each output's (N, M) matrix A of a (K, N, M) kernel by
    subspace iteration from the (K, M, b) right block ``start``, with a Rayleigh-Ritz step; the
    error of the leading vector falls like (s_{b+1} / s_1)^(2 n_iterations).

    The iteration runs on the smaller Gram matrix, A A^T (N x N, from the left block A V) when
    N < M, else A^T A: the same subspaces as iterating V <- A^T A V, but A is read three times
    (the Gram matrix, the start, the result) however many iterations, instead of twice per
    iteration; O(min(N, M) N M) once instead of an SVD's O(N M min(N, M)) per call.

    Returns ((K, M) unit vectors signed to a non-negative sum (the principled loading of
    :mod:`lib.analyses.entk_vectors`), (K, M, b) a right block spanning the final subspace, to
    warm-start a nearby kernel)."""

    def one(a, v):
        left = a.shape[0] < a.shape[1]  # static
        gram, block = (a @ a.T, a @ v) if left else (a.T @ a, v)
        block = jax.lax.fori_loop(0, n_iterations, lambda _, q: _orthonormalize(gram @ q), _orthonormalize(block))
        _, ritz = jnp.linalg.eigh(block.T @ gram @ block)  # ascending eigenvalues
        top = block @ ritz[:, -1]
        top, block = (a.T @ top, a.T @ block) if left else (top, block)
        top = top / jnp.linalg.norm(top)
        return top * jnp.where(jnp.sum(top) < 0, -1.0, 1.0), block

    return jax.vmap(one)(kernel, start)


def leading_right_vectors(kernel: jax.Array, n_iterations: int = 30, block: int = 4) -> jax.Array:
    """(K, M) leading right singular vector of each output of a (K, N, M) kernel (see
    :func:`subspace_iteration`), from an all-ones and ``block - 1`` fixed pseudo-random columns."""
    k, _, m = kernel.shape
    start = np.concatenate([np.ones((m, 1)), np.random.default_rng(0).normal(size=(m, block - 1))], axis=1)
    return subspace_iteration(kernel, jnp.broadcast_to(jnp.asarray(start, kernel.dtype), (k, m, block)),
                              n_iterations)[0]


PROFILE_SIDES = ("rows", "columns")


def task_profiles(kernel: jax.Array, row_average: jax.Array, column_average: jax.Array) -> dict[str, jax.Array]:
    """Each task's mean kernel row and mean kernel column, flattened: ``"rows"`` (G, K * M),
    how learning on every training pattern moved the outputs of the task's (evaluated)
    patterns; ``"columns"`` (G, K * N), how learning on the task's training patterns moved
    every output of every evaluated pattern (the side of the paper's loadings).

    Args:
        kernel: (K, N, M) rows of one index set x training patterns.
        row_average: (G, N) and column_average (G, M): task-averaging matrices.
    """
    g = row_average.shape[0]
    return {"rows": jnp.einsum("gn,knm->gkm", row_average, kernel).reshape(g, -1),
            "columns": jnp.einsum("gm,knm->gkn", column_average, kernel).reshape(g, -1)}


def centered_cosine_similarity(features):
    """(G, G) cosine similarity of the rows of (G, F) ``features`` after subtracting their mean
    over the G rows (the representational similarity used for kernels and hidden layers alike)."""
    xp = jnp if isinstance(features, jax.Array) else np
    centered = features - features.mean(axis=0, keepdims=True)
    norms = xp.sqrt((centered**2).sum(axis=1, keepdims=True))
    unit = centered / xp.where(norms > 0, norms, 1.0)
    return unit @ unit.T


# --- multitask experiments -------------------------------------------------------------------
INDEX_SETS = ("principled", "authors")  # rows of the kernels: training inputs / test inputs
SHARING_CATEGORIES = ("same task", "same input pool", "same output pool", "neither")


def sharing_category(env: TaskEnvironment, task_rows: np.ndarray, task_columns: np.ndarray) -> np.ndarray:
    """(N, M) int8 index into :data:`SHARING_CATEGORIES` of training pattern m (column) for the
    pattern of row n: the same task, another task reading the same input pool, another task
    writing the same output pool, or neither (two different tasks never share both pools).

    Args:
        task_rows, task_columns: (N,), (M,) task index of single-task patterns.
    """
    task_rows, task_columns = np.asarray(task_rows), np.asarray(task_columns)
    if (task_rows < 0).any() or (task_columns < 0).any():
        raise ValueError("sharing categories are defined for single-task patterns only (task index >= 0)")
    a, b = task_rows[:, None], task_columns[None, :]
    same_in = env.task_in_pool(a) == env.task_in_pool(b)
    same_out = env.task_out_pool(a) == env.task_out_pool(b)
    return np.where(a == b, 0, np.where(same_in, 1, np.where(same_out, 2, 3))).astype(np.int8)


def group_average(labels: np.ndarray, n_groups: int, n_columns: int, offset: int) -> np.ndarray:
    """(G, n_columns) matrix averaging, per group, the columns ``offset + i`` with ``labels[i] == g``
    (a zero row for an empty group)."""
    out = np.zeros((n_groups, n_columns), np.float32)
    counts = np.bincount(labels, minlength=n_groups)
    out[labels, offset + np.arange(len(labels))] = 1.0 / counts[labels]
    return out


@lru_cache(maxsize=None)
def observe_kernel_dynamics(net: MultitaskNet, n_train: int, n_categories: int, statistics: bool = True):
    """Snapshot function of the multitask runs; rows ``:n_train`` of ``x_eval`` are the training
    inputs (index set "principled"), the rest the test inputs ("authors").

    Records, per index set (leading axis 2 of each entry, :data:`INDEX_SETS` order):
    ``reconstruction_error`` ``|sum_m P - (y(t) - y(0))| / |y(t) - y(0)|`` (Frobenius over rows and
    outputs); ``sharing_signed`` (C,) each category's projection on the ePNTK estimate of the
    change, ``sum_{n,k} C_c[n,k] dy[n,k] / sum dy^2`` (sums to 1); ``sharing_abs`` (C,) its share
    of ``sum |C_c|``; ``cancellation`` ``sum_{c,n,k} |C_c[n,k]| / sum_{n,k} |dy[n,k]|`` (1: the
    categories never push against each other; x: their contributions add up to x times the change
    they make) and ``cancellation_patterns`` the same over single training patterns,
    ``sum_{k,n,m} |P_k[n,m]| / sum |dy|`` (at least ``cancellation``); ``alignment_path_initial``
    (K,) alignment of -P(t) with eNTK(0) (1 while the t=0 kernel describes everything learned so
    far: P = -lr t eNTK(0)); and, if ``statistics``, the task x task similarities (G, G) ``kernel_similarity_rows``,
    ``kernel_similarity_columns`` of P(t) (:func:`task_profiles`) and ``hidden_similarity`` of
    the task-mean hidden activity, and the weights ``params``. Plus ``loss_train``, ``loss_test``.

    ``data`` must hold ``y_eval`` (targets of the rows), ``y0_eval`` (outputs at iteration 0),
    ``column_tasks`` (M, G) the training patterns' tasks and ``row_sharing`` (N, G, C) the
    category of each task for each row, one-hot (the categories as task x task: one pass over
    P(t) sums it by task), ``entk_initial`` (K, N, M), ``row_average`` (2, G, N)
    (one task-averaging matrix per index set, zero on the other set's rows) and
    ``column_average`` (G, M).
    """
    sets = (slice(0, n_train), slice(n_train, None))

    def observe(params, path, entk_now, data):
        outputs = net.apply(params, data["x_eval"])
        by_task = jnp.einsum("knm,mg->kng", path, data["column_tasks"])  # (K, N, G) summed over each task's patterns
        change, estimate = outputs - data["y0_eval"], by_task.sum(axis=2).T  # (N, K)
        contributions = jnp.einsum("kng,ngc->cnk", by_task, data["row_sharing"])  # (C, N, K)
        out = {"loss_train": squared_error(outputs[sets[0]], data["y_eval"][sets[0]]),
               "loss_test": squared_error(outputs[sets[1]], data["y_eval"][sets[1]])}
        per_set = []
        for rows in sets:
            e, d, c = estimate[rows], change[rows], contributions[:, rows]
            magnitude = jnp.abs(c).sum(axis=(1, 2))
            entry = {"reconstruction_error": jnp.sqrt(jnp.sum((e - d) ** 2) / jnp.sum(d**2)),
                     "sharing_signed": jnp.sum(c * e[None], axis=(1, 2)) / jnp.sum(e**2),
                     "sharing_abs": magnitude / magnitude.sum(),
                     "cancellation": magnitude.sum() / jnp.abs(e).sum(),
                     "cancellation_patterns": jnp.abs(path[:, rows]).sum() / jnp.abs(e).sum(),
                     "alignment_path_initial": alignment(-path[:, rows], data["entk_initial"][:, rows])}
            per_set.append(entry)
        if statistics:
            out["params"] = params
            hidden = net.hidden(params, data["x_eval"])
            for rows, average, entry in zip(sets, data["row_average"], per_set):
                profiles = task_profiles(path[:, rows], average[:, rows], data["column_average"])
                for side in PROFILE_SIDES:
                    entry[f"kernel_similarity_{side}"] = centered_cosine_similarity(profiles[side])
                entry["hidden_similarity"] = centered_cosine_similarity(average @ hidden)
        return out | {k: jnp.stack([e[k] for e in per_set]) for k in per_set[0]}

    return observe


def _kernel_over_training(net: MultitaskNet, snapshot_params: Params, data: Data, entk_initial: jax.Array,
                         path_final: jax.Array, n_train: int, n_vector_iterations: int = 8) -> dict[str, jax.Array]:
    """eNTK(t) at every recorded snapshot, recomputed from its weights (one at a time), against
    eNTK(0) and the final ePNTK, per index set: alignments (with -P, the direction P = -lr sum
    eNTK accumulates) and overlaps ``|v_k(t) . v_k|`` of the leading right singular vectors per
    output (subspace iteration warm-started from the previous snapshot's block, 30 iterations
    for eNTK(0) and the ePNTK). Each entry (S, 2, K)."""
    sets = (slice(0, n_train), slice(n_train, None))

    def vectors(kernel, starts, n_iterations):
        found = [subspace_iteration(kernel[:, rows], start, n_iterations) for rows, start in zip(sets, starts)]
        return jnp.stack([v for v, _ in found]), tuple(block for _, block in found)

    k, _, m = entk_initial.shape
    cold = np.concatenate([np.ones((m, 1)), np.random.default_rng(0).normal(size=(m, 3))], axis=1)
    cold = (jnp.broadcast_to(jnp.asarray(cold, entk_initial.dtype), (k, m, 4)),) * len(sets)
    v_initial, warm = vectors(entk_initial, cold, 30)
    v_final, _ = vectors(path_final, cold, 30)

    def one(blocks, params):
        kernel = entk(net, params, data["x_eval"], data["x_train"], data["y_train"])
        v_now, blocks = vectors(kernel, blocks, n_vector_iterations)
        return blocks, {"alignment_initial": jnp.stack([alignment(kernel[:, r], entk_initial[:, r]) for r in sets]),
                        "alignment_final": jnp.stack([alignment(kernel[:, r], -path_final[:, r]) for r in sets]),
                        "overlap_initial": jnp.abs(jnp.sum(v_now * v_initial, axis=2)),
                        "overlap_final": jnp.abs(jnp.sum(v_now * v_final, axis=2))}

    return jax.lax.scan(one, warm, snapshot_params)[1]


kernel_over_training = partial(jax.jit, static_argnames=("net", "n_train", "n_vector_iterations"))(_kernel_over_training)


@partial(jax.jit, static_argnames=("net", "n_train", "n_vector_iterations"))
def kernel_over_training_batched(net: MultitaskNet, snapshot_params: Params, data: Data, entk_initial: jax.Array,
                                 path_final: jax.Array, n_train: int, n_vector_iterations: int = 8):
    """:func:`kernel_over_training` vmapped over a leading network axis of every argument."""
    one = lambda p, d, e, f: _kernel_over_training(net, p, d, e, f, n_train, n_vector_iterations)
    return jax.vmap(one)(snapshot_params, data, entk_initial, path_final)


def pair_kernel_data(env: TaskEnvironment, seeds, n_train: int = 500, n_test: int = 500, split: str = "iid",
                     n_rows: int | None = None) -> dict[str, np.ndarray]:
    """Per pair (P, ...): the single-task data of :func:`lib.experiments.schedules.pair_datasets` with the
    kernel rows ``x_eval`` = training inputs then test inputs (optionally only the first
    ``n_rows // 2`` of each, for cheap checks), their targets ``y_eval``, ``n_train_rows``,
    the ``sharing`` categories (P, N, M) (:func:`sharing_category`), the same as one-hot
    ``column_tasks`` (P, M, G) and ``row_sharing`` (P, N, G, C) (category of every task for each
    row), the per-index-set task averages ``row_average`` (P, 2, G, N) and the training
    patterns' ``column_average`` (P, G, M)."""
    arrays = pair_data_arrays(pair_datasets(env, seeds, "single", n_train, n_test, split))
    take = (n_train, n_test) if n_rows is None else (min(n_rows // 2, n_train), min(n_rows - n_rows // 2, n_test))
    task_of = lambda tasks: np.asarray(tasks).argmax(axis=-1)
    out = {"x_train": arrays["x_train"], "y_train": arrays["y_train"],
           "x_eval": np.concatenate([arrays["x_train"][:, :take[0]], arrays["x_test"][:, :take[1]]], axis=1),
           "y_eval": np.concatenate([arrays["y_train"][:, :take[0]], arrays["y_test"][:, :take[1]]], axis=1)}
    sharing, rows_average, columns_average, column_tasks, row_sharing = [], [], [], [], []
    one_hot = lambda labels, n: np.eye(n, dtype=np.float32)[labels]
    for p in range(len(arrays["x_train"])):
        rows = np.concatenate([task_of(arrays["tasks_train"][p, :take[0]]), task_of(arrays["tasks_test"][p, :take[1]])])
        columns = task_of(arrays["tasks_train"][p])
        sharing.append(sharing_category(env, rows, columns))
        column_tasks.append(one_hot(columns, env.n_tasks))
        row_sharing.append(one_hot(sharing_category(env, rows, np.arange(env.n_tasks)), len(SHARING_CATEGORIES)))
        rows_average.append(np.stack([group_average(rows[:take[0]], env.n_tasks, len(rows), 0),
                                      group_average(rows[take[0]:], env.n_tasks, len(rows), take[0])]))
        columns_average.append(group_average(columns, env.n_tasks, len(columns), 0))
    out |= {"sharing": np.stack(sharing), "column_tasks": np.stack(column_tasks), "row_sharing": np.stack(row_sharing),
            "row_average": np.stack(rows_average),
            "column_average": np.stack(columns_average), "n_train_rows": np.asarray(take[0])}
    return out


@partial(jax.jit, static_argnames=("net",))
def _initial(net: MultitaskNet, params: Params, data: Data):
    """(eNTK(0) (B, K, N, M), outputs at iteration 0 (B, N, K)) of a batch of networks."""
    one = lambda p, d: (entk(net, p, d["x_eval"], d["x_train"], d["y_train"]), net.apply(p, d["x_eval"]))
    return jax.vmap(one)(params, data)


def run_kernel_dynamics(
    env: TaskEnvironment,
    schedule: str,
    seeds,
    n_iterations: int | None = None,
    n_snapshots: int = 51,
    node_every=1,
    path_kernel: str = "euler",
    n_points: int = 8,
    n_hidden: int = 200,
    n_train: int = 500,
    n_test: int = 500,
    split: str = "iid",
    n_rows: int | None = None,
    statistics: bool = True,
    keep_final_path: bool = False,
    learning_rate_scale: float = 1.0,
    max_batch: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Single-task training of standard/large pairs (as :func:`lib.experiments.schedules.run_pairs`) with
    the streamed ePNTK, the networks vmapped in batches (memory O(batch x K x N x M)).

    Args:
        env, schedule, seeds, n_iterations, n_hidden, n_train, n_test, split: as ``run_pairs``.
        n_snapshots: recorded snapshots (iterations 0, ..., n_iterations).
        node_every, path_kernel, n_points: the ePNTK's time quadrature and kernel, as in
            :func:`stream_epntk`.
        n_rows: kernel rows (half training, half test inputs); None: all training then all test inputs.
        statistics: also record the task similarity matrices, the final task profiles and the
            eNTK-over-training statistics (needs every task among the rows of each index set);
            False: only the losses, reconstruction, sharing and path alignment (checks).
        keep_final_path: also return the final ePNTK ``path_final`` (P, 2, K, N, M) (checks only).
        learning_rate_scale: multiplies the schedule's learning rates (convergence studies).
        max_batch: networks vmapped together (None: all 2 x pairs; fewer: less memory).

    Returns:
        numpy arrays with leading axes (pairs, 2 inits): per snapshot (S after the two axes)
        the entries of :func:`observe_kernel_dynamics` (except the weights) and of
        :func:`kernel_over_training`; ``profiles/<kernel>/<side>/<index set>`` the
        :func:`task_profiles` of the final ePNTK (``path_final``) and of eNTK(0)
        (``entk_initial``); ``hidden_final``, ``hidden_initial`` (2 index sets, G, H) task-mean
        hidden activity; ``sharing_pattern_fraction`` (2, C) share of (row, training pattern)
        pairs per category; and ``iterations`` (S,), ``node_phases``.
    """
    seeds = check_seeds("seeds", seeds)
    sched = get_schedule(schedule)
    n_iterations = sched.n_iterations if n_iterations is None else check_int("n_iterations", n_iterations, 1)
    net = MultitaskNet.for_environment(env, check_int("n_hidden", n_hidden, minimum=1))
    check_int("n_snapshots", n_snapshots, minimum=2)
    check_schedule(n_iterations, n_snapshots)
    check_positive_float("learning_rate_scale", learning_rate_scale)
    if n_rows is not None:
        check_int("n_rows", n_rows, minimum=2)
    n_networks = 2 * len(seeds)
    max_batch = n_networks if max_batch is None else check_int("max_batch", max_batch, minimum=1)
    params = pair_initial_params(net, seeds)
    pair_data = pair_kernel_data(env, seeds, n_train, n_test, split, n_rows)
    n_train_rows = int(pair_data.pop("n_train_rows"))
    if statistics:
        empty = [(p, i) for p in range(len(seeds)) for i in range(2)
                 if (pair_data["row_average"][p, i].sum(axis=1) == 0).any()]
        if empty:
            raise ValueError(f"n_rows: the task statistics need every task among the kernel rows of each index set; "
                             f"(pair, index set) {empty} lack one: use more rows")
    observe = observe_kernel_dynamics(net, n_train_rows, len(SHARING_CATEGORIES), statistics)
    rates = np.array([sched.learning_rate(init) * learning_rate_scale for _ in seeds for init in INITS], np.float32)
    sets = dict(zip(INDEX_SETS, (slice(0, n_train_rows), slice(n_train_rows, None))))
    records = []
    for start in range(0, n_networks, max_batch):
        batch = np.arange(start, min(start + max_batch, n_networks))  # networks: pair = index // 2, init = index % 2
        data = {k: jnp.asarray(v[batch // 2], jnp.float32 if v.dtype.kind == "f" else v.dtype)
                for k, v in pair_data.items()}
        weights = jax.tree.map(lambda a: a[batch], params)
        entk_initial, y0 = _initial(net, weights, data)
        data |= {"entk_initial": entk_initial, "y0_eval": y0}
        keep = (n_snapshots - 1,) if statistics or keep_final_path else ()
        final, snaps, paths = stream_epntk(
            net, weights, data, rates[batch], n_iterations, n_snapshots, node_every, path_kernel, n_points, observe,
            keep_paths=keep, batched=True,
            progress=f"ePNTK {schedule}, networks {batch[0] + 1}-{batch[-1] + 1} of {n_networks}" if progress else None)
        snapshot_params = snaps.pop("params", None)
        record = {k: np.asarray(v) for k, v in snaps.items()}
        categories = np.asarray(pair_data["sharing"][batch // 2])  # (B, N, M)
        record["sharing_pattern_fraction"] = np.stack([
            np.stack([np.bincount(c[rows].ravel(), minlength=len(SHARING_CATEGORIES)) / c[rows].size
                      for rows in sets.values()]) for c in categories])
        if statistics:
            path_final = jnp.asarray(paths[:, 0])
            record |= {k: np.asarray(v) for k, v in kernel_over_training_batched(
                net, snapshot_params, data, entk_initial, path_final, n_train_rows).items()}
            for name, kernel in (("path_final", path_final), ("entk_initial", entk_initial)):
                for s, (set_name, rows) in enumerate(sets.items()):
                    profiles = jax.vmap(task_profiles)(kernel[:, :, rows], data["row_average"][:, s][:, :, rows],
                                                       data["column_average"])
                    for side in PROFILE_SIDES:
                        record[f"profiles/{name}/{side}/{set_name}"] = np.asarray(profiles[side], np.float32)
            for name, w in (("final", final), ("initial", weights)):
                hidden = jax.vmap(net.hidden)(w, data["x_eval"])  # (B, N, H)
                record[f"hidden_{name}"] = np.asarray(jnp.einsum("bsgn,bnh->bsgh", data["row_average"], hidden))
        if keep_final_path:
            record["path_final"] = paths[:, 0]
        records.append(record)
    out = {k: by_pair(np.concatenate([r[k] for r in records]), len(seeds)) for k in records[0]}
    out["iterations"] = np.linspace(0, n_iterations, n_snapshots).round().astype(int)
    out["node_phases"] = np.asarray(node_phases(node_every, n_iterations, n_iterations // (n_snapshots - 1)))
    return out


# --- checks: quadrature against the every-step sum, convergence in the learning rate ---------
def validation_runs(env: TaskEnvironment, schedule: str, seed: int, node_every, n_iterations: int | None = None,
                    n_snapshots: int = 51, n_points: int = 8, n_rows: int = 100, progress: bool = True,
                    **run_options) -> dict[str, np.ndarray]:
    """One standard/large pair trained three times with the ePNTK on ``n_rows`` kernel rows (half
    training, half test inputs; the rows do not change the trajectory): the paper's every-step
    eNTK sum (``"euler"``), the every-step step-integrated sum (``"step"``) and the latter with
    the time quadrature ``node_every`` (``"step_quadrature"``).

    Returns (S snapshots): ``reconstruction_error/<run>`` (2 inits, S, 2 index sets);
    ``path_difference/<run>`` (2,) ``|P_run - P_step| / |P_step|`` at the end (Frobenius over
    outputs, rows and columns) for ``euler`` and ``step_quadrature``; for the quadrature,
    ``sharing_abs_difference``, ``sharing_signed_difference`` and ``alignment_difference``
    (2,): the largest absolute difference over snapshots, index sets and categories/outputs
    of ``sharing_abs``, ``sharing_signed`` and ``alignment_path_initial``; and ``iterations``. ``run_options`` go to :func:`run_kernel_dynamics`.
    """
    common = dict(n_iterations=n_iterations, n_snapshots=n_snapshots, n_points=n_points, n_rows=n_rows,
                  statistics=False, keep_final_path=True, progress=False, **run_options)
    variants = {"euler": ("euler", 1), "step": ("step", 1), "step_quadrature": ("step", node_every)}
    runs = {name: run_kernel_dynamics(env, schedule, [seed], node_every=s, path_kernel=kernel, **common)
            for name, (kernel, s) in tqdm(variants.items(), desc=f"validation runs {schedule}", disable=not progress)}
    first = lambda name, key: runs[name][key][0]  # the only pair
    norm = lambda a: np.sqrt((a.astype(np.float64) ** 2).sum(axis=(1, 2, 3)))
    largest = lambda key: np.nanmax(np.abs(first("step_quadrature", key) - first("step", key)).reshape(2, -1), axis=1)
    out = {f"reconstruction_error/{name}": first(name, "reconstruction_error") for name in variants}
    for name in ("euler", "step_quadrature"):
        out[f"path_difference/{name}"] = norm(first(name, "path_final") - first("step", "path_final")) / norm(
            first("step", "path_final"))
    out["sharing_abs_difference"] = largest("sharing_abs")
    out["sharing_signed_difference"] = largest("sharing_signed")
    out["alignment_difference"] = largest("alignment_path_initial")
    out["iterations"] = runs["step"]["iterations"]
    return out


def epntk_convergence(env: TaskEnvironment, schedule: str, seed: int, n_halvings: int, n_iterations: int,
                      path_kernel: str = "euler", n_points: int = 8, n_rows: int = 100, progress: bool = True,
                      **run_options) -> dict[str, np.ndarray]:
    """Reconstruction error of y(t) - y(0) by the every-step ePNTK for one standard/large pair,
    with the schedule's learning rate halved ``n_halvings - 1`` times while the iterations
    double (lr x t fixed at the schedule's lr x ``n_iterations``).

    Returns: ``learning_rate`` (2 inits, H), ``reconstruction_error`` (2, H, 2 index sets)
    at lr x t, on ``n_rows`` kernel rows (half training, half test inputs). ``run_options`` go
    to :func:`run_kernel_dynamics`."""
    check_int("n_halvings", n_halvings, minimum=2)
    check_int("n_iterations", n_iterations, minimum=1)
    sched = get_schedule(schedule)
    errors = []
    for h in tqdm(range(n_halvings), desc=f"ePNTK convergence {schedule}", disable=not progress):
        run = run_kernel_dynamics(env, schedule, [seed], n_iterations=n_iterations * 2**h, n_snapshots=2,
                                  path_kernel=path_kernel, n_points=n_points, n_rows=n_rows, statistics=False,
                                  learning_rate_scale=0.5**h, progress=False, **run_options)
        errors.append(run["reconstruction_error"][0, :, -1])  # (2 inits, 2 index sets) at the end
    rates = np.array([[sched.learning_rate(init) * 0.5**h for h in range(n_halvings)] for init in INITS])
    return {"learning_rate": rates, "reconstruction_error": np.stack(errors, axis=1)}


# --- cached runs (results cache) ---------------------------------------------------------------
def _environment_key(env: TaskEnvironment) -> list[int]:
    return [env.n_in_pools, env.n_out_pools, env.n_features]


def kernel_dynamics_parameters(env: TaskEnvironment, schedule: str, seeds, n_iterations: int, n_snapshots: int,
                               node_every, path_kernel: str = "step", n_points: int = 8, n_rows: int | None = None,
                               n_hidden: int = 200, split: str = "iid") -> dict:
    """The cache key of :func:`cached_kernel_dynamics` (validated)."""
    seeds = check_seeds("seeds", seeds)
    check_choice("schedule", schedule, ("ET", "LR"))
    phases = node_phases(node_every, n_iterations, check_schedule(n_iterations, n_snapshots))
    check_choice("path_kernel", path_kernel, PATH_KERNELS)
    return dict(env=_environment_key(env), schedule=schedule, seeds=list(seeds), n_iterations=n_iterations,
                n_snapshots=n_snapshots, node_every=[list(p) for p in phases], path_kernel=path_kernel,
                n_points=check_int("n_points", n_points, minimum=1), n_rows=n_rows, n_hidden=n_hidden, split=split,
                version=2)  # 2: the cancellation factors recorded


def cached_kernel_dynamics(env: TaskEnvironment, schedule: str, seeds, n_iterations: int, n_snapshots: int, node_every,
                           path_kernel: str = "step", n_points: int = 8, n_rows: int | None = None,
                           n_hidden: int = 200, split: str = "iid") -> dict[str, np.ndarray]:
    """:func:`run_kernel_dynamics` through the on-disk results cache (wall time in its metadata)."""
    from ..core import results

    p = kernel_dynamics_parameters(env, schedule, seeds, n_iterations, n_snapshots, node_every, path_kernel, n_points,
                                   n_rows, n_hidden, split)
    return results.cached("kernel_dynamics", p, lambda: run_kernel_dynamics(
        env, schedule, p["seeds"], n_iterations=n_iterations, n_snapshots=n_snapshots, node_every=p["node_every"],
        path_kernel=path_kernel, n_points=n_points, n_hidden=n_hidden, split=split, n_rows=n_rows))


def cached_validation_runs(env: TaskEnvironment, schedule: str, seed: int, node_every, n_iterations: int,
                           n_snapshots: int, n_points: int = 8, n_rows: int = 100) -> dict[str, np.ndarray]:
    """:func:`validation_runs` through the results cache."""
    from ..core import results

    phases = node_phases(node_every, n_iterations, check_schedule(n_iterations, n_snapshots))
    parameters = dict(env=_environment_key(env), schedule=schedule, seed=seed, node_every=[list(p) for p in phases],
                      n_iterations=n_iterations, n_snapshots=n_snapshots, n_points=n_points, n_rows=n_rows, version=2)
    return results.cached("epntk_validation", parameters, lambda: validation_runs(
        env, schedule, seed, phases, n_iterations=n_iterations, n_snapshots=n_snapshots, n_points=n_points,
        n_rows=n_rows))


def cached_convergence(env: TaskEnvironment, schedule: str, seed: int, n_halvings: int, n_iterations: int,
                       n_rows: int = 100) -> dict[str, np.ndarray]:
    """:func:`epntk_convergence` of the paper's (Euler) ePNTK through the results cache."""
    from ..core import results

    parameters = dict(env=_environment_key(env), schedule=schedule, seed=seed, n_halvings=n_halvings,
                      n_iterations=n_iterations, n_rows=n_rows, version=1)
    return results.cached("epntk_convergence_multitask", parameters, lambda: epntk_convergence(
        env, schedule, seed, n_halvings, n_iterations, n_rows=n_rows))


# --- the chapter's parameters ---------------------------------------------------------------------
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


# the chapter's size limits: above a sane maximum only with allow_large (the runner's --allow-large),
# above a hard maximum never (the computation itself breaks)
SANE_SNAPSHOTS, SANE_POINTS, MAX_POINTS, MAX_ROWS = 1001, 32, 256, 1000  # rows: 500 training + 500 test inputs
SANE_HALVINGS, SANE_CONVERGENCE_ITERATIONS, SANE_CONVERGENCE_STEPS = 10, 10_000, 100_000
MAX_STEPS = 2**31 - 1  # JAX counts the steps of a run in int32
SANE_KERNEL_WORK = 5e8  # networks x (nodes + snapshots) x kernel rows x points: ~28x the book's 1.8e7


def missing_task_rows(env: TaskEnvironment, seeds, n_rows: int | None) -> list[tuple[int, str]]:
    """(pair seed, index set) whose first ``n_rows`` kernel rows (:func:`pair_kernel_data`) lack a
    task: the chapter's task statistics need every task among the rows of each index set."""
    if n_rows is None:
        return []
    data = pair_kernel_data(env, tuple(seeds), n_rows=n_rows)
    return [(seed, INDEX_SETS[i]) for p, seed in enumerate(seeds) for i in range(len(INDEX_SETS))
            if (data["row_average"][p, i].sum(axis=1) == 0).any()]


def check_notebook_parameters(architecture, architectures, n_pairs, first_seeds, iterations, n_snapshots, node_every,
                              path_kernel, n_points, n_rows, check_rows, check_iterations, n_halvings,
                              convergence_iterations, window_threshold, index_set, allow_large=None) -> dict:
    """Validate the parameters of the chapter "The eNTK over training" before any work starts
    (ValueError naming the parameter, the value and the allowed values); return schedule -> (seeds,
    iterations, node phases, check iterations, check node phases, check snapshots).

    Sizes above the chapter's sane maxima (hours of computation; :data:`SANE_SNAPSHOTS`, ...,
    :data:`SANE_KERNEL_WORK`) need ``allow_large`` (None: the runner's ``--allow-large``); the
    convergence study, which doubles its every-step run ``n_halvings`` times, is bounded in total."""
    from ..core.validation import check_workload, large_runs
    from .schedules import SCHEDULES, check_schedule_parameters

    check_choice("architecture", architecture, architectures)
    with large_runs(allow_large):
        plan = check_schedule_parameters(n_pairs, first_seeds, iterations)
    check_size("n_snapshots", n_snapshots, minimum=3, sane_maximum=SANE_SNAPSHOTS, allow_large=allow_large)
    check_choice("path_kernel", path_kernel, PATH_KERNELS)
    check_size("n_points", n_points, minimum=1, sane_maximum=SANE_POINTS, maximum=MAX_POINTS,
                       allow_large=allow_large)
    if n_rows is not None:
        check_int("n_rows", n_rows, minimum=48, maximum=MAX_ROWS)
    check_int("check_rows", check_rows, minimum=2, maximum=MAX_ROWS)
    check_size("n_halvings", n_halvings, minimum=2, sane_maximum=SANE_HALVINGS, maximum=31,
                       allow_large=allow_large)
    check_size("convergence_iterations", convergence_iterations, minimum=1,
                       sane_maximum=SANE_CONVERGENCE_ITERATIONS, allow_large=allow_large)
    longest = convergence_iterations * 2 ** (n_halvings - 1)
    if longest > MAX_STEPS:
        raise ValueError(f"convergence_iterations x 2**(n_halvings - 1), the longest run of the convergence study, "
                         f"must be <= {MAX_STEPS} (JAX counts steps in int32), got {longest} "
                         f"(convergence_iterations={convergence_iterations}, n_halvings={n_halvings})")
    check_workload(f"convergence_iterations x (2**n_halvings - 1), the every-step iterations of the convergence "
                   f"study (convergence_iterations={convergence_iterations}, n_halvings={n_halvings})",
                   convergence_iterations * (2**n_halvings - 1), SANE_CONVERGENCE_STEPS, allow_large)
    check_positive_float("window_threshold", window_threshold)
    if window_threshold >= 1:
        raise ValueError(f"window_threshold must be in (0, 1), got {window_threshold!r}")
    check_choice("index_set", index_set, INDEX_SETS)
    for name, value in (("node_every", node_every), ("check_iterations", check_iterations)):
        if not isinstance(value, dict) or sorted(value) != sorted(SCHEDULES):
            raise ValueError(f"{name} must be a dict with keys {sorted(SCHEDULES)}, got {value!r}")
    out, work = {}, 0
    for schedule, (seeds, n_iterations) in plan.items():
        if n_iterations % (n_snapshots - 1):
            raise ValueError(f"iterations[{schedule!r}] ({n_iterations}) must be a multiple of n_snapshots - 1 "
                             f"({n_snapshots - 1})")
        spacing = n_iterations // (n_snapshots - 1)
        try:
            phases = node_phases(node_every[schedule], n_iterations, spacing)
        except ValueError as err:
            raise ValueError(f"node_every[{schedule!r}]: {err}") from None
        n_check = check_int(f"check_iterations[{schedule!r}]", check_iterations[schedule], minimum=spacing)
        if n_check % spacing or n_check > n_iterations:
            raise ValueError(f"check_iterations[{schedule!r}] must be a multiple of the snapshot spacing {spacing} "
                             f"in {spacing}..{n_iterations}, got {n_check}")
        out[schedule] = (seeds, n_iterations, phases, n_check, truncate_phases(phases, n_check),
                         n_check // spacing + 1)
        work += (2 * len(seeds) * (node_count(phases) + n_snapshots) * (MAX_ROWS if n_rows is None else n_rows)
                 * (n_points if path_kernel == "step" else 1))
    check_workload(f"the kernel work of the ePNTK runs, 2 n_pairs x (kernel nodes of node_every + n_snapshots) x "
                   f"kernel rows (n_rows) x n_points summed over the schedules (n_pairs={n_pairs}, n_rows={n_rows}, "
                   f"n_points={n_points}, n_snapshots={n_snapshots}, node_every={node_every})", work,
                   SANE_KERNEL_WORK, allow_large)
    env = TaskEnvironment(*architectures[architecture])
    missing = [(schedule, *m) for schedule, (seeds, *_) in out.items() for m in missing_task_rows(env, seeds, n_rows)]
    if missing:
        raise ValueError(f"n_rows = {n_rows} is too few kernel rows: the task statistics need every task among the "
                         f"{n_rows // 2} rows of each index set, and (schedule, pair seed, index set) {missing[:4]}"
                         f"{' ...' if len(missing) > 4 else ''} lack one; use more rows (the default 200) or None "
                         "(all)")
    return out
