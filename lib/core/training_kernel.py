"""Full-batch gradient descent of the multitask network as a compiled CPU kernel (Numba).

The kernel behind ``lib.core.training.train_many(..., method="numba")``. It trains the same
count-weighted summed squared error as the other methods, one network per thread (the
networks of a batch are independent, so they run in parallel on all cores, and each network's
arithmetic is the same whatever the thread count). Per full-batch step, for the U distinct
patterns of one network:

1. hidden activity ``h = sigmoid(bias + sum of the active input rows of w_in)``: the input is
   sparse (one-hot, 5-7 of 24 units active), so the first layer is a few row additions
   instead of a (U, 24) x (24, H) product;
2. output pre-activations ``[h; x_task] @ w_output.T`` with BLAS, then the output error
   ``delta_out = -2 lr count (y_hat - y) y_hat (1 - y_hat)`` (U, K);
3. ``back = delta_out @ w_output`` and ``grad_output = delta_out.T @ [h; x_task]`` with BLAS;
4. the first layer's update ``x.T @ (back * h (1 - h))``, again over the active inputs only,
   summed into a gradient buffer before it is added to the weights (adding each pattern's
   small term to the weights directly would round it against the weights U times).

The sigmoid is evaluated inline and vectorised: ``exp`` with Cody-Waite range reduction and
Cephes' ``expf`` polynomial, within 2.5 float32 ulp of the exact sigmoid on [-30, 30], the
same bound XLA's ``jax.nn.sigmoid`` meets (``tests/test_training_fast.py``). Compiled once per
machine (``cache=True``); 1.1-1.8x the XLA path's throughput on a 2-core CPU, depending on
the workload (``benchmarks/train_speed.py``).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

F32 = np.float32
# "contract" lets LLVM fuse multiply-adds; no reassociation, so the exp's range reduction and
# every sum keep the order written here.
_OPTIONS = dict(fastmath={"contract"}, error_model="numpy", boundscheck=False, cache=True)


@intrinsic
def _float32_from_bits(typingctx, bits):
    """Reinterpret an int32's bits as a float32 (vectorisable; builds 2**n for exp)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


@njit(inline="always", **_OPTIONS)
def sigmoid32(x):
    """1 / (1 + exp(-x)) in float32, x clamped so that exp stays in the normal range."""
    z = min(max(-x, F32(-87.0)), F32(88.0))
    t = z * F32(1.44269504088896341)  # z / ln 2
    n_int = np.int32(t + (F32(0.5) if t >= F32(0.0) else F32(-0.5)))  # round to nearest
    n = F32(n_int)
    r = z - n * F32(0.693359375) + n * F32(2.12194440e-4)  # z - n ln 2 in two parts (Cody-Waite)
    p = F32(1.9875691500e-4)
    p = p * r + F32(1.3981999507e-3)
    p = p * r + F32(8.3334519073e-3)
    p = p * r + F32(4.1665795894e-2)
    p = p * r + F32(1.6666665459e-1)
    p = p * r + F32(5.0000001201e-1)
    p = p * r * r + r + F32(1.0)  # exp(r), |r| <= ln(2) / 2
    return F32(1.0) / (F32(1.0) + p * _float32_from_bits((n_int + np.int32(127)) << np.int32(23)))


@njit(**_OPTIONS)
def sigmoid_array(x, out):
    """``out[i] = sigmoid32(x[i])`` for 1-D float32 arrays (for tests)."""
    for i in range(x.shape[0]):
        out[i] = sigmoid32(x[i])


@njit(**_OPTIONS)
def _hidden(z, w_in, active, values, bias_hidden):
    """z[u, :H] = sigmoid(bias + sum_a values[u, a] w_in[active[u, a]]) for every pattern u."""
    n_hidden = w_in.shape[1]
    for u in range(z.shape[0]):
        row = z[u]
        for j in range(n_hidden):
            row[j] = bias_hidden
        for a in range(active.shape[1]):
            weights, value = w_in[active[u, a]], values[u, a]
            if value == F32(0.0):  # padding: the nonzero entries come first
                break
            for j in range(n_hidden):
                row[j] += value * weights[j]
        for j in range(n_hidden):
            row[j] = sigmoid32(row[j])


