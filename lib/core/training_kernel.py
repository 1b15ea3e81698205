"""Full-batch gradient descent of the multitask network as a compiled CPU kernel (Numba).

The kernel behind ``lib.core.training.train_many(..., engine="numba")``. It trains the same
count-weighted summed squared error as the other methods, one network per thread (the
networks of a batch are independent, so they run in parallel on all cores, and each network's
arithmetic is the same whatever the thread count). Per full-batch step, for the U distinct
patterns of one network:

1. hidden activity ``h = sigmoid(bias + w_in.T x)``. The input is a stimulus (one-hot per pool)
   and a task (set), 5-7 of 24 units active, and the first layer is linear in each block, so
   ``w_in.T x = (bias + task row sum) + (stimulus row sum)``: the row sums of the active input
   rows are formed once per distinct stimulus (at most 81) and per distinct task set (12 or
   72), and each pattern adds its two sums inside the sigmoid's loop, instead of a
   (U, 24) x (24, H) product or 5-7 row additions per pattern;
2. output pre-activations ``[h; x_task] @ w_output.T`` with BLAS, then the output error
   ``delta_out = -2 lr count (y_hat - y) y_hat (1 - y_hat)`` (U, K);
3. ``back = delta_out @ w_output`` and ``grad_output = delta_out.T @ [h; x_task]`` with BLAS;
4. the first layer's update ``x.T @ (back * h (1 - h))`` by the same factoring: the hidden
   errors are summed per distinct stimulus and per distinct task set, and each sum is added
   to the rows of its active inputs, all in a gradient buffer that is then added to the
   weights (adding each pattern's small term to the weights directly would round it against
   the weights U times).

The grouping is exact algebra for any input values (:func:`lib.core.patterns.factored_inputs`;
tested on non-binary inputs); it changes only the order of float32 additions.

Each network's arrays are cut to its own distinct patterns before any product (the batch pads
them to the largest count): the BLAS products, whose blocking and summation order depend on the
matrix sizes, never see the padding, so a network's weights and losses are bit-identical alone
and in any batch (tested with NaN in every padding row).

The sigmoid is evaluated inline and vectorised: ``exp`` with Cody-Waite range reduction and
Cephes' ``expf`` polynomial, within 2.5 float32 ulp of the exact sigmoid on [-30, 30], the
same bound XLA's ``jax.nn.sigmoid`` meets (``tests/test_training_fast.py``). Compiled once per
machine and CPU target (``cache=True``); ``benchmarks/train_speed.py`` measures its throughput
next to the other engines.

The losses recorded at snapshots (:func:`summed_losses`, for
:class:`lib.core.training.SummedLosses`) use the same forward pass, per network, with the
count-weighted sum in float64: no JAX call per snapshot.

On CPUs with AVX-512 the kernel is compiled for 512-bit vectors (:func:`lib.core.cpu_target.prefer_512_bit_vectors`;
LLVM's tuning for some of these CPUs stops at 256 bits). The weights agree with a build for the
host's own features to float32 tolerance (tested in a subprocess where the two widths differ).
``$NUMBA_CPU_FEATURES`` is checked before anything compiles (:func:`lib.core.cpu_target.check_cpu_features`), and an
unreadable on-disk compiled-code cache is removed and compiled again (:func:`lib.core.cpu_target.repair_compiled_cache`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

from .cpu_target import check_cpu_features, prefer_512_bit_vectors, repair_compiled_cache

check_cpu_features()  # before anything compiles: LLVM aborts the process on a malformed item
prefer_512_bit_vectors()  # before the first @njit below compiles

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
def _block_sums(sums, w_in, active, values, start):
    """sums[r, :] = start + sum_a values[r, a] w_in[active[r, a]] for every row r (R, H)."""
    n_hidden = w_in.shape[1]
    for r in range(sums.shape[0]):
        row = sums[r]
        for j in range(n_hidden):
            row[j] = start
        for a in range(active.shape[1]):
            weights, value = w_in[active[r, a]], values[r, a]
            if value == F32(0.0):  # padding: the nonzero entries come first
                break
            for j in range(n_hidden):
                row[j] += value * weights[j]


@njit(**_OPTIONS)
def _hidden(z, stimulus_sums, task_sums, stimulus_of, task_of):
    """z[u, :H] = sigmoid(task_sums[task_of[u]] + stimulus_sums[stimulus_of[u]]) for every pattern u."""
    n_hidden = stimulus_sums.shape[1]
    for u in range(z.shape[0]):
        row, stimulus, task = z[u], stimulus_sums[stimulus_of[u]], task_sums[task_of[u]]
        for j in range(n_hidden):
            row[j] = sigmoid32(task[j] + stimulus[j])


@njit(**_OPTIONS)
def _scatter_rows(gradient, sums, active, values):
    """gradient[active[r, a]] += values[r, a] sums[r] for every row r and nonzero entry a."""
    n_hidden = gradient.shape[1]
    for r in range(sums.shape[0]):
        for a in range(active.shape[1]):
            row, value = gradient[active[r, a]], values[r, a]
            if value == F32(0.0):
                break
            for j in range(n_hidden):
                row[j] += value * sums[r, j]


@njit(**_OPTIONS)
def _sums_scratch(inputs, n_hidden):
    """Scratch (S', H) and (T', H) for the row sums per distinct stimulus and task set."""
    return (np.empty((inputs[0].shape[0], n_hidden), np.float32),
            np.empty((inputs[3].shape[0], n_hidden), np.float32))


@njit(**_OPTIONS)
def _hidden_layer(z, w_in, inputs, stimulus_sums, task_sums, bias_hidden):
    """The forward pass to the hidden layer (step 1 of the module docstring): the row sums per
    distinct stimulus and task set into the ``*_sums`` scratch, then z[:, :H] = sigmoid(...)."""
    stimulus_active, stimulus_values, stimulus_of, task_active, task_values, task_of = inputs
    _block_sums(stimulus_sums, w_in, stimulus_active, stimulus_values, F32(0.0))
    _block_sums(task_sums, w_in, task_active, task_values, bias_hidden)
    _hidden(z, stimulus_sums, task_sums, stimulus_of, task_of)


@njit(**_OPTIONS)
def _input_gradient(gradient, back, z, inputs, stimulus_sums, task_sums):
    """gradient (D, H) = x.T @ (back[:, :H] * h (1 - h)): the hidden errors are first summed per
    distinct stimulus and per distinct task set (into the ``*_sums`` scratch), then added to the
    weight rows of their active inputs."""
    stimulus_active, stimulus_values, stimulus_of, task_active, task_values, task_of = inputs
    n_hidden = gradient.shape[1]
    gradient[:] = F32(0.0)
    stimulus_sums[:] = F32(0.0)
    task_sums[:] = F32(0.0)
    for u in range(back.shape[0]):
        delta, h = back[u], z[u]
        stimulus, task = stimulus_sums[stimulus_of[u]], task_sums[task_of[u]]
        for j in range(n_hidden):
            d = delta[j] * (h[j] * (F32(1.0) - h[j]))
            stimulus[j] += d
            task[j] += d
    _scatter_rows(gradient, stimulus_sums, stimulus_active, stimulus_values)
    _scatter_rows(gradient, task_sums, task_active, task_values)


@njit(**_OPTIONS)
def _output_error(pre, y, counts, scale, bias_output):
    """In place: pre-activations without bias (U, K) -> delta_out = scale count (y_hat - y) y_hat (1 - y_hat).

    The sigmoids first, in one flat loop over U K (vectorised; a loop over the K = 9 outputs of
    each pattern is too short to vectorise), then the products."""
    flat = pre.reshape(-1)
    for i in range(flat.shape[0]):
        flat[i] = sigmoid32(flat[i] + bias_output)
    for u in range(pre.shape[0]):
        weight = scale * counts[u]
        for k in range(pre.shape[1]):
            y_hat = pre[u, k]
            pre[u, k] = weight * (y_hat - y[u, k]) * y_hat * (F32(1.0) - y_hat)


@njit(**_OPTIONS)
def _network_steps(w_in, w_output, z, inputs, y, counts, learning_rate, n_steps, bias_hidden, bias_output):
    """``n_steps`` full-batch GD steps of one network, in place on ``w_in`` (D, H) and ``w_output`` (K, H + T).

    ``z`` (U, H + T) is scratch whose last T columns hold the patterns' task inputs; ``inputs``:
    see :func:`train_steps`. Every array here has exactly this network's U patterns (no batch
    padding), so the BLAS products, whose blocking and summation order depend on the matrix
    sizes, see the same operands whatever the other networks of the batch are.
    """
    n_patterns, n_outputs = z.shape[0], w_output.shape[0]
    stimulus_sums, task_sums = _sums_scratch(inputs, w_in.shape[1])
    delta_out = np.empty((n_patterns, n_outputs), np.float32)
    back = np.empty_like(z)
    gradient_in = np.empty_like(w_in)
    gradient_output = np.empty_like(w_output)
    w_output_t = np.empty((w_output.shape[1], n_outputs), np.float32)
    scale = F32(-2.0) * learning_rate
    for _ in range(n_steps):
        _hidden_layer(z, w_in, inputs, stimulus_sums, task_sums, bias_hidden)
        w_output_t[:] = w_output.T
        np.dot(z, w_output_t, delta_out)
        _output_error(delta_out, y, counts, scale, bias_output)
        np.dot(delta_out, w_output, back)
        np.dot(delta_out.T.copy(), z, gradient_output)
        _input_gradient(gradient_in, back, z, inputs, stimulus_sums, task_sums)
        w_in += gradient_in
        w_output += gradient_output


@njit(**_OPTIONS)
def _own_patterns(b, n_patterns, z, stimulus_active, stimulus_values, stimulus_of, task_active, task_values, task_of,
                  y, counts):
    """Network ``b``'s arrays cut to its own ``n_patterns[b]`` patterns: (z, inputs, y, counts)."""
    n = n_patterns[b]
    inputs = (stimulus_active[b], stimulus_values[b], stimulus_of[b, :n], task_active[b], task_values[b],
              task_of[b, :n])
    return z[b, :n], inputs, y[b, :n], counts[b, :n]


