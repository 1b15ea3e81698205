"""Chapter 04's blocks (lib.book.representation_blocks) on a small t=0 structure (two pairs of
20-hidden-unit networks, 120 training patterns) and on hand-built curves, ratios and hidden activity."""

from __future__ import annotations

import numpy as np
import pytest

from lib.analyses import controls, representations as rep
from lib.analyses.representation_claims import structured_networks
from lib.book import representation_blocks as blocks
from lib.book import representation_report
from lib.core.tasks import TaskEnvironment

ENV = TaskEnvironment()
N_PAIRS = 2


@pytest.fixture(scope="module")
def t0():
    structure = controls.run_initial_structure(ENV, list(range(N_PAIRS)), n_hidden=20, n_train=120, n_test=120)
    return blocks.InitialStructure(list(range(N_PAIRS)), structure, structure["loadings/entk_authors"])


def hidden_of(iterations, hidden_groups=None) -> blocks.HiddenLayer:
    recorded = {"iterations": np.asarray(iterations), "hidden_groups": hidden_groups}
    return blocks.HiddenLayer([3, 4], recorded, recorded["iterations"], {"seed": 3}, {},
                              {"input": np.arange(12) % 3})


def test_seeds_and_the_other_architecture():
    assert blocks.seeds_from(5, 3) == [5, 6, 7]
    assert (blocks.other_architecture("4x3"), blocks.other_architecture("3x4")) == ("3x4", "4x3")
    with pytest.raises(ValueError, match="architecture must be '4x3' or '3x4', got '2x2'"):
        blocks.other_architecture("2x2")


def test_the_mphate_inset_is_standard_inits_input_grouping_at_3_percent_of_training():
    init, grouping, index, labels = blocks.mphate_inset(hidden_of(np.arange(101) * 100))
    assert (init, grouping, index) == ("standard", "input", 3) and labels.tolist() == [0, 1, 2] * 4


def test_final_distance_ratios_read_only_the_last_snapshot():
    rng = np.random.default_rng(0)
    last = rng.normal(size=(2, 2, 1, 69, 5))
    noisy = np.concatenate([rng.normal(size=(2, 2, 2, 69, 5)), last], axis=2)  # earlier snapshots differ
    steady = np.repeat(last, 3, axis=2)
    ratios = blocks.final_distance_ratios(ENV, hidden_of([0, 1, 2], noisy))
    assert set(ratios) == {"same input pool", "same output pool"} and ratios["same input pool"].shape == (2, 2)
    for name, r in blocks.final_distance_ratios(ENV, hidden_of([0, 1, 2], steady)).items():
        np.testing.assert_array_equal(ratios[name], r)


def test_shares_panels_and_silhouettes(t0):
    shares = blocks.control_shares(t0)
    assert list(shares) == ["authors", "principled"] and list(shares["authors"]) == list(blocks.CONTROLS)
    assert blocks.epsilon_share(shares) == pytest.approx(shares["authors"]["epsilon"][:, 0].mean())
    explained, silhouettes = blocks.control_panels(shares, t0)
    assert list(explained) == ["ε", "ε·σ'", "targets", "plain NTK"] and "eNTK (authors)" in silhouettes
    texts = blocks.silhouette_texts(t0)
    assert texts["sil_entk_authors_large"] == f"{t0.structure['silhouette/entk_authors'][:, 1].mean():.2f}"
    assert len(texts) == 2 * len(controls.LOADING_PREDICTORS) + 2 and -1 <= float(texts["sil_r_epsilon"]) <= 1
    assert list(blocks.per_output_table(ENV, t0).columns) == ["standard: ε", "standard: ε·σ'", "large: ε",
                                                             "large: ε·σ'"]
    assert list(blocks.silhouette_table(t0).index)[0] == controls.LOADING_PREDICTOR_NAMES["entk_authors"]


def test_fig8_means_put_standard_init_and_the_input_units_first(t0):
    means, names = blocks.fig8_group_means(ENV, t0)
    assert list(means) == ["standard init, by input unit", "standard init, by task", "large init, by input unit",
                           "large init, by task"]
    assert means["large init, by task"].shape == (ENV.n_outputs, ENV.n_tasks) and len(names) == 4


