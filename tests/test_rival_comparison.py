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
    out = cell([0.001, np.nan, 0.01], [0.9, np.nan, 0.9])
    assert out.verdict == "reproduced" and out.ours.endswith("left out, undefined: b")  # undefined cells left out
    assert cell([np.nan] * 3, [np.nan] * 3).verdict == "not tested"
    with pytest.raises(ValueError, match="labels"):
        claim_tests.holm_every_cell([0.1], [0.1, 0.2], ["a"], 10)


def test_an_undefined_declared_cell_caps_every_cell_claims_at_inconclusive():
    cell = lambda p, reverse: claim_tests.holm_every_declared_cell(p, reverse, ["a", "b", "c", "d"], 10)
    two_of_four = cell([0.001, np.nan, 0.01, np.nan], [0.9, np.nan, 0.9, np.nan])
    assert claim_tests.holm_every_cell([0.001, np.nan, 0.01, np.nan], [0.9, np.nan, 0.9, np.nan],
                                       list("abcd"), 10).verdict == "reproduced"  # v1's rule: undefined left out
    assert two_of_four.verdict == "inconclusive" and "2 of 4 declared cells undefined" in two_of_four.ours
    assert cell([0.001, 0.002, 0.003, 0.004], [0.9] * 4).verdict == "reproduced"  # every cell defined and holding
    assert cell([0.001, np.nan, 0.9, 0.5], [0.9, np.nan, 0.001, 0.5]).verdict == "not reproduced"  # one against
    assert cell([np.nan] * 4, [np.nan] * 4).verdict == "not tested"


def test_a_kernel_is_judged_on_its_own_cells_not_pooled_with_another_quantity():
    """The linearized network's significant cells made v1 of rival-side-kernel-vs-control
    "reproduced" although no eNTK cell was; judged on the eNTK's own cells it is inconclusive."""
    labels = ["eNTK a", "eNTK b", "linearized a", "linearized b"]
    kernel_of = ["t=0 eNTK", "t=0 eNTK", "linearized at t=0", "linearized at t=0"]
    p, p_reverse = [0.8, 0.9, 0.001, 0.002], [0.2, 0.1, 0.9, 0.9]
    assert claim_tests.beats_or_beaten(p, p_reverse, labels, kernel_of, 10).verdict == "reproduced"
    own = claim_tests.kernel_beats_control(p, p_reverse, labels, kernel_of, 10, kernel="t=0 eNTK")
    assert own.verdict == "inconclusive" and "0 of 2 cells" in own.ours
    wins = claim_tests.kernel_beats_control([0.001, 0.9, 0.9, 0.9], p_reverse, labels, kernel_of, 10,
                                            kernel="t=0 eNTK")
    assert wins.verdict == "reproduced" and "1 of 2 cells" in wins.ours
    beaten = claim_tests.kernel_beats_control([0.9, 0.9, 0.001, 0.9], [0.001, 0.9, 0.9, 0.9], labels, kernel_of, 10,
                                              kernel="t=0 eNTK")
    assert beaten.verdict == "not reproduced"
    with pytest.raises(ValueError, match="names none of the cells"):
        claim_tests.kernel_beats_control(p, p_reverse, labels, kernel_of, 10, kernel="eNTK")


def test_the_new_claims_are_declared_with_tests_the_registry_knows():
    for key in ("rival-side-similarity", "rival-side-order", "rival-side-kernel-vs-control", "rival-race-loss-shape",
                "rival-multitask-family"):
        c = claims.criterion(key, 1)
        assert c.test in claim_tests.TESTS and claims.criterion(key).test in claim_tests.TESTS
    assert "POST HOC" in claims.criterion("rival-race-loss-shape").text
    j = claims.judge("rival-side-order", p=[0.001, 0.002, 0.003, 0.004], p_reverse=[0.9] * 4,
                     labels=["eNTK", "linearized", "targets", "size"], n=12)
    assert j.verdict == "reproduced"
    j = claims.judge("rival-side-order", p=[0.001] * 4, p_reverse=[0.9] * 4, labels=list("abcd"), n=5)
    assert j.verdict == "not tested"  # fewer networks than the declared minimum


# --- lib/analyses/rival_comparison.py ------------------------------------------------------------------
import jax
import jax.numpy as jnp
from scipy.stats import permutation_test

from lib.analyses import rival_comparison as rc
from lib.analyses.controls import small_weight_entk
from lib.core.kernels import entk
from lib.core.models import MultitaskNet
from lib.core.steps import gradient_step
from lib.core.tasks import TaskEnvironment
from lib.experiments.continuum import scaled_initial_params, train_linearized
from lib.experiments.route_learning import run_route_learning

