"""Chapter 06's tables and summary rows: the correlation claims as the reader sees them.

The verdicts themselves come from :mod:`lib.analyses.correlation_verdicts` (through
:func:`lib.analyses.claims.judge`); this module turns a block's correlation table
(:func:`lib.analyses.stats.correlation_table`) and its judgements into reader tables and the
rows of :func:`lib.book.summary.claim_row`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analyses import claims
from ..analyses.replication import SampleDeclaration, pairs_for_half_width, precision_note
from ..analyses.rival_comparison import fisher_z
from ..analyses.correlation_verdicts import PHASES, RELATIVE_CLAIMS, ClaimJudgements, judged_rows
from . import summary
from .names import verdict_badge

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
    return pd.DataFrame([{"verdict": verdict_badge(j.verdict) + (f" ({j.qualification})" if j.qualification else ""),
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