def test_loading_eta_and_the_paired_factors(t0):
    eta = blocks.loading_eta(ENV, t0)
    assert not any(c.startswith("_") for c in eta.table.columns) and len(eta.table) == len(eta.rows)
    assert eta.by_name["entk_authors/feature"]["_factor"] == "feature"
    assert set(eta.explained) == set(controls.LOADING_PREDICTORS)
    eta_pair, control_pair = blocks.sort_factor_pairs(eta)
    feature, pool = eta.factors.index("feature"), eta.factors.index("output pool")
    np.testing.assert_array_equal(eta_pair[..., 1], eta.explained["entk_authors"][..., pool])
    np.testing.assert_allclose(control_pair, eta.explained["output_error"][..., [feature, pool]].mean(axis=2))
    assert blocks.factor_means_table(eta).shape == (len(controls.LOADING_PREDICTORS), len(eta.factors))


def test_shuffle_null_counts_large_networks_structured_by_either_sort(t0):
    null = blocks.shuffle_null(ENV, t0, 100)
    assert null.large_structured == structured_networks(null.tests["input"]["p"], null.tests["task"]["p"])[1]
    texts = blocks.null_texts(null, 100)
    assert texts["n_permutations"] == "100" and texts["null_large_structured"] == f"{null.large_structured} of 2"
    assert texts["null_std_eta"] == f"{null.tests['input']['observed'][:, 0].mean():.2f}"
    assert len(null.table) == 4  # two groupings x two inits


def test_partition_agreement_counts_and_texts(t0):
    agreement = blocks.partition_agreement(ENV, t0)
    assert set(agreement.derived) == set(rep.DERIVED_GROUPINGS)
    assert all(0 <= n <= N_PAIRS for n in agreement.counts.values())
    texts = blocks.agreement_texts(agreement, N_PAIRS)
    key = ("task", "control", "standard")
    assert texts["agree_task_control_standard"] == f"{agreement.counts[key]}/2" and texts["n_entk_pairs_text"] == "2"


def test_ari_curves_score_only_the_recorded_networks(monkeypatch):
    seen = {}
    monkeypatch.setattr(blocks.rep, "cached_ari_curves", lambda env, recorded, key, derived: seen.update(
        key=key, derived=derived) or {})
    derived = {"task": (np.zeros((5, 2, 12)), np.ones((5, 2)))}
    blocks.ari_curves(ENV, hidden_of([0, 1]), derived)
    assert seen["key"] == {"seed": 3, "seeds": [3, 4]} and seen["derived"]["task"][0].shape == (2, 2, 12)


def test_onsets_titles_and_the_texts_of_a_swapped_architecture_not_computed():
    iterations = np.array([0, 10, 20])
    curve = np.array([[[0.0, 0.6, 0.9], [0.0, 0.0, 0.0]]])  # (1 pair, 2 inits, 3 snapshots)
    ari = {k: curve for k in set(blocks.ARI_TITLES) | {"task_by_input vs output_pool", "task_by_input vs feature"}}
    assert list(blocks.titled_curves(ari)) == list(blocks.ARI_TITLES.values())
    onsets = blocks.onset_table("4x3", ari, iterations, None)
    assert list(onsets) == ["4x3"] and onsets["4x3"]["task vs output_pool"] == pytest.approx(50 / 6)  # interpolated
    assert blocks.onset_frame(onsets).index[0] == "first iteration with mean ARI ≥ 0.5: task vs output_pool"
    assert blocks.ari_table(ari, iterations).shape[0] == len(ari)
    texts = blocks.swapped_page_texts(None, "4x3", "3x4", onsets, 3)
    assert all(texts[name] == "not computed" for name in representation_report.SWAPPED_TEXTS)
    assert (texts["other_architecture"], texts["other_n_pairs"], texts["onset_other_out"]) == ("3x4", "3", "never")
    assert blocks.swapped_architecture("3x4", "ET", 0, 3, 100, shown=False) is None
