"""Within-scale inference (lib.analyses.within_scale) against hand computations and scipy."""

import numpy as np
import pytest
from scipy import stats as sps

from lib.analyses import within_scale as ws
from lib.analyses.expected_signs import EXPECTED_SIGNS, OUTCOME_NAMES, PREDICTOR_NAMES, expected_sign, expected_signs
from lib.analyses.multiple_testing import bh_adjusted


def _two_scales():
    # scale 1: r = +1 with a small spread; scale 2: r = -1 with a spread 100x larger
    x = np.array([0.0, 1.0, 2.0, 0.0, 100.0, 200.0])
    y = np.array([0.0, 1.0, 2.0, 200.0, 100.0, 0.0])
    g = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    return x, y, g


def test_pooled_r_weighs_scales_equally_where_centring_does_not():
    x, y, g = _two_scales()
    assert ws.pooled_within_r(x, y, g) == pytest.approx(0.0, abs=1e-12)  # (+1 - 1) / 2
    centred = lambda v: v - np.array([v[g == s].mean() for s in g])
    assert sps.pearsonr(centred(x), centred(y))[0] < -0.99  # centred only: the wide scale dominates


def test_pooled_r_is_the_n_weighted_mean_of_per_scale_r():
    rng = np.random.default_rng(0)
    g = np.repeat([0.3, 1.0, 10.0], [5, 8, 12])
    x = rng.normal(size=g.size) * g
    y = 0.5 * x / g + rng.normal(size=g.size)
    rows = ws.per_scale_r(x, y, g)
    expected = sum(r["n"] * r["r"] for r in rows) / g.size
    assert ws.pooled_within_r(x, y, g) == pytest.approx(expected, rel=1e-12)


def test_per_scale_r_and_interval_equal_scipy():
    rng = np.random.default_rng(1)
    g = np.repeat([1.0, 10.0], 20)
    x, y = rng.normal(size=40), rng.normal(size=40)
    y[20:] += 2 * x[20:]
    for row in ws.per_scale_r(x, y, g):
        member = g == row["g"]
        res = sps.pearsonr(x[member], y[member])
        ci = res.confidence_interval(0.95)
        assert row["r"] == pytest.approx(res.statistic, rel=1e-10)
        assert (row["lo"], row["hi"]) == pytest.approx((ci.low, ci.high), rel=1e-6)


def test_permutation_p_small_for_a_real_within_scale_effect_and_uniformish_under_the_null():
    rng = np.random.default_rng(2)
    g = np.repeat([0.5, 1.0, 2.0, 5.0], 15)
    x = rng.normal(size=g.size) + 10 * g  # the scale moves x and y together
    y_null = rng.normal(size=g.size) + 10 * g
    y_real = 0.8 * (x - 10 * g) + 0.6 * rng.normal(size=g.size)
    real = ws.within_scale_test(x, y_real, g, n_resamples=500, n_permutations=999)
    null = ws.within_scale_test(x, y_null, g, n_resamples=500, n_permutations=999)
    assert real["p"] == pytest.approx(1 / 1000)
    assert real["lo"] < real["r"] < real["hi"] and real["lo"] > 0.5
    assert null["p"] > 0.05  # the across-scale association is not a within-scale one
    assert sps.pearsonr(x, y_null)[0] > 0.9


def test_permutation_p_matches_a_hand_enumeration():
    # 2 scales of 3 networks: 36 within-scale permutations; the p of the observed r among them
    from itertools import permutations

    x = np.array([1.0, 2.0, 4.0, 0.0, 3.0, 5.0])
    y = np.array([1.5, 1.0, 3.0, 2.0, 1.0, 4.0])
    g = np.array([1, 1, 1, 2, 2, 2])
    r = ws.pooled_within_r(x, y, g)
    perms = [ws.pooled_within_r(x, np.concatenate([y[:3][list(a)], y[3:][list(b)]]), g)
             for a in permutations(range(3)) for b in permutations(range(3))]
    exact = np.mean(np.abs(perms) >= abs(r) - 1e-12)
    test = ws.within_scale_test(x, y, g, n_resamples=200, n_permutations=20000, seed=3)
    assert test["r"] == pytest.approx(r)
    assert test["p"] == pytest.approx(exact, abs=0.015)


def test_bh_over_cells_and_winner_sign():
    rows = [{"setting": "s", "predictor": p, "outcome": "loss_single_test", "r": r, "lo": r - 0.1, "hi": r + 0.1,
             "p": p_value} for p, r, p_value in (("kta_ntk_single", 0.6, 0.0001), ("sharing_initial", -0.3, 0.001),
                                                  ("silhouette_epsilon", 0.9, 0.4))]
    out = ws.add_bh(rows)
    np.testing.assert_allclose([r["q"] for r in out], bh_adjusted([0.0001, 0.001, 0.4]))
    w = ws.winners(out, "loss_single_test", EXPECTED_SIGNS)
    assert w["predictor"] == "kta_ntk_single" and w["expected"] == -1 and w["sign_as_expected"] is False
    assert ws.winners(out, "finetune_speed", EXPECTED_SIGNS) == {"predictor": "none"}


