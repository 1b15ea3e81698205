"""Chapter 03's computations (lib.book.epntk_chapter) on inputs whose outcome is known: maps built
from the target's own modes, a data kernel of rank one along a mode's projection, and a short SMG run
whose ePNTK must reproduce the learned map."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.book import epntk_chapter as ec
from lib.experiments import smg


@pytest.fixture(scope="module")
def problem() -> smg.SMGProblem:
    return smg.make_smg_problem(0)


def test_recorded_index_finds_recorded_iterations_and_names_a_missing_one():
    from lib.book.smg_sections import recorded_index

    times = np.arange(0, 101, 10)
    assert recorded_index(times, [20, 100]) == {20: 2, 100: 10}
    with pytest.raises(ValueError, match=r"analysis_times must be recorded iterations .*got \[25\]"):
        recorded_index(times, [20, 25])


def test_map_errors_are_zero_for_an_exact_estimate_and_relative_otherwise():
    change = np.zeros((3, 2, 2))
    change[1], change[2] = np.eye(2), 2 * np.eye(2)
    frame = ec.map_error_frame(change, 1.1 * change, {10: 1, 20: 2})
    assert list(frame.index) == ["t = 10", "t = 20"]
    np.testing.assert_allclose(frame[ec.CHANGE_COLUMN], [np.sqrt(2), 2 * np.sqrt(2)])
    np.testing.assert_allclose(frame[ec.ERROR_COLUMN], [0.1, 0.1])
    assert ec.map_error_frame(change, change, {10: 1})[ec.ERROR_COLUMN].iloc[0] == 0
    shown = ec.map_error_shown(frame)
    assert shown.iloc[0].tolist() == ["1.41", "10.00%"]


def test_kernel_vectors_equal_to_permuted_modes_are_matched_to_them(problem):
    s = problem.singular_values
    in_order = problem.u_out @ np.diag(s) @ problem.v_in.T  # (n_out, n_in): the target itself
    swapped = problem.u_out[:, [1, 0, 2, 3]] @ np.diag(s) @ problem.v_in[:, [1, 0, 2, 3]].T  # modes 1, 2 swapped
    maps = {"eNTK": np.stack([in_order, swapped]), "ePNTK": np.stack([swapped, in_order])}
    found = ec.mode_matches(problem, maps, {5: 0, 9: 1}, [5, 9])
    modes, cosines = found.matches[("eNTK", 5)]
    np.testing.assert_array_equal(modes, [0, 1, 2, 3])
    np.testing.assert_allclose(cosines, 1.0)
    np.testing.assert_array_equal(found.matches[("eNTK", 9)][0], [1, 0, 2, 3])  # the top vector is mode 2
    np.testing.assert_allclose(found.panels["ePNTK, t = 9"], 0.0, atol=1e-12)  # a vector equal to its mode
    assert found.labels["eNTK, t = 5"][0] == "1→1\n(1.00)"
    table = ec.match_table(found.matches, 4)
    assert table.loc["kernel vector 2", "eNTK, t = 5"] == "mode 2 (|cos| 1.00)"
    assert list(table.columns) == ["eNTK, t = 5", "ePNTK, t = 5", "eNTK, t = 9", "ePNTK, t = 9"]


def test_a_data_kernel_along_one_mode_projection_correlates_with_that_mode_only(problem):
    n_out = problem.y.shape[1]
    along = np.outer(problem.v_in[:, 1], problem.input_projections[:, 1]) / n_out  # (n_in, P) summed over outputs
    path_basis = np.broadcast_to(along, (2, n_out, *along.shape))  # (S, n_out, n_in, P)
    fig12 = ec.fig12_correlations(problem, path_basis, {7: 1}, [7])
    assert fig12.table.loc["t=7, singular vector 1", "mode 2"] == 1.0
    assert fig12.table.loc["t=7, singular vector 1", ["mode 1", "mode 3"]].max() < 0.2
    assert fig12.vectors[7].shape == (problem.x.shape[0], 2)
    assert fig12.title(7) == f"t=7: ePNTK 1st vector vs mode 1, |r|={fig12.first_r(7):.3f}"


def test_map_singular_values_are_those_of_each_snapshot(problem):
    maps = np.stack([problem.w_target, 2 * problem.w_target])
    np.testing.assert_allclose(ec.map_singular_values(maps), [problem.singular_values, 2 * problem.singular_values])


def test_convergence_texts_and_shown_table():
    frame = pd.DataFrame({"learning rate": [0.2, 0.1], "iterations": [10, 20], "map_error": [0.02, 0.01],
                          "output_error": [0.04, 0.02]})
    convergence = ec.Convergence(frame, 1.0)
    assert list(convergence.curves()) == ["y(t) - y(0)", "W(t) - W(0)"]
    np.testing.assert_allclose(convergence.curves()["W(t) - W(0)"], [0.02, 0.01])
    shown = ec.convergence_shown(frame)
    assert shown.iloc[0].tolist() == ["0.2000", 10, "2.000%", "4.000%"]
    assert list(shown.columns)[2:] == ["relative error, W estimate", "relative error, y(t) - y(0)"]
    with pytest.raises(ValueError, match="n_halvings must be an integer >= 2"):
        ec.step_size_convergence(0, 0.2, 100, 1)


def test_a_short_run_s_epntk_reproduces_its_map_and_feeds_the_claims(problem, results_tmp):
    path = ec.smg_epntk_path(0, 0.2, 200, 10, [50, 100])
    assert set(path.index) == {50, 100, 200} and path.index[100] == 10
    errors = ec.map_error_frame(path.map_change, path.map_estimate, path.index)
    assert errors[ec.ERROR_COLUMN].max() < 0.05  # first order in a small step: close, not exact
    convergence = ec.step_size_convergence(0, 0.2, 100, 2)
    assert 0.5 < convergence.slope < 1.5
    singular_values = ec.map_singular_values(path.map_estimate)
    texts = ec.epntk_texts(errors, path.problem, singular_values, convergence)
    assert texts["epntk_map_error_t2"] == f"{errors.iloc[1, 1]:.2%}" and texts["epntk_target_sv"] == "90, 24, 7, 1"
    fig11, fig12 = ec.fig11_matches(path, [50, 100]), ec.fig12_correlations(problem, path.path_basis, path.index,
                                                                            [50, 100])
    measures = ec.epntk_measures(path, [50, 100], errors, convergence, fig11, fig12, singular_values)
    assert measures.analysis_times == (50, 100) and measures.map_error == errors.iloc[1, 1]
    assert measures.fig12_r == (fig12.first_r(50), fig12.first_r(100))
    assert measures.singular_value_half.shape == measures.mode_half.shape == (2,)
