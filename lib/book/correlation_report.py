"""Chapter 06's tables and summary rows: the correlation claims as the reader sees them.

The verdicts themselves come from :mod:`lib.analyses.correlation_verdicts` (through
:func:`lib.analyses.claims.judge`); this module turns a block's correlation table
(:func:`lib.analyses.stats.correlation_table`) and its judgements into reader tables, the page's
glued texts (:func:`headline_texts`, :func:`rival_texts`, :func:`choice_texts`) and the rows of
:func:`lib.book.summary.claim_row`. Checked in ``tests/test_correlation_report.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analyses import claims
from ..analyses.controls import LOADING_PREDICTOR_NAMES
from ..analyses.replication import SampleDeclaration, pairs_for_half_width, precision_note
from ..analyses.rival_comparison import fisher_z
from ..analyses.stats import paired_trajectory_summary
from ..analyses.correlation_verdicts import PHASES, RELATIVE_CLAIMS, ClaimJudgements, judged_rows
from . import summary
from .names import judgement_text

PHASE_WORDS = {"single": "single task", "finetune": "fine-tuning"}


def correlation_view(table: pd.DataFrame) -> pd.DataFrame:
    """The reader's table of a correlation table: one row per correlation with its networks, the
    paper's r, ours with its 95% interval, the label-only r, the within-init r's and the
    within-init permutation p."""
    out = pd.DataFrame({"correlation": [f"{q} loss, {PHASE_WORDS[ph]}, {sc}" for q, ph, sc in
                                        zip(table["quantity"], table["phase"], table["schedule"])]},
                       index=table.index)
    out["networks"] = table["n_networks"]
    out["paper r"] = table["paper_r"].map("{:+.3f}".format)
    out["our r [95% CI]"] = [f"{r:+.3f} [{lo:+.2f}, {hi:+.2f}]" for r, lo, hi in
                             zip(table["r"], table["ci_low"], table["ci_high"])]
    out["label-only r"] = table["r_label"].map("{:+.3f}".format)
    out["within std / large"] = [f"{a:+.2f} / {b:+.2f}" for a, b in
                                 zip(table["r_within_standard"], table["r_within_large"])]
    out["permutation p"] = table["p_within_permutation"].map("{:.3f}".format)
    return out


def rival_cell(r: float, p: float) -> str:
    """A rival predictor's cell: r with an asterisk when the within-init permutation p < 0.05;
    "–" where r is undefined (a predictor equal for both networks of every pair)."""
    return "–" if np.isnan(r) else f"{r:+.3f}" + ("*" if p < 0.05 else "")


def verdict_view(judged: dict[tuple[str, str], claims.Judgement]) -> pd.DataFrame:
    """One row per (block or variant label, claim) -> judgement: the verdict, the claim, our r's
    with their intervals and the bootstrap seeds giving that verdict."""
    return pd.DataFrame([{"verdict": judgement_text(j, badge=True),
                          "claim": claims.CLAIMS[claim].text, "networks": label, "our r": j.ours,
                          "95% interval": j.interval, "same verdict under (bootstrap seeds)": j.stability}
                         for (label, claim), j in judged.items()])


Z_90_PER_95 = 1.6448536269514722 / 1.959963984540054  # a 90% half-width from a 95% one (normal quantiles)


def widest_half_width(table: pd.DataFrame, claim: str) -> float:
    """The widest half-width of the 95% intervals of the correlations ``claim`` judges in ``table``."""
    rows = judged_rows(table, claim)
    return float(((rows.ci_high - rows.ci_low) / 2).max())


def widest_z_half_width_90(table: pd.DataFrame, claim: str) -> float:
    """The widest 90% half-width in Fisher z of those correlations, from their 95% intervals
    (half the width in z, times the ratio of the normal quantiles): the width the criterion's
    equivalence test (TOST, 90% interval) works with."""
    rows = judged_rows(table, claim)
    return float(((fisher_z(rows.ci_high.to_numpy()) - fisher_z(rows.ci_low.to_numpy())) / 2).max() * Z_90_PER_95)


def precision_text(tables: list[pd.DataFrame], claim: str, n_pairs: int, declaration: SampleDeclaration,
                   margin_z: float) -> str:
    """What the blocks' ``tables`` (``n_pairs`` pairs per schedule each) resolve for ``claim``: the
    declared precision of r (:func:`lib.analyses.replication.precision_note`) and the sample at
    which the criterion's equivalence test with margin ``margin_z`` (in Fisher z) can pass."""
    note = precision_note(max(widest_half_width(t, claim) for t in tables), n_pairs, declaration)
    z_half = max(widest_z_half_width_90(t, claim) for t in tables)
    if z_half < margin_z:
        return note + f"; equivalence with the paper's r (±{margin_z} in Fisher z) is decidable at this sample"
    return note + (f"; equivalence with the paper's r (±{margin_z} in Fisher z) needs a 90% half-width below the margin "
                   f"(widest {z_half:.2f}): about {pairs_for_half_width(z_half, n_pairs, margin_z)} pairs per schedule")


