"""lib.analyses.rival_continuum: the two-point theory's (a) on the continuum's networks."""

import numpy as np
import pytest
from scipy.stats import pearsonr

from lib.analyses import continuum_points as cp
from lib.analyses import rival_continuum as rcon
from lib.analyses import rival_theories as rt
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment
from lib.experiments import route_learning
from lib.experiments.continuum import run_continuum

SEEDS, G, LR, N_HIDDEN, N_TRAIN, N_SINGLE = (2, 3), 1.5, 0.1, 12, 48, 20


@pytest.fixture(scope="module")
def small():
    env = TaskEnvironment()
    run = run_continuum(env, SEEDS, G, "both", LR, N_SINGLE, 10, 4, n_hidden=N_HIDDEN, n_train=N_TRAIN, n_test=N_TRAIN)
    net = MultitaskNet.for_environment(env, N_HIDDEN)
    outcomes = [cp.network_outcomes(env, net, run, i, 0.1, 0.1) for i in range(len(SEEDS))]
    cached = {k: np.stack([o[k] for o in outcomes]) for k in cp.TASK_PAIR_DISTANCES}
    return env, run, cached


def test_initial_predictions_are_of_the_cached_networks(small):
    env, run, cached = small
    rates = {"rate_h": 0.3, "rate_y": 0.7}
    pred = rcon.initial_predictions(env, G, SEEDS, rates, N_HIDDEN, N_TRAIN)
    assert rcon.check_initial_match(pred["initial"], cached["pairs/initial"]) < 1e-3
    # Eq. 36 pattern pair by pattern pair, from the seed's t=0 state, then averaged over stimuli
    patterns = env.all_patterns()
    pairs = rt.same_stimulus_pairs(patterns.task, patterns.stimulus)
    dx2, dy2 = rt.pair_distances(patterns.x, patterns.y, pairs)
    net = MultitaskNet.for_environment(env, N_HIDDEN)
    p0 = {k.split("/")[1]: v[0] for k, v in run.items() if k.startswith("params_initial/")}
    h, f = np.asarray(net.hidden(p0, patterns.x), np.float64), np.asarray(net.apply(p0, patterns.x), np.float64)
    a0 = ((h[pairs[..., 1]] - h[pairs[..., 0]]) ** 2).sum(-1)
    b0 = ((f[pairs[..., 1]] - f[pairs[..., 0]]) ** 2).sum(-1)
    high = a0 - rates["rate_h"] / rates["rate_y"] * b0 * dx2 / a0
    expected = high / 2 + np.sqrt(high ** 2 / 4 + rates["rate_h"] / rates["rate_y"] * dx2 * dy2)
    np.testing.assert_allclose(pred["two_point"][0], expected.mean(axis=1), rtol=1e-4)
    for key in ("entk", "targets"):
        assert pred[key].shape == (2, 66) and np.all(np.isfinite(pred[key]))
        assert np.all(pred[key] >= -1e-9) and np.all(pred[key] <= 2 + 1e-9)  # 1 - a cosine similarity


def test_the_training_set_is_the_continuums(small):
    env, run, _ = small
    for i, seed in enumerate(SEEDS):
        train, _ = env.make_data(seed, N_TRAIN, N_TRAIN, "iid", multitask=False, stream=0)
        np.testing.assert_array_equal(train.x, run["x_train"][i])


def test_fit_networks_train_like_the_continuum(small):
    """The held-out networks' trainer (run_route_learning) gives the continuum's single-task networks."""
    env, run, cached = small
    fit_run = route_learning.run_route_learning(env, SEEDS, G, LR, N_SINGLE, 3, N_HIDDEN, N_TRAIN)
    pairs = rt.same_stimulus_pairs(fit_run["all_task"], fit_run["all_stimulus"])
    final = np.stack([rt.task_pair_hidden_distances(h[-1], pairs) for h in fit_run["hidden"]])
    np.testing.assert_allclose(final, cached["pairs/single"], rtol=1e-3, atol=1e-6)


def test_rate_fit_never_uses_the_analysed_seeds(monkeypatch):
    seen = []
    real = route_learning.run_route_learning

    def spy(env, seeds, *args, **kwargs):
        seen.append(tuple(seeds))
        return real(env, seeds, *args, **kwargs)

    monkeypatch.setattr(rcon, "run_route_learning", spy)
    env = TaskEnvironment()
    fit = rcon.fit_scale_rates(env, 1.0, 0.1, (40, 41), 30, 100, 11, 8, 48)
    assert seen == [(40, 41)] and not set(seen[0]) & set(range(30))
    assert fit["rate_h"] > 0 and fit["rate_y"] > 0
    for bad in ((29, 40), (0,), ()):
        with pytest.raises(ValueError, match="fit_seeds"):
            rcon.fit_scale_rates(env, 1.0, 0.1, bad, 30, 100, 11, 8, 48)
    assert len(seen) == 1  # rejected before any training


