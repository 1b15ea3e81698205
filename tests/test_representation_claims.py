"""Chapter 04's claim rules (lib.analyses.representation_claims): the thresholds are the ones the
registry's criteria state, and each rule can fail."""

import numpy as np
import pytest

from lib.analyses import claims
from lib.analyses import representation_claims as rc


def test_the_thresholds_are_the_criteria_s():
    text = lambda key: " ".join(claims.criterion(key).settings["names"])
    for key in ("mphate-input", "ari-input"):
        assert f">= {rc.MATCHED_ARI:g}" in text(key) and f"end below peak - {rc.DECAY:g}" in text(key)
    assert f"mean ARI >= {rc.MATCHED_ARI:g}" in text("entk-anticipates")


def test_rises_then_decays_needs_a_peak_and_a_fall():
    assert rc.rises_then_decays([0.1, 0.95, 0.5]) == (True, True)
    assert rc.rises_then_decays([0.1, 0.95, 0.7]) == (True, False)  # fell by 0.25 only
    assert rc.rises_then_decays([0.1, 0.85, 0.2]) == (False, True)
    assert rc.matched_at_some_point([0.2, 0.9], [0.95, 0.1]) and not rc.matched_at_some_point([0.2, 0.9], [0.89])


def test_structured_networks_need_both_sorts_at_standard_and_either_at_large_init():
    p_input = np.array([[0.01, 0.01], [0.01, 0.2], [0.2, 0.2]])  # (networks, inits)
    p_task = np.array([[0.01, 0.2], [0.2, 0.01], [0.01, 0.2]])
    assert rc.structured_networks(p_input, p_task) == (1, 2)


def test_order_and_qualifications():
    assert rc.output_pools_first({"task vs output_pool": 100.0, "task vs input_pool": 300.0})
    assert not rc.output_pools_first({"task vs output_pool": 300.0, "task vs input_pool": 100.0})
    assert not rc.output_pools_first({"task vs output_pool": np.nan, "task vs input_pool": 100.0})
    assert rc.targets_qualification(0.95) and not rc.targets_qualification(0.9)
    assert rc.anticipation_notes(0.95, 0.5) == []
    assert len(rc.anticipation_notes(0.5, 0.8)) == 2
    assert rc.derived_input_qualification(8, 10) and not rc.derived_input_qualification(7, 10)


def test_named_conditions_pair_the_criterion_s_names_with_their_values():
    names = claims.criterion("mphate-input").settings["names"]
    assert claims.named_conditions("mphate-input", (True, False)) == {names[0]: True, names[1]: False}
    with pytest.raises(ValueError, match="one value per condition of 'mphate-input'"):
        claims.named_conditions("mphate-input", [True])
