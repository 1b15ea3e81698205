"""Controls for the t=0 eNTK: its small-weight limit, the rival predictors and the shuffle null,
on inputs with known answers."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lib.analyses import controls
from lib.analyses.entk_vectors import leading_vectors, loglog_slope
from lib.core.kernels import entk_structured
from lib.core.losses import squared_error
from lib.core.models import MultitaskNet
from lib.core.tasks import TaskEnvironment

ENV = TaskEnvironment()


def scaled_network(scale, n_hidden=30, n_train=40, seed=0):
    net = MultitaskNet.for_environment(ENV, n_hidden)
    params = net.init(jax.random.PRNGKey(seed), weight_range=scale, dtype=jnp.float64)
    train, _ = ENV.make_data(seed, n_train, 10)
    return net, params, jnp.asarray(train.x), jnp.asarray(train.y)


def test_small_weight_limit_error_shrinks_linearly_with_the_init_scale():
    scales = np.array([0.08, 0.04, 0.02, 0.01])
    errors = []
    for scale in scales:
        net, params, x, y = scaled_network(scale)
        exact = np.asarray(entk_structured(net, params, x, x, y))
        limit = controls.small_weight_entk(net, x, x, y)
        errors.append(np.linalg.norm(exact - limit) / np.linalg.norm(limit))
    assert 0.8 < loglog_slope(scales, errors) < 1.2
    assert errors[-1] < 0.05


def test_leading_vector_of_the_limit_is_the_loss_sensitivity():
    """The limit kernel is close to rank one, 1 eps0_k^T: its leading right vector is eps0 (R^2 ~ 1)."""
    net, _, x, y = scaled_network(0.1, n_hidden=200, n_train=300)
    limit = controls.small_weight_entk(net, x, x, y)
    eps0 = 2 * (1 / (1 + np.exp(2.0)) - np.asarray(y))
    share = controls.explained_share(leading_vectors(limit), eps0)
    assert share.min() > 0.99


def test_loss_sensitivity_and_output_error_are_the_loss_gradients():
    net, params, x, y = scaled_network(1.0)
    out = net.apply(params, x)
    eps = jax.grad(lambda o: squared_error(o, y))(out)
    np.testing.assert_allclose(controls.loss_sensitivity(net, params, x, y), eps, rtol=1e-12)
    z = jnp.concatenate([net.hidden(params, x), net.task_input(x)], axis=1)
    pre = z @ params["w_output"].T + net.bias_output
    by_pre_activation = jax.grad(lambda a: squared_error(jax.nn.sigmoid(a), y))(pre)
    np.testing.assert_allclose(controls.output_error(net, params, x, y), by_pre_activation, rtol=1e-10)


def test_explained_share_and_sign_alignment_known_answers():
    rng = np.random.default_rng(0)
    reference = rng.normal(size=(50, 3))
    assert controls.explained_share(-2 * reference + 1, reference) == pytest.approx([1, 1, 1])
    orthogonal = np.stack([reference[:, 1], reference[:, 0], np.ones(50)], axis=1)
    share = controls.explained_share(orthogonal, reference)
    assert share[0] < 0.2 and share[1] < 0.2 and np.isnan(share[2])
    flipped = reference * np.array([-1.0, 1.0, -1.0])
    np.testing.assert_array_equal(controls.align_signs(flipped, reference), reference)
    with pytest.raises(ValueError, match="one shape"):
        controls.explained_share(reference, reference[:, :2])


def test_eta_squared_permutation_separates_planted_structure_from_noise():
    rng = np.random.default_rng(1)
    labels = np.repeat(np.arange(12), 20)
    planted = np.stack([labels % 3 + rng.normal(size=240) for _ in range(4)], axis=1)
    observed, null, p = controls.eta_squared_permutation(planted, labels, 200)
    assert observed > 0.3 and null.max() < observed and p == pytest.approx(1 / 201)
    _, _, p_noise = controls.eta_squared_permutation(rng.normal(size=(240, 4)), labels, 200)
    assert p_noise > 0.05


def test_initial_structure_verifies_the_limit_on_real_networks():
    """At the paper's standard init the eNTK's leading vectors are the loss sensitivities
    (R^2 > 0.95); at large init they are not, and the limit is far off."""
    out = controls.run_initial_structure(ENV, [0], n_hidden=50, n_train=120, n_test=120,
                                         predictors=("entk_principled", "epsilon", "targets"))
    assert out["loadings/entk_principled"].shape == (1, 2, 120, 9)
    assert set(out) >= {"silhouette/entk_principled", "silhouette/epsilon", "silhouette/targets", "limit_error"}
    share = [np.nanmean(controls.explained_share(out["loadings/entk_principled"][0, i], out["loadings/epsilon"][0, i]))
             for i in range(2)]
    assert share[0] > 0.95 and share[1] < share[0]
    assert out["limit_error"][0, 0] < 0.5 < out["limit_error"][0, 1]
    with pytest.raises(ValueError, match="predictors\\[\\] must be one of"):
        controls.run_initial_structure(ENV, [0], predictors=("kernel",))


def test_shares_and_shuffle_tests_over_networks():
    rng = np.random.default_rng(2)
    labels = np.repeat(np.arange(6), 10)
    eps = rng.normal(size=(2, 2, 60, 3))
    structure = {"loadings/entk": 2 * eps + 0.01 * rng.normal(size=eps.shape), "loadings/epsilon": eps,
                 "loadings/noise": rng.normal(size=eps.shape)}
    shares = controls.shares_explained(structure, "entk", ("epsilon", "noise"))
    assert shares["epsilon"].shape == (2, 2) and shares["epsilon"].min() > 0.99 and shares["noise"].max() < 0.3
    planted = eps + (labels % 2)[None, None, :, None] * 3
    tests = controls.shuffle_tests(planted, [labels, labels], n_permutations=100)
    assert tests["p"].shape == (2, 2) and tests["p"].max() < 0.02
    assert (tests["observed"] > tests["null_95"]).all()


def test_disjoint_split_uses_the_remaining_patterns_and_refuses_the_authors_variant():
    from lib.experiments.schedules import test_set_size

    assert test_set_size(ENV, "iid") == 500 and test_set_size(ENV, "disjoint") == 472
    assert test_set_size(ENV, "disjoint", n_test=100) == 100
    with pytest.raises(ValueError, match="needs as many test as training patterns"):
        controls.run_initial_structure(ENV, [0], split="disjoint", predictors=("entk_authors",))


def test_ntk_loadings_are_the_top_eigenvectors_of_the_full_ntk_blocks():
    """Plain-NTK control against an independent route: the full (N, M, K, K) NTK, its diagonal
    output blocks, and numpy's symmetric eigendecomposition (the blocks are PSD)."""
    from lib.core.kernels import ntk

    net, params, x, _ = scaled_network(0.5, n_train=24)
    loadings = controls.ntk_loadings(net, params, np.asarray(x))
    blocks = np.einsum("nmkk->knm", np.asarray(ntk(net, params, x, x), dtype=np.float64))
    for k, block in enumerate(blocks):
        _, vectors = np.linalg.eigh(block)
        top = vectors[:, -1]
        assert abs(float(top @ loadings[:, k])) == pytest.approx(1.0, abs=1e-6)


