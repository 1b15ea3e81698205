"""Chapter 06's blocks of work (lib.book.correlation_blocks) on synthetic pairs, the results cache faked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.analyses import controls, correlation_verdicts as cv, stats
from lib.book import correlation_blocks as cb

N_PAIRS, N_RESAMPLES = 12, 200
PLAN = {"ET": (list(range(0, N_PAIRS)), 1000), "LR": (list(range(100, 100 + N_PAIRS)), 500)}
REPLICATION_PLAN = {"ET": (list(range(1000, 1000 + N_PAIRS)), 1000), "LR": (list(range(1100, 1100 + N_PAIRS)), 500)}


def synthetic_pairs(seed: int = 0) -> tuple[dict, dict]:
    """(schedule -> run, schedule -> t=0 structure) of ``N_PAIRS`` pairs in which the standard init ends
    lower after single-task training and higher after fine-tuning, and every predictor's silhouette is
    higher for the standard init and tracks each network's own loss (but the targets': the same for
    every network)."""
    rng = np.random.default_rng(seed)
    runs, structure = {}, {}
    for schedule in PLAN:
        final = np.stack([rng.normal(1.0, 0.1, N_PAIRS), rng.normal(1.3, 0.1, N_PAIRS)], axis=1)  # (P, 2)
        decay = np.linspace(3.0, 1.0, 5)  # (S,) a falling loss curve ending at the final loss
        runs[schedule] = {"iterations": np.arange(0, 500, 100), "single/loss_test": final[:, :, None] * decay,
                          "finetune/loss_test": (2.5 - final)[:, :, None] * decay}
        silhouette = 0.5 * stats.init_label(N_PAIRS) - 0.5 * (final - final.mean())
        structure[schedule] = {f"silhouette/{p}": silhouette + rng.normal(0, 0.02, silhouette.shape)
                               for p in controls.LOADING_PREDICTORS}
        structure[schedule]["silhouette/targets"] = np.full((N_PAIRS, 2), 0.3)
    return runs, structure


@pytest.fixture
def cache(monkeypatch):
    """Fakes the cached runs and t=0 structure of ``PLAN``'s seeds (the other choices' silhouettes tilted
    network by network, so that their r's differ); the calls, with their choices, are recorded."""
    runs, structure = synthetic_pairs()
    schedule_of = {seeds[0]: name for name, (seeds, _) in PLAN.items()}
    calls = []

    def shifted(values: dict, choice: dict) -> dict:
        moved = choice != {"split": "iid", "large_scaling": "both_layers"}
        return {k: v + np.linspace(0, 1, v.size).reshape(v.shape) if moved and k.startswith("silhouette") else v
                for k, v in values.items()}

    def cached_schedule(env, name, seeds, n_iterations, **choice):
        calls.append(("runs", name, choice))
        return shifted(runs[name], choice)

    def cached_initial_structure(env, seeds, predictors, **choice):
        calls.append(("structure", tuple(predictors), choice))
        return shifted({f"silhouette/{p}": structure[schedule_of[seeds[0]]][f"silhouette/{p}"] for p in predictors},
                       choice)

    monkeypatch.setattr(cb, "cached_schedule", cached_schedule)
    monkeypatch.setattr(controls, "cached_initial_structure", cached_initial_structure)
    return calls


def block_of(inputs_seed: int, variants: list[str]) -> cv.Block:
    """A :class:`lib.analyses.correlation_verdicts.Block` of synthetic pairs drawn from ``inputs_seed``."""
    runs, structure = synthetic_pairs(inputs_seed)
    inputs = {v: cv.network_inputs(runs, structure, [f"entk_{v}"]) for v in variants}
    tables = {v: pd.DataFrame(stats.correlation_table(inputs[v], N_RESAMPLES, predictor=f"entk_{v}"))
              for v in variants}
    return cv.Block(inputs, tables, N_PAIRS)


@pytest.fixture(scope="module")
def judged_blocks():
    """(first pairs, discovery block, replication block, verdicts) of synthetic pairs: computed once."""
    runs, structure = synthetic_pairs()
    inputs = {v: cv.network_inputs(runs, structure, [f"entk_{v}"]) for v in ("principled", "authors")}
    tables = {v: pd.DataFrame(stats.correlation_table(inputs[v], N_RESAMPLES, predictor=f"entk_{v}"))
              for v in inputs}
    first = cb.FirstPairs(["principled", "authors"], "authors", list(controls.LOADING_PREDICTORS), runs, structure,
                          inputs, tables, N_PAIRS)
    discovery, replication_block = block_of(1, ["principled", "authors"]), block_of(2, ["authors"])
    return first, discovery, replication_block, cb.block_verdicts(first, discovery, cb.judge_variants(discovery),
                                                                  replication_block, REPLICATION_PLAN, N_RESAMPLES)


def test_first_pairs_compute_the_authors_variant_only_with_the_iid_split(cache):
    first = cb.first_pairs(None, PLAN, N_RESAMPLES)
    assert (first.variants, first.headline, first.n_pairs) == (["principled", "authors"], "authors", N_PAIRS)
    assert list(first.runs) == ["ET", "LR"] and "entk_authors" in first.predictors
    assert all(len(t) == 12 for t in first.tables.values())  # every (quantity, phase, schedule) of the paper
    assert first.inputs["authors"]["ET"]["entk_authors"] is first.structure["ET"]["silhouette/entk_authors"]
    disjoint = cb.first_pairs(None, PLAN, N_RESAMPLES, split="disjoint", large_scaling="layer1_only")
    assert (disjoint.variants, disjoint.headline) == (["principled"], "principled")
    assert "entk_authors" not in disjoint.predictors
    assert cache[-1] == ("structure", tuple(disjoint.predictors), {"split": "disjoint", "large_scaling": "layer1_only"})
    with pytest.raises(ValueError, match="split must be one of"):
        cb.first_pairs(None, PLAN, N_RESAMPLES, split="random")


