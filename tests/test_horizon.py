"""The prediction horizon: accuracy curves, intervals, the rival comparison (lib.analyses.horizon), the
retrained snapshots (lib.experiments.horizon_snapshots) and the sweep point (lib.analyses.horizon_points),
each against an independent reference or a case whose answer is known."""

import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid
from scipy.stats import pearsonr

from lib.analyses import claim_tests, horizon
from lib.analyses.horizon_points import (KERNEL_PREDICTORS, RIVAL_PREDICTORS, accumulated_kernels, horizon_point,
                                         log_loss_slope)
from lib.analyses.within_scale import pooled_within_r
from lib.experiments.horizon_snapshots import single_task_snapshots, snapshot_iterations

FRACTIONS = np.array([0.0, 0.01, 0.1, 0.5])


def _networks(n_scales=5, per_scale=30, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_scales), per_scale)
    outcome = rng.normal(size=groups.size) + 3.0 * groups  # the scale moves the outcome
    return rng, groups, outcome


def test_a_predictor_equal_to_the_outcome_at_some_fraction_predicts_perfectly_from_there():
    rng, groups, outcome = _networks()
    noise = rng.normal(size=(1, len(FRACTIONS), groups.size))
    values = noise.copy()
    values[0, 2:] = outcome  # from f = 10% on, the predictor is the outcome itself (the final kernel's measure)
    curves = horizon.accuracy_curves(values, outcome, groups, FRACTIONS, threshold=0.5, n_resamples=200)
    np.testing.assert_allclose(curves["within"][0, 2:], 1.0)
    np.testing.assert_allclose(curves["across"][0, 2:], 1.0)
    assert curves["earliest"][0] == curves["earliest_sure"][0] == 0.1
    assert curves["earliest_lo"][0] == curves["earliest_hi"][0] == 0.1
    assert np.all(np.abs(curves["within"][0, :2]) < curves["null_half"] * 1.5)


def test_a_shuffled_outcome_gives_chance_accuracy_within_the_null_interval():
    rng, groups, outcome = _networks()
    values = np.stack([outcome + rng.normal(scale=0.3, size=(len(FRACTIONS), groups.size)) for _ in range(10)])
    curves = horizon.accuracy_curves(values, outcome, groups, FRACTIONS, threshold=0.5, n_resamples=100)
    assert np.all(curves["within"] > 0.8)  # the unshuffled outcome is predicted well
    assert curves["shuffled"].shape == (200, 10, len(FRACTIONS))
    inside = np.abs(curves["shuffled"]) <= curves["null_half"]
    assert 0.92 <= inside.mean() <= 0.98, inside.mean()  # ~95% of chance r's fall inside the 95% null interval


def test_within_scale_accuracy_equals_the_pooled_r_and_removes_the_scale():
    rng, groups, outcome = _networks()
    scale_only = np.asarray(groups, float)[None, None] + rng.normal(scale=1e-3, size=(1, 1, groups.size))
    x = outcome - 3.0 * groups + rng.normal(size=groups.size)
    values = np.stack([scale_only[0], x[None]])
    within = horizon.within_scale_accuracy(values, outcome, groups)
    assert abs(within[0, 0]) < 0.3 and horizon.across_scale_accuracy(values, outcome)[0, 0] > 0.9
    assert within[1, 0] == pytest.approx(pooled_within_r(x, outcome, groups), abs=1e-12)
    assert horizon.across_scale_accuracy(values, outcome)[1, 0] == pytest.approx(pearsonr(x, outcome)[0], abs=1e-12)


def test_pooled_fisher_interval_covers_the_true_within_scale_correlation():
    rho, covered = 0.4, 0
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(5), 30)
    for _ in range(400):
        x = rng.normal(size=groups.size)
        y = rho * x + np.sqrt(1 - rho ** 2) * rng.normal(size=groups.size) + groups * rng.normal()
        r = horizon.within_scale_accuracy(x[None, None], y, groups)[0, 0]
        lo, hi = horizon.pooled_fisher_interval(r, [30] * 5)
        covered += lo <= rho <= hi
    assert 0.91 <= covered / 400 <= 0.99
    assert horizon.pooled_z_se([30] * 5) == pytest.approx(1 / np.sqrt(150 - 15))
    assert horizon.effective_n([30] * 5) == pytest.approx(150 - 15 + 3)


