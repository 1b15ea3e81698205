"""Chapter 02's verdicts and summary rows (lib.book.smg_report) on measurements built by hand,
where each claim's outcome is known before it is judged."""

from __future__ import annotations

import numpy as np

from lib.book import smg_report as sr

NAN = float("nan")


def measures(**changes) -> sr.SmgMeasures:
    """Measurements under which every claim of the paper holds (times near the paper's 190 and 770)."""
    sweep = np.column_stack([np.linspace(150, 230, 20), np.linspace(650, 900, 20), np.linspace(2000, 3000, 20)])
    fig3 = np.array([[0.95, 0.10, 0.05], [0.10, 0.40, 0.30], [0.20, 0.93, 0.10], [0.90, 0.20, 0.10]])
    base = sr.SmgMeasures((190, 770), np.array([180.0, 760.0, 2500.0]), sweep, np.full((20, 3), 0.01), fig3, (1, 2),
                          np.array([100.0, 600.0, 2200.0]), np.array([50.0, 400.0, 610.0]), 590.0, 1.0)
    return base._replace(**changes)


def verdicts(m: sr.SmgMeasures) -> dict[str, str]:
    return {name: j.verdict for name, j in sr.judge_claims(m).items()}


def test_every_claim_holds_where_the_measurements_say_so():
    assert set(verdicts(measures()).values()) == {"reproduced"}


def test_each_claim_fails_with_its_own_measurement():
    m = measures()
    assert verdicts(m._replace(own_half=np.array([800.0, 760.0, 2500.0])))["smg-tiers"] == "not reproduced"
    assert verdicts(m._replace(best_mode=(1, 3)))["smg-mode-learned"] == "not reproduced"
    assert verdicts(m._replace(analysis_times=(100, 770)))["smg-times"] == "not reproduced"
    assert verdicts(m._replace(primary_switch=np.array([100.0, NAN, 2200.0])))["smg-primary"] == "not reproduced"
    assert verdicts(m._replace(secondary_switch=np.array([50.0, 400.0, 900.0])))["smg-secondary"] == "not reproduced"
    assert verdicts(m._replace(primary_switch=np.array([100.0, 800.0, 2200.0])))["smg-anticipation"] == "not reproduced"
    assert verdicts(m._replace(ntk_mode1_share=0.5))["smg-ntk"] == "not reproduced"
    low = m.fig3.copy()
    low[2, 1] = 0.5
    assert verdicts(m._replace(fig3=low))["smg-fig3"] == "not reproduced"


def test_a_time_outside_the_interquartile_range_and_the_second_vector_qualify_their_verdicts():
    m = measures()
    j = sr.judge_claims(m._replace(analysis_times=(225, 770)))["smg-times"]  # in the range 150-230, above the IQR
    assert j.verdict == "reproduced with qualification" and "interquartile" in j.qualification
    swapped = m.fig3[[0, 1, 3, 2]]  # at t2 the second vector, not the first, is on mode 2
    j = sr.judge_claims(m._replace(fig3=swapped))["smg-fig3"]
    assert j.verdict == "reproduced with qualification" and "second vector" in j.qualification


def test_rows_name_never_for_a_switch_that_does_not_happen_and_check_the_closed_form():
    m = measures(primary_switch=np.array([100.0, 600.0, NAN]))
    assert sr.judge_claims(m)["smg-primary"].ours == "100 / 600 / never"
    rows = sr.claim_rows(m)
    assert len(rows) == 9 and rows[-1]["ours"] == "1.0%" and rows[-1]["agrees"] is True
    assert sr.claim_rows(m._replace(twin_errors=np.full((20, 3), 0.2)))[-1]["agrees"] is False


def test_sweep_view_and_texts_summarise_the_half_times_over_seeds():
    sweep = {"random": np.array([[100.0, 700.0, NAN], [200.0, 800.0, 3000.0], [300.0, 900.0, NAN]]),
             "aligned": np.full((3, 3), 150.0), "closed_form": np.full((3, 3), 150.0)}
    view = sr.sweep_view(sweep)
    assert view.loc["random init (simulated)", "mode 3"] == "3000 [3000, 3000] (2 not reached)"
    assert view.loc["random init (simulated)", "mode 1"] == "200 [150, 250] (0 not reached)"
    texts = sr.sweep_texts(sweep, np.array([250.0, 650.0, NAN]), 7, 2500)
    assert (texts["smg_sweep_mode1"], texts["smg_showcase_rank1"], texts["smg_showcase_rank2"]) == ("200", "67%", "0%")
    assert texts["smg_sweep_n"] == "3" and texts["smg_showcase_seed"] == "7"


def test_leave_time_is_the_first_time_after_the_start_a_vector_is_elsewhere():
    from lib.experiments.smg import leave_time

    overlaps = np.array([[0.9, 0.1], [0.1, 0.9], [0.2, 0.8], [0.7, 0.3]])  # best mode: 0, 1, 1, 0
    assert leave_time(np.array([0, 10, 20, 30]), overlaps, 1) == 30.0
    assert leave_time(np.array([0, 10, 20, 30]), overlaps, 0) == 10.0  # t = 0 is not counted
    assert np.isnan(leave_time(np.array([0, 10]), overlaps[:2], 1))