def correlation_claim_row(claim: str, judged: ClaimJudgements, version_1: claims.Judgement, *,
                          discovery_table: pd.DataFrame, first_pairs_rivals: dict[str, float], n_first_pairs: int,
                          headline: str, replication: claims.Judgement, replication_block: str,
                          precision: str) -> dict:
    """The summary row of a correlation claim (``corr-raw`` or a key of
    :data:`lib.analyses.correlation_verdicts.RELATIVE_CLAIMS`): the verdict in force on the
    discovery block, versions 1 and 2, the replication block's judgement, and as its control the
    init label's r's (discovery block) and the ε·σ' silhouette's r's on the first
    ``n_first_pairs`` pairs (``first_pairs_rivals``: phase -> r; empty for corr-raw)."""
    if claim == "corr-raw":
        rows = discovery_table[discovery_table.quantity == "raw"]
        quantity = (f"r(silhouette, raw final test loss): combined / ET / LR, single-task | fine-tuning "
                    f"({judged.current.n} pairs per schedule)")
        control = "init label: " + " / ".join(f"{r:+.2f}" for r in rows.r_label)
        paper = " / ".join(f"{r:+.2f}" for r in rows.paper_r)
    else:
        schedule = RELATIVE_CLAIMS[claim]
        rows = discovery_table[(discovery_table.quantity == "relative") & (discovery_table.schedule == schedule)]
        rows = rows.set_index("phase").loc[list(PHASES)]
        quantity = (f"r(silhouette, relative final test loss), {schedule}: single-task / fine-tuning "
                    f"({judged.current.n} pairs, {headline} variant)")
        control = ("init label: " + " / ".join(f"{v:+.3f}" for v in rows.r_label)
                   + f"; ε·σ' silhouette ({n_first_pairs} pairs): "
                   + " / ".join(f"{first_pairs_rivals[phase]:+.3f}" for phase in PHASES))
        paper = " / ".join(f"{r:+.3f}" for r in rows.paper_r)
    return summary.claim_row(quantity, paper, judged.current, control=control,
                             evidence=summary.evidence("tab-corr-verdicts", "verdict table"),
                             earlier=[version_1, judged.version_2], replication=replication,
                             replication_block=replication_block, precision=precision)


def block_words(plan: dict) -> str:
    """The seeds of a block as reader text: "ET seeds 1000-1049, LR seeds 1100-1149"."""
    return ", ".join(f"{schedule} seeds {seeds[0]}-{seeds[-1]}" for schedule, (seeds, _) in plan.items())



