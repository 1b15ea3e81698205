"""The two-point effective theory (lib/experiments/two_point.py): the ODE against its closed forms
and against the linearised matrix dynamics it reduces, the pair-variable extractor on hand-built
pairs, the network's lazy and rich regimes, the rate fit and its held-out prediction, bad inputs."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lib.experiments import two_point as tp

RATES = (0.7, 1.9)  # (rate_h, rate_y) used for ODE-only checks
DX2, DY2 = 0.25, 1.0


def test_identical_targets_follow_the_logistic_of_eq_39_40():
    times = np.linspace(0.0, 3.0, 61)
    closed = tp.lazy_trajectory(times, 1.5, 0.4, *RATES, DX2)
    ode = tp.integrate_two_point(closed[0], times, *RATES, DX2, 0.0)
    np.testing.assert_allclose(ode, closed, rtol=1e-6, atol=1e-9)
    high, _ = tp.lazy_and_rich_terms(closed[0], *RATES, DX2, 0.0)
    assert closed[-1, 0] == pytest.approx(high, rel=1e-3)  # the lazy regime keeps A_high


def test_balanced_small_init_follows_the_logistic_and_its_plateau_length():
    times = np.linspace(0.0, 40.0, 4001)
    closed = tp.balanced_trajectory(times, 1e-3, *RATES, DX2, DY2)
    ode = tp.integrate_two_point(closed[0], times, *RATES, DX2, DY2)
    np.testing.assert_allclose(ode, closed, rtol=1e-5, atol=1e-9)
    plateau = tp.balanced_plateau_length(1e-3, *RATES, DX2, DY2)
    assert tp.plateau_length(times, ode, DY2) == pytest.approx(plateau, rel=1e-4)
    assert closed[-1, 0] == pytest.approx(np.sqrt(RATES[0] / RATES[1] * DX2 * DY2), rel=1e-6)  # A_low


@pytest.mark.parametrize("initial", [(0.02, 1e-4, 0.01), (0.9, 0.5, 0.3), (0.3, 2.0, -0.4)])
def test_conserved_quantity_and_final_distance_of_eq_36(initial):
    times = np.linspace(0.0, 200.0, 401)
    ode = tp.integrate_two_point(initial, times, *RATES, DX2, DY2, rtol=1e-10)
    conserved = tp.conserved_quantity(ode, *RATES, DX2)
    np.testing.assert_allclose(conserved, conserved[0], rtol=1e-6, atol=1e-8)
    assert ode[-1, 0] == pytest.approx(tp.final_rep_dist2(initial, *RATES, DX2, DY2), rel=1e-6)
    np.testing.assert_allclose(ode[-1, 1:], [DY2, 0.0], atol=1e-6)


def test_approach_to_the_fixed_point_decays_at_the_slow_jacobian_rate():
    initial = (0.9, 0.5, 0.3)
    times = np.linspace(0.0, 30.0, 301)
    ode = tp.integrate_two_point(initial, times, *RATES, DX2, DY2, rtol=1e-11)
    gap = np.abs(ode[:, 0] - tp.final_rep_dist2(initial, *RATES, DX2, DY2))
    late = (times > 8) & (times < 14)
    slope = np.polyfit(times[late], np.log(gap[late]), 1)[0]
    assert -slope == pytest.approx(min(tp.fixed_point_decay_rates(initial, *RATES, DX2, DY2)), rel=0.02)


def test_eq_7_is_the_exact_reduction_of_the_linearised_dynamics_for_a_scalar_hidden_unit():
    """Eq. 17 integrated directly for D_h (1 x 3), D_y (2 x 1): no rotation is possible, so Eq. 7 is exact."""
    rng = np.random.default_rng(0)
    dx, dy_target = rng.normal(size=3), rng.normal(size=2)
    rate_h, rate_y = RATES

    def linearised(t, p):
        d_h, d_y = p[:3][None, :], p[3:][:, None]
        err = d_y @ d_h @ dx - dy_target
        grad_h = 0.5 * (d_y.T @ err)[:, None] * dx[None, :]
        grad_y = 0.5 * err[:, None] * (d_h @ dx)[None, :]
        return np.concatenate([-rate_h * grad_h.ravel(), -rate_y * grad_y.ravel()])

    times = np.linspace(0.0, 10.0, 101)
    params = solve_ivp(linearised, (0, 10), 0.3 * rng.normal(size=5), t_eval=times, rtol=1e-11, atol=1e-13).y.T
    dh = params[:, :3] @ dx
    dy = params[:, 3:] * dh[:, None]
    direct = np.stack([dh**2, (dy**2).sum(1), (dy**2).sum(1) - dy @ dy_target], axis=1)
    ode = tp.integrate_two_point(direct[0], times, rate_h, rate_y, dx @ dx, dy_target @ dy_target, rtol=1e-11)
    np.testing.assert_allclose(ode, direct, rtol=1e-6, atol=1e-8)


def test_pair_variables_on_a_hand_built_pair():
    hidden = np.array([[[0.0, 0.0], [3.0, 4.0]], [[1.0, 1.0], [1.0, 2.0]]])  # T=2, H=2
    outputs = np.array([[[1.0, 0.0], [1.0, 2.0]], [[0.5, 0.5], [0.5, 0.5]]])  # T=2, K=2
    targets = np.array([[0.0, 0.0], [0.0, 1.0]])
    got = tp.pair_variables(hidden, outputs, targets)
    np.testing.assert_allclose(got.rep_dist2, [25.0, 1.0])
    np.testing.assert_allclose(got.out_dist2, [4.0, 0.0])
    np.testing.assert_allclose(got.alignment, [4.0 - 2.0, 0.0])  # ||dy||^2 - dy.(y2 - y1)
    swapped = tp.pair_variables(hidden[:, ::-1] + 7.0, outputs[:, ::-1] - 3.0, targets[::-1] - 3.0)
    np.testing.assert_allclose(swapped.as_array(), got.as_array())  # order and common offsets do not matter


def test_one_simulated_step_is_gradient_descent_by_finite_differences():
    lr, gain, depth, width = 0.1, 1.3, 2, 4
    run = tp.simulate_two_point([gain], [5], [lr], n_steps=1, depth=depth, width=width, record_every=1)
    x, y = tp.two_point_data()
    params = [p[0].copy() for layer in tp.init_mlp([gain], [5], depth, width) for p in layer]

    def forward(ps):
        h = x.T
        for i in range(depth + 1):
            z = ps[2 * i] @ h + ps[2 * i + 1]
            h = np.where(z > 0, z, 0.01 * z) if i < depth else z
        return h.T

    def loss(ps):
        return 0.5 * np.mean(np.sum((forward(ps) - y) ** 2, axis=1))

    stepped = []
    for p in params:
        grad = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            old = p[idx]
            p[idx] = old + 1e-6
            up = loss(params)
            p[idx] = old - 1e-6
            grad[idx] = (up - loss(params)) / 2e-6
            p[idx] = old
        stepped.append(p - lr * grad)
    np.testing.assert_allclose(run["outputs"][0, 0], forward(params), rtol=1e-12)
    np.testing.assert_allclose(run["outputs"][0, 1], forward(stepped), rtol=1e-7, atol=1e-9)


@pytest.fixture(scope="module")
def small_and_large_init():
    """Gain 0.6 (rich) and 2.5 (lazy), seeds 0 and 1, the module's default schedule."""
    run = tp.simulate_two_point([0.6, 0.6, 2.5, 2.5], [0, 1, 0, 1], [0.02, 0.02, 0.0004, 0.0004])
    return run["times"], tp.simulated_trajectories(run)


