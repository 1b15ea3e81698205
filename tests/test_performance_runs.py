"""Chapter 05's blocks of work (lib.book.performance_runs) on runs built by hand: the results cache's
functions are replaced by ones that hand out slices of known runs, so each count is known."""

from __future__ import annotations

import numpy as np
import pytest

from lib.analyses import performance_verdicts
from lib.book import performance_report
from lib.book import performance_runs as runs_module
from tests.test_performance_report import RUNS

PLAN = {"ET": ((0, 1), 1000), "LR": ((100, 101), 1000)}
VERDICT_PLAN = {"ET": ((0, 1, 2, 3, 4), 1000), "LR": ((100, 101, 102, 103, 104), 1000)}
REPLICATION_PLAN = {"ET": ((1000, 1001, 1002), 1000), "LR": ((1100, 1101, 1102), 1000)}


def first_pairs(run: dict, n: int) -> dict:
    return {key: value if key == "iterations" else value[:n] for key, value in run.items()}


@pytest.fixture
def cache(monkeypatch):
    """The cache's functions replaced: every schedule's run is the first pairs of RUNS, a block of k pairs
    took 10 k seconds; ``offset`` shifts the verdicts' losses (a first block that is not the figures')."""
    state = {"offset": 0.0}

    def blocks(env, plan, block_pairs, progress, **choices):
        return {name: {k: v + state["offset"] if k != "iterations" else v for k, v in
                       first_pairs(RUNS[name], len(seeds)).items()} for name, (seeds, _) in plan.items()}

    monkeypatch.setattr(runs_module, "cached_schedule", lambda env, name, seeds, n_it, **c: first_pairs(RUNS[name],
                                                                                                        len(seeds)))
    monkeypatch.setattr(runs_module, "cached_schedule_blocks", blocks)
    monkeypatch.setattr(runs_module, "schedule_wall_time_s", lambda env, name, block, n_it, **c: 10.0 * len(block))
    monkeypatch.setattr(runs_module, "cached_early_phase_blocks",
                        lambda env, plan, fraction, every, block_pairs, **c: blocks(env, plan, block_pairs, False))
    return state


def test_schedule_runs_time_the_blocks_and_refuse_a_first_block_that_is_not_the_figures(cache):
    runs = runs_module.schedule_runs(PLAN, VERDICT_PLAN, 2, "iid", "both_layers")
    assert runs.blocks["ET"] == [(0, 1), (2, 3), (4,)] and runs.wall_s == {"ET": 50.0, "LR": 50.0}
    assert runs.choices == {"split": "iid", "large_scaling": "both_layers"}
    assert runs.test_loss["LR"]["finetune"].shape == (2, 2, 11) and runs.verdicts["ET"]["single/loss_test"].shape[0] == 5
    assert np.array_equal(runs.train_loss["ET"]["single"], 0.5 * runs.test_loss["ET"]["single"])
    texts = runs_module.run_size_texts(PLAN, VERDICT_PLAN, runs.blocks, runs.wall_s, 2, 5)
    assert texts["perf_run_sizes"].startswith("ET: seeds 0-4 in 3 blocks of up to 2 pairs (the figures use seeds 0-1), "
                                              "1000 iterations per phase, computed in 50 s")
    assert texts["perf_wall_total"] == "1.7 minutes" and texts["perf_n_verdict"] == "5" and texts["perf_n_pairs"] == "2"
    cache["offset"] = 1.0
    with pytest.raises(RuntimeError, match="ET single/loss_test: the first block differs from the figures' run"):
        runs_module.schedule_runs(PLAN, VERDICT_PLAN, 2, "iid", "both_layers")


def test_seed_blocks_and_phase_losses_refuse_bad_arguments():
    assert runs_module.seed_blocks((1, 2, 3), 2) == [(1, 2), (3,)]
    with pytest.raises(ValueError, match="block_pairs must be a positive integer, got 0"):
        runs_module.seed_blocks((1, 2), 0)
    with pytest.raises(ValueError, match="which must be 'test' or 'train', got 'val'"):
        runs_module.phase_losses(RUNS, "val")


def test_early_speed_halving_panels_and_train_below(cache):
    runs = runs_module.schedule_runs(PLAN, VERDICT_PLAN, 2, "iid", "both_layers")
    speed = runs_module.early_speed(runs, VERDICT_PLAN, 2)
    assert speed.worst == 0.0 and speed.comparison.pooled["finetune"] == {"large_faster": 10, "n_pairs": 10}
    panels = runs_module.halving_panels(speed.early)
    assert list(panels) == ["ET: single-task", "ET: fine-tuning", "LR: single-task", "LR: fine-tuning"]
    assert panels["LR: fine-tuning"][1] is speed.early["LR"]["finetune/loss_test"]
    assert runs_module.train_below_texts(runs.train_loss, runs.test_loss) == {"perf_train_below": "8 of 8"}


def test_verdicts_replication_and_rows_join_the_report_s_functions(cache):
    runs = runs_module.schedule_runs(PLAN, VERDICT_PLAN, 2, "iid", "both_layers")
    rows = performance_report.phase_rows(runs.figures)
    counts = runs_module.et_single_counts(runs.verdicts)
    assert counts.n == 5 and counts.overtaken == 5
    speed = runs_module.early_speed(runs, VERDICT_PLAN, 2)
    judged = runs_module.judge_chapter(rows, counts, speed, runs, 2)
    assert set(judged.in_force) == set(performance_report.CLAIM_KEYS)
    assert judged.in_force["train_test"].verdict.startswith("reproduced")
    block = runs_module.replication_block(runs, REPLICATION_PLAN, 2, counts, judged)
    assert block.words == "ET seeds 1000-1002" and block.counts.n == 3
    assert set(block.replicated) == set(performance_verdicts.SINGLE_TASK_CLAIMS) == set(block.in_force)
    texts = runs_module.replication_texts(block, 3)
    assert texts["perf_replication_pairs"] == "3" and texts["perf_replication_block"] == "ET seeds 1000-1002"
    assert {"perf_runs_replication", "perf_declared_half_width"} <= set(texts)
    table_rows = runs_module.claim_rows(judged, block, runs, speed, 5)
    assert table_rows[-2]["ours"] == "100 s" and table_rows[-1]["ours"] == "0.0e+00"