def test_rate_fit_equals_the_fit_on_every_pair():
    """Fitting on the chosen pattern pairs only gives chapter 13's fit on the whole (Q, M) trajectories."""
    env = TaskEnvironment()
    fit = rcon.fit_scale_rates(env, 1.0, 0.1, (40, 41), 30, 100, 11, 8, 48)
    run = route_learning.run_route_learning(env, (40, 41), 1.0, 0.1, 100, 11, 8, 48)
    pairs = rt.same_stimulus_pairs(run["all_task"], run["all_stimulus"])
    dx2, dy2 = rt.pair_distances(run["all_x"], run["all_y"], pairs)
    trajectories = [rt.pair_trajectories(h, o, run["all_y"], pairs) for h, o in zip(run["hidden"], run["outputs"])]
    full = rt.fit_pair_rates(0.1 * run["iterations"].astype(float), trajectories, dx2, dy2)
    for key in ("rate_h", "rate_y", "fit_error"):
        np.testing.assert_allclose(fit[key], full[key], rtol=1e-6)


def test_check_fit_seeds():
    assert rcon.check_fit_seeds([30, 31], 30) == (30, 31)
    for bad in ([29], [30, 30], [cp.LR_SELECTION_SEED], [-1], "x"):
        with pytest.raises(ValueError, match="fit_seeds"):
            rcon.check_fit_seeds(bad, 30)
    with pytest.raises(ValueError, match="n_analysed"):
        rcon.check_fit_seeds([30], 0)


def test_similarity_scores_and_pooled_r():
    rng = np.random.default_rng(0)
    observed, predicted = rng.random((3, 66)) + 0.1, rng.random((3, 66)) + 0.1
    scores = rcon.similarity_scores(observed, {"p": predicted})
    np.testing.assert_allclose(scores["p"], [pearsonr(p, o)[0] for p, o in zip(predicted, observed)], rtol=1e-10)
    np.testing.assert_allclose(rcon.pooled_log_r(predicted, observed),
                               pearsonr(np.log(predicted).ravel(), np.log(observed).ravel())[0], rtol=1e-10)
    diverged = predicted.copy()
    diverged[1, 3] = np.nan
    assert np.isnan(rcon.similarity_scores(observed, {"p": diverged})["p"][1])
    with pytest.raises(ValueError, match="observed"):
        rcon.similarity_scores(observed[0], {"p": predicted[0]})
    with pytest.raises(ValueError, match="'p'"):
        rcon.similarity_scores(observed, {"p": predicted[:2]})
    with pytest.raises(ValueError, match="positive"):
        rcon.pooled_log_r(-predicted, observed)


def test_check_initial_match_rejects_other_networks():
    a = np.ones((2, 66))
    assert rcon.check_initial_match(a, a) == 0.0
    with pytest.raises(ValueError, match="not the same networks"):
        rcon.check_initial_match(a * 1.1, a)
    with pytest.raises(ValueError, match="recomputed and cached"):
        rcon.check_initial_match(a, a[0])


def test_continuum_scores_scale_by_scale_skip_a_scale_without_analysed_networks(small, monkeypatch):
    env, _, cached = small
    rates = {"rate_h": 0.3, "rate_y": 0.7}
    fitted = []
    monkeypatch.setattr(rcon, "cached_scale_rates", lambda env_, g, lr, *rest, **kw: fitted.append((g, lr)) or dict(rates))
    nets = {"g": np.array([G, G, 2 * G]), "seed": np.array([*SEEDS, 9]), "lr": np.array([LR, LR, 0.05]),
            **{k: np.concatenate([cached[k], cached[k][:1]]) for k in ("pairs/initial", "pairs/single",
                                                                        "pairs/linearized")}}
    use = np.array([True, True, False])  # the third network (the only one at 2G) is not analysed
    found = rcon.continuum_scores(env, nets, use, [G, 2 * G], (90, 91), 2, N_SINGLE, 4, N_HIDDEN, N_TRAIN)
    assert fitted == [(G, LR), (2 * G, 0.05)] and found.rates[2 * G]["lr"] == 0.05  # rates at every scale
    assert set(found.scores[G]) == set(rcon.CONTINUUM_PREDICTORS_A) and found.scores[G]["t=0 eNTK"].shape == (2,)
    assert all(v.size == 0 for v in found.scores[2 * G].values())
    assert len(found.match) == 1 and found.match[0] < 1e-3
    assert set(found.pooled) == {*rcon.CONTINUUM_PREDICTORS_A, "observed", rcon.SCALE_ALONE}
    np.testing.assert_allclose(found.pooled[rcon.SCALE_ALONE][0], np.log(G))
    np.testing.assert_array_equal(found.pooled["observed"][0], cached["pairs/single"])