ENV = TaskEnvironment()


def test_sign_flip_p_is_scipys_exact_permutation_test():
    d = np.array([0.3, -0.1, 0.5, 0.2, -0.05, 0.4, 0.1])
    greater, less = rc.sign_flip_p(d)
    for alternative, ours in (("greater", greater), ("less", less)):
        ref = permutation_test((d,), np.mean, permutation_type="samples", alternative=alternative, n_resamples=np.inf)
        assert ours == pytest.approx(ref.pvalue, abs=1e-12)
    assert rc.sign_flip_p(np.ones(5))[0] == pytest.approx(1 / 32)
    assert rc.sign_flip_p([np.nan, 1.0, 2.0])[0] == pytest.approx(1 / 4)  # non-finite pairs dropped
    big = np.random.default_rng(1).normal(0.5, 1, 40)  # Monte Carlo beyond 16 pairs
    ref = permutation_test((big,), np.mean, permutation_type="samples", alternative="greater", n_resamples=20000,
                           random_state=0)
    assert rc.sign_flip_p(big)[0] == pytest.approx(ref.pvalue, abs=0.005)
    assert all(np.isnan(rc.sign_flip_p([np.nan])))


def test_mean_interval_brackets_the_mean():
    mean, lo, hi = rc.mean_interval(np.arange(10.0))
    assert mean == 4.5 and lo < 4.5 < hi and hi - lo < 5
    assert np.isnan(rc.mean_interval([1.0, np.nan])[1])


def test_profile_distances_against_a_loop():
    rng = np.random.default_rng(0)
    kernel, task_of = rng.normal(size=(3, 12, 12)), np.repeat(np.arange(4), 3)
    pairs = np.array([[0, 1], [0, 3], [2, 3]])
    profiles = np.stack([kernel[:, :, task_of == g].mean(axis=2).ravel() for g in range(4)])
    centered = profiles - profiles.mean(axis=0)
    cos = lambda a, b: a @ b / np.linalg.norm(a) / np.linalg.norm(b)
    expected = [1 - cos(centered[a], centered[b]) for a, b in pairs]
    assert np.allclose(rc.profile_distances(kernel, task_of, pairs), expected)
    with pytest.raises(ValueError, match="kernel must be"):
        rc.profile_distances(kernel[0], task_of, pairs)


def test_limit_ntk_is_the_small_weight_entk_without_its_loss_factor():
    net = MultitaskNet.for_environment(ENV, 16)
    data = ENV.make_data(10, 40, 1, "iid", multitask=False, stream=0)[0]
    x, y = np.asarray(data.x), np.asarray(data.y)
    y0 = 1 / (1 + np.exp(-net.bias_output))
    eps0 = 2 * (y0 - y)  # (M, K)
    assert np.allclose(small_weight_entk(net, x, x, y), rc.limit_ntk(net, x)[None] * eps0.T[:, None, :])
    # and it is the limit of the network's own traced-output NTK block as the weights shrink
    tiny = jax.tree.map(lambda a: a[0], scaled_initial_params(net, (10,), 1e-4))
    e = np.asarray(entk(net, tiny, jnp.asarray(x), jnp.asarray(x), jnp.asarray(y)), np.float64)
    assert np.allclose(e, rc.limit_ntk(net, x)[None] * eps0.T[:, None, :], rtol=1e-2, atol=1e-5)


def test_kernel_flow_is_the_integrated_gradient_flow():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(8, 8))
    theta, f0, y = a @ a.T / 8, rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    task_of = np.array([0, 0, 1, 1, 1, 2, 2, 2])
    times = np.linspace(0, 2, 5)
    closed = rc.kernel_flow_route_losses(theta, f0, y, task_of, 3, times)
    f, dt, euler = f0.copy(), 1e-4, [rc.route_losses(f0, y, task_of, 3)]
    for _ in times[1:]:  # 5000 Euler steps of df/dt = -2 theta (f - y) per interval of 0.5
        for _ in range(5000):
            f = f - dt * 2 * theta @ (f - y)
        euler.append(rc.route_losses(f, y, task_of, 3))
    assert np.allclose(closed, np.array(euler), rtol=2e-3)


