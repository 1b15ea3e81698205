"""Chapter 10's blocks of work: the continuum's runs, where the transition lies, the within-scale
cells, hypothesis (i) on a held-out route, and the paper's pairs repeated for robustness.

Book layer; one call per section of ``notebooks/10_rich_lazy_continuum.py``, each returning what the
section shows. The numbers come from :mod:`lib.analyses.continuum_sweeps`,
:mod:`lib.analyses.continuum_facts`, :mod:`lib.analyses.within_scale` and
:mod:`lib.analyses.robustness`; the sentences from :mod:`lib.book.continuum_report`. The converged
continuum is analysed on :func:`lib.analyses.continuum_facts.analysed_networks` (the one
convergence filter of chapters 10, 12 and 13); its convergence is described on all its networks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import claims, continuum_facts, continuum_sweeps, robustness, stats, within_scale
from ..analyses.expected_signs import expected_signs
from ..core.tasks import TaskEnvironment
from . import continuum_report
from .names import OUTCOME_LABELS, PREDICTOR_LABELS

CONVERGED = ("both", "converged")  # the converged continuum's setting key
SETTINGS = {("both", "paper"): "short, both layers, lr 0.01", ("both", "tuned"): "short, both layers, tuned lr",
            ("hidden", "paper"): "short, hidden layer, lr 0.01", ("hidden", "tuned"): "short, hidden layer, tuned lr",
            CONVERGED: "converged, both layers, tuned lr"}  # setting key -> its label in the tables
CELL_OUTCOMES = ("loss_single_test", "loss_multi_before", "finetune_speed", "loss_finetune_test", "route_zero_shot",
                 "route_iterations", "sharing_final", "weight_change", "kernel_distance", "linearization_gap")
OUTCOME_TITLES = {k: OUTCOME_LABELS[k] for k in CELL_OUTCOMES}  # outcome -> reader's title, in the figures' order
PREDICTOR_TITLES = dict(PREDICTOR_LABELS)  # predictor -> reader's title, in the order of expected_signs
LOG_OUTCOMES = ("loss_single_test", "loss_multi_before", "loss_finetune_test", "route_zero_shot", "weight_change",
                "linearization_gap")  # outcomes shown on a log axis
SILHOUETTE_CELL = ("silhouette_entk_authors", "loss_single_test")  # the paper's predictor and outcome


class ContinuumRuns(NamedTuple):
    """The chapter's two sweeps: ``sweep`` (:func:`lib.analyses.continuum_sweeps.continuum_sweep`,
    its ``networks`` the short run's), ``converged`` (every network of the converged continuum,
    column -> (N_all,)), ``analysed`` (the networks the chapter analyses,
    :func:`lib.analyses.continuum_facts.analysed_networks`), ``scales`` (scaling -> init scales of
    the short run), the wall time of each sweep (s; about 0 when read from the cache), and the
    converged continuum's replication block (``replication``: every network, ``replication_analysed``:
    those the filter keeps; None without one)."""

    sweep: dict
    converged: dict
    analysed: dict
    scales: dict
    sweep_seconds: float
    converged_seconds: float
    replication: dict | None = None
    replication_analysed: dict | None = None

    @property
    def networks(self) -> dict:
        """The short run's networks, column -> (N,)."""
        return self.sweep["networks"]