def headline_texts(table: pd.DataFrame) -> dict[str, str]:
    """The page's texts of the first pairs' correlation table (:func:`lib.analyses.stats.correlation_table`):
    how many r's share the paper's sign, cover the paper's r with their interval, have a within-init
    permutation p below 0.05, the largest gap between the silhouette's and the init label's r
    (:func:`label_gap`), and ET's relative-loss r's with the label's."""
    rel = table[table["quantity"] == "relative"]
    et = {phase: rel[(rel.phase == phase) & (rel.schedule == "ET")].iloc[0] for phase in PHASES}
    same_sign = int((np.sign(table["r"]) == np.sign(table["paper_r"])).sum())
    in_ci = int(((table["paper_r"] >= table["ci_low"]) & (table["paper_r"] <= table["ci_high"])).sum())
    significant = int((table["p_within_permutation"] < 0.05).sum())
    return {"corr_same_sign": f"{same_sign} of {len(table)}", "corr_in_ci": f"{in_ci} of {len(table)}",
            "corr_label_gap": f"{label_gap(table):.3f}", "corr_significant": f"{significant} of {len(table)}",
            "corr_et_single": f"{et['single'].r:+.3f}", "corr_et_finetune": f"{et['finetune'].r:+.3f}",
            "corr_et_single_label": f"{et['single'].r_label:+.3f}",
            "corr_et_finetune_label": f"{et['finetune'].r_label:+.3f}"}


def label_gap(table: pd.DataFrame) -> float:
    """The largest ``|r(silhouette) - r(init label)|`` over the relative-loss correlations of ``table``:
    how much the silhouette adds beyond knowing the init."""
    rel = table[table["quantity"] == "relative"]
    return float(np.abs(rel["r"] - rel["r_label"]).max())


def rival_view(rivals: pd.DataFrame, predictors, paper_r) -> tuple[pd.DataFrame, dict]:
    """The reader's table of :func:`lib.analyses.stats.rival_correlations` (``rivals``, one row per
    predictor and correlation): predictors (reader names, in the order of ``predictors``, then the init
    label) x correlations (:func:`rival_cell`), under a row of the paper's r's (``paper_r``, in the
    correlations' order); and (reader name, "quantity phase schedule") -> r."""
    rivals = rivals.assign(predictor=rivals["predictor"].map(lambda p: LOADING_PREDICTOR_NAMES.get(p, p)),
                           correlation=rivals["quantity"] + " " + rivals["phase"] + " " + rivals["schedule"])
    rivals["cell"] = [rival_cell(r, p) for r, p in zip(rivals["r"], rivals["p_within_permutation"])]
    order = [LOADING_PREDICTOR_NAMES[p] for p in predictors] + ["init label"]
    table = rivals.pivot(index="predictor", columns="correlation", values="cell").loc[order]
    table = table[list(rivals["correlation"].unique())]
    paper_row = pd.DataFrame([[f"{v:+.3f}" for v in paper_r]], columns=table.columns, index=["paper"])
    return pd.concat([paper_row, table]), {(r.predictor, r.correlation): r.r for r in rivals.itertuples()}


def output_error_gap(by_predictor: dict, headline: str) -> float:
    """The largest ``|r|`` difference between the ε·σ' silhouette and the ``headline`` eNTK variant's over
    the relative-loss correlations (``by_predictor`` of :func:`rival_view`)."""
    error, entk = LOADING_PREDICTOR_NAMES["output_error"], LOADING_PREDICTOR_NAMES[f"entk_{headline}"]
    return max(abs(by_predictor[(error, c)] - by_predictor[(entk, c)]) for p, c in by_predictor
               if p == error and c.startswith("relative"))


def rival_texts(by_predictor: dict, headline: str) -> dict[str, str]:
    """The page's texts of the rival predictors: :func:`output_error_gap`, and ET's relative-loss r of
    ε·σ', ε, the plain NTK and the left eNTK vectors."""
    texts = {"rival_output_error_gap": f"{output_error_gap(by_predictor, headline):.3f}"}
    for p in ("output_error", "epsilon", "ntk", "entk_left"):
        name = LOADING_PREDICTOR_NAMES[p]
        texts |= {f"rival_{p}_et_single": f"{by_predictor[(name, 'relative single ET')]:+.3f}",
                  f"rival_{p}_et_finetune": f"{by_predictor[(name, 'relative finetune ET')]:+.3f}"}
    return texts


