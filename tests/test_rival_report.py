"""The rival-theories chapter's cells and sentences select the right predictors (lib.book.rival_report)."""

import numpy as np

from lib.analyses import rival_comparison as rc
from lib.book import rival_report as rr

SCORES = {0.3: {"a": {"theory": np.array([0.5, 0.6, 0.7]), "kernel": np.array([0.2, 0.3, 0.4]),
                      "control": np.array([np.nan, np.nan, np.nan])}},
          3.0: {"a": {"theory": np.array([0.1, 0.2, np.nan]), "kernel": np.array([0.4, 0.5, 0.6]),
                      "control": np.array([0.0, 0.1, 0.2])}}}


def test_scale_cells_equal_paired_cells_of_the_transformed_scores():
    cells = rr.scale_cells(SCORES, "a", "theory", ("kernel",), [0.3, 3.0], rc.fisher_z)
    direct = rc.paired_cells({g: rc.fisher_z(SCORES[g]["a"]["theory"]) for g in SCORES},
                             {"kernel": {g: rc.fisher_z(SCORES[g]["a"]["kernel"]) for g in SCORES}})
    assert list(cells["labels"]) == list(direct["labels"])
    np.testing.assert_array_equal(cells["p"], direct["p"])


def test_joined_cells_label_each_cell_with_its_outcome_and_kernel():
    part = {"labels": ["g = 1", "g = 2"], "p": np.array([0.1, 0.2]), "p_reverse": np.array([0.9, 0.8]),
            "n": np.array([5, 6])}
    joined = rr.joined_cells([("a", "t=0 eNTK", part), ("c", "linearized", part)])
    assert joined["labels"] == ["(a) t=0 eNTK vs g = 1", "(a) t=0 eNTK vs g = 2", "(c) linearized vs g = 1",
                                "(c) linearized vs g = 2"]
    assert joined["kernel_of"] == ["t=0 eNTK", "t=0 eNTK", "linearized", "linearized"]
    np.testing.assert_array_equal(joined["n"], [5, 6, 5, 6])


def test_best_and_as_good_words():
    words = rr.best_words(SCORES, [0.3, 3.0], "a", ("theory", "kernel", "control"))
    assert words == ("theory at g = 0.3 (+0.60, 3 networks; no score from control); "
                     "kernel at g = 3 (+0.50, 3 networks)")
    assert rr.best_words(SCORES, [0.3], "a", ("control",)) == "no predictor has a score at g = 0.3"
    assert rr.best_words(SCORES, [3.0], "a", ("theory", "control"), lower_is_better=True).startswith("control at g = 3")
    assert rr.as_good_words(SCORES, [0.3, 3.0], "a", "theory", ("kernel", "control")) == "kernel at g = 3"
    assert rr.as_good_words(SCORES, [0.3], "a", "theory", ("kernel",)) == "none"
    assert rr.best_per_scale({g: SCORES[g]["a"] for g in SCORES}, [0.3, 3.0]) == "g = 0.3: theory; g = 3: kernel"
