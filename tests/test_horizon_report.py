"""The horizon chapter's tables and sentences select and label the right numbers (lib.book.horizon_report)."""

import numpy as np
import pytest

from lib.book import horizon_report as hr

PREDICTORS = ["silhouette_entk_principled", "kta_entk_single", "sharing", "loss_test"]
FRACTIONS = [0.0, 0.01, 0.1, 0.5]


def curves_with(within: np.ndarray) -> dict:
    """One outcome's accuracy curves with the given within-group r (P, F) and fixed bands."""
    return {"within": within, "within_lo": within - 0.1, "within_hi": within + 0.1, "across": within / 2,
            "earliest": np.array([0.1, np.inf, 0.01, np.nan]), "earliest_lo": np.array([0.01, np.inf, 0.0, np.nan]),
            "earliest_hi": np.array([0.5, np.inf, 0.1, np.nan])}


@pytest.mark.parametrize("f, text", [(0.0, "t = 0"), (0.0025, "0.25%"), (0.5, "50%"), (np.inf, hr.DASH),
                                     (np.nan, hr.DASH)])
def test_fraction_label(f, text):
    assert hr.fraction_label(f) == text


def test_strongest_text_and_cells_pick_the_largest_magnitude_in_their_rows_and_fractions():
    within = np.zeros((4, 4))
    within[0, 3], within[1, 2], within[3, 0], within[2, 1] = 0.3, -0.7, 0.9, 0.5
    curves = {"sharing_final": curves_with(within)}
    kernels = slice(0, 2)
    assert "|r| = 0.70" in hr.strongest_text(curves, "within", PREDICTORS, kernels, FRACTIONS)
    assert "at 10%" in hr.strongest_text(curves, "within", PREDICTORS, kernels, FRACTIONS)
    assert hr.strongest_text(curves, "within", PREDICTORS, slice(2, None), FRACTIONS, slice(0, 1)).startswith("|r| = 0.90")
    # t = 0 is not a candidate of strongest_cells (fractions > 0 only): the rival's 0.9 at t = 0 loses to 0.5
    assert hr.strongest_cells(curves, FRACTIONS, PREDICTORS, ["sharing", "loss_test"]) == [("sharing", "sharing_final", 1)]
    assert hr.strongest_text({"x": curves_with(np.full((4, 4), np.nan))}, "within", PREDICTORS, kernels,
                             FRACTIONS) == "undefined"


def test_tables_and_window_cells_carry_each_number_to_its_place():
    within = np.arange(16, dtype=float).reshape(4, 4) / 100
    curves = {"loss_single_test": curves_with(within)}
    table = hr.within_table(curves, PREDICTORS, FRACTIONS)
    assert table.shape == (4, 4) and table.iloc[1, 2].startswith("+0.06 [")
    earliest = hr.earliest_table(curves, PREDICTORS)
    assert earliest.iloc[0, 0] == "10% (1% to 50%)" and earliest.iloc[1, 0] == hr.DASH
    r, labels = hr.window_cells(curves, PREDICTORS, ["kta_entk_single"], ["loss_single_test"], FRACTIONS, 0.1,
                                " of fine-tuning")
    assert r == [0.05, 0.06] and labels[1].endswith("at 10% of fine-tuning")


def test_per_group_table_reports_each_groups_correlation():
    rng = np.random.default_rng(0)
    groups = np.repeat(["a", "b"], 40)
    outcome = rng.normal(size=80)
    values = rng.normal(size=(4, 4, 80))
    values[0, 2] = outcome * np.where(groups == "a", 1.0, -1.0) + 0.01 * rng.normal(size=80)  # opposite signs
    within = np.zeros((4, 4))
    within[0, 2], within[2, 1] = 0.5, 0.2
    table, text = hr.per_group_table(values, {"sharing_final": outcome}, groups, FRACTIONS,
                                     {"sharing_final": curves_with(within)},
                                     PREDICTORS, PREDICTORS[:2], PREDICTORS[2:])
    assert table.loc[table.index[0], "a"].startswith("+1.00") and table.loc[table.index[0], "b"].startswith("-1.00")
    assert float(table.loc[table.index[0], "Cochran's Q p"]) < 1e-6 and "rejects one common correlation" in text
    long = hr.per_group_long(table)  # one row per cell and group, the cell's pooled r and Q p repeated
    assert list(long.index.names) == ["cell", "group"] and len(long) == 2 * len(table)
    assert list(long.columns) == ["r [95% interval]", "pooled r", "Cochran's Q p"]
    for (cell, group), row in long.iterrows():
        assert row["r [95% interval]"] == table.loc[cell, group]
        assert row["pooled r"] == table.loc[cell, "pooled r"]
        assert row["Cochran's Q p"] == table.loc[cell, "Cochran's Q p"]
    assert [i[1] for i in long.index[:2]] == ["a", "b"] and long.index[0][0] == table.index[0]


def test_control_text():
    assert "3 of the 4 permutations" in hr.control_text(np.array([1, 0, 2, 5, np.nan]))
    assert hr.control_text(np.array([np.nan])).startswith("No cell could be tested")


