"""Chapter 12's horizon on the converged continuum (lib/book/horizon_continuum_block.py), its verdicts
in one call (lib.book.horizon_verdicts.judge_chapter) and its glued texts: on a tiny continuum trained
in this process, and on synthetic pair blocks."""

import numpy as np
import pytest

from lib.analyses import continuum_facts, horizon_points
from lib.book import horizon_answer, horizon_texts, horizon_verdicts
from lib.book import horizon_continuum_block as hcb
from lib.book import horizon_report as hr
from tests.test_converged_continuum import _in_process_sweep, _NoClient
from tests.test_horizon_pair_block import block as pair_block

KERNELS = list(horizon_points.KERNEL_PREDICTORS)
RIVALS = list(horizon_points.RIVAL_PREDICTORS)
PREDICTORS = KERNELS + RIVALS
OUTCOMES = ["sharing_final", "loss_single_test", "finetune_speed", "loss_finetune_test"]
FT_OUTCOMES = ["finetune_speed", "loss_finetune_test"]
SCALES = [1.0, 10.0]
FRACTIONS = [0.0, 0.1, 0.2]
FT_FRACTIONS = [0.0, 0.1]
COMMON = dict(n_single=20, n_finetune=20, n_route=6, n_hidden=8, n_train=24, n_test=24)
N_SEEDS = 5


@pytest.fixture(scope="module")
def in_process():
    from lib.experiments import sweep, sweep_cluster

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sweep, "sweep", _in_process_sweep)
        patch.setattr(sweep_cluster, "dask_client", lambda *a, **k: _NoClient())
        yield patch


def _continuum_block(converged_only=False):
    return hcb.continuum_block(SCALES, [0.1], 1, 10, N_SEEDS, 2, COMMON, FRACTIONS, converged_only, PREDICTORS,
                               KERNELS, OUTCOMES, 0.5, 100)


@pytest.fixture(scope="module")
def blocks(in_process):
    block = _continuum_block()
    return block, hcb.finetune_block(block, SCALES, N_SEEDS, COMMON, FT_FRACTIONS, PREDICTORS, KERNELS, FT_OUTCOMES,
                                     0.5, 100)


def test_the_continuum_block_measures_the_analysed_networks_of_the_continuum(blocks):
    block, _ = blocks
    n = len(SCALES) * N_SEEDS
    assert block.use.shape == (n,) and block.use.all()  # converged_only off: every network
    assert block.per_scale == [N_SEEDS, N_SEEDS]
    assert block.values.shape == (len(PREDICTORS), len(FRACTIONS), n)
    assert block.retrace < hcb.RETRACE_TOLERANCE
    np.testing.assert_array_equal(block.groups, block.networks["g"])
    for i, name in enumerate(PREDICTORS):
        np.testing.assert_array_equal(block.values[i], block.snapshots[name], err_msg=name)
    for o in OUTCOMES:
        np.testing.assert_array_equal(block.outcomes[o], block.networks[o])
    assert set(block.curves) == set(OUTCOMES)
    discoveries = block.control_by_seed(0)
    assert discoveries.shape == (200,) and block.control_by_seed(0) is discoveries  # each seed computed once


def test_the_declared_filters_pick_the_networks_a_block_is_measured_on(blocks):
    block, _ = blocks
    n = len(block.use)
    networks = {**block.networks, "converged": np.where(np.arange(n) % N_SEEDS == 0, 0.0, 1.0),
                "settle_finetune": np.where(np.arange(n) % N_SEEDS == 1, 0.5, 0.001)}
    fake = block._replace(networks=networks)
    converged = hcb.measured_on(fake, continuum_facts.analysed(networks, True), SCALES, PREDICTORS, KERNELS, OUTCOMES,
                                FRACTIONS, 0.5, 100)
    assert converged.per_scale == [N_SEEDS - 1] * 2 and converged.values.shape[2] == 2 * (N_SEEDS - 1)
    np.testing.assert_array_equal(converged.values[0], block.snapshots[PREDICTORS[0]][:, np.arange(n) % N_SEEDS != 0])
    with pytest.raises(ValueError, match=rf"got \[{N_SEEDS - 2}, {N_SEEDS - 2}\]"):  # the unsettled left out too
        hcb.measured_on(fake, continuum_facts.analysed(networks, True, finetune=True), SCALES, PREDICTORS, KERNELS,
                        OUTCOMES, FRACTIONS, 0.5, 100)


