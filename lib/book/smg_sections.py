"""Chapter 02's sections, one call each: the runs, the half-time table, the seed sweep, the eNTK's
one-step map change at the analysis times, the vectors' switch times, Fig 3's data x data view and
the plain NTK, with the tables and the glued texts the page shows.

Book layer. Every number comes from :mod:`lib.experiments.smg`; this module assembles what the
chapter shows (tables with their reader labels, texts by glue name) and the measurements its claims
read (:func:`chapter_measures`, judged in :mod:`lib.book.smg_report`). Checked in
``tests/test_smg_sections.py``.

Times are iterations of gradient descent; T recorded times, modes numbered from 1 (the largest);
NaN marks a mode not half learned, or a vector that never settles, within the run.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..experiments import smg
from .smg_report import SmgMeasures

N_TABLE_MODES = 3  # the modes whose half-times the tables show (mode 4 is not learned within a run)
MODE_ROWS = [f"mode {a + 1}" for a in range(N_TABLE_MODES)]


class SmgRuns(NamedTuple):
    """One seed's problem, its random small-init run and the run's aligned twin."""

    problem: smg.SMGProblem
    run: smg.SMGRun  # the authors' random small init
    aligned: smg.SMGRun  # the same effective initial strengths placed on the target's modes
    tau: float  # SMG's time constant, iterations
    analysis_indices: tuple[int, int]  # the indices of the two analysis times in run.times


def smg_runs(seed: int, learning_rate: float, n_iterations: int, record_every: int, analysis_times) -> SmgRuns:
    """The chapter's two cached runs (:func:`lib.experiments.smg.cached_run`) and where the two
    ``analysis_times`` (iterations) lie among the recorded times; ValueError naming
    ``analysis_times`` when one is not recorded."""
    problem, run = smg.cached_run(seed, learning_rate, n_iterations, record_every, init="random")
    _, aligned = smg.cached_run(seed, learning_rate, n_iterations, record_every, init="aligned")
    tau = smg.time_constant(problem.x.shape[0], problem.y.shape[1], learning_rate)
    return SmgRuns(problem, run, aligned, tau, recorded_indices(run.times, analysis_times))


def recorded_index(times: np.ndarray, wanted, name: str = "analysis_times") -> dict[int, int]:
    """iteration -> its index in a run's recorded ``times`` (S,), for each of ``wanted``; ValueError
    naming the parameter ``name`` and the iterations that were not recorded."""
    missing = [t for t in wanted if not np.any(times == t)]
    if missing:
        raise ValueError(f"{name} must be recorded iterations (multiples of the recording interval), got {missing} "
                         "not recorded")
    return {t: int(np.flatnonzero(times == t)[0]) for t in wanted}


def recorded_indices(times: np.ndarray, analysis_times) -> tuple[int, int]:
    """The index in ``times`` (T,) of each of the two ``analysis_times``."""
    if len(analysis_times) != 2:
        raise ValueError(f"analysis_times must be two recorded iterations, got {list(analysis_times)}")
    index = recorded_index(times, analysis_times)
    return index[analysis_times[0]], index[analysis_times[1]]


def setup_texts(runs: SmgRuns) -> dict[str, str]:
    """SMG's time constant (iterations) and the target's singular values."""
    return {"smg_tau": f"{runs.tau:.0f}",
            "smg_target_sv": ", ".join(f"{v:g}" for v in runs.problem.singular_values)}


class HalfTimes(NamedTuple):
    """Per mode (rows 1-3): iterations to half strength, closed form against the two simulations."""

    table: pd.DataFrame  # half-times and the simulations' relative differences from the closed form
    aligned_error: float  # largest |aligned twin / closed form - 1| over the modes
    random_init: np.ndarray  # (3,) the random init's half-times (the chapter's seed)


def relative_text(relative: float) -> str:
    """A relative difference as a signed percentage, "not reached" for NaN."""
    return "not reached" if np.isnan(relative) else f"{relative:+.1%}"


def half_time_table(runs: SmgRuns) -> HalfTimes:
    """The :class:`HalfTimes` of the closed form (:func:`lib.experiments.smg.closed_form_half_times`),
    the aligned twin and the random init, with each simulation relative to the closed form."""
    random_init = smg.half_times(runs.problem, runs.run)
    half = pd.DataFrame({"closed form": smg.closed_form_half_times(runs.problem, runs.run),
                         "aligned twin": smg.half_times(runs.problem, runs.aligned),
                         "random init (paper setting)": random_init}, index=MODE_ROWS)
    for column, name in (("aligned vs closed form", "aligned twin"),
                         ("random vs closed form", "random init (paper setting)")):
        half[column] = (half[name] / half["closed form"] - 1).map(relative_text)
    return HalfTimes(half, float(np.max(np.abs(half["aligned twin"] / half["closed form"] - 1))), random_init)


def half_time_texts(half: HalfTimes) -> dict[str, str]:
    """The aligned twin's largest error, and the random init's half-times of modes 1 and 2."""
    return {"smg_aligned_max_error": f"{half.aligned_error:.1%}", "smg_half_mode1": f"{half.random_init[0]:.0f}",
            "smg_half_mode2": f"{half.random_init[1]:.0f}"}


class SeedSweep(NamedTuple):
    """Half-times over random draws (:func:`lib.experiments.smg.half_time_sweep`)."""

    half_times: dict  # "random" / "aligned" / "closed_form" -> (S, 3) half-times; "seeds" -> (S,)
    twin_errors: np.ndarray  # (S, 3) |aligned twin / closed form - 1|
    largest_twin_error: float  # the largest of them, NaN ignored


def seed_sweep(n_seeds: int, learning_rate: float, n_iterations: int) -> SeedSweep:
    """The :class:`SeedSweep` of seeds 0 ... ``n_seeds`` - 1."""
    sweep = smg.half_time_sweep(list(range(n_seeds)), learning_rate, n_iterations)
    twin_errors = np.abs(sweep["aligned"] / sweep["closed_form"] - 1)
    return SeedSweep(sweep, twin_errors, float(np.nanmax(twin_errors)))


def mode_match_text(best_mode: tuple, analysis_times) -> str:
    """"mode a at t = t1 and mode b at t = t2": the best-matching mode at each analysis time."""
    (a, b), (t1, t2) = best_mode, analysis_times
    return f"mode {a} at t = {t1} and mode {b} at t = {t2}"


def best_modes(overlaps: np.ndarray, indices) -> tuple[int, ...]:
    """The mode (from 1) the primary vector best matches at each recorded index; ``overlaps``
    (T, vectors, modes) ``|cos|``."""
    return tuple(int(np.argmax(overlaps[i, 0])) + 1 for i in indices)


class OneStep(NamedTuple):
    """The input-side singular vectors of the eNTK-predicted one-step change of W over training."""

    overlaps: np.ndarray  # (T, vectors, modes) |cos| of each vector with each target mode
    table: pd.DataFrame  # the first two vectors at the two analysis times, rounded to 3 digits
    best_mode: tuple[int, int]  # the primary vector's best mode at each analysis time


def one_step_overlaps(runs: SmgRuns, analysis_times) -> OneStep:
    """The :class:`OneStep` of the runs' random init (:func:`lib.experiments.smg.entk_predicted_map_change`)."""
    predicted = smg.entk_predicted_map_change(runs.problem, runs.run)
    vectors, _ = smg.input_singular_vectors(predicted)
    overlaps = smg.mode_overlaps(vectors, runs.problem)
    (i1, i2), (t1, t2) = runs.analysis_indices, analysis_times
    table = pd.DataFrame(np.concatenate([overlaps[i1, :2], overlaps[i2, :2]]),
                         index=[f"t={t1}, 1st vector", f"t={t1}, 2nd vector", f"t={t2}, 1st vector",
                                f"t={t2}, 2nd vector"],
                         columns=[f"mode {a + 1}" for a in range(overlaps.shape[2])]).round(3)
    return OneStep(overlaps, table, best_modes(overlaps, runs.analysis_indices))


