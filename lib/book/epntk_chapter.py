"""Chapter 03's computations: the ePNTK of the deep linear (SMG) network read at the paper's two
analysis times, as the tables, figure panels and texts the chapter shows (paper Figs 11-13, App A.3).

Book layer. :func:`smg_epntk_path` reads the ePNTK and the recorded run of the same trajectory from
the results cache (:mod:`lib.experiments.smg`); the other functions turn them into what the page
shows, and :func:`epntk_measures` into :class:`lib.book.epntk_report.EpntkMeasures`, which
:mod:`lib.book.epntk_report` judges. Checked in ``tests/test_epntk_chapter.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses.entk_vectors import loglog_slope
from ..experiments import smg
from .smg_sections import recorded_index
from .epntk_report import EpntkMeasures

CHANGE_COLUMN, ERROR_COLUMN = "||W(t) - W(0)||", "relative error of the ePNTK estimate"
KERNELS = ("eNTK", "ePNTK")  # the kernels of paper Fig 11: what is being learned, what has been learned
FIG13_LABELS = tuple(f"singular value {k + 1}" for k in range(3))  # paper Fig 13 shows the three largest


class SmgEpntkPath(NamedTuple):
    """The ePNTK of one SMG run and the run itself: ``problem`` (:class:`lib.experiments.smg.SMGProblem`),
    ``run`` (:class:`lib.experiments.smg.SMGRun`, times (S,)), ``path_basis`` (S, n_out, n_in, P) the
    ePNTK at the basis inputs, ``index`` (recorded iteration -> snapshot index, for the analysis
    times and the end), ``map_change`` (S, n_out, n_in) the true W(t) - W(0) and ``map_estimate``
    (S, n_out, n_in) the ePNTK's estimate of it (summed over the training points)."""

    problem: smg.SMGProblem
    run: smg.SMGRun
    path_basis: np.ndarray
    index: dict[int, int]
    map_change: np.ndarray
    map_estimate: np.ndarray


def smg_epntk_path(seed: int, learning_rate: float, n_iterations: int, record_every: int,
                   analysis_times: Sequence[int]) -> SmgEpntkPath:
    """The :class:`SmgEpntkPath` of the SMG problem of ``seed`` trained for ``n_iterations`` at
    ``learning_rate``, recorded every ``record_every`` iterations (the ePNTK and the run through the
    results cache)."""
    problem, path = smg.cached_epntk(seed, learning_rate, n_iterations, record_every)
    _, run = smg.cached_run(seed, learning_rate, n_iterations, record_every)  # the same trajectory, recorded
    maps = smg.end_to_end_maps(run)
    return SmgEpntkPath(problem, run, path["path_basis"], recorded_index(run.times, (*analysis_times, n_iterations)),
                        maps - maps[0], path["path_basis"].sum(axis=3))


def relative_error(estimate: np.ndarray, truth: np.ndarray) -> float:
    """||estimate - truth|| / ||truth|| (Frobenius norms of arrays of one shape)."""
    return np.linalg.norm(estimate - truth) / np.linalg.norm(truth)


def map_error_frame(map_change: np.ndarray, map_estimate: np.ndarray, index: dict[int, int]) -> pd.DataFrame:
    """One row per iteration of ``index`` (iteration -> snapshot): the size of the true map change
    (``map_change`` (S, n_out, n_in)) and the relative error of ``map_estimate`` (same shape)."""
    return pd.DataFrame({CHANGE_COLUMN: [np.linalg.norm(map_change[i]) for i in index.values()],
                         ERROR_COLUMN: [relative_error(map_estimate[i], map_change[i]) for i in index.values()]},
                        index=[f"t = {t}" for t in index])


def map_error_shown(map_errors: pd.DataFrame) -> pd.DataFrame:
    """:func:`map_error_frame` as the page shows it: the size to 2 decimals, the error in percent."""
    return map_errors.assign(**{CHANGE_COLUMN: map_errors[CHANGE_COLUMN].map("{:.2f}".format),
                                ERROR_COLUMN: map_errors[ERROR_COLUMN].map("{:.2%}".format)})