def test_williams_t_is_calibrated_under_the_null_and_finds_a_real_difference():
    rng = np.random.default_rng(2)
    n, rejections = 150, 0
    for _ in range(400):  # k and h equally correlated with j
        j = rng.normal(size=n)
        k, h = j + rng.normal(scale=1.5, size=n), j + rng.normal(scale=1.5, size=n)
        r = np.corrcoef([j, k, h])
        rejections += horizon.williams_t(r[0, 1], r[0, 2], r[1, 2], n)[1] < 0.05
    assert 0.02 <= rejections / 400 <= 0.09
    t, p = horizon.williams_t(0.6, 0.2, 0.3, 150)
    assert t > 0 and p < 1e-4 and horizon.williams_t(0.3, 0.3, 0.5, 150)[1] == pytest.approx(0.5)


def test_beats_rivals_is_an_intersection_union_test_over_the_rivals():
    rng, groups, outcome = _networks()
    y = outcome - 3.0 * groups
    good = y + rng.normal(scale=0.3, size=groups.size)
    weak = y + rng.normal(scale=3.0, size=groups.size)
    kernels = np.stack([good, weak])[:, None]
    rivals = np.stack([weak + rng.normal(size=groups.size), rng.normal(size=groups.size)])[:, None]
    out = horizon.beats_rivals(kernels, rivals, outcome, groups)
    assert out["p"][0, 0] < 1e-6 and out["p"][1, 0] > 0.05  # the good kernel beats both; the weak one not
    one_rival = horizon.beats_rivals(kernels, rivals[:1], outcome, groups)  # the reverse test: Bonferroni x R
    assert out["p_reverse"][1, 0] == pytest.approx(min(1.0, 2 * min(
        one_rival["p_reverse"][1, 0], horizon.beats_rivals(kernels, rivals[1:], outcome, groups)["p_reverse"][1, 0])))
    both = horizon.beats_rivals(kernels, np.stack([good, weak])[:, None], outcome, groups)
    assert both["p"][0, 0] >= 0.4  # a rival as good as the kernel: not beaten


def test_added_information_is_the_nested_regressions_f_test():
    """The partial correlation's t-test equals the F-test of adding the kernel to a least-squares model
    of the outcome with one mean per scale and the rivals (all z-scored within scale)."""
    from scipy.stats import f as f_dist

    rng, groups, outcome = _networks()
    rivals = np.stack([outcome + rng.normal(scale=2, size=groups.size), rng.normal(size=groups.size)])[:, None]
    kernels = np.stack([outcome + rng.normal(scale=3, size=groups.size), rng.normal(size=groups.size)])[:, None]
    out = horizon.added_information(kernels, rivals, outcome, groups)
    z = lambda v: horizon._within_z(v, groups)
    dummies = (groups[:, None] == np.unique(groups)[None]).astype(float)
    for k in range(2):
        small = np.column_stack([dummies, z(rivals[0, 0]), z(rivals[1, 0])])
        big = np.column_stack([small, z(kernels[k, 0])])
        rss = [np.sum((z(outcome) - m @ np.linalg.lstsq(m, z(outcome), rcond=None)[0]) ** 2) for m in (small, big)]
        df = groups.size - big.shape[1]
        f_stat = (rss[0] - rss[1]) / (rss[1] / df)
        assert out["p"][k, 0] == pytest.approx(f_dist.sf(f_stat, 1, df), rel=1e-8)
    assert out["p"][0, 0] < 1e-3 and out["p"][1, 0] > 1e-3


