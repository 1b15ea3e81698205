"""Chapter 12's verdicts on the continuum's networks (lib.book.horizon_verdicts) on data built by
hand: a kernel quantity that predicts an outcome early and a set of rivals that do not."""

from __future__ import annotations

import numpy as np

from lib.analyses import horizon_points
from lib.book import horizon_report as hr
from lib.book import horizon_verdicts as hv

KERNELS, RIVALS = list(horizon_points.KERNEL_PREDICTORS), list(horizon_points.RIVAL_PREDICTORS)
PREDICTORS = KERNELS + RIVALS
OUTCOMES = ["sharing_final", "loss_single_test", "finetune_speed", "loss_finetune_test"]
FRACTIONS = [0.0, 0.01, 0.1, 0.5]


def data(rng, n_per_scale: int = 60):
    """(values (P, F, N), outcomes, groups): the first kernel quantity carries the outcomes, the rest noise."""
    groups = np.repeat([1.0, 10.0], n_per_scale)
    values = rng.normal(size=(len(PREDICTORS), len(FRACTIONS), groups.size))
    outcomes = {o: values[0, 1] + 0.3 * rng.normal(size=groups.size) for o in OUTCOMES}
    return values, outcomes, groups


def test_a_kernel_quantity_that_carries_the_outcome_is_found_and_the_control_is_judged_under_every_seed():
    values, outcomes, groups = data(np.random.default_rng(0))
    curves = {o: {"within": np.array([[np.corrcoef(v[f], y)[0, 1] for f in range(len(FRACTIONS))] for v in values]),
                  "earliest_sure": np.where(np.arange(len(PREDICTORS)) == 0, 0.01, np.inf)} for o, y in outcomes.items()}
    findings = hr.rival_findings(hr.labelled_rival_cells(values, KERNELS, outcomes, groups, FRACTIONS))
    no_discovery = lambda seed: np.zeros(200)  # noqa: E731
    judged = hv.judge_single_task(curves, findings, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.1, [60, 60], 120,
                                  no_discovery)
    assert list(judged) == ["horizon-kernel-window", "horizon-representation-window", "horizon-loss-window",
                            "horizon-kernel-beats-rivals", "horizon-kernel-adds", "horizon-kernel-adds-control"]
    assert judged["horizon-kernel-adds"].verdict == "reproduced"  # the planted kernel adds to the rivals
    assert judged["horizon-kernel-adds-control"].verdict == "reproduced"
    assert judged["horizon-kernel-adds-control"].stability == "20/20"
    flaky = lambda seed: np.full(200, seed % 2, float) * np.arange(200) % 3  # noqa: E731  (discoveries in some seeds)
    unstable = hv.judge_single_task(curves, findings, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.1, [60, 60], 120,
                                    flaky)["horizon-kernel-adds-control"]
    assert unstable.verdict == "borderline" and unstable.stability == "10/20"
    assert hv.beats_rivals_version_1(findings, 120).version == 1
    assert hv.first_sure_fractions(curves, len(KERNELS)) == (0.01, np.inf)
    finetune = hv.judge_finetune(curves, findings, PREDICTORS, KERNELS, OUTCOMES[2:], FRACTIONS, 0.1, [60, 60], 120)
    assert list(finetune) == ["horizon-finetune-kernel-window", "horizon-finetune-loss-window",
                              "horizon-finetune-kernel-beats-rivals"]


def test_the_pairs_control_is_judged_under_every_seed():
    assert hv.judge_pair_control(lambda seed: np.zeros(200)).stability == "20/20"
    assert hv.judge_pair_control(lambda seed: np.full(200, float(seed % 2))).verdict == "borderline"
