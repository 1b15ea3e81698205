"""The rival theories' figures (chapter 13): each theory against its own simulation first, then
against the paper's multitask network.

:func:`plot_two_point_validation`: the two-point network of van Rossem & Saxe at several initial
scales against Eq. 7 with rates fitted on other seeds (their Fig. 3): a(t) per scale, final
distance theory vs simulation, plateau length against the scale. :func:`plot_race_validation`:
the gated linear network's route losses, direct simulation against the reduction (Saxe et al.
Fig. 5b's comparison, on our environment). :func:`plot_two_point_multitask`: predicted against
observed final task-pair distances, one panel per scale (new). :func:`plot_race_multitask`:
Spearman's rho of the race and of the route-size rival per network, the pool-grouping ARIs over
training, and the mean route loss of network and race (new). :func:`plot_side_by_side`: every predictor
of the three outcomes with intervals, one colour per scale (new).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from ..analyses.rival_theories import half_time_clock
from .plot_style import CYCLE, use_book_style

use_book_style()  # importing any plot_* module applies the book's figure style

PAIR_KINDS = ("same output pool", "same input pool", "neither")


def plot_two_point_validation(summary: dict[str, np.ndarray], examples: dict[str, np.ndarray]):
    """``summary``: :func:`lib.experiments.two_point.scale_summary`; ``examples``:
    :func:`lib.analyses.rival_theories.two_point_examples`. Returns the figure."""
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), layout="constrained")
    gains = summary["gain"]
    for g, (t, sim, theory) in enumerate(zip(examples["times"], examples["sim"], examples["theory"])):
        color = CYCLE[g % len(CYCLE)]
        axes[0].plot(t[1:], sim[1:, 0], color=color, label=f"gain {gains[g]:g}")
        axes[0].plot(t[1:], theory[1:, 0], color=color, ls="--")
    axes[0].set(xscale="log", yscale="log", xlabel="time (learning rate x steps)",
                ylabel="representational distance a", title="a(t): network (solid), Eq. 7 (dashed)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=gains.size, fontsize=10,
               frameon=False)  # the gains' colours, of the first two panels
    sim, theory = summary["final_sim"].ravel(), summary["final_theory"].ravel()
    scale_of = np.repeat(np.arange(gains.size), summary["final_sim"].shape[1])
    axes[1].scatter(sim, theory, c=[CYCLE[g % len(CYCLE)] for g in scale_of], s=25)
    low, high = min(sim.min(), theory.min()) * 0.8, max(sim.max(), theory.max()) * 1.25
    axes[1].plot([low, high], [low, high], color="grey", lw=1)
    axes[1].set(xscale="log", yscale="log", xlabel="final a, network", ylabel="a* of Eq. 36",
                title="final distance (held-out seeds)")
    for axis in (axes[1].xaxis, axes[1].yaxis):
        axis.set_minor_formatter(NullFormatter())  # decade labels only: minor labels overlap on a short range
    for key, marker, label in (("plateau_sim", "o", "network"), ("plateau_theory", "x", "Eq. 7")):
        values = summary[key]
        axes[2].plot(np.repeat(gains, values.shape[1]), np.maximum(values.ravel(), 1e-3), marker, label=label,
                     color=CYCLE[0] if key == "plateau_sim" else CYCLE[1])
    axes[2].set(yscale="log", xlabel="initial gain", ylabel="plateau length (floor 1e-3)",
                title="plateau shortens with the scale")
    axes[2].legend(fontsize=10)
    return fig


SETTLED_FRACTION = 0.01  # a route has learned when its loss is this fraction of its start


def settled_time(time: np.ndarray, losses: np.ndarray, fraction: float = SETTLED_FRACTION) -> float:
    """The first time (T,) at which every route's loss (T, R) is at most ``fraction`` of its
    start and stays so; the last time if some route never gets there."""
    below = (losses <= fraction * losses[:1]).all(axis=1)
    stays = np.logical_and.accumulate(below[::-1])[::-1]
    return float(time[np.argmax(stays)]) if stays.any() else float(time[-1])


def plot_race_validation(validation: dict[str, np.ndarray]):
    """``validation``: :func:`lib.analyses.rival_theories.race_validation`. The time axis ends at
    twice the time every route's loss, simulated and reduced, has settled below
    :data:`SETTLED_FRACTION` of its start (nothing moves after). Returns the figure."""
    fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
    for r in range(validation["direct"].shape[1]):
        ax.plot(validation["time"], validation["direct"][:, r], color=CYCLE[r % len(CYCLE)], lw=1.5)
        ax.plot(validation["time"], validation["reduced"][:, r], color="black", lw=0.8, ls=":")
    time = validation["time"]
    settled = max(settled_time(time, validation[k]) for k in ("direct", "reduced"))
    xlabel = "time (learning rate x steps)"
    if 0 < 2 * settled < time[-1]:
        ax.set_xlim(time[0], 2 * settled)
        xlabel += f"; every route below {SETTLED_FRACTION:.0%} of its start from {settled:.0f} to the end, {time[-1]:g}"
    ax.set(xlabel=xlabel, ylabel="route loss", title="gated linear network: direct (colour) vs reduction (dotted)")
    return fig


def pair_kind(env, pairs: np.ndarray) -> np.ndarray:
    """(Q,) index into :data:`PAIR_KINDS` of each task pair (Q, 2)."""
    pairs = np.asarray(pairs)
    same_out = env.task_out_pool(pairs[:, 0]) == env.task_out_pool(pairs[:, 1])
    same_in = env.task_in_pool(pairs[:, 0]) == env.task_in_pool(pairs[:, 1])
    return np.where(same_out, 0, np.where(same_in, 1, 2))


def plot_two_point_multitask(by_scale: dict[float, dict[str, np.ndarray]], kinds: np.ndarray):
    """``by_scale``: scale -> :func:`lib.analyses.rival_theories.network_analysis`; ``kinds`` (Q,)
    :func:`pair_kind`. One panel per scale: observed against predicted final task-pair distance,
    every held-out network, each divided by its mean over pairs. Returns the figure."""
    fig, axes = plt.subplots(1, len(by_scale), figsize=(3.6 * len(by_scale), 3.4), layout="constrained",
                             squeeze=False)
    for ax, (g, out) in zip(axes[0], by_scale.items()):
        predicted = out["predicted"] / out["predicted"].mean(axis=1, keepdims=True)
        observed = out["observed"] / out["observed"].mean(axis=1, keepdims=True)
        for k, name in enumerate(PAIR_KINDS):
            ax.scatter(predicted[:, kinds == k].ravel(), observed[:, kinds == k].ravel(), s=8, alpha=0.5,
                       color=CYCLE[k], label=name)
        ax.set(xlabel="predicted a* / mean", ylabel="observed final a / mean",
               title=f"g = {g:g}: median r = {np.nanmedian(out['pair_r']):+.2f}")
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncols=len(PAIR_KINDS), fontsize=10,
               markerscale=2, frameon=False)  # the kinds of pair, of every panel
    return fig


def plot_race_multitask(out: dict[str, np.ndarray], iterations: np.ndarray, scale: float):
    """``out``: :func:`lib.analyses.rival_theories.network_analysis` at the smallest scale. Panels:
    rho of race and route-size rival per network; ARI of the pool groupings over training (mean
    and networks); mean route training loss of the networks and the race's mean route loss, each
    against its own time divided by its time to half the start. Returns the figure."""
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), layout="constrained")
    n = out["rho_race"].size
    for s in range(n):
        axes[0].plot([0, 1], [out["rho_race"][s], out["rho_size"][s]], color="grey", lw=0.8)
    axes[0].plot(np.zeros(n), out["rho_race"], "o", color=CYCLE[0])
    axes[0].plot(np.ones(n), out["rho_size"], "o", color=CYCLE[1])
    axes[0].axhline(0, color="black", lw=0.8)
    axes[0].set(xticks=[0, 1], xticklabels=["race", "route size"], xlim=(-0.4, 1.4), xlabel="predictor",
                ylabel="Spearman rho", title=f"route order vs observed (g = {scale:g})")
    for key, color, name in (("ari_out", CYCLE[0], "output pools"), ("ari_in", CYCLE[1], "input pools")):
        axes[1].plot(iterations, out[key].T, color=color, lw=0.5, alpha=0.4)
        axes[1].plot(iterations, out[key].mean(axis=0), color=color, lw=2, label=name)
    axes[1].axhline(0.5, color="grey", ls=":")
    axes[1].set(xlabel="iteration", ylabel="ARI", title="hidden-layer grouping of the tasks")
    axes[1].legend(fontsize=10)
    for curve, clock, color, name in ((out["observed_curve"].mean(axis=0), np.asarray(iterations, float), CYCLE[2],
                                       "sigmoid network"),
                                      (out["race_curve"].mean(axis=0), out["race_clock"], "black", "race")):
        axes[2].plot(half_time_clock(curve, clock), curve, color=color, label=name)
    axes[2].set(xlim=(0, 4), xlabel="time / time to half the loss", ylabel="mean route loss / start",
                title="single-task loss")
    axes[2].legend(fontsize=10)
    return fig


SIDE_TITLES = {"a": "(a) task similarity: r with final distances", "b": "(b) route order: rho with observed times",
               "c": "(c) loss shape: absolute error"}


def plot_side_by_side(scores: dict[float, dict[str, dict[str, np.ndarray]]], names: dict[str, tuple[str, ...]]):
    """``scores``: scale -> :func:`lib.analyses.rival_comparison.outcome_scores`; ``names``: outcome
    ("a", "b", "c") -> the predictors to show, top to bottom. One panel per outcome: each predictor's
    mean per-network score with its percentile bootstrap 95% interval, one colour per scale. Returns
    the figure."""
    from ..analyses.rival_comparison import mean_interval

    fig, axes = plt.subplots(1, len(names), figsize=(11.5, 4.2), layout="constrained")
    offsets = np.linspace(-0.25, 0.25, len(scores)) if len(scores) > 1 else np.zeros(1)
    for ax, (outcome, rows) in zip(np.atleast_1d(axes), names.items()):
        for (g, by_outcome), dy, color in zip(scores.items(), offsets, CYCLE):
            stats = np.array([mean_interval(by_outcome[outcome][name]) for name in rows])
            y = np.arange(len(rows)) + dy
            ax.errorbar(stats[:, 0], y, xerr=np.abs(stats[:, 1:].T - stats[:, 0]), fmt="o", color=color, ms=4,
                        label=f"g = {g:g}")
        ax.set_yticks(np.arange(len(rows)), rows)
        ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top; rows without a score keep their place
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_title(SIDE_TITLES[outcome], fontsize=11)
        ax.set_xlabel("mean over networks [95% interval]")
        ax.set_ylabel("predictor")
    handles, labels = np.atleast_1d(axes)[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels), fontsize=10)
    return fig
