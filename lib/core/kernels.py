r"""Empirical tangent kernels: NTK, the loss-weighted eNTK and its path integral, the ePNTK.

Definitions (paper Eq. 3-6, App A.3-A.4), with :math:`\theta` the trainable weights and
:math:`L_m` pattern m's share of the training loss:

* NTK, ``ntk[n, m, k, l]``, shape (N, M, K, K):

  .. math::

     \Theta_{kl}(x_n, x_m) = \frac{\partial y_k(x_n)}{\partial \theta}
     \cdot \frac{\partial y_l(x_m)}{\partial \theta}

* eNTK, ``entk[k, n, m]``, shape (K, N, M):

  .. math::

     K_k(x_n, x_m) = \frac{\partial y_k(x_n)}{\partial \theta} \cdot \frac{\partial L_m}{\partial \theta}
     = \sum_l \Theta_{kl}(x_n, x_m) \, \frac{\partial L}{\partial y_l(x_m)}

  One full-batch gradient step with learning rate :math:`\eta` changes the outputs by
  ``-lr * entk.sum(axis=2).T + O(lr^2)``, i.e. :math:`\Delta y_k(x_n) = -\eta \sum_m K_k(x_n, x_m)
  + O(\eta^2)` (:func:`predicted_change`).
* ePNTK, over the steps of training (forward Euler), so that ``P.sum(axis=2).T ~= y(t) - y(0)``:

  .. math:: P(t) = -\eta \sum_{s < t} K(\theta_s)

Three implementations of the same numbers:

* ``*_structured`` for :class:`~lib.core.models.MultitaskNet`: closed-form layer-wise products
  that never build the (N, K, P) Jacobian; O(N M H K) work for the eNTK.
* ``*_jacobian``: any model, by contracting full Jacobians (``jax.jacrev``).
* ``*_neural_tangents``: the reference, ``neural_tangents.empirical_ntk_fn`` (imported lazily:
  it pulls in TensorFlow).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from contextlib import contextmanager
from functools import lru_cache, partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.flatten_util import ravel_pytree

from .losses import REDUCTIONS, output_loss_gradient
from .models import Model, MultitaskNet, Params
from .steps import check_schedule, gradient_step, scan_segments
from .validation import check_choice, check_finite, check_positive_float, named_leaves


# --- generic (any model) ---------------------------------------------------------------
def flat_jacobian(model: Model, params: Params, x: jax.Array) -> jax.Array:
    """(N, K, P) Jacobian of the outputs w.r.t. the raveled parameters: forward mode when
    there are fewer parameters than outputs (P JVPs), reverse mode otherwise (N K VJPs)."""
    flat, unravel = ravel_pytree(params)
    f = lambda w: model.apply(unravel(w), x)
    n_outputs = jax.eval_shape(f, flat).size
    return (jax.jacfwd if flat.size < n_outputs else jax.jacrev)(f)(flat)


def ntk_jacobian(model: Model, params: Params, x1: jax.Array, x2: jax.Array) -> jax.Array:
    """(N, M, K, K) NTK by Jacobian contraction."""
    return jnp.einsum("nkp,mlp->nmkl", flat_jacobian(model, params, x1), flat_jacobian(model, params, x2))


def loss_weighted(ntk: jax.Array, loss_gradient: jax.Array) -> jax.Array:
    """(K, N, M) eNTK from an (N, M, K, K) NTK and the (M, K) loss sensitivities dL/dy."""
    return jnp.einsum("nmkl,ml->knm", ntk, loss_gradient)


def entk_jacobian(
    model: Model, params: Params, x_eval: jax.Array, x_train: jax.Array, y_train: jax.Array, reduction: str = "sum"
) -> jax.Array:
    """(K, N, M) eNTK by Jacobian contraction, for any model."""
    j_eval = flat_jacobian(model, params, x_eval)
    j_train = flat_jacobian(model, params, x_train)
    eps = output_loss_gradient(model.apply(params, x_train), y_train, reduction)
    loss_grads = jnp.einsum("mlp,ml->mp", j_train, eps)  # (M, P) dL_m/dtheta
    return jnp.einsum("nkp,mp->knm", j_eval, loss_grads)


# --- structured (MultitaskNet) ------------------------------------------------------------
def _multitask_terms(net: MultitaskNet, params: Params, x: jax.Array):
    """Activities and activation derivatives: z=[h; x_task] (N, H+T), y (N, K),
    sigmoid'(hidden) (N, H), sigmoid'(output) (N, K)."""
    h = net.hidden(params, x)
    z = jnp.concatenate([h, net.task_input(x)], axis=1)
    y = jax.nn.sigmoid(z @ params["w_output"].T + net.bias_output)
    return z, y, h * (1.0 - h), y * (1.0 - y)


def entk_structured(
    net: MultitaskNet,
    params: Params,
    x_eval: jax.Array,
    x_train: jax.Array,
    y_train: jax.Array,
    reduction: str = "sum",
) -> jax.Array:
    """(K, N, M) eNTK of the multitask network without materializing the Jacobian.

    With g_m = dL_m/d(output pre-activation) (M, K) and b_m = dL_m/d(hidden pre-activation)
    (M, H), the gradient dot products factor layer by layer:

        entk[k, n, m] = s'_k(n) [ g_mk (z_n . z_m) + (x_n . x_m) sum_i W_o[k, i] h'_i(n) b_mi ]
    """
    z_e, _, dh_e, dy_e = _multitask_terms(net, params, x_eval)
    z_t, y_t, dh_t, dy_t = _multitask_terms(net, params, x_train)
    w_out_hidden = params["w_output"][:, : net.n_hidden]  # (K, H)
    g_t = output_loss_gradient(y_t, y_train, reduction) * dy_t  # (M, K)
    b_t = dh_t * (g_t @ w_out_hidden)  # (M, H)
    output_layer = (dy_e.T[:, :, None] * g_t.T[:, None, :]) * (z_e @ z_t.T)[None]  # (K, N, M)
    # the row factors s'_k(n) W_o[k, i] h'_i(n) of all outputs against b in one (K N, H) x (H, M) product:
    # the product's result is then read once (rather than a three-operand einsum)
    rows = dy_e.T[:, :, None] * w_out_hidden[:, None, :] * dh_e[None]  # (K, N, H)
    hidden_layer = (rows.reshape(-1, rows.shape[-1]) @ b_t.T).reshape(output_layer.shape)
    return output_layer + hidden_layer * (x_eval @ x_train.T)[None]


def ntk_structured(net: MultitaskNet, params: Params, x1: jax.Array, x2: jax.Array) -> jax.Array:
    """(N, M, K, K) NTK of the multitask network, layer by layer:

    ntk[n, m, k, l] = s'_k(n) s'_l(m) [ delta_kl (z_n . z_m) + (x_n . x_m) sum_i W_o[k,i] W_o[l,i] h'_i(n) h'_i(m) ]
    """
    z1, _, dh1, dy1 = _multitask_terms(net, params, x1)
    z2, _, dh2, dy2 = _multitask_terms(net, params, x2)
    w = params["w_output"][:, : net.n_hidden]
    hidden = jnp.einsum("nki,mli->nmkl", dh1[:, None, :] * w[None], dh2[:, None, :] * w[None])
    hidden = hidden * (x1 @ x2.T)[:, :, None, None]
    output = (z1 @ z2.T)[:, :, None, None] * jnp.eye(net.n_outputs, dtype=z1.dtype)
    return dy1[:, None, :, None] * dy2[None, :, None, :] * (output + hidden)


def ntk_output_diagonal_structured(net: MultitaskNet, params: Params, x1: jax.Array, x2: jax.Array) -> jax.Array:
    """(K, N, M) diagonal output blocks ``ntk[:, :, k, k]`` of the multitask network's NTK, without
    the off-diagonal ones (K times less work than :func:`ntk_structured`):

    ntk_kk[n, m] = s'_k(n) s'_k(m) [ z_n . z_m + (x_n . x_m) sum_i W_o[k,i]^2 h'_i(n) h'_i(m) ]
    """
    z1, _, dh1, dy1 = _multitask_terms(net, params, x1)
    z2, _, dh2, dy2 = _multitask_terms(net, params, x2)
    w = params["w_output"][:, : net.n_hidden]
    hidden = jnp.einsum("ni,ki,mi->knm", dh1, w**2, dh2) * (x1 @ x2.T)[None]
    return dy1.T[:, :, None] * dy2.T[:, None, :] * ((z1 @ z2.T)[None] + hidden)


# --- dispatch ----------------------------------------------------------------------------
def check_kernel_inputs(model: Model, params: Params, **arrays) -> None:
    """Cheap checks at a kernel's entry, with errors that name the argument: every input is a
    real array of patterns (N, ...) with the same shape per pattern ((N, D) with the network's
    D for the multitask network; images (N, H, W, C) for a CNN, say), ``y_train`` is (M, K)
    with the rows of ``x_train`` (K the network's outputs for the multitask network), and
    concrete parameters and inputs are finite (inside ``jax.jit`` only the shapes are checked)."""
    for name, a in arrays.items():
        dtype = jnp.result_type(a)
        if np.ndim(a) < (2 if name == "y_train" or isinstance(model, MultitaskNet) else 1) or not (
                jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.integer)):
            raise ValueError(f"{name} must be a real array of patterns (N, ...), 2-D (N, D) for the multitask network, "
                             f"got shape {np.shape(a)} and dtype {dtype}")
    inputs = {name: np.shape(a) for name, a in arrays.items() if name != "y_train"}
    expected = (model.n_inputs,) if isinstance(model, MultitaskNet) else None
    if len({shape[1:] for shape in inputs.values()} | ({expected} if expected else set())) > 1:
        per_pattern = f"shape {expected}" if expected else "the same shape"
        raise ValueError(f"every input pattern must have {per_pattern}, got "
                         + ", ".join(f"{n}: {shape}" for n, shape in inputs.items()))
    if "y_train" in arrays:
        y, x = np.shape(arrays["y_train"]), np.shape(arrays["x_train"])
        k = model.n_outputs if isinstance(model, MultitaskNet) else y[-1]
        if y != (x[0], k):
            raise ValueError(f"y_train must have shape (M, K) = {(x[0], k)} for x_train of shape {x}, got {y}")
    for name, a in (named_leaves(params, "params") | arrays).items():
        if not isinstance(a, jax.core.Tracer):  # under jit only the shapes are known
            check_finite(name, np.asarray(a))


@partial(jax.jit, static_argnames=("model", "reduction"))
def _entk(model, params, x_eval, x_train, y_train, reduction):
    if isinstance(model, MultitaskNet):
        return entk_structured(model, params, x_eval, x_train, y_train, reduction)
    return entk_jacobian(model, params, x_eval, x_train, y_train, reduction)


def entk(
    model: Model, params: Params, x_eval: jax.Array, x_train: jax.Array, y_train: jax.Array, reduction: str = "sum"
) -> jax.Array:
    """(K, N_eval, M_train) eNTK; the structured implementation where one exists (compiled)."""
    check_choice("reduction", reduction, REDUCTIONS)
    check_kernel_inputs(model, params, x_eval=x_eval, x_train=x_train, y_train=y_train)
    return _entk(model, params, x_eval, x_train, y_train, reduction)


@partial(jax.jit, static_argnames=("model",))
def _ntk(model, params, x1, x2):
    if isinstance(model, MultitaskNet):
        return ntk_structured(model, params, x1, x2)
    return ntk_jacobian(model, params, x1, x2)


def ntk(model: Model, params: Params, x1: jax.Array, x2: jax.Array) -> jax.Array:
    """(N, M, K, K) NTK; the structured implementation where one exists (compiled)."""
    check_kernel_inputs(model, params, x1=x1, x2=x2)
    return _ntk(model, params, x1, x2)


@partial(jax.jit, static_argnames=("model",))
def _ntk_output_diagonal(model, params, x1, x2):
    if isinstance(model, MultitaskNet):
        return ntk_output_diagonal_structured(model, params, x1, x2)
    return jnp.einsum("nmkk->knm", ntk_jacobian(model, params, x1, x2))


def ntk_output_diagonal(model: Model, params: Params, x1: jax.Array, x2: jax.Array) -> jax.Array:
    """(K, N, M) NTK blocks of equal outputs, ``ntk[:, :, k, k]``; structured where one exists (compiled)."""
    check_kernel_inputs(model, params, x1=x1, x2=x2)
    return _ntk_output_diagonal(model, params, x1, x2)


def predicted_change(entk_matrix: jax.Array, learning_rate: float) -> jax.Array:
    """(N, K) first-order change of the outputs in one full-batch step: -lr * sum_m entk[k, n, m]."""
    return -learning_rate * entk_matrix.sum(axis=2).T


def one_step_change(
    model: Model, params: Params, x_eval: jax.Array, x_train: jax.Array, y_train: jax.Array,
    learning_rate: float, reduction: str = "sum",
) -> tuple[jax.Array, jax.Array]:
    """(actual, predicted), each (N_eval, K): the change of the outputs in one full-batch
    gradient step, and its eNTK prediction. Their difference is O(lr^2)."""
    check_positive_float("learning_rate", learning_rate)
    check_kernel_inputs(model, params, x_eval=x_eval, x_train=x_train, y_train=y_train)
    stepped = gradient_step(model, params, x_train, y_train, learning_rate, reduction)
    actual = model.apply(stepped, x_eval) - model.apply(params, x_eval)
    predicted = predicted_change(entk(model, params, x_eval, x_train, y_train, reduction), learning_rate)
    return actual, predicted


# --- reference ---------------------------------------------------------------------------
NT_IMPLEMENTATIONS = (1, 2)  # 3 (structured derivatives) fails in neural-tangents 0.6.5 on jax 0.5.3


# TensorFlow's C++ start-up INFO lines ("I0000 ... oneDNN custom operations are on", "... Could not find
# cuda drivers") and absl's note that precedes them; warnings and errors are other lines
_TENSORFLOW_INFO = re.compile(r"^(I\d{4} [\d:.]+ +\d+ [\w.]+:\d+\] .*|WARNING: All log messages before absl::InitializeLog\(\) "
                              r"is called are written to STDERR)$")


@contextmanager
def _without_tensorflow_info_lines():
    """Run the block with file descriptor 2 captured, then write every captured line to stderr
    except TensorFlow's start-up INFO lines (:data:`_TENSORFLOW_INFO`). TensorFlow writes them from
    C++ before any of its logging settings apply, so they cannot be turned off at their source."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            lines = captured.read().decode(errors="replace").splitlines(keepends=True)
            sys.stderr.write("".join(line for line in lines if not _TENSORFLOW_INFO.match(line.rstrip("\n"))))


@lru_cache(maxsize=32)
def _neural_tangents_kernel_fn(model: Model, implementation: int):
    """The jitted neural-tangents NTK function of ``model``, built once per (model, implementation)
    so that repeated calls reuse the compiled kernel instead of tracing and compiling anew."""
    with _without_tensorflow_info_lines():
        import neural_tangents as nt  # lazy: imports TensorFlow

    return jax.jit(nt.empirical_ntk_fn(
        model.apply, trace_axes=(), vmap_axes=0, implementation=nt.NtkImplementation(implementation)
    ))


def ntk_neural_tangents(
    model: Model, params: Params, x1: jax.Array, x2: jax.Array, implementation: int = 1
) -> jax.Array:
    """(N, M, K, K) NTK from ``neural_tangents.empirical_ntk_fn`` (1: Jacobian contraction,
    2: NTK-vector products)."""
    check_choice("implementation", implementation, NT_IMPLEMENTATIONS)
    return _neural_tangents_kernel_fn(model, implementation)(x1, x2, params)


def entk_neural_tangents(
    model: Model,
    params: Params,
    x_eval: jax.Array,
    x_train: jax.Array,
    y_train: jax.Array,
    reduction: str = "sum",
    implementation: int = 1,
) -> jax.Array:
    """(K, N, M) eNTK from the neural-tangents NTK, weighted by the loss sensitivities."""
    eps = output_loss_gradient(model.apply(params, x_train), y_train, reduction)
    return loss_weighted(ntk_neural_tangents(model, params, x_eval, x_train, implementation), eps)


# --- path integral -------------------------------------------------------------------------
@partial(jax.jit, static_argnames=("model", "n_iterations", "n_snapshots", "reduction"))
def _epntk(model, params, x_eval, x_train, y_train, learning_rate, n_iterations, n_snapshots, reduction):
    steps_per_snapshot = n_iterations // (n_snapshots - 1)

    def step(carry):
        p, path = carry
        path = path - learning_rate * entk(model, p, x_eval, x_train, y_train, reduction)
        return gradient_step(model, p, x_train, y_train, learning_rate, reduction), path

    k = model.apply(params, x_eval[:1]).shape[1]
    zero = jnp.zeros((k, x_eval.shape[0], x_train.shape[0]), x_eval.dtype)
    (final, _), paths = scan_segments(step, (params, zero), steps_per_snapshot, n_snapshots - 1, lambda c: c[1])
    return final, jnp.concatenate([zero[None], paths])


def epntk(
    model: Model,
    params: Params,
    x_eval: jax.Array,
    x_train: jax.Array,
    y_train: jax.Array,
    learning_rate: float,
    n_iterations: int,
    n_snapshots: int = 2,
    reduction: str = "sum",
) -> tuple[Params, jax.Array]:
    """Train by full-batch gradient descent while accumulating the ePNTK.

    Returns:
        (final params, (n_snapshots, K, N_eval, M_train) ePNTK at iterations
        0, n_iterations/(n_snapshots-1), ..., n_iterations). ``P.sum(axis=-1)`` estimates
        the change of every output since iteration 0, with an O(lr) error at fixed lr * t.
    """
    check_positive_float("learning_rate", learning_rate)
    check_schedule(n_iterations, n_snapshots)
    check_choice("reduction", reduction, REDUCTIONS)
    check_kernel_inputs(model, params, x_eval=x_eval, x_train=x_train, y_train=y_train)
    return _epntk(model, params, x_eval, x_train, y_train, learning_rate, n_iterations, n_snapshots, reduction)