@njit(**_OPTIONS)
def _output_error(pre, y, counts, scale, bias_output):
    """In place: pre-activations without bias (U, K) -> delta_out = scale count (y_hat - y) y_hat (1 - y_hat).

    The sigmoids first, in one flat loop over U K (vectorised; a loop over the K = 9 outputs of
    each pattern is too short to vectorise, and took 4-5x as long), then the products."""
    flat = pre.reshape(-1)
    for i in range(flat.shape[0]):
        flat[i] = sigmoid32(flat[i] + bias_output)
    for u in range(pre.shape[0]):
        weight = scale * counts[u]
        for k in range(pre.shape[1]):
            y_hat = pre[u, k]
            pre[u, k] = weight * (y_hat - y[u, k]) * y_hat * (F32(1.0) - y_hat)


@njit(**_OPTIONS)
def _input_gradient(gradient, back, z, active, values):
    """gradient (D, H) = x.T @ (back[:, :H] * h (1 - h)), summed over the active inputs; ``back`` is overwritten."""
    n_hidden = gradient.shape[1]
    gradient[:] = F32(0.0)
    for u in range(back.shape[0]):
        delta, h = back[u], z[u]
        for j in range(n_hidden):
            delta[j] *= h[j] * (F32(1.0) - h[j])
        for a in range(active.shape[1]):
            row, value = gradient[active[u, a]], values[u, a]
            if value == F32(0.0):
                break
            for j in range(n_hidden):
                row[j] += value * delta[j]


@njit(**_OPTIONS)
def _network_steps(w_in, w_output, z, active, values, y, counts, learning_rate, n_steps, bias_hidden, bias_output):
    """``n_steps`` full-batch GD steps of one network, in place on ``w_in`` (D, H) and ``w_output`` (K, H + T).

    ``z`` (U, H + T) is scratch whose last T columns hold the patterns' task inputs.
    """
    n_patterns, n_outputs = z.shape[0], w_output.shape[0]
    delta_out = np.empty((n_patterns, n_outputs), np.float32)
    back = np.empty_like(z)
    gradient_in = np.empty_like(w_in)
    gradient_output = np.empty_like(w_output)
    w_output_t = np.empty((w_output.shape[1], n_outputs), np.float32)
    scale = F32(-2.0) * learning_rate
    for _ in range(n_steps):
        _hidden(z, w_in, active, values, bias_hidden)
        w_output_t[:] = w_output.T
        np.dot(z, w_output_t, delta_out)
        _output_error(delta_out, y, counts, scale, bias_output)
        np.dot(delta_out, w_output, back)
        np.dot(delta_out.T.copy(), z, gradient_output)
        _input_gradient(gradient_in, back, z, active, values)
        w_in += gradient_in
        w_output += gradient_output


@njit(parallel=True, **_OPTIONS)
def train_steps(w_in, w_output, z, active, values, y, counts, learning_rates, n_steps, bias_hidden, bias_output):
    """``n_steps`` GD steps of B networks in place, one network per thread.

    Args:
        w_in: (B, D, H) hidden-layer weights, transposed (input unit major).
        w_output: (B, K, H + T) output weights, hidden units then task units.
        z: (B, U, H + T) scratch; its last T columns must hold the task inputs of the patterns.
        active, values: (B, U, A) int32 indices and float32 values of each pattern's nonzero
            inputs, nonzero entries first, padded with value 0 (:func:`sparse_inputs`).
        y: (B, U, K) targets; counts: (B, U) pattern multiplicities (0 for padding rows).
        learning_rates: (B,); n_steps: int; bias_hidden, bias_output: float32 constants.
    """
    for b in prange(w_in.shape[0]):
        _network_steps(w_in[b], w_output[b], z[b], active[b], values[b], y[b], counts[b], learning_rates[b],
                       n_steps, bias_hidden, bias_output)


def sparse_inputs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The nonzero entries of each input row: (..., U, D) -> int32 indices and float32 values
    (..., U, A), A the largest count over rows, shorter rows padded with (index 0, value 0)."""
    x = np.asarray(x, np.float32)
    nonzero = x != 0
    width = max(int(nonzero.sum(axis=-1).max(initial=0)), 1)
    order = np.argsort(~nonzero, axis=-1, kind="stable")[..., :width]  # nonzero columns first, in order
    values = np.take_along_axis(x, order, axis=-1)
    keep = np.take_along_axis(nonzero, order, axis=-1)
    return np.where(keep, order, 0).astype(np.int32), np.where(keep, values, 0).astype(np.float32)
