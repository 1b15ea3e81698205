"""Chapter 12's verdicts on one block of pairs (lib/book/horizon_pair_block.py): the five claims judged
by the criteria in force from a block's curves and rival findings, on synthetic predictors."""

import numpy as np

from lib.analyses import claims, horizon, horizon_points
from lib.book import horizon_pair_block as hpb
from lib.book import horizon_report as hr

KERNELS = list(horizon_points.KERNEL_PREDICTORS)
PREDICTORS = KERNELS + list(horizon_points.RIVAL_PREDICTORS)
OUTCOMES = ["sharing_final", "loss_single_test", "finetune_speed", "loss_finetune_test"]
FRACTIONS = [0.0, 0.1]


def block(signal: float, n_per_group: int = 30, seed: int = 0) -> hpb.PairBlock:
    """A block whose first kernel quantity at f = 10% is ``signal`` x the single-task test loss plus noise."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array(["ET standard", "ET large", "LR standard", "LR large"]), n_per_group)
    n = len(groups)
    outcomes = {o: rng.normal(size=n) for o in OUTCOMES}
    values = rng.normal(size=(len(PREDICTORS), len(FRACTIONS), n))
    values[0, 1] = signal * outcomes["loss_single_test"] + rng.normal(size=n)
    curves = {o: horizon.accuracy_curves(values, outcomes[o], groups, FRACTIONS, 0.5, 100, seed=i)
              for i, o in enumerate(OUTCOMES)}
    findings = hr.rival_findings(hr.labelled_rival_cells(values, KERNELS, outcomes, groups, FRACTIONS))
    per_group = [n_per_group] * 4
    return hpb.PairBlock({}, {}, 0.0, outcomes, groups, values, per_group, curves, findings, lambda seed: np.zeros(3))


def test_the_five_pair_claims_are_judged_by_the_criteria_in_force():
    judged = hpb.judge_pair_block(block(5.0), PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, horizon.EARLY_FRACTION)
    assert list(judged) == [*hpb.WINDOW_CLAIMS, "horizon-pairs-kernel-beats-rivals", "horizon-pairs-kernel-adds"]
    for claim, j in judged.items():
        assert (j.claim, j.version) == (claim, claims.criterion(claim).version) and j.verdict in claims.VERDICTS
    assert judged["horizon-pairs-kernel-window"].verdict == "reproduced"  # |r| near 0.98 at 10%
    assert judged["horizon-pairs-kernel-beats-rivals"].verdict == "reproduced"
    noise = hpb.judge_pair_block(block(0.0, seed=1), PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, horizon.EARLY_FRACTION)
    assert noise["horizon-pairs-kernel-window"].verdict != "reproduced"
    assert noise["horizon-pairs-loss-window"].verdict != "reproduced"


def test_the_pairs_precision_is_the_widest_pooled_interval_of_the_blocks():
    from lib.analyses import replication

    wide, narrow = block(0.0, n_per_group=10), block(0.0, n_per_group=50)
    text = hpb.precision_text([narrow, wide], 10)
    assert text.startswith(f"widest 95% interval half-width {replication.pooled_fisher_half_width([10] * 4):.2f} at 10")