def continuum_runs(g_min: float, g_max: float, n_scales: int, hidden_scales: Sequence[float], n_seeds: int,
                   n_lr_seeds: int, lr_candidates: Sequence[float], iterations: dict, n_train: int, n_hidden: int,
                   converged_scales: Sequence[float], converged_seeds: int, converged_iterations: dict,
                   converged_only: bool, converged_first_seed: int = 0,
                   converged_replication_first_seed: int | None = None) -> ContinuumRuns:
    """The :class:`ContinuumRuns` of the chapter's parameters (read from the results cache where
    computed before): the short run at lr 0.01 and at the learning rate chosen per scale among
    ``lr_candidates``, the converged continuum, seeds ``converged_first_seed``.. (from seed 0,
    its first ``n_seeds`` networks are the short run's), and, when
    ``converged_replication_first_seed`` is given, its replication block from that seed (the
    networks chapter 12's replication block trains)."""
    scales = {"both": continuum_sweeps.scale_grid(g_min, g_max, n_scales), "hidden": [float(g) for g in hidden_scales]}
    candidates = [float(lr) for lr in lr_candidates]
    start = time.perf_counter()
    sweep = continuum_sweeps.continuum_sweep(scales, 0.01, candidates, n_seeds, n_lr_seeds,
                                             continuum_sweeps.continuum_common(iterations, n_train, n_hidden),
                                             iterations["lr_choice"])
    sweep_seconds = time.perf_counter() - start
    start = time.perf_counter()
    sizes = continuum_sweeps.continuum_common(converged_iterations, n_train, n_hidden)
    def converged_block(first_seed: int) -> dict:
        return continuum_sweeps.converged_sweep([float(g) for g in converged_scales], candidates, n_lr_seeds,
                                                iterations["lr_choice"], converged_seeds, n_seeds, sizes,
                                                first_seed=first_seed)

    converged = converged_block(converged_first_seed)
    converged_seconds = time.perf_counter() - start
    replication = None if converged_replication_first_seed is None else converged_block(converged_replication_first_seed)
    return ContinuumRuns(sweep, converged, continuum_facts.analysed_networks(converged, converged_only), scales,
                         sweep_seconds, converged_seconds, replication,
                         None if replication is None else continuum_facts.analysed_networks(replication, converged_only))


def run_texts(runs: ContinuumRuns, n_seeds: int, converged_seeds: int, converged_iterations: dict,
              converged_only: bool) -> dict[str, str]:
    """The page's texts of the design: the sweeps' sizes and wall times, and how many of the
    converged continuum's networks the chapter analyses."""
    n_points = len(runs.scales["both"]) + len(runs.scales["hidden"])
    n_all, n_used = len(runs.converged["g"]), len(runs.analysed["g"])
    n_unsettled, _ = continuum_facts.unsettled(runs.converged, "finetune",
                                               continuum_facts.analysed(runs.converged, converged_only))
    return {"cont_sweep_s": f"{runs.sweep_seconds:.0f}", "conv_sweep_s": f"{runs.converged_seconds:.0f}",
            "cont_n_points": f"{n_points}", "cont_n_initial": f"{n_points * n_seeds}",
            "cont_n_trained": f"{len(runs.networks['g'])}", "conv_n": f"{n_all}",
            "conv_scales": ", ".join(f"{g:g}" for g in dict.fromkeys(runs.converged["g"].tolist())),
            "conv_seeds": f"{converged_seeds}",
            "conv_iterations": f"{converged_iterations['single']} single-task and {converged_iterations['finetune']} "
                               "fine-tuning iterations",
            "conv_analysed": (f"{n_used} of the {n_all} networks, those whose single-task training converged; the "
                              f"fine-tuning outcomes of {n_unsettled} of them, whose fine-tuning had not settled, are "
                              "left out of the cells with a fine-tuning outcome" if converged_only else
                              f"all {n_all} networks (converged_only is off)")}


def tuned_lr_table(sweep: dict) -> pd.DataFrame:
    """The learning rate chosen per init scale (rows "g = ...") and scaling (columns; a dash where a
    scale is not on that scaling's grid)."""
    tuned = pd.DataFrame([{"scaling": s, "g": g, "tuned lr": lr} for (s, g), lr in sweep["tuned_lr"].items()])
    table = tuned.pivot(index="g", columns="scaling", values="tuned lr").rename(
        columns={"both": "both layers scaled", "hidden": "hidden layer scaled"})
    table.index = [f"g = {g:g}" for g in table.index]
    return table


def setting_networks(runs: ContinuumRuns) -> dict[tuple[str, str], dict]:
    """Setting key of :data:`SETTINGS` -> its networks: the short run's per scaling and learning rate,
    and the converged continuum's analysed networks."""
    out = {(s, k): continuum_facts.networks_of(runs.networks, s, k) for s in runs.scales for k in ("paper", "tuned")}
    return out | {CONVERGED: runs.analysed}


