"""Chapter 13's tables and sentences about each rival theory on its own ground: the two-point theory on
its network and on the multitask networks, the neural race on the sigmoid networks, the side-by-side
predictions and the continuum's networks.

Book layer. The measurements come from :mod:`lib.analyses.rival_theories` (``by_scale``: scale ->
:func:`~lib.analyses.rival_theories.network_analysis`; ``tp_summary``:
:func:`lib.experiments.two_point.scale_summary`), :mod:`lib.analyses.rival_comparison` and
:mod:`lib.analyses.rival_continuum`; these functions format them. Checked in
``tests/test_rival_tables.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..analyses import rival_theories as rt
from . import rival_report

def two_point_table(tp_summary: dict, plateaus: dict) -> pd.DataFrame:
    """Per gain: the two-point theory's fitted rates, fit and held-out errors, the median error of the
    final distance and the median plateau of network and theory (``plateaus``: ``plateau_sim``,
    ``plateau_theory`` (gains, seeds))."""
    return pd.DataFrame({
        "gain": tp_summary["gain"], "rate_h": tp_summary["rate_h"], "rate_y": tp_summary["rate_y"],
        "fit error": tp_summary["fit_error"], "held-out error (median)": np.median(tp_summary["heldout_error"], axis=1),
        "final-distance error (median)": np.median(tp_summary["final_rel_error"], axis=1),
        "plateau, network (median)": np.median(plateaus["plateau_sim"], axis=1),
        "plateau, theory (median)": np.median(plateaus["plateau_theory"], axis=1)}).set_index("gain")


def multitask_tables(by_scale: dict, kinds: np.ndarray, pair_kinds: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per scale: the two-point theory's prediction of the learned task similarity on held-out networks,
    with the distance at t = 0 as a baseline; per scale: its fitted rates and the observed / predicted
    distance per kind of task pair (``kinds`` (pairs,) indices into ``pair_kinds``))."""
    prediction, fit = [], []
    for g, out in by_scale.items():
        initial_r = [rt.pearson(a, b) for a, b in zip(out["initial"], out["observed"])]
        prediction.append({"scale g": g, "held-out networks": out["pair_r"].size, "median r": np.nanmedian(out["pair_r"]),
                           "share r > 0.5": np.mean(out["pair_r"] > 0.5),
                           "median r, distance at t = 0 (baseline)": np.nanmedian(initial_r)})
        fit.append({"scale g": g, "rate_h": out["rate_h"], "rate_y": out["rate_y"], "fit error": out["fit_error"],
                    "held-out error (median)": np.median(out["heldout_error"]),
                    **{f"observed / predicted, {name}": np.mean(out["observed"][:, kinds == k] / out["predicted"][:, kinds == k])
                       for k, name in enumerate(pair_kinds)}})
    return pd.DataFrame(prediction).set_index("scale g"), pd.DataFrame(fit).set_index("scale g")


def pooled_pairs_text(by_scale: dict) -> str:
    """The r of predicted and observed log distances pooled over every scale."""
    predicted = np.concatenate([np.log(out["predicted"]).ravel() for out in by_scale.values()])
    observed = np.concatenate([np.log(out["observed"]).ravel() for out in by_scale.values()])
    return f"{rt.pearson(predicted, observed):+.2f} (log distances; much of it is the scale itself, which sets both)"


def loss_removed(curve: np.ndarray, clock: np.ndarray) -> float:
    """The share of the loss a mean loss curve (T,) has removed at half its half-time (``clock`` (T,))."""
    return float(1 - np.interp(0.5, rt.half_time_clock(curve, clock), curve))


