"""Chapter 04's tables of the t=0 structure (lib.analyses.structure_report): known answers on
small structures."""

import numpy as np
import pytest
from scipy import stats as scipy_stats

from lib.analyses import controls, partitions, structure_report as report
from lib.analyses import representations as rep
from lib.analyses.kernel_analysis import paired_interval
from lib.core.tasks import TaskEnvironment

ENV = TaskEnvironment()
N_PAIRS = 2


@pytest.fixture(scope="module")
def structure():
    return controls.run_initial_structure(ENV, list(range(N_PAIRS)), n_hidden=20, n_train=120, n_test=120,
                                          predictors=("entk_authors", "epsilon", "output_error"))


def test_training_patterns_and_sorted_panels(structure):
    patterns = report.training_patterns(ENV, structure, 1)
    np.testing.assert_array_equal(patterns.task, structure["tasks_train"][1].argmax(axis=1))  # one-hot rows
    loadings = structure["loadings/entk_authors"][0]
    panels = report.sorted_loading_panels(ENV, loadings, report.training_patterns(ENV, structure, 0))
    assert list(panels) == ["standard init, sorted by input unit", "large init, sorted by input unit",
                            "standard init, sorted by task", "large init, sorted by task"]
    for title, panel in panels.items():  # every panel is its init's rows, reordered
        i = 0 if title.startswith("standard") else 1
        np.testing.assert_array_equal(np.sort(panel, axis=0), np.sort(loadings[i], axis=0))
    first = report.training_patterns(ENV, structure, 0)
    by_task = np.lexsort((ENV.relevant_feature(first), first.task))
    np.testing.assert_array_equal(panels["large init, sorted by task"], loadings[1][by_task])


def test_final_labels_cover_every_group():
    labels = report.final_labels(ENV)
    assert {k: len(v) for k, v in labels.items()} == {"task": ENV.n_tasks, "input": ENV.n_stimulus_units,
                                                      "task_by_input": ENV.n_tasks * ENV.n_features,
                                                      "output": ENV.n_outputs}


def test_variance_explained_is_the_per_network_eta_squared(structure):
    factors = report.loading_factor_names(ENV, structure)
    explained = report.variance_explained(ENV, structure, "epsilon", N_PAIRS)
    assert explained.shape == (N_PAIRS, 2, len(factors))
    p, i = 1, 0
    expected = rep.loading_variance_explained(structure["loadings/epsilon"][p, i],
                                              rep.loading_factors(ENV, report.training_patterns(ENV, structure, p)))
    np.testing.assert_array_equal(explained[p, i], list(expected.values()))
    assert "feature" in factors and "output pool" in factors
    pair = report.sort_factor_eta(explained, factors)
    np.testing.assert_array_equal(pair[..., 0], explained[..., factors.index("feature")])
    np.testing.assert_array_equal(pair[..., 1], explained[..., factors.index("output pool")])


def test_eta_rows_interval_is_the_paired_t_interval():
    rng = np.random.default_rng(0)
    explained = {"entk_authors": rng.random((5, 2, 3))}
    rows = report.eta_rows(explained, ["a", "b", "c"], ["entk_authors"], 5)
    assert [r["_factor"] for r in rows] == ["a", "b", "c"]
    for j, row in enumerate(rows):
        diff = explained["entk_authors"][:, 0, j] - explained["entk_authors"][:, 1, j]
        mean, lo, hi = paired_interval(diff)
        assert row["_lo"] == pytest.approx(lo, rel=1e-12)
        assert row["standard − large [95% CI]"] == f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        assert row["_std"] == explained["entk_authors"][:, 0, j].mean()
    table = report.factor_means_table(explained, ["a", "b", "c"], ["entk_authors"])
    assert table.shape == (1, 3) and table.index.name == "η² of"


def test_oriented_group_means_undo_sign_flips(structure):
    loadings = structure["loadings/entk_authors"]
    flipped = loadings * np.where(np.arange(ENV.n_outputs) % 2, -1.0, 1.0)  # every other output's vector flipped
    reference = structure["loadings/epsilon"]
    means, names = report.oriented_group_means(ENV, structure, loadings, reference, N_PAIRS)
    means_flipped, _ = report.oriented_group_means(ENV, structure, flipped, reference, N_PAIRS)
    assert list(means) == ["standard init, by input unit", "standard init, by task", "large init, by input unit",
                           "large init, by task"]
    assert means["standard init, by task"].shape == (ENV.n_outputs, ENV.n_tasks)
    assert names["large init, by input unit"][0] == "input unit 0"
    for title in means:
        np.testing.assert_allclose(means_flipped[title], means[title], atol=1e-12)