class Transition(NamedTuple):
    """Where the transition lies: ``facts`` (setting key -> :func:`lib.analyses.continuum_facts.transition_facts`
    for the short run's both-layer settings and the converged run; the converged run's ``converged``
    share is over all its networks), ``midpoints`` (laziness measure -> the converged run's
    :func:`lib.analyses.within_scale.midpoint_interval`), ``settled`` (phase -> share of all the
    converged run's networks that settled) and ``table`` (per converged scale)."""

    facts: dict
    midpoints: dict
    settled: dict
    table: pd.DataFrame


def transition(runs: ContinuumRuns, settings: dict, n_resamples: int) -> Transition:
    """The :class:`Transition` of the runs (``settings``: :func:`setting_networks`)."""
    every, analysed = runs.converged, runs.analysed
    facts = {key: continuum_facts.transition_facts(settings[key]) for key in (("both", "paper"), ("both", "tuned"))}
    facts[CONVERGED] = continuum_facts.transition_facts(analysed) | {"converged": float(np.mean(every["converged"]))}
    midpoints = {name: within_scale.midpoint_interval(analysed["g"], analysed[name],
                                                      continuum_sweeps.transition_midpoint, n_resamples)
                 for name in ("kernel_distance", "linearization_gap")}
    settled = {phase: continuum_facts.settled_share(every, phase) for phase in ("single", "finetune")}
    f = facts[CONVERGED]
    table = pd.DataFrame({
        "g": f["gs"], "tuned lr": [analysed["lr"][analysed["g"] == g][0] for g in f["gs"]],
        "linearization_gap": f["gap"], "linearization finite (share)": f["gap_finite"], "kernel_distance": f["dist"],
        "loss_single_test": f["loss"],
        "loss_finetune_test": continuum_sweeps.medians_by_scale(analysed, "loss_finetune_test")[1],
        "settled, single task (share of all)": [continuum_facts.settled_share(every, "single", g) for g in f["gs"]]})
    return Transition(facts, midpoints, settled, table)


def transition_texts(t: Transition) -> dict[str, str]:
    """:func:`lib.book.continuum_report.transition_texts` of a :class:`Transition`."""
    return continuum_report.transition_texts(t.facts[CONVERGED], t.midpoints, t.settled,
                                             {"paper": t.facts[("both", "paper")], "tuned": t.facts[("both", "tuned")]})


class WithinCells(NamedTuple):
    """Every within-scale cell of every setting, one Benjamini-Hochberg family: ``by_setting``
    (setting label -> cells, each with its declared ``expected`` sign), ``winners`` (setting label
    -> outcome -> :func:`lib.analyses.within_scale.winners`) and ``n_tests`` (cells with a p-value)."""

    by_setting: dict
    winners: dict
    n_tests: int

    @property
    def converged(self) -> list[dict]:
        """The converged run's cells."""
        return self.by_setting[SETTINGS[CONVERGED]]


def within_cells(settings: dict, n_resamples: int, n_permutations: int) -> WithinCells:
    """The :class:`WithinCells` of every predictor with every outcome of :data:`CELL_OUTCOMES` in
    each setting (``settings``: :func:`setting_networks`)."""
    signs = expected_signs()
    cells = within_scale.add_bh([row for key, label in SETTINGS.items()
                                 for row in within_scale.cell_table(settings[key], list(PREDICTOR_TITLES),
                                                                    list(CELL_OUTCOMES), label, n_resamples,
                                                                    n_permutations)])
    cells = [r | {"expected": signs[r["predictor"]][r["outcome"]]} for r in cells]
    by_setting = {label: [r for r in cells if r["setting"] == label] for label in SETTINGS.values()}
    winners = {label: {o: within_scale.winners(rows, o, signs) for o in CELL_OUTCOMES}
               for label, rows in by_setting.items()}
    return WithinCells(by_setting, winners, int(sum(np.isfinite(r["p"]) for r in cells)))


def within_texts(within: WithinCells) -> dict[str, str]:
    """The page's texts of the cells: their number and the converged run's winners and paper's predictor."""
    converged = SETTINGS[CONVERGED]
    silhouette = continuum_facts.cell(within.converged, *SILHOUETTE_CELL)
    return {"cont_n_tests": f"{within.n_tests}", "cont_n_settings": f"{len(SETTINGS)}",
            "cont_n_cells_setting": f"{len(PREDICTOR_TITLES) * len(CELL_OUTCOMES)}",
            **continuum_report.winner_texts(within.by_setting, within.winners, converged, silhouette, OUTCOME_TITLES,
                                            PREDICTOR_TITLES)}


