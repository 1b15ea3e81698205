# ---
# jupyter:
#   chapter:
#     figures: 2
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: chapter
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The eNTK of your own network
#
# Everything in this book is computed by `lib`, and nothing in its kernels is specific to the
# paper's network. This chapter computes the NTK, the loss-weighted eNTK and the ePNTK of two
# networks defined right here — a small MLP on a toy regression and a small convolutional
# network on a synthetic image task — checks every kernel against
# [neural-tangents](https://github.com/google/neural-tangents) (the reference implementation),
# and measures what it costs. Copy the model cell, replace the two networks by yours, and
# the rest of the page runs unchanged.
#
# **What you provide.** A hashable object (a frozen dataclass, say: the kernels are compiled
# once per model) with a method `apply(params, x)` that maps a batch `x` of shape `(N, ...)`
# to outputs of shape `(N, K)`; `params` is any pytree of arrays (dicts, lists, tuples).
# The loss is the squared error, summed over patterns and outputs (`reduction="sum"`) or
# averaged (`"mean"`). Then
#
# | call | returns | shape |
# |---|---|---|
# | `lib.core.kernels.ntk(model, params, x1, x2)` | NTK $\Theta_{kl}(x_n, x_m)$ | `(N, M, K, K)` |
# | `lib.core.kernels.entk(model, params, x_eval, x_train, y_train)` | eNTK $K_k(x_n, x_m)$ | `(K, N, M)` |
# | `lib.core.kernels.epntk(model, params, x_eval, x_train, y_train, learning_rate, n_iterations)` | trained params, ePNTK $P_k(x_n, x_m)$ | `(S, K, N, M)` |
#
# `lib.core.kernel_reference` holds the comparison with neural-tangents and the timings used below.
#
# :::{dropdown} Parameters of this chapter
# Set in the cell tagged `parameters`; override them with papermill,
# e.g. `python -m lib.book.runner --only 09_your_own_network -p mlp_width=64 --output-dir sweeps/mlp64`:
#
# | name | meaning | allowed |
# |---|---|---|
# | `seed` | weight draw and data | integer >= 0 |
# | `mlp_width` | hidden units in each of the MLP's two tanh layers | integer in [1, 1024] |
# | `n_regression` | training points of the toy regression | integer in [2, 2000] |
# | `cnn_channels` | channels of the CNN's 3x3 convolution | integer in [1, 64] |
# | `n_images` | training images of the bar task (8 x 8 pixels) | integer in [2, 2000] |
# | `n_iterations` | full-batch gradient steps for the ePNTK | integer in [1, 100000] |
# | `mlp_learning_rate`, `cnn_learning_rate` | gradient-descent steps of the two networks | > 0 |
# | `n_multitask_patterns` | patterns for the structured-vs-generic timing on the paper's network | integer in [1, 2000] |
# :::
#
# Results are cached in `results/` under these parameters and a hash of the model cell's code.

# %% tags=["parameters"]
seed = 0
mlp_width = 32
n_regression = 20
cnn_channels = 4
n_images = 32
n_iterations = 500
mlp_learning_rate = 0.001
cnn_learning_rate = 0.01
n_multitask_patterns = 100

# %% tags=["remove-cell"]
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # neural-tangents imports TensorFlow: no C++ log lines

from lib.book import check_chapter

check_chapter("09_your_own_network", globals())
cache_parameters = dict(seed=seed, mlp_width=mlp_width, n_regression=n_regression, cnn_channels=cnn_channels,
                        n_images=n_images, n_iterations=n_iterations, mlp_learning_rate=mlp_learning_rate,
                        cnn_learning_rate=cnn_learning_rate, n_multitask_patterns=n_multitask_patterns)

# %% [markdown]
# ## Two networks and two tasks, in plain JAX
#
# The MLP maps a scalar to a scalar through two tanh layers; its task is to fit
# $\sin 2x$ plus noise from `n_regression` points on $[-2, 2]$, evaluated on a grid that
# extends beyond the data. The CNN sees $8 \times 8$ images holding one horizontal or one
# vertical bar plus noise, and outputs two class scores (one-hot targets). Everything runs in
# float64, so that the comparison below is limited by rounding, not by float32.

# %%
from dataclasses import dataclass

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)


