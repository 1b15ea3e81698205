"""Tests of the side-by-side comparison of chapter 13 (lib/analyses/rival_comparison.py) and of the
claim test it is judged with (lib/analyses/claim_tests.py holm_every_cell)."""

import numpy as np
import pytest

from lib.analyses import claim_tests, claims
from lib.analyses.multiple_testing import holm_adjusted


def test_holm_every_cell_is_three_way_and_corrects_within_each_family():
    cell = lambda p, reverse: claim_tests.holm_every_cell(p, reverse, ["a", "b", "c"], 10, alpha=0.05)
    assert cell([0.001, 0.01, 0.015], [0.9, 0.9, 0.9]).verdict == "reproduced"  # Holm: 0.003, 0.02, 0.02
    assert cell([0.001, 0.03, 0.04], [0.9, 0.9, 0.9]).verdict == "inconclusive"  # Holm: 0.003, 0.06, 0.06
    assert np.allclose(holm_adjusted([0.001, 0.03, 0.04]), [0.003, 0.06, 0.06])
    out = cell([0.001, 0.5, 0.9], [0.9, 0.5, 0.01])  # the third cell is significantly the other way (Holm 0.03)
    assert out.verdict == "not reproduced" and "c: against" in out.ours and "a: holds" in out.ours
    assert cell([0.001, np.nan, 0.01], [0.9, np.nan, 0.9]).verdict == "reproduced"  # undefined cells left out
    assert cell([np.nan] * 3, [np.nan] * 3).verdict == "not tested"
    with pytest.raises(ValueError, match="labels"):
        claim_tests.holm_every_cell([0.1], [0.1, 0.2], ["a"], 10)


def test_the_new_claims_are_declared_with_tests_the_registry_knows():
    for key in ("rival-side-similarity", "rival-side-order", "rival-side-kernel-vs-control", "rival-race-loss-shape",
                "rival-multitask-family"):
        c = claims.criterion(key)
        assert c.test in claim_tests.TESTS and c.version == 1
    assert "POST HOC" in claims.criterion("rival-race-loss-shape").text
    j = claims.judge("rival-side-order", p=[0.001, 0.002, 0.003, 0.004], p_reverse=[0.9] * 4,
                     labels=["eNTK", "linearized", "targets", "size"], n=12)
    assert j.verdict == "reproduced"
    j = claims.judge("rival-side-order", p=[0.001] * 4, p_reverse=[0.9] * 4, labels=list("abcd"), n=5)
    assert j.verdict == "not tested"  # fewer networks than the declared minimum