def winner_table(within: WithinCells) -> pd.DataFrame:
    """Outcome (rows) x setting (columns): the within-scale winning predictor."""
    return pd.DataFrame([{"setting": label, **{o: continuum_report.winner_text(w) for o, w in ws.items()}}
                         for label, ws in within.winners.items()]).set_index("setting").T


def winner_pairs(within: WithinCells) -> list[tuple[str, str, str]]:
    """(predictor, outcome, outcome title) of each converged-run outcome with a significant winner."""
    return [(w["predictor"], o, OUTCOME_TITLES[o]) for o, w in within.winners[SETTINGS[CONVERGED]].items()
            if w["predictor"] != "none"]


class ReplicatedWinners(NamedTuple):
    """The converged run's within-scale winners on its replication block: ``replication`` (outcome ->
    :func:`lib.analyses.within_scale.winners` of the block's converged cells, one Benjamini-Hochberg
    family of their own), ``discovery`` (the same of the discovery block's converged cells as a
    family of their own, like for like), ``n_significant`` (block -> cells with q <= 0.05 in that
    family), ``n_cells`` (cells per block) and ``table`` (outcome rows; the discovery block's
    winner in the chapter's family of every setting, then the two like-for-like columns)."""

    replication: dict
    discovery: dict
    n_significant: dict
    n_cells: int
    table: pd.DataFrame


def own_family(cells: list[dict]) -> list[dict]:
    """``cells`` (with p-values) with ``q`` recomputed by Benjamini-Hochberg over these cells alone."""
    return within_scale.add_bh([{k: v for k, v in r.items() if k != "q"} for r in cells])


def replicated_winners(runs: ContinuumRuns, within: WithinCells, n_resamples: int,
                       n_permutations: int) -> ReplicatedWinners:
    """The :class:`ReplicatedWinners` of ``runs``' replication block (its analysed networks, the
    same cells as the converged setting of ``within``). ValueError when ``runs`` has no replication block."""
    if runs.replication_analysed is None:
        raise ValueError("replicated_winners needs the runs of a replication block (continuum_runs' "
                         "converged_replication_first_seed)")
    signs = expected_signs()
    replicated = own_family([r | {"expected": signs[r["predictor"]][r["outcome"]]} for r in within_scale.cell_table(
        runs.replication_analysed, list(PREDICTOR_TITLES), list(CELL_OUTCOMES), SETTINGS[CONVERGED], n_resamples,
        n_permutations)])
    blocks = {"discovery": own_family(within.converged), "replication": replicated}
    winners = {block: {o: within_scale.winners(cells, o, signs) for o in CELL_OUTCOMES} for block, cells in blocks.items()}
    text = continuum_report.winner_text
    table = pd.DataFrame({"discovery block (the family of every setting)":
                          [text(within.winners[SETTINGS[CONVERGED]][o]) for o in CELL_OUTCOMES],
                          "discovery block (its converged cells alone)": [text(winners["discovery"][o])
                                                                          for o in CELL_OUTCOMES],
                          "replication block (its converged cells alone)": [text(winners["replication"][o])
                                                                            for o in CELL_OUTCOMES]},
                         index=[OUTCOME_TITLES[o] for o in CELL_OUTCOMES])
    return ReplicatedWinners(winners["replication"], winners["discovery"],
                             {block: int(sum(r["q"] <= 0.05 for r in cells)) for block, cells in blocks.items()},
                             len(replicated), table)


def replicated_winner_texts(replicated: ReplicatedWinners) -> dict[str, str]:
    """The page's texts of the winners on the replication block: significant cells of each block
    in its own family, and the winners the answer quotes (:data:`lib.book.continuum_report.WINNER_TEXTS`)."""
    return {"cont_rep_n_cells": f"{replicated.n_cells}",
            "cont_rep_n_sig": f"{replicated.n_significant['replication']} of {replicated.n_cells}",
            "cont_disc_n_sig": f"{replicated.n_significant['discovery']} of {replicated.n_cells}",
            **{f"cont_rep_win_{name}": continuum_report.winner_text(replicated.replication[outcome])
               for name, outcome in continuum_report.WINNER_TEXTS.items()}}


