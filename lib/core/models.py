"""Networks as pure functions of a parameter pytree (paper Sec 3, 4.1; App A.1).

Every model exposes ``init(key, ...) -> params`` and ``apply(params, x) -> y`` with
``x`` of shape (N, n_inputs) and ``y`` of shape (N, n_outputs). Parameters are only the
trainable weights; fixed quantities (the multitask network's -2 biases) live on the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import jax
import jax.numpy as jnp

from .tasks import TaskEnvironment
from .validation import check_choice, check_int, check_positive_float

Params = dict[str, jax.Array]

INITS = ("standard", "large")

# how the large init scales the standard draw, per layer (hidden, output): Sec 4.1.3 of the paper
# says all weights are drawn from U[-1, 1] (both layers x10); Sec 5 says "layer 1 weights ... x10"
LARGE_SCALINGS = {"both_layers": (10.0, 10.0), "layer1_only": (10.0, 1.0)}


class Model(Protocol):
    """What training and the kernels need from a network."""

    def apply(self, params: Params, x: jax.Array) -> jax.Array: ...


@dataclass(frozen=True)
class MultitaskNet:
    """h = sigmoid(W_h [x_stim; x_task] + b_h), y = sigmoid(W_o [h; x_task] + b_o).

    Shapes: ``w_hidden`` (n_hidden, n_stimulus + n_tasks), ``w_output`` (n_outputs,
    n_hidden + n_tasks). The biases are constants (-2 in the paper) and are never trained:
    they are attributes of the model, not parameters.
    """

    n_stimulus: int
    n_tasks: int
    n_outputs: int
    n_hidden: int = 200
    bias_hidden: float = -2.0
    bias_output: float = -2.0

    def __post_init__(self) -> None:
        for name in ("n_stimulus", "n_tasks", "n_outputs", "n_hidden"):
            check_int(name, getattr(self, name), minimum=1)

    @classmethod
    def for_environment(cls, env: TaskEnvironment, n_hidden: int = 200) -> "MultitaskNet":
        return cls(env.n_stimulus_units, env.n_tasks, env.n_outputs, n_hidden)

    @property
    def n_inputs(self) -> int:
        return self.n_stimulus + self.n_tasks

    def init(
        self,
        key: jax.Array,
        init: str = "standard",
        weight_range: float = 0.1,
        large_multipliers: tuple[float, float] = (10.0, 10.0),
        dtype: jnp.dtype = jnp.float32,
    ) -> Params:
        """Weights drawn U[-weight_range, weight_range]; ``init="large"`` multiplies the *same*
        draw by ``large_multipliers`` (hidden layer, output layer): (10, 10) is the paper's
        large init, (10, 1) the "layer 1 x 10" ablation of Sec 5."""
        check_choice("init", init, INITS)
        check_positive_float("weight_range", weight_range)
        if len(large_multipliers) != 2:
            raise ValueError(f"large_multipliers must be (hidden, output), got {large_multipliers!r}")
        for i, m in enumerate(large_multipliers):
            check_positive_float(f"large_multipliers[{i}]", m)
        key_hidden, key_output = jax.random.split(key)
        shape_h = (self.n_hidden, self.n_inputs)
        shape_o = (self.n_outputs, self.n_hidden + self.n_tasks)
        w_hidden = jax.random.uniform(key_hidden, shape_h, dtype, -weight_range, weight_range)
        w_output = jax.random.uniform(key_output, shape_o, dtype, -weight_range, weight_range)
        if init == "large":
            w_hidden = w_hidden * large_multipliers[0]
            w_output = w_output * large_multipliers[1]
        return {"w_hidden": w_hidden, "w_output": w_output}

    def task_input(self, x: jax.Array) -> jax.Array:
        """(N, n_tasks) task units of the input."""
        return x[:, self.n_stimulus :]

    def hidden(self, params: Params, x: jax.Array) -> jax.Array:
        """(N, n_hidden) hidden activity."""
        return jax.nn.sigmoid(x @ params["w_hidden"].T + self.bias_hidden)

    def output_from_hidden(self, params: Params, h: jax.Array, x: jax.Array) -> jax.Array:
        z = jnp.concatenate([h, self.task_input(x)], axis=1)
        return jax.nn.sigmoid(z @ params["w_output"].T + self.bias_output)

    def apply(self, params: Params, x: jax.Array) -> jax.Array:
        """(N, n_outputs) output activity."""
        return self.output_from_hidden(params, self.hidden(params, x), x)


@dataclass(frozen=True)
class LinearNet:
    """Bias-free two-layer linear network y = W_2 W_1 x (the SMG 4-3-5 network)."""

    n_inputs: int = 4
    n_hidden: int = 3
    n_outputs: int = 5

    def init(self, key: jax.Array, scale: float = 0.1, dtype: jnp.dtype = jnp.float32) -> Params:
        """PyTorch's default ``nn.Linear`` draw U[-1/sqrt(fan_in), 1/sqrt(fan_in)] times ``scale``
        (the authors' small init)."""
        check_positive_float("scale", scale)
        k1, k2 = jax.random.split(key)
        b1 = 1.0 / jnp.sqrt(self.n_inputs)
        b2 = 1.0 / jnp.sqrt(self.n_hidden)
        w1 = jax.random.uniform(k1, (self.n_hidden, self.n_inputs), dtype, -b1, b1) * scale
        w2 = jax.random.uniform(k2, (self.n_outputs, self.n_hidden), dtype, -b2, b2) * scale
        return {"w1": w1, "w2": w2}

    def apply(self, params: Params, x: jax.Array) -> jax.Array:
        return x @ params["w1"].T @ params["w2"].T

    def end_to_end(self, params: Params) -> jax.Array:
        """(n_outputs, n_inputs) the composite map W_2 W_1."""
        return params["w2"] @ params["w1"]


@dataclass(frozen=True)
class ReluNet1D:
    """One-hidden-layer ReLU network on scalar inputs (the Fig 1 explainer):
    y = sum_j a_j relu(w_j x + b_j) + c, with x of shape (N, 1)."""

    n_hidden: int = 50

    def init(self, key: jax.Array, dtype: jnp.dtype = jnp.float32) -> Params:
        check_int("n_hidden", self.n_hidden, minimum=1)
        kw, kb, ka = jax.random.split(key, 3)
        return {
            "w": jax.random.normal(kw, (self.n_hidden,), dtype),
            "b": jax.random.normal(kb, (self.n_hidden,), dtype),
            "a": jax.random.normal(ka, (self.n_hidden,), dtype) / jnp.sqrt(self.n_hidden),
            "c": jnp.zeros((), dtype),
        }

    def apply(self, params: Params, x: jax.Array) -> jax.Array:
        pre = x[:, :1] * params["w"] + params["b"]
        return (jax.nn.relu(pre) @ params["a"] + params["c"])[:, None]