@njit(parallel=True, **_OPTIONS)
def train_steps(w_in, w_output, z, stimulus_active, stimulus_values, stimulus_of, task_active, task_values, task_of,
                y, counts, n_patterns, learning_rates, n_steps, bias_hidden, bias_output):
    """``n_steps`` GD steps of B networks in place, one network per thread.

    Args:
        w_in: (B, D, H) hidden-layer weights, transposed (input unit major).
        w_output: (B, K, H + T) output weights, hidden units then task units.
        z: (B, U, H + T) scratch; its last T columns must hold the task inputs of the patterns.
        stimulus_active, stimulus_values: (B, S', A) int32 input indices and float32 values of the
            nonzero stimulus inputs of each distinct stimulus, nonzero entries first, padded with
            value 0 (:func:`lib.core.patterns.factored_inputs`); stimulus_of: (B, U) int32, each pattern's stimulus.
        task_active, task_values, task_of: the same for the distinct task inputs (task sets).
        y: (B, U, K) targets; counts: (B, U) pattern multiplicities (0 for padding rows).
        n_patterns: (B,) int64, network b's number of distinct patterns U_b <= U; its rows U_b:
            are padding and are never read, so a network's result does not depend on the batch.
        learning_rates: (B,); n_steps: int; bias_hidden, bias_output: float32 constants.
    """
    for b in prange(w_in.shape[0]):
        own_z, inputs, own_y, own_counts = _own_patterns(b, n_patterns, z, stimulus_active, stimulus_values,
                                                         stimulus_of, task_active, task_values, task_of, y, counts)
        _network_steps(w_in[b], w_output[b], own_z, inputs, own_y, own_counts, learning_rates[b], n_steps,
                       bias_hidden, bias_output)