def test_claim_tests_of_the_horizon_are_three_way_and_corrected():
    n = [30] * 5
    reach = claim_tests.correlations_reach([0.9, 0.1], ["a", "b"], n, threshold=0.5)
    assert reach.verdict == "reproduced" and "a r = +0.90" in reach.ours
    assert claim_tests.correlations_reach([0.05, -0.05], ["a", "b"], n, threshold=0.5).verdict == "not reproduced"
    assert claim_tests.correlations_reach([0.55], ["a"], n, threshold=0.5).verdict == "inconclusive"
    # the same r reaches alone but not in a family of 1000 cells (Bonferroni)
    assert claim_tests.correlations_reach([0.68], ["a"], n, threshold=0.5).verdict == "reproduced"
    assert claim_tests.correlations_reach([0.68] + [0.0] * 999, list(range(1000)), n,
                                          threshold=0.5).verdict == "inconclusive"
    assert claim_tests.any_significant([0.01, 0.5], ["a", "b"], 150, alpha=0.05).verdict == "reproduced"
    assert claim_tests.any_significant([0.03, 0.04], ["a", "b"], 150, alpha=0.05).verdict == "not reproduced"
    # kernel vs rivals: a win; no win and every kernel beaten; no win and one kernel never beaten
    beats = lambda p, reverse: claim_tests.beats_or_beaten(p, reverse, ["a1", "a2", "b1"], ["a", "a", "b"], 150)
    assert beats([0.001, 0.9, 0.9], [1, 1, 1]).verdict == "reproduced"
    assert beats([0.9, 0.9, 0.9], [0.001, 1, 0.001]).verdict == "not reproduced"
    undecided = beats([0.9, 0.9, 0.9], [0.001, 1, 0.5])
    assert undecided.verdict == "inconclusive" and "never beaten: b" in undecided.ours
    assert claim_tests.any_discovery([0.001, 0.5], ["a", "b"], 150).verdict == "reproduced"
    assert claim_tests.any_discovery([0.04, 0.5], ["a", "b"], 150).verdict == "inconclusive"


def test_accumulated_kernels_match_scipy_and_the_log_loss_slope_an_exponential():
    iterations = np.array([0, 6, 12, 25, 50, 125])
    kernels = np.random.default_rng(3).normal(size=(6, 2, 3))
    np.testing.assert_allclose(accumulated_kernels(iterations, kernels),
                               cumulative_trapezoid(kernels, iterations, axis=0, initial=0), rtol=1e-12)
    slope = log_loss_slope(iterations, np.exp(-0.02 * iterations)[None].repeat(2, axis=0))
    assert np.isnan(slope[:, 0]).all()
    np.testing.assert_allclose(slope[:, 1:], -0.02, rtol=1e-12)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="fractions"):
        snapshot_iterations([0.0, 0.001, 0.002], 100)  # both round to iteration 0
    with pytest.raises(ValueError, match="fractions"):
        snapshot_iterations([0.0, 1.5], 100)
    with pytest.raises(ValueError, match="values must be"):
        horizon.within_scale_accuracy(np.zeros((2, 3)), np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="n_per_group"):
        horizon.pooled_z_se([3, 30])
    with pytest.raises(ValueError, match="fractions"):
        horizon_point.check_parameters({"fractions": [0.0, 0.0001], "n_single": 100})
    with pytest.raises(ValueError, match="unknown"):
        horizon_point.check_parameters({"fraction": [0.0]})


SMALL = dict(n_hidden=16, n_train=40, n_test=40)


