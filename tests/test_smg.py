"""SMG validation: simulator vs the closed form, eNTK mode identification, ePNTK accuracy."""

import numpy as np
import pytest

from lib.experiments import smg


@pytest.fixture(scope="module")
def problem():
    return smg.make_smg_problem(0)


def test_problem_is_whitened_with_requested_spectrum(problem):
    np.testing.assert_allclose(problem.x.T @ problem.x, np.eye(4), atol=1e-10)
    np.testing.assert_allclose(problem.x.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.svd(problem.w_target, compute_uv=False), [90, 24, 7, 1], rtol=1e-10)
    np.testing.assert_allclose(problem.y.T @ problem.x, problem.w_target, atol=1e-9)  # Sigma_yx = W_target


def test_closed_form_identities():
    s, u0, tau = 24.0, 1e-3, 3125.0
    assert smg.mode_strength_closed_form(0.0, s, u0, tau) == pytest.approx(u0)
    assert smg.mode_strength_closed_form(smg.half_time_closed_form(s, u0, tau), s, u0, tau) == pytest.approx(s / 2)
    assert smg.mode_strength_closed_form(1e6, s, u0, tau) == pytest.approx(s)
    assert smg.time_constant(250, 5, 0.2) == pytest.approx(3125.0)


def test_aligned_twin_follows_the_closed_form(problem):
    run = smg.run_smg(problem, seed=0, n_iterations=2500, init="aligned")
    simulated, closed = smg.half_times(problem, run), smg.closed_form_half_times(problem, run)
    np.testing.assert_allclose(simulated, closed, rtol=0.05)
    strengths = smg.mode_strengths(smg.end_to_end_maps(run), problem)
    # discrete steps lag gradient flow by ~2 iterations; mode 1 rises at up to s^2/(2 tau) ~ 1.3 per iteration
    np.testing.assert_allclose(strengths[:, :3], smg.closed_form_strengths(problem, run), atol=0.04 * 90)


def test_entk_identifies_the_mode_being_learned(problem):
    run = smg.run_smg(problem, seed=0, n_iterations=800)
    vectors, _ = smg.input_singular_vectors(smg.entk_predicted_map_change(problem, run))
    overlaps = smg.mode_overlaps(vectors, problem)
    at_190, at_770 = overlaps[19, 0], overlaps[77, 0]
    assert np.argmax(at_190) == 0 and at_190[0] > 0.95, at_190
    assert np.argmax(at_770) == 1 and at_770[1] > 0.95, at_770


def test_entk_map_change_is_the_first_order_step(problem):
    """-lr * sum_m K(e_i, x_m) equals the first-order change of W_2 W_1 under one GD step."""
    run = smg.run_smg(problem, seed=0, n_iterations=200, record_every=100)
    predicted = smg.entk_predicted_map_change(problem, run)[1]
    params = smg.params_at(run, 100)
    w1, w2 = np.asarray(params["w1"]), np.asarray(params["w2"])
    residual = (problem.y - problem.x @ (w2 @ w1).T) * (2 / problem.y.size)  # -dL/dy for the mean loss
    grad_map = residual.T @ problem.x  # -dL/dW (n_out, n_in)
    first_order = 0.2 * (w2 @ w2.T @ grad_map + grad_map @ w1.T @ w1)
    np.testing.assert_allclose(predicted, first_order, rtol=1e-8, atol=1e-12)


def test_epntk_recovers_the_learned_map_to_first_order(problem):
    coarse = smg.epntk_errors(problem, 0, 0.2, total_time=0.2 * 190)
    fine = smg.epntk_errors(problem, 0, 0.1, total_time=0.2 * 190)
    assert coarse["iterations"] == 190 and fine["iterations"] == 380
    assert coarse["map_error"] < 0.03 and coarse["output_error"] < 0.03
    assert 1.7 < coarse["map_error"] / fine["map_error"] < 2.3


def test_runs_require_float64(problem, monkeypatch):
    import jax

    monkeypatch.setattr(jax.config, "read", lambda name: False if name == "jax_enable_x64" else None)
    with pytest.raises(RuntimeError, match="float64"):
        smg.run_smg(problem)


def test_bad_smg_parameters(problem):
    with pytest.raises(ValueError, match="singular_values must be 4 positive numbers"):
        smg.make_smg_problem(0, singular_values=(90, 24, 7))
    with pytest.raises(ValueError, match="init must be one of"):
        smg.run_smg(problem, init="orthogonal")
    run = smg.run_smg(problem, n_iterations=20)
    with pytest.raises(ValueError, match="t must be one of the recorded iterations"):
        smg.params_at(run, 15)


def test_switch_times_known_sequence():
    times = np.array([0, 10, 20, 30, 40])
    overlaps = np.array([[0.5, 0.4, 0.1], [0.95, 0.1, 0.0], [0.97, 0.2, 0.0], [0.3, 0.92, 0.1], [0.1, 0.99, 0.1]])
    np.testing.assert_array_equal(smg.switch_times(times, overlaps), [10.0, 30.0, np.nan])
    np.testing.assert_array_equal(smg.switch_times(times, overlaps, threshold=0.5), [0.0, 30.0, np.nan])
