"""The rival-theories chapter's cells and sentences select the right predictors (lib.book.rival_report)."""

import numpy as np
import pytest

from lib.analyses import rival_comparison as rc
from lib.book import rival_report as rr

SCORES = {0.3: {"a": {"theory": np.array([0.5, 0.6, 0.7]), "kernel": np.array([0.2, 0.3, 0.4]),
                      "control": np.array([np.nan, np.nan, np.nan])}},
          3.0: {"a": {"theory": np.array([0.1, 0.2, np.nan]), "kernel": np.array([0.4, 0.5, 0.6]),
                      "control": np.array([0.0, 0.1, 0.2])}}}


def test_scale_cells_equal_paired_cells_of_the_transformed_scores():
    cells = rr.scale_cells(SCORES, "a", "theory", ("kernel",), [0.3, 3.0], rc.fisher_z)
    direct = rc.paired_cells({g: rc.fisher_z(SCORES[g]["a"]["theory"]) for g in SCORES},
                             {"kernel": {g: rc.fisher_z(SCORES[g]["a"]["kernel"]) for g in SCORES}})
    assert list(cells["labels"]) == list(direct["labels"])
    np.testing.assert_array_equal(cells["p"], direct["p"])


def test_joined_cells_label_each_cell_with_its_outcome_and_kernel():
    part = {"labels": ["g = 1", "g = 2"], "p": np.array([0.1, 0.2]), "p_reverse": np.array([0.9, 0.8]),
            "n": np.array([5, 6])}
    joined = rr.joined_cells([("a", "t=0 eNTK", part), ("c", "linearized", part)])
    assert joined["labels"] == ["(a) t=0 eNTK vs g = 1", "(a) t=0 eNTK vs g = 2", "(c) linearized vs g = 1",
                                "(c) linearized vs g = 2"]
    assert joined["kernel_of"] == ["t=0 eNTK", "t=0 eNTK", "linearized", "linearized"]
    np.testing.assert_array_equal(joined["n"], [5, 6, 5, 6])


def test_best_and_as_good_words():
    words = rr.best_words(SCORES, [0.3, 3.0], "a", ("theory", "kernel", "control"))
    assert words == ("theory at g = 0.3 (+0.60, 3 networks; no score from control); "
                     "kernel at g = 3 (+0.50, 3 networks)")
    assert rr.best_words(SCORES, [0.3], "a", ("control",)) == "no predictor has a score at g = 0.3"
    assert rr.best_words(SCORES, [3.0], "a", ("theory", "control"), lower_is_better=True).startswith("control at g = 3")
    assert rr.as_good_words(SCORES, [0.3, 3.0], "a", "theory", ("kernel", "control")) == "kernel at g = 3"
    assert rr.as_good_words(SCORES, [0.3], "a", "theory", ("kernel",)) == "none"
    assert rr.best_per_scale({g: SCORES[g]["a"] for g in SCORES}, [0.3, 3.0]) == "g = 0.3: theory; g = 3: kernel"


