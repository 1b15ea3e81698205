"""Chapter 13's tables and sentences about each rival on its own ground (lib.book.rival_tables) on
measurements built by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lib.book import rival_tables as rt

NAN = float("nan")


def analysis(pair_r, rho_race, rho_route_only, t_out) -> dict:
    """One scale's network_analysis: 3 held-out networks, 4 task pairs of two kinds."""
    observed = np.array([[1.0, 2.0, 1.0, 2.0]] * 3)
    return {"pair_r": np.asarray(pair_r, float), "initial": observed * 0.5, "observed": observed,
            "predicted": observed / 2, "rate_h": 0.1, "rate_y": 0.2, "fit_error": 0.01, "heldout_error": np.array([0.02]),
            "rho_race": np.asarray(rho_race, float), "rho_size": np.zeros(3), "rho_route_only": np.asarray(rho_route_only, float),
            "out_first": np.array([1, 1, 0]), "t_in": np.array([10.0, NAN, NAN]), "t_out": np.asarray(t_out, float),
            "observed_curve": np.array([[1.0, 0.6, 0.4, 0.2]] * 3), "race_curve": np.array([[1.0, 0.5, 0.2, 0.1]] * 3),
            "race_clock": np.array([0.0, 1.0, 2.0, 3.0])}


BY_SCALE = {0.3: analysis([0.9, 0.8, 0.2], [0.6, 0.7, 0.8], [0.1, 0.2, 0.3], [5.0, 6.0, NAN]),
            3.0: analysis([0.4, 0.3, 0.2], [0.1, 0.2, 0.3], [0.5, 0.6, 0.7], [NAN, NAN, NAN])}


def test_multitask_tables_and_the_pooled_r_per_scale():
    prediction, fit = rt.multitask_tables(BY_SCALE, np.array([0, 1, 0, 1]), ("one kind", "other kind"))
    assert prediction.loc[0.3, "share r > 0.5"] == 2 / 3 and prediction.loc[3.0, "median r"] == 0.3
    assert fit.loc[0.3, "observed / predicted, one kind"] == 2.0 and list(fit.index) == [0.3, 3.0]
    assert rt.pooled_pairs_text(BY_SCALE).startswith("+1.00 (log distances")


def test_race_texts_and_table_read_the_smallest_and_largest_scale():
    race = {"families": ["shared", "route"], "family_strength": np.array([[0.0, 0.0], [0.4, 0.6]])}
    pools = {"families": ["in_pool", "out_pool"], "family_strength": np.array([[0.0, 0.0], [0.3, 0.7]]),
             "family_time": np.array([NAN, 12.0])}
    texts = rt.race_texts(BY_SCALE, [0.3, 3.0], np.array([0.0, 100.0, 200.0, 300.0]), race, pools)
    assert texts["rv_rho_race"] == "+0.70" and texts["rv_unshared_better"] == "1 of 2"
    assert texts["rv_out_count"] == "2 of 3" and texts["rv_large_counts"].startswith("g = 3: output pool in 0 of 3")
    assert texts["rv_race_shared"] == "40%" and "reach half at race time 12" in texts["rv_race_pools"]
    assert texts["rv_race_pools"].endswith("reach half never")
    assert rt.loss_removed(np.array([1.0, 0.6, 0.4, 0.2]), np.array([0.0, 100.0, 200.0, 300.0])) == 0.4
    table = rt.race_table(BY_SCALE)
    assert table.loc[0.3, "output pools first"] == "2/3" and table.loc[3.0, "output-pool ARI >= 0.5 (networks)"] == 0


def test_two_point_side_and_continuum_texts():
    summary = {"gain": [0.6, 1.2], "rate_h": [1.0, 2.0], "rate_y": [3.0, 4.0], "fit_error": [0.1, 0.2],
               "heldout_error": np.array([[0.1, 0.3], [0.2, 0.4]]), "final_rel_error": np.array([[0.01, 0.03], [0.02, 0.04]])}
    plateaus = {"plateau_sim": np.array([[10.0, 20.0], [5.0, 7.0]]), "plateau_theory": np.array([[11.0, 21.0], [6.0, 8.0]])}
    table = rt.two_point_table(summary, plateaus)
    assert table.loc[0.6, "plateau, network (median)"] == 15.0 and np.isclose(table.loc[1.2, "held-out error (median)"], 0.3)
    kernels = {g: {"linearized_diverged": np.array([True, False, False])} for g in (0.3, 3.0)}
    scores = {g: {"c_shape": {"observed": np.array([0.4, 0.6]), "race": np.array([0.2, 0.4])}} for g in (0.3, 3.0)}
    texts = rt.side_texts(kernels, scores, [0.3, 3.0])
    assert texts["rv_side_diverged"] == "g = 0.3: 1 of 3, g = 3: 1 of 3"
    assert texts["rv_side_shape_observed"].endswith("; the race: 30% at g = 0.3")
    across = pd.DataFrame({"pooled r": [0.5, -0.1]}, index=["two-point theory", "t=0 eNTK"])
    texts = rt.continuum_texts(across, 40, [1.0, 10.0], 30, 200, np.array([True, True, False]), True, [])
    assert texts["rv_cont_across"] == "two-point theory r = +0.50; t=0 eNTK r = -0.10 (40 networks with a finite linearization)"
    assert texts["rv_cont_nets"].endswith("analysed: 2 of 3 whose single-task training converged")
    assert texts["rv_cont_match"] == "nan"