class Route(NamedTuple):
    """Hypothesis (i) on a held-out route: ``table`` (per converged scale), ``hypotheses`` (setting
    key -> :func:`lib.analyses.continuum_facts.route_hypothesis`), ``initial`` (the converged run's
    cell of the t=0 sharing), ``separation`` (trained sharing at g = 1 minus g = 10),
    ``resolution`` (iterations), ``judgement`` (claim sharing-new-task in force, on the analysed
    networks) and ``earlier`` (its earlier versions, on every converged network)."""

    table: pd.DataFrame
    hypotheses: dict
    initial: dict
    separation: dict
    resolution: int
    judgement: claims.Judgement
    earlier: list


def route(runs: ContinuumRuns, settings: dict, within: WithinCells, n_resamples: int, n_permutations: int) -> Route:
    """The :class:`Route` of the runs; the claim judged under every stability seed of its bootstraps."""
    analysed = runs.analysed
    gs = continuum_sweeps.medians_by_scale(analysed, "route_iterations")[0]
    table = pd.DataFrame({"g": gs, **{name: continuum_sweeps.medians_by_scale(analysed, name)[1]
                                      for name in ("route_zero_shot", "route_iterations", "route_reached",
                                                   "sharing_final")}})
    table["share of networks at ≤ 1 iteration"] = [np.mean(analysed["route_iterations"][analysed["g"] == g] <= 1)
                                                   for g in gs]
    hypotheses = {key: continuum_facts.route_hypothesis(settings[key], n_resamples, n_permutations) for key in SETTINGS}
    resolution = int(np.max(runs.converged["route_resolution"]))
    judgement, earlier = continuum_report.judge_sharing(
        continuum_facts.route_hypothesis_evidence(analysed, n_resamples, n_permutations),
        continuum_facts.route_hypothesis_evidence(runs.converged, n_resamples, n_permutations), resolution)
    return Route(table, hypotheses, continuum_facts.cell(within.converged, "sharing_initial", "route_iterations"),
                 within_scale.group_difference(analysed["sharing_final"], analysed["g"], 1.0, 10.0, n_resamples),
                 resolution, judgement, earlier)


class RouteReplication(NamedTuple):
    """Claim sharing-new-task on the converged continuum's replication block
    (:data:`lib.analyses.replication.ROUTE_SAMPLE`): ``judgement`` (the criterion in force, on the
    block's analysed networks), ``earlier`` (its earlier versions, on every network of the block, as
    they were declared), ``hypothesis`` (``r``, ``lo``, ``hi`` and ``separates`` of the block's analysed
    networks under resampling seed 0, :func:`lib.analyses.continuum_facts.route_hypothesis_evidence`) and ``precision`` (:func:`lib.analyses.replication.precision_note` of
    the wider of the two blocks' intervals)."""

    judgement: claims.Judgement
    earlier: list
    hypothesis: dict
    precision: str


def route_replication(runs: ContinuumRuns, route_: Route, n_seeds: int, n_resamples: int,
                      n_permutations: int) -> RouteReplication:
    """The :class:`RouteReplication` of ``runs``' replication block (``n_seeds`` networks per scale),
    judged as :func:`route` judges the discovery block (``route_``), under every stability seed.
    ValueError when ``runs`` has no replication block."""
    from ..analyses.replication import ROUTE_SAMPLE, precision_note

    if runs.replication is None:
        raise ValueError("route_replication needs the runs of a replication block (continuum_runs' "
                         "converged_replication_first_seed)")
    evidence = continuum_facts.route_hypothesis_evidence(runs.replication_analysed, n_resamples, n_permutations)
    judgement, earlier = continuum_report.judge_sharing(
        evidence, continuum_facts.route_hypothesis_evidence(runs.replication, n_resamples, n_permutations),
        int(np.max(runs.replication["route_resolution"])))
    hypothesis = evidence(0)  # the page's draw, computed once for the judgement
    widest = max((h["hi"] - h["lo"]) / 2 for h in (route_.hypotheses[CONVERGED], hypothesis))
    return RouteReplication(judgement, earlier, hypothesis, precision_note(widest, n_seeds, ROUTE_SAMPLE))


