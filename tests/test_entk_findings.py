"""Chapter 08's findings as reader text (lib/book/entk_findings.py): each reading rule on the
intervals that decide it, and the findings of small tables in the chapter's layout."""

import numpy as np
import pandas as pd
import pytest

from lib.analyses import attribution
from lib.book import entk_findings as f


def test_the_reading_of_other_tasks_share_follows_its_interval():
    assert f.other_tasks_reading((-0.3, -0.5, -0.1)).startswith("they push against")
    assert f.other_tasks_reading((0.7, 0.6, 0.8)).startswith("they make most of it")
    assert f.other_tasks_reading((0.3, 0.1, 0.6)).startswith("they make part of it")
    assert f.other_tasks_reading((0.1, -0.1, 0.3)) == "their net part is not resolved"


def test_the_sharing_reading_needs_both_measures():
    up, down, unresolved = (0.2, 0.1, 0.3), (-0.2, -0.3, -0.1), (0.0, -0.1, 0.1)
    assert f.sharing_reading(up, up).startswith("both larger for large init")
    assert f.sharing_reading(up, down).startswith("the two measures point in opposite directions")
    assert f.sharing_reading(up, unresolved) == "not resolved by both measures"


def test_small_texts():
    assert f.count_range(np.array([3, 3])) == "3" and f.count_range(np.array([1, 4, 2])) == "1 to 4"
    assert f.negated((0.2, 0.1, 0.3)) == (-0.2, -0.3, -0.1)
    assert f.interval_pair([(0.2, 0.1, 0.3), (-0.1, -0.2, 0.0)]) == ("+0.20 / -0.10", "[+0.10, +0.30] / [-0.20, +0.00]")
    assert f.listed([]) == "none" and f.listed(["a", "b"]) == "a; b"
    differences = np.array([[0.1, 0.3], [0.2, 0.3], [0.0, 0.3]])
    mean, low, high = f.same_task_difference(differences)
    assert mean == pytest.approx(0.2) and low < mean < high


def window_table(median: float) -> pd.DataFrame:
    return pd.DataFrame([{"schedule": "ET", "init": init, "_median": median, "_fraction": 0.25}
                         for init in ("standard", "large") for _ in f.WINDOW_SLUGS])


def test_window_findings_say_never_for_a_window_that_does_not_close():
    crossings = {("ET", "a"): np.zeros((5, 2, 2)), ("LR", "a"): np.zeros((5, 2, 2))}
    out = f.window_findings(window_table(2500.0), {("ET", "a"): {"never_changes": True}}, crossings, "ET")
    assert out["kd_find_window_align_ET_standard"] == "at iteration 2500 (25%)"
    assert out["kd_find_depends_ET"] == "a" and out["kd_find_standard_first_ET"] == "0"
    never = f.window_findings(window_table(np.nan), {("ET", "a"): {"never_changes": False}}, crossings, "ET")
    assert never["kd_find_window_path_ET_large"] == "never during training"
    assert never["kd_find_depends_ET"] == "none of the three"


def test_sharing_findings_read_the_tables_by_schedule_init_and_category():
    rows = []
    for init in ("standard", "large"):
        for category, value in (("same task", 0.6), (attribution.OTHER_TASKS, 0.4)):
            rows.append({"schedule": "ET", "init": init, "training patterns": category, "_signed": value,
                         "_signed_low": value - 0.1, "_signed_high": value + 0.1, "_abs": value / 2})
    shared = pd.DataFrame(rows).set_index(["schedule", "init", "training patterns"])
    cancelled = pd.DataFrame([{"schedule": "ET", "init": init, "kind": kind, "_median": 2.0}
                              for init in ("standard", "large") for kind in ("by category", "by training pattern")]
                             ).set_index(["schedule", "init", "kind"])
    same = {"sharing_abs": np.array([[0.1, 0.3], [0.2, 0.4], [0.1, 0.35]]),
            "sharing_signed": np.array([[0.3, 0.1], [0.4, 0.2], [0.35, 0.1]])}
    out = f.sharing_findings(shared, cancelled, same, "ET")
    assert out["kd_find_other_abs_ET_large"] == "20%"
    assert out["kd_find_other_reading_ET_standard"] == "they make part of it (signed share above 0)"
    assert out["kd_find_cancel_category_ET_standard"] == "2.0" and out["kd_find_cancel_pattern_ET_large"] == "2"
    assert out["kd_find_sharing_reading_ET"].startswith("the two measures point in opposite directions")