@dataclass(frozen=True)
class MLP:
    """x (N, 1) -> tanh -> tanh -> y (N, 1); weights scaled by 1/sqrt(fan-in)."""

    width: int

    def init(self, key):
        sizes = (1, self.width, self.width, 1)
        keys = jax.random.split(key, len(sizes) - 1)
        return [{"w": jax.random.normal(k, (m, n)) / jnp.sqrt(m), "b": jnp.zeros(n)}
                for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

    def apply(self, params, x):
        for layer in params[:-1]:
            x = jnp.tanh(x @ layer["w"] + layer["b"])
        return x @ params[-1]["w"] + params[-1]["b"]


@dataclass(frozen=True)
class SmallCNN:
    """x (N, 8, 8, 1) -> 3x3 convolution -> tanh -> mean over pixels -> y (N, 2)."""

    channels: int

    def init(self, key):
        k_conv, k_dense = jax.random.split(key)
        return {"conv": jax.random.normal(k_conv, (3, 3, 1, self.channels)) / 3.0,
                "dense": jax.random.normal(k_dense, (self.channels, 2)) / jnp.sqrt(self.channels)}

    def apply(self, params, x):
        h = jax.lax.conv_general_dilated(x, params["conv"], (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.tanh(h).mean(axis=(1, 2)) @ params["dense"]


def regression_task(key, n):
    """n points of sin(2x) + noise on [-2, 2]: x (n, 1), y (n, 1)."""
    x = jnp.linspace(-2.0, 2.0, n)[:, None]
    return x, jnp.sin(2 * x) + 0.1 * jax.random.normal(key, x.shape)


def bar_images(key, n, size=8):
    """n noisy images with one horizontal (class 0) or vertical (class 1) bar: x (n, size, size, 1), y (n, 2)."""
    k_class, k_position, k_noise = jax.random.split(key, 3)
    label = jax.random.bernoulli(k_class, 0.5, (n,)).astype(int)
    position = jax.random.randint(k_position, (n,), 1, size - 1)
    line = (jnp.arange(size)[None, :] == position[:, None]).astype(float)  # (n, size)
    horizontal = jnp.broadcast_to(line[:, :, None], (n, size, size))
    vertical = jnp.broadcast_to(line[:, None, :], (n, size, size))
    images = jnp.where(label[:, None, None] == 0, horizontal, vertical)
    return (images + 0.2 * jax.random.normal(k_noise, images.shape))[..., None], jax.nn.one_hot(label, 2)


# %% tags=["hide-input"]
import hashlib
import inspect

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from lib.book import kernel_reference, MultitaskNet, plot_theory, reading_table, results

# the cache key includes the model cell's code: edit a model and its numbers are recomputed
model_code = hashlib.sha256("".join(inspect.getsource(f) for f in (
    MLP.init, MLP.apply, SmallCNN.init, SmallCNN.apply, regression_task, bar_images)).encode()).hexdigest()[:16]
keys = jax.random.split(jax.random.PRNGKey(seed), 6)
mlp, cnn = MLP(mlp_width), SmallCNN(cnn_channels)
mlp_params, cnn_params = mlp.init(keys[0]), cnn.init(keys[1])
x_regression, y_regression = regression_task(keys[2], n_regression)
x_grid = jnp.linspace(-2.5, 2.5, 40)[:, None]
x_images, y_images = bar_images(keys[3], n_images)
x_images_eval, _ = bar_images(keys[4], 16)


def compute():
    out = {}
    for name, model, params, x_eval, x_train, y_train, learning_rate in (
            ("mlp", mlp, mlp_params, x_grid, x_regression, y_regression, mlp_learning_rate),
            ("cnn", cnn, cnn_params, x_images_eval, x_images, y_images, cnn_learning_rate)):
        kernels_ = kernel_reference.compare_with_neural_tangents(model, params, x_eval, x_train, y_train)
        path = kernel_reference.path_kernel_check(model, params, x_eval, x_train, y_train, learning_rate,
                                                  n_iterations)
        out.update({f"{name}/{k}": v for k, v in {**kernels_, **path}.items()})
    net = MultitaskNet(n_stimulus=12, n_tasks=12, n_outputs=9, n_hidden=100)
    x_net = jax.random.bernoulli(keys[5], 0.3, (n_multitask_patterns, net.n_inputs)).astype(jnp.float64)
    y_net = jax.random.uniform(keys[5], (n_multitask_patterns, net.n_outputs), jnp.float64)
    paths = kernel_reference.structured_vs_generic(net, net.init(keys[5], dtype=jnp.float64), x_net, x_net, y_net)
    out.update({f"multitask/{k}": v for k, v in paths.items()})
    return out


r = results.cached("your_own_network", {**cache_parameters, "model_code": model_code}, compute)
worst_difference = max(float(r[f"{m}/{k}_difference"].max()) for m in ("mlp", "cnn") for k in ("ntk", "entk"))
if worst_difference > 1e-9:  # float64: anything above rounding is a bug in lib or in the reference
    raise AssertionError(f"lib and neural-tangents kernels differ by {worst_difference:.2e} (relative)")
glue("own_worst_difference", f"{worst_difference:.1e}", display=False)
for m in ("mlp", "cnn"):
    glue(f"own_{m}_epntk_error", f"{float(r[f'{m}/relative_error']):.1e}", display=False)
    glue(f"own_{m}_training_s", f"{float(r[f'{m}/training_seconds']):.1f}", display=False)
structured_s, generic_s = r["multitask/seconds"]
glue("own_structured_speedup", f"{generic_s / structured_s:.0f}", display=False)
glue("own_structured_difference", f"{float(r['multitask/difference']):.1e}", display=False)

# %% [markdown]
# ## The kernels agree with neural-tangents
#
# For both networks, the NTK and the eNTK from `lib` equal those of neural-tangents
# (its implementations 1, Jacobian contraction, and 2, NTK-vector products) to
# {glue:text}`own_worst_difference` relative to the largest entry — float64 rounding.
# The page stops with an error if they ever differ by more than $10^{-9}$.

# %% mystnb={"figure": {"caption": "Beyond the paper (your own network): every entry of the eNTK at initialization computed by lib (vertical) against neural-tangents implementation 1 (horizontal), for the MLP on the regression grid (left) and the CNN on the bar images (right). The dashed line is the identity; the legend gives the largest difference relative to the largest entry.", "name": "fig-own-agreement"}} tags=["hide-input"]
plot_theory.plot_parity({"MLP, toy regression": (r["mlp/entk_reference"], r["mlp/entk"]),
                      "CNN, bar images": (r["cnn/entk_reference"], r["cnn/entk"])},
                        "eNTK entry, neural-tangents", "eNTK entry, lib")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## The ePNTK accounts for what each network learns
#
# `lib.core.kernels.epntk` trains each network by full-batch gradient descent for
# {glue:text}`own_mlp_training_s` s (MLP) and {glue:text}`own_cnn_training_s` s (CNN),
# compilation included, while summing $-\eta K(\theta_t)$ over the steps.
# Summed over the training points, the ePNTK predicts the change of every output on the
# evaluation inputs; the prediction is off by {glue:text}`own_mlp_epntk_error` (MLP) and
# {glue:text}`own_cnn_epntk_error` (CNN) relative to the largest change. That error is the
# forward-Euler error of the sum, $O(\eta)$ at fixed $\eta T$ (see the ePNTK chapter):
# halve the learning rate and double `n_iterations` to halve it.

# %% mystnb={"figure": {"caption": "Beyond the paper (your own network): change of every output over training, y(T) - y(0), measured (horizontal) against the ePNTK's prediction, the sum of the path kernel over the training points (vertical): the MLP on the 40-point evaluation grid (left) and the CNN's two class scores on 16 held-out images (right).", "name": "fig-own-epntk"}} tags=["hide-input"]
plot_theory.plot_parity({"MLP, toy regression": (r["mlp/actual_change"], r["mlp/estimated_change"]),
                      "CNN, bar images": (r["cnn/actual_change"], r["cnn/estimated_change"])},
                        "measured change y(T) - y(0)", "ePNTK prediction")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## What it costs
#
# `lib.core.kernels.entk` on a model it has no special knowledge of builds the Jacobian of all
# outputs with respect to all $P$ parameters, $(N, K, P)$ numbers for $N$ inputs and $K$
# outputs, and contracts it: $O(N M K P)$ work and $O((N + M) K P)$ memory, the same
# algorithm as neural-tangents' implementation 1. Medians of five calls after compilation,
# on the machine that built this page:

# %% tags=["hide-input"]
pd.DataFrame({
    "parameters P": [int(r[f"{m}/n_parameters"]) for m in ("mlp", "cnn")],
    "eNTK shape (K, N, M)": [" x ".join(map(str, r[f"{m}/entk"].shape)) for m in ("mlp", "cnn")],
    "lib eNTK (ms)": [1e3 * float(r[f"{m}/seconds"]) for m in ("mlp", "cnn")],
    "neural-tangents impl. 1 (ms)": [1e3 * float(r[f"{m}/seconds_reference"][0]) for m in ("mlp", "cnn")],
    "neural-tangents impl. 2 (ms)": [1e3 * float(r[f"{m}/seconds_reference"][1]) for m in ("mlp", "cnn")],
}, index=["MLP", "CNN"]).map(lambda v: f"{v:.1f}" if isinstance(v, float) else v).pipe(
    reading_table, "Per model: its size, its eNTK's shape, and the time of lib's and neural-tangents' eNTK")

# %% [markdown]
# Both are fast at these sizes, and neither is systematically faster: the generic path is a
# convenience, not a speed-up. The Jacobian grows with $N K P$: for a network with a million
# parameters and a thousand inputs it no longer fits in memory, and the kernel has to be
# computed in blocks of inputs (call `entk` on slices of `x_eval` and `x_train`).
#
# ## When the structured path applies
#
# For the paper's network, `lib.core.models.MultitaskNet`, `lib.core.kernels.entk` does not build the
# Jacobian: the gradient dot products factor layer by layer into products of activities and
# back-propagated errors ($O(N M H K)$ work for $H$ hidden units). `entk` picks that path by
# the model's type (`isinstance(model, MultitaskNet)`), so a subclass of `MultitaskNet`
# whose `apply` you change would get the wrong kernel: give your model a class of its own.
# On the paper's architecture (24 inputs, 9 outputs; 100 hidden units here) with
# `n_multitask_patterns` random patterns, the structured path is
# {glue:text}`own_structured_speedup` times faster than the generic one, with the same
# numbers (relative difference {glue:text}`own_structured_difference`). To add a structured
# path for your own architecture, write its closed form next to `entk_structured` in
# `lib/core/kernels.py`, dispatch on your model's type in `entk`, and test it against the generic
# path as `tests/test_kernels.py` does.
