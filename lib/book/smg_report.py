"""Chapter 02's verdicts and summary rows: the deep linear network (SMG) claims as the reader sees them.

Book layer. The rules are :mod:`lib.analyses.smg_claims`' and every verdict comes from
:func:`lib.analyses.claims.judge`; this module gathers the chapter's measurements
(:class:`SmgMeasures`), judges each claim (:func:`judge_claims`) and turns the judgements into the
rows of :func:`lib.book.summary.claim_row` (:func:`claim_rows`). Checked in
``tests/test_smg_report.py``.

Times are iterations of gradient descent; NaN marks a mode not half learned, or a vector that
never settles, within the run. Modes are numbered from 1 (the largest).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..analyses import claims, smg_claims
from . import summary
from .tables import iteration_text


class SmgMeasures(NamedTuple):
    """What chapter 02's claims read."""

    analysis_times: tuple  # (t1, t2): the paper's two analysed iterations
    own_half: np.ndarray  # (3,) this seed's half-time of each mode's strength
    sweep_half: np.ndarray  # (S, 3) the same for S random draws
    twin_errors: np.ndarray  # (S, 3) |simulated / closed-form half-time - 1| of the aligned twin
    fig3: np.ndarray  # (4, modes) |r|: rows t1 vector 1, t1 vector 2, t2 vector 1, t2 vector 2
    best_mode: tuple  # (mode of the top eNTK vector of the one-step map change at t1, at t2)
    primary_switch: np.ndarray  # (modes,) when the eNTK's primary vector settles on each mode
    secondary_switch: np.ndarray  # (modes,) the same for the secondary vector
    secondary_leaves_2: float  # when the secondary vector leaves mode 2
    ntk_mode1_share: float  # share of recorded times at which the plain NTK's primary vector best matches mode 1


SWEEP_ROWS = {"random": "random init (simulated)", "aligned": "aligned twin (simulated)",
              "closed_form": "closed form"}  # the sweep's entries, as the table names them


def sweep_view(sweep: dict, modes: int = 3) -> pd.DataFrame:
    """The half-time sweep (:func:`lib.experiments.smg.half_time_sweep`) as the reader's table: per init
    (rows) and mode, the median [interquartile range] of the half-times over seeds and the seeds where
    the mode is not reached, beside the paper's analysis times."""
    table = pd.DataFrame({name: [f"{np.nanmedian(sweep[name][:, a]):.0f} [{np.nanpercentile(sweep[name][:, a], 25):.0f}, "
                                 f"{np.nanpercentile(sweep[name][:, a], 75):.0f}] "
                                 f"({np.isnan(sweep[name][:, a]).sum()} not reached)" for a in range(modes)]
                          for name in SWEEP_ROWS}, index=[f"mode {a + 1}" for a in range(modes)]).T
    table.index = list(SWEEP_ROWS.values())
    table["paper"] = ["190 / 770 (analysis times)", "", ""]
    return table


def sweep_texts(sweep: dict, own_half: np.ndarray, seed: int, n_iterations: int) -> dict[str, str]:
    """The page's texts of the sweep: its size, the median half-times of modes 1 and 2 over random
    draws, and where this chapter's seed (``own_half`` (3,)) falls among them."""
    median = np.nanmedian(sweep["random"], axis=0)
    texts = {"smg_sweep_n": f"{len(sweep['random'])}", "smg_sweep_mode1": f"{median[0]:.0f}",
             "smg_sweep_mode2": f"{median[1]:.0f}", "smg_showcase_seed": f"{seed}",
             "smg_sweep_iterations": f"{n_iterations}"}
    for a in range(2):
        texts |= {f"smg_showcase_mode{a + 1}": f"{own_half[a]:.0f}",
                  f"smg_showcase_rank{a + 1}": f"{float(np.mean(sweep['random'][:, a] < own_half[a])):.0%}"}
    return texts