def test_tables_of_shares_silhouettes_and_distances(structure):
    shares = {"authors": controls.shares_explained(structure, "entk_authors", ("epsilon", "output_error"))}
    table = report.share_table(shares, structure["limit_error"])
    assert table.shape == (3, 2) and list(table.columns) == ["standard init", "large init"]
    sil = report.silhouette_table(structure, ("entk_authors", "epsilon"))
    s = structure["silhouette/epsilon"]
    assert sil.loc[controls.LOADING_PREDICTOR_NAMES["epsilon"], "large init"] == \
        f"{s[:, 1].mean():.3f} ± {s[:, 1].std(ddof=1):.3f}"
    r = report.silhouette_correlations(structure)
    assert r["epsilon"] == pytest.approx(scipy_stats.pearsonr(structure["silhouette/entk_authors"].ravel(),
                                                              s.ravel())[0])
    per_output = report.per_output_table(ENV, structure, structure["loadings/entk_authors"], N_PAIRS,
                                         {"epsilon": "ε"})
    assert per_output.shape == (ENV.n_outputs, 2)
    ratios = {"same input pool": np.array([[0.5, 1.0], [0.7, 1.0]])}
    assert report.distance_table(ratios).iloc[0, 0] == "0.60 ± 0.14"


def test_partition_agreement_counts_matches(structure):
    derived = {}
    for g in rep.DERIVED_GROUPINGS:
        by = partitions.REFERENCE_PARTITIONS[g][0]
        reference, n_parts = partitions.reference_partition(ENV, g, by)
        derived[g] = (np.broadcast_to(reference, (N_PAIRS, 2, len(reference))), np.full((N_PAIRS, 2), n_parts))
    rows, agreement = report.partition_agreement(ENV, derived, derived, N_PAIRS)
    assert len(rows) == 2 * len(rep.DERIVED_GROUPINGS)
    for g in rep.DERIVED_GROUPINGS:
        assert agreement[(g, partitions.REFERENCE_PARTITIONS[g][0], "standard")] == N_PAIRS
        assert agreement[(g, "control", "large")] == N_PAIRS


def test_shuffle_null_rows(structure):
    rows, tests = report.shuffle_null_rows(ENV, structure, structure["loadings/epsilon"], N_PAIRS, 100)
    assert [(r["grouping"], r["init"]) for r in rows] == [("routed input unit", "standard"),
                                                          ("routed input unit", "large"), ("task", "standard"),
                                                          ("task", "large")]
    assert tests["task"]["p"].shape == (N_PAIRS, 2)
    from lib.analyses.representation_claims import structured_networks

    by_seed = report.structured_by_seed(ENV, structure, structure["loadings/epsilon"], N_PAIRS, 100)
    assert by_seed(0) == structured_networks(tests["input"]["p"], tests["task"]["p"])  # seed 0: the table's draw
    assert by_seed(3) is by_seed(3)  # each seed computed once


def test_ari_rows_and_onsets():
    iterations = np.array([0, 10, 20, 30])
    rising = np.array([0.0, 0.4, 0.6, 0.9])
    curves = {name: np.broadcast_to(rising, (2, 2, 4)) for name in report.ONSET_CURVES}
    assert report.onsets(curves, iterations) == {name: 15.0 for name in report.ONSET_CURVES}  # interpolated
    row = report.ari_rows({"x": curves[report.ONSET_CURVES[0]]}, iterations)[0]
    assert row["standard: end"] == "0.90 ± 0.00" and row["large: peak (iteration)"] == "0.90 (30)"
    assert row["standard: first ≥ 0.5"] == "15"
    flat = report.ari_rows({"x": np.full((2, 2, 4), 0.1)}, iterations)[0]
    assert flat["standard: first ≥ 0.5"] == "never"  # not a raw "nan" cell
