"""Chapter 05's tables, texts and verdicts (lib.book.performance_report) on runs built by hand,
where each count and each claim's outcome is known before it is computed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.analyses import claims, performance_verdicts
from lib.book import performance_report as pr

P, T = 50, 11
ITERATIONS = np.arange(T) * 100


def curves(standard, large) -> np.ndarray:
    """(P, 2, T) losses: every pair follows ``standard`` (T,) at standard init and ``large`` at large."""
    out = np.empty((P, 2, T))
    out[:, 0], out[:, 1] = standard, large
    return out


def run(single, finetune) -> dict:
    return {"iterations": ITERATIONS, "single/loss_test": single, "finetune/loss_test": finetune,
            "single/loss_train": 0.5 * single, "finetune/loss_train": 0.5 * finetune}


DECAY = 100 * np.exp(-np.arange(T) / 2)
# single-task: large lower early, standard lower from iteration 500 on, both halving at the same iteration;
# fine-tuning: large starts at half standard's loss, stays lower and halves from its own start first
SINGLE = curves(DECAY, np.where(np.arange(T) < 5, 0.8 * DECAY, 1.5 * DECAY))
FINETUNE = curves(DECAY, 50 * np.exp(-np.arange(T)))
RUNS = {"ET": run(SINGLE, FINETUNE), "LR": run(SINGLE, FINETUNE)}


def test_phase_rows_count_each_pair_and_phase_texts_name_them():
    rows = {(r["schedule"], r["phase"]): r for r in pr.phase_rows(RUNS)}
    single, finetune = rows["ET", "single"], rows["ET", "finetune"]
    assert single["pairs_standard_better_at_end"] == P and single["early_large_better"]
    assert finetune["pairs_standard_better_at_end"] == 0 and finetune["pairs_large_faster"] == P
    assert single["settles_at"] == 500 and np.isnan(finetune["settles_at"])
    texts = pr.phase_texts(list(rows.values()))
    assert texts["perf_ET_single_better"] == f"{P}/{P}" and texts["perf_ET_finetune_settle"] == "never changes sign"
    assert texts["perf_ET_finetune_start_ratio"] == "0.50"
    view = pr.phase_view(list(rows.values()))
    assert view.loc[0, "final sign from"] == "500" and pd.isna(view.loc[1, "final sign from"])
    assert "early_large_better" not in view


def test_pair_view_shows_the_counts_and_the_spread_of_the_final_loss():
    single = SINGLE.copy()
    single[:, 0, -1] = np.linspace(1.0, 20.0, P)  # standard's final loss spread over 20x
    single[:, 1, -1] = 100.0
    single[:3, 1, -1] = 0.5  # three pairs in which large ends lower
    counts = performance_verdicts.single_task_counts(ITERATIONS, single)
    view = pr.pair_view(counts)
    assert view["pairs"].tolist()[:2] == [f"{P - 3}/{P}", f"{P - 3}/{P}"]
    assert view["pairs"].tolist()[3] == "20.0 / 1.0 = 20.0x"


def test_early_agreement_is_zero_for_the_same_runs_and_refuses_runs_that_differ():
    early = {name: {"iterations": r["iterations"][:4], **{k: r[k][..., :4] for k in r if k != "iterations"}}
             for name, r in RUNS.items()}
    assert pr.early_agreement(RUNS, early) == 0.0
    early["LR"]["finetune/loss_test"] = early["LR"]["finetune/loss_test"] * (1 + 1e-4)
    with pytest.raises(AssertionError, match="LR finetune: early run differs"):
        pr.early_agreement(RUNS, early)


def test_speed_comparison_counts_who_halves_first_and_shows_never_as_a_dash():
    slow = curves(DECAY, np.full(T, 100.0))  # large never halves
    speed = pr.speed_comparison({"ET": run(slow, FINETUNE), "LR": run(slow, FINETUNE)})
    assert speed.pooled["single"] == {"large_faster": 0, "n_pairs": 2 * P}
    assert speed.pooled["finetune"]["large_faster"] == 2 * P
    view = pr.speed_view(speed)
    assert pd.isna(view.loc[0, "median halving, large"]) and view.loc[0, "standard halves first"] == P
    assert pr.speed_texts(speed, 0.0)["perf_speed_worst"] == "exactly (bit for bit)"


def measures(**changes) -> pr.PerformanceMeasures:
    rows = {(r["schedule"], r["phase"]): r for r in pr.phase_rows(RUNS)}
    counts = performance_verdicts.single_task_counts(ITERATIONS, SINGLE)
    speed = pr.speed_comparison(RUNS)
    test_loss = {n: {ph: r[f"{ph}/loss_test"] for ph in pr.PHASES} for n, r in RUNS.items()}
    train_loss = {n: {ph: r[f"{ph}/loss_train"] for ph in pr.PHASES} for n, r in RUNS.items()}
    base = pr.PerformanceMeasures(rows, P, counts, speed.pooled, pr.start_ratio(RUNS), train_loss, test_loss, "iid")
    return base._replace(**changes)


def test_judge_claims_gives_each_claim_the_verdict_its_runs_imply():
    j = pr.judge_claims(measures())
    v = {key: judgement.verdict for key, judgement in j.in_force.items()}
    assert v["et_finetune"] == v["lr_finetune"] == "reproduced"  # large better at every snapshot
    assert v["lr_single"] == "not reproduced"  # standard better at only half the snapshots
    assert v["train_test"] == "reproduced with qualification"  # the i.i.d. split overlaps
    assert v["runs"] == "reproduced" and v["et_single"] == "reproduced"
    # large starts fine-tuning at half standard's loss: the speed verdict carries the head start
    assert v["speed"] == "reproduced with qualification"
    assert "0.50x standard's test loss" in j.in_force["speed"].qualification
    assert pr.judge_claims(measures(split="disjoint")).in_force["train_test"].verdict == "reproduced"
    assert [e.version for e in j.earlier["speed"]] == [1, 2]
    assert set(pr.single_task_judgements(j)) == set(performance_verdicts.SINGLE_TASK_CLAIMS)


def test_every_verdict_the_speed_claim_can_get_has_a_meaning_and_every_claim_a_row():
    j = pr.judge_claims(measures())
    texts = pr.verdict_texts(j)
    assert texts["perf_speed_meaning"] == pr.SPEED_MEANING[j.in_force["speed"].verdict]
    assert set(pr.SPEED_MEANING) == set(claims.VERDICTS)
    single = pr.single_task_judgements(j)
    rows = pr.claim_rows(j, single, {}, "seeds 0-49", P, 12.0, 0.0)
    assert [r["claim"] for r in rows[:9]] == [pr.CLAIM_KEYS[k] for k in ("et_single", "et_finetune", "speed", "runs",
                                                                         "scale", "lr_single", "lr_finetune",
                                                                         "train_test", "train_speed")]
    assert len(rows) == 11 and len(pr.verdict_view(j)) == 9