def judge_claims(m: SmgMeasures) -> dict[str, claims.Judgement]:
    """The judgement of each of chapter 02's claims, by claim name."""
    t1, t2 = m.analysis_times
    sweep = np.asarray(m.sweep_half, float)
    quartiles = {a: np.nanpercentile(sweep[:, a], [25, 75]) for a in range(2)}
    ranges = {a: (np.nanmin(sweep[:, a]), np.nanmax(sweep[:, a])) for a in range(2)}
    median = np.nanmedian(sweep, axis=0)
    closest = m.fig3.argmax(axis=1) + 1  # each row's mode
    ordered_share = np.mean([smg_claims.half_times_ordered(h) for h in sweep])
    in_iqr = all(quartiles[a][0] <= t <= quartiles[a][1] for a, t in enumerate(m.analysis_times))
    named, own, primary, secondary = claims.named_conditions, m.own_half, m.primary_switch, m.secondary_switch
    return {
        "smg-tiers": claims.judge("smg-tiers", conditions=named("smg-tiers", smg_claims.tiers(own, sweep)),
                                  ours=" < ".join(f"{h:.0f}" for h in own if not np.isnan(h))
                                       + f"; {ordered_share:.0%} of {len(sweep)} seeds"),
        "smg-fig3": claims.judge("smg-fig3", conditions=named("smg-fig3", smg_claims.fig3_tracking(m.fig3)),
                                 ours=f"t={t1}: vector 1 on mode {closest[0]} (|r| {m.fig3[0, 0]:.3f}); t={t2}: vectors "
                                      f"1 / 2 on modes {closest[2]} / {closest[3]} (|r| with mode 2: "
                                      f"{max(m.fig3[2, 1], m.fig3[3, 1]):.3f})",
                                 qualification="the second vector (the first stays on mode 1)" if closest[2] != 2
                                 else ""),
        "smg-mode-learned": claims.judge("smg-mode-learned", conditions=named(
            "smg-mode-learned", [m.best_mode[0] == 1, m.best_mode[1] == 2]),
            ours=f"mode {m.best_mode[0]} / mode {m.best_mode[1]}"),
        "smg-times": claims.judge("smg-times", conditions=named(
            "smg-times", [smg_claims.within_range(t, sweep[:, a]) for a, t in enumerate((t1, t2))]),
            ours=f"{median[0]:.0f} [{quartiles[0][0]:.0f}, {quartiles[0][1]:.0f}] / {median[1]:.0f} "
                 f"[{quartiles[1][0]:.0f}, {quartiles[1][1]:.0f}] (median [IQR]; range {ranges[0][0]:.0f}-"
                 f"{ranges[0][1]:.0f} / {ranges[1][0]:.0f}-{ranges[1][1]:.0f}); this seed {own[0]:.0f} / {own[1]:.0f}",
            qualification="" if in_iqr else "one of the paper's times lies outside our interquartile range"),
        "smg-primary": claims.judge("smg-primary", conditions=named("smg-primary", [
            smg_claims.settles_in_order(primary)]), ours=" / ".join(iteration_text(t) for t in primary[:3])),
        "smg-secondary": claims.judge("smg-secondary", conditions=named("smg-secondary", [
            smg_claims.switch_tied(secondary[2], primary[1])]),
            ours=f"{iteration_text(secondary[2])} vs {primary[1]:.0f} (secondary leaves mode 2 at "
                 f"{m.secondary_leaves_2:.0f})"),
        "smg-anticipation": claims.judge("smg-anticipation", conditions=named("smg-anticipation", [
            smg_claims.anticipates(primary[1], own[1])]), ours=f"{primary[1]:.0f} vs {own[1]:.0f}"),
        "smg-ntk": claims.judge("smg-ntk", value=m.ntk_mode1_share),
    }


def claim_rows(m: SmgMeasures) -> list[dict]:
    """The summary rows of chapter 02 (:func:`lib.book.summary.claim_row`): every claim, and the
    simulator's agreement with the closed form (largest half-time error over the sweep, within 10%)."""
    judged, E = judge_claims(m), summary.evidence
    t1, t2 = m.analysis_times
    worst = np.nanmax(m.twin_errors)
    return [
        summary.claim_row("SMG: modes learned one after another, larger first (half-times ordered: this seed; share "
                          "of sweep seeds)", "tiered learning", judged["smg-tiers"],
                          control="SMG's closed form (aligned twin)",
                          evidence=E("fig-smg-modes", "mode strengths vs closed form")),
        summary.claim_row(f"SMG Fig 3: data x data eNTK vector matching mode 1 at t={t1}; vectors 1 / 2 at t={t2}",
                          "mode 1; mode 2", judged["smg-fig3"], control="the input projections on the other modes",
                          evidence=E("fig-smg-fig3", "Fig 3")),
        summary.claim_row(f"SMG: mode being learned at t={t1} / t={t2} (top eNTK vector of the one-step map change)",
                          "mode 1 / mode 2", judged["smg-mode-learned"],
                          control="the plain NTK (Fig 14) points elsewhere",
                          evidence=E("fig-smg-primary-secondary", "Fig 4")),
        summary.claim_row("SMG: mode 1 / mode 2 half-times over random draws", f"{t1} / {t2}", judged["smg-times"],
                          control=f"{len(m.sweep_half)} random draws", evidence=E("tab-smg-sweep", "half-time sweep")),
        summary.claim_row("SMG Fig 4: primary vector settles on modes 1, 2, 3 in that order (iterations)",
                          "one at a time, larger first", judged["smg-primary"],
                          control="half-times of the mode strengths", evidence=E("tab-smg-switches", "switch table")),
        summary.claim_row("SMG Fig 4: secondary settles on mode 3 when the primary settles on mode 2 (iterations)",
                          "switches tied to the primary's", judged["smg-secondary"],
                          control="the primary's switch time", evidence=E("tab-smg-switches", "switch table")),
        summary.claim_row("SMG Fig 5: primary settles on mode 2 before mode 2 is half learned (iterations)",
                          "switch precedes the loss drop", judged["smg-anticipation"],
                          control="half-time of the mode strength", evidence=E("fig-smg-cos-vs-loss", "Fig 5")),
        summary.claim_row("SMG Fig 14: share of recorded times at which the plain NTK's primary vector best matches "
                          "mode 1", "always mode 1", judged["smg-ntk"], control="the eNTK (Fig 4)",
                          evidence=E("fig-smg-ntk", "Fig 14")),
        summary.row("SMG simulator vs closed form (aligned twin), largest half-time error, modes 1-3", "-",
                    f"{worst:.1%}", worst < 0.10, "within 10% over all sweep seeds"),
    ]
