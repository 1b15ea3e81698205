"""Chapter 05's claim rules (lib.analyses.performance_verdicts) beyond the single-task counts: the
early window, the head-start qualification and the training conditions, each shown failing."""

import numpy as np

from lib.analyses import performance_verdicts as pv


def test_chapter_05_rules_early_window_head_start_and_training_conditions():
    from lib.analyses import claims

    assert "first 10%" in " ".join(claims.criterion("perf-et-single", 1).settings["names"])
    assert pv.early_snapshots(101) == slice(1, 10) and pv.early_snapshots(5) == slice(1, 2)
    losses = np.ones((3, 2, 21))
    losses[:, 1, 1] = 0.5  # large lower at snapshot 1 only
    assert pv.large_better_early(losses)
    losses[:, 1, 1], losses[:, 1, 5] = 1.0, 0.5  # snapshot 5 is outside the first tenth of 21 snapshots
    assert not pv.large_better_early(losses)
    assert pv.head_start_note(0.7) and not pv.head_start_note(0.8)
    test = {s: {p: np.ones((2, 2, 21)) for p in ("single", "finetune")} for s in ("ET", "LR")}
    train = {s: {p: np.full((2, 2, 21), 0.5) for p in ("single", "finetune")} for s in ("ET", "LR")}
    assert all(pv.train_below_test(train, test).values()) and len(pv.train_below_test(train, test)) == 8
    train["ET"]["single"][:, 1, 1] = 0.2  # large fits faster early
    train["LR"]["finetune"][:, 0, -1] = 0.4  # standard ends lower
    assert pv.train_speed_conditions(train, test) == (True, True)
    test["ET"]["single"][:, 1, -1] = 0.5  # large init's final test loss lower: the ET condition fails
    assert pv.train_speed_conditions(train, test) == (False, True)