def test_large_init_keeps_its_initial_representational_distance(small_and_large_init):
    _, traj = small_and_large_init
    for sim in traj[2:]:
        assert abs(sim[-1, 0] / sim[0, 0] - 1) < 0.1
        assert abs(sim[-1, 1] - DY2) < 1e-3  # while the outputs are fitted


def test_small_init_plateaus_then_reaches_the_predicted_distance(small_and_large_init):
    times, traj = small_and_large_init
    for t, sim in zip(times[:2], traj[:2]):
        error = 2 * sim[:, 2] - sim[:, 1] + DY2
        assert (error[t < 10] > 0.8 * error[0]).all()  # the plateau
        assert sim[-1, 0] / sim[0, 0] > 10  # then the representations move apart
    fit = tp.fit_effective_rates(times[0], traj[0], DX2, DY2)  # fitted on seed 0, predicted on seed 1
    predicted = tp.final_rep_dist2(traj[1, 0], fit["rate_h"], fit["rate_y"], DX2, DY2)
    assert predicted == pytest.approx(traj[1, -1, 0], rel=0.15)


def test_small_init_final_distance_scales_with_input_and_target_gaps():
    """Eq. 11's rich limit A_low is proportional to |dx| |dy|, whatever the effective rates."""
    gaps = [(0.5, 1.0), (1.0, 1.0), (0.5, 0.5)]
    final = [tp.simulated_trajectories(tp.simulate_two_point([0.6], [1], [0.02], 5000, input_gap=gx,
                                                             target_gap=gy))[0, -1, 0] for gx, gy in gaps]
    assert final[1] / final[0] == pytest.approx(2.0, rel=0.25)
    assert final[0] / final[2] == pytest.approx(2.0, rel=0.25)


