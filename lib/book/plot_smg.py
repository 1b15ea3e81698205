"""Chapter 02's two-panel figures (the book's style): mode strengths of the aligned twin and the random
init against the closed form, Fig 3's singular vectors against the input projections, and the plain
NTK's primary vector and singular values. Each draws panels of :mod:`lib.book.plot_theory` into one
figure and returns it, laid out (``tight_layout``); the notebook shows it.

Book layer; the inputs are :mod:`lib.book.smg_sections`' results. Checked in ``tests/test_plot_smg.py``.
"""

from __future__ import annotations

import matplotlib.pyplot as plt

from ..experiments import smg
from . import plot_theory
from .smg_sections import DataView, NtkView, SmgRuns

WIDE = 11  # inches: two panels side by side


def plot_mode_strength_panels(runs: SmgRuns):
    """Mode strengths (solid) against SMG's closed form of the random run's effective initial strengths
    (dashed): the aligned twin (left), the random small init (right)."""
    closed = smg.closed_form_strengths(runs.problem, runs.run)
    fig, axes = plt.subplots(1, 2, figsize=(WIDE, 3.4), sharey=True)
    for ax, r, title in zip(axes, (runs.aligned, runs.run), ("aligned twin", "random small init (paper)")):
        simulated = smg.mode_strengths(smg.end_to_end_maps(r), runs.problem)
        plot_theory.plot_mode_strengths(r.times, simulated, closed, runs.problem.singular_values, ax=ax, title=title)
    fig.tight_layout()
    return fig


def plot_data_view_panels(runs: SmgRuns, data: DataView, analysis_times):
    """Paper Fig 3: the first singular vector at the first analysis time against mode 1's input
    projection (left), the second at the second time against mode 2's (right); ``|r|`` in the titles."""
    t1, t2 = analysis_times
    projections = runs.problem.input_projections
    fig, axes = plt.subplots(1, 2, figsize=(WIDE, 3))
    plot_theory.plot_vector_vs_projection(data.vectors[t1][:, 0], projections[:, 0],
                                          f"t={t1}: 1st vector vs mode 1, |r|={data.table.iloc[0, 0]:.3f}", axes[0])
    plot_theory.plot_vector_vs_projection(data.vectors[t2][:, 1], projections[:, 1],
                                          f"t={t2}: 2nd vector vs mode 2, |r|={data.table.iloc[3, 1]:.3f}", axes[1])
    fig.tight_layout()
    return fig


def plot_ntk_panels(runs: SmgRuns, ntk: NtkView, analysis_times):
    """Paper Fig 14: ``|cos|`` of the plain NTK's primary vector with each mode (left) and its three
    largest singular values (right, log scale), both against the loss."""
    run = runs.run
    fig, axes = plt.subplots(1, 2, figsize=(WIDE, 3.4))
    plot_theory.plot_curves_vs_loss(run.times, ntk.overlaps[:, 0], [f"mode {a + 1}" for a in range(4)], run.loss,
                                    "|cos| primary NTK vector", marks=analysis_times, ax=axes[0])
    plot_theory.plot_curves_vs_loss(run.times, ntk.values[:, :3], [f"singular value {k + 1}" for k in range(3)],
                                    run.loss, "NTK singular value", marks=analysis_times, ax=axes[1], log_curves=True)
    fig.tight_layout()
    return fig