@njit(**_OPTIONS)
def _network_loss(w_in, w_output, z, inputs, y, counts, bias_hidden, bias_output):
    """Count-weighted summed squared error of one network on its U distinct patterns: the
    training step's forward pass (float32), the sum in float64 in pattern order."""
    stimulus_sums, task_sums = _sums_scratch(inputs, w_in.shape[1])
    _hidden_layer(z, w_in, inputs, stimulus_sums, task_sums, bias_hidden)
    pre = np.dot(z, np.ascontiguousarray(w_output.T))
    total = 0.0
    for u in range(pre.shape[0]):
        pattern = 0.0
        for k in range(pre.shape[1]):
            error = np.float64(sigmoid32(pre[u, k] + bias_output)) - np.float64(y[u, k])
            pattern += error * error
        total += np.float64(counts[u]) * pattern
    return total


@njit(parallel=True, **_OPTIONS)
def summed_losses(w_in, w_output, z, stimulus_active, stimulus_values, stimulus_of, task_active, task_values, task_of,
                  y, counts, n_patterns, bias_hidden, bias_output, out):
    """out[b] = network b's count-weighted summed squared error on its distinct patterns, one
    network per thread; arguments as :func:`train_steps` (``z`` is scratch for this set's
    patterns), ``out`` (B,) float64. Each network's sum is the same whatever the batch."""
    for b in prange(w_in.shape[0]):
        own_z, inputs, own_y, own_counts = _own_patterns(b, n_patterns, z, stimulus_active, stimulus_values,
                                                         stimulus_of, task_active, task_values, task_of, y, counts)
        out[b] = _network_loss(w_in[b], w_output[b], own_z, inputs, own_y, own_counts, bias_hidden, bias_output)


def check_batch(**arrays: np.ndarray) -> int:
    """The common leading size B (networks) of the kernel's arrays, checked before any compiled
    code runs (the kernel does no bounds checks: inconsistent sizes would read out of bounds)."""
    sizes = {name: (a.shape[0] if np.ndim(a) else None) for name, a in arrays.items()}
    if len(set(sizes.values())) != 1:
        raise ValueError("the kernel's arrays must share one leading size (networks), got "
                         + ", ".join(f"{name}: {size}" for name, size in sizes.items()))
    return next(iter(sizes.values()))


repair_compiled_cache([_block_sums, _hidden, _scatter_rows, _sums_scratch, _hidden_layer,
                       _input_gradient, _output_error, _network_steps, _own_patterns, train_steps, _network_loss,
                       summed_losses])