def _pooled(rng, n=6, t=5):
    """Pooled continuum predictions over n networks (two scales) and t task pairs; network 1 diverged."""
    log_g = np.repeat(np.log([1.0, 10.0]), n // 2)[:, None] * np.ones((n, t))
    observed = np.exp(log_g + rng.normal(scale=0.3, size=(n, t)))
    pooled = {"observed": observed, rr.SCALE_ALONE: log_g,
              "two-point theory": observed * np.exp(rng.normal(scale=0.2, size=(n, t))),
              "t=0 eNTK": rng.uniform(0.0, 0.5, size=(n, t)),  # 1 - cosine: may be any size, raw
              "linearized at t=0": observed * np.exp(rng.normal(scale=0.5, size=(n, t)))}
    pooled["linearized at t=0"][1, 2] = np.inf
    return pooled


def test_across_scales_table_pools_the_finite_networks_with_the_right_scale_per_predictor():
    from scipy.stats import pearsonr

    pooled = _pooled(np.random.default_rng(0))
    names = ("two-point theory", "t=0 eNTK", "linearized at t=0")
    table, n_finite = rr.across_scales_table(pooled, names)
    keep = np.arange(6) != 1  # the diverged network is left out of every row
    obs = np.log(pooled["observed"][keep]).ravel()
    expected = {"two-point theory": pearsonr(np.log(pooled["two-point theory"][keep]).ravel(), obs)[0],
                "t=0 eNTK": pearsonr(pooled["t=0 eNTK"][keep].ravel(), obs)[0],
                "linearized at t=0": pearsonr(np.log(pooled["linearized at t=0"][keep]).ravel(), obs)[0],
                rr.SCALE_ALONE: pearsonr(pooled[rr.SCALE_ALONE][keep].ravel(), obs)[0]}
    assert n_finite == 5 and list(table.index) == [*names, rr.SCALE_ALONE]
    np.testing.assert_allclose(table["pooled r"], [expected[k] for k in table.index], rtol=1e-10)
    assert list(table["scale"]) == ["log, log", "raw prediction, log observed", "log, log", "log g, log observed"]


def test_across_scales_table_is_empty_without_two_finite_networks_and_refuses_bad_input():

    table, n_finite = rr.across_scales_table({}, ("two-point theory",))
    assert table.empty and n_finite == 0 and list(table.columns) == ["pooled r", "scale"]
    pooled = _pooled(np.random.default_rng(1), n=2)
    table, n_finite = rr.across_scales_table(pooled, ("two-point theory",))  # one network left
    assert table.empty and n_finite == 1
    with pytest.raises(ValueError, match=r"one shape .*missing \['targets control'\]"):
        rr.across_scales_table(_pooled(np.random.default_rng(0)), ("two-point theory", "targets control"))
    bad = _pooled(np.random.default_rng(0)) | {"observed": np.ones((6, 4))}
    with pytest.raises(ValueError, match=r"pooled must hold \(n, T\) arrays of one shape"):
        rr.across_scales_table(bad, ("two-point theory",))
    with pytest.raises(ValueError, match=r"pooled must be a dict of \(n, T\) arrays, got list"):
        rr.across_scales_table([], ("two-point theory",))


def test_cell_evidence_and_verdict_lines_are_what_chapter_13_judges_and_prints():
    from lib.analyses.claims import Judgement
    from lib.book import rival_report

    cells = {"p": np.array([0.01, np.nan]), "p_reverse": np.array([0.9, np.nan]), "labels": ("a", "b"),
             "n": np.array([12, 9])}
    assert rival_report.cell_evidence(cells) == {"p": cells["p"], "p_reverse": cells["p_reverse"],
                                                 "labels": ["a", "b"], "n": 9}
    now = Judgement("x", 2, "inconclusive", "0 of 3 cells", "", 9, "", "", "c2")
    old = Judgement("x", 1, "reproduced", "2 of 6 cells", "", 9, "", "", "c1")
    shape = Judgement("y", 1, "not reproduced", "-0.19", "[-0.3, -0.1]", 12, "", "20/20", "c")
    assert rival_report.verdict_lines({"x": now, "y": shape}, {"x": (old,)}, {"x": "Claim x", "y": "Claim y"}) == (
        "- **Claim x**: inconclusive (0 of 3 cells); version 1: reproduced\n"
        "- **Claim y**: not reproduced (-0.19; [-0.3, -0.1])")


def test_small_reader_helpers_of_the_rival_chapter():
    import numpy as np

    from lib.book import rival_report

    assert rival_report.race_time_words(np.inf) == "never" and rival_report.race_time_words(12.4) == "at race time 12"
    assert rival_report.finite_count([1.0, np.nan, 3.0]) == "2 of 3"
    np.testing.assert_array_equal(rival_report.plateau_lengths([1.0, np.nan]), [1.0, np.inf])
    np.testing.assert_array_equal(rival_report.negated_scores([1, -2]), [-1.0, 2.0])
    assert rival_report.as_scores([1, 2]).dtype == np.float64
    assert rival_report.predictive_names(("t=0 eNTK", "accumulated eNTK (reference)")) == ("t=0 eNTK",)


def test_side_words_name_the_best_predictors_and_every_side_by_side_verdict():
    from lib.analyses.claims import Judgement
    from lib.analyses import rival_comparison as rc

    names = {*rc.A_PREDICTORS, *rc.B_PREDICTORS, *rc.C_PREDICTORS, "distance at t=0", "route size",
             "race without sharing"}
    scores = {g: {k: {n: np.array([0.1 * (i + 1)] * 3) for i, n in enumerate(sorted(names))} for k in "abc"}
              for g in (0.3, 3.0)}
    judgements = {key: Judgement(key, 1, verdict, f"ours of {key}", "", 3, "", "", "")
                  for key, verdict in (("rival-side-similarity", "reproduced"), ("rival-side-order", "inconclusive"),
                                       ("rival-side-kernel-vs-control", "not reproduced"))}
    words = rr.side_words(scores, [0.3, 3.0], judgements)
    for key, judgement in judgements.items():
        assert f"{judgement.ours} ({judgement.verdict})" in words
    assert words.count("best predicted by") == 3 and "(reference)" in words  # the accumulated eNTK, named as such


def _chapter_inputs(rng, n_side=10, n_continuum=30):
    """Inputs of holm_claim_evidence: every predictor scored on n_side networks per side scale and
    n_continuum per continuum scale (above EXACT_FLIPS: drawn sign flips)."""
    side_names = ("two-point theory", "race", "route size", *rr.SIDE_RIVALS)
    scores = {g: {k: {name: rng.uniform(-0.5, 0.9, n_side) for name in side_names} for k in "abc"} for g in (0.3, 3.0)}
    cont_scores = {g: {name: rng.uniform(-0.5, 0.9, n_continuum) for name in ("two-point theory", *rr.SIDE_RIVALS)}
                   for g in (1.0, 10.0)}
    small = {"rho_race": rng.uniform(-0.2, 0.8, n_side), "rho_size": rng.uniform(-0.2, 0.8, n_side),
             "out_first": rng.integers(0, 2, n_side)}
    return scores, [0.3, 3.0], cont_scores, [1.0, 10.0], rng.uniform(0, 1, 24), small


def test_holm_claim_evidence_draws_sign_flips_under_the_seed_only_where_it_cannot_enumerate():
    """Cells of at most EXACT_FLIPS networks give the same p under every seed and are passed to judge
    as they are; the continuum's cells (30 networks) draw their patterns from the seed and are passed
    as ``seeded``; seed 0 is what the direct calls give."""
    inputs = _chapter_inputs(np.random.default_rng(5))
    at = {seed: rr.holm_claim_evidence(*inputs, seed=seed) for seed in (0, 1)}
    assert set(at[0]) == set(rr.HOLM_CLAIMS)
    for claim in rr.HOLM_CLAIMS:
        evidence, drawn = at[0][claim]
        assert drawn == (claim == "rival-continuum-similarity"), claim
        assert np.array_equal(evidence["p"], at[1][claim][0]["p"]) != drawn, claim
    scores, scales, cont_scores, cont_scales, _, _ = inputs
    direct = rr.scale_cells(scores, "a", "two-point theory", rr.SIDE_RIVALS, scales, rc.fisher_z)
    for key, value in rr.cell_evidence(direct).items():
        np.testing.assert_array_equal(at[0]["rival-side-similarity"][0][key], value)
    arguments = rr.holm_judge_arguments(*inputs)
    assert set(arguments["rival-continuum-similarity"]) == {"seeded"}
    np.testing.assert_array_equal(arguments["rival-continuum-similarity"]["seeded"](1)["p"],
                                  at[1]["rival-continuum-similarity"][0]["p"])
    assert "seeded" not in arguments["rival-side-similarity"]
    np.testing.assert_array_equal(arguments["rival-side-similarity"]["p"], at[0]["rival-side-similarity"][0]["p"])


def test_the_continuum_claims_arguments_are_its_part_of_the_chapters_and_follow_the_sign_flip_seed():
    """continuum_judge_arguments of a block's scores gives what holm_judge_arguments gives for the
    chapter's continuum claim (so a replication block is judged exactly as the discovery block); a
    block whose cells enumerate their sign patterns is passed as evidence, not seeded."""
    inputs = _chapter_inputs(np.random.default_rng(6))
    _, _, cont_scores, cont_scales, _, _ = inputs
    chapter = rr.holm_judge_arguments(*inputs)["rival-continuum-similarity"]["seeded"]
    alone = rr.continuum_judge_arguments(cont_scores, cont_scales)["seeded"]
    for seed in (0, 3):
        for key, value in chapter(seed).items():
            np.testing.assert_array_equal(alone(seed)[key], value)
    assert not np.array_equal(alone(0)["p"], alone(3)["p"])
    small = {g: {name: v[:8] for name, v in by.items()} for g, by in cont_scores.items()}
    evidence = rr.continuum_judge_arguments(small, cont_scales)
    assert "seeded" not in evidence and evidence["n"] == 8 and len(evidence["labels"]) == 6


def test_the_continuum_half_width_is_the_widest_cells_t_interval_of_the_z_difference():
    from scipy import stats

    rng = np.random.default_rng(7)
    scores = {g: {name: rng.uniform(-0.5, 0.9, 12) for name in ("two-point theory", *rr.SIDE_RIVALS)}
              for g in (1.0, 10.0)}
    scores[10.0]["targets control"][:6] = np.nan  # a rival undefined on half the networks: a wider interval
    widths = []
    for g in (1.0, 10.0):
        for rival in rr.SIDE_RIVALS:
            d = rc.fisher_z(scores[g]["two-point theory"]) - rc.fisher_z(scores[g][rival])
            d = d[np.isfinite(d)]
            low, high = stats.t.interval(0.95, d.size - 1, loc=d.mean(), scale=stats.sem(d))
            widths.append((high - low) / 2)
    assert rr.continuum_half_width(scores, [1.0, 10.0]) == pytest.approx(max(widths), rel=1e-12)
    empty = {g: {name: np.full(1, 0.5) for name in ("two-point theory", *rr.SIDE_RIVALS)} for g in (1.0,)}
    assert np.isnan(rr.continuum_half_width(empty, [1.0]))
