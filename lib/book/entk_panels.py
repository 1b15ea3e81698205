"""Chapter 08's figure data: the panels and curves its plotting functions
(:mod:`lib.book.plot_entk_over_training`, :mod:`lib.book.plot_attribution`) draw, read from the
cached runs.

Book layer. ``runs``: schedule -> :func:`~lib.experiments.kernel_dynamics.run_kernel_dynamics`
(arrays with leading axes (P pairs, 2 inits, S snapshots), then index sets, where they have them:
0 the training inputs ("principled"), 1 the test inputs ("authors")); ``checks``: schedule ->
:func:`~lib.experiments.kernel_dynamics.validation_runs`; ``convergence``: schedule ->
:func:`~lib.experiments.kernel_dynamics.epntk_convergence`. Checked in ``tests/test_entk_panels.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analyses import attribution
from ..analyses import kernel_analysis as ka
from ..core.entk_variants import ENTK_VARIANTS
from ..core.kernel_statistics import centered_cosine_similarity
from ..core.models import INITS
from ..core.tasks import TaskEnvironment
from ..experiments import kernel_dynamics as kd
from ..experiments.schedules import get_schedule
from . import entk_findings as findings
from .entk_report import VARIANTS

TEST_INPUTS = ENTK_VARIANTS.index("authors")  # the index set of the sharing and reconstruction figures
WINDOW_CURVES = {"alignment\neNTK(t), eNTK(0)": "alignment_initial",
                 "vector overlap\neNTK(t), eNTK(0)": "overlap_initial",
                 "alignment\neNTK(t), final ePNTK": "alignment_final",
                 "vector overlap\neNTK(t), final ePNTK": "overlap_final",
                 "alignment\nePNTK so far, eNTK(0)": "alignment_path_initial"}
CROSSING_TITLES = {"alignment of eNTK(t) with eNTK(0)": "eNTK(t) vs eNTK(0), alignment",
                   "overlap of leading vectors, eNTK(t) vs eNTK(0)": "eNTK(t) vs eNTK(0), vector overlap",
                   "alignment of the ePNTK so far with eNTK(0)": "ePNTK so far vs eNTK(0), alignment"}
SHARING_CATEGORIES = kd.SHARING_CATEGORIES  # the categories of training patterns, by their task's relation
ATTRIBUTION_CATEGORIES = (*kd.SHARING_CATEGORIES, attribution.OTHER_TASKS)
ATTRIBUTION_LABELS = [*kd.SHARING_CATEGORIES, "other tasks"]
SIMILARITY_PREDICTORS = {"final ePNTK": findings.EPNTK, "t=0 eNTK": findings.ENTK0}


def _index_set(index_set: str) -> int:
    if index_set not in ENTK_VARIANTS:
        raise ValueError(f"index_set must be one of {list(ENTK_VARIANTS)}, got {index_set!r}")
    return ENTK_VARIANTS.index(index_set)


def iterations_of(runs: dict) -> dict[str, np.ndarray]:
    """schedule -> its snapshot iterations (S,)."""
    return {name: run["iterations"] for name, run in runs.items()}


def run_ends(runs: dict) -> dict[str, int]:
    """schedule -> its last iteration."""
    return {name: run["iterations"][-1] for name, run in runs.items()}


def reconstruction_panels(checks: dict) -> dict[str, tuple]:
    """Panel title -> (iterations (S,), sum label -> its relative reconstruction error on the test
    inputs (2 inits, S)), one panel per schedule's validation run."""
    return {f"{name} (first {check['iterations'][-1]} iterations)": (
        check["iterations"], {label: check[f"reconstruction_error/{variant}"][:, :, TEST_INPUTS]
                              for variant, label in VARIANTS.items()})
        for name, check in checks.items()}


def convergence_panels(convergence: dict, convergence_iterations: int) -> dict[str, dict]:
    """Panel title (schedule and its learning rate x steps per init) -> curve label (init, inputs) ->
    (learning rates (H,), reconstruction errors (H,))."""
    lr_t = lambda name, init: get_schedule(name).learning_rate(init) * convergence_iterations  # noqa: E731
    return {f"{name}: lr x t = {lr_t(name, 'standard'):g} (standard), {lr_t(name, 'large'):g} (large)":
            {f"{init}, {set_name} inputs": (conv["learning_rate"][i], conv["reconstruction_error"][i, :, s])
             for i, init in enumerate(INITS) for s, set_name in enumerate(("training", "test"))}
            for name, conv in convergence.items()}