def one_step_texts(one_step: OneStep, analysis_times) -> dict[str, str]:
    """The mode the eNTK's top vector of the one-step map change matches at each analysis time."""
    return {"smg_entk_match": mode_match_text(one_step.best_mode, analysis_times)}


class Switches(NamedTuple):
    """When the eNTK's primary and secondary vectors settle on each mode (iterations, NaN: never)."""

    primary: np.ndarray  # (modes,)
    secondary: np.ndarray  # (modes,)
    own_half: np.ndarray  # (3,) this run's half-time of each mode's strength
    secondary_leaves_2: float  # when the secondary vector leaves mode 2
    table: pd.DataFrame  # per mode 1-3: both settling times and the half-time, rounded to iterations


def switch_times(runs: SmgRuns, overlaps: np.ndarray, half: HalfTimes) -> Switches:
    """The :class:`Switches` of the one-step ``overlaps`` (T, vectors, modes) of :func:`one_step_overlaps`,
    beside this run's half-times (``half``: :func:`half_time_table` of the same runs)."""
    times = runs.run.times
    primary, secondary = smg.switch_times(times, overlaps[:, 0]), smg.switch_times(times, overlaps[:, 1])
    own_half = half.random_init
    table = pd.DataFrame({"primary settles on the mode": primary[:N_TABLE_MODES],
                          "secondary settles on the mode": secondary[:N_TABLE_MODES],
                          "mode half-learned (half-time)": own_half}, index=MODE_ROWS).round(0)
    return Switches(primary, secondary, own_half, smg.leave_time(times, overlaps[:, 1], 1), table)


