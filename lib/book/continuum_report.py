"""The continuum chapter's reader text: winners, unexpected signs, the linearization gap, the
within-scale table and what a short run gets wrong.

Book layer; the chapter glues or shows what these functions return. The numbers come from
:mod:`lib.analyses.within_scale` and :mod:`lib.analyses.continuum_facts`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from ..analyses import claims
from ..analyses.continuum_facts import GAP_DEFINED_SHARE, cell
from . import summary
from .names import judgement_text, reader_name
from .replication_report import blocks_text

# a short-run entry that disagrees with the converged run, as the comparison table marks it
SIGN_DIFFERS, DIFFERENT_WINNER = " (sign differs)", " (different winner)"
UNDEFINED_GAP = "undefined (linearization diverged)"
SIGN_WORDS = {None: "no sign declared", True: "expected sign", False: "UNEXPECTED sign"}


def winner_text(winner: dict) -> str:
    """A within-scale winner (:func:`lib.analyses.within_scale.winners`) as "name (r, q; sign)", or "none"."""
    if winner["predictor"] == "none":
        return "none"
    return (f"{reader_name(winner['predictor'])} ({winner['r']:+.2f}, q = {winner['q']:.2g}; "
            f"{SIGN_WORDS[winner['sign_as_expected']]})")


def interval_text(row: Mapping) -> str:
    """"r [lo, hi]" of a within-scale test."""
    return f"{row['r']:+.2f} [{row['lo']:+.2f}, {row['hi']:+.2f}]"


def unexpected_reading(outcome: str, winner: dict, outcome_titles: Mapping[str, str],
                       predictor_titles: Mapping[str, str]) -> str:
    """One sentence: what a winner with the unexpected sign contradicts (the lazy-regime argument for
    an alignment predictor, the paper's reading of shared representations for the others)."""
    direction = "higher" if winner["r"] > 0 else "lower"
    if winner["predictor"].startswith("kta"):
        return (f"networks whose t=0 kernel is better aligned with the targets ({reader_name(winner['predictor'])}) "
                f"have a {direction} {outcome_titles[outcome]} than networks of the same scale, which the lazy-regime "
                "argument for alignment does not predict")
    return (f"networks with a larger {predictor_titles[winner['predictor']]} have a {direction} "
            f"{outcome_titles[outcome]} than networks of the same scale, against the paper's reading that shared, "
            "task-structured representations generalize to new and single tasks")


def gap_sentence(facts: Mapping) -> str:
    """The linearization gap of one setting's :func:`~lib.analyses.continuum_facts.transition_facts`:
    its range where it is defined at every scale, else where the linearization diverged."""
    gs, gap = facts["gs"], facts["gap"]
    if facts["gap_defined"]:
        i_max, i_min = int(np.nanargmax(gap)), int(np.nanargmin(gap))
        return (f"The median gap between a trained network and its trained linearization runs from {gap[i_max]:.2f} "
                f"at g = {gs[i_max]:g} to {gap[i_min]:.2f} at g = {gs[i_min]:g}; a lazy network would have a gap "
                "near 0.")
    diverged = {g: f for g, f in zip(gs, facts["gap_finite"]) if f < GAP_DEFINED_SHARE}
    finite_gs = [g for g in gs if g not in diverged]
    text = ("The gap between a trained network and its trained linearization is not defined across this run: "
            "trained at the network's learning rate for the same iterations, the linearization diverged (a "
            "non-finite gap) in " + ", ".join(f"{100 * (1 - f):.0f}% of the networks at g = {g:g}"
                                              for g, f in diverged.items()))
    if finite_gs:
        text += (f"; where it stayed finite (g = {', '.join(f'{g:g}' for g in finite_gs)}) the median gap is "
                 + ", ".join(f"{v:.2f}" for g, v in zip(gs, gap) if g in finite_gs)
                 + " (a lazy network would have a gap near 0)")
    return text + "."


def within_table(rows: list[dict]) -> pd.DataFrame:
    """One setting's within-scale cells for the reader: predictor, outcome, n, across r, within r with
    its interval, p, the Benjamini-Hochberg q and the declared sign."""
    table = pd.DataFrame(rows)
    table["across r"] = table.r_across.map("{:+.2f}".format)
    table["within r [95% CI]"] = [f"{r:+.2f} [{lo:+.2f}, {hi:+.2f}]" for r, lo, hi in zip(table.r, table.lo, table.hi)]
    table["p"] = table.p.map("{:.2g}".format)
    table["q (BH)"] = table.q.map("{:.2g}".format)
    table["expected sign"] = table.expected.map({1: "+", -1: "-", 0: "none"})
    table["predictor"] = table.predictor.map(reader_name)
    table["outcome"] = table.outcome.map(reader_name)
    return table[["predictor", "outcome", "n", "across r", "within r [95% CI]", "p", "q (BH)", "expected sign"]]


def _sign_mark(short: float, converged: float) -> str:
    return "" if np.sign(short) == np.sign(converged) else SIGN_DIFFERS


def short_run_comparison(facts: Mapping, by_setting: Mapping[str, list[dict]], hypothesis: Mapping,
                         winners: Mapping[str, Mapping[str, dict]], settings: Mapping, short_columns: Mapping[str, tuple],
                         converged_key: tuple, outcome_titles: Mapping[str, str],
                         silhouette_cell: tuple[str, str]) -> tuple[pd.DataFrame, int]:
    """Every continuum conclusion from each short-run setting (``short_columns``: column -> setting
    key) beside the converged run's (``converged_key``); an entry whose sign differs from the
    converged run's, or whose winner differs, is marked. ``facts``/``hypothesis``: setting key ->
    :func:`~lib.analyses.continuum_facts.transition_facts` / ``route_hypothesis``; ``by_setting`` and
    ``winners``: setting label (``settings[key]``) -> cells / outcome -> winner. Returns the table
    and the number of marked entries."""
    def lookup(key):
        return cell(by_setting[settings[key]], *silhouette_cell)

    def gap_at(key, pick: Callable) -> str:
        f = facts[key]
        return f"{f['gs'][pick(f['gap'])]:g}" if f["gap_defined"] else UNDEFINED_GAP

    conclusions = [
        ("lowest median single-task test loss at g", lambda k: f"{facts[k]['best_g']:g}", None),
        ("transition midpoint, NTK distance (g)", lambda k: f"{facts[k]['mid_dist']:.2g}", None),
        ("transition midpoint, linearization gap (g)",
         lambda k: f"{facts[k]['mid_gap']:.2g}" if facts[k]["gap_defined"] else UNDEFINED_GAP, None),
        ("linearization gap largest / smallest at g",
         lambda k: (f"{gap_at(k, np.nanargmax)} / {gap_at(k, np.nanargmin)}" if facts[k]["gap_defined"]
                    else UNDEFINED_GAP), None),
        ("networks with final training loss <= 10% of initial", lambda k: f"{100 * facts[k]['converged']:.0f}%", None),
        ("across-scale r(authors' silhouette, single-task loss)", lambda k: f"{lookup(k)['r_across']:+.2f}",
         lambda k: lookup(k)["r_across"]),
        ("within-scale r(authors' silhouette, single-task loss)", lambda k: interval_text(lookup(k)),
         lambda k: lookup(k)["r"]),
        ("within-scale r(trained sharing, route iterations), hypothesis (i)", lambda k: interval_text(hypothesis[k]),
         lambda k: hypothesis[k]["r"]),
    ]
    rows = []
    for name, value, signed in conclusions:
        entry = {"conclusion": name, "converged": value(converged_key)}
        for column, key in short_columns.items():
            entry[column] = value(key) + (_sign_mark(signed(key), signed(converged_key)) if signed else "")
        rows.append(entry)
    converged_winners = winners[settings[converged_key]]
    for outcome, title in outcome_titles.items():
        entry = {"conclusion": f"within-scale winner: {title}", "converged": winner_text(converged_winners[outcome])}
        for column, key in short_columns.items():
            short = winners[settings[key]][outcome]
            entry[column] = winner_text(short) + (
                DIFFERENT_WINNER if short["predictor"] != converged_winners[outcome]["predictor"] else "")
        rows.append(entry)
    table = pd.DataFrame(rows)[["conclusion", *short_columns, "converged"]]
    n_marked = int(sum(SIGN_DIFFERS in text or DIFFERENT_WINNER in text
                       for column in short_columns for text in table[column]))
    return table, n_marked


def silhouette_wins(winner: Mapping) -> bool:
    """Whether the within-scale winner of an outcome (:func:`lib.analyses.within_scale.winners`) is
    one of the eNTK silhouettes with its declared sign: the paper's implied predictor of
    single-task test loss holds up inside the scales."""
    return winner["predictor"].startswith("silhouette_entk") and winner["sign_as_expected"] is True


def summary_rows(loss_winner: Mapping, n_tests: int, silhouette_cell: Mapping, kernel_midpoint: Mapping, judgement,
                 earlier: list, replication=None, replication_block: str = "", precision: str = "") -> list[dict]:
    """Chapter 10's summary records: the within-scale winner of single-task test loss in the
    converged continuum (:func:`silhouette_wins` against the paper's implied eNTK silhouette, with
    the authors' silhouette's cell ``silhouette_cell``), the transition midpoint by NTK distance
    (``kernel_midpoint``: ``midpoint``, ``lo``, ``hi``), and the route-learning claim
    (``judgement``, its ``earlier`` versions; ``replication``: the same criterion on the replication
    block that ``replication_block`` names, with the ``precision`` note)."""
    return [
        summary.row("within-scale winner predicting single-task test loss (converged continuum)",
                    "eNTK silhouette (implied)", winner_text(loss_winner), silhouette_wins(loss_winner),
                    f"strongest cell significant after Benjamini-Hochberg (5%) over {n_tests} cells, with the "
                    "declared sign", f"authors' silhouette within-scale r {silhouette_cell['r']:+.2f} "
                    f"[{silhouette_cell['lo']:+.2f}, {silhouette_cell['hi']:+.2f}]"),
        summary.row("transition midpoint by NTK distance (converged continuum, g)", "",
                    f"{kernel_midpoint['midpoint']:.2g}", None,
                    "crossing of the middle of the per-scale medians' range, bootstrap 95% interval",
                    f"[{kernel_midpoint['lo']:.2g}, {kernel_midpoint['hi']:.2g}]"),
        summary.claim_row("r(sharing of the trained representation, iterations to learn a held-out route), within "
                          "scales", "negative (hypothesis i)", judgement,
                          control="correlation within each init scale (the scale held fixed); testable only if the "
                          "sharing measure separates g = 1 from g = 10",
                          evidence=summary.evidence("cont-routes", "held-out routes"), earlier=earlier,
                          replication=replication, replication_block=replication_block, precision=precision),
    ]


def transition_texts(converged: Mapping, midpoints: Mapping, settled: Mapping[str, float],
                     short: Mapping[str, Mapping]) -> dict[str, str]:
    """The page's texts of where the transition lies (``converged``: the converged run's
    :func:`lib.analyses.continuum_facts.transition_facts`; ``midpoints``: measure -> its
    :func:`lib.analyses.within_scale.midpoint_interval`; ``settled``: phase -> the share of settled
    networks; ``short``: "paper" / "tuned" -> the short run's transition facts)."""
    dist, gap = midpoints["kernel_distance"], midpoints["linearization_gap"]
    d_max, d_min = int(np.nanargmax(converged["dist"])), int(np.nanargmin(converged["dist"]))
    return {"conv_mid_dist": f"{dist['midpoint']:.2g} [{dist['lo']:.2g}, {dist['hi']:.2g}]",
            "conv_mid_gap": (f"{gap['midpoint']:.2g} [{gap['lo']:.2g}, {gap['hi']:.2g}]" if converged["gap_defined"]
                             else "undefined"),
            "conv_gap_sentence": gap_sentence(converged), "conv_mid_undefined": f"{dist['n_undefined']}",
            "conv_dist_range": f"{converged['dist'][d_min]:.3f} at g = {converged['gs'][d_min]:g} to "
                               f"{converged['dist'][d_max]:.3f} at g = {converged['gs'][d_max]:g}",
            "conv_best_g": f"{converged['best_g']:g}", "conv_converged": f"{100 * converged['converged']:.0f}%",
            "conv_settled_single": f"{100 * settled['single']:.0f}%",
            "conv_settled_finetune": f"{100 * settled['finetune']:.0f}%",
            "cont_converged_paper": f"{100 * short['paper']['converged']:.0f}%",
            "cont_converged_tuned": f"{100 * short['tuned']['converged']:.0f}%"}


WINNER_TEXTS = {"loss": "loss_single_test", "ft": "finetune_speed", "ftloss": "loss_finetune_test",
                "route": "route_iterations"}  # glue name -> outcome of the converged run's winners quoted


def winner_texts(by_setting: Mapping[str, list[dict]], winners: Mapping[str, Mapping], converged: str,
                 silhouette: Mapping, outcome_titles: Mapping[str, str],
                 predictor_titles: Mapping[str, str]) -> dict[str, str]:
    """The page's texts of the within-scale winners: significant cells per setting (``by_setting``:
    setting -> cells with their BH ``q``), the paper's predictor on the converged run (``silhouette``:
    its cell), the converged run's winners (``winners``: setting -> outcome -> winner) and every winner
    with the unexpected sign, read for the converged run."""
    unexpected = [(label, o, w) for label, ws in winners.items() for o, w in ws.items()
                  if w.get("sign_as_expected") is False]
    readings = [unexpected_reading(o, w, outcome_titles, predictor_titles) for label, o, w in unexpected
                if label == converged]
    return {"cont_sig_counts": "; ".join(f"{label}: {sum(r['q'] <= 0.05 for r in rows)} of {len(rows)}"
                                         for label, rows in by_setting.items()),
            "cont_sil_across": f"{silhouette['r_across']:+.2f}",
            "cont_sil_within": f"{interval_text(silhouette)} (q = {silhouette['q']:.2g})",
            **{f"cont_win_{name}": winner_text(winners[converged][outcome]) for name, outcome in WINNER_TEXTS.items()},
            "cont_unexpected": "; ".join(f"{reader_name(w['predictor'])} for {reader_name(o)} ({label}, r = "
                                         f"{w['r']:+.2f})" for label, o, w in unexpected) or "none",
            "cont_n_unexpected": f"{len(unexpected)}",
            "cont_unexpected_reading": "; ".join(readings) or "no winner of the converged run has the unexpected sign"}


def route_texts(networks: Mapping, resolution: int, hypothesis: Mapping, initial: Mapping, separation: Mapping,
                judgement, earlier: list) -> dict[str, str]:
    """The page's texts of hypothesis (i) on the converged run (``networks``): the held-out route's
    resolution and how many networks learn it, the within-scale r of trained (``hypothesis``) and
    initial (``initial``) sharing, the sharing measure's separation of g = 1 from g = 10, and the
    verdicts (``judgement`` in force, ``earlier``: versions 1, 2, ...)."""
    return {"cont_route_reached": f"{100 * networks['route_reached'].mean():.0f}%",
            "cont_route_resolution": f"{resolution}", "cont_hyp_across": f"{hypothesis['r_across']:+.2f}",
            "cont_hyp_within": interval_text(hypothesis), "cont_hyp0_within": interval_text(initial),
            "cont_sep": f"{separation['difference']:+.2g} [{separation['lo']:+.2g}, {separation['hi']:+.2g}]",
            "cont_sep_word": "separates" if separation["separates"] else "does not separate",
            "cont_hyp_verdict": judgement_text(judgement),
            **{f"cont_hyp_verdict_v{j.version}": j.verdict for j in earlier}}


def route_replication_texts(discovery, replicated, replicated_earlier: list, hypothesis: Mapping, n_analysed: int,
                            n_networks: int, block_words: str) -> dict[str, str]:
    """The page's texts of hypothesis (i) on the replication block (``block_words``): its declared
    precision, how many of its ``n_networks`` are analysed, its within-scale r (``hypothesis``), the
    verdict in force there (``replicated``; ``discovery``: the same criterion on the discovery
    block), whether it replicates, and the earlier versions' verdicts there (``replicated_earlier``)."""
    from ..analyses.replication import ROUTE_SAMPLE, replication_status

    sentence = f"The verdict in force {replication_status(discovery, replicated)}: {blocks_text(discovery, replicated)}."
    return {"cont_rep_block": block_words, "cont_rep_half_width": f"{ROUTE_SAMPLE.half_width:.2f}",
            "cont_rep_analysed": f"{n_analysed} of its {n_networks} networks", "cont_rep_within": interval_text(hypothesis),
            "cont_rep_verdict": judgement_text(replicated), "cont_rep_sentence": sentence,
            **{f"cont_rep_verdict_v{j.version}": j.verdict for j in replicated_earlier}}


def robustness_view(table: pd.DataFrame) -> pd.DataFrame:
    """The reader's table of the robustness pairs' correlations (:func:`lib.analyses.stats.correlation_table`)."""
    shown = table[["quantity", "phase", "schedule", "n_networks", "paper_r"]].copy()
    shown["our r [95% CI]"] = [f"{r:+.3f} [{lo:+.2f}, {hi:+.2f}]" for r, lo, hi in
                               zip(table.r, table.ci_low, table.ci_high)]
    shown["label-only r"] = table.r_label.map("{:+.3f}".format)
    shown["within std / large"] = [f"{a:+.2f} / {b:+.2f}" for a, b in zip(table.r_within_standard, table.r_within_large)]
    shown["permutation p"] = table.p_within_permutation.map("{:.3f}".format)
    return shown


def robustness_texts(comparisons: Mapping[str, Mapping], first_block: Mapping, n_pairs: int, block_pairs: int,
                     table: pd.DataFrame) -> dict[str, str]:
    """The page's texts of the standard/large pairs run for robustness (``comparisons``: schedule ->
    :func:`lib.analyses.robustness.binary_comparison`; ``first_block``: the same on ET's first block):
    who ends lower (ET single-task with its exact 95% interval), who did not converge, and how many of
    the correlations of ``table`` have a within-init permutation p below 0.05 (against chance)."""
    from scipy.stats import binomtest

    et, lr = comparisons["ET"], comparisons["LR"]
    interval = binomtest(int(et["single/standard_wins"]), n_pairs).proportion_ci(0.95, method="exact")
    return {"rob_n": f"{n_pairs}", "rob_et_single": f"{et['single/standard_wins']} of {n_pairs}",
            "rob_et_single_ci": f"{interval.low:.0%} to {interval.high:.0%}",
            "rob_et_single_first": f"{first_block['single/standard_wins']} of {min(block_pairs, n_pairs)}",
            "rob_et_ft": f"{et['finetune/large_wins']} of {n_pairs}",
            "rob_lr_single": f"{lr['single/standard_wins']} of {n_pairs}",
            "rob_lr_ft": f"{lr['finetune/large_wins']} of {n_pairs}",
            "rob_nc": ", ".join(f"{s} {p}: {c[f'{p}/not_converged_standard']} standard / "
                                f"{c[f'{p}/not_converged_large']} large"
                                for s, c in comparisons.items() for p in ("single", "finetune")),
            "rob_sig": f"{int((table.p_within_permutation < 0.05).sum())} of {len(table)}",
            "rob_sig_chance": f"{0.05 * len(table):.1f}"}


def judge_sharing(evidence: Callable[[int], dict], every_network_evidence: Callable[[int], dict],
                  resolution: int) -> tuple:
    """(claim ``sharing-new-task`` under the criterion in force, on the analysed networks'
    ``evidence``; [its earlier versions, oldest first, on ``every_network_evidence``: every network
    of the converged continuum, as they were declared]), each judged under every stability seed of
    its bootstraps (seed -> r, lo, hi, separates,
    :func:`lib.analyses.continuum_facts.route_hypothesis_evidence`); ``resolution``: the iterations to
    which the held-out route's outcome is resolved."""
    current = claims.criterion("sharing-new-task").version
    earlier = [claims.judge("sharing-new-task", version=1, seeded=lambda s: {"value": every_network_evidence(s)["hi"]})]
    earlier += [claims.judge("sharing-new-task", version=v, resolution=resolution, seeded=every_network_evidence)
                for v in range(2, current)]
    return claims.judge("sharing-new-task", resolution=resolution, seeded=evidence), earlier