def window_curves(runs: dict, index_set: str) -> dict[str, dict[str, np.ndarray]]:
    """Measure title (:data:`WINDOW_CURVES`) -> schedule -> the similarity on the rows of
    ``index_set``, mean over outputs (P, 2 inits, S)."""
    which = _index_set(index_set)
    return {title: {name: run[key][:, :, :, which].mean(axis=-1) for name, run in runs.items()}
            for title, key in WINDOW_CURVES.items()}


def crossing_panels(crossing_times: dict, runs: dict) -> dict[str, tuple]:
    """Panel title ("schedule: measure") -> (schedule, crossing times (T thresholds, P pairs, 2 inits)),
    measures in the order of :data:`lib.analyses.attribution.WINDOW_MEASURES`, then schedules."""
    return {f"{name}: {CROSSING_TITLES[label]}": (name, crossing_times[(name, label)])
            for label in attribution.WINDOW_MEASURES for name in runs}


def sharing_curves(runs: dict) -> dict[str, np.ndarray]:
    """schedule -> each category's share of ``sum |C|`` on the test inputs (P, 2 inits, S, categories)."""
    return {name: run["sharing_abs"][:, :, :, TEST_INPUTS] for name, run in runs.items()}


def sharing_fractions(runs: dict) -> dict[str, np.ndarray]:
    """schedule -> each category's share of the (test pattern, training pattern) pairs (categories,),
    mean over pairs, inits and snapshots."""
    return {name: run["sharing_pattern_fraction"][:, :, TEST_INPUTS].mean(axis=(0, 1)) for name, run in runs.items()}


def signed_attribution_panels(shared: pd.DataFrame, schedules) -> dict[str, dict[str, np.ndarray]]:
    """schedule -> "signed" and "abs": (2 inits, categories, 3) each category's share (mean and 95%
    interval, :func:`lib.book.entk_findings.category_intervals`), and "fraction" (categories,) its
    share of the pairs; categories :data:`ATTRIBUTION_CATEGORIES`. ``shared``: the attribution
    table indexed by (schedule, init, training patterns)."""
    return {name: {kind: np.stack([findings.category_intervals(shared, name, init, kind, ATTRIBUTION_CATEGORIES)
                                   for init in INITS]) for kind in ("signed", "abs")}
            | {"fraction": shared.loc[[(name, INITS[0], c) for c in ATTRIBUTION_CATEGORIES], "_fraction"].to_numpy()}
            for name in schedules}


def cancellation_panels(runs: dict) -> dict[str, dict[str, np.ndarray]]:
    """schedule -> "by category" / "by training pattern" -> the cancellation factor on the test inputs
    (P, 2 inits, S)."""
    return {name: {"by category": run["cancellation"][:, :, :, TEST_INPUTS],
                   "by training pattern": run["cancellation_patterns"][:, :, :, TEST_INPUTS]}
            for name, run in runs.items()}


def rsa_curves(runs: dict, index_set: str) -> dict[str, dict]:
    """schedule -> :func:`lib.analyses.kernel_analysis.rsa_over_training` (training-pattern side)."""
    return {name: ka.rsa_over_training(run, index_set, "columns") for name, run in runs.items()}


def task_similarity_panels(run: dict, index_set: str, pair: int = 0) -> dict[str, np.ndarray]:
    """Panel title ("init: predictor") -> task x task similarity (cosine after centering over tasks)
    of one pair of ``run``: implied by the final ePNTK and the t=0 eNTK (training-pattern side), and
    of the trained hidden layer, per init."""
    which, panels = _index_set(index_set), {}
    for i, init in enumerate(INITS):
        for title, predictor in SIMILARITY_PREDICTORS.items():
            panels[f"{init}: {title}"] = centered_cosine_similarity(
                ka.predictor_features(run, predictor, index_set)[pair, i])
        panels[f"{init}: trained hidden layer"] = centered_cosine_similarity(run["hidden_final"][pair, i, which])
    return panels


def task_labels(env: TaskEnvironment) -> list[str]:
    """Each task as "index (input pool->output pool)"."""
    return [f"{k} ({env.task_in_pool(k)}->{env.task_out_pool(k)})" for k in range(env.n_tasks)]