def test_the_finetune_block_retraces_the_start_of_fine_tuning(blocks):
    block, ft = blocks
    assert ft.values.shape == (len(PREDICTORS), len(FT_FRACTIONS), len(SCALES) * N_SEEDS)
    assert ft.retrace < hcb.RETRACE_TOLERANCE
    assert set(ft.curves) == set(FT_OUTCOMES)
    texts = horizon_texts.finetune_texts(ft, FT_FRACTIONS, 20, PREDICTORS, (1, 8), 0.01)
    assert texts["hz_ft_iterations"] == "20" and texts["hz_ft_n_fractions"] == "2"
    assert texts["hz_ft_settled"].startswith("1 of the 8 analysed networks' multitask test loss still changed by 1%")


def test_snapshots_of_other_networks_are_refused(in_process, monkeypatch):
    sweep = horizon_points.horizon_sweep

    def reordered(*args, **kwargs):
        out = sweep(*args, **kwargs)
        return {**out, "seed": out["seed"][::-1]}

    monkeypatch.setattr(horizon_points, "horizon_sweep", reordered)
    with pytest.raises(RuntimeError, match="not the converged continuum's"):
        _continuum_block()


def test_the_retrace_compares_the_recorded_fractions_and_refuses_none():
    networks = {"loss_single_test_10pct": np.array([1.0, 2.0]), "loss_single_test_20pct": np.array([1.0, 1.0])}
    snapshots = {"loss_test": np.array([[9.0, 9.0], [1.0, 2.02], [1.0, 1.0]])}
    assert hcb.single_task_retrace(snapshots, networks, [0.0, 0.1, 0.2]) == pytest.approx(0.01)
    with pytest.raises(ValueError, match=r"fractions must include one of \[0.1, 0.2\]"):
        hcb.single_task_retrace(snapshots, networks, [0.0, 0.05, 0.5])


def test_every_scale_needs_four_analysed_networks():
    assert hcb.per_scale_counts(np.array([1.0] * 4 + [10.0] * 5), [1.0, 10.0]) == [4, 5]
    with pytest.raises(ValueError, match=r"got \[4, 3\] for scales \[1.0, 10.0\]"):
        hcb.per_scale_counts(np.array([1.0] * 4 + [10.0] * 3), [1.0, 10.0])