def test_rival_findings_applies_holm_and_lists_the_winners_the_beaten_and_the_adds():
    labels = [("K1", "speed", "1%"), ("K1", "speed", "10%"), ("K2", "speed", "1%"), ("K2", "loss", "10%")]
    cells = {"p": [0.001, 0.04, np.nan, 0.5], "p_reverse": [0.9, 0.2, 0.01, 0.003],
             "r_partial": [0.41, -0.3, np.nan, 0.05], "p_partial": [0.02, 0.001, np.nan, 0.9],
             "kernel_of": ["K1", "K1", "K2", "K2"], "labels": labels}
    found = hr.rival_findings(cells)
    # Holm by hand over the 3 finite p: 0.001 x 3 = 0.003, 0.04 x 2 = 0.08, 0.5 x 1 -> max with the previous: 0.5
    np.testing.assert_allclose(found["p_holm"], [0.003, 0.08, np.nan, 0.5])
    # reverse (4 finite): sorted 0.003, 0.01, 0.2, 0.9 -> 0.012, 0.03, 0.4, 0.9
    np.testing.assert_allclose(found["p_reverse_holm"], [0.9, 0.4, 0.03, 0.012])
    np.testing.assert_allclose(found["p_partial_holm"], [0.04, 0.003, np.nan, 0.9])
    assert found["winners"] == [("K1", "speed", "1%", pytest.approx(0.003))]
    assert found["beaten"] == ["K2"]
    assert found["adds"] == [("K1", "speed", "1%", "+0.41", pytest.approx(0.04)),
                             ("K1", "speed", "10%", "-0.30", pytest.approx(0.003))]
    assert found["labels"] == labels and found["p"] == cells["p"]  # the cells pass through
    assert hr.rival_findings(cells, level=0.01)["adds"] == [("K1", "speed", "10%", "-0.30", pytest.approx(0.003))]


@pytest.mark.parametrize("cells, level, message", [
    ({"p": [0.1]}, 0.05, r"cells must be a dict of equally long entries"),
    ("cells", 0.05, r"cells must be a dict of equally long entries .*got str"),
    (None, 1.0, r"level must be a number in \(0, 1\), got 1\.0"),
    (None, True, r"level must be a number in \(0, 1\), got True"),
])
def test_rival_findings_refuses_bad_input(cells, level, message):
    good = ({k: [0.1] for k in ("p", "p_reverse", "r_partial", "p_partial")}
            | {"kernel_of": ["K"], "labels": [("K", "o", "1%")]})
    with pytest.raises(ValueError, match=message):
        hr.rival_findings(good if cells is None else cells, level=level)


def test_summary_rows_give_every_horizon_claim_once_and_both_blocks_their_replication():
    from lib.analyses import claims
    from lib.analyses.claim_types import Judgement

    def judged(keys):
        return {k: Judgement(k, claims.criterion(k).version, "inconclusive", "ours", "", 10, "", "", "criterion")
                for k in keys}

    continuum = judged(["horizon-kernel-window", "horizon-representation-window", "horizon-loss-window",
                        "horizon-kernel-beats-rivals", "horizon-kernel-adds", "horizon-kernel-adds-control"])
    finetune = judged(["horizon-finetune-kernel-window", "horizon-finetune-loss-window",
                       "horizon-finetune-kernel-beats-rivals"])
    pairs = judged(["horizon-pairs-kernel-window", "horizon-pairs-representation-window", "horizon-pairs-loss-window",
                    "horizon-pairs-kernel-beats-rivals", "horizon-pairs-kernel-adds",
                    "horizon-pairs-kernel-adds-control"])
    replicated = {k: j._replace(verdict="reproduced") for k, j in pairs.items()}
    earlier = {k: [j._replace(version=v, verdict="not reproduced") for v in range(1, j.version)]
               for k, j in {**continuum, **finetune}.items() if j.version > 1}
    from lib.analyses.replication import CONTINUUM_HORIZON_CLAIMS, DOES_NOT_REPLICATE, REPLICATES

    continuum_replicated = {k: j._replace(verdict="not reproduced" if k == "horizon-kernel-window" else j.verdict)
                            for k, j in {**continuum, **finetune}.items()}
    rows = hr.summary_rows(continuum, finetune, pairs, replicated, earlier, "CONTROL", "PAIR CONTROL",
                           "seeds 2000-2003", "half-width 0.3", continuum_replicated, "seeds 3000-3029 per scale",
                           "half-width 0.17")
    assert [r["claim"] for r in rows] == [*continuum, *finetune, *pairs]
    for r in rows:  # every earlier version shown beside the one in force
        assert [e["version"] for e in r["earlier"]] == [j.version for j in earlier.get(r["claim"], [])]
    assert [e["verdict"] for e in rows[3]["earlier"]] == ["not reproduced", "not reproduced"]  # beats-rivals v1, v2
    with_replication = [r["claim"] for r in rows if r.get("replication")]
    assert with_replication == [*CONTINUUM_HORIZON_CLAIMS, *(k for k in pairs if k != "horizon-pairs-kernel-adds-control")]
    by_claim = {r["claim"]: r["replication"] for r in rows}
    assert by_claim["horizon-kernel-window"]["status"] == DOES_NOT_REPLICATE
    assert by_claim["horizon-loss-window"]["status"] == REPLICATES
    assert by_claim["horizon-loss-window"]["block"] == "seeds 3000-3029 per scale"
    assert by_claim["horizon-loss-window"]["precision"] == "half-width 0.17"
    assert by_claim["horizon-pairs-loss-window"]["block"] == "seeds 2000-2003"
    assert any("CONTROL" in r["control"] for r in rows) and any("PAIR CONTROL" in r["control"] for r in rows)
