"""Chapter 03's verdicts and summary rows (lib.book.epntk_report) on measurements built by hand,
where each claim's outcome is known before it is judged."""

from __future__ import annotations

import numpy as np

from lib.book import epntk_report as er

T1, T2 = 190, 770


def matches(changes: dict | None = None) -> dict:
    """Paper Fig 11's matches as stated: (kernel, time) -> (closest modes, 0-based, their |cos|)."""
    out = {("ePNTK", T1): (np.array([0, 1]), np.array([0.97, 0.5])), ("eNTK", T1): (np.array([0, 2]), np.array([0.95, 0.4])),
           ("eNTK", T2): (np.array([1, 0]), np.array([0.96, 0.3])), ("ePNTK", T2): (np.array([0, 1]), np.array([0.99, 0.93]))}
    return out | (changes or {})


def measures(**changes) -> er.EpntkMeasures:
    base = er.EpntkMeasures((T1, T2), 0.02, 1.01, 0.004, matches(), (0.98, 0.95), np.array([200.0, 760.0]),
                            np.array([190.0, 770.0]))
    return base._replace(**changes)


def verdicts(m: er.EpntkMeasures) -> dict[str, str]:
    return {name: j.verdict for name, j in er.judge_claims(m).items()}


def test_every_claim_holds_where_the_measurements_say_so_and_exactness_is_qualified():
    v = verdicts(measures())
    assert v.pop("epntk-exact") == "reproduced with qualification"
    assert set(v.values()) == {"reproduced"}
    assert er.judge_claims(measures())["epntk-fig11"].ours == "1; 1; 2; 1 and 2"


def test_each_claim_fails_with_its_own_measurement():
    m = measures()
    assert verdicts(m._replace(map_error=0.06))["epntk-map"] == "not reproduced"
    assert verdicts(m._replace(slope=2.0))["epntk-exact"] == "not reproduced"  # second order: not an Euler error
    assert verdicts(m._replace(fig12_r=(0.98, 0.85)))["epntk-fig12"] == "not reproduced"
    assert verdicts(m._replace(singular_value_half=np.array([200.0, 900.0])))["epntk-fig13"] == "not reproduced"
    late = matches({("eNTK", T2): (np.array([0, 1]), np.array([0.96, 0.3]))})  # the eNTK still on mode 1 at t2
    assert verdicts(m._replace(matches=late))["epntk-fig11"] == "not reproduced"
    assert er.judge_claims(m._replace(matches=late))["epntk-fig11"].ours.startswith("1; 1; 1;")


def test_rows_hold_every_claim_and_the_euler_error_at_the_papers_step():
    rows = er.claim_rows(measures())
    assert len(rows) == 6 and rows[2]["ours"] == "0.40%" and rows[2]["agrees"] is None
    assert [r.get("claim") for r in rows if "claim" in r] == ["epntk-map", "epntk-exact", "epntk-fig11", "epntk-fig12",
                                                             "epntk-fig13"]