def test_initial_rate_is_the_first_gradient_steps_loss_change():
    net = MultitaskNet.for_environment(ENV, 16)
    data = ENV.make_data(11, 60, 1, "iid", multitask=False, stream=0)[0]
    x, y = jnp.asarray(data.x), jnp.asarray(data.y)
    params = jax.tree.map(lambda a: a[0], scaled_initial_params(net, (11,), 1.0))
    task_of = np.argmax(np.asarray(x)[:, net.n_stimulus:], axis=1)
    f0 = np.asarray(net.apply(params, x), np.float64)
    times = rc.initial_rate_times(np.asarray(entk(net, params, x, x, y)), f0, np.asarray(y), task_of, ENV.n_tasks)
    lr = 1e-3
    f1 = np.asarray(net.apply(gradient_step(net, params, x, y, lr), x), np.float64)
    l0, l1 = rc.route_losses(f0, y, task_of, ENV.n_tasks), rc.route_losses(f1, y, task_of, ENV.n_tasks)
    observed_rate = (l0 - l1) / lr
    assert np.all(observed_rate > 0)
    assert np.allclose(l0 / times, observed_rate, rtol=0.03)


def test_loss_shape_of_an_exponential_and_of_a_plateau():
    t = np.linspace(0, 10, 2001)
    assert rc.loss_shape(np.exp(-t), t) == pytest.approx(1 - 2 ** -0.5, abs=1e-3)
    plateau = 1 / (1 + np.exp(2 * (t - 5)))
    assert rc.loss_shape(plateau, t) < 0.01
    assert np.isnan(rc.loss_shape(0.6 + 0.4 * np.exp(-t), t))  # never halves: no time to half loss
    with pytest.raises(ValueError, match="curve and clock"):
        rc.loss_shape(t[:1], t[:1])


def test_linearized_routes_and_hidden_against_the_lib_linearization():
    run = run_route_learning(ENV, (10, 11), 1.0, 0.1, 40, 5, 8, 60)
    net = MultitaskNet.for_environment(ENV, 8)
    final, losses = rc.train_linearized_routes(net, run, 0.1)
    theta0 = {k: jnp.asarray(run[k][:, 0]) for k in ("w_hidden", "w_output")}
    _, total = train_linearized(net, theta0, run["x_train"], run["y_train"], jnp.full((2,), 0.1), 40, 5)
    counts = np.stack([np.bincount(np.argmax(x[:, net.n_stimulus:], axis=1), minlength=ENV.n_tasks)
                       for x in run["x_train"]])
    assert np.allclose(np.nansum(losses * counts[:, None, :], axis=2), np.asarray(total), rtol=1e-4)
    # the linearized hidden layer agrees with the network to first order for a small step
    one = {k: v[0] for k, v in theta0.items()}
    step = jax.tree.map(lambda a: a + 1e-3, one)
    h_net = np.asarray(net.hidden(step, jnp.asarray(run["all_x"])))
    h_lin = rc.linearized_hidden(net, one, step, run["all_x"])
    h0 = np.asarray(net.hidden(one, jnp.asarray(run["all_x"])))
    assert np.abs(h_lin - h_net).max() < 0.05 * np.abs(h_net - h0).max()


def test_kernel_predictions_end_to_end_small():
    run = run_route_learning(ENV, (10, 11, 12), 1.0, 0.1, 400, 21, 16, 120)
    out = rc.kernel_predictions(ENV, run, 0.1, control_points=101)
    assert out["distance_entk"].shape == (3, 66) and out["time_targets"].shape == (3, ENV.n_tasks)
    assert np.all(np.isfinite(out["distance_entk"])) and np.all(np.isfinite(out["shape_observed"]))
    assert out["time_entk"].shape == out["time_linearized"].shape == (3, ENV.n_tasks)
    assert np.all(np.isfinite(out["time_entk"]))
    cells = rc.paired_cells({1.0: np.array([0.5, 0.6, 0.7])}, {"size": {1.0: np.array([0.1, 0.2, np.nan])}})
    assert list(cells["labels"]) == ["size, g = 1"] and cells["n"][0] == 2 and cells["p"][0] == pytest.approx(0.25)


def test_spearman_family_and_table():
    from scipy.stats import binomtest, spearmanr

    p, o = np.array([3.0, 1.0, np.inf, 2.0, np.inf]), np.array([2.0, 1.0, 5.0, 4.0, 3.0])
    assert rc.spearman(p, o) == pytest.approx(spearmanr(p, o).statistic)
    assert np.isnan(rc.spearman(np.full(4, np.inf), np.arange(4.0)))
    fam = rc.family_p_values({"share": (10, 12)}, {"mean": np.ones(6)})
    assert list(fam["labels"]) == ["share", "mean"]
    assert fam["p"][0] == pytest.approx(binomtest(10, 12, 0.5, alternative="greater").pvalue)
    assert fam["p"][1] == pytest.approx(1 / 64) and fam["p_reverse"][1] == 1.0
    table = rc.interval_table({0.5: {"x": np.arange(5.0)}, 2.0: {"x": np.array([1.0, np.nan])}}, ["x"])
    assert table.loc["x", "g = 0.5"].startswith("+2.00 [") and table.loc["x", "g = 2"] == "+1.00"
    assert table.loc["x", "networks per scale"] == "5, 1"
    assert rc.interval_table({1.0: {"x": np.full(3, np.nan)}}, ["x"]).loc["x", "g = 1"] is None