def race_texts(by_scale: dict, scales: Sequence[float], iterations: np.ndarray, race: dict, race_pools: dict) -> dict[str, str]:
    """The page's texts of the race against the sigmoid networks: route-order rho at the smallest scale
    (with and without sharing), at how many scales the race without sharing does better, how many networks
    group by input and output pool, the share of the loss removed at half the half-time (network and
    race), and the race's shared and pool modules (``race``, ``race_pools``:
    :func:`lib.experiments.gated_race.race_predictions` without and with the pool families)."""
    small, large = by_scale[scales[0]], by_scale[scales[-1]]
    share = dict(zip(race_pools["families"], race_pools["family_strength"][-1]))
    time = dict(zip(race_pools["families"], race_pools["family_time"]))
    better = sum(np.nanmean(out["rho_route_only"]) > np.nanmean(out["rho_race"]) for out in by_scale.values())
    return {"rv_small": f"{scales[0]:g}", "rv_rho_unshared": f"{np.nanmean(small['rho_route_only']):+.2f}",
            "rv_rho_race": f"{np.nanmean(small['rho_race']):+.2f}",
            "rv_unshared_better": f"{better} of {len(by_scale)}",
            "rv_in_count": rival_report.finite_count(small["t_in"]),
            "rv_out_count": rival_report.finite_count(small["t_out"]),
            "rv_large_counts": f"g = {scales[-1]:g}: output pool in {rival_report.finite_count(large['t_out'])}, input "
                               f"pool in {rival_report.finite_count(large['t_in'])}",
            "rv_loss_network": f"{loss_removed(small['observed_curve'].mean(axis=0), iterations):.0%}",
            "rv_loss_race": f"{loss_removed(small['race_curve'].mean(axis=0), small['race_clock']):.0%}",
            "rv_race_shared": f"{race['family_strength'][-1, list(race['families']).index('shared')]:.0%}",
            "rv_race_pools": f"output-pool modules end with {share['out_pool']:.0%} of the maps and reach half "
                             f"{rival_report.race_time_words(time['out_pool'])}, input-pool modules end with "
                             f"{share['in_pool']:.0%} and reach half {rival_report.race_time_words(time['in_pool'])}"}


def race_table(by_scale: dict) -> pd.DataFrame:
    """Per scale: the race's, route size's and the race without sharing's mean route-order rho, and the
    pool groupings (networks grouping by output pool first; networks reaching ARI 0.5 per pool)."""
    return pd.DataFrame([{"scale g": g, "networks": out["rho_race"].size, "mean rho, race": np.nanmean(out["rho_race"]),
                          "mean rho, route size": np.nanmean(out["rho_size"]),
                          "mean rho, race without sharing": np.nanmean(out["rho_route_only"]),
                          "output pools first": f"{int(out['out_first'].sum())}/{out['out_first'].size}",
                          "input-pool ARI >= 0.5 (networks)": int(np.isfinite(out["t_in"]).sum()),
                          "output-pool ARI >= 0.5 (networks)": int(np.isfinite(out["t_out"]).sum())}
                         for g, out in by_scale.items()]).set_index("scale g")


def side_texts(kernel_predictions: dict, scores: dict, scales: Sequence[float]) -> dict[str, str]:
    """The page's texts of the side-by-side predictions: per scale the linearized networks that diverged,
    and the share of the loss removed at half the half-time (observed per scale; the race's at the
    smallest scale)."""
    return {"rv_side_diverged": ", ".join(f"g = {g:g}: {int(kernel_predictions[g]['linearized_diverged'].sum())} of "
                                          f"{kernel_predictions[g]['linearized_diverged'].size}" for g in scales),
            "rv_side_shape_observed": ", ".join(f"g = {g:g}: {np.mean(scores[g]['c_shape']['observed']):.0%} removed"
                                                for g in scales)
                                      + f"; the race: {np.mean(scores[scales[0]]['c_shape']['race']):.0%} at "
                                        f"g = {scales[0]:g}"}


def continuum_texts(across: pd.DataFrame, n_finite: int, scales: Sequence[float], n_seeds: int, n_hidden: int,
                    use: np.ndarray, converged_only: bool, match: Sequence[float]) -> dict[str, str]:
    """The page's texts of the continuum's networks: each predictor's r pooled across scales (``across``
    of :func:`lib.book.rival_report.across_scales_table`, over ``n_finite`` networks), the networks
    analysed (``use`` (N,)) and the largest mismatch of the retrained networks (``match``)."""
    return {"rv_cont_across": "; ".join(f"{name} r = {row['pooled r']:+.2f}" for name, row in across.iterrows())
                              + f" ({n_finite} networks with a finite linearization)",
            "rv_cont_nets": f"{len(scales)} scales g = " + ", ".join(f"{g:g}" for g in scales)
                            + f", {n_seeds} networks each, {n_hidden} hidden units; analysed: {int(use.sum())} of "
                              f"{use.size}" + (" whose single-task training converged" if converged_only else
                                               " (every network: converged_only is off)"),
            "rv_cont_match": match_text(match)}


def match_text(match: Sequence[float]) -> str:
    """The largest relative difference of the recomputed t=0 distances from the cached ones, per scale
    (``match``, :func:`lib.analyses.rival_continuum.check_initial_match`), as "1.2e-07" ("nan" if none)."""
    return f"{max(match) if match else float('nan'):.1e}"
