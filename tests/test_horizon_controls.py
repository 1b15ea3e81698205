"""The prediction horizon's controls: the per-scale view of the pooled within-scale r
(lib.analyses.horizon_checks.per_group_correlations, cochran_q) and the negative control of the
partial-correlation test (horizon_checks.shuffled_discoveries, claim_tests.null_discovery_share),
each against an independent reference or a case whose answer is known."""

import numpy as np
import pytest
from scipy.stats import binomtest, chi2, pearsonr

from lib.analyses import claim_tests


def test_null_discovery_share_is_the_binomial_share_of_testable_runs():
    runs = np.array([0, 0, 2, np.nan, 0, 1] * 40, float)  # 200 testable runs, 80 with a discovery
    out = claim_tests.null_discovery_share(runs, p=0.1)
    ci = binomtest(80, 200).proportion_ci(0.95, method="exact")
    assert out.n == 200 and out.ours.startswith("80/200")
    assert out.verdict == "not reproduced" and ci.low > 0.1
    assert claim_tests.null_discovery_share(np.zeros(200), p=0.1).verdict == "reproduced"  # upper bound 1.8%
    assert claim_tests.null_discovery_share(np.r_[np.ones(20), np.zeros(180)], p=0.1).verdict == "inconclusive"
    assert claim_tests.null_discovery_share(np.full(5, np.nan), p=0.1).verdict == "not tested"


from lib.analyses import horizon
from lib.analyses.horizon_checks import cochran_q, per_group_correlations, permute_within, shuffled_discoveries


def test_per_group_correlations_are_scipys_pearson_r_in_each_group():
    rng = np.random.default_rng(0)
    groups = np.repeat(["a", "b", "c"], [10, 20, 30])
    x = rng.normal(size=60)
    y = x * np.repeat([1.0, 0.0, -1.0], [10, 20, 30]) + rng.normal(size=60)
    out = per_group_correlations(x, y, groups)
    assert out["group"].tolist() == ["a", "b", "c"] and out["n"].tolist() == [10, 20, 30]
    for i, g in enumerate("abc"):
        assert out["r"][i] == pytest.approx(pearsonr(x[groups == g], y[groups == g])[0], abs=1e-12)
        assert out["lo"][i] < out["r"][i] < out["hi"][i]
    assert np.isnan(per_group_correlations(x[:3], y[:3], groups[:3])["r"][0])  # fewer than 4 networks


def test_cochran_q_matches_its_formula_and_is_calibrated_under_one_common_correlation():
    q, p = cochran_q([0.5, 0.5, 0.5], [30, 30, 30])
    assert q == pytest.approx(0.0, abs=1e-12) and p == pytest.approx(1.0)
    r, n = np.array([0.8, 0.0]), np.array([30, 50])
    z, w = np.arctanh(r), n - 3
    expected = np.sum(w * (z - np.sum(w * z) / np.sum(w)) ** 2)
    assert cochran_q(r, n) == pytest.approx((expected, chi2.sf(expected, 1)))
    rng = np.random.default_rng(1)
    groups = np.repeat([0, 1, 2, 3, 4], 30)
    p_values = []
    for _ in range(400):  # one common correlation of 0.4 in every group
        x = rng.normal(size=150)
        y = 0.4 * x + np.sqrt(1 - 0.16) * rng.normal(size=150)
        c = per_group_correlations(x, y, groups)
        p_values.append(cochran_q(c["r"], c["n"])[1])
    assert 0.02 <= np.mean(np.asarray(p_values) <= 0.05) <= 0.09


def test_permute_within_keeps_each_groups_values_and_shares_the_permutation():
    groups = np.repeat([0, 1], 5)
    values = np.stack([np.arange(10.0), 100 + np.arange(10.0)])
    shuffled = permute_within(values, groups, np.random.default_rng(0))
    for g in (0, 1):
        assert sorted(shuffled[0, groups == g]) == sorted(values[0, groups == g])
    np.testing.assert_array_equal(shuffled[1] - shuffled[0], 100.0)  # one permutation for every row
    assert not np.array_equal(shuffled, values)