def test_crossing_texts_count_never_and_who_crosses_first_per_threshold():
    T, P = len(attribution.THRESHOLDS), 4
    times = np.full((T, P, 2), 100.0)
    times[..., 1] = 50.0  # large init crosses first in every pair at every threshold
    times[-1, :2, 0] = np.nan  # two standard-init networks never cross the last threshold
    label = next(iter(attribution.WINDOW_MEASURES))
    crossings = {("ET", label): times}
    texts = f.crossing_texts(crossings, {("ET", label): attribution.threshold_dependence(times)})
    assert texts["kd_cross_ET_align_large_first"] == "4" and texts["kd_cross_ET_align_standard_first"] == "0"
    assert texts["kd_cross_ET_align_never"].endswith(f"{attribution.THRESHOLDS[-1]:g}: 2/0")
    assert texts["kd_cross_ET_align_depends"] == "yes"


def test_schedule_findings_join_every_schedule_s_window_sharing_and_representation_texts():
    from lib.analyses import kernel_analysis as ka
    from lib.book import entk_report as report
    from tests.test_attribution import fake_run

    runs = {"ET": fake_run(), "LR": fake_run()}
    for run in runs.values():
        run["overlap_final"] = run["alignment_final"] = run["alignment_initial"]
    window = ka.window_table(runs, "principled", 0.5)
    table, crossings = attribution.crossing_table(runs, "principled")
    dependence = {key: attribution.threshold_dependence(t) for key, t in crossings.items()}
    shared = report.sharing_table(runs).set_index(["schedule", "init", "training patterns"])
    cancelled = attribution.cancellation_table(runs, "authors").set_index(["schedule", "init", "sum |C| / |dy|"])
    rng = np.random.default_rng(1)
    agreement = {name: {f"{m}/{p}": rng.random((4, 2)) for m in f.METRIC_NAMES for p in ka.REPRESENTATION_PREDICTORS}
                 for name in runs}
    representation = report.representation_table(agreement)
    contrast_of = report.contrast_table(agreement).set_index(["schedule", "init", "metric", "contrast"])
    texts = f.schedule_findings(runs, window, dependence, crossings, shared, cancelled, representation, contrast_of)
    same_task = {key: runs["LR"][key][:, :, -1, 1, 0] for key in ("sharing_abs", "sharing_signed")}
    expected = {**f.window_findings(window, dependence, crossings, "LR"),
                **f.sharing_findings(shared, cancelled, same_task, "LR"),
                **f.representation_findings(representation, contrast_of, "LR")}
    assert {k: v for k, v in texts.items() if "_LR" in k} == expected
    assert texts["kd_find_same_difference_abs_ET"] == "+0.00 [+0.00, +0.00]"  # the same |C| share at both inits
    first = report.FirstOrderErrors(0.05, ("ET", "large"), {("ET", "large"): 0.05}, 120, 0.03)
    validation = type("Validation", (), {"first_order": first, "check_length": {"ET": 200, "LR": 100},
                                         "worst_step": 3e-7, "bulk_worst": 0.012})
    rows = report.summary_rows(runs, validation, report.judge_first_order(first), np.array([0.98, 1.03]), shared,
                               cancelled, contrast_of)
    assert len(rows) == 3 + 2 * 7  # the checks, then per schedule 3 sharing, 1 same-task, 2 inits, 1 control row
    assert "first 200 / 100 iterations of ET / LR" in rows[0]["quantity"]