def switch_texts(s: Switches) -> dict[str, str]:
    """When the primary settles on mode 2, the secondary on mode 3 ("never" if it does not) and
    leaves mode 2, and mode 2's half-time."""
    return {"switch_primary_2": f"{s.primary[1]:.0f}",
            "switch_secondary_3": "never" if np.isnan(s.secondary[2]) else f"{s.secondary[2]:.0f}",
            "switch_half_2": f"{s.own_half[1]:.0f}", "switch_secondary_leaves_2": f"{s.secondary_leaves_2:.0f}"}


class DataView(NamedTuple):
    """Paper Fig 3: the output-summed data x data eNTK's left singular vectors at the analysis times."""

    table: pd.DataFrame  # rows "t=<t>, singular vector <k>", columns modes: |r| with the input projections (3 digits)
    vectors: dict  # analysis time -> (N, 2) the first two left singular vectors


def data_view(runs: SmgRuns, analysis_times) -> DataView:
    """The :class:`DataView` of the random init (:func:`lib.experiments.smg.output_vectors_vs_modes`)."""
    rows, vectors = smg.output_vectors_vs_modes(runs.problem, runs.run, analysis_times)
    n_modes = runs.problem.input_projections.shape[1]
    return DataView(pd.DataFrame(rows, index=[f"mode {a + 1}" for a in range(n_modes)]).T.round(3), vectors)


class NtkView(NamedTuple):
    """The plain NTK at the basis inputs, summed over outputs, over training."""

    overlaps: np.ndarray  # (T, 4, modes) |cos| of its singular vectors with each target mode
    values: np.ndarray  # (T, 4) its singular values
    best_mode: tuple[int, int]  # its primary vector's best mode at each analysis time
    mode1_share: float  # share of recorded times at which that is mode 1


def ntk_view(runs: SmgRuns) -> NtkView:
    """The :class:`NtkView` of the random init (:func:`lib.experiments.smg.ntk_input_operator`)."""
    vectors, values, _ = np.linalg.svd(smg.ntk_input_operator(runs.problem, runs.run))
    overlaps = smg.mode_overlaps(vectors, runs.problem)
    return NtkView(overlaps, values, best_modes(overlaps, runs.analysis_indices),
                   float((overlaps[:, 0].argmax(axis=1) == 0).mean()))


def ntk_texts(ntk: NtkView, analysis_times) -> dict[str, str]:
    """The plain NTK's best mode at the analysis times and its share of times on mode 1."""
    return {"ntk_mode1_share": f"{ntk.mode1_share:.0%}", "ntk_match": mode_match_text(ntk.best_mode, analysis_times)}


def chapter_measures(analysis_times, sweep: SeedSweep, one_step: OneStep, switches: Switches, data: DataView,
                     ntk: NtkView) -> SmgMeasures:
    """What chapter 02's claims read (:class:`lib.book.smg_report.SmgMeasures`), from its sections."""
    return SmgMeasures(tuple(analysis_times), switches.own_half, sweep.half_times["random"], sweep.twin_errors,
                       data.table.to_numpy(), one_step.best_mode, switches.primary, switches.secondary,
                       switches.secondary_leaves_2, ntk.mode1_share)
