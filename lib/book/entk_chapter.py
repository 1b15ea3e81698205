"""Chapter 08's blocks of work (the eNTK over training): each section's runs read from the results
cache and what the section computes from them, one call each, with the texts the section glues.

Book layer. ``plan`` is :func:`lib.book.chapter_parameters.check_entk_over_training`'s schedule ->
:class:`~lib.book.chapter_parameters.KernelDynamicsPlan`; ``runs`` is schedule ->
:func:`~lib.experiments.kernel_dynamics.run_kernel_dynamics` (as :func:`kernel_dynamics_runs` reads
them). The tables come from :mod:`lib.book.entk_report`, the sentences of "What we found" from
:mod:`lib.book.entk_findings`, the figures' data from :mod:`lib.book.entk_panels`. Checked in
``tests/test_entk_chapter.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import attribution
from ..core.entk_variants import ENTK_VARIANTS
from ..core.models import INITS
from ..core.tasks import TaskEnvironment
from ..experiments import kernel_dynamics as kd
from ..experiments.epntk_stream import node_count
from . import entk_report as report
from .tables import reading_table


class KernelDynamicsRuns(NamedTuple):
    """The chapter's ePNTK runs: ``runs`` (schedule -> the cached run) and ``wall`` (schedule -> the
    seconds it took when first computed)."""

    runs: dict[str, dict]
    wall: dict[str, float]


def kernel_dynamics_runs(env: TaskEnvironment, plan: dict, n_snapshots: int, path_kernel: str, n_points: int,
                         n_rows: int | None) -> KernelDynamicsRuns:
    """Every schedule's pairs of ``plan`` with their ePNTK over training
    (:func:`lib.experiments.kernel_dynamics.cached_kernel_dynamics`) and its wall time."""
    runs, wall = {}, {}
    for name, p in plan.items():
        arguments = (env, name, p.seeds, p.n_iterations, n_snapshots, p.phases, path_kernel, n_points, n_rows)
        runs[name] = kd.cached_kernel_dynamics(*arguments)
        wall[name] = kd.kernel_dynamics_wall_time_s(*arguments)
    return KernelDynamicsRuns(runs, wall)


def rows_text(n_rows: int | None) -> str:
    """The kernel rows in words: half training and half test inputs, or all of them (``None``)."""
    return ("all 500 training and 500 test inputs" if n_rows is None
            else f"{n_rows // 2} training and {n_rows - n_rows // 2} test inputs")


def run_texts(plan: dict, wall: dict[str, float], n_pairs: int, n_rows: int | None) -> dict[str, str]:
    """glue name -> text: each schedule's run size and wall time (``wall``: schedule -> s), their
    total in minutes, the networks per schedule and pairs, the kernel rows and the training
    agreement each run is checked to."""
    sizes = []
    for name, p in plan.items():
        nodes = node_count(p.phases)
        sizes.append(f"{name} {len(p.seeds)} pairs of {p.n_iterations} iterations, the kernel at {nodes} nodes per "
                     f"network ({p.n_iterations / nodes:.1f} iterations per node), computed in {wall[name]:.0f} s")
    return {"kd_run_sizes": "; ".join(sizes), "kd_wall_total": f"{sum(wall.values()) / 60:.1f} minutes",
            "kd_n_networks": f"{2 * n_pairs}", "kd_rows": rows_text(n_rows),
            "kd_training_agreement": f"{kd.TRAINING_AGREEMENT:g}", "kd_cross_pairs": f"{n_pairs}",
            "kd_n_pairs": f"{n_pairs}"}


class Validation(NamedTuple):
    """The validation runs of the first pair per schedule and what they show: ``checks`` (schedule ->
    :func:`~lib.experiments.kernel_dynamics.validation_runs`), ``reconstruction``
    (:func:`lib.book.entk_report.reconstruction_table`), ``first_order``
    (:class:`lib.book.entk_report.FirstOrderErrors` of the paper's every-step sum), ``check_length``
    (schedule -> iterations of the validation run), and the largest reconstruction errors of the
    every-step step-integrated sum (``worst_step``) and of the book's runs (``bulk_worst``)."""

    checks: dict[str, dict]
    reconstruction: pd.DataFrame
    first_order: report.FirstOrderErrors
    check_length: dict[str, int]
    worst_step: float
    bulk_worst: float


def validation(env: TaskEnvironment, plan: dict, runs: dict, path_kernel: str, n_points: int,
               check_rows: int) -> Validation:
    """The :class:`Validation` of ``runs``: each schedule's first pair trained again on ``check_rows``
    kernel rows (:func:`lib.experiments.kernel_dynamics.cached_validation_runs`)."""
    checks = {name: kd.cached_validation_runs(env, name, p.seeds[0], p.check_phases, p.check_iterations,
                                              p.check_snapshots, n_points, check_rows)
              for name, p in plan.items()}
    reconstruction = report.reconstruction_table(checks, runs, path_kernel)
    return Validation(checks, reconstruction, report.first_order_errors(checks),
                      {name: int(check["iterations"][-1]) for name, check in checks.items()},
                      report.largest_reconstruction_error(reconstruction, "step"),
                      report.largest_reconstruction_error(reconstruction, "bulk"))


class ConvergenceStudy(NamedTuple):
    """The paper's sum as the learning rate halves: ``runs`` (schedule ->
    :func:`~lib.experiments.kernel_dynamics.epntk_convergence`), ``table`` and ``slopes``
    (:func:`lib.book.entk_report.convergence_table`) and ``last_orders`` (the orders of the last
    halving, one per schedule, init and kind of input)."""

    runs: dict[str, dict]
    table: pd.DataFrame
    slopes: dict
    last_orders: np.ndarray


def convergence_study(env: TaskEnvironment, plan: dict, n_halvings: int, convergence_iterations: int,
                      check_rows: int) -> ConvergenceStudy:
    """The :class:`ConvergenceStudy` of each schedule's first pair
    (:func:`lib.experiments.kernel_dynamics.cached_convergence`)."""
    runs = {name: kd.cached_convergence(env, name, p.seeds[0], n_halvings, convergence_iterations, check_rows)
            for name, p in plan.items()}
    table, slopes = report.convergence_table(runs)
    return ConvergenceStudy(runs, table, slopes, np.array([v[1] for v in slopes.values()]))


def window_texts(runs: dict, window_threshold: float, index_set: str) -> dict[str, str]:
    """glue name -> text: the window threshold, the index set, and per schedule and init the alignment
    of the t=0 eNTK (snapshot 0 of ``alignment_final`` (P, 2 inits, S, index sets, outputs)) with the
    final ePNTK, mean over pairs and outputs; ValueError for an unknown ``index_set``."""
    if index_set not in ENTK_VARIANTS:
        raise ValueError(f"index_set must be one of {list(ENTK_VARIANTS)}, got {index_set!r}")
    which = ENTK_VARIANTS.index(index_set)
    return {"kd_threshold": f"{window_threshold:g}", "kd_index_set": index_set,
            **{f"kd_align_final_t0_{name}_{init}": f"{np.nanmean(run['alignment_final'][:, i, 0, which]):.2f}"
               for name, run in runs.items() for i, init in enumerate(INITS)}}


class Crossings(NamedTuple):
    """The threshold crossings of the window measures: ``table`` and ``times`` ((schedule, measure) ->
    (T thresholds, P pairs, 2 inits) iterations) of :func:`lib.analyses.attribution.crossing_table`,
    and ``dependence`` ((schedule, measure) -> :func:`lib.analyses.attribution.threshold_dependence`)."""

    table: pd.DataFrame
    times: dict
    dependence: dict


def crossings(runs: dict, index_set: str) -> Crossings:
    """The :class:`Crossings` of ``runs`` on the kernel rows of ``index_set``."""
    table, times = attribution.crossing_table(runs, index_set)
    return Crossings(table, times, {key: attribution.threshold_dependence(t) for key, t in times.items()})


def crossing_setup_texts(runs: dict) -> dict[str, str]:
    """glue name -> text: the thresholds of the crossing table and each schedule's snapshot spacing."""
    return {"kd_thresholds": ", ".join(f"{t:g}" for t in attribution.THRESHOLDS),
            "kd_spacing": " and ".join(f"{run['iterations'][1]} ({name})" for name, run in runs.items())}


def crossing_displays(table: pd.DataFrame) -> list:
    """What the page shows of :class:`Crossings`' table: per schedule and measure a bold heading
    (IPython ``Markdown``) and a table (threshold x init: each pair's first iteration below it)."""
    from IPython.display import Markdown

    shown = []
    for (name, measure), part in table.groupby(["schedule", "measure"], sort=False):  # one small table each
        by_threshold = part.set_index("init")[[f"{t:g}" for t in attribution.THRESHOLDS]].T.rename_axis("threshold")
        shown += [Markdown(f"**{name}, {measure}**"),
                  reading_table(by_threshold.rename_axis(columns=None),
                                f"{name}, {measure}: first iteration below each threshold, per pair", index=True)]
    return shown
