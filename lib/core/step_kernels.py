"""The step-integrated eNTK: the eNTK of one *discrete* gradient step.

With dtheta = -lr dL/dtheta the full-batch step from theta,

    K_step[k, n, m] = int_0^1 dy_k(x_n; theta + u dtheta)/dtheta du . dL_m(theta)/dtheta     (K, N, M)

so that ``-lr * K_step.sum(axis=2).T`` is the step's change of the outputs up to an
``n_points``-point Gauss-Legendre quadrature in u, whatever the learning rate; the eNTK of
:mod:`lib.core.kernels` is the integrand at u = 0 and predicts the change to O(lr^2).
Two implementations of the same numbers: :func:`step_entk_structured` for the multitask
network (no Jacobian) and :func:`step_entk_jacobian` for any model; :func:`step_entk` picks one.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .kernels import flat_jacobian
from .losses import output_loss_gradient, squared_error
from .models import Model, MultitaskNet, Params
from .validation import check_int


def gauss_legendre(n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of ``n_points``-point Gauss-Legendre quadrature on [0, 1] (exact for
    polynomials of degree 2 n_points - 1)."""
    nodes, weights = np.polynomial.legendre.leggauss(check_int("n_points", n_points, minimum=1))
    return (nodes + 1) / 2, weights / 2


def _loss_gradient(model: Model, params: Params, x_train, y_train, reduction: str) -> Params:
    """dL/dtheta of the squared-error training loss (a pytree like ``params``)."""
    return jax.grad(lambda p: squared_error(model.apply(p, x_train), y_train, reduction))(params)


def _along(params: Params, step: Params, u) -> Params:
    """The weights a fraction ``u`` along the gradient ``step``: theta + u * dtheta."""
    return jax.tree.map(lambda w, d: w + u * d, params, step)


def step_entk_jacobian(model: Model, params: Params, x_eval, x_train, y_train, learning_rate, n_points: int = 8,
                       reduction: str = "sum", columns=None) -> jax.Array:
    """(K, N, M) step-integrated eNTK of any model, by Jacobian contraction (reference for
    :func:`step_entk_structured`); see :func:`step_entk`."""
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
    patterns (:func:`lib.experiments.epntk_stream.distinct_patterns`); M_train is then M'."""
    if isinstance(model, MultitaskNet):
        return step_entk_structured(model, params, x_eval, x_train, y_train, learning_rate, n_points, reduction,
                                    columns)
    return step_entk_jacobian(model, params, x_eval, x_train, y_train, learning_rate, n_points, reduction, columns)