def test_group_difference_and_midpoint_interval():
    rng = np.random.default_rng(4)
    g = np.repeat([1.0, 10.0], 30)
    v = np.where(g == 1.0, 1.0, 0.0) + 0.1 * rng.normal(size=60)
    d = ws.group_difference(v, g, 1.0, 10.0, n_resamples=500)
    assert d["separates"] and d["lo"] < d["difference"] < d["hi"]
    same = ws.group_difference(0.1 * rng.normal(size=60), g, 1.0, 10.0, n_resamples=500)
    assert not same["separates"]
    from lib.analyses.continuum_sweeps import transition_midpoint

    gs = np.repeat([0.3, 1.0, 3.0, 10.0, 20.0], 20)
    values = np.where(gs < 2, 0.0, 1.0) + 0.05 * rng.normal(size=gs.size)
    m = ws.midpoint_interval(gs, values, transition_midpoint, n_resamples=300)
    assert 1.0 < m["lo"] <= m["midpoint"] <= m["hi"] < 3.0


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="x, y and groups"):
        ws.pooled_within_r([1, 2], [1, 2, 3], [1, 1])
    with pytest.raises(ValueError, match="n_permutations"):
        ws.within_scale_test([1, 2, 3, 4], [1, 2, 3, 5], [1, 1, 1, 1], n_permutations=5)
    with pytest.raises(ValueError, match="groups"):
        ws.group_difference([1.0, 2.0, 3.0], [1, 1, 2], 1, 2)
    with pytest.raises(ValueError, match="predictor"):
        expected_sign("nope", "loss_single_test")
    with pytest.raises(ValueError, match="outcome"):
        expected_sign("sharing_initial", "nope")


def test_expected_signs_cover_every_cell_with_a_rationale():
    from lib.analyses.expected_signs import RATIONALE
    from lib.analyses.continuum_points import CONTINUUM_OUTCOMES as OUTCOMES, CONTINUUM_PREDICTORS

    signs = expected_signs()
    assert tuple(signs) == PREDICTOR_NAMES == CONTINUUM_PREDICTORS
    assert set(OUTCOME_NAMES) <= set(OUTCOMES)
    for p, row in signs.items():
        assert set(row) == set(OUTCOME_NAMES) and set(row.values()) <= {-1, 0, 1}
        assert RATIONALE[p]
    signs["sharing_initial"]["route_iterations"] = 5  # a copy: the declaration is not changed
    assert EXPECTED_SIGNS["sharing_initial"]["route_iterations"] == -1


def test_a_shared_plan_gives_the_numbers_of_a_fresh_test():
    rng = np.random.default_rng(5)
    g = np.repeat([1.0, 3.0, 10.0], 9)
    x, y = rng.normal(size=27), rng.normal(size=27) + 0.3 * np.arange(27) % 5
    plan = ws.resampling_plan(g, 300, 499, seed=2)
    assert ws.within_scale_test(x, y, g, 300, 499, seed=2, plan=plan) == ws.within_scale_test(x, y, g, 300, 499, seed=2)
    y[4] = np.nan  # a network left out: the plan is not used, the test draws its own
    assert ws.within_scale_test(x, y, g, 300, 499, seed=2, plan=plan) == ws.within_scale_test(x, y, g, 300, 499, seed=2)


def test_within_grid_frames_exactly_the_significant_cells_and_scatter_has_a_panel_per_scale():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib.book.plot_continuum import plot_per_scale_scatter, plot_within_grid

    rows = [{"predictor": p, "outcome": o, "r": r, "lo": r - 0.1, "hi": r + 0.1, "q": q}
            for (p, o, r, q) in (("a", "x", 0.5, 0.01), ("a", "y", -0.1, 0.6), ("b", "x", float("nan"), float("nan")),
                                 ("b", "y", -0.4, 0.04))]
    ax = plot_within_grid(rows, ["a", "b"], ["x", "y"])
    assert len(ax.patches) == 2 and len(ax.texts) == 3  # two framed cells; the nan cell has no text
    with pytest.raises(ValueError, match="every predictor x outcome cell"):
        plot_within_grid(rows[:3], ["a", "b"], ["x", "y"])
    g = np.repeat([1.0, 10.0, 20.0], 6)
    nets = {"g": g, "p": np.arange(18.0), "o": np.arange(18.0) ** 2}
    axes = plot_per_scale_scatter(nets, [("p", "o", "outcome o")], ("o",))
    assert axes.shape == (1, 3) and axes[0, 2].get_yscale() == "log"
    assert axes[0, 0].get_title().startswith("g = 1: r = +0.9")
    with pytest.raises(ValueError, match="pairs"):
        plot_per_scale_scatter(nets, [])
    plt.close("all")
