"""Figures, each drawn by one ``plot_*`` function from saved results (matplotlib only)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

INIT_COLORS = {"standard": "tab:blue", "large": "tab:orange"}


def plot_pair_losses(iterations: np.ndarray, loss_test: np.ndarray, loss_train: np.ndarray | None = None, ax=None):
    """Test loss (solid) and optionally train loss (dotted) of standard vs large init.

    Args:
        iterations: (S,) iteration of each snapshot.
        loss_test, loss_train: (P pairs, 2 inits, S) summed squared error.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    for i, (init, color) in enumerate(INIT_COLORS.items()):
        for j, curve in enumerate(loss_test[:, i]):
            ax.plot(iterations, curve, color=color, lw=1, alpha=0.8, label=f"{init} init (test)" if j == 0 else None)
        if loss_train is not None:
            for j, curve in enumerate(loss_train[:, i]):
                ax.plot(iterations, curve, color=color, lw=1, ls=":", label=f"{init} init (train)" if j == 0 else None)
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("summed squared error")
    ax.legend(frameon=False)
    return ax


def plot_entk_loadings(loadings: np.ndarray, order: np.ndarray, title: str, ax=None):
    """Heat map of (N, K) leading-vector loadings, rows reordered by ``order``."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    lim = np.abs(loadings).max()
    image = ax.imshow(loadings[order], aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim, interpolation="nearest")
    ax.set_xlabel("output unit")
    ax.set_ylabel("training pattern (sorted)")
    ax.set_title(title)
    plt.colorbar(image, ax=ax, fraction=0.05)
    return ax


MODE_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red")


def _mark_times(ax, marks):
    for t in marks:
        ax.axvline(t, color="0.4", ls=":", lw=1)


def plot_smg_loss(times: np.ndarray, loss: np.ndarray, marks=(), ax=None):
    """Fig 2: mean squared error over training (the test set is the training set)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(times, loss, color="k", label="train (= test)")
    _mark_times(ax, marks)
    ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("mean squared error")
    ax.legend(frameon=False)
    return ax


def plot_mode_strengths(times, simulated, closed_form, singular_values, ax=None, title=None):
    """Simulated mode strengths (solid) against SMG's closed form (dashed), one colour per mode."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    for a, s in enumerate(singular_values):
        color = MODE_COLORS[a % len(MODE_COLORS)]
        ax.plot(times, simulated[:, a], color=color, label=f"mode {a + 1} (s={s:g})")
        if closed_form is not None and a < closed_form.shape[1]:
            ax.plot(times, closed_form[:, a], color=color, ls="--", lw=1)
    ax.set_xlabel("iteration")
    ax.set_ylabel("mode strength $u_a^T W v_a$")
    ax.legend(frameon=False, fontsize=8)
    if title:
        ax.set_title(title)
    return ax


def plot_vector_vs_projection(vector, projection, title, ax=None):
    """Fig 3 / 12: a kernel singular vector over the training inputs against the inputs'
    projection on a target singular vector (scaled to the same norm, sign-aligned)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    scale = np.linalg.norm(vector) / np.linalg.norm(projection)
    sign = np.sign(vector @ projection) or 1.0
    ax.plot(sign * vector, color="tab:blue", lw=1, label="kernel singular vector")
    ax.plot(projection * scale, color="tab:orange", lw=1, alpha=0.8, label="input projection (scaled)")
    ax.set_xlabel("training input")
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False, fontsize=8)
    return ax


def plot_mode_overlaps(times, overlaps, labels, marks=(), axes=None):
    """Fig 4: |cos| between kernel singular vectors (one panel each) and the target's modes."""
    if axes is None:
        _, axes = plt.subplots(len(labels), 1, figsize=(6, 2.4 * len(labels)), sharex=True)
    for k, (ax, label) in enumerate(zip(np.atleast_1d(axes), labels)):
        for a in range(overlaps.shape[2]):
            ax.plot(times, overlaps[:, k, a], color=MODE_COLORS[a % 4], label=f"mode {a + 1}")
        _mark_times(ax, marks)
        ax.set_ylabel(f"|cos|, {label}")
        ax.set_ylim(-0.02, 1.02)
    np.atleast_1d(axes)[0].legend(frameon=False, fontsize=8, ncol=4)
    np.atleast_1d(axes)[-1].set_xlabel("iteration")
    return axes