def test_the_other_choices_are_the_split_and_scaling_this_page_did_not_use():
    assert cb.other_choices("iid", "both_layers") == {"split": "disjoint", "large_scaling": "layer1_only"}
    assert cb.other_choices("disjoint", "layer1_only") == {"split": "iid", "large_scaling": "both_layers"}
    with pytest.raises(ValueError, match="large_scaling must be one of"):
        cb.other_choices("iid", "all")


def test_choices_reuse_this_page_s_table_and_compute_the_other_choices_only_when_asked(cache):
    first = cb.first_pairs(None, PLAN, N_RESAMPLES)
    alone = cb.choices(None, PLAN, first, N_RESAMPLES, "iid", "both_layers", compare_choices=False)
    assert list(alone.tables) == ["this page (iid, both_layers)"]
    assert alone.tables["this page (iid, both_layers)"] is first.tables["principled"]
    assert len(alone.performance) == 2 * 2  # schedules x phases
    calls_before = len(cache)
    both = cb.choices(None, PLAN, first, N_RESAMPLES, "iid", "both_layers", compare_choices=True)
    assert list(both.tables) == ["this page (iid, both_layers)", "split=disjoint", "large_scaling=layer1_only"]
    changed = [c for c in cache[calls_before:] if c[0] == "structure"]
    assert [c[2] for c in changed] == [{"split": "disjoint", "large_scaling": "both_layers"}] * 2 + \
        [{"split": "iid", "large_scaling": "layer1_only"}] * 2
    assert all(c[1] == cb.CHOICE_PREDICTORS for c in changed)
    assert list(both.performance["analysis"].unique()) == list(both.tables) and len(both.performance) == 3 * 2 * 2
    assert not np.allclose(both.tables["split=disjoint"]["r"], first.tables["principled"]["r"])  # its own runs


def test_scatter_points_pool_the_schedules_with_their_markers_and_r(cache):
    first = cb.first_pairs(None, PLAN, N_RESAMPLES)
    points = cb.scatter_points(first)
    assert points.silhouette.shape == (2 * N_PAIRS, 2) and points.marker_labels == {0: "ET", 1: "LR"}
    np.testing.assert_array_equal(points.markers, [0] * N_PAIRS + [1] * N_PAIRS)
    np.testing.assert_array_equal(points.silhouette[N_PAIRS:], first.structure["LR"]["silhouette/entk_authors"])
    for phase in ("single", "finetune"):
        np.testing.assert_allclose(points.relative[phase][:, 0], -points.relative[phase][:, 1])
        assert points.r[phase] == pytest.approx(stats.pearson(points.silhouette, points.relative[phase]))
    assert points.r["single"] < 0 < points.r["finetune"]  # the standard init has the higher silhouette


def test_rivals_put_every_predictor_and_the_label_under_the_paper_row_and_a_constant_predictor_has_no_r(cache):
    first = cb.first_pairs(None, PLAN, N_RESAMPLES)
    rivals = cb.rivals(first, N_RESAMPLES)
    assert rivals.table.index[0] == "paper" and rivals.table.index[-1] == "init label"
    assert len(rivals.table) == 1 + len(first.predictors) + 1
    targets = controls.LOADING_PREDICTOR_NAMES["targets"]
    assert (rivals.table.loc[targets] == "–").all()
    assert np.isnan(rivals.by_predictor[(targets, "relative single ET")])


def test_block_verdicts_judge_every_claim_on_both_blocks_with_corr_predicts_and_its_earlier_versions(judged_blocks):
    first, discovery, replication_block, verdicts = judged_blocks
    claims_judged = ["corr-et", "corr-lr", "corr-combined", "corr-raw"]
    assert list(verdicts.judged) == list(verdicts.replicated) == claims_judged
    assert list(verdicts.in_force) == list(verdicts.replicated_in_force) == claims_judged + ["corr-predicts"]
    assert [j.version for j in verdicts.predicts_earlier] == [1, 2]
    assert all(j.claim == "corr-predicts" for j in verdicts.predicts_earlier)
    assert verdicts.discovery_table is discovery.tables["authors"]
    assert verdicts.replication_block == "ET seeds 1000-1011, LR seeds 1100-1111"
    assert all(verdicts.precision[c].startswith("widest 95% interval half-width") for c in claims_judged)
    # the replication block is judged on its own pairs, not the discovery block's
    assert verdicts.replicated["corr-et"].current.ours != verdicts.judged["corr-et"].current.ours
    judged = cb.judge_variants(discovery)
    assert list(judged) == ["principled", "authors"]
    assert judged["authors"]["corr-et"].current == verdicts.judged["corr-et"].current
    with pytest.raises(ValueError, match="replication_block must hold the headline variant 'authors'"):
        cb.block_verdicts(first, discovery, judged, block_of(2, ["principled"]), REPLICATION_PLAN, N_RESAMPLES)
