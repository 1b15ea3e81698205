"""Per-network measures of the rich-to-lazy continuum: kernel alignments, silhouettes, CKA and
the sharing index, weight change, learning speed.

Analyses layer. Every function takes one network (a :class:`~lib.core.models.MultitaskNet` and its
parameters) or per-network numbers and returns one number (or one small array). The sweep points
that evaluate them over many networks are in :mod:`lib.analyses.continuum_points`.

The t=0 predictors of :data:`lib.analyses.continuum_points.CONTINUUM_PREDICTORS` (one number per network):

* ``silhouette_entk_<variant>``: silhouette of the t=0 eNTK leading-vector loadings, the
  paper's predictor (:mod:`lib.analyses.entk_vectors`, both variants of
  :data:`lib.core.entk_variants.ENTK_VARIANTS`): :func:`entk_silhouette`;
* ``silhouette_epsilon``: the same clustering applied to the loss sensitivities
  epsilon = dL/dy (M, K) alone, without any kernel (control 1: what the eNTK adds to epsilon):
  :func:`epsilon_silhouette`;
* ``silhouette_ntk``: the same clustering of the leading vectors of the *plain* NTK blocks
  ntk[:, :, k, k] (control 2: what the loss weighting adds): :func:`ntk_silhouette`;
* ``kta_ntk_<single|multi>``: centered kernel-target alignment (Cortes et al. 2012) of the
  output-traced t=0 NTK with the single-task or the multitask targets: :func:`ntk_target_alignment`;
* ``kta_entk_<single|multi>``: cosine between the t=0 eNTK's predicted first-step change of
  the test outputs and the change they need (targets minus outputs): how well the eNTK
  points at the targets on patterns it was not computed from: :func:`entk_target_alignment`;
* ``sharing_initial``: :func:`sharing_index` of the t=0 hidden representation.
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np

from .entk_vectors import leading_vectors, silhouette_of_loadings
from ..core.entk_variants import ENTK_VARIANTS
from ..core.kernels import entk, ntk_output_diagonal
from ..core.losses import output_loss_gradient
from ..core.models import MultitaskNet, Params
from ..core.tasks import TaskEnvironment
from ..core.validation import check_choice

# --- kernels -------------------------------------------------------------------------------------


def traced_ntk(net: MultitaskNet, params: Params, x1: jax.Array, x2: jax.Array) -> jax.Array:
    """(N, M) output-traced NTK ``sum_k ntk[n, m, k, k]``."""
    return ntk_output_diagonal(net, params, x1, x2).sum(axis=0)


def centered_alignment(kernel_a: np.ndarray, kernel_b: np.ndarray) -> float:
    """Centered alignment ``<HAH, HBH>_F / (|HAH|_F |HBH|_F)`` of two (N, N) kernels, in [-1, 1]
    for positive semi-definite kernels; nan if either centered kernel is zero."""
    a, b = np.asarray(kernel_a, np.float64), np.asarray(kernel_b, np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape != b.shape:
        raise ValueError(f"kernels must be two (N, N) arrays of one shape, got {a.shape} and {b.shape}")
    center = lambda k: k - k.mean(axis=0, keepdims=True) - k.mean(axis=1, keepdims=True) + k.mean()
    a, b = center(a), center(b)
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    return float((a * b).sum() / denom) if denom > 0 else float("nan")


def kernel_target_alignment(kernel: np.ndarray, targets: np.ndarray) -> float:
    """Centered alignment of an (N, N) kernel with the target kernel Y Y^T of targets (N, K)."""
    y = np.asarray(targets, np.float64)
    return centered_alignment(kernel, y @ y.T)


def ntk_target_alignment(net: MultitaskNet, params: Params, x: np.ndarray, y: np.ndarray) -> float:
    """:func:`kernel_target_alignment` of the traced NTK on inputs x (N, D) with targets y (N, K)."""
    return kernel_target_alignment(np.asarray(traced_ntk(net, params, jnp.asarray(x), jnp.asarray(x))), y)


def entk_target_alignment(net: MultitaskNet, params: Params, x_train, y_train, x_eval, y_eval) -> float:
    """Cosine between the eNTK's first-order change of the outputs on ``x_eval`` for one
    gradient step on (x_train, y_train), ``-sum_m entk[k, n, m]`` (N_eval, K), and the change
    the outputs need, ``y_eval - f(x_eval)``. Independent of the learning rate."""
    e = entk(net, params, jnp.asarray(x_eval), jnp.asarray(x_train), jnp.asarray(y_train))
    return entk_alignment(e, y_eval, net.apply(params, jnp.asarray(x_eval)))


def entk_alignment(entk_eval: np.ndarray, y_eval: np.ndarray, outputs_eval: np.ndarray) -> float:
    """Cosine between an eNTK's (K, N_eval, M) first-order change of the outputs,
    ``-sum_m entk[k, n, m]`` (N_eval, K), and the change they need, ``y_eval - outputs_eval`` (N_eval, K)."""
    predicted = -np.asarray(entk_eval, np.float64).sum(axis=2).T
    needed = np.asarray(y_eval, np.float64) - np.asarray(outputs_eval, np.float64)
    return _cosine(predicted, needed)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.ravel(a), np.ravel(b)
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / denom) if denom > 0 else float("nan")


def kernel_distance(kernel_a: np.ndarray, kernel_b: np.ndarray) -> float:
    """``1 - <A, B>_F / (|A|_F |B|_F)`` (Fort et al. 2020): 0 for kernels equal up to scale."""
    a, b = np.ravel(np.asarray(kernel_a, np.float64)), np.ravel(np.asarray(kernel_b, np.float64))
    if a.shape != b.shape:
        raise ValueError(f"kernels must have one shape, got {np.shape(kernel_a)} and {np.shape(kernel_b)}")
    return float(1.0 - a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# --- silhouettes -----------------------------------------------------------------------------------


def entk_silhouette(net: MultitaskNet, params: Params, x_train, y_train, x_test, variant: str) -> float:
    """Silhouette of the t=0 eNTK loadings (``variant`` as in :mod:`lib.analyses.entk_vectors`: rows over
    the training inputs, or over the test inputs for the authors' variant)."""
    check_choice("variant", variant, ENTK_VARIANTS)
    x_eval = x_train if variant == "principled" else x_test
    e = entk(net, params, jnp.asarray(x_eval), jnp.asarray(x_train), jnp.asarray(y_train))
    return silhouette_of_loadings(leading_vectors(np.asarray(e), variant))


def epsilon_silhouette(net: MultitaskNet, params: Params, x_train, y_train) -> float:
    """Control "epsilon alone": silhouette of k-means on the (M, K) loss sensitivities dL/dy."""
    eps = output_loss_gradient(net.apply(params, jnp.asarray(x_train)), jnp.asarray(y_train))
    return silhouette_of_loadings(np.asarray(eps, np.float64))


def ntk_silhouette(net: MultitaskNet, params: Params, x_train) -> float:
    """Control "plain NTK": silhouette of the leading right singular vectors of the per-output
    NTK blocks ntk[:, :, k, k] (no loss weighting)."""
    x = jnp.asarray(x_train)
    return silhouette_of_loadings(leading_vectors(np.asarray(ntk_output_diagonal(net, params, x, x)), "principled"))


# --- representation sharing ------------------------------------------------------------------------


def task_pair_kinds(env: TaskEnvironment) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Every task pair (a < b) and whether the two tasks share an input or an output pool."""
    pairs = list(itertools.combinations(range(env.n_tasks), 2))
    shares = np.array([env.task_in_pool(a) == env.task_in_pool(b) or env.task_out_pool(a) == env.task_out_pool(b)
                       for a, b in pairs])
    return pairs, shares


def sharing_index(env: TaskEnvironment, hidden_by_task: np.ndarray) -> float:
    """Mean linear CKA between the hidden representations of task pairs that share an input
    or output pool, minus the mean over pairs that share neither.

    Args:
        hidden_by_task: (n_tasks, n_stimuli, H) hidden activity of every task on the same
            stimuli (rows in one stimulus order).
    """
    hidden_by_task = np.asarray(hidden_by_task)
    if hidden_by_task.ndim != 3 or hidden_by_task.shape[0] != env.n_tasks:
        raise ValueError(f"hidden_by_task must be (n_tasks={env.n_tasks}, n_stimuli, H), got {hidden_by_task.shape}")
    pairs, shares = task_pair_kinds(env)
    cka = task_pair_cka(hidden_by_task, pairs)
    return float(np.nanmean(cka[shares]) - np.nanmean(cka[~shares]))


def task_pair_cka(hidden_by_task: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """(len(pairs),) linear CKA (Kornblith et al. 2019) of the representations (n_stimuli, H) of each
    task pair, from the tasks' centered Gram matrices K = h h^T (n_stimuli, n_stimuli):
    ``CKA = <K_a, K_b>_F / (|K_a|_F |K_b|_F)``, each Gram matrix computed once for all pairs; nan
    for a pair with a constant representation."""
    h = np.asarray(hidden_by_task, np.float64)
    h = h - h.mean(axis=1, keepdims=True)
    gram = np.einsum("tnh,tmh->tnm", h, h)
    norms = np.sqrt(np.einsum("tnm,tnm->t", gram, gram))
    a, b = (np.array([pair[i] for pair in pairs], dtype=int) for i in (0, 1))
    denom = norms[a] * norms[b]
    cross = np.einsum("pnm,pnm->p", gram[a], gram[b])
    return np.where(denom > 0, cross / np.where(denom > 0, denom, 1.0), np.nan)


def hidden_by_task(env: TaskEnvironment, net: MultitaskNet, params: Params) -> np.ndarray:
    """(n_tasks, n_stimuli, H) hidden activity on every single-task pattern, by task."""
    data = env.all_patterns()  # stimulus-major: stimulus s, task t at row s * n_tasks + t
    h = np.asarray(net.hidden(params, jnp.asarray(data.x, jnp.float32)))
    return h.reshape(len(env.all_stimuli), env.n_tasks, -1).transpose(1, 0, 2)


# --- outcomes --------------------------------------------------------------------------------------


def relative_weight_change(params_initial: Params, params_final: Params) -> float:
    """``|theta_T - theta_0| / |theta_0|`` over all weights (Euclidean norms)."""
    d = sum(float(np.sum((np.asarray(params_final[k], np.float64) - np.asarray(v, np.float64)) ** 2))
            for k, v in params_initial.items())
    n = sum(float(np.sum(np.asarray(v, np.float64) ** 2)) for v in params_initial.values())
    return float(np.sqrt(d / n))


def linearization_gap(y_net: np.ndarray, y_linearized: np.ndarray, y_initial: np.ndarray) -> float:
    """``|f_T - f_lin,T| / |f_T - f_0|`` on the same inputs: how far the trained network is from
    its trained linearization, relative to how far it moved (0: lazy)."""
    moved = np.linalg.norm(np.asarray(y_net, np.float64) - y_initial)
    return float(np.linalg.norm(np.asarray(y_net, np.float64) - y_linearized) / moved) if moved > 0 else float("nan")


def iterations_to_criterion(iterations: np.ndarray, losses: np.ndarray, criterion: float) -> tuple[float, bool]:
    """(first snapshot iteration with loss <= criterion, whether it was reached); when it is
    never reached, the last iteration (a censored value) and False."""
    losses = np.asarray(losses)
    reached = np.flatnonzero(losses <= criterion)
    if len(reached):
        return float(iterations[reached[0]]), True
    return float(iterations[-1]), False


def learning_speed(losses: np.ndarray) -> float:
    """1 - L(t_1) / L(0): the share of the initial loss removed by the first snapshot."""
    return float(1.0 - losses[1] / losses[0])
