"""Chapter 02's sections (lib.book.smg_sections): on the chapter's own deep linear network (seed 0,
2500 iterations, cached in the session's results folder, a second to compute), where the paper's
outcome is known, and on hand-built overlaps and half-times."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.book import smg_sections as ss

NAN = float("nan")
TIMES = (190, 770)


@pytest.fixture(scope="module")
def runs():
    return ss.smg_runs(0, 0.2, 2500, 10, TIMES)


def test_runs_find_the_analysis_times_and_refuse_one_not_recorded(runs):
    assert runs.run.times[list(runs.analysis_indices)].tolist() == [190, 770]
    assert ss.setup_texts(runs) == {"smg_tau": "3125", "smg_target_sv": "90, 24, 7, 1"}  # tau = 250 * 5 / (2 * 0.2)
    with pytest.raises(ValueError, match=r"analysis_times must be recorded iterations .*got \[15\] not recorded"):
        ss.recorded_indices(np.arange(0, 100, 10), [15, 50])
    with pytest.raises(ValueError, match="analysis_times"):
        ss.recorded_indices(np.arange(0, 100, 10), [10, 20, 30])


def test_half_time_table_sets_the_twin_against_the_closed_form(runs):
    half = ss.half_time_table(runs)
    table = half.table
    assert list(table.index) == ["mode 1", "mode 2", "mode 3"]
    assert half.aligned_error < 0.10  # the twin is what the closed form solves
    assert half.aligned_error == pytest.approx(np.max(np.abs(table["aligned twin"] / table["closed form"] - 1)))
    assert table.loc["mode 3", "random vs closed form"] == "not reached"  # mode 3 needs more than 2500 iterations
    assert table.loc["mode 2", "random vs closed form"].startswith("+")  # the random start lags the closed form
    texts = ss.half_time_texts(half)
    assert texts["smg_half_mode1"] == f"{table.iloc[0, 2]:.0f}"
    assert texts["smg_half_mode2"] == f"{half.random_init[1]:.0f}"


def test_relative_text_signs_a_percentage_and_names_a_mode_not_reached():
    assert (ss.relative_text(0.0514), ss.relative_text(-0.2), ss.relative_text(NAN)) == ("+5.1%", "-20.0%",
                                                                                          "not reached")


def test_seed_sweep_takes_the_largest_twin_error_over_what_is_reached(monkeypatch):
    fake = {"seeds": np.arange(2), "random": np.full((2, 3), 300.0), "closed_form": np.full((2, 3), 100.0),
            "aligned": np.array([[105.0, 90.0, NAN], [100.0, 100.0, 120.0]])}
    monkeypatch.setattr(ss.smg, "half_time_sweep", lambda seeds, lr, n: fake | {"seeds": np.asarray(seeds)})
    sweep = ss.seed_sweep(2, 0.2, 2500)
    assert sweep.largest_twin_error == pytest.approx(0.2) and np.isnan(sweep.twin_errors[0, 2])
    assert sweep.half_times["seeds"].tolist() == [0, 1]


def test_the_one_step_change_points_at_mode_1_then_mode_2(runs):
    one_step = ss.one_step_overlaps(runs, TIMES)
    assert one_step.best_mode == (1, 2)  # the paper's reading, on the chapter's seed
    assert list(one_step.table.index) == ["t=190, 1st vector", "t=190, 2nd vector", "t=770, 1st vector",
                                          "t=770, 2nd vector"]
    assert one_step.table.iloc[0, 0] == round(float(one_step.overlaps[runs.analysis_indices[0], 0, 0]), 3)
    assert ss.one_step_texts(one_step, TIMES) == {"smg_entk_match": "mode 1 at t = 190 and mode 2 at t = 770"}


def test_best_modes_reads_the_primary_vector_at_each_index():
    overlaps = np.zeros((3, 2, 4))
    overlaps[0, 0, 2] = overlaps[2, 0, 1] = 1.0
    overlaps[2, 1, 3] = 5.0  # the secondary vector does not count
    assert ss.best_modes(overlaps, (0, 2)) == (3, 2)


def test_switch_texts_say_never_for_a_vector_that_does_not_settle(runs):
    one_step = ss.one_step_overlaps(runs, TIMES)
    switches = ss.switch_times(runs, one_step.overlaps, ss.half_time_table(runs))
    assert switches.primary[0] < switches.primary[1]  # primary: mode 1 first, then mode 2
    own_half = ss.half_time_table(runs).random_init
    assert switches.table.shape == (3, 3) and np.array_equal(switches.own_half, own_half, equal_nan=True)
    texts = ss.switch_texts(switches._replace(secondary=np.array([10.0, 20.0, NAN, NAN])))
    assert texts["switch_secondary_3"] == "never" and texts["switch_primary_2"] == f"{switches.primary[1]:.0f}"


def test_data_view_and_the_plain_ntk(runs):
    data = ss.data_view(runs, TIMES)
    assert list(data.table.index) == ["t=190, singular vector 1", "t=190, singular vector 2",
                                      "t=770, singular vector 1", "t=770, singular vector 2"]
    assert data.table.iloc[0, 0] > 0.9 and data.vectors[770].shape == (250, 2)  # vector 1 tracks mode 1 at t=190
    ntk = ss.ntk_view(runs)
    assert ntk.values.shape == (len(runs.run.times), 4) and np.all(np.diff(ntk.values, axis=1) <= 0)
    assert ntk.mode1_share == pytest.approx(np.mean(ntk.overlaps[:, 0].argmax(axis=1) == 0))
    texts = ss.ntk_texts(ntk._replace(mode1_share=0.876, best_mode=(1, 1)), TIMES)
    assert texts == {"ntk_mode1_share": "88%", "ntk_match": "mode 1 at t = 190 and mode 1 at t = 770"}


def test_chapter_measures_take_each_field_from_its_section():
    sweep = ss.SeedSweep({"random": np.ones((4, 3))}, np.full((4, 3), 0.01), 0.01)
    one_step = ss.OneStep(np.zeros((5, 4, 4)), pd.DataFrame(), (1, 2))
    switches = ss.Switches(np.array([1.0, 2.0, 3.0, NAN]), np.array([4.0, 5.0, 6.0, NAN]),
                           np.array([7.0, 8.0, 9.0]), 10.0, pd.DataFrame())
    data = ss.DataView(pd.DataFrame(np.eye(4)), {})
    ntk = ss.NtkView(np.zeros((5, 4, 4)), np.zeros((5, 4)), (1, 1), 0.75)
    m = ss.chapter_measures([190, 770], sweep, one_step, switches, data, ntk)
    assert m.analysis_times == (190, 770) and m.best_mode == (1, 2) and m.ntk_mode1_share == 0.75
    assert np.array_equal(m.fig3, np.eye(4)) and m.secondary_leaves_2 == 10.0
    assert np.array_equal(m.own_half, [7.0, 8.0, 9.0]) and m.sweep_half.shape == (4, 3)