def test_shuffled_discoveries_hold_the_family_wise_level_and_a_real_effect_is_found_unshuffled():
    rng = np.random.default_rng(2)
    groups = np.repeat([0, 1, 2], 30)
    kernels, rivals = rng.normal(size=(2, 3, 90)), rng.normal(size=(4, 3, 90))
    outcomes = {"a": kernels[0, 2] + 0.5 * rng.normal(size=90), "b": rng.normal(size=90)}
    fractions = [0.0, 0.1, 0.5]
    real = horizon.rival_cells(kernels, rivals, outcomes, groups, fractions)
    assert np.nanmin(real["p_partial"]) < 1e-6  # the kernel carries the outcome: found without shuffling
    found = shuffled_discoveries(kernels, rivals, outcomes, groups, fractions, n_permutations=200, seed=3)
    assert found.shape == (200,) and np.all(np.isfinite(found))
    assert np.mean(found > 0) <= 0.10
    few = shuffled_discoveries(kernels[:, :, :8], rivals[:, :, :8], {"a": outcomes["a"][:8]}, np.repeat([0, 1], 4),
                               fractions, n_permutations=3)
    assert np.all(np.isnan(few))  # 8 networks in 2 groups, 4 rivals: 1 degree of freedom, no cell testable
    with pytest.raises(ValueError, match="alpha"):
        shuffled_discoveries(kernels, rivals, outcomes, groups, fractions, alpha=1.5)


def test_an_unshuffled_run_counts_the_discoveries_of_the_rival_cells(monkeypatch):
    import lib.analyses.horizon_checks as checks
    from lib.analyses.multiple_testing import holm_adjusted_finite

    rng = np.random.default_rng(4)
    kernels, rivals = rng.normal(size=(2, 3, 40)), rng.normal(size=(4, 3, 40))
    outcomes = {"a": kernels[0, 1] + rng.normal(size=40), "b": rng.normal(size=40)}
    groups, fractions = np.repeat([0, 1], 20), [0.0, 0.1, 0.5]
    expected = np.sum(holm_adjusted_finite(horizon.rival_cells(kernels, rivals, outcomes, groups,
                                                               fractions)["p_partial"]) <= 0.05)
    assert expected > 0
    monkeypatch.setattr(checks, "within_order", lambda groups, rng: np.arange(len(groups)))  # no shuffling
    assert shuffled_discoveries(kernels, rivals, outcomes, groups, fractions, n_permutations=2).tolist() == [expected] * 2


def _partial_reference(kernels, rivals, y, groups):
    """The add test written independently of lib.analyses.horizon, cell by cell: each variable z-scored
    within group (population s.d., over its finite values), kernel and outcome residualised on the
    rivals by a pseudo-inverse projection over the networks where all are finite, Pearson r of the
    residuals, two-sided t-test with n - G - R - 1 degrees of freedom (none below 2). (K, F) r and p."""
    from scipy.stats import t as student_t

    def z(v):
        out = np.full(v.shape, np.nan)
        for g in np.unique(groups):
            member = (groups == g) & np.isfinite(v)
            if member.sum() > 1 and v[member].std() > 0:
                out[member] = (v[member] - v[member].mean()) / v[member].std()
        return out

    zy, lost = z(y), len(np.unique(groups)) + len(rivals) + 1
    r_out, p_out = np.full(kernels.shape[:2], np.nan), np.full(kernels.shape[:2], np.nan)
    for k in range(kernels.shape[0]):
        for f in range(kernels.shape[1]):
            zk, zr = z(kernels[k, f]), np.stack([z(v[f]) for v in rivals])
            use = np.isfinite(zk) & np.isfinite(zy) & np.isfinite(zr).all(axis=0)
            df = int(use.sum()) - lost
            if df < 2:
                continue
            design = zr[:, use].T
            residual_maker = np.eye(use.sum()) - design @ np.linalg.pinv(design)
            a, b = residual_maker @ zk[use], residual_maker @ zy[use]
            r = a @ b / np.sqrt((a @ a) * (b @ b))
            r_out[k, f] = r
            p_out[k, f] = 2 * student_t.sf(abs(r) * np.sqrt(df / (1 - r * r)), df)
    return r_out, p_out