def test_batched_eta_squared_equals_the_one_hot_definition():
    """The group sums by bincount equal the one-hot definition of eta^2 (between-group over total sum
    of squares, averaged over the columns that vary) for every label set, a constant column and an
    empty group included."""
    rng = np.random.default_rng(8)
    values = rng.normal(size=(60, 4))
    values[:, 2] = 1.5  # constant: left out of the mean
    labels = rng.integers(0, 5, 60)
    labels[labels == 3] = 4  # group 3 empty
    sets = np.stack([labels] + [rng.permutation(labels) for _ in range(30)])
    centred = values - values.mean(axis=0)
    total = (centred ** 2).sum(axis=0)
    expected = []
    for row in sets:
        between = sum(centred[row == g].sum(axis=0) ** 2 / (row == g).sum() for g in np.unique(row))
        expected.append(np.mean((between / total)[total > 0]))
    np.testing.assert_allclose(controls._batch_eta_squared(values, sets), expected, rtol=1e-12)


def test_cached_structure_computes_each_pair_and_predictor_once_and_equals_one_run(results_tmp, monkeypatch):
    """Entries are per pair and predictor: a later call with more seeds or predictors computes only the
    missing ones, and whatever the calls before it, the result is that of one run_initial_structure
    call (a pair's structure does not depend on the other seeds asked for)."""
    computed = []
    run = controls.run_initial_structure

    def counting(env, seeds, *args, predictors, **kwargs):
        computed.extend((s, p) for s in seeds for p in predictors)
        return run(env, seeds, *args, predictors=predictors, **kwargs)

    monkeypatch.setattr(controls, "run_initial_structure", counting)
    first = controls.cached_initial_structure(ENV, [3], n_hidden=20, predictors=("epsilon",))
    later = controls.cached_initial_structure(ENV, [2, 3], n_hidden=20, predictors=("epsilon", "entk_principled"))
    assert sorted(computed) == [(2, "entk_principled"), (2, "epsilon"), (3, "entk_principled"), (3, "epsilon")]
    again = controls.cached_initial_structure(ENV, [3, 2], n_hidden=20, predictors=("entk_principled",))
    assert len(computed) == 4  # every entry read from the cache
    direct = run(ENV, [2, 3], 20, predictors=("epsilon", "entk_principled"))
    assert sorted(later) == sorted(direct)
    for k, value in direct.items():
        np.testing.assert_array_equal(later[k], value, err_msg=k)
        assert later[k].dtype == value.dtype, k
    np.testing.assert_array_equal(first["silhouette/epsilon"], direct["silhouette/epsilon"][1:])
    np.testing.assert_array_equal(again["loadings/entk_principled"], direct["loadings/entk_principled"][::-1])
    np.testing.assert_array_equal(again["limit_error"], direct["limit_error"][::-1])