def test_snapshots_retrace_the_continuum_run():
    from lib.core.tasks import TaskEnvironment
    from lib.experiments.continuum import run_continuum

    env = TaskEnvironment()
    snaps = single_task_snapshots(env, range(2), 3.0, "both", 0.1, 40, (0.0, 0.05, 0.25, 0.5, 1.0), **SMALL)
    run = run_continuum(env, range(2), 3.0, "both", 0.1, 40, 4, 2, n_snapshots=5, **SMALL)
    np.testing.assert_array_equal(snaps["iterations"], [0, 2, 10, 20, 40])
    for name in ("w_hidden", "w_output"):
        key = next(k for k in snaps if k.startswith("params/") and name in k)
        np.testing.assert_allclose(snaps[key][-1], run[f"params_single/{key.split('/', 1)[1]}"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(snaps["loss_test"][:, [0, 2, 3, 4]], run["single/loss_test"][:, [0, 1, 2, 4]],
                               rtol=1e-5)


def test_horizon_point_at_t0_gives_the_continuum_predictors():
    from lib.analyses.continuum_points import predictor_point

    point = {"g": 1.0, "lr": 0.1, "n_seeds": 2, "n_single": 20, "fractions": [0.0, 0.5, 1.0], **SMALL}
    out = horizon_point(point)
    assert set(out) == set(KERNEL_PREDICTORS + RIVAL_PREDICTORS + ("iterations",))
    assert all(out[name].shape == (3, 2) for name in KERNEL_PREDICTORS + RIVAL_PREDICTORS)
    assert np.isnan(out["silhouette_entk_accumulated"][0]).all() and np.isnan(out["loss_slope"][0]).all()
    t0 = predictor_point({"g": 1.0, "n_seeds": 2, **SMALL})
    for name in ("silhouette_entk_principled", "silhouette_entk_authors", "kta_entk_single", "kta_ntk_single"):
        np.testing.assert_allclose(out[name][0], t0[name], rtol=1e-5, err_msg=name)
    np.testing.assert_allclose(out["sharing"][0], t0["sharing_initial"], rtol=1e-5, atol=1e-9)


def test_the_horizon_figure_draws_one_line_per_predictor_and_the_size_of_negative_correlations():
    import matplotlib

    matplotlib.use("Agg")
    from lib.book.plot_horizon import T0_POSITION, _size_band, plot_horizon

    rng, groups, outcome = _networks()
    values = np.stack([outcome - rng.normal(size=(len(FRACTIONS), groups.size)), -outcome[None].repeat(4, axis=0)])
    curves = {o: horizon.accuracy_curves(values, outcome, groups, FRACTIONS, 0.5, n_resamples=100)
              for o in ("sharing_final", "loss_single_test")}
    fig = plot_horizon(curves, ["sharing", "loss_test"], ["sharing"], FRACTIONS, 0.5)
    axes = np.array(fig.axes).reshape(2, 2)
    lines = [l for l in axes[0, 0].get_lines() if l.get_marker() == "o"]
    assert [l.get_linestyle() for l in lines] == ["-", "--"]  # kernel solid, rival dashed
    np.testing.assert_allclose(lines[1].get_ydata(), 1.0)  # r = -1 is drawn as |r| = 1
    assert lines[0].get_xdata()[0] == T0_POSITION
    size, lo, hi = _size_band(np.array([-0.6]), np.array([-0.8]), np.array([-0.4]))
    assert (size[0], lo[0], hi[0]) == (0.6, 0.4, 0.8)
    with pytest.raises(ValueError, match="kernels must be among"):
        plot_horizon(curves, ["sharing"], ["kta"], FRACTIONS, 0.5)


def test_within_z_of_every_row_at_once_equals_the_row_by_row_definition():
    from lib.analyses.within_scale import standardize_within

    rng, groups, _ = _networks(per_scale=20)
    values = rng.normal(size=(3, 4, groups.size))
    values[0, 0, :7] = np.nan  # a row with missing networks
    values[1, 1, 20:40] = 2.0  # a scale where the row is constant: nan there
    expected = np.full(values.shape, np.nan)
    for index in np.ndindex(values.shape[:2]):
        keep = np.isfinite(values[index])
        expected[index][keep] = standardize_within(values[index][keep], groups[keep])
    np.testing.assert_allclose(horizon._within_z(values, groups), expected, rtol=1e-12, atol=1e-12)