def choice_view(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The principled variant's correlations under each analysis choice (title -> correlation table):
    r (the init label's r) per correlation, beside the paper's."""
    first = next(iter(tables.values()))
    view = first[["quantity", "phase", "schedule"]].copy()
    view["paper r"] = first["paper_r"].map("{:+.3f}".format)
    for title, table in tables.items():
        view[title] = [f"{r:+.3f} ({lab:+.3f})" for r, lab in zip(table["r"], table["r_label"])]
    return view


def choice_performance_rows(runs_by_choice: dict) -> list[dict]:
    """Per analysis choice (title -> schedule -> run), schedule and phase: the pairs in which standard
    init ends lower and the share of snapshots at which it is better."""
    rows = []
    for title, runs in runs_by_choice.items():
        for name, run in runs.items():
            for phase in PHASES:
                s = paired_trajectory_summary(run["iterations"], run[f"{phase}/loss_test"])
                rows.append({"analysis": title, "schedule": name, "phase": phase,
                             "standard lower at end": f"{s['pairs_standard_better_at_end']}/{s['n_pairs']}",
                             "share of snapshots standard better": f"{s['share_standard_better']:.0%}"})
    return rows


def et_relative_words(table: pd.DataFrame) -> str:
    """ET's relative-loss r's of a correlation table, single-task / fine-tuning."""
    return " / ".join(f"{v:+.3f}" for v in table[(table.quantity == "relative") & (table.schedule == "ET")]["r"])


def choice_texts(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's texts of each choice's ET correlations and how many of its r's cover the paper's
    ("this": this page's choices; "split", "large_scaling": the other one; "not computed" where absent)."""
    texts = {}
    for slug in ("this", "split", "large_scaling"):
        titles = [t for t in tables if t.split(" ")[0].split("=")[0] == slug]
        if titles:
            table = tables[titles[0]]
            covered = int(((table.paper_r >= table.ci_low) & (table.paper_r <= table.ci_high)).sum())
            texts |= {f"choice_{slug}_et": et_relative_words(table), f"choice_{slug}_in_ci": f"{covered} of {len(table)}"}
        else:
            texts |= {f"choice_{slug}_et": "not computed (compare_choices=False)", f"choice_{slug}_in_ci": "not computed"}
    return texts


def choice_rows(tables: dict[str, pd.DataFrame]) -> list[dict]:
    """The summary rows of the other choices' ET correlations (titles with "="): robustness, not claims."""
    return [summary.row(f"r(principled silhouette, relative loss), ET, with {title}: single / fine-tuning",
                        "-0.881 / 0.973", et_relative_words(table), None,
                        "robustness to our choices (not a claim of the paper)")
            for title, table in tables.items() if "=" in title]


def output_error_rs(by_predictor: dict, schedule: str) -> dict[str, float]:
    """phase -> the ε·σ' silhouette's r with the relative final test loss of ``schedule`` (``by_predictor``
    of :func:`rival_view`): the kernel-free control of a relative-loss claim."""
    return {phase: by_predictor[(LOADING_PREDICTOR_NAMES["output_error"], f"relative {phase} {schedule}")]
            for phase in PHASES}


def predicts_row(in_force: claims.Judgement, earlier: list[claims.Judgement], replicated: claims.Judgement,
                 replication_block: str, output_error_gap_r: float, n_first_pairs: int) -> dict:
    """The summary row of ``corr-predicts`` (the silhouette carries information beyond the init)."""
    return summary.claim_row("silhouette carries information beyond the init (within-init permutation, Holm-corrected)",
                             "predicts generalization after both phases", in_force,
                             control=f"silhouettes shuffled within each init; ε·σ' silhouette within "
                                     f"{output_error_gap_r:.3f} of the eNTK's r ({n_first_pairs} pairs)",
                             evidence=summary.evidence("tab-corr-verdicts", "verdict table"), earlier=earlier,
                             replication=replicated, replication_block=replication_block)


def label_gap_row(table: pd.DataFrame) -> dict:
    """The summary row of :func:`label_gap` (not a claim)."""
    return summary.row("largest |r(silhouette) - r(init label)| over the relative-loss correlations",
                       "- (not reported)", f"{label_gap(table):.3f}", None,
                       "how much the silhouette adds beyond knowing the init")