def plot_curves_vs_loss(times, curves, curve_labels, loss, ylabel, marks=(), ax=None, log_curves=False):
    """Fig 5 / 13 / 14: kernel quantities over time (left axis) with the loss (right axis, grey)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    for a, label in enumerate(curve_labels):
        ax.plot(times, curves[:, a], color=MODE_COLORS[a % 4], label=label)
    if log_curves:
        ax.set_yscale("log")
    _mark_times(ax, marks)
    ax.set_xlabel("iteration")
    ax.set_ylabel(ylabel)
    twin = ax.twinx()
    twin.plot(times, loss, color="0.5", lw=2, alpha=0.6, label="loss")
    twin.set_yscale("log")
    twin.set_ylabel("loss (grey)")
    ax.legend(frameon=False, fontsize=8, loc="center right")
    return ax


def plot_one_step_explainer(grid, x_train, y_train, y_start, y_next, y_final, influence, contributions, axes=None):
    """Fig 1: (a) predictions at t=0, t=1, final; (b) NTK influence functions K(x, x_n) at t=0;
    (c) their loss-weighted contributions -lr eps_n K(x, x_n); (d) y(t=1) vs the eNTK prediction.

    grid (G,), x_train/y_train (M,), y_* (G,), influence/contributions (G, M)."""
    if axes is None:
        _, axes = plt.subplots(2, 2, figsize=(10, 6.5))
    (a, b), (c, d) = axes
    colors = plt.cm.viridis(np.linspace(0, 0.95, len(x_train)))
    a.plot(grid, y_start, color="0.6", label="t = 0")
    a.plot(grid, y_next, color="tab:blue", label="t = 1")
    a.plot(grid, y_final, color="k", ls="--", label="final")
    a.scatter(x_train, y_train, c=colors, zorder=3, label="training data")
    a.set_title("(a) model predictions")
    a.legend(frameon=False, fontsize=8)
    for m, color in enumerate(colors):
        b.plot(grid, influence[:, m], color=color)
        c.plot(grid, contributions[:, m], color=color)
        b.axvline(x_train[m], color=color, lw=0.5, ls=":")
    b.set_title(r"(b) influence $K(x, x_n)$ at t = 0")
    c.set_title(r"(c) contributions $-\eta\,\epsilon_n K(x, x_n)$")
    predicted = y_start + contributions.sum(axis=1)
    d.plot(grid, y_next, color="tab:blue", lw=3, alpha=0.5, label="true t = 1")
    d.plot(grid, predicted, color="k", ls="--", lw=1, label="eNTK prediction")
    d.set_title("(d) one-step eNTK prediction")
    d.legend(frameon=False, fontsize=8)
    for ax in (a, b, c, d):
        ax.set_xlabel("x")
    return axes


def plot_error_scaling(learning_rates, errors, slope, ax=None):
    """Max one-step prediction error against the learning rate (log-log) with an lr^2 guide."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 3.5))
    lrs, errors = np.asarray(learning_rates), np.asarray(errors)
    ax.loglog(lrs, errors, "o-", label=f"eNTK one-step error (slope {slope:.2f})")
    ax.loglog(lrs, errors[0] * (lrs / lrs[0]) ** 2, "k:", label=r"$\propto \eta^2$")
    ax.set_xlabel(r"learning rate $\eta$")
    ax.set_ylabel("max |true - predicted| change")
    ax.legend(frameon=False, fontsize=8)
    return ax


def plot_singular_vector_differences(panels: dict, axes=None):
    """Fig 11: heat maps of | |V_target| - |V_kernel| | (rows: entry, columns: singular index)."""
    if axes is None:
        _, axes = plt.subplots(2, 2, figsize=(8, 6.5))
    vmax = max(float(np.max(v)) for v in panels.values())
    for ax, (title, diff) in zip(np.ravel(axes), panels.items()):
        image = ax.imshow(diff, cmap="magma_r", vmin=0, vmax=vmax)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(diff.shape[1]), [str(k + 1) for k in range(diff.shape[1])])
        ax.set_yticks(range(diff.shape[0]), [str(k + 1) for k in range(diff.shape[0])])
        ax.set_xlabel("singular vector index")
        ax.set_ylabel("entry")
        for (i, j), value in np.ndenumerate(diff):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if value > 0.6 * vmax else "black")
    plt.colorbar(image, ax=axes, fraction=0.03)
    return axes


def plot_convergence(learning_rates, errors: dict, ax=None):
    """Relative errors against the learning rate (log-log) with an lr^1 guide."""
    if ax is None:
        _, ax = plt.subplots(figsize=(4.8, 3.5))
    lrs = np.asarray(learning_rates)
    for label, values in errors.items():
        ax.loglog(lrs, values, "o-", label=label)
    first = np.asarray(next(iter(errors.values())))
    ax.loglog(lrs, first[0] * lrs / lrs[0], "k:", label=r"$\propto \eta$")
    ax.set_xlabel(r"learning rate $\eta$ ($\eta \times$ steps fixed)")
    ax.set_ylabel("relative error")
    ax.legend(frameon=False, fontsize=8)
    return ax
