"""Chapter 08's blocks of work (lib.book.entk_chapter) on small hand-made runs: the cached
computations are replaced by fakes whose answers are known, so each block's wiring (which pair it
checks, what it takes the largest of, which texts it writes) is what is tested."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.analyses import attribution
from lib.book import entk_chapter as chapter
from lib.book import entk_report as report
from lib.book.chapter_parameters import KernelDynamicsPlan
from lib.book.tables import visible
from lib.experiments import kernel_dynamics as kd
from tests.test_attribution import fake_run
from tests.test_entk_report import bulk_run, check_run

PLAN = {"ET": KernelDynamicsPlan((3, 4), 1000, ((200, 1), (1000, 100)), 200, ((200, 1),), 3),
        "LR": KernelDynamicsPlan((7, 8), 500, ((500, 5),), 100, ((100, 5),), 3)}


@pytest.fixture
def fake_cache(monkeypatch):
    """The cached runs of kernel_dynamics replaced by hand-made ones; records each call's seeds."""
    calls = []

    def dynamics(env, name, seeds, *rest):
        calls.append(("dynamics", name, seeds))
        return {"name": name, **bulk_run()}

    def validation_runs(env, name, seed, *rest):
        calls.append(("validation", name, seed))
        return check_run(1.0 if name == "ET" else 2.0)

    rates = np.array([0.1, 0.05, 0.025])

    def convergence(env, name, seed, *rest):
        calls.append(("convergence", name, seed))
        errors = np.stack([3.0 * rates, 5.0 * rates**2], axis=-1)  # first order on training, second on test inputs
        return {"learning_rate": np.stack([rates, rates]), "reconstruction_error": np.stack([errors, errors])}

    monkeypatch.setattr(kd, "cached_kernel_dynamics", dynamics)
    monkeypatch.setattr(kd, "kernel_dynamics_wall_time_s", lambda env, name, *rest: {"ET": 90.0, "LR": 30.0}[name])
    monkeypatch.setattr(kd, "cached_validation_runs", validation_runs)
    monkeypatch.setattr(kd, "cached_convergence", convergence)
    return calls


def test_runs_are_read_per_schedule_with_their_wall_times_and_sizes(fake_cache):
    runs, wall = chapter.kernel_dynamics_runs(None, PLAN, 11, "step", 8, 200)
    assert list(runs) == ["ET", "LR"] and runs["LR"]["name"] == "LR" and wall == {"ET": 90.0, "LR": 30.0}
    assert ("dynamics", "ET", (3, 4)) in fake_cache
    texts = chapter.run_texts(PLAN, wall, 2, 200)
    assert texts["kd_run_sizes"].startswith("ET 2 pairs of 1000 iterations, the kernel at 208 nodes per network "
                                            "(4.8 iterations per node), computed in 90 s; LR 2 pairs")
    assert texts["kd_wall_total"] == "2.0 minutes" and texts["kd_n_networks"] == "4"
    assert texts["kd_rows"] == "100 training and 100 test inputs"
    assert chapter.rows_text(None) == "all 500 training and 500 test inputs" and chapter.rows_text(49).startswith("24 ")


def test_validation_checks_each_schedule_s_first_pair_and_takes_the_largest_errors(fake_cache):
    runs = {"ET": bulk_run(), "LR": bulk_run()}
    checked = chapter.validation(None, PLAN, runs, "step", 8, 60)
    assert ("validation", "ET", 3) in fake_cache and ("validation", "LR", 7) in fake_cache
    assert checked.check_length == {"ET": 100, "LR": 100}
    assert checked.first_order.worst == ("LR", "large") and checked.first_order.largest == pytest.approx(0.8)
    assert checked.worst_step == pytest.approx(1.6)  # LR's errors, doubled for the step sum
    assert checked.bulk_worst == 0.7


def test_the_convergence_study_reads_the_last_halving_s_orders(fake_cache):
    study = chapter.convergence_study(None, PLAN, 3, 50, 60)
    assert ("convergence", "LR", 7) in fake_cache
    np.testing.assert_allclose(np.sort(study.last_orders), [1.0] * 4 + [2.0] * 4)
    assert study.table.shape[0] == 8 and study.slopes[("ET", "large", "test")] == pytest.approx((2.0, 2.0))


def test_window_texts_read_the_t0_alignment_of_the_chosen_index_set():
    run = {"alignment_final": np.zeros((2, 2, 3, 2, 4))}
    run["alignment_final"][:, 1, 0, 1] = 0.25  # large init, snapshot 0, test inputs
    texts = chapter.window_texts({"ET": run}, 0.5, "authors")
    assert texts["kd_align_final_t0_ET_large"] == "0.25" and texts["kd_align_final_t0_ET_standard"] == "0.00"
    assert texts["kd_threshold"] == "0.5" and texts["kd_index_set"] == "authors"
    with pytest.raises(ValueError, match="index_set must be one of"):
        chapter.window_texts({"ET": run}, 0.5, "test")


def test_crossings_their_texts_and_one_heading_and_table_per_schedule_and_measure():
    runs = {"ET": fake_run(), "LR": fake_run()}
    found = chapter.crossings(runs, "principled")
    assert set(found.times) == set(found.dependence) and len(found.times) == 2 * len(attribution.WINDOW_MEASURES)
    texts = chapter.crossing_setup_texts(runs)
    assert texts["kd_spacing"] == "10 (ET) and 10 (LR)" and texts["kd_thresholds"].startswith("0.3, 0.4")
    shown = chapter.crossing_displays(found.table)
    assert len(shown) == 2 * 2 * len(attribution.WINDOW_MEASURES)
    assert shown[0].data == f"**ET, {next(iter(attribution.WINDOW_MEASURES))}**"
    frame = shown[1].data
    assert list(frame.index) == [f"{t:g}" for t in attribution.THRESHOLDS] and "large" in frame.columns


def test_the_report_s_shown_tables_and_texts():
    frame = pd.DataFrame({"schedule": ["ET"], "init": ["large"], "ePNTK": ["x"], "a": [0.012345], "_hidden": [1.0]})
    assert list(visible(frame).columns) == ["schedule", "init", "ePNTK", "a"]
    assert report.reconstruction_shown(frame.drop(columns="_hidden"))["a"].iloc[0] == "1.23e-02"
    quadrature = report.quadrature_table({"ET": check_run(1.0), "LR": check_run(1.0)})
    assert report.quadrature_texts(quadrature) == {"kd_quadrature_path_max": "2.00%",
                                                   "kd_quadrature_share_max": "0.002",
                                                   "kd_euler_vs_step_max": "60.0%"}
    sharing = report.sharing_table({"ET": fake_run()})
    same = sharing[(sharing.init == "standard") & (sharing["training patterns"] == "same task")].iloc[0]
    assert same["per-pattern ratio of |contribution|"] == "2.00"  # 0.2 of |C| from 0.1 of the pairs