def test_the_chapter_s_judgements_are_those_of_each_block(blocks):
    block, ft = blocks
    pairs, replicated = pair_block(0.9), pair_block(0.0, seed=1)
    fewer = block.use.copy()
    fewer[[0, len(fewer) - 1]] = False  # one network of each scale left out, as the fine-tuning filter would
    settled = hcb.measured_on(block, fewer, SCALES, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.5, 100)
    settled_ft = hcb.finetune_measured_on(ft, settled, PREDICTORS, KERNELS, FT_OUTCOMES, FT_FRACTIONS, 0.5, 100)
    assert settled.per_scale == [N_SEEDS - 1, N_SEEDS - 1] and settled_ft.values.shape[2] == 2 * (N_SEEDS - 1)
    discovery = hcb.ContinuumBlocks(block, ft, settled, settled_ft)
    every_one_settled = hcb.ContinuumBlocks(block, ft, block, ft)  # a replication block whose fine-tuning all settled
    judged = horizon_verdicts.judge_chapter(discovery, every_one_settled, pairs, replicated, PREDICTORS, KERNELS,
                                            OUTCOMES, FT_OUTCOMES, FRACTIONS, FT_FRACTIONS, [0.0, 0.1], 0.1)
    in_force = lambda judges: {claim: judged() for claim, judged in judges.items()}  # noqa: E731
    on_all = in_force(horizon_verdicts.single_task_judges(
        block.curves, block.findings, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.1, block.per_scale,
        int(block.use.sum()), block.control_by_seed))
    on_settled = in_force(horizon_verdicts.single_task_judges(
        settled.curves, settled.findings, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.1, settled.per_scale,
        int(settled.use.sum()), settled.control_by_seed))
    assert judged.single["horizon-kernel-window"] == on_settled["horizon-kernel-window"]
    assert judged.single["horizon-loss-window"] == on_all["horizon-loss-window"]
    assert judged.single["horizon-kernel-window"].n != judged.earlier["horizon-kernel-window"][0].n
    assert judged.finetune == in_force(horizon_verdicts.finetune_judges(
        settled_ft.curves, settled_ft.findings, PREDICTORS, KERNELS, FT_OUTCOMES, FT_FRACTIONS, 0.1,
        settled.per_scale, int(settled.use.sum())))
    # the replication block: every claim of the declaration under the criterion in force, on its own networks
    from lib.analyses.replication import CONTINUUM_HORIZON_CLAIMS

    assert list(judged.replicated) == list(CONTINUUM_HORIZON_CLAIMS)
    on_all_finetune = in_force(horizon_verdicts.finetune_judges(
        ft.curves, ft.findings, PREDICTORS, KERNELS, FT_OUTCOMES, FT_FRACTIONS, 0.1, block.per_scale,
        int(block.use.sum())))
    for claim, j in judged.replicated.items():
        assert j == {**on_all, **on_all_finetune}[claim], claim
        assert j.version == {**judged.single, **judged.finetune}[claim].version
    assert judged.replicated["horizon-kernel-window"].n != judged.single["horizon-kernel-window"].n
    assert set(judged.pairs) == set(judged.replicated_pairs) | {"horizon-pairs-kernel-adds-control"}
    assert judged.pairs["horizon-pairs-kernel-window"].verdict != judged.replicated_pairs[
        "horizon-pairs-kernel-window"].verdict  # a strong signal in one block, none in the other
    assert [j.version for j in judged.earlier["horizon-kernel-beats-rivals"]] == [1, 2]
    texts = horizon_answer.answer_texts(0.5, block, pairs, judged, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS,
                                        FT_FRACTIONS, [0.0, 0.1], 0.1)
    assert set(texts) == {"hz_verdicts", "hz_answer_box", "hz_answer"}
    for j in {**judged.single, **judged.finetune, **judged.pairs}.values():
        assert j.verdict in texts["hz_verdicts"]
    # the answer describes every analysed network: it quotes the verdict judged on them
    quoted = judged.earlier["horizon-kernel-window"][-1]
    assert quoted.version == 1 and f"(the kernel's early window: {quoted.verdict})" in texts["hz_answer_box"]
    assert "does not replicate" in texts["hz_answer_box"]
    settled_words = horizon_answer.settled_text(judged, 6, 8)
    assert settled_words.startswith("Judged again on the 6 of the 8 analysed networks whose fine-tuning also settled")


def test_the_settled_text_names_each_changed_verdict():
    from lib.analyses import claims

    def judgement(claim, verdict, version):
        return claims.Judgement(claim, version, verdict, "", "", 0, "", "", "")
    now = {"horizon-kernel-adds": judgement("horizon-kernel-adds", "inconclusive", 2)}
    earlier = {claim: [judgement(claim, "inconclusive", 1)] for claim in horizon_verdicts.SETTLED_FROM}
    earlier["horizon-kernel-adds"] = [judgement("horizon-kernel-adds", "reproduced", 1)]
    now |= {claim: earlier[claim][-1]._replace(version=2) for claim in horizon_verdicts.SETTLED_FROM
            if claim != "horizon-kernel-adds"}
    judged = horizon_verdicts.HorizonJudgements(now, {}, earlier, {}, {}, {})
    text = horizon_answer.settled_text(judged, 114, 145)
    assert ("some kernel quantity carries information about an outcome beyond the representation and losses observed "
            "at the same moment (post hoc): reproduced on all the analysed networks, inconclusive on the settled "
            "ones. The figures") in text
    same = judged._replace(single={**now, "horizon-kernel-adds": earlier["horizon-kernel-adds"][0]._replace(version=2)})
    assert "every verdict is the same as on all the analysed networks." in horizon_answer.settled_text(same, 114, 145)