def test_scale_summary_shows_the_plateau_to_decay_transition():
    out = tp.scale_summary(gains=(0.6, 2.5), learning_rates=(0.02, 0.0004), fit_seeds=(0,), test_seeds=(1,))
    assert out["final_sim"].shape == out["plateau_theory"].shape == (2, 1) and out["rate_h"].shape == (2,)
    np.testing.assert_allclose(out["final_rel_error"], np.abs(out["final_theory"] / out["final_sim"] - 1))
    assert (out["final_rel_error"] < 0.15).all()
    assert out["plateau_sim"][0, 0] > 10 and out["plateau_sim"][1, 0] < 0.2  # Fig. 3: plateau, then none
    assert out["plateau_theory"][0, 0] > 10 and out["plateau_theory"][1, 0] < 0.2


def test_a_diverging_learning_rate_is_a_one_line_error_naming_it_and_its_gain():
    # at gain 2.5 the book's rate is 0.0004; 0.1 overflows within the first snapshots on every seed
    with pytest.raises(ValueError, match=r"^tp_learning_rates\[1\] = 0\.1 makes gradient descent diverge at "
                                         r"tp_gains\[1\] = 2\.5: .* not finite by step \d+ of 200 \(seeds \[0, 1\]\)"
                       ) as error:
        tp.scale_summary(gains=(0.6, 2.5), learning_rates=(0.02, 0.1), fit_seeds=(0,), test_seeds=(1,), n_steps=200,
                         gains_name="tp_gains", learning_rates_name="tp_learning_rates")
    assert "\n" not in str(error.value)


def test_first_divergent_snapshots():
    hidden, outputs = np.zeros((3, 4, 2, 5)), np.zeros((3, 4, 2, 1))
    hidden[1, 2, 0, 3], outputs[2, 1, 1, 0] = np.inf, np.nan
    hidden[2, 3] = np.nan
    run = {"hidden": hidden, "outputs": outputs}
    np.testing.assert_array_equal(tp.first_divergent_snapshots(run), [-1, 2, 1])


def test_fit_recovers_the_rates_and_predicts_held_out_trajectories():
    times = np.linspace(0.0, 20.0, 101)
    train = tp.integrate_two_point((0.02, 1e-4, 0.005), times, *RATES, DX2, DY2)
    fit = tp.fit_effective_rates(times, train, DX2, DY2)
    assert (fit["rate_h"], fit["rate_y"]) == pytest.approx(RATES, rel=1e-4)
    assert fit["fit_error"] < 1e-5
    held_out = tp.integrate_two_point((0.05, 2e-3, -0.01), times, *RATES, DX2, DY2)
    assert tp.prediction_error(times, held_out, fit["rate_h"], fit["rate_y"], DX2, DY2) < 1e-4
    assert tp.prediction_error(times, held_out, 3 * fit["rate_h"], 3 * fit["rate_y"], DX2, DY2) > 0.1


@pytest.mark.parametrize("call, name", [
    (lambda: tp.integrate_two_point((0.1, 0.0, 0.0), [0, 1], -1.0, 1.0, DX2, DY2), "rate_h"),
    (lambda: tp.integrate_two_point((0.1, 0.0, 0.0), [0, 1], 1.0, 0.0, DX2, DY2), "rate_y"),
    (lambda: tp.integrate_two_point((0.1, 0.0), [0, 1], 1.0, 1.0, DX2, DY2), "initial_state"),
    (lambda: tp.integrate_two_point((0.1, 0.0, 0.0), [1, 0], 1.0, 1.0, DX2, DY2), "times"),
    (lambda: tp.integrate_two_point((0.1, 0.0, 0.0), [0, 1], 1.0, 1.0, DX2, -1.0), "target_dist2"),
    (lambda: tp.pair_variables(np.zeros((3, 3, 2)), np.zeros((3, 2, 1)), np.zeros((2, 1))), "hidden"),
    (lambda: tp.pair_variables(np.zeros((3, 2, 2)), np.zeros((4, 2, 1)), np.zeros((2, 1))), "outputs"),
    (lambda: tp.pair_variables(np.zeros((3, 2, 2)), np.zeros((3, 2, 1)), np.zeros((2, 2))), "targets"),
    (lambda: tp.fit_effective_rates(np.arange(4.0), np.zeros((4, 2)), DX2, DY2), "trajectories[0]"),
    (lambda: tp.simulate_two_point([0.5, 1.0], [0], [0.01, 0.01]), "gains, seeds and learning_rates"),
    (lambda: tp.simulate_two_point([-0.5], [0], [0.01]), "gains[0]"),
    (lambda: tp.simulate_two_point([0.5], [0], [0.01], depth=1), "depth"),
    (lambda: tp.scale_summary(gains=(0.6,), learning_rates=(0.01,), fit_seeds=(0,), test_seeds=(0,)), "overlap"),
    (lambda: tp.scale_summary(gains=(0.6, 0.9), learning_rates=(0.01, -1.0)), "learning_rates[1]"),
    (lambda: tp.balanced_plateau_length(-5.0, *RATES, DX2, DY2), "initial_rep_dist2"),
    (lambda: tp.plateau_length([0, 1], np.zeros((2, 3)), 0.0), "target_dist2"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("]", r"\]")):
        call()
