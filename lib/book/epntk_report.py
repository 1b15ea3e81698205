"""Chapter 03's verdicts and summary rows: the ePNTK on the deep linear network (paper Figs 11-13,
App A.3) as the reader sees them.

Book layer. The rules are :mod:`lib.analyses.smg_claims`' and every verdict comes from
:func:`lib.analyses.claims.judge`; this module gathers the chapter's measurements
(:class:`EpntkMeasures`), judges each claim (:func:`judge_claims`) and turns the judgements into the
rows of :func:`lib.book.summary.claim_row` (:func:`claim_rows`). Checked in
``tests/test_epntk_report.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..analyses import claims, smg_claims
from . import summary


class EpntkMeasures(NamedTuple):
    """What chapter 03's claims read."""

    analysis_times: tuple  # (t1, t2): the paper's two analysed iterations
    map_error: float  # relative error of the ePNTK's estimate of W(t) - W(0) at t2
    slope: float  # fitted log-log slope of the reconstruction error of y(t) - y(0) against the learning rate
    output_error: float  # relative error of that reconstruction at the paper's step
    matches: dict  # (kernel "eNTK" or "ePNTK", time) -> (each vector's closest mode, 0-based (r,), its |cos| (r,))
    fig12_r: tuple  # |r| of the ePNTK's first vector with the mode-1 projection at t1 and at t2
    singular_value_half: np.ndarray  # (2,) iteration at which ePNTK singular value 1 / 2 reaches half the target's
    mode_half: np.ndarray  # (2,) half-time of mode 1 / 2's strength


def judge_claims(m: EpntkMeasures) -> dict[str, claims.Judgement]:
    """The judgement of each of chapter 03's claims, by claim name."""
    t1, t2 = m.analysis_times
    top = {key: int(modes[0]) + 1 for key, (modes, _) in m.matches.items()}  # each kernel's first vector's mode
    sv, mode = m.singular_value_half, m.mode_half
    named = claims.named_conditions
    return {
        "epntk-map": claims.judge("epntk-map", value=m.map_error),
        "epntk-exact": claims.judge("epntk-exact", value=m.slope,
                                    qualification="exact only in the limit of small steps (first order)"),
        "epntk-fig11": claims.judge("epntk-fig11", conditions=named("epntk-fig11", [
            smg_claims.fig11_matches(m.matches, t1, t2)]),
            ours=f"{top[('ePNTK', t1)]}; {top[('eNTK', t1)]}; {top[('eNTK', t2)]}; "
                 f"{' and '.join(str(a + 1) for a in sorted(m.matches[('ePNTK', t2)][0][:2]))}"),
        "epntk-fig12": claims.judge("epntk-fig12", value=min(m.fig12_r)),
        "epntk-fig13": claims.judge("epntk-fig13", conditions=named("epntk-fig13", smg_claims.half_times_match(sv, mode)),
                                    ours=f"{sv[0]:.0f} vs {mode[0]:.0f} / {sv[1]:.0f} vs {mode[1]:.0f}"),
    }


def claim_rows(m: EpntkMeasures) -> list[dict]:
    """The summary rows of chapter 03 (:func:`lib.book.summary.claim_row`), and the size of the Euler
    error at the paper's step (no claim)."""
    judged, E = judge_claims(m), summary.evidence
    t1, t2 = m.analysis_times
    return [
        summary.claim_row(f"ePNTK estimate of W(t) - W(0) at t={t2}: relative error", "'closely tracks' the true change",
                          judged["epntk-map"], control="the true W(t) - W(0)", evidence=E("fig-epntk-fig13", "Fig 13")),
        summary.claim_row("ePNTK reconstruction of y(t) - y(0): order of convergence in the learning rate (fitted "
                          "slope)", "complete attribution", judged["epntk-exact"], control="halved learning rates",
                          evidence=E("fig-epntk-convergence", "convergence figure")),
        summary.row("ePNTK reconstruction of y(t) - y(0) at the paper's step: relative error", "-",
                    f"{m.output_error:.2%}", None, "size of the Euler error (no claim)"),
        summary.claim_row(f"Fig 11: top vectors matched to modes (ePNTK t={t1}; eNTK t={t1}; eNTK t={t2}; ePNTK t={t2} "
                          "top two)", "1; 1; 2; 1 and 2", judged["epntk-fig11"], control="the other target modes",
                          evidence=E("fig-epntk-fig11", "Fig 11")),
        summary.claim_row(f"Fig 12: |r| of the ePNTK's first vector with the mode-1 projection at t={t1} / t={t2} (the "
                          "smaller)", "matches mode 1 at both times", judged["epntk-fig12"],
                          control="projections on the other modes", evidence=E("fig-epntk-fig12", "Fig 12")),
        summary.claim_row("Fig 13: iteration at which ePNTK singular value 1 / 2 reaches half the target's, vs the "
                          "mode's half-time", "jumps when the loss drops", judged["epntk-fig13"],
                          control="the mode strengths of W(t)", evidence=E("fig-epntk-fig13", "Fig 13")),
    ]