def test_the_finding_texts_and_tables_count_the_findings():
    findings = {"p": np.array([0.01, 0.2, np.nan]), "p_partial": np.array([0.01, np.nan, 0.5]),
                "p_holm": np.array([0.03, 0.4, np.nan]), "p_reverse_holm": np.array([0.5, 0.01, np.nan]),
                "winners": [("kernel A", "loss", "10%", 0.03)], "beaten": ["kernel B"],
                "adds": [("kernel A", "loss", "10%", "+0.40", 0.03)]}
    texts = horizon_texts.finding_texts(findings, 2, np.array([0.0, 1.0, np.nan]), 3)
    assert texts["hz_n_tests"] == "3" and texts["hz_n_control"] == "3"
    assert texts["hz_control_text"] == hr.control_text(np.array([0.0, 1.0, np.nan]))
    tables = hr.finding_tables(findings, {"winners": "beat", "adds": "add"})
    assert [t.caption for t in tables] == ["beat", "add"]
    assert hr.finding_tables({**findings, "winners": []}, {"winners": "beat"}) == []
    with pytest.raises(ValueError, match=r"titles may name only \['adds', 'winners'\], got \['losers'\]"):
        hr.finding_tables(findings, {"losers": "x"})


def test_the_pair_texts_describe_the_block():
    pairs = pair_block(0.9)
    pairs = pairs._replace(snapshots={"wall_time_s": 12.0}, retrace=0.0)
    texts = horizon_texts.pair_texts(pairs, 30, {"ET": 10000, "LR": 2500}, [0.0, 0.1], len(KERNELS))
    assert texts["hz_pairs_et"] == "10,000" and texts["hz_pairs_networks"] == "120"
    assert texts["hz_pairs_cost"].startswith("at most 0.10 s")  # 12 s over 120 snapshots after t = 0
    assert texts["hz_pairs_groups"] == ("ET standard: 30 networks, ET large: 30 networks, LR standard: 30 networks, "
                                        "LR large: 30 networks")
    assert texts["hz_pairs_retrace"] == "identical"
    winners = len(pairs.findings["winners"])
    assert texts["hz_pairs_beats_text"].startswith(f"a kernel quantity beats every rival in {winners} of ")


def test_the_chapter_refuses_fractions_without_a_recorded_test_loss_before_any_work():
    from lib.book import chapter_parameters as cp
    from tests.test_bad_inputs_chapters import parameters

    with pytest.raises(ValueError, match=r"fractions must include one of \[0.1, 0.2\], where the converged continuum"):
        cp.check_chapter("12_prediction_horizon", parameters("12_prediction_horizon", fractions=[0.0, 0.05, 0.5]))


def test_continuum_blocks_are_the_block_its_fine_tuning_and_both_on_the_settled_networks(blocks):
    block, ft = blocks
    made = hcb.continuum_blocks(SCALES, [0.1], 1, 10, N_SEEDS, 2, COMMON, FRACTIONS, FT_FRACTIONS, False, PREDICTORS,
                                KERNELS, OUTCOMES, FT_OUTCOMES, 0.5, 100)
    np.testing.assert_array_equal(made.single.values, block.values)
    np.testing.assert_array_equal(made.finetune.values, ft.values)
    settled = continuum_facts.analysed(block.networks, False, finetune=True)
    np.testing.assert_array_equal(made.settled.use, settled)
    np.testing.assert_array_equal(made.settled_finetune.use, settled)
    text = hcb.precision_text([made, made], N_SEEDS)
    assert text.startswith("widest 95% interval half-width ") and f"at {N_SEEDS} networks per init scale" in text


def test_measuring_again_on_the_same_networks_returns_the_block_itself(blocks):
    block, ft = blocks
    assert hcb.measured_on(block, block.use.copy(), SCALES, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.5, 100) is block
    assert hcb.finetune_measured_on(ft, block, PREDICTORS, KERNELS, FT_OUTCOMES, FT_FRACTIONS, 0.5, 100) is ft
    with pytest.raises(ValueError, match=r"use must be a boolean mask of shape \(10,\)"):
        hcb.measured_on(block, block.use[:3], SCALES, PREDICTORS, KERNELS, OUTCOMES, FRACTIONS, 0.5, 100)