class ModeMatches(NamedTuple):
    """Paper Fig 11: per panel title ("eNTK, t = 190", ...), ``panels`` (n_in, r) the entrywise
    ``||v_target| - |v_kernel||`` of each kernel vector and the target mode it is matched to,
    ``labels`` (r,) its column labels, and ``matches`` ((kernel, time) -> (each kernel vector's
    closest mode, 0-based (r,), its ``|cos|`` (r,)))."""

    panels: dict[str, np.ndarray]
    labels: dict[str, list[str]]
    matches: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]]


def mode_matches(problem: smg.SMGProblem, maps_of: dict[str, np.ndarray], index: dict[int, int],
                 analysis_times: Sequence[int]) -> ModeMatches:
    """:class:`ModeMatches` of the input-side singular vectors of each kernel's map change
    (``maps_of``: kernel name -> (S, n_out, n_in)) at the ``analysis_times``, each vector matched
    to the target mode of largest ``|cos|``."""
    panels, labels, matches = {}, {}, {}
    for t in analysis_times:
        for name, maps in maps_of.items():
            vectors, _ = smg.input_singular_vectors(maps[index[t]][None])
            cosines = smg.mode_overlaps(vectors, problem)[0]  # (kernel vector, mode) |cos|
            matched = cosines.argmax(axis=1)
            title = f"{name}, t = {t}"
            panels[title] = np.abs(np.abs(problem.v_in[:, matched]) - np.abs(vectors[0]))
            labels[title] = [f"{j + 1}→{a + 1}\n({cosines[j, a]:.2f})" for j, a in enumerate(matched)]
            matches[(name, t)] = (matched, cosines[np.arange(len(matched)), matched])
    return ModeMatches(panels, labels, matches)


def fig11_matches(path: SmgEpntkPath, analysis_times: Sequence[int]) -> ModeMatches:
    """:func:`mode_matches` of the eNTK's one-step map change and the ePNTK's accumulated one."""
    entk_change = smg.entk_predicted_map_change(path.problem, path.run)
    return mode_matches(path.problem, dict(zip(KERNELS, (entk_change, path.map_estimate))), path.index,
                        analysis_times)


def match_table(matches: dict, n_vectors: int) -> pd.DataFrame:
    """One row per kernel singular vector, one column per (kernel, time) of ``matches``
    (:class:`ModeMatches`): its closest target mode and the ``|cos|``."""
    return pd.DataFrame({f"{name}, t = {t}": [f"mode {a + 1} (|cos| {c:.2f})" for a, c in zip(*matches[(name, t)])]
                         for name, t in matches}, index=[f"kernel vector {j + 1}" for j in range(n_vectors)])


class Fig12(NamedTuple):
    """Paper Fig 12: ``table`` (rows "t=T, singular vector k" for k = 1, 2; columns "mode a") the
    ``|r|`` of the output-summed data ePNTK's left singular vectors with each mode's input
    projection, rounded to 3 decimals, and ``vectors`` (time -> (P, 2) the first two vectors)."""

    table: pd.DataFrame
    vectors: dict[int, np.ndarray]

    def first_r(self, t: int) -> float:
        """``|r|`` of the first vector with the mode-1 projection at iteration ``t`` (as rounded)."""
        return self.table.loc[f"t={t}, singular vector 1", "mode 1"]

    def title(self, t: int) -> str:
        """The Fig 12 panel title of iteration ``t``."""
        return f"t={t}: ePNTK 1st vector vs mode 1, |r|={self.first_r(t):.3f}"


def fig12_correlations(problem: smg.SMGProblem, path_basis: np.ndarray, index: dict[int, int],
                       analysis_times: Sequence[int]) -> Fig12:
    """:class:`Fig12` of the data-by-data ePNTK ``x @ sum_k P_k(e_i, x_m)`` (P, P) at the analysis
    times (``path_basis`` (S, n_out, n_in, P))."""
    projections = problem.input_projections
    rows, vectors = {}, {}
    for t in analysis_times:
        data_kernel = problem.x @ path_basis[index[t]].sum(axis=0)  # (P, P)
        left, _, _ = np.linalg.svd(data_kernel)
        vectors[t] = left[:, :2]
        for k in range(2):
            rows[f"t={t}, singular vector {k + 1}"] = [abs(np.corrcoef(left[:, k], projections[:, a])[0, 1])
                                                       for a in range(projections.shape[1])]
    return Fig12(pd.DataFrame(rows, index=[f"mode {a + 1}" for a in range(projections.shape[1])]).T.round(3), vectors)