def _discoveries_one_run_at_a_time(kernels, rivals, outcomes, groups, fractions, n_permutations, alpha=0.05, seed=0):
    """The control's definition, one independently written add test (_partial_reference) per run and
    outcome: the reference that shuffled_discoveries' batched runs must equal."""
    from lib.analyses.multiple_testing import holm_adjusted_finite

    stacked, rng, out, margin = np.stack(list(outcomes.values())), np.random.default_rng(seed), [], np.inf
    for _ in range(n_permutations):
        shuffled = permute_within(stacked, groups, rng)
        p = np.concatenate([_partial_reference(kernels, rivals, y, groups)[1][:, fractions > 0].ravel()
                            for y in shuffled])
        adjusted = holm_adjusted_finite(p)
        out.append(np.sum(adjusted <= alpha) if np.isfinite(adjusted).any() else np.nan)
        margin = min(margin, np.nanmin(np.abs(np.log(adjusted / alpha))))
    # the two computations differ in rounding only; their counts may be compared exactly because no
    # adjusted p lies within a relative 1e-6 of alpha, where rounding could move it across
    assert margin > 1e-6, f"an adjusted p within {margin:.1e} (relative) of alpha: counts would depend on rounding"
    return np.array(out)


def test_batched_runs_equal_one_run_at_a_time_with_missing_values_and_a_real_effect():
    from lib.analyses.horizon import added_information, added_information_batch

    rng = np.random.default_rng(3)
    groups = np.repeat([0.5, 1.0, 2.0], 20)
    kernels, rivals = rng.normal(size=(3, 4, 60)), rng.normal(size=(2, 4, 60))
    kernels[0, 1, 5] = np.nan  # a kernel value missing in one cell
    outcomes = {"effect": kernels[1, 2] + 0.3 * rng.normal(size=60), "noise": rng.normal(size=60),
                "gaps": np.where(np.arange(60) % 7 == 0, np.nan, rng.normal(size=60))}  # moves with each permutation
    fractions = np.array([0.0, 0.01, 0.1, 0.5])
    batched = shuffled_discoveries(kernels, rivals, outcomes, groups, fractions, n_permutations=40, seed=2)
    np.testing.assert_array_equal(batched, _discoveries_one_run_at_a_time(kernels, rivals, outcomes, groups, fractions,
                                                                          40, seed=2))
    rows = np.stack([outcomes["gaps"], outcomes["effect"], outcomes["noise"]])
    out = added_information_batch(kernels, rivals, rows, groups)
    for b, y in enumerate(rows):
        r, p = _partial_reference(kernels, rivals, y, groups)
        np.testing.assert_allclose(out["p"][b], p, rtol=1e-8, equal_nan=True)
        np.testing.assert_allclose(out["r_partial"][b], r, rtol=1e-8, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(added_information(kernels, rivals, y, groups)["p"], out["p"][b], rtol=1e-12,
                                   equal_nan=True)  # one outcome or several: the same to rounding
    assert np.isfinite(out["p"][1, 1, 2]) and out["p"][1, 1, 2] < 1e-6  # the planted effect, unshuffled


def test_the_control_is_judged_under_every_seed_of_its_permutations_and_seed_0_is_the_reported_draw():
    from lib.analyses import claims
    from lib.analyses.horizon_checks import discoveries_by_seed

    rng = np.random.default_rng(6)
    groups = np.repeat([1.0, 10.0], 20)
    kernels, rivals = rng.normal(size=(2, 3, 40)), rng.normal(size=(2, 3, 40))
    outcomes, fractions = {"y": rng.normal(size=40)}, np.array([0.0, 0.1, 0.5])
    by_seed = discoveries_by_seed(kernels, rivals, outcomes, groups, fractions, n_permutations=100, first_seed=1)
    np.testing.assert_array_equal(by_seed(0), shuffled_discoveries(kernels, rivals, outcomes, groups, fractions,
                                                                   n_permutations=100, seed=1))
    assert by_seed(3) is by_seed(3) and not np.array_equal(by_seed(0), by_seed(3))
    judged = claims.judge("horizon-kernel-adds-control", seeded=lambda s: {"discoveries": by_seed(s)})
    each = [claims.judge("horizon-kernel-adds-control", discoveries=by_seed(s)).verdict for s in range(20)]
    modal = max(set(each), key=each.count)
    assert judged.stability == f"{each.count(modal)}/20"
    assert judged.verdict == (modal if each.count(modal) >= 19 else "borderline")