def route_texts(runs: ContinuumRuns, r: Route) -> dict[str, str]:
    """:func:`lib.book.continuum_report.route_texts` of a :class:`Route` on the analysed networks."""
    return continuum_report.route_texts(runs.analysed, r.resolution, r.hypotheses[CONVERGED], r.initial, r.separation,
                                        r.judgement, r.earlier)


def short_run_comparison(transition_: Transition, within: WithinCells, route_: Route,
                         single_iterations: int) -> tuple[pd.DataFrame, int]:
    """:func:`lib.book.continuum_report.short_run_comparison` of the short run's both-layer settings
    (columns named by their ``single_iterations`` and learning rate) against the converged run."""
    columns = {f"{single_iterations} it., lr 0.01": ("both", "paper"),
               f"{single_iterations} it., tuned lr": ("both", "tuned")}
    return continuum_report.short_run_comparison(transition_.facts, within.by_setting, route_.hypotheses,
                                                 within.winners, SETTINGS, columns, CONVERGED, OUTCOME_TITLES,
                                                 SILHOUETTE_CELL)


def route_replication_texts(runs: ContinuumRuns, route_: Route, replication: RouteReplication,
                            block_words: str) -> dict[str, str]:
    """:func:`lib.book.continuum_report.route_replication_texts` of the replication block (``block_words``)."""
    return continuum_report.route_replication_texts(route_.judgement, replication.judgement, replication.earlier,
                                                    replication.hypothesis, len(runs.replication_analysed["g"]),
                                                    len(runs.replication["g"]), block_words)


class Robustness(NamedTuple):
    """The paper's standard/large pairs at a larger size: ``runs`` (schedule -> runs),
    ``comparisons`` (schedule -> :func:`lib.analyses.robustness.binary_comparison`), ``first_block``
    (the same on ET's first block of pairs) and ``table``
    (:func:`lib.analyses.stats.correlation_table`)."""

    runs: dict
    comparisons: dict
    first_block: dict
    table: pd.DataFrame


def robustness_block(plan: dict, n_hidden: int, block_pairs: int, n_resamples: int) -> Robustness:
    """The :class:`Robustness` of ``plan`` (schedule -> (seeds, n_iterations)), its pairs trained
    (or read) in cached blocks of ``block_pairs``."""
    runs = robustness.robustness_runs(TaskEnvironment(4, 3, 3), plan, n_hidden, block_pairs)
    phases = ("single", "finetune", "single_train", "finetune_train")
    comparisons = {s: robustness.binary_comparison(*(r[k] for k in phases)) for s, r in runs.items()}
    first_block = robustness.binary_comparison(*(runs["ET"][k][:block_pairs] for k in phases))
    return Robustness(runs, comparisons, first_block, pd.DataFrame(stats.correlation_table(runs, n_resamples)))


def robustness_texts(block: Robustness, n_pairs: int, block_pairs: int, iterations: dict) -> dict[str, str]:
    """The page's texts of the pairs' design and results (:func:`lib.book.continuum_report.robustness_texts`)."""
    return {"cont_rob_pairs": f"{n_pairs}", "cont_rob_block": f"{block_pairs} pairs",
            "cont_rob_iterations": f"{iterations['ET']} (ET) and {iterations['LR']} (LR)",
            **continuum_report.robustness_texts(block.comparisons, block.first_block, n_pairs, block_pairs,
                                                block.table)}


def summary_rows(within: WithinCells, transition_: Transition, route_: Route,
                 replication: RouteReplication | None = None, replication_block: str = "") -> list[dict]:
    """:func:`lib.book.continuum_report.summary_rows` of the chapter's blocks (``replication``: the
    route claim on the replication block that ``replication_block`` names)."""
    converged = SETTINGS[CONVERGED]
    return continuum_report.summary_rows(within.winners[converged]["loss_single_test"], within.n_tests,
                                         continuum_facts.cell(within.converged, *SILHOUETTE_CELL),
                                         transition_.midpoints["kernel_distance"], route_.judgement, route_.earlier,
                                         *(() if replication is None else
                                           (replication.judgement, replication_block, replication.precision)))
