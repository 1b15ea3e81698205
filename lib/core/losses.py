"""Squared-error losses and their output gradients (the eNTK's loss sensitivities)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .validation import check_choice

REDUCTIONS = ("sum", "mean")



def squared_error(y_pred: jax.Array, y_true: jax.Array, reduction: str = "sum") -> jax.Array:
    """Scalar loss: summed over patterns and outputs (``"sum"``, the multitask network) or
    averaged over both (``"mean"``, PyTorch's ``MSELoss`` used for the SMG network)."""
    check_choice("reduction", reduction, REDUCTIONS)
    total = jnp.sum((y_pred - y_true) ** 2)
    return total if reduction == "sum" else total / y_pred.size


def output_loss_gradient(y_pred: jax.Array, y_true: jax.Array, reduction: str = "sum") -> jax.Array:
    """(N, K) dL/dy of :func:`squared_error`: the loss sensitivity epsilon of pattern n, output k."""
    check_choice("reduction", reduction, REDUCTIONS)
    grad = 2.0 * (y_pred - y_true)
    return grad if reduction == "sum" else grad / y_pred.size