def map_singular_values(map_estimate: np.ndarray) -> np.ndarray:
    """(S, r) singular values of the ePNTK's map estimate (S, n_out, n_in) at every snapshot."""
    return smg.input_singular_vectors(map_estimate)[1]


class Convergence(NamedTuple):
    """The ePNTK's reconstruction errors against the learning rate at fixed lr x steps: ``frame``
    (columns "learning rate", "iterations", "map_error", "output_error"; one row per rate, the
    largest first) and ``slope``, the fitted log-log order of the output error."""

    frame: pd.DataFrame
    slope: float

    def curves(self) -> dict[str, pd.Series]:
        """The convergence figure's curves: label -> the relative errors, one per learning rate."""
        return {"y(t) - y(0)": self.frame["output_error"], "W(t) - W(0)": self.frame["map_error"]}


def step_size_convergence(seed: int, learning_rate: float, total_iterations: int, n_halvings: int) -> Convergence:
    """:class:`Convergence` of the ePNTK of the SMG problem of ``seed`` over ``n_halvings`` learning
    rates halved from ``learning_rate``, the steps doubled so that lr x steps stays at
    ``learning_rate * total_iterations`` (through the results cache)."""
    if not isinstance(n_halvings, int) or n_halvings < 2:
        raise ValueError(f"n_halvings must be an integer >= 2 (a slope needs two learning rates), got {n_halvings!r}")
    rates = learning_rate * 2.0 ** -np.arange(n_halvings)
    frame = pd.DataFrame(smg.cached_epntk_convergence(seed, rates, learning_rate * total_iterations)).rename(
        columns={"learning_rate": "learning rate"})
    return Convergence(frame, loglog_slope(frame["learning rate"], frame["output_error"]))


def convergence_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """:class:`Convergence`'s frame as the page shows it: rates to 4 decimals, errors in percent, the
    error columns named in words."""
    return (frame.assign(**{"learning rate": frame["learning rate"].map("{:.4f}".format),
                            "map_error": frame["map_error"].map("{:.3%}".format),
                            "output_error": frame["output_error"].map("{:.3%}".format)})
            .rename(columns={"map_error": "relative error, W estimate", "output_error": "relative error, y(t) - y(0)"}))


def epntk_texts(map_errors: pd.DataFrame, problem: smg.SMGProblem, singular_values: np.ndarray,
                convergence: Convergence) -> dict[str, str]:
    """glue name -> text: the map estimate's error at the second analysis time (second row of
    ``map_errors``), the target's singular values and the map estimate's at the end
    (``singular_values`` (S, r)), the reconstruction error at the paper's step and its order."""
    return {"epntk_map_error_t2": f"{map_errors.iloc[1, 1]:.2%}",
            "epntk_target_sv": ", ".join(f"{v:g}" for v in problem.singular_values),
            "epntk_map_sv_end": ", ".join(f"{v:.2f}" for v in singular_values[-1]),
            "epntk_slope": f"{convergence.slope:.2f}",
            "epntk_output_error": f"{convergence.frame['output_error'].iloc[0]:.2%}"}


def epntk_measures(path: SmgEpntkPath, analysis_times: Sequence[int], map_errors: pd.DataFrame,
                   convergence: Convergence, fig11: ModeMatches, fig12: Fig12,
                   singular_values: np.ndarray) -> EpntkMeasures:
    """What chapter 03's claims read (:class:`lib.book.epntk_report.EpntkMeasures`), with the
    iterations at which the map estimate's first two singular values (``singular_values`` (S, r))
    and the first two mode strengths of W(t) reach half the target's."""
    problem, times = path.problem, path.run.times
    sv_half = np.array([smg.crossing_time(times, singular_values[:, a], problem.singular_values[a] / 2)
                        for a in range(2)])
    return EpntkMeasures(tuple(analysis_times), map_errors.iloc[1, 1], convergence.slope,
                         convergence.frame["output_error"].iloc[0], fig11.matches,
                         tuple(fig12.first_r(t) for t in analysis_times), sv_half,
                         smg.half_times(problem, path.run, n_modes=2))
