"""Chapter 02's claim rules (lib.analyses.smg_claims): the thresholds are the criteria's, and each
rule can fail."""

import numpy as np

from lib.analyses import claims
from lib.analyses import smg_claims as sc

NAN = np.nan


def test_the_thresholds_are_the_criteria_s():
    text = lambda key: " ".join(claims.criterion(key).settings["names"])
    assert f"|r| > {sc.TRACKS:g}" in text("smg-fig3")
    assert f">= {sc.SHARE_OF_SEEDS:.0%}" in text("smg-tiers")
    assert f"within {sc.TIED:.0%}" in text("smg-secondary")


def test_half_times_and_tiers():
    assert sc.half_times_ordered([10, 20, NAN]) and sc.half_times_ordered([10, 20, 30])
    assert not sc.half_times_ordered([10, 20, 15]) and not sc.half_times_ordered([10, NAN, NAN])
    sweep = np.array([[1, 2, 3]] * 9 + [[2, 1, 3]])
    assert sc.tiers([1, 2, 3], sweep) == (True, True)
    assert sc.tiers([1, 2, 3], sweep[-2:]) == (True, False)  # 1 of 2 draws ordered


def test_fig3_tracking_needs_the_right_mode_above_the_threshold():
    abs_r = np.array([[0.95, 0.1], [0.2, 0.3], [0.9, 0.2], [0.1, 0.93]])
    assert sc.fig3_tracking(abs_r) == (True, True)
    assert sc.fig3_tracking(abs_r * [[0.9, 1]] * np.ones((4, 1))) == (False, True)  # 0.855 at t1
    abs_r[3] = [0.5, 0.4]
    assert sc.fig3_tracking(abs_r) == (True, False)  # no vector closest to mode 2 at t2


def test_settling_order_ties_and_anticipation():
    assert sc.settles_in_order([10, 20, NAN]) and not sc.settles_in_order([10, NAN, 30])
    assert not sc.settles_in_order([20, 10, 30])
    assert sc.switch_tied(105, 100) and not sc.switch_tied(111, 100) and not sc.switch_tied(NAN, 100)
    assert sc.anticipates(50, 60) and not sc.anticipates(70, 60) and not sc.anticipates(NAN, 60)
    assert sc.within_range(5, [1, NAN, 9]) and not sc.within_range(10, [1, 9])


def test_fig11_and_fig13_rules_of_chapter_03():
    assert f"|cos| >= {sc.MATCHED_COS:g}" in " ".join(claims.criterion("epntk-fig11").settings["names"])
    assert f"within {sc.HALF_TIME_TOLERANCE:.0%}" in " ".join(claims.criterion("epntk-fig13").settings["names"])
    match = lambda modes, cosines: (np.array(modes), np.array(cosines))
    good = {("ePNTK", 190): match([0, 1], [0.95, 0.5]), ("eNTK", 190): match([0, 1], [0.5, 0.5]),
            ("eNTK", 770): match([1, 0], [0.92, 0.5]), ("ePNTK", 770): match([1, 0], [0.91, 0.97])}
    assert sc.fig11_matches(good, 190, 770)
    weak = dict(good) | {("ePNTK", 770): (np.array([1, 0]), np.array([0.91, 0.89]))}
    assert not sc.fig11_matches(weak, 190, 770)
    wrong = dict(good) | {("eNTK", 770): (np.array([0, 1]), np.array([0.92, 0.5]))}
    assert not sc.fig11_matches(wrong, 190, 770)
    assert sc.half_times_match([105, NAN], [100, 300]) == (True, False)
    assert sc.half_times_match([111, 290], [100, 300]) == (False, True)