def test_outcome_scores_on_one_small_scale():
    from lib.analyses import rival_theories as rt

    run = run_route_learning(ENV, seeds=(10, 11, 12), g=0.5, learning_rate=0.2, n_iterations=200, n_snapshots=5,
                             n_hidden=16, n_train=120)
    analysis = rt.network_analysis(ENV, run, 0.2, n_fit=1, n_pairs=2, n_permutations=50)
    kernels = rc.kernel_predictions(ENV, run, 0.2, control_points=201)
    scores = rc.outcome_scores(analysis, kernels, n_fit=1)
    assert set(scores["a"]) == set(rc.A_PREDICTORS) and all(v.shape == (2,) for v in scores["a"].values())
    assert set(scores["b"]) == set(rc.B_PREDICTORS) and all(v.shape == (3,) for v in scores["b"].values())
    np.testing.assert_allclose(scores["a"]["two-point theory"], analysis["pair_r"])  # the chapter's own r
    np.testing.assert_allclose(scores["b"]["race"], analysis["rho_race"])
    held_linearized = kernels["distance_linearized"][1:]
    assert rc.pearson(held_linearized[0], analysis["observed"][0]) == pytest.approx(scores["a"]["linearized at t=0"][0])
    assert all(np.all(v[np.isfinite(v)] >= 0) for v in scores["c"].values())  # nan: a curve that never halves


def test_the_trapezoid_weights_give_the_accumulated_kernel():
    from lib.analyses.horizon_points import accumulated_kernels

    iterations, kernels = np.array([0.0, 10, 30, 60]), np.random.default_rng(3).normal(size=(4, 2, 3, 3))
    weights = accumulated_kernels(iterations, np.eye(4))[-1]
    assert np.allclose(np.tensordot(weights, kernels, axes=1), accumulated_kernels(iterations, kernels)[-1])


def test_side_by_side_figure_keeps_rows_without_scores():
    import matplotlib

    matplotlib.use("Agg")
    from lib.book.plot_rival_theories import plot_side_by_side

    rng = np.random.default_rng(0)
    scores = {g: {"a": {"x": rng.normal(size=5), "y": np.full(5, np.nan)}, "b": {"x": rng.normal(size=5)}}
              for g in (0.5, 2.0)}
    fig = plot_side_by_side(scores, {"a": ("x", "y"), "b": ("x",)})
    assert len(fig.axes) == 2 and [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["x", "y"]
    assert all(ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes)  # every panel says what its axes are
    matplotlib.pyplot.close(fig)  # later tests check every open figure


def test_time_ratio_is_the_median_log_ratio_over_routes_with_times():
    predicted = np.array([[10.0, 100.0, np.inf, 1.0], [np.inf] * 4])
    observed = np.array([[10.0, 10.0, 5.0, 10.0], [1.0, 2.0, 3.0, 4.0]])
    out = rc.time_ratio(predicted, observed)
    assert out[0] == pytest.approx(0.0) and np.isnan(out[1])  # median of (0, 1, -1); no finite route
    with pytest.raises(ValueError, match="predicted and observed"):
        rc.time_ratio(predicted[0], observed[0])


def test_route_times_and_shape_leave_out_empty_routes_and_diverged_runs():
    from lib.analyses.rival_comparison import diverged, loss_shape, route_times_and_shape
    from lib.experiments.gated_race import learning_times

    clock = np.linspace(0.0, 10.0, 21)
    losses = np.stack([np.exp(-clock), np.exp(-2 * clock), np.full(21, np.nan)], axis=1)  # route 3: no patterns
    times, shape = route_times_and_shape(losses, clock)
    np.testing.assert_allclose(times[:2], learning_times(losses[:, :2], clock))
    assert np.isnan(times[2]) and shape == loss_shape(losses[:, :2].mean(axis=1), clock)
    assert not diverged(losses)  # the route without patterns does not count
    losses[5:, 0] = np.inf  # diverged
    times, shape = route_times_and_shape(losses, clock)
    assert np.isnan(times).all() and np.isnan(shape) and diverged(losses)
