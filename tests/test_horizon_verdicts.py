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


def in_force(judges: dict) -> dict:
    """claim -> its judgement under the criterion in force, from claim -> judge by version."""
    return {claim: judged() for claim, judged in judges.items()}


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
    judged = in_force(hv.single_task_judges(curves, findings, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.1,
                                            [60, 60], 120, no_discovery))
    assert list(judged) == ["horizon-kernel-window", "horizon-representation-window", "horizon-loss-window",
                            "horizon-kernel-beats-rivals", "horizon-kernel-adds", "horizon-kernel-adds-control"]
    assert judged["horizon-kernel-adds"].verdict == "reproduced"  # the planted kernel adds to the rivals
    assert judged["horizon-kernel-adds-control"].verdict == "reproduced"
    assert judged["horizon-kernel-adds-control"].stability == "20/20"
    flaky = lambda seed: np.full(200, seed % 2, float) * np.arange(200) % 3  # noqa: E731  (discoveries in some seeds)
    unstable = in_force(hv.single_task_judges(curves, findings, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.1,
                                              [60, 60], 120, flaky))["horizon-kernel-adds-control"]
    assert unstable.verdict == "borderline" and unstable.stability == "10/20"
    judges = hv.single_task_judges(curves, findings, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.1, [60, 60], 120,
                                   no_discovery)
    first = judges["horizon-kernel-beats-rivals"](1)
    assert first.version == 1 and first.criterion != judged["horizon-kernel-beats-rivals"].criterion
    assert hv.first_sure_fractions(curves, len(KERNELS)) == (0.01, np.inf)
    finetune = in_force(hv.finetune_judges(curves, findings, PREDICTORS, KERNELS, OUTCOMES[2:], FRACTIONS, 0.1,
                                           [60, 60], 120))
    assert list(finetune) == ["horizon-finetune-kernel-window", "horizon-finetune-loss-window",
                              "horizon-finetune-kernel-beats-rivals"]


def test_the_pairs_control_is_judged_under_every_seed():
    assert hv.judge_pair_control(lambda seed: np.zeros(200)).stability == "20/20"
    assert hv.judge_pair_control(lambda seed: np.full(200, float(seed % 2))).verdict == "borderline"


def test_every_version_judges_each_version_on_the_networks_it_was_declared_for():
    """The one convergence filter: a claim of SETTLED_FROM is judged on the settled networks from the
    version that names them on, its earlier versions on the analysed networks; another claim every
    version on the analysed networks."""
    from lib.analyses import claims
    from lib.analyses.claim_registry_horizon_rivals import SETTLED_FROM

    def judges(population):
        return {claim: (lambda version=None, claim=claim: claims.Judgement(
            claim, version or claims.criterion(claim).version, population, "", "", 0, "", "", ""))
            for claim in ("horizon-kernel-window", "horizon-loss-window", "horizon-kernel-beats-rivals")}

    now, earlier = hv.every_version(judges("analysed"), judges("settled"))
    assert SETTLED_FROM["horizon-kernel-window"] == 2 and "horizon-loss-window" not in SETTLED_FROM
    assert (now["horizon-kernel-window"].verdict, now["horizon-kernel-window"].version) == ("settled", 2)
    assert [(j.verdict, j.version) for j in earlier["horizon-kernel-window"]] == [("analysed", 1)]
    assert [(j.verdict, j.version) for j in earlier["horizon-kernel-beats-rivals"]] == [("analysed", 1),
                                                                                        ("analysed", 2)]
    assert now["horizon-loss-window"].verdict == "analysed" and "horizon-loss-window" not in earlier
    assert [hv.judged_on("horizon-kernel-beats-rivals", v) for v in (1, 2, 3, 4)] == ["analysed", "analysed",
                                                                                       "settled", "settled"]
