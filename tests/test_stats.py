"""Correlation helpers on synthetic data with known answers."""

import numpy as np
import pytest

from lib.analyses import stats


def test_relative_to_partner_is_antisymmetric():
    losses = np.array([[3.0, 1.0], [2.0, 5.0]])
    np.testing.assert_array_equal(stats.relative_to_partner(losses), [[2.0, -2.0], [-3.0, 3.0]])


def test_sign_statistic_label_correlation_has_closed_form():
    """With relative losses (+d_i, -d_i), r(label, relative) = mean(d) / sqrt(mean(d^2))."""
    rng = np.random.default_rng(0)
    d = rng.normal(1.0, 0.7, size=10)
    relative = np.stack([d, -d], axis=1)
    expected = d.mean() / np.sqrt((d**2).mean())
    assert stats.pearson(stats.init_label(10), relative) == pytest.approx(expected, rel=1e-12)
    # any predictor that only separates the inits reproduces it
    predictor = stats.init_label(10) * 0.4 + 0.1
    assert stats.pearson(predictor, relative) == pytest.approx(expected, rel=1e-12)
    # and a large |r| arises although nothing within a condition is predicted
    assert expected > 0.7


def test_permutation_null_detects_within_condition_signal_only():
    rng = np.random.default_rng(1)
    n = 30
    label_only = stats.init_label(n) + rng.normal(0, 0.01, size=(n, 2))
    outcome = stats.init_label(n) * 2 + rng.normal(0, 1, size=(n, 2))
    _, p_null = stats.permutation_within_condition(label_only, outcome, 2000, seed=2)
    assert p_null > 0.05  # label-only predictor: no evidence beyond the condition
    informative = outcome + rng.normal(0, 0.1, size=(n, 2))
    _, p_signal = stats.permutation_within_condition(informative, outcome, 2000, seed=2)
    assert p_signal < 0.01
    r_std, r_large = stats.within_condition(informative, outcome)
    assert r_std > 0.9 and r_large > 0.9


def test_bootstrap_interval_covers_and_shrinks():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 2))
    y = 0.6 * x + 0.8 * rng.normal(size=(200, 2))
    lo, hi = stats.bootstrap_ci(x, y, 2000, seed=4)
    assert lo < 0.6 < hi and hi - lo < 0.2
    lo_small, hi_small = stats.bootstrap_ci(x[:10], y[:10], 2000, seed=4)
    assert hi_small - lo_small > hi - lo


def test_report_and_shape_errors():
    x = np.arange(8.0).reshape(4, 2)
    report = stats.correlation_report(x, x**2, n_resamples=200)
    assert set(report) >= {"r", "ci_low", "ci_high", "r_label", "r_within_standard", "p_within_permutation"}
    with pytest.raises(ValueError, match="shape \\(pairs >= 2, 2\\)"):
        stats.correlation_report(np.arange(4.0), np.arange(4.0))
    assert np.isnan(stats.pearson(np.ones(4), np.arange(4.0)))


def test_rival_correlations_list_every_predictor_and_the_init_label():
    rng = np.random.default_rng(3)
    schedules = {}
    for name in ("ET", "LR"):
        single = rng.normal(10, 1, size=(6, 2))
        schedules[name] = {"single": single, "finetune": rng.normal(10, 1, size=(6, 2)),
                           "informative": -single + rng.normal(0, 0.01, size=(6, 2)),
                           "constant": np.ones((6, 2))}
    rows = stats.rival_correlations(schedules, ["informative", "constant"], n_resamples=200)
    assert {r["predictor"] for r in rows} == {"informative", "constant", "init label"}
    by = {(r["predictor"], r["quantity"], r["phase"], r["schedule"]): r for r in rows}
    assert by["informative", "raw", "single", "ET"]["r"] < -0.99
    constant = by["constant", "relative", "single", "ET"]
    assert np.isnan(constant["r"]) and np.isnan(constant["p_within_permutation"]) and np.isnan(constant["ci_low"])
    label = by["init label", "relative", "single", "ET"]
    assert label["r"] == pytest.approx(label["r_label"])


def test_first_iteration_below_and_relative_area():
    its = np.array([0, 10, 20, 30])
    curves = np.array([[4.0, 3.0, 2.0, 1.0], [4.0, 1.0, 1.0, 1.0], [4.0, 4.0, 4.0, 3.0]])
    np.testing.assert_array_equal(stats.first_iteration_below(its, curves, 0.5), [20.0, 10.0, np.nan])
    np.testing.assert_allclose(stats.relative_loss_area(curves), [2.5 / 4, 1.75 / 4, 3.75 / 4])
